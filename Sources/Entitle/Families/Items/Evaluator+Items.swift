/// Advanced Commerce items: a product that declares `items` gives through the SKUs its
/// transactions list, not through grants and credits of its own.
///
/// - A counted transaction's item grants its SKU's features while the transaction holds and the
///   item has not ended: from the transaction's purchase until the next counted transaction of
///   the same subscription chain (for an auto-renewable; for any other product, with no end),
///   within the product's coverage (so an expiry, a cancellation, grace and billing retry apply
///   as to the product), and before the item's revocation or first full refund. Each feature
///   names `<productId>/<SKU>` among its sources.
/// - A consumable's item credits its SKU's credits per unit that credits (see
///   ``Evaluator/creditedUnits(_:at:)``), unless it ended at or before the instant.
/// - A SKU the catalog does not declare for the product warns `unknown-item` and gives nothing.
///   Items of products without `items` are carried along and read by nothing.
extension Evaluation {
    /// The catalog's item of a transaction's item record, or `nil` when the product does not
    /// declare its SKU (noted in `unknown` as product and SKU).
    func catalogItem(_ record: ItemRecord, of product: Int32, in receipt: ParsedReceipt, unknown: inout Set<UnknownItem>) -> Int? {
        let index = receipt.arena.withUnsafeBytes { arena in
            catalog.itemTable.find(UnsafeRawBufferPointer(rebasing: arena[Int(record.sku.start)..<Int(record.sku.start + record.sku.count)]))
        }
        guard index >= 0, catalog.itemList[Int(index)].product == product else {
            unknown.insert(UnknownItem(product: product, sku: receipt.text(record.sku)!))
            return nil
        }
        return Int(index)
    }

    /// Credits a consumable transaction's items: `units` of each item that has not ended.
    mutating func creditItems(
        _ entry: Entry, units: Int64, balances: inout [Int64], overflowed: inout [Int32], unknown: inout Set<UnknownItem>
    ) {
        let receipt = receipts[Int(entry.receipt)]
        for position in entry.record.items {
            let record = receipt.items[Int(position)]
            guard let index = catalogItem(record, of: entry.product, in: receipt, unknown: &unknown) else { continue }
            if R.records { recorder.item(entry, item: index, ends: record.ends) }
            guard record.ends > at else { continue }
            for credit in catalog.itemList[index].item.credits {
                let (amount, o1) = credit.amount.multipliedReportingOverflow(by: units)
                addCredits(entry, o1 ? .max : amount, to: credit.currency, balances: &balances, overflowed: &overflowed)
            }
        }
    }

    /// What the items of one product's transactions grant (`entries`, in purchase order), within
    /// the product's coverage runs `runs` (sorted, merged, those ending after the instant).
    mutating func itemAccess(
        entries: ArraySlice<Entry>, runs: ArraySlice<CoverageSpan>, into access: inout [AccessSpan], unknown: inout Set<UnknownItem>
    ) {
        guard let first = entries.first else { return }
        let renews = catalog.rules[Int(first.product)].type == .autoRenewableSubscription
        // For an auto-renewable: the purchase of the next counted transaction of each one's chain.
        var next = [Int64](repeating: .max, count: entries.count)
        if renews {
            var later: [String: Int64] = [:]
            for (offset, entry) in entries.enumerated().reversed() where counts(entry) {
                let receipt = receipts[Int(entry.receipt)]
                let chain = receipt.text(entry.record.originalTransactionId) ?? ""
                next[offset] = later[chain] ?? .max
                later[chain] = entry.purchase
            }
        }
        for (offset, entry) in entries.enumerated() where counts(entry) {
            let receipt = receipts[Int(entry.receipt)]
            for position in entry.record.items {
                let record = receipt.items[Int(position)]
                guard let index = catalogItem(record, of: entry.product, in: receipt, unknown: &unknown) else { continue }
                if R.records { recorder.item(entry, item: index, ends: record.ends) }
                let (_, item, source) = catalog.itemList[index]
                let start = entry.purchase
                let end = min(next[offset], record.ends)
                for run in runs {
                    let span = CoverageSpan(start: max(run.start, start), end: min(run.end, end))
                    guard span.end > span.start, span.end > at else { continue }
                    for feature in item.grants {
                        access.append(AccessSpan(feature: Int32(feature), source: source, span: span, isGrandfathered: false))
                    }
                }
            }
        }
    }

    /// Merges the spans of one feature and one SKU (several purchases may list a SKU) into
    /// unbroken runs: the next change of a SKU's coverage is where its union begins or ends.
    static func mergedItemSpans(_ spans: [AccessSpan]) -> [AccessSpan] {
        guard spans.count > 1 else { return spans }
        let sorted = spans.sorted {
            ($0.feature, $0.source, $0.span.start) < ($1.feature, $1.source, $1.span.start)
        }
        var merged: [AccessSpan] = []
        merged.reserveCapacity(sorted.count)
        for item in sorted {
            if let last = merged.last, last.feature == item.feature, last.source == item.source, item.span.start <= last.span.end {
                merged[merged.count - 1].span.end = max(last.span.end, item.span.end)
            } else {
                merged.append(item)
            }
        }
        return merged
    }

    /// Whether a transaction counts for its product's coverage at the instant (known, not
    /// cancelled, not upgraded away).
    private func counts(_ entry: Entry) -> Bool {
        entry.purchase <= at && entry.cancellation > at && !entry.isUpgraded
    }

    /// One `unknown-item` warning per product and SKU, sorted.
    static func unknownItemWarnings(_ unknown: Set<UnknownItem>, catalog: CompiledCatalog) -> [EvaluationWarning] {
        unknown.sorted { ($0.product, $0.sku) < ($1.product, $1.sku) }.map { item in
            EvaluationWarning(kind: .unknownItem(productId: catalog.compiledProducts[Int(item.product)].id, sku: item.sku))
        }
    }
}

/// A SKU a transaction lists that its product does not declare.
struct UnknownItem: Hashable {
    var product: Int32
    var sku: String
}
