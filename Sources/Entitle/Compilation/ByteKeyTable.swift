/// An immutable hash table from byte strings (product or currency ids) to indices, looked up with
/// the raw bytes of a receipt so no `String` is built on the hot path.
///
/// Its storage is allocated once and freed when the table ends: the table cannot be copied, so it
/// lives exactly as long as its owner (``CompiledCatalog``) and no copy can outlive the storage.
/// Reading it from many threads touches no reference count.
struct ByteKeyTable: ~Copyable, @unchecked Sendable {
    private let keys: UnsafeBufferPointer<UInt8>
    private let offsets: UnsafeBufferPointer<Int32>
    /// The hash table's slots, or with ``mask`` -1 the key indices sorted by their bytes.
    private let slots: UnsafeBufferPointer<Int32>
    private let mask: Int

    /// - Parameter probeBudget: the probes allowed before falling back to sorted keys (tests set
    ///   it to 0 to check that path); by default 8 per key.
    init(_ strings: [String], probeBudget: Int? = nil) {
        var keys: [UInt8] = []
        var offsets: [Int32] = [0]
        for string in strings {
            keys += string.utf8
            offsets.append(Int32(keys.count))
        }
        var capacity = 8
        while capacity < strings.count * 2 { capacity *= 2 }
        var slots = [Int32](repeating: -1, count: capacity)
        let mask = capacity - 1
        // Ids crafted to share their hash's low bits would make every lookup walk one long run of
        // slots; past this many probes the table keeps its keys sorted instead and looks them up
        // by binary search (as DuplicateFinder does for receipts).
        var budget = probeBudget ?? 8 * strings.count + 64
        keys.withUnsafeBytes { raw in
            build: for index in strings.indices {
                let key = UnsafeRawBufferPointer(rebasing: raw[Int(offsets[index])..<Int(offsets[index + 1])])
                var slot = Int(truncatingIfNeeded: ByteKeyTable.hash(key)) & mask
                while slots[slot] >= 0 {
                    budget -= 1
                    if budget < 0 { break build }
                    // Keep the first of equal keys, as the checker does.
                    let other = slots[slot]
                    if raw[Int(offsets[Int(other)])..<Int(offsets[Int(other) + 1])].elementsEqual(key) { break }
                    slot = (slot + 1) & mask
                }
                if slots[slot] < 0 { slots[slot] = Int32(index) }
            }
        }
        if budget < 0 {
            // Sorted by key bytes, the first of equal keys first.
            let order = keys.withUnsafeBytes { raw in
                strings.indices.sorted { a, b in
                    let x = raw[Int(offsets[a])..<Int(offsets[a + 1])]
                    let y = raw[Int(offsets[b])..<Int(offsets[b + 1])]
                    return x.elementsEqual(y) ? a < b : x.lexicographicallyPrecedes(y)
                }.map(Int32.init)
            }
            slots = order
            self.mask = -1
        } else {
            self.mask = mask
        }
        self.keys = .allocatedCopy(of: keys)
        self.offsets = .allocatedCopy(of: offsets)
        self.slots = .allocatedCopy(of: slots)
    }

    deinit {
        keys.deallocate()
        offsets.deallocate()
        slots.deallocate()
    }

    /// The index of `key`, or -1.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer) -> Int32 {
        guard mask >= 0 else { return findSorted(key) }
        var slot = Int(truncatingIfNeeded: ByteKeyTable.hash(key)) & mask
        while true {
            let index = slots[slot]
            if index < 0 { return -1 }
            let start = Int(offsets[Int(index)])
            let end = Int(offsets[Int(index) + 1])
            if end - start == key.count,
                key.count == 0 || memcmp(keys.baseAddress! + start, key.baseAddress!, key.count) == 0
            {
                return index
            }
            slot = (slot + 1) & mask
        }
    }

    /// ``find(_:)`` in the sorted keys of a table built from colliding ids.
    private func findSorted(_ key: UnsafeRawBufferPointer) -> Int32 {
        func compare(_ index: Int32) -> Int {
            let start = Int(offsets[Int(index)])
            let count = Int(offsets[Int(index) + 1]) - start
            let common = min(count, key.count)
            let order = common == 0 ? 0 : Int(memcmp(keys.baseAddress! + start, key.baseAddress!, common))
            return order != 0 ? order : count - key.count
        }
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if compare(slots[middle]) < 0 { low = middle + 1 } else { high = middle }
        }
        return low < slots.count && compare(slots[low]) == 0 ? slots[low] : -1
    }

    /// The index of `key`, or -1.
    func find(_ key: String) -> Int32 {
        var key = key
        return key.withUTF8 { find(UnsafeRawBufferPointer($0)) }
    }

    /// A fast, well-mixed 64-bit hash of bytes, eight at a time (not for adversarial use).
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(truncatingIfNeeded: count)
        var index = 0
        while index + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
            index += 8
        }
        if index < count {
            // The last 1 to 7 bytes in one or two loads, not one at a time (the count is mixed in
            // already, so overlapping loads still tell keys apart).
            let rest = count - index
            let word: UInt64
            if count >= 8 {
                word = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) >> UInt64((8 - rest) * 8)
            } else if rest >= 4 {
                word =
                    UInt64(bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self))
                    | UInt64(bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32
            } else {
                word = UInt64(bytes[index]) | UInt64(bytes[index + rest / 2]) << 8 | UInt64(bytes[count - 1]) << 16
            }
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
        }
        // A multiplication carries low bits up, never down: ids that differ only in their last
        // bytes ("1000001", "1000002") would share their low bits, which index the tables. A final
        // mix spreads every bit over the whole hash.
        hash ^= hash >> 29
        hash = hash &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 32
        return hash
    }
}

extension UnsafeBufferPointer {
    /// A new buffer holding a copy of `array`, for storage an owner frees with `deallocate()`.
    static func allocatedCopy(of array: [Element]) -> UnsafeBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: Swift.max(1, array.count))
        _ = buffer.initialize(from: array)
        return UnsafeBufferPointer(rebasing: buffer[..<array.count])
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
