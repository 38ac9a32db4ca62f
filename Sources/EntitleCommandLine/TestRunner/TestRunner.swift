import Entitle
import Foundation

/// Runs test files: reads each, compiles the catalogs it names (once per set of catalogs), reads
/// its receipts, checks every case's expectation against the catalog, then evaluates each case
/// and compares. A file with any error runs no case: its errors are reported instead.
struct TestRunner {
    /// A case whose result differs from what it expects, at one expected value.
    struct Failure {
        /// Where the expected value is in the test file.
        var location: SourceLocation
        var caseName: String
        /// The JSON path in the result.
        var path: String
        var expected: JSONOutput
        var actual: JSONOutput

        /// `file:line:column: case NAME: PATH: expected X, got Y`.
        var text: String {
            "\(location): case \(caseName): \(path): expected \(expected.renderedOnOneLine()), got \(actual.renderedOnOneLine())"
                .escapingControlCharacters
        }

        var json: JSONOutput {
            .object([
                ("file", .string(location.file)), ("line", .integer(Int64(location.line))),
                ("column", .integer(Int64(location.column))), ("case", .string(caseName)), ("path", .string(path)),
                ("expected", expected), ("actual", actual),
            ])
        }
    }

    private(set) var passed = 0
    private(set) var failed = 0
    private(set) var failures: [Failure] = []
    /// Errors that kept test files from running (and the catalog diagnostics behind them).
    private(set) var errors: [Diagnostic] = []
    /// Test files that could not be run.
    private(set) var invalidFiles = 0
    /// Per app, in the order apps were first tested.
    private(set) var coverage: [TestCoverage] = []
    /// Whether any receipt was Apple's (unverified) data.
    private(set) var unverifiedFormats: Set<ReceiptFormat> = []
    /// `path: warning: ...` lines from reading Apple's data.
    private(set) var importWarnings: [String] = []
    private var compilations: [String: Compilation] = [:]

    /// Runs every case of the test file at `path`.
    mutating func run(_ path: String) {
        let (read, found) = TestFile.read(path)
        var diagnostics = found
        let prepared = read.flatMap { prepare($0, diagnostics: &diagnostics) }
        errors += Self.inFileOrder(diagnostics, of: path)
        guard let file = read, let prepared, !diagnostics.contains(where: \.isError) else {
            invalidFiles += 1
            return
        }
        var lines: LineTable?
        for (testCase, setup) in zip(file.cases, prepared) {
            guard let name = testCase.name, let at = testCase.at, let expect = testCase.expect else { continue }
            let result: Entitlements
            do {
                result = try setup.portfolio.evaluate(
                    app: setup.app, receipts: setup.receipts, at: at,
                    options: EvaluationOptions(environments: file.environments, storefront: testCase.storefront))
            } catch {
                // Checked when preparing: the portfolio has the app.
                failed += 1
                continue
            }
            record(result)
            let actual: JSONNode
            do {
                var output = result.jsonOutput
                if let asked = ExpectationMatcher.ids(in: expect, key: "consumption"), case .object(var members) = output {
                    members.append(("consumption", Self.consumptionReplies(asked, setup: setup, at: at, environments: file.environments)))
                    output = .object(members)
                }
                if case .object(let asked)? = ExpectationMatcher.member("retention", of: expect)?.value, case .object(var members) = output {
                    members.append(("retention", Self.retentionReplies(asked, setup: setup, at: at, environments: file.environments)))
                    output = .object(members)
                }
                actual = try JSONDocument.parse(Data(output.rendered().utf8), limits: .catalog).root
            } catch {
                failed += 1
                continue
            }
            let mismatches = setup.matcher.mismatches(expect, result: actual, exactly: testCase.exactly)
            if mismatches.isEmpty {
                passed += 1
                continue
            }
            failed += 1
            if lines == nil { lines = LineTable(file.data) }
            for mismatch in mismatches {
                let (line, column) = lines?.location(of: mismatch.offset) ?? (1, 1)
                failures.append(
                    Failure(
                        location: SourceLocation(file: path, line: line, column: column), caseName: name,
                        path: mismatch.path, expected: mismatch.expected, actual: mismatch.actual))
            }
        }
    }

    /// The consumption replies a case asks about, each with the customer's consent, as the
    /// expectation's `consumption` reads them: the reason and the body's fields, or the error.
    private static func consumptionReplies(_ ids: [String], setup: Setup, at: Instant, environments: Set<ReceiptEnvironment>?) -> JSONOutput {
        .object(
            ids.map { id in
                do {
                    let reply = try setup.portfolio.consumptionReply(
                        app: setup.app, transactionId: id, receipts: setup.receipts, at: at, consented: true,
                        options: EvaluationOptions(environments: environments))
                    var members: [(String, JSONOutput)] = [("reason", .string(reply.reason.rawValue))]
                    if case .object(let body)? = reply.body.map(ConsumptionReply.appleOutput) { members += body }
                    return (id, .object(members))
                } catch {
                    return (id, .object([("error", .string((error as? ConsumptionReplyError)?.message ?? "\(error)"))]))
                }
            })
    }

