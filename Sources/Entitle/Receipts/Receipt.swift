/// One app's normalized receipt: its transactions, pending renewal information and the
/// consumptions a backend recorded against its consumable balances.
public struct Receipt: Hashable, Sendable {
    /// The bundle id of the app the receipt belongs to.
    public var app: String
    /// Purchases, renewals and restores; copies of one transaction count once.
    public var transactions: [Transaction]
    /// What the App Store says about each subscription chain's next renewal.
    public var renewals: [Renewal]
    /// Credits a backend recorded as spent, deduplicated by id.
    public var consumptions: [Consumption]
    /// Where the data came from: `production`, `sandbox`, `xcode` or `local-testing` (or Apple's raw
    /// value when it is none of these); `nil` when unknown.
    public var environment: String?
    /// The app version the customer first bought or downloaded, when the source says.
    public var originalApplicationVersion: String?
    /// When the customer first got the app, when the source says; grandfather rules read it.
    public var originalPurchaseDate: Instant?
    /// Access the service granted itself: support compensation, press, beta testers.
    public var grants: [Grant]
    /// The store the receipt's purchases were made in (the App Store unless it says): its
    /// transactions and renewal entries name that store's products.
    public var store: Store
    /// The id of the customer's download of the app (Apple's app transaction `appTransactionId`),
    /// when the source says.
    public var appTransactionId: String?
    /// The platform the customer first got the app on (the app transaction's `originalPlatform`);
    /// grandfather rules may read it.
    public var originalPlatform: AppPlatform?
    /// When the customer pre-ordered the app (the app transaction's `preorderDate`), when they did.
    public var preorderDate: Instant?
    /// When the customer rescinded their consent for the app (Apple's `RESCIND_CONSENT`
    /// notification, at its `signedDate`): from then on the app turns no feature on and offers
    /// nothing, though the purchases still exist.
    public var consentRescinded: Instant?
    /// Refunds and voids a store reports apart from the purchases they take back (Google Play's
    /// voided purchases, Stripe's Refunds and refunded Charges): evaluation applies each to the
    /// customer's purchase it names, in whichever of the customer's receipts that purchase is.
    public var revocations: [Revocation]

    /// Creates a receipt.
    public init(
        app: String, transactions: [Transaction] = [], renewals: [Renewal] = [], consumptions: [Consumption] = [],
        environment: String? = nil, originalApplicationVersion: String? = nil, originalPurchaseDate: Instant? = nil,
        grants: [Grant] = [], store: Store = .appStore, appTransactionId: String? = nil, originalPlatform: AppPlatform? = nil,
        preorderDate: Instant? = nil, consentRescinded: Instant? = nil, revocations: [Revocation] = []
    ) {
        self.revocations = revocations
        self.appTransactionId = appTransactionId
        self.originalPlatform = originalPlatform
        self.preorderDate = preorderDate
        self.consentRescinded = consentRescinded
        self.store = store
        self.app = app
        self.transactions = transactions
        self.renewals = renewals
        self.consumptions = consumptions
        self.environment = environment
        self.originalApplicationVersion = originalApplicationVersion
        self.originalPurchaseDate = originalPurchaseDate
        self.grants = grants
    }
}

/// One purchase, renewal or restore of a product.
public struct Transaction: Hashable, Sendable {
    /// Whether the customer bought it or it is shared with them through Family Sharing.
    @nonexhaustive
    public enum Ownership: String, Hashable, Sendable, CaseIterable {
        /// Bought by the customer.
        case purchased
        /// Shared with the customer by a family member.
        case familyShared = "family-shared"
    }

