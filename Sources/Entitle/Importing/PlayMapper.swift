import Foundation

/// Google Play's purchase data (the Android Publisher API), read into a normalized receipt of
/// store `play`: SubscriptionPurchaseV2, ProductPurchaseV2 and ProductPurchase resources, the
/// record a service keeps of one (the resource with its token, package and the time it was
/// fetched), VoidedPurchase lists, real-time developer notifications (pushed or decoded: noted,
/// with the purchases they name to fetch), and arrays of them.
///
/// The record (what the Play APIs leave a service to keep, since a resource names neither its
/// token nor its app):
///
/// ```json
/// {"packageName": "com.example.app", "purchaseToken": "...", "observedAt": "2026-11-24T16:00:00Z",
///  "purchase": {...}}
/// ```
///
/// (`subscriptionPurchase` or `productPurchase` may name the resource's kind instead of `purchase`;
/// `productId` gives a v1 ProductPurchase's product when the resource omits it). A resource read
/// alone takes its token from the caller (`--token`). `observedAt` (RFC 3339 or milliseconds; or
/// `eventTimeMillis`, as Play's real-time developer notifications name it) is when the resource was
/// fetched: the snapshot's `signedDate`, and the purchase time of a pending purchase, which has
/// none yet.
///
/// - A subscription's line item is a transaction of product `<productId>:<basePlanId>`, named by
///   its latest order (`latestSuccessfulOrderId`), of the purchase token's chain, from the
///   subscription's `startTime` to the item's `expiryTime`. `autoRenewingPlan.autoRenewEnabled` is
///   `willRenew`; a prepaid plan does not renew.
/// - States: `ACTIVE` and `CANCELED` (still paid until expiry) as they are; `IN_GRACE_PERIOD` is
///   billing retry in a grace period until `expiryTime`, paid until the record's time;
///   `ON_HOLD` is billing retry without grace (account hold); `PAUSED` pauses until
///   `pausedStateContext.autoResumeTime`; `PENDING` is a pending purchase;
///   `PENDING_PURCHASE_CANCELED` bought nothing.
/// - An installment plan is the transaction's `commitment` (payment k of n, ending the remaining
///   payments' months after this period); pending cancellation renews until they are paid. A
///   deferred replacement is the chain's `renewsTo` (with the current base plan: Play names none).
/// - A one-time purchase's purchase option (`productOfferDetails.purchaseOptionId`) is its
///   transaction's `purchaseOptionId` (the catalog's `<productId>:<option>` when declared), its
///   `offerId` the offer's, and a pre-order's `preorderOfferDetails.preorderReleaseTime` its
///   `releaseDate` (a pre-order not completed is dated by the record's time).
/// - A prepaid plan's line item (`prepaidPlan`) is a purchase that does not renew, with
///   `topUpAfter` from `allowExtendAfterTime`; a top-up's link is not a replacement (the purchase
///   topped up keeps its time: the catalog stacks them as a non-renewing subscription).
/// - A subscription's `linkedPurchaseToken` (or `outOfAppPurchaseContext.expiredPurchaseToken`) is kept on its transactions: the subscription of that
///   token ends, at the latest, when the new one starts (``SubscriptionLinks``: here for the data
///   read, and again when it is evaluated with other receipts).
/// - `acknowledgementState` pending is `acknowledged: false` (acknowledged: left out); the external account id is
///   `account`; `regionCode` (alpha-2) is the storefront (alpha-3); a test purchase is `sandbox`.
/// - A voided purchase is kept as a fact (``Revocation``) about the purchase with its order id
///   (else its token's one-time purchase), voided at `voidedTimeMillis`, in part when
///   `voidedQuantity` is less than the quantity: evaluation applies it to that purchase in
///   whichever of the customer's receipts it is (``RevocationFacts``), so voided purchases may be
///   read alone, before or after their purchases. More units voided than a purchase in the data
///   bought is an error.
struct PlayMapper {
    var transactions: [Transaction] = []
    var renewals: [Renewal] = []
    var warnings: [ImportWarning] = []
    /// The package names the data gives, with where.
    var apps: [(app: String, offset: Int)] = []
    var environment: String?
    var voids: [Voided] = []
    /// The voids, as facts about the purchases they name.
    var revocations: [Revocation] = []
    /// Purchases Play reports cancelled, which no void may date, with where.
    var undated: [(id: String, path: String)] = []
    /// One-time purchases by token: a void may name the token alone.
    var purchaseTokens: [String: String] = [:]
    /// What each real-time developer notification read says about itself.
    var notifications: [NotificationInfo] = []
    /// The purchases notifications name without their resource: the service fetches them.
    var toFetch: [PurchaseToFetch] = []

