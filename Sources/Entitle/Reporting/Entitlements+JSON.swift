extension Entitlements {
    /// The result as one JSON object, the form `entitle check --format json` prints (and
    /// `JSONEncoder` writes, see ``encode(to:)``):
    /// `{"app", "at", "features", "balances", "products", "offers", "reevaluateAt", "warnings"}`,
    /// listing every declared feature and currency and every product, instants in RFC 3339 UTC.
    public var json: String { jsonOutput.rendered() + "\n" }

    var jsonOutput: JSONOutput {
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
            (status.id, JSONOutput.object([
                ("type", .string(status.type.rawValue)), ("state", .string(status.state.rawValue)), ("until", instant(status.until)),
            ]))
        }
        let offers = self.offers.map { offer in
            var members: [(String, JSONOutput)] = [("eligible", .bool(offer.eligible))]
            if let reason = offer.reason { members.append(("reason", .string(reason.rawValue))) }
            if let intro = offer.introOfferEligible { members.append(("introOfferEligible", .bool(intro))) }
            if let legal = offer.legal { members.append(("legal", .string(legal))) }
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
