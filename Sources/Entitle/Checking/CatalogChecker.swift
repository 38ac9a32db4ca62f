import Foundation

/// Checks one catalog file: reads its JSON, checks shape and every rule, and gathers all
/// diagnostics in one pass.
///
/// Shape problems (unknown keys, wrong types, bad durations) and rule problems (undeclared
/// features, broken trials and upgrades, missing legal text) are all reported; a catalog with any
/// error yields no definition. Rules that need another app's catalog are checked by
/// ``PortfolioChecker``.
package struct CatalogChecker {
    let file: String
    private let data: Data
    /// Built on the first diagnostic: most catalogs have none.
    private lazy var lines = LineTable(data)
    private(set) var diagnostics: [Diagnostic] = []
    /// Edit-distance work left for "did you mean": a catalog with thousands of misspellings
    /// gets suggestions until this runs out, then plain help, so checking stays linear.
    private var suggestions = Suggestion.Budget.perFile

    private init(file: String, data: Data) {
        self.file = file
        self.data = data
    }

    static let topLevelKeys = ["$schema", "app", "features", "currencies", "legal", "products"]
    static let commonProductKeys = ["id", "type", "name", "priceTier", "legal", "available", "familyShareable"]
    static let typeProductKeys: [ProductType: [String]] = [
        .nonConsumable: ["grants", "trialOf", "upgrade", "duration"],
        .nonRenewingSubscription: ["grants", "duration"],
        .autoRenewableSubscription: ["grants", "group", "duration", "introOffer"],
        .consumable: ["credits"],
    ]
    static var allProductKeys: [String] {
        var keys = commonProductKeys
        for type in ProductType.allCases {
            for key in typeProductKeys[type]! where !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    /// Checks a catalog's bytes.
    ///
    /// - Returns: the definition when there is no error, and every diagnostic (warnings too).
    static func check(file: String, data: Data) -> (CatalogDefinition?, [Diagnostic]) {
        var checker = CatalogChecker(file: file, data: data)
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(data, limits: .catalog)
        } catch let error as JSONSyntaxError {
            checker.report(.malformedJSON, error.message, at: error.offset, path: "")
            return (nil, checker.diagnostics)
        } catch {
            checker.report(.malformedJSON, "\(error)", at: 0, path: "")
            return (nil, checker.diagnostics)
        }
        for duplicate in document.duplicateKeys {
            let first = checker.lines.location(of: duplicate.firstOffset)
            checker.report(
                .duplicateKey, "duplicate key `\(duplicate.key)`", at: duplicate.offset, path: "",
                help: "the first `\(duplicate.key)` is at line \(first.line), column \(first.column); keep one")
        }
        let definition = checker.checkCatalog(document.root)
        let hasErrors = checker.diagnostics.contains(where: \.isError)
        // In file order, as compilers print them; the sort is stable for one location.
        let ordered = checker.diagnostics.enumerated().sorted { a, b in
            let left = a.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            let right = b.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            return left != right ? left < right : a.offset < b.offset
        }.map(\.element)
        return (hasErrors ? nil : definition, ordered)
    }

    // MARK: Top level

    private mutating func checkCatalog(_ root: JSONNode) -> CatalogDefinition? {
        guard let members = object(root, path: "", allowed: Self.topLevelKeys,
                                   required: ["app", "features", "products"], what: "catalog")
        else { return nil }

        if let schema = members["$schema"] { _ = string(schema.value, path: "$schema") }
        let app = members["app"].flatMap { bundleIdentifier($0.value, path: "app") }
        let (features, featureDescriptions) = members["features"].map {
            declarations($0.value, path: "features", what: "feature")
        } ?? ([], [])
        let (currencies, currencyDescriptions) = members["currencies"].map {
            declarations($0.value, path: "currencies", what: "currency")
        } ?? ([], [])
        let legal = members["legal"].map { legalDefaults($0.value) } ?? [:]

        var products: [ProductDefinition] = []
        if let productsNode = members["products"]?.value {
            if case .array(let elements) = productsNode.value {
                if elements.count > CatalogLimits.maxProducts {
                    report(.limitExceeded, "\(elements.count) products, more than the \(CatalogLimits.maxProducts) a catalog may hold",
                           at: elements[CatalogLimits.maxProducts].offset, path: "products[\(CatalogLimits.maxProducts)]",
                           help: "App Store Connect allows \(CatalogLimits.maxProducts) in-app purchases per app")
                }
                for (index, element) in elements.enumerated() {
                    if let product = checkProduct(element, path: "products[\(index)]") {
                        products.append(product)
                    }
                }
            } else {
                wrongType(productsNode, expected: "an array of products", path: "products")
            }
        }
        guard let app else { return nil }
        var definition = CatalogDefinition(
            file: file, app: app, features: features, featureDescriptions: featureDescriptions,
            currencies: currencies, currencyDescriptions: currencyDescriptions,
            legal: legal, products: products)
        checkRules(&definition)
        return definition
    }

    private mutating func declarations(_ node: JSONNode, path: String, what: String) -> ([Located<String>], [String]) {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: "an object of \(what) ids to descriptions", path: path)
            return ([], [])
        }
        var ids: [Located<String>] = []
        var descriptions: [String] = []
        if members.count > CatalogLimits.maxDeclarations {
            let extra = members[CatalogLimits.maxDeclarations]
            report(.limitExceeded, "\(members.count) \(what == "feature" ? "features" : "currencies"), more than the \(CatalogLimits.maxDeclarations) a catalog may declare",
                   at: extra.keyOffset, path: Self.path(path, key: extra.key))
        }
        for member in members {
            let memberPath = Self.path(path, key: member.key)
            if member.key.utf8.count > CatalogLimits.maxIdentifierBytes {
                report(.limitExceeded, "\(what) id of \(member.key.utf8.count) bytes is longer than \(CatalogLimits.maxIdentifierBytes) bytes",
                       at: member.keyOffset, path: memberPath)
                continue
            }
            guard identifierIsValid(member.key) else {
                report(.badValue, "\(what) id `\(member.key)` must be letters, digits, `.`, `_` or `-`, starting with a letter or digit",
                       at: member.keyOffset, path: memberPath)
                continue
            }
            guard let description = string(member.value, path: memberPath) else { continue }
            ids.append(Located(value: member.key, offset: member.keyOffset, path: memberPath))
            descriptions.append(description.value)
        }
        return (ids, descriptions)
    }

    private mutating func legalDefaults(_ node: JSONNode) -> [ProductType: String] {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: "an object of product types to legal text", path: "legal")
            return [:]
        }
        var legal: [ProductType: String] = [:]
        for member in members {
            let memberPath = Self.path("legal", key: member.key)
            guard let type = ProductType(rawValue: member.key) else {
                report(.unknownKey, "unknown product type `\(member.key)`", at: member.keyOffset, path: memberPath,
                       help: Suggestion.help(for: member.key, in: ProductType.allCases.map(\.rawValue), budget: &suggestions)
                           ?? "product types are \(Self.list(ProductType.allCases.map(\.rawValue)))")
                continue
            }
            if let text = legalText(member.value, path: memberPath) { legal[type] = text }
        }
        return legal
    }

    // MARK: Products

    private mutating func checkProduct(_ node: JSONNode, path: String) -> ProductDefinition? {
        guard case .object = node.value else {
            wrongType(node, expected: "a product object", path: path)
            return nil
        }
        // The type decides which keys are allowed, so read it first.
        var type: ProductType?
        if case .object(let raw) = node.value, let typeMember = raw.first(where: { $0.key == "type" }) {
            type = enumValue(typeMember.value, path: path + ".type", ProductType.self, what: "product type")
        }
        let allowed = Self.commonProductKeys + (type.flatMap { Self.typeProductKeys[$0] } ?? Self.allProductKeys)
        guard let members = object(node, path: path, allowed: allowed, required: ["id", "type", "name"],
                                   what: "product", notAllowedFor: type)
        else { return nil }

        let id = members["id"].flatMap { productIdentifier($0.value, path: path + ".id") }
        let name = members["name"].flatMap { nonEmptyString($0.value, path: path + ".name") }
        guard let id, let type, let name else {
            // Keep checking the rest of the product for more diagnostics, then drop it.
            _ = members["grants"].map { grantList($0.value, path: path + ".grants") }
            return nil
        }
        var product = ProductDefinition(path: path, id: id, type: type, name: name)
        if let member = members["grants"] { product.grants = grantList(member.value, path: path + ".grants") }
        if let member = members["priceTier"] {
            if let tier = integer(member.value, path: path + ".priceTier") {
                if tier.value < 0 {
                    report(.badValue, "`priceTier` must be 0 or more, found \(tier.value)", at: tier.offset, path: tier.path)
                } else {
                    product.priceTier = Located(value: Int(tier.value), offset: tier.offset, path: tier.path)
                }
            }
        }
        if let member = members["legal"] { product.legal = legalText(member.value, path: path + ".legal") }
        if let member = members["available"] { product.available = bool(member.value, path: path + ".available") ?? true }
        if let member = members["familyShareable"] {
            product.familyShareable = bool(member.value, path: path + ".familyShareable") ?? false
        }
        if let member = members["duration"] { product.duration = duration(member.value, path: path + ".duration") }
        if let member = members["group"] { product.group = identifierString(member.value, path: path + ".group")?.value }
        if let member = members["introOffer"] { product.introOffer = introOffer(member.value, path: path + ".introOffer") }
        if let member = members["trialOf"] { product.trialOf = productIdentifier(member.value, path: path + ".trialOf") }
        if let member = members["upgrade"] { product.upgrade = upgrade(member.value, path: path + ".upgrade") }
        if let member = members["credits"] { product.credits = credits(member.value, path: path + ".credits") }

        switch type {
        case .nonRenewingSubscription where product.duration == nil && members["duration"] == nil:
            report(.missingKey, "a non-renewing subscription needs a `duration`", at: node.offset, path: path,
                   help: "the App Store does not know how long it lasts: add e.g. `\"duration\": \"P1M\"`")
        case .autoRenewableSubscription where members["group"] == nil:
            report(.missingKey, "an auto-renewable subscription needs a `group`", at: node.offset, path: path,
                   help: "name its subscription group, e.g. `\"group\": \"pro\"`")
        case .nonConsumable where product.trialOf == nil && members["trialOf"] == nil:
            if let duration = product.duration {
                report(.keyNotAllowed, "only a trial non-consumable may have a `duration`", at: duration.offset,
                       path: duration.path, help: "add `trialOf` to make this a trial, or remove `duration`")
            }
        default:
            break
        }
        return product
    }

    private mutating func grantList(_ node: JSONNode, path: String) -> [Located<String>] {
        guard case .array(let elements) = node.value else {
            wrongType(node, expected: "an array of feature ids", path: path)
            return []
        }
        var grants: [Located<String>] = []
        var seen: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let elementPath = "\(path)[\(index)]"
            guard let grant = nonEmptyString(element, path: elementPath) else { continue }
            if let first = seen[grant.value] {
                report(.duplicateGrant, "feature `\(grant.value)` is granted twice", at: grant.offset, path: elementPath,
                       help: "it is already listed at \(grants[first].path)")
                continue
            }
            seen[grant.value] = grants.count
            grants.append(grant)
        }
        return grants
    }

    private mutating func credits(_ node: JSONNode, path: String) -> [(currency: Located<String>, amount: Int64)] {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: "an object of currency ids to amounts", path: path)
            return []
        }
        var credits: [(currency: Located<String>, amount: Int64)] = []
        for member in members {
            let memberPath = Self.path(path, key: member.key)
            guard let amount = integer(member.value, path: memberPath) else { continue }
            guard amount.value > 0, amount.value <= CatalogLimits.maxCredit else {
                report(.badValue, "credit amount must be a positive integer up to \(CatalogLimits.maxCredit), found \(amount.value)",
                       at: amount.offset, path: memberPath)
                continue
            }
            credits.append((Located(value: member.key, offset: member.keyOffset, path: memberPath), amount.value))
        }
        return credits
    }

    private mutating func introOffer(_ node: JSONNode, path: String) -> IntroOfferDefinition? {
        guard let members = object(node, path: path, allowed: ["mode", "duration"], required: ["mode", "duration"],
                                   what: "introductory offer")
        else { return nil }
        let mode = members["mode"].flatMap { enumValue($0.value, path: path + ".mode", IntroOfferMode.self, what: "offer mode") }
        let duration = members["duration"].flatMap { self.duration($0.value, path: path + ".duration") }
        guard let mode, let duration else { return nil }
        return IntroOfferDefinition(mode: mode, duration: duration.value)
    }

    private mutating func upgrade(_ node: JSONNode, path: String) -> UpgradeDefinition? {
        guard let members = object(node, path: path, allowed: ["replaces", "requires"], required: ["replaces", "requires"],
                                   what: "upgrade")
        else { return nil }
        let replaces = members["replaces"].flatMap { productIdentifier($0.value, path: path + ".replaces") }
        var requiredApp: Located<String>?
        var anyOf: [Located<String>]?
        if let requires = members["requires"] {
            let requiresPath = path + ".requires"
            if let inner = object(requires.value, path: requiresPath, allowed: ["app", "anyOf"], required: ["app"],
                                  what: "upgrade requirement") {
                requiredApp = inner["app"].flatMap { bundleIdentifier($0.value, path: requiresPath + ".app") }
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
                        anyOf = ids
                    } else {
                        wrongType(list.value, expected: "an array of product ids", path: requiresPath + ".anyOf")
                    }
                }
            }
        }
        guard let replaces, let requiredApp else { return nil }
        return UpgradeDefinition(replaces: replaces, requiredApp: requiredApp, anyOf: anyOf)
    }

    // MARK: Rules across products

    private mutating func checkRules(_ catalog: inout CatalogDefinition) {
        let featureIds = catalog.features.map(\.value)
        let currencyIds = catalog.currencies.map(\.value)
        let declaredFeatures = Set(featureIds), declaredCurrencies = Set(currencyIds)
        var productsById: [String: ProductDefinition] = [:]
        for product in catalog.products {
            if let first = productsById[product.id.value] {
                report(.duplicateProduct, "duplicate product id `\(product.id.value)`", at: product.id.offset,
                       path: product.id.path, help: "it is already defined at \(first.path)")
            } else {
                productsById[product.id.value] = product
            }
        }
        let productIds = catalog.products.map(\.id.value)
        var granted = Set<String>()
        var credited = Set<String>()

        for product in catalog.products {
            for grant in product.grants {
                granted.insert(grant.value)
                if !declaredFeatures.contains(grant.value) {
                    report(.undeclaredFeature, "undeclared feature `\(grant.value)`", at: grant.offset, path: grant.path,
                           help: Suggestion.help(for: grant.value, in: featureIds, budget: &suggestions)
                               ?? "declare it under `features`, or grant one of \(Self.list(featureIds))")
                }
            }
            for (currency, _) in product.credits {
                credited.insert(currency.value)
                if !declaredCurrencies.contains(currency.value) {
                    report(.undeclaredCurrency, "undeclared currency `\(currency.value)`", at: currency.offset,
                           path: currency.path,
                           help: Suggestion.help(for: currency.value, in: currencyIds, budget: &suggestions)
                               ?? "declare it under `currencies`")
                }
            }
            if product.type.isSubscription, product.legal == nil, catalog.legal[product.type] == nil {
                report(.missingLegal, "\(product.type.phrase) needs legal text", at: product.id.offset, path: product.path,
                       help: "add `legal` to the product, or a default under the catalog's `legal.\(product.type.rawValue)`")
            }
            if product.grants.isEmpty && product.credits.isEmpty {
                warn(.grantsNothing, "product `\(product.id.value)` grants nothing", at: product.id.offset, path: product.path,
                     help: product.type == .consumable ? "add `credits`" : "add `grants`")
            }
            if let trialOf = product.trialOf {
                checkTrial(product, trialOf: trialOf, productsById: productsById, productIds: productIds)
            } else if product.type == .nonConsumable, product.priceTier?.value == 0,
                      Self.trialDays(in: product.name.value) != nil {
                warn(.looksLikeTrial, "`\(product.name.value)` is named like a trial but has no `trialOf`, so it never expires",
                     at: product.name.offset, path: product.name.path,
                     help: "add `trialOf` naming the paid product it is a trial of")
            }
            if let upgrade = product.upgrade {
                checkUpgrade(product, upgrade: upgrade, app: catalog.app.value, productsById: productsById, productIds: productIds)
            }
        }
        for feature in catalog.features where !granted.contains(feature.value) {
            warn(.unusedFeature, "feature `\(feature.value)` is declared but no product grants it",
                 at: feature.offset, path: feature.path)
        }
        for currency in catalog.currencies where !credited.contains(currency.value) {
            warn(.unusedCurrency, "currency `\(currency.value)` is declared but no product credits it",
                 at: currency.offset, path: currency.path)
        }
    }

    private mutating func checkTrial(
        _ trial: ProductDefinition, trialOf: Located<String>,
        productsById: [String: ProductDefinition], productIds: [String]
    ) {
        if trial.type != .nonConsumable {
            report(.trialRule, "a trial must be a non-consumable, not \(trial.type.phrase)", at: trialOf.offset,
                   path: trialOf.path, help: "App Review allows free trials as price-tier-0 non-consumables named \"N-day Trial\"")
        }
        if trial.upgrade != nil {
            report(.trialRule, "a product cannot be both a trial and an upgrade", at: trialOf.offset, path: trialOf.path)
        }
        if let tier = trial.priceTier {
            if tier.value != 0 {
                report(.trialRule, "a trial must have `priceTier` 0, found \(tier.value)", at: tier.offset, path: tier.path)
            }
        } else {
            report(.trialRule, "a trial must have `priceTier` 0", at: trial.id.offset, path: trial.path,
                   help: "add `\"priceTier\": 0`")
        }
        let days = Self.trialDays(in: trial.name.value)
        if days == nil {
            let lower = trial.name.value.lowercased()
            let caseHelp = Self.trialDays(in: lower.replacingOccurrences(of: "-day trial", with: "-day Trial")) != nil
                ? "write it exactly as \"N-day Trial\", e.g. \"14-day Trial\""
                : "App Review requires the form \"N-day Trial\", e.g. \"14-day Trial\""
            report(.trialRule, "trial name `\(trial.name.value)` is not of the form \"N-day Trial\"",
                   at: trial.name.offset, path: trial.name.path, help: caseHelp)
        }
        if let duration = trial.duration, let days {
            if duration.value.wholeDays != days {
                report(.trialRule, "`duration` \(duration.value) does not agree with the name's \(days) days",
                       at: duration.offset, path: duration.path, help: "use `P\(days)D` or remove `duration`")
            }
        }
        if trialOf.value == trial.id.value {
            report(.trialRule, "a trial cannot be a trial of itself", at: trialOf.offset, path: trialOf.path)
            return
        }
        guard let paid = productsById[trialOf.value] else {
            report(.unknownProduct, "`trialOf` names `\(trialOf.value)`, which this catalog does not define",
                   at: trialOf.offset, path: trialOf.path,
                   help: Suggestion.help(for: trialOf.value, in: productIds, budget: &suggestions))
            return
        }
        if paid.type != .nonConsumable {
            report(.trialRule, "`trialOf` must name a non-consumable, but `\(paid.id.value)` is \(paid.type.phrase)",
                   at: trialOf.offset, path: trialOf.path)
            return
        }
        if paid.trialOf != nil || paid.priceTier?.value == 0 {
            report(.trialRule, "`trialOf` must name a paid product, but `\(paid.id.value)` is free",
                   at: trialOf.offset, path: trialOf.path, help: "name the full-price product the trial leads to")
            return
        }
        if let replaced = paid.upgrade?.replaces.value {
            report(.trialRule, "`trialOf` names the upgrade `\(paid.id.value)`; a trial leads to the full-price product",
                   at: trialOf.offset, path: trialOf.path, help: "did you mean `\(replaced)`?")
            return
        }
        let paidGrants = Set(paid.grants.map(\.value))
        for grant in trial.grants where !paidGrants.contains(grant.value) {
            report(.trialRule, "trial grants `\(grant.value)`, which its paid product `\(paid.id.value)` does not",
                   at: grant.offset, path: grant.path,
                   help: "a trial may grant only what the paid product grants")
        }
    }

    private mutating func checkUpgrade(
        _ product: ProductDefinition, upgrade: UpgradeDefinition, app: String,
        productsById: [String: ProductDefinition], productIds: [String]
    ) {
        if product.type != .nonConsumable {
            report(.upgradeRule, "an upgrade must be a non-consumable, not \(product.type.phrase)",
                   at: upgrade.replaces.offset, path: upgrade.replaces.path)
        }
        if upgrade.requiredApp.value == app {
            report(.upgradeRule, "an upgrade cannot require a purchase in its own app `\(app)`",
                   at: upgrade.requiredApp.offset, path: upgrade.requiredApp.path,
                   help: "`requires.app` names the other (older) app whose receipt qualifies")
        }
        let replaces = upgrade.replaces
        if replaces.value == product.id.value {
            report(.upgradeRule, "an upgrade cannot replace itself", at: replaces.offset, path: replaces.path)
            return
        }
        guard let full = productsById[replaces.value] else {
            report(.unknownProduct, "`replaces` names `\(replaces.value)`, which this catalog does not define",
                   at: replaces.offset, path: replaces.path, help: Suggestion.help(for: replaces.value, in: productIds, budget: &suggestions))
            return
        }
        if full.type != .nonConsumable {
            report(.upgradeRule, "`replaces` must name a non-consumable, but `\(full.id.value)` is \(full.type.phrase)",
                   at: replaces.offset, path: replaces.path)
        } else if full.trialOf != nil {
            report(.upgradeRule, "`replaces` names the trial `\(full.id.value)`; an upgrade replaces the full-price product",
                   at: replaces.offset, path: replaces.path)
        } else if full.upgrade != nil {
            report(.upgradeRule, "`replaces` names `\(full.id.value)`, which is itself an upgrade",
                   at: replaces.offset, path: replaces.path, help: "name the full-price product both stand in for")
        }
    }

    // MARK: Value readers

    /// Checks an object's keys and returns its members by name.
    private mutating func object(
        _ node: JSONNode, path: String, allowed: [String], required: [String], what: String,
        notAllowedFor type: ProductType? = nil
    ) -> [String: JSONMember]? {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: "\(what == "catalog" ? "a catalog" : "an \(what)") object", path: path)
            return nil
        }
        var byName: [String: JSONMember] = [:]
        // Allowed keys not used yet: the likelier meaning of a misspelt key. Computed once.
        var unused: [String]?
        for member in members {
            let memberPath = Self.path(path, key: member.key)
            if allowed.contains(member.key) {
                byName[member.key] = member
            } else if let type, Self.allProductKeys.contains(member.key) {
                let owners = ProductType.allCases.filter { Self.typeProductKeys[$0]!.contains(member.key) }
                report(.keyNotAllowed, "`\(member.key)` is not allowed on \(type.phrase)", at: member.keyOffset,
                       path: memberPath, help: "`\(member.key)` belongs on \(Self.list(owners.map(\.phrase), quote: false))")
            } else {
                if unused == nil {
                    let present = Set(members.map(\.key))
                    unused = allowed.filter { !present.contains($0) }
                }
                report(.unknownKey, "unknown key `\(member.key)` in \(what)", at: member.keyOffset, path: memberPath,
                       help: Suggestion.help(for: member.key, in: unused!, budget: &suggestions)
                           ?? Suggestion.help(for: member.key, in: allowed, budget: &suggestions)
                           ?? "allowed keys are \(Self.list(allowed))")
            }
        }
        for key in required where byName[key] == nil {
            report(.missingKey, "missing required key `\(key)` in \(what)", at: node.offset, path: path)
        }
        return byName
    }

    private mutating func string(_ node: JSONNode, path: String) -> Located<String>? {
        guard case .string(let value) = node.value else {
            wrongType(node, expected: "a string", path: path)
            return nil
        }
        return Located(value: value, offset: node.offset, path: path)
    }

    private mutating func nonEmptyString(_ node: JSONNode, path: String) -> Located<String>? {
        guard let value = string(node, path: path) else { return nil }
        if value.value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            report(.badValue, "must not be empty", at: node.offset, path: path)
            return nil
        }
        return value
    }

    private mutating func legalText(_ node: JSONNode, path: String) -> String? {
        nonEmptyString(node, path: path)?.value
    }

    /// A non-empty string within ``CatalogLimits/maxIdentifierBytes``.
    private mutating func identifierString(_ node: JSONNode, path: String) -> Located<String>? {
        guard let value = nonEmptyString(node, path: path) else { return nil }
        guard value.value.utf8.count <= CatalogLimits.maxIdentifierBytes else {
            report(.limitExceeded, "id of \(value.value.utf8.count) bytes is longer than \(CatalogLimits.maxIdentifierBytes) bytes",
                   at: node.offset, path: path)
            return nil
        }
        return value
    }

    private mutating func productIdentifier(_ node: JSONNode, path: String) -> Located<String>? {
        guard let value = identifierString(node, path: path) else { return nil }
        if value.value.unicodeScalars.contains(where: { !Self.isIdentifierScalar($0) }) {
            report(.badValue, "product id `\(value.value)` may contain only letters, digits, `.`, `_` and `-`",
                   at: node.offset, path: path)
            return nil
        }
        return value
    }

    private mutating func bundleIdentifier(_ node: JSONNode, path: String) -> Located<String>? {
        guard let value = identifierString(node, path: path) else { return nil }
        if value.value.unicodeScalars.contains(where: { !Self.isIdentifierScalar($0) || $0 == "_" }) {
            report(.badValue, "bundle id `\(value.value)` may contain only letters, digits, `.` and `-`",
                   at: node.offset, path: path, help: "a bundle id looks like `com.example.app`")
            return nil
        }
        return value
    }

    private mutating func integer(_ node: JSONNode, path: String) -> Located<Int64>? {
        guard case .number(let number) = node.value else {
            wrongType(node, expected: "an integer", path: path)
            return nil
        }
        guard let value = number.integer else {
            report(.wrongType, "expected an integer, found `\(number.text)`", at: node.offset, path: path)
            return nil
        }
        return Located(value: value, offset: node.offset, path: path)
    }

    private mutating func bool(_ node: JSONNode, path: String) -> Bool? {
        guard case .bool(let value) = node.value else {
            wrongType(node, expected: "`true` or `false`", path: path)
            return nil
        }
        return value
    }

    private mutating func duration(_ node: JSONNode, path: String) -> Located<ISODuration>? {
        guard let text = string(node, path: path) else { return nil }
        guard let duration = ISODuration(text.value) else {
            report(.badDuration, "`\(text.value)` is not an ISO 8601 duration", at: node.offset, path: path,
                   help: "write e.g. `P1M`, `P1Y`, `P2W`, `P14D`, `P1Y6M` or `PT12H` (whole numbers, parts in Y M W D T H M S order)")
            return nil
        }
        guard duration.isPositive else {
            report(.badDuration, "duration `\(text.value)` must be longer than zero", at: node.offset, path: path)
            return nil
        }
        guard duration.isWithinLimit else {
            report(.badDuration, "duration `\(text.value)` is longer than 100 years", at: node.offset, path: path,
                   help: "durations may be at most `P100Y` (counting a month as 31 days: \(ISODuration.maximumNominalDays) days)")
            return nil
        }
        return Located(value: duration, offset: node.offset, path: path)
    }

    private mutating func enumValue<E: RawRepresentable & CaseIterable>(
        _ node: JSONNode, path: String, _: E.Type, what: String
    ) -> E? where E.RawValue == String {
        guard let text = string(node, path: path) else { return nil }
        if let value = E(rawValue: text.value) { return value }
        let names = E.allCases.map(\.rawValue)
        report(.badEnumValue, "unknown \(what) `\(text.value)`", at: node.offset, path: path,
               help: Suggestion.help(for: text.value, in: names, budget: &suggestions) ?? "expected one of \(Self.list(names))")
        return nil
    }

    // MARK: Reporting

    private mutating func wrongType(_ node: JSONNode, expected: String, path: String) {
        report(.wrongType, "expected \(expected), found \(node.kind.phrase)", at: node.offset, path: path)
    }

    private mutating func report(_ code: DiagnosticCode, _ message: String, at offset: Int, path: String, help: String? = nil) {
        append(.error, code, message, offset, path, help)
    }

    private mutating func warn(_ code: DiagnosticCode, _ message: String, at offset: Int, path: String, help: String? = nil) {
        append(.warning, code, message, offset, path, help)
    }

    private mutating func append(
        _ severity: Diagnostic.Severity, _ code: DiagnosticCode, _ message: String,
        _ offset: Int, _ path: String, _ help: String?
    ) {
        let (line, column) = lines.location(of: offset)
        diagnostics.append(Diagnostic(
            severity: severity, code: code, message: message,
            location: SourceLocation(file: file, line: line, column: column), path: path, help: help))
    }

    // MARK: Small helpers

    /// The N of a name of the form "N-day Trial" (N a positive whole number), else `nil`.
    static func trialDays(in name: String) -> Int? {
        let suffix = "-day Trial"
        guard name.hasSuffix(suffix) else { return nil }
        let digits = name.dropLast(suffix.count)
        guard !digits.isEmpty, digits.count <= 5, digits.first != "0",
              digits.allSatisfy({ $0.isASCII && $0.isNumber }), let days = Int(digits), days > 0
        else { return nil }
        return days
    }

    static func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": true
        default: false
        }
    }

    private func identifierIsValid(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, first != ".", first != "-", first != "_" else { return false }
        return id.unicodeScalars.allSatisfy(Self.isIdentifierScalar)
    }

    /// Appends a member name to a JSON path: `a.b`, or `a["b.c"]` when the name is not a plain word.
    static func path(_ base: String, key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "$"
        }
        if plain { return base.isEmpty ? key : "\(base).\(key)" }
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\(base)[\"\(escaped)\"]"
    }

    /// `a`, `b` or `c`; past ``listLimit`` items, the first ones and how many more.
    static let listLimit = 10

    package static func list(_ items: [String], quote: Bool = true) -> String {
        if items.count > listLimit {
            let shown = items.prefix(listLimit - 1).map { quote ? "`\($0)`" : $0 }
            return shown.joined(separator: ", ") + " or \(items.count - shown.count) more"
        }
        let quoted = quote ? items.map { "`\($0)`" } : items
        switch quoted.count {
        case 0: return "nothing"
        case 1: return quoted[0]
        case 2: return "\(quoted[0]) or \(quoted[1])"
        default: return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        }
    }
}
