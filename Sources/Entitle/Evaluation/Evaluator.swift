/// Applies a compiled catalog to parsed receipts at an instant.
///
/// The rules, in the order the code applies them:
/// - Copies of one `transactionId` (within or across the app's receipts) count once; the earliest
///   cancellation among the copies holds.
/// - Only what was known at `at` counts: transactions purchased after `at` are ignored, and a
///   cancellation counts only when dated at or before `at`. Consumptions after `at` are ignored.
/// - A family-shared transaction counts only for a family-shareable product; an upgraded
///   transaction (`isUpgraded`) grants nothing.
/// - Coverage per product: a non-consumable from its first purchase on; a trial for its N days from
///   the earliest original purchase of its transactions; non-renewing purchases stack in purchase
///   order; an auto-renewable transaction covers `[purchaseDate, expiresDate)`, extended to a
///   renewal's `gracePeriodExpiresDate`.
/// - A feature is on when a granting product covers `at`; its `until` is the end of the unbroken
///   union of its granting products' coverage.
///
/// Work is proportional to the receipts, not the catalog: only products that have transactions are
/// looked at, and everything else is answered from the catalog when the result is read.
enum Evaluator {
    /// A transaction after deduplication, with its product resolved.
    struct Entry {
        var product: Int32
        var receipt: Int32
        var index: Int32
        var purchase: Int64
        var cancellation: Int64
    }

