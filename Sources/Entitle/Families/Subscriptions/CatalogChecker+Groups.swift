/// Subscription groups and their levels, and pass groups: non-renewing subscriptions whose
/// purchases add up across products.
extension CatalogChecker {
    mutating func checkGroups(_ catalog: CatalogDefinition) {
        // Auto-renewable groups: every product has a level, or none does.
        var subscriptionGroups: [String: [ProductDefinition]] = [:]
        var order: [String] = []
        for product in catalog.products where product.type == .autoRenewableSubscription {
            guard let group = product.group?.value else { continue }
            if subscriptionGroups[group] == nil { order.append(group) }
            subscriptionGroups[group, default: []].append(product)
        }
        for group in order {
            let products = subscriptionGroups[group]!
            // A level already rejected says nothing about whether the product has one.
            guard !products.contains(where: \.levelBroken), let leveled = products.first(where: { $0.level != nil }),
                let unleveled = products.first(where: { $0.level == nil })
            else { continue }
            let at = unleveled.id ?? Located(value: "", offset: unleveled.offset, path: unleveled.path)
            report(
                .groupRule,
                "in subscription group `\(group)`, \(leveled.label) has a `level` and \(unleveled.label) does not",
                at: at.offset, path: unleveled.path,
                help: "give every product of the group a level (1 is the highest service), or none")
        }
        // Pass groups: a name of their own, not an auto-renewable group's.
        for product in catalog.products where product.type == .nonRenewingSubscription {
            guard let group = product.group, subscriptionGroups[group.value] != nil else { continue }
            report(
                .groupRule, "pass group `\(group.value)` is also the name of an auto-renewable subscription group",
                at: group.offset, path: group.path,
                help: "passes that add up need a group name of their own, e.g. `\"\(group.value).passes\"`")
        }
    }
}
