/// Something in the receipts that evaluation accepted but that probably needs a look.
///
/// Warnings carry their facts; the message is only built when read, so evaluation does no string
/// work for them.
public struct EvaluationWarning: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The kinds of warning, each carrying the ids it concerns.
    @nonexhaustive
    public enum Kind: Hashable, Sendable {
        /// Transactions for a product the catalog does not define; they grant nothing. `suggestion`:
        /// the catalog's product id closest to it, a probable typo.
        case unknownProduct(productId: String, count: Int, suggestion: String? = nil)
        /// An auto-renewable subscription transaction without `expiresDate`; it grants nothing.
        case missingExpiry(transactionId: String, productId: String)
        /// A family-shared transaction for a product that is not family-shareable; it grants nothing.
        case notFamilyShareable(transactionId: String, productId: String)
        /// Copies of one transaction of equal rank (unsigned, or signed at one instant) disagree on
        /// more than cancellation and expiry; the copy whose normalized JSON sorts first is used.
        case conflictingTransaction(transactionId: String)
        /// Renewal entries of one chain of equal rank disagree on a field; the one whose
        /// normalized JSON sorts first is used.
        case conflictingRenewal(originalTransactionId: String)
        /// Receipts disagree on a consumption with one id; the one whose normalized JSON sorts
        /// first is used.
        case conflictingConsumption(id: String)
        /// A consumption in a currency the catalog does not declare; it is ignored. `suggestion`:
        /// the declared currency closest to it.
        case unknownCurrency(consumptionId: String, currency: String, suggestion: String? = nil)
        /// More was consumed than bought.
        case negativeBalance(currency: String, balance: Int64)
        /// Credits or consumptions summed past what a balance can hold (±9,223,372,036,854,775,807);
        /// the balance stopped at that limit and is not exact.
        case balanceOutOfRange(currency: String, balance: Int64)
        /// A renewal entry whose chain has no transaction in the app's receipts; it is ignored.
        case orphanRenewal(originalTransactionId: String)
        /// A renewal entry with a grace period that also says billing is not being retried: the
        /// grace date is stale and ignored.
        case staleGrace(originalTransactionId: String)
        /// A receipt from an environment the evaluation does not accept; it is ignored entirely.
        case environmentIgnored(app: String, environment: String)
        /// A receipt's `originalApplicationVersion` that is not dot-separated numbers: version
        /// grandfather rules do not apply to it.
        case badVersion(app: String, version: String)
        /// A grant of features the catalog does not declare; they are ignored.
        case unknownGrantFeature(grantId: String, feature: String)
        /// Receipts disagree on a grant with one id; the one whose normalized JSON sorts first is used.
        case conflictingGrant(id: String)
        /// Transactions or renewal entries of another account than the one evaluated: they count
        /// for nothing.
        case otherAccount(account: String)
        /// Apple's list of eligible win-back offers and the catalog's conditions disagree on an
        /// offer (the catalog may have drifted from App Store Connect); Apple's list decides.
        case winBackCriteriaDisagree(offerId: String, listedByApple: Bool)
        /// A transaction whose `quantity` is outside 1 to ``ReceiptLimits/maxQuantity`` (only a
        /// receipt built in code can hold one): it counts as the nearest of those.
        case quantityOutOfRange(transactionId: String, quantity: Int)
        /// A consumption whose `amount` is outside 1 to ``ReceiptLimits/maxConsumptionAmount`` (only
        /// a receipt built in code can hold one): it is ignored.
        case amountOutOfRange(consumptionId: String, amount: Int64)
        /// A receipt of an app that has no catalog in the portfolio and that no upgrade of the
        /// evaluated catalog requires: it counts for nothing (a misspelt app id, usually).
        case unrelatedReceipt(app: String, suggestion: String?)
        /// A Play purchase the app has not acknowledged: Google refunds it at `deadline`, three days
        /// after its purchase, and it grants only until then.
        case unacknowledged(transactionId: String, productId: String, deadline: Instant)
        /// Transactions of an Advanced Commerce product list a SKU the product does not declare
        /// under `items`: it gives nothing. `suggestion`: the product's SKU closest to it.
        case unknownItem(productId: String, sku: String, suggestion: String? = nil)
        /// A refund or void (``Receipt/revocations``) naming a purchase that none of the customer's
        /// receipts of the app and store holds: it is kept and changes nothing (the purchase may
        /// arrive later).
        case unmatchedRevocation(transactionId: String, store: Store)
        /// A warning read back from JSON: its code and message as they were printed.
        case reported(code: String, message: String)
    }

    /// What was found, with its facts.
    public var kind: Kind

    /// Two warnings are equal when they say the same thing: the same code and message. So a
    /// warning read back from JSON (``Kind/reported(code:message:)``) equals the one written.
    public static func == (a: Self, b: Self) -> Bool { a.code == b.code && a.message == b.message }

    /// Warnings in a fixed order, by code then message: results list them so, whatever the order
    /// of the receipts.
    public static func < (a: Self, b: Self) -> Bool { (a.code, a.message) < (b.code, b.message) }

    /// Warnings in their fixed order, each message built once.
    static func sorted(_ warnings: [EvaluationWarning]) -> [EvaluationWarning] {
        guard warnings.count > 1 else { return warnings }
        // By code; messages are made only for warnings whose code another shares.
        var keyed = warnings.map { (warning: $0, code: $0.code, message: "") }
        keyed.sort { $0.code < $1.code }
        var start = 0
        while start < keyed.count {
            var end = start + 1
            while end < keyed.count, keyed[end].code == keyed[start].code { end += 1 }
            if end - start > 1 {
                for index in start..<end { keyed[index].message = keyed[index].warning.message }
                keyed[start..<end].sort { $0.message < $1.message }
            }
            start = end
        }
        return keyed.map(\.warning)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    /// A stable code for the kind of warning.
    public var code: String {
        switch kind {
        case .unknownProduct: "unknown-product"
        case .missingExpiry: "missing-expiry"
        case .notFamilyShareable: "not-family-shareable"
        case .conflictingTransaction: "conflicting-transaction"
        case .conflictingRenewal: "conflicting-renewal"
        case .otherAccount: "other-account"
        case .winBackCriteriaDisagree: "win-back-criteria-disagree"
        case .conflictingConsumption: "conflicting-consumption"
        case .unknownCurrency: "unknown-currency"
        case .negativeBalance: "negative-balance"
        case .balanceOutOfRange: "balance-out-of-range"
        case .orphanRenewal: "orphan-renewal"
        case .staleGrace: "stale-grace"
        case .environmentIgnored: "environment-ignored"
        case .badVersion: "bad-version"
        case .unknownGrantFeature: "unknown-grant-feature"
        case .conflictingGrant: "conflicting-grant"
        case .quantityOutOfRange: "quantity-out-of-range"
        case .amountOutOfRange: "amount-out-of-range"
        case .unrelatedReceipt: "unrelated-receipt"
        case .unacknowledged: "unacknowledged"
        case .unknownItem: "unknown-item"
        case .unmatchedRevocation: "unmatched-revocation"
        case .reported(let code, _): code
        }
    }

    /// The warning in words, as `entitle check` prints it.
    public var message: String {
        switch kind {
        case .unknownProduct(let product, let count, let suggestion):
            "\(count) transaction\(count == 1 ? "" : "s") for `\(product)`, which the catalog does not define, grant\(count == 1 ? "s" : "") nothing"
                + (suggestion.map { "; did you mean `\($0)`?" } ?? "")
        case .missingExpiry(let transaction, let product):
            "transaction `\(transaction)` of auto-renewable `\(product)` has no `expiresDate` and grants nothing"
        case .notFamilyShareable(let transaction, let product):
            "family-shared transaction `\(transaction)` grants nothing: `\(product)` is not family-shareable"
        case .conflictingTransaction(let transaction):
            "copies of transaction `\(transaction)` signed at one instant disagree; the one whose normalized JSON sorts first is used, with the earliest cancellation and the latest expiry"
        case .conflictingRenewal(let chain):
            "renewal entries of chain `\(chain)` signed at one instant disagree; for each field, the one whose normalized JSON sorts first is used"
        case .otherAccount(let account):
            "transactions or renewal entries of account `\(account)` count for nothing: another account is evaluated"
        case .winBackCriteriaDisagree(let offer, let listed):
            listed
                ? "Apple lists win-back offer `\(offer)` as eligible but the catalog's conditions do not hold; Apple's list decides"
                : "the catalog's conditions hold for win-back offer `\(offer)` but Apple does not list it as eligible; Apple's list decides"
        case .conflictingConsumption(let id):
            "receipts disagree on consumption `\(id)`; the one whose normalized JSON sorts first is used"
        case .unknownCurrency(let id, let currency, let suggestion):
            "consumption `\(id)` is in undeclared currency `\(currency)` and is ignored" + (suggestion.map { "; did you mean `\($0)`?" } ?? "")
        case .negativeBalance(let currency, let balance):
            "balance of `\(currency)` is negative (\(balance)): more was consumed than bought"
        case .reported(_, let message):
            message
        case .staleGrace(let chain):
            "renewal entry for chain `\(chain)` has a grace period but says billing is not being retried; the grace date is ignored"
        case .environmentIgnored(let app, let environment):
            "the receipt of `\(app)` from the `\(environment)` environment is ignored: its environment is not accepted"
        case .badVersion(let app, let version):
            "the receipt of `\(app)` has original application version `\(version)`, "
                + (CatalogChecker.versionLimitProblem(version).map { "which \($0)" } ?? "not dot-separated numbers")
                + "; version grandfather rules do not apply"
        case .unknownGrantFeature(let grant, let feature):
            "grant `\(grant)` names feature `\(feature)`, which the catalog does not declare; it is ignored"
        case .conflictingGrant(let id):
            "receipts disagree on grant `\(id)`; the one whose normalized JSON sorts first is used"
        case .orphanRenewal(let chain):
            "renewal entry for chain `\(chain)` has no transaction of that chain in the receipts and is ignored"
        case .balanceOutOfRange(let currency, let balance):
            "balance of `\(currency)` went past what a balance can hold and stopped at \(balance); it is not exact"
        case .quantityOutOfRange(let transaction, let quantity):
            "transaction `\(transaction)` has quantity \(quantity), outside 1 to \(ReceiptLimits.maxQuantity); it counts as \(ReceiptLimits.countedQuantity(quantity))"
        case .unrelatedReceipt(let app, let suggestion):
            "the receipt of `\(Diagnostic.excerpt(app))` counts for nothing: no catalog is for that app and no upgrade requires it"
                + (suggestion.map { "; did you mean `\($0)`?" } ?? "")
        case .unacknowledged(let transaction, let product, let deadline):
            "Play purchase `\(transaction)` of `\(product)` is not acknowledged: Google refunds it at \(deadline.rfc3339), three days after its purchase, and it grants only until then"
        case .amountOutOfRange(let id, let amount):
            "consumption `\(id)` has amount \(amount), outside 1 to \(ReceiptLimits.maxConsumptionAmount); it is ignored"
        case .unmatchedRevocation(let transaction, let store):
            "a refund or void of `\(Diagnostic.excerpt(transaction))` names no purchase of the customer's in \(store.phrase); it is kept and changes nothing until that purchase is read"
        case .unknownItem(let product, let sku, let suggestion):
            "SKU `\(Diagnostic.excerpt(sku))` of `\(product)` is not among the product's `items` and gives nothing"
                + (suggestion.map { "; did you mean `\($0)`?" } ?? "")
        }
    }

    public var description: String { "warning: \(message)" }

    /// The warning with its did-you-mean: for an unknown product or currency, the catalog's
    /// closest id, found when warnings are read rather than on every evaluation (all of one
    /// result's suggestions share `budget`, so a receipt naming many unknown ids stays linear).
    func suggesting(in catalog: CompiledCatalog, budget: inout Suggestion.Budget) -> EvaluationWarning {
        switch kind {
        case .unknownProduct(let id, let count, nil):
            let suggestion = catalog.suggestion(forUnknownProduct: id, budget: &budget)
            return EvaluationWarning(kind: .unknownProduct(productId: id, count: count, suggestion: suggestion))
        case .unknownCurrency(let consumption, let currency, nil):
            let suggestion = catalog.suggestion(forUnknownCurrency: currency, budget: &budget)
            return EvaluationWarning(kind: .unknownCurrency(consumptionId: consumption, currency: currency, suggestion: suggestion))
        case .unknownItem(let product, let sku, nil):
            let declared = catalog.product(product)?.items?.map(\.sku) ?? []
            let suggestion = Suggestion.closest(to: sku, in: declared, budget: &budget)
            return EvaluationWarning(kind: .unknownItem(productId: product, sku: sku, suggestion: suggestion))
        case .unknownProduct, .unknownCurrency, .unknownItem, .missingExpiry, .notFamilyShareable, .conflictingTransaction,
            .conflictingRenewal, .conflictingConsumption, .negativeBalance, .balanceOutOfRange, .orphanRenewal, .staleGrace,
            .environmentIgnored, .badVersion, .unknownGrantFeature, .conflictingGrant, .otherAccount, .winBackCriteriaDisagree,
            .quantityOutOfRange, .amountOutOfRange, .unrelatedReceipt, .unacknowledged,
            .unmatchedRevocation, .reported:
            // A suggestion already found, or a kind that has none.
            return self
        }
    }
}
