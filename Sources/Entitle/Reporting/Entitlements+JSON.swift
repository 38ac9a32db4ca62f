import Foundation

/// A result as JSON, written in one place: `entitle check --format json`, ``Entitlements/json``,
/// `Encodable` and each line of `check --customers` all come from ``write(to:parts:compact:)`` (as
/// a tree, or straight into a line's bytes), and `Decodable` reads it back.
///
/// `{"app", "at", "features", "balances", "products", "offers", "reevaluateAt", "warnings"}`:
/// every declared feature and currency and every product (consumables have no state) in catalog
/// order, instants in RFC 3339 UTC.
extension Entitlements: Codable {
    /// The result as one JSON object, the form `entitle check --format json` prints.
    public var json: String { jsonOutput.rendered() + "\n" }

    package var jsonOutput: JSONOutput { jsonOutput(parts: .all) }

    /// The result as JSON with only one store's offers (`check --store`): what that store's
    /// paywall reads; `nil` gives every offer, as ``json``.
    public func json(offersOf store: Store?) -> String {
        var builder = JSONOutput.Builder()
        builder.beginObject()
        writeMembers(to: &builder, offersOf: store)
        builder.endObject()
        return builder.value.rendered() + "\n"
    }

    /// The parts of a result its JSON may carry (`check --customers --fields`); `app`, `at` and
    /// `reevaluateAt` are always there.
    package struct JSONParts: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        package static let features = JSONParts(rawValue: 1)
        package static let balances = JSONParts(rawValue: 2)
        package static let products = JSONParts(rawValue: 4)
        package static let offers = JSONParts(rawValue: 8)
        package static let warnings = JSONParts(rawValue: 16)
        package static let all: JSONParts = [.features, .balances, .products, .offers, .warnings]
    }

    /// The result as JSON with only `parts`, in their usual order; `compact` leaves out the prose
    /// (offers' legal text, warnings' messages: their codes stay). A part left out is not
    /// computed.
    package func jsonOutput(parts: JSONParts, compact: Bool = false) -> JSONOutput {
        var builder = JSONOutput.Builder()
        write(to: &builder, parts: parts, compact: compact)
        return builder.value
    }

    /// Writes the result's JSON object: the one description of it.
    package func write<Writer: JSONWriter>(to writer: inout Writer, parts: JSONParts = .all, compact: Bool = false) {
        writer.beginObject()
        writeMembers(to: &writer, parts: parts, compact: compact)
        writer.endObject()
    }

    /// Writes the members of the result's JSON object into an object already open (a batch line
    /// puts `customer` first).
    package func writeMembers<Writer: JSONWriter>(
        to writer: inout Writer, parts: JSONParts = .all, compact: Bool = false, offersOf store: Store? = nil
    ) {
        writer.key("app")
        writer.string(app)
        writer.key("at")
        writer.instant(at)
        if parts.contains(.features) {
            writer.object("features", of: features, id: \.id) { $1.write(to: &$0) }
        }
        if parts.contains(.balances) {
            writer.object("balances", of: balances, id: \.currency) { $0.integer($1.balance) }
        }
        if parts.contains(.products) {
            writer.object("products", of: products, id: \.id) { $1.write(to: &$0) }
        }
        if parts.contains(.offers) {
            writer.object("offers", of: store.map(offers(in:)) ?? offers, id: \.productId) { $1.write(to: &$0, legal: !compact) }
        }
        writer.key("reevaluateAt")
        writer.instant(reevaluateAt)
        if parts.contains(.warnings) {
            writer.key("warnings")
            writer.beginArray()
            for warning in warnings {
                writer.beginObject()
                writer.key("code")
                writer.string(warning.code)
                if !compact {
                    writer.key("message")
                    writer.string(warning.message)
                }
                writer.endObject()
            }
            writer.endArray()
        }
    }

    /// Encodes the result as `entitle check --format json` prints it.
    public func encode(to encoder: any Encoder) throws { try jsonOutput.encode(to: encoder) }

    private enum Keys: String, CodingKey { case app, at, features, balances, products, offers, reevaluateAt, warnings }

    /// Reads a result back from its JSON form.
    ///
    /// The result answers every question from the JSON (``isEnabled(_:)``, ``features``,
    /// ``offers`` ...) and has no ``catalog``. JSON objects keep no order once decoded, so a
    /// decoded result lists features, balances, products and offers by id rather than in catalog
    /// order.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        var views = DecodedViews()
        let features = try container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .features)
        for key in features.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            views.features.append(try FeatureStatus(id: key.stringValue, from: features.superDecoder(forKey: key)))
        }
        let balances = try container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .balances)
        for key in balances.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            views.balances.append(CurrencyBalance(currency: key.stringValue, balance: try balances.decode(Int64.self, forKey: key)))
        }
        let products = try container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .products)
        for key in products.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            views.products.append(try ProductStatus(id: key.stringValue, from: products.superDecoder(forKey: key)))
        }
        let offers = try container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: .offers)
        for key in offers.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            views.offers.append(try Offer(productId: key.stringValue, from: offers.superDecoder(forKey: key)))
        }
        self.init(
            decoded: views, app: try container.decode(String.self, forKey: .app), at: try container.decode(Instant.self, forKey: .at),
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

// Each view writes the members it has in the result's JSON (its id is the member's name), and
// reads them back.

extension FeatureStatus {
    /// `{"enabled", "until", "sources"}`.
    func write<Writer: JSONWriter>(to writer: inout Writer) {
        writer.beginObject()
        writer.key("enabled")
        writer.bool(enabled)
        writer.key("until")
        writer.instant(until)
        writer.key("sources")
        writer.strings(sources)
        writer.endObject()
    }

    private enum Keys: String, CodingKey { case enabled, until, sources }

    init(id: String, from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Keys.self)
        self.init(
            id: id, enabled: try object.decode(Bool.self, forKey: .enabled), until: try object.decodeIfPresent(Instant.self, forKey: .until),
            sources: try object.decode([String].self, forKey: .sources))
    }
}

