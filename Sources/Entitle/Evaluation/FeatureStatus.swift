/// Whether one feature is on, until when, and what turns it on.
public struct FeatureStatus: Hashable, Sendable, Codable {
    /// The feature id.
    public var id: String
    /// Whether the feature is on at the instant.
    public var enabled: Bool
    /// The end of the unbroken span of coverage containing the instant; `nil` when the feature is
    /// off or some source never ends.
    public var until: Instant?
    /// What covers the instant, sorted: product keys (ids, with their store outside the App Store:
    /// `stripe:prod_Pro`), `grandfathered:<rule id>` and `grant:<grant id>`.
    public var sources: [String]
}

/// One product's state at the instant.
public struct ProductStatus: Hashable, Sendable, Codable {
    /// The product's key: its id, with its store outside the App Store (`stripe:prod_Pro`).
    public var id: String
    /// Where the product is sold.
    public var store: Store
    /// For an auto-renewable the customer bought: where they manage it (the App Store's or Play's
    /// subscription page, the catalog's `stores` URL for Stripe and other checkouts).
    public var manage: String?
    /// The product's type.
    public var type: ProductType
    /// Where the product stands at the instant.
    public var state: ProductState
    /// The end of this product's unbroken coverage containing the instant; `nil` when it never
    /// ends or does not cover the instant.
    public var until: Instant?
    /// For a ``ProductState/scheduled`` pass: when its first queued purchase starts; for a
    /// ``ProductState/preordered`` product: when it is released.
    public var startsAt: Instant?
    /// For a ``ProductState/paused`` subscription: when it resumes (its renewal entry's `pausedUntil`).
    public var resumesAt: Instant?
    /// For an auto-renewable: whether its chain's latest renewal entry says it will renew; `nil`
    /// when there is no entry.
    public var willRenew: Bool?
    /// For an auto-renewable: the product it will renew to, when that is another product (a
    /// scheduled downgrade or crossgrade).
    public var renewsTo: String?
    /// For a subscription billed monthly with a commitment: the commitment of its latest counted
    /// transaction. Access still follows each transaction's expiry.
    public var commitment: Transaction.Commitment?
    /// For an auto-renewable: what its next renewal costs, as its chain's latest renewal entry
    /// stating it says (Apple's `renewalPrice` and `currency`).
    public var renewalPrice: Price?
    /// For an auto-renewable whose latest counted transaction was bought with an offer that says
    /// its period (Apple's `offerPeriod`): when the offer ends, the purchase of the chain's first
    /// transaction with that offer plus the period.
    public var offerEndsAt: Instant?

    /// Creates a product status.
    public init(
        id: String, type: ProductType, state: ProductState, until: Instant? = nil, startsAt: Instant? = nil,
        willRenew: Bool? = nil, renewsTo: String? = nil, commitment: Transaction.Commitment? = nil, store: Store = .appStore,
        manage: String? = nil, resumesAt: Instant? = nil, renewalPrice: Price? = nil, offerEndsAt: Instant? = nil
    ) {
        self.renewalPrice = renewalPrice
        self.offerEndsAt = offerEndsAt
        self.resumesAt = resumesAt
        self.store = store
        self.manage = manage
        self.commitment = commitment
        self.id = id
        self.type = type
        self.state = state
        self.until = until
        self.startsAt = startsAt
        self.willRenew = willRenew
        self.renewsTo = renewsTo
    }
}

/// Whether a product may be offered for sale, and the legal text to show with it.
public struct Offer: Hashable, Sendable, Codable {
    /// The product's key: its id, with its store outside the App Store (`stripe:prod_Pro`).
    public var productId: String
    /// Where the product is sold: a paywall shows its store's offers (``Entitlements/offers(in:)``).
    public var store: Store
    /// Whether the product may be offered for sale to this customer.
    public var eligible: Bool
    /// Why not, when not eligible.
    public var reason: OfferReason?
    /// For auto-renewables with an introductory offer: whether the customer may still have it.
    public var introOfferEligible: Bool?
    /// The product's legal text or its type's default.
    public var legal: String?
    /// For an auto-renewable of a group with levels, while the customer has another product of the
    /// group: whether buying this one is an upgrade, a downgrade or a crossgrade.
    public var change: SubscriptionChange?
    /// When that change takes effect.
    public var effective: ChangeTiming?
    /// For an auto-renewable with win-back or promotional offers: whether each may be offered.
    public var promotions: [Promotion]?
    /// The features it grants that are off: what buying it adds.
    public var adds: [String]
    /// The features it grants that are on, but until earlier than buying it now would cover
    /// (forever for a non-consumable, N days for a trial, the stacked end for a pass, one period
    /// for a subscription): what buying it extends.
    public var extends: [String]

