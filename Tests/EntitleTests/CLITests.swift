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

    static var products: String { Fixtures.productsDirectory }
    static func receipt(_ name: String) -> String { Fixtures.packageRoot.appendingPathComponent("products/receipts/\(name)").path }

    @Test("check prints features first, aligned, with why and until when")
    func checkText() {
        let output = EntitleCommand.run(
            ["check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--at", "2026-01-10T00:00:00Z"],
            environment: Self.environment())
        #expect(output.exitCode == 0)
        let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "com.example.diagrams at 2026-01-10T00:00:00Z")
        #expect(lines[2] == "features")
        #expect(lines[3] == "  pro         on   until 2026-01-15T09:00:00Z  from com.example.diagrams.trial")
        #expect(lines[4] == "  export.pdf  on   until 2026-01-15T09:00:00Z  from com.example.diagrams.trial")
        #expect(lines[5] == "  cloud.sync  on   until 2026-02-17T00:00:00Z  from com.example.diagrams.sync.monthly")
        #expect(output.standardOutput.contains("reevaluate at 2026-01-15T09:00:00Z"))
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
        let output = EntitleCommand.run(
            ["check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams6-owner.json"),
             "--app", "com.example.diagrams", "--at", "2026-01-01T00:00:00.250Z", "--format", "json"],
            environment: Self.environment())
        #expect(output.exitCode == 0, "\(output.standardError)")
        let root = try JSONSubset.parse(output.standardOutput)
        guard case .object(let members) = root.value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["app", "at", "features", "balances", "products", "offers", "reevaluateAt", "warnings"])
        #expect(JSONSubset.mismatch(expected: try JSONSubset.parse("""
            { "app": "com.example.diagrams", "at": "2026-01-01T00:00:00.250Z", "balances": { "stencils": 0 },
              "offers": { "com.example.diagrams.pro.upgrade": { "eligible": true } }, "reevaluateAt": null }
            """), actual: root) == nil)
        if case .object(let features)? = members.first(where: { $0.key == "features" })?.value.value {
            #expect(features.map(\.key) == ["pro", "export.pdf", "cloud.sync"])
        }
        if case .object(let products)? = members.first(where: { $0.key == "products" })?.value.value {
            #expect(products.count == 5, "every product but the consumable")
        }
    }

    @Test("misuse exits 2 with usage", arguments: [
        [String](), ["frobnicate"], ["check"], ["check", "--catalog", "products"],
        ["check", "--catalog", "x", "--receipt", "r", "--at", "yesterday"],
        ["check", "--catalog", "x", "--receipt", "r", "--format", "yaml"],
        ["check", "--catalog", "x", "--receipt", "r", "--colour"],
        ["check", "--catalog", "x", "--receipt", "-", "--receipt", "-"],
        ["validate"],
    ])
    func misuse(_ arguments: [String]) {
        let output = EntitleCommand.run(arguments, environment: Self.environment())
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("usage: entitle"))
        #expect(output.standardOutput.isEmpty)
    }

    @Test("a receipt for an app with no catalog is misuse, with a suggestion")
    func unknownApp() {
        let output = EntitleCommand.run(
            ["check", "--catalog", Self.products, "--receipt", Self.receipt("diagrams-trial.json"), "--app", "com.example.diagram"],
            environment: Self.environment())
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("no catalog for app `com.example.diagram`; did you mean `com.example.diagrams`?"))
    }

    @Test("--help and --version")
    func helpAndVersion() {
        #expect(EntitleCommand.run(["--version"], environment: Self.environment()).standardOutput == "entitle \(EntitleCommand.version)\n")
        #expect(EntitleCommand.run(["--help"], environment: Self.environment()).standardOutput.contains("commands:"))
        #expect(EntitleCommand.run(["check", "--help"], environment: Self.environment()).standardOutput.contains("--receipt FILE"))
        #expect(EntitleCommand.run(["validate", "--help"], environment: Self.environment()).exitCode == 0)
    }

    @Test("validate exits 0 on the examples and 1 with located diagnostics on a bad catalog")
    func validate() throws {
        let good = EntitleCommand.run(["validate", Self.products], environment: Self.environment())
        #expect(good.exitCode == 0)
        #expect(good.standardError == "entitle: 4 catalogs valid: 0 errors, 0 warnings\n")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entitle-validate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appendingPathComponent("bad.json")
        try Data(catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "grants": ["export.pfd"] }"#).utf8).write(to: bad)
        let output = EntitleCommand.run(["validate", bad.path], environment: Self.environment())
        #expect(output.exitCode == 1)
        #expect(output.standardError.contains("\(bad.path):9:69: error: products[2].grants[0]: undeclared feature `export.pfd`\n  help: did you mean `export.pdf`?\n"))
        #expect(output.standardError.hasSuffix("entitle: 1 catalog checked: 1 error, 0 warnings\n"))
        // check refuses to evaluate against a bad catalog.
        let check = EntitleCommand.run(["check", "--catalog", bad.path, "--receipt", Self.receipt("diagrams-trial.json")],
                                       environment: Self.environment())
        #expect(check.exitCode == 1)
        #expect(check.standardOutput.isEmpty)
    }

    @Test("a bad receipt exits 1 with its location")
    func badReceipt() {
        let receipt = "{ \"app\": \"com.example.diagrams\", \"transactions\": [ {} ] }"
        let column = receipt.distance(from: receipt.startIndex, to: receipt.range(of: "{}")!.lowerBound) + 1
        let output = EntitleCommand.run(["check", "--catalog", Self.products, "--receipt", "-"],
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
        let output = EntitleCommand.run(
            ["check", "--catalog", CLITests.products, "--receipt", Self.xcodeTransaction, "--at", "2023-10-20T00:00:00Z", "--format", "json"],
            environment: CLITests.environment())
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardError.hasPrefix(AppleImport.notice + "\n"))
        let expected = try JSONSubset.parse("""
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
        let later = EntitleCommand.run(
            ["check", "--catalog", CLITests.products, "--receipt", Self.xcodeTransaction, "--at", "2023-11-19T01:45:36.049Z"],
            environment: CLITests.environment())
        #expect(later.standardOutput.contains("  pass          off"))
    }

    @Test("check applies --app to Apple data that names no app, and keeps other apps' data as theirs")
    func checkFillsInApp() throws {
        let renewal = Self.fixture("storekit2/apple-app-store-server-library-swift/models/signedRenewalInfo.json")
        let output = EntitleCommand.run(
            ["check", "--catalog", CLITests.products, "--app", "com.example.diagrams", "--receipt", renewal,
             "--receipt", CLITests.receipt("diagrams-trial.json"), "--at", "2026-01-15T09:00:00Z"],
            environment: CLITests.environment())
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(!output.standardError.contains("give the app"))
        // Another app's data with --app: evaluated for --app, the data stays the other app's receipt.
        let other = EntitleCommand.run(
            ["check", "--catalog", CLITests.products, "--app", "com.example.diagrams", "--receipt", Self.xcodeTransaction,
             "--at", "2023-10-20T00:00:00Z", "--format", "json"],
            environment: CLITests.environment())
        #expect(other.exitCode == 0, "\(other.standardError)")
        #expect(other.standardOutput.contains("\"app\": \"com.example.diagrams\""))
        #expect(!other.standardOutput.contains("\"enabled\": true"))
    }

    @Test("normalize --app refuses data that names another app")
    func normalizeRefusesRelabel() {
        let output = EntitleCommand.run(["normalize", "--app", "com.other", Self.xcodeTransaction], environment: CLITests.environment())
        #expect(output.exitCode == 1)
        #expect(output.standardError.contains(
            "xcode-signed-transaction:1:1: error: bundleId: the data is for app `com.example.naturelab.backyardbirds.example`, not `com.other`"))
        #expect(output.standardOutput.isEmpty)
    }

    @Test("normalize prints a normalized receipt that check then accepts")
    func normalize() throws {
        let output = EntitleCommand.run(["normalize", Self.xcodeTransaction], environment: CLITests.environment())
        #expect(output.exitCode == 0)
        #expect(output.standardError == AppleImport.notice + "\n")
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
        #expect(EntitleCommand.run(["normalize", "--from", "pkcs7", pkcs7], environment: CLITests.environment()).exitCode == 0)
        let wrong = EntitleCommand.run(["normalize", "--from", "verify-receipt", pkcs7], environment: CLITests.environment())
        #expect(wrong.exitCode == 1)
        #expect(EntitleCommand.run(["normalize", "--from", "plist", pkcs7], environment: CLITests.environment()).exitCode == 2)
    }

    @Test("normalize names the status of a failed verifyReceipt response and the formats it tried for unknown data")
    func errors() {
        let status = EntitleCommand.run(
            ["normalize", Self.fixture("verifyreceipt/aporat-store-receipt-validator/inAppPurchaseInvalidReceiptResponse.json")],
            environment: CLITests.environment())
        #expect(status.exitCode == 1)
        #expect(status.standardError.contains("error: status: verifyReceipt status 21002"))
        let unknown = EntitleCommand.run(["normalize", "-"], environment: CLITests.environment(stdin: "hello"))
        #expect(unknown.exitCode == 1)
        #expect(unknown.standardError.contains("<stdin>:1:1: error: unrecognized receipt format"))
        #expect(unknown.standardError.contains("verifyReceipt response"))
        let renewal = EntitleCommand.run(
            ["normalize", Self.fixture("storekit2/apple-app-store-server-library-swift/models/signedRenewalInfo.json")],
            environment: CLITests.environment())
        #expect(renewal.exitCode == 1)
        #expect(renewal.standardError.contains("help: renewal info carries no bundle id: give the app (`--app`)"))
        let given = EntitleCommand.run(
            ["normalize", "--app", "com.example", Self.fixture("storekit2/apple-app-store-server-library-swift/models/signedRenewalInfo.json")],
            environment: CLITests.environment())
        #expect(given.exitCode == 0)
    }
}
