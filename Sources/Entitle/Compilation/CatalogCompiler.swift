/// Turns checked catalog definitions into ``CompiledCatalog``s. It cannot fail: everything it
/// relies on was checked by ``CatalogChecker``.
enum CatalogCompiler {
    static func compile(_ definition: CatalogDefinition) -> CompiledCatalog {
        let featureIndex = Dictionary(uniqueKeysWithValues: definition.features.enumerated().map { ($1.value, $0) })
        let currencyIndex = Dictionary(uniqueKeysWithValues: definition.currencies.enumerated().map { ($1.value, $0) })
        let productIndex = Dictionary(
            definition.products.enumerated().map { ($1.id.value, $0) }, uniquingKeysWith: { first, _ in first })
        var groups: [String] = []
        var groupIndex: [String: Int] = [:]
        var upgrades = [[Int]](repeating: [], count: definition.products.count)
        for (index, product) in definition.products.enumerated() {
            if let replaces = product.upgrade?.replaces.value, let target = productIndex[replaces] {
                upgrades[target].append(index)
            }
        }
        var products: [CompiledProduct] = []
        products.reserveCapacity(definition.products.count)
        for (index, product) in definition.products.enumerated() {
            var role = CompiledProduct.Role.standard
            if let trialOf = product.trialOf?.value, let paid = productIndex[trialOf],
               let days = CatalogChecker.trialDays(in: product.name.value) {
                role = .trial(days: days, paid: paid)
            } else if let upgrade = product.upgrade, let replaces = productIndex[upgrade.replaces.value] {
                role = .upgrade(replaces: replaces, requirement: UpgradeRequirement(
                    app: upgrade.requiredApp.value, anyOf: upgrade.anyOf.map { Set($0.map(\.value)) }))
            }
            var group = -1
            if let name = product.group {
                if let existing = groupIndex[name] {
                    group = existing
                } else {
                    group = groups.count
                    groupIndex[name] = group
                    groups.append(name)
                }
            }
            let duration = product.type == .nonRenewingSubscription ? product.duration?.value : nil
            products.append(CompiledProduct(
                id: product.id.value, name: product.name.value, type: product.type, role: role,
                available: product.available, familyShareable: product.familyShareable,
                legal: product.legal ?? definition.legal[product.type],
                grants: product.grants.compactMap { featureIndex[$0.value] },
                durationMonths: duration?.totalMonths ?? 0,
                durationDays: duration?.totalDays ?? 0,
                durationMilliseconds: duration?.timeMilliseconds ?? 0,
                group: group, introOffer: product.introOffer?.mode,
                credits: product.credits.compactMap { credit in
                    currencyIndex[credit.currency.value].map { ($0, credit.amount) }
                },
                upgrades: upgrades[index]))
        }
        return CompiledCatalog(
            app: definition.app.value, source: definition.file,
            featureIds: definition.features.map(\.value), featureDescriptions: definition.featureDescriptions,
            currencyIds: definition.currencies.map(\.value), currencyDescriptions: definition.currencyDescriptions,
            products: products, groups: groups)
    }
}
