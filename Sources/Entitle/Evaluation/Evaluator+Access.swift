/// Access that does not come from a purchase of a product: grandfather rules (customers who paid
/// for the app before it turned free) and grants a service records itself.
///
/// - A grandfather rule matches a receipt of the app whose `originalApplicationVersion` is lower
///   than the rule's version (dot-separated numbers, missing components 0), or whose
///   `originalPurchaseDate` is before the rule's instant. It covers its features from the
///   receipt's `originalPurchaseDate` (from always, when the version matched and there is none),
///   with no end.
/// - A grant counts when `start <= at` and it is not revoked at or before `at`; it covers
///   `[start, end)`. Copies of one grant id across receipts count once, the first.
extension Evaluator {
    /// Coverage of one feature by one rule or grant, named as in ``FeatureStatus/sources``.
    struct AccessSpan: Equatable, Sendable {
        var feature: Int32
        var source: String
        var span: CoverageSpan
        /// Whether it is a grandfather rule's (offers read those).
        var isGrandfathered: Bool
    }

    static func accessSpans(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], at: Int64,
        boundary: inout Int64, warnings: inout [EvaluationWarning]
    ) -> [AccessSpan] {
        var access: [AccessSpan] = []
        if !catalog.grandfatherRules.isEmpty {
            grandfathered(catalog, receipts: receipts, own: own, into: &access, warnings: &warnings)
        }
        if own.contains(where: { !receipts[$0].grants.isEmpty }) {
            granted(catalog, receipts: receipts, own: own, at: at, into: &access, warnings: &warnings)
        }
        for item in access where item.span.end > item.span.start {
            if item.span.start > at { boundary = min(boundary, item.span.start) }
            if item.span.start <= at, item.span.end > at, item.span.end != CoverageSpan.never { boundary = min(boundary, item.span.end) }
        }
        return access
    }

    private static func grandfathered(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], into access: inout [AccessSpan],
        warnings: inout [EvaluationWarning]
    ) {
        let readsVersions = catalog.grandfatherRules.contains {
            if case .originalApplicationVersionBefore = $0.condition { return true }
            return false
        }
        var starts = [Int64?](repeating: nil, count: catalog.grandfatherRules.count)
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            var version: [Int]?
            if readsVersions, let text = receipt.originalApplicationVersion {
                version = CatalogChecker.versionComponents(text)
                if version == nil { warnings.append(EvaluationWarning(kind: .badVersion(app: receipt.app, version: text))) }
            }
            for (index, rule) in catalog.grandfatherRules.enumerated() {
                var start: Int64?
                switch rule.condition {
                case .originalApplicationVersionBefore(let before):
                    if let version, Self.version(version, isBefore: before) {
                        start = receipt.originalPurchase == TransactionRecord.absentDate ? .min : receipt.originalPurchase
                    }
                case .originalPurchaseBefore(let before):
                    if receipt.originalPurchase != TransactionRecord.absentDate, receipt.originalPurchase < before {
                        start = receipt.originalPurchase
                    }
                }
                if let start { starts[index] = min(starts[index] ?? .max, start) }
            }
        }
        for (index, rule) in catalog.grandfatherRules.enumerated() {
            guard let start = starts[index] else { continue }
            for feature in rule.grants {
                access.append(AccessSpan(feature: Int32(feature), source: "grandfathered:\(rule.id)",
                                         span: CoverageSpan(start: start, end: CoverageSpan.never), isGrandfathered: true))
            }
        }
    }

    /// Whether version `a` is lower than `b`, comparing numbers and reading missing ones as 0.
    static func version(_ a: [Int], isBefore b: [Int]) -> Bool {
        for index in 0..<max(a.count, b.count) {
            let left = index < a.count ? a[index] : 0, right = index < b.count ? b[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    private static func granted(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], at: Int64, into access: inout [AccessSpan],
        warnings: inout [EvaluationWarning]
    ) {
        var items: [(receipt: Int32, index: Int32)] = []
        for receiptIndex in own {
            for index in receipts[receiptIndex].grants.indices { items.append((Int32(receiptIndex), Int32(index))) }
        }
        func id(_ item: Int) -> (ParsedReceipt, TextRange) {
            let receipt = receipts[Int(items[item].receipt)]
            return (receipt, receipt.grants[Int(items[item].index)].id)
        }
        let first = DuplicateFinder.firstOccurrences(
            count: items.count,
            hash: { receipts[Int(items[$0].receipt)].grants[Int(items[$0].index)].idHash },
            equal: { a, b in let (x, r) = id(a), (y, s) = id(b); return x.bytesEqual(r, y, s) },
            precedes: { a, b in let (x, r) = id(a), (y, s) = id(b); return x.lexicographicallyPrecedes(r, y, s) })
        var features: [Int32] = []
        for (item, (receiptIndex, index)) in items.enumerated() {
            let receipt = receipts[Int(receiptIndex)]
            let grant = receipt.grants[Int(index)]
            let leader = Int(first[item])
            if leader != item {
                let earlier = receipts[Int(items[leader].receipt)]
                if !earlier.sameGrant(earlier.grants[Int(items[leader].index)], receipt, grant) {
                    warnings.append(EvaluationWarning(kind: .conflictingGrant(id: receipt.text(grant.id)!)))
                }
                continue
            }
            guard grant.start <= at, grant.revoked > at else { continue }
            // A feature named twice in one grant is one span (a grant may name 10,000 features).
            features.removeAll(keepingCapacity: true)
            for position in grant.features {
                let range = receipt.grantFeatures[Int(position)]
                let feature = receipt.arena.withUnsafeBytes { arena in
                    catalog.featureTable.find(UnsafeRawBufferPointer(rebasing: arena[Int(range.start)..<Int(range.start + range.count)]))
                }
                guard feature >= 0 else {
                    warnings.append(EvaluationWarning(kind: .unknownGrantFeature(grantId: receipt.text(grant.id)!, feature: receipt.text(range)!)))
                    continue
                }
                features.append(feature)
            }
            guard !features.isEmpty else { continue }
            features.sort()
            let name = "grant:" + receipt.text(grant.id)!
            for (position, feature) in features.enumerated() where position == 0 || features[position - 1] != feature {
                access.append(AccessSpan(feature: feature, source: name, span: CoverageSpan(start: grant.start, end: grant.end),
                                         isGrandfathered: false))
            }
        }
    }
}
