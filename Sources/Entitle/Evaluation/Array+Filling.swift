extension Array {
    /// `count` copies of `value`, written in one pass over fresh storage. The evaluator builds a few
    /// such tables per evaluation; `Array(repeating:count:)` reaches them through a slower generic
    /// path for tuples and small structs.
    @inline(__always)
    init(filling value: Element, count: Int) {
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { buffer.baseAddress!.initialize(repeating: value, count: count) }
            initialized = count
        }
    }
}
