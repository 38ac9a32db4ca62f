extension Array {
    /// `count` copies of `value`, written in one pass over fresh storage. The evaluator builds a few
    /// such tables per evaluation; `Array(repeating:count:)` reaches them through a slower generic
    /// path for tuples and small structs.
    @inline(__always)
    init(filling value: Element, count: Int) {
        // Not through `unsafeUninitializedCapacity` when empty: that would write the count of the
        // empty-array singleton every thread shares (ThreadSanitizer reports it as a race).
        guard count > 0 else {
            self = []
            return
        }
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.baseAddress!.initialize(repeating: value, count: count)
            initialized = count
        }
    }
}
