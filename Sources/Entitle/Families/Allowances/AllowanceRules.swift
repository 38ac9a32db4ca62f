/// When a deposit's unspent credits end (an allowance's `expires`).
///
/// Closed: a deposit ends at the next one, never, or after a duration; the access that earned it
/// ends it in every case.
public enum AllowanceExpiry: Hashable, Sendable, CustomStringConvertible {
    /// At the allowance's next deposit (use it or lose it).
    case next
    /// Never, while the access that earned it lasts.
    case never
    /// This long after the deposit.
    case after(ISODuration)

    /// As a catalog writes it: `next`, `never` or the duration.
    public var description: String {
        switch self {
        case .next: "next"
        case .never: "never"
        case .after(let duration): duration.description
        }
    }

    /// How long credits may last, for comparing two expiries: `next`, then durations by their
    /// longest length, then `never`.
    var reach: Int64 {
        switch self {
        case .next: 0
        case .after(let duration): ISODuration.longestMilliseconds(of: duration)
        case .never: .max
        }
    }
}

/// An allowance as a catalog's products and users read it (``CatalogProduct/allowances``,
/// ``CompiledCatalog/freeAllowances``).
public struct CatalogAllowance: Hashable, Sendable, Codable {
    /// The currency it deposits.
    public let currency: String
    /// Credits per deposit (times the earning transaction's quantity).
    public let amount: Int64
    /// How often it deposits; `nil`: once per transaction (or, for a trial, at its start).
    public let every: ISODuration?
    /// When a deposit's unspent credits end.
    public let expires: AllowanceExpiry
    /// The most unspent credits carried into the next deposit.
    public let rollover: Int64
    /// What a transaction bought with an introductory offer deposits instead; `nil`: `amount`.
    public let introOffer: Int64?

    private enum CodingKeys: String, CodingKey { case currency, amount, every, expires, rollover, introOffer }

    init(currency: String, amount: Int64, every: ISODuration?, expires: AllowanceExpiry, rollover: Int64, introOffer: Int64?) {
        self.currency = currency
        self.amount = amount
        self.every = every
        self.expires = expires
        self.rollover = rollover
        self.introOffer = introOffer
    }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        currency = try container.decode(String.self, forKey: .currency)
        amount = try container.decode(Int64.self, forKey: .amount)
        every = try container.decodeIfPresent(String.self, forKey: .every).flatMap(ISODuration.init)
        let expiry = try container.decodeIfPresent(String.self, forKey: .expires) ?? "next"
        switch expiry {
        case "next": expires = .next
        case "never": expires = .never
        default:
            guard let duration = ISODuration(expiry) else {
                throw DecodingError.dataCorruptedError(forKey: .expires, in: container, debugDescription: "not an expiry: \(expiry)")
            }
            expires = .after(duration)
        }
        rollover = try container.decodeIfPresent(Int64.self, forKey: .rollover) ?? 0
        introOffer = try container.decodeIfPresent(Int64.self, forKey: .introOffer)
    }

    /// Encodes it as a catalog writes it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(currency, forKey: .currency)
        try container.encode(amount, forKey: .amount)
        try container.encodeIfPresent(every?.description, forKey: .every)
        try container.encode(expires.description, forKey: .expires)
        if rollover > 0 { try container.encode(rollover, forKey: .rollover) }
        try container.encodeIfPresent(introOffer, forKey: .introOffer)
    }

    /// One line: `500 credits every P1M, expires next, rollover 200`.
    var summary: String {
        var text = "\(amount) \(currency)" + (every.map { " every \($0)" } ?? " per purchase") + ", expires \(expires)"
        if rollover > 0 { text += ", rollover \(rollover)" }
        if let introOffer { text += ", intro offer \(introOffer)" }
        return text
    }
}

/// The allowances family's compiled part: per product (by compiled index) its allowances and the
/// currencies it makes unlimited, and the catalog's free allowances.
struct AllowanceRules: Sendable {
    /// The most allowances one product or one catalog may have.
    static let maxPerObject = 16
    /// The largest amount one deposit puts in (times the transaction's quantity).
    static let maxAmount: Int64 = 1_000_000_000
    /// `rollover` is at most this many times `amount`.
    static let maxRolloverFactor: Int64 = 100
    /// The shortest `every` and `expires`: an hour.
    static let shortestEvery: Int64 = 3_600_000
    /// A deposit that ends after a duration lasts at most this many periods of its allowance, so
    /// an instant holds at most this many of its deposits.
    static let maxAlive: Int64 = 1_000
    /// The source a free allowance's deposits name.
    static let freeSource = "free"
    /// A free allowance's periods.
    static let calendarPeriods = ["P1D", "P1W", "P1M", "P1Y"]

    /// One compiled allowance.
    struct Allowance: Sendable {
        var currency: Int32
        var amount: Int64
        var introAmount: Int64?
        var every: ISODuration?
        var expires: AllowanceExpiry
        var rollover: Int64
    }

    /// Per product: its allowances; empty when none has any.
    var products: [[Allowance]] = []
    /// Per product: the currencies it makes unlimited while it covers; empty when none does.
    var unlimited: [[Int32]] = []
    /// The catalog's free allowances.
    var free: [Allowance] = []

    /// Whether the catalog has no allowance and no unlimited currency: balances are today's sums.
    var isEmpty: Bool { products.isEmpty && unlimited.isEmpty && free.isEmpty }

    init() {}

    init(
        products definitions: [(allowances: [AllowanceDefinition], unlimited: [Located<String>])], free: [AllowanceDefinition],
        currencies: [String: Int32]
    ) {
        func compile(_ definition: AllowanceDefinition) -> Allowance? {
            guard !definition.broken, let id = definition.currency?.value, let currency = currencies[id], let amount = definition.amount
            else { return nil }
            return Allowance(
                currency: currency, amount: amount.value, introAmount: definition.introOffer?.value, every: definition.every?.value,
                expires: definition.expires, rollover: definition.rollover?.value ?? 0)
        }
        let allowances = definitions.map { $0.allowances.compactMap(compile) }
        if allowances.contains(where: { !$0.isEmpty }) { products = allowances }
        let unlimited = definitions.map { $0.unlimited.compactMap { currencies[$0.value] } }
        if unlimited.contains(where: { !$0.isEmpty }) { self.unlimited = unlimited }
        self.free = free.compactMap(compile)
    }

    /// Product `product`'s allowances.
    func allowances(of product: Int) -> [Allowance] { products.indices.contains(product) ? products[product] : [] }
    /// The currencies product `product` makes unlimited.
    func unlimitedCurrencies(of product: Int) -> [Int32] { unlimited.indices.contains(product) ? unlimited[product] : [] }
    /// Whether evaluation notes product `product`'s coverage for the ledger.
    func tracks(_ product: Int) -> Bool { !allowances(of: product).isEmpty || !unlimitedCurrencies(of: product).isEmpty }
}

extension CompiledCatalog {
    /// The catalog's free allowances: credits every customer gets each calendar period.
    public var freeAllowances: [CatalogAllowance] { allowanceRules.free.map { catalogAllowance($0) } }

    func catalogAllowance(_ allowance: AllowanceRules.Allowance) -> CatalogAllowance {
        CatalogAllowance(
            currency: currencyIds[Int(allowance.currency)], amount: allowance.amount, every: allowance.every, expires: allowance.expires,
            rollover: allowance.rollover, introOffer: allowance.introAmount)
    }
}
