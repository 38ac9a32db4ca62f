/// Renewal entries: what the App Store says about each auto-renewable chain's next renewal.
///
/// - An entry counts from its `signedDate` on (always, without one), and not when it names
///   another account than the one evaluated.
/// - Its chain is the transactions whose original transaction id (else own id) it names; what it
///   says attaches to the product holding the chain's latest expiry among its counted
///   transactions (when two products share that expiry, to the one the chain's entries name).
/// - Each field (`productId`, `willRenew`, `isInBillingRetry`, `gracePeriodExpiresDate`,
///   `renewsTo`, `expirationIntent`, `winBackOffers`, `pausedUntil`, `renewalPrice` with its
///   `currency`) comes from the latest counted entry (by
///   `signedDate`, unsigned first) that states it; entries of one rank that disagree resolve by
///   the bytes of their normalized JSON, with one `conflicting-renewal` warning per chain.
/// - The grace date so found extends the chain's coverage from its latest expiry, unless the
///   `isInBillingRetry` so found is `false`: then it is stale, ignored, with a warning.
/// - Billing being retried, once coverage has ended, makes the product's state `billing-retry`;
///   for a `stripe` or `external` product whose catalog gives a `gracePeriod`, access continues
///   that long past the latest expiry first (unless an entry gives its own grace date).
/// - `pausedUntil` after the instant, once coverage has ended, makes it `paused` until then.
extension Evaluator {
    /// What renewal entries say at an instant, by product.
    struct RenewalFacts {
        /// Grace spans, sorted by product.
        var grace: [(product: Int32, span: CoverageSpan)] = []
        /// Per product: what its chain's entries say, sorted by product.
        var latest: [ChainStatus] = []
        /// Per chain with a counted transaction: Apple's eligible win-back offers, when an entry
        /// says, with the rank of the entry that says.
        var winBack: [(product: Int32, rank: Int64, chainId: String, offers: [String])] = []

        static let empty = RenewalFacts()
    }

    /// A chain's latest expiry among its counted transactions, and the product holding it.
    struct ChainExpiry {
        var expires = Int64.min
        /// The product holding the latest expiry, and its transaction: of several, the one bought
        /// last (purchase order).
        var holder: Int32 = -1
        /// Where that transaction is among the evaluation's entries (an index: an `Entry` here
        /// would make a table of thousands of chains several hundred kilobytes).
        var holderEntry: Int32 = -1
    }

    /// What a chain's counted renewal entries say, attached to a product.
    struct ChainStatus {
        var product: Int32
        /// The chain's latest expiry, to choose between several chains of one product.
        var expires: Int64
        /// The rank of the chain's latest counted entry, then the chain's id, for ties.
        var signed: Int64
        var chainId: String
        /// 0 false, 1 true, 2 unknown.
        var willRenew: UInt8
        var isInBillingRetry: UInt8
        var renewsTo: String?
        /// Until when the chain is paused; `Int64.min` when not.
        var pausedUntil = TransactionRecord.absentDate
        /// What the next renewal costs, when an entry says.
        var renewalPrice: Price?
    }

    /// The renewal entries of each chain, found once per evaluation: ordered by rank (signing
    /// date, unsigned first), then by the bytes of their normalized JSON.
    struct RenewalLedger {
        /// Per chain with entries: its number (see ``Chains``) and where its entries are.
        var chains: [(number: Int, entries: Range<Int32>)] = []
        var entries: [Snapshot] = []

        init() {}

        init(receipts: [ParsedReceipt], own: [Int], chains: Chains) {
            guard !chains.chainOfItem.isEmpty else { return }
            var items: [(chain: Int, copy: Snapshot)] = []
            items.reserveCapacity(own.reduce(0) { $0 + receipts[$1].renewals.count })
            for receiptIndex in own {
                for (index, renewal) in receipts[receiptIndex].renewals.enumerated() {
                    items.append(
                        (
                            chains.chain(ofRenewal: index, in: receiptIndex),
                            Snapshot(receipt: Int32(receiptIndex), index: Int32(index), rank: renewal.signed)
                        ))
                }
            }
            items.sort { $0.chain != $1.chain ? $0.chain < $1.chain : $0.copy.rank < $1.copy.rank }
            // The entries in that order, then each chain's put in its final order where it lies.
            entries.reserveCapacity(items.count)
            for item in items { entries.append(item.copy) }
            var start = 0
            while start < items.count {
                var end = start + 1
                while end < items.count, items[end].chain == items[start].chain { end += 1 }
                if end - start > 1 { Evaluator.sortRenewals(&entries, start..<end, receipts: receipts) }
                self.chains.append((items[start].chain, Int32(start)..<Int32(end)))
                start = end
            }
        }
    }

