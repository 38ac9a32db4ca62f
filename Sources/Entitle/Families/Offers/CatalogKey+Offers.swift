/// The keys of win-back and promotional offers: the product's `offers`, and the keys of each offer
/// that only offers take (`id`, `type` and `duration` are the engine's, `mode` the introductory
/// offers'). `paidAtLeast` and `waitBetween` are read by retention rules too.
extension CatalogKey {
    /// An auto-renewable's win-back and promotional offers.
    package static let offers = CatalogKey(
        "offers",
        place(
            .product, .objects(.subscriptionOffer, max: CatalogLimits.maxOffersPerProduct),
            "win-back and promotional offers, each with the conditions under which it may be offered",
            types: [.autoRenewableSubscription]))
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

    /// The keys of an offer, in the order completion, help and the documentation list them.
    static let subscriptionOfferOrder: [CatalogKey] = [
        comment, id, type, mode, duration, periods, from, until, subscribed, paidAtLeast, paidAtMost, lapsedAtLeast, lapsedAtMost, waitBetween,
    ]
}
