/// Offers: whether each product may be offered for sale, why not, and what buying it would add.
///
/// The rule order, each rule's deciding fact a value (``OfferFact``) that explanations format:
/// `consent-rescinded` first (the customer rescinded consent for the app: nothing is offered),
/// then `not-in-storefront`, `subscribed-elsewhere`, `retired`; for auto-renewables `subscribed` (active or in grace), then `billing-issue`
/// (a product of the group in billing retry), and for the other products of a group with levels,
/// while one is subscribed, the `change` buying it would be and when it takes `effective`
/// (whatever keeps it from sale); for
/// non-consumables `owned` (it, its upgrade or its paid product active, or grandfather rules
/// covering all it grants), `trial-used`, `prerequisite-missing`, `upgrade-available` (an
/// upgrade of it is itself eligible). Win-back and promotional offers (`Evaluator+Promotions`),
/// and every offer's `adds` and `extends`.
extension Entitlements {
    /// Whether each product may be offered for sale, in catalog order.
    public var offers: [Offer] {
        let context = OfferContext(self)
        return compiled.compiledProducts.indices.map { offer($0, context: context) }
    }

    /// The offers of one store's products, in catalog order: what that store's paywall shows.
    public func offers(in store: Store) -> [Offer] {
        let context = OfferContext(self)
        return compiled.compiledProducts.indices.filter { compiled.compiledProducts[$0].store == store }.map { offer($0, context: context) }
    }

    /// One product's offer, or `nil` for a product the catalog does not define.
    public func offer(for productId: String) -> Offer? {
        return compiled.productIndex[productId].map { offer($0, context: OfferContext(self)) }
    }

    /// What offers read, found once for all products.
    struct OfferContext {
        /// Features grandfather rules cover at the instant.
        var coveredByRules: Set<Int32>
        /// Per subscription group: a product of it in billing retry.
        var retryingGroups: [Int32: Int32] = [:]
        /// The customer's subscriptions that keep them subscribed (covering, billing retry,
        /// paused), with their store: a product of another store granting no more is not sold.
        var subscriptions: [(product: Int32, store: Store)] = []
        /// The customer's storefront (alpha-3).
        var storefront: String?
        /// When the customer rescinded consent for the app, if by the instant.
        var consentRescinded: Int64?

        init(_ result: Entitlements) {
            coveredByRules = result.grandfatheredFeatures
            storefront = result.answer.core.storefront
            consentRescinded = result.answer.core.consentRescinded
            for outcome in result.productOutcomes {
                let rule = result.compiled.compiledProducts[Int(outcome.product)]
                if rule.type == .autoRenewableSubscription, outcome.state.keepsSubscription {
                    subscriptions.append((outcome.product, rule.store))
                }
                let group = result.compiled.rules[Int(outcome.product)].group
                guard group >= 0 else { continue }
                if outcome.state == .billingRetry, retryingGroups[group] == nil { retryingGroups[group] = outcome.product }
            }
        }
    }

    private func offer(_ index: Int, context: OfferContext) -> Offer {
        let decision = offerDecision(index, context: context)
        let product = compiled.compiledProducts[index]
        return Offer(
            productId: product.id, eligible: decision.reason == nil, reason: decision.reason,
            introOfferEligible: decision.introOfferEligible, legal: product.legal, change: decision.change?.0,
            effective: decision.change?.1,
            promotions: decision.promotions.map { items in
                items.map { Promotion(id: $0.offer.id, type: $0.offer.type, eligible: $0.decision.eligible, reason: $0.decision.reason) }
            },
            adds: decision.adds.map { compiled.featureIds[Int($0)] }, extends: decision.extends.map { compiled.featureIds[Int($0)] },
            store: product.store)
    }

    /// What product `index`'s offer answers beyond what the catalog fixes (its id, legal text and
    /// promotions' ids and types), `extends` aside.
    func offerAnswer(_ index: Int, context: OfferContext) -> OfferAnswer {
        let decision = offerDecision(index, context: context)
        return OfferAnswer(
            reason: decision.reason, introOfferEligible: decision.introOfferEligible,
            change: decision.change?.0, effective: decision.change?.1,
            promotions: decision.promotions?.map(\.decision.reason), adds: decision.adds)
    }

