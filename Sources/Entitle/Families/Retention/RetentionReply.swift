import Foundation

/// What Apple's Retention Messaging API sends when a subscriber opens the cancel page
/// (`decodedRealtimeRequest`): the chain, its product, the customer's locale.
public struct RetentionRequest: Hashable, Sendable {
    /// The subscription's chain.
    public var originalTransactionId: String
    /// The product the customer is subscribed to.
    public var productId: String
    /// The customer's locale (`en-US`), when Apple sends one.
    public var userLocale: String?
    /// Apple's id of the request, copied into the answer.
    public var requestIdentifier: String
    /// The environment, normalized (`production`, `sandbox`, `xcode`, `local-testing`).
    public var environment: String?

    /// A request.
    public init(
        originalTransactionId: String, productId: String, userLocale: String? = nil, requestIdentifier: String, environment: String? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.userLocale = userLocale
        self.requestIdentifier = requestIdentifier
        self.environment = environment
    }

    /// Reads Apple's decoded request JSON (`originalTransactionId`, `productId`, `userLocale`,
    /// `requestIdentifier`, `environment`; `appAppleId` and `signedDate` are read past).
    ///
    /// - Throws: ``ReceiptError`` locating a missing, repeated or mistyped member, or malformed JSON.
    public init(json data: Data, name: String = "<request>") throws(ReceiptError) {
        let lines = LineTable(data)
        func failure(_ message: String, at offset: Int, path: String = "") -> ReceiptError {
            let (line, column) = lines.location(of: offset)
            return ReceiptError(
                code: .badValue, message: message, location: SourceLocation(file: name, line: line, column: column), path: path)
        }
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(data, limits: JSONDocument.Limits(maxBytes: 1 << 20, maxDepth: 8))
        } catch {
            let syntax = error as? JSONSyntaxError
            let (line, column) = lines.location(of: syntax?.offset ?? 0)
            throw ReceiptError(
                code: .malformedJSON, message: syntax?.message ?? "\(error)", location: SourceLocation(file: name, line: line, column: column),
                help: syntax?.help)
        }
        guard case .object(let members) = document.root.value else { throw failure("a retention request is a JSON object", at: 0) }
        var texts: [String: String] = [:]
        var seen = Set<String>()
        for member in members {
            guard seen.insert(member.key).inserted else { throw failure("`\(member.key)` is given twice", at: member.keyOffset, path: member.key) }
            switch member.key {
            case "originalTransactionId", "productId", "userLocale", "requestIdentifier", "environment":
                guard case .string(let text) = member.value.value, !text.isEmpty, text.utf8.count <= 256 else {
                    throw failure("`\(member.key)` must be a string of 1 to 256 bytes", at: member.value.offset, path: member.key)
                }
                texts[member.key] = text
            default:
                continue
            }
        }
        for key in ["originalTransactionId", "productId", "requestIdentifier"] where texts[key] == nil {
            throw failure("missing `\(key)`: not a retention request", at: document.root.offset)
        }
        if let locale = texts["userLocale"], !LanguageTag.isValid(locale.replacingOccurrences(of: "_", with: "-")) {
            throw failure("`userLocale` `\(Diagnostic.excerpt(locale))` is not a locale", at: 0, path: "userLocale")
        }
        var warnings: [ImportWarning] = []
        self.init(
            originalTransactionId: texts["originalTransactionId"]!, productId: texts["productId"]!, userLocale: texts["userLocale"],
            requestIdentifier: texts["requestIdentifier"]!,
            environment: texts["environment"].map { AppleEnvironment.normalize($0, path: "environment", warnings: &warnings) })
    }
}

/// The answer to a retention request: the rule that decided and Apple's `RealtimeResponseBody`.
public struct RetentionReply: Hashable, Sendable {
    /// Why the answer is what it is.
    @nonexhaustive
    public enum Reason: String, Hashable, Sendable, Codable, CaseIterable {
        /// A rule's conditions held and its reply was possible.
        case ruleMatched = "rule-matched"
        /// No rule: Apple shows its default message.
        case noRuleMatched = "no-rule-matched"
        /// The chain is not covering now (expired, in billing retry, refunded).
        case notSubscribed = "not-subscribed"
        /// The customer's receipts hold no transaction of the request's chain.
        case notTheCustomersChain = "not-the-customers-chain"
        /// The customer rescinded consent for the app: nothing is offered, so no reply.
        case consentRescinded = "consent-rescinded"
    }

    /// The reply: one of Apple's three kinds.
    @nonexhaustive
    public enum Reply: Hashable, Sendable {
        /// An approved message.
        case message(String)
        /// A switch-plan message: the product, its message and how it is billed.
        case alternateProduct(productId: String, message: String?, billingPlan: Transaction.BillingPlan?)
        /// A promotional offer, with its message.
        case promotionalOffer(offerId: String, productId: String, message: String?)
    }

    /// Why a rule was passed over, or that it decided.
    public struct Outcome: Hashable, Sendable {
        /// The rule's id.
        public var rule: String
        /// Whether it decided.
        public var matched: Bool
        /// Why, in one line: "paid 10 days in `sync`, needs 30 days".
        public var because: String
    }

