/// Number limits: the catalog's `limits` declare numbers an app enforces (projects, seats), each
/// with a `default` and how covering products' values `combine`; a product's `limits` give them
/// values while it covers (`CatalogChecker+Limits`), and a result works them out when read
/// (`Entitlements+Limits`).
enum LimitFamily: RuleFamily {
    static let name = "Number limits"
    static let folder = "Limits"
    static let keys: [CatalogKey] = [.limits, .description, .default, .combine]
    static let codes: [DiagnosticCode] = [.undeclaredLimit, .sharedId]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {
        checker.checkLimits(catalog)
    }
    /// A limit changes where a product's coverage does, which the engine's facts hold, and where a
    /// purchase of a product giving one becomes known (another quantity, coverage to come), even
    /// one the engine knows changes no state: evaluating there says.
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {
        let rules = moment.catalog.limitRules
        guard !rules.isEmpty else { return }
        moment.laterPurchases(of: { !rules.given(by: $0).isEmpty }, into: &facts)
    }
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? {
        guard key == .limits else { return nil }
        let before = old.limits ?? [:]
        let after = new.limits ?? [:]
        let lowered = before.filter { id, value in after[id].map { $0 < value } ?? true }.keys.sorted()
        guard !lowered.isEmpty else { return nil }
        return "limits of customers who bought it drop (" + lowered.map { "`\($0)`" }.joined(separator: ", ") + ")"
    }
}
