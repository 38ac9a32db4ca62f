extension Receipt {
    /// The first value of the receipt outside ``ReceiptLimits`` (or outside years 0001-9999), as
    /// its JSON path and a message; `nil` when the receipt keeps every limit.
    ///
    /// The normalized decoder checks these while reading; receipts built from Apple's data are
    /// checked with this, so `entitle normalize` never prints a receipt that `entitle check` refuses.
    public var limitViolation: (path: String, message: String)? {
        func text(_ value: String?, _ path: @autoclosure () -> String) -> (String, String)? {
            guard let value, value.utf8.count > ReceiptLimits.maxTextBytes else { return nil }
            return (path(), "text of \(value.utf8.count) bytes is longer than \(ReceiptLimits.maxTextBytes) bytes")
        }
        func empty(_ value: String?, _ path: @autoclosure () -> String) -> (String, String)? {
            value?.isEmpty == true ? (path(), "must not be empty") : nil
        }
        func instant(_ value: Instant?, _ path: @autoclosure () -> String) -> (String, String)? {
            guard let value, !value.isInRange else { return nil }
            return (path(), "instant \(value.millisecondsSince1970) ms is outside years 0001-9999")
        }
        func count(_ value: Int, _ limit: Int, _ what: String, in owner: String = "receipt", _ path: String? = nil) -> (String, String)? {
            value > limit ? (path ?? what, "more than \(limit) \(what) in one \(owner)") : nil
        }
        let receiptProblems: [(String, String)?] = [
            text(app, "app"), text(environment, "environment"), text(originalApplicationVersion, "originalApplicationVersion"),
            count(transactions.count, ReceiptLimits.maxTransactions, "transactions"),
            count(renewals.count, ReceiptLimits.maxRenewals, "renewals"),
            count(consumptions.count, ReceiptLimits.maxConsumptions, "consumptions"),
            count(grants.count, ReceiptLimits.maxGrants, "grants"), instant(originalPurchaseDate, "originalPurchaseDate"),
            text(appTransactionId, "appTransactionId"), empty(appTransactionId, "appTransactionId"), instant(preorderDate, "preorderDate"),
            instant(consentRescinded, "consentRescinded"),
            count(revocations.count, ReceiptLimits.maxRevocations, "revocations"),
        ]
        if let problem = receiptProblems.lazy.compactMap({ $0 }).first {
            return problem
        }
        for (index, transaction) in transactions.enumerated() {
            let path = "transactions[\(index)]"
            if let problem = text(transaction.appTransactionId, path + ".appTransactionId")
                ?? empty(transaction.appTransactionId, path + ".appTransactionId")
            {
                return problem
            }
            if let problem = text(transaction.productId, path + ".productId") ?? text(transaction.transactionId, path + ".transactionId")
                ?? text(transaction.originalTransactionId, path + ".originalTransactionId")
                ?? text(transaction.offerId, path + ".offerId")
                ?? instant(transaction.purchaseDate, path + ".purchaseDate")
                ?? instant(transaction.originalPurchaseDate, path + ".originalPurchaseDate")
                ?? instant(transaction.expiresDate, path + ".expiresDate")
                ?? instant(transaction.cancellationDate, path + ".cancellationDate")
                ?? instant(transaction.signedDate, path + ".signedDate")
                ?? instant(transaction.commitment?.endsAt, path + ".commitment.endsAt")
            {
                return problem
            }
            if let problem = text(transaction.linkedPurchaseToken, path + ".linkedPurchaseToken")
                ?? empty(transaction.linkedPurchaseToken, path + ".linkedPurchaseToken")
                ?? text(transaction.purchaseOptionId, path + ".purchaseOptionId")
                ?? empty(transaction.purchaseOptionId, path + ".purchaseOptionId")
                ?? instant(transaction.releaseDate, path + ".releaseDate") ?? instant(transaction.topUpAfter, path + ".topUpAfter")
            {
                return problem
            }
            if let token = transaction.appAccountToken, AccountToken.canonical(token) == nil {
                return (path + ".appAccountToken", "`\(Diagnostic.excerpt(token))` is not a UUID")
            }
            if let percentage = transaction.revocationPercentage, !(percentage >= 0 && percentage <= 100) {
                return (path + ".revocationPercentage", "a percentage must be from 0 to 100, found \(percentage)")
            }
            if let commitment = transaction.commitment,
                !(1...ReceiptLimits.maxCommitmentPeriods).contains(commitment.periods) || !(1...commitment.periods).contains(commitment.period)
            {
                return (
                    path + ".commitment", "period \(commitment.period) of \(commitment.periods) is outside 1 to \(ReceiptLimits.maxCommitmentPeriods)"
                )
            }
            if let period = transaction.offerPeriod, !period.isPositive || !period.isWithinLimit {
                return (path + ".offerPeriod", "`\(period)` is not an offer period longer than zero and at most P100Y")
            }
            if let problem = Self.itemViolation(transaction.items, path: path + ".items", renewal: false) { return problem }
            if transaction.quantity < 1 || transaction.quantity > ReceiptLimits.maxQuantity {
                return (path + ".quantity", "quantity must be from 1 to \(ReceiptLimits.maxQuantity), found \(transaction.quantity)")
            }
        }
        for (index, renewal) in renewals.enumerated() {
            let path = "renewals[\(index)]"
            if let problem = text(renewal.productId, path + ".productId")
                ?? text(renewal.originalTransactionId, path + ".originalTransactionId")
                ?? instant(renewal.gracePeriodExpiresDate, path + ".gracePeriodExpiresDate")
                ?? instant(renewal.signedDate, path + ".signedDate") ?? text(renewal.renewsTo, path + ".renewsTo")
                ?? text(renewal.appTransactionId, path + ".appTransactionId") ?? empty(renewal.appTransactionId, path + ".appTransactionId")
                ?? count(
                    renewal.winBackOffers?.count ?? 0, ReceiptLimits.maxWinBackOffers, "win-back offers", in: "renewal entry", path + ".winBackOffers"
                )
            {
                return problem
            }
            for (position, offer) in (renewal.winBackOffers ?? []).enumerated() {
                if let problem = text(offer, "\(path).winBackOffers[\(position)]") { return problem }
            }
            if let token = renewal.appAccountToken, AccountToken.canonical(token) == nil {
                return (path + ".appAccountToken", "`\(Diagnostic.excerpt(token))` is not a UUID")
            }
            if let price = renewal.renewalPrice, !Price.isAmount(price) {
                return (path + ".renewalPrice", "`\(Diagnostic.excerpt(price))` is not an amount")
            }
            if let currency = renewal.currency, !Price.isCurrency(currency) {
                return (path + ".currency", "`\(Diagnostic.excerpt(currency))` is not a currency")
            }
            if (renewal.renewalPrice == nil) != (renewal.currency == nil) {
                return (path, "`renewalPrice` and `currency` go together")
            }
            if let problem = Self.itemViolation(renewal.items, path: path + ".items", renewal: true) { return problem }
        }
        for (index, consumption) in consumptions.enumerated() {
            let path = "consumptions[\(index)]"
            if let problem = text(consumption.id, path + ".id") ?? text(consumption.currency, path + ".currency")
                ?? instant(consumption.date, path + ".date")
            {
                return problem
            }
            if consumption.amount < 1 || consumption.amount > ReceiptLimits.maxConsumptionAmount {
                return (path + ".amount", "amount must be a positive integer up to 10^12, found \(consumption.amount)")
            }
        }
        if let problem = Self.revocationViolation(revocations, transactions: transactions) { return problem }
        for (index, grant) in grants.enumerated() {
            let path = "grants[\(index)]"
            if let problem = text(grant.id, path + ".id") ?? instant(grant.start, path + ".start") ?? instant(grant.end, path + ".end")
                ?? instant(grant.revokedAt, path + ".revokedAt")
                ?? count(grant.features.count, ReceiptLimits.maxGrantFeatures, "features", in: "grant", path + ".features")
            {
                return problem
            }
            for (position, feature) in grant.features.enumerated() {
                if let problem = text(feature, "\(path).features[\(position)]") { return problem }
            }
        }
        return nil
    }

    /// The first problem of a list of revocations, as the decoder would report it.
    private static func revocationViolation(_ revocations: [Revocation], transactions: [Transaction]) -> (path: String, message: String)? {
        guard !revocations.isEmpty else { return nil }
        for (index, revocation) in revocations.enumerated() {
            let path = "revocations[\(index)]"
            if revocation.transactionId.isEmpty { return (path + ".transactionId", "must not be empty") }
            for (key, value) in [("transactionId", revocation.transactionId), ("id", revocation.id)] {
                guard let value else { continue }
                if value.isEmpty { return ("\(path).\(key)", "must not be empty") }
                if value.utf8.count > ReceiptLimits.maxTextBytes {
                    return ("\(path).\(key)", "text of \(value.utf8.count) bytes is longer than \(ReceiptLimits.maxTextBytes) bytes")
                }
            }
            if !revocation.date.isInRange {
                return (path + ".date", "instant \(revocation.date.millisecondsSince1970) ms is outside years 0001-9999")
            }
            if let quantity = revocation.voidedQuantity, !(1...ReceiptLimits.maxQuantity).contains(quantity) {
                return (path + ".voidedQuantity", "`voidedQuantity` must be a whole number from 1 to \(ReceiptLimits.maxQuantity), found \(quantity)")
            }
            for (key, value) in [("amount", revocation.amount), ("amountRefunded", revocation.amountRefunded), ("amountPaid", revocation.amountPaid)]
            {
                if let value, !(0...ReceiptLimits.maxRefundAmount).contains(value) {
                    return ("\(path).\(key)", "an amount must be a whole number from 0 to 10^15 (the currency's smallest unit), found \(value)")
                }
            }
            let given = [revocation.voidedQuantity != nil, revocation.amount != nil, revocation.amountRefunded != nil].filter { $0 }.count
            if given > 1 { return (path, "a revocation gives one of `voidedQuantity`, `amount` and `amountRefunded`") }
            if revocation.amountPaid != nil, revocation.amount == nil, revocation.amountRefunded == nil {
                return (path + ".amountPaid", "`amountPaid` is the share's base: it goes with `amount` or `amountRefunded`")
            }
        }
        let quantities = transactions.map { ($0.transactionId, $0.quantity) }
        if let excess = RevocationFacts.excess(revocations, quantities: quantities) {
            return ("revocations[\(excess.index)].voidedQuantity", excess.message)
        }
        return nil
    }

    /// The first problem of a list of items, as the decoder would report it.
    private static func itemViolation(_ items: [Transaction.Item], path: String, renewal: Bool) -> (path: String, message: String)? {
        if items.count > ReceiptLimits.maxItems {
            return (path, "more than \(ReceiptLimits.maxItems) items in one \(renewal ? "renewal entry" : "transaction")")
        }
        var skus: Set<String> = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            if item.sku.isEmpty { return (itemPath + ".sku", "must not be empty") }
            if item.sku.utf8.count > ReceiptLimits.maxTextBytes {
                return (itemPath + ".sku", "text of \(item.sku.utf8.count) bytes is longer than \(ReceiptLimits.maxTextBytes) bytes")
            }
            if !skus.insert(item.sku).inserted { return (itemPath + ".sku", "SKU `\(Diagnostic.excerpt(item.sku))` is listed twice") }
            guard let price = Price.thousandths(item.price) else {
                return (itemPath + ".price", "`\(Diagnostic.excerpt(item.price))` is not an amount")
            }
            if renewal, item.revocationDate != nil || !item.refunds.isEmpty {
                return (itemPath, "a renewal entry's items have only `sku` and `price`")
            }
            if let date = item.revocationDate, !date.isInRange {
                return (itemPath + ".revocationDate", "instant \(date.millisecondsSince1970) ms is outside years 0001-9999")
            }
            if item.refunds.count > ReceiptLimits.maxItemRefunds {
                return (itemPath + ".refunds", "more than \(ReceiptLimits.maxItemRefunds) refunds in one item")
            }
            for (position, refund) in item.refunds.enumerated() {
                let refundPath = "\(itemPath).refunds[\(position)]"
                guard let amount = Price.thousandths(refund.amount) else {
                    return (refundPath + ".amount", "`\(Diagnostic.excerpt(refund.amount))` is not an amount")
                }
                if amount > price { return (refundPath + ".amount", "a refund of \(refund.amount) is more than the item's price of \(item.price)") }
                if !refund.date.isInRange {
                    return (refundPath + ".date", "instant \(refund.date.millisecondsSince1970) ms is outside years 0001-9999")
                }
            }
        }
        return nil
    }
}
