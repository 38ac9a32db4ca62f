/// Why a customer has what they have at an instant: for each feature every source that can grant
/// it, for each product every transaction and renewal entry with whether it counted and why, and
/// for each offer the rule that decided it with the fact behind it.
///
/// Built by `CompiledCatalog.explain(_:at:)` or
/// `Portfolio.explain(app:receipts:at:)` (over ``Receipt`` or
/// ``ParsedReceipt`` values alike), which evaluate again: evaluation itself pays nothing for explanations. The answers in it are
/// the evaluation's own (the same states, `until`s and reasons as ``Entitlements``); the
/// explanation adds the facts behind them.
public struct Explanation: Hashable, Sendable, Codable {
    /// The app explained.
    public var app: String
    /// The instant explained.
    public var at: Instant
    /// Every declared feature, in catalog order.
    public var features: [FeatureExplanation]
    /// Every product but consumables, in catalog order.
    public var products: [ProductExplanation]
    /// Every product's offer, in catalog order.
    public var offers: [OfferExplanation]
    /// Every declared currency, in catalog order: its balance and the consumables crediting it.
    public var balances: [BalanceExplanation]
    /// Receipts the evaluation ignored, by their position among the receipts given, and why.
    public var ignoredReceipts: [IgnoredReceipt]
    /// When the customer rescinded consent for the app, if at or before the instant: why every
    /// feature is off and nothing is offered, whatever the sources say.
    public var consentRescinded: Instant? = nil
    /// Every declared number limit, in catalog order: its value and the products that give it
    /// one; `nil` for a catalog that declares none.
    public var limits: [LimitExplanation]? = nil

    /// One feature's explanation, or `nil` for a feature the catalog does not declare.
    public func feature(_ id: String) -> FeatureExplanation? { features.first { $0.id == id } }
    /// One product's explanation, or `nil` for a consumable or a product the catalog does not define.
    public func product(_ id: String) -> ProductExplanation? { products.first { $0.id == id } }
    /// One offer's explanation, or `nil` for a product the catalog does not define.
    public func offer(_ productId: String) -> OfferExplanation? { offers.first { $0.productId == productId } }
    /// One currency's explanation, or `nil` for a currency the catalog does not declare.
    public func balance(_ currency: String) -> BalanceExplanation? { balances.first { $0.currency == currency } }
    /// The explanation of the offer of a product, labelled as ``Entitlements/offer(for:)``.
    public func offer(for productId: String) -> OfferExplanation? { offer(productId) }
}

/// A currency's balance, and the consumable products that credit it with each of their
/// transactions: counted (with the units that still credit after a partial refund), or why not.
public struct BalanceExplanation: Hashable, Sendable, Codable {
    /// The currency id.
    public var currency: String
    /// The balance at the instant, as ``Entitlements/balance(of:)`` gives it.
    public var balance: Int64
    /// Each consumable that credits the currency, in catalog order.
    public var sources: [CreditSource]
    /// The consumptions that count at the instant (the first copy of each id, dated by then), in
    /// the order of the receipts.
    public var spent: [Spending]

    /// A consumption that counts.
    public struct Spending: Hashable, Sendable, Codable {
        /// Its id.
        public var id: String
        /// The receipt it was read from, by position among the receipts given.
        public var receipt: Int
        /// When it was spent.
        public var date: Instant
        /// How much.
        public var amount: Int64
    }

    /// A consumable product crediting a currency, or one Advanced Commerce SKU of it.
    public struct CreditSource: Hashable, Sendable, Codable {
        /// The product id.
        public var productId: String
        /// The SKU, for an Advanced Commerce product, which credits through its SKUs; `nil` else.
        public var sku: String?
        /// How it is named: the product id, `<productId>/<SKU>` for a SKU (as feature sources are).
        public var name: String { sku.map { productId + "/" + $0 } ?? productId }
        /// What one unit credits.
        public var perUnit: Int64
        /// Its transactions, in purchase order, each with its copies.
        public var transactions: [TransactionExplanation]
    }
}

/// A receipt the evaluation did not read, and why.
public struct IgnoredReceipt: Hashable, Sendable, Codable {
    /// Its position among the receipts given, from 0.
    public var receipt: Int
    /// The app it is for.
    public var app: String
    /// Why it was ignored.
    public var reason: String
}

