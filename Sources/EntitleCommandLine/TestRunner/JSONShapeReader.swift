import Entitle
import Foundation

/// Reads the values of a located JSON tree as a file format expects them, and reports, located
/// as `file:line:column` with the JSON path, every value that is not what it should be: the
/// test-file counterpart of the catalog checker's readers.
struct JSONShapeReader {
    let file: String
    let lines: LineTable
    private(set) var diagnostics: [Diagnostic] = []
    /// Edit-distance work left for "did you mean", shared by the whole file, so that a file with
    /// thousands of unknown keys is still checked in linear time (as catalogs are).
    var suggestions = Suggestion.Budget.perFile

    init(file: String, data: Data) {
        self.file = file
        self.lines = LineTable(data)
    }

    /// Whether an error has been reported.
    var hasErrors: Bool { diagnostics.contains(where: \.isError) }

    func location(of offset: Int) -> SourceLocation {
        let (line, column) = lines.location(of: offset)
        return SourceLocation(file: file, line: line, column: column)
    }

    mutating func report(_ code: DiagnosticCode, _ message: String, at offset: Int, path: String, help: String? = nil) {
        diagnostics.append(
            Diagnostic(
                severity: .error, code: code, message: message, location: location(of: offset),
                path: path, help: help))
    }

    /// Adds diagnostics found by another reader (a receipt decoder, a catalog compiler).
    mutating func append(_ found: [Diagnostic]) {
        diagnostics += found
    }

    mutating func wrongType(_ node: JSONNode, expected: String, path: String) {
        report(.wrongType, "expected \(expected), found \(node.kind.phrase)", at: node.offset, path: path)
    }

    /// An unknown key, with the closest allowed one (unused ones first) as "did you mean".
    mutating func unknownKey(_ member: JSONMember, in what: String, path: String, allowed: [String], unused: [String]) {
        let help =
            Suggestion.help(for: member.key, in: unused, budget: &suggestions)
            ?? Suggestion.help(for: member.key, in: allowed, budget: &suggestions)
            ?? (member.key.hasPrefix("//") || member.key.hasPrefix("#")
                ? "JSON has no comments; write a `\"$comment\": \"...\"` member instead"
                : "allowed keys are \(CatalogChecker.list(allowed.filter { $0 != "$comment" }))")
        report(
            .unknownKey, "unknown key `\(member.key)` in \(what)", at: member.keyOffset,
            path: CatalogChecker.path(path, key: member.key), help: help)
    }

    /// Checks an object's keys and returns its members by name; `$comment` is allowed (a string)
    /// wherever `allowed` lists it.
    mutating func object(_ node: JSONNode, path: String, allowed: [String], required: [String], what: String) -> [String: JSONMember]? {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: "\(what.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(what) object", path: path)
            return nil
        }
        var byName: [String: JSONMember] = [:]
        let present = Set(members.map(\.key))
        let unused = allowed.filter { !present.contains($0) && $0 != "$comment" }
        for member in members {
            if member.key == "$comment", allowed.contains("$comment") {
                _ = string(member.value, path: CatalogChecker.path(path, key: member.key))
            } else if allowed.contains(member.key) {
                byName[member.key] = member
            } else {
                unknownKey(member, in: what, path: path, allowed: allowed, unused: unused)
            }
        }
        for key in required where byName[key] == nil {
            report(.missingKey, "missing required key `\(key)` in \(what)", at: node.offset, path: path)
        }
        return byName
    }

    /// The members of an object whose keys are ids, `$comment` aside.
    mutating func members(_ node: JSONNode, path: String, expected: String) -> [JSONMember]? {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: expected, path: path)
            return nil
        }
        var kept: [JSONMember] = []
        for member in members {
            if member.key == "$comment" {
                _ = string(member.value, path: CatalogChecker.path(path, key: member.key))
            } else {
                kept.append(member)
            }
        }
        return kept
    }

    mutating func string(_ node: JSONNode, path: String) -> String? {
        guard case .string(let value) = node.value else {
            wrongType(node, expected: "a string", path: path)
            return nil
        }
        return value
    }

    mutating func nonEmptyString(_ node: JSONNode, path: String) -> String? {
        guard let value = string(node, path: path) else { return nil }
        if value.allSatisfy(\.isWhitespace) {
            report(.badValue, "must not be empty", at: node.offset, path: path)
            return nil
        }
        return value
    }

    mutating func array(_ node: JSONNode, path: String, expected: String = "an array") -> [JSONNode]? {
        guard case .array(let elements) = node.value else {
            wrongType(node, expected: expected, path: path)
            return nil
        }
        return elements
    }

    /// An array of non-empty strings.
    mutating func strings(_ node: JSONNode, path: String) -> [String]? {
        guard let elements = array(node, path: path, expected: "an array of strings") else { return nil }
        var values: [String] = []
        for (index, element) in elements.enumerated() {
            guard let value = nonEmptyString(element, path: "\(path)[\(index)]") else { return nil }
            values.append(value)
        }
        return values
    }

    /// An RFC 3339 instant; with `dateAlone`, also a date alone, meaning its midnight UTC (as
    /// `--at` takes).
    mutating func instant(_ node: JSONNode, path: String, dateAlone: Bool = false) -> Instant? {
        guard let text = string(node, path: path) else { return nil }
        if let instant = Instant(rfc3339: text) { return instant }
        let isDate = dateAlone && text.utf8.count == 10
        if isDate, let instant = Instant(rfc3339: text + "T00:00:00Z") { return instant }
        let problem =
            Instant.rfc3339Problem(isDate ? text + "T00:00:00Z" : text)
            ?? "it must look like `2026-01-15T09:00:00Z`\(dateAlone ? " or `2026-01-15`" : "")"
        report(.badInstant, "`\(text)` is not an instant: \(problem)", at: node.offset, path: path)
        return nil
    }

    /// One of `names`, with "did you mean" for a near miss.
    mutating func enumValue(_ node: JSONNode, path: String, names: [String], what: String) -> String? {
        guard let text = string(node, path: path) else { return nil }
        if names.contains(text) { return text }
        report(
            .badEnumValue, "unknown \(what) `\(text)`", at: node.offset, path: path,
            help: Suggestion.help(for: text, in: names, budget: &suggestions) ?? "expected one of \(CatalogChecker.list(names))")
        return nil
    }
}
