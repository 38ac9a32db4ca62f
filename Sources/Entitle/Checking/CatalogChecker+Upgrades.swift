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
        if replaces.value == product.id?.value {
            report(.upgradeRule, "an upgrade cannot replace itself", at: replaces.offset, path: replaces.path)
            return
        }
        guard let fullIndex = context.productsById[replaces.value] else {
            report(
                .unknownProduct, "`replaces` names `\(replaces.value)`, which this catalog does not define",
                at: replaces.offset, path: replaces.path,
                help: Suggestion.help(for: replaces.value, in: context.productIds, budget: &suggestions))
            return
        }
        let full = catalog.products[fullIndex]
        guard let fullType = full.type, let fullId = full.id else { return }
        if fullType != .nonConsumable {
            report(
                .upgradeRule, "`replaces` must name a non-consumable, but `\(fullId.value)` is \(fullType.phrase)",
                at: replaces.offset, path: replaces.path)
        } else if full.isTrial {
            report(
                .upgradeRule, "`replaces` names the trial `\(fullId.value)`; an upgrade replaces the full-price product",
                at: replaces.offset, path: replaces.path)
        } else if full.upgrade != nil {
            report(
                .upgradeRule, "`replaces` names `\(fullId.value)`, which is itself an upgrade",
                at: replaces.offset, path: replaces.path, help: "name the full-price product both stand in for")
        }
    }
}