    struct Voided {
        var token: String?
        var order: String?
        var date: Instant
        var quantity: Int64?
        var offset: Int
        var path: String
    }

    struct Record {
        var token: String?
        var productId: String?
        var observed: Instant?
        /// The Pub/Sub `messageId` of the push the notification came in.
        var messageId: String?
    }

    /// The members of a `DeveloperNotification` that each name one kind of notification.
    static let notificationKinds = [
        "subscriptionNotification", "oneTimeProductNotification", "voidedPurchaseNotification", "pendingRefundReviewNotification",
        "testNotification",
    ]

    /// The `kind`s of Play's resources entitle reads.
    static let kinds: Set<String> = [
        "androidpublisher#subscriptionPurchaseV2", "androidpublisher#productPurchaseV2", "androidpublisher#productPurchase",
        "androidpublisher#voidedPurchase", "androidpublisher#voidedPurchasesListResponse",
    ]

    /// Whether parsed JSON looks like Play's: a resource (by `kind` or its own members), a record
    /// of one, a voided-purchase list or notification, or an array of them.
    static func recognizes(_ root: JSONNode) -> Bool {
        switch root.value {
        case .array(let elements): return !elements.isEmpty && elements.allSatisfy(recognizes)
        case .object:
            if case .string(let kind)? = root["kind"]?.value { return kinds.contains(kind) }
            return [
                "subscriptionPurchase", "productPurchase", "purchase", "voidedPurchases", "purchaseToken", "voidedPurchaseNotification",
                "subscriptionState",
                "productLineItem", "voidedTimeMillis",
            ]
            .contains { root[$0] != nil } || notificationKinds.contains { root[$0] != nil }
                || (root["purchaseTimeMillis"] != nil && root["purchaseState"] != nil)
                || (root["message"]?["data"] != nil && root["message"]?["messageId"] != nil)
        default: return false
        }
    }

    mutating func map(_ root: JSONNode, token: String? = nil) throws(ImportFailure) {
        try map(root, path: "", record: Record(token: token), depth: 0)
        applyLinks()
        try keepVoids()
    }

    mutating func map(_ node: JSONNode, path: String, record: Record, depth: Int) throws(ImportFailure) {
        guard depth < 8 else { throw ImportFailure(offset: node.offset, message: "Play data nested too deeply", path: path) }
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        if let elements = node.elements {
            for (index, element) in elements.enumerated() { try map(element, path: "\(path)[\(index)]", record: record, depth: depth + 1) }
            return
        }
        guard node.isObject else { throw ImportFailure(offset: node.offset, message: "expected a Play purchase (an object)", path: path) }
        if let message = node["message"], let data = message["data"] {
            try push(message, data: data, path: join("message"), record: record, depth: depth)
            return
        }
        if let package = node["packageName"] {
            guard case .string(let name) = package.value, !name.isEmpty else {
                throw ImportFailure(offset: package.offset, message: "`packageName` is not a package name", path: join("packageName"))
            }
            apps.append((name, package.offset))
        }
        var record = record
        if let token = node["purchaseToken"]?.lenientString, !token.isEmpty { record.token = token }
        if let product = node["productId"]?.lenientString ?? node["subscriptionId"]?.lenientString, !product.isEmpty { record.productId = product }
        if let event = node["eventTimeMillis"] { record.observed = try Self.milliseconds(event, "eventTimeMillis", path: join("eventTimeMillis")) }
        if let observed = node["observedAt"] {
            // RFC 3339, or milliseconds as Play writes its own times.
            if case .string(let text) = observed.value, let instant = Instant(rfc3339: text) {
                record.observed = instant
            } else {
                record.observed = try Self.milliseconds(observed, "observedAt", path: join("observedAt"))
            }
        }
        let resource = ["subscriptionPurchase", "productPurchase", "purchase"].contains { node[$0] != nil }
        if let kind = Self.notificationKinds.first(where: { node[$0] != nil }) {
            try notification(node, kind: kind, path: path, record: record, withResource: resource)
        }
        if let purchase = node["subscriptionPurchase"] {
            try subscription(purchase, path: join("subscriptionPurchase"), record: record)
        } else if let purchase = node["productPurchase"] {
            try product(purchase, path: join("productPurchase"), record: record)
        } else if let purchase = node["purchase"] {
            // A record that leaves the resource's kind to its content.
            if purchase["subscriptionState"] != nil || purchase["lineItems"] != nil
                || purchase["kind"]?.lenientString == "androidpublisher#subscriptionPurchaseV2"
            {
                try subscription(purchase, path: join("purchase"), record: record)
            } else {
                try product(purchase, path: join("purchase"), record: record)
            }
        } else if let list = node["voidedPurchases"] {
            guard let elements = list.elements else {
                throw ImportFailure(offset: list.offset, message: "`voidedPurchases` is not an array", path: join("voidedPurchases"))
            }
            for (index, element) in elements.enumerated() { try voided(element, path: join("voidedPurchases[\(index)]")) }
        } else if let notification = node["voidedPurchaseNotification"] {
            try voidedNotification(notification, path: join("voidedPurchaseNotification"), record: record, envelope: node)
        } else if node["subscriptionState"] != nil || node["lineItems"] != nil {
            try subscription(node, path: path, record: record)
        } else if node["productLineItem"] != nil || node["purchaseTimeMillis"] != nil && node["voidedTimeMillis"] == nil {
            try product(node, path: path, record: record)
        } else if node["voidedTimeMillis"] != nil {
            try voided(node, path: path)
        } else if Self.notificationKinds.contains(where: { node[$0] != nil }) {
            // A notification alone: noted, with the purchase to fetch when it names one.
        } else {
            throw ImportFailure(
                offset: node.offset, message: "not a Play purchase", path: path,
                help: "entitle reads SubscriptionPurchaseV2, ProductPurchaseV2, ProductPurchase and VoidedPurchase resources, and records of them")
        }
    }

