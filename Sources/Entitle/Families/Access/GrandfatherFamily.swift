/// Grandfather rules: features for customers who bought the app before it turned free
/// (`CatalogChecker+Grandfathering`; their spans, with the receipts' grants, in
/// `Evaluator+Access`).
enum GrandfatherFamily: RuleFamily {
    static let name = "Grandfather rules"
    static let folder = "Access"
    static let keys: [CatalogKey] = [.grandfathered, .originalApplicationVersionBefore, .originalPurchaseBefore, .originalPlatform]
    static let codes: [DiagnosticCode] = [.ruleNeverMatches, .ruleRedundant]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {}
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {}
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
