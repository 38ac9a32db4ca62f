/// The shape of one product: which keys its type allows, and each value read and checked on its
/// own. Rules that relate products to each other are in the other `CatalogChecker+` files.
extension CatalogChecker {
    /// Reads a product, keeping whatever is readable so the rules can check the rest.
    ///
    /// - Returns: `nil` only when the value is not an object.
    mutating func checkProduct(_ node: JSONNode, path: String) -> ProductDefinition? {
        guard case .object(let raw) = node.value else {
            wrongType(node, expected: "a product object", path: path)
            return nil
        }
        func keyPath(_ key: CatalogKey) -> String { Self.path(path, key: key.name) }
        // The type decides which keys are allowed, so read it first.
        let typeMember = raw.first { $0.key == CatalogKey.type.name }
        let type = typeMember.flatMap { scalar($0, .type, in: .product, path: keyPath(.type))?.text }
            .flatMap { ProductType(rawValue: $0.value) }
        // Not knowing the type is not a reason to say `type` is missing too.
        let required = CatalogObject.product.requiredKeys.filter { typeMember == nil || $0 != .type }
        guard let members = object(node, .product, path: path, type: type, required: required) else { return nil }
        func read(_ key: CatalogKey) -> Scalar? {
            members[key.name].flatMap { scalar($0, key, in: .product, path: keyPath(key)) }
        }

        var product = ProductDefinition(path: path, offset: node.offset)
        product.type = type
        // `grant` for `grants`, or `grants` on a consumable: what it grants is that key's error.
        product.grantsBroken = misspeltKeys.contains(CatalogKey.grants.name)
        product.creditsBroken = misspeltKeys.contains(CatalogKey.credits.name)
        product.keyOffsets = members.mapValues(\.keyOffset)
        if members[CatalogKey.store.name] != nil {
            if let store = read(.store)?.text.flatMap({ Store(rawValue: $0.value) }) { product.store = store } else { product.storeBroken = true }
        }
        product.id = read(.id)?.text
        product.name = read(.name)?.text
        if let member = members[CatalogKey.grants.name] { grantList(member.value, path: keyPath(.grants), into: &product) }
        if members[CatalogKey.priceTier.name] != nil {
            product.priceTier = read(.priceTier)?.integer.map { Located(value: Int(clamping: $0.value), offset: $0.offset, path: $0.path) }
            product.priceTierBroken = product.priceTier == nil
        }
        if members[CatalogKey.legal.name] != nil {
            product.legal = read(.legal)?.text?.value
            product.legalBroken = product.legal == nil
        }
        if members[CatalogKey.available.name] != nil { product.available = read(.available)?.flag ?? true }
        if members[CatalogKey.familyShareable.name] != nil { product.familyShareable = read(.familyShareable)?.flag ?? false }
        if members[CatalogKey.duration.name] != nil {
            product.duration = read(.duration)?.duration
            product.durationBroken = product.duration == nil
        }
        product.group = read(.group)?.text
        if members[CatalogKey.level.name] != nil {
            product.level = read(.level)?.integer.map { Located(value: Int($0.value), offset: $0.offset, path: $0.path) }
            product.levelBroken = product.level == nil
        }
        if let member = members[CatalogKey.introOffer.name] { product.introOffer = introOffer(member.value, path: keyPath(.introOffer)) }
        if let member = members[CatalogKey.offers.name] { product.offers = subscriptionOffers(member.value, path: keyPath(.offers)) }
        product.trialOf = read(.trialOf)?.text
        if let member = members[CatalogKey.upgrade.name] { product.upgrade = upgrade(member.value, path: keyPath(.upgrade)) }
        if let member = members[CatalogKey.credits.name] { credits(member.value, path: keyPath(.credits), into: &product) }
        if let member = members[CatalogKey.limits.name] { limitValues(member.value, path: keyPath(.limits), into: &product) }
        if let member = members[CatalogKey.allowances.name] {
            product.allowances = allowances(member.value, .allowance, path: keyPath(.allowances))
            product.creditedCurrencies += product.allowances.compactMap(\.currency)
        }
        if let member = members[CatalogKey.unlimited.name] {
            product.unlimited = currencyList(member.value, path: keyPath(.unlimited))
            product.creditedCurrencies += product.unlimited
        }
        if members[CatalogKey.gracePeriod.name] != nil { product.gracePeriod = read(.gracePeriod)?.duration }
        if let member = members[CatalogKey.refundPreference.name] {
            product.refundPreference = refundPolicy(member.value, path: keyPath(.refundPreference))
        }
        if members[CatalogKey.sampleContent.name] != nil { product.sampleContent = read(.sampleContent)?.flag ?? false }
        if let member = members[CatalogKey.retention.name] { product.retention = retentionRules(member.value, path: keyPath(.retention)) }
        if let member = members[CatalogKey.storefronts.name] { product.storefronts = storefronts(member.value, path: keyPath(.storefronts)) }
        if let member = members[CatalogKey.items.name] { items(member.value, path: keyPath(.items), into: &product) }

        // Keys some types need, with a message of their own.
        if let type {
            for key in CatalogObject.product.keys(for: type) where members[key.name] == nil {
                guard case .requiredFor(let types, let help)? = key.place(in: .product)?.requirement, types.contains(type) else { continue }
                report(.missingKey, "\(type.phrase) needs a `\(key.name)`", at: node.offset, path: path, help: help)
            }
        }
        if type == .nonConsumable, members[CatalogKey.trialOf.name] == nil, let duration = product.duration {
            report(
                .keyNotAllowed, "only a trial non-consumable may have a `\(CatalogKey.duration.name)`", at: duration.offset,
                path: duration.path, help: "add `\(CatalogKey.trialOf.name)` to make this a trial, or remove `\(CatalogKey.duration.name)`")
        }
        return product
    }

