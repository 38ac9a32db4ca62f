import Foundation
import Testing
@testable import Entitle

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