    /// The retention answers a case asks for, one per chain, with the product and locale its
    /// expectation states: the request echoed, the rule, the reason and Apple's body, or the error.
    private static func retentionReplies(_ asked: [JSONMember], setup: Setup, at: Instant, environments: Set<ReceiptEnvironment>?) -> JSONOutput {
        .object(
            asked.filter { $0.key != "$comment" }.map { member in
                func text(_ key: String) -> String? {
                    if case .string(let value)? = ExpectationMatcher.member(key, of: member.value)?.value { value } else { nil }
                }
                let request = RetentionRequest(
                    originalTransactionId: member.key, productId: text("productId") ?? "", userLocale: text("userLocale"),
                    requestIdentifier: "test")
                var members: [(String, JSONOutput)] = [
                    ("productId", .string(request.productId)), ("userLocale", request.userLocale.map(JSONOutput.string) ?? .null),
                ]
                do {
                    let reply = try setup.portfolio.retentionReply(
                        app: setup.app, request: request, receipts: setup.receipts, at: at,
                        options: EvaluationOptions(environments: environments))
                    members += [
                        ("rule", reply.rule.map(JSONOutput.string) ?? .null), ("reason", .string(reply.reason.rawValue)),
                        ("reply", reply.appleOutput ?? .null),
                    ]
                } catch {
                    members.append(("error", .string((error as? RetentionRequestError)?.message ?? "\(error)")))
                }
                return (member.key, .object(members))
            })
    }

    /// What a case needs to run.
    private struct Setup {
        var portfolio: Portfolio
        var app: String
        var receipts: [ParsedReceipt]
        var matcher: ExpectationMatcher
    }

    /// Compiles the catalogs, reads the receipts and checks every expectation; `nil` (with the
    /// errors reported) when anything is wrong. Everything is checked, so one run reports every
    /// problem of the file.
    private mutating func prepare(_ file: TestFile, diagnostics: inout [Diagnostic]) -> [Setup]? {
        var reader = JSONShapeReader(file: file.path, data: file.data)
        defer { diagnostics += reader.diagnostics }
        guard let portfolio = portfolio(for: file, reader: &reader) else { return nil }
        // The app a story is told for: the file's, else the catalogs' only one.
        let storyApp = file.app?.value ?? (portfolio.apps.count == 1 ? portfolio.apps[0] : nil)
        func told(_ story: TestFile.Located<JSONNode>?, reader: inout JSONShapeReader) -> [ParsedReceipt]? {
            guard let story else { return [] }
            guard let storyApp else {
                reader.report(
                    .missingKey, "a story is told for the test file's `app`, and it has none", at: story.offset, path: story.path,
                    help: "add `\"app\": \"com.example.app\"` to the test file")
                return nil
            }
            return Story.receipts(story.value, path: story.path, app: storyApp, portfolio: portfolio, reader: &reader)?.map(ParsedReceipt.init)
        }
        let sharedStory = told(file.story, reader: &reader)
        let shared = receipts(file.receipts, of: file, reader: &reader).flatMap { loaded in sharedStory.map { loaded + $0 } }
        var matchers: [String: ExpectationMatcher] = [:]
        var missingApps: Set<String> = []
        var setups: [Setup] = []
        for testCase in file.cases {
            // Receipts that cannot be read are reported; the expectation is still checked when
            // the app is known.
            var loaded = shared
            if testCase.hasOwnReceipts {
                let own = testCase.receipts.map { receipts($0, of: file, reader: &reader) } ?? []
                let story = told(testCase.story, reader: &reader)
                loaded = own.flatMap { own in story.map { own + $0 } }
            }
            guard let app = file.app?.value ?? loaded?.first?.app else {
                if loaded != nil {
                    reader.report(
                        .missingKey, "no app to evaluate: the test file has no `app` and the case no receipt",
                        at: testCase.offset, path: testCase.path, help: "add `\"app\": \"com.example.app\"` to the test file")
                }
                continue
            }
            guard let catalog = portfolio.catalog(for: app) else {
                if missingApps.insert(app).inserted {
                    reader.report(
                        .unknownApp, "no catalog for app `\(app)` in \(CatalogChecker.list(file.catalogs.value))",
                        at: file.app?.offset ?? testCase.offset, path: file.app?.path ?? testCase.path,
                        help: Suggestion.help(for: app, in: portfolio.apps)
                            ?? "the catalogs are for \(CatalogChecker.list(portfolio.apps))")
                }
                continue
            }
            let matcher = matchers[app] ?? ExpectationMatcher(catalog: catalog)
            matchers[app] = matcher
            if let expect = testCase.expect { matcher.check(expect, path: testCase.path + ".expect", reader: &reader) }
            if let loaded { setups.append(Setup(portfolio: portfolio, app: app, receipts: loaded, matcher: matcher)) }
        }
        guard !reader.hasErrors, setups.count == file.cases.count else { return nil }
        return setups
    }

