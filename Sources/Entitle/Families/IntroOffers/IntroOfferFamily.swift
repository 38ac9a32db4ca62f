/// Introductory offers: a free trial or intro price new subscribers of a group may have once. The
/// offer is read with the product; evaluation notes the groups whose intro offer is used, and the
/// answer's offers say whether a purchase may use it.
enum IntroOfferFamily: RuleFamily {
    static let name = "Introductory offers"
    static let folder = "IntroOffers"
    static let keys: [CatalogKey] = [.introOffer, .mode, .audience]
    static let codes: [DiagnosticCode] = []
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {}
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {}
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