    /// Orders one chain's entries, at `range` of `group`, by rank, and entries of one rank by the
    /// bytes of their normalized JSON (computed only when entries of one rank differ).
    static func sortRenewals(_ group: inout [Snapshot], _ range: Range<Int>, receipts: [ParsedReceipt]) {
        var start = range.lowerBound
        while start < range.upperBound {
            var end = start + 1
            while end < range.upperBound, group[end].rank == group[start].rank { end += 1 }
            let first = receipts[Int(group[start].receipt)]
            let record = first.renewals[Int(group[start].index)]
            if group[(start + 1)..<end].contains(where: { copy in
                let other = receipts[Int(copy.receipt)]
                return !first.sameRenewal(record, other, other.renewals[Int(copy.index)])
            }) {
                let keyed = group[start..<end].map { copy in
                    (copy, Array(receipts[Int(copy.receipt)].canonicalJSON(ofRenewal: Int(copy.index)).utf8))
                }.sorted { $0.1.lexicographicallyPrecedes($1.1) }
                group.replaceSubrange(start..<end, with: keyed.map(\.0))
            }
            start = end
        }
    }

    /// The fields of one chain as its counted entries give them, each from the latest entry
    /// stating it.
    struct ResolvedRenewal {
        var productId: (receipt: Int32, range: TextRange)?
        var willRenew: UInt8 = 2
        var isInBillingRetry: UInt8 = 2
        var graceExpires = TransactionRecord.absentDate
        var renewsTo: (receipt: Int32, range: TextRange)?
        var expirationIntent: UInt8 = 0
        var winBackOffers: (receipt: Int32, range: Range<Int32>)?
        var pausedUntil = TransactionRecord.absentDate
        /// The next renewal's price and currency.
        var renewalPrice: (receipt: Int32, amount: TextRange, currency: TextRange)?
        /// The rank of the entry that gave `winBackOffers`.
        var winBackRank = Int64.min
        /// The latest counted entry's rank; `nil` when no entry counts.
        var latestRank: Int64?
        /// Entries of one rank disagreed on a field.
        var conflicting = false
        /// Per entry of the chain (by its place in the ledger): the fields it decided.
        var decided: [Int32: [String]] = [:]
    }

