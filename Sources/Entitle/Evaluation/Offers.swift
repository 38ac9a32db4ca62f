/// Offers: whether each product may be offered for sale, and why not.
///
/// `retired` first; then for auto-renewables `subscribed` (active or in grace), and for the other
/// products of a group with levels, while one is subscribed, the `change` it would be (upgrade,
/// downgrade, crossgrade) and when it takes `effective`; for non-consumables `owned` (it, its
/// upgrade or its paid product is active, or grandfather rules cover all it grants),
/// `trial-used`, `prerequisite-missing`, `upgrade-available`.
extension Entitlements {
    /// Whether each product may be offered for sale, in catalog order.
    public var offers: [Offer] {
        if let decoded { return decoded.offers }
        let grandfathered = grandfatheredFeatures
        return catalog.compiledProducts.indices.map { offer($0, grandfathered: grandfathered) }
    }

    /// One product's offer, or `nil` for a product the catalog does not define.
    public func offer(for productId: String) -> Offer? {
        catalog.productIndex[productId].map { offer($0, grandfathered: grandfatheredFeatures) }
    }

    /// - Parameter grandfathered: ``grandfatheredFeatures``, found once for all products.
    private func offer(_ index: Int, grandfathered: Set<Int32>) -> Offer {
        if let decoded, let offer = decoded.offers.first(where: { $0.productId == catalog.compiledProducts[index].id }) { return offer }
        let product = catalog.compiledProducts[index]
        let reason = ineligibility(index, grandfathered: grandfathered)
        var introOfferEligible: Bool?
        if product.type == .autoRenewableSubscription, product.introOffer != nil {
            introOfferEligible = !introUsed.contains(Int32(product.group))
        }
        var offer = Offer(productId: product.id, eligible: reason == nil, reason: reason,
                          introOfferEligible: introOfferEligible, legal: product.legal)
        if product.type == .autoRenewableSubscription, reason == nil, let (change, timing) = levelChange(to: index) {
            offer.change = change
            offer.effective = timing
        }
        return offer
    }

    /// The first reason, in the documented order, that a product may not be offered.
    private func ineligibility(_ index: Int, grandfathered: Set<Int32>) -> OfferReason? {
        let product = catalog.compiledProducts[index]
        if !product.available { return .retired }
        switch product.type {
        case .consumable, .nonRenewingSubscription:
            return nil
        case .autoRenewableSubscription:
            let state = state(of: index)
            return state == .active || state == .gracePeriod ? .subscribed : nil
        case .nonConsumable:
            break
        }
        if isOwned(index, grandfathered: grandfathered) { return .owned }
        if case .trial = product.role, outcome(of: index) != nil { return .trialUsed }
        if case .upgrade(_, let requirement) = product.role, !prerequisites.meets(requirement) { return .prerequisiteMissing }
        if case .standard = product.role, product.upgrades.contains(where: { upgrade in
            guard catalog.compiledProducts[upgrade].available, case .upgrade(_, let requirement) = catalog.compiledProducts[upgrade].role
            else { return false }
            return prerequisites.meets(requirement)
        }) {
            return .upgradeAvailable
        }
        return nil
    }

    /// Whether a non-consumable, or what stands in for it, is active, or grandfather rules cover
    /// everything it grants.
    private func isOwned(_ index: Int, grandfathered: Set<Int32>) -> Bool {
        let product = catalog.compiledProducts[index]
        if !grandfathered.isEmpty, !product.grants.isEmpty, product.grants.allSatisfy({ grandfathered.contains(Int32($0)) }) { return true }
        // The full-price product this one belongs with: itself, what it replaces, or what it is a trial of.
        var family = index
        switch product.role {
        case .standard: break
        case .upgrade(let replaces, _): family = replaces
        case .trial(_, let paid):
            if state(of: index) == .active { return true }
            family = paid
        }
        if state(of: family) == .active { return true }
        return catalog.compiledProducts[family].upgrades.contains { state(of: $0) == .active }
    }

    /// For a product of a group with levels while another product of the group is active or in
    /// grace: the change buying it would be, and when it would take effect.
    private func levelChange(to index: Int) -> (SubscriptionChange, ChangeTiming)? {
        let product = catalog.compiledProducts[index]
        guard let level = product.level else { return nil }
        // The customer's current subscription in the group: the highest level active, else in grace.
        var current: Int?
        for outcome in productOutcomes where outcome.state == .active || outcome.state == .gracePeriod {
            let other = catalog.compiledProducts[Int(outcome.product)]
            guard Int(outcome.product) != index, other.type == .autoRenewableSubscription, other.group == product.group,
                  let otherLevel = other.level else { continue }
            if let chosen = current, let chosenLevel = catalog.compiledProducts[chosen].level, chosenLevel <= otherLevel { continue }
            current = Int(outcome.product)
        }
        guard let current, let currentLevel = catalog.compiledProducts[current].level else { return nil }
        if level < currentLevel { return (.upgrade, .immediately) }
        if level > currentLevel { return (.downgrade, .nextRenewal) }
        let samePeriod = product.period != nil && product.period.map(Self.nominal) == catalog.compiledProducts[current].period.map(Self.nominal)
        return (.crossgrade, samePeriod ? .immediately : .nextRenewal)
    }

    /// A duration as months, days and milliseconds, so `P1Y` equals `P12M` and `P1W` equals `P7D`.
    private static func nominal(_ duration: ISODuration) -> [Int64] {
        [Int64(duration.totalMonths), duration.totalDays, duration.timeMilliseconds]
    }
}
