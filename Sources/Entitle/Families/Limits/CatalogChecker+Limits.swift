/// Number limits: the catalog's `limits` declare each limit (`description`, `default`,
/// `combine`); a product's `limits` give declared limits a value while it covers, a whole number
/// or `"unlimited"`. Across the catalog: a product's limit is declared, a product that gives
/// through Advanced Commerce items gives no limits, and a limit's id is not a feature's or a
/// currency's (a feature and a currency sharing an id is a warning).
extension CatalogChecker {
    /// Reads the catalog's `limits`; `nil` (reported) when it is not an object of declarations.
    mutating func limitDeclarations(_ node: JSONNode) -> [LimitDefinition]? {
        let path = CatalogKey.limits.name
        guard let entries = entries(node, expected: "an object of limit ids to declarations", path: path) else { return nil }
        if entries.count > CatalogLimits.maxDeclarations {
            let extra = entries[CatalogLimits.maxDeclarations]
            report(
                .limitExceeded, "\(entries.count) limits, more than the \(CatalogLimits.maxDeclarations) a catalog may declare",
                at: extra.member.keyOffset, path: extra.path)
        }
        var limits: [LimitDefinition] = []
        var complete = true
        for (member, memberPath) in entries.prefix(CatalogLimits.maxDeclarations) {
            guard validIdentifier(member.key, what: "limit", at: member.keyOffset, path: memberPath) else {
                complete = false
                continue
            }
            guard let keys = object(member.value, .limit, path: memberPath) else {
                complete = false
                continue
            }
            func read(_ key: CatalogKey) -> Scalar? {
                keys[key.name].flatMap { scalar($0, key, in: .limit, path: Self.path(memberPath, key: key.name)) }
            }
            var limit = LimitDefinition(id: Located(value: member.key, offset: member.keyOffset, path: memberPath))
            limit.description = read(.description)?.text?.value ?? ""
            if keys[CatalogKey.default.name] != nil {
                guard let value = read(.default)?.integer else {
                    complete = false
                    continue
                }
                limit.default = value.value
            }
            if keys[CatalogKey.combine.name] != nil {
                guard let combine = read(.combine)?.text.flatMap({ LimitCombine(rawValue: $0.value) }) else {
                    complete = false
                    continue
                }
                limit.combine = combine
            }
            limits.append(limit)
        }
        if !complete { broken.limitIds = Set(entries.map(\.member.key)).subtracting(limits.map(\.id.value)) }
        return limits
    }

    /// Reads a product's `limits` into it (`limitsBroken` when some of it could not be read).
    mutating func limitValues(_ node: JSONNode, path: String, into product: inout ProductDefinition) {
        guard let entries = entries(node, expected: "an object of limit ids to values", path: path) else {
            product.limitsBroken = true
            return
        }
        for (member, memberPath) in entries {
            let id = Located(value: member.key, offset: member.keyOffset, path: memberPath)
            guard let value = limitValue(member.value, path: memberPath) else {
                product.limitIds.append(id)
                product.limitsBroken = true
                continue
            }
            product.limitIds.append(id)
            product.limits.append((id, value))
        }
    }

    /// A product's value for one limit: a whole number from 0 to the largest limit, or `"unlimited"`.
    private mutating func limitValue(_ node: JSONNode, path: String) -> LimitValue? {
        let rule = "a whole number from 0 to \(CatalogLimits.maxLimitValue), or `\"unlimited\"`"
        switch node.value {
        case .number(let number):
            guard let value = number.integer, (0...CatalogLimits.maxLimitValue).contains(value) else {
                report(.badValue, "a limit value is \(rule), found `\(number.text)`", at: node.offset, path: path)
                return nil
            }
            return .count(value)
        case .string(let text):
            guard text == LimitValue.unlimited.description else {
                // `"50"`: the number, written as text.
                let asNumber = Int64(text).map { "write the number without quotes: \($0)" }
                report(
                    .badValue, "a limit value is \(rule), found `\"\(Diagnostic.excerpt(text))\"`", at: node.offset, path: path,
                    help: asNumber,
                    meant: asNumber == nil
                        ? Suggestion.closest(to: text, in: [LimitValue.unlimited.description], budget: &suggestions) : nil)
                return nil
            }
            return .unlimited
        default:
            wrongType(node, expected: rule, path: path)
            return nil
        }
    }

    /// The rules of limits across the catalog (``LimitFamily/check(_:context:with:)``).
    mutating func checkLimits(_ catalog: CatalogDefinition) {
        let declared = Set(catalog.limits.map(\.id.value))
        let limitIds = catalog.limits.map(\.id.value)
        for product in catalog.products {
            if product.keyOffsets[CatalogKey.items.name] != nil, let at = product.keyOffsets[CatalogKey.limits.name] {
                report(
                    .keyNotAllowed, "an Advanced Commerce product gives through its `items` only; it may not have `limits`", at: at,
                    path: Self.path(product.path, key: CatalogKey.limits.name),
                    help: "give the limits to a subscription the customer buys beside it")
            }
            for id in product.limitIds where !declared.contains(id.value) {
                // A declaration that could not be read is the error already reported.
                guard !catalog.limitsBroken, !broken.limitIds.contains(id.value) else { continue }
                report(
                    .undeclaredLimit, "undeclared limit `\(id.value)`", at: id.offset, path: id.path,
                    help: limitIds.isEmpty
                        ? "declare it under the catalog's `limits`" : "declare it under `limits`, or give one of \(Self.list(limitIds))",
                    meant: Suggestion.closest(to: id.value, in: limitIds, budget: &suggestions))
            }
        }
        // One id, two kinds: located at the later of the two.
        let features = Dictionary(catalog.features.map { ($0.value, $0) }, uniquingKeysWith: { first, _ in first })
        let currencies = Dictionary(catalog.currencies.map { ($0.value, $0) }, uniquingKeysWith: { first, _ in first })
        for limit in catalog.limits {
            for (kind, other) in [("feature", features[limit.id.value]), ("currency", currencies[limit.id.value])] {
                guard let other else { continue }
                let (later, earlier) = limit.id.offset > other.offset ? (limit.id, other) : (other, limit.id)
                let laterKind = later.offset == limit.id.offset ? "limit" : kind
                let earlierKind = laterKind == "limit" ? kind : "limit"
                report(
                    .sharedId, "\(laterKind) `\(limit.id.value)` has the id of a \(earlierKind)", at: later.offset, path: later.path,
                    help:
                        "\(earlierKind) `\(limit.id.value)` is declared at \(earlier.path) (line \(line(of: earlier.offset))); a limit's id is its own"
                )
            }
        }
        for currency in catalog.currencies {
            guard let feature = features[currency.value] else { continue }
            let (later, earlier) = currency.offset > feature.offset ? (currency, feature) : (feature, currency)
            let laterKind = later.offset == currency.offset ? "currency" : "feature"
            warn(
                .sharedId, "\(laterKind) `\(currency.value)` has the id of a \(laterKind == "currency" ? "feature" : "currency")",
                at: later.offset, path: later.path,
                help:
                    "declared also at \(earlier.path) (line \(line(of: earlier.offset))); OpenFeature answers key this currency's flag `balance:\(currency.value)`"
            )
        }
    }
}

/// A declared number limit (`limits.<id>`).
struct LimitDefinition {
    var id: Located<String>
    var description = ""
    var `default`: Int64 = 0
    var combine = LimitCombine.max
}
