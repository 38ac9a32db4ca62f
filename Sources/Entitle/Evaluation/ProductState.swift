/// Where a product stands for a customer at an instant.
@nonexhaustive
public enum ProductState: String, Hashable, Sendable, CaseIterable {
    /// Its coverage includes the instant.
    case active
    /// Billing is being retried and the App Store extends access until the grace period ends.
    case gracePeriod = "grace-period"
    /// An auto-renewable whose coverage has ended while Apple retries a failed payment (no grace
    /// period covers the instant): it grants nothing; the app can ask the customer to fix payment.
    case billingRetry = "billing-retry"
    /// An auto-renewable the customer paused (Google Play's pause): no access until it resumes
    /// at its renewal entry's `pausedUntil`.
    case paused
    /// A pass bought but queued behind another pass of its group: every purchase of it starts
    /// after the instant (see ``ProductStatus/startsAt``).
    case scheduled
    /// Bought but not paid yet (Play's `PENDING`, Stripe's `incomplete`): it grants nothing, and
    /// is offered as if it were not bought.
    case pending
    /// Pre-ordered and not released yet (Play's `preorderReleaseTime`, a transaction's
    /// `releaseDate`): it grants nothing until the release (see ``ProductStatus/startsAt``), and is
    /// not offered again (`owned`).
    case preordered
    /// It was bought, but its coverage has ended (a lapsed subscription, a trial past its days).
    case expired
    /// Its latest transaction was refunded or revoked.
    case revoked
    /// No transaction for it is known at the instant.
    case notPurchased = "not-purchased"

    /// Whether the product covers its features at the instant: `active` or in its grace period.
    public var covers: Bool { self == .active || self == .gracePeriod }

    /// Whether an auto-renewable in this state keeps the customer subscribed in its group:
    /// covering, in billing retry or paused (the store still counts the subscription).
    public var keepsSubscription: Bool { covers || self == .billingRetry || self == .paused }
}

/// Why a product may not be offered for sale.
@nonexhaustive
public enum OfferReason: String, Hashable, Sendable, CaseIterable {
    /// The customer rescinded consent for the app (Apple's `RESCIND_CONSENT`): nothing is offered.
    case consentRescinded = "consent-rescinded"
    /// The product lists the storefronts it is sold in, and the customer's storefront is not one
    /// of them (or the evaluation names none).
    case notInStorefront = "not-in-storefront"
    /// An auto-renewable subscription whose features a subscription of the customer's in another
    /// store grants already (active, in grace, in billing retry or paused): do not sell what they
    /// pay for elsewhere. A subscription that covers or is paused itself has its own reason instead;
    /// one in billing retry here while paid elsewhere is this one, not `billing-issue`.
    case subscribedElsewhere = "subscribed-elsewhere"
    /// The product is no longer sold (`available: false`).
    case retired
    /// The customer already has it, its upgrade or replaced twin, or (for a trial) the paid product;
    /// or pre-ordered it.
    case owned
    /// The trial was bought before; a trial is offered once.
    case trialUsed = "trial-used"
    /// The customer is subscribed to this auto-renewable subscription (or in its grace period), or
    /// holds this Play prepaid plan before the instant it may be topped up.
    case subscribed
    /// A product of its subscription group is in billing retry: the App Store still counts the
    /// customer as subscribed; send them to fix their payment method.
    case billingIssue = "billing-issue"
    /// Upgrade pricing whose required purchase in another app is not in any given receipt.
    case prerequisiteMissing = "prerequisite-missing"
    /// A full-price product for which the customer qualifies for upgrade pricing instead.
    case upgradeAvailable = "upgrade-available"
}

/// How a subscription offer relates to the customer's current subscription of the same group, for
/// groups with levels (1 the highest service).
///
/// Closed: a level is higher, lower or the same; there is no fourth relation.
public enum SubscriptionChange: String, Hashable, Sendable, CaseIterable, Codable {
    /// To a higher level (a smaller number).
    case upgrade
    /// To a lower level.
    case downgrade
    /// To another product of the same level.
    case crossgrade
}

/// When a subscription change takes effect.
@nonexhaustive
public enum ChangeTiming: String, Hashable, Sendable, CaseIterable, Codable {
    /// At once (upgrades, and crossgrades between products of one duration).
    case immediately
    /// At the current subscription's next renewal (downgrades, other crossgrades).
    case nextRenewal = "next-renewal"
}