    /// The App Store product id.
    public var productId: String
    /// Unique per purchase; copies of one purchase in several receipts share it.
    public var transactionId: String
    /// The first transaction of a subscription chain or restore; `nil` when the source has none.
    public var originalTransactionId: String?
    /// When it was bought, renewed or restored.
    public var purchaseDate: Instant
    /// When the original purchase of a restore or renewal chain was made.
    public var originalPurchaseDate: Instant?
    /// The end of the period an auto-renewable subscription transaction pays for.
    public var expiresDate: Instant?
    /// When Apple refunded or revoked the transaction.
    public var cancellationDate: Instant?
    /// How many units were bought (consumables, passes), 1 to 1,000.
    public var quantity: Int
    /// Bought in an auto-renewable subscription's free trial.
    public var isTrialPeriod: Bool
    /// Bought at an introductory price.
    public var isIntroOfferPeriod: Bool
    /// The customer upgraded to another subscription in the group; this transaction grants nothing.
    public var isUpgraded: Bool
    /// Whether the customer bought it or it is shared through Family Sharing.
    public var ownership: Ownership
    /// The kind of offer the purchase used, when Apple says (carried along; evaluation reads the
    /// intro flags).
    public var offerType: OfferType?
    /// The promotional offer, offer code or win-back offer the purchase used.
    public var offerId: String?
    /// Why Apple refunded or revoked it, when it says.
    public var revocationReason: RevocationReason?
    /// When this snapshot of the transaction was signed (Apple's `signedDate`; for a verifyReceipt
    /// response, when Apple answered; for an app receipt, its creation date). Copies of one
    /// transaction are snapshots: at an instant, the latest signed at or before it holds.
    public var signedDate: Instant?
    /// What kind of revocation `cancellationDate` is.
    public var revocationType: RevocationType?
    /// For a refund of part of a purchase: how much, from 0 to 100 with at most three decimals
    /// (Apple's `revocationPercentage` in thousandths, divided by 1,000: `33.333`). A consumable
    /// refunds that share of its units, rounded; the others keep their credits.
    public var revocationPercentage: Double?
    /// The customer's account in the app, a UUID (Apple's `appAccountToken`).
    public var appAccountToken: String?
    /// How the subscription is billed (Apple's `billingPlanType`).
    public var billingPlan: BillingPlan?
    /// Bought but not paid yet (Play's `PENDING`, Stripe's `incomplete`): it grants nothing and
    /// counts for nothing; its product is `pending`.
    public var pending: Bool
    /// For a Play purchase: whether the app acknowledged it (`nil`: yes). Google refunds a purchase
    /// not acknowledged within three days: an unacknowledged one grants until then.
    public var acknowledged: Bool?
    /// The service's account id as another store carries it (Play's `obfuscatedExternalAccountId`,
    /// Stripe's `client_reference_id`), 1 to 256 characters; App Store receipts say
    /// `appAccountToken` instead.
    public var account: String?
    /// The storefront of the purchase, ISO 3166-1 alpha-3 (`USA`), as Apple writes it.
    public var storefront: String?
    /// For a subscription billed monthly with a commitment: which period this is, of how many,
    /// and when the commitment ends (Apple's `commitmentInfo`).
    public var commitment: Commitment?
    /// The id of the customer's download of the app the purchase was made in (Apple's
    /// `appTransactionId`), carried along.
    public var appTransactionId: String?
    /// How long the offer the purchase used lasts (Apple's `offerPeriod`): a subscription's
    /// `offerEndsAt` is the purchase of the chain's first transaction with that offer plus it.
    public var offerPeriod: ISODuration?
    /// How the offer the purchase used is priced (Apple's `offerDiscountType`), carried along.
    public var offerDiscountType: OfferDiscountType?
    /// The SKUs of an Advanced Commerce purchase (Apple's `advancedCommerceInfo.items`): for a
    /// product that declares `items`, what the purchase grants.
    public var items: [Item]
    /// For a Play subscription that replaced another (an upgrade, a downgrade, a resubscription):
    /// the purchase token of the subscription it replaces (Play's `linkedPurchaseToken`). The
    /// replaced chain ends, at the latest, when this purchase starts, and no longer renews,
    /// wherever the two purchases are read (one file, several, any order).
    public var linkedPurchaseToken: String?
    /// For a Play one-time product bought through a purchase option (Play Billing 8's
    /// `purchaseOptionId`, a rental or a buy option): the catalog product
    /// `<productId>:<purchaseOptionId>` when the catalog declares one, else `productId`.
    public var purchaseOptionId: String?
    /// For a pre-order: when the product is released (Play's `preorderReleaseTime`). It grants from
    /// then; before it the product is `preordered` (bought, not yet had) and not offered again.
    public var releaseDate: Instant?
    /// For a Play prepaid plan: the instant after which it may be topped up (Play's
    /// `prepaidPlan.allowExtendAfterTime`). While it covers and this is later, its product's offer
    /// is `subscribed`; after it, `eligible` (a top-up stacks, as passes do).
    public var topUpAfter: Instant?

