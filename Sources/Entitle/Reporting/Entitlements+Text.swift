extension Entitlements {
    /// The result for people: features first, aligned, each with why it is on and until when;
    /// then balances, products, offers, when to look again, and warnings.
    public var text: String {
        var lines: [String] = ["\(app) at \(at.rfc3339)", "", "features"]
        let features = self.features
        let featureWidth = features.map(\.id.count).max() ?? 0
        for feature in features {
            var line = "  " + pad(feature.id, featureWidth) + "  "
            if feature.enabled {
                line += "on   " + (feature.until.map { "until \($0.rfc3339)" } ?? "no end")
                line += "  from " + feature.sources.joined(separator: ", ")
            } else {
                line += "off"
            }
            lines.append(line)
        }
        let balances = self.balances
        if !balances.isEmpty {
            lines += ["", "balances"]
            let width = balances.map(\.currency.count).max() ?? 0
            for balance in balances { lines.append("  " + pad(balance.currency, width) + "  \(balance.balance)") }
        }
        let products = self.products
        if !products.isEmpty {
            lines += ["", "products"]
            let width = products.map(\.id.count).max() ?? 0
            for product in products {
                var line = "  " + pad(product.id, width) + "  " + product.state.rawValue
                if let until = product.until { line += " until \(until.rfc3339)" }
                if let startsAt = product.startsAt { line += " from \(startsAt.rfc3339)" }
                if let willRenew = product.willRenew {
                    line += willRenew ? ", renews" : ", will not renew"
                    if let renewsTo = product.renewsTo { line += willRenew ? " to \(renewsTo)" : " (set to \(renewsTo))" }
                }
                if let commitment = product.commitment {
                    line += ", billed monthly: period \(commitment.period) of \(commitment.periods), commitment ends \(commitment.endsAt.rfc3339)"
                }
                lines.append(line)
            }
        }
        let offers = self.offers
        if !offers.isEmpty {
            lines += ["", "offers"]
            let width = offers.map(\.productId.count).max() ?? 0
            for offer in offers {
                var line = "  " + pad(offer.productId, width) + "  "
                line += offer.eligible ? "offer" : "do not offer (\(offer.reason!.rawValue))"
                if let intro = offer.introOfferEligible { line += intro ? ", intro offer eligible" : ", intro offer used" }
                if let change = offer.change {
                    line += ", \(change.rawValue) (\(offer.effective == .immediately ? "immediately" : "at the next renewal"))"
                }
                if !offer.adds.isEmpty { line += "; adds " + offer.adds.joined(separator: ", ") }
                if !offer.extends.isEmpty { line += "; extends " + offer.extends.joined(separator: ", ") }
                lines.append(line)
                for promotion in offer.promotions ?? [] {
                    lines.append(
                        "  " + pad("", width) + "    \(promotion.type.rawValue) \(promotion.id): "
                            + (promotion.eligible ? "offer" : "do not offer") + " (\(promotion.reason.rawValue))")
                }
            }
        }
        lines += ["", "reevaluate at " + (reevaluateAt?.rfc3339 ?? "never (nothing changes without a new transaction)")]
        if !warnings.isEmpty {
            lines += ["", "warnings"]
            for warning in warnings { lines.append("  " + warning.message) }
        }
        return lines.textOutput
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