/// Whether a feature is on, and every source that can grant it.
public struct FeatureExplanation: Hashable, Sendable, Codable {
    /// The feature id.
    public var id: String
    /// Whether it is on at the instant.
    public var enabled: Bool
    /// The end of its unbroken coverage; `nil` when off or when it never ends.
    public var until: Instant?
    /// The source that decides: when on, the covering source that lasts longest; when off, the
    /// source that covered last (or `nil` when none ever did).
    public var decidedBy: String?
    /// Every product, grandfather rule and grant that can grant the feature: the catalog's
    /// products and rules granting it, and the receipts' grants naming it.
    public var sources: [SourceExplanation]
}

/// One source of a feature at the instant.
public struct SourceExplanation: Hashable, Sendable, Codable {
    /// What kind of source.
    @nonexhaustive
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A product of the catalog.
        case product
        /// A grandfather rule of the catalog.
        case grandfathered
        /// A grant recorded in a receipt.
        case grant
        /// An Advanced Commerce SKU of a product's transactions (`<productId>/<SKU>`).
        case item
    }

    /// What kind of source.
    public var kind: Kind
    /// Its name as in ``FeatureStatus/sources``: a product id, `grandfathered:<id>`, `grant:<id>`,
    /// `<productId>/<SKU>`.
    public var id: String
    /// Whether it covers the feature at the instant.
    public var covers: Bool
    /// A product's state; for rules `matched` or `not-matched`; for grants `counted` or `not-counted`.
    public var state: String
    /// The end of its coverage when it covers; `nil` when it does not or never ends.
    public var until: Instant?
    /// When it last covered, for a source that covered before the instant and no longer does.
    public var ended: Instant?
    /// For a grandfather rule that matched or a grant that counted: the span it covers as the
    /// evaluation found it (from ``Instant/earliest`` for a rule matched by a receipt without
    /// `originalPurchaseDate`, which covers always). `nil` for products, whose spans are their
    /// ``ProductExplanation/coverage``.
    public var span: ExplainedSpan?
    /// Why, in one line.
    public var reason: String
}

/// A product's state and every fact behind it.
public struct ProductExplanation: Hashable, Sendable, Codable {
    /// The product id.
    public var id: String
    /// The product type.
    public var type: ProductType
    /// Its state at the instant, as ``ProductStatus/state``.
    public var state: ProductState
    /// The end of its covering span, when active or in grace.
    public var until: Instant?
    /// For a scheduled pass, when its coverage begins.
    public var startsAt: Instant?
    /// For an auto-renewable with a renewal entry: whether it will renew.
    public var willRenew: Bool?
    /// The product it renews to, when another.
    public var renewsTo: String?
    /// For a subscription billed monthly: its latest counted transaction's commitment.
    public var commitment: Transaction.Commitment?
    /// In billing retry: when its coverage ended, since when the App Store retries billing and
    /// the customer has no access from it.
    public var billingRetrySince: Instant?
    /// Why it has that state, in one line.
    public var reason: String
    /// Its coverage: the spans of its counted transactions and grace periods, merged, and what
    /// transactions cancelled since had covered until their cancellation (`refunded`), in order.
    public var coverage: [ExplainedSpan]
    /// Every transaction of the app's receipts for this product, in purchase order.
    public var transactions: [TransactionExplanation]
    /// Every renewal entry attached to this product's chains.
    public var renewals: [RenewalExplanation]
}

/// A half-open span of coverage, `[start, end)`.
public struct ExplainedSpan: Hashable, Sendable, Codable {
    /// Where it begins.
    public var start: Instant
    /// Where it ends; `nil` when it never ends.
    public var end: Instant?
    /// Whether it is a grace period (access while Apple retries billing).
    public var grace: Bool
    /// Whether a refund or revocation since took it back: coverage the customer had until the
    /// cancellation, which grants nothing any more (history, not access).
    public var refunded: Bool

    /// A span of coverage.
    ///
    /// - Parameters:
    ///   - start: where it begins.
    ///   - end: where it ends; `nil` when it never ends.
    ///   - grace: whether it is a grace period.
    ///   - refunded: whether a cancellation since took it back.
    public init(start: Instant, end: Instant?, grace: Bool, refunded: Bool = false) {
        self.start = start
        self.end = end
        self.grace = grace
        self.refunded = refunded
    }

    private enum CodingKeys: String, CodingKey { case start, end, grace, refunded }

