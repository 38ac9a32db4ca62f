/// Trials: a free "N-day Trial" non-consumable that leads to one paid non-consumable and grants
/// no more than it (`CatalogChecker+Trials`; evaluation gives a trial its days from purchase in
/// `Evaluator+Products`).
enum TrialFamily: RuleFamily {
    static let name = "Trials"
    static let folder = "Trials"
    static let keys: [CatalogKey] = [.trialOf]
    static let codes: [DiagnosticCode] = [.trialRule, .looksLikeTrial, .trialAddsNothing]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {
        checker.checkTrialsPerPaidProduct(catalog, context: context)
    }
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {}
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
