import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

@Suite("Command line: validate --format")
struct ValidateFormatTests {
    /// A catalog with one typo (an error, with help) and a feature nothing grants (a warning).
    static let typo = """
        {
          "app": "com.example.typo",
          "features": { "pro": "Pro", "extra": "Extra" },
          "products": [
            { "id": "com.example.typo.pro", "type": "non-consumable", "name": "Pro", "grants": ["pr0"] }
          ]
        }
        """

    /// Runs `body` with a new directory and the path of the typo catalog written to it.
    static func withTypoCatalog(_ body: (URL, String) throws -> Void) throws {
        try Fixtures.withTemporaryDirectory("entitle-formats") { directory in
            let file = directory.appendingPathComponent("typo.json")
            try Data(typo.utf8).write(to: file)
            try body(directory, file.path)
        }
    }

    /// `validate --format FORMAT` of the typo catalog, checked for what every format but text
    /// shares (it fails, with the summary alone on standard error); `body` gets the output and the
    /// catalog's path.
    static func validateTypo(
        format: String, sourceLocation: Testing.SourceLocation = #_sourceLocation, _ body: (CommandOutput, String) throws -> Void
    ) throws {
        try withTypoCatalog { _, file in
            let output = validate(["--format", format, file])
            #expect(output.exitCode == 1, sourceLocation: sourceLocation)
            #expect(output.standardError == "entitle: 1 catalog checked: 1 error, 1 warning\n", sourceLocation: sourceLocation)
            try body(output, file)
        }
    }

    static func validate(_ arguments: [String]) -> CommandOutput {
        EntitleCommand.run(["validate"] + arguments, environment: CLITests.environment())
    }

