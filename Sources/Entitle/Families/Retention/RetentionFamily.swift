/// Replies to Apple's retention request: each subscription's retention rules
/// (`CatalogChecker+Retention`, `RetentionRule`) and the reply they decide (`RetentionReply`).
enum RetentionFamily: RuleFamily {
    static let name = "Retention replies"
    static let folder = "Retention"
    static let keys: [CatalogKey] = [.retention, .message, .alternateProduct, .promotionalOffer, .billingPlan, .locales]
    static let codes: [DiagnosticCode] = [.retentionRule]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {
        checker.checkRetention(catalog, context: context)
    }
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {}
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
