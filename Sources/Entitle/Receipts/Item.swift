/// The SKUs of an Advanced Commerce purchase: each item of a transaction (Apple's
/// `advancedCommerceInfo.items[]`) with its price, its own revocation and refunds. A product that
/// declares `items` grants what each item's SKU gives; an item revoked, or refunded in full, ends
/// its own grants from that date while the other items continue.
extension Transaction {
    /// One SKU of an Advanced Commerce purchase or renewal.
    public struct Item: Hashable, Sendable {
        /// The SKU, as the developer named it in the Advanced Commerce request (Apple's `SKU`).
        public var sku: String
        /// What the item costs, a decimal amount (Apple's milliunits: `9990` is `9.99`), in the
        /// transaction's currency.
        public var price: String
        /// When Apple revoked this item alone (Apple's per-item `revocationDate`).
        public var revocationDate: Instant?
        /// The item's refunds (a renewal entry's items have none).
        public var refunds: [Refund]

        /// Creates an item.
        public init(sku: String, price: String, revocationDate: Instant? = nil, refunds: [Refund] = []) {
            self.sku = sku
            self.price = price
            self.revocationDate = revocationDate
            self.refunds = refunds
        }

        /// One refund of an item (Apple's `refunds[]`).
        public struct Refund: Hashable, Sendable {
            /// How much was refunded, a decimal amount no greater than the item's price.
            public var amount: String
            /// When it was refunded.
            public var date: Instant
            /// Whether it refunded the whole item (which ends its grants) or part of it.
            public var type: RefundType

            /// Creates a refund.
            public init(amount: String, date: Instant, type: RefundType) {
                self.amount = amount
                self.date = date
                self.type = type
            }
        }

        /// How much of an item a refund gave back (Apple's `refundType`).
        @nonexhaustive
        public enum RefundType: String, Hashable, Sendable, CaseIterable {
            /// The whole item (`FULL`): its grants end at the refund's date.
            case full
            /// A share in proportion to the time left (`PRORATED`): the item continues.
            case prorated
            /// An amount the developer chose (`CUSTOM`): the item continues.
            case custom
        }

        /// When the item stops granting: its revocation or its first full refund, whichever is
        /// first; `nil` while neither happened.
        public var endsAt: Instant? {
            let dates = [revocationDate].compactMap { $0 } + refunds.filter { $0.type == .full }.map(\.date)
            return dates.min()
        }
    }
}

extension [Transaction.Item] {
    /// The items in the order a normalized receipt reads back: by the SKU's bytes, each item's
    /// refunds by date, type and amount (as the decoder keeps them), so that what an importer or a
    /// story writes reads back the same from its JSON.
    package var canonical: [Transaction.Item] {
        let items: [Transaction.Item] = map { item in
            var item = item
            item.refunds.sort { ItemRefundRecord.precedes(ItemRefundRecord($0), ItemRefundRecord($1)) }
            return item
        }
        return items.sorted { (a: Transaction.Item, b: Transaction.Item) in a.sku.utf8.lexicographicallyPrecedes(b.sku.utf8) }
    }
}

/// One item of a transaction or renewal entry, reduced to numbers and a text range.
struct ItemRecord: Sendable, Equatable {
    var sku: TextRange
    /// The price in thousandths of the currency unit.
    var price: Int64
    /// When revoked; `Int64.max` when not.
    var revocation: Int64 = TransactionRecord.noCancellation
    /// Range into ``ParsedReceipt/itemRefunds``.
    var refunds: Range<Int32> = 0..<0
    /// When it stops granting: the revocation or the first full refund; `Int64.max` when neither.
    var ends: Int64 = TransactionRecord.noCancellation
}

/// One refund of an item.
struct ItemRefundRecord: Sendable, Equatable {
    /// Thousandths of the currency unit.
    var amount: Int64
    var date: Int64
    /// `Transaction.Item.RefundType` by its index, plus one.
    var type: UInt8

    static let full = ParsedReceipt.code(Transaction.Item.RefundType.full)

    /// The refund of a value, as the decoder reads it.
    init(amount: Int64, date: Int64, type: UInt8) {
        self.amount = amount
        self.date = date
        self.type = type
    }

    init(_ refund: Transaction.Item.Refund) {
        self.init(
            amount: Price.thousandths(refund.amount) ?? 0, date: refund.date.clampedToRange.millisecondsSince1970,
            type: ParsedReceipt.code(refund.type))
    }

