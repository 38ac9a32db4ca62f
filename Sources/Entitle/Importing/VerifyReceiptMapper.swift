import Foundation

/// Maps a verifyReceipt response (or a v1 server notification's `unified_receipt`) to a receipt.
///
/// | verifyReceipt | normalized |
/// |---|---|
/// | `receipt.bundle_id` (notifications: `bid`) | `app` |
/// | `environment` (else `receipt.receipt_type`) | `environment` |
/// | `receipt.original_application_version` | `originalApplicationVersion` |
/// | `receipt.in_app[]`, `latest_receipt_info[]` (merged by `transaction_id`) | `transactions[]` |
/// | `product_id`, `transaction_id`, `original_transaction_id` | the same fields |
/// | `purchase_date_ms` (else `purchase_date`) | `purchaseDate` |
/// | `original_purchase_date_ms`, `expires_date_ms`, `cancellation_date_ms` | `originalPurchaseDate`, `expiresDate`, `cancellationDate` |
/// | `quantity`, `is_trial_period`, `is_in_intro_offer_period`, `is_upgraded` | `quantity`, `isTrialPeriod`, `isIntroOfferPeriod`, `isUpgraded` |
/// | `in_app_ownership_type` (`PURCHASED`, `FAMILY_SHARED`) | `ownership` |
/// | `promotional_offer_id`, `offer_code_ref_name` | `offerType` (`promotional`, `offer-code`), `offerId` |
/// | `cancellation_reason` 0, 1 | `revocationReason` (`other`, `app-issue`) |
/// | `app_account_token` (a UUID; `""` is none; anything else refuses the response) | `appAccountToken` (lowercase) |
/// | `receipt.request_date_ms` (else `receipt.request_date`) | every transaction's `signedDate` |
/// | `pending_renewal_info[]`: `original_transaction_id`, `product_id`, `auto_renew_status`, `is_in_billing_retry_period`, `grace_period_expires_date_ms` | `renewals[]`: `originalTransactionId`, `productId`, `willRenew`, `isInBillingRetry`, `gracePeriodExpiresDate` |
/// | `auto_renew_product_id` (when it differs), `expiration_intent` 1..5 | `renewsTo`, `expirationIntent` |
///
/// A response is one snapshot of every transaction it lists, taken when Apple answered: its
/// `request_date_ms` dates them all (`signedDate`), so a later copy of a transaction (a JWS
/// signed after a refund) stands for it from its own signing on. Entries copied out of a
/// response, and v1 notifications (whose `unified_receipt` has no `receipt`), carry no request
/// date and leave `signedDate` out. Renewal entries are not dated: they count at every instant,
/// as they did before.
enum VerifyReceiptMapper {
    /// Apple's documented meanings of verifyReceipt status codes.
    static let statusMeanings: [Int64: String] = [
        21000: "the request to the App Store was not made using the HTTP POST method",
        21001: "this status code is no longer sent by the App Store",
        21002: "the receipt data was malformed or the App Store service had a temporary issue",
        21003: "the receipt could not be authenticated",
        21004: "the shared secret does not match the one on file for the account",
        21005: "the receipt server was temporarily unable to provide the receipt",
        21006: "the receipt is valid but the subscription has expired",
        21007: "the receipt is from the test environment but was sent to the production environment",
        21008: "the receipt is from the production environment but was sent to the test environment",
        21009: "internal data access error",
        21010: "the user account cannot be found or has been deleted",
    ]

    /// Whether a parsed JSON object looks like a verifyReceipt response or v1 notification.
    static func recognizes(_ root: JSONNode) -> Bool {
        if let elements = root.elements { return !elements.isEmpty && elements.allSatisfy(recognizes) }
        return root["receipt"] != nil || root["latest_receipt_info"] != nil || root["unified_receipt"] != nil
            || root["pending_renewal_info"] != nil || (root["status"] != nil && root["app"] == nil)
            || isLoneTransaction(root) || isLoneRenewal(root)
    }

