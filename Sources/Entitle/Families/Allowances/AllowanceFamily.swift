/// Allowances and unlimited use: a product's `allowances` deposit credits while it covers, the
/// catalog's free `allowances` every calendar period (UTC), and a product's `unlimited`
/// currencies are not counted while it covers (`CatalogChecker+Allowances`). Evaluation notes the
/// coverage of the products that have them (`Evaluation+Allowances`) and the balances family's
/// ledger spends consumptions against the deposits (`Ledger`).
enum AllowanceFamily: RuleFamily {
    static let name = "Allowances and unlimited use"
    static let folder = "Allowances"
    static let keys: [CatalogKey] = [.allowances, .unlimited, .currency, .amount, .every, .expires, .rollover]
    static let codes: [DiagnosticCode] = [.allowanceRule, .unlimitedAllowance]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {
        checker.checkAllowances(catalog)
    }
    /// Deposits, their ends and unlimited spans after the instant are known where the answer is
    /// found (the ledger sets the evaluation's next change); purchases of products that deposit,
    /// dated later, change how much they deposit: evaluating there says.
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {
        let rules = moment.catalog.allowanceRules
        guard !rules.isEmpty else { return }
        moment.laterPurchases(of: rules.tracks, into: &facts)
    }
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? {
        switch key {
        case .allowances:
            let before = old.allowances ?? []
            let after = new.allowances ?? []
            let lowered = before.filter { allowance in
                guard let now = after.first(where: { $0.currency == allowance.currency }) else { return true }
                let shorter = (allowance.every.map(ISODuration.shortestMilliseconds) ?? 0) < (now.every.map(ISODuration.shortestMilliseconds) ?? 0)
                return now.amount < allowance.amount || shorter || now.expires.reach < allowance.expires.reach || now.rollover < allowance.rollover
                    || (now.introOffer ?? now.amount) < (allowance.introOffer ?? allowance.amount)
            }.map(\.currency)
            guard !lowered.isEmpty else { return nil }
            return "allowances of customers who bought it drop (" + lowered.map { "`\($0)`" }.joined(separator: ", ") + ")"
        case .unlimited:
            let removed = Set(old.unlimited ?? []).subtracting(new.unlimited ?? []).sorted()
            guard !removed.isEmpty else { return nil }
            return "customers who bought it are counted again (" + removed.map { "`\($0)`" }.joined(separator: ", ") + ")"
        default:
            return nil
        }
    }
}
