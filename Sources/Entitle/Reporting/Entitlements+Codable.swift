import Foundation

/// `Codable` results, so a service embeds them in its own responses. An ``Entitlements`` encodes
/// to the object `entitle check --format json` prints; instants are RFC 3339 strings.
extension Entitlements: Codable {
    private enum Keys: String, CodingKey {
        case app, at, features, balances, products, offers, reevaluateAt, warnings
    }

    private enum FeatureKeys: String, CodingKey { case enabled, until, sources }
    private enum ProductKeys: String, CodingKey { case type, state, until, startsAt, willRenew, renewsTo }
    private enum OfferKeys: String, CodingKey { case eligible, reason, introOfferEligible, legal, change, effective }

    /// Encodes the result as `entitle check --format json` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(app, forKey: .app)
        try container.encode(at, forKey: .at)
        var features = container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .features)
        for feature in self.features {
            var object = features.nestedContainer(keyedBy: FeatureKeys.self, forKey: JSONOutput.MemberKey(feature.id))
            try object.encode(feature.enabled, forKey: .enabled)
            try object.encode(feature.until, forKey: .until)
            try object.encode(feature.sources, forKey: .sources)
        }
        var balances = container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .balances)
        for balance in self.balances { try balances.encode(balance.balance, forKey: JSONOutput.MemberKey(balance.currency)) }
        var products = container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .products)
        for product in self.products {
            var object = products.nestedContainer(keyedBy: ProductKeys.self, forKey: JSONOutput.MemberKey(product.id))
            try object.encode(product.type, forKey: .type)
            try object.encode(product.state, forKey: .state)
            try object.encode(product.until, forKey: .until)
            try object.encodeIfPresent(product.startsAt, forKey: .startsAt)
            try object.encodeIfPresent(product.willRenew, forKey: .willRenew)
            try object.encodeIfPresent(product.renewsTo, forKey: .renewsTo)
        }
        var offers = container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .offers)
        for offer in self.offers {
            var object = offers.nestedContainer(keyedBy: OfferKeys.self, forKey: JSONOutput.MemberKey(offer.productId))
            try object.encode(offer.eligible, forKey: .eligible)
            try object.encodeIfPresent(offer.reason, forKey: .reason)
            try object.encodeIfPresent(offer.introOfferEligible, forKey: .introOfferEligible)
            try object.encodeIfPresent(offer.legal, forKey: .legal)
            try object.encodeIfPresent(offer.change, forKey: .change)
            try object.encodeIfPresent(offer.effective, forKey: .effective)
        }
        try container.encode(reevaluateAt, forKey: .reevaluateAt)
        try container.encode(warnings, forKey: .warnings)
    }

    /// Reads a result back from its JSON form.
    ///
    /// The result answers every question from the JSON (``isEnabled(_:)``, ``features``,
    /// ``offers`` ...); its ``catalog`` holds only the ids and types the JSON shows. JSON objects
    /// keep no order once decoded, so a decoded result lists features, balances, products and
    /// offers by id rather than in catalog order.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let app = try container.decode(String.self, forKey: .app)
        let at = try container.decode(Instant.self, forKey: .at)
        var views = DecodedViews()
        let features = try container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .features)
        for key in features.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            let object = try features.nestedContainer(keyedBy: FeatureKeys.self, forKey: key)
            views.features.append(FeatureStatus(
                id: key.stringValue, enabled: try object.decode(Bool.self, forKey: .enabled),
                until: try object.decodeIfPresent(Instant.self, forKey: .until),
                sources: try object.decode([String].self, forKey: .sources)))
        }
        let balances = try container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .balances)
        for key in balances.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            views.balances.append(CurrencyBalance(currency: key.stringValue, balance: try balances.decode(Int64.self, forKey: key)))
        }
        let products = try container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .products)
        var types: [String: ProductType] = [:]
        for key in products.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            let object = try products.nestedContainer(keyedBy: ProductKeys.self, forKey: key)
            let type = try object.decode(ProductType.self, forKey: .type)
            types[key.stringValue] = type
            views.products.append(ProductStatus(
                id: key.stringValue, type: type, state: try object.decode(ProductState.self, forKey: .state),
                until: try object.decodeIfPresent(Instant.self, forKey: .until),
                startsAt: try object.decodeIfPresent(Instant.self, forKey: .startsAt),
                willRenew: try object.decodeIfPresent(Bool.self, forKey: .willRenew),
                renewsTo: try object.decodeIfPresent(String.self, forKey: .renewsTo)))
        }
        let offers = try container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .offers)
        for key in offers.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            let object = try offers.nestedContainer(keyedBy: OfferKeys.self, forKey: key)
            views.offers.append(Offer(
                productId: key.stringValue, eligible: try object.decode(Bool.self, forKey: .eligible),
                reason: try object.decodeIfPresent(OfferReason.self, forKey: .reason),
                introOfferEligible: try object.decodeIfPresent(Bool.self, forKey: .introOfferEligible),
                legal: try object.decodeIfPresent(String.self, forKey: .legal),
                change: try object.decodeIfPresent(SubscriptionChange.self, forKey: .change),
                effective: try object.decodeIfPresent(ChangeTiming.self, forKey: .effective)))
            // Every product but consumables is listed among products with its type.
            if types[key.stringValue] == nil { types[key.stringValue] = .consumable }
        }
        let catalog = CompiledCatalog(decodedApp: app, features: views.features.map(\.id), currencies: views.balances.map(\.currency),
                                      offers: views.offers, types: types)
        self.init(decoded: views, catalog: catalog, at: at,
                  reevaluateAt: try container.decodeIfPresent(Instant.self, forKey: .reevaluateAt),
                  warnings: try container.decode([EvaluationWarning].self, forKey: .warnings))
    }
}