    /// Creates a transaction.
    public init(
        productId: String, transactionId: String, originalTransactionId: String? = nil,
        purchaseDate: Instant, originalPurchaseDate: Instant? = nil, expiresDate: Instant? = nil,
        cancellationDate: Instant? = nil, quantity: Int = 1, isTrialPeriod: Bool = false,
        isIntroOfferPeriod: Bool = false, isUpgraded: Bool = false, ownership: Ownership = .purchased,
        offerType: OfferType? = nil, offerId: String? = nil, revocationReason: RevocationReason? = nil,
        signedDate: Instant? = nil, revocationType: RevocationType? = nil, revocationPercentage: Double? = nil,
        appAccountToken: String? = nil, billingPlan: BillingPlan? = nil, commitment: Commitment? = nil,
        pending: Bool = false, acknowledged: Bool? = nil, account: String? = nil, storefront: String? = nil,
        appTransactionId: String? = nil, offerPeriod: ISODuration? = nil, offerDiscountType: OfferDiscountType? = nil,
        items: [Item] = [], linkedPurchaseToken: String? = nil, purchaseOptionId: String? = nil, releaseDate: Instant? = nil,
        topUpAfter: Instant? = nil
    ) {
        self.items = items
        self.purchaseOptionId = purchaseOptionId
        self.releaseDate = releaseDate
        self.topUpAfter = topUpAfter
        self.linkedPurchaseToken = linkedPurchaseToken
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.offerDiscountType = offerDiscountType
        self.pending = pending
        self.acknowledged = acknowledged
        self.account = account
        self.storefront = storefront
        self.signedDate = signedDate
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.appAccountToken = appAccountToken
        self.billingPlan = billingPlan
        self.commitment = commitment
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.quantity = quantity
        self.isTrialPeriod = isTrialPeriod
        self.isIntroOfferPeriod = isIntroOfferPeriod
        self.isUpgraded = isUpgraded
        self.ownership = ownership
        self.offerType = offerType
        self.offerId = offerId
        self.revocationReason = revocationReason
    }

    /// The kinds of offer Apple reports (`offerType` 1 to 4).
    @nonexhaustive
    public enum OfferType: String, Hashable, Sendable, CaseIterable {
        /// An introductory offer (free trial or reduced price for new subscribers).
        case introductory
        /// A promotional offer the app presented.
        case promotional
        /// An offer code the customer redeemed.
        case offerCode = "offer-code"
        /// A win-back offer for a lapsed subscriber.
        case winBack = "win-back"
    }

    /// How an offer is priced (Apple's `offerDiscountType`).
    @nonexhaustive
    public enum OfferDiscountType: String, Hashable, Sendable, CaseIterable {
        /// Free for its period (`FREE_TRIAL`).
        case freeTrial = "free-trial"
        /// A reduced price each period (`PAY_AS_YOU_GO`).
        case payAsYouGo = "pay-as-you-go"
        /// One reduced price for the whole offer period (`PAY_UP_FRONT`).
        case payUpFront = "pay-up-front"
        /// A discount on a one-time purchase (`ONE_TIME`).
        case oneTime = "one-time"
    }

    /// Why Apple refunded a transaction (`revocationReason` 0 and 1).
    @nonexhaustive
    public enum RevocationReason: String, Hashable, Sendable, CaseIterable {
        /// Refunded for another reason, such as an accidental purchase.
        case other
        /// Refunded because of an actual or perceived issue in the app.
        case appIssue = "app-issue"
    }

    /// What kind of revocation a cancellation is (Apple's `revocationType`).
    @nonexhaustive
    public enum RevocationType: String, Hashable, Sendable, CaseIterable {
        /// The whole purchase was refunded (`REFUND_FULL`).
        case refundFull = "refund-full"
        /// Part of it was refunded, as `revocationPercentage` says (`REFUND_PRORATED`).
        case refundProrated = "refund-prorated"
        /// The family member who shared it stopped sharing (`FAMILY_REVOKE`).
        case familyRevoke = "family-revoke"
    }

    /// How a subscription is billed (Apple's `billingPlanType`).
    @nonexhaustive
    public enum BillingPlan: String, Hashable, Sendable, CaseIterable {
        /// Billed each month for a commitment of several months (`MONTHLY`).
        case monthly
        /// The whole period paid at once (`BILLED_UPFRONT`).
        case billedUpfront = "billed-upfront"
    }

    /// A monthly billing commitment: this transaction's period among the commitment's, and its end.
    public struct Commitment: Hashable, Sendable, Codable {
        /// Which billing period this transaction pays for, from 1 (Apple's `billingPeriodNumber`).
        public var period: Int
        /// How many periods the commitment has (Apple's `totalBillingPeriods`).
        public var periods: Int
        /// When the commitment ends (Apple's `commitmentExpiresDate`).
        public var endsAt: Instant

        /// Creates a commitment.
        public init(period: Int, periods: Int, endsAt: Instant) {
            self.period = period
            self.periods = periods
            self.endsAt = endsAt
        }
    }
}

