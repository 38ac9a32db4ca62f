/// Upgrade pricing: a non-consumable at upgrade pricing for owners of another app
/// (`CatalogChecker+Upgrades`, checked per product; what other apps' receipts show, in
/// `UpgradePrerequisites`).
enum UpgradeFamily: RuleFamily {
    static let name = "Upgrade pricing"
    static let folder = "Upgrades"
    static let keys: [CatalogKey] = [.upgrade, .replaces, .requires, .anyOf]
    static let codes: [DiagnosticCode] = [.upgradeRule]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {}
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {
        let (receipts, at) = (moment.inputs.receipts, moment.at)
        // Other apps' purchases matter only for upgrade prerequisites that name products (copies of
        // one transaction may name different products, so every transaction of such an app counts).
        if !moment.catalog.appsListingProducts.isEmpty {
            for receiptIndex in moment.inputs.others {
                let receipt = receipts[receiptIndex]
                guard moment.catalog.appsListingProducts.contains(receipt.app) else { continue }
                for record in receipt.transactions {
                    // A later snapshot (a refund, its reversal) may say otherwise from its signing on.
                    if record.signed > at { facts.append((record.signed, false, false)) }
                    if record.purchase > at { facts.append((record.purchase, false, false)) }
                    if record.cancellation > at, record.cancellation != TransactionRecord.noCancellation {
                        facts.append((record.cancellation, false, false))
                    }
                }
            }
        }
        // A requirement without `anyOf` is met from the required app's original purchase on.
        if !moment.catalog.appsRequiringAnyPurchase.isEmpty {
            for receiptIndex in moment.inputs.others where moment.catalog.appsRequiringAnyPurchase.contains(receipts[receiptIndex].app) {
                let original = receipts[receiptIndex].originalPurchase
                if original > at, original != TransactionRecord.absentDate { facts.append((original, false, false)) }
            }
        }
    }
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? { nil }
}
