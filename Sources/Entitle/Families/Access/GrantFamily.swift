/// Grants a service records itself in a receipt: features for a span, deduplicated by id
/// (`Evaluator+Access`). The catalog declares nothing for them.
enum GrantFamily: RuleFamily {
    static let name = "Service grants"
    static let folder = "Access"
    static let keys: [CatalogKey] = []
    static let codes: [DiagnosticCode] = [.conflictingGrant]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {}
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {
        let (receipts, own, at) = (moment.inputs.receipts, moment.inputs.own, moment.at)
        // Grants: the copy of each id that evaluation counts, with declared features (sources) or
        // not (warnings).
        let grantItems =
            own.contains(where: { receipts[$0].grants.contains { $0.start > at || ($0.revoked > at && $0.revoked != .max) } })
            ? Evaluator.grantItems(own: own, receipts: receipts) : []
        let standingGrant = Evaluator.standingGrants(grantItems, receipts: receipts, conflict: { _, _ in })
        for (item, (receiptIndex, index)) in grantItems.enumerated() where standingGrant[item] {
            let grant = receipts[Int(receiptIndex)].grants[Int(index)]
            guard !grant.features.isEmpty else { continue }
            if grant.start > at, grant.revoked > grant.start { facts.append((grant.start, false, false)) }
            if grant.revoked > at, grant.revoked != .max, grant.revoked >= grant.start { facts.append((grant.revoked, false, false)) }
        }
    }
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
