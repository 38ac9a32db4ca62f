import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// What a product manager hit trying entitle as a new user would (issue 19), each kept fixed.
@Suite("What a product manager hit")
struct ReportedProblemsTests {
    /// products/diagrams.json with its upgrade requiring any receipt of Diagrams 6 (no `anyOf`).
    static let anyReceiptCatalog: String = {
        let text = try! String(contentsOfFile: Fixtures.productsDirectory + "/diagrams.json", encoding: .utf8)
        let listed = #""requires": { "app": "com.example.diagrams6", "anyOf": ["com.example.diagrams6.pro"] }"#
        precondition(text.contains(listed))
        return text.replacingOccurrences(of: listed, with: #""requires": { "app": "com.example.diagrams6" }"#)
    }()

    static func oldAppReceipt(_ original: String?, transaction: String) -> ParsedReceipt {
        ParsedReceipt(
            Fixtures.receipt(
                """
                { "app": "com.example.diagrams6", \(original.map { #""originalPurchaseDate": "\#($0)","# } ?? "")
                  "transactions": [ { "productId": "com.example.diagrams6.pro", "transactionId": "\(transaction)",
                                      "purchaseDate": "2021-06-01T10:00:00Z" } ] }
                """))
    }

    @Test("explain --offer on an upgrade whose requires has no anyOf names the receipt that qualifies, and only says it qualifies")
    func upgradeWithoutAnyOf() throws {
        let catalog = Fixtures.catalog(Self.anyReceiptCatalog)
        let own = ParsedReceipt(Fixtures.receipt(#"{ "app": "com.example.diagrams", "transactions": [] }"#))
        let at = Fixtures.instant("2026-03-01T00:00:00Z")
        // A receipt without originalPurchaseDate counts at any instant.
        let one = catalog.explain([own, Self.oldAppReceipt(nil, transaction: "600001")], at: at)
        let offer = try #require(one.offer(Diagrams.upgrade))
        #expect(offer.eligible)
        #expect(offer.because == "qualifies: receipt 1 of com.example.diagrams6 counts (it has no originalPurchaseDate)")
        // Of two receipts of the app, the one showing the earliest original purchase qualifies,
        // whatever their order.
        let later = Self.oldAppReceipt("2022-01-01T00:00:00Z", transaction: "1")
        let earlier = Self.oldAppReceipt("2021-06-01T10:00:00Z", transaction: "2")
        for (receipts, position) in [([own, later, earlier], 2), ([own, earlier, later], 1)] {
            let because = try #require(catalog.explain(receipts, at: at).offer(Diagrams.upgrade)?.because)
            #expect(because == "qualifies: receipt \(position) of com.example.diagrams6 counts, the app first bought 2021-06-01T10:00:00Z")
            #expect(!because.contains("no such purchase"))
        }
        // The full-price product's offer points to the upgrade with the same fact.
        #expect(
            one.offer(Diagrams.pro)?.because
                == "offer the upgrade instead: com.example.diagrams.pro.upgrade (receipt 1 of com.example.diagrams6 counts (it has no originalPurchaseDate))"
        )
        // With anyOf, the transaction and its receipt are named.
        let listed = try Fixtures.examples.explain(app: Diagrams.app, receipts: [own, Self.oldAppReceipt(nil, transaction: "600001")], at: at)
        #expect(
            listed.offer(Diagrams.upgrade)?.because
                == "qualifies: the receipts of com.example.diagrams6 show com.example.diagrams6.pro (transaction 600001 in receipt 1)")
    }

    @Test("the same through the command line, on products/ with the upgrade's anyOf left out")
    func upgradeWithoutAnyOfCommand() throws {
        try Fixtures.withTemporaryDirectory("entitle-anyof") { directory in
            try Data(Self.anyReceiptCatalog.utf8).write(to: directory.appendingPathComponent("diagrams.json"))
            try FileManager.default.copyItem(
                atPath: Fixtures.productsDirectory + "/diagrams6.json", toPath: directory.appendingPathComponent("diagrams6.json").path)
            let output = EntitleCommand.run(
                [
                    "explain", "--catalog", directory.path, "--receipt", CLITests.receipt("diagrams-sync-history.json"),
                    "--receipt", CLITests.receipt("diagrams6-owner.json"), "--at", "2026-03-01", "--offer", Diagrams.upgrade,
                ],
                environment: CLITests.environment())
            #expect(output.exitCode == 0, "\(output.standardError)")
            #expect(
                output.standardOutput == """
                    com.example.diagrams at 2026-03-01T00:00:00Z

                    offer com.example.diagrams.pro.upgrade: offer
                      qualifies: receipt 1 of com.example.diagrams6 counts (it has no originalPurchaseDate)
                      buying it adds pro, export.pdf

                    """)
        }
    }

