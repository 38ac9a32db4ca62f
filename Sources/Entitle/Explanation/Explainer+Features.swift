/// Feature sources in an explanation: the products granting the feature, the grandfather rules
/// granting it and the receipts' grants naming it, each with whether it covers and why, as the
/// evaluation decided them.
extension Explainer {
    func feature(_ index: Int, products: [String: ProductExplanation], _ context: Context) -> FeatureExplanation {
        let catalog = context.catalog
        let id = catalog.featureIds[index]
        let status = context.result.feature(id) ?? FeatureStatus(id: id, enabled: false, until: nil, sources: [])
        var sources: [SourceExplanation] = []
        for granter in catalog.granters[index] {
            let productId = catalog.compiledProducts[granter].id
            guard let product = products[productId] else { continue }
            let covers = product.state.covers
            let ended = product.coverage.compactMap(\.end).filter { $0.millisecondsSince1970 <= context.at }.max()
            sources.append(
                SourceExplanation(
                    kind: .product, id: productId, covers: covers, state: product.state.rawValue, until: covers ? product.until : nil,
                    ended: covers ? nil : ended, span: nil, reason: product.reason))
        }
        for (ruleIndex, rule) in catalog.grandfatherRules.enumerated() where rule.grants.contains(index) {
            sources.append(ruleSource(ruleIndex, rule, feature: index, context))
        }
        sources += grants(naming: id, context)
        sources += items(granting: index, context)
        var decidedBy: String?
        if status.enabled {
            decidedBy = sources.filter(\.covers).max { ($0.until?.millisecondsSince1970 ?? .max) < ($1.until?.millisecondsSince1970 ?? .max) }?.id
        } else {
            decidedBy = sources.filter { $0.ended != nil }.max { $0.ended! < $1.ended! }?.id
        }
        return FeatureExplanation(id: id, enabled: status.enabled, until: status.until, decidedBy: decidedBy, sources: sources)
    }

    private func ruleSource(_ ruleIndex: Int, _ rule: GrandfatherRule, feature: Int, _ context: Context) -> SourceExplanation {
        let name = rule.source
        let span = context.result.access.first { $0.isGrandfathered && $0.source == name && $0.feature == Int32(feature) }?.span
        var reasons: [String] = []
        // Other stores' receipts say nothing of when the app was first bought: only the App Store's are named.
        for item in grandfatherDecisions where item.rule == ruleIndex && context.receipts[item.receipt].store == .appStore {
            let receipt = context.receipts[item.receipt]
            let position = context.positions[item.receipt]
            reasons.append(Self.grandfatherReason(rule.condition, item.decision, receipt: receipt, position: position))
        }
        if reasons.isEmpty { reasons.append("no App Store receipt of the app") }
        reasons.insert("for " + rule.condition.description, at: 0)
        let covers = span.map { $0.start <= context.at && context.at < $0.end } ?? false
        var reason = reasons[0] + ": " + reasons.dropFirst().joined(separator: "; ")
        if let span { reason += span.start == Int64.min ? "; covers always" : "; covers from \(Self.text(span.start))" }
        return SourceExplanation(
            kind: .grandfathered, id: name, covers: covers, state: span == nil ? "not-matched" : "matched",
            until: nil, ended: nil,
            span: span.map { ExplainedSpan(start: Instant(millisecondsSince1970: $0.start).clampedToRange, end: Self.instant($0.end), grace: false) },
            reason: reason)
    }

    /// Why a grandfather rule matched a receipt (each condition, as the receipt meets it) or did
    /// not (the first condition that fails).
    private static func grandfatherReason(
        _ condition: GrandfatherCondition, _ decision: GrandfatherDecision, receipt: ParsedReceipt, position: Int
    ) -> String {
        let version = receipt.originalApplicationVersion ?? ""
        func versionText(_ before: [Int], _ holds: Bool) -> String {
            "originalApplicationVersion \(version) is \(holds ? "" : "not ")before \(before.map(String.init).joined(separator: "."))"
        }
        func purchaseText(_ before: Int64, _ holds: Bool) -> String {
            "originalPurchaseDate \(text(receipt.originalPurchase)) is \(holds ? "" : "not ")before \(text(before))"
        }
        func platformText(_ platforms: [AppPlatform], _ holds: Bool) -> String {
            "originalPlatform \(receipt.originalPlatform?.rawValue ?? "") is \(holds ? "" : "not ")one of \(platforms.map(\.rawValue).joined(separator: ", "))"
        }
        switch decision {
        case .missing(.version): return "receipt \(position) has no originalApplicationVersion"
        case .missing(.purchase): return "receipt \(position) has no originalPurchaseDate"
        case .missing(.platform): return "receipt \(position) has no originalPlatform"
        case .unreadableVersion: return "receipt \(position)'s originalApplicationVersion `\(version)` is not a version"
        case .notMatched(.version): return versionText(condition.originalApplicationVersionBefore ?? [], false)
        case .notMatched(.purchase): return purchaseText(condition.originalPurchaseBefore ?? 0, false)
        case .notMatched(.platform): return platformText(condition.originalPlatforms ?? [], false)
        case .matched:
            var parts: [String] = []
            if let before = condition.originalApplicationVersionBefore { parts.append(versionText(before, true)) }
            if let before = condition.originalPurchaseBefore { parts.append(purchaseText(before, true)) }
            if let platforms = condition.originalPlatforms { parts.append(platformText(platforms, true)) }
            return parts.joined(separator: ", ")
        }
    }

