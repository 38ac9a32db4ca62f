/// Non-renewing subscriptions (passes). Purchases stack in purchase order (ties by transaction id,
/// numerically when both are digits), each covering its product's duration, times its quantity,
/// from the later of its purchase and the end of the stack before it.
///
/// Without a `group`, each product stacks on its own. Passes of one pass group stack together:
/// a 3-month pass bought after a 1-month pass starts when the 1-month pass ends, and each span
/// belongs to the product bought for it. A product whose every counted purchase starts after the
/// instant is `scheduled`.
extension Evaluator {
    /// The spans of the passes of every pass group, sorted by product then start.
    static func passGroupSpans(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], entries: [Entry], at: Int64
    ) -> [(product: Int32, span: CoverageSpan)] {
        var grouped: [(group: Int32, entry: Entry)] = []
        for entry in entries where entry.cancellation > at && !entry.isUpgraded {
            let rule = catalog.rules[Int(entry.product)]
            guard rule.passGroup >= 0 else { continue }
            grouped.append((rule.passGroup, entry))
        }
        guard !grouped.isEmpty else { return [] }
        grouped.sort { $0.group != $1.group ? $0.group < $1.group : precedes($0.entry, $1.entry, receipts: receipts) }
        var spans: [(product: Int32, span: CoverageSpan)] = []
        spans.reserveCapacity(grouped.count)
        var end = Int64.min
        for (position, item) in grouped.enumerated() {
            if position > 0, grouped[position - 1].group != item.group { end = .min }
            let start = max(item.entry.purchase, end)
            end = max(item.entry.capped(passEnd(catalog.rules[Int(item.entry.product)], item.entry, from: start)), start)
            spans.append((item.entry.product, CoverageSpan(start: start, end: end)))
        }
        spans.sort { $0.product != $1.product ? $0.product < $1.product : $0.span.start < $1.span.start }
        return spans
    }

    /// The end of a pass bought with `entry`, starting at `start`: the product's duration times
    /// the quantity, added as one calendar step.
    @inline(__always)
    static func passEnd(_ rule: ProductRule, _ entry: Entry, from start: Int64) -> Int64 {
        passEnd(rule, quantity: entry.record.countedQuantity, from: start)
    }

    /// The end of a pass of `quantity` units bought at `start`.
    @inline(__always)
    static func passEnd(_ rule: ProductRule, quantity: Int64, from start: Int64) -> Int64 {
        ISODuration.add(
            months: Int(rule.durationMonths), days: Int64(rule.durationDays),
            milliseconds: rule.durationMilliseconds, times: quantity, to: start)
    }
}