    // MARK: Real-time developer notifications

    /// A Pub/Sub push (`{"message": {"data": <base64>, "messageId": ...}, "subscription": ...}`):
    /// its `DeveloperNotification`, decoded, read as a notification of the push's `messageId`.
    /// A problem inside the decoded notification is located at `data`, the path saying where in it.
    mutating func push(_ message: JSONNode, data: JSONNode, path: String, record: Record, depth: Int) throws(ImportFailure) {
        guard case .string(let text) = data.value, let bytes = Base64.decode(Data(text.utf8), skippingWhitespace: true) else {
            throw ImportFailure(offset: data.offset, message: "a Pub/Sub message's `data` is not base64", path: path + ".data")
        }
        let inner: JSONNode
        do {
            inner = try JSONDocument.parse(Data(bytes), limits: AppleImport.jsonLimits).root
        } catch {
            throw ImportFailure(
                offset: data.offset, message: "a Pub/Sub message's `data` is not a JSON DeveloperNotification", path: path + ".data",
                help: "Play's real-time developer notifications carry one DeveloperNotification, base64-encoded")
        }
        guard Self.notificationKinds.contains(where: { inner[$0] != nil }) else {
            throw ImportFailure(
                offset: data.offset, message: "a Pub/Sub message whose `data` is not a Play developer notification", path: path + ".data",
                help: "a DeveloperNotification names one of \(Self.notificationKinds.map { "`\($0)`" }.joined(separator: ", "))")
        }
        var record = record
        record.messageId = message["messageId"]?.lenientString.flatMap { $0.isEmpty ? nil : $0 }
        do throws(ImportFailure) {
            try map(inner, path: path + ".data (decoded)", record: record, depth: depth + 1)
        } catch {
            throw ImportFailure(offset: data.offset, message: error.message, path: error.path, help: error.help)
        }
    }

    /// The names of a subscription notification's `notificationType`s.
    static let subscriptionTypes: [Int64: String] = [
        1: "SUBSCRIPTION_RECOVERED", 2: "SUBSCRIPTION_RENEWED", 3: "SUBSCRIPTION_CANCELED", 4: "SUBSCRIPTION_PURCHASED",
        5: "SUBSCRIPTION_ON_HOLD", 6: "SUBSCRIPTION_IN_GRACE_PERIOD", 7: "SUBSCRIPTION_RESTARTED", 8: "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED",
        9: "SUBSCRIPTION_DEFERRED", 10: "SUBSCRIPTION_PAUSED", 11: "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED", 12: "SUBSCRIPTION_REVOKED",
        13: "SUBSCRIPTION_EXPIRED", 20: "SUBSCRIPTION_PENDING_PURCHASE_CANCELED",
    ]
    /// The names of a one-time product notification's `notificationType`s.
    static let oneTimeTypes: [Int64: String] = [1: "ONE_TIME_PRODUCT_PURCHASED", 2: "ONE_TIME_PRODUCT_CANCELED"]