    /// Resolves one chain's fields at `at` from its entries (``RenewalLedger``), walking ranks from
    /// the latest counted down; within a rank the first entry by bytes that states a field gives
    /// it, and another stating it otherwise is a conflict.
    static func resolveRenewal<R: EvaluationRecorder>(
        _ entries: ArraySlice<Snapshot>, receipts: [ParsedReceipt], at: Int64, accounts: [Options.Account], recorder: R.Type
    ) -> ResolvedRenewal {
        var resolved = ResolvedRenewal()
        var stated: UInt16 = 0  // bits of the fields resolved, in the order they are taken
        var end = entries.endIndex
        while end > entries.startIndex {
            var start = end - 1
            while start > entries.startIndex, entries[start - 1].rank == entries[end - 1].rank { start -= 1 }
            defer { end = start }
            guard entries[start].rank <= at else { continue }
            var rankStated: UInt16 = 0
            for position in start..<end {
                let copy = entries[position]
                let receipt = receipts[Int(copy.receipt)]
                let record = receipt.renewals[Int(copy.index)]
                guard accepts(record.accountToken, of: receipt, accounts: accounts) else { continue }
                if resolved.latestRank == nil { resolved.latestRank = copy.rank }
                var decided: [String] = []
                func take(_ bit: UInt16, _ name: String, states: Bool, same: () -> Bool, set: () -> Void) {
                    guard states, stated & bit == 0 else { return }
                    if rankStated & bit != 0 {
                        if !same() { resolved.conflicting = true }
                        return
                    }
                    rankStated |= bit
                    set()
                    if R.records { decided.append(name) }
                }
                /// A field of a plain value, stated when it is not `absent`.
                func take<Value: Equatable>(
                    _ bit: UInt16, _ name: String, _ value: Value, unless absent: Value, _ field: WritableKeyPath<ResolvedRenewal, Value>
                ) {
                    take(bit, name, states: value != absent, same: { resolved[keyPath: field] == value }, set: { resolved[keyPath: field] = value })
                }
                /// A field of text in the entry's receipt: the same when its bytes are.
                func take(
                    _ bit: UInt16, _ name: String, text: TextRange, _ field: WritableKeyPath<ResolvedRenewal, (receipt: Int32, range: TextRange)?>
                ) {
                    take(
                        bit, name, states: !text.isNone,
                        same: { resolved[keyPath: field].map { receipts[Int($0.receipt)].bytesEqual($0.range, receipt, text) } ?? false },
                        set: { resolved[keyPath: field] = (copy.receipt, text) })
                }
                take(1, "productId", text: record.productId, \.productId)
                take(2, "willRenew", record.willRenew, unless: 2, \.willRenew)
                take(4, "isInBillingRetry", record.isInBillingRetry, unless: 2, \.isInBillingRetry)
                take(8, "gracePeriodExpiresDate", record.graceExpires, unless: TransactionRecord.absentDate, \.graceExpires)
                take(16, "renewsTo", text: record.renewsTo, \.renewsTo)
                take(32, "expirationIntent", record.expirationIntent, unless: 0, \.expirationIntent)
                take(
                    64, "winBackOffers", states: record.winBackOffers != nil,
                    same: {
                        guard let known = resolved.winBackOffers, let range = record.winBackOffers else { return false }
                        let other = receipts[Int(known.receipt)]
                        return known.range.count == range.count
                            && zip(known.range, range).allSatisfy { a, b in
                                other.bytesEqual(other.offerIds[Int(a)], receipt, receipt.offerIds[Int(b)])
                            }
                    },
                    set: {
                        resolved.winBackOffers = (copy.receipt, record.winBackOffers!)
                        resolved.winBackRank = copy.rank
                    })
                take(128, "pausedUntil", record.pausedUntil, unless: TransactionRecord.absentDate, \.pausedUntil)
                take(
                    256, "renewalPrice", states: !record.renewalPrice.isNone,
                    same: {
                        guard let known = resolved.renewalPrice else { return false }
                        let other = receipts[Int(known.receipt)]
                        return other.bytesEqual(known.amount, receipt, record.renewalPrice)
                            && other.bytesEqual(known.currency, receipt, record.currency)
                    }, set: { resolved.renewalPrice = (copy.receipt, record.renewalPrice, record.currency) })
                if R.records, !decided.isEmpty { resolved.decided[Int32(position)] = decided }
            }
            stated |= rankStated
            if stated == 511 { break }
        }
        return resolved
    }

