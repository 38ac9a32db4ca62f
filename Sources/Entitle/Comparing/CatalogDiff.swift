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
            changes.append(CatalogChange(app: catalog.app, kind: .appRemoved, id: catalog.app, dangerous: true,
                                         why: "the app's customers keep nothing its catalog granted"))
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
        let oldProducts = Dictionary(old.products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newIds = Set(new.products.map(\.id))
        for product in new.products {
            guard let before = oldProducts[product.id] else {
                changes.append(CatalogChange(app: app, kind: .productAdded, id: product.id, to: product.type.rawValue))
                continue
            }
            changes += fields(before, product, app: app)
        }
        for product in old.products where !newIds.contains(product.id) {
            changes.append(CatalogChange(
                app: app, kind: .productRemoved, id: product.id, from: product.type.rawValue, dangerous: true,
                why: "its buyers' purchases will grant nothing (a renamed id is a new product to the App Store)"))
        }
        changes += rules(old, new)
        return changes
    }

    /// The changed fields of one product.
    private static func fields(_ old: CatalogProduct, _ new: CatalogProduct, app: String) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        func note(_ field: String, _ from: String?, _ to: String?, dangerous: Bool = false, why: String? = nil) {
            guard from != to else { return }
            changes.append(CatalogChange(app: app, kind: .productChanged, id: new.id, field: field, from: from, to: to,
                                         dangerous: dangerous, why: dangerous ? why : nil))
        }
        note("type", old.type.rawValue, new.type.rawValue, dangerous: true, why: "existing purchases are read by the new type's rules")
        note("name", old.name, new.name)
        note("priceTier", old.priceTier.map(String.init), new.priceTier.map(String.init))
        let removed = added(new.grants, old.grants)
        note("grants", list(old.grants), list(new.grants), dangerous: !removed.isEmpty,
             why: "its buyers lose \(list(removed))")
        let passOrTrial = new.type == .nonRenewingSubscription || new.trialDays != nil
        note("duration", old.duration?.description, new.duration?.description, dangerous: passOrTrial,
             why: "existing passes and trials are recomputed with the new duration")
        note("trialDays", old.trialDays.map(String.init), new.trialDays.map(String.init), dangerous: true,
             why: "running trials are recomputed with the new length")
        note("group", old.group, new.group, dangerous: new.type == .nonRenewingSubscription,
             why: "existing passes stack differently")
        note("level", old.level.map(String.init), new.level.map(String.init))
        note("introOffer", old.introOffer.map { "\($0.mode.rawValue) \($0.duration)" }, new.introOffer.map { "\($0.mode.rawValue) \($0.duration)" })
        note("available", String(old.available), String(new.available))
        note("familyShareable", String(old.familyShareable), String(new.familyShareable), dangerous: old.familyShareable,
             why: "family members who got it through Family Sharing lose it")
        note("legal", old.legal, new.legal)
        note("trialOf", old.trialOf, new.trialOf)
        note("upgrade", old.upgrade.map(upgrade), new.upgrade.map(upgrade))
        let oldCredits = Dictionary(old.credits.map { ($0.currency, $0.amount) }, uniquingKeysWith: { first, _ in first })
        let lowered = new.credits.contains { $0.amount < oldCredits[$0.currency] ?? 0 }
            || old.credits.contains { credit in !new.credits.contains { $0.currency == credit.currency } }
        note("credits", credits(old.credits), credits(new.credits), dangerous: lowered,
             why: "balances of customers who bought it drop")
        return changes
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
                changes.append(CatalogChange(app: app, kind: .ruleChanged, id: rule.id, field: "condition",
                                             from: condition(before.condition), to: condition(rule.condition), dangerous: true,
                                             why: "customers it matched may no longer match"))
            }
            let beforeGrants = before.grants.map { old.featureIds[$0] }
            if beforeGrants != grants {
                let removed = added(grants, beforeGrants)
                changes.append(CatalogChange(app: app, kind: .ruleChanged, id: rule.id, field: "grants", from: list(beforeGrants),
                                             to: list(grants), dangerous: !removed.isEmpty,
                                             why: removed.isEmpty ? nil : "grandfathered customers lose \(list(removed))"))
            }
        }
        let newRules = Set(new.grandfatherRules.map(\.id))
        for rule in old.grandfatherRules where !newRules.contains(rule.id) {
            changes.append(CatalogChange(app: app, kind: .ruleRemoved, id: rule.id, from: condition(rule.condition), dangerous: true,
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

    private static func credits(_ credits: [CatalogProduct.Credit]) -> String? {
        credits.isEmpty ? nil : credits.map { "\($0.amount) \($0.currency)" }.joined(separator: ", ")
    }

    private static func upgrade(_ upgrade: CatalogProduct.Upgrade) -> String {
        "replaces \(upgrade.replaces), requires \(upgrade.requiresApp)" + (upgrade.anyOf.map { " (\($0.joined(separator: ", ")))" } ?? "")
    }

    private static func condition(_ condition: GrandfatherCondition) -> String {
        switch condition {
        case .originalApplicationVersionBefore(let version): return "originalApplicationVersion before \(version.map(String.init).joined(separator: "."))"
        case .originalPurchaseBefore(let instant): return "originalPurchaseDate before \(Instant(millisecondsSince1970: instant).rfc3339)"
        }
    }
}
