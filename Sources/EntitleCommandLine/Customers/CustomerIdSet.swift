import Foundation

/// The customer ids a corpus run has seen, kept exactly and compactly, to find a repeated id.
///
/// A run keeps what identifies each customer, never the customer's data: every key's bytes once,
/// end to end in one buffer, and an open-addressing table of where each starts. That costs the
/// key's bytes plus 16 to 32 bytes per customer as the arrays double (a million ids of 10 bytes:
/// 27 to 43 MB), where a `Set<[UInt8]>` costs about 100 bytes per id. Keys are compared by their bytes, so two ids are the same
/// customer only when they are equal; a hash only decides where to look. The hash is Swift's
/// `Hasher`, seeded afresh in each process, so ids cannot be chosen to collide and make probing
/// slow; the answer does not depend on the seed.
struct CustomerIdSet {
    /// Every key, end to end.
    private var bytes: [UInt8] = []
    /// Where key `i` starts in ``bytes``; it ends where key `i + 1` starts (the last at the end).
    private var starts: [Int] = []
    /// Key index + 1 for each slot, 0 for an empty slot; the count is a power of two, at least
    /// twice the keys, so a probe finds a free slot after about 1.5 looks.
    private var slots: [UInt32] = Array(repeating: 0, count: 16)
    /// The most keys the table can index (slots hold 32 bits); past them, ids are no longer kept
    /// and every one counts as new. Reaching it takes over 4 billion customers, far more ids than
    /// memory holds.
    static let capacity = Int(UInt32.max) - 1

    /// How many distinct keys the set holds.
    var count: Int { starts.count }

    /// Adds the key of a customer id written as `kind` (``CustomerCorpus/Customer/key``'s first
    /// byte) followed by the id's UTF-8.
    ///
    /// - Returns: `true` when the key was not there yet.
    mutating func insert(kind: UInt8, id: String) -> Bool {
        var id = id
        return id.withUTF8 { utf8 in insert(kind: kind, utf8) }
    }

    /// ``insert(kind:id:)`` on the id's bytes.
    mutating func insert(kind: UInt8, _ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard starts.count < Self.capacity else { return true }
        let hash = Self.hash(kind: kind, utf8)
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            if equal(Int(slots[slot]) - 1, kind: kind, utf8) { return false }
            slot = (slot + 1) & mask
        }
        starts.append(bytes.count)
        bytes.append(kind)
        bytes.append(contentsOf: utf8)
        slots[slot] = UInt32(truncatingIfNeeded: starts.count)
        if starts.count * 2 > slots.count { grow() }
        return true
    }

    /// Whether key `index` is `kind` followed by `utf8`.
    private func equal(_ index: Int, kind: UInt8, _ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = starts[index]
        let end = index + 1 < starts.count ? starts[index + 1] : bytes.count
        guard end - start == utf8.count + 1, bytes[start] == kind else { return false }
        return bytes.withUnsafeBufferPointer { stored in
            utf8.isEmpty || memcmp(stored.baseAddress! + start + 1, utf8.baseAddress!, utf8.count) == 0
        }
    }

    private static func hash(kind: UInt8, _ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(kind)
        hasher.combine(bytes: UnsafeRawBufferPointer(utf8))
        return hasher.finalize()
    }

    /// Doubles the table and places every key again (linear in the keys; amortized over the
    /// insertions that filled it).
    private mutating func grow() {
        var grown = [UInt32](repeating: 0, count: slots.count * 2)
        let mask = grown.count - 1
        bytes.withUnsafeBufferPointer { stored in
            for index in starts.indices {
                let start = starts[index]
                let end = index + 1 < starts.count ? starts[index + 1] : stored.count
                let utf8 = UnsafeBufferPointer(rebasing: stored[(start + 1)..<end])
                var slot = Self.hash(kind: stored[start], utf8) & mask
                while grown[slot] != 0 { slot = (slot + 1) & mask }
                grown[slot] = UInt32(truncatingIfNeeded: index + 1)
            }
        }
        slots = grown
    }
}
