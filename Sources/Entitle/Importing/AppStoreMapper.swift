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
/// | `offerType` 2, 3, 4; `offerIdentifier` | `offerType` (`promotional`, `offer-code`, `win-back`); `offerId` |
/// | `revocationReason` 0, 1 | `revocationReason` (`other`, `app-issue`) |
/// | `signedDate` (ms; else the enclosing notification's) | `signedDate` |
/// | `revocationType` `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE` | `revocationType` (`refund-full`, `refund-prorated`, `family-revoke`) |
/// | `revocationPercentage` (thousandths, 0 to 100000) | `revocationPercentage` (divided by 1,000: `50000` is `50`) |
/// | `appAccountToken` (a UUID; `""` is none) | `appAccountToken` (lowercase) |
/// | `billingPlanType` `MONTHLY`, `BILLED_UPFRONT` | `billingPlan` (`monthly`, `billed-upfront`) |
/// | `commitmentInfo` `billingPeriodNumber`, `totalBillingPeriods`, `commitmentExpiresDate` | `commitment` `period`, `periods`, `endsAt` |
/// | renewal `originalTransactionId`, `productId` | `renewals[].originalTransactionId`, `productId` |
/// | renewal `autoRenewStatus` (1/0), `isInBillingRetryPeriod`, `gracePeriodExpiresDate` | `willRenew`, `isInBillingRetry`, `gracePeriodExpiresDate` |
/// | renewal `signedDate` (else the notification's), `autoRenewProductId` (when it differs), `expirationIntent` 1..5 | `signedDate`, `renewsTo`, `expirationIntent` |
/// | renewal `eligibleWinBackOfferIds`, `appAccountToken` | `winBackOffers`, `appAccountToken` |
/// | app transaction `originalApplicationVersion` | `originalApplicationVersion` |
/// | app transaction `appTransactionId`, `originalPlatform`, `preorderDate` (ms) | the same fields |
/// | transaction and renewal `appTransactionId` | the same field |
/// | `offerPeriod` (ISO 8601), `offerDiscountType` (`FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`, `ONE_TIME`) | `offerPeriod`, `offerDiscountType` (`free-trial`, ...) |
/// | renewal `renewalPrice` (milliunits), `currency` | `renewalPrice` (a decimal: `9990` is `9.99`), `currency` |
/// | `advancedCommerceInfo.items[]` `SKU`, `price`, `revocationDate`, `refunds[]` (`refundAmount`, `refundDate`, `refundType`) | `items[]` `sku`, `price` (a decimal), `revocationDate`, `refunds[]` (`amount`, `date`, `type` `full`, `prorated`, `custom`) |
/// | a `RESCIND_CONSENT` notification's `signedDate` (its `appData` carries the app transaction) | `consentRescinded` |
///
/// Where Apple's values need a choice:
/// - an unknown `revocationType`, `billingPlanType`, `offerType` or `revocationReason` is left out,
///   with a warning, so a value Apple adds later does not refuse the data;
/// - a `revocationPercentage` that is not a whole number of thousandths from 0 to 100000 refuses
///   the data, located: a refund of the wrong size would change how many credits a customer keeps;
/// - an `appAccountToken` that is not a UUID refuses the data, located: Apple only signs UUIDs, and
///   dropping the token would let the transaction count for every account, not only its own;
/// - `commitmentInfo` without one of its three fields is left out with a warning; a value of the
///   wrong kind or range refuses the data;
/// - an `originalPlatform` entitle does not know is left out with a warning; app transactions
///   that disagree keep the smaller value (the earlier date), whatever the order they come in;
/// - a `RESCIND_CONSENT` notification without a `signedDate` refuses the data: when consent ended
///   decides every feature.
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
    /// The app transaction's facts.
    var appTransactionId: String?
    var originalPlatform: AppPlatform?
    var preorderDate: Instant?
    /// The earliest `RESCIND_CONSENT` notification's `signedDate`.
    var consentRescinded: Instant?
    var warnings: [ImportWarning] = []
    /// Fields of transactions and renewal info that the normalized receipt does not carry.
    var dropped: Set<String> = []

    static let transactionFields: Set<String> = [
        "transactionId", "originalTransactionId", "productId", "bundleId", "purchaseDate", "originalPurchaseDate",
        "expiresDate", "revocationDate", "quantity", "isUpgraded", "inAppOwnershipType", "offerType", "offerDiscountType",
        "offerIdentifier", "revocationReason", "environment", "signedDate", "revocationType", "revocationPercentage",
        "appAccountToken", "billingPlanType", "commitmentInfo", "appTransactionId", "offerPeriod", "advancedCommerceInfo",
    ]
    static let renewalFields: Set<String> = [
        "originalTransactionId", "productId", "autoRenewStatus", "isInBillingRetryPeriod", "gracePeriodExpiresDate", "environment",
        "signedDate", "autoRenewProductId", "expirationIntent", "eligibleWinBackOfferIds", "appAccountToken", "appTransactionId",
        "renewalPrice", "currency", "advancedCommerceInfo",
    ]
    /// `Date.distantPast` in milliseconds, the placeholder Xcode writes.
    static let distantPast: Int64 = -62_135_769_600_000
    /// The receipt-level `originalPurchaseDate` (from an app transaction).
    var originalPurchaseDate: Instant?
    /// What each notification read says about itself.
    var notifications: [NotificationInfo] = []
    /// The `signedDate` of the notification being read, for transactions and renewal info that have none.
    var notificationSignedDate: Instant?
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
            return [
                "transactionId", "originalTransactionId", "signedTransactions", "signedPayload", "signedTransactionInfo",
                "signedRenewalInfo", "appTransactionId", "autoRenewProductId", "notificationType", "bundleId", "signedDate",
                "signedAppTransactionInfo", "notificationHistory",
            ]
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
            || (node["originalTransactionId"] != nil && node["signedTransactionInfo"] == nil && node["status"] == nil)
        {
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
                    warnings.append(
                        ImportWarning(
                            path: join("originalPurchaseDate"),
                            message: "Xcode's placeholder date (0000-12-30, `Date.distantPast`) read as absent"))
                } else {
                    originalPurchaseDate = try value.instant(key: "originalPurchaseDate", path: join("originalPurchaseDate"))
                }
            }
            if let raw = node["receiptType"]?.lenientString, environment == nil {
                environment = AppleEnvironment.normalize(raw, path: join("receiptType"), warnings: &warnings)
            }
            try mapAppTransaction(node, path: path)
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
        for key in ["signedPayload", "signedTransactionInfo", "signedRenewalInfo", "signedAppTransactionInfo"] {
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
        // Get Notification History: each notification's `signedPayload`, as Apple sent it.
        if let list = node["notificationHistory"] {
            recognized = true
            guard let elements = list.elements else {
                throw ImportFailure(offset: list.offset, message: "expected an array of notifications", path: join("notificationHistory"))
            }
            for (index, element) in elements.enumerated() {
                guard let payload = element["signedPayload"] else {
                    throw ImportFailure(
                        offset: element.offset, message: "a notification history item without `signedPayload`",
                        path: join("notificationHistory[\(index)]"))
                }
                try signed(payload, path: join("notificationHistory[\(index)].signedPayload"), depth: depth)
            }
        }
        // An app transaction envelope (`RESCIND_CONSENT`'s, Get App Transaction Info's).
        if let data = node["appData"], !data.isNull {
            recognized = true
            try map(data, path: join("appData"), depth: depth + 1)
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
            if type == "RESCIND_CONSENT" {
                // Outside a JWS under verification, nobody vouches for it.
                try verification?.requireSigned(trusted, offset: node.offset, path: path)
                guard let signed = notificationSignedDate else {
                    throw ImportFailure(
                        offset: node.offset, message: "a `RESCIND_CONSENT` notification without `signedDate`", path: path,
                        help: "the instant Apple signed it is when the customer's consent ended")
                }
                consentRescinded = min(consentRescinded ?? signed, signed)
            }
            notifications.append(
                NotificationInfo(
                    type: type, subtype: node["subtype"]?.lenientString, uuid: node["notificationUUID"]?.lenientString,
                    signedDate: notificationSignedDate, consumptionRequestReason: node["data"]?["consumptionRequestReason"]?.lenientString))
            recognized = true
            if transactions.isEmpty, renewals.isEmpty, type != "RESCIND_CONSENT" {
                warnings.append(ImportWarning(path: join("notificationType"), message: "a `\(type)` notification carries no transaction"))
            }
        }
        if !recognized {
            throw ImportFailure(offset: node.offset, message: "not a transaction, renewal info or App Store response", path: path)
        }
    }

    /// An app transaction's `appTransactionId`, `originalPlatform` and `preorderDate`. Two app
    /// transactions that disagree keep the smaller id and platform and the earlier date, so the
    /// order they are read in does not matter.
    private mutating func mapAppTransaction(_ node: JSONNode, path: String) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        if let id = node["appTransactionId"]?.lenientString, !id.isEmpty {
            appTransactionId = min(appTransactionId ?? id, id)
        }
        if let raw = node["originalPlatform"], !raw.isNull {
            if let name = raw.lenientString, let platform = AppPlatform(rawValue: name) {
                originalPlatform = min(originalPlatform ?? platform, platform)
            } else {
                warnings.append(
                    ImportWarning(
                        path: join("originalPlatform"),
                        message: "unknown platform \(raw.lenientString.map { "`\(Diagnostic.excerpt($0))`" } ?? "value"), ignored"))
            }
        }
        if let value = node["preorderDate"], !value.isNull {
            let instant = try value.instant(key: "preorderDate", path: join("preorderDate"))
            preorderDate = min(preorderDate ?? instant, instant)
        }
    }

    /// A signed field: a compact JWS, or a placeholder that is reported and skipped.
    private mutating func signed(_ node: JSONNode, path: String, depth: Int) throws(ImportFailure) {
        guard case .string(let text) = node.value else {
            throw ImportFailure(offset: node.offset, message: "expected a JWS string", path: path)
        }
        guard let problem = CompactJWS.problem(text) else {
            try mapJWS(text, offset: node.offset, path: path, depth: depth)
            return
        }
        // A placeholder (Apple's own examples write `signed_transaction_info_value`) is skipped,
        // saying so; a JWS damaged or cut short is an error, never an empty receipt.
        guard CompactJWS.resembles(text) else {
            warnings.append(
                ImportWarning(path: path, message: "`\(Diagnostic.excerpt(String(text.prefix(40))))` is not a compact JWS and was skipped"))
            return
        }
        throw ImportFailure(
            offset: node.offset, message: "`\(Diagnostic.excerpt(String(text.prefix(40))))` is not a compact JWS: \(problem)", path: path,
            help: "Apple's signed data is `header.payload.signature`, each part base64url: give the value whole, as Apple sent it")
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
        /// The value of `key`, one of Apple's names in `values`; another name (or a value not a
        /// string) is ignored with a warning.
        func known<Value>(_ key: String, _ what: String, _ values: [String: Value]) -> Value? {
            guard let raw = node[key], !raw.isNull else { return nil }
            if let name = raw.lenientString, let value = values[name] { return value }
            warnings.append(
                ImportWarning(
                    path: join(key), message: "unknown \(what) \(raw.lenientString.map { "`\(Diagnostic.excerpt($0))`" } ?? "value"), ignored"))
            return nil
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
                throw ImportFailure(
                    offset: quantity.offset, message: "`quantity` is not an integer from 1 to \(ReceiptLimits.maxQuantity)", path: join("quantity"))
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
        transaction.signedDate = try instant("signedDate") ?? notificationSignedDate
        transaction.revocationType = known(
            "revocationType", "revocation type",
            ["REFUND_FULL": .refundFull, "REFUND_PRORATED": .refundProrated, "FAMILY_REVOKE": .familyRevoke])
        if let raw = node["revocationPercentage"], !raw.isNull {
            guard let thousandths = raw.lenientInteger, (0...Int64(TransactionRecord.wholePercentage)).contains(thousandths) else {
                throw ImportFailure(
                    offset: raw.offset, message: "`revocationPercentage` is not a whole number from 0 to 100000", path: join("revocationPercentage"),
                    help: "Apple gives the refunded part in thousandths of a percent: `50000` is 50%")
            }
            transaction.revocationPercentage = Double(thousandths) / 1_000
        }
        transaction.appAccountToken = try Self.accountToken(node["appAccountToken"], path: join("appAccountToken"))
        transaction.billingPlan = known("billingPlanType", "billing plan type", ["MONTHLY": .monthly, "BILLED_UPFRONT": .billedUpfront])
        if let info = node["commitmentInfo"], !info.isNull {
            transaction.commitment = try commitment(info, path: join("commitmentInfo"))
        }
        if let id = node["appTransactionId"]?.lenientString, !id.isEmpty { transaction.appTransactionId = id }
        transaction.offerDiscountType = known(
            "offerDiscountType", "offer discount type",
            ["FREE_TRIAL": .freeTrial, "PAY_AS_YOU_GO": .payAsYouGo, "PAY_UP_FRONT": .payUpFront, "ONE_TIME": .oneTime])
        if let raw = node["offerPeriod"], !raw.isNull {
            if let text = raw.lenientString, let period = ISODuration(text), period.isPositive, period.isWithinLimit {
                transaction.offerPeriod = period
            } else {
                warnings.append(
                    ImportWarning(
                        path: join("offerPeriod"),
                        message:
                            "offer period \(raw.lenientString.map { "`\(Diagnostic.excerpt($0))`" } ?? "value") is not an ISO 8601 duration, ignored")
                )
            }
        }
        transaction.items = try advancedCommerceItems(node, renewal: false, path: path)
        noteDropped(node, known: Self.transactionFields)
        transactions.append(transaction)
    }

    /// A transaction's `commitmentInfo` as a commitment; `nil`, with a warning, when one of its
    /// three fields is missing.
    private mutating func commitment(_ node: JSONNode, path: String) throws(ImportFailure) -> Transaction.Commitment? {
        guard node.isObject else { throw ImportFailure(offset: node.offset, message: "`commitmentInfo` is not an object", path: path) }
        func count(_ key: String) throws(ImportFailure) -> Int? {
            guard let value = node[key], !value.isNull else { return nil }
            guard let number = value.lenientInteger, (1...Int64(ReceiptLimits.maxCommitmentPeriods)).contains(number) else {
                throw ImportFailure(
                    offset: value.offset, message: "`\(key)` is not a whole number from 1 to \(ReceiptLimits.maxCommitmentPeriods)",
                    path: "\(path).\(key)")
            }
            return Int(number)
        }
        let period = try count("billingPeriodNumber")
        let periods = try count("totalBillingPeriods")
        var ends: Instant?
        if let value = node["commitmentExpiresDate"], !value.isNull {
            ends = try value.instant(key: "commitmentExpiresDate", path: path + ".commitmentExpiresDate")
        }
        guard let period, let periods, let ends else {
            let missing = [("billingPeriodNumber", period == nil), ("totalBillingPeriods", periods == nil), ("commitmentExpiresDate", ends == nil)]
                .filter(\.1).map { "`\($0.0)`" }
            warnings.append(ImportWarning(path: path, message: "commitment without \(missing.joined(separator: ", ")), ignored"))
            return nil
        }
        guard period <= periods else {
            throw ImportFailure(
                offset: node.offset, message: "billing period \(period) of a commitment of \(periods) periods", path: path,
                help: "`billingPeriodNumber` counts from 1 to `totalBillingPeriods`")
        }
        return Transaction.Commitment(period: period, periods: periods, endsAt: ends)
    }

    /// An `appAccountToken` (verifyReceipt's `app_account_token`, as `key` names it): a UUID, in
    /// lowercase; `nil` when absent, null or empty.
    ///
    /// - Throws: ``ImportFailure`` when it is anything else. Apple only signs UUIDs here, and a
    ///   transaction without its token would count for every account of the app.
    static func accountToken(_ node: JSONNode?, path: String, key: String = "appAccountToken") throws(ImportFailure) -> String? {
        guard let node, !node.isNull else { return nil }
        guard case .string(let text) = node.value else {
            throw ImportFailure(offset: node.offset, message: "`\(key)` is not a string", path: path)
        }
        if text.isEmpty { return nil }
        guard let token = AccountToken.canonical(text) else {
            throw ImportFailure(
                offset: node.offset, message: "`\(key)` `\(Diagnostic.excerpt(text))` is not a UUID", path: path,
                help: "an app account token looks like `7e3fb20b-4cdb-47cc-936d-99d65f608138`")
        }
        return token
    }

    /// Notes the fields of `node` that are not carried into the normalized receipt.
    mutating func noteDropped(_ node: JSONNode, known: Set<String>) {
        guard case .object(let members) = node.value else { return }
        for member in members where !known.contains(member.key) { dropped.insert(member.key) }
    }

    private mutating func note(app: String, offset: Int) {
        if !apps.contains(where: { $0.app == app }) { apps.append((app, offset)) }
    }
}
