/// The store dimension of a catalog: which keys each store's products take, groups of one store,
/// Play's subscription ids, storefronts, and the `stores` settings.
///
/// - Products are sold in the App Store unless they say `store`. A product id is unique within
///   its store (the duplicate check reads keys, `stripe:prod_Pro`).
/// - `priceTier`, `trialOf`, `upgrade`, `familyShareable` and `offers` are App Store Connect's:
///   on another store's product each is `not-for-store`. `gracePeriod` is for `stripe` and
///   `external` subscriptions (the App Store and Play report their grace periods themselves).
/// - A subscription or pass group holds products of one store (`mixed-store-group`).
/// - A Play subscription (auto-renewable, or a prepaid plan: non-renewing) is
///   `<productId>:<basePlanId>`; no other id holds a `:` (`bad-play-id`).
/// - A Stripe product is named by its Product id: a Price's (`price_...`) or Plan's (`plan_...`)
///   id is a warning (`stripe-price-id`), since no purchase would match it.
/// - `storefronts` is a non-empty list of distinct ISO 3166-1 alpha-3 codes, upper case.
extension CatalogChecker {
    /// The App Store-only keys, and why another store refuses each.
    private static let appStoreOnly: [(key: CatalogKey, why: String)] = [
        (.priceTier, "price tiers are App Store Connect's; another store prices its products itself"),
        (.trialOf, "\"N-day Trial\" non-consumables are an App Store pattern; another store has trials of its own"),
        (.upgrade, "upgrade pricing reads another app's App Store receipt"),
        (.familyShareable, "Family Sharing is the App Store's"),
        (.offers, "win-back and promotional offers are App Store Connect's; a web checkout makes its own"),
    ]

    mutating func checkStores(_ catalog: CatalogDefinition) {
        for product in catalog.products where !product.storeBroken {
            func at(_ key: CatalogKey) -> Int { product.keyOffsets[key.name] ?? product.offset }
            func keyPath(_ key: CatalogKey) -> String { Self.path(product.path, key: key.name) }
            if product.store != .appStore {
                for (key, why) in Self.appStoreOnly where product.keyOffsets[key.name] != nil {
                    report(
                        .notForStore, "`\(key.name)` is for App Store products, not `\(product.store.rawValue)` ones", at: at(key),
                        path: keyPath(key), help: why)
                }
            }
            if product.keyOffsets[CatalogKey.gracePeriod.name] != nil, product.store == .appStore || product.store == .play {
                report(
                    .notForStore, "`gracePeriod` is for `stripe` and `external` subscriptions, not `\(product.store.rawValue)` ones",
                    at: at(.gracePeriod), path: keyPath(.gracePeriod),
                    help: "the \(product.store == .play ? "Play" : "App") Store reports its grace periods itself, in renewal info")
            }
            guard let id = product.id else { continue }
            // Stripe's objects name a purchase's Product, never its Price or (legacy) Plan.
            if product.store == .stripe, let kind = ["price_": "Price", "plan_": "Plan"].first(where: { id.value.hasPrefix($0.key) })?.value {
                warn(
                    .stripePriceId,
                    "`\(Diagnostic.excerpt(id.value))` is a Stripe \(kind)'s id: Stripe's data names a purchase's Product (`prod_...`), so none would match",
                    at: id.offset, path: id.path,
                    help: "name the product by the \(kind)'s `product`, the `prod_...` id on the product's page in Stripe's dashboard")
            }
            let colons = id.value.unicodeScalars.filter { $0 == ":" }.count
            let isPlaySubscription =
                product.store == .play && product.type == .autoRenewableSubscription
            if isPlaySubscription {
                let parts = id.value.split(separator: ":", omittingEmptySubsequences: false)
                if colons != 1 || parts.contains(where: \.isEmpty) {
                    report(
                        .badPlayId,
                        colons == 0
                            ? "Play subscription id `\(id.value)` names no base plan"
                            : "Play subscription id `\(id.value)` is not `<productId>:<basePlanId>`",
                        at: id.offset, path: id.path,
                        help:
                            "write `<productId>:<basePlanId>`, e.g. `\(parts.first.map(String.init).flatMap { $0.isEmpty ? nil : $0 } ?? "pro"):yearly`, as Play's subscription and base plan"
                    )
                }
            } else if product.store == .play, colons > 0 {
                // A one-time product's purchase option (a buy, rent or pre-order option), or a
                // prepaid plan's base plan (a non-renewing subscription).
                let parts = id.value.split(separator: ":", omittingEmptySubsequences: false)
                if colons != 1 || parts.contains(where: \.isEmpty) {
                    report(
                        .badPlayId, "Play product id `\(id.value)` is neither `<productId>` nor `<productId>:<purchaseOptionId>`",
                        at: id.offset, path: id.path,
                        help:
                            "a Play one-time product's id is its product id, or its product id and one purchase option's (`game:buy`); a prepaid plan's, `<productId>:<basePlanId>`"
                    )
                }
            } else if colons > 0 {
                report(
                    .badPlayId,
                    "`:` belongs only in a Play product's id (`<productId>:<basePlanId>`, `<productId>:<purchaseOptionId>`), not in `\(id.value)`",
                    at: id.offset, path: id.path, help: "product ids hold letters, digits, `.`, `_` and `-`")
            }
        }
        // Groups of one store: subscription groups and pass groups alike.
        var groups: [String: (store: Store, product: ProductDefinition)] = [:]
        for product in catalog.products where !product.storeBroken {
            guard let group = product.group, product.type == .autoRenewableSubscription || product.type == .nonRenewingSubscription else { continue }
            let name = (product.type == .autoRenewableSubscription ? "subscription " : "pass ") + group.value
            guard let first = groups[name] else {
                groups[name] = (product.store, product)
                continue
            }
            guard first.store != product.store else { continue }
            report(
                .mixedStoreGroup,
                "group `\(group.value)` holds products of `\(first.store.rawValue)` (\(first.product.label)) and `\(product.store.rawValue)`",
                at: group.offset, path: group.path,
                help: "a group holds one store's products: name this one's group e.g. `\(group.value).\(product.store.rawValue)`")
        }
    }

