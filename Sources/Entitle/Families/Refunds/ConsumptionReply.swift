/// The reply to Apple's consumption request about one transaction (a `CONSUMPTION_REQUEST`
/// notification: the customer asked for a refund), made from what evaluation decided at an
/// instant: Apple's `ConsumptionRequest` body (V2), or no body without the customer's consent.
///
/// The facts are read from the explanation of the instant (``Explanation``): whether the
/// transaction counted, the units a consumable's purchase still credits, what was spent. Nothing
/// is decided again here. [Answering Apple's server](doc:AnsweringApple) gives the rules.
public struct ConsumptionReply: Hashable, Sendable {
    /// Why the reply is what it is.
    @nonexhaustive
    public enum Reason: String, Hashable, Sendable, Codable, CaseIterable {
        /// The transaction was delivered: it counted at the instant.
        case delivered
        /// It was not: refunded or revoked already, pending, or not this customer's to use.
        case notDelivered = "not-delivered"
        /// The customer did not consent: Apple must get no body.
        case noConsent = "no-consent"
    }

    /// Apple's `deliveryStatus`.
    @nonexhaustive
    public enum DeliveryStatus: String, Hashable, Sendable, Codable, CaseIterable {
        /// Delivered and working.
        case delivered = "DELIVERED"
        /// Not delivered: a quality issue.
        case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
        /// Not delivered: the wrong item.
        case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
        /// Not delivered: the service was down.
        case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
        /// Not delivered, for another reason.
        case undeliveredOther = "UNDELIVERED_OTHER"
    }

    /// Why the service says a transaction was not delivered, when it was not (`--undelivered`).
    @nonexhaustive
    public enum Undelivered: String, Hashable, Sendable, Codable, CaseIterable {
        /// A quality issue (`quality`).
        case quality
        /// The wrong item (`wrong-item`).
        case wrongItem = "wrong-item"
        /// The service was down (`server-outage`).
        case serverOutage = "server-outage"
        /// Another reason (`other`).
        case other

        /// Apple's status for it.
        public var status: DeliveryStatus {
            switch self {
            case .quality: .undeliveredQualityIssue
            case .wrongItem: .undeliveredWrongItem
            case .serverOutage: .undeliveredServerOutage
            case .other: .undeliveredOther
            }
        }
    }

    /// Apple's `ConsumptionRequest` (V2) body.
    public struct Body: Hashable, Sendable {
        /// Always `true`: without consent there is no body.
        public var customerConsented: Bool
        /// Whether the customer could try the content before paying.
        public var sampleContentProvided: Bool
        /// Whether the purchase was delivered, or why not.
        public var deliveryStatus: DeliveryStatus
        /// The share of the purchase consumed, in thousandths of a percent (0 to 100,000).
        public var consumptionPercentage: Int
        /// The catalog's preference for the refund; `nil` when the catalog states none.
        public var refundPreference: RefundPreference?
    }

    /// The app.
    public var app: String
    /// The instant the reply is made for.
    public var at: Instant
    /// The transaction asked about.
    public var transactionId: String
    /// Its product.
    public var productId: String
    /// Why the reply is what it is.
    public var reason: Reason
    /// The body to send Apple; `nil` without consent.
    public var body: Body?
    /// How the share consumed was reached, in one line ("12 of 20 stencils spent, charged to
    /// purchases in the order bought").
    public var consumption: String
    /// For a consumable: what was spent of each currency it credits, charged to the purchases
    /// crediting it in the order bought (`explain --transaction` lists them).
    public var charges: [Charge] = []
    /// The store of the purchase: the App Store's request gets ``appleJSON``, Google Play's refund
    /// review ``googleJSON(pendingRefundToken:)``.
    public var store: Store = .appStore
    /// For a consumable: the consumptions charged to this purchase (those whose credits, spent in
    /// time order from the purchases in the order bought, came from it), earliest first.
    public var usage: [Usage] = []
    /// The purchase's account (Play's `obfuscatedExternalAccountId`), when it names one.
    public var account: String?

    /// A consumption charged to the purchase.
    public struct Usage: Hashable, Sendable {
        /// The consumption's id.
        public var id: String
        /// When it was spent.
        public var date: Instant
        /// The currency spent.
        public var currency: String
        /// How much of it.
        public var amount: Int64
    }

    /// One purchase's part of what was spent of one currency.
    public struct Charge: Hashable, Sendable {
        /// The currency.
        public var currency: String
        /// The purchase.
        public var transactionId: String
        /// When it was bought.
        public var purchaseDate: Instant
        /// What it credits (its units left, times the catalog's amount).
        public var credited: Int64
        /// What of it was spent.
        public var charged: Int64
    }
}

/// Why a consumption reply cannot be made.
public struct ConsumptionReplyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// A hint: the closest transaction id, the ids there are.
    public var help: String?

    public var description: String { message + (help.map { "\n  help: " + $0 } ?? "") }
}

extension ConsumptionReply {
    /// Apple's `ConsumptionRequest` JSON to send, or `nil` without consent (and for a purchase of
    /// another store).
    public var appleJSON: String? {
        guard store == .appStore else { return nil }
        return body.map { Self.appleOutput($0).rendered() + "\n" }
    }

    /// The most usage events Google accepts in one refund review.
    public static let maxUsageEvents = 1_000

