import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

@Suite("Command line: entitle test")
struct TestCommandTests {
    static func test(_ arguments: [String]) -> CommandOutput {
        EntitleCommand.run(["test"] + arguments, environment: CLITests.environment())
    }

    /// A new directory holding `files` (path relative to it → text); the caller removes it.
    static func directory(_ files: [String: String]) throws -> URL {
        let directory = Fixtures.scratch("entitle-test")
        for (name, text) in files {
            let url = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return directory
    }

    /// The 1-based line and column of the first `needle` in `text` (columns in characters).
    static func location(of needle: String, in text: String) -> (line: Int, column: Int) {
        guard let range = text.range(of: needle) else { return (0, 0) }
        let before = text[..<range.lowerBound]
        let line = before.filter { $0 == "\n" }.count + 1
        let lineStart = before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex
        return (line, before.distance(from: lineStart, to: range.lowerBound) + 1)
    }

    static var products: String { CLITests.products }

    /// A test file on the Diagrams trial receipt: one case that passes, one that fails at
    /// `"enabled": true`.
    static var trialFile: String {
        """
        {
          "catalog": "\(products)",
          "app": "com.example.diagrams",
          "receipts": ["\(CLITests.receipt("diagrams-trial.json"))"],
          "cases": [
            { "name": "last millisecond of the trial", "at": "2026-01-15T08:59:59.999Z",
              "expect": { "features": { "export.pdf": { "enabled": true, "until": "2026-01-15T09:00:00.000Z" } } } },
            { "name": "trial over", "at": "2026-01-15T09:00:00Z",
              "expect": { "features": { "export.pdf": { "enabled": true, "until": null } }, "balances": { "stencils": 13 } } }
          ]
        }
        """
    }

    @Test("the example test files in products/ pass, every case of them")
    func examples() throws {
        let output = Self.test([Self.products])
        #expect(output.exitCode == 0, "\(output.standardOutput)\(output.standardError)")
        // Stripe's and Play's example data is read as given, and says so; nothing else.
        #expect(output.standardError == ReceiptFiles.notices([.stripe, .play]))
        var cases = 0
        for name in ["diagrams.test.json", "starquest.test.json", "atelier.test.json", "quill.test.json"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: Self.products).appendingPathComponent(name))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            cases += (object["cases"] as? [Any])?.count ?? 0
        }
        #expect(cases >= 16)
        #expect(output.standardOutput == "\(cases) passed, 0 failed\n")
    }

    @Test(
        "promotions are matched by id, only those listed and only the keys given; `exactly` compares the list whole; coverage names promotions never eligible"
    )
    func promotionsById() throws {
        func file(_ promotions: String, exactly: Bool = false) -> String {
            """
            { "catalog": "\(Self.products)", "app": "com.example.diagrams",
              "receipts": ["\(CLITests.receipt("diagrams-sync-history.json"))"],
              "cases": [ { "name": "loyal", "at": "2025-07-31T00:00:00Z", \(exactly ? "\"exactly\": true," : "")
                "expect": { "offers": { "com.example.diagrams.sync.monthly": { "promotions": \(promotions) } } } } ] }
            """
        }
        let cases = [
            (file(#"[{ "id": "sync.loyal", "eligible": true }]"#), 0, "1 passed, 0 failed"),
            (file(#"[{ "id": "sync.loyal", "eligible": false }]"#), 1, "promotions[sync.loyal].eligible: expected false, got true"),
            (file(#"[{ "id": "sync.loyal", "eligible": true }]"#, exactly: true), 1, "promotions: expected [{"),
        ]
        for (text, exitCode, expected) in cases {
            let directory = try Self.directory(["promotions.test.json": text])
            defer { try? FileManager.default.removeItem(at: directory) }
            let output = Self.test([directory.appendingPathComponent("promotions.test.json").path])
            #expect(output.exitCode == Int32(exitCode), "\(output.standardOutput)\(output.standardError)")
            #expect(output.standardOutput.contains(expected), "\(output.standardOutput)")
        }
        // An entry without an id cannot be matched: an error in the test file.
        let directory = try Self.directory(["promotions.test.json": file(#"[{ "eligible": true }]"#)])
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Self.test([directory.appendingPathComponent("promotions.test.json").path])
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("missing required key `id` in promotion"), "\(output.standardError)")
        // Coverage: at that instant only the loyalty offer is eligible.
        let covered = try Self.directory(["promotions.test.json": file(#"[{ "id": "sync.loyal", "eligible": true }]"#)])
        defer { try? FileManager.default.removeItem(at: covered) }
        let coverage = Self.test([covered.appendingPathComponent("promotions.test.json").path, "--coverage"])
        #expect(coverage.standardOutput.contains("  promotions never eligible: sync.winback\n"), "\(coverage.standardOutput)")
    }

    @Test("a failing case prints file:line:column of the expected value, the path, expected and got; exit 1")
    func failure() throws {
        let directory = try Self.directory(["trial.test.json": Self.trialFile])
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("trial.test.json").path
        let output = Self.test([file])
        #expect(output.exitCode == 1)
        #expect(output.standardError.isEmpty, "\(output.standardError)")
        // The second case's `"enabled": true`: the first in the file is the passing case's.
        let text = Self.trialFile
        let secondCase = try #require(text.range(of: "\"trial over\""))
        let value = try #require(text.range(of: "true", range: secondCase.upperBound..<text.endIndex))
        let (line, column) = Self.location(of: String(text[value.lowerBound...]), in: text)
        #expect(
            output.standardOutput == """
                \(file):\(line):\(column): case trial over: features["export.pdf"].enabled: expected true, got false
                1 passed, 1 failed

                """)
    }

    @Test("every difference of a case is printed; the case counts once")
    func severalDifferences() throws {
        let text = Self.trialFile.replacingOccurrences(of: "\"stencils\": 13", with: "\"stencils\": 12")
        let directory = try Self.directory(["trial.test.json": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Self.test([directory.path])
        #expect(output.exitCode == 1)
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(output.standardOutput)")
        #expect(lines.first?.hasSuffix("features[\"export.pdf\"].enabled: expected true, got false") == true)
        #expect(lines.dropFirst().first?.hasSuffix("case trial over: balances.stencils: expected 12, got 13") == true)
        #expect(lines.last == "1 passed, 1 failed")
    }

    @Test("a case name with a line break cannot fake an output line (a CI workflow command): it is printed escaped")
    func injectedCaseName() throws {
        let text = Self.trialFile.replacingOccurrences(
            of: "\"trial over\"", with: #""x\n::error file=README.md,line=1::INJECTED\n9 passed, 0 failed\u001b[2J""#)
        let directory = try Self.directory(["trial.test.json": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Self.test([directory.path])
        let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 3, "\(output.standardOutput)")
        #expect(!lines.contains { $0.hasPrefix("::") })
        #expect(lines[0].contains(#"case x\n::error file=README.md,line=1::INJECTED\n9 passed, 0 failed\u{1B}[2J: features"#), "\(lines[0])")
        #expect(lines[1] == "1 passed, 1 failed")
        #expect("plain".escapingControlCharacters == "plain")
        #expect("tab\tDEL\u{7F}C1\u{85}".escapingControlCharacters == #"tab\tDEL\u{7F}C1\u{85}"#)
    }

    @Test("--format json prints passed, failed, failures with expected and actual as JSON values, and errors")
    func json() throws {
        let directory = try Self.directory(["trial.test.json": Self.trialFile])
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("trial.test.json").path
        let output = Self.test([file, "--format", "json"])
        #expect(output.exitCode == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["passed", "failed", "failures", "errors"])
        #expect(object["passed"] as? Int == 1)
        #expect(object["failed"] as? Int == 1)
        #expect((object["errors"] as? [Any])?.isEmpty == true)
        let failures = try #require(object["failures"] as? [[String: Any]])
        #expect(failures.count == 1)
        let failure = try #require(failures.first)
        #expect(failure["file"] as? String == file)
        #expect(failure["line"] as? Int == 9)
        #expect(failure["case"] as? String == "trial over")
        #expect(failure["path"] as? String == "features[\"export.pdf\"].enabled")
        #expect(failure["expected"] as? Bool == true)
        #expect(failure["actual"] as? Bool == false)
        #expect(failure["column"] as? Int ?? 0 > 1)
    }

    @Test("--coverage lists per app what no case exercised")
    func coverage() throws {
        let directory = try Self.directory(["trial.test.json": Self.trialFile])
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Self.test([directory.path, "--coverage"])
        #expect(
            output.standardOutput.hasSuffix(
                """
                coverage of com.example.diagrams (2 cases)
                  products never purchased: com.example.diagrams.pro, com.example.diagrams.pro.upgrade, stripe:prod_DiagramsProYearly, play:pro:yearly
                  features never off: pro, cloud.sync
                  offer reasons never seen: subscribed-elsewhere, billing-issue, upgrade-available
                  promotions never eligible: sync.winback, sync.loyal
                1 passed, 1 failed

                """), "\(output.standardOutput)")
        let json = Self.test([directory.path, "--coverage", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let app = try #require((object["coverage"] as? [String: Any])?["com.example.diagrams"] as? [String: Any])
        #expect(app["cases"] as? Int == 2)
        #expect(
            app["productsNeverPurchased"] as? [String] == [
                "com.example.diagrams.pro", "com.example.diagrams.pro.upgrade", "stripe:prod_DiagramsProYearly", "play:pro:yearly",
            ])
        #expect(app["featuresNeverOn"] as? [String] == [])
        #expect(app["featuresNeverOff"] as? [String] == ["pro", "cloud.sync"])
        #expect(app["promotionsNeverEligible"] as? [String] == ["sync.winback", "sync.loyal"])
        #expect(app["offerReasonsNeverSeen"] as? [String] == ["subscribed-elsewhere", "billing-issue", "upgrade-available"])
        // The example test files leave little out.
        let examples = Self.test([Self.products, "--coverage"])
        #expect(examples.standardOutput.contains("coverage of com.example.starquest ("))
        #expect(!examples.standardOutput.contains("features never"), "\(examples.standardOutput)")
    }

    @Test("a wrong key in expect is an error located at the key, with did-you-mean, and no case runs: exit 2")
    func wrongKey() throws {
        let text = Self.trialFile.replacingOccurrences(
            of: "\"features\": { \"export.pdf\": { \"enabled\": true, \"until\": null } }",
            with: "\"feature\": { \"export.pdf\": { \"enabled\": true } }")
        #expect(text != Self.trialFile)
        let directory = try Self.directory(["trial.test.json": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("trial.test.json").path
        let output = Self.test([file])
        #expect(output.exitCode == 2)
        #expect(output.standardOutput == "0 passed, 0 failed\n", "the valid case does not run either")
        let (line, column) = Self.location(of: "\"feature\"", in: text)
        #expect(
            output.standardError == """
                \(file):\(line):\(column): error: cases[1].expect.feature: unknown key `feature` in expect
                  help: did you mean `features`?
                entitle: 1 test file could not be run

                """)
    }

    @Test("an id the catalog does not declare, a consumable under products, a bad state and a bad instant are located errors")
    func unknownIds() throws {
        let text = """
            {
              "catalog": "\(Self.products)",
              "app": "com.example.diagrams",
              "cases": [
                { "name": "new customer", "at": "2026-01-01",
                  "expect": { "features": { "export.pfd": { "enabled": false } },
                              "products": { "com.example.diagrams.stencils.10": {},
                                            "com.example.diagrams.pro": { "state": "owned", "until": "2026-13-01T00:00:00Z" } } } }
              ]
            }
            """
        let directory = try Self.directory(["ids.test.json": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ids.test.json").path
        let output = Self.test([file, "--format", "json"])
        #expect(output.exitCode == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        let errors = try #require(object["errors"] as? [[String: Any]])
        #expect(errors.compactMap { $0["code"] as? String } == ["unknown-key", "key-not-allowed", "bad-enum-value", "bad-instant"])
        #expect(errors.first?["path"] as? String == "cases[0].expect.features[\"export.pfd\"]")
        #expect(errors.first?["message"] as? String == "`export.pfd` is not a feature of `com.example.diagrams`")
        #expect(errors.first?["help"] as? String == "did you mean `export.pdf`?")
        let (line, column) = Self.location(of: "\"export.pfd\"", in: text)
        #expect(errors.first?["line"] as? Int == line)
        #expect(errors.first?["column"] as? Int == column)
        #expect(errors.first?["file"] as? String == file)
        #expect((errors[2]["help"] as? String)?.contains("`not-purchased`") == true)
        #expect((errors[3]["message"] as? String)?.contains("month 13 does not exist") == true, "\(errors[3])")
        #expect(object["passed"] as? Int == 0)
    }

    @Test("a receipt path that cannot be read is located at the path in the test file: exit 2")
    func unreadableReceipt() throws {
        let text = """
            {
              "catalog": "\(Self.products)",
              "receipts": ["receipts/missing.json"],
              "cases": [ { "name": "x", "at": "2026-01-01", "expect": {} } ]
            }
            """
        let directory = try Self.directory(["missing.test.json": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("missing.test.json").path
        let output = Self.test([file])
        #expect(output.exitCode == 2)
        let resolved = directory.appendingPathComponent("receipts/missing.json").path
        #expect(
            output.standardError == """
                \(file):3:16: error: receipts[0]: receipt `receipts/missing.json` (`\(resolved)`): no such receipt file
                  help: receipt paths are relative to the test file's folder
                entitle: 1 test file could not be run

                """)
    }

    @Test("receipts written in the test file: an error in one is located in the test file")
    func inlineReceiptError() throws {
        let text = """
            {
              "catalog": "\(Self.products)",
              "cases": [ { "name": "x", "at": "2026-01-01", "expect": {},
                           "receipts": [ { "app": "com.example.diagrams", "transactions": [ { "productId": "p" } ] } ] } ]
            }
            """
        let directory = try Self.directory(["inline.test.json": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("inline.test.json").path
        let output = Self.test([file])
        #expect(output.exitCode == 2)
        let (line, column) = Self.location(of: "{ \"productId\"", in: text)
        #expect(
            output.standardError.hasPrefix(
                "\(file):\(line):\(column): error: cases[0].receipts[0].transactions[0]: missing required key `transactionId` in transaction\n"),
            "\(output.standardError)")
    }

    @Test("malformed JSON, a missing `cases`, a duplicate case name and catalogs with errors make a test file that cannot run")
    func invalidFiles() throws {
        let broken = #"{ "app": "com.example.broken", "features": {}, "products": "oops" }"#
        let directory = try Self.directory([
            "a/malformed.test.json": "{ \"catalog\": \"x\", }",
            "b/nocases.test.json": "{ \"catalog\": \"\(Self.products)\" }",
            "c/twice.test.json": """
            { "catalog": "\(Self.products)", "app": "com.example.diagrams",
              "cases": [ { "name": "x", "at": "2026-01-01", "expect": {} }, { "name": "x", "at": "2026-01-02", "expect": {} } ] }
            """,
            "d/broken.json": broken,
            "d/broken.test.json":
                #"{ "catalog": "broken.json", "app": "com.example.broken", "cases": [ { "name": "x", "at": "2026-01-01", "expect": {} } ] }"#,
            ".hidden/never.test.json": "not even JSON",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Self.test([directory.path])
        #expect(output.exitCode == 2)
        #expect(output.standardOutput == "0 passed, 0 failed\n")
        let error = output.standardError
        #expect(error.contains("a/malformed.test.json:1:17: error: trailing comma before `}`"), "\(error)")
        #expect(error.contains("b/nocases.test.json:1:1: error: missing required key `cases` in test file"))
        // The two names' values on line 2: columns 24 and 75.
        #expect(error.contains("c/twice.test.json:2:75: error: cases[1].name: a case named `x` is already at line 2, column 24"))
        #expect(error.contains("d/broken.json:1:60: error: products: expected"), "\(error)")
        #expect(
            error.contains("d/broken.test.json:1:14: error: catalog: the catalogs have errors (1 error, 0 warnings), so no case of this file can run")
        )
        #expect(!error.contains("never.test.json"), "hidden folders are skipped")
        #expect(error.hasSuffix("entitle: 4 test files could not be run\n"))
    }

    @Test("a path with no test files, a bad --format and an unknown option are misuse")
    func misuse() throws {
        let nothing = Self.test(["/nonexistent-entitle-tests"])
        #expect(nothing.exitCode == 2)
        #expect(nothing.standardError.hasPrefix("/nonexistent-entitle-tests:1:1: error: no such file or directory\n"))
        let empty = try Self.directory(["readme.txt": "no tests here"])
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(Self.test([empty.path]).standardError.hasPrefix("\(empty.path):1:1: error: directory has no `*.test.json` test files\n"))
        let format = Self.test([Self.products, "--format", "jsn"])
        #expect(format.exitCode == 2)
        #expect(
            format.standardError == "entitle test: `--format` must be `text` or `json`, not `jsn`; did you mean `json`?\n"
                + "run 'entitle test --help' for usage\n")
        #expect(Self.test(["--coverag"]).standardError.hasPrefix("entitle test: unknown option `--coverag`; did you mean `--coverage`?\n"))
        #expect(EntitleCommand.run(["help", "test"], environment: CLITests.environment()).standardOutput.hasPrefix("usage: entitle test"))
    }

    @Test("the example test file of the command line article passes")
    func manualExample() throws {
        let section = try #require(DocumentationTests.section("Tests beside the catalogs: `entitle test`", of: "CommandLine"))
        let start = try #require(section.range(of: "```json\n"))
        let end = try #require(section.range(of: "\n```", range: start.upperBound..<section.endIndex))
        let example = String(section[start.upperBound..<end.lowerBound])
        #expect(example.contains("\"catalog\": \"../products\""))
        // Saved as products/trial.test.json, as the article says: a folder `products` holding it,
        // the example catalogs and their receipts (linked, so products/ itself is untouched).
        let directory = try Self.directory(["products/trial.test.json": example])
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("products")
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.products) where !name.hasSuffix(".test.json") {
            try FileManager.default.createSymbolicLink(
                atPath: copy.appendingPathComponent(name).path,
                withDestinationPath: Self.products + "/" + name)
        }
        let output = Self.test([copy.appendingPathComponent("trial.test.json").path])
        #expect(output.exitCode == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput == "2 passed, 0 failed\n")
    }

    @Test("catalog may be an array of files, environments filters receipts as check --environment does")
    func catalogsAndEnvironments() throws {
        let text = """
            {
              "catalog": ["\(Self.products)/diagrams.json", "\(Self.products)/diagrams6.json"],
              "app": "com.example.diagrams",
              "environments": ["production"],
              "receipts": [
                { "app": "com.example.diagrams", "environment": "sandbox",
                  "transactions": [ { "productId": "com.example.diagrams.pro", "transactionId": "1", "purchaseDate": "2026-01-01T00:00:00Z" } ] },
                "\(CLITests.receipt("diagrams6-owner.json"))"
              ],
              "cases": [
                { "name": "the sandbox purchase is ignored; the Diagrams 6 receipt counts", "at": "2026-01-02",
                  "expect": { "features": { "pro": { "enabled": false } },
                              "offers": { "com.example.diagrams.pro.upgrade": { "eligible": true } } } }
              ]
            }
            """
        let directory = try Self.directory(["environments.test.json": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Self.test([directory.path, "--format", "json"])
        #expect(output.exitCode == 0, "\(output.standardOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        #expect(object["passed"] as? Int == 1)
        // Without the filter, the sandbox purchase turns Pro on.
        let unfiltered = text.replacingOccurrences(of: "\"environments\": [\"production\"],", with: "")
        #expect(unfiltered != text)
        let other = try Self.directory(["environments.test.json": unfiltered])
        defer { try? FileManager.default.removeItem(at: other) }
        let failing = Self.test([other.path])
        #expect(failing.exitCode == 1)
        #expect(failing.standardOutput.contains(": features.pro.enabled: expected false, got true\n"), "\(failing.standardOutput)")
    }

    @Test(
        "paths in test files are taken from the test file's folder",
        arguments: [
            ("products/diagrams.test.json", ".", "products"),
            ("products/diagrams.test.json", "../products", "products"),
            ("diagrams.test.json", "receipts/a.json", "receipts/a.json"),
            ("/repo/products/x.test.json", "../../other/c.json", "/other/c.json"),
            ("a/b/x.test.json", "../../../c", "../c"),
            ("x.test.json", "/abs/path", "/abs/path"),
        ])
    func resolve(_ file: String, path: String, resolved: String) {
        #expect(TestFiles.resolve(path, relativeTo: file) == resolved)
    }

    @Test("expected instants are compared as instants, null matches a key the result leaves out")
    func matching() throws {
        func node(_ text: String) throws -> JSONNode { try JSONDocument.parse(Data(text.utf8), limits: .catalog).root }
        #expect(ExpectationMatcher.sameInstant(try node(#""2026-01-15T09:00:00.000Z""#), try node(#""2026-01-15T09:00:00Z""#)))
        #expect(ExpectationMatcher.sameInstant(try node(#""2026-01-15T10:00:00+01:00""#), try node(#""2026-01-15T09:00:00Z""#)))
        #expect(!ExpectationMatcher.sameInstant(try node(#""2026-01-15T09:00:00.001Z""#), try node(#""2026-01-15T09:00:00Z""#)))
        #expect(!ExpectationMatcher.sameInstant(try node("null"), try node(#""2026-01-15T09:00:00Z""#)))
        #expect(ExpectationMatcher.sameInstant(try node("null"), nil))
        #expect(ExpectationMatcher.equal(try node("null"), nil))
        #expect(ExpectationMatcher.equal(try node(#"{"a": 1, "b": [true]}"#), try node(#"{"b": [true], "a": 1}"#)))
        #expect(!ExpectationMatcher.equal(try node(#"["a", "b"]"#), try node(#"["b", "a"]"#)), "arrays in order")
        #expect(!ExpectationMatcher.equal(try node(#"{"a": 1}"#), try node(#"{"a": 1, "b": 2}"#)), "objects in arrays whole")
        #expect(!ExpectationMatcher.equal(try node("false"), nil))
    }
}
