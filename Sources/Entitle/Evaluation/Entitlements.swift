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
    /// The catalog the result was evaluated against; `nil` for a result read back from JSON,
    /// which answers from what its JSON holds.
    public var catalog: CompiledCatalog? { answer.catalog }
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
    /// Things in the receipts that were accepted but need a look, in a fixed order (put in order
    /// when first read).
    public var warnings: [EvaluationWarning] { answer.warnings }
    /// The views of a result read back from JSON (``init(from:)``), which has no outcomes.
    var decoded: DecodedViews? { answer.decoded }

    /// The catalog of an evaluated result (a decoded one answers from ``decoded`` first).
    var compiled: CompiledCatalog { answer.catalog! }

    init(at: Instant, answer: Answer) {
        self.at = at
        self.answer = answer
    }

    /// An answer evaluated only to be compared with another (``hasSameAnswer(as:)``): its next
    /// change is not searched for, and its warnings are those of the instant.
    init(catalog: CompiledCatalog, at: Instant, compared core: Evaluator.Core) {
        self.init(at: at, answer: Answer(app: catalog.app, catalog: catalog, core: core, decoded: nil, next: nil))
    }

    /// A result read back from its JSON form, answering from the views it holds.
    init(decoded views: DecodedViews, app: String, at: Instant, reevaluateAt: Instant?, warnings: [EvaluationWarning]) {
        var core = Evaluator.Core()
        core.warnings = warnings
        core.balances = views.balances.map(\.balance)
        self.init(at: at, answer: Answer(app: app, catalog: nil, core: core, decoded: views, next: reevaluateAt))
    }

    /// Whether this result and `other` give the same answer, `at` and `reevaluateAt` aside (and
    /// what offers `extend`, which moves with the instant itself).
    func hasSameAnswer(as other: Entitlements) -> Bool {
        featureOutcomes == other.featureOutcomes && balanceValues == other.balanceValues
            && warnings.map(\.description).sorted() == other.warnings.map(\.description).sorted()
            && features == other.features && products == other.products
            && sameOffers(as: other)
    }

    /// Whether every offer answers the same, `extends` aside. Two results of one catalog compare
    /// what their offers decide, not the offers built with their ids and legal text.
    private func sameOffers(as other: Entitlements) -> Bool {
        guard let catalog, catalog === other.catalog else {
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
        if let decoded { return decoded.feature(feature)?.enabled ?? false }
        guard let index = compiled.featureIndex[feature] else { return false }
        return featureOutcome(index) != nil
    }

    /// Whether a feature is on and until when, without the list of sources; `nil` for a feature
    /// the catalog does not declare. `until` is `nil` when the feature is off or never ends.
    public func coverage(of feature: String) -> (enabled: Bool, until: Instant?)? {
        if let decoded { return decoded.feature(feature).map { ($0.enabled, $0.until) } }
        guard let index = compiled.featureIndex[feature] else { return nil }
        guard let outcome = featureOutcome(index) else { return (false, nil) }
        return (true, Self.instant(outcome.until))
    }

    /// The ids of the features that are on, in catalog order.
    public var enabledFeatures: [String] {
        if let decoded { return decoded.features.filter(\.enabled).map(\.id) }
        return featureOutcomes.map { compiled.featureIds[Int($0.feature)] }
    }

    /// One feature's status, or `nil` for a feature the catalog does not declare.
    public func feature(_ id: String) -> FeatureStatus? {
        if let decoded { return decoded.feature(id) }
        return compiled.featureIndex[id].map(featureStatus)
    }

    /// Every declared feature's status, in catalog order.
    public var features: [FeatureStatus] {
        if let decoded { return decoded.features }
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
        if let decoded { return decoded.balances.first { $0.currency == currency }?.balance }
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
        if let decoded { return decoded.balances }
        return compiled.currencyIds.enumerated().map { CurrencyBalance(currency: $1, balance: balanceValues[$0]) }
    }

    // MARK: Products

    /// The state of every product but consumables, in catalog order.
    public var products: [ProductStatus] {
        if let decoded { return decoded.products }
        return compiled.compiledProducts.indices.compactMap { index in
            compiled.compiledProducts[index].type == .consumable ? nil : productStatus(index)
        }
    }

    /// One product's status, or `nil` for a consumable or unknown product.
    public func product(_ id: String) -> ProductStatus? {
        if let decoded { return decoded.products.first { $0.id == id } }
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
            startsAt: state == .scheduled ? outcome.map { Instant(millisecondsSince1970: $0.startsAt) } : nil,
            willRenew: outcome.flatMap { $0.willRenew == 2 ? nil : $0.willRenew == 1 },
            renewsTo: outcome?.renewsTo,
            commitment: outcome?.commitment.map {
                Transaction.Commitment(period: Int($0.period), periods: Int($0.periods), endsAt: Instant(millisecondsSince1970: $0.ends))
            }, store: product.store,
            manage: product.type == .autoRenewableSubscription && state != .notPurchased ? compiled.manageURL(of: index) : nil,
            resumesAt: state == .paused ? outcome.map { Instant(millisecondsSince1970: $0.startsAt) } : nil)
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

/// A receipt in either form evaluation reads: a ``Receipt`` value or a ``ParsedReceipt``.
///
/// Evaluation reads the parsed form; a `Receipt` is converted once per evaluation. A service that
/// evaluates one receipt at many instants decodes it once into a `ParsedReceipt`.
public protocol ReceiptConvertible: Sendable {
    /// The receipt as evaluation reads it.
    var parsedReceipt: ParsedReceipt { get }
}

extension Receipt: ReceiptConvertible {
    /// The receipt as evaluation reads it.
    public var parsedReceipt: ParsedReceipt { ParsedReceipt(self) }
}

extension ParsedReceipt: ReceiptConvertible {
    /// The receipt itself.
    public var parsedReceipt: ParsedReceipt { self }
}

extension Array where Element: ReceiptConvertible {
    /// The receipts as evaluation reads them, without a copy when they are parsed already.
    var parsed: [ParsedReceipt] {
        // The same type: the same array, without a dynamic cast (which would walk it).
        if Element.self == ParsedReceipt.self { return unsafeBitCast(self, to: [ParsedReceipt].self) }
        return map(\.parsedReceipt)
    }
}

extension CompiledCatalog {
    /// Evaluates receipts at an instant.
    ///
    /// Only receipts of this catalog's app feed its features, balances and products; other apps'
    /// receipts serve upgrade requirements.
    ///
    /// - Parameters:
    ///   - receipts: the customer's receipts, of this app and of others: ``Receipt`` values or
    ///     ``ParsedReceipt``s (the fast path, with no string work beyond one product lookup per
    ///     transaction).
    ///   - at: the instant to evaluate at. Evaluation never reads the clock. An instant outside
    ///     years 0001-9999 is evaluated at the nearer end of them (``Instant/clampedToRange``).
    ///   - environments: the receipt environments to accept (`production`, `sandbox`, `xcode`,
    ///     `local-testing`); `nil` accepts all. A receipt without an environment is `production`;
    ///     any other receipt is ignored entirely, with a warning.
    ///   - account: the customer's account in the app, 1 to 256 characters: an App Store `appAccountToken` (a UUID, compared without case), another store's `account` (compared exactly):
    ///     transactions and renewal entries naming another count for nothing, with a warning;
    ///     those naming none count. `nil`: every account counts.
    ///   - storefront: the customer's storefront now (ISO 3166-1 alpha-3 `USA`, or alpha-2); a
    ///     product that lists `storefronts` is offered only in those; `nil`: in none.
    /// - Returns: the customer's entitlements at `at`.
    public func evaluate(
        _ receipts: [some ReceiptConvertible], at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) -> Entitlements {
        Evaluator.evaluate(
            self, receipts: receipts.parsed, at: at, options: .init(environments: environments, account: account, storefront: storefront))
    }

    /// Decodes one receipt's JSON and evaluates it (with any other apps' receipts) at an instant.
    ///
    /// - Parameters:
    ///   - receiptJSON: a normalized receipt.
    ///   - others: the customer's receipts of other apps, for upgrade requirements.
    ///   - at: the instant to evaluate at.
    ///   - environments: the receipt environments to accept; `nil` accepts all.
    ///   - account: the customer's account in the app; `nil`: every account counts.
    ///   - storefront: the customer's storefront now (ISO 3166-1 alpha-3 `USA`, or alpha-2); a
    ///     product that lists `storefronts` is offered only in those; `nil`: in none.
    /// - Throws: ``ReceiptError`` when the receipt is malformed.
    public func evaluate(
        receiptJSON: Data, others: [ParsedReceipt] = [], at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) throws(ReceiptError) -> Entitlements {
        let receipt = try ParsedReceipt(json: receiptJSON)
        return Evaluator.evaluate(
            self, receipts: others.isEmpty ? [receipt] : [receipt] + others, at: at,
            options: .init(environments: environments, account: account, storefront: storefront))
    }

    /// Explains what a customer has at an instant and why: every feature's sources, every
    /// product's transactions and renewal entries, every offer's deciding fact.
    ///
    /// The explanation is the evaluation's own decisions, recorded as it makes them (an evaluation
    /// for an answer records nothing and pays nothing for it).
    ///
    /// - Parameters:
    ///   - receipts: the customer's receipts, of this app and of others.
    ///   - at: the instant to explain.
    ///   - environments: the receipt environments to accept; `nil` accepts all.
    ///   - account: the customer's account (any id; an App Store `appAccountToken` matches it when it is the same UUID); transactions naming another count for nothing.
    ///   - storefront: the customer's storefront now (ISO 3166-1 alpha-3 `USA`, or alpha-2).
    /// - Returns: what the customer has at `at`, and why.
    public func explain(
        _ receipts: [some ReceiptConvertible], at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) -> Explanation {
        Explainer.explain(
            self, receipts: receipts.parsed, at: at, options: .init(environments: environments, account: account, storefront: storefront))
    }
}

extension Portfolio {
    /// Evaluates receipts for one app of the portfolio.
    ///
    /// The portfolio's other catalogs say which of their products family sharing passes on, for
    /// upgrade prerequisites.
    ///
    /// - Parameters:
    ///   - app: the app to evaluate.
    ///   - receipts: the customer's receipts, of this app and of others (``Receipt`` values or
    ///     ``ParsedReceipt``s).
    ///   - at: the instant to evaluate at.
    ///   - environments: the receipt environments to accept; `nil` accepts all.
    ///   - account: the customer's account in the app (any id; an App Store `appAccountToken` matches it when it is the same UUID); `nil`: every account counts.
    ///   - storefront: the customer's storefront now (ISO 3166-1 alpha-3 `USA`, or alpha-2); a
    ///     product that lists `storefronts` is offered only in those; `nil`: in none.
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func evaluate(
        app: String, receipts: [some ReceiptConvertible], at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) throws(PortfolioError) -> Entitlements {
        guard let catalog = catalog(for: app) else { throw PortfolioError(missingApp: app, known: apps) }
        return Evaluator.evaluate(
            catalog, receipts: receipts.parsed, at: at,
            options: .init(environments: environments, catalogs: catalogsByApp, account: account, storefront: storefront))
    }

    /// Explains what a customer has in one app of the portfolio at an instant, and why.
    ///
    /// - Parameters:
    ///   - app: the app to explain.
    ///   - receipts: the customer's receipts, of this app and of others.
    ///   - at: the instant to explain.
    ///   - environments: the receipt environments to accept; `nil` accepts all.
    ///   - account: the customer's account (any id; an App Store `appAccountToken` matches it when it is the same UUID); transactions naming another count for nothing.
    ///   - storefront: the customer's storefront now (ISO 3166-1 alpha-3 `USA`, or alpha-2); a
    ///     product that lists `storefronts` is offered only in those; `nil`: in none.
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func explain(
        app: String, receipts: [some ReceiptConvertible], at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) throws(PortfolioError) -> Explanation {
        guard let catalog = catalog(for: app) else { throw PortfolioError(missingApp: app, known: apps) }
        return Explainer.explain(
            catalog, receipts: receipts.parsed, at: at,
            options: .init(environments: environments, catalogs: catalogsByApp, account: account, storefront: storefront))
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

    /// The problem, without the suggestion: `no catalog for app `com.example.x``.
    public var problem: String { "no catalog for app `\(Diagnostic.excerpt(missingApp))`" }

    /// What to do: the closest app with a catalog ("did you mean"), else the apps there are.
    public var help: String? {
        if let suggestion = Suggestion.help(for: missingApp, in: known) { return suggestion }
        return known.isEmpty ? nil : "the catalogs are for \(CatalogChecker.list(known))"
    }

    /// The error as an `unknown-app` diagnostic, its suggestion as `help`.
    public var diagnostic: Diagnostic { Diagnostic(severity: .error, code: .unknownApp, message: problem, help: help) }

    /// The problem and its help on one line.
    public var description: String { help.map { "\(problem); \($0)" } ?? problem }
}

/// Receipts of both forms in one list (`[receipt, parsed]`), as a caller holds them: the same
/// calls as for a list of one form, each receipt converted once.
extension CompiledCatalog {
    /// Evaluates receipts of either form, mixed in one list, at an instant, as a list of one form
    /// is evaluated.
    ///
    /// - Parameters:
    ///   - receipts: the customer's receipts, ``Receipt`` values and ``ParsedReceipt``s.
    ///   - at: the instant to evaluate at.
    ///   - environments: the receipt environments to accept; `nil` accepts all.
    ///   - account: the customer's account in the app; `nil`: every account counts.
    ///   - storefront: the customer's storefront now (ISO 3166-1 alpha-3 `USA`, or alpha-2); a
    ///     product that lists `storefronts` is offered only in those; `nil`: in none.
    /// - Returns: the customer's entitlements at `at`.
    public func evaluate(
        _ receipts: [any ReceiptConvertible], at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) -> Entitlements {
        evaluate(receipts.map(\.parsedReceipt), at: at, environments: environments, account: account, storefront: storefront)
    }

    /// Explains receipts of either form, mixed in one list.
    ///
    /// - Parameters:
    ///   - receipts: the customer's receipts, ``Receipt`` values and ``ParsedReceipt``s.
    ///   - at: the instant to explain.
    ///   - environments: the receipt environments to accept; `nil` accepts all.
    ///   - account: the customer's account; transactions naming another count for nothing.
    ///   - storefront: the customer's storefront now (ISO 3166-1 alpha-3 `USA`, or alpha-2); a
    ///     product that lists `storefronts` is offered only in those; `nil`: in none.
    /// - Returns: what the customer has at `at`, and why.
    public func explain(
        _ receipts: [any ReceiptConvertible], at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) -> Explanation {
        explain(receipts.map(\.parsedReceipt), at: at, environments: environments, account: account, storefront: storefront)
    }
}

extension Portfolio {
    /// Evaluates receipts of either form, mixed in one list, for one app of the portfolio.
    ///
    /// - Parameters:
    ///   - app: the app to evaluate.
    ///   - receipts: the customer's receipts, ``Receipt`` values and ``ParsedReceipt``s.
    ///   - at: the instant to evaluate at.
    ///   - environments: the receipt environments to accept; `nil` accepts all.
    ///   - account: the customer's account in the app; `nil`: every account counts.
    ///   - storefront: the customer's storefront now (ISO 3166-1 alpha-3 `USA`, or alpha-2); a
    ///     product that lists `storefronts` is offered only in those; `nil`: in none.
    /// - Returns: the customer's entitlements at `at`.
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func evaluate(
        app: String, receipts: [any ReceiptConvertible], at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) throws(PortfolioError) -> Entitlements {
        try evaluate(app: app, receipts: receipts.map(\.parsedReceipt), at: at, environments: environments, account: account, storefront: storefront)
    }

    /// Explains receipts of either form, mixed in one list, for one app of the portfolio.
    ///
    /// - Parameters:
    ///   - app: the app to explain.
    ///   - receipts: the customer's receipts, ``Receipt`` values and ``ParsedReceipt``s.
    ///   - at: the instant to explain.
    ///   - environments: the receipt environments to accept; `nil` accepts all.
    ///   - account: the customer's account; transactions naming another count for nothing.
    ///   - storefront: the customer's storefront now (ISO 3166-1 alpha-3 `USA`, or alpha-2); a
    ///     product that lists `storefronts` is offered only in those; `nil`: in none.
    /// - Returns: what the customer has at `at`, and why.
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func explain(
        app: String, receipts: [any ReceiptConvertible], at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) throws(PortfolioError) -> Explanation {
        try explain(app: app, receipts: receipts.map(\.parsedReceipt), at: at, environments: environments, account: account, storefront: storefront)
    }
}

/// Whether a consumption fits a balance (``Entitlements/spending(_:of:)``).
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
