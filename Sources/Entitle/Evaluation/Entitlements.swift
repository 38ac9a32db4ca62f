/// What a customer is entitled to at an instant: features, balances, product states and offers.
///
/// Evaluation records only the products the receipts touch and the features they turn on; every
/// id-keyed view (``features``, ``products``, ``offers``) is built from those and the catalog when
/// read, so a service that only asks ``isEnabled(_:)`` pays for nothing else, and the cost of an
/// evaluation does not grow with the size of the catalog.
public struct Entitlements: Sendable {
    /// The catalog the result was evaluated against.
    public let catalog: CompiledCatalog
    /// The instant the result holds at.
    public let at: Instant
    /// Products with transactions known at `at`, by ascending product index.
    let productOutcomes: [ProductOutcome]
    /// Enabled features, by ascending feature index.
    let featureOutcomes: [FeatureOutcome]
    let balanceValues: [Int64]
    let introUsed: [Int32]
    /// What other apps' receipts show, for upgrade requirements.
    let prerequisites: UpgradePrerequisites
    /// The earliest instant after ``at`` at which some feature turns on or off if no new
    /// transaction arrives; `nil` when nothing will change.
    public let reevaluateAt: Instant?
    /// Things in the receipts that were accepted but need a look.
    public let warnings: [EvaluationWarning]
    /// The views of a result read back from JSON (``init(from:)``), which has no outcomes.
    let decoded: DecodedViews?

    init(
        catalog: CompiledCatalog, at: Instant, products: [ProductOutcome], features: [FeatureOutcome],
        balances: [Int64], introUsed: [Int32], prerequisites: UpgradePrerequisites, reevaluateAt: Instant?,
        warnings: [EvaluationWarning]
    ) {
        self.catalog = catalog
        self.at = at
        self.productOutcomes = products
        self.featureOutcomes = features
        self.balanceValues = balances
        self.introUsed = introUsed
        self.prerequisites = prerequisites
        self.reevaluateAt = reevaluateAt
        self.warnings = warnings
        self.decoded = nil
    }

    /// A result read back from its JSON form, answering from the views it holds.
    init(decoded views: DecodedViews, catalog: CompiledCatalog, at: Instant, reevaluateAt: Instant?, warnings: [EvaluationWarning]) {
        self.catalog = catalog
        self.at = at
        self.productOutcomes = []
        self.featureOutcomes = []
        self.balanceValues = views.balances.map(\.balance)
        self.introUsed = []
        self.prerequisites = .none
        self.reevaluateAt = reevaluateAt
        self.warnings = warnings
        self.decoded = views
    }

    /// The app the result is for.
    public var app: String { catalog.app }

    // MARK: Features

    /// Whether a feature is on; `false` for a feature the catalog does not declare.
    public func isEnabled(_ feature: String) -> Bool {
        guard let index = catalog.featureIndex[feature] else { return false }
        if let decoded { return decoded.feature(catalog.featureIds[index])?.enabled ?? false }
        return featureOutcome(index) != nil
    }

    /// Whether a feature is on and until when, without the list of sources; `nil` for a feature
    /// the catalog does not declare. `until` is `nil` when the feature is off or never ends.
    public func coverage(of feature: String) -> (enabled: Bool, until: Instant?)? {
        guard let index = catalog.featureIndex[feature] else { return nil }
        if let decoded, let status = decoded.feature(catalog.featureIds[index]) { return (status.enabled, status.until) }
        guard let outcome = featureOutcome(index) else { return (false, nil) }
        return (true, Self.instant(outcome.until))
    }

    /// The ids of the features that are on, in catalog order.
    public var enabledFeatures: [String] {
        if let decoded { return decoded.features.filter(\.enabled).map(\.id) }
        return featureOutcomes.map { catalog.featureIds[Int($0.feature)] }
    }

    /// One feature's status, or `nil` for a feature the catalog does not declare.
    public func feature(_ id: String) -> FeatureStatus? {
        catalog.featureIndex[id].map(featureStatus)
    }

    /// Every declared feature's status, in catalog order.
    public var features: [FeatureStatus] {
        catalog.featureIds.indices.map(featureStatus)
    }

    private func featureOutcome(_ index: Int) -> FeatureOutcome? {
        let position = Self.search(featureOutcomes, Int32(index), by: \.feature)
        return position.map { featureOutcomes[$0] }
    }

    private func featureStatus(_ index: Int) -> FeatureStatus {
        if let decoded, let status = decoded.feature(catalog.featureIds[index]) { return status }
        guard let outcome = featureOutcome(index) else {
            return FeatureStatus(id: catalog.featureIds[index], enabled: false, until: nil, sources: [])
        }
        let sources = catalog.granters[index].filter {
            let state = state(of: $0)
            return state == .active || state == .gracePeriod
        }.map { catalog.compiledProducts[$0].id }.sorted()
        return FeatureStatus(id: catalog.featureIds[index], enabled: true, until: Self.instant(outcome.until), sources: sources)
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
        if let decoded { return decoded.products }
        return catalog.compiledProducts.indices.compactMap { index in
            catalog.compiledProducts[index].type == .consumable ? nil : productStatus(index)
        }
    }

    /// One product's status, or `nil` for a consumable or unknown product.
    public func product(_ id: String) -> ProductStatus? {
        guard let index = catalog.productIndex[id], catalog.compiledProducts[index].type != .consumable else { return nil }
        if let decoded { return decoded.products.first { $0.id == id } }
        return productStatus(index)
    }

