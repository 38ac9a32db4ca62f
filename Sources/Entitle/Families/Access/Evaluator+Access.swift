/// Access that does not come from a purchase of a product: grandfather rules (customers who paid
/// for the app before it turned free) and grants a service records itself.
///
/// - A grandfather rule matches a receipt of the app when every condition it states holds: its
///   `originalApplicationVersion` is lower than the rule's version (dot-separated numbers, missing
///   components 0), its `originalPurchaseDate` is before the rule's instant, its `originalPlatform`
///   is one the rule lists. It covers its features from the receipt's `originalPurchaseDate`
///   (from always, when it has none and no condition reads it), with no end.
/// - A grant counts when `start <= at` and it is not revoked at or before `at`; it covers
///   `[start, end)`. Copies of one grant id across receipts count once: when they differ, the
///   one whose normalized JSON sorts first by bytes, with a warning.
extension Evaluator {
    /// Coverage of one feature by one rule or grant, named as in ``FeatureStatus/sources``.
    struct AccessSpan: Equatable, Sendable {
        var feature: Int32
        var source: String
        var span: CoverageSpan
        /// Whether it is a grandfather rule's (offers read those).
        var isGrandfathered: Bool
    }

    /// Whether a grandfather rule's conditions all hold for a receipt (`version`: its
    /// `originalApplicationVersion` read, when the rule reads one): matched from the receipt's
    /// `originalPurchaseDate` (from always when it has none), or the first condition that fails.
    static func grandfatherDecision(_ condition: GrandfatherCondition, version: [Int]?, receipt: ParsedReceipt) -> GrandfatherDecision {
        let purchase = receipt.originalPurchase
        if let before = condition.originalApplicationVersionBefore {
            guard let version else { return receipt.originalApplicationVersion == nil ? .missing(.version) : .unreadableVersion }
            guard Evaluator.version(version, isBefore: before) else { return .notMatched(.version) }
        }
        if let before = condition.originalPurchaseBefore {
            guard purchase != TransactionRecord.absentDate else { return .missing(.purchase) }
            guard purchase < before else { return .notMatched(.purchase) }
        }
        if let platforms = condition.originalPlatforms {
            guard let platform = receipt.originalPlatform else { return .missing(.platform) }
            guard platforms.contains(platform) else { return .notMatched(.platform) }
        }
        return .matched(from: purchase == TransactionRecord.absentDate ? .min : purchase)
    }

