/// The upgrade pricing family's keys: a product's `upgrade` and its objects' keys.
extension CatalogKey {
    /// Upgrade pricing.
    package static let upgrade = CatalogKey(
        "upgrade", place(.product, .object(.upgrade), "upgrade pricing for owners of another app", types: [.nonConsumable]))
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

    /// The keys of an upgrade, in the order completion, help and the documentation list them.
    static let upgradeOrder: [CatalogKey] = [comment, replaces, requires]

    /// The keys of an upgrade's requirement, in the order completion, help and the documentation list them.
    static let upgradeRequirementOrder: [CatalogKey] = [comment, app, anyOf]
}