    /// The offer of product `index`, with the fact behind its reason; without `adds` and
    /// `extends` when `additions` is false (a caller that reads neither).
    func offerDecision(_ index: Int, context: OfferContext, additions withAdditions: Bool = true) -> OfferDecision {
        let product = compiled.compiledProducts[index]
        let group = Int32(product.group)
        var decision = OfferDecision(fact: ineligibility(index, context: context))
        if product.type == .autoRenewableSubscription {
            if product.introductoryOffer != nil {
                let used = product.introAudience == .newSubscribers ? boughtInGroups.contains(group) : introUsed.contains(group)
                decision.introOfferEligible = !used && context.retryingGroups[group] == nil
            }
            // Every other product of a group the customer is subscribed in says what buying it
            // would change, whatever else keeps it from sale (billing retry, retired).
            if decision.reason != .subscribed { decision.change = levelChange(to: index) }
            // The promotions as evaluation decided them (step 8 of `Evaluation.run()`).
            if !product.offers.isEmpty, let facts = groupFacts(group) {
                decision.promotions = zip(compiled.offers(inGroup: group), facts.decisions).filter { $0.0.product == index }.map {
                    ($0.0.offer, $0.1)
                }
            }
        }
        // Once consent is rescinded, buying turns nothing on: it adds and extends nothing.
        if withAdditions, context.consentRescinded == nil { (decision.adds, decision.extends) = additions(of: index) }
        return decision
    }

    /// The facts of a group with win-back or promotional offers.
    func groupFacts(_ group: Int32) -> GroupFacts? {
        groups.first { $0.group == group }
    }

    /// The first rule, in the documented order, that keeps a product from being offered, with its
    /// fact; ``OfferFact/eligible`` when none does.
    private func ineligibility(_ index: Int, context: OfferContext) -> OfferFact {
        let product = compiled.compiledProducts[index]
        if let rescinded = context.consentRescinded { return .consentRescinded(rescinded) }
        if let storefronts = product.storefronts, !(context.storefront.map(storefronts.contains) ?? false) {
            return .notInStorefront(context.storefront)
        }
        // Sold elsewhere already: unless this subscription covers or is paused itself. One in
        // billing retry here while another store's is paid is `subscribed-elsewhere`, not
        // `billing-issue`: the customer pays for it elsewhere.
        if product.type == .autoRenewableSubscription, !product.grants.isEmpty, !(state(of: index).covers || state(of: index) == .paused),
            let other = context.subscriptions.first(where: { item in
                let elsewhere = compiled.compiledProducts[Int(item.product)]
                return item.store != product.store && product.grants.allSatisfy(elsewhere.grants.contains)
            })
        {
            return .subscribedElsewhere(by: Int(other.product))
        }
        if !product.available { return .retired }
        // Pre-ordered: bought already, to be had at its release.
        if product.type != .consumable, state(of: index) == .preordered, let outcome = outcome(of: index) {
            return .preordered(release: outcome.startsAt)
        }
        switch product.type {
        case .consumable:
            return .eligible
        case .nonRenewingSubscription:
            // A Play prepaid plan is topped up only after the instant its purchase gives.
            if let outcome = outcome(of: index), outcome.state.covers, outcome.topUpAfter > at.millisecondsSince1970 {
                return .topUpLater(after: outcome.topUpAfter)
            }
            return .eligible
        case .autoRenewableSubscription:
            let state = state(of: index)
            // A paused subscription is still the customer's: it resumes by itself.
            if state.covers || state == .paused { return .subscribed(state: state) }
            if let retrying = context.retryingGroups[Int32(product.group)] { return .billingIssue(retrying: Int(retrying)) }
            return .eligible
        case .nonConsumable:
            break
        }
        if let owned = ownership(index, coveredByRules: context.coveredByRules) { return owned }
        if case .trial = product.role, outcome(of: index) != nil { return .trialUsed }
        if case .upgrade(_, let requirement) = product.role, !prerequisites.meets(requirement) {
            return .prerequisiteMissing(requirement)
        }
        if case .standard = product.role {
            // Upgrade pricing is the better offer when an upgrade of this product may be offered itself.
            let eligible = product.upgrades.filter { ineligibility($0, context: context).reason == nil }
            if !eligible.isEmpty { return .upgradeAvailable(eligible) }
        }
        return .eligible
    }

