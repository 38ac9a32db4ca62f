import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

@Suite("Command line")
struct CLITests {
    static func environment(stdin: String = "", now: String = "2026-01-15T09:00:00Z") -> CommandEnvironment {
        let bytes = Array(stdin.utf8)
        let instant = Instant(rfc3339: now)!
        return CommandEnvironment(readStandardInput: { bytes }, now: { instant })
    }

    /// Runs the command line in the default test environment (``environment(stdin:now:)``).
    static func run(_ arguments: [String]) -> CommandOutput {
        EntitleCommand.run(arguments, environment: environment())
    }

    static var products: String { Fixtures.productsDirectory }
    static func receipt(_ name: String) -> String { Fixtures.packageRoot.appendingPathComponent("products/receipts/\(name)").path }

    @Test("check prints features first, aligned, with why and until when")
    func checkText() {
        let output = Self.run(["check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-01-10T00:00:00Z"])
        #expect(output.exitCode == 0)
        let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "com.example.diagrams at 2026-01-10T00:00:00Z")
        #expect(lines[2] == "features")
        #expect(lines[3] == "  pro         on   until 2026-01-15T09:00:00Z  from com.example.diagrams.trial")
        #expect(lines[4] == "  export.pdf  on   until 2026-01-15T09:00:00Z  from com.example.diagrams.trial")
        #expect(lines[5] == "  cloud.sync  on   until 2026-02-17T00:00:00Z  from com.example.diagrams.sync.monthly")
        #expect(output.standardOutput.contains("  com.example.diagrams.sync.monthly  active until 2026-02-17T00:00:00Z, renews\n"))
        // The first paid month starts at noon: the loyalty offer's reason turns from never-paid
        // to paid-too-little then.
        #expect(output.standardOutput.contains("promotional sync.loyal: do not offer (never-paid)\n"))
        #expect(output.standardOutput.contains("reevaluate at 2026-01-10T12:00:00Z"))
        let noon = Self.run(["check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-01-10T12:00:00Z"])
        #expect(noon.standardOutput.contains("promotional sync.loyal: do not offer (paid-too-little)\n"))
        // The consumption recorded for 2026-01-12 changes the balance then.
        #expect(noon.standardOutput.contains("reevaluate at 2026-01-12T16:45:00Z"))
    }

    @Test("--at defaults to the environment's now, and - reads standard input")
    func defaultsAndStdin() throws {
        let receipt = try String(contentsOfFile: Self.receipt("diagrams-trial.json"), encoding: .utf8)
        let output = EntitleCommand.run(
            ["check", "--catalog", Self.products, "--receipt", "-", "--format", "json"],
            environment: Self.environment(stdin: receipt, now: "2026-01-02T00:00:00Z"))
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("\"at\": \"2026-01-02T00:00:00Z\""))
    }

    @Test("--format json prints exactly one object with every feature, currency and product")
    func jsonShape() throws {
        let output = Self.run([
            "check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams6-owner.json"),
            "--app", "com.example.diagrams", "--at", "2026-01-01T00:00:00.250Z", "--format", "json",
        ])
        #expect(output.exitCode == 0, "\(output.standardError)")
        let root = try JSONSubset.parse(output.standardOutput)
        guard case .object(let members) = root.value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["app", "at", "features", "balances", "products", "offers", "reevaluateAt", "warnings"])
        #expect(
            JSONSubset.mismatch(
                expected: try JSONSubset.parse(
                    """
                    { "app": "com.example.diagrams", "at": "2026-01-01T00:00:00.250Z", "balances": { "stencils": 0 },
                      "offers": { "com.example.diagrams.pro.upgrade": { "eligible": true } }, "reevaluateAt": null }
                    """), actual: root) == nil)
        if case .object(let features)? = members.first(where: { $0.key == "features" })?.value.value {
            #expect(features.map(\.key) == ["pro", "export.pdf", "cloud.sync"])
        }
        if case .object(let products)? = members.first(where: { $0.key == "products" })?.value.value {
            #expect(products.count == 7, "every product but the consumable, of every store")
        }
    }

    @Test(
        "misuse exits 2 with the one-line problem and where to find the usage",
        arguments: [
            (["check"], "entitle check: `--catalog` is required", "check"),
            (["check", "--catalog", "products"], "entitle check: `--receipt` is required", "check"),
            // What the synopses show is what parsing enforces (`Subcommand.checkSynopses`).
            (["check", "--catalog", "x", "--receipt", "r", "--jobs", "2"], "entitle check: `--jobs` is for `--customers`", "check"),
            (
                ["check", "--catalog", "x", "--receipt", "r", "--customers", "c"],
                "entitle check: give `--receipt` or `--customers`, not both", "check"
            ),
            (
                ["check", "--catalog", "x", "--receipt", "r", "--verify"],
                "entitle check: `--verify` and `--root` go together: give `--root` too, or neither", "check"
            ),
            (
                ["retention", "--catalog", "x", "--receipt", "r", "--request", "q", "--key-id", "K"],
                "entitle retention: `--signing-key`, `--key-id` and `--issuer-id` go together: give `--signing-key` and `--issuer-id` too, or none of them",
                "retention"
            ),
            (
                ["consumption", "--catalog", "x", "--receipt", "r", "--consented"],
                "entitle consumption: give `--transaction` or `--notification`, or both", "consumption"
            ),
            (
                ["explain", "--catalog", "x", "--receipt", "r", "--product", "p", "--balance", "b"],
                "entitle explain: give one of `--feature`, `--product`, `--offer`, `--balance`, `--limit`, `--transaction` or `--retention`, not `--product` and `--balance`",
                "explain"
            ),
            (
                ["check", "--catalog", "x", "--receipt", "r", "--at", "yesterday"],
                "entitle check: `--at yesterday`: it must look like `2026-01-15T09:00:00Z`", "check"
            ),
            (
                ["check", "--catalog", "x", "--receipt", "r", "--at", "2026-02-30T10:00:00Z"],
                "entitle check: `--at 2026-02-30T10:00:00Z`: 2026-02-30 does not exist: February 2026 has 28 days", "check"
            ),
            (
                ["check", "--catalog", "x", "--receipt", "r", "--at", "2026-02-30"],
                "entitle check: `--at 2026-02-30`: 2026-02-30 does not exist: February 2026 has 28 days", "check"
            ),
            (
                ["check", "--catalog", "x", "--receipt", "r", "--at", "2026-01-15T24:00:00Z"],
                "entitle check: `--at 2026-01-15T24:00:00Z`: hour 24 does not exist: hours go from 00 to 23", "check"
            ),
            (
                ["check", "--catalog", "x", "--receipt", "r", "--at", "2026-01-15T09:00:00"],
                "entitle check: `--at 2026-01-15T09:00:00`: it has no time zone: add `Z` for UTC, or an offset such as `+01:00`", "check"
            ),
            (
                ["check", "--catalog", "x", "--receipt", "r", "--format", "yaml"],
                "entitle check: `--format` must be `text`, `json`, `csv` or `ofrep`, not `yaml`",
                "check"
            ),
            (["check", "--catalog", "x", "--receipt", "r", "--colour"], "entitle check: unknown option `--colour`", "check"),
            (["check", "--catalog", "x", "--receipt", "-", "--receipt", "-"], "entitle check: standard input (`-`) can be read only once", "check"),
            (["validate"], "entitle validate: give at least one catalog path", "validate"),
            (
                ["validate", "--format", "jsn", "products"],
                "entitle validate: `--format` must be `text`, `json`, `github` or `sarif`, not `jsn`; did you mean `json`?", "validate"
            ),
            (["validate", "--format", "sarif", "--format", "json", "products"], "entitle validate: `--format` is given more than once", "validate"),
        ])
    func misuse(_ arguments: [String], problem: String, command: String) {
        let output = Self.run(arguments)
        #expect(output.exitCode == 2)
        let lines = output.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map(String.init)?.hasPrefix(problem) == true, "\(output.standardError)")
        #expect(lines.dropFirst().first == "run 'entitle \(command) --help' for usage")
        #expect(lines.count == 3, "one problem line, one pointer: \(output.standardError)")
        #expect(output.standardOutput.isEmpty)
    }

    @Test("no command or an unknown one points to the overview")
    func unknownCommand() {
        #expect(Self.run([]).standardError.contains("usage: entitle <command>"))
        let unknown = Self.run(["chek"])
        #expect(unknown.exitCode == 2)
        #expect(unknown.standardError == "entitle: unknown command `chek`; did you mean `check`?\nrun 'entitle --help' for the commands\n")
    }

    @Test("`entitle help check` prints the help of check, as `check --help` does")
    func helpCommand() {
        let help = Self.run(["help", "check"])
        #expect(help.exitCode == 0)
        #expect(help.standardOutput.hasPrefix("usage: entitle check"))
        #expect(help.standardOutput == Self.run(["check", "--help"]).standardOutput)
        #expect(Self.run(["help", "validate"]).standardOutput.hasPrefix("usage: entitle validate"))
    }

    @Test("--at with a date alone means midnight UTC")
    func dateAlone() {
        let output = Self.run([
            "check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-01-15", "--format", "json",
        ])
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("\"at\": \"2026-01-15T00:00:00Z\""))
    }

    @Test("a missing receipt file, a directory and an unreadable file each get their own message")
    func receiptFileProblems() throws {
        try Fixtures.withTemporaryDirectory("entitle-cli") { directory in
            let unreadable = directory.appendingPathComponent("locked.json")
            try Data("{}".utf8).write(to: unreadable)
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: unreadable.path)
            let running = getuid() != 0  // root reads any file
            for (path, message) in [
                (directory.appendingPathComponent("nope.json").path, "no such receipt file"),
                (directory.path, "is a directory, not a receipt file"),
                (unreadable.path, "cannot read the receipt file: permission denied"),
            ] {
                if path == unreadable.path && !running { continue }
                let output = Self.run(["check", "--catalog", Self.products, "--receipt", path])
                #expect(output.exitCode == 1)
                #expect(output.standardError.contains("\(path):1:1: error: \(message)"), "\(output.standardError)")
            }
        }
    }

    /// A directory of catalogs copied from products/, with extra files.
    static func catalogDirectory(extra: [String: String] = [:], without: [String] = []) throws -> URL {
        let directory = Fixtures.scratch("entitle-catalogs")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: products) where name.hasSuffix(".json") && !without.contains(name) {
            try FileManager.default.copyItem(atPath: products + "/" + name, toPath: directory.appendingPathComponent(name).path)
        }
        for (name, text) in extra { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    @Test("validate: an unreadable path is one error, and a catalog named twice is one catalog")
    func validatePaths() {
        let nope = Self.run(["validate", "nope"])
        #expect(nope.exitCode == 1)
        #expect(nope.standardError == "nope:1:1: error: no such file or directory\nentitle: 0 catalogs checked: 1 error, 0 warnings\n")
        let twice = Self.run(["validate", Self.products, Self.products + "/diagrams.json"])
        #expect(twice.exitCode == 0, "\(twice.standardError)")
        #expect(twice.standardError.hasSuffix("entitle: 6 catalogs valid: 0 errors, 0 warnings\n"))
    }

    @Test("check evaluates an app whose catalogs compiled while another catalog of the directory has errors")
    func partialCatalogs() throws {
        let broken = #"{ "app": "com.example.other", "features": {}, "products": [ { "id": "x", "type": "thing", "name": "X" } ] }"#
        let directory = try Self.catalogDirectory(extra: ["other.json": broken])
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Self.run([
            "check", "--catalog", directory.path, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-01-10T00:00:00Z",
        ])
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("pro         on"))
        #expect(output.standardError.contains("other.json:1:82: error: products[0].type: unknown product type `thing`"))
        #expect(output.standardError.contains("`com.example.diagrams` is not affected"))

        // When a catalog the app refers to has errors, the app's answer could depend on it.
        let brokenOld = #"{ "app": "com.example.diagrams6", "features": {}, "products": "oops" }"#
        let second = try Self.catalogDirectory(extra: ["diagrams6.json": brokenOld])
        defer { try? FileManager.default.removeItem(at: second) }
        let affected = Self.run([
            "check", "--catalog", second.path, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-01-10T00:00:00Z",
            "--format", "json",
        ])
        #expect(affected.exitCode == 1)
        #expect(affected.standardError.contains("entitle: the catalogs of `com.example.diagrams` have errors"))
        #expect(affected.standardOutput.contains("\"errors\""))
    }

    @Test("--catalog may be repeated, and a receipt saved among the catalogs is named as such")
    func catalogsAndReceipts() throws {
        let receipt = try String(contentsOfFile: Self.receipt("diagrams-trial.json"), encoding: .utf8)
        let directory = try Self.catalogDirectory(extra: ["customer.json": receipt], without: ["diagrams6.json"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let validate = Self.run(["validate", directory.path])
        #expect(validate.exitCode == 1)
        #expect(validate.standardError.contains("customer.json:1:1: error: this looks like a receipt (it has `transactions`), not a catalog"))
        #expect(validate.standardError.contains("help: check a receipt with `entitle check --receipt`"))
        #expect(
            validate.standardError.hasSuffix("entitle: 5 catalogs (and 1 file that is not one) checked: 1 error, 0 warnings\n"),
            "\(validate.standardError)")
        #expect(!validate.standardError.contains("missing required key"))
        let repeated = Self.run([
            "check", "--catalog", Self.products + "/diagrams.json", "--catalog", Self.products + "/diagrams6.json",
            "--receipt", Self.receipt("diagrams-trial.json"), "--receipt", Self.receipt("diagrams6-owner.json"),
            "--at", "2026-01-15T09:00:00Z", "--format", "json",
        ])
        #expect(repeated.exitCode == 0, "\(repeated.standardError)")
        #expect(repeated.standardOutput.contains("\"upgrade-available\""))
    }

    @Test("check --format json prints {\"errors\": [...]} on standard output when it fails")
    func jsonErrors() throws {
        let output = Self.run(["check", "--catalog", Self.products, "--receipt", "/nonexistent/receipt.json", "--format", "json"])
        #expect(output.exitCode == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        let errors = try #require(object["errors"] as? [[String: Any]])
        #expect(errors.count == 1)
        #expect(errors.first?["code"] as? String == "unreadable-file")
        #expect(errors.first?["file"] as? String == "/nonexistent/receipt.json")
        #expect(errors.first?["line"] as? Int == 1)
        #expect(errors.first?["message"] as? String == "no such receipt file")
    }

    @Test("check and explain --format json print misuse as JSON too, with code `usage`", arguments: ["check", "explain"])
    func jsonMisuse(command: String) throws {
        let output = Self.run([
            command, "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-02-30", "--format", "json",
        ])
        #expect(output.exitCode == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        let errors = try #require(object["errors"] as? [[String: Any]])
        #expect(errors.first?["code"] as? String == "usage")
        #expect(errors.first?["message"] as? String == "`--at 2026-02-30`: 2026-02-30 does not exist: February 2026 has 28 days")
        #expect(output.standardError.hasPrefix("entitle \(command): `--at 2026-02-30`"))
        // Text output: nothing on standard output.
        let text = Self.run([command, "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-02-30"])
        #expect(text.exitCode == 2 && text.standardOutput.isEmpty)
    }

    @Test("help and option slips: `help help`, an option before the command, extra words, a near `--format`")
    func helpSlips() {
        let environment = Self.environment()
        #expect(EntitleCommand.run(["help", "help"], environment: environment).standardOutput.hasPrefix("usage: entitle <command>"))
        #expect(
            EntitleCommand.run(["--bogus"], environment: environment).standardError
                == "entitle: unknown option `--bogus`; a command comes first\nrun 'entitle --help' for the commands\n")
        let extra = EntitleCommand.run(["help", "check", "extra"], environment: environment)
        #expect(extra.exitCode == 2)
        #expect(extra.standardError.hasPrefix("entitle help: give one command"))
        let receipt = Self.receipt("diagrams-trial.json")
        for arguments in [
            ["check", "--catalog", Self.products, "--receipt", receipt], ["explain", "--catalog", Self.products, "--receipt", receipt],
            ["diff", Self.products, Self.products], ["test"],
        ] {
            let command = arguments[0]
            let output = EntitleCommand.run(arguments + ["--format", "jsn"], environment: environment)
            #expect(output.exitCode == 2)
            let choices = ["explain": "`text`, `json` or `svg`", "check": "`text`, `json`, `csv` or `ofrep`"][command] ?? "`text` or `json`"
            #expect(
                output.standardError.contains("`--format` must be \(choices), not `jsn`; did you mean `json`?"), "\(command): \(output.standardError)"
            )
        }
        let shape = EntitleCommand.run(
            ["check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "yesterday"],
            environment: environment)
        #expect(shape.standardError.contains("or a date alone, `2026-01-15` (midnight UTC)"))
        // Asked for JSON, the misuse is a diagnostic whose help holds the suggestion.
        let json = EntitleCommand.run(["check", "--catlog", Self.products, "--format", "json"], environment: environment)
        #expect(json.exitCode == 2)
        #expect(json.standardOutput.contains(#""message": "unknown option `--catlog`""#), "\(json.standardOutput)")
        #expect(json.standardOutput.contains(#""help": "did you mean `--catalog`?""#))
    }

    @Test("an --environment entitle does not know is refused, with a did-you-mean; a service accepts its own on purpose")
    func unknownEnvironment() {
        let output = EntitleCommand.run(
            ["check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-01-15", "--environment", "prod"],
            environment: Self.environment())
        #expect(output.exitCode == CommandOutput.misuse)
        #expect(output.standardOutput.isEmpty)
        #expect(
            output.standardError.contains(
                "`--environment prod`: `prod` is not a receipt environment (`production`, `sandbox`, `xcode` or `local-testing`)"))
        #expect(output.standardError.contains("did you mean `production`?"))
        let known = EntitleCommand.run(
            [
                "check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-01-15", "--environment",
                "Sandbox",
            ],
            environment: Self.environment())
        #expect(known.exitCode == 0)
        // In the library: refused where it is made, with the closest name.
        #expect(throws: EvaluationOptions.InvalidValue.self) { try ReceiptEnvironment("prdouction") }
        #expect((try? ReceiptEnvironment("LocalTesting")) == .localTesting)
        do {
            _ = try EvaluationOptions(environments: ["production", "prdouction"], storefront: nil)
            Issue.record("a misspelt environment was accepted")
        } catch {
            #expect(error.option == "environment" && error.value == "prdouction" && error.help == "did you mean `production`?")
        }
        // A name entitle does not know, which the service's own receipts carry, is accepted on purpose.
        let custom = try! Portfolio.load(path: Self.products).get().evaluate(
            app: "com.example.diagrams", receipts: [Receipt(app: "com.example.diagrams", environment: "staging")],
            at: Instant(rfc3339: "2026-01-15T00:00:00Z")!, options: EvaluationOptions(environments: [ReceiptEnvironment(custom: "Staging")]))
        #expect(custom.warnings.isEmpty)
    }

    @Test("an empty receipt file says so")
    func emptyReceipt() throws {
        let file = Fixtures.scratch("entitle-empty", ending: ".json")
        try Data().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = Self.run(["check", "--catalog", Self.products, "--receipt", file.path])
        #expect(output.exitCode == 1)
        #expect(output.standardError.contains("\(file.path):1:1: error: the receipt file is empty"))
    }

    @Test("a catalog that cannot be read keeps check from answering for an app that may require it")
    func unreadableRequiredCatalog() throws {
        let output = Self.run([
            "check", "--catalog", Self.products + "/diagrams.json", "--catalog", Self.products + "/diagrams6.jsn",
            "--receipt", Self.receipt("diagrams-trial.json"), "--receipt", Self.receipt("diagrams6-owner.json"), "--at", "2026-01-15T09:00:00Z",
        ])
        #expect(output.exitCode == 1, "\(output.standardOutput)")
        #expect(output.standardOutput.isEmpty)
        #expect(output.standardError.contains("diagrams6.jsn:1:1: error: no such file or directory"))
        #expect(output.standardError.contains("entitle: the catalogs of `com.example.diagrams` have errors"))
    }

    @Test("the executable reports a failed write to standard output and exits 1, instead of trapping")
    func writeFailure() throws {
        let executable = try #require(LanguageServerProcess.executable, "the entitle executable is not built next to the tests")
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["validate", "--format", "json", Self.products]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 1)
        #expect(message == "entitle: cannot write to standard output: no space left on device\n")
    }

    @Test("a device, a pipe and a dangling link each get their own message, not a read")
    func specialFiles() throws {
        let link = Fixtures.scratch("entitle-dangling").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/nonexistent-entitle")
        defer { try? FileManager.default.removeItem(atPath: link) }
        for (path, message) in [
            ("/dev/null", "is a device, not a receipt file"),
            (link, "is a link to nothing that can be read (a missing file, or a loop of links)"),
        ] {
            let output = Self.run(["check", "--catalog", Self.products, "--receipt", path])
            #expect(output.exitCode == 1)
            #expect(output.standardError.hasPrefix("\(path):1:1: error: \(message)\n"), "\(output.standardError)")
        }
    }

    @Test("standard input past the receipt limit is refused with the limit, not read on")
    func endlessStandardInput() {
        let endless = CommandEnvironment(
            readStandardInput: { [UInt8](repeating: 0, count: CommandEnvironment.maxStandardInputBytes + 1) },
            now: { Instant(millisecondsSince1970: 0) })
        for arguments in [["check", "--catalog", Self.products, "--receipt", "-"], ["normalize", "-"]] {
            let output = EntitleCommand.run(arguments, environment: endless)
            #expect(output.exitCode == 1)
            #expect(
                output.standardError.hasPrefix(
                    "<stdin>:1:1: error: standard input holds more than \(CommandEnvironment.maxStandardInputBytes) bytes, the limit of a receipt file\n"
                ),
                "\(output.standardError)")
        }
    }

    @Test("a --diagnostics-file that cannot be written is misuse, found before any work")
    func unwritableDiagnosticsFile() {
        for (file, problem) in [("/nonexistent-entitle/x.sarif", "no such directory `/nonexistent-entitle`"), ("/tmp", "is a directory")] {
            let output = Self.run([
                "check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"),
                "--diagnostics", "sarif", "--diagnostics-file", file,
            ])
            #expect(output.exitCode == 2)
            #expect(output.standardError.contains(problem), "\(output.standardError)")
        }
    }

    @Test("files past the size limits are refused before they are read, by the library and the CLI")
    func oversizedFiles() throws {
        try Fixtures.withTemporaryDirectory("entitle-big") { directory in
            // Sparse files: their size is past the limit, their blocks cost nothing.
            func sparse(_ name: String, size: Int) throws -> String {
                let path = directory.appendingPathComponent(name).path
                #expect(FileManager.default.createFile(atPath: path, contents: nil))
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.truncate(atOffset: UInt64(size))
                try handle.close()
                return path
            }
            let catalog = try sparse("big.json", size: CatalogLimits.maxBytes + 1)
            let store = PortfolioStore()
            let compilation = store.reload(path: directory.path)
            #expect(
                compilation.diagnostics.map(\.description) == [
                    "\(catalog):1:1: error: file is \(CatalogLimits.maxBytes + 1) bytes, over the limit of \(CatalogLimits.maxBytes) bytes"
                ])
            #expect(compilation.diagnostics.first?.code == .limitExceeded)
            let receipt = try sparse("big-receipt.bin", size: ReceiptLimits.maxBytes + 1)
            let output = Self.run(["check", "--catalog", Self.products, "--receipt", receipt])
            #expect(output.exitCode == 1)
            #expect(
                output.standardError.hasPrefix(
                    "\(receipt):1:1: error: the receipt file is \(ReceiptLimits.maxBytes + 1) bytes, over the limit of \(ReceiptLimits.maxBytes) bytes\n"
                )
            )
        }
    }

    @Test("when no catalog path can be read, check says so once, with no knock-on error")
    func noCatalogRead() {
        let output = Self.run([
            "check", "--catalog", "/nonexistent-entitle/a", "--catalog", "/nonexistent-entitle/b",
            "--receipt", Self.receipt("diagrams-trial.json"),
        ])
        #expect(output.exitCode == 1)
        #expect(
            output.standardError == """
                /nonexistent-entitle/a:1:1: error: no such file or directory
                /nonexistent-entitle/b:1:1: error: no such file or directory
                entitle: no catalog could be read (2 paths given)

                """)
    }

    @Test("a receipt for an app with no catalog is misuse, with a suggestion")
    func unknownApp() {
        let output = Self.run(["check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--app", "com.example.diagram"])
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("no catalog for app `com.example.diagram`\n  help: did you mean `com.example.diagrams`?\n"))
        // In JSON the suggestion is the diagnostic's help.
        let json = Self.run([
            "check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--app", "com.example.diagram",
            "--format", "json",
        ])
        #expect(json.standardOutput.contains(#""help": "did you mean `com.example.diagrams`?""#), "\(json.standardOutput)")
        #expect(json.standardOutput.contains(#""message": "no catalog for app `com.example.diagram`""#))
    }

    @Test("--help and --version")
    func helpAndVersion() {
        #expect(Self.run(["--version"]).standardOutput == "entitle \(EntitleCommand.version)\n")
        #expect(Self.run(["--help"]).standardOutput.contains("commands:"))
        #expect(Self.run(["check", "--help"]).standardOutput.contains("--receipt FILE"))
        #expect(Self.run(["validate", "--help"]).exitCode == 0)
    }

    @Test("validate exits 0 on the examples and 1 with located diagnostics on a bad catalog")
    func validate() throws {
        let good = Self.run(["validate", Self.products])
        #expect(good.exitCode == 0)
        #expect(good.standardError == "entitle: 6 catalogs valid: 0 errors, 0 warnings\n")

        try Fixtures.withTemporaryDirectory("entitle-validate") { directory in
            let bad = directory.appendingPathComponent("bad.json")
            try Data(catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "grants": ["export.pfd"] }"#).utf8).write(
                to: bad)
            let output = Self.run(["validate", bad.path])
            #expect(output.exitCode == 1)
            #expect(
                output.standardError.contains(
                    "\(bad.path):9:69: error: products[2].grants[0]: undeclared feature `export.pfd`\n  help: did you mean `export.pdf`?\n"))
            #expect(output.standardError.hasSuffix("entitle: 1 catalog checked: 1 error, 0 warnings\n"))
            // check refuses to evaluate against a bad catalog.
            let check = Self.run(["check", "--catalog", bad.path, "--receipt", Self.receipt("diagrams-trial.json")])
            #expect(check.exitCode == 1)
            #expect(check.standardOutput.isEmpty)
        }
    }

    @Test("a bad receipt exits 1 with its location")
    func badReceipt() {
        let receipt = "{ \"app\": \"com.example.diagrams\", \"transactions\": [ {} ] }"
        let column = receipt.distance(from: receipt.startIndex, to: receipt.range(of: "{}")!.lowerBound) + 1
        let output = EntitleCommand.run(
            ["check", "--catalog", Self.products, "--receipt", "-"],
            environment: Self.environment(stdin: receipt))
        #expect(output.exitCode == 1)
        #expect(column == 52)
        #expect(output.standardError.contains("<stdin>:1:\(column): error: transactions[0]: missing required key `productId` in transaction"))
        #expect(output.standardOutput.isEmpty)
    }
}

