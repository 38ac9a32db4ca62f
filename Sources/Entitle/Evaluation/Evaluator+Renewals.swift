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

    /// The subscription chain of each of the app's transactions and renewal entries, found once
    /// per evaluation from their ids: a chain is numbered by its first item, transactions first.
    struct Chains {
        static let none = Chains()

        /// Per receipt: where its transactions start among the items, and where its renewal entries
        /// start after the transactions.
        var transactionStart: [Int32] = []
        var renewalStart: [Int32] = []
        /// For each item (the app's transactions, then its renewal entries), its chain: the index
        /// of the chain's first item. A renewal entry's chain `>= transactionCount` has no transaction.
        var chainOfItem: [Int32] = []
        var transactionCount = 0
        /// Chains that renewal entries name but no transaction of the app's receipts belongs to,
        /// with the earliest signing date among their entries: warned about from then on.
        var orphans: [(originalTransactionId: String, signed: Int64)] = []

        @inline(__always) func chain(ofTransaction index: Int32, in receipt: Int32) -> Int {
            Int(chainOfItem[Int(transactionStart[Int(receipt)] + index)])
        }

        @inline(__always) func chain(ofRenewal index: Int, in receipt: Int) -> Int {
            Int(chainOfItem[transactionCount + Int(renewalStart[receipt]) + index])
        }
    }

    /// Numbers the chains of the app's receipts, and notes each chain that renewal entries name but
    /// no transaction of the app's receipts belongs to (a renewal-info file without its
    /// transactions, or a typo in an id): ``orphanWarnings(_:at:)`` warns about it once an entry of
    /// it counts.
    static func chains(_ receipts: [ParsedReceipt], own: [Int]) -> Chains {
        guard own.contains(where: { !receipts[$0].renewals.isEmpty }) else { return .none }
        var chains = Chains()
        chains.transactionStart = [Int32](filling: 0, count: receipts.count)
        chains.renewalStart = [Int32](filling: 0, count: receipts.count)
        var items: [(receipt: Int32, range: TextRange)] = []
        items.reserveCapacity(own.reduce(0) { $0 + receipts[$1].transactions.count + receipts[$1].renewals.count })
        for receiptIndex in own {
            chains.transactionStart[receiptIndex] = Int32(items.count)
            for record in receipts[receiptIndex].transactions { items.append((Int32(receiptIndex), record.chainId)) }
        }
        let transactionItems = items.count
        for receiptIndex in own {
            chains.renewalStart[receiptIndex] = Int32(items.count - transactionItems)
            for renewal in receipts[receiptIndex].renewals { items.append((Int32(receiptIndex), renewal.originalTransactionId)) }
        }
        let first = DuplicateFinder.firstOccurrences(
            count: items.count,
            hash: { receipts[Int(items[$0].receipt)].hash(items[$0].range) },
            equal: { a, b in receipts[Int(items[a].receipt)].bytesEqual(items[a].range, receipts[Int(items[b].receipt)], items[b].range) },
            precedes: { a, b in
                receipts[Int(items[a].receipt)].lexicographicallyPrecedes(items[a].range, receipts[Int(items[b].receipt)], items[b].range)
            })
        chains.chainOfItem = first
        chains.transactionCount = transactionItems
        // Each orphan chain's earliest signing date, at its first item.
        var orphanSigned: [Int: Int64] = [:]
        for receiptIndex in own {
            for (index, renewal) in receipts[receiptIndex].renewals.enumerated() {
                let number = chains.chain(ofRenewal: index, in: receiptIndex)
                guard number >= transactionItems else { continue }
                orphanSigned[number] = min(orphanSigned[number] ?? .max, renewal.signed)
            }
        }
        for item in transactionItems..<items.count where Int(first[item]) == item {
            chains.orphans.append((receipts[Int(items[item].receipt)].text(items[item].range)!, orphanSigned[item] ?? .min))
        }
        return chains
    }

    /// A warning for each orphan chain with an entry counted at `at`.
    static func orphanWarnings(_ chains: Chains, at: Int64) -> [EvaluationWarning] {
        chains.orphans.filter { $0.signed <= at }.map { EvaluationWarning(kind: .orphanRenewal(originalTransactionId: $0.originalTransactionId)) }
    }

    static func renewalFacts(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], chains: Chains, entries: [Entry], at: Int64,
        warnings: inout [EvaluationWarning]
    ) -> RenewalFacts {
        guard !chains.chainOfItem.isEmpty else { return .empty }
        // Per chain: its latest expiry among its counted transactions and the product holding it
        // (others holding it too in `tied`), then its latest counted renewal entry.
        struct Chain {
            var expires = Int64.min
            /// The product holding the latest expiry, and its transaction: of several, the one
            /// bought last (purchase order), the others in `tied`.
            var holder: Int32 = -1
            var holderEntry = Entry(product: -1, receipt: 0, index: 0, purchase: 0, cancellation: 0)
            var entryReceipt: Int32 = -1
            var entryIndex: Int32 = 0
            var entryOrder = 0
            /// The latest counted entry that says whether billing is being retried.
            var retryReceipt: Int32 = -1
            var retryIndex: Int32 = 0
        }
        var chain = [Chain](filling: Chain(), count: chains.transactionCount)
        var tied: [Int: [Int32]] = [:]
        for entry in entries
        where catalog.rules[Int(entry.product)].type == .autoRenewableSubscription && entry.cancellation > at {
            let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
            guard record.flags & TransactionRecord.upgraded == 0, record.expires != TransactionRecord.absentDate else { continue }
            let number = chains.chain(ofTransaction: entry.index, in: entry.receipt)
            if record.expires > chain[number].expires {
                chain[number].expires = record.expires
                chain[number].holder = entry.product
                chain[number].holderEntry = entry
                if !tied.isEmpty { tied[number] = nil }
            } else if record.expires == chain[number].expires {
                var other = entry.product
                if precedes(chain[number].holderEntry, entry, receipts: receipts) {
                    // Bought later: it holds the chain now.
                    other = chain[number].holder
                    chain[number].holder = entry.product
                    chain[number].holderEntry = entry
                }
                if other != chain[number].holder, !(tied[number]?.contains(other) ?? false) {
                    tied[number, default: []].append(other)
                }
                tied[number]?.removeAll { $0 == chain[number].holder }
            }
        }
        func owner(_ number: Int, named: TextRange, in receipt: ParsedReceipt) -> Int32 {
            guard let others = tied[number], !named.isNone else { return chain[number].holder }
            return ([chain[number].holder] + others).first { receipt.bytesEqual(named, catalog.compiledProducts[Int($0)].id) }
                ?? chain[number].holder
        }
        var facts = RenewalFacts()
        // The latest counted entry of each chain, by signing date then receipt order.
        var order = 0
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            for (index, renewal) in receipt.renewals.enumerated() where renewal.signed <= at {
                order += 1
                let stale = renewal.graceExpires != TransactionRecord.absentDate && renewal.isInBillingRetry == 0
                if stale {
                    warnings.append(EvaluationWarning(kind: .staleGrace(originalTransactionId: receipt.text(renewal.originalTransactionId)!)))
                }
                let number = chains.chain(ofRenewal: index, in: receiptIndex)
                // A chain with no counted transaction has nothing to extend or describe.
                guard number < chains.transactionCount, chain[number].expires != .min else { continue }
                if renewal.graceExpires != TransactionRecord.absentDate, !stale, renewal.graceExpires > chain[number].expires {
                    let product = owner(number, named: renewal.productId, in: receipt)
                    facts.grace.append((product, CoverageSpan(start: chain[number].expires, end: renewal.graceExpires, isGrace: true)))
                }
                if renewal.isInBillingRetry != 2, chain[number].retryReceipt < 0
                    || renewal.signed >= receipts[Int(chain[number].retryReceipt)].renewals[Int(chain[number].retryIndex)].signed {
                    chain[number].retryReceipt = Int32(receiptIndex)
                    chain[number].retryIndex = Int32(index)
                }
                // Later entries come later in receipt order, so ties go to them.
                if chain[number].entryReceipt >= 0,
                   renewal.signed < receipts[Int(chain[number].entryReceipt)].renewals[Int(chain[number].entryIndex)].signed { continue }
                chain[number].entryReceipt = Int32(receiptIndex)
                chain[number].entryIndex = Int32(index)
                chain[number].entryOrder = order
            }
        }
        for (number, item) in chain.enumerated() where item.entryReceipt >= 0 {
            let receipt = receipts[Int(item.entryReceipt)]
            let renewal = receipt.renewals[Int(item.entryIndex)]
            let product = owner(number, named: renewal.productId, in: receipt)
            var renewsTo = receipt.text(renewal.renewsTo)
            if renewsTo == catalog.compiledProducts[Int(product)].id { renewsTo = nil }
            // Whether billing is being retried: from the latest entry that says (an entry may leave it out).
            let retry = item.retryReceipt >= 0 ? receipts[Int(item.retryReceipt)].renewals[Int(item.retryIndex)].isInBillingRetry : 2
            facts.latest.append(ChainStatus(
                product: product, expires: item.expires, signed: renewal.signed, order: item.entryOrder, willRenew: renewal.willRenew,
                isInBillingRetry: retry, renewsTo: renewsTo))
        }
        if facts.grace.count > 1 { facts.grace.sort { $0.product < $1.product } }
        // One status per product: its chain with the latest expiry, then the latest entry.
        facts.latest.sort { a, b in
            if a.product != b.product { return a.product < b.product }
            if a.expires != b.expires { return a.expires > b.expires }
            if a.signed != b.signed { return a.signed > b.signed }
            return a.order > b.order
        }
        var kept = 0
        for position in facts.latest.indices where kept == 0 || facts.latest[kept - 1].product != facts.latest[position].product {
            facts.latest[kept] = facts.latest[position]
            kept += 1
        }
        facts.latest.removeLast(facts.latest.count - kept)
        return facts
    }
}
