/// Win-back and promotional offers: each offer's conditions (`CatalogKey+Offers`,
/// `CatalogChecker+Offers`), what they read and each decision (`Evaluator+Promotions`), the
/// words (`Explainer+Offers`), the graph's label, the ways `diff --prove` searches
/// (`ReceiptSpace+OfferWays`) and the signature Apple asks for (`PromotionalOfferSigner`).
enum PromotionFamily: RuleFamily {
    static let name = "Win-back and promotional offers"
    static let folder = "Offers"
    static let keys: [CatalogKey] = [
        .offers, .periods, .from, .until, .subscribed, .paidAtLeast, .paidAtMost, .lapsedAtLeast, .lapsedAtMost, .waitBetween,
    ]
    static let codes: [DiagnosticCode] = [.offerRule, .offerNeverEligible]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {
        checker.checkOfferIds(catalog)
    }
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {
        // Offer conditions that may turn with time alone.
        if !moment.core.groups.isEmpty {
            for date in Evaluator.promotionInstants(moment.catalog, core: moment.core, at: moment.at) { facts.append((date, false, false)) }
        }
    }
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