    /// The order an item's refunds are kept in, whatever order a store lists them: by date, type
    /// and amount.
    static func precedes(_ a: ItemRefundRecord, _ b: ItemRefundRecord) -> Bool {
        (a.date, a.type, a.amount) < (b.date, b.type, b.amount)
    }
}

extension Price {
    /// An amount (``isAmount(_:)``) in thousandths (`9.99` is 9990); `nil` when it is not one.
    static func thousandths(_ amount: String) -> Int64? {
        guard isAmount(amount) else { return nil }
        let parts = amount.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = Int64(parts[0]) else { return nil }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1] + String(repeating: "0", count: 3 - parts[1].count)
            fraction = Int64(digits) ?? 0
        }
        let (scaled, o1) = whole.multipliedReportingOverflow(by: 1_000)
        let (sum, o2) = scaled.addingReportingOverflow(fraction)
        return o1 || o2 ? nil : sum
    }
}

extension ParsedReceipt {
    /// The items of a transaction or renewal entry as values, in SKU order.
    func items(_ range: Range<Int32>) -> [Transaction.Item] {
        items[Int(range.lowerBound)..<Int(range.upperBound)].map { record in
            Transaction.Item(
                sku: text(record.sku)!, price: Price.decimal(thousandths: record.price),
                revocationDate: record.revocation == TransactionRecord.noCancellation ? nil : Instant(millisecondsSince1970: record.revocation),
                refunds: itemRefunds[Int(record.refunds.lowerBound)..<Int(record.refunds.upperBound)].map { refund in
                    Transaction.Item.Refund(
                        amount: Price.decimal(thousandths: refund.amount), date: Instant(millisecondsSince1970: refund.date),
                        type: ParsedReceipt.value(refund.type) ?? .custom)
                })
        }
    }

    /// Whether two ranges of items (of this receipt and `other`) name the same SKUs at the same
    /// prices, and unless `revocationsAside`, the same revocations and refunds (those are a
    /// snapshot's, like a cancellation).
    func sameItems(_ a: Range<Int32>, _ other: ParsedReceipt, _ b: Range<Int32>, revocationsAside: Bool = true) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            let left = items[Int(x)]
            let right = other.items[Int(y)]
            guard left.price == right.price, bytesEqual(left.sku, other, right.sku) else { return false }
            guard !revocationsAside else { return true }
            return left.revocation == right.revocation
                && itemRefunds[Int(left.refunds.lowerBound)..<Int(left.refunds.upperBound)]
                    == other.itemRefunds[Int(right.refunds.lowerBound)..<Int(right.refunds.upperBound)]
        }
    }
}

extension ParsedReceipt.Fields {
    /// Appends item values as records, sorted by SKU bytes (a value built in code with an amount
    /// that is not one reads as 0: ``Receipt/limitViolation`` reports it).
    mutating func append(items values: [Transaction.Item]) -> Range<Int32> {
        let first = Int32(items.count)
        for item in values {
            append(
                item: ItemRecord(
                    sku: store(item.sku), price: Price.thousandths(item.price) ?? 0,
                    revocation: item.revocationDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.noCancellation),
                refunds: item.refunds.map(ItemRefundRecord.init))
        }
        let range = first..<Int32(items.count)
        sortItems(range)
        return range
    }

    /// Appends one item with its refunds, the decoder's and a value's alike: it stops giving at
    /// its revocation or its first full refund, whichever is first.
    mutating func append(item: ItemRecord, refunds: [ItemRefundRecord]) {
        var item = item
        let start = Int32(itemRefunds.count)
        itemRefunds += refunds
        item.refunds = start..<Int32(itemRefunds.count)
        item.ends = refunds.reduce(item.revocation) { $1.type == ItemRefundRecord.full ? min($0, $1.date) : $0 }
        items.append(item)
    }

    /// Sorts a transaction's items by SKU bytes and each item's refunds by date, type and amount:
    /// the order of a store's list never matters.
    mutating func sortItems(_ range: Range<Int32>) {
        guard !range.isEmpty else { return }
        let arena = self.arena
        func sku(_ record: ItemRecord) -> ArraySlice<UInt8> { arena[Int(record.sku.start)..<Int(record.sku.start + record.sku.count)] }
        if range.count > 1 {
            items[Int(range.lowerBound)..<Int(range.upperBound)].sort { sku($0).lexicographicallyPrecedes(sku($1)) }
        }
        for index in range {
            let refunds = items[Int(index)].refunds
            guard refunds.count > 1 else { continue }
            itemRefunds[Int(refunds.lowerBound)..<Int(refunds.upperBound)].sort(by: ItemRefundRecord.precedes)
        }
    }
}
