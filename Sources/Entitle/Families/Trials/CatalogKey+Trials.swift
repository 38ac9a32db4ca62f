/// The trials family's key: `trialOf`.
extension CatalogKey {
    /// A trial's paid product.
    package static let trialOf = CatalogKey(
        "trialOf",
        place(
            .product, .productReference, "makes this free \"N-day Trial\" a trial of the named paid non-consumable",
            types: [.nonConsumable]))
}