    /// An `in_app` / `latest_receipt_info` entry copied out of a response.
    static func isLoneTransaction(_ node: JSONNode) -> Bool {
        node["transaction_id"] != nil && node["product_id"] != nil && !isResponse(node)
    }

    /// A whole response or notification, which names its app.
    static func isResponse(_ node: JSONNode) -> Bool {
        ["receipt", "latest_receipt_info", "unified_receipt", "pending_renewal_info", "notification_type", "status"]
            .contains { node[$0] != nil }
    }

    /// A `pending_renewal_info` entry copied out of a response.
    static func isLoneRenewal(_ node: JSONNode) -> Bool {
        node["original_transaction_id"] != nil && (node["auto_renew_status"] != nil || node["auto_renew_product_id"] != nil)
            && node["transaction_id"] == nil && !isResponse(node)
    }

    static let transactionFields: Set<String> = [
        "product_id", "transaction_id", "original_transaction_id", "purchase_date", "purchase_date_ms", "purchase_date_pst",
        "original_purchase_date", "original_purchase_date_ms", "original_purchase_date_pst", "expires_date", "expires_date_ms",
        "expires_date_pst", "cancellation_date", "cancellation_date_ms", "cancellation_date_pst", "quantity", "is_trial_period",
        "is_in_intro_offer_period", "is_upgraded", "in_app_ownership_type", "promotional_offer_id", "offer_code_ref_name",
        "cancellation_reason", "app_account_token",
    ]
    static let renewalFields: Set<String> = [
        "original_transaction_id", "product_id", "auto_renew_status", "is_in_billing_retry_period", "grace_period_expires_date_ms",
        "grace_period_expires_date", "grace_period_expires_date_pst", "auto_renew_product_id", "expiration_intent",
    ]