    /// Notes a developer notification: its kind and type, the push's `messageId` (the same for
    /// each redelivery, so a history keeps it once) and `eventTimeMillis`; and, for a
    /// subscription or one-time product notification that comes without its resource, the
    /// purchase to fetch.
    mutating func notification(_ node: JSONNode, kind: String, path: String, record: Record, withResource: Bool) throws(ImportFailure) {
        let body = node[kind]!
        func type(_ names: [Int64: String], _ what: String) -> String? {
            guard let value = body["notificationType"] else { return nil }
            guard let number = value.lenientInteger else { return value.lenientString }
            return names[number] ?? "\(what)_\(number)"
        }
        let info: NotificationInfo
        switch kind {
        case "subscriptionNotification":
            info = NotificationInfo(type: "SUBSCRIPTION_NOTIFICATION", subtype: type(Self.subscriptionTypes, "SUBSCRIPTION_NOTIFICATION"))
        case "oneTimeProductNotification":
            info = NotificationInfo(type: "ONE_TIME_PRODUCT_NOTIFICATION", subtype: type(Self.oneTimeTypes, "ONE_TIME_PRODUCT_NOTIFICATION"))
        case "voidedPurchaseNotification":
            let refund = body["refundType"]?.lenientInteger
            info = NotificationInfo(
                type: "VOIDED_PURCHASE_NOTIFICATION",
                subtype: refund == 1 ? "REFUND_TYPE_FULL_REFUND" : refund == 2 ? "REFUND_TYPE_QUANTITY_BASED_PARTIAL_REFUND" : nil)
        case "pendingRefundReviewNotification": info = NotificationInfo(type: "PENDING_REFUND_REVIEW_NOTIFICATION")
        default: info = NotificationInfo(type: "TEST_NOTIFICATION")
        }
        var noted = info
        noted.uuid = record.messageId
        noted.signedDate = record.observed
        notifications.append(noted)
        guard !withResource, kind == "subscriptionNotification" || kind == "oneTimeProductNotification" else { return }
        guard let token = body["purchaseToken"]?.lenientString, !token.isEmpty else {
            throw ImportFailure(offset: body.offset, message: "a \(kind) without its `purchaseToken`", path: path.isEmpty ? kind : "\(path).\(kind)")
        }
        let product = (body["subscriptionId"] ?? body["sku"])?.lenientString.flatMap { $0.isEmpty ? nil : $0 }
        let fetch = PurchaseToFetch(token: token, subscription: kind == "subscriptionNotification", productId: product)
        if !toFetch.contains(fetch) { toFetch.append(fetch) }
    }

    // MARK: Subscriptions

