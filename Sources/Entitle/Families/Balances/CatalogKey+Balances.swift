/// The consumables and balances family's keys: the catalog's `currencies` and a product's
/// `credits`.
extension CatalogKey {
    /// Declared currencies.
    package static let currencies = CatalogKey(
        "currencies", place(.catalog, .declarations(what: "currency"), "currency id to description; consumables credit currencies"))
    /// What a consumable credits.
    package static let credits = CatalogKey(
        "credits",
        place(.product, .credits, "declared currency id to the amount one unit credits", types: [.consumable]),
        place(.item, .credits, "declared currency id to the amount a purchase of the SKU credits (consumables)"))
}