    /// Reads a span; `refunded` is `false` when left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        start = try container.decode(Instant.self, forKey: .start)
        end = try container.decodeIfPresent(Instant.self, forKey: .end)
        grace = try container.decode(Bool.self, forKey: .grace)
        refunded = try container.decodeIfPresent(Bool.self, forKey: .refunded) ?? false
    }

    /// Writes a span; `refunded` only when true, so coverage that stands reads as it always did.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encodeIfPresent(end, forKey: .end)
        try container.encode(grace, forKey: .grace)
        if refunded { try container.encode(true, forKey: .refunded) }
    }
}

/// One transaction: whether it counted at the instant, and why not, and what it covers.
public struct TransactionExplanation: Hashable, Sendable, Codable {
    /// Why a transaction does not count.
    @nonexhaustive
    public enum Exclusion: String, Hashable, Sendable, Codable, CaseIterable {
        /// Purchased after the instant: not known yet.
        case purchasedLater = "purchased-later"
        /// Cancelled (refunded or revoked) at or before the instant.
        case cancelled
        /// Marked `isUpgraded`: replaced by a purchase in a higher subscription.
        case upgraded
        /// Family-shared, and the product is not `familyShareable`.
        case notFamilyShareable = "not-family-shareable"
        /// A copy of a transaction signed at the same instant as the one that stands for it: merged.
        case duplicate
        /// An earlier snapshot of a transaction, which a later one replaces.
        case superseded
        /// A snapshot of a transaction signed after the instant: not known yet.
        case signedLater = "signed-later"
        /// It names another account than the one evaluated.
        case otherAccount = "other-account"
        /// An auto-renewable transaction without an `expiresDate`.
        case noExpiry = "no-expiry"
        /// Bought but not paid yet (`pending`).
        case pending
        /// A pre-order whose product is not released yet (`preordered`).
        case preordered
    }

    /// The transaction id.
    public var transactionId: String
    /// The receipt it is in: its position among the receipts given, from 0.
    public var receipt: Int
    /// When it was bought.
    public var purchaseDate: Instant
    /// When it expires (auto-renewables).
    public var expiresDate: Instant?
    /// When it was cancelled, the earliest among its copies.
    public var cancellationDate: Instant?
    /// When this copy of the transaction was signed (a snapshot), when it says.
    public var signedDate: Instant?
    /// Whether it counts at the instant.
    public var counted: Bool
    /// Why it does not count.
    public var exclusion: Exclusion?
    /// What it covers, when it counts and covers anything.
    public var covers: ExplainedSpan?
    /// For a consumable's transaction that counts: the units that credit (its quantity less the
    /// units refunded).
    public var units: Int64?
    /// Why, in one line.
    public var reason: String
}

/// One renewal entry: whether it counted, and what it says.
public struct RenewalExplanation: Hashable, Sendable, Codable {
    /// The chain it is about.
    public var originalTransactionId: String
    /// The receipt it is in: its position among the receipts given, from 0.
    public var receipt: Int
    /// When the App Store took the snapshot.
    public var signedDate: Instant?
    /// Whether it counts at the instant (signed at or before it, with a counted transaction of its chain).
    public var counted: Bool
    /// The grace period it gives, when it counts and gives one.
    public var grace: ExplainedSpan?
    /// What it says, or why it does not count, in one line.
    public var reason: String
}

/// Whether a product may be offered, and the fact behind the rule that decided it.
public struct OfferExplanation: Hashable, Sendable, Codable {
    /// The product id.
    public var productId: String
    /// Whether it may be offered.
    public var eligible: Bool
    /// The rule that says not to offer it.
    public var reason: OfferReason?
    /// For auto-renewables with an intro offer: whether the customer may still get it.
    public var introOfferEligible: Bool?
    /// For another product of a group with levels the customer subscribes to: the change.
    public var change: SubscriptionChange?
    /// When that change takes effect.
    public var effective: ChangeTiming?
    /// The fact behind the decision, in one line.
    public var because: String
    /// Its win-back and promotional offers, each with the fact that decides it.
    public var promotions: [PromotionExplanation]?
    /// The features buying it adds: those it grants that are off.
    public var adds: [String]
    /// The features buying it extends: those it grants that are on until earlier than it covers.
    public var extends: [String]
}

/// Whether a win-back or promotional offer may be offered, and the fact that decides it.
public struct PromotionExplanation: Hashable, Sendable, Codable {
    /// The offer's id.
    public var id: String
    /// Win-back or promotional.
    public var type: SubscriptionOfferType
    /// Whether the customer may redeem it now.
    public var eligible: Bool
    /// Why, as in ``Promotion/reason``.
    public var reason: PromotionReason
    /// The deciding fact with its figures: `paid 62 days in `sync`, needs 90`.
    public var because: String
}
