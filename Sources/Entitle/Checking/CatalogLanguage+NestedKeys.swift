/// The keys of the catalog language's nested objects (introductory offers, win-back and
/// promotional offers, stores, upgrades, grandfather rules, refund thresholds): declared as the
/// catalog's and products' keys are, in `CatalogLanguage.swift`, which lists every object's keys.
extension CatalogKey {
    // MARK: Nested objects

    /// How an introductory offer is paid.
    package static let mode = CatalogKey(
        "mode",
        place(.introductoryOffer, .choice(IntroOfferMode.allCases.map(\.rawValue), what: "offer mode"), "how the offer is paid", .required),
        place(.subscriptionOffer, .choice(IntroOfferMode.allCases.map(\.rawValue), what: "offer mode"), "how the offer is paid", .required))
    /// Who may have an introductory offer.
    package static let audience = CatalogKey(
        "for",
        place(
            .introductoryOffer, .choice(IntroOfferAudience.allCases.map(\.rawValue), what: "intro offer audience"),
            "who may have it: `no-intro-yet` (default: no trial or intro offer in the group before) or `new-subscribers` (never bought in the group)")
    )
    /// How many periods a pay-as-you-go offer lasts.
    package static let periods = CatalogKey(
        "periods",
        place(
            .subscriptionOffer, .integer(1...12, rule: "a whole number from 1 to 12"),
            "for `pay-as-you-go`: how many periods of `duration` the reduced price lasts"))
    /// When an offer starts to run.
    package static let from = CatalogKey(
        "from", place(.subscriptionOffer, .instant, "when the offer starts to run (App Store Connect's start date)"))
    /// When an offer stops running.
    package static let until = CatalogKey(
        "until", place(.subscriptionOffer, .instant, "when the offer stops running, exclusive (App Store Connect's end date)"))
    /// Whether the customer must be subscribed.
    package static let subscribed = CatalogKey(
        "subscribed",
        place(
            .subscriptionOffer, .flag(default: nil),
            "for a promotional offer: `true` for customers subscribed in the group now, `false` for those who are not"))
    /// How long the customer must have paid.
    package static let paidAtLeast = CatalogKey(
        "paidAtLeast",
        place(
            .subscriptionOffer, .duration,
            "time paid in the group, free trials aside, at least this (P1D 1 day, P1W 7, P1M 30, P1Y 365)"),
        place(.retentionRule, .duration, "time paid in the group, free trials aside, at least this, as promotional offers count it"))
    /// How long the customer may have paid, at most.
    package static let paidAtMost = CatalogKey(
        "paidAtMost",
        place(
            .subscriptionOffer, .duration,
            "for a promotional offer: time paid in the group, free trials aside, at most this (a customer who never paid has paid none)"))
    /// How long ago the last coverage must have ended, at least.
    package static let lapsedAtLeast = CatalogKey(
        "lapsedAtLeast", place(.subscriptionOffer, .duration, "time since the group's last coverage ended (grace included), at least this"))
    /// How long ago the last coverage may have ended, at most.
    package static let lapsedAtMost = CatalogKey(
        "lapsedAtMost", place(.subscriptionOffer, .duration, "time since the group's last coverage ended (grace included), at most this"))
    /// How long between two redemptions.
    package static let waitBetween = CatalogKey(
        "waitBetween",
        place(
            .subscriptionOffer, .duration,
            "no purchase with a win-back offer (win-back) or with this offer (promotional) in the group less than this before"),
        place(
            .retentionRule, .duration,
            "no purchase in the group with the rule's promotional offer (with any of the product's promotional offers, for a rule without one) less than this before"
        ))
    /// Stripe's settings.
    package static let stripe = CatalogKey("stripe", place(.stores, .object(.storeSettings), "settings for products sold through Stripe"))
    /// Another checkout's settings.
    package static let external = CatalogKey(
        "external", place(.stores, .object(.storeSettings), "settings for products sold through the service's own checkout"))
    /// Where a store's customers manage a subscription.
    package static let manage = CatalogKey(
        "manage", place(.storeSettings, .url, "where a customer of the store manages a subscription (the service's billing portal)", .required))
    /// The full-price product an upgrade stands in for.
    package static let replaces = CatalogKey(
        "replaces", place(.upgrade, .productReference, "the full-price non-consumable this stands in for", .required))
    /// What an upgrade requires.
    package static let requires = CatalogKey(
        "requires", place(.upgrade, .object(.upgradeRequirement), "the purchase in another app that qualifies", .required))
    /// The products of the required app that qualify.
    package static let anyOf = CatalogKey(
        "anyOf",
        place(.upgradeRequirement, .products, "the required app's products, any one of which qualifies; left out, any receipt of the app does"))
    /// A grandfather rule's version condition.
    package static let originalApplicationVersionBefore = CatalogKey(
        "originalApplicationVersionBefore",
        place(.grandfatherRule, .version, "matches receipts whose originalApplicationVersion is lower (dot-separated numbers, missing ones 0)"))
    /// A grandfather rule's date condition.
    package static let originalPurchaseBefore = CatalogKey(
        "originalPurchaseBefore", place(.grandfatherRule, .instant, "matches receipts whose originalPurchaseDate is before this instant"))

    package static let originalPlatform = CatalogKey(
        "originalPlatform",
        place(
            .grandfatherRule, .choices(AppPlatform.allCases.map(\.rawValue), what: "platform"),
            "matches receipts whose app transaction's originalPlatform is one of these (customers who bought the paid Mac app: `[\"macOS\"]`)"))
}
