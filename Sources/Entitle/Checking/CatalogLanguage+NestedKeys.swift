/// The keys of the catalog language's nested objects (introductory offers, stores, upgrades,
/// grandfather rules, refund thresholds; win-back and promotional offers declare theirs in
/// `Families/Offers/`): declared as the catalog's and products' keys are, in
/// `CatalogLanguage.swift`, which lists every object's keys.
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
