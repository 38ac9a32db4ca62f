extension Entitlements {
    /// The result for people: features first, aligned, each with why it is on and until when;
    /// then balances, products, offers, when to look again, and warnings.
    public var text: String { text(offersOf: nil) }

    /// ``text`` with only one store's offers (`check --store`); `nil` gives every offer.
    public func text(offersOf store: Store?) -> String {
        var lines = ["\(app) at \(at.rfc3339)"]
        if let consentRescinded {
            lines += ["", "consent rescinded at \(consentRescinded.rfc3339): no feature is on and nothing is offered"]
        }
        lines += section("features", features, name: \.id, always: true) { feature, name in
            guard feature.enabled else { return [name + "  off"] }
            return [
                name + "  on   " + (feature.until.map { "until \($0.rfc3339)" } ?? "no end") + "  from "
                    + feature.sources.joined(separator: ", ")
            ]
        }
        lines += section("balances", balances, name: \.currency) { balance, name in
            var head = name + "  \(balance.balance)" + (balance.unlimited ? "  unlimited" : "")
            if let next = balance.nextDepositAt { head += "  next deposit \(next)" }
            // One line per deposit or purchase with credits left, in the order they are spent.
            return [head]
                + (balance.deposits ?? []).map { deposit in
                    "    \(deposit.remaining) of \(deposit.amount) from \(deposit.source)" + (deposit.carried.map { " (\($0) carried)" } ?? "")
                        + (deposit.count > 1 ? " (\(deposit.count) deposits)" : "")
                        + " at \(deposit.at)" + (deposit.endsAt.map { ", ends \($0)" } ?? "")
                }
        }
        lines += section("limits", limits, name: \.id) { limit, name in
            var line = name + "  \(limit.value)"
            line += limit.sources.isEmpty ? "  (default)" : "  from " + limit.sources.joined(separator: ", ")
            if let until = limit.until { line += " until \(until.rfc3339)" }
            return [line]
        }
        lines += section("products", products, name: \.id) { product, name in
            var line = name + "  " + product.state.rawValue
            if let until = product.until { line += " until \(until.rfc3339)" }
            if let startsAt = product.startsAt { line += " from \(startsAt.rfc3339)" }
            if let resumesAt = product.resumesAt { line += " until \(resumesAt.rfc3339)" }
            if let willRenew = product.willRenew {
                line += willRenew ? ", renews" : ", will not renew"
                if let renewsTo = product.renewsTo { line += willRenew ? " to \(renewsTo)" : " (set to \(renewsTo))" }
                if willRenew, let price = product.renewalPrice { line += " at \(price.amount) \(price.currency)" }
            }
            if let offerEndsAt = product.offerEndsAt { line += ", offer until \(offerEndsAt.rfc3339)" }
            if let commitment = product.commitment {
                line += ", billed monthly: period \(commitment.period) of \(commitment.periods), commitment ends \(commitment.endsAt.rfc3339)"
            }
            // Where to manage it, for another store's subscription (App Store customers know).
            if product.store != .appStore, let manage = product.manage { line += "; manage at \(manage)" }
            return [line]
        }
        lines += section("offers", store.map(offers(in:)) ?? offers, name: \.productId) { offer, name in
            var line = name + "  " + (offer.eligible ? "offer" : "do not offer (\(offer.reason!.rawValue))")
            if let intro = offer.introOfferEligible { line += ", " + Offer.introPhrase(eligible: intro, reason: offer.reason) }
            if let change = offer.change {
                line += ", \(change.rawValue) (\(offer.effective == .immediately ? "immediately" : "at the next renewal"))"
            }
            if !offer.adds.isEmpty { line += "; adds " + offer.adds.joined(separator: ", ") }
            if !offer.extends.isEmpty { line += "; extends " + offer.extends.joined(separator: ", ") }
            // Each promotional offer below, past the name.
            let indent = String(repeating: " ", count: name.count) + "    "
            return [line]
                + (offer.promotions ?? []).map { promotion in
                    indent + "\(promotion.type.rawValue) \(promotion.id): " + (promotion.eligible ? "offer" : "do not offer")
                        + " (\(promotion.reason.rawValue))"
                }
        }
        lines += ["", "reevaluate at " + (reevaluateAt?.rfc3339 ?? "never (nothing changes without a new transaction)")]
        if !warnings.isEmpty {
            lines += ["", "warnings"]
            for warning in warnings { lines.append("  " + warning.message) }
        }
        return lines.textOutput
    }

    /// A section of the text after a blank line: its title, then the lines `body` writes for each
    /// item, given the item's name indented and padded to the longest; nothing when there are no
    /// items, unless `always`.
    private func section<Item>(
        _ title: String, _ items: [Item], name: (Item) -> String, always: Bool = false, body: (Item, String) -> [String]
    ) -> [String] {
        guard always || !items.isEmpty else { return [] }
        let width = items.map { name($0).count }.max() ?? 0
        return ["", title] + items.flatMap { body($0, "  " + pad(name($0), width)) }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
