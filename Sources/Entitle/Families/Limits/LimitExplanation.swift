import Foundation

/// A number limit's value, and every product that gives it one with whether it covers and what it
/// gives (`explain --limit`).
public struct LimitExplanation: Hashable, Sendable, Codable {
    /// The limit id.
    public var id: String
    /// What it counts, as the catalog declares it.
    public var description: String
    /// How covering products' values make one.
    public var combine: LimitCombine
    /// Its value when no product gives one.
    public var `default`: Int64
    /// The value at the instant, as ``Entitlements/limit(_:)`` gives it.
    public var value: LimitValue
    /// When the value changes next as known now; `nil`: it does not.
    public var until: Instant?
    /// Each product that gives the limit a value, in catalog order.
    public var sources: [Source]

    /// A product that gives the limit a value.
    public struct Source: Hashable, Sendable, Codable {
        /// The product's key.
        public var product: String
        /// The value it gives while it covers.
        public var value: LimitValue
        /// Its state at the instant.
        public var state: ProductState
        /// Whether it covers at the instant.
        public var covers: Bool
        /// For a `sum` limit, the quantity of its covering transaction (1 otherwise, or when it
        /// does not cover).
        public var quantity: Int64
        /// Whether it gives the value (with `max`, one of those giving the largest; with `sum`, every
        /// one covering).
        public var gives: Bool
        /// Why, in words.
        public var reason: String
    }
}

extension Entitlements {
    /// Every declared limit explained, in catalog order; `nil` for a catalog that declares none
    /// (its explanation stays as it was).
    var limitExplanations: [LimitExplanation]? {
        let rules = compiled.limitRules
        guard !rules.isEmpty else { return nil }
        return limits.enumerated().map { index, status in
            let sources = compiled.compiledProducts.indices.compactMap { product -> LimitExplanation.Source? in
                guard let given = rules.given(by: product).first(where: { $0.limit == Int32(index) }) else { return nil }
                let outcome = outcome(of: product)
                let state = outcome?.state ?? .notPurchased
                let covers = state.covers && consentRescinded == nil
                let quantity = covers && rules.combine[index] == .sum ? outcome?.quantity ?? 1 : 1
                let key = compiled.compiledProducts[product].id
                let gives = status.sources.contains(key)
                var reason: String
                if !state.covers {
                    reason = "it does not cover (\(state.rawValue))"
                } else if consentRescinded != nil {
                    reason = "the customer rescinded consent for the app"
                } else if gives {
                    reason =
                        rules.combine[index] == .sum
                        ? (given.value == .unlimited ? "it covers, unlimited" : "it covers: \(given.value) x quantity \(quantity)")
                        : "it covers with the largest value"
                } else {
                    reason =
                        rules.combine[index] == .sum
                        ? "it covers, but another covering product is unlimited"
                        : "it covers, but \(status.sources.isEmpty ? "the default" : "another product") gives more"
                }
                if let until = outcome?.until, covers, until != CoverageSpan.never {
                    reason += " until \(Instant(millisecondsSince1970: until).rfc3339)"
                }
                return LimitExplanation.Source(
                    product: key, value: given.value, state: state, covers: covers, quantity: quantity, gives: gives, reason: reason)
            }
            return LimitExplanation(
                id: status.id, description: rules.descriptions[index], combine: rules.combine[index], default: rules.defaults[index],
                value: status.value, until: status.until, sources: sources)
        }
    }
}

extension Explanation {
    /// One limit's explanation, or `nil` for a limit the catalog does not declare.
    public func limit(_ id: String) -> LimitExplanation? { limits?.first { $0.id == id } }

    /// One limit: its value and rule, then each product giving it a value, whether it covers and
    /// what it gives; `nil` for a limit the catalog does not declare.
    public func text(limit id: String) -> String? {
        guard let limit = limit(id) else { return nil }
        var lines = [
            "limit \(limit.id): \(limit.value)" + (limit.until.map { " until \($0.rfc3339)" } ?? ""),
            "  \(limit.description); \(limit.combine == .max ? "the largest covering value" : "covering values times quantity, added"), default \(limit.default)",
        ]
        if limit.sources.isEmpty { lines.append("  no product in the catalog gives it a value") }
        let width = limit.sources.map(\.product.count).max() ?? 0
        let valueWidth = limit.sources.map(\.value.description.count).max() ?? 0
        for source in limit.sources {
            lines.append(
                "  " + Self.pad(source.product, width) + "  " + Self.pad(source.value.description, valueWidth) + "  "
                    + (source.gives ? "gives it: " : "") + source.reason)
        }
        if !limit.sources.contains(where: \.gives) { lines.append("  the default gives it") }
        return page(lines)
    }

    /// One limit as JSON, `{"app", "at", "limit", "ignoredReceipts", "consentRescinded"?}`; `nil`
    /// for a limit the catalog does not declare.
    public func json(limit id: String) -> String? {
        struct Selected: Encodable {
            var app: String
            var at: Instant
            var limit: LimitExplanation
            var ignoredReceipts: [IgnoredReceipt]
            var consentRescinded: Instant?
        }
        return limit(id).map {
            Self.encode(Selected(app: app, at: at, limit: $0, ignoredReceipts: ignoredReceipts, consentRescinded: consentRescinded))
        }
    }
}
