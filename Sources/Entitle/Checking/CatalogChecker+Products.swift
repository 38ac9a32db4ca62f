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
        // The type decides which keys are allowed, so read it first.
        var type: ProductType?
        if let typeMember = raw.first(where: { $0.key == "type" }) {
            type = enumValue(typeMember.value, path: path + ".type", ProductType.self, what: "product type")
        }
        let allowed = type.map { Self.commonProductKeys + Self.typeProductKeys[$0]! } ?? Self.allProductKeys
        // Not knowing the type is not a reason to say `type` is missing too.
        let required = raw.contains { $0.key == "type" } ? ["id", "name"] : ["id", "type", "name"]
        guard let members = object(node, path: path, allowed: allowed, required: required,
                                   what: "product", notAllowedFor: type)
        else { return nil }

        var product = ProductDefinition(path: path, offset: node.offset)
        product.type = type
        // `grant` for `grants`, or `grants` on a consumable: what it grants is that key's error.
        product.grantsBroken = misspeltKeys.contains("grants")
        product.creditsBroken = misspeltKeys.contains("credits")
        product.id = members["id"].flatMap { productIdentifier($0.value, path: path + ".id") }
        product.name = members["name"].flatMap { nonEmptyString($0.value, path: path + ".name") }
        if let member = members["grants"] { grantList(member.value, path: path + ".grants", into: &product) }
        if let member = members["priceTier"] {
            if let tier = integer(member.value, path: path + ".priceTier"), tier.value >= 0 {
                product.priceTier = Located(value: Int(clamping: tier.value), offset: tier.offset, path: tier.path)
            } else {
                if case .number(let number) = member.value.value, let value = number.integer {
                    report(.badValue, "`priceTier` must be 0 or more, found \(value)", at: member.value.offset, path: path + ".priceTier")
                }
                product.priceTierBroken = true
            }
        }
        if let member = members["legal"] {
            product.legal = legalText(member.value, path: path + ".legal")
            product.legalBroken = product.legal == nil
        }
        if let member = members["available"] { product.available = bool(member.value, path: path + ".available") ?? true }
        if let member = members["familyShareable"] {
            product.familyShareable = bool(member.value, path: path + ".familyShareable") ?? false
        }
        if let member = members["duration"] {
            product.duration = duration(member.value, path: path + ".duration")
            product.durationBroken = product.duration == nil
        }
        if let member = members["group"] { product.group = identifierString(member.value, path: path + ".group") }
        if let member = members["level"], let level = integer(member.value, path: path + ".level") {
            if level.value < 1 || level.value > Int64(CatalogLimits.maxProducts) {
                report(.badValue, "`level` must be a whole number from 1 (the highest service) to \(CatalogLimits.maxProducts), found \(level.value)",
                       at: level.offset, path: level.path)
            } else {
                product.level = Located(value: Int(level.value), offset: level.offset, path: level.path)
            }
        }
        if let member = members["introOffer"] { product.introOffer = introOffer(member.value, path: path + ".introOffer") }
        if let member = members["trialOf"] { product.trialOf = productIdentifier(member.value, path: path + ".trialOf") }
        if let member = members["upgrade"] { product.upgrade = upgrade(member.value, path: path + ".upgrade") }
        if let member = members["credits"] { credits(member.value, path: path + ".credits", into: &product) }

        switch type {
        case .nonRenewingSubscription where members["duration"] == nil:
            report(.missingKey, "a non-renewing subscription needs a `duration`", at: node.offset, path: path,
                   help: "the App Store does not know how long it lasts: add e.g. `\"duration\": \"P1M\"`")
        case .autoRenewableSubscription where members["group"] == nil:
            report(.missingKey, "an auto-renewable subscription needs a `group`", at: node.offset, path: path,
                   help: "name its subscription group, e.g. `\"group\": \"pro\"`")
        case .nonConsumable where members["trialOf"] == nil:
            if let duration = product.duration {
                report(.keyNotAllowed, "only a trial non-consumable may have a `duration`", at: duration.offset,
                       path: duration.path, help: "add `trialOf` to make this a trial, or remove `duration`")
            }
        default:
            break
        }
        return product
    }

    private mutating func grantList(_ node: JSONNode, path: String, into product: inout ProductDefinition) {
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
                report(.duplicateGrant, "feature `\(grant.value)` is granted twice", at: grant.offset, path: elementPath,
                       help: "it is already listed at \(product.grants[first].path)")
                continue
            }
            seen[grant.value] = product.grants.count
            product.grants.append(grant)
        }
    }

    private mutating func credits(_ node: JSONNode, path: String, into product: inout ProductDefinition) {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: "an object of currency ids to amounts", path: path)
            product.creditsBroken = true
            return
        }
        for member in members {
            let memberPath = Self.path(path, key: member.key)
            if member.key == "$comment" {
                _ = string(member.value, path: memberPath)
                continue
            }
            let currency = Located(value: member.key, offset: member.keyOffset, path: memberPath)
            product.creditedCurrencies.append(currency)
            guard let amount = integer(member.value, path: memberPath) else {
                product.creditsBroken = true
                continue
            }
            guard amount.value > 0, amount.value <= CatalogLimits.maxCredit else {
                report(.badValue, "credit amount must be a positive integer up to \(CatalogLimits.maxCredit), found \(amount.value)",
                       at: amount.offset, path: memberPath)
                product.creditsBroken = true
                continue
            }
            product.credits.append((currency, amount.value))
        }
    }

    private mutating func introOffer(_ node: JSONNode, path: String) -> IntroOfferDefinition? {
        guard let members = object(node, path: path, allowed: Self.introOfferKeys, required: ["mode", "duration"],
                                   what: "introductory offer")
        else { return nil }
        let mode = members["mode"].flatMap { enumValue($0.value, path: path + ".mode", IntroOfferMode.self, what: "offer mode") }
        let duration = members["duration"].flatMap { self.duration($0.value, path: path + ".duration") }
        guard let mode, let duration else { return nil }
        return IntroOfferDefinition(mode: mode, duration: duration.value)
    }

    private mutating func upgrade(_ node: JSONNode, path: String) -> UpgradeDefinition? {
        guard let members = object(node, path: path, allowed: Self.upgradeKeys, required: ["replaces", "requires"],
                                   what: "upgrade")
        else { return nil }
        var upgrade = UpgradeDefinition()
        upgrade.replaces = members["replaces"].flatMap { productIdentifier($0.value, path: path + ".replaces") }
        if let requires = members["requires"] {
            let requiresPath = path + ".requires"
            if let inner = object(requires.value, path: requiresPath, allowed: Self.upgradeRequirementKeys, required: ["app"],
                                  what: "upgrade requirement") {
                upgrade.requiredApp = inner["app"].flatMap { bundleIdentifier($0.value, path: requiresPath + ".app") }
                if let list = inner["anyOf"] {
                    if case .array(let elements) = list.value.value {
                        var ids: [Located<String>] = []
                        var seen: Set<String> = []
                        for (index, element) in elements.enumerated() {
                            guard let id = productIdentifier(element, path: "\(requiresPath).anyOf[\(index)]") else { continue }
                            if !seen.insert(id.value).inserted {
                                report(.badValue, "product `\(id.value)` is listed twice", at: id.offset, path: id.path)
                            } else {
                                ids.append(id)
                            }
                        }
                        if elements.isEmpty {
                            report(.badValue, "`anyOf` is empty, so no purchase could ever qualify", at: list.value.offset,
                                   path: requiresPath + ".anyOf",
                                   help: "list the other app's qualifying products, or remove `anyOf` to accept any receipt of that app")
                        }
                        upgrade.anyOf = ids
                    } else {
                        wrongType(list.value, expected: "an array of product ids", path: requiresPath + ".anyOf")
                    }
                }
            }
        }
        return upgrade
    }
}