    /// Why a non-consumable counts as owned: grandfather rules covering all it grants, the trial
    /// running, or it, what it stands in for or an upgrade of that active; `nil` when not owned.
    private func ownership(_ index: Int, coveredByRules: Set<Int32>) -> OfferFact? {
        let product = compiled.compiledProducts[index]
        if !coveredByRules.isEmpty, !product.grants.isEmpty, product.grants.allSatisfy({ coveredByRules.contains(Int32($0)) }) {
            return .ownedThroughGrandfathering
        }
        // The full-price product this one belongs with: itself, what it replaces, or what it is a trial of.
        var family = index
        switch product.role {
        case .standard: break
        case .upgrade(let replaces, _): family = replaces
        case .trial(_, let paid):
            if state(of: index) == .active { return .owned(by: index) }
            family = paid
        }
        for candidate in [family] + compiled.compiledProducts[family].upgrades where state(of: candidate) == .active {
            return .owned(by: candidate)
        }
        return nil
    }

    /// For a product of a group with levels while another product of the group is active or in
    /// grace: the change buying it would be, and when it would take effect.
    private func levelChange(to index: Int) -> (SubscriptionChange, ChangeTiming)? {
        let product = compiled.compiledProducts[index]
        guard let level = product.level else { return nil }
        guard let current = currentSubscription(inGroupOf: index), let currentLevel = compiled.compiledProducts[current].level else {
            return nil
        }
        if level < currentLevel { return (.upgrade, .immediately) }
        if level > currentLevel { return (.downgrade, .nextRenewal) }
        let samePeriod = product.period != nil && product.period.map(Self.nominal) == compiled.compiledProducts[current].period.map(Self.nominal)
        return (.crossgrade, samePeriod ? .immediately : .nextRenewal)
    }

    /// The customer's current subscription in the group of product `index` (another product of
    /// the group with a level): the highest level active, else in grace.
    func currentSubscription(inGroupOf index: Int) -> Int? {
        let product = compiled.compiledProducts[index]
        var current: Int?
        for outcome in productOutcomes where outcome.state.covers {
            let other = compiled.compiledProducts[Int(outcome.product)]
            guard Int(outcome.product) != index, other.type == .autoRenewableSubscription, other.group == product.group,
                let otherLevel = other.level
            else { continue }
            if let chosen = current, let chosenLevel = compiled.compiledProducts[chosen].level, chosenLevel <= otherLevel { continue }
            current = Int(outcome.product)
        }
        return current
    }

    /// A duration as months, days and milliseconds, so `P1Y` equals `P12M` and `P1W` equals `P7D`.
    private static func nominal(_ duration: ISODuration) -> [Int64] {
        [Int64(duration.totalMonths), duration.totalDays, duration.timeMilliseconds]
    }

    // MARK: What buying adds

    /// The features product `index` grants that are off (`adds`), and those on until earlier than
    /// buying it at the instant would cover (`extends`), in catalog order.
    func additions(of index: Int) -> (adds: [Int32], extends: [Int32]) {
        let product = compiled.compiledProducts[index]
        guard !product.grants.isEmpty else { return ([], []) }
        let end = coverageIfBought(index)
        var adds: [Int32] = []
        var extends: [Int32] = []
        for grant in product.grants.sorted() {
            guard let outcome = featureOutcome(grant) else {
                adds.append(Int32(grant))
                continue
            }
            if let end, outcome.until != CoverageSpan.never, outcome.until < end { extends.append(Int32(grant)) }
        }
        return (adds, extends)
    }

