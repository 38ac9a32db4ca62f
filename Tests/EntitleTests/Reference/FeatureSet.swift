/// A set of small non-negative integers (product or group indices) as a bit set, for the reference
/// evaluator.
struct FeatureSet: Hashable, Sendable {
    private(set) var words: [UInt64]

    init(capacity: Int) {
        words = [UInt64](repeating: 0, count: max(1, (capacity + 63) / 64))
    }

    @inline(__always)
    func contains(_ index: Int) -> Bool {
        words[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    @inline(__always)
    mutating func insert(_ index: Int) {
        words[index >> 6] |= 1 << UInt64(index & 63)
    }

    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }
}
