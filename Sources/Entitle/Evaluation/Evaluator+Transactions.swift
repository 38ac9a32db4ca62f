/// Deduplicating the app's transactions: copies of one `transactionId`, within or across receipts,
/// count once, and the earliest cancellation among them holds.
extension Evaluator {
    /// The app's transactions after deduplication, and the warnings it raised.
    struct Deduplicated {
        var entries: [Entry]
        var warnings: [EvaluationWarning]
        /// The subscription chains of the transactions and renewal entries.
        var chains: Chains
    }

    static func deduplicate(_ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int]) -> Deduplicated {
        var warnings: [EvaluationWarning] = []
        let entries = deduplicate(catalog, receipts: receipts, own: own, warnings: &warnings)
        let chains = chains(receipts, own: own)
        return Deduplicated(entries: entries, warnings: warnings, chains: chains)
    }

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
        var slots = [Int32](filling: -1, count: capacity)
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
                    if record.quantityOutOfRange { warnings.append(quantityWarning(record, of: receipt)) }
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
        var position = [Int32](filling: -1, count: items.count)
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
            if record.quantityOutOfRange { warnings.append(quantityWarning(record, of: receipt)) }
        }
        return entries
    }

    /// The warning for a quantity outside 1 to 1,000, which the decoder never lets through and a
    /// receipt built in code may hold.
    private static func quantityWarning(_ record: TransactionRecord, of receipt: ParsedReceipt) -> EvaluationWarning {
        EvaluationWarning(kind: .quantityOutOfRange(transactionId: receipt.text(record.transactionId)!, quantity: Int(record.quantity)))
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

    static func unknownProductWarnings(
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
}
