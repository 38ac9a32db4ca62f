/// Retention rules of an auto-renewable subscription: each read against the language, the rules
/// of one rule's keys (one reply, `billingPlan` only with `alternateProduct`, ids unique in the
/// product), then the rules that relate a rule to the catalog (its promotional offer is one of the
/// product's promotional offers; its alternate product another available product of its group).
extension CatalogChecker {
    /// Reads a product's `retention`.
    mutating func retentionRules(_ node: JSONNode, path: String) -> [RetentionRuleDefinition] {
        guard
            let elements = listElements(
                node, of: "retention rules", limit: CatalogLimits.maxRetentionRules, "a product may have", path: path)
        else { return [] }
        var seen: [String: Located<String>] = [:]
        return elements.prefix(CatalogLimits.maxRetentionRules).enumerated().compactMap { (index, element) -> RetentionRuleDefinition? in
            guard let rule = retentionRule(element, path: "\(path)[\(index)]") else { return nil }
            if let id = rule.id {
                checkUnique(id, in: &seen, what: "retention rule") { "it is already used at \($0); a product's rule ids are unique" }
            }
            return rule
        }
    }

    private mutating func retentionRule(_ node: JSONNode, path: String) -> RetentionRuleDefinition? {
        guard let members = object(node, .retentionRule, path: path) else { return nil }
        func keyPath(_ key: CatalogKey) -> String { Self.path(path, key: key.name) }
        func read(_ key: CatalogKey) -> Scalar? { members[key.name].flatMap { scalar($0, key, in: .retentionRule, path: keyPath(key)) } }
        var rule = RetentionRuleDefinition(path: path, offset: node.offset)
        rule.id = read(.id)?.text
        rule.message = read(.message)?.text
        rule.alternateProduct = read(.alternateProduct)?.text
        rule.promotionalOffer = read(.promotionalOffer)?.text
        rule.billingPlan = read(.billingPlan)?.text.flatMap { text in
            Transaction.BillingPlan(rawValue: text.value).map { Located(value: $0, offset: text.offset, path: text.path) }
        }
        rule.paidAtLeast = read(.paidAtLeast)?.duration
        rule.waitBetween = read(.waitBetween)?.duration
        if let member = members[CatalogKey.locales.name] { rule.locales = languageTags(member.value, path: keyPath(.locales)) }

        let replies = [CatalogKey.message, .alternateProduct, .promotionalOffer].filter { members[$0.name] != nil }
        if replies.isEmpty {
            report(
                .retentionRule, "a retention rule needs a reply", at: node.offset, path: path,
                help: "give `\(CatalogKey.message)`, `\(CatalogKey.alternateProduct)` or `\(CatalogKey.promotionalOffer)`")
        }
        if let offer = members[CatalogKey.promotionalOffer.name], let product = members[CatalogKey.alternateProduct.name] {
            let later = offer.keyOffset > product.keyOffset ? offer : product
            report(
                .retentionRule,
                "a retention rule replies with one of `\(CatalogKey.alternateProduct)` and `\(CatalogKey.promotionalOffer)`, not both",
                at: later.keyOffset, path: Self.path(path, key: later.key), help: "write two rules, in the order to try them")
        }
        if let plan = members[CatalogKey.billingPlan.name], members[CatalogKey.alternateProduct.name] == nil {
            report(
                .retentionRule, "`\(CatalogKey.billingPlan)` says how an `\(CatalogKey.alternateProduct)` is billed; this rule has none",
                at: plan.keyOffset, path: keyPath(.billingPlan))
        }
        return rule
    }

    /// A non-empty list of distinct, well-formed language tags.
    private mutating func languageTags(_ node: JSONNode, path: String) -> [String]? {
        guard case .array(let elements) = node.value, !elements.isEmpty else {
            wrongType(node, expected: "a non-empty array of language tags", path: path)
            return nil
        }
        var tags: [String] = []
        var seen = Set<String>()
        for (index, element) in elements.enumerated() {
            guard let text = string(element, path: "\(path)[\(index)]") else { return nil }
            guard LanguageTag.isValid(text.value) else {
                report(
                    .badValue, "`\(Diagnostic.excerpt(text.value))` is not a language tag", at: text.offset, path: text.path,
                    help: "write a language (`de`) or a language and region (`de-AT`), letters and digits in parts of 1 to 8")
                return nil
            }
            guard seen.insert(text.value.lowercased()).inserted else {
                report(.badValue, "`\(text.value)` is listed twice", at: text.offset, path: text.path)
                return nil
            }
            tags.append(text.value)
        }
        return tags
    }

