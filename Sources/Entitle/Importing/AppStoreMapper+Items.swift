/// Advanced Commerce: a transaction's and a renewal info's `advancedCommerceInfo.items[]` as
/// ``Transaction/Item``s. Apple's `SKU`, `price` (milliunits) and per-item `revocationDate` and
/// `refunds[]` (`refundAmount` in milliunits, `refundDate`, `refundType` `FULL`, `PRORATED`,
/// `CUSTOM`); the descriptions, display names and tax fields are not carried.
///
/// An item decides access, so one that cannot be read refuses the data, located: a missing SKU or
/// price, a SKU listed twice, an amount that is not whole milliunits from 0, a refund above the
/// price. A refund of a type entitle does not know is left out with a warning (it is not a full
/// refund, so the item continues).
extension AppStoreMapper {
    mutating func advancedCommerceItems(_ node: JSONNode, renewal: Bool, path: String) throws(ImportFailure) -> [Transaction.Item] {
        guard let info = node["advancedCommerceInfo"], !info.isNull else { return [] }
        let infoPath = path.isEmpty ? "advancedCommerceInfo" : path + ".advancedCommerceInfo"
        guard info.isObject else { throw ImportFailure(offset: info.offset, message: "`advancedCommerceInfo` is not an object", path: infoPath) }
        guard let list = info["items"], !list.isNull else { return [] }
        guard let elements = list.elements else {
            throw ImportFailure(offset: list.offset, message: "`items` is not an array", path: infoPath + ".items")
        }
        guard elements.count <= ReceiptLimits.maxItems else {
            throw ImportFailure(
                offset: list.offset, message: "more than \(ReceiptLimits.maxItems) items in one transaction", path: infoPath + ".items")
        }
        var items: [Transaction.Item] = []
        var seen: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let itemPath = "\(infoPath).items[\(index)]"
            guard element.isObject else { throw ImportFailure(offset: element.offset, message: "an item is not an object", path: itemPath) }
            guard let sku = element["SKU"]?.lenientString, !sku.isEmpty, sku.utf8.count <= ReceiptLimits.maxTextBytes else {
                throw ImportFailure(
                    offset: element.offset, message: "item without a `SKU` of 1 to \(ReceiptLimits.maxTextBytes) bytes", path: itemPath)
            }
            if let first = seen[sku] {
                throw ImportFailure(
                    offset: element.offset, message: "SKU `\(Diagnostic.excerpt(sku))` is listed twice", path: itemPath + ".SKU",
                    help: "the first is \(infoPath).items[\(first)]")
            }
            seen[sku] = index
            let price = try Self.milliunits(element["price"], key: "price", path: itemPath + ".price", offset: element.offset)
            var item = Transaction.Item(sku: sku, price: Price.decimal(thousandths: price))
            if !renewal {
                if let value = element["revocationDate"], !value.isNull {
                    item.revocationDate = try value.instant(key: "revocationDate", path: itemPath + ".revocationDate")
                }
                if let refunds = element["refunds"], !refunds.isNull {
                    guard let refundElements = refunds.elements, refundElements.count <= ReceiptLimits.maxItemRefunds else {
                        throw ImportFailure(
                            offset: refunds.offset, message: "`refunds` is not an array of at most \(ReceiptLimits.maxItemRefunds) refunds",
                            path: itemPath + ".refunds")
                    }
                    for (position, refund) in refundElements.enumerated() {
                        let refundPath = "\(itemPath).refunds[\(position)]"
                        let amount = try Self.milliunits(
                            refund["refundAmount"], key: "refundAmount", path: refundPath + ".refundAmount", offset: refund.offset)
                        guard amount <= price else {
                            throw ImportFailure(
                                offset: refund.offset,
                                message: "a refund of \(amount) milliunits is more than the item's price of \(price)",
                                path: refundPath + ".refundAmount")
                        }
                        guard let dateNode = refund["refundDate"], !dateNode.isNull else {
                            throw ImportFailure(offset: refund.offset, message: "refund without `refundDate`", path: refundPath)
                        }
                        let date = try dateNode.instant(key: "refundDate", path: refundPath + ".refundDate")
                        let types: [String: Transaction.Item.RefundType] = ["FULL": .full, "PRORATED": .prorated, "CUSTOM": .custom]
                        guard let name = refund["refundType"]?.lenientString, let type = types[name] else {
                            warnings.append(
                                ImportWarning(
                                    path: refundPath + ".refundType",
                                    message:
                                        "unknown refund type \(refund["refundType"]?.lenientString.map { "`\(Diagnostic.excerpt($0))`" } ?? "value"), refund ignored"
                                ))
                            continue
                        }
                        item.refunds.append(Transaction.Item.Refund(amount: Price.decimal(thousandths: amount), date: date, type: type))
                    }
                }
            }
            items.append(item)
        }
        return items.canonical
    }

    /// Whole milliunits from 0 (Apple's prices and refund amounts), within what an amount holds.
    private static func milliunits(_ node: JSONNode?, key: String, path: String, offset: Int) throws(ImportFailure) -> Int64 {
        guard let node, !node.isNull else { throw ImportFailure(offset: offset, message: "item without `\(key)`", path: path) }
        guard let value = node.lenientInteger, Price.amount(milliunits: value) != nil else {
            throw ImportFailure(offset: node.offset, message: "`\(key)` is not a whole number of milliunits from 0", path: path)
        }
        return value
    }
}
