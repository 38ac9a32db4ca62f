/// Grandfather rules: features for customers who bought the app before it turned free, matched
/// on the receipt's original application version, original purchase date and original platform:
/// a rule states at least one of them, and every one it states must hold.
extension CatalogChecker {
    mutating func grandfatherRules(_ node: JSONNode) -> [GrandfatherRuleDefinition] {
        guard case .array(let elements) = node.value else {
            wrongType(node, expected: "an array of grandfather rules", path: CatalogKey.grandfathered.name)
            return []
        }
        var rules: [GrandfatherRuleDefinition] = []
        var seen: [String: Located<String>] = [:]
        for (index, element) in elements.enumerated() {
            let path = "\(CatalogKey.grandfathered.name)[\(index)]"
            func keyPath(_ key: CatalogKey) -> String { Self.path(path, key: key.name) }
            guard let members = object(element, .grandfatherRule, path: path) else { continue }
            var rule = GrandfatherRuleDefinition(path: path, offset: element.offset)
            rule.id = members[CatalogKey.id.name].flatMap { scalar($0, .id, in: .grandfatherRule, path: keyPath(.id))?.text }
            if let id = rule.id { checkUnique(id, in: &seen, what: "grandfather rule") { "it is already defined at \($0)" } }
            if let grants = members[CatalogKey.grants.name] {
                if case .array(let values) = grants.value.value {
                    for (position, value) in values.enumerated() {
                        if let grant = nonEmptyString(value, path: "\(keyPath(.grants))[\(position)]") {
                            rule.grants.append(grant)
                        } else {
                            rule.grantsBroken = true
                        }
                    }
                    if values.isEmpty {
                        warn(
                            .grantsNothing, "grandfather rule grants nothing", at: grants.value.offset, path: keyPath(.grants),
                            help: "list the features its customers keep")
                    }
                } else {
                    wrongType(grants.value, expected: "an array of feature ids", path: keyPath(.grants))
                    rule.grantsBroken = true
                }
            }
            var condition = GrandfatherCondition()
            var broken = false
            if let version = members[CatalogKey.originalApplicationVersionBefore.name] {
                broken = true
                if let text = string(version.value, path: keyPath(.originalApplicationVersionBefore)) {
                    if let components = Self.versionComponents(text.value) {
                        condition.originalApplicationVersionBefore = components
                        broken = false
                    } else {
                        let problem =
                            Self.versionLimitProblem(text.value).map { "`\(text.value)` \($0)" }
                            ?? "`\(text.value)` is not a version of dot-separated whole numbers"
                        report(
                            .badValue, problem, at: text.offset,
                            path: text.path, help: "write it as the App Store shows it, e.g. `2.0` or `1.9.3`")
                    }
                }
            }
            if let date = members[CatalogKey.originalPurchaseBefore.name] {
                if let instant = scalar(date, .originalPurchaseBefore, in: .grandfatherRule, path: keyPath(.originalPurchaseBefore))?.instant {
                    condition.originalPurchaseBefore = instant.value
                } else {
                    broken = true
                }
            }
            if let platforms = members[CatalogKey.originalPlatform.name] {
                let names = AppPlatform.allCases.map(\.rawValue)
                if let chosen = choices(platforms.value, path: keyPath(.originalPlatform), names, what: "platform") {
                    let set = Set(chosen.map(\.value))
                    condition.originalPlatforms = AppPlatform.allCases.filter { set.contains($0.rawValue) }
                } else {
                    broken = true
                }
            }
            if condition.isEmpty, !broken {
                report(
                    .missingKey,
                    "a grandfather rule needs a condition: `\(CatalogKey.originalApplicationVersionBefore)`, `\(CatalogKey.originalPurchaseBefore)` or `\(CatalogKey.originalPlatform)`",
                    at: element.offset, path: path,
                    help:
                        "e.g. `\"\(CatalogKey.originalApplicationVersionBefore)\": \"2.0\"` for customers who first installed a version before 2.0; every condition a rule states must hold"
                )
            }
            if !broken, !condition.isEmpty { rule.condition = condition }
            rules.append(rule)
        }
        return rules
    }

    /// The components of a version such as `1.10.2` or a build number such as `2024060100`:
    /// whole numbers separated by dots; `nil` for anything else (`1.x`, `2.0-beta`, `1..2`).
    /// Every version a 256-byte field can hold is read: up to 128 components of up to 18 digits.
    ///
    /// Read from the UTF-8 bytes in one pass (evaluation reads a receipt's version on every
    /// evaluation of an app with a version rule, and the proof search millions of times).
    package static func versionComponents(_ text: String) -> [Int]? {
        let bytes = text.utf8
        guard bytes.count <= 256 else { return nil }
        var components: [Int] = []
        var value = 0
        var digits = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                // An empty part, or a 129th.
                guard digits > 0, components.count < 127 else { return nil }
                components.append(value)
                value = 0
                digits = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                // 18 digits fit an Int: 999,999,999,999,999,999 < 2^63.
                guard digits < 18 else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        components.append(value)
        return components
    }

    /// Why a version made only of digits and dots is still not read by `versionComponents`: the
    /// limit it exceeds, as a phrase following the version (`nil` when it is within every limit or
    /// is not digits and dots at all).
    static func versionLimitProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard !parts.contains(where: \.isEmpty) else { return nil }
        // (256 characters hold at most 128 parts, so the part limit follows from this one.)
        if text.utf8.count > 256 { return "is longer than 256 characters, the longest version entitle compares" }
        if parts.contains(where: { $0.count > 18 }) { return "has a part of more than 18 digits, the most entitle compares" }
        return nil
    }
}
