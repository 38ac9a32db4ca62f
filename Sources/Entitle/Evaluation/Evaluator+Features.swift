/// Features: a feature is on when one of its sources (a product that grants it, a grandfather
/// rule, a grant) covers the instant; its `until` is the end of the unbroken union of its sources'
/// coverage.
extension Evaluation {
    /// Which features are on and until when; lowers `boundary` to the next instant one turns on or off.
    mutating func features(outcomes: [ProductOutcome], spans: [CoverageSpan], access: [AccessSpan]) -> [FeatureOutcome] {
        var count = access.count
        for outcome in outcomes { count += catalog.rules[Int(outcome.product)].grants.count * outcome.spans.count }
        guard count > 0 else { return [] }
        // The spans and each feature's runs are worked on where they are made: on the stack when
        // few, never an array's storage.
        return withUnsafeTemporaryAllocation(of: (feature: Int32, span: CoverageSpan).self, capacity: count) { buffer in
            var filled = 0
            func add(_ feature: Int32, _ span: CoverageSpan) {
                (buffer.baseAddress! + filled).initialize(to: (feature, span))
                filled += 1
            }
            for outcome in outcomes where !outcome.spans.isEmpty {
                for grant in catalog.rules[Int(outcome.product)].grants {
                    let feature = catalog.ruleGrants[Int(grant)]
                    for index in outcome.spans { add(feature, spans[Int(index)]) }
                }
            }
            for item in access where item.span.end > item.span.start { add(item.feature, item.span) }
            guard filled > 0 else { return [] }
            var featureSpans = UnsafeMutableBufferPointer(rebasing: buffer[0..<filled])
            featureSpans.sort { $0.feature != $1.feature ? $0.feature < $1.feature : $0.span.start < $1.span.start }
            var features: [FeatureOutcome] = []
            features.reserveCapacity(min(filled, catalog.featureIds.count))
            withUnsafeTemporaryAllocation(of: CoverageSpan.self, capacity: filled) { runs in
                var groupStart = 0
                while groupStart < filled {
                    let feature = featureSpans[groupStart].feature
                    var groupEnd = groupStart
                    while groupEnd < filled, featureSpans[groupEnd].feature == feature {
                        (runs.baseAddress! + (groupEnd - groupStart)).initialize(to: featureSpans[groupEnd].span)
                        groupEnd += 1
                    }
                    let (coveringEnd, nextStart) = CoverageSpan.locate(
                        UnsafeMutableBufferPointer(rebasing: runs[0..<(groupEnd - groupStart)]), at: at)
                    if let coveringEnd {
                        features.append(FeatureOutcome(feature: feature, until: coveringEnd))
                        if coveringEnd != CoverageSpan.never { boundary = min(boundary, coveringEnd) }
                    } else if let nextStart {
                        boundary = min(boundary, nextStart)
                    }
                    groupStart = groupEnd
                }
            }
            return features
        }
    }
}
