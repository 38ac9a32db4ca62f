/// Which definitions of the two catalogs of a comparison are the same as far as the compared
/// parts of the answer read them: the argument that a change evaluation never reads is not
/// searched.
///
/// Evaluation reads a product through its compiled form, which keeps no price tier, retention
/// rules, refund preference or `sampleContent` (replies to Apple's requests read those, and a
/// proof compares no reply). Of what it keeps, the display name is read by explanations only,
/// the legal text only by an offer's `legal` (not compared), and the win-back and promotional
/// offers only by the decision of each offer itself (`Evaluator+Promotions`: an offer's decision
/// reads its own conditions and the facts of its group, which come from transactions, never from
/// another offer). So a feature, a balance, a product's state and a product's offer answer every
/// customer alike under two catalogs whose products differ only in those; and a win-back or
/// promotional offer whose own definition is the same in both answers alike when the products it
/// reads are otherwise the same.
extension ReceiptSpace {
    /// For each element, whether everything evaluation reads for it is the same in both catalogs
    /// (a product as compared, a grant's feature declared in both, another app's catalog
    /// unchanged); for each part of the answer, whether its own definition is.
    func sameDefinitions(_ old: CompiledCatalog, _ new: CompiledCatalog) -> (elements: [Bool], items: [Bool]) {
        let elements = self.elements.map { element in
            switch element {
            case .product(let id): Self.sameAsCompared(id, old, new)
            case .grant(let feature): old.feature(feature) != nil && new.feature(feature) != nil
            case .prerequisite(let app): unchangedApps.contains(app)
            }
        }
        let items = self.items.map { item in
            switch item.item.kind {
            case .feature: old.feature(item.item.id) != nil && new.feature(item.item.id) != nil
            case .balance: old.currency(item.item.id) != nil && new.currency(item.item.id) != nil
            case .limit: Self.sameLimit(item.item.id, old, new)
            case .product, .offer: Self.sameAsCompared(item.item.id, old, new)
            case .promotion: item.item.product.map { Self.sameOffer(item.item.id, of: $0, old, new) } ?? false
            }
        }
        return (elements, items)
    }

    /// Whether limit `id` is declared alike in both catalogs (its `default` and `combine`) and
    /// every product gives it the same value in both: the products' coverage is the elements'.
    static func sameLimit(_ id: String, _ old: CompiledCatalog, _ new: CompiledCatalog) -> Bool {
        guard let before = old.limit(id), let after = new.limit(id), before.default == after.default, before.combine == after.combine
        else { return false }
        let keys = Set(old.products.map(\.key) + new.products.map(\.key))
        return keys.allSatisfy { key in old.product(key)?.limits?[id] == new.product(key)?.limits?[id] }
    }

    /// Whether the two catalogs' grandfather rules are the same, in the same order.
    static func sameRules(_ old: CompiledCatalog, _ new: CompiledCatalog) -> Bool {
        func rules(_ catalog: CompiledCatalog) -> [String] {
            catalog.grandfatherRules.map { "\($0.id) \($0.condition) \($0.grants.map { catalog.featureIds[$0] })" }
        }
        return rules(old) == rules(new)
    }

    /// Whether product `id` is defined in both catalogs, the same in both as every compared part
    /// but its own win-back and promotional offers reads it.
    static func sameAsCompared(_ id: String, _ old: CompiledCatalog, _ new: CompiledCatalog) -> Bool {
        guard let before = old.product(id), let after = new.product(id) else { return false }
        return before.asCompared == after.asCompared
    }

    /// Whether the win-back or promotional offer `offer` of product `id` is the same in both
    /// catalogs, and the product otherwise the same as compared parts read it.
    static func sameOffer(_ offer: String, of id: String, _ old: CompiledCatalog, _ new: CompiledCatalog) -> Bool {
        guard sameAsCompared(id, old, new), let before = old.product(id), let after = new.product(id) else { return false }
        let definition = before.offers.first { $0.id == offer }
        return definition != nil && definition == after.offers.first { $0.id == offer }
    }
}

extension CatalogProduct {
    /// The product without what no compared part of an answer reads of it: its name, price tier,
    /// legal text, retention rules, refund preference and `sampleContent`, and its win-back and
    /// promotional offers (each compared as its own part).
    var asCompared: CatalogProduct {
        CatalogProduct(
            id: id, store: store, storefronts: storefronts, gracePeriod: gracePeriod, name: "", type: type, grants: grants,
            priceTier: nil, group: group, level: level, duration: duration, introOffer: introOffer, offers: [], legal: nil,
            available: available, familyShareable: familyShareable, trialOf: trialOf, trialDays: trialDays, upgrade: upgrade,
            credits: credits, refundPreference: nil, sampleContent: false, retention: [], items: items)
    }
}