    private func outcome(of product: Int) -> ProductOutcome? {
        Self.search(productOutcomes, Int32(product), by: \.product).map { productOutcomes[$0] }
    }

    func state(of product: Int) -> ProductState {
        outcome(of: product)?.state ?? .notPurchased
    }

    private func productStatus(_ index: Int) -> ProductStatus {
        let outcome = outcome(of: index)
        let state = outcome?.state ?? .notPurchased
        let covering = state == .active || state == .gracePeriod
        return ProductStatus(
            id: catalog.compiledProducts[index].id, type: catalog.compiledProducts[index].type, state: state,
            until: covering ? outcome.flatMap { Self.instant($0.until) } : nil)
    }

    // MARK: Offers

    /// Whether each product may be offered for sale, in catalog order.
    public var offers: [Offer] {
        if let decoded { return decoded.offers }
        return catalog.compiledProducts.indices.map(offer)
    }

    /// One product's offer, or `nil` for a product the catalog does not define.
    public func offer(for productId: String) -> Offer? {
        catalog.productIndex[productId].map(offer)
    }

    private func offer(_ index: Int) -> Offer {
        if let decoded, let offer = decoded.offers.first(where: { $0.productId == catalog.compiledProducts[index].id }) { return offer }
        let product = catalog.compiledProducts[index]
        let reason = ineligibility(index)
        var introOfferEligible: Bool?
        if product.type == .autoRenewableSubscription, product.introOffer != nil {
            introOfferEligible = !introUsed.contains(Int32(product.group))
        }
        return Offer(productId: product.id, eligible: reason == nil, reason: reason,
                     introOfferEligible: introOfferEligible, legal: product.legal)
    }

    /// The first reason, in the documented order, that a product may not be offered.
    private func ineligibility(_ index: Int) -> OfferReason? {
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
        if isOwned(index) { return .owned }
        if case .trial = product.role, outcome(of: index) != nil { return .trialUsed }
        if case .upgrade(_, let requirement) = product.role, !meets(requirement) { return .prerequisiteMissing }
        if case .standard = product.role, product.upgrades.contains(where: { upgrade in
            guard catalog.compiledProducts[upgrade].available, case .upgrade(_, let requirement) = catalog.compiledProducts[upgrade].role
            else { return false }
            return meets(requirement)
        }) {
            return .upgradeAvailable
        }
        return nil
    }

    /// Whether a non-consumable, or what stands in for it, is active.
    private func isOwned(_ index: Int) -> Bool {
        let product = catalog.compiledProducts[index]
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

    /// Whether some receipt of the required app shows a qualifying purchase at `at`.
    private func meets(_ requirement: UpgradeRequirement) -> Bool {
        prerequisites.meets(requirement)
    }

    // MARK: Helpers

    private static func instant(_ milliseconds: Int64) -> Instant? {
        milliseconds == CoverageSpan.never ? nil : Instant(millisecondsSince1970: milliseconds)
    }

    /// Binary search by a sorted integer key.
    private static func search<Element>(_ elements: [Element], _ key: Int32, by keyPath: KeyPath<Element, Int32>) -> Int? {
        var low = 0
        var high = elements.count
        while low < high {
            let middle = (low + high) / 2
            let value = elements[middle][keyPath: keyPath]
            if value == key { return middle }
            if value < key { low = middle + 1 } else { high = middle }
        }
        return nil
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
        Evaluator.evaluate(self, receipts: receipts.map(ParsedReceipt.init), at: at)
    }

    /// Evaluates parsed receipts at an instant: the fast path, with no string work beyond one
    /// product lookup per transaction.
    public func evaluate(_ receipts: [ParsedReceipt], at: Instant) -> Entitlements {
        Evaluator.evaluate(self, receipts: receipts, at: at)
    }

    /// Decodes one receipt's JSON and evaluates it (with any other apps' receipts) at an instant.
    ///
    /// - Throws: ``ReceiptError`` when the receipt is malformed.
    public func evaluate(receiptJSON: Data, others: [ParsedReceipt] = [], at: Instant) throws(ReceiptError) -> Entitlements {
        let receipt = try ParsedReceipt(json: receiptJSON)
        return Evaluator.evaluate(self, receipts: [receipt] + others, at: at)
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

    /// Evaluates parsed receipts for one app of the portfolio.
    ///
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func evaluate(app: String, receipts: [ParsedReceipt], at: Instant) throws(PortfolioError) -> Entitlements {
        guard let catalog = catalog(for: app) else { throw PortfolioError(missingApp: app, known: apps) }
        return catalog.evaluate(receipts, at: at)
    }
}

/// A request for an app the portfolio has no catalog for.
public struct PortfolioError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The app that was asked for.
    public let missingApp: String
    /// The apps the portfolio has catalogs for.
    public let known: [String]

    package init(missingApp: String, known: [String]) {
        self.missingApp = missingApp
        self.known = known
    }

    public var description: String {
        let shown = missingApp.count > 200 ? missingApp.prefix(100) + "… (\(missingApp.utf8.count) bytes)" : Substring(missingApp)
        var text = "no catalog for app `\(shown)`"
        if let suggestion = Suggestion.closest(to: missingApp, in: known) {
            text += "; did you mean `\(suggestion)`?"
        } else if !known.isEmpty {
            text += "; the catalogs are for \(CatalogChecker.list(known))"
        }
        return text
    }
}

import Foundation