    static func evaluate(_ catalog: CompiledCatalog, receipts: [ParsedReceipt], at instant: Instant) -> Entitlements {
        let at = instant.millisecondsSince1970
        let rules = catalog.rules
        var warnings: [EvaluationWarning] = []
        var own: [Int] = []
        var others: [ParsedReceipt] = []
        for (index, receipt) in receipts.enumerated() {
            if receipt.bytesEqual(receipt.appRange, catalog.appBytes) {
                own.append(index)
            } else {
                others.append(receipt)
            }
        }

        // 1. Deduplicate the app's transactions and resolve each product once.
        var entries = deduplicate(catalog, receipts: receipts, own: own, warnings: &warnings)

        // 2. Keep what is known at `at`; credit consumables; note intro offers used.
        var balances = [Int64](repeating: 0, count: catalog.currencyIds.count)
        var overflowed: [Int32] = []
        var introUsed = GroupSet()
        var unknown: [(receipt: Int32, range: TextRange)] = []
        var kept = 0
        for position in entries.indices {
            let entry = entries[position]
            guard entry.purchase <= at else { continue }
            let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
            guard entry.product >= 0 else {
                unknown.append((entry.receipt, record.productId))
                continue
            }
            let rule = rules[Int(entry.product)]
            if record.flags & TransactionRecord.familyShared != 0 && !rule.familyShareable {
                let receipt = receipts[Int(entry.receipt)]
                warnings.append(EvaluationWarning(kind: .notFamilyShareable(
                    transactionId: receipt.text(record.transactionId)!, productId: catalog.compiledProducts[Int(entry.product)].id)))
                continue
            }
            if rule.group >= 0, record.flags & (TransactionRecord.trialPeriod | TransactionRecord.introOfferPeriod) != 0 {
                introUsed.insert(rule.group)
            }
            if rule.type == .consumable {
                // An upgraded transaction grants nothing, credits included.
                if entry.cancellation > at, record.flags & TransactionRecord.upgraded == 0 {
                    for index in rule.credits {
                        let credit = catalog.ruleCredits[Int(index)]
                        let (amount, o1) = credit.amount.multipliedReportingOverflow(by: Int64(record.quantity))
                        Balance.add(o1 ? .max : amount, to: &balances, Int(credit.currency), overflowed: &overflowed)
                    }
                }
                continue
            }
            entries[kept] = entry
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        if !unknown.isEmpty { warnings += unknownProductWarnings(unknown, receipts: receipts) }

        // 3. Grace periods, attached to the product holding each chain's latest expiry.
        warnings += orphanRenewals(receipts, own: own)
        var grace = gracePeriods(catalog, receipts: receipts, own: own, entries: entries, at: at)
        if grace.count > 1 { grace.sort { $0.product < $1.product } }
        var graceCursor = 0

        // 4. Coverage and state of each product with transactions, grouped by product.
        if entries.count > 1 {
            entries.sort { a, b in
                if a.product != b.product { return a.product < b.product }
                if a.purchase != b.purchase { return a.purchase < b.purchase }
                let left = receipts[Int(a.receipt)], right = receipts[Int(b.receipt)]
                return left.lexicographicallyPrecedes(left.transactions[Int(a.index)].transactionId,
                                                      right, right.transactions[Int(b.index)].transactionId)
            }
        }
        var outcomes: [ProductOutcome] = []
        var spans: [CoverageSpan] = []
        var groupStart = 0
        while groupStart < entries.count {
            var groupEnd = groupStart + 1
            while groupEnd < entries.count, entries[groupEnd].product == entries[groupStart].product { groupEnd += 1 }
            outcomes.append(evaluateProduct(
                catalog, entries: entries[groupStart..<groupEnd], receipts: receipts, grace: grace,
                graceCursor: &graceCursor, at: at,
                spans: &spans, warnings: &warnings))
            groupStart = groupEnd
        }

        // 5. Features: the union of their granting products' spans.
        let (features, reevaluate) = evaluateFeatures(catalog, outcomes: outcomes, spans: spans, at: at)

        // 6. Consumptions, deduplicated by id across the app's receipts.
        spend(catalog, receipts: receipts, own: own, at: at, balances: &balances, overflowed: &overflowed, warnings: &warnings)
        for (index, balance) in balances.enumerated() where balance < 0 {
            warnings.append(EvaluationWarning(kind: .negativeBalance(currency: catalog.currencyIds[index], balance: balance)))
        }
        if overflowed.count > 1 { overflowed = Array(Set(overflowed)).sorted() }
        for currency in overflowed {
            warnings.append(EvaluationWarning(kind: .balanceOutOfRange(
                currency: catalog.currencyIds[Int(currency)], balance: balances[Int(currency)])))
        }

        return Entitlements(
            catalog: catalog, at: instant, products: outcomes, features: features, balances: balances,
            introUsed: introUsed.members, prerequisites: UpgradePrerequisites(catalog, receipts: others, at: at),
            reevaluateAt: reevaluate == .max ? nil : Instant(millisecondsSince1970: reevaluate), warnings: warnings)
    }

    // MARK: Steps

    private static func deduplicate(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], warnings: inout [EvaluationWarning]
    ) -> [Entry] {
        var total = 0
        for index in own { total += receipts[index].transactions.count }
        var entries: [Entry] = []
        guard total > 0 else { return entries }
        entries.reserveCapacity(total)
        var capacity = 16
        while capacity < total * 2 { capacity *= 2 }
        let mask = capacity - 1
        var slots = [Int32](repeating: -1, count: capacity)
        var hashes: [UInt64] = []
        hashes.reserveCapacity(total)
        // Crafted ids can share one hash; past this many probes, sort instead (see DuplicateFinder).
        var budget = 8 * total + 64
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            let exhausted: Bool = receipt.arena.withUnsafeBytes { arena in
                for (index, record) in receipt.transactions.enumerated() {
                    var slot = Int(truncatingIfNeeded: record.transactionIdHash) & mask
                    var duplicate = -1
                    while slots[slot] >= 0 {
                        budget -= 1
                        if budget < 0 { return true }
                        let other = Int(slots[slot])
                        if hashes[other] == record.transactionIdHash {
                            let first = receipts[Int(entries[other].receipt)]
                            let firstRecord = first.transactions[Int(entries[other].index)]
                            if first.bytesEqual(firstRecord.transactionId, receipt, record.transactionId) {
                                duplicate = other
                                break
                            }
                        }
                        slot = (slot + 1) & mask
                    }
                    if duplicate >= 0 {
                        merge(record, of: receipt, into: &entries[duplicate], receipts: receipts, warnings: &warnings)
                        continue
                    }
                    slots[slot] = Int32(entries.count)
                    hashes.append(record.transactionIdHash)
                    entries.append(entry(catalog, record, receipt: receiptIndex, index: index, arena: arena))
                }
                return false
            }
            if exhausted { return sortedDeduplicate(catalog, receipts: receipts, own: own, warnings: &warnings) }
        }
        return entries
    }

    /// ``deduplicate(_:receipts:own:warnings:)`` by sorting, for ids crafted to collide.
    private static func sortedDeduplicate(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], warnings: inout [EvaluationWarning]
    ) -> [Entry] {
        var items: [(receipt: Int, index: Int)] = []
        for receiptIndex in own {
            for index in receipts[receiptIndex].transactions.indices { items.append((receiptIndex, index)) }
        }
        func id(_ item: Int) -> (ParsedReceipt, TextRange) {
            let receipt = receipts[items[item].receipt]
            return (receipt, receipt.transactions[items[item].index].transactionId)
        }
        let first = DuplicateFinder.sortedFirstOccurrences(
            count: items.count,
            equal: { a, b in let (x, r) = id(a), (y, s) = id(b); return x.bytesEqual(r, y, s) },
            precedes: { a, b in let (x, r) = id(a), (y, s) = id(b); return x.lexicographicallyPrecedes(r, y, s) })
        var entries: [Entry] = []
        var position = [Int32](repeating: -1, count: items.count)
        for (item, (receiptIndex, index)) in items.enumerated() {
            let receipt = receipts[receiptIndex]
            let record = receipt.transactions[index]
            let leader = Int(first[item])
            if leader != item {
                merge(record, of: receipt, into: &entries[Int(position[leader])], receipts: receipts, warnings: &warnings)
                continue
            }
            position[item] = Int32(entries.count)
            entries.append(receipt.arena.withUnsafeBytes { entry(catalog, record, receipt: receiptIndex, index: index, arena: $0) })
        }
        return entries
    }

    /// A first copy of a transaction, its product looked up by the id's bytes.
    @inline(__always)
    private static func entry(
        _ catalog: CompiledCatalog, _ record: TransactionRecord, receipt: Int, index: Int, arena: UnsafeRawBufferPointer
    ) -> Entry {
        let product = catalog.productTable.find(UnsafeRawBufferPointer(
            rebasing: arena[Int(record.productId.start)..<Int(record.productId.start + record.productId.count)]))
        return Entry(product: product, receipt: Int32(receipt), index: Int32(index),
                     purchase: record.purchase, cancellation: record.cancellation)
    }

    /// A later copy of a transaction: the earliest cancellation holds.
    private static func merge(
        _ record: TransactionRecord, of receipt: ParsedReceipt, into entry: inout Entry, receipts: [ParsedReceipt],
        warnings: inout [EvaluationWarning]
    ) {
        entry.cancellation = min(entry.cancellation, record.cancellation)
        let first = receipts[Int(entry.receipt)]
        if !first.bytesEqual(first.transactions[Int(entry.index)].productId, receipt, record.productId) {
            warnings.append(EvaluationWarning(kind: .conflictingTransaction(transactionId: receipt.text(record.transactionId)!)))
        }
    }

    private static func unknownProductWarnings(
        _ unknown: [(receipt: Int32, range: TextRange)], receipts: [ParsedReceipt]
    ) -> [EvaluationWarning] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for (receipt, range) in unknown {
            let id = receipts[Int(receipt)].text(range)!
            if counts[id] == nil { order.append(id) }
            counts[id, default: 0] += 1
        }
        return order.map { EvaluationWarning(kind: .unknownProduct(productId: $0, count: counts[$0]!)) }
    }

    /// A warning for each chain that renewal entries name but no transaction of the app's receipts
    /// belongs to (a renewal-info file without its transactions, or a typo in an id).
    private static func orphanRenewals(_ receipts: [ParsedReceipt], own: [Int]) -> [EvaluationWarning] {
        guard own.contains(where: { !receipts[$0].renewals.isEmpty }) else { return [] }
        var items: [(receipt: Int32, range: TextRange)] = []
        for receiptIndex in own {
            for record in receipts[receiptIndex].transactions { items.append((Int32(receiptIndex), record.chainId)) }
        }
        let transactionItems = items.count
        for receiptIndex in own {
            for renewal in receipts[receiptIndex].renewals { items.append((Int32(receiptIndex), renewal.originalTransactionId)) }
        }
        let first = DuplicateFinder.firstOccurrences(
            count: items.count,
            hash: { receipts[Int(items[$0].receipt)].hash(items[$0].range) },
            equal: { a, b in receipts[Int(items[a].receipt)].bytesEqual(items[a].range, receipts[Int(items[b].receipt)], items[b].range) },
            precedes: { a, b in
                receipts[Int(items[a].receipt)].lexicographicallyPrecedes(items[a].range, receipts[Int(items[b].receipt)], items[b].range)
            })
        var warnings: [EvaluationWarning] = []
        for item in transactionItems..<items.count where Int(first[item]) == item {
            warnings.append(EvaluationWarning(kind: .orphanRenewal(
                originalTransactionId: receipts[Int(items[item].receipt)].text(items[item].range)!)))
        }
        return warnings
    }

    /// Grace spans `[latest expiry, grace end)` per chain with a renewal that has a grace period.
    ///
    /// One pass: chain ids of counted subscription transactions and of renewal entries are
    /// matched all at once, then each chain's latest expiry is found once.
    private static func gracePeriods(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], entries: [Entry], at: Int64
    ) -> [(product: Int32, span: CoverageSpan)] {
        var grace: [(product: Int32, span: CoverageSpan)] = []
        guard own.contains(where: { receipts[$0].renewals.contains { $0.graceExpires != TransactionRecord.absentDate } })
        else { return grace }
        // Items: the chain id of each counted subscription transaction, then each renewal with a grace date.
        var items: [(receipt: Int32, range: TextRange, position: Int32)] = []
        for (position, entry) in entries.enumerated()
        where catalog.rules[Int(entry.product)].type == .autoRenewableSubscription && entry.cancellation > at {
            let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
            guard record.flags & TransactionRecord.upgraded == 0, record.expires != TransactionRecord.absentDate else { continue }
            items.append((entry.receipt, record.chainId, Int32(position)))
        }
        let transactionItems = items.count
        for receiptIndex in own {
            for renewal in receipts[receiptIndex].renewals where renewal.graceExpires != TransactionRecord.absentDate {
                items.append((Int32(receiptIndex), renewal.originalTransactionId, -1))
            }
        }
        let first = DuplicateFinder.firstOccurrences(
            count: items.count,
            hash: { receipts[Int(items[$0].receipt)].hash(items[$0].range) },
            equal: { a, b in
                receipts[Int(items[a].receipt)].bytesEqual(items[a].range, receipts[Int(items[b].receipt)], items[b].range)
            },
            precedes: { a, b in
                receipts[Int(items[a].receipt)].lexicographicallyPrecedes(items[a].range, receipts[Int(items[b].receipt)], items[b].range)
            })
        // The latest expiry of each chain, kept at the chain's first item.
        var latest = [(expires: Int64, product: Int32)](repeating: (.min, -1), count: transactionItems)
        for item in 0..<transactionItems {
            let entry = entries[Int(items[item].position)]
            let expires = receipts[Int(entry.receipt)].transactions[Int(entry.index)].expires
            let leader = Int(first[item])
            if expires > latest[leader].expires { latest[leader] = (expires, entry.product) }
        }
        var renewalIndex = transactionItems
        for receiptIndex in own {
            for renewal in receipts[receiptIndex].renewals where renewal.graceExpires != TransactionRecord.absentDate {
                let leader = Int(first[renewalIndex])
                renewalIndex += 1
                // A leader among the renewals means no counted transaction of the chain.
                guard leader < transactionItems, latest[leader].product >= 0, renewal.graceExpires > latest[leader].expires else { continue }
                grace.append((latest[leader].product,
                              CoverageSpan(start: latest[leader].expires, end: renewal.graceExpires, isGrace: true)))
            }
        }
        return grace
    }

    /// Coverage, state and `until` of one product from its transactions (sorted by purchase).
    private static func evaluateProduct(
        _ catalog: CompiledCatalog, entries: ArraySlice<Entry>, receipts: [ParsedReceipt],
        grace: [(product: Int32, span: CoverageSpan)], graceCursor: inout Int, at: Int64,
        spans: inout [CoverageSpan], warnings: inout [EvaluationWarning]
    ) -> ProductOutcome {
        let productIndex = entries.first!.product
        let rule = catalog.rules[Int(productIndex)]
        let first = spans.count
        switch rule.type {
        case .nonConsumable:
            if rule.trialDays > 0 {
                let days = Int64(rule.trialDays)
                var start = Int64.max
                var counted = false
                for entry in entries {
                    let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
                    let original = record.originalPurchase == TransactionRecord.absentDate ? record.purchase : record.originalPurchase
                    start = min(start, original, record.purchase)
                    counted = counted || (entry.cancellation > at && record.flags & TransactionRecord.upgraded == 0)
                }
                if counted {
                    let (end, overflow) = start.addingReportingOverflow(days * CivilCalendar.millisecondsPerDay)
                    spans.append(CoverageSpan(start: start, end: overflow ? Instant.latest.millisecondsSince1970
                                                                  : min(end, Instant.latest.millisecondsSince1970)))
                }
            } else if let entry = entries.first(where: {
                $0.cancellation > at && receipts[Int($0.receipt)].transactions[Int($0.index)].flags & TransactionRecord.upgraded == 0
            }) {
                spans.append(CoverageSpan(start: entry.purchase, end: CoverageSpan.never))
            }
        case .nonRenewingSubscription:
            var end = Int64.min
            for entry in entries where entry.cancellation > at {
                let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
                guard record.flags & TransactionRecord.upgraded == 0 else { continue }
                let start = max(entry.purchase, end)
                // A quantity of N covers N times the duration, added as one calendar step.
                end = ISODuration.add(months: Int(rule.durationMonths), days: Int64(rule.durationDays),
                                      milliseconds: rule.durationMilliseconds, times: Int64(record.quantity), to: start)
                spans.append(CoverageSpan(start: start, end: max(end, start)))
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
            while graceCursor < grace.count, grace[graceCursor].product < productIndex { graceCursor += 1 }
            while graceCursor < grace.count, grace[graceCursor].product == productIndex {
                spans.append(grace[graceCursor].span)
                graceCursor += 1
            }
        case .consumable:
            break
        }
        let latest = entries.last!
        var outcome = ProductOutcome(product: productIndex, state: .expired, until: CoverageSpan.never,
                                     spans: Int32(first)..<Int32(spans.count))
        let (coveringEnd, _) = spans.withUnsafeMutableBufferPointer { buffer in
            CoverageSpan.locate(UnsafeMutableBufferPointer(rebasing: buffer[first...]), at: at)
        }
        if let coveringEnd {
            let paid = spans[first...].contains { !$0.isGrace && $0.start <= at && at < $0.end }
            outcome.state = paid ? .active : .gracePeriod
            outcome.until = coveringEnd
        } else {
            outcome.state = latest.cancellation <= at ? .revoked : .expired
        }
        outcome.spans = Int32(first)..<Int32(compactRelevant(&spans, from: first, at: at))
        return outcome
    }

    /// Replaces a product's spans (sorted by start) with the merged runs that end after `at`:
    /// runs that ended cannot affect a feature at `at` or later, and merging keeps the feature
    /// step's work proportional to the runs, not to the transactions. Returns the new end.
    private static func compactRelevant(_ spans: inout [CoverageSpan], from first: Int, at: Int64) -> Int {
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

    /// Which features are on, until when, and the earliest instant any of them changes.
    private static func evaluateFeatures(
        _ catalog: CompiledCatalog, outcomes: [ProductOutcome], spans: [CoverageSpan], at: Int64
    ) -> ([FeatureOutcome], Int64) {
        var featureSpans: [(feature: Int32, span: CoverageSpan)] = []
        for outcome in outcomes where !outcome.spans.isEmpty {
            for grant in catalog.rules[Int(outcome.product)].grants {
                let feature = catalog.ruleGrants[Int(grant)]
                for index in outcome.spans { featureSpans.append((feature, spans[Int(index)])) }
            }
        }
        var features: [FeatureOutcome] = []
        var reevaluate = Int64.max
        guard !featureSpans.isEmpty else { return (features, reevaluate) }
        featureSpans.sort { $0.feature != $1.feature ? $0.feature < $1.feature : $0.span.start < $1.span.start }
        var groupStart = 0
        var runs: [CoverageSpan] = []
        while groupStart < featureSpans.count {
            let feature = featureSpans[groupStart].feature
            var groupEnd = groupStart
            runs.removeAll(keepingCapacity: true)
            while groupEnd < featureSpans.count, featureSpans[groupEnd].feature == feature {
                runs.append(featureSpans[groupEnd].span)
                groupEnd += 1
            }
            let (coveringEnd, nextStart) = runs.withUnsafeMutableBufferPointer { CoverageSpan.locate($0, at: at) }
            if let coveringEnd {
                features.append(FeatureOutcome(feature: feature, until: coveringEnd))
                reevaluate = min(reevaluate, coveringEnd)
            } else if let nextStart {
                reevaluate = min(reevaluate, nextStart)
            }
            groupStart = groupEnd
        }
        return (features, reevaluate)
    }

    private static func spend(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], at: Int64,
        balances: inout [Int64], overflowed: inout [Int32], warnings: inout [EvaluationWarning]
    ) {
        // One receipt's consumptions are already unique (the decoder checks); several need merging.
        var items: [(receipt: Int32, index: Int32)] = []
        var first: [Int32] = []
        if own.count > 1 {
            for receiptIndex in own {
                for index in receipts[receiptIndex].consumptions.indices { items.append((Int32(receiptIndex), Int32(index))) }
            }
            func id(_ item: Int) -> (ParsedReceipt, TextRange) {
                let receipt = receipts[Int(items[item].receipt)]
                return (receipt, receipt.consumptions[Int(items[item].index)].id)
            }
            first = DuplicateFinder.firstOccurrences(
                count: items.count,
                hash: { receipts[Int(items[$0].receipt)].consumptions[Int(items[$0].index)].idHash },
                equal: { a, b in let (x, r) = id(a), (y, s) = id(b); return x.bytesEqual(r, y, s) },
                precedes: { a, b in let (x, r) = id(a), (y, s) = id(b); return x.lexicographicallyPrecedes(r, y, s) })
        }
        var item = 0
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            receipt.arena.withUnsafeBytes { arena in
                for consumption in receipt.consumptions {
                    defer { item += 1 }
                    if !first.isEmpty, Int(first[item]) != item {
                        let earlier = items[Int(first[item])]
                        let firstReceipt = receipts[Int(earlier.receipt)]
                        let firstRecord = firstReceipt.consumptions[Int(earlier.index)]
                        if !(firstReceipt.bytesEqual(firstRecord.currency, receipt, consumption.currency)
                             && firstRecord.amount == consumption.amount && firstRecord.date == consumption.date) {
                            warnings.append(EvaluationWarning(kind: .conflictingConsumption(id: receipt.text(consumption.id)!)))
                        }
                        continue
                    }
                    guard consumption.date <= at else { continue }
                    let currency = catalog.currencyTable.find(UnsafeRawBufferPointer(
                        rebasing: arena[Int(consumption.currency.start)..<Int(consumption.currency.start + consumption.currency.count)]))
                    guard currency >= 0 else {
                        warnings.append(EvaluationWarning(kind: .unknownCurrency(
                            consumptionId: receipt.text(consumption.id)!, currency: receipt.text(consumption.currency)!)))
                        continue
                    }
                    Balance.add(consumption.amount == .min ? .max : -consumption.amount, to: &balances, Int(currency),
                                overflowed: &overflowed)
                }
            }
        }
    }
}

