/// Coverage and state of one product from its transactions.
///
/// States: `active` (a paid span covers the instant), `grace-period` (only a grace span does),
/// `scheduled` (a pass whose every counted purchase starts later), `revoked` (its latest
/// transaction was cancelled), `billing-retry` (an auto-renewable whose coverage ended while its
/// chain's latest renewal entry says billing is being retried), else `expired`.
extension Evaluator {
    static func evaluateProduct(
        _ catalog: CompiledCatalog, entries: ArraySlice<Entry>, receipts: [ParsedReceipt], renewals: RenewalFacts,
        graceCursor: inout Int, passes: [(product: Int32, span: CoverageSpan)], passCursor: inout Int, at: Int64,
        spans: inout [CoverageSpan], boundary: inout Int64, warnings: inout [EvaluationWarning]
    ) -> ProductOutcome {
        let productIndex = entries.first!.product
        let rule = catalog.rules[Int(productIndex)]
        let first = spans.count
        switch rule.type {
        case .nonConsumable:
            if rule.trialDays > 0 {
                trialSpan(rule, entries: entries, receipts: receipts, at: at, spans: &spans)
            } else if let entry = entries.first(where: {
                $0.cancellation > at && receipts[Int($0.receipt)].transactions[Int($0.index)].flags & TransactionRecord.upgraded == 0
            }) {
                spans.append(CoverageSpan(start: entry.purchase, end: CoverageSpan.never))
            }
        case .nonRenewingSubscription:
            if rule.passGroup >= 0 {
                // Stacked with the group's other passes (Evaluator+Passes); products come in order.
                while passCursor < passes.count, passes[passCursor].product < productIndex { passCursor += 1 }
                while passCursor < passes.count, passes[passCursor].product == productIndex {
                    spans.append(passes[passCursor].span)
                    passCursor += 1
                }
            } else {
                var end = Int64.min
                for entry in entries where entry.cancellation > at {
                    let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
                    guard record.flags & TransactionRecord.upgraded == 0 else { continue }
                    let start = max(entry.purchase, end)
                    end = max(passEnd(rule, receipts, entry, from: start), start)
                    spans.append(CoverageSpan(start: start, end: end))
                }
            }
        case .autoRenewableSubscription:
            for entry in entries where entry.cancellation > at {
                let receipt = receipts[Int(entry.receipt)]
                let record = receipt.transactions[Int(entry.index)]
                guard record.flags & TransactionRecord.upgraded == 0 else { continue }
                if record.expires == TransactionRecord.absentDate {
                    warnings.append(EvaluationWarning(kind: .missingExpiry(
                        transactionId: receipt.text(record.transactionId)!, productId: catalog.compiledProducts[Int(productIndex)].id)))
                } else if record.expires > entry.purchase {
                    spans.append(CoverageSpan(start: entry.purchase, end: record.expires))
                }
            }
            // Grace spans are sorted by product and products come in order: one cursor serves all.
            while graceCursor < renewals.grace.count, renewals.grace[graceCursor].product < productIndex { graceCursor += 1 }
            while graceCursor < renewals.grace.count, renewals.grace[graceCursor].product == productIndex {
                spans.append(renewals.grace[graceCursor].span)
                graceCursor += 1
            }
        case .consumable:
            break
        }
        var outcome = ProductOutcome(product: productIndex, state: .expired, until: CoverageSpan.never,
                                     spans: Int32(first)..<Int32(spans.count))
        let (coveringEnd, _) = spans.withUnsafeMutableBufferPointer { buffer in
            CoverageSpan.locate(UnsafeMutableBufferPointer(rebasing: buffer[first...]), at: at)
        }
        // Spans are sorted by start now: the next change of state, with what is known at `at`.
        boundary = min(boundary, nextStateChange(spans[first...], at: at))
        let status = rule.type == .autoRenewableSubscription ? chainStatus(of: productIndex, in: renewals) : nil
        if let coveringEnd {
            let paid = spans[first...].contains { !$0.isGrace && $0.start <= at && at < $0.end }
            outcome.state = paid ? .active : .gracePeriod
            outcome.until = coveringEnd
        } else if !spans[first...].isEmpty, spans[first...].allSatisfy({ $0.start > at }) {
            outcome.state = .scheduled
            outcome.startsAt = spans[first].start
        } else if entries.last!.cancellation <= at {
            outcome.state = .revoked
        } else if status?.isInBillingRetry == 1, spans[first...].contains(where: { $0.end <= at }) {
            outcome.state = .billingRetry
        } else {
            outcome.state = .expired
        }
        if let status {
            outcome.willRenew = status.willRenew
            outcome.renewsTo = status.renewsTo
        }
        outcome.spans = Int32(first)..<Int32(compactRelevant(&spans, from: first, at: at))
        return outcome
    }

