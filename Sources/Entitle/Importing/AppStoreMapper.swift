import Foundation

/// Maps App Store Server API and StoreKit 2 data to a receipt: decoded `JWSTransactionDecodedPayload`
/// and `JWSRenewalInfoDecodedPayload` objects (alone or in arrays), compact JWS strings whose
/// payload is one of those, transaction-history (`signedTransactions`) and subscription-status
/// (`data[].lastTransactions[]`) responses, v2 notifications (`signedPayload`) and app transactions.
///
/// | App Store | normalized |
/// |---|---|
/// | `bundleId` | `app` |
/// | `environment` (`Production`, `Sandbox`, `Xcode`, `LocalTesting`) | `environment` |
/// | `productId`, `transactionId`, `originalTransactionId` | the same fields |
/// | `purchaseDate`, `originalPurchaseDate`, `expiresDate` (ms) | the same fields |
/// | `revocationDate` (ms) | `cancellationDate` |
/// | `quantity`, `isUpgraded` | the same fields |
/// | `inAppOwnershipType` (`PURCHASED`, `FAMILY_SHARED`) | `ownership` |
/// | `offerType` 1 with `offerDiscountType` `FREE_TRIAL` | `isTrialPeriod` |
/// | `offerType` 1, other discount types | `isIntroOfferPeriod` |
/// | renewal `originalTransactionId`, `productId` | `renewals[].originalTransactionId`, `productId` |
/// | renewal `autoRenewStatus` (1/0), `isInBillingRetryPeriod`, `gracePeriodExpiresDate` | `willRenew`, `isInBillingRetry`, `gracePeriodExpiresDate` |
/// | app transaction `originalApplicationVersion` | `originalApplicationVersion` |
///
/// No signature is checked unless ``verification`` is set: a JWS is only split and its payload decoded.
struct AppStoreMapper {
    var transactions: [Transaction] = []
    var renewals: [Renewal] = []
    /// The apps the data names, each with the offset of its first `bundleId` (or of the JWS holding it).
    var apps: [(app: String, offset: Int)] = []
    /// The offset of the JWS being read, whose payload offsets mean nothing in the file.
    private var jwsOffset: Int?
    var environment: String?
    var originalApplicationVersion: String?
    var warnings: [ImportWarning] = []
    /// Fields of transactions and renewal info that the normalized receipt does not carry.
    var dropped: Set<String> = []

    static let transactionFields: Set<String> = [
        "transactionId", "originalTransactionId", "productId", "bundleId", "purchaseDate", "originalPurchaseDate",
        "expiresDate", "revocationDate", "quantity", "isUpgraded", "inAppOwnershipType", "offerType", "offerDiscountType",
        "offerIdentifier", "revocationReason", "environment",
    ]
    static let renewalFields: Set<String> = [
        "originalTransactionId", "productId", "autoRenewStatus", "isInBillingRetryPeriod", "gracePeriodExpiresDate", "environment",
        "signedDate", "autoRenewProductId", "expirationIntent",
    ]
    /// `Date.distantPast` in milliseconds, the placeholder Xcode writes.
    static let distantPast: Int64 = -62_135_769_600_000
    /// The receipt-level `originalPurchaseDate` (from an app transaction).
    var originalPurchaseDate: Instant?
    /// The `signedDate` of the notification being read, for renewal info that has none.
    private var notificationSignedDate: Instant?
    /// Verifies each JWS before its payload is mapped (a verifying import); `nil` maps without
    /// verifying. Under verification, data outside any JWS is not trusted: a transaction there is
    /// refused, and its `bundleId` and `environment` are not read.
    var verification: JWSVerification?

    /// Whether a parsed JSON value looks like App Store data.
    static func recognizes(_ root: JSONNode) -> Bool {
        switch root.value {
        case .string(let text): return CompactJWS.looksLike(text)
        case .array(let elements): return !elements.isEmpty && elements.allSatisfy(recognizes)
        case .object:
            return ["transactionId", "originalTransactionId", "signedTransactions", "signedPayload", "signedTransactionInfo",
                    "signedRenewalInfo", "appTransactionId", "autoRenewProductId", "notificationType", "bundleId", "signedDate"]
                .contains { root[$0] != nil }
        default: return false
        }
    }

    /// Maps everything in `root`.
    mutating func map(_ root: JSONNode, path: String, depth: Int = 0) throws(ImportFailure) {
        guard depth < 8 else { throw ImportFailure(offset: root.offset, message: "App Store data nested too deeply", path: path) }
        switch root.value {
        case .string(let text):
            try mapJWS(text, offset: root.offset, path: path, depth: depth)
        case .array(let elements):
            for (index, element) in elements.enumerated() { try map(element, path: "\(path)[\(index)]", depth: depth + 1) }
        case .object:
            try mapObject(root, path: path, depth: depth)
        default:
            throw ImportFailure(offset: root.offset, message: "expected App Store data (an object, an array or a JWS)", path: path)
        }
    }

