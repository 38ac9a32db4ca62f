/// Reading one JSON value as what the catalog language expects there, reporting what it is not.
extension CatalogChecker {
    /// Checks an object's keys and returns its members by name. `"$comment"` is allowed wherever
    /// `allowed` lists it and must be a string.
    mutating func object(
        _ node: JSONNode, path: String, allowed: [String], required: [String], what: String,
        notAllowedFor type: ProductType? = nil
    ) -> [String: JSONMember]? {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: "\(what == "catalog" ? "a catalog" : "an \(what)") object", path: path)
            return nil
        }
        var byName: [String: JSONMember] = [:]
        misspeltKeys = []
        // Allowed keys not used yet: the likelier meaning of a misspelt key. Computed once.
        var unused: [String]?
        for member in members {
            let memberPath = Self.path(path, key: member.key)
            if member.key == "$comment", allowed.contains("$comment") {
                _ = string(member.value, path: memberPath)
            } else if allowed.contains(member.key) {
                byName[member.key] = member
            } else if let type, Self.allProductKeys.contains(member.key) {
                let owners = ProductType.allCases.filter { Self.typeProductKeys[$0]!.contains(member.key) }
                misspeltKeys.insert(member.key)
                report(.keyNotAllowed, "`\(member.key)` is not allowed on \(type.phrase)", at: member.keyOffset,
                       path: memberPath, help: "`\(member.key)` belongs on \(Self.list(owners.map(\.phrase), quote: false))")
            } else if isFull {
                countUnshownError()
            } else {
                if unused == nil {
                    let present = Set(members.map(\.key))
                    unused = allowed.filter { !present.contains($0) && $0 != "$comment" }
                }
                let meant = Suggestion.closest(to: member.key, in: unused!, budget: &suggestions)
                if let meant { misspeltKeys.insert(meant) }
                report(.unknownKey, "unknown key `\(Diagnostic.excerpt(member.key))` in \(what)", at: member.keyOffset, path: memberPath,
                       help: meant.map { "did you mean `\($0)`?" }
                           ?? Suggestion.help(for: member.key, in: allowed, budget: &suggestions)
                           ?? (member.key.hasPrefix("//") || member.key.hasPrefix("#")
                               ? "JSON has no comments; write a `\"$comment\": \"...\"` member instead"
                               : "allowed keys are \(Self.list(allowed))"))
            }
        }
        // A required key that a misspelt key stands for is that key's error, reported once.
        for key in required where byName[key] == nil && !misspeltKeys.contains(key) {
            report(.missingKey, "missing required key `\(key)` in \(what)", at: node.offset, path: path)
        }
        return byName
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

    /// A non-empty string within ``CatalogLimits/maxIdentifierBytes``.
    mutating func identifierString(_ node: JSONNode, path: String) -> Located<String>? {
        guard let value = nonEmptyString(node, path: path) else { return nil }
        guard value.value.utf8.count <= CatalogLimits.maxIdentifierBytes else {
            report(.limitExceeded, "id of \(value.value.utf8.count) bytes is longer than \(CatalogLimits.maxIdentifierBytes) bytes",
                   at: node.offset, path: path)
            return nil
        }
        return value
    }

    mutating func productIdentifier(_ node: JSONNode, path: String) -> Located<String>? {
        guard let value = identifierString(node, path: path) else { return nil }
        if value.value.unicodeScalars.contains(where: { !Self.isIdentifierScalar($0) }) {
            report(.badValue, "product id `\(value.value)` may contain only letters, digits, `.`, `_` and `-`",
                   at: node.offset, path: path)
            return nil
        }
        return value
    }

    mutating func bundleIdentifier(_ node: JSONNode, path: String) -> Located<String>? {
        guard let value = identifierString(node, path: path) else { return nil }
        if value.value.unicodeScalars.contains(where: { !Self.isIdentifierScalar($0) || $0 == "_" }) {
            report(.badValue, "bundle id `\(value.value)` may contain only letters, digits, `.` and `-`",
                   at: node.offset, path: path, help: "a bundle id looks like `com.example.app`")
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

    mutating func enumValue<E: RawRepresentable & CaseIterable>(
        _ node: JSONNode, path: String, _: E.Type, what: String
    ) -> E? where E.RawValue == String {
        guard let text = string(node, path: path) else { return nil }
        if let value = E(rawValue: text.value) { return value }
        let names = E.allCases.map(\.rawValue)
        report(.badEnumValue, "unknown \(what) `\(text.value)`", at: node.offset, path: path,
               help: Suggestion.help(for: text.value, in: names, budget: &suggestions) ?? "expected one of \(Self.list(names))")
        return nil
    }
}
