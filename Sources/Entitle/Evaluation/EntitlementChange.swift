/// One difference between two results for one customer: what a service emits as an
/// "entitlement changed" event when new data arrives, and what `entitle diff` counts per customer
/// when a catalog changes.
///
/// `from` and `to` are values of their own kind (``Value``): a feature's `enabled`, an `until`
/// (`nil` inside for no end), a product's state, a balance, or an offer's decision. `nil` itself
/// stands for "not in that result's catalog". ``description`` writes them as `check`'s text does:
/// `feature pro: on -> off`.
public struct EntitlementChange: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What changed.
    @nonexhaustive
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// A feature turned on.
        case featureOn = "feature-on"
        /// A feature turned off.
        case featureOff = "feature-off"
        /// A feature stays on, and its `until` moved.
        case featureUntil = "feature-until"
        /// A product's state changed.
        case productState = "product-state"
        /// A product stays active or in grace, and its `until` moved.
        case productUntil = "product-until"
        /// A currency's balance changed.
        case balance
        /// A number limit's value changed.
        case limit
        /// Whether, or how, a product may be offered changed.
        case offer
    }

    /// One side of a change, as a value of its kind.
    @nonexhaustive
    public enum Value: Hashable, Sendable, Codable, CustomStringConvertible {
        /// Whether a feature is on (`feature-on`, `feature-off`).
        case enabled(Bool)
        /// Until when a feature or product lasts; `nil` when it has no end (`feature-until`,
        /// `product-until`).
        case until(Instant?)
        /// A product's state (`product-state`).
        case state(ProductState)
        /// A currency's balance (`balance`).
        case balance(Int64)
        /// A number limit's value (`limit`).
        case limit(LimitValue)
        /// Whether, and how, a product may be offered (`offer`).
        case offer(OfferDecision)

        /// As `check`'s text writes it: `on` / `off`, an RFC 3339 instant or `no end`, a state's
        /// name, a number, or `offer` / `do not offer (reason)` with the change and intro offer
        /// after a comma.
        public var description: String {
            switch self {
            case .enabled(let enabled): return enabled ? "on" : "off"
            case .until(let instant): return instant?.rfc3339 ?? "no end"
            case .state(let state): return state.rawValue
            case .balance(let balance): return String(balance)
            case .limit(let value): return value.description
            case .offer(let decision): return decision.description
            }
        }

        private enum CodingKeys: String, CodingKey { case enabled, until, state, balance, limit, eligible }

        /// Reads a value as ``encode(to:)`` writes it; which member it has says its kind.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if container.contains(.enabled) {
                self = .enabled(try container.decode(Bool.self, forKey: .enabled))
            } else if container.contains(.until) {
                self = .until(try container.decodeIfPresent(Instant.self, forKey: .until))
            } else if container.contains(.state) {
                self = .state(try container.decode(ProductState.self, forKey: .state))
            } else if container.contains(.balance) {
                self = .balance(try container.decode(Int64.self, forKey: .balance))
            } else if container.contains(.limit) {
                self = .limit(try container.decode(LimitValue.self, forKey: .limit))
            } else if container.contains(.eligible) {
                self = .offer(try OfferDecision(from: decoder))
            } else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoder.codingPath,
                        debugDescription: "a change's value has one of `enabled`, `until`, `state`, `balance`, `limit` or `eligible`"))
            }
        }

        /// An object whose member names say the kind, with the names `check --format json` uses:
        /// `{"enabled": true}`, `{"until": "2026-01-16T18:00:00Z"}` (`null`: no end),
        /// `{"state": "active"}`, `{"balance": 13}`, `{"eligible": false, "reason": "owned", ...}`.
        public func encode(to encoder: any Encoder) throws { try jsonOutput.encode(to: encoder) }

        /// The value as ``encode(to:)`` writes it: the one writer of its JSON.
        package var jsonOutput: JSONOutput {
            switch self {
            case .enabled(let enabled): return .object([("enabled", .bool(enabled))])
            case .until(let instant): return .object([("until", instant.map { .string($0.rfc3339) } ?? .null)])
            case .state(let state): return .object([("state", .string(state.rawValue))])
            case .balance(let balance): return .object([("balance", .integer(balance))])
            case .limit(.count(let count)): return .object([("limit", .integer(count))])
            case .limit(.unlimited): return .object([("limit", .string(LimitValue.unlimited.description))])
            case .offer(let decision): return decision.jsonOutput
            }
        }
    }

    /// Whether, and how, a product may be offered: the parts of an ``Offer`` that
    /// ``Entitlements/changes(since:)`` compares (not its legal text, promotions, `adds` or
    /// `extends`, which follow from the catalog and the features).
    public struct OfferDecision: Hashable, Sendable, Codable, CustomStringConvertible {
        /// Whether the product may be offered.
        public var eligible: Bool
        /// Why not, when not eligible.
        public var reason: OfferReason?
        /// An upgrade, downgrade or crossgrade, for a subscription of a group with levels.
        public var change: SubscriptionChange?
        /// When that change takes effect.
        public var effective: ChangeTiming?
        /// For an auto-renewable with an introductory offer: whether the customer may still have it.
        public var introOfferEligible: Bool?

        /// Creates a decision.
        public init(
            eligible: Bool, reason: OfferReason? = nil, change: SubscriptionChange? = nil, effective: ChangeTiming? = nil,
            introOfferEligible: Bool? = nil
        ) {
            self.eligible = eligible
            self.reason = reason
            self.change = change
            self.effective = effective
            self.introOfferEligible = introOfferEligible
        }

        /// The decision of an offer.
        public init(_ offer: Offer) {
            self.init(
                eligible: offer.eligible, reason: offer.reason, change: offer.change, effective: offer.effective,
                introOfferEligible: offer.introOfferEligible)
        }

        /// `offer` or `do not offer (reason)`, then its change and intro offer after a comma.
        public var description: String {
            var text = eligible ? "offer" : "do not offer (\(reason?.rawValue ?? ""))"
            if let change { text += ", \(change.rawValue) \(effective?.rawValue ?? "")" }
            if let introOfferEligible { text += ", " + Offer.introPhrase(eligible: introOfferEligible, reason: reason) }
            return text
        }

        private enum CodingKeys: String, CodingKey { case eligible, reason, change, effective, introOfferEligible }

        /// Reads a decision as ``encode(to:)`` writes it.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                eligible: try container.decode(Bool.self, forKey: .eligible),
                reason: try container.decodeIfPresent(OfferReason.self, forKey: .reason),
                change: try container.decodeIfPresent(SubscriptionChange.self, forKey: .change),
                effective: try container.decodeIfPresent(ChangeTiming.self, forKey: .effective),
                introOfferEligible: try container.decodeIfPresent(Bool.self, forKey: .introOfferEligible))
        }

        /// `{"eligible", "reason"?, "change"?, "effective"?, "introOfferEligible"?}`, as an offer
        /// of `check --format json` writes them.
        public func encode(to encoder: any Encoder) throws { try jsonOutput.encode(to: encoder) }

        /// The decision as ``encode(to:)`` writes it.
        package var jsonOutput: JSONOutput {
            var members: [(String, JSONOutput)] = [("eligible", .bool(eligible))]
            if let reason { members.append(("reason", .string(reason.rawValue))) }
            if let change { members.append(("change", .string(change.rawValue))) }
            if let effective { members.append(("effective", .string(effective.rawValue))) }
            if let introOfferEligible { members.append(("introOfferEligible", .bool(introOfferEligible))) }
            return .object(members)
        }
    }

    /// What changed.
    public var kind: Kind
    /// The feature, product or currency id.
    public var id: String
    /// The value before; `nil` when the earlier result's catalog does not have the id.
    public var from: Value?
    /// The value after; `nil` when the later result's catalog does not have the id.
    public var to: Value?

    /// Creates a change.
    public init(kind: Kind, id: String, from: Value?, to: Value?) {
        self.kind = kind
        self.id = id
        self.from = from
        self.to = to
    }

    private enum CodingKeys: String, CodingKey { case kind, id, from, to, loss }

    /// Reads a change as ``encode(to:)`` writes it (`loss` is derived, so it is not read).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            kind: try container.decode(Kind.self, forKey: .kind), id: try container.decode(String.self, forKey: .id),
            from: try container.decodeIfPresent(Value.self, forKey: .from),
            to: try container.decodeIfPresent(Value.self, forKey: .to))
    }

    /// `{"kind", "id", "from", "to", "loss"}`, as `entitle diff --format json` writes a customer's
    /// change: `from`/`to` each a ``Value`` object, or `null` for a missing side.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(id, forKey: .id)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(isLoss, forKey: .loss)
    }

    /// Whether the customer loses something: a feature turned off, a lower balance or a lower limit.
    public var isLoss: Bool {
        switch kind {
        case .featureOff: return true
        case .balance: return Self.balance(to) < Self.balance(from)
        case .limit: return Self.limit(to) < Self.limit(from)
        case .featureOn, .featureUntil, .productState, .productUntil, .offer: return false
        }
    }

    /// A side's limit; a limit the catalog does not have allows nothing.
    private static func limit(_ value: Value?) -> LimitValue {
        if case .limit(let limit)? = value { return limit }
        return .count(0)
    }

    /// A side's balance; a currency the catalog does not have holds nothing.
    private static func balance(_ value: Value?) -> Int64 {
        if case .balance(let balance)? = value { return balance }
        return 0
    }

    /// `feature pro: on -> off`, `product X until: ...`, `balance gems: 10 -> 4`, with `(none)`
    /// for a missing side.
    public var description: String {
        let subject: String
        switch kind {
        case .featureOn, .featureOff: subject = "feature \(id)"
        case .featureUntil: subject = "feature \(id) until"
        case .productState: subject = "product \(id)"
        case .productUntil: subject = "product \(id) until"
        case .balance: subject = "balance \(id)"
        case .limit: subject = "limit \(id)"
        case .offer: subject = "offer \(id)"
        }
        return "\(subject): \(from?.description ?? "(none)") -> \(to?.description ?? "(none)")"
    }
}

