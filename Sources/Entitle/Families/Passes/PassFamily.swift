/// Passes: non-renewing subscriptions whose purchases stack, across the products of a pass group
/// (`Evaluator+Passes`; a pass's `group` and `duration` are the subscriptions' and the products'
/// keys).
enum PassFamily: RuleFamily {
    static let name = "Passes"
    static let folder = "Passes"
    static let keys: [CatalogKey] = []
    static let codes: [DiagnosticCode] = []
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {}
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {}
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