    /// Whether an item naming `token` counts for the customer's `accounts`: it names one of them,
    /// or no account at all; with no accounts given, every item counts.
    @inline(__always)
    static func accepts(_ token: TextRange, of receipt: ParsedReceipt, accounts: [Options.Account]) -> Bool {
        guard !accounts.isEmpty, !token.isNone else { return true }
        for account in accounts where account.names(token, of: receipt) { return true }
        return false
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
            // A chain is one store's: the same id in two stores' receipts is two chains.
            equal: { a, b in
                let (x, y) = (receipts[Int(items[a].receipt)], receipts[Int(items[b].receipt)])
                return x.store == y.store && x.bytesEqual(items[a].range, y, items[b].range)
            },
            precedes: { a, b in
                let (x, y) = (receipts[Int(items[a].receipt)], receipts[Int(items[b].receipt)])
                if x.store != y.store { return x.store.rawValue < y.store.rawValue }
                return x.lexicographicallyPrecedes(items[a].range, y, items[b].range)
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

}

extension ParsedReceipt {
    /// Whether two renewal entries say the same, field by field.
    func sameRenewal(_ a: RenewalRecord, _ other: ParsedReceipt, _ b: RenewalRecord) -> Bool {
        func same(_ x: TextRange, _ y: TextRange) -> Bool { x.isNone || y.isNone ? x.isNone == y.isNone : bytesEqual(x, other, y) }
        guard a.willRenew == b.willRenew, a.isInBillingRetry == b.isInBillingRetry, a.graceExpires == b.graceExpires,
            a.signed == b.signed, a.expirationIntent == b.expirationIntent, same(a.productId, b.productId),
            same(a.renewsTo, b.renewsTo), same(a.accountToken, b.accountToken), a.pausedUntil == b.pausedUntil
        else { return false }
        switch (a.winBackOffers, b.winBackOffers) {
        case (nil, nil): return true
        case (let x?, let y?):
            return x.count == y.count && zip(x, y).allSatisfy { bytesEqual(offerIds[Int($0)], other, other.offerIds[Int($1)]) }
        default: return false
        }
    }
}

extension ByteKeyTable {
    /// The index of the key spelled by a receipt's text, or -1.
    func index(of receipt: ParsedReceipt, _ range: TextRange) -> Int32 {
        guard !range.isNone else { return -1 }
        return receipt.arena.withUnsafeBytes { arena in
            find(UnsafeRawBufferPointer(rebasing: arena[Int(range.start)..<Int(range.start + range.count)]))
        }
    }
}

extension Evaluation {
    mutating func renewalFacts(entries: [Entry]) -> RenewalFacts {
        let chains = inputs.deduplicated.chains
        guard !inputs.deduplicated.renewals.chains.isEmpty else { return .empty }
        // Per chain: its latest expiry among its counted transactions and the product holding it
        // (others holding it too in `tied`).
        var chain = [ChainExpiry](filling: ChainExpiry(), count: chains.transactionCount)
        var tied: [Int: [Int32]] = [:]
        for (position, entry) in entries.enumerated()
        where catalog.rules[Int(entry.product)].type == .autoRenewableSubscription && entry.cancellation > at {
            guard !entry.isUpgraded, entry.expires != TransactionRecord.absentDate else { continue }
            let number = chains.chain(ofTransaction: entry.index, in: entry.receipt)
            if entry.expires > chain[number].expires {
                chain[number].expires = entry.expires
                chain[number].holder = entry.product
                chain[number].holderEntry = Int32(position)
                if !tied.isEmpty { tied[number] = nil }
            } else if entry.expires == chain[number].expires {
                var other = entry.product
                if Evaluator.precedes(entries[Int(chain[number].holderEntry)], entry, receipts: receipts) {
                    // Bought later: it holds the chain now.
                    other = chain[number].holder
                    chain[number].holder = entry.product
                    chain[number].holderEntry = Int32(position)
                }
                if other != chain[number].holder, !(tied[number]?.contains(other) ?? false) {
                    tied[number, default: []].append(other)
                }
                tied[number]?.removeAll { $0 == chain[number].holder }
            }
        }
        var facts = RenewalFacts()
        let ledger = inputs.deduplicated.renewals
        for (number, range) in ledger.chains {
            let slice = ledger.entries[Int(range.lowerBound)..<Int(range.upperBound)]
            let counted = number < chains.transactionCount && chain[number].expires != .min
            if !counted && !R.records { continue }
            let resolved = Evaluator.resolveRenewal(slice, receipts: receipts, at: at, accounts: options.accounts, recorder: R.self)
            var owner: Int32 = -1
            var grace: CoverageSpan?
            let stale = resolved.graceExpires != TransactionRecord.absentDate && resolved.isInBillingRetry == 0
            let first = slice[slice.startIndex]
            let chainId = receipts[Int(first.receipt)].text(receipts[Int(first.receipt)].renewals[Int(first.index)].originalTransactionId)!
            if counted, resolved.latestRank != nil {
                owner = chain[number].holder
                if let others = tied[number], let named = resolved.productId {
                    let receipt = receipts[Int(named.receipt)]
                    owner = ([owner] + others).first { receipt.bytesEqual(named.range, catalog.compiledProducts[Int($0)].storeId) } ?? owner
                }
                if stale {
                    warnings.append(EvaluationWarning(kind: .staleGrace(originalTransactionId: chainId)))
                } else if resolved.graceExpires != TransactionRecord.absentDate, resolved.graceExpires > chain[number].expires {
                    grace = CoverageSpan(start: chain[number].expires, end: resolved.graceExpires, isGrace: true)
                    facts.grace.append((owner, grace!))
                } else if resolved.graceExpires == TransactionRecord.absentDate, resolved.isInBillingRetry == 1,
                    let period = catalog.compiledProducts[Int(owner)].gracePeriod
                {
                    // A web checkout's grace period, from the catalog: the store retries, access goes on.
                    let end = ISODuration.add(
                        months: period.totalMonths, days: period.totalDays, milliseconds: period.timeMilliseconds, times: 1,
                        to: chain[number].expires)
                    if end > chain[number].expires {
                        grace = CoverageSpan(start: chain[number].expires, end: end, isGrace: true)
                        facts.grace.append((owner, grace!))
                    }
                }
                if resolved.conflicting {
                    warnings.append(EvaluationWarning(kind: .conflictingRenewal(originalTransactionId: chainId)))
                }
                // Named as the answer names products: by key (`play:pro:monthly`).
                var renewsTo = resolved.renewsTo.flatMap { receipts[Int($0.receipt)].text($0.range).map(receipts[Int($0.receipt)].store.key) }
                if renewsTo == catalog.compiledProducts[Int(owner)].id { renewsTo = nil }
                facts.latest.append(
                    ChainStatus(
                        product: owner, expires: chain[number].expires, signed: resolved.latestRank!, chainId: chainId,
                        willRenew: resolved.willRenew, isInBillingRetry: resolved.isInBillingRetry, renewsTo: renewsTo,
                        pausedUntil: resolved.pausedUntil,
                        renewalPrice: resolved.renewalPrice.map { price in
                            let receipt = receipts[Int(price.receipt)]
                            return Price(amount: receipt.text(price.amount)!, currency: receipt.text(price.currency)!)
                        }))
                if let offers = resolved.winBackOffers {
                    let receipt = receipts[Int(offers.receipt)]
                    facts.winBack.append(
                        (
                            owner, resolved.winBackRank, chainId,
                            offers.range.map { receipt.text(receipt.offerIds[Int($0)])! }
                        ))
                }
            }
            if R.records {
                for position in slice.indices {
                    let copy = slice[position]
                    let receipt = receipts[Int(copy.receipt)]
                    let record = receipt.renewals[Int(copy.index)]
                    let verdict: RenewalDecision.Verdict
                    if copy.rank > at {
                        verdict = .signedLater
                    } else if !Evaluator.accepts(record.accountToken, of: receipt, accounts: options.accounts) {
                        verdict = .otherAccount
                    } else if number >= chains.transactionCount {
                        verdict = .orphan
                    } else if !counted {
                        verdict = .chainNotCounted
                    } else {
                        verdict = .counted(
                            decides: resolved.decided[Int32(position)] ?? [],
                            grace: resolved.decided[Int32(position)]?.contains("gracePeriodExpiresDate") == true ? grace : nil,
                            stale: stale && resolved.decided[Int32(position)]?.contains("gracePeriodExpiresDate") == true)
                    }
                    let product = owner >= 0 ? owner : catalog.product(record.productId, in: receipt)
                    recorder.renewal(RenewalDecision(receipt: Int(copy.receipt), index: Int(copy.index), verdict: verdict, product: product))
                }
            }
        }
        if facts.grace.count > 1 { facts.grace.sort { $0.product < $1.product } }
        // One status per product: its chain with the latest expiry, then the latest entry, then
        // the chain's id by its bytes.
        facts.latest.sort { a, b in
            if a.product != b.product { return a.product < b.product }
            if a.expires != b.expires { return a.expires > b.expires }
            if a.signed != b.signed { return a.signed > b.signed }
            return Array(a.chainId.utf8).lexicographicallyPrecedes(Array(b.chainId.utf8))
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

extension Evaluation {
    /// Notes the account of each renewal entry known at `at` that names none of the customer's
    /// accounts: it counts for nothing (``Evaluator/resolveRenewal(_:receipts:at:accounts:recorder:)``)
    /// and is warned about (`other-account`) as a transaction of another account is, in every store.
    func noteOtherAccountRenewals(_ accounts: inout Set<String>) {
        guard !options.accounts.isEmpty else { return }
        for copy in inputs.deduplicated.renewals.entries where copy.rank <= at {
            let receipt = receipts[Int(copy.receipt)]
            let token = receipt.renewals[Int(copy.index)].accountToken
            if !Evaluator.accepts(token, of: receipt, accounts: options.accounts) { accounts.insert(receipt.text(token)!) }
        }
    }
}
