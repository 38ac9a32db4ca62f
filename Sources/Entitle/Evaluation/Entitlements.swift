/// What a customer is entitled to at an instant: features, balances, product states and offers.
///
/// Evaluation stores dense arrays indexed like the catalog; the id-keyed views (``features``,
/// ``products``, ``offers``) are built when read, so a service that only asks
/// ``isEnabled(_:)`` pays for nothing else.
public struct Entitlements: Sendable {
    /// The catalog the result was evaluated against.
    public let catalog: CompiledCatalog
    /// The instant the result holds at.
    public let at: Instant
    let featureEnabled: [Bool]
    let featureUntil: [Int64]
    let productStates: [ProductState]
    let productUntil: [Int64]
    let everBought: FeatureSet
    let introUsed: FeatureSet
    let prerequisiteMet: FeatureSet
    let balanceValues: [Int64]
    /// The earliest instant after ``at`` at which some feature turns on or off if no new
    /// transaction arrives; `nil` when nothing will change.
    public let reevaluateAt: Instant?
    /// Things in the receipts that were accepted but need a look.
    public let warnings: [EvaluationWarning]

    init(
        catalog: CompiledCatalog, at: Instant, featureEnabled: [Bool], featureUntil: [Int64],
        productStates: [ProductState], productUntil: [Int64], everBought: FeatureSet, introUsed: FeatureSet,
        prerequisiteMet: FeatureSet, balances: [Int64], reevaluateAt: Instant?, warnings: [EvaluationWarning]
    ) {
        self.catalog = catalog
        self.at = at
        self.featureEnabled = featureEnabled
        self.featureUntil = featureUntil
        self.productStates = productStates
        self.productUntil = productUntil
        self.everBought = everBought
        self.introUsed = introUsed
        self.prerequisiteMet = prerequisiteMet
        self.balanceValues = balances
        self.reevaluateAt = reevaluateAt
        self.warnings = warnings
    }

    /// The app the result is for.
    public var app: String { catalog.app }

    // MARK: Features

    /// Whether a feature is on; `false` for a feature the catalog does not declare.
    public func isEnabled(_ feature: String) -> Bool {
        guard let index = catalog.featureIds.firstIndex(of: feature) else { return false }
        return featureEnabled[index]
    }

    /// One feature's status, or `nil` for a feature the catalog does not declare.
    public func feature(_ id: String) -> FeatureStatus? {
        catalog.featureIds.firstIndex(of: id).map(featureStatus)
    }

    /// Every declared feature's status, in catalog order.
    public var features: [FeatureStatus] {
        catalog.featureIds.indices.map(featureStatus)
    }

    private func featureStatus(_ index: Int) -> FeatureStatus {
        let enabled = featureEnabled[index]
        let sources = enabled
            ? catalog.granters[index].filter { productStates[$0] == .active || productStates[$0] == .gracePeriod }
                .map { catalog.products[$0].id }.sorted()
            : []
        return FeatureStatus(
            id: catalog.featureIds[index], enabled: enabled,
            until: enabled ? Self.instant(featureUntil[index]) : nil, sources: sources)
    }

    // MARK: Balances

    /// A currency's balance, or `nil` for a currency the catalog does not declare.
    public func balance(of currency: String) -> Int64? {
        catalog.currencyIndex[currency].map { balanceValues[$0] }
    }

    /// Every declared currency's balance, in catalog order.
    public var balances: [CurrencyBalance] {
        catalog.currencyIds.enumerated().map { CurrencyBalance(currency: $1, balance: balanceValues[$0]) }
    }

    // MARK: Products

    /// The state of every product but consumables, in catalog order.
    public var products: [ProductStatus] {
        catalog.products.indices.compactMap { index in
            let product = catalog.products[index]
            guard product.type != .consumable else { return nil }
            return productStatus(index)
        }
    }

    /// One product's status, or `nil` for a consumable or unknown product.
    public func product(_ id: String) -> ProductStatus? {
        guard let index = catalog.productIndex[id], catalog.products[index].type != .consumable else { return nil }
        return productStatus(index)
    }

