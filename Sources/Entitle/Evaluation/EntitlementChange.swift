/// One difference between two results for one customer: what a service emits as an
/// "entitlement changed" event when new data arrives, and what `entitle diff` counts per customer
/// when a catalog changes.
///
/// Values are written as in `check`'s text: features `on` / `off`, instants in RFC 3339 (`no end`
/// when a coverage never ends), product states by name, balances as numbers, offers as `offer` or
/// `do not offer (reason)` with the change and intro offer after a comma. `nil` stands for "not in
/// that result's catalog".
public struct EntitlementChange: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What changed.
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
        /// Whether, or how, a product may be offered changed.
        case offer
    }

    /// What changed.
    public var kind: Kind
    /// The feature, product or currency id.
    public var id: String
    /// The value before; `nil` when the earlier result's catalog does not have the id.
    public var from: String?
    /// The value after; `nil` when the later result's catalog does not have the id.
    public var to: String?

    /// Creates a change.
    public init(kind: Kind, id: String, from: String?, to: String?) {
        self.kind = kind
        self.id = id
        self.from = from
        self.to = to
    }

    private enum CodingKeys: String, CodingKey { case kind, id, from, to, loss }

    /// Reads a change as ``encode(to:)`` writes it (`loss` is derived, so it is not read).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(kind: try container.decode(Kind.self, forKey: .kind), id: try container.decode(String.self, forKey: .id),
                  from: try container.decodeIfPresent(String.self, forKey: .from),
                  to: try container.decodeIfPresent(String.self, forKey: .to))
    }

    /// `{"kind", "id", "from", "to", "loss"}`, as `entitle diff --format json` writes a customer's
    /// change (`from`/`to` `null` for a missing side).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(id, forKey: .id)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(isLoss, forKey: .loss)
    }

    /// Whether the customer loses something: a feature turned off, or a lower balance.
    public var isLoss: Bool {
        switch kind {
        case .featureOff: return true
        case .balance: return (Int64(to ?? "0") ?? 0) < (Int64(from ?? "0") ?? 0)
        default: return false
        }
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
        case .offer: subject = "offer \(id)"
        }
        return "\(subject): \(from ?? "(none)") -> \(to ?? "(none)")"
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
        func until(_ instant: Instant?) -> String { instant?.rfc3339 ?? "no end" }

        let oldFeatures = Dictionary(earlier.features.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newFeatures = features
        for feature in newFeatures {
            let old = oldFeatures[feature.id]
            if (old?.enabled ?? false) != feature.enabled {
                changes.append(EntitlementChange(kind: feature.enabled ? .featureOn : .featureOff, id: feature.id,
                                                 from: old.map { $0.enabled ? "on" : "off" }, to: feature.enabled ? "on" : "off"))
            } else if let old, old.enabled, feature.enabled, old.until != feature.until {
                changes.append(EntitlementChange(kind: .featureUntil, id: feature.id, from: until(old.until), to: until(feature.until)))
            }
        }
        let newFeatureIds = Set(newFeatures.map(\.id))
        for feature in earlier.features where !newFeatureIds.contains(feature.id) && feature.enabled {
            changes.append(EntitlementChange(kind: .featureOff, id: feature.id, from: "on", to: nil))
        }

        let oldProducts = Dictionary(earlier.products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newProducts = products
        for product in newProducts {
            let old = oldProducts[product.id]
            if old?.state != product.state {
                if old == nil && product.state == .notPurchased { continue }
                changes.append(EntitlementChange(kind: .productState, id: product.id, from: old?.state.rawValue, to: product.state.rawValue))
            } else if let old, old.until != product.until {
                changes.append(EntitlementChange(kind: .productUntil, id: product.id, from: until(old.until), to: until(product.until)))
            }
        }
        let newProductIds = Set(newProducts.map(\.id))
        for product in earlier.products where !newProductIds.contains(product.id) && product.state != .notPurchased {
            changes.append(EntitlementChange(kind: .productState, id: product.id, from: product.state.rawValue, to: nil))
        }

        let oldBalances = Dictionary(earlier.balances.map { ($0.currency, $0.balance) }, uniquingKeysWith: { first, _ in first })
        let newBalances = balances
        for balance in newBalances where oldBalances[balance.currency] != balance.balance {
            if oldBalances[balance.currency] == nil && balance.balance == 0 { continue }
            changes.append(EntitlementChange(kind: .balance, id: balance.currency,
                                             from: oldBalances[balance.currency].map(String.init), to: String(balance.balance)))
        }
        let newCurrencies = Set(newBalances.map(\.currency))
        for balance in earlier.balances where !newCurrencies.contains(balance.currency) && balance.balance != 0 {
            changes.append(EntitlementChange(kind: .balance, id: balance.currency, from: String(balance.balance), to: nil))
        }

        let oldOffers = Dictionary(earlier.offers.map { ($0.productId, $0) }, uniquingKeysWith: { first, _ in first })
        for offer in offers {
            guard let old = oldOffers[offer.productId] else { continue }  // a new product: a catalog change, not a customer's
            let before = Self.describe(old), after = Self.describe(offer)
            if before != after { changes.append(EntitlementChange(kind: .offer, id: offer.productId, from: before, to: after)) }
        }
        return changes
    }

    /// An offer as one phrase: `offer` or `do not offer (reason)`, then its change and intro offer.
    static func describe(_ offer: Offer) -> String {
        var text = offer.eligible ? "offer" : "do not offer (\(offer.reason?.rawValue ?? ""))"
        if let change = offer.change { text += ", \(change.rawValue) \(offer.effective?.rawValue ?? "")" }
        if let intro = offer.introOfferEligible { text += intro ? ", intro offer eligible" : ", intro offer used" }
        return text
    }
}