    /// The rules that relate each retention rule to the catalog's products and offers.
    mutating func checkRetention(_ catalog: CatalogDefinition, context: RuleContext) {
        for product in catalog.products where !product.retention.isEmpty {
            let promotional = product.offers.filter { $0.type == .promotional }.compactMap(\.id?.value)
            for rule in product.retention {
                if let offer = rule.promotionalOffer {
                    if let found = product.offers.first(where: { $0.id?.value == offer.value }) {
                        if found.type == .winBack {
                            report(
                                .retentionRule, "`\(offer.value)` is a win-back offer, not a promotional one", at: offer.offset, path: offer.path,
                                help: "a subscriber on the cancel page is offered a promotional offer; win-back offers are for those who left")
                        }
                    } else {
                        report(
                            .retentionRule, "`\(Diagnostic.excerpt(offer.value))` is not an offer of \(product.label)", at: offer.offset,
                            path: offer.path,
                            help: promotional.isEmpty ? "the product has no promotional offer; declare one in its `\(CatalogKey.offers)`" : nil,
                            meant: Suggestion.closest(to: offer.value, in: promotional, budget: &suggestions))
                    }
                }
                guard let alternate = rule.alternateProduct else { continue }
                let key = product.store.key(of: alternate.value)
                // Apple's reply carries an App Store product id: another store's plan cannot be it.
                let named =
                    catalog.products.first { $0.key == key }
                    ?? catalog.products.first { $0.key == alternate.value || $0.id?.value == alternate.value }
                if let elsewhere = named, elsewhere.store != product.store {
                    report(
                        .retentionRule,
                        "`\(CatalogKey.alternateProduct)` names \(elsewhere.label), sold in \(elsewhere.store.phrase): Apple's retention reply names only App Store products",
                        at: alternate.offset, path: alternate.path,
                        help: "suggest a plan of \(product.label)'s group in the App Store; a customer switches stores by themselves")
                    continue
                }
                guard let index = context.productsById[key] else {
                    let group = catalog.products.filter {
                        $0.group?.value == product.group?.value && $0.key != product.key && $0.store == product.store
                    }
                    report(
                        .unknownProduct,
                        "`\(CatalogKey.alternateProduct)` names `\(Diagnostic.excerpt(alternate.value))`, which this catalog does not define",
                        at: alternate.offset, path: alternate.path,
                        meant: Suggestion.closest(to: alternate.value, in: group.compactMap(\.id?.value), budget: &suggestions))
                    continue
                }
                let other = catalog.products[index]
                if other.key == product.key {
                    report(
                        .retentionRule, "a subscription cannot suggest switching to itself", at: alternate.offset, path: alternate.path,
                        help: "name another plan of its group")
                } else if other.type != .autoRenewableSubscription || other.group?.value != product.group?.value {
                    report(
                        .retentionRule, "\(other.label) is not in \(product.label)'s group `\(product.group?.value ?? "")`", at: alternate.offset,
                        path: alternate.path, help: "a customer can switch only between plans of one subscription group")
                } else if !other.available {
                    report(
                        .retentionRule, "\(other.label) is retired (`available: false`): it cannot be suggested", at: alternate.offset,
                        path: alternate.path)
                }
            }
        }
    }
}

/// Language tags as retention rules and Apple's requests write them, and RFC 4647 basic
/// filtering between them.
enum LanguageTag {
    /// The JSON Schema pattern of a tag: a language and subtags of letters and digits.
    static let pattern = "^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$"

    /// Whether `tag` is a language tag (`de`, `en-US`, `zh-Hant-TW`), at most 64 bytes.
    static func isValid(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        let parts = bytes.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            guard (1...8).contains(part.count) else { return false }
            let letters = part.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }
            let alphanumeric = part.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            }
            guard index == 0 ? letters : alphanumeric else { return false }
        }
        return true
    }

    /// RFC 4647 basic filtering: `range` matches `tag` when they are equal or `range` is a prefix
    /// of `tag` followed by `-`, case aside (`de` matches `de` and `de-AT`, not `den`). Apple's
    /// `en_US` is read as `en-US`.
    static func matches(_ range: String, _ tag: String) -> Bool {
        let range = range.lowercased()
        let tag = tag.replacingOccurrences(of: "_", with: "-").lowercased()
        return tag == range || tag.hasPrefix(range + "-")
    }
}