    /// Whether version `a` is lower than `b`, comparing numbers and reading missing ones as 0.
    static func version(_ a: [Int], isBefore b: [Int]) -> Bool {
        for index in 0..<max(a.count, b.count) {
            let left = index < a.count ? a[index] : 0
            let right = index < b.count ? b[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    /// Every grant of the app's receipts, in receipt then entry order.
    static func grantItems(own: [Int], receipts: [ParsedReceipt]) -> [(receipt: Int32, index: Int32)] {
        var items: [(receipt: Int32, index: Int32)] = []
        for receiptIndex in own {
            for index in receipts[receiptIndex].grants.indices { items.append((Int32(receiptIndex), Int32(index))) }
        }
        return items
    }

    /// Which of the grants `items` count: of copies of one id that differ, the one whose
    /// normalized JSON sorts first by bytes (`conflict` is told once per such id).
    static func standingGrants(
        _ items: [(receipt: Int32, index: Int32)], receipts: [ParsedReceipt], conflict: (ParsedReceipt, Int) -> Void
    ) -> [Bool] {
        standingCopies(
            items, receipts: receipts, id: { $0.grants[$1].id }, hash: { $0.grants[$1].idHash },
            same: { a, i, b, j in a.sameGrant(a.grants[i], b, b.grants[j]) },
            canonical: { receipt, index in receipt.grant(receipt.grants[index]).jsonOutput.compact() },
            conflict: conflict)
    }

    /// For items of the app's receipts that an id identifies (grants, consumptions), whether each
    /// stands for its id: the only copy, or of copies that differ, the one whose normalized JSON
    /// sorts first by bytes (``conflict`` is told once per such id); of equal copies, the first.
    static func standingCopies(
        _ items: [(receipt: Int32, index: Int32)], receipts: [ParsedReceipt],
        id: (ParsedReceipt, Int) -> TextRange, hash: (ParsedReceipt, Int) -> UInt64,
        same: (ParsedReceipt, Int, ParsedReceipt, Int) -> Bool, canonical: (ParsedReceipt, Int) -> String,
        conflict: (ParsedReceipt, Int) -> Void
    ) -> [Bool] {
        guard items.count > 1 else { return [Bool](repeating: true, count: items.count) }
        func key(_ item: Int) -> (ParsedReceipt, TextRange) {
            let receipt = receipts[Int(items[item].receipt)]
            return (receipt, id(receipt, Int(items[item].index)))
        }
        let first = DuplicateFinder.firstOccurrences(
            count: items.count, hash: { hash(receipts[Int(items[$0].receipt)], Int(items[$0].index)) }, text: key)
        var standing = [Bool](repeating: false, count: items.count)
        // The copies of each id that differ from its first; when any does, bytes decide.
        var differing: [Int32: [Int]] = [:]
        for item in items.indices {
            let leader = Int(first[item])
            if leader == item {
                standing[item] = true
                continue
            }
            let a = receipts[Int(items[leader].receipt)]
            let b = receipts[Int(items[item].receipt)]
            if !same(a, Int(items[leader].index), b, Int(items[item].index)) { differing[first[item], default: []].append(item) }
        }
        for (leader, others) in differing {
            let candidates = [Int(leader)] + others
            let chosen = candidates.min { x, y in
                let left = canonical(receipts[Int(items[x].receipt)], Int(items[x].index))
                let right = canonical(receipts[Int(items[y].receipt)], Int(items[y].index))
                return Array(left.utf8).lexicographicallyPrecedes(Array(right.utf8))
            }!
            standing[Int(leader)] = false
            standing[chosen] = true
            conflict(receipts[Int(items[chosen].receipt)], Int(items[chosen].index))
        }
        return standing
    }
}

extension Evaluation {
    /// The access of grandfather rules and grants, after `items` (what Advanced Commerce items
    /// grant, ``itemAccess(entries:runs:into:unknown:)``).
    mutating func accessSpans(items: [AccessSpan] = []) -> [AccessSpan] {
        var access = items
        if !catalog.grandfatherRules.isEmpty {
            grandfatherRuleSpans(into: &access)
        }
        if own.contains(where: { !receipts[$0].grants.isEmpty }) {
            granted(into: &access)
        }
        for item in access where item.span.end > item.span.start {
            if item.span.start > at { boundary = min(boundary, item.span.start) }
            if item.span.start <= at, item.span.end > at, item.span.end != CoverageSpan.never { boundary = min(boundary, item.span.end) }
        }
        return access
    }

    private mutating func grandfatherRuleSpans(into access: inout [AccessSpan]) {
        let rules = catalog.grandfatherRules
        guard !rules.isEmpty else { return }
        let readsVersions = rules.contains { $0.condition.originalApplicationVersionBefore != nil }
        var starts = [Int64?](filling: nil, count: rules.count)
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            var version: [Int]?
            if readsVersions, let text = receipt.originalApplicationVersion {
                version = CatalogChecker.versionComponents(text)
                if version == nil { warnings.append(EvaluationWarning(kind: .badVersion(app: receipt.app, version: text))) }
            }
            for (index, rule) in rules.enumerated() {
                let decision = Evaluator.grandfatherDecision(rule.condition, version: version, receipt: receipt)
                if case .matched(let start) = decision { starts[index] = min(starts[index] ?? .max, start) }
                if R.records { recorder.grandfather(rule: index, receipt: receiptIndex, decision) }
            }
        }
        for (index, rule) in rules.enumerated() {
            guard let start = starts[index] else { continue }
            for feature in rule.grants {
                access.append(
                    AccessSpan(
                        feature: Int32(feature), source: rule.source,
                        span: CoverageSpan(start: start, end: CoverageSpan.never), isGrandfathered: true))
            }
        }
    }

    private mutating func granted(into access: inout [AccessSpan]) {
        let items = Evaluator.grantItems(own: own, receipts: receipts)
        let standing = Evaluator.standingGrants(items, receipts: receipts) { receipt, index in
            warnings.append(EvaluationWarning(kind: .conflictingGrant(id: receipt.text(receipt.grants[index].id)!)))
        }
        var features: [Int32] = []
        for (item, (receiptIndex, index)) in items.enumerated() {
            let receipt = receipts[Int(receiptIndex)]
            let grant = receipt.grants[Int(index)]
            guard standing[item] else {
                if R.records { recorder.grant(receipt: Int(receiptIndex), index: Int(index), .copy) }
                continue
            }
            guard grant.start <= at, grant.revoked > at else {
                if R.records { recorder.grant(receipt: Int(receiptIndex), index: Int(index), grant.start > at ? .later : .revoked) }
                continue
            }
            if R.records { recorder.grant(receipt: Int(receiptIndex), index: Int(index), .counted) }
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
                access.append(
                    AccessSpan(
                        feature: feature, source: name, span: CoverageSpan(start: grant.start, end: grant.end),
                        isGrandfathered: false))
            }
        }
    }
}
