/// Replies to Apple's consumption request: the refund preference (`CatalogChecker+Refunds`,
/// `RefundPreference`) and the facts the reply reports (`ConsumptionReply`).
enum RefundFamily: RuleFamily {
    static let name = "Consumption replies"
    static let folder = "Refunds"
    static let keys: [CatalogKey] = [.refundPreference, .sampleContent, .grantFullBelow, .grantProratedBelow]
    static let codes: [DiagnosticCode] = []
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {}
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {}
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