    private mutating func mapObject(_ node: JSONNode, path: String, depth: Int) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        let trusted = verification == nil || jwsOffset != nil
        if trusted, let bundleNode = node["bundleId"], let bundle = bundleNode.lenientString {
            note(app: bundle, offset: jwsOffset ?? bundleNode.offset)
        }
        if trusted, let raw = node["environment"]?.lenientString {
            environment = AppleEnvironment.normalize(raw, path: join("environment"), warnings: &warnings)
        }
        if node["transactionId"] != nil {
            try verification?.requireSigned(trusted, offset: node.offset, path: path)
            try mapTransaction(node, path: path)
            return
        }
        if node["autoRenewStatus"] != nil || node["autoRenewProductId"] != nil
            || (node["originalTransactionId"] != nil && node["signedTransactionInfo"] == nil && node["status"] == nil) {
            try verification?.requireSigned(trusted, offset: node.offset, path: path)
            try mapRenewal(node, path: path)
            return
        }
        if node["appTransactionId"] != nil || node["originalApplicationVersion"] != nil {
            try verification?.requireSigned(trusted, offset: node.offset, path: path)
            originalApplicationVersion = node["originalApplicationVersion"]?.lenientString
            if let value = node["originalPurchaseDate"], !value.isNull {
                // Xcode signs app transactions with `Date.distantPast` (0000-12-30) for "unknown".
                if value.milliseconds == Self.distantPast {
                    warnings.append(ImportWarning(path: join("originalPurchaseDate"),
                                                  message: "Xcode's placeholder date (0000-12-30, `Date.distantPast`) read as absent"))
                } else {
                    originalPurchaseDate = try value.instant(key: "originalPurchaseDate", path: join("originalPurchaseDate"))
                }
            }
            if let raw = node["receiptType"]?.lenientString, environment == nil {
                environment = AppleEnvironment.normalize(raw, path: join("receiptType"), warnings: &warnings)
            }
            return
        }
        // Signed data always has some of these; an object with only them carries no purchase.
        var recognized = node["bundleId"] != nil || node["signedDate"] != nil || node["environment"] != nil
        // A notification's signing date stands in for renewal info without one of its own.
        let outerSignedDate = notificationSignedDate
        if node["notificationType"] != nil, let value = node["signedDate"], !value.isNull {
            notificationSignedDate = try value.instant(key: "signedDate", path: join("signedDate"))
        }
        defer { notificationSignedDate = outerSignedDate }
        for key in ["signedPayload", "signedTransactionInfo", "signedRenewalInfo"] {
            if let value = node[key] {
                recognized = true
                try signed(value, path: join(key), depth: depth)
            }
        }
        if let list = node["signedTransactions"] {
            recognized = true
            guard let elements = list.elements else {
                throw ImportFailure(offset: list.offset, message: "expected an array of JWS strings", path: join("signedTransactions"))
            }
            for (index, element) in elements.enumerated() { try signed(element, path: join("signedTransactions[\(index)]"), depth: depth) }
        }
        if let data = node["data"] {
            recognized = true
            if let groups = data.elements {
                for (index, group) in groups.enumerated() {
                    for (position, item) in (group["lastTransactions"]?.elements ?? []).enumerated() {
                        try map(item, path: join("data[\(index)].lastTransactions[\(position)]"), depth: depth + 1)
                    }
                }
            } else {
                try map(data, path: join("data"), depth: depth + 1)
            }
        }
        if let type = node["notificationType"]?.lenientString {
            recognized = true
            if transactions.isEmpty, renewals.isEmpty {
                warnings.append(ImportWarning(path: join("notificationType"), message: "a `\(type)` notification carries no transaction"))
            }
        }
        if !recognized {
            throw ImportFailure(offset: node.offset, message: "not a transaction, renewal info or App Store response", path: path)
        }
    }

    /// A signed field: a compact JWS, or a placeholder that is reported and skipped.
    private mutating func signed(_ node: JSONNode, path: String, depth: Int) throws(ImportFailure) {
        guard case .string(let text) = node.value else {
            throw ImportFailure(offset: node.offset, message: "expected a JWS string", path: path)
        }
        guard CompactJWS.looksLike(text) else {
            warnings.append(ImportWarning(path: path, message: "`\(text.prefix(40))` is not a compact JWS and was skipped"))
            return
        }
        try mapJWS(text, offset: node.offset, path: path, depth: depth)
    }

    private mutating func mapJWS(_ text: String, offset: Int, path: String, depth: Int) throws(ImportFailure) {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(text)
        } catch {
            throw ImportFailure(offset: offset, message: error.message, path: path)
        }
        if !jws.headerHasCertificateChain {
            warnings.append(ImportWarning(path: path, message: "the JWS header has no `x5c` certificate chain, so it could never be verified"))
        }
        try verification?.check(text, payload: jws.payload, offset: offset, path: path)
        let payload: JSONNode
        do {
            payload = try JSONDocument.parse(jws.payload, limits: .init(maxBytes: 1 << 20, maxDepth: 32)).root
        } catch let error as JSONSyntaxError {
            throw ImportFailure(offset: offset, message: "the JWS payload is not JSON: \(error.message)", path: path)
        } catch {
            throw ImportFailure(offset: offset, message: "the JWS payload is not JSON", path: path)
        }
        let outer = jwsOffset
        jwsOffset = outer ?? offset
        defer { jwsOffset = outer }
        do {
            try map(payload, path: path.isEmpty ? "(payload)" : path + " (payload)", depth: depth + 1)
        } catch var failure {
            // Offsets inside a decoded payload mean nothing in the file: point at the JWS.
            failure.offset = offset
            throw failure
        }
    }

    private mutating func mapTransaction(_ node: JSONNode, path: String) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        func required(_ key: String) throws(ImportFailure) -> String {
            guard let text = node[key]?.lenientString, !text.isEmpty else {
                throw ImportFailure(offset: node.offset, message: "transaction without `\(key)`", path: path)
            }
            return text
        }
        func instant(_ key: String) throws(ImportFailure) -> Instant? {
            guard let value = node[key], !value.isNull else { return nil }
            return try value.instant(key: key, path: join(key))
        }
        guard let purchase = try instant("purchaseDate") else {
            throw ImportFailure(offset: node.offset, message: "transaction without `purchaseDate`", path: path)
        }
        var transaction = Transaction(
            productId: try required("productId"), transactionId: try required("transactionId"),
            originalTransactionId: node["originalTransactionId"]?.lenientString, purchaseDate: purchase,
            originalPurchaseDate: try instant("originalPurchaseDate"), expiresDate: try instant("expiresDate"),
            cancellationDate: try instant("revocationDate"))
        if let quantity = node["quantity"] {
            guard let value = quantity.lenientInteger, value >= 1, value <= ReceiptLimits.maxQuantity else {
                throw ImportFailure(offset: quantity.offset, message: "`quantity` is not an integer from 1 to \(ReceiptLimits.maxQuantity)", path: join("quantity"))
            }
            transaction.quantity = Int(value)
        }
        transaction.isUpgraded = node["isUpgraded"]?.lenientBool ?? false
        if let ownership = node["inAppOwnershipType"]?.lenientString {
            transaction.ownership = AppleOwnership.map(ownership, path: join("inAppOwnershipType"), warnings: &warnings)
        }
        if let offerType = node["offerType"]?.lenientInteger {
            switch offerType {
            case 1:
                transaction.offerType = .introductory
                if node["offerDiscountType"]?.lenientString == "FREE_TRIAL" {
                    transaction.isTrialPeriod = true
                } else {
                    transaction.isIntroOfferPeriod = true
                }
            case 2: transaction.offerType = .promotional
            case 3: transaction.offerType = .offerCode
            case 4: transaction.offerType = .winBack
            default:
                warnings.append(ImportWarning(path: join("offerType"), message: "unknown offer type \(offerType), ignored"))
            }
        }
        if let offerId = node["offerIdentifier"]?.lenientString, !offerId.isEmpty { transaction.offerId = offerId }
        if let reason = node["revocationReason"]?.lenientInteger {
            switch reason {
            case 0: transaction.revocationReason = .other
            case 1: transaction.revocationReason = .appIssue
            default:
                warnings.append(ImportWarning(path: join("revocationReason"), message: "unknown revocation reason \(reason), ignored"))
            }
        }
        noteDropped(node, known: Self.transactionFields)
        transactions.append(transaction)
    }

    private mutating func mapRenewal(_ node: JSONNode, path: String) throws(ImportFailure) {
        guard let original = node["originalTransactionId"]?.lenientString, !original.isEmpty else {
            throw ImportFailure(offset: node.offset, message: "renewal info without `originalTransactionId`", path: path)
        }
        var grace: Instant?
        if let value = node["gracePeriodExpiresDate"], !value.isNull {
            grace = try value.instant(key: "gracePeriodExpiresDate", path: path.isEmpty ? "gracePeriodExpiresDate" : path + ".gracePeriodExpiresDate")
        }
        noteDropped(node, known: Self.renewalFields)
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        var signed = notificationSignedDate
        if let value = node["signedDate"], !value.isNull { signed = try value.instant(key: "signedDate", path: join("signedDate")) }
        let product = node["productId"]?.lenientString
        let renewsTo = node["autoRenewProductId"]?.lenientString.flatMap { $0.isEmpty || $0 == product ? nil : $0 }
        renewals.append(Renewal(
            productId: product, originalTransactionId: original,
            willRenew: node["autoRenewStatus"]?.lenientBool, isInBillingRetry: node["isInBillingRetryPeriod"]?.lenientBool,
            gracePeriodExpiresDate: grace, signedDate: signed, renewsTo: renewsTo,
            expirationIntent: ExpirationIntents.map(node["expirationIntent"], path: join("expirationIntent"), warnings: &warnings)))
    }

    /// Notes the fields of `node` that are not carried into the normalized receipt.
    private mutating func noteDropped(_ node: JSONNode, known: Set<String>) {
        guard case .object(let members) = node.value else { return }
        for member in members where !known.contains(member.key) { dropped.insert(member.key) }
    }

    private mutating func note(app: String, offset: Int) {
        if !apps.contains(where: { $0.app == app }) { apps.append((app, offset)) }
    }
}
