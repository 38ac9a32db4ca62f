/// A half-open span of time `[start, end)` during which a product grants its features.
///
/// `end == .max` means the span never ends.
struct CoverageSpan: Hashable, Sendable {
    var start: Int64
    var end: Int64
    /// Access extended by a billing grace period rather than paid for.
    var isGrace = false

    static let never = Int64.max

    /// Merges spans and finds the unbroken span containing `at`, and the first start after `at`.
    ///
    /// Spans that touch (`[a, b)` and `[b, c)`) are unbroken. Sorts `spans` in place.
    static func locate(_ spans: UnsafeMutableBufferPointer<CoverageSpan>, at: Int64) -> (coveringEnd: Int64?, nextStart: Int64?) {
        guard !spans.isEmpty else { return (nil, nil) }
        if spans.count > 1 {
            var spans = spans
            spans.sort { $0.start < $1.start }
        }
        var index = 0
        while index < spans.count {
            let start = spans[index].start
            var end = spans[index].end
            index += 1
            while index < spans.count, spans[index].start <= end {
                end = max(end, spans[index].end)
                index += 1
            }
            if start > at { return (nil, start) }
            if at < end { return (end, nil) }
        }
        return (nil, nil)
    }

    /// Spans sorted by start, merged into unbroken runs (touching spans are one run; empty ones go).
    static func merged(_ sorted: some Sequence<CoverageSpan>) -> [CoverageSpan] {
        var runs: [CoverageSpan] = []
        for span in sorted where span.end > span.start {
            if let last = runs.last, span.start <= last.end {
                runs[runs.count - 1].end = max(last.end, span.end)
            } else {
                runs.append(CoverageSpan(start: span.start, end: span.end))
            }
        }
        return runs
    }

    /// ``locate(_:at:)`` on an array.
    static func locate(_ spans: inout [CoverageSpan], at: Int64) -> (coveringEnd: Int64?, nextStart: Int64?) {
        spans.withUnsafeMutableBufferPointer { locate($0, at: at) }
    }
}
