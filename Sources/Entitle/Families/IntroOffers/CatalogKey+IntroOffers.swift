/// The introductory offers family's keys: a subscription's `introOffer` and its keys (`mode` is
/// read by win-back and promotional offers too).
extension CatalogKey {
    /// An auto-renewable's introductory offer.
    package static let introOffer = CatalogKey(
        "introOffer",
        place(
            .product, .object(.introductoryOffer), "the introductory offer new subscribers of the group may have once",
            types: [.autoRenewableSubscription]),
        place(
            .allowance, .integer(0...AllowanceRules.maxAmount, rule: "from 0 to \(AllowanceRules.maxAmount)"),
            "what a transaction bought with an introductory offer (a free trial or a paid intro) deposits instead of `amount`; 0: nothing"))
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

    /// The keys of an introductory offer, in the order completion, help and the documentation list them.
    static let introductoryOfferOrder: [CatalogKey] = [comment, mode, duration, audience]
}