    @Test("text, the default, prints diagnostics and the summary on standard error and nothing on standard output")
    func text() throws {
        try Self.withTypoCatalog { _, file in
            let output = Self.validate([file])
            #expect(output.exitCode == 1)
            #expect(output.standardOutput.isEmpty)
            #expect(
                output.standardError == """
                    \(file):3:31: warning: features.extra: feature `extra` is declared but no product grants it
                    \(file):5:89: error: products[0].grants[0]: undeclared feature `pr0`
                      help: did you mean `pro`?
                    entitle: 1 catalog checked: 1 error, 1 warning

                    """)
            #expect(Self.validate(["--format", "text", file]) == output)
            #expect(Self.validate(["--format=text", file]) == output)
        }
    }

    @Test("json prints an array of located diagnostics on standard output, the summary on standard error")
    func json() throws {
        try Self.validateTypo(format: "json") { output, file in
            let array = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [[String: Any]])
            #expect(array.count == 2)
            let error = try #require(array.first { $0["severity"] as? String == "error" })
            #expect(Set(error.keys) == ["file", "line", "column", "severity", "code", "path", "message", "help", "fixes"])
            #expect(error["file"] as? String == file)
            #expect(error["line"] as? Int == 5)
            #expect(error["column"] as? Int == 89)
            #expect(error["code"] as? String == "undeclared-feature")
            #expect(error["path"] as? String == "products[0].grants[0]")
            #expect(error["message"] as? String == "undeclared feature `pr0`")
            #expect(error["help"] as? String == "did you mean `pro`?")
            // The did-you-mean as an edit: the quoted `"pr0"` (line 5, column 89) replaced by `"pro"`.
            let fixes = try #require(error["fixes"] as? [[String: Any]])
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let start = try #require(fixes.first?["start"] as? Int)
            let end = try #require(fixes.first?["end"] as? Int)
            #expect(fixes.count == 1 && fixes[0]["replacement"] as? String == #""pro""#)
            #expect(String(decoding: Array(text.utf8)[start..<end], as: UTF8.self) == #""pr0""#)
            let warning = try #require(array.first { $0["severity"] as? String == "warning" })
            #expect(warning["code"] as? String == "unused-feature")
            #expect(warning["help"] is NSNull, "no help is null, not missing")
            #expect(warning["fixes"] == nil, "no guess, no fixes")

            // A valid catalog prints an empty array and exits 0.
            let valid = Self.validate(["--format", "json", CLITests.products])
            #expect(valid.exitCode == 0)
            #expect(try JSONSerialization.jsonObject(with: Data(valid.standardOutput.utf8)) as? [Any] != nil)
            #expect(valid.standardOutput == "[]\n")
        }
    }

    @Test("json gives null file, line and column to a diagnostic without a location")
    func jsonWithoutLocation() throws {
        let diagnostic = Diagnostic(severity: .error, code: .unknownApp, message: "no catalogs")
        let text = DiagnosticFormat.json.standardOutput([diagnostic])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(array.count == 1)
        #expect(array[0]["file"] is NSNull)
        #expect(array[0]["line"] is NSNull)
        #expect(array[0]["column"] is NSNull)
        #expect(array[0]["code"] as? String == "unknown-app")
    }

    @Test("github prints one workflow command per diagnostic, the summary on standard error")
    func github() throws {
        try Self.validateTypo(format: "github") { output, file in
            #expect(
                output.standardOutput == """
                    ::warning file=\(file),line=3,col=31,title=entitle unused-feature::features.extra: feature `extra` is declared but no product grants it
                    ::error file=\(file),line=5,col=89,title=entitle undeclared-feature::products[0].grants[0]: undeclared feature `pr0`%0Ahelp: did you mean `pro`?

                    """)
        }
    }

    @Test("github escapes % and newlines in messages, and : and , in properties too")
    func githubEscaping() {
        let diagnostic = Diagnostic(
            severity: .note, code: .unknownApp, message: "50% off, today: 100%\r\nreally",
            location: SourceLocation(file: "C:/cat,alogs/a%b.json", line: 7, column: 3), path: "a.b",
            help: "first line\nsecond: line, with 1%")
        #expect(
            GitHubAnnotations.render([diagnostic]) == "::notice file=C%3A/cat%2Calogs/a%25b.json,line=7,col=3,title=entitle unknown-app::"
                + "a.b: 50%25 off, today: 100%25%0D%0Areally%0Ahelp: first line%0Asecond: line, with 1%25\n")
        let unlocated = Diagnostic(severity: .warning, code: .badValue, message: "m")
        #expect(GitHubAnnotations.render([unlocated]) == "::warning title=entitle bad-value::m\n")
    }

    @Test("sarif prints a SARIF 2.1.0 log: the tool, a rule per code used, located results")
    func sarif() throws {
        try Self.validateTypo(format: "sarif") { output, file in
            let log = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
            #expect(log["version"] as? String == "2.1.0")
            #expect(log["$schema"] as? String == "https://json.schemastore.org/sarif-2.1.0.json")
            let runs = try #require(log["runs"] as? [[String: Any]])
            #expect(runs.count == 1)
            let driver = try #require((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])
            #expect(driver["name"] as? String == "entitle")
            #expect(driver["version"] as? String == EntitleCommand.version)
            let rules = try #require(driver["rules"] as? [[String: Any]])
            #expect(rules.compactMap { $0["id"] as? String } == ["unused-feature", "undeclared-feature"])
            #expect((rules[1]["shortDescription"] as? [String: Any])?["text"] as? String == "a grant of a feature the catalog does not declare")
            let results = try #require(runs[0]["results"] as? [[String: Any]])
            #expect(results.count == 2)
            let error = results[1]
            #expect(error["ruleId"] as? String == "undeclared-feature")
            #expect(error["ruleIndex"] as? Int == 1)
            #expect(error["level"] as? String == "error")
            #expect(
                (error["message"] as? [String: Any])?["text"] as? String
                    == "products[0].grants[0]: undeclared feature `pr0`\nhelp: did you mean `pro`?")
            let location = try #require((error["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
            #expect((location["artifactLocation"] as? [String: Any])?["uri"] as? String == "file://" + file)
            let region = try #require(location["region"] as? [String: Any])
            #expect(region["startLine"] as? Int == 5)
            #expect(region["startColumn"] as? Int == 89)
            #expect(results[0]["level"] as? String == "warning")

            let valid = Self.validate(["--format", "sarif", CLITests.products])
            #expect(valid.exitCode == 0)
            let empty = try #require(try JSONSerialization.jsonObject(with: Data(valid.standardOutput.utf8)) as? [String: Any])
            #expect(((empty["runs"] as? [[String: Any]])?.first?["results"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(
        "sarif keeps a relative path relative and percent-encodes what a URI cannot hold",
        arguments: [
            ("products/diagrams.json", "products/diagrams.json"),
            ("my catalogs/a#1.json", "my%20catalogs/a%231.json"),
            ("/tmp/x:y.json", "file:///tmp/x%3Ay.json"),
            ("café.json", "caf%C3%A9.json"),
        ])
    func sarifURI(_ path: String, uri: String) {
        #expect(SARIFLog.uri(path) == uri)
    }

    @Test("notes are SARIF notes and GitHub notices")
    func levels() {
        #expect(SARIFLog.level(.note) == "note")
        #expect(GitHubAnnotations.command(for: Diagnostic(severity: .note, code: .unknownApp, message: "m")).hasPrefix("::notice "))
    }

    @Test("a directory's *.test.json files are tests, not catalogs")
    func testFilesAreNotCatalogs() throws {
        let directory = try CLITests.catalogDirectory(extra: ["diagrams.test.json": #"{ "catalog": ".", "cases": [] }"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Self.validate([directory.path])
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardError == "entitle: 6 catalogs valid: 0 errors, 0 warnings\n")
        let check = EntitleCommand.run(
            ["check", "--catalog", directory.path, "--receipt", CLITests.receipt("diagrams-trial.json"), "--at", "2026-01-10T00:00:00Z"],
            environment: CLITests.environment())
        #expect(check.exitCode == 0)
        #expect(check.standardError.isEmpty, "\(check.standardError)")
        // Named on its own, a file is read as what it was named as.
        let named = Self.validate([directory.appendingPathComponent("diagrams.test.json").path])
        #expect(named.exitCode == 1)
    }
}