    /// A catalog with a trial of an upgrade whose `replaces` is `replaces`.
    static func trialOfUpgrade(replaces: String) -> String {
        """
        { "app": "com.example.p", "features": { "pro": "Pro" },
          "products": [
            { "id": "p.pro", "type": "non-consumable", "name": "Pro", "grants": ["pro"] },
            { "id": "p.upgrade", "type": "non-consumable", "name": "Up", "grants": ["pro"],
              "upgrade": { "replaces": "\(replaces)", "requires": { "app": "com.example.old" } } },
            { "id": "p.trial", "type": "non-consumable", "name": "14-day Trial", "priceTier": 0, "trialOf": "p.upgrade", "grants": ["pro"] }
          ] }
        """
    }

    @Test(
        "a trial of an upgrade whose replaces is misspelt is told the product that exists, never the misspelling",
        arguments: [
            ("p.pr", "did you mean `p.pro`?"), ("p.pro", "did you mean `p.pro`?"),
            ("zzzzzzzz", "name the full-price product the upgrade stands in for"),
        ])
    func trialOfMisspeltUpgrade(replaces: String, help: String) throws {
        let diagnostics = Fixtures.compile(Self.trialOfUpgrade(replaces: replaces)).diagnostics
        let trial = try #require(diagnostics.first { $0.message.contains("`trialOf` names the upgrade") })
        #expect(trial.help == help)
        #expect(trial.path == "products[2].trialOf")
        // Every suggestion names an id the catalog defines.
        for diagnostic in diagnostics {
            if let help = diagnostic.help, help.hasPrefix("did you mean") { #expect(help == "did you mean `p.pro`?", "\(diagnostic)") }
        }
    }

    @Test("the key `currency` suggests `currencies`, and a singular or plural suggests its key however many letters differ")
    func pluralKeys() throws {
        let catalog = #"{ "app": "com.example.p", "features": { "pro": "Pro" }, "currency": { "coins": "Coins" }, "products": [] }"#
        let diagnostic = try #require(Fixtures.compile(catalog).diagnostics.first { $0.code == .unknownKey })
        #expect(diagnostic.message == "unknown key `currency` in catalog")
        #expect(diagnostic.help == "did you mean `currencies`?")
        #expect(Suggestion.closest(to: "currency", in: ["features", "currencies", "products"]) == "currencies")
        #expect(Suggestion.closest(to: "Currencys", in: ["currency"]) == "currency")
        #expect(Suggestion.closest(to: "grandfather", in: ["grandfathered"]) == "grandfathered")
        // Not every word ending in s is a plural, and unrelated words stay unsuggested.
        #expect(Suggestion.singular("pass") == "pass")
        #expect(Suggestion.closest(to: "currency", in: ["features", "products"]) == nil)
    }

    @Test("check whose first receipt is of an app without a catalog (the prerequisite app's) suggests --app; following it works")
    func firstReceiptOfAnotherApp() {
        let diagrams = Fixtures.productsDirectory + "/diagrams.json"
        let arguments = [
            "check", "--catalog", diagrams, "--receipt", CLITests.receipt("diagrams6-owner.json"),
            "--receipt", CLITests.receipt("diagrams-trial.json"), "--at", "2026-01-15",
        ]
        let output = EntitleCommand.run(arguments, environment: CLITests.environment())
        #expect(output.exitCode == 2)
        #expect(
            output.standardError.contains(
                """
                error: no catalog for app `com.example.diagrams6`, the app of the first receipt (`\(CLITests.receipt("diagrams6-owner.json"))`)
                  help: without `--app`, the app evaluated is the first receipt's; to evaluate `com.example.diagrams`, whose catalog is \
                given, add `--app com.example.diagrams`

                """), "\(output.standardError)")
        let json = EntitleCommand.run(arguments + ["--format", "json"], environment: CLITests.environment())
        #expect(json.standardOutput.contains(#""help": "without `--app`, the app evaluated is the first receipt's"#))
        let followed = EntitleCommand.run(arguments + ["--app", "com.example.diagrams"], environment: CLITests.environment())
        #expect(followed.exitCode == 0, "\(followed.standardError)")
        #expect(followed.standardOutput.hasPrefix("com.example.diagrams at 2026-01-15T00:00:00Z\n"))
        // An --app given outright is what was asked for: no advice about it.
        let given = EntitleCommand.run(
            [
                "check", "--catalog", diagrams, "--receipt", CLITests.receipt("diagrams-trial.json"),
                "--app", "com.example.diagrams6",
            ], environment: CLITests.environment())
        #expect(given.exitCode == 2)
        #expect(given.standardError.contains("no catalog for app `com.example.diagrams6`\n  help: did you mean `com.example.diagrams`?"))
        #expect(!given.standardError.contains("help: without"))
        // Only receipts of apps without a catalog: nothing to suggest but the catalogs.
        let none = EntitleCommand.run(
            ["check", "--catalog", diagrams, "--receipt", CLITests.receipt("diagrams6-owner.json")],
            environment: CLITests.environment())
        #expect(none.standardError.contains("error: no catalog for app `com.example.diagrams6`\n  help: did you mean `com.example.diagrams`?"))
    }
}
