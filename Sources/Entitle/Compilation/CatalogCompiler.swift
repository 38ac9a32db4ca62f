/// Turns checked catalog definitions into ``CompiledCatalog``s. It cannot fail: it is given only
/// definitions ``CatalogChecker`` found no error in, where every required value is present and
/// every reference resolves.
enum CatalogCompiler {
    static func compile(_ definition: CatalogDefinition) -> CompiledCatalog {
        let featureIndex = Dictionary(uniqueKeysWithValues: definition.features.enumerated().map { ($1.value, $0) })
        let currencyIndex = Dictionary(uniqueKeysWithValues: definition.currencies.enumerated().map { ($1.value, $0) })
        let products = definition.products.filter { $0.id != nil && $0.type != nil && $0.name != nil }
        // By key: an id is unique within its store (`trialOf` and `upgrade`, App Store-only, name
        // App Store products, whose key is their id).
        let productIndex = Dictionary(
            products.enumerated().map { ($1.key!, $0) }, uniquingKeysWith: { first, _ in first })
        var groups: [String] = []
        var groupIndex: [String: Int] = [:]
        var passGroups: [String] = []
        var passGroupIndex: [String: Int] = [:]
        // The number of a group name, numbering names in order of first use.
        func number(_ name: String, _ index: inout [String: Int], _ names: inout [String]) -> Int {
            if let existing = index[name] { return existing }
            index[name] = names.count
            names.append(name)
            return names.count - 1
        }
        var upgrades = [[Int]](repeating: [], count: products.count)
        for (index, product) in products.enumerated() {
            if let replaces = product.upgrade?.replaces?.value, let target = productIndex[replaces] {
                upgrades[target].append(index)
            }
        }
        var compiled: [CompiledProduct] = []
        var details: [CatalogProduct] = []
        compiled.reserveCapacity(products.count)
        details.reserveCapacity(products.count)
        for (index, product) in products.enumerated() {
            let type = product.type!
            var role = CompiledProduct.Role.standard
            if let trialOf = product.trialOf?.value, let paid = productIndex[trialOf],
                let days = CatalogChecker.trialDays(in: product.name!.value)
            {
                role = .trial(days: days, paid: paid)
            } else if let upgrade = product.upgrade, let replaces = upgrade.replaces.flatMap({ productIndex[$0.value] }),
                let app = upgrade.requiredApp?.value
            {
                role = .upgrade(
                    replaces: replaces,
                    requirement: UpgradeRequirement(
                        app: app, anyOf: upgrade.anyOf.map { Set($0.map(\.value)) }))
            }
            var group = -1
            var passGroup = -1
            if let name = product.group?.value {
                if type == .nonRenewingSubscription {
                    passGroup = number(name, &passGroupIndex, &passGroups)
                } else {
                    group = number(name, &groupIndex, &groups)
                }
            }
            let duration = type == .nonRenewingSubscription ? product.duration?.value : nil
            let offers = product.offers.compactMap(\.compiled)
            compiled.append(
                CompiledProduct(
                    id: product.key!, name: product.name!.value, type: type, role: role,
                    available: product.available, sharesWithFamily: product.familyShareable,
                    legal: product.legal ?? definition.legal[type],
                    grants: product.grants.compactMap { featureIndex[$0.value] },
                    durationMonths: duration?.totalMonths ?? 0,
                    durationDays: duration?.totalDays ?? 0,
                    durationMilliseconds: duration?.timeMilliseconds ?? 0,
                    group: group, introductoryOffer: product.introOffer?.mode,
                    credits: product.credits.compactMap { credit in
                        currencyIndex[credit.currency.value].map { ($0, credit.amount) }
                    },
                    upgrades: upgrades[index], offers: offers, level: product.level?.value, passGroup: passGroup,
                    period: type == .autoRenewableSubscription ? product.duration?.value : nil,
                    introAudience: product.introOffer?.audience ?? .noIntroYet, store: product.store, storeId: product.id!.value,
                    storefronts: product.storefronts?.map(\.value), gracePeriod: product.gracePeriod?.value,
                    items: product.items?.map { item in
                        CompiledItem(
                            sku: item.sku.value, grants: item.grants.compactMap { featureIndex[$0.value] },
                            credits: item.credits.compactMap { credit in currencyIndex[credit.currency.value].map { ($0, credit.amount) } })
                    }))
            var upgrade: CatalogProduct.Upgrade?
            if let definition = product.upgrade, let replaces = definition.replaces?.value, let app = definition.requiredApp?.value {
                upgrade = CatalogProduct.Upgrade(replaces: replaces, requiresApp: app, anyOf: definition.anyOf?.map(\.value))
            }
            var trialDays: Int?
            if case .trial(let days, _) = role { trialDays = days }
            details.append(
                CatalogProduct(
                    id: product.id!.value, store: product.store, storefronts: product.storefronts?.map(\.value),
                    gracePeriod: product.gracePeriod?.value, name: product.name!.value, type: type, grants: product.grants.map(\.value),
                    priceTier: product.priceTier?.value, group: product.group?.value, level: product.level?.value,
                    duration: product.duration?.value,
                    introOffer: product.introOffer.map { CatalogProduct.IntroOffer(mode: $0.mode, duration: $0.duration, audience: $0.audience) },
                    offers: offers,
                    legal: product.legal ?? definition.legal[type], available: product.available,
                    familyShareable: product.familyShareable, trialOf: trialDays == nil ? nil : product.trialOf?.value,
                    trialDays: trialDays, upgrade: upgrade,
                    credits: product.credits.map { CatalogProduct.Credit(currency: $0.currency.value, amount: $0.amount) },
                    refundPreference: (product.refundPreference ?? definition.refundPreference)?.value, sampleContent: product.sampleContent,
                    retention: product.retention.compactMap { rule in
                        guard let id = rule.id?.value else { return nil }
                        return RetentionRule(
                            id: id, message: rule.message?.value, alternateProduct: rule.alternateProduct?.value,
                            billingPlan: rule.billingPlan?.value, promotionalOffer: rule.promotionalOffer?.value, locales: rule.locales,
                            paidAtLeast: rule.paidAtLeast?.value, waitBetween: rule.waitBetween?.value)
                    },
                    items: product.items?.map { item in
                        CatalogProduct.Item(
                            sku: item.sku.value, grants: item.grants.map(\.value),
                            credits: item.credits.map { CatalogProduct.Credit(currency: $0.currency.value, amount: $0.amount) })
                    }))
        }
        for (index, product) in products.enumerated() where !product.limits.isEmpty {
            details[index].limits = Dictionary(product.limits.map { ($0.id.value, $0.value) }, uniquingKeysWith: { first, _ in first })
        }
        let allowances = AllowanceRules(
            products: products.map { ($0.allowances, $0.unlimited) }, free: definition.allowances,
            currencies: Dictionary(definition.currencies.enumerated().map { ($1.value, Int32($0)) }, uniquingKeysWith: { first, _ in first }))
        for (index, product) in products.enumerated() {
            let given = allowances.allowances(of: index)
            if !given.isEmpty {
                details[index].allowances = given.map { allowance in
                    CatalogAllowance(
                        currency: definition.currencies[Int(allowance.currency)].value, amount: allowance.amount, every: allowance.every,
                        expires: allowance.expires, rollover: allowance.rollover, introOffer: allowance.introAmount)
                }
            }
            if !product.unlimited.isEmpty { details[index].unlimited = product.unlimited.map(\.value) }
        }
        return CompiledCatalog(
            app: definition.app!.value, source: definition.file,
            featureIds: definition.features.map(\.value), featureDescriptions: definition.featureDescriptions,
            currencyIds: definition.currencies.map(\.value), currencyDescriptions: definition.currencyDescriptions,
            products: compiled, details: details, groups: groups, passGroups: passGroups,
            grandfatherRules: definition.grandfatherRules.compactMap { rule in
                guard let id = rule.id?.value, let condition = rule.condition else { return nil }
                return GrandfatherRule(id: id, grants: rule.grants.compactMap { featureIndex[$0.value] }, condition: condition)
            }, manageURLs: definition.manageURLs,
            limits: CompiledLimits(definition.limits, products: products.map { $0.limits.map { ($0.id.value, $0.value) } }),
            allowances: allowances)
    }
}