    /// The end of the coverage buying product `index` at the instant would give: forever for a
    /// non-consumable, N days for a trial, the end of the stack for a pass (after the passes
    /// queued before it), one period for an auto-renewable with a `duration`; `nil` when unknown.
    func coverageIfBought(_ index: Int) -> Int64? {
        let rule = compiled.rules[index]
        let at = at.millisecondsSince1970
        switch rule.type {
        case .consumable:
            return nil
        case .nonConsumable:
            guard rule.trialDays > 0 else { return CoverageSpan.never }
            let (end, overflow) = at.addingReportingOverflow(Int64(rule.trialDays) * CivilCalendar.millisecondsPerDay)
            return overflow ? Instant.latest.millisecondsSince1970 : min(end, Instant.latest.millisecondsSince1970)
        case .nonRenewingSubscription:
            return Evaluator.passEnd(rule, quantity: 1, from: max(at, stackEnd(of: index)))
        case .autoRenewableSubscription:
            guard let period = compiled.compiledProducts[index].period else { return nil }
            return ISODuration.add(
                months: period.totalMonths, days: period.totalDays, milliseconds: period.timeMilliseconds,
                times: 1, to: at)
        }
    }

    /// Where a pass bought at the instant would start at the latest: the end of the coverage of
    /// its product (or of its pass group) that ends after the instant; `Int64.min` when none.
    func stackEnd(of index: Int) -> Int64 {
        let rule = compiled.rules[index]
        var end = Int64.min
        for outcome in productOutcomes {
            let other = compiled.rules[Int(outcome.product)]
            guard Int(outcome.product) == index || (rule.passGroup >= 0 && other.passGroup == rule.passGroup) else { continue }
            for position in outcome.spans { end = max(end, spans[Int(position)].end) }
        }
        return end
    }
}

/// What ``Offer`` answers that may change with the instant, `extends` aside: what two results of
/// one catalog compare to tell whether their offers differ.
struct OfferAnswer: Equatable {
    var reason: OfferReason?
    var introOfferEligible: Bool?
    var change: SubscriptionChange?
    var effective: ChangeTiming?
    var promotions: [PromotionReason]?
    var adds: [Int32]
}

/// A product's offer as offers decide it: the rule that keeps it from sale with its fact, and the
/// rest of what the offer says.
struct OfferDecision {
    var fact: OfferFact
    var introOfferEligible: Bool?
    var change: (SubscriptionChange, ChangeTiming)?
    var promotions: [(offer: SubscriptionOffer, decision: PromotionDecision)]?
    var adds: [Int32] = []
    var extends: [Int32] = []

    var reason: OfferReason? { fact.reason }
}

/// The fact behind an offer's reason.
enum OfferFact {
    /// The customer rescinded consent for the app at this instant (milliseconds).
    case consentRescinded(Int64)
    /// The product lists its storefronts; the customer's (given here) is not one of them.
    case notInStorefront(String?)
    /// A subscription in another store (this product) grants everything this one would.
    case subscribedElsewhere(by: Int)
    /// `available` is false.
    case retired
    /// Grandfather rules cover everything it grants.
    case ownedThroughGrandfathering
    /// A product is active that makes this one owned: itself, what it stands in for, an upgrade of
    /// that, or for a trial the trial itself.
    case owned(by: Int)
    /// The product is pre-ordered, released at this instant (milliseconds).
    case preordered(release: Int64)
    /// A Play prepaid plan that covers, which may be topped up only after this instant.
    case topUpLater(after: Int64)
    /// The trial was bought before.
    case trialUsed
    /// The subscription is active or in grace.
    case subscribed(state: ProductState)
    /// A product of the group is in billing retry.
    case billingIssue(retrying: Int)
    /// No receipt of the required app shows a qualifying purchase.
    case prerequisiteMissing(UpgradeRequirement)
    /// Upgrades of it that may be offered.
    case upgradeAvailable([Int])
    /// Nothing keeps it from sale.
    case eligible

    var reason: OfferReason? {
        switch self {
        case .consentRescinded: .consentRescinded
        case .notInStorefront: .notInStorefront
        case .subscribedElsewhere: .subscribedElsewhere
        case .retired: .retired
        case .ownedThroughGrandfathering, .owned, .preordered: .owned
        case .topUpLater: .subscribed
        case .trialUsed: .trialUsed
        case .subscribed: .subscribed
        case .billingIssue: .billingIssue
        case .prerequisiteMissing: .prerequisiteMissing
        case .upgradeAvailable: .upgradeAvailable
        case .eligible: nil
        }
    }
}
