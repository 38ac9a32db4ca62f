/// The formats stores hand out that entitle can read, besides its own normalized receipt.
@nonexhaustive
public enum ReceiptFormat: String, CaseIterable, Hashable, Sendable {
    /// A legacy verifyReceipt response, or a v1 server notification with `unified_receipt`.
    case verifyReceipt = "verify-receipt"
    /// App Store Server API / StoreKit 2 data: decoded JWS payloads, compact JWS strings, or
    /// transaction-history, subscription-status and notification responses.
    case appStore = "app-store"
    /// An app receipt as found on a device: PKCS#7, DER or base64.
    case pkcs7
    /// Stripe's objects: Subscriptions, Checkout Sessions, Charges, Refunds, Invoices, Events.
    case stripe
    /// Google Play's purchase resources (Android Publisher API) and voided purchases.
    case play

    /// What the format is, in words: `verifyReceipt response`, `App Store Server data`, `PKCS#7 app receipt`.
    public var phrase: String {
        switch self {
        case .verifyReceipt: "verifyReceipt response"
        case .appStore: "App Store Server data"
        case .pkcs7: "PKCS#7 app receipt"
        case .stripe: "Stripe data"
        case .play: "Google Play data"
        }
    }

    /// The store whose purchases the format holds.
    public var store: Store {
        switch self {
        case .verifyReceipt, .appStore, .pkcs7: .appStore
        case .stripe: .stripe
        case .play: .play
        }
    }
}

/// A receipt read from a store's data, with what could not be mapped.
///
/// Nothing in it is verified: see ``AppleImport`` and ``StoreImport``.
public struct ImportedReceipt: Sendable {
    /// The normalized receipt.
    public var receipt: Receipt
    /// The format the data was read as.
    public var format: ReceiptFormat
    /// Values that were kept raw or skipped, each with where it was.
    public var warnings: [ImportWarning]
    /// What each App Store Server Notification read says about itself, in the order read: its
    /// type, subtype, UUID and signing date, for deduplicating retries and reacting to a refund.
    public var notifications: [NotificationInfo]
    /// The purchases Google Play's real-time developer notifications named without their state
    /// (a notification says only that a purchase changed): the service fetches each from the
    /// Android Publisher API and reads the record (``StoreImport/unverifiedReceipt(fromPlay:name:app:token:)``).
    public var toFetch: [PurchaseToFetch]

    /// An imported receipt.
    public init(
        receipt: Receipt, format: ReceiptFormat, warnings: [ImportWarning], notifications: [NotificationInfo] = [], toFetch: [PurchaseToFetch] = []
    ) {
        self.receipt = receipt
        self.format = format
        self.warnings = warnings
        self.notifications = notifications
        self.toFetch = toFetch
    }
}

/// A Play purchase a notification named, to fetch: `purchases.subscriptionsv2.get` for a
/// subscription, `purchases.productsv2.getproductpurchasev2` (or v1 `purchases.products.get`) for a
/// one-time product, by its token.
public struct PurchaseToFetch: Hashable, Sendable, Codable {
    /// The purchase token.
    public var token: String
    /// Whether it is a subscription's (else a one-time product's).
    public var subscription: Bool
    /// The product the notification names (a v1 `subscriptionId` or `sku`), when it does.
    public var productId: String?

    /// A purchase to fetch.
    public init(token: String, subscription: Bool, productId: String? = nil) {
        self.token = token
        self.subscription = subscription
        self.productId = productId
    }
}

/// What a store's notification says about itself: an App Store Server Notification (version 2),
/// or a Google Play real-time developer notification (its kind as `type`, its `notificationType`
/// by name as `subtype`, the Pub/Sub push's `messageId` as `uuid`, its `eventTimeMillis` as
/// `signedDate`).
public struct NotificationInfo: Hashable, Sendable, Codable {
    /// `notificationType`: `SUBSCRIBED`, `DID_RENEW`, `REFUND`, `CONSUMPTION_REQUEST`, ...
    public var type: String
    /// `subtype`: `INITIAL_BUY`, `RESUBSCRIBE`, `VOLUNTARY`, ...; `nil` when it has none.
    public var subtype: String?
    /// `notificationUUID`: the same for each retry of one notification.
    public var uuid: String?
    /// `signedDate`: when Apple signed it.
    public var signedDate: Instant?
    /// A `CONSUMPTION_REQUEST`'s `consumptionRequestReason` (`UNINTENDED_PURCHASE`,
    /// `FULFILLMENT_ISSUE`, `UNSATISFIED_WITH_PURCHASE`, `LEGAL`, `OTHER`).
    public var consumptionRequestReason: String?

    /// Notification metadata.
    public init(type: String, subtype: String? = nil, uuid: String? = nil, signedDate: Instant? = nil, consumptionRequestReason: String? = nil) {
        self.type = type
        self.subtype = subtype
        self.uuid = uuid
        self.signedDate = signedDate
        self.consumptionRequestReason = consumptionRequestReason
    }
}

/// A value in a store's data that entitle could not map fully.
public struct ImportWarning: Hashable, Sendable, CustomStringConvertible {
    /// Where the value was, such as `latest_receipt_info[3].in_app_ownership_type`.
    public var path: String
    /// What was kept raw or skipped, in words.
    public var message: String

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }

    /// The one warning listing the fields a mapper did not carry into the normalized receipt.
    static func dropped(_ fields: Set<String>) -> ImportWarning? {
        guard !fields.isEmpty else { return nil }
        let sorted = fields.sorted()
        let shown = sorted.prefix(40).map { "`\($0)`" }.joined(separator: ", ")
        let more = sorted.count > 40 ? " and \(sorted.count - 40) more" : ""
        return ImportWarning(path: "", message: "not carried into the normalized receipt (entitle does not use them): \(shown)\(more)")
    }
}

/// Maps Apple's environment spellings to the normalized ones, keeping an unknown value raw.
enum AppleEnvironment {
    static func normalize(_ raw: String, path: String, warnings: inout [ImportWarning]) -> String {
        switch raw.lowercased() {
        case "production", "prod": return "production"
        case "sandbox", "productionsandbox": return "sandbox"
        case "xcode": return "xcode"
        case "localtesting", "local-testing": return "local-testing"
        default:
            warnings.append(ImportWarning(path: path, message: "unknown environment `\(raw)`, kept as is"))
            return raw
        }
    }
}

/// Maps Apple's `expirationIntent` (1 to 5) to the normalized values.
enum ExpirationIntents {
    static func map(_ node: JSONNode?, path: String, warnings: inout [ImportWarning]) -> Renewal.ExpirationIntent? {
        guard let node, let code = node.lenientInteger else { return nil }
        switch code {
        case 1: return .voluntary
        case 2: return .billingError
        case 3: return .priceIncrease
        case 4: return .productUnavailable
        case 5: return .other
        default:
            warnings.append(ImportWarning(path: path, message: "unknown expiration intent \(code), ignored"))
            return nil
        }
    }
}
