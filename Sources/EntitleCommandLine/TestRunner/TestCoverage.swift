import Entitle

/// What the cases of one app exercised, across all test files: `entitle test --coverage` lists
/// what none of them did.
///
/// Products count once a case's result has them in any state but `not-purchased` (consumables
/// have no state and are not listed); features once on and once off; offer reasons once any
/// offer of a result gives them. Only reasons the catalog can give are asked for: `retired` when
/// a product is retired, `owned` when there are non-consumables, `trial-used` when there is a
/// trial, `subscribed` when there are auto-renewable subscriptions, `prerequisite-missing` and
/// `upgrade-available` when there is upgrade pricing.
struct TestCoverage {
    let app: String
    let catalog: CompiledCatalog
    private(set) var cases = 0
    private var purchased: Set<String> = []
    private var featuresOn: Set<String> = []
    private var featuresOff: Set<String> = []
    private var reasons: Set<OfferReason> = []
    /// Win-back and promotional offers some case found eligible, as `product/offer`.
    private var eligiblePromotions: Set<String> = []

    init(catalog: CompiledCatalog) {
        self.app = catalog.app
        self.catalog = catalog
    }

    /// Counts one case's result.
    mutating func record(_ result: Entitlements) {
        cases += 1
        for product in result.products where product.state != .notPurchased { purchased.insert(product.id) }
        for feature in result.features {
            if feature.enabled { featuresOn.insert(feature.id) } else { featuresOff.insert(feature.id) }
        }
        for offer in result.offers {
            if let reason = offer.reason { reasons.insert(reason) }
            for promotion in offer.promotions ?? [] where promotion.eligible { eligiblePromotions.insert("\(offer.productId)/\(promotion.id)") }
        }
    }

    var productsNeverPurchased: [String] {
        catalog.products.filter { $0.type != .consumable && !purchased.contains($0.key) }.map(\.key)
    }

    var featuresNeverOn: [String] { catalog.featureIds.filter { !featuresOn.contains($0) } }

    var featuresNeverOff: [String] { catalog.featureIds.filter { !featuresOff.contains($0) } }

    /// The offer reasons the catalog can give, in the documented order.
    var possibleReasons: [OfferReason] {
        let products = catalog.products
        return OfferReason.allCases.filter { reason in
            switch reason {
            // The customer's choice, not the catalog's: no test is expected to show it.
            case .consentRescinded: false
            case .notInStorefront: products.contains { $0.storefronts != nil }
            case .subscribedElsewhere:
                products.contains { $0.type == .autoRenewableSubscription }
                    && Set(products.filter { $0.type == .autoRenewableSubscription }.map(\.store)).count > 1
            case .retired: products.contains { !$0.available }
            case .owned: products.contains { $0.type == .nonConsumable }
            case .trialUsed: products.contains { $0.trialDays != nil }
            case .subscribed, .billingIssue: products.contains { $0.type == .autoRenewableSubscription }
            case .prerequisiteMissing, .upgradeAvailable: products.contains { $0.upgrade != nil }
            }
        }
    }

    var reasonsNeverSeen: [String] { possibleReasons.filter { !reasons.contains($0) }.map(\.rawValue) }

    /// Win-back and promotional offers (ids, unique in a catalog) no case found eligible, in
    /// catalog order.
    var promotionsNeverEligible: [String] {
        catalog.products.flatMap { product in product.offers.map { (product.key, $0.id) } }
            .filter { !eligiblePromotions.contains("\($0.0)/\($0.1)") }.map(\.1)
    }

    /// The lists, for people:
    ///
    ///     coverage of com.example.diagrams (6 cases)
    ///       products never purchased: com.example.diagrams.pro.upgrade
    ///       features never off: cloud.sync
    var text: String {
        var text = "coverage of \(app) (\(cases) case\(cases == 1 ? "" : "s"))\n"
        let lists = [
            ("products never purchased", productsNeverPurchased), ("features never on", featuresNeverOn),
            ("features never off", featuresNeverOff), ("offer reasons never seen", reasonsNeverSeen),
            ("promotions never eligible", promotionsNeverEligible),
        ]
        for (title, items) in lists where !items.isEmpty {
            text += "  \(title): \(items.joined(separator: ", "))\n"
        }
        if lists.allSatisfy(\.1.isEmpty) { text += "  every product, feature state, offer reason and promotion was seen\n" }
        return text
    }

    /// The lists, for scripts: `{"cases", "productsNeverPurchased", "featuresNeverOn",
    /// "featuresNeverOff", "offerReasonsNeverSeen", "promotionsNeverEligible"}`.
    var json: JSONOutput {
        func list(_ items: [String]) -> JSONOutput { .array(items.map(JSONOutput.string)) }
        return .object([
            ("cases", .integer(Int64(cases))),
            ("productsNeverPurchased", list(productsNeverPurchased)),
            ("featuresNeverOn", list(featuresNeverOn)),
            ("featuresNeverOff", list(featuresNeverOff)),
            ("offerReasonsNeverSeen", list(reasonsNeverSeen)),
            ("promotionsNeverEligible", list(promotionsNeverEligible)),
        ])
    }
}
