import Entitle
import Foundation

/// One test file (`*.test.json`, `schemas/test.schema.json`): the catalogs, receipts and app it
/// names, and its cases, each an instant and the result expected then.
///
/// Reading checks the file's shape and reports every problem, located; what each case expects is
/// checked against the app's catalog by ``ExpectationMatcher`` once the catalog is compiled.
struct TestFile {
    /// A value of the file with where it starts and its JSON path.
    struct Located<Value> {
        var value: Value
        var offset: Int
        var path: String
    }

    /// Where a receipt comes from.
    enum ReceiptSource {
        /// A normalized receipt written in the test file, between two byte offsets.
        case inline(start: Int, end: Int)
        /// A receipt file in any format `check --receipt` reads, resolved from the test file's
        /// folder, as written and as resolved.
        case file(written: String, resolved: String)
    }

    /// One case: a name, an instant, receipts of its own (else the file's) and what to expect.
    /// What could not be read is `nil` (and reported), so the rest can still be checked.
    struct Case {
        var name: String?
        /// `cases[2]`.
        var path: String
        var offset: Int
        var at: Instant?
        /// The case's own receipts; `nil` for the file's (or when they could not be read).
        var receipts: [Located<ReceiptSource>]?
        /// Whether the case has `receipts` of its own.
        var hasOwnReceipts: Bool
        /// The case's own story (``Story``): receipts told as events, added to its receipts.
        var story: Located<JSONNode>?
        /// The `expect` object.
        var expect: JSONNode?
        /// The customer's storefront: the case's `storefront`, else the file's.
        var storefront: Storefront?
        /// `exactly`: lists of objects with ids (an offer's `promotions`) must be the result's
        /// whole list, in order; by default each entry listed is found by its id and only it is
        /// checked.
        var exactly = false
    }

    static let keys = ["$schema", "$comment", "catalog", "app", "environments", "storefront", "receipts", "story", "cases"]
    static let caseKeys = ["$comment", "name", "at", "storefront", "receipts", "story", "expect", "exactly"]

    /// A `storefront`: ISO 3166-1 alpha-3 or alpha-2, in any case, as alpha-3.
    static func storefront(_ node: JSONNode, path: String, reader: inout JSONShapeReader) -> Storefront? {
        guard let text = reader.nonEmptyString(node, path: path) else { return nil }
        do throws(EvaluationOptions.InvalidValue) {
            return try Storefront(text)
        } catch {
            reader.report(
                .badValue, "`\(Diagnostic.excerpt(text))` is not an ISO 3166-1 storefront", at: node.offset, path: path,
                help: error.help.map { "three or two letters, as `USA` or `US`; \($0)" } ?? "three or two letters, as `USA` or `US`")
            return nil
        }
    }

    /// `environments`: receipt environment names, each one entitle knows (a misspelt one would
    /// ignore every receipt).
    static func environments(_ node: JSONNode, path: String, reader: inout JSONShapeReader) -> Set<ReceiptEnvironment>? {
        guard let elements = reader.array(node, path: path, expected: "an array of strings") else { return nil }
        var environments: Set<ReceiptEnvironment> = []
        for (index, element) in elements.enumerated() {
            let elementPath = "\(path)[\(index)]"
            guard let name = reader.nonEmptyString(element, path: elementPath) else { return nil }
            do throws(EvaluationOptions.InvalidValue) {
                environments.insert(try ReceiptEnvironment(name))
            } catch {
                reader.report(.badValue, error.problem, at: element.offset, path: elementPath, help: error.help)
                return nil
            }
        }
        return environments
    }

    /// The path the file was found at.
    let path: String
    let data: Data
    /// The catalog paths, resolved from the file's folder; the offset is the `catalog` value's.
    let catalogs: Located<[String]>
    let app: Located<String>?
    let environments: Set<ReceiptEnvironment>?
    let receipts: [Located<ReceiptSource>]
    /// The file's story, told with its receipts for every case without receipts or a story of
    /// its own.
    let story: Located<JSONNode>?
    let cases: [Case]

