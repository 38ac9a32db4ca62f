import Foundation

/// What a customer is entitled to at an instant: features, balances, product states and offers.
///
/// Evaluation records only the products the receipts touch and the features they turn on; every
/// id-keyed view (``features``, ``products``, ``offers``) is built from those and the catalog when
/// read, so a service that only asks ``isEnabled(_:)`` pays for nothing else, and the cost of an
/// evaluation does not grow with the size of the compiled.
public struct Entitlements: Sendable {
    /// The instant the result holds at.
    public let at: Instant
    /// What evaluation found, shared by every copy of the result.
    let answer: Answer

    /// The app the result is for.
    public var app: String { answer.app }
    /// The catalog the result was evaluated against.
    public var catalog: CompiledCatalog { answer.catalog }
    /// Products with transactions known at `at`, by ascending product index.
    var productOutcomes: [ProductOutcome] { answer.core.outcomes }
    /// Enabled features, by ascending feature index.
    var featureOutcomes: [FeatureOutcome] { answer.core.features }
    /// Coverage by grandfather rules and grants.
    var access: [Evaluator.AccessSpan] { answer.core.access }
    var balanceValues: [Int64] { answer.core.balances }
    var introUsed: [Int32] { answer.core.introUsed }
    /// Groups with an intro offer for new subscribers only that the customer bought in.
    var boughtInGroups: [Int32] { answer.core.boughtInGroups }
    /// What other apps' receipts show, for upgrade requirements.
    var prerequisites: UpgradePrerequisites { answer.core.prerequisites }
    /// The evaluation's coverage spans, which outcomes index (offers read passes' stacks).
    var spans: [CoverageSpan] { answer.core.spans }
    /// What win-back and promotional offers read, per group that has them.
    var groups: [GroupFacts] { answer.core.groups }
    /// The earliest instant after ``at`` at which evaluating the same data gives a different
    /// answer (features, product states and untils, offers, balances, warnings); `nil` when
    /// nothing would change.
    ///
    /// Found when first read, not during evaluation: the search may evaluate again at instants
    /// where something could change, work a caller that only reads features pays nothing for.
    /// Reading it from several threads at once is safe; the search runs once.
    public var reevaluateAt: Instant? { answer.reevaluateAt }
    /// When the customer rescinded consent for the app (Apple's `RESCIND_CONSENT`), if at or
    /// before ``at``: every feature is off and every offer is `consent-rescinded`; products and
    /// balances are as the purchases make them. `nil` when they did not, or only later.
    public var consentRescinded: Instant? { answer.core.consentRescinded.map { Instant(millisecondsSince1970: $0) } }
    /// Things in the receipts that were accepted but need a look, in a fixed order (put in order
    /// when first read).
    public var warnings: [EvaluationWarning] { answer.warnings }
    /// The catalog evaluated against (as ``catalog``, for the evaluator's own code).
    var compiled: CompiledCatalog { answer.catalog }

    init(at: Instant, answer: Answer) {
        self.at = at
        self.answer = answer
    }

    /// An answer evaluated only to be compared with another (``hasSameAnswer(as:)``): its next
    /// change is not searched for, and its warnings are those of the instant.
    init(catalog: CompiledCatalog, at: Instant, compared core: Evaluator.Core) {
        self.init(at: at, answer: Answer(catalog: catalog, core: core, next: nil))
    }

    /// Whether this result and `other` give the same answer, `at` and `reevaluateAt` aside (and
    /// what offers `extend`, which moves with the instant itself).
    func hasSameAnswer(as other: Entitlements) -> Bool {
        featureOutcomes == other.featureOutcomes && balanceValues == other.balanceValues && answer.core.ledger == other.answer.core.ledger
            && consentRescinded == other.consentRescinded
            && warnings.map(\.description).sorted() == other.warnings.map(\.description).sorted()
            && features == other.features && products == other.products
            && (compiled.limitRules.isEmpty || limits == other.limits)
            && sameOffers(as: other)
    }