@Suite("Command line: Apple data", .enabled(if: Fixtures.sharedFixturesAvailable, "needs the shared App Store fixtures"))
struct AppleCommandLineTests {
    static func fixture(_ path: String) -> String { Fixtures.sharedFixtures.appendingPathComponent(path).path }
    static let xcodeTransaction = fixture("storekit2/apple-app-store-server-library-swift/xcode/xcode-signed-transaction")

    @Test("check reads the Xcode-signed transaction and turns on the premium features, with the unverified notice")
    func checkXcodeTransaction() throws {
        let output = CLITests.run([
            "check", "--catalog", CLITests.products, "--receipt", Self.xcodeTransaction, "--at", "2023-10-20T00:00:00Z", "--format", "json",
        ])
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardError.hasPrefix(AppleImport.notice + "\n"))
        let expected = try JSONSubset.parse(
            """
            { "app": "com.example.naturelab.backyardbirds.example",
              "features": {
                "pass": { "enabled": true, "until": "2023-11-19T01:45:36.049Z", "sources": ["pass.premium"] },
                "pass.family": { "enabled": true, "sources": ["pass.premium"] },
                "pass.premium": { "enabled": true, "sources": ["pass.premium"] } },
              "products": { "pass.premium": { "state": "active" }, "pass.individual": { "state": "not-purchased" } },
              "offers": { "pass.premium": { "eligible": false, "reason": "subscribed", "introOfferEligible": false } } }
            """)
        #expect(JSONSubset.mismatch(expected: expected, actual: try JSONSubset.parse(output.standardOutput)) == nil)
        // After the period ends, nothing is on.
        let later = CLITests.run(["check", "--catalog", CLITests.products, "--receipt", Self.xcodeTransaction, "--at", "2023-11-19T01:45:36.049Z"])
        #expect(later.standardOutput.contains("  pass          off"))
    }

    @Test("check applies --app to Apple data that names no app, and keeps other apps' data as theirs")
    func checkFillsInApp() throws {
        let renewal = Self.fixture("storekit2/apple-app-store-server-library-swift/models/signedRenewalInfo.json")
        let output = CLITests.run([
            "check", "--catalog", CLITests.products, "--app", "com.example.diagrams", "--receipt", renewal,
            "--receipt", CLITests.receipt("diagrams-trial.json"), "--at", "2026-01-15T09:00:00Z",
        ])
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(!output.standardError.contains("give the app"))
        // Another app's data with --app: evaluated for --app, the data stays the other app's receipt.
        let other = CLITests.run([
            "check", "--catalog", CLITests.products, "--app", "com.example.diagrams", "--receipt", Self.xcodeTransaction,
            "--at", "2023-10-20T00:00:00Z", "--format", "json",
        ])
        #expect(other.exitCode == 0, "\(other.standardError)")
        #expect(other.standardOutput.contains("\"app\": \"com.example.diagrams\""))
        #expect(!other.standardOutput.contains("\"enabled\": true"))
    }

    @Test("normalize --app refuses data that names another app")
    func normalizeRefusesRelabel() {
        let output = CLITests.run(["normalize", "--app", "com.other", Self.xcodeTransaction])
        #expect(output.exitCode == 1)
        #expect(
            output.standardError.contains(
                "xcode-signed-transaction:1:1: error: bundleId: the data is for app `com.example.naturelab.backyardbirds.example`, not `com.other`"))
        #expect(output.standardOutput.isEmpty)
    }

    @Test("normalize prints a normalized receipt that check then accepts")
    func normalize() throws {
        let output = CLITests.run(["normalize", Self.xcodeTransaction])
        #expect(output.exitCode == 0)
        // The notice, then what was left out, listed once, on a line without a double space.
        #expect(
            output.standardError == AppleImport.notice + "\n" + Self.xcodeTransaction + ": warning: not carried into the "
                + "normalized receipt (entitle does not use them): `deviceVerification`, `deviceVerificationNonce`, "
                + "`storefront`, `storefrontId`, `subscriptionGroupIdentifier`, `transactionReason`, `type`, `webOrderLineItemId`\n")
        let receipt = try ReceiptDecoder.decode(Data(output.standardOutput.utf8))
        #expect(receipt.app == "com.example.naturelab.backyardbirds.example")
        #expect(receipt.environment == "xcode")
        #expect(receipt.transactions.map(\.productId) == ["pass.premium"])
        let check = EntitleCommand.run(
            ["check", "--catalog", CLITests.products, "--receipt", "-", "--at", "2023-10-20T00:00:00Z"],
            environment: CLITests.environment(stdin: output.standardOutput))
        #expect(check.exitCode == 0)
        #expect(!check.standardError.contains("note:"), "a normalized receipt is not Apple data")
    }

    @Test("normalize with --from reads the named format and refuses another")
    func from() {
        let pkcs7 = Self.fixture("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-xcode-with-purchases")
        #expect(CLITests.run(["normalize", "--from", "pkcs7", pkcs7]).exitCode == 0)
        let wrong = CLITests.run(["normalize", "--from", "verify-receipt", pkcs7])
        #expect(wrong.exitCode == 1)
        #expect(CLITests.run(["normalize", "--from", "plist", pkcs7]).exitCode == 2)
    }

    @Test("normalize names the status of a failed verifyReceipt response and the formats it tried for unknown data")
    func errors() {
        let status = CLITests.run([
            "normalize", Self.fixture("verifyreceipt/aporat-store-receipt-validator/inAppPurchaseInvalidReceiptResponse.json"),
        ])
        #expect(status.exitCode == 1)
        #expect(status.standardError.contains("error: status: verifyReceipt status 21002"))
        let unknown = EntitleCommand.run(["normalize", "-"], environment: CLITests.environment(stdin: "hello"))
        #expect(unknown.exitCode == 1)
        #expect(unknown.standardError.contains("<stdin>:1:1: error: unrecognized receipt format"))
        #expect(unknown.standardError.contains("verifyReceipt response"))
        let renewal = CLITests.run(["normalize", Self.fixture("storekit2/apple-app-store-server-library-swift/models/signedRenewalInfo.json")])
        #expect(renewal.exitCode == 1)
        #expect(renewal.standardError.contains("help: renewal info carries no bundle id: give the app (`--app`)"))
        let given = CLITests.run([
            "normalize", "--app", "com.example", Self.fixture("storekit2/apple-app-store-server-library-swift/models/signedRenewalInfo.json"),
        ])
        #expect(given.exitCode == 0)
    }
}