    /// The app.
    public var app: String
    /// The instant answered for.
    public var at: Instant
    /// Apple's `requestIdentifier`.
    public var request: String
    /// The rule that decided, when one did.
    public var rule: String?
    /// Why.
    public var reason: Reason
    /// The reply, when a rule decided.
    public var reply: Reply?
    /// The rules tried, in order, each with why it was passed over or decided.
    public var outcomes: [Outcome]
    /// A promotional offer's `promotionalOfferSignatureV2`, once signed (``signed(with:transactionId:nonce:)``).
    public var signature: String? = nil

    /// For a promotional offer not signed yet: what Apple's signature
    /// (`promotionalOfferSignatureV2`) must sign, with the developer's In-App Purchase key
    /// (``signed(with:transactionId:nonce:)`` does, in a build with the `SystemCrypto` trait).
    public var needsSigning: (productId: String, offerIdentifier: String)? {
        guard signature == nil else { return nil }
        if case .promotionalOffer(let offer, let product, _)? = reply { return (product, offer) } else { return nil }
    }

    /// The reply with its promotional offer signed, at the answer's instant (`iat`); any other
    /// reply as it is.
    ///
    /// - Parameters:
    ///   - signer: the app's In-App Purchase key; its bundle id must be the app's.
    ///   - transactionId: a transaction of the customer's (the request's `originalTransactionId`).
    ///   - nonce: a one-time UUID (a new random one by default).
    /// - Throws: ``PromotionalOfferSigner/SigningError`` when the key is another app's or signing fails.
    public func signed(
        with signer: PromotionalOfferSigner, transactionId: String? = nil, nonce: UUID = UUID()
    ) throws(PromotionalOfferSigner.SigningError) -> RetentionReply {
        guard let needsSigning else { return self }
        guard signer.bundleId == app else {
            throw PromotionalOfferSigner.SigningError(message: "the signing key is for `\(signer.bundleId)`, not `\(app)`")
        }
        var signedReply = self
        signedReply.signature = try signer.signatureV2(
            productId: needsSigning.productId, offerIdentifier: needsSigning.offerIdentifier, transactionId: transactionId, at: at,
            nonce: nonce)
        return signedReply
    }

}

extension RetentionReply {
    /// Apple's `RealtimeResponseBody`, or `nil` without a reply (Apple shows the default message).
    package var appleOutput: JSONOutput? {
        guard let reply else { return nil }
        func message(_ id: String?) -> [(String, JSONOutput)] { id.map { [("messageIdentifier", .string($0))] } ?? [] }
        switch reply {
        case .message(let id):
            return .object([("message", .object(message(id)))])
        case .alternateProduct(let product, let id, let plan):
            var members = message(id) + [("productId", .string(product))]
            if let plan { members.append(("billingPlanType", .string(plan.appleValue))) }
            return .object([("alternateProduct", .object(members))])
        case .promotionalOffer(_, _, let id):
            // Without a signature, the service adds one: see `needsSigning`.
            return .object([("promotionalOffer", .object(message(id) + (signature.map { [("promotionalOfferSignatureV2", .string($0))] } ?? [])))])
        }
    }

    /// Apple's `RealtimeResponseBody` JSON, or `nil` without a reply.
    public var appleJSON: String? { appleOutput.map { $0.rendered() + "\n" } }

    /// As `entitle retention --format json` prints it:
    /// `{"app", "at", "request", "rule", "reason", "reply", "needsSigning"?, "rules"}`.
    public var json: String { jsonOutput.rendered() + "\n" }

    package var jsonOutput: JSONOutput {
        var members: [(String, JSONOutput)] = [
            ("app", .string(app)), ("at", .string(at.rfc3339)), ("request", .string(request)), ("rule", rule.map(JSONOutput.string) ?? .null),
            ("reason", .string(reason.rawValue)), ("reply", appleOutput ?? .null),
        ]
        if let needsSigning {
            members.append(
                (
                    "needsSigning",
                    .object([("productId", .string(needsSigning.productId)), ("offerIdentifier", .string(needsSigning.offerIdentifier))])
                ))
        }
        members.append(
            (
                "rules",
                .array(
                    outcomes.map { .object([("id", .string($0.rule)), ("matched", .bool($0.matched)), ("because", .string($0.because))]) })
            ))
        return .object(members)
    }

    /// The answer for people, each rule tried with why.
    public var text: String {
        var text = "\(app) at \(at.rfc3339): retention request \(request)\n"
        switch reply {
        case .message(let id)?: text += "  reply: message \(id)"
        case .alternateProduct(let product, let id, let plan)?:
            text += "  reply: switch to \(product)" + (plan.map { " (\($0.rawValue))" } ?? "") + (id.map { ", message \($0)" } ?? "")
        case .promotionalOffer(let offer, let product, let id)?:
            text +=
                "  reply: promotional offer \(offer) of \(product)" + (id.map { ", message \($0)" } ?? "")
                + (signature == nil ? " (to be signed)" : " (signed)")
        case nil: text += "  no reply (\(reason.rawValue)): Apple shows the default message"
        }
        text += rule.map { " by rule \($0)\n" } ?? "\n"
        for outcome in outcomes { text += "  \(outcome.matched ? "✓" : "·") \(outcome.rule): \(outcome.because)\n" }
        return text
    }
}

/// Why a retention request cannot be answered: it is not for this app or environment.
public struct RetentionRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// A hint: the closest product id, the environments accepted.
    public var help: String?

    public var description: String { message + (help.map { "\n  help: " + $0 } ?? "") }
}
