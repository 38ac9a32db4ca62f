/// Consumables and balances: credits bought less consumptions (`Evaluator+Balances`); declared
/// currencies are checked with declared features, in `CatalogChecker+Grants`.
enum BalanceFamily: RuleFamily {
    static let name = "Consumables and balances"
    static let folder = "Balances"
    static let keys: [CatalogKey] = [.currencies, .credits]
    static let codes: [DiagnosticCode] = [.undeclaredCurrency, .unusedCurrency, .conflictingConsumption]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {}
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {
        let (receipts, own, at) = (moment.inputs.receipts, moment.inputs.own, moment.at)
        // Consumptions: the copy of each id that evaluation counts (the same copy whatever the
        // order of the receipts); a new one changes a balance or warns. (Ids are compared only
        // when some consumption is dated after `at`.)
        if own.contains(where: { receipts[$0].consumptions.contains { $0.date > at } }) {
            let plain = moment.catalog.allowanceRules.isEmpty
            let standing = Evaluator.standingConsumptions(receipts: receipts, own: own, conflict: { _, _ in })
            var item = 0
            for receiptIndex in own {
                for consumption in receipts[receiptIndex].consumptions {
                    defer { item += 1 }
                    // With the ledger a consumption may charge nothing (a currency unlimited then):
                    // evaluating there says.
                    if (standing.isEmpty || standing[item]) && consumption.date > at { facts.append((consumption.date, plain, true)) }
                }
            }
        }
    }
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? {
        guard key == .credits else { return nil }
        let oldCredits = Dictionary(old.credits.map { ($0.currency, $0.amount) }, uniquingKeysWith: { first, _ in first })
        let lowered =
            new.credits.contains { $0.amount < oldCredits[$0.currency] ?? 0 }
            || old.credits.contains { credit in !new.credits.contains { $0.currency == credit.currency } }
        return lowered ? "balances of customers who bought it drop" : nil
    }
}
