/// Coverage and state of one product from its transactions.
///
/// States: `active` (a paid span covers the instant), `grace-period` (only a grace span does),
/// `scheduled` (a pass whose every counted purchase starts later), `revoked` (its latest
/// transaction was cancelled), `billing-retry` (an auto-renewable whose coverage ended while its
/// chain's latest renewal entry says billing is being retried), else `expired`.
extension Evaluator {
    /// Per subscription group with win-back or promotional offers: the end of its last coverage
    /// that ended by the instant, and whether some coverage holds the instant (grace included).
    struct GroupLapse {
        var lastEnd = Int64.min
        var covered = false
    }

    /// What a cancelled transaction covered before its cancellation, on its own: an
    /// auto-renewable to its expiry, a pass its duration from its purchase, a trial its days from
    /// its original purchase, a non-consumable from its purchase; each cut at the cancellation.
    /// `nil` when that is nothing (a consumable, no expiry, a cancellation at or before the start).
    static func historySpan(_ rule: ProductRule, _ entry: Entry) -> CoverageSpan? {
        let record = entry.record
        var start = entry.purchase
        var end: Int64
        switch rule.type {
        case .consumable:
            return nil
        case .autoRenewableSubscription:
            guard record.expires != TransactionRecord.absentDate else { return nil }
            end = record.expires
        case .nonRenewingSubscription:
            end = passEnd(rule, entry, from: start)
        case .nonConsumable:
            if rule.trialDays > 0 {
                if record.originalPurchase != TransactionRecord.absentDate { start = min(start, record.originalPurchase) }
                let (sum, overflow) = start.addingReportingOverflow(Int64(rule.trialDays) * CivilCalendar.millisecondsPerDay)
                end = overflow ? Int64.max : sum
            } else {
                end = CoverageSpan.never
            }
        }
        end = min(end, entry.cancellation)
        return end > start ? CoverageSpan(start: start, end: end) : nil
    }

    /// A trial covers its N days from the earliest original purchase of its transactions, so
    /// neither a restore nor a refund and purchase again restarts it.
    static func trialSpan(_ rule: ProductRule, entries: ArraySlice<Entry>, at: Int64, spans: inout [CoverageSpan]) {
        let days = Int64(rule.trialDays)
        var start = Int64.max
        var counted = false
        for entry in entries {
            let record = entry.record
            let original = record.originalPurchase == TransactionRecord.absentDate ? record.purchase : record.originalPurchase
            start = min(start, original, record.purchase)
            counted = counted || (entry.cancellation > at && !entry.isUpgraded)
        }
        guard counted else { return }
        let (end, overflow) = start.addingReportingOverflow(days * CivilCalendar.millisecondsPerDay)
        spans.append(
            CoverageSpan(
                start: start,
                end: overflow
                    ? Instant.latest.millisecondsSince1970
                    : min(end, Instant.latest.millisecondsSince1970)))
    }