    mutating func grantList<Holder: GrantHolder>(_ node: JSONNode, path: String, into product: inout Holder) {
        guard case .array(let elements) = node.value else {
            wrongType(node, expected: "an array of feature ids", path: path)
            product.grantsBroken = true
            return
        }
        var seen: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let elementPath = "\(path)[\(index)]"
            guard let grant = nonEmptyString(element, path: elementPath) else {
                product.grantsBroken = true
                continue
            }
            if let first = seen[grant.value] {
                report(
                    .duplicateGrant, "feature `\(grant.value)` is granted twice", at: grant.offset, path: elementPath,
                    help: "it is already listed at \(product.grants[first].path)")
                continue
            }
            seen[grant.value] = product.grants.count
            product.grants.append(grant)
        }
    }

    mutating func credits<Holder: GrantHolder>(_ node: JSONNode, path: String, into product: inout Holder) {
        guard let entries = entries(node, expected: "an object of currency ids to amounts", path: path) else {
            product.creditsBroken = true
            return
        }
        for (member, memberPath) in entries {
            let currency = Located(value: member.key, offset: member.keyOffset, path: memberPath)
            product.creditedCurrencies.append(currency)
            guard let amount = integer(member.value, path: memberPath) else {
                product.creditsBroken = true
                continue
            }
            guard amount.value > 0, amount.value <= CatalogLimits.maxCredit else {
                report(
                    .badValue, "credit amount must be a positive integer up to \(CatalogLimits.maxCredit), found \(amount.value)",
                    at: amount.offset, path: memberPath)
                product.creditsBroken = true
                continue
            }
            product.credits.append((currency, amount.value))
        }
    }

    private mutating func introOffer(_ node: JSONNode, path: String) -> IntroOfferDefinition? {
        guard let members = object(node, .introductoryOffer, path: path) else { return nil }
        let mode = members[CatalogKey.mode.name]
            .flatMap { scalar($0, .mode, in: .introductoryOffer, path: Self.path(path, key: CatalogKey.mode.name))?.text }
            .flatMap { IntroOfferMode(rawValue: $0.value) }
        let duration = members[CatalogKey.duration.name]
            .flatMap { scalar($0, .duration, in: .introductoryOffer, path: Self.path(path, key: CatalogKey.duration.name))?.duration }
        let audience = members[CatalogKey.audience.name]
            .flatMap { scalar($0, .audience, in: .introductoryOffer, path: Self.path(path, key: CatalogKey.audience.name))?.text }
            .flatMap { IntroOfferAudience(rawValue: $0.value) }
        guard let mode, let duration else { return nil }
        // A value outside the choices is reported by `scalar`, which fails the catalog.
        return IntroOfferDefinition(mode: mode, duration: duration.value, audience: audience ?? .noIntroYet)
    }

    private mutating func upgrade(_ node: JSONNode, path: String) -> UpgradeDefinition? {
        guard let members = object(node, .upgrade, path: path) else { return nil }
        var upgrade = UpgradeDefinition()
        upgrade.replaces = members[CatalogKey.replaces.name]
            .flatMap { scalar($0, .replaces, in: .upgrade, path: Self.path(path, key: CatalogKey.replaces.name))?.text }
        if let requires = members[CatalogKey.requires.name] {
            let requiresPath = Self.path(path, key: CatalogKey.requires.name)
            if let inner = object(requires.value, .upgradeRequirement, path: requiresPath) {
                upgrade.requiredApp = inner[CatalogKey.app.name]
                    .flatMap { scalar($0, .app, in: .upgradeRequirement, path: Self.path(requiresPath, key: CatalogKey.app.name))?.text }
                if let list = inner[CatalogKey.anyOf.name] {
                    let listPath = Self.path(requiresPath, key: CatalogKey.anyOf.name)
                    if case .array(let elements) = list.value.value {
                        var ids: [Located<String>] = []
                        var seen: Set<String> = []
                        for (index, element) in elements.enumerated() {
                            guard let id = identifier(element, path: "\(listPath)[\(index)]", .product) else { continue }
                            if !seen.insert(id.value).inserted {
                                report(.badValue, "product `\(id.value)` is listed twice", at: id.offset, path: id.path)
                            } else {
                                ids.append(id)
                            }
                        }
                        if elements.isEmpty {
                            report(
                                .badValue, "`\(CatalogKey.anyOf.name)` is empty, so no purchase could ever qualify", at: list.value.offset,
                                path: listPath,
                                help:
                                    "list the other app's qualifying products, or remove `\(CatalogKey.anyOf.name)` to accept any receipt of that app"
                            )
                        }
                        upgrade.anyOf = ids
                    } else {
                        wrongType(list.value, expected: "an array of product ids", path: listPath)
                    }
                }
            }
        }
        return upgrade
    }
}
