/// Copies of one `transactionId` among the app's receipts of one store are one transaction (two
/// stores' ids are two transactions, however they are spelled): found once per evaluation, by hashing ids (sorting instead when ids were crafted to collide). A transaction
/// with several copies keeps them as snapshots, resolved at each instant (`Evaluator+Snapshots`).
extension Evaluator {
    /// A transaction as evaluation reads it at an instant: its product resolved, the record that
    /// stands for it (the copy's, with a merged cancellation and expiry), and where that copy is.
    struct Entry {
        var product: Int32
        /// The receipt and index of the copy whose text the record reads.
        var receipt: Int32
        var index: Int32
        var record: TransactionRecord
        /// For a transaction with several copies: where they are in ``Deduplicated/snapshots``.
        var copies: Range<Int32> = 0..<0

        @inline(__always) var purchase: Int64 { record.purchase }
        @inline(__always) var cancellation: Int64 { record.cancellation }
        @inline(__always) var expires: Int64 { record.expires }
        @inline(__always) var isUpgraded: Bool { record.flags & TransactionRecord.upgraded != 0 }

        /// The end of what it covers: `end`, or for a Play purchase not acknowledged, the deadline
        /// at which Google refunds it, when earlier (its coverage is known to stop there).
        @inline(__always) func capped(_ end: Int64) -> Int64 {
            record.flags & (TransactionRecord.unacknowledged | TransactionRecord.pending) == TransactionRecord.unacknowledged
                ? min(end, record.cancellation) : end
        }
    }

    /// One copy of a transaction that has several: where it is and when it was signed
    /// (`Int64.min` without `signedDate`, so unsigned copies come first).
    struct Snapshot {
        var receipt: Int32
        var index: Int32
        var rank: Int64
    }

    /// The app's transactions, each once, and what else evaluation finds once for all instants.
    struct Deduplicated {
        /// One per transaction id; a transaction with several copies stands here as its first
        /// copy until resolved at an instant.
        var entries: [Entry]
        /// The copies of transactions with several, each transaction's together, by rank then by
        /// the bytes of their normalized JSON.
        var snapshots: [Snapshot] = []
        var warnings: [EvaluationWarning]
        /// The subscription chains of the transactions and renewal entries.
        var chains: Chains
        /// The renewal entries of each chain, in order (see ``RenewalLedger``).
        var renewals: RenewalLedger
    }