    mutating func subscription(_ node: JSONNode, path: String, record: Record) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        guard node.isObject else { throw ImportFailure(offset: node.offset, message: "expected a SubscriptionPurchaseV2 object", path: path) }
        let state = node["subscriptionState"]?.lenientString ?? "SUBSCRIPTION_STATE_UNSPECIFIED"
        guard let items = node["lineItems"]?.elements, !items.isEmpty else {
            throw ImportFailure(offset: node.offset, message: "a subscription without `lineItems`", path: path)
        }
        if state == "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED" {
            warnings.append(ImportWarning(path: join("subscriptionState"), message: "a pending purchase that was cancelled bought nothing"))
            return
        }
        let known = [
            "SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_ACTIVE", "SUBSCRIPTION_STATE_PAUSED", "SUBSCRIPTION_STATE_IN_GRACE_PERIOD",
            "SUBSCRIPTION_STATE_ON_HOLD", "SUBSCRIPTION_STATE_CANCELED", "SUBSCRIPTION_STATE_EXPIRED",
        ]
        guard known.contains(state) else {
            warnings.append(
                ImportWarning(
                    path: join("subscriptionState"),
                    message: "subscription state `\(Diagnostic.excerpt(state))` is not one entitle knows; nothing read"))
            return
        }
        let pending = state == "SUBSCRIPTION_STATE_PENDING"
        var start = try Self.time(node, "startTime", path: path)
        if start == nil, pending { start = record.observed }
        guard let start else {
            throw ImportFailure(
                offset: node.offset,
                message: pending ? "a pending subscription without `startTime` needs the record's `observedAt`" : "missing `startTime`",
                path: path, help: pending ? "Play sets `startTime` once the purchase is paid: date the record when it was fetched" : nil)
        }
        let chain = record.token ?? Self.orderRoot(items.lazy.compactMap { $0["latestSuccessfulOrderId"]?.lenientString }.first)
        guard let chain else {
            throw ImportFailure(
                offset: node.offset, message: "a subscription with neither its purchase token nor an order id", path: path,
                help: "give the record: the resource with its `purchaseToken`")
        }
        // A replacement names the purchase it replaces; a resubscription from outside the app, the
        // expired purchase it continues: either ends that purchase where this one starts.
        let linked =
            node["linkedPurchaseToken"]?.lenientString.flatMap { $0.isEmpty ? nil : $0 }
            ?? node["outOfAppPurchaseContext"]?["expiredPurchaseToken"]?.lenientString.flatMap { $0.isEmpty ? nil : $0 }
        let common = try common(node, path: path)
        noteEnvironment(test: node["testPurchase"] != nil)
        for (index, item) in items.enumerated() {
            let itemPath = join("lineItems[\(index)]")
            guard let productId = item["productId"]?.lenientString, !productId.isEmpty else {
                throw ImportFailure(offset: item.offset, message: "a line item without `productId`", path: itemPath)
            }
            guard let basePlan = item["offerDetails"]?["basePlanId"]?.lenientString, !basePlan.isEmpty else {
                throw ImportFailure(
                    offset: item.offset, message: "a line item without `offerDetails.basePlanId`", path: itemPath,
                    help: "a Play subscription is bought as a base plan; the catalog names it `<productId>:<basePlanId>`")
            }
            let product = "\(productId):\(basePlan)"
            guard var expiry = try Self.time(item, "expiryTime", path: itemPath) ?? (pending ? start : nil) else {
                throw ImportFailure(offset: item.offset, message: "a line item without `expiryTime`", path: itemPath)
            }
            let order = item["latestSuccessfulOrderId"]?.lenientString
            let itemChain = items.count > 1 ? "\(chain):\(productId)" : chain
            var transaction = Transaction(
                productId: product, transactionId: order ?? "\(itemChain):\(start.millisecondsSince1970)", originalTransactionId: itemChain,
                purchaseDate: start, signedDate: record.observed, pending: pending, acknowledged: common.acknowledged,
                account: common.account, storefront: common.storefront)
            let prepaid = item["prepaidPlan"]
            if let prepaid {
                // A top-up is a new purchase whose time stacks after this one's: its link is not a
                // replacement, so this purchase keeps its time (passes stack in the catalog).
                transaction.topUpAfter = try Self.time(prepaid, "allowExtendAfterTime", path: itemPath + ".prepaidPlan")
            } else {
                transaction.linkedPurchaseToken = linked
            }
            if let offer = item["offerDetails"]?["offerId"]?.lenientString, !offer.isEmpty { transaction.offerId = offer }
            if let phase = item["offerPhase"] {
                if phase["freeTrial"] != nil {
                    transaction.isTrialPeriod = true
                    transaction.offerType = .introductory
                } else if phase["introductoryPrice"] != nil {
                    transaction.isIntroOfferPeriod = true
                    transaction.offerType = .introductory
                }
            }
            let autoRenewing = item["autoRenewingPlan"]
            var renewal = Renewal(
                productId: product, originalTransactionId: itemChain,
                willRenew: autoRenewing.map { $0["autoRenewEnabled"]?.lenientBool ?? false } ?? false, signedDate: record.observed,
                account: common.account)
            if let replacing = item["deferredItemReplacement"]?["productId"]?.lenientString, !replacing.isEmpty {
                // The change at the next renewal. Play names the product, not its base plan: the
                // current item's is assumed, and said.
                renewal.renewsTo = "\(replacing):\(basePlan)"
                warnings.append(
                    ImportWarning(
                        path: itemPath + ".deferredItemReplacement",
                        message:
                            "a deferred change to `\(Diagnostic.excerpt(replacing))` names no base plan: read as `\(Diagnostic.excerpt(replacing)):\(Diagnostic.excerpt(basePlan))`, the current item's"
                    ))
            }
            if let installments = autoRenewing?["installmentDetails"] {
                try installment(installments, path: itemPath + ".autoRenewingPlan.installmentDetails", expiry: expiry, into: &transaction, &renewal)
            }
            switch state {
            case "SUBSCRIPTION_STATE_IN_GRACE_PERIOD":
                // Paid until the renewal failed, which the resource does not date: until it was fetched.
                renewal.isInBillingRetry = true
                renewal.gracePeriodExpiresDate = expiry
                expiry = min(expiry, max(start, record.observed ?? start))
            case "SUBSCRIPTION_STATE_ON_HOLD":
                renewal.isInBillingRetry = true
                renewal.gracePeriodExpiresDate = nil
            case "SUBSCRIPTION_STATE_PAUSED":
                renewal.pausedUntil =
                    try Self.time(node["pausedStateContext"] ?? node, "autoResumeTime", path: join("pausedStateContext")) ?? Instant.latest
            case "SUBSCRIPTION_STATE_CANCELED", "SUBSCRIPTION_STATE_EXPIRED":
                renewal.willRenew = false
            default:
                break
            }
            transaction.expiresDate = max(expiry, start)
            transactions.append(transaction)
            renewals.append(renewal)
        }
    }

    /// An installment plan (`autoRenewingPlan.installmentDetails`): the payment this period is of
    /// the committed ones, as Apple's monthly plans give it (``Transaction/commitment``): payment
    /// `initialCommittedPaymentsCount - remainingCommittedPaymentsCount` of
    /// `initialCommittedPaymentsCount`, the commitment ending `remainingCommittedPaymentsCount`
    /// months after this period's expiry (Play bills installments monthly). A plan pending
    /// cancellation renews until the committed payments are made, then no more.
    mutating func installment(
        _ node: JSONNode, path: String, expiry: Instant, into transaction: inout Transaction, _ renewal: inout Renewal
    ) throws(ImportFailure) {
        func count(_ key: String, _ range: ClosedRange<Int64>) throws(ImportFailure) -> Int {
            guard let value = node[key], let number = value.lenientInteger, range.contains(number) else {
                throw ImportFailure(
                    offset: node[key]?.offset ?? node.offset,
                    message: "`\(key)` must be a whole number from \(range.lowerBound) to \(range.upperBound)", path: "\(path).\(key)")
            }
            return Int(number)
        }
        let periods = try count("initialCommittedPaymentsCount", 1...Int64(ReceiptLimits.maxCommitmentPeriods))
        let remaining = try count("remainingCommittedPaymentsCount", 0...Int64(periods - 1))
        let end = ISODuration.add(months: remaining, days: 0, milliseconds: 0, to: expiry.millisecondsSince1970)
        transaction.commitment = Transaction.Commitment(
            period: periods - remaining, periods: periods, endsAt: Instant(millisecondsSince1970: end).clampedToRange)
        if node["pendingCancellation"] != nil { renewal.willRenew = remaining > 0 }
    }

    /// A subscription's order ids are its first order's and `..N` after it for each renewal: the
    /// first order's id names the chain when the token is not given.
    static func orderRoot(_ order: String?) -> String? {
        guard let order, !order.isEmpty else { return nil }
        if let range = order.range(of: "..") { return String(order[..<range.lowerBound]) }
        return order
    }

    /// A replaced subscription ends, at the latest, when the one replacing it starts
    /// (``SubscriptionLinks``, which evaluation applies across receipts too).
    mutating func applyLinks() {
        SubscriptionLinks.apply(transactions: &transactions, renewals: &renewals)
    }

    // MARK: One-time products

    mutating func product(_ node: JSONNode, path: String, record: Record) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        guard node.isObject else { throw ImportFailure(offset: node.offset, message: "expected a ProductPurchase object", path: path) }
        let common = try common(node, path: path)
        let token = node["purchaseToken"]?.lenientString ?? record.token
        let order = node["orderId"]?.lenientString
        guard let id = order.flatMap({ $0.isEmpty ? nil : $0 }) ?? token else {
            throw ImportFailure(
                offset: node.offset, message: "a purchase with neither an order id nor its purchase token", path: path,
                help: "give the record: the resource with its `purchaseToken`")
        }
        // v2 (`productLineItem`, states by name, RFC 3339 times) or v1 (numbers, milliseconds).
        let state: String
        var date: Instant?
        var lines: [Line] = []
        if let items = node["productLineItem"] {
            noteEnvironment(test: node["testPurchaseContext"] != nil)
            state = node["purchaseStateContext"]?["purchaseState"]?.lenientString ?? "PURCHASE_STATE_UNSPECIFIED"
            date = try Self.time(node, "purchaseCompletionTime", path: path)
            guard let elements = items.elements, !elements.isEmpty else {
                throw ImportFailure(offset: items.offset, message: "`productLineItem` is not a non-empty array", path: join("productLineItem"))
            }
            for (index, item) in elements.enumerated() {
                let itemPath = join("productLineItem[\(index)]")
                guard let product = item["productId"]?.lenientString, !product.isEmpty else {
                    throw ImportFailure(offset: item.offset, message: "a line item without `productId`", path: itemPath)
                }
                let details = item["productOfferDetails"]
                let detailsPath = itemPath + ".productOfferDetails"
                var line = Line(product: product, quantity: try Self.quantity(details?["quantity"], path: detailsPath + ".quantity"), path: itemPath)
                if let details {
                    line.option = details["purchaseOptionId"]?.lenientString.flatMap { $0.isEmpty ? nil : $0 }
                    line.offer = details["offerId"]?.lenientString.flatMap { $0.isEmpty ? nil : $0 }
                    if let preorder = details["preorderOfferDetails"] {
                        line.release = try Self.time(preorder, "preorderReleaseTime", path: detailsPath + ".preorderOfferDetails")
                    }
                }
                lines.append(line)
            }
        } else {
            noteEnvironment(test: node["purchaseType"]?.lenientInteger == 0)
            switch node["purchaseState"]?.lenientInteger {
            case 0: state = "PURCHASED"
            case 1: state = "CANCELLED"
            case 2: state = "PENDING"
            default: state = node["purchaseState"]?.lenientString ?? "PURCHASE_STATE_UNSPECIFIED"
            }
            if let time = node["purchaseTimeMillis"] { date = try Self.milliseconds(time, "purchaseTimeMillis", path: join("purchaseTimeMillis")) }
            guard let product = node["productId"]?.lenientString ?? record.productId, !product.isEmpty else {
                throw ImportFailure(
                    offset: node.offset, message: "a purchase without `productId`", path: path,
                    help: "a v1 ProductPurchase may omit its product: give it in the record (`productId`)")
            }
            lines.append(Line(product: product, quantity: try Self.quantity(node["quantity"], path: join("quantity")), path: path))
        }
        let pending = state == "PENDING"
        guard ["PURCHASED", "CANCELLED", "PENDING"].contains(state) else {
            warnings.append(
                ImportWarning(path: path, message: "purchase state `\(Diagnostic.excerpt(state))` is not one entitle knows; nothing read"))
            return
        }
        // A pending purchase, or a pre-order not yet fulfilled, has no completion time yet.
        let preorder = lines.contains { $0.release != nil }
        if date == nil, pending || preorder { date = record.observed }
        guard let date else {
            throw ImportFailure(
                offset: node.offset,
                message: pending
                    ? "a pending purchase without its time needs the record's `observedAt`"
                    : "a purchase without its time (`purchaseCompletionTime` or `purchaseTimeMillis`)", path: path)
        }
        if let token, lines.count == 1 { purchaseTokens[token] = id }
        for (index, line) in lines.enumerated() {
            var transaction = Transaction(
                productId: line.product, transactionId: lines.count > 1 ? "\(id):\(index)" : id, purchaseDate: date,
                quantity: Int(line.quantity), signedDate: record.observed, pending: pending, acknowledged: common.acknowledged,
                account: common.account, storefront: common.storefront, purchaseOptionId: line.option, releaseDate: line.release)
            transaction.offerId = line.offer
            if state == "CANCELLED" {
                // Voided at a time this resource does not give: from the purchase, unless a voided
                // purchase in the data dates it.
                transaction.cancellationDate = date
                transaction.revocationType = .refundFull
                undated.append((transaction.transactionId, line.path))
            }
            transactions.append(transaction)
        }
    }

    /// A one-time purchase's line item: its product, quantity, purchase option (a buy or rent
    /// option, or the pre-order's), offer and a pre-order's release.
    struct Line {
        var product: String
        var quantity: Int64
        var path: String
        var option: String?
        var offer: String?
        var release: Instant?
    }

    // MARK: Voided purchases

    mutating func voided(_ node: JSONNode, path: String) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        guard let time = node["voidedTimeMillis"] else {
            throw ImportFailure(offset: node.offset, message: "a voided purchase without `voidedTimeMillis`", path: path)
        }
        let date = try Self.milliseconds(time, "voidedTimeMillis", path: join("voidedTimeMillis"))
        var quantity: Int64?
        if let voided = node["voidedQuantity"] { quantity = try Self.quantity(voided, path: join("voidedQuantity")) }
        voids.append(
            Voided(
                token: node["purchaseToken"]?.lenientString, order: node["orderId"]?.lenientString, date: date, quantity: quantity,
                offset: node.offset, path: path))
    }

    mutating func voidedNotification(_ node: JSONNode, path: String, record: Record, envelope: JSONNode) throws(ImportFailure) {
        guard let date = record.observed else {
            throw ImportFailure(offset: envelope.offset, message: "a voided-purchase notification without `eventTimeMillis`", path: path)
        }
        if node["refundType"]?.lenientInteger == 2 {
            warnings.append(
                ImportWarning(
                    path: path + ".refundType",
                    message: "a partial refund by quantity does not say how many were refunded: read the voided purchase (`voidedQuantity`) instead"))
            return
        }
        voids.append(
            Voided(
                token: node["purchaseToken"]?.lenientString, order: node["orderId"]?.lenientString, date: date, quantity: nil,
                offset: node.offset, path: path))
    }

    /// Each void as a fact about the purchase it names (``Revocation``): its order, else its
    /// token's one-time purchase, which evaluation applies wherever that purchase is read. A
    /// purchase Play reports cancelled that a void here names is left to the void to date.
    mutating func keepVoids() throws(ImportFailure) {
        var ids: [String: Void] = [:]
        var chains: Set<String> = []
        for transaction in transactions {
            ids[transaction.transactionId] = ()
            // A chain is its token, or `<token>:<productId>` for a subscription of several items.
            if let chain = transaction.originalTransactionId { chains.insert(chain.split(separator: ":").first.map(String.init) ?? chain) }
        }
        var named: [String: Void] = [:]
        // The void each fact came from, to locate an error.
        var sources: [Voided] = []
        for void in voids {
            let target: String
            if let order = void.order, !order.isEmpty, RevocationFacts.purchase(of: order, in: ids) != nil || purchaseTokens[void.token ?? ""] == nil
            {
                target = order
            } else if let token = void.token, !token.isEmpty {
                target = purchaseTokens[token] ?? token
            } else {
                warnings.append(ImportWarning(path: void.path, message: "a voided purchase naming neither its order nor its token; skipped"))
                continue
            }
            if ids[target] == nil, let token = void.token, chains.contains(token) {
                warnings.append(
                    ImportWarning(
                        path: void.path,
                        message:
                            "voids an earlier order of the subscription (`\(Diagnostic.excerpt(target))`), not in the data: its current period stands"
                    ))
            }
            named[target] = ()
            sources.append(void)
            revocations.append(
                Revocation(
                    transactionId: target, date: void.date,
                    voidedQuantity: void.quantity.map { Int(min($0, Int64(ReceiptLimits.maxQuantity))) }))
        }
        let quantities = transactions.map { ($0.transactionId, $0.quantity) }
        if let excess = RevocationFacts.excess(revocations, quantities: quantities) {
            let void = sources[excess.index]
            throw ImportFailure(offset: void.offset, message: excess.message, path: void.path + ".voidedQuantity")
        }
        let cancelled = Set(undated.map(\.id))
        var dated: Set<String> = []
        for index in transactions.indices {
            let id = transactions[index].transactionId
            guard cancelled.contains(id), RevocationFacts.purchase(of: id, in: named) != nil else { continue }
            transactions[index].cancellationDate = nil
            transactions[index].revocationType = nil
            dated.insert(id)
        }
        for (id, path) in undated where !dated.contains(id) {
            warnings.append(
                ImportWarning(
                    path: path,
                    message:
                        "purchase `\(Diagnostic.excerpt(id))` is cancelled at a time Play does not give here: revoked from its purchase; read it with its voided purchase to date it"
                ))
        }
    }

}
