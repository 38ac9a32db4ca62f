import Foundation

/// A result as JSON, written in one place: `entitle check --format json`, ``Entitlements/json``,
/// ``EntitlementsRecord``'s `Encodable` and each line of `check --customers` all come from
/// one writer (`writeValues`) (as a tree, or straight into a line's
/// bytes), and ``EntitlementsRecord`` reads it back.
///
/// `Entitlements` itself is not `Codable`: its views are worked out from the evaluation's own facts
/// and its catalog, which its JSON does not hold, so it could not decode as itself. A service that
/// stores results stores ``record`` (an ``EntitlementsRecord``), which encodes and decodes as one type.
///
/// `{"app", "at", "features", "balances", "limits"?, "products", "offers", "reevaluateAt",
/// "warnings"}`: every declared feature, currency and limit (`limits` only when the catalog
/// declares some) and every product (consumables have no state) in catalog order, instants in
/// RFC 3339 UTC.
extension Entitlements: ResultValues {
    /// Writes the members of the result's JSON object into an object already open (a batch line
    /// puts `customer` first).
    package func writeMembers<Writer: JSONWriter>(
        to writer: inout Writer, parts: JSONParts = .all, compact: Bool = false, offersOf store: Store? = nil
    ) {
        writeValues(to: &writer, parts: parts, compact: compact, offersOf: store)
    }

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
        package static let limits = JSONParts(rawValue: 32)
        package static let all: JSONParts = [.features, .balances, .limits, .products, .offers, .warnings]
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

    /// The result as plain values that encode and decode (`Codable`): what a service stores.
    public var record: EntitlementsRecord { EntitlementsRecord(self) }
}

/// What a result's JSON holds, whichever form holds it: an evaluated ``Entitlements`` or an
/// ``EntitlementsRecord`` read back. The members are written from these, once.
protocol ResultValues {
    var app: String { get }
    var at: Instant { get }
    var features: [FeatureStatus] { get }
    var balances: [CurrencyBalance] { get }
    var limits: [LimitStatus] { get }
    var products: [ProductStatus] { get }
    var offers: [Offer] { get }
    func offers(in store: Store) -> [Offer]
    var reevaluateAt: Instant? { get }
    var warnings: [EvaluationWarning] { get }
    var consentRescinded: Instant? { get }
}

extension ResultValues {
    /// Writes the members of the result's JSON object into an object already open (a batch line
    /// puts `customer` first).
    func writeValues<Writer: JSONWriter>(
        to writer: inout Writer, parts: Entitlements.JSONParts = .all, compact: Bool = false, offersOf store: Store? = nil
    ) {
        writer.member("app", app)
        writer.member("at", at)
        writer.member("consentRescinded", ifPresent: consentRescinded)
        if parts.contains(.features) {
            writer.object("features", of: features, id: \.id) { $1.write(to: &$0) }
        }
        if parts.contains(.balances) {
            // A number, as always; an object only in a catalog with allowances or unlimited currencies.
            writer.object("balances", of: balances, id: \.currency) { writer, balance in
                if balance.deposits == nil { writer.integer(balance.balance) } else { balance.write(to: &writer) }
            }
        }
        // Only a catalog that declares limits has them: every other answer stays as it was.
        if parts.contains(.limits), !limits.isEmpty {
            writer.object("limits", of: limits, id: \.id) { $1.write(to: &$0) }
        }
        if parts.contains(.products) {
            writer.object("products", of: products, id: \.id) { $1.write(to: &$0) }
        }
        if parts.contains(.offers) {
            writer.object("offers", of: store.map(offers(in:)) ?? offers, id: \.productId) { $1.write(to: &$0, legal: !compact) }
        }
        writer.member("reevaluateAt", reevaluateAt)
        if parts.contains(.warnings) {
            writer.array("warnings", of: warnings) { writer, warning in
                writer.beginObject()
                writer.member("code", warning.code)
                if !compact {
                    writer.member("message", warning.message)
                }
                writer.endObject()
            }
        }
    }
}

/// A result as plain values: what an ``Entitlements`` answers (features, balances, products,
/// offers, `reevaluateAt`, warnings), with no catalog and nothing left to work out. It is the
/// result's JSON read back (`Decodable`), and encodes to the same JSON; a service that stores
/// results reads them back as this. Its lists are by id, since JSON objects keep no order once
/// decoded.
public struct EntitlementsRecord: Equatable, Sendable, Codable, ResultValues {
    /// The app the result is for.
    public var app: String
    /// The instant the result holds at.
    public var at: Instant
    /// Every declared feature, by id.
    public var features: [FeatureStatus]
    /// Every declared currency's balance, by currency.
    public var balances: [CurrencyBalance]
    /// Every declared number limit, by id (empty for a catalog that declares none).
    public var limits: [LimitStatus] = []
    /// Every product with a state, by id.
    public var products: [ProductStatus]
    /// Every product's offer, by product id.
    public var offers: [Offer]
    /// When the answer changes next; `nil`: never.
    public var reevaluateAt: Instant?
    /// The result's warnings, in its order.
    public var warnings: [EvaluationWarning]
    /// When the customer rescinded consent for the app, if by ``at``.
    public var consentRescinded: Instant?

