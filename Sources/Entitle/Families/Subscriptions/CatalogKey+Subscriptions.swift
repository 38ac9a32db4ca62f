/// The subscriptions family's keys: a product's `group` and `level`, and a web subscription's
/// `gracePeriod`.
extension CatalogKey {
    /// A subscription group or pass group.
    package static let group = CatalogKey(
        "group",
        place(
            .product, .name,
            "an auto-renewable's subscription group; for passes, a pass group whose purchases stack across products",
            types: [.nonRenewingSubscription, .autoRenewableSubscription],
            .requiredFor([.autoRenewableSubscription], help: "name its subscription group, e.g. `\"group\": \"pro\"`")))
    /// A subscription's level in its group.
    package static let level = CatalogKey(
        "level",
        place(
            .product,
            .integer(1...Int64(CatalogLimits.maxProducts), rule: "a whole number from 1 (the highest service) to \(CatalogLimits.maxProducts)"),
            "the level in its group, 1 the highest service; every product of a group has one or none does",
            types: [.autoRenewableSubscription]))
    /// How long a web subscription keeps access while its payment is retried.
    package static let gracePeriod = CatalogKey(
        "gracePeriod",
        place(
            .product, .duration,
            "for a `stripe` or `external` subscription: how long access continues past the period's end while payment is retried",
            types: [.autoRenewableSubscription]))
}