@Suite("Command line: --diagnostics on check, explain, diff and test")
struct DiagnosticsOptionTests {
    static func run(_ arguments: [String]) -> CommandOutput {
        EntitleCommand.run(arguments, environment: CLITests.environment())
    }

    static let receipt = #"{"app": "com.example.typo", "transactions": []}"#

    @Test("`github` prints the catalog's errors as workflow commands on standard error, for check, explain and diff")
    func github() throws {
        try ValidateFormatTests.withTypoCatalog { directory, file in
            let receipt = directory.appendingPathComponent("receipt.json.txt")
            try Data(Self.receipt.utf8).write(to: receipt)
            for command in [["check"], ["explain"]] {
                let output = Self.run(command + ["--catalog", file, "--receipt", receipt.path, "--at", "2026-01-01", "--diagnostics", "github"])
                #expect(output.exitCode == 1)
                #expect(output.standardError.contains("::error file=\(file),line=5,col="), "\(command): \(output.standardError)")
                #expect(output.standardError.contains("title=entitle undeclared-feature::"))
                #expect(!output.standardError.contains("\(file):5:"), "the text form is replaced, not repeated")
            }
            let diff = Self.run(["diff", file, file, "--diagnostics", "github"])
            #expect(diff.exitCode == 1)
            #expect(diff.standardError.components(separatedBy: "::error file=").count == 3, "one annotation per version")
        }
    }

    @Test("`sarif` and `json` need a file; the file holds one document, written even when nothing is wrong")
    func documents() throws {
        try ValidateFormatTests.withTypoCatalog { directory, file in
            let misuse = Self.run(["diff", file, file, "--diagnostics", "sarif"])
            #expect(misuse.exitCode == 2)
            #expect(misuse.standardError.contains("give `--diagnostics-file FILE` too"))
            let wrong = Self.run(["diff", file, file, "--diagnostics", "sarf"])
            #expect(wrong.exitCode == 2)
            #expect(wrong.standardError.contains("did you mean `sarif`?"))

            let sarif = directory.appendingPathComponent("out.sarif").path
            let output = Self.run(["diff", file, file, "--diagnostics", "sarif", "--diagnostics-file", sarif])
            #expect(output.exitCode == 1)
            let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sarif))) as? [String: Any])
            #expect(log["version"] as? String == "2.1.0")
            let results = ((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
            #expect(results.count == 4, "an error and a warning, in each version")
            #expect(output.standardError.contains("\(file):5:"), "people still read the text on standard error")

            // A clean catalog still gets its (empty) document.
            let clean = Fixtures.packageRoot.appendingPathComponent("products").path
            let json = directory.appendingPathComponent("out.json").path
            let passing = Self.run(["diff", clean, clean, "--diagnostics", "json", "--diagnostics-file", json])
            #expect(passing.exitCode == 0)
            #expect(try String(contentsOfFile: json, encoding: .utf8) == "[]\n")
        }
    }

    @Test("`entitle test` reports a test file's catalog errors in the chosen format")
    func testCommand() throws {
        try ValidateFormatTests.withTypoCatalog { directory, file in
            let test = directory.appendingPathComponent("typo.test.json")
            try Data(
                #"{"catalog": "typo.json", "app": "com.example.typo", "receipts": [], "cases": [{"name": "x", "at": "2026-01-01T00:00:00Z", "expect": {}}]}"#
                    .utf8
            )
            .write(to: test)
            let output = Self.run(["test", test.path, "--diagnostics", "github"])
            #expect(output.exitCode == 2)
            #expect(output.standardError.contains("::error file=\(file),line=5,col="), "\(output.standardError)")
        }
    }
}