    /// The values of an evaluated result, its lists by id.
    public init(_ result: Entitlements) {
        app = result.app
        at = result.at
        consentRescinded = result.consentRescinded
        features = result.features.sorted { $0.id < $1.id }
        balances = result.balances.sorted { $0.currency < $1.currency }
        limits = result.limits.sorted { $0.id < $1.id }
        products = result.products.sorted { $0.id < $1.id }
        offers = result.offers.sorted { $0.productId < $1.productId }
        reevaluateAt = result.reevaluateAt
        warnings = result.warnings
    }

    /// Whether `feature` is on.
    public func isEnabled(_ feature: String) -> Bool { features.first { $0.id == feature }?.enabled ?? false }

    /// The offers of products sold in `store`.
    public func offers(in store: Store) -> [Offer] { offers.filter { $0.store == store } }

    /// Encodes the result as `entitle check --format json` prints it (lists by id).
    public func encode(to encoder: any Encoder) throws {
        var builder = JSONOutput.Builder()
        builder.beginObject()
        writeValues(to: &builder)
        builder.endObject()
        try builder.value.encode(to: encoder)
    }

    private enum Keys: String, CodingKey { case app, at, consentRescinded, features, balances, limits, products, offers, reevaluateAt, warnings }

    /// Reads a result back from its JSON form (`check --format json`, ``Entitlements/json``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        app = try container.decode(String.self, forKey: .app)
        at = try container.decode(Instant.self, forKey: .at)
        consentRescinded = try container.decodeIfPresent(Instant.self, forKey: .consentRescinded)
        func members<Value>(_ key: Keys, _ read: (KeyedDecodingContainer<JSONOutput.MemberKey>, JSONOutput.MemberKey) throws -> Value) throws
            -> [Value]
        {
            let object = try container.nestedContainer(keyedBy: JSONOutput.MemberKey.self, forKey: key)
            return try object.allKeys.sorted { $0.stringValue < $1.stringValue }.map { try read(object, $0) }
        }
        features = try members(.features) { try FeatureStatus(id: $1.stringValue, from: $0.superDecoder(forKey: $1)) }
        balances = try members(.balances) { object, key in
            if let balance = try? object.decode(Int64.self, forKey: key) { return CurrencyBalance(currency: key.stringValue, balance: balance) }
            return try CurrencyBalance(currency: key.stringValue, from: object.superDecoder(forKey: key))
        }
        limits =
            container.contains(.limits) ? try members(.limits) { try LimitStatus(id: $1.stringValue, from: $0.superDecoder(forKey: $1)) } : []
        products = try members(.products) { try ProductStatus(id: $1.stringValue, from: $0.superDecoder(forKey: $1)) }
        offers = try members(.offers) { try Offer(productId: $1.stringValue, from: $0.superDecoder(forKey: $1)) }
        reevaluateAt = try container.decodeIfPresent(Instant.self, forKey: .reevaluateAt)
        warnings = try container.decode([EvaluationWarning].self, forKey: .warnings)
    }
}

// Each view writes the members it has in the result's JSON (its id is the member's name), and
// reads them back.

extension FeatureStatus {
    /// `{"enabled", "until", "sources"}`.
    func write<Writer: JSONWriter>(to writer: inout Writer) {
        writer.beginObject()
        writer.member("enabled", enabled)
        writer.member("until", until)
        writer.member("sources", sources)
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

extension CurrencyBalance {
    /// `{"balance", "unlimited"?, "deposits", "nextDepositAt"?}`, each deposit `{"source",
    /// "transaction"?, "amount", "remaining", "carried"?, "at", "endsAt"?, "count"?}`.
    func write<Writer: JSONWriter>(to writer: inout Writer) {
        writer.beginObject()
        writer.member("balance", balance)
        if unlimited { writer.member("unlimited", true) }
        writer.array("deposits", of: deposits ?? []) { writer, deposit in
            writer.beginObject()
            writer.member("source", deposit.source)
            writer.member("transaction", ifPresent: deposit.transaction)
            writer.member("amount", deposit.amount)
            writer.member("remaining", deposit.remaining)
            if let carried = deposit.carried { writer.member("carried", carried) }
            writer.member("at", deposit.at)
            writer.member("endsAt", ifPresent: deposit.endsAt)
            if deposit.count > 1 { writer.member("count", deposit.count) }
            writer.endObject()
        }
        writer.member("nextDepositAt", ifPresent: nextDepositAt)
        writer.endObject()
    }

    private enum Keys: String, CodingKey { case balance, unlimited, deposits, nextDepositAt }

    init(currency: String, from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Keys.self)
        self.init(
            currency: currency, balance: try object.decode(Int64.self, forKey: .balance),
            deposits: try object.decode([BalanceDeposit].self, forKey: .deposits),
            nextDepositAt: try object.decodeIfPresent(Instant.self, forKey: .nextDepositAt),
            unlimited: try object.decodeIfPresent(Bool.self, forKey: .unlimited) ?? false)
    }
}

extension LimitStatus {
    /// `{"value", "sources", "until"}`: `value` a number or `"unlimited"`.
    func write<Writer: JSONWriter>(to writer: inout Writer) {
        writer.beginObject()
        writer.key("value")
        switch value {
        case .count(let count): writer.integer(count)
        case .unlimited: writer.string(LimitValue.unlimited.description)
        }
        writer.member("sources", sources)
        writer.member("until", until)
        writer.endObject()
    }

