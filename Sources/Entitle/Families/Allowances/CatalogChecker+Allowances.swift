/// Allowances: a product's `allowances` deposit credits while it covers, the catalog's free
/// `allowances` every calendar period, and a product's `unlimited` currencies are not counted
/// while it covers. Read against the language, then the rules of one allowance's keys (`every`
/// from `PT1H`, `rollover` only with `expires: next` and at most 100 x `amount`, an expiry that
/// keeps at most ``AllowanceRules/maxAlive`` deposits at once), then the rules that relate an
/// allowance to its product (a lifetime product needs `every`, `introOffer` needs an
/// introductory offer, no allowances beside Advanced Commerce `items`). An undeclared currency is
/// the `undeclared-currency` of credits (each allowance's and `unlimited`'s currencies are read as
/// currencies the product credits).
extension CatalogChecker {
    /// Reads `allowances` of a product (`.allowance`) or of the catalog (`.freeAllowance`).
    mutating func allowances(_ node: JSONNode, _ object: CatalogObject, path: String) -> [AllowanceDefinition] {
        let holder = object == .allowance ? "a product may have" : "a catalog may have"
        guard let elements = listElements(node, of: "allowances", limit: AllowanceRules.maxPerObject, holder, path: path) else { return [] }
        return elements.prefix(AllowanceRules.maxPerObject).enumerated().compactMap { index, element in
            allowance(element, object, path: "\(path)[\(index)]")
        }
    }

    private mutating func allowance(_ node: JSONNode, _ kind: CatalogObject, path: String) -> AllowanceDefinition? {
        guard let members = object(node, kind, path: path) else { return nil }
        func keyPath(_ key: CatalogKey) -> String { Self.path(path, key: key.name) }
        func read(_ key: CatalogKey) -> Scalar? { members[key.name].flatMap { scalar($0, key, in: kind, path: keyPath(key)) } }
        var allowance = AllowanceDefinition(path: path, offset: node.offset)
        allowance.currency = read(.currency)?.text
        allowance.amount = read(.amount)?.integer
        if members[CatalogKey.every.name] != nil {
            switch read(.every) {
            case .duration(let every)?:
                allowance.every = every
                if ISODuration.shortestMilliseconds(of: every.value) < AllowanceRules.shortestEvery {
                    report(
                        .allowanceRule, "`every` must be at least `PT1H`, found `\(every.value)`", at: every.offset, path: every.path,
                        help: "deposits come at most once an hour")
                    allowance.broken = true
                }
            case .text(let period)?:
                // A free allowance's calendar period.
                allowance.every = ISODuration(period.value).map { Located(value: $0, offset: period.offset, path: period.path) }
            default:
                allowance.broken = true
            }
        }
        if members[CatalogKey.expires.name] != nil {
            switch read(.expires) {
            case .text(let word)?:
                allowance.expires = word.value == "never" ? .never : .next
                allowance.expiresAt = (word.offset, word.path)
            case .duration(let duration)?:
                allowance.expires = .after(duration.value)
                allowance.expiresAt = (duration.offset, duration.path)
                if ISODuration.shortestMilliseconds(of: duration.value) < AllowanceRules.shortestEvery {
                    report(
                        .allowanceRule, "`expires` must be at least `PT1H`, found `\(duration.value)`", at: duration.offset,
                        path: duration.path)
                    allowance.broken = true
                }
            default:
                allowance.broken = true
            }
        }
        if members[CatalogKey.rollover.name] != nil {
            allowance.rollover = read(.rollover)?.integer
            if allowance.rollover == nil { allowance.broken = true }
        }
        if members[CatalogKey.introOffer.name] != nil {
            allowance.introOffer = read(.introOffer)?.integer
            if allowance.introOffer == nil { allowance.broken = true }
        }
        if allowance.currency == nil || allowance.amount == nil { allowance.broken = true }
        if let rollover = allowance.rollover {
            if allowance.expires != .next {
                report(
                    .allowanceRule, "`rollover` carries credits into the next deposit, so it needs `expires: next`", at: rollover.offset,
                    path: rollover.path, help: "remove `rollover`, or let deposits end at the next one")
                allowance.broken = true
            } else if let amount = allowance.amount, rollover.value > amount.value * AllowanceRules.maxRolloverFactor {
                report(
                    .allowanceRule,
                    "`rollover` of \(rollover.value) is more than 100 x `amount` (\(amount.value * AllowanceRules.maxRolloverFactor))",
                    at: rollover.offset, path: rollover.path)
                allowance.broken = true
            }
        }
        // What one instant can hold stays small: a deposit lasts at most `maxAlive` periods.
        if case .after(let duration) = allowance.expires, let every = allowance.every, let at = allowance.expiresAt {
            let periods = ISODuration.longestMilliseconds(of: duration) / max(ISODuration.shortestMilliseconds(of: every.value), 1)
            if periods > AllowanceRules.maxAlive {
                report(
                    .allowanceRule, "`expires` of `\(duration)` outlasts \(AllowanceRules.maxAlive) deposits of `every` `\(every.value)`",
                    at: at.offset, path: at.path, help: "use `never`, or a shorter expiry")
                allowance.broken = true
            }
        }
        return allowance
    }