    /// A product's `storefronts`: a non-empty list of distinct alpha-3 codes; `nil` (reported) when
    /// it is not one.
    mutating func storefronts(_ node: JSONNode, path: String) -> [Located<String>]? {
        guard case .array(let elements) = node.value else {
            wrongType(node, expected: "an array of storefronts (ISO 3166-1 alpha-3 codes, `USA`)", path: path)
            return nil
        }
        guard !elements.isEmpty else {
            report(
                .badValue, "`storefronts` must list at least one storefront", at: node.offset, path: path,
                help: "leave `storefronts` out to offer the product everywhere")
            return nil
        }
        var codes: [Located<String>] = []
        var seen: Set<String> = []
        var broken = false
        for (index, element) in elements.enumerated() {
            let elementPath = "\(path)[\(index)]"
            guard let code = string(element, path: elementPath) else {
                broken = true
                continue
            }
            guard Storefront.isAlpha3(code.value) else {
                let known = Storefront.alpha3(code.value)
                report(
                    .badValue, "`\(Diagnostic.excerpt(code.value))` is not an ISO 3166-1 alpha-3 storefront", at: code.offset, path: elementPath,
                    help: "write three capital letters, as Apple writes a storefront: `USA`, `DEU`, `JPN`",
                    meant: known ?? Suggestion.closest(to: code.value.uppercased(), in: Storefront.alpha3Sorted, budget: &suggestions),
                    meaning: known == nil ? "" : " storefronts are written as Apple writes them, three capital letters")
                broken = true
                continue
            }
            if !seen.insert(code.value).inserted {
                report(.badValue, "storefront `\(code.value)` is listed twice", at: code.offset, path: elementPath)
                broken = true
                continue
            }
            codes.append(code)
        }
        return broken ? nil : codes
    }

    /// The catalog's `stores`: each store's `manage` URL.
    mutating func storeSettings(_ node: JSONNode) -> [Store: String] {
        let path = CatalogKey.stores.name
        guard let members = object(node, .stores, path: path) else { return [:] }
        var urls: [Store: String] = [:]
        for (key, store) in [(CatalogKey.stripe, Store.stripe), (CatalogKey.external, Store.external)] {
            guard let member = members[key.name] else { continue }
            let settingsPath = Self.path(path, key: key.name)
            guard let settings = object(member.value, .storeSettings, path: settingsPath),
                let manage = settings[CatalogKey.manage.name]
            else { continue }
            if let url = scalar(manage, .manage, in: .storeSettings, path: Self.path(settingsPath, key: CatalogKey.manage.name))?.text {
                urls[store] = url.value
            }
        }
        return urls
    }
}
