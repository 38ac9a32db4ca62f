extension Entitlements {
    /// The result as one JSON object, the form `entitle check --format json` prints (and
    /// `JSONEncoder` writes, see ``encode(to:)``):
    /// `{"app", "at", "features", "balances", "products", "offers", "reevaluateAt", "warnings"}`,
    /// listing every declared feature and currency and every product, instants in RFC 3339 UTC.
    public var json: String { jsonOutput.rendered() + "\n" }

    package var jsonOutput: JSONOutput {
        func instant(_ value: Instant?) -> JSONOutput { value.map { .string($0.rfc3339) } ?? .null }
        let features = self.features.map { status in
            (status.id, JSONOutput.object([
                ("enabled", .bool(status.enabled)),
                ("until", instant(status.until)),
                ("sources", .array(status.sources.map(JSONOutput.string))),
            ]))
        }
        let balances = self.balances.map { ($0.currency, JSONOutput.integer($0.balance)) }
        let products = self.products.map { status in
            var members: [(String, JSONOutput)] = [
                ("type", .string(status.type.rawValue)), ("state", .string(status.state.rawValue)), ("until", instant(status.until)),
            ]
            if let startsAt = status.startsAt { members.append(("startsAt", instant(startsAt))) }
            if let willRenew = status.willRenew { members.append(("willRenew", .bool(willRenew))) }
            if let renewsTo = status.renewsTo { members.append(("renewsTo", .string(renewsTo))) }
            return (status.id, JSONOutput.object(members))
        }
        let offers = self.offers.map { offer in
            var members: [(String, JSONOutput)] = [("eligible", .bool(offer.eligible))]
            if let reason = offer.reason { members.append(("reason", .string(reason.rawValue))) }
            if let intro = offer.introOfferEligible { members.append(("introOfferEligible", .bool(intro))) }
            if let legal = offer.legal { members.append(("legal", .string(legal))) }
            if let change = offer.change { members.append(("change", .string(change.rawValue))) }
            if let effective = offer.effective { members.append(("effective", .string(effective.rawValue))) }
            return (offer.productId, JSONOutput.object(members))
        }
        let warnings = self.warnings.map {
            JSONOutput.object([("code", .string($0.code)), ("message", .string($0.message))])
        }
        return .object([
            ("app", .string(app)),
            ("at", .string(at.rfc3339)),
            ("features", .object(features)),
            ("balances", .object(balances)),
            ("products", .object(products)),
            ("offers", .object(offers)),
            ("reevaluateAt", instant(reevaluateAt)),
            ("warnings", .array(warnings)),
        ])
    }
}
