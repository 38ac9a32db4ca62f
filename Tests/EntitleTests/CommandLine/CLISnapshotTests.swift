import Foundation
import Testing

@testable import EntitleCommandLine

/// The command line's text outputs, whole, against files in `Tests/EntitleTests/Snapshots/cli/`
/// (`ENTITLE_RECORD=1 swift test --filter CLISnapshot` writes them anew; `git diff` then shows
/// what changed). Paths under the package root print relative to it, so the files hold what a
/// person running the command from the root sees.
@Suite("Command-line outputs, whole")
struct CLISnapshotTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var testDescription: String { name }
    }

    static let trial = "products/receipts/diagrams-trial.json"
    static let cases: [Case] = [
        Case(name: "check", arguments: ["check", "--catalog", "products", "--receipt", trial, "--at", "2026-01-10T00:00:00Z"]),
        Case(
            name: "check-json",
            arguments: [
                "check", "--catalog", "products", "--receipt", trial, "--at", "2026-01-10T00:00:00Z",
                "--format", "json",
            ]),
        Case(
            name: "check-owner-upgrade",
            arguments: [
                "check", "--catalog", "products", "--receipt", trial, "--receipt",
                "products/receipts/diagrams6-owner.json", "--at", "2026-01-15T09:00:00Z",
            ]),
        Case(
            name: "check-sync-history",
            arguments: [
                "check", "--catalog", "products", "--receipt", "products/receipts/diagrams-sync-history.json",
                "--at", "2026-06-15",
            ]),
        Case(
            name: "check-starquest",
            arguments: [
                "check", "--catalog", "products", "--receipt", "products/receipts/starquest-player.json",
                "--at", "2026-03-01",
            ]),
        Case(name: "explain", arguments: ["explain", "--catalog", "products", "--receipt", trial, "--at", "2026-02-12"]),
        Case(
            name: "explain-feature",
            arguments: [
                "explain", "--catalog", "products", "--receipt", trial, "--at", "2026-02-12",
                "--feature", "export.pdf",
            ]),
        Case(
            name: "explain-product",
            arguments: [
                "explain", "--catalog", "products", "--receipt", trial, "--at", "2026-02-12",
                "--product", "com.example.diagrams.sync.monthly",
            ]),
        Case(
            name: "explain-offer",
            arguments: [
                "explain", "--catalog", "products", "--receipt", trial, "--at", "2026-02-12",
                "--offer", "com.example.diagrams.sync.monthly",
            ]),
        Case(
            name: "explain-balance",
            arguments: [
                "explain", "--catalog", "products", "--receipt", trial, "--at", "2026-02-12",
                "--balance", "stencils",
            ]),
        Case(name: "validate", arguments: ["validate", "products"]),
        Case(name: "test", arguments: ["test", "products"]),
        Case(name: "diff-same", arguments: ["diff", "products", "products"]),
        Case(name: "graph", arguments: ["graph", "products/diagrams.json"]),
        Case(name: "misuse-unknown-option", arguments: ["check", "--catlog", "products"]),
        Case(name: "check-prerequisite-app", arguments: ["check", "--catalog", "products", "--receipt", "products/receipts/diagrams6-owner.json"]),
    ]

    @Test("each output is the snapshot's, standard output and standard error", arguments: cases)
    func output(_ given: Case) {
        let root = Fixtures.packageRoot.path + "/"
        // Arguments are given from the package root, as a person at the root would type them.
        let arguments = given.arguments.map { $0.hasPrefix("products") ? root + $0 : $0 }
        let output = EntitleCommand.run(arguments, environment: CLITests.environment(now: "2026-01-15T00:00:00Z"))
        let text =
            "$ entitle " + given.arguments.joined(separator: " ") + "\n"
            + output.standardOutput + (output.standardError.isEmpty ? "" : "--- standard error\n" + output.standardError)
            + "--- exit \(output.exitCode)\n"
        Snapshot.expect(text.replacingOccurrences(of: root, with: ""), matches: "Tests/EntitleTests/Snapshots/cli/\(given.name).txt")
    }
}
