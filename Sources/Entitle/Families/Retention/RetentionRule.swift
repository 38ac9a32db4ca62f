/// One rule of a subscription's reply to Apple's retention request (a subscriber opened the
/// cancel page): a reply, and the conditions under which it is given. Read-only, from
/// ``CatalogProduct/retention``.
public struct RetentionRule: Hashable, Sendable, Codable {
    /// The rule's id, unique among the product's rules.
    public let id: String
    /// The identifier of a message approved in App Store Connect, as the catalog writes it.
    public let message: String?
    /// Another plan of the group to suggest switching to.
    public let alternateProduct: String?
    /// How the alternate product is billed (Apple's `billingPlanType`).
    public let billingPlan: Transaction.BillingPlan?
    /// The id of one of the product's promotional offers.
    public let promotionalOffer: String?
    /// The customer locales the rule is for (RFC 4647 basic filtering); `nil`: every locale.
    public let locales: [String]?
    /// Time paid in the group, free trials aside, at least this.
    public let paidAtLeast: ISODuration?
    /// No purchase in the group with the rule's promotional offer (any of the product's, for a
    /// rule without one) less than this before.
    public let waitBetween: ISODuration?

    /// The rule as one line: `loyal: promotional offer sync.loyal, message M1, paid ≥ P1M`.
    public var description: String {
        var parts: [String] = []
        if let alternateProduct { parts.append("switch to \(alternateProduct)" + (billingPlan.map { " (\($0.rawValue))" } ?? "")) }
        if let promotionalOffer { parts.append("promotional offer \(promotionalOffer)") }
        if let message { parts.append("message \(message)") }
        if let locales { parts.append("for \(locales.joined(separator: ", "))") }
        if let paidAtLeast { parts.append("paid ≥ \(paidAtLeast)") }
        if let waitBetween { parts.append("wait \(waitBetween)") }
        return "\(id): " + parts.joined(separator: ", ")
    }
}

extension Transaction.BillingPlan: Codable {
    /// Apple's `billingPlanType` for it.
    public var appleValue: String {
        switch self {
        case .monthly: "MONTHLY"
        case .billedUpfront: "BILLED_UPFRONT"
        }
    }
}