    static func map(_ root: JSONNode, app option: AppOption, warnings: inout [ImportWarning]) throws(ImportFailure) -> Receipt {
        var dropped: Set<String> = []
        defer { if let note = ImportWarning.dropped(dropped) { warnings.append(note) } }
        let app = option.app
        // Entries copied out of a response, alone or in an array, name no app: it must be given.
        let lone = root.elements ?? (isLoneTransaction(root) || isLoneRenewal(root) ? [root] : nil)
        if let lone {
            guard let app else {
                throw ImportFailure(
                    offset: root.offset, message: "a transaction or renewal entry alone names no app",
                    help: "give the app (`--app`), or pass the whole verifyReceipt response")
            }
            var receipt = Receipt(app: app)
            for (index, entry) in lone.enumerated() {
                let path = root.elements == nil ? "" : "[\(index)]"
                if isLoneRenewal(entry) {
                    receipt.renewals.append(try mapRenewal(entry, path: path, warnings: &warnings, dropped: &dropped))
                } else {
                    receipt.transactions.append(try mapTransaction(entry, path: path, warnings: &warnings, dropped: &dropped))
                }
            }
            return receipt
        }
        guard root.isObject else {
            throw ImportFailure(offset: root.offset, message: "expected a verifyReceipt response object")
        }
        // A v1 notification carries the response as `unified_receipt` and the bundle id as `bid`.
        let response = root["unified_receipt"] ?? root
        let prefix = root["unified_receipt"] != nil ? "unified_receipt." : ""
        if let status = response["status"] ?? root["status"] {
            guard let code = status.lenientInteger else {
                throw ImportFailure(offset: status.offset, message: "`status` is not a number", path: prefix + "status")
            }
            if code != 0 {
                let meaning = statusMeanings[code] ?? (21100...21199 ~= code ? "internal data access error" : "not a status Apple documents")
                throw ImportFailure(
                    offset: status.offset, message: "verifyReceipt status \(code): \(meaning)",
                    path: prefix + "status", help: "only a response with status 0 carries a receipt to read")
            }
        }
        let receiptNode = response["receipt"]
        let bundleNode = receiptNode?["bundle_id"] ?? root["bid"]
        let bundlePath = receiptNode?["bundle_id"] != nil ? "receipt.bundle_id" : "bid"
        guard let app = try option.resolve(named: bundleNode?.lenientString, at: bundleNode?.offset ?? root.offset, path: bundlePath),
            !app.isEmpty
        else {
            throw ImportFailure(
                offset: root.offset, message: "the response names no app (no `receipt.bundle_id`, no `bid`)",
                help: "give the app (`--app`)")
        }
        var receipt = Receipt(app: app)
        if let environment = (response["environment"] ?? root["environment"])?.lenientString
            ?? receiptNode?["receipt_type"]?.lenientString
        {
            receipt.environment = AppleEnvironment.normalize(environment, path: prefix + "environment", warnings: &warnings)
        }
        receipt.originalApplicationVersion = receiptNode?["original_application_version"]?.lenientString
        if let value = receiptNode?["original_purchase_date_ms"], !value.isNull {
            receipt.originalPurchaseDate = try value.instant(key: "original_purchase_date_ms", path: "receipt.original_purchase_date_ms")
        }

        var transactions: [Transaction] = []
        func add(_ list: JSONNode?, path: String) throws(ImportFailure) {
            guard let list else { return }
            guard let elements = list.elements else {
                throw ImportFailure(offset: list.offset, message: "expected an array of transactions", path: path)
            }
            for (position, element) in elements.enumerated() {
                transactions.append(try mapTransaction(element, path: "\(path)[\(position)]", warnings: &warnings, dropped: &dropped))
            }
        }
        try add(receiptNode?["in_app"], path: "receipt.in_app")
        try add(response["latest_receipt_info"], path: prefix + "latest_receipt_info")
        if let receiptNode, let answered = try requestDate(receiptNode) {
            for index in transactions.indices { transactions[index].signedDate = answered }
        }
        receipt.transactions = Transaction.mergingCopies(transactions)

        if let pending = response["pending_renewal_info"] {
            guard let elements = pending.elements else {
                throw ImportFailure(offset: pending.offset, message: "expected an array", path: prefix + "pending_renewal_info")
            }
            for (position, element) in elements.enumerated() {
                receipt.renewals.append(
                    try mapRenewal(
                        element, path: "\(prefix)pending_renewal_info[\(position)]", warnings: &warnings,
                        dropped: &dropped))
            }
        }
        return receipt
    }

    /// When Apple answered: `receipt.request_date_ms`, else the plain `request_date`; `nil` when
    /// the response has neither.
    private static func requestDate(_ receipt: JSONNode) throws(ImportFailure) -> Instant? {
        if let ms = receipt["request_date_ms"], !ms.isNull {
            return try ms.instant(key: "request_date_ms", path: "receipt.request_date_ms")
        }
        guard let text = receipt["request_date"], !text.isNull else { return nil }
        if text.milliseconds != nil { return try text.instant(key: "request_date", path: "receipt.request_date") }
        guard let string = text.lenientString, let value = appleDate(string) else {
            throw ImportFailure(offset: text.offset, message: "`request_date` is not a date", path: "receipt.request_date")
        }
        return value
    }

    private static func mapRenewal(
        _ element: JSONNode, path: String, warnings: inout [ImportWarning], dropped: inout Set<String>
    ) throws(ImportFailure) -> Renewal {
        noteDropped(element, known: renewalFields, into: &dropped)
        guard let original = element["original_transaction_id"]?.lenientString, !original.isEmpty else {
            throw ImportFailure(offset: element.offset, message: "renewal info without `original_transaction_id`", path: path)
        }
        var grace: Instant?
        if let value = element["grace_period_expires_date_ms"], !value.isNull {
            grace = try value.instant(key: "grace_period_expires_date_ms", path: path + ".grace_period_expires_date_ms")
        }
        let product = element["product_id"]?.lenientString
        return Renewal(
            productId: product, originalTransactionId: original,
            willRenew: element["auto_renew_status"]?.lenientBool,
            isInBillingRetry: element["is_in_billing_retry_period"]?.lenientBool,
            gracePeriodExpiresDate: grace,
            renewsTo: element["auto_renew_product_id"]?.lenientString.flatMap { $0.isEmpty || $0 == product ? nil : $0 },
            expirationIntent: ExpirationIntents.map(element["expiration_intent"], path: path + ".expiration_intent", warnings: &warnings))
    }

