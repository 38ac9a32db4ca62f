/// The retention family's keys: a subscription's `retention` rules and their keys.
extension CatalogKey {
    /// What a subscription answers Apple's retention request with (a subscriber on the cancel page).
    package static let retention = CatalogKey(
        "retention",
        place(
            .product, .objects(.retentionRule, max: CatalogLimits.maxRetentionRules),
            "the reply to Apple's retention request, in order: the first rule whose conditions hold and whose reply is possible",
            types: [.autoRenewableSubscription]))
    /// A retention rule's message.
    package static let message = CatalogKey(
        "message",
        place(.retentionRule, .text, "the identifier of a message approved in App Store Connect, copied out as written"))
    /// A retention rule's switch-plan product.
    package static let alternateProduct = CatalogKey(
        "alternateProduct",
        place(.retentionRule, .productReference, "a product of the same group to suggest switching to (with `message`, its text)"))
    /// A retention rule's promotional offer.
    package static let promotionalOffer = CatalogKey(
        "promotionalOffer",
        place(.retentionRule, .text, "the id of one of the product's promotional offers (with `message`, its text)"))
    /// How the alternate product is billed.
    package static let billingPlan = CatalogKey(
        "billingPlan",
        place(
            .retentionRule, .choice(Transaction.BillingPlan.allCases.map(\.rawValue), what: "billing plan"),
            "with `alternateProduct`: how it is billed (Apple's billingPlanType)"))
    /// The customer locales a retention rule is for.
    package static let locales = CatalogKey(
        "locales",
        place(.retentionRule, .languageTags, "the customer's locale matches one of these (RFC 4647 basic filtering: `de` matches `de-AT`)"))

    /// The keys of a retention rule, in the order completion, help and the documentation list them.
    static let retentionRuleOrder: [CatalogKey] = [
        comment, id, message, alternateProduct, billingPlan, promotionalOffer, locales, paidAtLeast, waitBetween,
    ]
}
