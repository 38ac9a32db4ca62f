/// Advanced Commerce items: a product that declares `items` gives through the SKUs its
/// transactions list (`CatalogChecker+Items`, `Evaluator+Items`).
enum ItemFamily: RuleFamily {
    static let name = "Advanced Commerce items"
    static let folder = "Items"
    static let keys: [CatalogKey] = [.items]
    static let codes: [DiagnosticCode] = [.itemRule]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {
        checker.checkItems(catalog)
    }
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {}
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
