/// Win-back and promotional offers of an auto-renewable subscription: each read against the
/// language, then the rules that relate an offer's keys (a pay-as-you-go offer's periods, a
/// window that opens before it closes, conditions that can hold together) and ids unique among
/// the catalog's offers.
extension CatalogChecker {
    /// Reads a product's `offers`.
    mutating func subscriptionOffers(_ node: JSONNode, path: String) -> [SubscriptionOfferDefinition] {
        guard let elements = listElements(node, of: "offers", limit: CatalogLimits.maxOffersPerProduct, "a product may have", path: path)
        else { return [] }
        return elements.prefix(CatalogLimits.maxOffersPerProduct).enumerated().compactMap { (index, element) -> SubscriptionOfferDefinition? in
            subscriptionOffer(element, path: "\(path)[\(index)]")
        }
    }

    private mutating func subscriptionOffer(_ node: JSONNode, path: String) -> SubscriptionOfferDefinition? {
        guard let members = object(node, .subscriptionOffer, path: path) else { return nil }
        func keyPath(_ key: CatalogKey) -> String { Self.path(path, key: key.name) }
        func read(_ key: CatalogKey) -> Scalar? {
            members[key.name].flatMap { scalar($0, key, in: .subscriptionOffer, path: keyPath(key)) }
        }
        var offer = SubscriptionOfferDefinition(path: path, offset: node.offset)
        offer.id = read(.id)?.text
        offer.type = read(.type)?.text.flatMap { SubscriptionOfferType(rawValue: $0.value) }
        offer.mode = read(.mode)?.text.flatMap { IntroOfferMode(rawValue: $0.value) }
        offer.duration = read(.duration)?.duration
        offer.periods = read(.periods)?.integer
        offer.from = read(.from)?.instant
        offer.until = read(.until)?.instant
        offer.subscribed = read(.subscribed)?.flag
        offer.paidAtLeast = read(.paidAtLeast)?.duration
        offer.paidAtMost = read(.paidAtMost)?.duration
        offer.lapsedAtLeast = read(.lapsedAtLeast)?.duration
        offer.lapsedAtMost = read(.lapsedAtMost)?.duration
        offer.waitBetween = read(.waitBetween)?.duration
        offer.subscribedOffset = members[CatalogKey.subscribed.name]?.keyOffset
        checkOffer(offer, members: members)
        return offer
    }

    /// The rules of one offer's keys.
    private mutating func checkOffer(_ offer: SubscriptionOfferDefinition, members: [String: JSONMember]) {
        func keyPath(_ key: CatalogKey) -> String { Self.path(offer.path, key: key.name) }
        if let periods = offer.periods, let mode = offer.mode, mode != .payAsYouGo {
            report(
                .offerRule, "`\(CatalogKey.periods)` is for `\(IntroOfferMode.payAsYouGo.rawValue)` offers, not `\(mode.rawValue)`",
                at: periods.offset, path: periods.path,
                help: "a `\(mode.rawValue)` offer lasts its `\(CatalogKey.duration)`; remove `\(CatalogKey.periods)`")
        }
        if let from = offer.from, let until = offer.until, until.value <= from.value {
            report(
                .offerRule, "the offer stops running (`\(CatalogKey.until)`) before it starts (`\(CatalogKey.from)`)",
                at: until.offset, path: until.path)
        }
        if let most = offer.paidAtMost {
            if offer.type == .winBack {
                report(
                    .offerRule,
                    "a win-back offer's conditions in App Store Connect have no most time paid; `\(CatalogKey.paidAtMost)` is for promotional offers",
                    at: most.offset, path: most.path, help: "remove `\(CatalogKey.paidAtMost)`, or make the offer promotional")
            } else if let least = offer.paidAtLeast, most.value.nominalMilliseconds < least.value.nominalMilliseconds {
                report(
                    .offerRule,
                    "`\(CatalogKey.paidAtMost)` \(most.value) is shorter than `\(CatalogKey.paidAtLeast)` \(least.value), so no customer qualifies",
                    at: most.offset, path: most.path)
            }
        }
        if let least = offer.lapsedAtLeast, let most = offer.lapsedAtMost,
            most.value.nominalMilliseconds < least.value.nominalMilliseconds
        {
            report(
                .offerRule,
                "`\(CatalogKey.lapsedAtMost)` \(most.value) is shorter than `\(CatalogKey.lapsedAtLeast)` \(least.value), so no customer qualifies",
                at: most.offset, path: most.path)
        }
        if let subscribed = offer.subscribed, let at = offer.subscribedOffset {
            if offer.type == .winBack {
                report(
                    .offerRule, "a win-back offer is for customers who are not subscribed; `\(CatalogKey.subscribed)` is for promotional offers",
                    at: at, path: keyPath(.subscribed), help: "remove `\(CatalogKey.subscribed)`")
            } else if subscribed, let lapsed = offer.lapsedAtLeast ?? offer.lapsedAtMost {
                report(
                    .offerRule, "a customer subscribed now has not lapsed: `\(CatalogKey.subscribed)` true and a lapse condition never hold together",
                    at: lapsed.offset, path: lapsed.path, help: "set `\(CatalogKey.subscribed)` to false, or remove the lapse condition")
            }
        }
    }

    /// Offer ids are unique among the catalog's offers, across its products.
    mutating func checkOfferIds(_ catalog: CatalogDefinition) {
        var seen: [String: Located<String>] = [:]
        for product in catalog.products {
            for offer in product.offers {
                guard let id = offer.id else { continue }
                checkUnique(id, in: &seen, what: "offer") { "it is already used at \($0); offer ids are unique in a catalog" }
            }
        }
    }
}

extension ISODuration {
    /// The duration in fixed units, as offer conditions count time: a day 24 hours, a week 7
    /// days, a month 30 days, a year 365 days (Apple counts whole months; a catalog states days).
    var nominalMilliseconds: Int64 {
        let days = Int64(years) * 365 + Int64(months) * 30 + Int64(weeks) * 7 + Int64(days)
        return days * CivilCalendar.millisecondsPerDay + timeMilliseconds
    }
}

/// A win-back or promotional offer of an auto-renewable subscription, as read (values that did
/// not read are `nil`).
struct SubscriptionOfferDefinition {
    var path: String
    var offset: Int
    var id: Located<String>?
    var type: SubscriptionOfferType?
    var mode: IntroOfferMode?
    var duration: Located<ISODuration>?
    var periods: Located<Int64>?
    var from: Located<Int64>?
    var until: Located<Int64>?
    var subscribed: Bool?
    /// Where `subscribed` is, for messages about it.
    var subscribedOffset: Int?
    var paidAtLeast: Located<ISODuration>?
    var paidAtMost: Located<ISODuration>?
    var lapsedAtLeast: Located<ISODuration>?
    var lapsedAtMost: Located<ISODuration>?
    var waitBetween: Located<ISODuration>?
}