    /// The compiled catalogs the file names; `nil` when they cannot be read or have errors.
    private mutating func portfolio(for file: TestFile, reader: inout JSONShapeReader) -> Portfolio? {
        let key = file.catalogs.value.joined(separator: "\n")
        let compilation: Compilation
        if let cached = compilations[key] {
            compilation = cached
        } else {
            let (sources, unreadable) = CatalogArguments.sources(file.catalogs.value)
            for problem in unreadable {
                reader.report(
                    .unreadableFile, "catalog `\(problem.location?.file ?? "")`: \(problem.message)",
                    at: file.catalogs.offset, path: file.catalogs.path,
                    help: "catalog paths are relative to the test file's folder")
            }
            guard unreadable.isEmpty else { return nil }
            compilation = Portfolio.compile(sources)
            compilations[key] = compilation
            // The catalogs' own errors, once however many test files name them.
            reader.append(compilation.errors)
        }
        guard let portfolio = compilation.portfolio else {
            reader.report(
                .invalidCatalog,
                "the catalogs have errors (\(EntitleCommand.summary(compilation.diagnostics))), "
                    + "so no case of this file can run", at: file.catalogs.offset, path: file.catalogs.path,
                help: "`entitle validate \(file.catalogs.value.joined(separator: " "))` lists them")
            return nil
        }
        return portfolio
    }

    /// The receipts of a `receipts` array; `nil` when one cannot be read (reported).
    private mutating func receipts(
        _ sources: [TestFile.Located<TestFile.ReceiptSource>], of file: TestFile,
        reader: inout JSONShapeReader
    ) -> [ParsedReceipt]? {
        var receipts: [ParsedReceipt] = []
        var failed = false
        var lines: LineTable?
        for source in sources {
            switch source.value {
            case .inline(let start, let end):
                do {
                    receipts.append(
                        try ParsedReceipt(
                            json: Data(file.data[file.data.startIndex + start..<file.data.startIndex + end]),
                            name: file.path))
                } catch {
                    var diagnostic = error.diagnostic
                    // Located in the receipt's own bytes: move it to where the receipt is in the file.
                    if let location = diagnostic.location {
                        if lines == nil { lines = LineTable(file.data) }
                        let origin = lines!.location(of: start)
                        diagnostic.location = SourceLocation(
                            file: location.file, line: location.line + origin.line - 1,
                            column: location.line == 1 ? location.column + origin.column - 1 : location.column)
                    }
                    diagnostic.path = diagnostic.path.isEmpty ? source.path : source.path + "." + diagnostic.path
                    reader.append([diagnostic])
                    failed = true
                }
            case .file(let written, let resolved):
                do {
                    for loaded in try ReceiptFiles.load(resolved, app: file.app?.value, standardInput: { [] }) {
                        receipts.append(loaded.receipt)
                        if let format = loaded.unverified { unverifiedFormats.insert(format) }
                        importWarnings += loaded.warnings.map { "\(resolved): warning: \($0)" }
                    }
                } catch {
                    failed = true
                    if error.code == .unreadableFile {
                        // Not found where the test file says: point at the test file.
                        let shown = written == resolved ? "" : " (`\(resolved)`)"
                        reader.report(
                            .unreadableFile, "receipt `\(written)`\(shown): \(error.message)", at: source.offset,
                            path: source.path, help: "receipt paths are relative to the test file's folder")
                    } else {
                        reader.append([error.diagnostic])
                    }
                }
            }
        }
        return failed ? nil : receipts
    }

    /// Diagnostics of other files (catalogs, receipt files) first, as found; then the test file's,
    /// in file order.
    static func inFileOrder(_ diagnostics: [Diagnostic], of path: String) -> [Diagnostic] {
        let others = diagnostics.filter { $0.location?.file != path }
        let own = diagnostics.enumerated().filter { $0.element.location?.file == path }.sorted { a, b in
            let left = a.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            let right = b.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            return left != right ? left < right : a.offset < b.offset
        }.map(\.element)
        return others + own
    }

    private mutating func record(_ result: Entitlements) {
        if let index = coverage.firstIndex(where: { $0.app == result.app }) {
            coverage[index].record(result)
        } else {
            var added = TestCoverage(catalog: result.catalog)
            added.record(result)
            coverage.append(added)
        }
    }
}
