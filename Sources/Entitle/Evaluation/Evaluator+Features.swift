/// Features: a feature is on when one of its sources (a product that grants it, a grandfather
/// rule, a grant) covers the instant; its `until` is the end of the unbroken union of its sources'
/// coverage.
extension Evaluator {
    /// Which features are on and until when; lowers `boundary` to the next instant one turns on or off.
    static func evaluateFeatures(
        _ catalog: CompiledCatalog, outcomes: [ProductOutcome], spans: [CoverageSpan], access: [AccessSpan], at: Int64,
        boundary: inout Int64
    ) -> [FeatureOutcome] {
        var featureSpans: [(feature: Int32, span: CoverageSpan)] = []
        var count = access.count
        for outcome in outcomes { count += catalog.rules[Int(outcome.product)].grants.count * outcome.spans.count }
        featureSpans.reserveCapacity(count)
        for outcome in outcomes where !outcome.spans.isEmpty {
            for grant in catalog.rules[Int(outcome.product)].grants {
                let feature = catalog.ruleGrants[Int(grant)]
                for index in outcome.spans { featureSpans.append((feature, spans[Int(index)])) }
            }
        }
        for item in access where item.span.end > item.span.start { featureSpans.append((item.feature, item.span)) }
        var features: [FeatureOutcome] = []
        guard !featureSpans.isEmpty else { return features }
        features.reserveCapacity(min(featureSpans.count, catalog.featureIds.count))
        featureSpans.sort { $0.feature != $1.feature ? $0.feature < $1.feature : $0.span.start < $1.span.start }
        var groupStart = 0
        var runs: [CoverageSpan] = []
        runs.reserveCapacity(featureSpans.count)
        while groupStart < featureSpans.count {
            let feature = featureSpans[groupStart].feature
            var groupEnd = groupStart
            runs.removeAll(keepingCapacity: true)
            while groupEnd < featureSpans.count, featureSpans[groupEnd].feature == feature {
                runs.append(featureSpans[groupEnd].span)
                groupEnd += 1
            }
            let (coveringEnd, nextStart) = runs.withUnsafeMutableBufferPointer { CoverageSpan.locate($0, at: at) }
            if let coveringEnd {
                features.append(FeatureOutcome(feature: feature, until: coveringEnd))
                if coveringEnd != CoverageSpan.never { boundary = min(boundary, coveringEnd) }
            } else if let nextStart {
                boundary = min(boundary, nextStart)
            }
            groupStart = groupEnd
        }
        return features
    }
}