/// The views a decoded result answers from.
struct DecodedViews: Sendable {
    var features: [FeatureStatus] = []
    var balances: [CurrencyBalance] = []
    var products: [ProductStatus] = []
    var offers: [Offer] = []

    func feature(_ id: String) -> FeatureStatus? { features.first { $0.id == id } }
}

extension CompiledCatalog {
    /// The catalog of a result read back from JSON: the ids it shows, no rules.
    convenience init(decodedApp app: String, features: [String], currencies: [String], offers: [Offer], types: [String: ProductType]) {
        let products = offers.map { offer in
            CompiledProduct(
                id: offer.productId, name: offer.productId, type: types[offer.productId] ?? .nonConsumable, role: .standard,
                available: offer.reason != .retired, familyShareable: false, legal: offer.legal, grants: [],
                durationMonths: 0, durationDays: 0, durationMilliseconds: 0, group: -1, introOffer: nil, credits: [], upgrades: [])
        }
        let details = products.map { product in
            CatalogProduct(id: product.id, name: product.name, type: product.type, grants: [], priceTier: nil, group: nil,
                           level: nil, duration: nil, introOffer: nil, offers: [], legal: product.legal, available: product.available,
                           familyShareable: false, trialOf: nil, trialDays: nil, upgrade: nil, credits: [])
        }
        self.init(app: app, source: "<decoded>", featureIds: features, featureDescriptions: features.map { _ in "" },
                  currencyIds: currencies, currencyDescriptions: currencies.map { _ in "" }, products: products,
                  details: details, groups: [])
    }
}

extension Instant: Codable {
    /// Decodes an RFC 3339 string within years 0001-9999.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let instant = Instant(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: Instant.rfc3339Problem(text) ?? "`\(text)` is not an RFC 3339 instant")
        }
        self = instant
    }

    /// Encodes the RFC 3339 UTC form, with milliseconds only when they are not zero.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }
}

extension EvaluationWarning: Codable {
    private enum Keys: String, CodingKey { case code, message }

    /// Encodes `{"code", "message"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
    }

    /// Decodes `{"code", "message"}` as a ``Kind/reported(code:message:)`` warning.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(kind: .reported(code: try container.decode(String.self, forKey: .code),
                                  message: try container.decode(String.self, forKey: .message)))
    }
}

extension ProductState: Codable {}
extension OfferReason: Codable {}

/// Results compare by their answer, so a result read back from JSON equals the one written.
extension Entitlements: Equatable {
    /// Whether two results answer the same: app, instant, `reevaluateAt`, features, balances,
    /// products, offers and warnings (what their JSON holds, lists compared by id whatever their
    /// order; the catalog objects are not compared).
    public static func == (a: Entitlements, b: Entitlements) -> Bool {
        a.app == b.app && a.at == b.at && a.reevaluateAt == b.reevaluateAt && a.warnings == b.warnings
            && a.features.sorted { $0.id < $1.id } == b.features.sorted { $0.id < $1.id }
            && a.balances.sorted { $0.currency < $1.currency } == b.balances.sorted { $0.currency < $1.currency }
            && a.products.sorted { $0.id < $1.id } == b.products.sorted { $0.id < $1.id }
            && a.offers.sorted { $0.productId < $1.productId } == b.offers.sorted { $0.productId < $1.productId }
    }
}