    /// Creates an offer.
    public init(
        productId: String, eligible: Bool, reason: OfferReason? = nil, introOfferEligible: Bool? = nil, legal: String? = nil,
        change: SubscriptionChange? = nil, effective: ChangeTiming? = nil, promotions: [Promotion]? = nil,
        adds: [String] = [], extends: [String] = [], store: Store = .appStore
    ) {
        self.store = store
        self.promotions = promotions
        self.adds = adds
        self.extends = extends
        self.productId = productId
        self.eligible = eligible
        self.reason = reason
        self.introOfferEligible = introOfferEligible
        self.legal = legal
        self.change = change
        self.effective = effective
    }
}

extension Offer {
    /// How text output says whether the intro offer may be had: `intro offer eligible`, `intro
    /// offer used`, or, for an offer kept from sale by billing retry in its group (which keeps the
    /// intro offer too, used or not), `no intro offer while billing is retried`.
    static func introPhrase(eligible: Bool, reason: OfferReason?) -> String {
        if eligible { return "intro offer eligible" }
        return reason == .billingIssue ? "no intro offer while billing is retried" : "intro offer used"
    }

    /// The offer with `extends` left empty, for comparing answers at two instants.
    var withoutExtends: Offer {
        var offer = self
        offer.extends = []
        return offer
    }
}

/// Whether a win-back or promotional offer of a subscription may be offered, and why.
public struct Promotion: Hashable, Sendable, Codable {
    /// The offer's id.
    public var id: String
    /// Win-back or promotional.
    public var type: SubscriptionOfferType
    /// Whether the customer may redeem it now.
    public var eligible: Bool
    /// Why (`eligible` when every condition holds), the first failing condition in the order of
    /// ``PromotionReason``.
    public var reason: PromotionReason

    /// Creates a promotion.
    public init(id: String, type: SubscriptionOfferType, eligible: Bool, reason: PromotionReason) {
        self.id = id
        self.type = type
        self.eligible = eligible
        self.reason = reason
    }
}

/// A currency's balance at the instant.
public struct CurrencyBalance: Hashable, Sendable, Codable {
    /// The currency id.
    public var currency: String
    /// Credits bought less consumed at the instant; negative when more was consumed.
    public var balance: Int64
    /// In a catalog with allowances or unlimited currencies: every deposit and purchase with
    /// credits left, in the order they will be spent; `nil` in any other catalog.
    public var deposits: [BalanceDeposit]? = nil
    /// The next deposit known (an allowance's or a free allowance's); `nil` when none is.
    public var nextDepositAt: Instant? = nil
    /// Whether a covering product makes the currency unlimited at the instant (consumptions are
    /// then not counted).
    public var unlimited = false

    /// A balance of `balance` credits, with no deposits known.
    public init(currency: String, balance: Int64) {
        self.currency = currency
        self.balance = balance
    }

    init(currency: String, balance: Int64, deposits: [BalanceDeposit]?, nextDepositAt: Instant?, unlimited: Bool) {
        self.currency = currency
        self.balance = balance
        self.deposits = deposits
        self.nextDepositAt = nextDepositAt
        self.unlimited = unlimited
    }

    private enum CodingKeys: String, CodingKey { case currency, balance, deposits, nextDepositAt, unlimited }

    /// Decodes what ``encode(to:)`` writes (`deposits`, `nextDepositAt` and `unlimited` may be absent).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        currency = try container.decode(String.self, forKey: .currency)
        balance = try container.decode(Int64.self, forKey: .balance)
        deposits = try container.decodeIfPresent([BalanceDeposit].self, forKey: .deposits)
        nextDepositAt = try container.decodeIfPresent(Instant.self, forKey: .nextDepositAt)
        unlimited = try container.decodeIfPresent(Bool.self, forKey: .unlimited) ?? false
    }

    /// Encodes the balance; deposits and the next deposit only when known, `unlimited` only when true.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(currency, forKey: .currency)
        try container.encode(balance, forKey: .balance)
        try container.encodeIfPresent(deposits, forKey: .deposits)
        try container.encodeIfPresent(nextDepositAt, forKey: .nextDepositAt)
        if unlimited { try container.encode(true, forKey: .unlimited) }
    }
}

/// A deposit or purchase with credits left in a balance (``CurrencyBalance/deposits``).
public struct BalanceDeposit: Hashable, Sendable, Codable {
    /// What made it: the product id (`<store>:<id>` for another store's), or `free` for a free
    /// allowance.
    public var source: String
    /// The transaction that earned it; `nil` for a free allowance.
    public var transaction: String?
    /// What it put in: an allowance's amount times the transaction's quantity (with ``count``
    /// deposits, all of them); for a purchase, its credits after a refund in part.
    public var amount: Int64
    /// What is left of it.
    public var remaining: Int64
    /// Credits rolled into it from the allowance's earlier deposits; `nil` when none.
    public var carried: Int64?
    /// When it was made (the first, with ``count`` deposits).
    public var at: Instant
    /// When its credits end; `nil` when no end is known.
    public var endsAt: Instant?
    /// How many deposits of one source it stands for: deposits that never end and came in
    /// between the same two consumptions are one entry.
    public var count: Int64 = 1
}
