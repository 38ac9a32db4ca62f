/// A win-back or promotional offer of an auto-renewable subscription: how it is paid, when it
/// runs, and the conditions a customer must meet (each `nil` when the catalog states none).
public struct SubscriptionOffer: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The offer's id in App Store Connect.
    public let id: String
    /// Win-back or promotional.
    public let type: SubscriptionOfferType
    /// How the offer is paid.
    public let mode: IntroOfferMode
    /// How long it lasts (one period, for pay-as-you-go).
    public let duration: ISODuration
    /// For pay-as-you-go: how many periods.
    public let periods: Int?
    /// When it starts to run.
    public let from: Instant?
    /// When it stops running (exclusive).
    public let until: Instant?
    /// For a promotional offer: whether the customer must be subscribed in the group now (`true`)
    /// or must not be (`false`).
    public let subscribed: Bool?
    /// Time paid in the group, free trials aside, at least this.
    public let paidAtLeast: ISODuration?
    /// For a promotional offer: time paid in the group, free trials aside, at most this.
    public let paidAtMost: ISODuration?
    /// Time since the group's last coverage ended, at least this.
    public let lapsedAtLeast: ISODuration?
    /// Time since the group's last coverage ended, at most this.
    public let lapsedAtMost: ISODuration?
    /// No redemption in the group (a win-back offer's, or this offer's) less than this before.
    public let waitBetween: ISODuration?

    /// `sync.winback: win-back free-trial P1M, paidAtLeast P3M, ...`, what `entitle diff` shows.
    public var description: String {
        var parts = ["\(type.rawValue) \(mode.rawValue) \(duration)" + (periods.map { " x \($0)" } ?? "")]
        if let from { parts.append("from \(from.rfc3339)") }
        if let until { parts.append("until \(until.rfc3339)") }
        if let subscribed { parts.append(subscribed ? "subscribed" : "not subscribed") }
        if let paidAtLeast { parts.append("paid at least \(paidAtLeast)") }
        if let paidAtMost { parts.append("paid at most \(paidAtMost)") }
        if let lapsedAtLeast { parts.append("lapsed at least \(lapsedAtLeast)") }
        if let lapsedAtMost { parts.append("lapsed at most \(lapsedAtMost)") }
        if let waitBetween { parts.append("wait \(waitBetween) between") }
        return "\(id): " + parts.joined(separator: ", ")
    }
}

extension SubscriptionOffer {
    /// The value a key of the offer has, as one line (what `entitle diff` compares); `nil` when the
    /// offer states none.
    package func text(of key: CatalogKey) -> String? { Self.fieldTexts[key.name].flatMap { $0(self) } }

    /// The text of each key of an offer, `comment` aside (checked by a test as the product's are).
    package static let fieldTexts: [String: @Sendable (Self) -> String?] = [
        CatalogKey.id.name: { $0.id },
        CatalogKey.type.name: { $0.type.rawValue },
        CatalogKey.mode.name: { $0.mode.rawValue },
        CatalogKey.duration.name: { $0.duration.description },
        CatalogKey.periods.name: { $0.periods.map(String.init) },
        CatalogKey.from.name: { $0.from?.rfc3339 },
        CatalogKey.until.name: { $0.until?.rfc3339 },
        CatalogKey.subscribed.name: { $0.subscribed.map(String.init) },
        CatalogKey.paidAtLeast.name: { $0.paidAtLeast?.description },
        CatalogKey.paidAtMost.name: { $0.paidAtMost?.description },
        CatalogKey.lapsedAtLeast.name: { $0.lapsedAtLeast?.description },
        CatalogKey.lapsedAtMost.name: { $0.lapsedAtMost?.description },
        CatalogKey.waitBetween.name: { $0.waitBetween?.description },
    ]
}

extension SubscriptionOfferDefinition {
    /// The offer as the compiled catalog holds it; `nil` when a required value did not read (an
    /// error was reported, and the catalog is not compiled).
    var compiled: SubscriptionOffer? {
        guard let id = id?.value, let type, let mode, let duration = duration?.value else { return nil }
        return SubscriptionOffer(
            id: id, type: type, mode: mode, duration: duration, periods: periods.map { Int($0.value) },
            from: from.map { Instant(millisecondsSince1970: $0.value) }, until: until.map { Instant(millisecondsSince1970: $0.value) },
            subscribed: subscribed, paidAtLeast: paidAtLeast?.value, paidAtMost: paidAtMost?.value, lapsedAtLeast: lapsedAtLeast?.value,
            lapsedAtMost: lapsedAtMost?.value, waitBetween: waitBetween?.value)
    }
}
