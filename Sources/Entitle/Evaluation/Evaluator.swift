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
        var introUsed: [Int32] = []
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
                    transactionId: receipt.text(record.transactionId)!, productId: catalog.products[Int(entry.product)].id)))
                continue
            }
            if rule.group >= 0, record.flags & (TransactionRecord.trialPeriod | TransactionRecord.introOfferPeriod) != 0,
               !introUsed.contains(rule.group) {
                introUsed.append(rule.group)
            }
            if rule.type == .consumable {
                if entry.cancellation > at {
                    for index in rule.credits {
                        let credit = catalog.ruleCredits[Int(index)]
                        balances[Int(credit.currency)] += credit.amount * Int64(record.quantity)
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
        let grace = gracePeriods(catalog, receipts: receipts, own: own, entries: entries, at: at)

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
                catalog, entries: entries[groupStart..<groupEnd], receipts: receipts, grace: grace, at: at,
                spans: &spans, warnings: &warnings))
            groupStart = groupEnd
        }

        // 5. Features: the union of their granting products' spans.
        let (features, reevaluate) = evaluateFeatures(catalog, outcomes: outcomes, spans: spans, at: at)

        // 6. Consumptions, deduplicated by id across the app's receipts.
        spend(catalog, receipts: receipts, own: own, at: at, balances: &balances, warnings: &warnings)
        for (index, balance) in balances.enumerated() where balance < 0 {
            warnings.append(EvaluationWarning(kind: .negativeBalance(currency: catalog.currencyIds[index], balance: balance)))
        }

        return Entitlements(
            catalog: catalog, at: instant, products: outcomes, features: features, balances: balances,
            introUsed: introUsed, otherReceipts: others,
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
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            receipt.arena.withUnsafeBytes { arena in
                for (index, record) in receipt.transactions.enumerated() {
                    var slot = Int(truncatingIfNeeded: record.transactionIdHash) & mask
                    var duplicate = -1
                    while slots[slot] >= 0 {
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
                        entries[duplicate].cancellation = min(entries[duplicate].cancellation, record.cancellation)
                        let first = receipts[Int(entries[duplicate].receipt)]
                        if !first.bytesEqual(first.transactions[Int(entries[duplicate].index)].productId, receipt, record.productId) {
                            warnings.append(EvaluationWarning(kind: .conflictingTransaction(
                                transactionId: receipt.text(record.transactionId)!)))
                        }
                        continue
                    }
                    slots[slot] = Int32(entries.count)
                    hashes.append(record.transactionIdHash)
                    let product = catalog.productTable.find(UnsafeRawBufferPointer(
                        rebasing: arena[Int(record.productId.start)..<Int(record.productId.start + record.productId.count)]))
                    entries.append(Entry(
                        product: product, receipt: Int32(receiptIndex), index: Int32(index),
                        purchase: record.purchase, cancellation: record.cancellation))
                }
            }
        }
        return entries
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

    /// Grace spans `[latest expiry, grace end)` per chain with a renewal that has a grace period.
    private static func gracePeriods(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], entries: [Entry], at: Int64
    ) -> [(product: Int32, span: CoverageSpan)] {
        var grace: [(product: Int32, span: CoverageSpan)] = []
        guard own.contains(where: { receipts[$0].renewals.contains { $0.graceExpires != TransactionRecord.absentDate } })
        else { return grace }
        // Each chain's counted subscription transactions, by the hash of the chain's id.
        var chains: [UInt64: [Int]] = [:]
        for (position, entry) in entries.enumerated()
        where catalog.rules[Int(entry.product)].type == .autoRenewableSubscription && entry.cancellation > at {
            let receipt = receipts[Int(entry.receipt)]
            let record = receipt.transactions[Int(entry.index)]
            guard record.flags & TransactionRecord.upgraded == 0, record.expires != TransactionRecord.absentDate else { continue }
            chains[receipt.hash(record.chainId), default: []].append(position)
        }
        for receiptIndex in own {
            let renewalReceipt = receipts[receiptIndex]
            for renewal in renewalReceipt.renewals where renewal.graceExpires != TransactionRecord.absentDate {
                var latest: (expires: Int64, product: Int32)?
                for position in chains[renewalReceipt.hash(renewal.originalTransactionId)] ?? [] {
                    let entry = entries[position]
                    let receipt = receipts[Int(entry.receipt)]
                    let record = receipt.transactions[Int(entry.index)]
                    guard receipt.bytesEqual(record.chainId, renewalReceipt, renewal.originalTransactionId) else { continue }
                    if record.expires > (latest?.expires ?? .min) { latest = (record.expires, entry.product) }
                }
                if let latest, renewal.graceExpires > latest.expires {
                    grace.append((latest.product, CoverageSpan(start: latest.expires, end: renewal.graceExpires, isGrace: true)))
                }
            }
        }
        return grace
    }

    /// Coverage, state and `until` of one product from its transactions (sorted by purchase).
    private static func evaluateProduct(
        _ catalog: CompiledCatalog, entries: ArraySlice<Entry>, receipts: [ParsedReceipt],
        grace: [(product: Int32, span: CoverageSpan)], at: Int64,
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
                    spans.append(CoverageSpan(start: start, end: start + days * CivilCalendar.millisecondsPerDay))
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
                end = start
                for _ in 0..<record.quantity {
                    end = ISODuration.add(months: Int(rule.durationMonths), days: Int64(rule.durationDays),
                                          milliseconds: rule.durationMilliseconds, to: end)
                }
                spans.append(CoverageSpan(start: start, end: end))
            }
        case .autoRenewableSubscription:
            for entry in entries where entry.cancellation > at {
                let receipt = receipts[Int(entry.receipt)]
                let record = receipt.transactions[Int(entry.index)]
                guard record.flags & TransactionRecord.upgraded == 0 else { continue }
                if record.expires == TransactionRecord.absentDate {
                    warnings.append(EvaluationWarning(kind: .missingExpiry(
                        transactionId: receipt.text(record.transactionId)!, productId: catalog.products[Int(productIndex)].id)))
                } else if record.expires > entry.purchase {
                    spans.append(CoverageSpan(start: entry.purchase, end: record.expires))
                }
            }
            for extension_ in grace where extension_.product == productIndex { spans.append(extension_.span) }
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
        return outcome
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
        balances: inout [Int64], warnings: inout [EvaluationWarning]
    ) {
        // One receipt's consumptions are already unique (the decoder checks); several need merging.
        var seen: [UInt64: [(receipt: Int, index: Int)]] = [:]
        let merge = own.count > 1
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            receipt.arena.withUnsafeBytes { arena in
                for (index, consumption) in receipt.consumptions.enumerated() {
                    if merge {
                        let earlier = seen[consumption.idHash, default: []].first {
                            receipts[$0.receipt].bytesEqual(receipts[$0.receipt].consumptions[$0.index].id, receipt, consumption.id)
                        }
                        if let earlier {
                            let first = receipts[earlier.receipt]
                            let firstRecord = first.consumptions[earlier.index]
                            if !(first.bytesEqual(firstRecord.currency, receipt, consumption.currency)
                                 && firstRecord.amount == consumption.amount && firstRecord.date == consumption.date) {
                                warnings.append(EvaluationWarning(kind: .conflictingConsumption(id: receipt.text(consumption.id)!)))
                            }
                            continue
                        }
                        seen[consumption.idHash, default: []].append((receiptIndex, index))
                    }
                    guard consumption.date <= at else { continue }
                    let currency = catalog.currencyTable.find(UnsafeRawBufferPointer(
                        rebasing: arena[Int(consumption.currency.start)..<Int(consumption.currency.start + consumption.currency.count)]))
                    guard currency >= 0 else {
                        warnings.append(EvaluationWarning(kind: .unknownCurrency(
                            consumptionId: receipt.text(consumption.id)!, currency: receipt.text(consumption.currency)!)))
                        continue
                    }
                    balances[Int(currency)] -= consumption.amount
                }
            }
        }
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