    /// Google Play's `OrdersReviewRefundRequest`, the body of `orders.reviewrefund` for the
    /// purchase's order, answering a pending refund review notification; `nil` for a purchase of
    /// another store.
    ///
    /// `refundPreference` is the catalog's (`grant-full` is `APPROVE`, `decline` `DECLINE`,
    /// `grant-prorated` `NEUTRAL`, thresholds as for Apple), `NEUTRAL` when it names none;
    /// `consumptionPercentageMilliunits` is the share Apple's reply gives (100,000 is all of it);
    /// `consumptionUsageEvents` are the consumptions charged to the purchase, the latest
    /// ``maxUsageEvents`` when there are more (``usageLeftOut`` says how many were left out).
    ///
    /// - Parameter pendingRefundToken: the token of the pending refund review notification.
    public func googleJSON(pendingRefundToken: String) -> String? {
        guard store == .play, let body else { return nil }
        return Self.googleOutput(body, token: pendingRefundToken, usage: usage.suffix(Self.maxUsageEvents), account: account).rendered() + "\n"
    }

    /// How many consumptions charged to the purchase Google's reply leaves out (it takes the latest
    /// ``maxUsageEvents``).
    public var usageLeftOut: Int { max(0, usage.count - Self.maxUsageEvents) }

    package static func googleOutput(_ body: Body, token: String?, usage: some Collection<Usage>, account: String?) -> JSONOutput {
        var members: [(String, JSONOutput)] = token.map { [("pendingRefundToken", .string($0))] } ?? []
        members += [
            ("refundPreference", .string(body.refundPreference?.googleValue ?? "NEUTRAL")),
            ("sampleContentProvided", .bool(body.sampleContentProvided)),
            ("consumptionPercentageMilliunits", .integer(Int64(body.consumptionPercentage))),
        ]
        if !usage.isEmpty {
            members.append(
                (
                    "consumptionUsageEvents",
                    .array(
                        usage.map { event in
                            var fields: [(String, JSONOutput)] = [
                                ("consumptionTime", .string(event.date.rfc3339)), ("consumptionItemDescription", .string(event.id)),
                            ]
                            if let account { fields.append(("obfuscatedAccountId", .string(account))) }
                            return .object(fields)
                        })
                ))
        }
        return .object(members)
    }

    package static func appleOutput(_ body: Body) -> JSONOutput {
        var members: [(String, JSONOutput)] = [
            ("customerConsented", .bool(body.customerConsented)),
            ("sampleContentProvided", .bool(body.sampleContentProvided)),
            ("deliveryStatus", .string(body.deliveryStatus.rawValue)),
            ("consumptionPercentage", .integer(Int64(body.consumptionPercentage))),
        ]
        if let preference = body.refundPreference { members.append(("refundPreference", .string(preference.appleValue))) }
        return .object(members)
    }

    /// The reply as `entitle consumption --format json` prints it:
    /// `{"app", "at", "transaction", "productId", "store", "reason", "consumption", "reply"}`, the reply
    /// being Apple's body, or Google's (without its `pendingRefundToken`: see
    /// ``json(pendingRefundToken:)``), with `usageLeftOut` for a Play purchase.
    public var json: String { jsonOutput(pendingRefundToken: nil).rendered() + "\n" }

    /// ``json`` with Google's body carrying the pending refund review's token.
    public func json(pendingRefundToken: String?) -> String { jsonOutput(pendingRefundToken: pendingRefundToken).rendered() + "\n" }

    package func jsonOutput(pendingRefundToken: String?) -> JSONOutput {
        var members: [(String, JSONOutput)] = [
            ("app", .string(app)), ("at", .string(at.rfc3339)), ("transaction", .string(transactionId)),
            ("productId", .string(productId)), ("store", .string(store.rawValue)), ("reason", .string(reason.rawValue)),
            ("consumption", .string(consumption)),
        ]
        let reply = body.map { body in
            store == .play
                ? Self.googleOutput(body, token: pendingRefundToken, usage: usage.suffix(Self.maxUsageEvents), account: account)
                : Self.appleOutput(body)
        }
        members.append(("reply", reply ?? .null))
        if store == .play { members.append(("usageLeftOut", .integer(Int64(usageLeftOut)))) }
        return .object(members)
    }

    /// The reply for people, then every purchase's part of what was spent (`explain --transaction`).
    public var explanationText: String {
        var text = self.text
        guard !charges.isEmpty else { return text }
        text += "  spent, charged to purchases in the order bought:\n"
        for charge in charges {
            let marker = charge.transactionId == transactionId ? "→" : " "
            text +=
                "  \(marker) \(charge.transactionId) bought \(charge.purchaseDate.rfc3339): \(charge.charged) of \(charge.credited) \(charge.currency)\n"
        }
        return text
    }

    /// The reply for people.
    public var text: String {
        var text = "\(app) at \(at.rfc3339): consumption request about \(transactionId) (\(productId))\n"
        text += "  \(reason.rawValue): \(consumption)\n"
        if let body, store == .play {
            text += "  reply to Google's refund review: \(Transaction.percentageText(Int32(clamping: body.consumptionPercentage)))% consumed"
            text += body.sampleContentProvided ? ", sample content provided" : ""
            text += ", prefers \(body.refundPreference?.googleValue ?? "NEUTRAL")"
            text += usage.isEmpty ? "" : ", \(usage.count) usage event\(usage.count == 1 ? "" : "s")"
            text += usageLeftOut > 0 ? " (the latest \(Self.maxUsageEvents) sent, \(usageLeftOut) left out)" : ""
            text += "\n"
        } else if let body {
            text += "  reply: \(body.deliveryStatus.rawValue), \(Transaction.percentageText(Int32(clamping: body.consumptionPercentage)))% consumed"
            text += body.sampleContentProvided ? ", sample content provided" : ""
            text += body.refundPreference.map { ", prefers \($0.appleValue)" } ?? ", no refund preference"
            text += "\n"
        } else {
            text += "  no reply: the customer did not consent\n"
        }
        return text
    }
}
