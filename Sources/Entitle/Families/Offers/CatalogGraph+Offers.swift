/// How the catalog's graph (`entitle graph`) draws a win-back or promotional offer.
extension CatalogGraph {
    /// An offer's label: its kind and id, how it is paid, its conditions.
    static func lines(_ offer: SubscriptionOffer) -> [String] {
        var lines = ["\(offer.type.rawValue) \(offer.id)", "\(offer.mode.rawValue) \(offer.duration)" + (offer.periods.map { " x \($0)" } ?? "")]
        var conditions: [String] = []
        if let subscribed = offer.subscribed { conditions.append(subscribed ? "subscribed" : "not subscribed") }
        if let paid = offer.paidAtLeast { conditions.append("paid ≥ \(paid)") }
        if let paid = offer.paidAtMost { conditions.append("paid ≤ \(paid)") }
        if let at = offer.lapsedAtLeast { conditions.append("lapsed ≥ \(at)") }
        if let at = offer.lapsedAtMost { conditions.append("lapsed ≤ \(at)") }
        if let wait = offer.waitBetween { conditions.append("every \(wait)") }
        if let from = offer.from { conditions.append("from \(from.rfc3339)") }
        if let until = offer.until { conditions.append("until \(until.rfc3339)") }
        if !conditions.isEmpty { lines.append(conditions.joined(separator: ", ")) }
        return lines
    }
}
