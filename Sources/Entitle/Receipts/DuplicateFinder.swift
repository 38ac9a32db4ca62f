/// Finds repeated identifiers (transaction ids, consumption ids, chain ids) among items of
/// receipts, in linear time on ordinary data and `n log n` whatever the data.
///
/// Items are hashed into an open-addressing table with the fast hash the decoder computed. That
/// hash is not meant to resist a crafted receipt: ids can be chosen so that thousands share one
/// hash, and probing would then cost time quadratic in their number. So the table keeps count of
/// its probes, and when they pass a small multiple of the items it gives up and sorts the items
/// by their bytes instead, which costs `n log n` comparisons whatever the hashes.
enum DuplicateFinder {
    /// For each of `count` items, the index of the first item with the same identifier (the item
    /// itself when it is the first).
    ///
    /// - Parameters:
    ///   - hash: the item's hash; equal identifiers must have equal hashes.
    ///   - equal: whether two items' identifiers are equal.
    ///   - precedes: a strict total order on identifiers (byte-wise), for the fallback.
    @inline(__always)
    static func firstOccurrences(
        count: Int, hash: (Int) -> UInt64, equal: (Int, Int) -> Bool, precedes: (Int, Int) -> Bool
    ) -> [Int32] {
        var first = [Int32](filling: 0, count: count)
        guard count > 1 else { return first }
        var capacity = 16
        while capacity < count * 2 { capacity *= 2 }
        let mask = capacity - 1
        // The table and the hashes live only here: on the stack when small, never an array's
        // storage (whose generic metadata costs more than the table's work for a few items).
        let exhausted: Bool = withUnsafeTemporaryAllocation(of: Int32.self, capacity: capacity) { slots in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { hashes in
                slots.initialize(repeating: -1)
                // At a load of one half, an insertion probes about 1.5 slots on average.
                var budget = 8 * count + 64
                for item in 0..<count {
                    let itemHash = hash(item)
                    hashes[item] = itemHash
                    var slot = Int(truncatingIfNeeded: itemHash) & mask
                    var found = Int32(item)
                    while slots[slot] >= 0 {
                        budget -= 1
                        if budget < 0 { return true }
                        let other = Int(slots[slot])
                        if hashes[other] == itemHash, equal(other, item) {
                            found = Int32(other)
                            break
                        }
                        slot = (slot + 1) & mask
                    }
                    if found == Int32(item) { slots[slot] = Int32(item) }
                    first[item] = found
                }
                return false
            }
        }
        return exhausted ? sortedFirstOccurrences(count: count, equal: equal, precedes: precedes) : first
    }

    /// ``firstOccurrences(count:hash:equal:precedes:)`` for items whose identifier is a range of
    /// a receipt's text: equal when their bytes are, ordered by their bytes.
    @inline(__always)
    static func firstOccurrences(count: Int, hash: (Int) -> UInt64, text: (Int) -> (ParsedReceipt, TextRange)) -> [Int32] {
        firstOccurrences(
            count: count, hash: hash, equal: { Self.textEqual(text($0), text($1)) }, precedes: { Self.textPrecedes(text($0), text($1)) })
    }

    /// ``sortedFirstOccurrences(count:equal:precedes:)`` for items whose identifier is a range of
    /// a receipt's text.
    @inline(__always)
    static func sortedFirstOccurrences(count: Int, text: (Int) -> (ParsedReceipt, TextRange)) -> [Int32] {
        sortedFirstOccurrences(count: count, equal: { Self.textEqual(text($0), text($1)) }, precedes: { Self.textPrecedes(text($0), text($1)) })
    }

    @inline(__always)
    private static func textEqual(_ a: (ParsedReceipt, TextRange), _ b: (ParsedReceipt, TextRange)) -> Bool {
        a.0.bytesEqual(a.1, b.0, b.1)
    }

    @inline(__always)
    private static func textPrecedes(_ a: (ParsedReceipt, TextRange), _ b: (ParsedReceipt, TextRange)) -> Bool {
        a.0.lexicographicallyPrecedes(a.1, b.0, b.1)
    }

    /// The same answer by sorting: `n log n` comparisons whatever the hashes.
    static func sortedFirstOccurrences(count: Int, equal: (Int, Int) -> Bool, precedes: (Int, Int) -> Bool) -> [Int32] {
        var order = Array(0..<count)
        // Equal identifiers end up together, earliest item first.
        order.sort { a, b in
            if precedes(a, b) { return true }
            if precedes(b, a) { return false }
            return a < b
        }
        var first = [Int32](filling: 0, count: count)
        var groupStart = 0
        while groupStart < count {
            let leader = order[groupStart]
            var groupEnd = groupStart
            while groupEnd < count, groupEnd == groupStart || equal(leader, order[groupEnd]) {
                first[order[groupEnd]] = Int32(leader)
                groupEnd += 1
            }
            groupStart = groupEnd
        }
        return first
    }
}