    private static func mapTransaction(
        _ node: JSONNode, path: String, warnings: inout [ImportWarning], dropped: inout Set<String>
    ) throws(ImportFailure) -> Transaction {
        guard node.isObject else { throw ImportFailure(offset: node.offset, message: "expected a transaction object", path: path) }
        noteDropped(node, known: transactionFields, into: &dropped)
        func required(_ key: String) throws(ImportFailure) -> String {
            guard let text = node[key]?.lenientString, !text.isEmpty else {
                throw ImportFailure(offset: node.offset, message: "transaction without `\(key)`", path: path)
            }
            return text
        }
        // Optional fields may be null, as in App Store and normalized JSON.
        func instant(_ key: String) throws(ImportFailure) -> Instant? {
            if let ms = node[key + "_ms"], !ms.isNull {
                return try ms.instant(key: key + "_ms", path: "\(path).\(key)_ms")
            }
            guard let text = node[key], !text.isNull else { return nil }
            // Older responses hold milliseconds in the plain field; otherwise "2020-11-13 01:46:07 Etc/GMT".
            if text.milliseconds != nil { return try text.instant(key: key, path: "\(path).\(key)") }
            guard let string = text.lenientString, let value = appleDate(string) else {
                throw ImportFailure(offset: text.offset, message: "`\(key)` is not a date", path: "\(path).\(key)")
            }
            return value
        }
        let productId = try required("product_id")
        let transactionId = try required("transaction_id")
        guard let purchase = try instant("purchase_date") else {
            throw ImportFailure(offset: node.offset, message: "transaction without `purchase_date`", path: path)
        }
        var transaction = Transaction(
            productId: productId, transactionId: transactionId,
            originalTransactionId: node["original_transaction_id"]?.lenientString,
            purchaseDate: purchase, originalPurchaseDate: try instant("original_purchase_date"),
            expiresDate: try instant("expires_date"), cancellationDate: try instant("cancellation_date"))
        if let quantity = node["quantity"], !quantity.isNull {
            guard let value = quantity.lenientInteger, value >= 1, value <= ReceiptLimits.maxQuantity else {
                throw ImportFailure(
                    offset: quantity.offset, message: "`quantity` is not an integer from 1 to \(ReceiptLimits.maxQuantity)", path: path + ".quantity")
            }
            transaction.quantity = Int(value)
        }
        transaction.isTrialPeriod = node["is_trial_period"]?.lenientBool ?? false
        transaction.isIntroOfferPeriod = node["is_in_intro_offer_period"]?.lenientBool ?? false
        transaction.isUpgraded = node["is_upgraded"]?.lenientBool ?? false
        if let ownership = node["in_app_ownership_type"]?.lenientString {
            transaction.ownership = AppleOwnership.map(ownership, path: path + ".in_app_ownership_type", warnings: &warnings)
        }
        if transaction.isTrialPeriod || transaction.isIntroOfferPeriod { transaction.offerType = .introductory }
        if let offer = node["promotional_offer_id"]?.lenientString, !offer.isEmpty {
            transaction.offerType = .promotional
            transaction.offerId = offer
        } else if let code = node["offer_code_ref_name"]?.lenientString, !code.isEmpty {
            transaction.offerType = .offerCode
            transaction.offerId = code
        }
        transaction.appAccountToken = try AppStoreMapper.accountToken(
            node["app_account_token"], path: path + ".app_account_token", key: "app_account_token")
        if let reason = node["cancellation_reason"]?.lenientInteger {
            switch reason {
            case 0: transaction.revocationReason = .other
            case 1: transaction.revocationReason = .appIssue
            default:
                warnings.append(ImportWarning(path: path + ".cancellation_reason", message: "unknown cancellation reason \(reason), ignored"))
            }
        }
        return transaction
    }