    /// Whether every offer answers the same, `extends` aside. Two results of one catalog compare
    /// what their offers decide, not the offers built with their ids and legal text.
    private func sameOffers(as other: Entitlements) -> Bool {
        guard catalog === other.catalog else {
            return offers.map(\.withoutExtends) == other.offers.map(\.withoutExtends)
        }
        let (mine, theirs) = (OfferContext(self), OfferContext(other))
        for index in catalog.compiledProducts.indices
        where offerAnswer(index, context: mine) != other.offerAnswer(index, context: theirs) {
            return false
        }
        return true
    }

    // MARK: Features

    /// Whether a feature is on; `false` for a feature the catalog does not declare.
    public func isEnabled(_ feature: String) -> Bool {
        guard let index = compiled.featureIndex[feature] else { return false }
        return featureOutcome(index) != nil
    }

    /// Whether a feature is on and until when, without the list of sources; `nil` for a feature
    /// the catalog does not declare. `until` is `nil` when the feature is off or never ends.
    public func coverage(of feature: String) -> (enabled: Bool, until: Instant?)? {
        guard let index = compiled.featureIndex[feature] else { return nil }
        guard let outcome = featureOutcome(index) else { return (false, nil) }
        return (true, Self.instant(outcome.until))
    }

    /// The ids of the features that are on, in catalog order.
    public var enabledFeatures: [String] {
        return featureOutcomes.map { compiled.featureIds[Int($0.feature)] }
    }

    /// One feature's status, or `nil` for a feature the catalog does not declare.
    public func feature(_ id: String) -> FeatureStatus? {
        return compiled.featureIndex[id].map(featureStatus)
    }

    /// Every declared feature's status, in catalog order.
    public var features: [FeatureStatus] {
        return compiled.featureIds.indices.map(featureStatus)
    }

    func featureOutcome(_ index: Int) -> FeatureOutcome? {
        let position = Self.search(featureOutcomes.count, Int32(index)) { featureOutcomes[$0].feature }
        return position.map { featureOutcomes[$0] }
    }

    private func featureStatus(_ index: Int) -> FeatureStatus {
        guard let outcome = featureOutcome(index) else {
            return FeatureStatus(id: compiled.featureIds[index], enabled: false, until: nil, sources: [])
        }
        var sources = compiled.granters[index].filter { state(of: $0).covers }.map { compiled.compiledProducts[$0].id }
        let at = at.millisecondsSince1970
        for item in access where item.feature == Int32(index) && item.span.start <= at && at < item.span.end {
            sources.append(item.source)
        }
        return FeatureStatus(
            id: compiled.featureIds[index], enabled: true, until: Self.instant(outcome.until),
            sources: Array(Set(sources)).sorted())
    }

    /// The features grandfather rules cover at `at`, for offers: found once per question, then
    /// looked up per product and feature.
    var grandfatheredFeatures: Set<Int32> {
        let at = at.millisecondsSince1970
        return Set(access.lazy.filter { $0.isGrandfathered && $0.span.start <= at && at < $0.span.end }.map(\.feature))
    }

    // MARK: Balances

    /// A currency's balance, or `nil` for a currency the catalog does not declare.
    public func balance(of currency: String) -> Int64? {
        return compiled.currencyIndex[currency].map { balanceValues[$0] }
    }

    /// Whether a consumption of `amount` fits a currency's balance at this result's instant, so a
    /// service records only what it can honour.
    ///
    /// - Returns: ``Spending/fits(left:)`` with the balance after it, ``Spending/short(by:)`` with
    ///   how many are missing, ``Spending/unknownCurrency`` for a currency the catalog does not
    ///   declare, or ``Spending/invalidAmount`` for an amount a consumption cannot have (1 to
    ///   ``ReceiptLimits/maxConsumptionAmount``).
    public func spending(_ amount: Int64, of currency: String) -> Spending {
        guard amount >= 1, amount <= ReceiptLimits.maxConsumptionAmount else { return .invalidAmount }
        guard let balance = balance(of: currency) else { return .unknownCurrency }
        let (left, overflow) = balance.subtractingReportingOverflow(amount)
        if overflow { return .short(by: amount) }
        return left >= 0 ? .fits(left: left) : .short(by: -left)
    }

