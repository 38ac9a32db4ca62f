/// A transaction's or renewal entry's Advanced Commerce `items`: each `{"sku", "price"}`, and for
/// a transaction `"revocationDate"` and `"refunds": [{"amount", "date", "type"}]`. A SKU listed
/// twice, a refund above the item's price and an unknown key are located errors.
extension ReceiptDecoder {
    /// A renewal item's members are the first of an item's (``ReceiptObject``).
    static let itemTable = JSONKeyTable(ReceiptObject.item.keys)
    static let refundTable = JSONKeyTable(ReceiptObject.refund.keys)

    /// Reads an `items` array into the receipt's items, sorted by SKU; `renewal` allows only
    /// `sku` and `price`.
    static func decodeItems(
        _ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, renewal: Bool, path: @autoclosure () -> String
    ) throws -> Range<Int32> {
        if try readNull(&reader) { return 0..<0 }
        let first = Int32(receipt.items.count)
        var offsets: [Int] = []
        var prediction = JSONKeyTable.Prediction()
        try readList(&reader, limit: ReceiptLimits.maxItems, of: "items", in: renewal ? "renewal entry" : "transaction", path: path()) {
            reader, position in
            offsets.append(try reader.peekOffset())
            let (item, refunds) = try decodeItem(
                &reader, into: &receipt, renewal: renewal, prediction: &prediction, path: path() + "[\(position)]")
            receipt.append(item: item, refunds: refunds)
        }
        let range = first..<Int32(receipt.items.count)
        // A SKU listed twice: located at its second place in the list.
        if range.count > 1 {
            let arena = receipt.arena
            let items = receipt.items
            func sku(_ position: Int) -> ArraySlice<UInt8> {
                let record = items[Int(first) + position]
                return arena[Int(record.sku.start)..<Int(record.sku.start + record.sku.count)]
            }
            let order = (0..<range.count).sorted { a, b in
                sku(a).elementsEqual(sku(b)) ? a < b : sku(a).lexicographicallyPrecedes(sku(b))
            }
            for (previous, next) in zip(order, order.dropFirst()) where sku(previous).elementsEqual(sku(next)) {
                throw Failure(
                    offset: offsets[next], message: "SKU `\(Diagnostic.excerpt(String(decoding: sku(next), as: UTF8.self)))` is listed twice",
                    code: .badValue, path: path() + "[\(next)].sku", help: "the first is \(path())[\(previous)]; one purchase lists each SKU once")
            }
        }
        receipt.sortItems(range)
        return range
    }

    private static func decodeItem(
        _ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, renewal: Bool, prediction: inout JSONKeyTable.Prediction,
        path: @autoclosure () -> String
    ) throws -> (ItemRecord, [ItemRefundRecord]) {
        var record = ItemRecord(sku: .none, price: -1)
        var refunds: [(record: ItemRefundRecord, offset: Int)] = []
        let start = try expectObject(&reader, path: path())
        var seen = KeySet()
        try reader.readObject(keys: itemTable, prediction: &prediction) { reader, index, key in
            if let index { try seen.insert(index, key) }
            if renewal, let index, index > 1 { throw unknownKey(key, in: .renewalItem, path: path()) }
            switch index {
            case 0:
                record.sku = try nonEmptyText(&reader, into: &receipt, path: path() + ".sku")
            case 1:
                record.price = try amount(&reader, path: path() + ".price")
            case 2:
                record.revocation = try optionalInstant(&reader, path: path() + ".revocationDate") ?? TransactionRecord.noCancellation
            case 3:
                if try readNull(&reader) { break }
                var refundPrediction = JSONKeyTable.Prediction()
                try readList(&reader, limit: ReceiptLimits.maxItemRefunds, of: "refunds", in: "item", path: path() + ".refunds") { reader, position in
                    let offset = try reader.peekOffset()
                    refunds.append((try decodeRefund(&reader, prediction: &refundPrediction, path: path() + ".refunds[\(position)]"), offset))
                }
            default:
                throw unknownKey(key, in: renewal ? .renewalItem : .item, path: path())
            }
        }
        guard !record.sku.isNone else { throw missing("sku", in: "item", at: start, path: path()) }
        guard record.price >= 0 else { throw missing("price", in: "item", at: start, path: path()) }
        for (position, refund) in refunds.enumerated() {
            guard refund.record.amount <= record.price else {
                throw Failure(
                    offset: refund.offset,
                    message:
                        "a refund of \(Price.decimal(thousandths: refund.record.amount)) is more than the item's price of \(Price.decimal(thousandths: record.price))",
                    code: .badValue, path: path() + ".refunds[\(position)].amount", help: "an item's refund gives back at most what it cost")
            }
        }
        return (record, refunds.map(\.record))
    }

    private static func decodeRefund(
        _ reader: inout JSONReader, prediction: inout JSONKeyTable.Prediction, path: @autoclosure () -> String
    ) throws -> ItemRefundRecord {
        var refund = ItemRefundRecord(amount: -1, date: TransactionRecord.absentDate, type: 0)
        let start = try expectObject(&reader, path: path())
        var seen = KeySet()
        try reader.readObject(keys: refundTable, prediction: &prediction) { reader, index, key in
            if let index { try seen.insert(index, key) }
            switch index {
            case 0: refund.amount = try amount(&reader, path: path() + ".amount")
            case 1: refund.date = try instant(&reader, path: path() + ".date")
            case 2: refund.type = try optionalEnum(&reader, Transaction.Item.RefundType.self, what: "refund type", path: path() + ".type")
            default: throw unknownKey(key, in: .refund, path: path())
            }
        }
        for (field, missing) in [("amount", refund.amount < 0), ("date", refund.date == TransactionRecord.absentDate), ("type", refund.type == 0)]
        where missing {
            throw Self.missing(field, in: "refund", at: start, path: path())
        }
        return refund
    }

    /// A decimal amount string (``Price/isAmount(_:)``) in thousandths.
    private static func amount(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> Int64 {
        let token = try stringToken(&reader, path: path())
        let text = token.string
        guard let value = Price.thousandths(text) else {
            throw Failure(
                offset: token.offset, message: "`\(Diagnostic.excerpt(text))` is not an amount", code: .badValue, path: path(),
                help: "a decimal string with at most three decimals, as Apple's milliunits give: `9.99`")
        }
        return value
    }
}
