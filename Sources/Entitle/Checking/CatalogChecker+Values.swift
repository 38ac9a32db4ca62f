/// Reading one JSON value as what the catalog language expects there, reporting what it is not.
extension CatalogChecker {
    /// Checks an object's keys against the language (``CatalogObject/keys(for:)``) and returns its
    /// members by name. `"$comment"` must be a string. A key that belongs to another product type
    /// is named as such; an unknown key gets a "did you mean" among the keys not written yet.
    ///
    /// - Parameters:
    ///   - type: for a product, its type when it could be read (`nil` allows every product key).
    ///   - required: the keys the object needs, when not those the language marks required.
    mutating func object(
        _ node: JSONNode, _ object: CatalogObject, path: String, type: ProductType? = nil, required: [CatalogKey]? = nil
    ) -> [String: JSONMember]? {
        let what = object.phrase
        guard case .object(let members) = node.value else {
            wrongType(
                node, expected: what == "catalog" ? "a catalog object" : "\("aeiou".contains(what.first!) ? "an" : "a") \(what) object", path: path)
            return nil
        }
        let allowed = object.keyNames(for: type)
        var byName: [String: JSONMember] = [:]
        misspeltKeys = []
        // Allowed keys not used yet: the likelier meaning of a misspelt key. Computed once.
        var unused: [String]?
        for member in members {
            let memberPath = Self.path(path, key: member.key)
            if member.key == CatalogKey.comment.name {
                _ = string(member.value, path: memberPath)
            } else if allowed.contains(member.key) {
                byName[member.key] = member
            } else if let type, object == .product, let help = Self.expiringCreditsHelp(key: member.key, type: type) {
                misspeltKeys.insert(member.key)
                report(.keyNotAllowed, "`\(member.key)` is not allowed on \(type.phrase)", at: member.keyOffset, path: memberPath, help: help)
            } else if let type, let owners = Self.otherTypes(allowing: member.key, in: object) {
                misspeltKeys.insert(member.key)
                report(
                    .keyNotAllowed, "`\(member.key)` is not allowed on \(type.phrase)", at: member.keyOffset,
                    path: memberPath, help: "`\(member.key)` belongs on \(Self.list(owners.map(\.phrase), quote: false))")
            } else if isFull {
                countUnshownError()
            } else {
                if unused == nil {
                    let present = Set(members.map(\.key))
                    unused = allowed.filter { !present.contains($0) && $0 != CatalogKey.comment.name }
                }
                let meant = Suggestion.closest(to: member.key, in: unused!, budget: &suggestions)
                if let meant { misspeltKeys.insert(meant) }
                report(
                    .unknownKey, "unknown key `\(Diagnostic.excerpt(member.key))` in \(what)", at: member.keyOffset, path: memberPath,
                    help: member.key.hasPrefix("//") || member.key.hasPrefix("#")
                        ? "JSON has no comments; write a `\"\(CatalogKey.comment.name)\": \"...\"` member instead"
                        : "allowed keys are \(Self.list(allowed))",
                    meant: meant ?? Suggestion.closest(to: member.key, in: allowed, budget: &suggestions))
            }
        }
        // A required key that a misspelt key stands for is that key's error, reported once.
        for key in required ?? object.requiredKeys where byName[key.name] == nil && !misspeltKeys.contains(key.name) {
            report(.missingKey, "missing required key `\(key.name)` in \(what)", at: node.offset, path: path)
        }
        return byName
    }

    /// The product types that allow `key` when some types of `object` do not; `nil` when no
    /// product type has it.
    private static func otherTypes(allowing key: String, in object: CatalogObject) -> [ProductType]? {
        guard object == .product, let place = object.keys().first(where: { $0.name == key })?.place(in: object) else { return nil }
        return place.types.isEmpty ? nil : place.types
    }