    private func productStatus(_ index: Int) -> ProductStatus {
        let state = productStates[index]
        let covering = state == .active || state == .gracePeriod
        return ProductStatus(
            id: catalog.products[index].id, type: catalog.products[index].type, state: state,
            until: covering ? Self.instant(productUntil[index]) : nil)
    }

    // MARK: Offers

    /// Whether each product may be offered for sale, in catalog order.
    public var offers: [Offer] {
        catalog.products.indices.map(offer)
    }

    /// One product's offer, or `nil` for a product the catalog does not define.
    public func offer(for productId: String) -> Offer? {
        catalog.productIndex[productId].map(offer)
    }

    private func offer(_ index: Int) -> Offer {
        let product = catalog.products[index]
        let reason = ineligibility(index)
        var introOfferEligible: Bool?
        if product.type == .autoRenewableSubscription, product.introOffer != nil {
            introOfferEligible = !introUsed.contains(product.group)
        }
        return Offer(productId: product.id, eligible: reason == nil, reason: reason,
                     introOfferEligible: introOfferEligible, legal: product.legal)
    }

    /// The first reason, in the documented order, that a product may not be offered.
    private func ineligibility(_ index: Int) -> OfferReason? {
        let product = catalog.products[index]
        if !product.available { return .retired }
        switch product.type {
        case .consumable, .nonRenewingSubscription:
            return nil
        case .autoRenewableSubscription:
            let state = productStates[index]
            return state == .active || state == .gracePeriod ? .subscribed : nil
        case .nonConsumable:
            break
        }
        if isOwned(index) { return .owned }
        if case .trial = product.role, everBought.contains(index) { return .trialUsed }
        if case .upgrade = product.role, !prerequisiteMet.contains(index) { return .prerequisiteMissing }
        if case .standard = product.role,
           product.upgrades.contains(where: { catalog.products[$0].available && prerequisiteMet.contains($0) }) {
            return .upgradeAvailable
        }
        return nil
    }

    /// Whether a non-consumable, or what stands in for it, is active.
    private func isOwned(_ index: Int) -> Bool {
        let product = catalog.products[index]
        // The full-price product this one belongs with: itself, what it replaces, or what it is a trial of.
        var family = index
        switch product.role {
        case .standard: break
        case .upgrade(let replaces, _): family = replaces
        case .trial(_, let paid):
            if productStates[index] == .active { return true }
            family = paid
        }
        if productStates[family] == .active { return true }
        return catalog.products[family].upgrades.contains { productStates[$0] == .active }
    }

    private static func instant(_ milliseconds: Int64) -> Instant? {
        milliseconds == CoverageSpan.never ? nil : Instant(millisecondsSince1970: milliseconds)
    }
}

extension CompiledCatalog {
    /// Evaluates receipts at an instant.
    ///
    /// Only receipts of this catalog's app feed its features, balances and products; other apps'
    /// receipts serve upgrade requirements.
    ///
    /// - Parameters:
    ///   - receipts: the customer's receipts, of this app and of others.
    ///   - at: the instant to evaluate at. Evaluation never reads the clock.
    /// - Returns: the customer's entitlements at `at`.
    public func evaluate(_ receipts: [Receipt], at: Instant) -> Entitlements {
        Evaluator.evaluate(self, receipts: receipts, at: at)
    }
}

extension Portfolio {
    /// Evaluates receipts for one app of the portfolio.
    ///
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func evaluate(app: String, receipts: [Receipt], at: Instant) throws(PortfolioError) -> Entitlements {
        guard let catalog = catalog(for: app) else { throw PortfolioError(missingApp: app, known: apps) }
        return catalog.evaluate(receipts, at: at)
    }
}

/// A request for an app the portfolio has no catalog for.
public struct PortfolioError: Error, Hashable, Sendable, CustomStringConvertible {
    public let missingApp: String
    public let known: [String]
    public var description: String {
        var text = "no catalog for app `\(missingApp)`"
        if let suggestion = Suggestion.closest(to: missingApp, in: known) {
            text += "; did you mean `\(suggestion)`?"
        } else if !known.isEmpty {
            text += "; the catalogs are for \(CatalogChecker.list(known))"
        }
        return text
    }
}
