/// Renewal entries: what the App Store says about each auto-renewable chain's next renewal.
///
/// - An entry counts from its `signedDate` on (always, without one).
/// - Its chain is the transactions whose original transaction id (else own id) it names; what it
///   says attaches to the product holding the chain's latest expiry among its counted
///   transactions (when two products share that expiry, to the one the entry names).
/// - A counted entry's `gracePeriodExpiresDate` extends the chain's coverage from that expiry,
///   unless the entry says `isInBillingRetry: false`: then the date is stale, ignored, with a
///   warning.
/// - The chain's latest counted entry (by `signedDate`, then receipt order) says whether it will
///   renew, to which product, and whether billing is being retried (state `billing-retry` once
///   coverage has ended).
extension Evaluator {
    /// What renewal entries say, by product.
    struct RenewalFacts {
        /// Grace spans, sorted by product.
        var grace: [(product: Int32, span: CoverageSpan)] = []
        /// Per product: what its chain's latest entry says, sorted by product.
        var latest: [ChainStatus] = []

        static let empty = RenewalFacts()
    }

    /// What a chain's latest counted renewal entry says, attached to a product.
    struct ChainStatus {
        var product: Int32
        /// The chain's latest expiry, to choose between several chains of one product.
        var expires: Int64
        /// The entry's signing date and place among the entries, for ties between chains.
        var signed: Int64
        var order: Int
        /// 0 false, 1 true, 2 unknown.
        var willRenew: UInt8
        var isInBillingRetry: UInt8
        var renewsTo: String?
    }

    static func renewalFacts(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], entries: [Entry], at: Int64,
        warnings: inout [EvaluationWarning]
    ) -> RenewalFacts {
        guard own.contains(where: { !receipts[$0].renewals.isEmpty }) else { return .empty }
        warnings += orphanRenewals(receipts, own: own)
        // Items: the chain id of each counted subscription transaction, then each counted renewal entry.
        var items: [(receipt: Int32, range: TextRange, position: Int32)] = []
        for (position, entry) in entries.enumerated()
        where catalog.rules[Int(entry.product)].type == .autoRenewableSubscription && entry.cancellation > at {
            let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
            guard record.flags & TransactionRecord.upgraded == 0, record.expires != TransactionRecord.absentDate else { continue }
            items.append((entry.receipt, record.chainId, Int32(position)))
        }
        let transactionItems = items.count
        for receiptIndex in own {
            for (index, renewal) in receipts[receiptIndex].renewals.enumerated() where renewal.signed <= at {
                items.append((Int32(receiptIndex), renewal.originalTransactionId, Int32(index)))
            }
        }
        guard items.count > transactionItems else { return .empty }
        let first = DuplicateFinder.firstOccurrences(
            count: items.count,
            hash: { receipts[Int(items[$0].receipt)].hash(items[$0].range) },
            equal: { a, b in
                receipts[Int(items[a].receipt)].bytesEqual(items[a].range, receipts[Int(items[b].receipt)], items[b].range)
            },
            precedes: { a, b in
                receipts[Int(items[a].receipt)].lexicographicallyPrecedes(items[a].range, receipts[Int(items[b].receipt)], items[b].range)
            })
        // Each chain's latest expiry and the products holding it, kept at the chain's first item.
        var latest = [(expires: Int64, products: [Int32])](repeating: (.min, []), count: transactionItems)
        for item in 0..<transactionItems {
            let entry = entries[Int(items[item].position)]
            let expires = receipts[Int(entry.receipt)].transactions[Int(entry.index)].expires
            let leader = Int(first[item])
            if expires > latest[leader].expires {
                latest[leader] = (expires, [entry.product])
            } else if expires == latest[leader].expires, !latest[leader].products.contains(entry.product) {
                latest[leader].products.append(entry.product)
            }
        }
        var facts = RenewalFacts()
        // The latest counted entry of each chain, by signing date then receipt order.
        var latestEntry = [Int](repeating: -1, count: transactionItems)
        for item in transactionItems..<items.count {
            let receipt = receipts[Int(items[item].receipt)]
            let renewal = receipt.renewals[Int(items[item].position)]
            let stale = renewal.graceExpires != TransactionRecord.absentDate && renewal.isInBillingRetry == 0
            if stale {
                warnings.append(EvaluationWarning(kind: .staleGrace(originalTransactionId: receipt.text(renewal.originalTransactionId)!)))
            }
            let leader = Int(first[item])
            guard leader < transactionItems else { continue }  // no counted transaction of its chain
            let product = owner(of: latest[leader].products, named: renewal.productId, in: receipt, catalog: catalog)
            if renewal.graceExpires != TransactionRecord.absentDate, !stale, renewal.graceExpires > latest[leader].expires {
                facts.grace.append((product, CoverageSpan(start: latest[leader].expires, end: renewal.graceExpires, isGrace: true)))
            }
            if latestEntry[leader] < 0 {
                latestEntry[leader] = item
            } else {
                let current = receipts[Int(items[latestEntry[leader]].receipt)].renewals[Int(items[latestEntry[leader]].position)]
                // Later items come later in receipt order, so ties go to them.
                if renewal.signed >= current.signed { latestEntry[leader] = item }
            }
        }
        for leader in 0..<transactionItems where latestEntry[leader] >= 0 {
            let item = latestEntry[leader]
            let receipt = receipts[Int(items[item].receipt)]
            let renewal = receipt.renewals[Int(items[item].position)]
            let product = owner(of: latest[leader].products, named: renewal.productId, in: receipt, catalog: catalog)
            var renewsTo = receipt.text(renewal.renewsTo)
            if renewsTo == catalog.compiledProducts[Int(product)].id { renewsTo = nil }
            facts.latest.append(ChainStatus(
                product: product, expires: latest[leader].expires, signed: renewal.signed, order: item, willRenew: renewal.willRenew,
                isInBillingRetry: renewal.isInBillingRetry, renewsTo: renewsTo))
        }
        if facts.grace.count > 1 { facts.grace.sort { $0.product < $1.product } }
        // One status per product: its chain with the latest expiry, then the latest entry.
        facts.latest.sort { a, b in
            if a.product != b.product { return a.product < b.product }
            if a.expires != b.expires { return a.expires > b.expires }
            if a.signed != b.signed { return a.signed > b.signed }
            return a.order > b.order
        }
        var unique: [ChainStatus] = []
        for status in facts.latest where unique.last?.product != status.product { unique.append(status) }
        facts.latest = unique
        return facts
    }

    /// The product of `products` (those holding a chain's latest expiry) that an entry's facts
    /// attach to: the one the entry names when several tie, else the first.
    private static func owner(of products: [Int32], named: TextRange, in receipt: ParsedReceipt, catalog: CompiledCatalog) -> Int32 {
        guard products.count > 1, !named.isNone else { return products[0] }
        return products.first { receipt.bytesEqual(named, catalog.compiledProducts[Int($0)].id) } ?? products[0]
    }

    /// A warning for each chain that renewal entries name but no transaction of the app's receipts
    /// belongs to (a renewal-info file without its transactions, or a typo in an id).
    static func orphanRenewals(_ receipts: [ParsedReceipt], own: [Int]) -> [EvaluationWarning] {
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
}