extension Entitlements {
    /// What changed from an earlier result to this one, for the same customer: features turned
    /// on or off or whose `until` moved, product states and `until`s, balances and offers, in
    /// that order, each in catalog order (this result's catalog first, then ids only the earlier
    /// one has). The two results may come from different catalogs (a catalog change) or different
    /// instants and data (new purchases); `at` and `reevaluateAt` are not compared.
    public func changes(since earlier: Entitlements) -> [EntitlementChange] {
        var changes: [EntitlementChange] = []

        let oldFeatures = Dictionary(earlier.features.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newFeatures = features
        for feature in newFeatures {
            let old = oldFeatures[feature.id]
            if (old?.enabled ?? false) != feature.enabled {
                changes.append(
                    EntitlementChange(
                        kind: feature.enabled ? .featureOn : .featureOff, id: feature.id,
                        from: old.map { .enabled($0.enabled) }, to: .enabled(feature.enabled)))
            } else if let old, old.enabled, feature.enabled, old.until != feature.until {
                changes.append(EntitlementChange(kind: .featureUntil, id: feature.id, from: .until(old.until), to: .until(feature.until)))
            }
        }
        let newFeatureIds = Set(newFeatures.map(\.id))
        for feature in earlier.features where !newFeatureIds.contains(feature.id) && feature.enabled {
            changes.append(EntitlementChange(kind: .featureOff, id: feature.id, from: .enabled(true), to: nil))
        }

        let oldProducts = Dictionary(earlier.products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newProducts = products
        for product in newProducts {
            let old = oldProducts[product.id]
            if old?.state != product.state {
                if old == nil && product.state == .notPurchased { continue }
                changes.append(EntitlementChange(kind: .productState, id: product.id, from: old.map { .state($0.state) }, to: .state(product.state)))
            } else if let old, old.until != product.until {
                changes.append(EntitlementChange(kind: .productUntil, id: product.id, from: .until(old.until), to: .until(product.until)))
            }
        }
        let newProductIds = Set(newProducts.map(\.id))
        for product in earlier.products where !newProductIds.contains(product.id) && product.state != .notPurchased {
            changes.append(EntitlementChange(kind: .productState, id: product.id, from: .state(product.state), to: nil))
        }

        let oldBalances = Dictionary(earlier.balances.map { ($0.currency, $0.balance) }, uniquingKeysWith: { first, _ in first })
        let newBalances = balances
        for balance in newBalances where oldBalances[balance.currency] != balance.balance {
            if oldBalances[balance.currency] == nil && balance.balance == 0 { continue }
            changes.append(
                EntitlementChange(
                    kind: .balance, id: balance.currency,
                    from: oldBalances[balance.currency].map { .balance($0) }, to: .balance(balance.balance)))
        }
        let newCurrencies = Set(newBalances.map(\.currency))
        for balance in earlier.balances where !newCurrencies.contains(balance.currency) && balance.balance != 0 {
            changes.append(EntitlementChange(kind: .balance, id: balance.currency, from: .balance(balance.balance), to: nil))
        }

        // Number limits, in a catalog that declares them.
        let oldLimits = Dictionary(earlier.limits.map { ($0.id, $0.value) }, uniquingKeysWith: { first, _ in first })
        for limit in limits where oldLimits[limit.id] != limit.value {
            changes.append(EntitlementChange(kind: .limit, id: limit.id, from: oldLimits[limit.id].map { .limit($0) }, to: .limit(limit.value)))
        }
        let newLimits = Set(limits.map(\.id))
        for limit in earlier.limits where !newLimits.contains(limit.id) {
            changes.append(EntitlementChange(kind: .limit, id: limit.id, from: .limit(limit.value), to: nil))
        }

        let oldOffers = Dictionary(earlier.offers.map { ($0.productId, $0) }, uniquingKeysWith: { first, _ in first })
        for offer in offers {
            guard let old = oldOffers[offer.productId] else { continue }  // a new product: a catalog change, not a customer's
            let before = EntitlementChange.OfferDecision(old)
            let after = EntitlementChange.OfferDecision(offer)
            if before != after { changes.append(EntitlementChange(kind: .offer, id: offer.productId, from: .offer(before), to: .offer(after))) }
        }
        return changes
    }
}