    private enum Keys: String, CodingKey { case value, sources, until }

    init(id: String, from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Keys.self)
        self.init(
            id: id, value: try object.decode(LimitValue.self, forKey: .value), sources: try object.decode([String].self, forKey: .sources),
            until: try object.decodeIfPresent(Instant.self, forKey: .until))
    }
}

extension ProductStatus {
    /// `{"store", "type", "state", "until", "startsAt"?, "resumesAt"?, "willRenew"?, "renewsTo"?,
    /// "renewalPrice"?, "offerEndsAt"?, "commitment"?, "manage"?}`.
    func write<Writer: JSONWriter>(to writer: inout Writer) {
        writer.beginObject()
        writer.member("store", store)
        writer.member("type", type)
        writer.member("state", state)
        writer.member("until", until)
        writer.member("startsAt", ifPresent: startsAt)
        writer.member("resumesAt", ifPresent: resumesAt)
        writer.member("willRenew", ifPresent: willRenew)
        writer.member("renewsTo", ifPresent: renewsTo)
        if let renewalPrice {
            writer.key("renewalPrice")
            writer.beginObject()
            writer.member("amount", renewalPrice.amount)
            writer.member("currency", renewalPrice.currency)
            writer.endObject()
        }
        writer.member("offerEndsAt", ifPresent: offerEndsAt)
        if let commitment {
            writer.key("commitment")
            writer.beginObject()
            writer.member("period", Int64(commitment.period))
            writer.member("periods", Int64(commitment.periods))
            writer.member("endsAt", commitment.endsAt)
            writer.endObject()
        }
        writer.member("manage", ifPresent: manage)
        writer.endObject()
    }

    private enum Keys: String, CodingKey {
        case store, type, state, until, startsAt, resumesAt, willRenew, renewsTo, renewalPrice, offerEndsAt, commitment, manage
    }

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
            resumesAt: try object.decodeIfPresent(Instant.self, forKey: .resumesAt),
            renewalPrice: try object.decodeIfPresent(Price.self, forKey: .renewalPrice),
            offerEndsAt: try object.decodeIfPresent(Instant.self, forKey: .offerEndsAt))
    }
}

extension Offer {
    /// `{"store", "eligible", "reason"?, "introOfferEligible"?, "legal"?, "change"?, "effective"?,
    /// "promotions"?, "adds", "extends"}`; without `legal` unless `legal` is `true`.
    func write<Writer: JSONWriter>(to writer: inout Writer, legal withLegal: Bool = true) {
        writer.beginObject()
        writer.member("store", store)
        writer.member("eligible", eligible)
        writer.member("reason", ifPresent: reason)
        writer.member("introOfferEligible", ifPresent: introOfferEligible)
        if withLegal, let legal {
            writer.member("legal", legal)
        }
        writer.member("change", ifPresent: change)
        writer.member("effective", ifPresent: effective)
        if let promotions {
            writer.array("promotions", of: promotions) { writer, promotion in
                writer.beginObject()
                writer.member("id", promotion.id)
                writer.member("type", promotion.type)
                writer.member("eligible", promotion.eligible)
                writer.member("reason", promotion.reason)
                writer.endObject()
            }
        }
        writer.member("adds", adds)
        writer.member("extends", extends)
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

/// Results compare by what they hold: two evaluations that answer the same are equal.
extension Entitlements: Equatable {
    /// Whether two results answer the same: app, instant, features, balances, products, offers and
    /// warnings (lists compared by id whatever their order; the catalog objects are not compared).
    ///
    /// ``reevaluateAt`` is not compared: it is a search over the receipts, run only when it is
    /// read, and comparing never runs it. Compare it, or ``record`` (which holds it), when it
    /// matters.
    public static func == (a: Entitlements, b: Entitlements) -> Bool {
        a.app == b.app && a.at == b.at && a.warnings == b.warnings
            && a.consentRescinded == b.consentRescinded
            && a.features.sorted { $0.id < $1.id } == b.features.sorted { $0.id < $1.id }
            && a.balances.sorted { $0.currency < $1.currency } == b.balances.sorted { $0.currency < $1.currency }
            && a.products.sorted { $0.id < $1.id } == b.products.sorted { $0.id < $1.id }
            && a.offers.sorted { $0.productId < $1.productId } == b.offers.sorted { $0.productId < $1.productId }
    }
}
