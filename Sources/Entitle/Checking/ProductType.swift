/// The four App Store in-app purchase types.
@nonexhaustive
public enum ProductType: String, CaseIterable, Hashable, Sendable {
    /// Bought once, kept forever (unless refunded); a price-tier-0 "N-day Trial" expires.
    case nonConsumable = "non-consumable"
    /// Bought for a fixed duration; purchases stack.
    case nonRenewingSubscription = "non-renewing-subscription"
    /// Renews each period until canceled; receipts carry each period's expiry.
    case autoRenewableSubscription = "auto-renewable-subscription"
    /// Bought any number of times; credits a currency balance that consumptions spend.
    case consumable = "consumable"

    /// Whether App Review requires subscription legal text for this type.
    public var isSubscription: Bool {
        self == .nonRenewingSubscription || self == .autoRenewableSubscription
    }

    /// "a non-consumable", "an auto-renewable subscription", for messages.
    var phrase: String {
        switch self {
        case .nonConsumable: "a non-consumable"
        case .nonRenewingSubscription: "a non-renewing subscription"
        case .autoRenewableSubscription: "an auto-renewable subscription"
        case .consumable: "a consumable"
        }
    }
}

/// How an auto-renewable subscription's introductory offer is paid.
@nonexhaustive
public enum IntroOfferMode: String, CaseIterable, Hashable, Sendable {
    /// Free for the offer's duration.
    case freeTrial = "free-trial"
    /// A reduced price each period of the offer.
    case payAsYouGo = "pay-as-you-go"
    /// A reduced price paid once for the offer's duration.
    case payUpFront = "pay-up-front"
}

/// Who may have an auto-renewable subscription's introductory offer, once per subscription group.
@nonexhaustive
public enum IntroOfferAudience: String, CaseIterable, Hashable, Sendable, Codable {
    /// Customers who never had a free trial or an introductory offer in the group (no transaction
    /// of it with `isTrialPeriod` or `isIntroOfferPeriod`), as Apple's receipt documentation
    /// reads: a lapsed customer who paid is eligible again. The default.
    case noIntroYet = "no-intro-yet"
    /// Customers who never bought in the group: any transaction of it uses the offer up, the
    /// stricter reading of Apple's staff ("only for new users that have never been subscribed").
    case newSubscribers = "new-subscribers"
}

/// The kinds of subscription offer a catalog declares beside the introductory offer.
@nonexhaustive
public enum SubscriptionOfferType: String, CaseIterable, Hashable, Sendable, Codable {
    /// For customers whose subscription in the group lapsed (Apple's win-back offers, `offerType` 4).
    case winBack = "win-back"
    /// An offer whose eligibility the developer decides (Apple's promotional offers, `offerType` 2).
    case promotional
}
