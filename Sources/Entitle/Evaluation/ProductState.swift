/// Where a product stands for a customer at an instant.
public enum ProductState: String, Hashable, Sendable, CaseIterable {
    /// Its coverage includes the instant.
    case active
    /// Billing is being retried and the App Store extends access until the grace period ends.
    case gracePeriod = "grace-period"
    /// It was bought, but its coverage has ended (a lapsed subscription, a trial past its days).
    case expired
    /// Its latest transaction was refunded or revoked.
    case revoked
    /// No transaction for it is known at the instant.
    case notPurchased = "not-purchased"
}

/// Why a product may not be offered for sale.
public enum OfferReason: String, Hashable, Sendable, CaseIterable {
    /// The product is no longer sold (`available: false`).
    case retired
    /// The customer already has it, its upgrade or replaced twin, or (for a trial) the paid product.
    case owned
    /// The trial was bought before; a trial is offered once.
    case trialUsed = "trial-used"
    /// The customer is subscribed to this auto-renewable subscription (or in its grace period).
    case subscribed
    /// Upgrade pricing whose required purchase in another app is not in any given receipt.
    case prerequisiteMissing = "prerequisite-missing"
    /// A full-price product for which the customer qualifies for upgrade pricing instead.
    case upgradeAvailable = "upgrade-available"
}