/// Balance arithmetic that cannot overflow: a sum past `Int64`'s range stops at its end, and the
/// currency is noted so evaluation warns about it.
enum Balance {
    @inline(__always)
    static func add(_ amount: Int64, to balances: inout [Int64], _ currency: Int, overflowed: inout [Int32]) {
        let (sum, overflow) = balances[currency].addingReportingOverflow(amount)
        if overflow {
            let limit: Int64 = amount > 0 ? .max : .min
            // Noted once per arrival at the limit; the caller removes repeats.
            if balances[currency] != limit { overflowed.append(Int32(currency)) }
            balances[currency] = limit
        } else {
            balances[currency] = sum
        }
    }
}

/// A small set of subscription group indices: a bit set, allocated only when a group is added.
struct GroupSet {
    private var words: [UInt64] = []

    mutating func insert(_ group: Int32) {
        let word = Int(group) >> 6
        if word >= words.count { words += [UInt64](repeating: 0, count: word + 1 - words.count) }
        words[word] |= 1 << UInt64(group & 63)
    }

    /// The members, ascending.
    var members: [Int32] {
        var result: [Int32] = []
        for (index, word) in words.enumerated() where word != 0 {
            for bit in 0..<64 where word & (1 << UInt64(bit)) != 0 { result.append(Int32(index * 64 + bit)) }
        }
        return result
    }
}

/// A product with transactions, after evaluation.
struct ProductOutcome: Sendable {
    var product: Int32
    var state: ProductState
    /// End of the covering span, `CoverageSpan.never` when it never ends or does not cover.
    var until: Int64
    /// Its coverage spans, in the evaluation's span buffer.
    var spans: Range<Int32>
}

/// An enabled feature and the end of its unbroken coverage.
struct FeatureOutcome: Sendable {
    var feature: Int32
    var until: Int64
}

extension TransactionRecord {
    /// The id of the subscription chain: the original transaction's, else its own.
    var chainId: TextRange { originalTransactionId.isNone ? transactionId : originalTransactionId }
}

extension ParsedReceipt {
    /// Byte-wise ordering of two ranges, for deterministic tie-breaks.
    func lexicographicallyPrecedes(_ range: TextRange, _ other: ParsedReceipt, _ otherRange: TextRange) -> Bool {
        arena[Int(range.start)..<Int(range.start + range.count)]
            .lexicographicallyPrecedes(other.arena[Int(otherRange.start)..<Int(otherRange.start + otherRange.count)])
    }
}