    /// A trial covers its N days from the earliest original purchase of its transactions, so
    /// neither a restore nor a refund and purchase again restarts it.
    private static func trialSpan(
        _ rule: ProductRule, entries: ArraySlice<Entry>, receipts: [ParsedReceipt], at: Int64, spans: inout [CoverageSpan]
    ) {
        let days = Int64(rule.trialDays)
        var start = Int64.max
        var counted = false
        for entry in entries {
            let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
            let original = record.originalPurchase == TransactionRecord.absentDate ? record.purchase : record.originalPurchase
            start = min(start, original, record.purchase)
            counted = counted || (entry.cancellation > at && record.flags & TransactionRecord.upgraded == 0)
        }
        guard counted else { return }
        let (end, overflow) = start.addingReportingOverflow(days * CivilCalendar.millisecondsPerDay)
        spans.append(CoverageSpan(start: start, end: overflow ? Instant.latest.millisecondsSince1970
                                                      : min(end, Instant.latest.millisecondsSince1970)))
    }

    /// What the product's chain's latest renewal entry says (`renewals.latest` is sorted by product).
    private static func chainStatus(of product: Int32, in renewals: RenewalFacts) -> ChainStatus? {
        var low = 0, high = renewals.latest.count
        while low < high {
            let middle = (low + high) / 2
            if renewals.latest[middle].product < product { low = middle + 1 } else { high = middle }
        }
        return low < renewals.latest.count && renewals.latest[low].product == product ? renewals.latest[low] : nil
    }

    /// The first instant after `at` at which a product's state or `until` changes while nothing
    /// more becomes known: a boundary of its coverage runs, or, inside a run, of its paid runs
    /// (where it moves between `active` and `grace-period`). Spans must be sorted by start.
    static func nextStateChange(_ spans: ArraySlice<CoverageSpan>, at: Int64) -> Int64 {
        func firstBoundary(paidOnly: Bool) -> Int64 {
            var index = spans.startIndex
            while index < spans.endIndex {
                guard !paidOnly || !spans[index].isGrace else { index += 1; continue }
                let start = spans[index].start
                var end = spans[index].end
                index += 1
                while index < spans.endIndex, spans[index].start <= end {
                    if !paidOnly || !spans[index].isGrace { end = max(end, spans[index].end) }
                    index += 1
                }
                if start > at { return start }
                if end > at { return end == CoverageSpan.never ? .max : end }
            }
            return .max
        }
        let all = firstBoundary(paidOnly: false)
        return spans.contains(where: \.isGrace) ? min(all, firstBoundary(paidOnly: true)) : all
    }

    /// Replaces a product's spans (sorted by start) with the merged runs that end after `at`:
    /// runs that ended cannot affect a feature at `at` or later, and merging keeps the feature
    /// step's work proportional to the runs, not to the transactions. Returns the new end.
    static func compactRelevant(_ spans: inout [CoverageSpan], from first: Int, at: Int64) -> Int {
        var write = first
        for read in first..<spans.count {
            let span = spans[read]
            guard span.end > at, span.end > span.start else { continue }
            if write > first, span.start <= spans[write - 1].end {
                spans[write - 1].end = max(spans[write - 1].end, span.end)
            } else {
                spans[write] = CoverageSpan(start: span.start, end: span.end)
                write += 1
            }
        }
        spans.removeSubrange(write...)
        return write
    }
}
