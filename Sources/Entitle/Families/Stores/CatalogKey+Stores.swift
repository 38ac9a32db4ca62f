/// The stores family's keys: a product's `store` and `storefronts`, and the catalog's `stores`
/// settings.
extension CatalogKey {
    /// Settings of the stores other than the App Store.
    package static let stores = CatalogKey(
        "stores", place(.catalog, .object(.stores), "settings of the stores besides the App Store: where their customers manage a subscription"))
    /// Where a product is sold.
    package static let store = CatalogKey(
        "store",
        place(
            .product, .choice(Store.allCases.map(\.rawValue), what: "store"),
            "where it is sold: `app-store` (the default), `play`, `stripe` or `external` (a checkout the service records)"))
    /// Where a product may be offered.
    package static let storefronts = CatalogKey(
        "storefronts",
        place(
            .product, .storefronts, "the storefronts (ISO 3166-1 alpha-3, as Apple writes them: `USA`) where it may be offered; left out, everywhere")
    )
    /// Stripe's settings.
    package static let stripe = CatalogKey("stripe", place(.stores, .object(.storeSettings), "settings for products sold through Stripe"))
    /// Another checkout's settings.
    package static let external = CatalogKey(
        "external", place(.stores, .object(.storeSettings), "settings for products sold through the service's own checkout"))
    /// Where a store's customers manage a subscription.
    package static let manage = CatalogKey(
        "manage", place(.storeSettings, .url, "where a customer of the store manages a subscription (the service's billing portal)", .required))

    /// The keys of the catalog's `stores`, in the order completion, help and the documentation list them.
    static let storesOrder: [CatalogKey] = [comment, stripe, external]

    /// The keys of one store's settings, in the order completion, help and the documentation list them.
    static let storeSettingsOrder: [CatalogKey] = [comment, manage]
}
