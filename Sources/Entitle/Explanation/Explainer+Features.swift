/// Feature sources in an explanation: the products granting the feature, the grandfather rules
/// granting it and the receipts' grants naming it, each with whether it covers and why.
extension Explainer {
    func feature(_ index: Int, products: [String: ProductExplanation]) -> FeatureExplanation {
        let id = catalog.featureIds[index]
        let status = result.feature(id) ?? FeatureStatus(id: id, enabled: false, until: nil, sources: [])
        var sources: [SourceExplanation] = []
        for granter in catalog.granters[index] {
            let productId = catalog.compiledProducts[granter].id
            guard let product = products[productId] else { continue }
            let covers = product.state == .active || product.state == .gracePeriod
            let ended = product.coverage.compactMap(\.end).filter { $0.millisecondsSince1970 <= at }.max()
            sources.append(SourceExplanation(
                kind: .product, id: productId, covers: covers, state: product.state.rawValue, until: covers ? product.until : nil,
                ended: covers ? nil : ended, reason: product.reason))
        }
        for rule in catalog.grandfatherRules where rule.grants.contains(index) {
            sources.append(grandfathered(rule, feature: index))
        }
        sources += grantSources[id] ?? []
        var decidedBy: String?
        if status.enabled {
            decidedBy = sources.filter(\.covers).max { ($0.until?.millisecondsSince1970 ?? .max) < ($1.until?.millisecondsSince1970 ?? .max) }?.id
        } else {
            decidedBy = sources.filter { $0.ended != nil }.max { $0.ended! < $1.ended! }?.id
        }
        return FeatureExplanation(id: id, enabled: status.enabled, until: status.until, decidedBy: decidedBy, sources: sources)
    }

    private func grandfathered(_ rule: GrandfatherRule, feature: Int) -> SourceExplanation {
        let name = "grandfathered:\(rule.id)"
        let span = result.access.first { $0.isGrandfathered && $0.source == name && $0.feature == Int32(feature) }?.span
        var reasons: [String] = []
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            switch rule.condition {
            case .originalApplicationVersionBefore(let before):
                let limit = before.map(String.init).joined(separator: ".")
                guard let text = receipt.originalApplicationVersion else {
                    reasons.append("receipt \(positions[receiptIndex]) has no originalApplicationVersion")
                    continue
                }
                guard let version = CatalogChecker.versionComponents(text) else {
                    reasons.append("receipt \(positions[receiptIndex])'s originalApplicationVersion `\(text)` is not a version")
                    continue
                }
                reasons.append("originalApplicationVersion \(text) is \(Evaluator.version(version, isBefore: before) ? "" : "not ")before \(limit)")
            case .originalPurchaseBefore(let before):
                guard receipt.originalPurchase != TransactionRecord.absentDate else {
                    reasons.append("receipt \(positions[receiptIndex]) has no originalPurchaseDate")
                    continue
                }
                reasons.append("originalPurchaseDate \(Self.text(receipt.originalPurchase)) is "
                               + "\(receipt.originalPurchase < before ? "" : "not ")before \(Self.text(before))")
            }
        }
        if reasons.isEmpty { reasons.append("no receipt of the app") }
        switch rule.condition {
        case .originalApplicationVersionBefore(let before):
            reasons.insert("for originalApplicationVersion before \(before.map(String.init).joined(separator: "."))", at: 0)
        case .originalPurchaseBefore(let before):
            reasons.insert("for originalPurchaseDate before \(Self.text(before))", at: 0)
        }
        let covers = span.map { $0.start <= at && at < $0.end } ?? false
        var reason = reasons[0] + ": " + reasons.dropFirst().joined(separator: "; ")
        if let span { reason += span.start == Int64.min ? "; covers always" : "; covers from \(Self.text(span.start))" }
        return SourceExplanation(kind: .grandfathered, id: name, covers: covers, state: span == nil ? "not-matched" : "matched",
                                 until: nil, ended: nil, reason: reason)
    }

    /// The grants of the app's receipts, as sources of each feature they name (copies after the
    /// first are ignored, as in evaluation).
    mutating func explainGrants() {
        var seen: Set<String> = []
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            for grant in receipt.grants {
                let id = receipt.text(grant.id) ?? ""
                let names = Set(grant.features.map { receipt.text(receipt.grantFeatures[Int($0)]) ?? "" })
                let first = seen.insert(id).inserted
                let counted = first && grant.start <= at && grant.revoked > at
                let covers = counted && at < grant.end
                var reason: String
                if !first {
                    reason = "a copy of a grant with the same id in an earlier receipt: ignored"
                } else if grant.start > at {
                    reason = "starts \(Self.text(grant.start)), after the instant"
                } else if grant.revoked <= at {
                    reason = "revoked \(Self.text(grant.revoked))"
                } else if grant.end <= at {
                    reason = "ended \(Self.text(grant.end))"
                } else {
                    reason = "covers " + Self.text(CoverageSpan(start: grant.start, end: grant.end))
                }
                let source = SourceExplanation(
                    kind: .grant, id: "grant:\(id)", covers: covers, state: counted ? "counted" : "not-counted",
                    until: covers ? Self.instant(grant.end) : nil,
                    ended: counted && grant.end <= at ? Self.instant(grant.end) : nil, reason: reason)
                for name in names.sorted() { grantSources[name, default: []].append(source) }
            }
        }
    }
}
