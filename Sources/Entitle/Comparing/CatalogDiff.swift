/// The differences between two versions of a portfolio's catalogs (say main's `products/` and a
/// pull request's), per app, with the changes that take something from existing customers marked
/// dangerous.
///
/// Dangerous: an app or product removed (or a product renamed: a new id is a new product to the
/// App Store, so the old id's buyers keep nothing), a changed type, a grant removed from a
/// product, a family-shareable product no longer shareable, a pass's or trial's duration or a
/// pass group changed (existing coverage is recomputed), credits lowered or removed, a feature or
/// currency removed, and a grandfather rule removed or narrowed.
public enum CatalogDiff {
    /// What changed from `old` to `new`: apps in `new`'s order, then apps only `old` has; within
    /// an app, features, currencies, products (a default legal text shows as each product's `legal`) (in `new`'s order, then removed ones)
    /// and grandfather rules.
    public static func changes(from old: Portfolio, to new: Portfolio) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        for catalog in new.catalogs {
            guard let before = old.catalog(for: catalog.app) else {
                changes.append(CatalogChange(app: catalog.app, kind: .appAdded, id: catalog.app))
                continue
            }
            changes += self.changes(from: before, to: catalog)
        }
        for catalog in old.catalogs where new.catalog(for: catalog.app) == nil {
            changes.append(
                CatalogChange(
                    app: catalog.app, kind: .appRemoved, id: catalog.app, dangerous: true,
                    why: "the app's customers keep nothing its catalog granted"))
        }
        return changes
    }

    /// Number limits declared, gone, or whose `default` or `combine` changed: a lower default, or
    /// another way of combining (a customer covered by several products, or by quantities, may get
    /// less), is dangerous.
    static func limitChanges(from old: CompiledCatalog, to new: CompiledCatalog) -> [CatalogChange] {
        let app = new.app
        let (oldIds, newIds) = (old.limits.map(\.id), new.limits.map(\.id))
        var changes = added(oldIds, newIds).map { CatalogChange(app: app, kind: .limitAdded, id: $0) }
        changes += added(newIds, oldIds).map {
            CatalogChange(app: app, kind: .limitRemoved, id: $0, dangerous: true, why: "apps asking for it get no value for anyone")
        }
        for limit in new.limits {
            guard let before = old.limit(limit.id) else { continue }
            if before.default != limit.default {
                changes.append(
                    CatalogChange(
                        app: app, kind: .limitChanged, id: limit.id, field: CatalogKey.default.name, from: String(before.default),
                        to: String(limit.default), dangerous: limit.default < before.default,
                        why: limit.default < before.default ? "customers no product covers get less" : nil))
            }
            if before.combine != limit.combine {
                changes.append(
                    CatalogChange(
                        app: app, kind: .limitChanged, id: limit.id, field: CatalogKey.combine.name, from: before.combine.rawValue,
                        to: limit.combine.rawValue, dangerous: true,
                        why: "covering products' values combine otherwise: customers with several, or with quantities, may get less"))
            }
        }
        return changes
    }

    /// What changed in one app's catalog.
    public static func changes(from old: CompiledCatalog, to new: CompiledCatalog) -> [CatalogChange] {
        let app = new.app
        var changes: [CatalogChange] = []
        changes += added(old.featureIds, new.featureIds).map { CatalogChange(app: app, kind: .featureAdded, id: $0) }
        changes += added(new.featureIds, old.featureIds).map {
            CatalogChange(app: app, kind: .featureRemoved, id: $0, dangerous: true, why: "apps asking for it get `off` for everyone")
        }
        changes += added(old.currencyIds, new.currencyIds).map { CatalogChange(app: app, kind: .currencyAdded, id: $0) }
        changes += added(new.currencyIds, old.currencyIds).map {
            CatalogChange(app: app, kind: .currencyRemoved, id: $0, dangerous: true, why: "balances in it are no longer reported")
        }
        changes += limitChanges(from: old, to: new)
        // Products are matched by key: the same id in two stores is two products.
        let oldProducts = Dictionary(old.products.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newIds = Set(new.products.map(\.key))
        for product in new.products {
            guard let before = oldProducts[product.key] else {
                changes.append(CatalogChange(app: app, kind: .productAdded, id: product.key, to: product.type.rawValue))
                continue
            }
            changes += fields(before, product, app: app)
        }
        for product in old.products where !newIds.contains(product.key) {
            changes.append(
                CatalogChange(
                    app: app, kind: .productRemoved, id: product.key, from: product.type.rawValue, dangerous: true,
                    why: "its buyers' purchases will grant nothing (a renamed id is a new product to the App Store)"))
        }
        changes += rules(old, new)
        changes += offeredToSubscribers(old, new)
        return changes
    }

    /// Subscriptions the new catalog offers to subscribers of another store's plan whom the old
    /// catalog did not (`subscribed-elsewhere`: that plan granted every feature id this one
    /// grants). A feature renamed or split on one store's plan only does this: the plan now
    /// "adds" something, and is sold to people who pay for it elsewhere.
    private static func offeredToSubscribers(_ old: CompiledCatalog, _ new: CompiledCatalog) -> [CatalogChange] {
        func subscriptions(_ catalog: CompiledCatalog) -> [String: CatalogProduct] {
            Dictionary(
                catalog.products.filter { $0.type == .autoRenewableSubscription }.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        }
        func keeps(_ product: CatalogProduct, from other: CatalogProduct) -> Bool {
            other.store != product.store && !product.grants.isEmpty && Set(product.grants).isSubset(of: Set(other.grants))
        }
        let before = subscriptions(old)
        let after = subscriptions(new)
        var changes: [CatalogChange] = []
        for product in new.products where product.type == .autoRenewableSubscription {
            guard let was = before[product.key] else { continue }
            for other in new.products where other.type == .autoRenewableSubscription {
                guard let otherWas = before[other.key], keeps(was, from: otherWas), after[other.key] != nil, !keeps(product, from: other)
                else { continue }
                let adds = Set(product.grants).subtracting(other.grants).sorted()
                changes.append(
                    CatalogChange(
                        app: new.app, kind: .offeredToSubscribers, id: product.key, to: other.key, dangerous: true,
                        why: "its customers pay for it in \(other.store.phrase) already; it now grants \(list(adds)), which \(other.key) does not"
                    ))
            }
        }
        return changes
    }

    /// The changed fields of one product: every key of the language, in its order (a trial's
    /// days beside its duration), dangerous when the change takes something from its buyers.
    private static func fields(_ old: CatalogProduct, _ new: CatalogProduct, app: String) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        func note(_ field: String, _ from: String?, _ to: String?, dangerous: Bool = false, why: String? = nil) {
            guard from != to else { return }
            changes.append(
                CatalogChange(
                    app: app, kind: .productChanged, id: new.key, field: field, from: from, to: to,
                    dangerous: dangerous, why: dangerous ? why : nil))
        }
        for key in CatalogObject.product.keys() where key != .id && key != .comment {
            // Objects and lists of objects change field by field: `offers[back].lapsedAtMost`.
            switch key {
            case .offers:
                changes += offers(old.offers, new.offers, product: new.key, app: app)
                continue
            case .introOffer:
                changes += members(
                    of: .introductoryOffer, "introOffer", old.introOffer.map { offer in { offer.text(of: $0) } },
                    new.introOffer.map { offer in { offer.text(of: $0) } }, product: new.key, app: app)
                continue
            default:
                break
            }
            let (dangerous, why) = danger(of: key, old, new)
            note(key.name, old.text(of: key), new.text(of: key), dangerous: dangerous, why: why)
            if key == .duration {
                note(
                    "trialDays", old.trialDays.map(String.init), new.trialDays.map(String.init), dangerous: true,
                    why: "running trials are recomputed with the new length")
            }
        }
        return changes
    }

    /// The offers added, removed and changed (field by field), matched by id, in `new`'s order
    /// then removed ones.
    private static func offers(_ old: [SubscriptionOffer], _ new: [SubscriptionOffer], product: String, app: String) -> [CatalogChange] {
        let before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Set(new.map(\.id))
        var changes: [CatalogChange] = []
        for offer in new {
            changes += members(
                of: .subscriptionOffer, "offers[\(offer.id)]", before[offer.id].map { offer in { offer.text(of: $0) } },
                { offer.text(of: $0) }, product: product, app: app)
        }
        for offer in old where !after.contains(offer.id) {
            changes += members(of: .subscriptionOffer, "offers[\(offer.id)]", { offer.text(of: $0) }, nil, product: product, app: app)
        }
        return changes
    }

    /// The changes of one object of a product (`field`, as `introOffer` or `offers[back]`): the
    /// whole object added or removed, else each of its keys that changed. An object is given as
    /// the text of each of its keys.
    private static func members(
        of object: CatalogObject, _ field: String, _ old: ((CatalogKey) -> String?)?, _ new: ((CatalogKey) -> String?)?,
        product: String, app: String
    ) -> [CatalogChange] {
        let keys = object.keys().filter { $0 != .comment && $0 != .id }
        func whole(_ text: (CatalogKey) -> String?) -> String {
            keys.compactMap { key in text(key).map { "\(key.name) \($0)" } }.joined(separator: ", ")
        }
        switch (old, new) {
        case (nil, nil):
            return []
        case (nil, let new?):
            return [CatalogChange(app: app, kind: .productChanged, id: product, field: field, to: whole(new))]
        case (let old?, nil):
            return [CatalogChange(app: app, kind: .productChanged, id: product, field: field, from: whole(old))]
        case (let old?, let new?):
            return keys.compactMap { key in
                let (from, to) = (old(key), new(key))
                guard from != to else { return nil }
                return CatalogChange(app: app, kind: .productChanged, id: product, field: "\(field).\(key.name)", from: from, to: to)
            }
        }
    }

    /// Whether changing a key of a product takes something from its buyers, and why.
    private static func danger(of key: CatalogKey, _ old: CatalogProduct, _ new: CatalogProduct) -> (Bool, String?) {
        switch key {
        case .type:
            return (true, "existing purchases are read by the new type's rules")
        case .grants:
            let removed = added(new.grants, old.grants)
            return (!removed.isEmpty, "its buyers lose \(list(removed))")
        case .duration:
            return (new.type == .nonRenewingSubscription || new.trialDays != nil, "existing passes and trials are recomputed with the new duration")
        case .familyShareable:
            return (old.familyShareable, "family members who got it through Family Sharing lose it")
        default:
            // A family's own key: the family says (RuleFamily.danger).
            let why = RuleFamilies.owner(of: key)?.danger(of: key, from: old, to: new)
            return (why != nil, why)
        }
    }

    private static func rules(_ old: CompiledCatalog, _ new: CompiledCatalog) -> [CatalogChange] {
        let app = new.app
        var changes: [CatalogChange] = []
        let oldRules = Dictionary(old.grandfatherRules.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for rule in new.grandfatherRules {
            let grants = rule.grants.map { new.featureIds[$0] }
            guard let before = oldRules[rule.id] else {
                changes.append(CatalogChange(app: app, kind: .ruleAdded, id: rule.id, to: condition(rule.condition) + " grants " + list(grants)))
                continue
            }
            if before.condition != rule.condition {
                changes.append(
                    CatalogChange(
                        app: app, kind: .ruleChanged, id: rule.id, field: "condition",
                        from: condition(before.condition), to: condition(rule.condition), dangerous: true,
                        why: "customers it matched may no longer match"))
            }
            let beforeGrants = before.grants.map { old.featureIds[$0] }
            if beforeGrants != grants {
                let removed = added(grants, beforeGrants)
                changes.append(
                    CatalogChange(
                        app: app, kind: .ruleChanged, id: rule.id, field: "grants", from: list(beforeGrants),
                        to: list(grants), dangerous: !removed.isEmpty,
                        why: removed.isEmpty ? nil : "grandfathered customers lose \(list(removed))"))
            }
        }
        let newRules = Set(new.grandfatherRules.map(\.id))
        for rule in old.grandfatherRules where !newRules.contains(rule.id) {
            changes.append(
                CatalogChange(
                    app: app, kind: .ruleRemoved, id: rule.id, from: condition(rule.condition), dangerous: true,
                    why: "grandfathered customers lose \(list(rule.grants.map { old.featureIds[$0] }))"))
        }
        return changes
    }

    /// The ids of `new` that `old` does not have, in `new`'s order.
    private static func added(_ old: [String], _ new: [String]) -> [String] {
        let known = Set(old)
        return new.filter { !known.contains($0) }
    }

    private static func list(_ ids: [String]) -> String { ids.isEmpty ? "nothing" : ids.joined(separator: ", ") }

    private static func condition(_ condition: GrandfatherCondition) -> String { condition.description }
}