    static func deduplicate(_ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int]) -> Deduplicated {
        var warnings: [EvaluationWarning] = []
        var (entries, extra) = firstCopies(catalog, receipts: receipts, own: own, warnings: &warnings)
        var snapshots: [Snapshot] = []
        if !extra.isEmpty { groupSnapshots(&entries, extra: extra, receipts: receipts, into: &snapshots) }
        let chains = chains(receipts, own: own)
        return Deduplicated(
            entries: entries, snapshots: snapshots, warnings: warnings, chains: chains,
            renewals: RenewalLedger(receipts: receipts, own: own, chains: chains))
    }

    /// The first copy of each transaction id, and the later copies as (entry position, receipt, index).
    private static func firstCopies(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], warnings: inout [EvaluationWarning]
    ) -> ([Entry], [(entry: Int32, receipt: Int32, index: Int32)]) {
        var total = 0
        for index in own { total += receipts[index].transactions.count }
        var entries: [Entry] = []
        var extra: [(entry: Int32, receipt: Int32, index: Int32)] = []
        guard total > 0 else { return (entries, extra) }
        entries.reserveCapacity(total)
        var capacity = 16
        while capacity < total * 2 { capacity *= 2 }
        let mask = capacity - 1
        // The table lives only here: on the stack when small, never an array's storage.
        let exhausted: Bool = withUnsafeTemporaryAllocation(of: Int32.self, capacity: capacity) { slots in
            slots.initialize(repeating: -1)
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
                            if entries[other].record.transactionIdHash == record.transactionIdHash {
                                let first = receipts[Int(entries[other].receipt)]
                                if first.store == receipt.store, first.bytesEqual(entries[other].record.transactionId, receipt, record.transactionId)
                                {
                                    duplicate = other
                                    break
                                }
                            }
                            slot = (slot + 1) & mask
                        }
                        if duplicate >= 0 {
                            extra.append((Int32(duplicate), Int32(receiptIndex), Int32(index)))
                            continue
                        }
                        slots[slot] = Int32(entries.count)
                        entries.append(
                            entry(catalog, record, receipt: receiptIndex, index: index, arena: arena, store: receipt.store, terms: receipt.terms))
                        if record.quantityOutOfRange { warnings.append(quantityWarning(record, of: receipt)) }
                    }
                    return false
                }
                if exhausted { return true }
            }
            return false
        }
        if exhausted { return sortedFirstCopies(catalog, receipts: receipts, own: own, warnings: &warnings) }
        return (entries, extra)
    }

    /// ``firstCopies(_:receipts:own:warnings:)`` by sorting, for ids crafted to collide.
    private static func sortedFirstCopies(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], warnings: inout [EvaluationWarning]
    ) -> ([Entry], [(entry: Int32, receipt: Int32, index: Int32)]) {
        warnings.removeAll()
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
            equal: { a, b in receipts[items[a].receipt].store == receipts[items[b].receipt].store && Self.textEqual(id(a), id(b)) },
            precedes: { a, b in
                let (x, y) = (receipts[items[a].receipt].store, receipts[items[b].receipt].store)
                if x != y { return x.rawValue < y.rawValue }
                return id(a).0.lexicographicallyPrecedes(id(a).1, id(b).0, id(b).1)
            })
        var entries: [Entry] = []
        var extra: [(entry: Int32, receipt: Int32, index: Int32)] = []
        var position = [Int32](filling: -1, count: items.count)
        for (item, (receiptIndex, index)) in items.enumerated() {
            let receipt = receipts[receiptIndex]
            let record = receipt.transactions[index]
            let leader = Int(first[item])
            if leader != item {
                extra.append((position[leader], Int32(receiptIndex), Int32(index)))
                continue
            }
            position[item] = Int32(entries.count)
            entries.append(
                receipt.arena.withUnsafeBytes {
                    entry(catalog, record, receipt: receiptIndex, index: index, arena: $0, store: receipt.store, terms: receipt.terms)
                })
            if record.quantityOutOfRange { warnings.append(quantityWarning(record, of: receipt)) }
        }
        return (entries, extra)
    }

    /// Gathers the copies of each transaction with several into ``Deduplicated/snapshots``, by
    /// rank (signing date, unsigned first) and, within a rank, by the bytes of their normalized
    /// JSON: so which copy stands for a transaction never depends on the order of the receipts.
    private static func groupSnapshots(
        _ entries: inout [Entry], extra: [(entry: Int32, receipt: Int32, index: Int32)], receipts: [ParsedReceipt],
        into snapshots: inout [Snapshot]
    ) {
        var byEntry = extra
        byEntry.sort { $0.entry < $1.entry }
        snapshots.reserveCapacity(2 * extra.count)
        // One buffer for every transaction's copies, grown to the largest group once.
        var group: [Snapshot] = []
        group.reserveCapacity(8)
        var start = 0
        while start < byEntry.count {
            var end = start
            while end < byEntry.count, byEntry[end].entry == byEntry[start].entry { end += 1 }
            let position = Int(byEntry[start].entry)
            group.removeAll(keepingCapacity: true)
            group.append(Snapshot(receipt: entries[position].receipt, index: entries[position].index, rank: rank(entries[position].record)))
            for copy in byEntry[start..<end] {
                group.append(
                    Snapshot(
                        receipt: copy.receipt, index: copy.index,
                        rank: rank(receipts[Int(copy.receipt)].transactions[Int(copy.index)])))
            }
            sortSnapshots(&group, receipts: receipts)
            let first = Int32(snapshots.count)
            snapshots += group
            entries[position].copies = first..<Int32(snapshots.count)
            start = end
        }
    }

    /// Orders copies by rank, and copies of one rank by the bytes of their normalized JSON (computed
    /// only when copies of one rank say different things: copies that agree merge to the same
    /// whatever their order).
    static func sortSnapshots(_ group: inout [Snapshot], receipts: [ParsedReceipt]) {
        group.sort { $0.rank < $1.rank }
        var start = 0
        while start < group.count {
            var end = start + 1
            while end < group.count, group[end].rank == group[start].rank { end += 1 }
            let first = receipts[Int(group[start].receipt)]
            let record = first.transactions[Int(group[start].index)]
            let differ = group[(start + 1)..<end].contains { copy in
                let other = receipts[Int(copy.receipt)]
                let candidate = other.transactions[Int(copy.index)]
                return !first.sameTransaction(record, other, candidate) || candidate.cancellation != record.cancellation
                    || candidate.expires != record.expires || candidate.revocationType != record.revocationType
                    || candidate.revocationPercentage != record.revocationPercentage || candidate.revocationReason != record.revocationReason
                    || !first.sameItems(record.items, other, candidate.items, revocationsAside: false)
            }
            if differ {
                let keyed = group[start..<end].map { copy in
                    (copy, Array(receipts[Int(copy.receipt)].canonicalJSON(ofTransaction: Int(copy.index)).utf8))
                }.sorted { $0.1.lexicographicallyPrecedes($1.1) }
                group.replaceSubrange(start..<end, with: keyed.map(\.0))
            }
            start = end
        }
    }

    private static func textEqual(_ a: (ParsedReceipt, TextRange), _ b: (ParsedReceipt, TextRange)) -> Bool {
        a.0.bytesEqual(a.1, b.0, b.1)
    }

    /// A copy's rank among the snapshots of its transaction: its signing date, unsigned first.
    @inline(__always)
    static func rank(_ record: TransactionRecord) -> Int64 { record.signed }

    /// The warning for a quantity outside 1 to 1,000, which the decoder never lets through and a
    /// receipt built in code may hold.
    private static func quantityWarning(_ record: TransactionRecord, of receipt: ParsedReceipt) -> EvaluationWarning {
        EvaluationWarning(kind: .quantityOutOfRange(transactionId: receipt.text(record.transactionId)!, quantity: Int(record.quantity)))
    }

    /// A copy of a transaction as an entry, its product looked up by the id's bytes in the
    /// receipt's store. A Play purchase the app did not acknowledge is cancelled (refunded in
    /// full) three days after its purchase, if nothing cancelled it before (not while it is still
    /// pending: nothing is bought to acknowledge yet).
    @inline(__always)
    static func entry(
        _ catalog: CompiledCatalog, _ record: TransactionRecord, receipt: Int, index: Int, arena: UnsafeRawBufferPointer,
        store: Store, terms: [PurchaseTermsRecord]
    ) -> Entry {
        func lookUp(_ range: TextRange) -> Int32 {
            catalog.product(UnsafeRawBufferPointer(rebasing: arena[Int(range.start)..<Int(range.start + range.count)]), store: store)
        }
        // A purchase option names the catalog's `<productId>:<option>` when it declares one.
        var product = -1 as Int32
        if record.terms >= 0, !terms[Int(record.terms)].optionProduct.isNone { product = lookUp(terms[Int(record.terms)].optionProduct) }
        if product < 0 { product = lookUp(record.productId) }
        var entry = Entry(product: product, receipt: Int32(receipt), index: Int32(index), record: record)
        if record.flags & (TransactionRecord.unacknowledged | TransactionRecord.pending) == TransactionRecord.unacknowledged {
            let deadline = record.acknowledgementDeadline(release: record.terms < 0 ? TransactionRecord.absentDate : terms[Int(record.terms)].release)
            if deadline < entry.record.cancellation {
                entry.record.cancellation = deadline
                entry.record.revocationType = ParsedReceipt.code(Transaction.RevocationType.refundFull)
                entry.record.revocationPercentage = -1
            }
        }
        return entry
    }

    /// One warning per unknown product id, with its count; the did-you-mean is added when the
    /// warnings are read (``EvaluationWarning/suggesting(in:budget:)``), not on every evaluation.
    static func unknownProductWarnings(
        _ unknown: [(receipt: Int32, range: TextRange)], receipts: [ParsedReceipt]
    ) -> [EvaluationWarning] {
        var counts: [String: Int] = [:]
        // Named by key, as the catalog's products are: `play:pro.montly`.
        for (receipt, range) in unknown { counts[receipts[Int(receipt)].store.key(of: receipts[Int(receipt)].text(range)!), default: 0] += 1 }
        return counts.keys.sorted().map { EvaluationWarning(kind: .unknownProduct(productId: $0, count: counts[$0]!)) }
    }
}

extension ParsedReceipt {
    /// A transaction's normalized JSON, compact: what orders copies of one rank.
    func canonicalJSON(ofTransaction index: Int) -> String { transaction(transactions[index]).jsonOutput.compact() }

    /// A renewal entry's normalized JSON, compact: what orders entries of one rank.
    func canonicalJSON(ofRenewal index: Int) -> String { renewal(renewals[index]).jsonOutput.compact() }
}
