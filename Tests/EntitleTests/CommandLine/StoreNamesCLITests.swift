import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// Where stores meet on the command line: another store's products named one way everywhere,
/// store data that names no app, `entitle receipt`'s arrays in every corpus, and a change that
/// starts selling a plan to people who pay for it in another store.
@Suite("Command line: stores' names and corpora")
struct StoreNamesCLITests {
    static let diagrams = Fixtures.packageRoot.appendingPathComponent("products/diagrams.json").path
    static let stripeEvents = Fixtures.packageRoot.appendingPathComponent("products/store-data/stripe-events.json").path

    @Test("check and explain with only Stripe's data and no --app: the portfolio's one app, or its one app selling on Stripe")
    func stripeWithoutApp() throws {
        let one = CLITests.run(["check", "--catalog", Self.diagrams, "--receipt", Self.stripeEvents, "--at", "2026-04-20", "--format", "json"])
        #expect(one.exitCode == 0, "\(one.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(one.standardOutput.utf8)) as? [String: Any])
        #expect(object["app"] as? String == "com.example.diagrams")
        // Four catalogs, one of them sells on Stripe.
        let many = CLITests.run(["explain", "--catalog", CLITests.products, "--receipt", Self.stripeEvents, "--at", "2026-04-20"])
        #expect(many.exitCode == 0, "\(many.standardError)")
        #expect(many.standardOutput.hasPrefix("com.example.diagrams at 2026-04-20T00:00:00Z"))
        // `--app` still decides.
        let other = CLITests.run([
            "check", "--catalog", CLITests.products, "--receipt", Self.stripeEvents, "--at", "2026-04-20", "--app", "com.example.starquest",
        ])
        #expect(other.standardOutput.hasPrefix("com.example.starquest at"), "\(other.standardOutput)\(other.standardError)")
    }

    @Test("what `entitle receipt` prints (an array) is a receipt file of a diff --customers corpus too")
    func corpusOfArrays() throws {
        let told = try StoryTests.told(
            #"{"app": "com.example.diagrams", "story": [ { "at": "2026-03-01", "subscribe": "com.example.diagrams.sync.monthly", "renewals": 1 } ]}"#,
            "sync.story.json")
        #expect(told.exitCode == 0, "\(told.standardError)")
        let directory = Fixtures.scratch("array-corpus")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try told.standardOutput.write(to: directory.appendingPathComponent("c1.json"), atomically: true, encoding: .utf8)
        let diff = CLITests.run([
            "diff", CLITests.products, CLITests.products, "--customers", directory.path, "--at", "2026-03-15", "--format", "json",
        ])
        #expect(!diff.standardOutput.contains("could not be read"), "\(diff.standardOutput)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(diff.standardOutput.utf8)) as? [String: Any])
        let impact = try #require((report["impact"] as? [[String: Any]])?.first, "\(report.keys)")
        #expect(impact["customers"] as? Int == 1 && impact["unreadable"] as? Int == 0, "\(impact)")
        let batch = CLITests.run(["check", "--catalog", CLITests.products, "--customers", directory.path, "--at", "2026-03-15"])
        #expect(batch.exitCode == 0, "\(batch.standardError)")
        #expect(batch.standardOutput.contains(#""cloud.sync":{"enabled":true"#) || batch.standardOutput.contains(#""cloud.sync": {"enabled": true"#))
    }

    @Test("explain --offer and --product take another store's product by its id alone; a Price's id points to the Product")
    func explainNames() {
        let receipt = CLITests.receipt("diagrams-trial.json")
        let bare = CLITests.run([
            "explain", "--catalog", CLITests.products, "--receipt", receipt, "--at", "2026-01-10", "--offer", "prod_DiagramsProYearly",
            "--storefront", "USA",
        ])
        #expect(bare.exitCode == 0, "\(bare.standardError)")
        #expect(bare.standardOutput.contains("offer stripe:prod_DiagramsProYearly: "), "\(bare.standardOutput)")
        let keyed = CLITests.run([
            "explain", "--catalog", CLITests.products, "--receipt", receipt, "--at", "2026-01-10", "--offer", "stripe:prod_DiagramsProYearly",
            "--storefront", "USA",
        ])
        #expect(keyed.standardOutput == bare.standardOutput)
        let price = CLITests.run([
            "explain", "--catalog", CLITests.products, "--receipt", receipt, "--at", "2026-01-10", "--product", "price_1PqXyz",
        ])
        #expect(price.exitCode == 2)
        #expect(
            price.standardError.contains("help: did you mean `stripe:prod_DiagramsProYearly`? a Stripe product is named by its Product id"),
            "\(price.standardError)")
    }

    @Test("a test file expects another store's product by its key or its id alone, not by both")
    func testFileNames() throws {
        func file(_ cases: String, _ name: String) throws -> URL {
            try BatchTests.file(
                """
                { "catalog": "\(CLITests.products)", "app": "com.example.diagrams", "storefront": "USA", "receipts": ["\(Self.stripeEvents)"],
                  "cases": [ \(cases) ] }
                """, name)
        }
        let named = try file(
            """
            { "name": "web subscriber", "at": "2026-04-20T00:00:00Z",
              "expect": { "products": { "prod_DiagramsProYearly": { "state": "active" } },
                          "offers": { "prod_DiagramsProYearly": { "eligible": false, "reason": "subscribed" },
                                      "play:pro:yearly": { "eligible": false, "reason": "subscribed-elsewhere" } } } }
            """, "names.test.json")
        let passed = CLITests.run(["test", named.path])
        #expect(passed.exitCode == 0 && passed.standardOutput.contains("1 passed, 0 failed"), "\(passed.standardOutput)\(passed.standardError)")
        // A wrong expectation under the short name is reported under that name.
        let wrong = try file(
            #"{ "name": "wrong", "at": "2026-04-20T00:00:00Z", "expect": { "products": { "prod_DiagramsProYearly": { "state": "expired" } } } }"#,
            "wrong.test.json")
        let failed = CLITests.run(["test", wrong.path])
        #expect(failed.exitCode == 1 && failed.standardOutput.contains("products.prod_DiagramsProYearly.state"), "\(failed.standardOutput)")
        let both = try file(
            #"{ "name": "both", "at": "2026-04-20T00:00:00Z", "expect": { "offers": { "prod_DiagramsProYearly": { "eligible": false }, "stripe:prod_DiagramsProYearly": { "eligible": false } } } }"#,
            "both.test.json")
        let refused = CLITests.run(["test", both.path])
        #expect(
            refused.standardError.contains("`stripe:prod_DiagramsProYearly` and `prod_DiagramsProYearly` name one product"),
            "\(refused.standardError)")
    }
}