extension ProductStatus {
    /// `{"store", "type", "state", "until", "startsAt"?, "resumesAt"?, "willRenew"?, "renewsTo"?,
    /// "commitment"?, "manage"?}`.
    func write<Writer: JSONWriter>(to writer: inout Writer) {
        writer.beginObject()
        writer.key("store")
        writer.string(store.rawValue)
        writer.key("type")
        writer.string(type.rawValue)
        writer.key("state")
        writer.string(state.rawValue)
        writer.key("until")
        writer.instant(until)
        if let startsAt {
            writer.key("startsAt")
            writer.instant(startsAt)
        }
        if let resumesAt {
            writer.key("resumesAt")
            writer.instant(resumesAt)
        }
        if let willRenew {
            writer.key("willRenew")
            writer.bool(willRenew)
        }
        if let renewsTo {
            writer.key("renewsTo")
            writer.string(renewsTo)
        }
        if let commitment {
            writer.key("commitment")
            writer.beginObject()
            writer.key("period")
            writer.integer(Int64(commitment.period))
            writer.key("periods")
            writer.integer(Int64(commitment.periods))
            writer.key("endsAt")
            writer.instant(commitment.endsAt)
            writer.endObject()
        }
        if let manage {
            writer.key("manage")
            writer.string(manage)
        }
        writer.endObject()
    }

    private enum Keys: String, CodingKey { case store, type, state, until, startsAt, resumesAt, willRenew, renewsTo, commitment, manage }

    init(id: String, from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Keys.self)
        self.init(
            id: id, type: try object.decode(ProductType.self, forKey: .type), state: try object.decode(ProductState.self, forKey: .state),
            until: try object.decodeIfPresent(Instant.self, forKey: .until), startsAt: try object.decodeIfPresent(Instant.self, forKey: .startsAt),
            willRenew: try object.decodeIfPresent(Bool.self, forKey: .willRenew),
            renewsTo: try object.decodeIfPresent(String.self, forKey: .renewsTo),
            commitment: try object.decodeIfPresent(Transaction.Commitment.self, forKey: .commitment),
            store: try object.decodeIfPresent(Store.self, forKey: .store) ?? .appStore,
            manage: try object.decodeIfPresent(String.self, forKey: .manage),
            resumesAt: try object.decodeIfPresent(Instant.self, forKey: .resumesAt))
    }
}

extension Offer {
    /// `{"store", "eligible", "reason"?, "introOfferEligible"?, "legal"?, "change"?, "effective"?,
    /// "promotions"?, "adds", "extends"}`; without `legal` unless `legal` is `true`.
    func write<Writer: JSONWriter>(to writer: inout Writer, legal withLegal: Bool = true) {
        writer.beginObject()
        writer.key("store")
        writer.string(store.rawValue)
        writer.key("eligible")
        writer.bool(eligible)
        if let reason {
            writer.key("reason")
            writer.string(reason.rawValue)
        }
        if let introOfferEligible {
            writer.key("introOfferEligible")
            writer.bool(introOfferEligible)
        }
        if withLegal, let legal {
            writer.key("legal")
            writer.string(legal)
        }
        if let change {
            writer.key("change")
            writer.string(change.rawValue)
        }
        if let effective {
            writer.key("effective")
            writer.string(effective.rawValue)
        }
        if let promotions {
            writer.key("promotions")
            writer.beginArray()
            for promotion in promotions {
                writer.beginObject()
                writer.key("id")
                writer.string(promotion.id)
                writer.key("type")
                writer.string(promotion.type.rawValue)
                writer.key("eligible")
                writer.bool(promotion.eligible)
                writer.key("reason")
                writer.string(promotion.reason.rawValue)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.key("adds")
        writer.strings(adds)
        writer.key("extends")
        writer.strings(extends)
        writer.endObject()
    }

    private enum Keys: String, CodingKey { case store, eligible, reason, introOfferEligible, legal, change, effective, promotions, adds, extends }

    init(productId: String, from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Keys.self)
        self.init(
            productId: productId, eligible: try object.decode(Bool.self, forKey: .eligible),
            reason: try object.decodeIfPresent(OfferReason.self, forKey: .reason),
            introOfferEligible: try object.decodeIfPresent(Bool.self, forKey: .introOfferEligible),
            legal: try object.decodeIfPresent(String.self, forKey: .legal),
            change: try object.decodeIfPresent(SubscriptionChange.self, forKey: .change),
            effective: try object.decodeIfPresent(ChangeTiming.self, forKey: .effective),
            promotions: try object.decodeIfPresent([Promotion].self, forKey: .promotions),
            adds: try object.decodeIfPresent([String].self, forKey: .adds) ?? [],
            extends: try object.decodeIfPresent([String].self, forKey: .extends) ?? [],
            store: try object.decodeIfPresent(Store.self, forKey: .store) ?? .appStore)
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
        self.init(
            kind: .reported(
                code: try container.decode(String.self, forKey: .code),
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
