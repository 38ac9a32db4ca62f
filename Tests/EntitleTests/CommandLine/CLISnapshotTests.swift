import Foundation
import Testing

@testable import EntitleCommandLine

/// The command line's text outputs, whole, against files in `Tests/EntitleTests/Snapshots/cli/`
/// (`ENTITLE_RECORD=1 swift test --filter CLISnapshot` writes them anew; `git diff` then shows
/// what changed). Paths under the package root print relative to it, so the files hold what a
/// person running the command from the root sees.
@Suite("Command-line outputs, whole")
struct CLISnapshotTests {
    /// A snapshot's name and the command line whose output it holds.
    typealias Case = (name: String, arguments: [String])

    static let trial = "products/receipts/diagrams-trial.json"
    static let cases: [Case] = [
        check("check", [trial], at: "2026-01-10T00:00:00Z"),
        check("check-json", [trial], at: "2026-01-10T00:00:00Z", ["--format", "json"]),
        check("check-owner-upgrade", [trial, "products/receipts/diagrams6-owner.json"], at: "2026-01-15T09:00:00Z"),
        check("check-sync-history", ["products/receipts/diagrams-sync-history.json"], at: "2026-06-15"),
        check("check-starquest", ["products/receipts/starquest-player.json"], at: "2026-03-01"),
        explain("explain"),
        explain("explain-feature", ["--feature", "export.pdf"]),
        explain("explain-product", ["--product", "com.example.diagrams.sync.monthly"]),
        explain("explain-offer", ["--offer", "com.example.diagrams.sync.monthly"]),
        explain("explain-balance", ["--balance", "stencils"]),
        ("validate", ["validate", "products"]),
        ("test", ["test", "products"]),
        ("diff-same", ["diff", "products", "products"]),
        ("graph", ["graph", "products/diagrams.json"]),
        ("misuse-unknown-option", ["check", "--catlog", "products"]),
        ("check-prerequisite-app", ["check", "--catalog", "products", "--receipt", "products/receipts/diagrams6-owner.json"]),
    ]

    /// `check` of `receipts` against products/ at `at`, with `more` options.
    static func check(_ name: String, _ receipts: [String], at: String, _ more: [String] = []) -> Case {
        (name, ["check", "--catalog", "products"] + receipts.flatMap { ["--receipt", $0] } + ["--at", at] + more)
    }

    /// `explain` of the trial receipt, whole or of the item `selector` names.
    static func explain(_ name: String, _ selector: [String] = []) -> Case {
        (name, ["explain", "--catalog", "products", "--receipt", trial, "--at", "2026-02-12"] + selector)
    }

    @Test("each output is the snapshot's, standard output and standard error", arguments: cases)
    func output(name: String, arguments given: [String]) {
        let root = Fixtures.packageRoot.path + "/"
        // Arguments are given from the package root, as a person at the root would type them.
        let arguments = given.map { $0.hasPrefix("products") ? root + $0 : $0 }
        let output = EntitleCommand.run(arguments, environment: CLITests.environment(now: "2026-01-15T00:00:00Z"))
        let text =
            "$ entitle " + given.joined(separator: " ") + "\n"
            + output.standardOutput + (output.standardError.isEmpty ? "" : "--- standard error\n" + output.standardError)
            + "--- exit \(output.exitCode)\n"
        Snapshot.expect(text.replacingOccurrences(of: root, with: ""), matches: "Tests/EntitleTests/Snapshots/cli/\(name).txt")
    }
}
