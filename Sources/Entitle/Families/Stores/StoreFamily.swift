/// Stores: which store sells each product, what each store's products may declare, storefronts
/// and the `stores` settings (`Store`, `Storefront`, `CatalogChecker+Stores`).
enum StoreFamily: RuleFamily {
    static let name = "Stores"
    static let folder = "Stores"
    static let keys: [CatalogKey] = [.stores, .store, .storefronts, .stripe, .external, .manage]
    static let codes: [DiagnosticCode] = [.notForStore, .mixedStoreGroup, .badPlayId, .stripePriceId]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {
        checker.checkStores(catalog)
    }
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {}
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