    /// A scalar value of a key, read and checked as the language declares it (`nil`, reported,
    /// when it is not such a value). Lists and objects are read by the rule that needs them.
    mutating func scalar(_ member: JSONMember, _ key: CatalogKey, in object: CatalogObject, path: String) -> Scalar? {
        guard let place = key.place(in: object) else { return nil }
        let node = member.value
        switch place.value {
        case .comment, .schemaReference:
            return string(node, path: path).map(Scalar.text)
        case .text:
            return nonEmptyString(node, path: path).map(Scalar.text)
        case .name:
            return identifier(node, path: path, .name).map(Scalar.text)
        case .productId, .productReference:
            return identifier(node, path: path, .product).map(Scalar.text)
        case .bundleId:
            return identifier(node, path: path, .bundle).map(Scalar.text)
        case .productType:
            return choice(node, path: path, ProductType.allCases.map(\.rawValue), what: "product type").map(Scalar.text)
        case .choice(let values, let what):
            return choice(node, path: path, values, what: what).map(Scalar.text)
        case .integer(let range, let rule):
            guard let value = integer(node, path: path) else { return nil }
            guard range.contains(value.value) else {
                report(.badValue, "`\(key.name)` must be \(rule), found \(value.value)", at: value.offset, path: path)
                return nil
            }
            return .integer(value)
        case .flag:
            return bool(node, path: path).map { .flag($0) }
        case .duration:
            return duration(node, path: path).map(Scalar.duration)
        case .instant:
            guard let text = string(node, path: path) else { return nil }
            do {
                return .instant(Located(value: try Instant.parse(text.value).millisecondsSince1970, offset: node.offset, path: path))
            } catch {
                report(.badInstant, "`\(Diagnostic.excerpt(text.value))` is not an instant", at: node.offset, path: path, help: error.problem)
                return nil
            }
        case .url:
            guard let text = string(node, path: path) else { return nil }
            let url = text.value
            guard url.hasPrefix("https://"), url.utf8.count > 8, url.utf8.count <= 2_048,
                !url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 })
            else {
                report(
                    .badValue, "`\(Diagnostic.excerpt(url))` is not an `https://` URL", at: node.offset, path: path,
                    help: "write the full address of the page, e.g. `https://billing.example.com/portal`")
                return nil
            }
            return .text(text)
        case .currencyReference:
            return nonEmptyString(node, path: path).map(Scalar.text)
        case .durationOrChoice(let values, let what):
            // A word when it is one (or looks like one: no `P`), else a duration.
            if case .string(let text) = node.value, values.contains(text) || !text.hasPrefix("P") {
                return choice(node, path: path, values, what: what).map(Scalar.text)
            }
            return duration(node, path: path).map(Scalar.duration)
        case .version, .features, .products, .declarations, .legalTexts, .credits, .limitValues, .object, .objects, .keyedObjects, .storefronts,
            .choiceOrObject, .currencyList,
            .languageTags,
            .choices:
            return nil
        }
    }

    /// A scalar value read by ``scalar(_:_:in:path:)``.
    enum Scalar {
        case text(Located<String>)
        case integer(Located<Int64>)
        case flag(Bool)
        case duration(Located<ISODuration>)
        case instant(Located<Int64>)

        var text: Located<String>? { if case .text(let value) = self { value } else { nil } }
        var integer: Located<Int64>? { if case .integer(let value) = self { value } else { nil } }
        var flag: Bool? { if case .flag(let value) = self { value } else { nil } }
        var duration: Located<ISODuration>? { if case .duration(let value) = self { value } else { nil } }
        var instant: Located<Int64>? { if case .instant(let value) = self { value } else { nil } }
    }

    /// The members of an object keyed by ids (`credits`, `limits`, `items`), each with its path;
    /// a `"$comment"` member is read as a note and left out. `nil` (reported: expected
    /// `expected`) when the value is not an object.
    mutating func entries(_ node: JSONNode, expected: String, path: String) -> [(member: JSONMember, path: String)]? {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: expected, path: path)
            return nil
        }
        var entries: [(member: JSONMember, path: String)] = []
        entries.reserveCapacity(members.count)
        for member in members {
            let memberPath = Self.path(path, key: member.key)
            if member.key == CatalogKey.comment.name {
                _ = string(member.value, path: memberPath)
            } else {
                entries.append((member, memberPath))
            }
        }
        return entries
    }

    mutating func string(_ node: JSONNode, path: String) -> Located<String>? {
        guard case .string(let value) = node.value else {
            wrongType(node, expected: "a string", path: path)
            return nil
        }
        return Located(value: value, offset: node.offset, path: path)
    }

    mutating func nonEmptyString(_ node: JSONNode, path: String) -> Located<String>? {
        guard let value = string(node, path: path) else { return nil }
        if value.value.allSatisfy(\.isWhitespace) {
            report(.badValue, "must not be empty", at: node.offset, path: path)
            return nil
        }
        return value
    }

    mutating func legalText(_ node: JSONNode, path: String) -> String? {
        nonEmptyString(node, path: path)?.value
    }

    /// What an id names: something declared (a feature, a currency, a group), which may hold any
    /// text, or a product or an app, whose ids the App Store restricts.
    enum IdentifierKind { case name, product, bundle }

    /// A non-empty string within ``CatalogLimits/maxIdentifierBytes``, of only the scalars an id of
    /// `kind` may hold.
    mutating func identifier(_ node: JSONNode, path: String, _ kind: IdentifierKind) -> Located<String>? {
        guard let value = nonEmptyString(node, path: path) else { return nil }
        let id = value.value
        let problem: (code: DiagnosticCode, message: String, help: String?)? =
            if id.utf8.count > CatalogLimits.maxIdentifierBytes {
                (.limitExceeded, "id of \(id.utf8.count) bytes is longer than \(CatalogLimits.maxIdentifierBytes) bytes", nil)
            } else if kind == .product, id.unicodeScalars.contains(where: { !Self.isIdentifierScalar($0) && $0 != ":" }) {
                (.badValue, "product id `\(id)` may contain only letters, digits, `.`, `_` and `-` (and one `:` in a Play subscription's)", nil)
            } else if kind == .bundle, id.unicodeScalars.contains(where: { !Self.isIdentifierScalar($0) || $0 == "_" }) {
                (.badValue, "bundle id `\(id)` may contain only letters, digits, `.` and `-`", "a bundle id looks like `com.example.app`")
            } else {
                nil
            }
        if let problem {
            report(problem.code, problem.message, at: node.offset, path: path, help: problem.help)
            return nil
        }
        return value
    }

    mutating func integer(_ node: JSONNode, path: String) -> Located<Int64>? {
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

    mutating func bool(_ node: JSONNode, path: String) -> Bool? {
        guard case .bool(let value) = node.value else {
            wrongType(node, expected: "`true` or `false`", path: path)
            return nil
        }
        return value
    }

    mutating func duration(_ node: JSONNode, path: String) -> Located<ISODuration>? {
        guard let text = string(node, path: path) else { return nil }
        guard let duration = ISODuration(text.value) else {
            report(
                .badDuration, "`\(text.value)` is not an ISO 8601 duration", at: node.offset, path: path,
                help: "write e.g. `P1M`, `P1Y`, `P2W`, `P14D`, `P1Y6M` or `PT12H` (whole numbers, parts in Y M W D T H M S order)")
            return nil
        }
        guard duration.isPositive else {
            report(.badDuration, "duration `\(text.value)` must be longer than zero", at: node.offset, path: path)
            return nil
        }
        guard duration.isWithinLimit else {
            report(
                .badDuration, "duration `\(text.value)` is longer than 100 years", at: node.offset, path: path,
                help: "durations may be at most `P100Y` (counting a month as 31 days: \(ISODuration.maximumNominalDays) days)")
            return nil
        }
        return Located(value: duration, offset: node.offset, path: path)
    }

    /// One of `values`, else a `bad-enum-value` with a "did you mean".
    /// A non-empty list of distinct strings among `values` (a ``CatalogValue/choices(_:what:)``
    /// value); `nil`, reported, when it is anything else.
    mutating func choices(_ node: JSONNode, path: String, _ values: [String], what: String) -> [Located<String>]? {
        guard case .array(let elements) = node.value, !elements.isEmpty else {
            wrongType(node, expected: "a non-empty array of \(what)s (\(Self.list(values)))", path: path)
            return nil
        }
        var chosen: [Located<String>] = []
        for (index, element) in elements.enumerated() {
            guard let value = choice(element, path: "\(path)[\(index)]", values, what: what) else { return nil }
            if let earlier = chosen.first(where: { $0.value == value.value }) {
                report(
                    .badValue, "\(what) `\(value.value)` is listed twice", at: value.offset, path: value.path,
                    help: "it is already listed at \(earlier.path)")
                return nil
            }
            chosen.append(value)
        }
        return chosen
    }

    mutating func choice(_ node: JSONNode, path: String, _ values: [String], what: String) -> Located<String>? {
        guard let text = string(node, path: path) else { return nil }
        if values.contains(text.value) { return text }
        report(
            .badEnumValue, "unknown \(what) `\(text.value)`", at: node.offset, path: path,
            help: "expected one of \(Self.list(values))", meant: Suggestion.closest(to: text.value, in: values, budget: &suggestions))
        return nil
    }
}