    /// The Advanced Commerce SKUs granting a feature: each SKU's coverage as the evaluation found
    /// it (spans that end after the instant), or why it covers nothing (never bought, revoked or
    /// refunded in full, its purchase's period over). One source per SKU, in catalog order.
    private func items(granting feature: Int, _ context: Context) -> [SourceExplanation] {
        var sources: [SourceExplanation] = []
        for (index, entry) in context.catalog.itemList.enumerated() where entry.item.grants.contains(feature) {
            let name = entry.source
            var runs = context.result.access.filter { $0.feature == Int32(feature) && $0.source == name }.map(\.span)
            let (coveringEnd, nextStart) = CoverageSpan.locate(&runs, at: context.at)
            let bought = items.filter { $0.item == index }
            let ended = bought.map(\.ends).filter { $0 <= context.at }.max()
            let sku = "SKU " + entry.item.sku
            let reason: String =
                if let coveringEnd {
                    sku
                        + (coveringEnd == CoverageSpan.never
                            ? " covers with its purchase" : " covers with its purchase until \(Self.text(coveringEnd))")
                } else if let nextStart {
                    sku + " covers from \(Self.text(nextStart))"
                } else if bought.isEmpty {
                    sku + " is in no counted purchase"
                } else if let ended {
                    sku + " was revoked or refunded in full \(Self.text(ended))"
                } else {
                    sku + "'s purchases no longer cover"
                }
            let span = coveringEnd != nil ? runs.first { $0.start <= context.at && context.at < $0.end } : runs.first
            sources.append(
                SourceExplanation(
                    kind: .item, id: name, covers: coveringEnd != nil, state: bought.isEmpty ? "not-counted" : "counted",
                    until: coveringEnd.flatMap(Self.instant), ended: coveringEnd == nil ? ended.flatMap(Self.instant) : nil,
                    span: span.map {
                        ExplainedSpan(start: Instant(millisecondsSince1970: $0.start).clampedToRange, end: Self.instant($0.end), grace: false)
                    },
                    reason: reason))
        }
        return sources
    }

    /// The receipts' grants naming a feature, as the evaluation counted them.
    private func grants(naming feature: String, _ context: Context) -> [SourceExplanation] {
        var sources: [SourceExplanation] = []
        for item in grantDecisions {
            let receipt = context.receipts[item.receipt]
            let grant = receipt.grants[item.index]
            guard grant.features.contains(where: { receipt.text(receipt.grantFeatures[Int($0)]) == feature }) else { continue }
            let id = receipt.text(grant.id) ?? ""
            let counted = item.decision == .counted
            let covers = counted && context.at < grant.end
            let reason: String =
                switch item.decision {
                case .copy: "a copy of a grant with the same id in another receipt, which stands for it: ignored"
                case .later: "starts \(Self.text(grant.start)), after the instant"
                case .revoked: "revoked \(Self.text(grant.revoked))"
                case .counted:
                    grant.end <= context.at
                        ? "ended \(Self.text(grant.end))" : "covers " + Self.text(CoverageSpan(start: grant.start, end: grant.end))
                }
            sources.append(
                SourceExplanation(
                    kind: .grant, id: "grant:\(id)", covers: covers, state: counted ? "counted" : "not-counted",
                    until: covers ? Self.instant(grant.end) : nil, ended: counted && grant.end <= context.at ? Self.instant(grant.end) : nil,
                    // A counted grant covers its own [start, end), as the evaluation's access span is.
                    span: counted
                        ? ExplainedSpan(start: Instant(millisecondsSince1970: grant.start).clampedToRange, end: Self.instant(grant.end), grace: false)
                        : nil,
                    reason: reason))
        }
        return sources
    }
}