    /// Reads a product's `unlimited`: distinct currency ids.
    mutating func currencyList(_ node: JSONNode, path: String) -> [Located<String>] {
        guard case .array(let elements) = node.value, !elements.isEmpty else {
            wrongType(node, expected: "a non-empty array of declared currency ids", path: path)
            return []
        }
        var seen = Set<String>()
        var result: [Located<String>] = []
        for (index, element) in elements.enumerated() {
            guard let text = nonEmptyString(element, path: "\(path)[\(index)]") else { continue }
            guard seen.insert(text.value).inserted else {
                report(.badValue, "currency `\(text.value)` is listed twice", at: text.offset, path: text.path)
                continue
            }
            result.append(text)
        }
        return result
    }

    /// The rules of allowances across the catalog (``AllowanceFamily/check(_:context:with:)``).
    mutating func checkAllowances(_ catalog: CatalogDefinition) {
        let declared = Set(catalog.currencies.map(\.value))
        let currencyIds = catalog.currencies.map(\.value)
        for allowance in catalog.allowances {
            guard let currency = allowance.currency, !declared.contains(currency.value), !broken.currencies,
                !broken.currencyIds.contains(currency.value)
            else { continue }
            report(
                .undeclaredCurrency, "undeclared currency `\(currency.value)`", at: currency.offset, path: currency.path,
                help: "declare it under `currencies`", meant: Suggestion.closest(to: currency.value, in: currencyIds, budget: &suggestions))
        }
        for product in catalog.products {
            if product.keyOffsets[CatalogKey.items.name] != nil {
                for key in [CatalogKey.allowances, .unlimited] {
                    guard let at = product.keyOffsets[key.name] else { continue }
                    report(
                        .keyNotAllowed, "an Advanced Commerce product gives through its `items` only; it may not have `\(key)`", at: at,
                        path: Self.path(product.path, key: key.name), help: "give it to a subscription the customer buys beside it")
                }
            }
            for allowance in product.allowances {
                if allowance.every == nil, product.type == .nonConsumable, !product.isTrial, !allowance.broken {
                    report(
                        .allowanceRule, "an allowance of a lifetime product needs `every`", at: allowance.offset, path: allowance.path,
                        help: "say how often it deposits while owned, e.g. `\"every\": \"P1M\"`")
                }
                if let intro = allowance.introOffer, product.introOffer == nil {
                    report(
                        .allowanceRule, "`introOffer` says what a purchase with the product's introductory offer deposits; it has none",
                        at: intro.offset, path: intro.path, help: "give the product an `introOffer`, or remove this `introOffer`")
                }
            }
            let allowed = Set(product.allowances.compactMap(\.currency?.value))
            for currency in product.unlimited where allowed.contains(currency.value) {
                warn(
                    .unlimitedAllowance, "currency `\(currency.value)` is both unlimited and deposited by this product", at: currency.offset,
                    path: currency.path, help: "while the product covers its deposits are not counted; remove one of the two")
            }
        }
    }

    /// The help for a key a consumable may not have because purchased credits may not expire.
    static func expiringCreditsHelp(key: String, type: ProductType) -> String? {
        guard type == .consumable, key == CatalogKey.allowances.name || key == CatalogKey.expires.name else { return nil }
        return
            "purchased credits may not expire (App Review Guideline 3.1.1); give the currency as `credits`, or sell a subscription with an allowance"
    }
}

/// One allowance as read (`allowances[]` of a product or of the catalog).
struct AllowanceDefinition {
    var path: String
    var offset: Int
    var currency: Located<String>?
    var amount: Located<Int64>?
    var every: Located<ISODuration>?
    var expires = AllowanceExpiry.next
    var expiresAt: (offset: Int, path: String)?
    var rollover: Located<Int64>?
    var introOffer: Located<Int64>?
    /// Some value could not be read or breaks a rule (reported): it compiles nothing.
    var broken = false
}

extension ISODuration {
    /// Its shortest length in milliseconds (a month as 28 days, a year as 365).
    static func shortestMilliseconds(of duration: ISODuration) -> Int64 {
        (Int64(duration.years) * 365 + Int64(duration.months) * 28 + duration.totalDays) * CivilCalendar.millisecondsPerDay
            + duration.timeMilliseconds
    }

    /// Its longest length in milliseconds (a month as 31 days, a year as 366).
    static func longestMilliseconds(of duration: ISODuration) -> Int64 {
        (Int64(duration.years) * 366 + Int64(duration.months) * 31 + duration.totalDays) * CivilCalendar.millisecondsPerDay
            + duration.timeMilliseconds
    }
}
