/// Upgrades: a non-consumable at upgrade pricing that stands in for a full-price non-consumable
/// of this catalog, for owners of another app. What the other app's catalog defines is checked by
/// ``PortfolioChecker``.
extension CatalogChecker {
    mutating func checkUpgrade(
        _ product: ProductDefinition, upgrade: UpgradeDefinition, app: String?, catalog: CatalogDefinition, context: RuleContext
    ) {
        if let type = product.type, type != .nonConsumable {
            let at = upgrade.replaces ?? product.id
            report(
                .upgradeRule, "an upgrade must be a non-consumable, not \(type.phrase)",
                at: at?.offset ?? product.offset, path: at?.path ?? product.path)
        }
        if let required = upgrade.requiredApp, let app, required.value == app {
            report(
                .upgradeRule, "an upgrade cannot require a purchase in its own app `\(app)`",
                at: required.offset, path: required.path,
                help: "`requires.app` names the other (older) app whose receipt qualifies")
        }
        guard let replaces = upgrade.replaces else { return }
        guard
            let (_, full, fullId) = namedNonConsumable(
                replaces, key: .replaces, of: product, rule: .upgradeRule, itself: "an upgrade cannot replace itself", catalog: catalog,
                context: context)
        else { return }
        if full.isTrial {
            report(
                .upgradeRule, "`replaces` names the trial `\(fullId.value)`; an upgrade replaces the full-price product",
                at: replaces.offset, path: replaces.path)
        } else if full.upgrade != nil {
            report(
                .upgradeRule, "`replaces` names `\(fullId.value)`, which is itself an upgrade",
                at: replaces.offset, path: replaces.path, help: "name the full-price product both stand in for")
        }
    }

    /// The product that `reference`, the `key` of `product` (the paid product a trial names, an upgrade's
    /// `replaces`), names, with its index and id, when it is another non-consumable of the
    /// catalog. Otherwise `nil`: reported (under `rule`, `itself` when it names `product`), except
    /// when the named product's type or id is broken, which was reported there, as what it should
    /// be is not known.
    mutating func namedNonConsumable(
        _ reference: Located<String>, key: CatalogKey, of product: ProductDefinition, rule: DiagnosticCode, itself: String,
        catalog: CatalogDefinition, context: RuleContext
    ) -> (index: Int, product: ProductDefinition, id: Located<String>)? {
        if reference.value == product.id?.value {
            report(rule, itself, at: reference.offset, path: reference.path)
            return nil
        }
        guard let index = context.productsById[reference.value] else {
            report(
                .unknownProduct, "`\(key.name)` names `\(reference.value)`, which this catalog does not define",
                at: reference.offset, path: reference.path,
                meant: Suggestion.closest(to: reference.value, in: context.productIds, budget: &suggestions))
            return nil
        }
        let named = catalog.products[index]
        guard let type = named.type, let id = named.id else { return nil }
        guard type == .nonConsumable else {
            report(
                rule, "`\(key.name)` must name a non-consumable, but `\(id.value)` is \(type.phrase)",
                at: reference.offset, path: reference.path)
            return nil
        }
        return (index, named, id)
    }
}