    private static func noteDropped(_ node: JSONNode, known: Set<String>, into dropped: inout Set<String>) {
        guard case .object(let members) = node.value else { return }
        for member in members where !known.contains(member.key) { dropped.insert(member.key) }
    }

    /// Parses "2020-11-13 01:46:07 Etc/GMT" (UTC), the date form of verifyReceipt's plain fields.
    static func appleDate(_ text: String) -> Instant? {
        let parts = text.split(separator: " ")
        guard parts.count == 3, parts[2] == "Etc/GMT" || parts[2] == "UTC" else { return nil }
        return Instant(rfc3339: "\(parts[0])T\(parts[1])Z")
    }
}

/// Apple's ownership values.
enum AppleOwnership {
    static func map(_ raw: String, path: String, warnings: inout [ImportWarning]) -> Transaction.Ownership {
        switch raw {
        case "PURCHASED": return .purchased
        case "FAMILY_SHARED": return .familyShared
        default:
            warnings.append(ImportWarning(path: path, message: "unknown ownership `\(raw)`, read as purchased"))
            return .purchased
        }
    }
}

extension Transaction {
    /// The transactions with copies of one snapshot merged into the first, in first-seen order.
    ///
    /// Copies of one `transactionId` with the same `signedDate` (or none) are one snapshot, listed
    /// twice (`in_app` and `latest_receipt_info`, a history and a status response) and merged.
    /// Copies signed at different instants are different snapshots, and stay apart: evaluation
    /// takes, at each instant, the latest signed by then (a refund, and its reversal, hold from
    /// when Apple signed them).
    static func mergingCopies(_ transactions: [Transaction]) -> [Transaction] {
        struct Snapshot: Hashable {
            var transactionId: String
            var signedDate: Instant?
        }
        var merged: [Transaction] = []
        var index: [Snapshot: Int] = [:]
        for transaction in transactions {
            let key = Snapshot(transactionId: transaction.transactionId, signedDate: transaction.signedDate)
            if let existing = index[key] {
                merged[existing] = merged[existing].merged(with: transaction)
            } else {
                index[key] = merged.count
                merged.append(transaction)
            }
        }
        return merged
    }

    /// Two copies of one snapshot as one: the first copy's values, filled in from the second,
    /// with the earliest cancellation and the revocation fields of the copy that has it.
    func merged(with other: Transaction) -> Transaction {
        var result = self
        result.originalTransactionId = originalTransactionId ?? other.originalTransactionId
        result.originalPurchaseDate = originalPurchaseDate ?? other.originalPurchaseDate
        result.expiresDate = expiresDate ?? other.expiresDate
        if let theirs = other.cancellationDate, cancellationDate.map({ theirs < $0 }) ?? true {
            result.cancellationDate = theirs
            result.revocationReason = other.revocationReason
            result.revocationType = other.revocationType
            result.revocationPercentage = other.revocationPercentage
        }
        result.isTrialPeriod = isTrialPeriod || other.isTrialPeriod
        result.isIntroOfferPeriod = isIntroOfferPeriod || other.isIntroOfferPeriod
        result.isUpgraded = isUpgraded || other.isUpgraded
        if ownership == .purchased { result.ownership = other.ownership }
        if offerType == nil, offerId == nil {
            result.offerType = other.offerType
            result.offerId = other.offerId
        }
        result.appAccountToken = appAccountToken ?? other.appAccountToken
        result.billingPlan = billingPlan ?? other.billingPlan
        result.commitment = commitment ?? other.commitment
        return result
    }
}