    /// Every declared currency's balance, in catalog order.
    public var balances: [CurrencyBalance] {
        let ledger = answer.core.ledger
        return compiled.currencyIds.enumerated().map { index, currency in
            guard index < ledger.count else { return CurrencyBalance(currency: currency, balance: balanceValues[index]) }
            let answer = ledger[index]
            return CurrencyBalance(
                currency: currency, balance: balanceValues[index], deposits: answer.deposits,
                nextDepositAt: answer.nextDeposit == .max ? nil : Instant(millisecondsSince1970: answer.nextDeposit), unlimited: answer.unlimited)
        }
    }

    // MARK: Products

    /// The state of every product but consumables, in catalog order.
    public var products: [ProductStatus] {
        return compiled.compiledProducts.indices.compactMap { index in
            compiled.compiledProducts[index].type == .consumable ? nil : productStatus(index)
        }
    }

    /// One product's status, or `nil` for a consumable or unknown product.
    public func product(_ id: String) -> ProductStatus? {
        guard let index = compiled.productIndex[id], compiled.compiledProducts[index].type != .consumable else { return nil }
        return productStatus(index)
    }

    func outcome(of product: Int) -> ProductOutcome? {
        Self.search(productOutcomes.count, Int32(product)) { productOutcomes[$0].product }.map { productOutcomes[$0] }
    }

    func state(of product: Int) -> ProductState {
        outcome(of: product)?.state ?? .notPurchased
    }

    private func productStatus(_ index: Int) -> ProductStatus {
        let outcome = outcome(of: index)
        let state = outcome?.state ?? .notPurchased
        let covering = state.covers
        let product = compiled.compiledProducts[index]
        return ProductStatus(
            id: product.id, type: product.type, state: state,
            until: covering ? outcome.flatMap { Self.instant($0.until) } : nil,
            startsAt: state == .scheduled || state == .preordered ? outcome.map { Instant(millisecondsSince1970: $0.startsAt) } : nil,
            willRenew: outcome.flatMap { $0.willRenew == 2 ? nil : $0.willRenew == 1 },
            renewsTo: outcome?.renewsTo,
            commitment: outcome?.commitment.map {
                Transaction.Commitment(period: Int($0.period), periods: Int($0.periods), endsAt: Instant(millisecondsSince1970: $0.ends))
            }, store: product.store,
            manage: product.type == .autoRenewableSubscription && state != .notPurchased ? compiled.manageURL(of: index) : nil,
            resumesAt: state == .paused ? outcome.map { Instant(millisecondsSince1970: $0.startsAt) } : nil,
            renewalPrice: outcome?.renewalPrice,
            offerEndsAt: outcome.flatMap { $0.offerEndsAt == .min ? nil : Instant(millisecondsSince1970: $0.offerEndsAt) })
    }

    // MARK: Helpers

    static func instant(_ milliseconds: Int64) -> Instant? {
        milliseconds == CoverageSpan.never ? nil : Instant(millisecondsSince1970: milliseconds)
    }

    /// Binary search by a sorted integer key.
    @inline(__always)
    static func search(_ count: Int, _ key: Int32, keyAt: (Int) -> Int32) -> Int? {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            let value = keyAt(middle)
            if value == key { return middle }
            if value < key { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}

/// Whether a consumption fits a balance (``Entitlements/spending(_:of:)``).
///
/// Closed: a consumption fits, does not fit, or cannot be asked about; no other answer exists.
public enum Spending: Hashable, Sendable {
    /// It fits; the balance after it.
    case fits(left: Int64)
    /// It does not fit: this many are missing.
    case short(by: Int64)
    /// The catalog declares no such currency.
    case unknownCurrency
    /// Not an amount a consumption can have.
    case invalidAmount
}
