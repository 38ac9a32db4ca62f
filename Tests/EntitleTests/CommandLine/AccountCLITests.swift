import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// `--account ID ...` on `check`, `explain` and `check --customers`: the customer's accounts in
/// the app (Apple's `appAccountToken`, another store's `account`); transactions and renewal entries
/// naming none of them count for nothing, with a warning.
@Suite("Command line: --account")
struct AccountCLITests {
    static let mine = "5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47"
    static let theirs = "11111111-2222-3333-4444-555555555555"

    /// A receipt of the diagrams app: Pro bought by `mine`, the sync subscription by `theirs`.
    static let receipt = """
        { "app": "com.example.diagrams",
          "transactions": [
            { "productId": "com.example.diagrams.pro", "transactionId": "1", "purchaseDate": "2026-01-01T00:00:00Z",
              "appAccountToken": "\(mine)" },
            { "productId": "com.example.diagrams.sync.monthly", "transactionId": "2", "originalTransactionId": "2",
              "purchaseDate": "2026-01-01T00:00:00Z", "expiresDate": "2026-02-01T00:00:00Z", "appAccountToken": "\(theirs)" }
          ] }
        """

    static func run(_ arguments: [String]) -> CommandOutput {
        EntitleCommand.run(arguments, environment: CLITests.environment(stdin: receipt))
    }

    static let check = ["check", "--catalog", CLITests.products, "--receipt", "-", "--at", "2026-01-10", "--format", "json"]

    static func features(_ output: CommandOutput) throws -> [String: Bool] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        let features = try #require(object["features"] as? [String: [String: Any]])
        return features.compactMapValues { $0["enabled"] as? Bool }
    }

    static func warnings(_ output: CommandOutput) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        return (object["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    @Test("without --account every account counts")
    func everyAccount() throws {
        let output = Self.run(Self.check)
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(try Self.features(output) == ["pro": true, "export.pdf": true, "cloud.sync": true])
        #expect(try !Self.warnings(output).contains("other-account"))
    }

    @Test(
        "check --account: another account's transactions count for nothing, with a warning naming it; case does not matter",
        arguments: [mine, mine.uppercased()])
    func checkAccount(_ account: String) throws {
        let output = Self.run(Self.check + ["--account", account])
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(try Self.features(output) == ["pro": true, "export.pdf": true, "cloud.sync": false])
        #expect(try Self.warnings(output) == ["other-account"])
        #expect(output.standardOutput.contains("account `\(Self.theirs)` count for nothing"))

        let theirs = Self.run(Self.check + ["--account=\(Self.theirs)"])
        #expect(try Self.features(theirs) == ["pro": false, "export.pdf": false, "cloud.sync": true])
    }

    @Test("explain --account says which transaction is another account's")
    func explainAccount() {
        let output = Self.run([
            "explain", "--catalog", CLITests.products, "--receipt", "-", "--at", "2026-01-10", "--account", Self.mine,
            "--product", "com.example.diagrams.sync.monthly",
        ])
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("no transaction counts (other-account)"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("for account \(Self.theirs), not the one evaluated"))
    }

    @Test("check --customers --account evaluates every customer as that account")
    func batchAccount() throws {
        try Fixtures.withTemporaryDirectory("entitle-account") { directory in
            try Data(Self.receipt.utf8).write(to: directory.appendingPathComponent("c1.json"))
            let output = Self.run([
                "check", "--catalog", CLITests.products, "--customers", directory.path, "--at", "2026-01-10",
                "--account", Self.theirs,
            ])
            #expect(output.exitCode == 0, "\(output.standardError)")
            let line = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
            #expect(line["customer"] as? String == "c1")
            let features = try #require(line["features"] as? [String: [String: Any]])
            #expect(features["pro"]?["enabled"] as? Bool == false)
            #expect(features["cloud.sync"]?["enabled"] as? Bool == true)
            #expect((line["warnings"] as? [[String: Any]])?.first?["code"] as? String == "other-account")
        }
    }

    @Test("an account that is not a UUID is accepted and matches no App Store token; an empty or over-long one is misuse")
    func notAUUID() throws {
        // `alice` could be another store's account: App Store transactions, which name UUIDs, are someone else's.
        let alice = Self.run(Self.check + ["--account", "alice"])
        #expect(alice.exitCode == 0, "\(alice.standardError)")
        #expect(try Self.features(alice) == ["pro": false, "export.pdf": false, "cloud.sync": false])
        for value in ["", String(repeating: "a", count: 257)] {
            for command in ["check", "explain"] {
                let output = Self.run([command, "--catalog", CLITests.products, "--receipt", "-", "--account", value])
                #expect(output.exitCode == 2)
                #expect(output.standardError.contains("`--account`: an account id is 1 to 256 characters"), "\(output.standardError)")
                #expect(output.standardError.hasSuffix("\nrun 'entitle \(command) --help' for usage\n"))
            }
            let json = Self.run(Self.check + ["--account", value])
            #expect(json.exitCode == 2)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            #expect((object["errors"] as? [[String: Any]])?.first?["code"] as? String == "usage")
        }
    }

    @Test("--account repeats: one customer's App Store token and web account both count; what names neither is warned about, renewal entries too")
    func severalAccounts() throws {
        let web = """
            { "app": "com.example.diagrams", "store": "stripe",
              "transactions": [
                { "productId": "prod_DiagramsProYearly", "transactionId": "in_1", "originalTransactionId": "sub_1",
                  "purchaseDate": "2026-01-01T00:00:00Z", "expiresDate": "2027-01-01T00:00:00Z", "account": "cus_42" } ],
              "renewals": [
                { "productId": "prod_DiagramsProYearly", "originalTransactionId": "sub_1", "willRenew": false, "account": "cus_7" } ] }
            """
        let receipts = "[\(Self.receipt), \(web)]"
        let arguments = ["check", "--catalog", CLITests.products, "--receipt", "-", "--at", "2026-01-10", "--format", "json", "--storefront", "USA"]
        func run(_ extra: [String]) -> CommandOutput {
            EntitleCommand.run(arguments + extra, environment: CLITests.environment(stdin: receipts))
        }
        let one = run(["--account", Self.mine])
        #expect(one.exitCode == 0, "\(one.standardError)")
        #expect(one.standardOutput.contains("account `cus_42` count for nothing"), "the web purchase is another account's with one account")
        let both = run(["--account", Self.mine, "--account", "cus_42"])
        #expect(both.exitCode == 0, "\(both.standardError)")
        #expect(try Self.features(both) == ["pro": true, "export.pdf": true, "cloud.sync": false])
        #expect(!both.standardOutput.contains("account `cus_42`"))
        #expect(both.standardOutput.contains("account `\(Self.theirs)` count for nothing"))
        // The renewal entry names a third account: it counts for nothing (the web plan still renews)
        // and is warned about.
        #expect(both.standardOutput.contains("account `cus_7` count for nothing"), "\(both.standardOutput)")
        #expect(try Self.warnings(both) == ["other-account", "other-account"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(both.standardOutput.utf8)) as? [String: Any])
        let products = try #require(object["products"] as? [String: [String: Any]])
        #expect(products["stripe:prod_DiagramsProYearly"]?["state"] as? String == "active")
        #expect(products["stripe:prod_DiagramsProYearly"]?["willRenew"] == nil, "the entry of another account says nothing: \(products)")
        // The order of the accounts does not matter.
        #expect(run(["--account", "cus_42", "--account", Self.mine.uppercased()]).standardOutput == both.standardOutput)
        for command in ["check", "explain"] {
            #expect(Self.run([command, "--help"]).standardOutput.contains("--account ID"))
        }
    }
}
