/// The Advanced Commerce items family's key: a product's `items`.
extension CatalogKey {
    /// What each SKU of an Advanced Commerce product gives.
    package static let items = CatalogKey(
        "items",
        place(
            .product, .keyedObjects(.item, what: "SKU", max: CatalogLimits.maxItemsPerProduct),
            "for an Advanced Commerce product: SKU to what a purchase of it grants or credits; the product then gives only through its items"))

    /// The keys of an Advanced Commerce item, in the order completion, help and the documentation list them.
    static let itemOrder: [CatalogKey] = [comment, grants, credits]
}