    /// Reads and checks the test file at `path`.
    ///
    /// - Returns: what could be read of the file (`nil` when it is not a test-file object naming
    ///   its catalogs), and every diagnostic; the file may run only when none is an error.
    static func read(_ path: String) -> (file: TestFile?, diagnostics: [Diagnostic]) {
        func unreadable(_ message: String) -> (TestFile?, [Diagnostic]) {
            (
                nil,
                [
                    Diagnostic(
                        severity: .error, code: .unreadableFile, message: message,
                        location: SourceLocation(file: path, line: 1, column: 1))
                ]
            )
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return unreadable("no such test file") }
        guard !isDirectory.boolValue else { return unreadable("is a directory, not a test file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            return unreadable("cannot read the test file (permission denied?)")
        }
        return read(path: path, data: data)
    }

    /// Reads and checks a test file's bytes; `path` names it and resolves the paths it holds.
    static func read(path: String, data: Data) -> (file: TestFile?, diagnostics: [Diagnostic]) {
        var reader = JSONShapeReader(file: path, data: data)
        guard
            let document = JSONDocument.parse(
                data, limits: .catalog, lines: reader.lines, name: { $0 }, report: { reader.report($0, $1, at: $2, path: "", help: $3) })
        else { return (nil, reader.diagnostics) }
        guard let members = reader.object(document.root, path: "", allowed: keys, required: ["catalog", "cases"], what: "test file")
        else { return (nil, reader.diagnostics) }
        if let schema = members["$schema"] { _ = reader.string(schema.value, path: "$schema") }

        var catalogs: Located<[String]>?
        if let member = members["catalog"] {
            let node = member.value
            var written: [String]?
            if case .array = node.value {
                written = reader.strings(node, path: "catalog")
                if written?.isEmpty == true {
                    reader.report(.badValue, "name at least one catalog file or directory", at: node.offset, path: "catalog")
                }
            } else if case .string = node.value {
                written = reader.nonEmptyString(node, path: "catalog").map { [$0] }
            } else {
                reader.wrongType(node, expected: "a catalog path or an array of them", path: "catalog")
            }
            if let written, !written.isEmpty {
                catalogs = Located(value: written.map { TestFiles.resolve($0, relativeTo: path) }, offset: node.offset, path: "catalog")
            }
        }
        let app = members["app"].flatMap { member in
            reader.nonEmptyString(member.value, path: "app").map { Located(value: $0, offset: member.value.offset, path: "app") }
        }
        let environments = members["environments"].flatMap { Self.environments($0.value, path: "environments", reader: &reader) }
        let storefront = members["storefront"].flatMap { Self.storefront($0.value, path: "storefront", reader: &reader) }
        let receipts = members["receipts"].flatMap { receiptSources($0.value, path: "receipts", file: path, data: data, reader: &reader) }

        var cases: [Case] = []
        if let member = members["cases"], let elements = reader.array(member.value, path: "cases", expected: "an array of cases") {
            if elements.isEmpty {
                reader.report(.badValue, "a test file needs at least one case", at: member.value.offset, path: "cases")
            }
            var names: [String: Int] = [:]
            for (index, element) in elements.enumerated() {
                let casePath = "cases[\(index)]"
                guard
                    let fields = reader.object(
                        element, path: casePath, allowed: caseKeys,
                        required: ["name", "at", "expect"], what: "case")
                else { continue }
                let name = fields["name"].flatMap { reader.nonEmptyString($0.value, path: casePath + ".name") }
                if let name, let node = fields["name"]?.value {
                    if let first = names[name] {
                        let (line, column) = reader.lines.location(of: first)
                        reader.report(
                            .badValue, "a case named `\(name)` is already at line \(line), column \(column)", at: node.offset,
                            path: casePath + ".name", help: "failures are reported by case name: give each case its own")
                    } else {
                        names[name] = node.offset
                    }
                }
                let at = fields["at"].flatMap { reader.instant($0.value, path: casePath + ".at", dateAlone: true) }
                let caseReceipts = fields["receipts"].flatMap {
                    receiptSources($0.value, path: casePath + ".receipts", file: path, data: data, reader: &reader)
                }
                var expect: JSONNode?
                if let node = fields["expect"]?.value {
                    if case .object = node.value {
                        expect = node
                    } else {
                        reader.wrongType(node, expected: "an object (a part of what `check --format json` prints)", path: casePath + ".expect")
                    }
                }
                var exactly = false
                if let node = fields["exactly"]?.value {
                    if case .bool(let value) = node.value {
                        exactly = value
                    } else {
                        reader.wrongType(node, expected: "`true` or `false`", path: casePath + ".exactly")
                    }
                }
                cases.append(
                    Case(
                        name: name, path: casePath, offset: element.offset, at: at, receipts: caseReceipts,
                        hasOwnReceipts: fields["receipts"] != nil || fields["story"] != nil,
                        story: fields["story"].map { Located(value: $0.value, offset: $0.value.offset, path: casePath + ".story") },
                        expect: expect,
                        storefront: fields["storefront"].flatMap { Self.storefront($0.value, path: casePath + ".storefront", reader: &reader) }
                            ?? storefront,
                        exactly: exactly))
            }
        }
        guard let catalogs else { return (nil, reader.diagnostics) }
        return (
            TestFile(
                path: path, data: data, catalogs: catalogs, app: app, environments: environments,
                receipts: receipts ?? [], story: members["story"].map { Located(value: $0.value, offset: $0.value.offset, path: "story") },
                cases: cases), reader.diagnostics
        )
    }

    /// A `receipts` array: inline receipt objects and receipt paths.
    private static func receiptSources(
        _ node: JSONNode, path: String, file: String, data: Data, reader: inout JSONShapeReader
    ) -> [Located<ReceiptSource>]? {
        guard let elements = reader.array(node, path: path, expected: "an array of receipts") else { return nil }
        var sources: [Located<ReceiptSource>] = []
        for (index, element) in elements.enumerated() {
            let elementPath = "\(path)[\(index)]"
            switch element.value {
            case .object:
                guard let end = JSONDocument.endOfValue(at: element.offset, in: data, limits: .catalog) else { return nil }
                sources.append(Located(value: .inline(start: element.offset, end: end), offset: element.offset, path: elementPath))
            case .string:
                guard let written = reader.nonEmptyString(element, path: elementPath) else { continue }
                sources.append(
                    Located(
                        value: .file(written: written, resolved: TestFiles.resolve(written, relativeTo: file)),
                        offset: element.offset, path: elementPath))
            default:
                reader.wrongType(element, expected: "a receipt object or the path of a receipt file", path: elementPath)
            }
        }
        return sources
    }
}