/// What the App Store says will happen to an auto-renewable subscription chain next.
public struct Renewal: Hashable, Sendable {
    /// The product the chain is on, when the source says.
    public var productId: String?
    /// The chain this information is about.
    public var originalTransactionId: String
    /// Whether the subscription is set to renew; `nil` when unknown.
    public var willRenew: Bool?
    /// Whether Apple is retrying a failed payment; `nil` when unknown.
    public var isInBillingRetry: Bool?
    /// While billing is retried, access continues until this instant.
    public var gracePeriodExpiresDate: Instant?
    /// When Apple took this snapshot; the entry counts from then on (always, when absent).
    public var signedDate: Instant?
    /// The product the subscription renews to when it is not `productId`: a scheduled downgrade
    /// or crossgrade.
    public var renewsTo: String?
    /// Why the subscription expired or will expire, when Apple says.
    public var expirationIntent: ExpirationIntent?
    /// The win-back offers Apple says the customer may redeem now (Apple's
    /// `eligibleWinBackOfferIds`); `nil` when the entry does not say. When the group's latest
    /// counted entry says, a catalog's win-back offer is eligible exactly when listed.
    public var winBackOffers: [String]?
    /// The customer's account in the app, a UUID (Apple's `appAccountToken`).
    public var appAccountToken: String?
    /// Until when the subscription is paused (Play's `autoResumeTime`): no access, and it renews then.
    public var pausedUntil: Instant?
    /// The service's account id as another store carries it (see ``Transaction/account``).
    public var account: String?
    /// The id of the customer's download of the app (Apple's `appTransactionId`), carried along.
    public var appTransactionId: String?
    /// What the next renewal costs (Apple's `renewalPrice`, from milliunits: `9.99`); with
    /// ``currency``, the product's `renewalPrice` in the answer.
    public var renewalPrice: String?
    /// The currency of ``renewalPrice``, ISO 4217 (`EUR`); one goes with the other.
    public var currency: String?
    /// The SKUs the next renewal of an Advanced Commerce subscription bills (Apple's
    /// `advancedCommerceInfo.items`, each with its SKU and price), carried along.
    public var items: [Transaction.Item]

    /// Why a subscription expired (Apple's `expirationIntent` 1 to 5).
    @nonexhaustive
    public enum ExpirationIntent: String, Hashable, Sendable, CaseIterable {
        /// The customer canceled it.
        case voluntary
        /// Billing failed.
        case billingError = "billing-error"
        /// The customer did not consent to a price increase.
        case priceIncrease = "price-increase"
        /// The product was not available at renewal.
        case productUnavailable = "product-unavailable"
        /// Any other reason.
        case other
    }

    /// Creates a renewal entry.
    public init(
        productId: String? = nil, originalTransactionId: String, willRenew: Bool? = nil,
        isInBillingRetry: Bool? = nil, gracePeriodExpiresDate: Instant? = nil, signedDate: Instant? = nil,
        renewsTo: String? = nil, expirationIntent: ExpirationIntent? = nil, winBackOffers: [String]? = nil,
        appAccountToken: String? = nil,
        pausedUntil: Instant? = nil, account: String? = nil, appTransactionId: String? = nil, renewalPrice: String? = nil,
        currency: String? = nil, items: [Transaction.Item] = []
    ) {
        self.items = items
        self.appTransactionId = appTransactionId
        self.renewalPrice = renewalPrice
        self.currency = currency
        self.pausedUntil = pausedUntil
        self.account = account
        self.winBackOffers = winBackOffers
        self.appAccountToken = appAccountToken
        self.signedDate = signedDate
        self.renewsTo = renewsTo
        self.expirationIntent = expirationIntent
        self.productId = productId
        self.originalTransactionId = originalTransactionId
        self.willRenew = willRenew
        self.isInBillingRetry = isInBillingRetry
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
    }
}

/// Credits spent from a currency balance, as recorded by the app's backend.
///
/// `Codable` as in a normalized receipt: `{"id", "currency", "amount", "date"}`, the date an RFC
/// 3339 string, so a service can keep its ledger as JSON.
public struct Consumption: Hashable, Sendable, Codable {
    /// Unique per consumption; the same id seen twice counts once.
    public var id: String
    /// The currency spent.
    public var currency: String
    /// How much was spent, at least 1.
    public var amount: Int64
    /// When it was spent; it counts at that instant and after.
    public var date: Instant

    /// Creates a consumption.
    public init(id: String, currency: String, amount: Int64, date: Instant) {
        self.id = id
        self.currency = currency
        self.amount = amount
        self.date = date
    }
}

/// Access a service granted a customer itself, outside the App Store (support compensation, press,
/// beta testers), recorded by the service and passed in a receipt.
public struct Grant: Hashable, Sendable {
    /// Unique per grant; the same id in several receipts counts once.
    public var id: String
    /// The ids of the features it turns on.
    public var features: [String]
    /// When it starts; it counts from then on.
    public var start: Instant
    /// When it ends (exclusive); `nil` for no end.
    public var end: Instant?
    /// When it was taken back; from then on it counts no more.
    public var revokedAt: Instant?

    /// Creates a grant.
    public init(id: String, features: [String], start: Instant, end: Instant? = nil, revokedAt: Instant? = nil) {
        self.id = id
        self.features = features
        self.start = start
        self.end = end
        self.revokedAt = revokedAt
    }
}
