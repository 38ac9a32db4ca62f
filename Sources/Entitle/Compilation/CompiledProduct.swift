/// A product in its evaluable form: references resolved to indices, durations to calendar parts.
///
/// A class: evaluation reads products by index many times per receipt, and a reference is one
/// retain to hold where a structure of arrays and strings was one per field.
final class CompiledProduct: Sendable {
    /// What a non-consumable is beyond a plain purchase.
    enum Role: Sendable {
        /// An ordinary product.
        case standard
        /// A free "N-day Trial" of the paid product at `paid`.
        case trial(days: Int, paid: Int)
        /// Upgrade pricing standing in for the full-price product at `replaces`.
        case upgrade(replaces: Int, requirement: UpgradeRequirement)
    }

    let id: String
    let name: String
    let type: ProductType
    let role: Role
    let available: Bool
    /// Whether family members' purchases count for it too.
    let sharesWithFamily: Bool
    /// The product's legal text, or its type's default.
    let legal: String?
    /// Indices of the features it grants.
    let grants: [Int]
    /// For non-renewing subscriptions: the duration as calendar months, days and milliseconds.
    let durationMonths: Int
    let durationDays: Int64
    let durationMilliseconds: Int64
    /// Subscription group index for auto-renewables, else -1.
    let group: Int
    /// The introductory offer's mode, if it has one.
    let introductoryOffer: IntroOfferMode?
    /// Who may have the introductory offer.
    let introAudience: IntroOfferAudience
    /// Where it is sold; ``id`` is its key (`stripe:prod_Pro`), ``storeId`` the store's id.
    let store: Store
    let storeId: String
    /// The storefronts (alpha-3) it may be offered in; `nil`: everywhere.
    let storefronts: [String]?
    /// A web subscription's grace period while payment is retried.
    let gracePeriod: ISODuration?
    /// Credits per unit: currency index and amount.
    let credits: [(currency: Int, amount: Int64)]
    /// Indices of upgrades that stand in for this product.
    let upgrades: [Int]
    /// Win-back and promotional offers.
    let offers: [SubscriptionOffer]
    /// An auto-renewable's level in its group (1 the highest service); `nil` without levels.
    let level: Int?
    /// A non-renewing subscription's pass group index, else -1.
    let passGroup: Int
    /// An auto-renewable's period, when the catalog gives one (for crossgrade timing).
    let period: ISODuration?
    /// For an Advanced Commerce product: what each SKU gives; `nil` for any other product.
    let items: [CompiledItem]?

    init(
        id: String, name: String, type: ProductType, role: Role, available: Bool, sharesWithFamily: Bool, legal: String?,
        grants: [Int], durationMonths: Int, durationDays: Int64, durationMilliseconds: Int64, group: Int,
        introductoryOffer: IntroOfferMode?, credits: [(currency: Int, amount: Int64)], upgrades: [Int],
        offers: [SubscriptionOffer] = [], level: Int? = nil, passGroup: Int = -1, period: ISODuration? = nil,
        introAudience: IntroOfferAudience = .noIntroYet, store: Store = .appStore, storeId: String? = nil,
        storefronts: [String]? = nil, gracePeriod: ISODuration? = nil, items: [CompiledItem]? = nil
    ) {
        self.items = items
        self.store = store
        self.storeId = storeId ?? id
        self.storefronts = storefronts
        self.gracePeriod = gracePeriod
        self.id = id
        self.name = name
        self.type = type
        self.role = role
        self.available = available
        self.sharesWithFamily = sharesWithFamily
        self.legal = legal
        self.grants = grants
        self.durationMonths = durationMonths
        self.durationDays = durationDays
        self.durationMilliseconds = durationMilliseconds
        self.group = group
        self.introductoryOffer = introductoryOffer
        self.introAudience = introAudience
        self.credits = credits
        self.upgrades = upgrades
        self.offers = offers
        self.level = level
        self.passGroup = passGroup
        self.period = period
    }

    var trialPaidProduct: Int? {
        if case .trial(_, let paid) = role { return paid }
        return nil
    }

    var replacedProduct: Int? {
        if case .upgrade(let replaces, _) = role { return replaces }
        return nil
    }
}

/// What one SKU of an Advanced Commerce product gives, compiled.
struct CompiledItem: Sendable {
    let sku: String
    /// Indices of the features it grants.
    let grants: [Int]
    /// Currency index and amount it credits.
    let credits: [(currency: Int, amount: Int64)]
}

/// What another app's receipt must show for an upgrade to be offered.
public struct UpgradeRequirement: Hashable, Sendable {
    /// The other app's bundle id.
    public let app: String
    /// Qualifying product ids in that app; `nil` when any receipt of the app qualifies.
    public let anyOf: Set<String>?
}

/// A compiled grandfather rule: features for customers whose receipt shows an early purchase.
struct GrandfatherRule: Sendable {
    let id: String
    /// Indices of the features it grants.
    let grants: [Int]
    let condition: GrandfatherCondition
    /// Its name among a feature's sources (``FeatureStatus/sources``): `grandfathered:<id>`.
    let source: String

    init(id: String, grants: [Int], condition: GrandfatherCondition) {
        self.id = id
        self.grants = grants
        self.condition = condition
        self.source = "grandfathered:" + id
    }
}
