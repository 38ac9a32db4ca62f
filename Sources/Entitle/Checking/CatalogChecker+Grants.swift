/// Rules across a catalog's products: unique ids, declared features and currencies, legal text,
/// and what nothing uses; then each product's trial and upgrade rules (`+Trials`, `+Upgrades`).
extension CatalogChecker {
    /// What the rules share about a catalog.
    struct RuleContext {
        /// Product index by id, the first of repeated ids.
        var productsById: [String: Int] = [:]
        var productIds: [String] = []
        var declaredFeatures: Set<String> = []
        /// Products with a grant that is not declared (reported): what they grant is not known.
        var undeclaredGrants: Set<Int> = []
    }

    /// Reports `id` as a duplicate `what` id when `seen` has an earlier one of its value (`help`
    /// says so, given where that one is: its path and line); else adds it to `seen`.
    mutating func checkUnique(_ id: Located<String>, in seen: inout [String: Located<String>], what: String, help: (String) -> String) {
        if let first = seen[id.value] {
            report(
                .duplicateProduct, "duplicate \(what) id `\(id.value)`", at: id.offset, path: id.path,
                help: help("\(first.path) (line \(line(of: first.offset)))"))
        } else {
            seen[id.value] = id
        }
    }

    mutating func checkRules(_ catalog: inout CatalogDefinition) {
        var context = RuleContext()
        // Ids are unique within a store: by key (`stripe:prod_Pro`), the App Store's bare.
        for (index, product) in catalog.products.enumerated() {
            guard let id = product.id, let key = product.key else { continue }
            context.productIds.append(key)
            if let first = context.productsById[key], let firstId = catalog.products[first].id {
                report(
                    .duplicateProduct,
                    "duplicate product id `\(id.value)`" + (product.store == .appStore ? "" : " in store `\(product.store.rawValue)`"),
                    at: id.offset, path: id.path,
                    help: "it is already defined at \(catalog.products[first].path) (line \(line(of: firstId.offset)))")
            } else {
                context.productsById[key] = index
            }
        }
        let featureIds = catalog.features.map(\.value)
        let currencyIds = catalog.currencies.map(\.value)
        context.declaredFeatures = Set(featureIds)
        let declaredCurrencies = Set(currencyIds)
        var granted = Set<String>()
        var credited = Set<String>()
        // Declared features and currencies a misspelt grant or credit probably meant: not "unused",
        // the misspelling is the error.
        var meant = Set<String>()
        var meantCurrencies = Set<String>()
        // A product's grants or credits that could not be read might use any declaration.
        let someGrantsBroken =
            catalog.products.contains { $0.grantsBroken || $0.itemsBroken || ($0.items ?? []).contains(where: \.grantsBroken) }
            || catalog.grandfatherRules.contains(where: \.grantsBroken)
        let someCreditsBroken = catalog.products.contains { $0.creditsBroken || $0.itemsBroken || ($0.items ?? []).contains(where: \.creditsBroken) }

        for (index, product) in catalog.products.enumerated() {
            // What the product and each of its Advanced Commerce SKUs grant and credit.
            let holders: [any GrantHolder] = [product] + (product.items ?? [])
            for holder in holders {
                for grant in holder.grants {
                    granted.insert(grant.value)
                    guard !context.declaredFeatures.contains(grant.value) else { continue }
                    context.undeclaredGrants.insert(index)
                    // A broken `features` or a broken declaration of this id is the error already reported.
                    guard !broken.features, !broken.featureIds.contains(grant.value) else { continue }
                    let suggestion = Suggestion.closest(to: grant.value, in: featureIds, budget: &suggestions)
                    if let suggestion { meant.insert(suggestion) }
                    report(
                        .undeclaredFeature, "undeclared feature `\(grant.value)`", at: grant.offset, path: grant.path,
                        help: Self.declareHelp(featureIds), meant: suggestion)
                }
                for currency in holder.creditedCurrencies {
                    credited.insert(currency.value)
                    guard !declaredCurrencies.contains(currency.value), !broken.currencies,
                        !broken.currencyIds.contains(currency.value)
                    else { continue }
                    let suggestion = Suggestion.closest(to: currency.value, in: currencyIds, budget: &suggestions)
                    if let suggestion { meantCurrencies.insert(suggestion) }
                    report(
                        .undeclaredCurrency, "undeclared currency `\(currency.value)`", at: currency.offset,
                        path: currency.path,
                        help: "declare it under `currencies`", meant: suggestion)
                }
            }
            checkLegal(product, catalog: catalog)
            if let type = product.type, product.items == nil, !product.itemsBroken, product.grants.isEmpty, product.credits.isEmpty,
                product.creditedCurrencies.isEmpty, !product.grantsBroken, !product.creditsBroken
            {
                warn(
                    .grantsNothing, "product \(product.label) grants nothing", at: product.id?.offset ?? product.offset,
                    path: product.path, help: type == .consumable ? "add `credits`" : "add `grants`")
            }
            if let trialOf = product.trialOf {
                checkTrial(catalog.products[index], index: index, trialOf: trialOf, catalog: catalog, context: context)
            } else if product.type == .nonConsumable, product.priceTier?.value == 0, let name = product.name,
                Self.trialDays(in: name.value) != nil
            {
                warn(
                    .looksLikeTrial, "`\(name.value)` is named like a trial but has no `trialOf`, so it never expires",
                    at: name.offset, path: name.path,
                    help: "add `trialOf` naming the paid product it is a trial of")
            }
            if let upgrade = product.upgrade {
                checkUpgrade(product, upgrade: upgrade, app: catalog.app?.value, catalog: catalog, context: context)
            }
        }
        // Each family's rules across products (RuleFamily), in the families' order.
        for family in RuleFamilies.all { family.check(catalog, context: context, with: &self) }
        for rule in catalog.grandfatherRules {
            for grant in rule.grants {
                granted.insert(grant.value)
                guard !context.declaredFeatures.contains(grant.value), !broken.features, !broken.featureIds.contains(grant.value) else { continue }
                let suggestion = Suggestion.closest(to: grant.value, in: featureIds, budget: &suggestions)
                if let suggestion { meant.insert(suggestion) }
                report(
                    .undeclaredFeature, "undeclared feature `\(grant.value)`", at: grant.offset, path: grant.path,
                    help: Self.declareHelp(featureIds), meant: suggestion)
            }
        }
        for feature in catalog.features where !someGrantsBroken && !granted.contains(feature.value) && !meant.contains(feature.value) {
            warn(
                .unusedFeature, "feature `\(feature.value)` is declared but no product grants it",
                at: feature.offset, path: feature.path)
        }
        // A currency every customer gets (free allowances) is in use too.
        credited.formUnion(catalog.allowances.compactMap(\.currency?.value))
        for currency in catalog.currencies
        where !someCreditsBroken && !credited.contains(currency.value) && !meantCurrencies.contains(currency.value) {
            warn(
                .unusedCurrency, "currency `\(currency.value)` is declared but no product credits it",
                at: currency.offset, path: currency.path)
        }
    }

    /// Help for a grant of an undeclared feature that resembles none of the declared ones.
    private static func declareHelp(_ featureIds: [String]) -> String {
        featureIds.isEmpty ? "declare it under `features`" : "declare it under `features`, or grant one of \(list(featureIds))"
    }

    /// A subscription needs legal text, its own or its type's default.
    private mutating func checkLegal(_ product: ProductDefinition, catalog: CatalogDefinition) {
        guard let type = product.type, type.isSubscription, product.legal == nil, catalog.legal[type] == nil else { return }
        // Text that is there but broken was reported where it is.
        guard !product.legalBroken, !broken.legal, !broken.legalTypes.contains(type) else { return }
        report(
            .missingLegal, "\(type.phrase) needs legal text", at: product.id?.offset ?? product.offset, path: product.path,
            help: "add `legal` to the product, or a default under the catalog's `legal.\(type.rawValue)`")
    }
}