    /// What the product's chain's latest renewal entry says (`renewals.latest` is sorted by product).
    static func chainStatus(of product: Int32, in renewals: RenewalFacts) -> ChainStatus? {
        var low = 0
        var high = renewals.latest.count
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
                guard !paidOnly || !spans[index].isGrace else {
                    index += 1
                    continue
                }
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

extension Evaluation {
    mutating func product(
        entries: ArraySlice<Entry>, renewals: RenewalFacts, graceCursor: inout Int, passes: [(product: Int32, span: CoverageSpan)],
        passCursor: inout Int, spans: inout [CoverageSpan], lapses: inout [GroupLapse], pendingSince: Int64? = nil,
        releasedAt: Int64? = nil
    ) -> ProductOutcome {
        let productIndex = entries.first!.product
        let rule = catalog.rules[Int(productIndex)]
        let first = spans.count
        // What covers, per counted transaction, for an explanation.
        var covered: [(entry: Entry, span: CoverageSpan?)] = []
        func note(_ entry: Entry, _ span: CoverageSpan?) { if R.records { covered.append((entry, span)) } }
        func excluded(_ entry: Entry) -> Bool {
            if entry.cancellation <= at {
                if R.records { recorder.excluded(entry, because: .cancelled) }
                return true
            }
            if entry.isUpgraded {
                if R.records { recorder.excluded(entry, because: .upgraded) }
                return true
            }
            return false
        }
        switch rule.type {
        case .nonConsumable:
            if rule.trialDays > 0 {
                Evaluator.trialSpan(rule, entries: entries, at: at, spans: &spans)
                for entry in entries where !excluded(entry) { note(entry, spans.count > first ? spans[first] : nil) }
            } else {
                var owned = false
                for entry in entries where !excluded(entry) {
                    if !owned {
                        spans.append(CoverageSpan(start: entry.purchase, end: entry.capped(CoverageSpan.never)))
                        owned = true
                        note(entry, spans.last)
                        if !R.records { break }
                    } else {
                        note(entry, nil)
                    }
                }
            }
        case .nonRenewingSubscription:
            if rule.passGroup >= 0 {
                // Stacked with the group's other passes (Evaluator+Passes); products come in order.
                while passCursor < passes.count, passes[passCursor].product < productIndex { passCursor += 1 }
                // The group's spans of this product are in its purchase order, as its entries.
                var next = entries.startIndex
                while passCursor < passes.count, passes[passCursor].product == productIndex {
                    spans.append(passes[passCursor].span)
                    if R.records {
                        while next < entries.endIndex, excluded(entries[next]) { next += 1 }
                        if next < entries.endIndex { note(entries[next], passes[passCursor].span) }
                        next += 1
                    }
                    passCursor += 1
                }
                if R.records {
                    while next < entries.endIndex {
                        _ = excluded(entries[next])
                        next += 1
                    }
                }
            } else {
                var end = Int64.min
                for entry in entries where !excluded(entry) {
                    let start = max(entry.purchase, end)
                    end = max(entry.capped(Evaluator.passEnd(rule, entry, from: start)), start)
                    spans.append(CoverageSpan(start: start, end: end))
                    note(entry, spans.last)
                }
            }
        case .autoRenewableSubscription:
            for entry in entries where !excluded(entry) {
                if entry.expires == TransactionRecord.absentDate {
                    let receipt = receipts[Int(entry.receipt)]
                    warnings.append(
                        EvaluationWarning(
                            kind: .missingExpiry(
                                transactionId: receipt.text(entry.record.transactionId)!, productId: catalog.compiledProducts[Int(productIndex)].id)))
                    if R.records { recorder.excluded(entry, because: .noExpiry) }
                } else if entry.capped(entry.expires) > entry.purchase {
                    spans.append(CoverageSpan(start: entry.purchase, end: entry.capped(entry.expires)))
                    note(entry, spans.last)
                } else {
                    note(entry, nil)
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
        if R.records { for (entry, span) in covered { recorder.covers(entry, span: span) } }
        // A refund ends coverage; it does not erase it: what a cancelled transaction covered
        // before its cancellation is history that a group's lapse and an explanation read.
        let tracksLapse = rule.group >= 0 && !lapses.isEmpty
        if R.records || tracksLapse {
            for entry in entries where entry.cancellation <= at && !entry.isUpgraded {
                guard let span = Evaluator.historySpan(rule, entry) else { continue }
                if tracksLapse { lapses[Int(rule.group)].lastEnd = max(lapses[Int(rule.group)].lastEnd, span.end) }
                if R.records { recorder.refunded(entry, span: span) }
            }
        }
        var outcome = ProductOutcome(
            product: productIndex, state: .expired, until: CoverageSpan.never,
            spans: Int32(first)..<Int32(spans.count))
        if rule.group >= 0, !lapses.isEmpty {
            for span in spans[first...] where span.end > span.start {
                if span.start <= at && at < span.end { lapses[Int(rule.group)].covered = true }
                if span.end <= at { lapses[Int(rule.group)].lastEnd = max(lapses[Int(rule.group)].lastEnd, span.end) }
            }
        }
        let (coveringEnd, _) = spans.withUnsafeMutableBufferPointer { buffer in
            CoverageSpan.locate(UnsafeMutableBufferPointer(rebasing: buffer[first...]), at: at)
        }
        // Spans are sorted by start now: the next change of state, with what is known at `at`.
        boundary = min(boundary, Evaluator.nextStateChange(spans[first...], at: at))
        let status = rule.type == .autoRenewableSubscription ? Evaluator.chainStatus(of: productIndex, in: renewals) : nil
        var decision = StateDecision.expired(ended: nil)
        let ended = R.records ? spans[first...].filter { $0.end <= at }.map(\.end).max() : nil
        if let coveringEnd {
            let paid = spans[first...].contains { !$0.isGrace && $0.start <= at && at < $0.end }
            outcome.state = paid ? .active : .gracePeriod
            outcome.until = coveringEnd
            if R.records {
                let run = covered.filter { item in
                    guard let span = item.span else { return false }
                    return span.end > at && span.start <= coveringEnd && span.end <= coveringEnd
                }.map(\.entry)
                decision = paid ? .active(end: coveringEnd, transactions: run) : .gracePeriod(end: coveringEnd)
            }
        } else if let release = releasedAt {
            // Pre-ordered and nothing covering: `preordered` until the release.
            outcome.state = .preordered
            outcome.startsAt = release
            decision = .preordered(release: release)
        } else if let since = pendingSince {
            // A purchase not paid yet, and nothing covering: `pending`, whatever else it was.
            outcome.state = .pending
            decision = .pending(since: since)
        } else if !spans[first...].isEmpty, spans[first...].allSatisfy({ $0.start > at }) {
            outcome.state = .scheduled
            outcome.startsAt = spans[first].start
            decision = .scheduled(start: spans[first].start)
        } else if entries.last!.cancellation <= at {
            outcome.state = .revoked
            decision = .revoked(entries.last!)
        } else if let paused = status?.pausedUntil, paused > at {
            outcome.state = .paused
            outcome.startsAt = paused
            decision = .paused(until: paused)
            boundary = min(boundary, paused)
        } else if status?.isInBillingRetry == 1, spans[first...].contains(where: { $0.end <= at }) {
            outcome.state = .billingRetry
            decision = .billingRetry(ended: ended ?? at)
        } else {
            outcome.state = .expired
            decision = .expired(ended: ended)
        }
        if R.records { recorder.state(of: productIndex, decision) }
        if let status {
            outcome.willRenew = status.willRenew
            outcome.renewsTo = status.renewsTo
            outcome.renewalPrice = status.renewalPrice
        }
        // The commitment of the latest counted transaction (entries are in purchase order).
        if rule.type == .autoRenewableSubscription, let latest = entries.lastIndex(where: { $0.cancellation > at && !$0.isUpgraded }) {
            let record = entries[latest].record
            if record.commitment >= 0 { outcome.commitment = receipts[Int(entries[latest].receipt)].commitments[Int(record.commitment)] }
            if record.offerPeriod >= 0 { outcome.offerEndsAt = offerEnd(entries, latest: latest) }
        }
        // A Play prepaid plan that covers is topped up only after its latest top-up instant.
        if rule.type == .nonRenewingSubscription, outcome.state.covers {
            for entry in entries where entry.record.terms >= 0 && entry.cancellation > at && !entry.isUpgraded {
                outcome.topUpAfter = max(outcome.topUpAfter, receipts[Int(entry.receipt)].terms[Int(entry.record.terms)].topUpAfter)
            }
        }
        if catalog.limitRules.needsQuantity, outcome.state.covers { outcome.quantity = coveringQuantity(entries, type: rule.type) }
        if !catalog.allowanceRules.isEmpty, catalog.allowanceRules.tracks(Int(productIndex)) {
            noteLedgerSources(entries: entries, rule: rule, runs: spans[first...])
        }
        outcome.spans = Int32(first)..<Int32(Evaluator.compactRelevant(&spans, from: first, at: at))
        return outcome
    }
}

extension Evaluation {
    /// When the offer of a subscription's latest counted transaction ends (Apple's `offerPeriod`):
    /// the purchase of the earliest of the unbroken run of the chain's transactions of the product
    /// bought with the same offer (type, id and period), plus the period; `Int64.min` when the
    /// latest has no offer period. `entries` are one product's, in purchase order; `latest` is
    /// the latest counted.
    func offerEnd(_ entries: ArraySlice<Entry>, latest: Int) -> Int64 {
        guard entries[latest].record.offerPeriod >= 0 else { return .min }
        let last = entries[latest]
        let lastReceipt = receipts[Int(last.receipt)]
        let period = lastReceipt.offerPeriods[Int(last.record.offerPeriod)]
        func chain(_ entry: Entry) -> (ParsedReceipt, TextRange) {
            let receipt = receipts[Int(entry.receipt)]
            let original = entry.record.originalTransactionId
            return (receipt, original.isNone ? entry.record.transactionId : original)
        }
        func sameOffer(_ entry: Entry) -> Bool {
            let receipt = receipts[Int(entry.receipt)]
            let record = entry.record
            guard record.offerPeriod >= 0, record.offerType == last.record.offerType,
                receipt.offerPeriods[Int(record.offerPeriod)] == period
            else { return false }
            if record.offerId.isNone || last.record.offerId.isNone { return record.offerId.isNone && last.record.offerId.isNone }
            return receipt.bytesEqual(record.offerId, lastReceipt, last.record.offerId)
        }
        let (lastChainReceipt, lastChain) = chain(last)
        var first = last
        for entry in entries[..<latest].reversed() where !entry.isUpgraded {
            let (receipt, id) = chain(entry)
            guard receipt.bytesEqual(id, lastChainReceipt, lastChain) else { continue }
            guard sameOffer(entry) else { break }
            first = entry
        }
        return period.added(to: Instant(millisecondsSince1970: first.purchase)).millisecondsSince1970
    }
}
