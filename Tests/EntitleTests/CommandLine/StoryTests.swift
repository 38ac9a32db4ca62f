import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// Customers told as stories: the receipts written, what they evaluate to at the boundary
/// instants, the same bytes every time, and every mistake located with a did-you-mean.
@Suite("Stories")
struct StoryTests {
    static let diagrams = "com.example.diagrams", starquest = "com.example.starquest"

    /// The receipts a story tells, and the diagnostics.
    static func tell(_ json: String, app: String = diagrams) -> (receipts: [Receipt]?, diagnostics: [Diagnostic]) {
        let data = Data(json.utf8)
        var reader = JSONShapeReader(file: "story.json", data: data)
        guard
            let document = JSONDocument.parse(
                data, limits: .catalog, lines: reader.lines, name: { $0 }, report: { reader.report($0, $1, at: $2, path: "", help: $3) })
        else { return (nil, reader.diagnostics) }
        let receipts = Story.receipts(document.root, path: "story", app: app, portfolio: Fixtures.examples, reader: &reader)
        return (receipts, reader.diagnostics)
    }

    /// What `entitle receipt --catalog products` prints for `story`, written to a file `name`.
    static func told(_ story: String, _ name: String = "customer.story.json") throws -> CommandOutput {
        CLITests.run(["receipt", "--catalog", CLITests.products, try BatchTests.file(story, name).path])
    }

    static func evaluate(_ receipts: [Receipt], _ at: String, app: String = diagrams) throws -> Entitlements {
        try Fixtures.examples.evaluate(app: app, receipts: receipts, at: Fixtures.instant(at))
    }

    @Test("Advanced Commerce SKUs in a story: each period lists them, a SKU refunded alone ends its own grants")
    func items() throws {
        let app = "com.example.atelier"
        let (told, diagnostics) = Self.tell(
            """
            [
              { "at": "2026-01-01T10:00:00Z", "subscribe": "com.example.atelier.creator", "renewals": 1,
                "items": ["atelier.sku.brushes", "atelier.sku.fonts"] },
              { "at": "2026-01-05", "buy": "com.example.atelier.renders", "items": ["atelier.sku.renders.50"] },
              { "at": "2026-02-10", "refund": "last", "items": ["atelier.sku.brushes"] }
            ]
            """, app: app)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let receipts = try #require(told)
        let periods = receipts[0].transactions.filter { $0.productId == "com.example.atelier.creator" && $0.signedDate == nil }
        #expect(periods.count == 2 && periods.allSatisfy { $0.items.map(\.sku) == ["atelier.sku.brushes", "atelier.sku.fonts"] })
        let refund = try #require(receipts[0].transactions.first { $0.signedDate != nil })
        #expect(refund.transactionId == periods[1].transactionId && refund.cancellationDate == nil)
        #expect(refund.items.first { $0.sku == "atelier.sku.brushes" }?.endsAt == Fixtures.instant("2026-02-10T00:00:00Z"))
        let before = try Self.evaluate(receipts, "2026-02-09T23:59:59.999Z", app: app)
        #expect(before.isEnabled("brushes") && before.isEnabled("fonts") && before.balance(of: "renders") == 50)
        #expect(before.reevaluateAt == Fixtures.instant("2026-02-10T00:00:00Z"))
        let after = try Self.evaluate(receipts, "2026-02-10T00:00:00Z", app: app)
        #expect(!after.isEnabled("brushes") && after.isEnabled("fonts"))

        // A SKU the product does not declare, or items of a product without any: located, with a did-you-mean.
        let wrong = Self.tell(#"[{ "at": "2026-01-01", "subscribe": "com.example.atelier.creator", "items": ["atelier.sku.brush"] }]"#, app: app)
        #expect(wrong.receipts == nil)
        #expect(wrong.diagnostics.first?.path == "story[0].items[0]")
        #expect(wrong.diagnostics.first?.description.contains("did you mean `atelier.sku.brushes`?") == true)
        let none = Self.tell(#"[{ "at": "2026-01-01", "buy": "com.example.atelier.fill", "items": ["x"] }]"#, app: app)
        #expect(none.diagnostics.first?.message == "`com.example.atelier.fill` is not an Advanced Commerce product: it declares no `items`")
    }

    @Test("the app transaction in a story: download (platform, version) and rescinded consent")
    func appTransaction() throws {
        let (told, diagnostics) = Self.tell(
            """
            [
              { "at": "2024-03-01", "download": "macOS", "version": "1.9" },
              { "at": "2026-03-01", "subscribe": "com.example.diagrams.sync.monthly", "renewals": 2 },
              { "at": "2026-04-01T12:00:00Z", "rescindConsent": true }
            ]
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let receipt = try #require(told?.first)
        #expect(receipt.originalPlatform == .macOS && receipt.originalApplicationVersion == "1.9")
        #expect(receipt.originalPurchaseDate == Fixtures.instant("2024-03-01T00:00:00Z"))
        #expect(receipt.consentRescinded == Fixtures.instant("2026-04-01T12:00:00Z"))
        let before = try Self.evaluate([receipt], "2026-04-01T11:59:59.999Z")
        #expect(before.isEnabled("cloud.sync") && before.consentRescinded == nil)
        let after = try Self.evaluate([receipt], "2026-04-01T12:00:00Z")
        #expect(!after.isEnabled("cloud.sync") && after.consentRescinded != nil)
        // A platform entitle does not know, a second download, a version that is not one.
        let bad = Self.tell(
            #"[{ "at": "2024-03-01", "download": "macos" }, { "at": "2024-03-02", "download": "iOS" }, { "at": "2024-03-03", "download": "iOS" }]"#)
        #expect(bad.diagnostics.first?.description.contains("did you mean `macOS`?") == true, "\(bad.diagnostics)")
        #expect(bad.diagnostics.contains { $0.message.contains("downloaded once") })
        #expect(Self.tell(#"[{ "at": "2024-03-01", "download": "iOS", "version": "one" }]"#).diagnostics.first?.path == "story[0].version")
    }

    @Test("subscribed with the free week, renewed twice, refunded: the chain the App Store sends, on and off at each boundary")
    func renewalChain() throws {
        let (told, diagnostics) = Self.tell(
            """
            [
              { "at": "2026-03-01", "subscribe": "com.example.diagrams.sync.monthly", "introOffer": true, "renewals": 2 },
              { "at": "2026-04-20T10:00:00Z", "refund": "last" }
            ]
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let receipts = try #require(told)
        #expect(receipts.count == 1)
        let chain = receipts[0].transactions.filter { $0.signedDate == nil }
        #expect(chain.map(\.transactionId) == ["story-1", "story-2", "story-3"])
        #expect(chain.allSatisfy { $0.originalTransactionId == "story-1" })
        #expect(chain.map(\.purchaseDate.rfc3339) == ["2026-03-01T00:00:00Z", "2026-03-08T00:00:00Z", "2026-04-08T00:00:00Z"])
        #expect(chain.map { $0.expiresDate?.rfc3339 } == ["2026-03-08T00:00:00Z", "2026-04-08T00:00:00Z", "2026-05-08T00:00:00Z"])
        #expect(chain.map(\.isTrialPeriod) == [true, false, false])
        // The refund is a signed copy of the period it refunds, as the App Store sends one.
        let refund = try #require(receipts[0].transactions.first { $0.signedDate != nil })
        #expect(refund.transactionId == "story-3" && refund.cancellationDate == Fixtures.instant("2026-04-20T10:00:00Z"))
        #expect(refund.revocationType == .refundFull)

        let trial = try Self.evaluate(receipts, "2026-03-07T23:59:59.999Z")
        #expect(trial.isEnabled("cloud.sync"))
        #expect(trial.offer(for: "com.example.diagrams.sync.monthly")?.introOfferEligible == false)
        let before = try Self.evaluate(receipts, "2026-04-20T09:59:59.999Z")
        #expect(before.isEnabled("cloud.sync"))
        #expect(before.reevaluateAt == Fixtures.instant("2026-04-20T10:00:00Z"), "the refund is seen coming")
        let after = try Self.evaluate(receipts, "2026-04-20T10:00:00Z")
        #expect(!after.isEnabled("cloud.sync"))
    }

    @Test("a story gives the same bytes every time, through `entitle receipt` too, and a test file takes it as a case's receipts")
    func deterministic() throws {
        let story = """
            {"app": "com.example.starquest", "story": [
              { "at": "2026-02-01", "subscribe": "com.example.starquest.vip.monthly", "introOffer": true, "renewals": 3 },
              { "at": "2026-03-15", "upgrade": "com.example.starquest.vip.plus.monthly", "renewals": 1 },
              { "at": "2026-04-01", "buy": "com.example.starquest.gems.100", "quantity": 3 }
            ]}
            """
        let file = try BatchTests.file(story, "customer.story.json")
        let first = CLITests.run(["receipt", "--catalog", CLITests.products, file.path])
        let second = CLITests.run(["receipt", "--catalog", CLITests.products, file.path])
        #expect(first.exitCode == 0, "\(first.standardError)")
        #expect(first.standardOutput == second.standardOutput)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [[String: Any]])
        #expect(array.count == 1 && array[0]["app"] as? String == Self.starquest)
        // Each element is a normalized receipt entitle reads back.
        let element = try JSONSerialization.data(withJSONObject: array[0])
        _ = try ParsedReceipt(json: element)

        // The same story told once for a test file's cases, with what it gives at the upgrade and the day before.
        let test = """
            {
              "catalog": "\(CLITests.products)",
              "app": "com.example.starquest",
              "story": [
                { "at": "2026-02-01", "subscribe": "com.example.starquest.vip.monthly", "introOffer": true, "renewals": 3 },
                { "at": "2026-03-15", "upgrade": "com.example.starquest.vip.plus.monthly", "renewals": 1 }
              ],
              "cases": [
                {
                  "name": "the upgrade takes effect at once",
                  "at": "2026-03-15",
                  "expect": {
                    "features": { "vip.plus": { "enabled": true, "until": "2026-04-15T00:00:00Z" } },
                    "products": {
                      "com.example.starquest.vip.monthly": { "state": "expired" },
                      "com.example.starquest.vip.plus.monthly": { "state": "active" }
                    }
                  }
                },
                {
                  "name": "the day before, the monthly plan",
                  "at": "2026-03-14",
                  "expect": {
                    "features": { "vip.plus": { "enabled": false }, "vip.lounge": { "enabled": true, "until": "2026-04-01T00:00:00Z" } }
                  }
                }
              ]
            }
            """
        let testFile = try BatchTests.file(test, "story.test.json")
        let ran = CLITests.run(["test", testFile.path])
        #expect(ran.exitCode == 0, "\(ran.standardOutput)\(ran.standardError)")
        #expect(ran.standardOutput.contains("2 passed, 0 failed"), "\(ran.standardOutput)")
    }

    @Test("what `entitle receipt` prints is what `check --receipt` reads: the same answer as the story's receipts")
    func receiptOutputChecks() throws {
        let story = """
            {"app": "com.example.diagrams", "story": [
              { "at": "2026-03-01", "subscribe": "com.example.diagrams.sync.monthly", "introOffer": true, "renewals": 2 },
              { "at": "2026-04-20T10:00:00Z", "refund": "last" },
              { "at": "2026-05-01", "buy": "com.example.diagrams.daypass" }
            ]}
            """
        let file = try BatchTests.file(story, "customer.story.json")
        let told = CLITests.run(["receipt", "--catalog", CLITests.products, file.path])
        #expect(told.exitCode == 0, "\(told.standardError)")
        let receipts = try BatchTests.file(told.standardOutput, "told.json")
        for at in ["2026-04-20T09:59:59.999Z", "2026-04-20T10:00:00Z", "2026-05-01T12:00:00Z", "2026-05-02T00:00:00Z"] {
            let checked = CLITests.run(["check", "--catalog", CLITests.products, "--receipt", receipts.path, "--at", at, "--format", "json"])
            #expect(checked.exitCode == 0, "\(checked.standardError)")
            let expected = try Self.evaluate(try ReceiptDecoder.decodeList(Data(told.standardOutput.utf8)), at)
            let record = try JSONDecoder().decode(EntitlementsRecord.self, from: Data(checked.standardOutput.utf8))
            #expect(record == (try JSONDecoder().decode(EntitlementsRecord.self, from: Data(expected.json.utf8))), "at \(at)")
        }
        // A mistake in one receipt of the array is located in it, its index leading the path.
        var text = told.standardOutput
        let range = try #require(text.range(of: "\"expiresDate\": \"2026-03-08T00:00:00Z\""))
        text.replaceSubrange(range, with: "\"expiresDate\": \"2026-03-08\"")
        let broken = try BatchTests.file(text, "broken.json")
        let refused = CLITests.run(["check", "--catalog", CLITests.products, "--receipt", broken.path])
        #expect(refused.exitCode == 1)
        #expect(refused.standardError.contains("broken.json:"), "\(refused.standardError)")
        #expect(refused.standardError.contains("error: [0].transactions[0].expiresDate:"), "\(refused.standardError)")
        // An empty array is refused, not read as a customer with nothing.
        let empty = try BatchTests.file("[ ]", "empty.json")
        let nothing = CLITests.run(["check", "--catalog", CLITests.products, "--receipt", empty.path])
        #expect(nothing.exitCode == 1 && nothing.standardError.contains("empty.json:1:1: error: an empty array of receipts"))
    }

    @Test("an upgrade at once, a downgrade at the next renewal; the renewals the old plan would have had are gone")
    func changesOfPlan() throws {
        let (told, diagnostics) = Self.tell(
            """
            [
              { "at": "2026-01-01", "subscribe": "com.example.starquest.vip.plus.monthly", "renewals": 5 },
              { "at": "2026-02-10", "downgrade": "com.example.starquest.vip.monthly", "renewals": 2 }
            ]
            """, app: Self.starquest)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let receipts = try #require(told)
        let transactions = receipts[0].transactions
        // Jan and Feb of Plus (the rest of its renewals did not happen), then three months of VIP from 1 March.
        #expect(transactions.count == 5)
        #expect(transactions.filter { $0.productId.hasSuffix("plus.monthly") }.count == 2)
        #expect(transactions.first { $0.productId == "com.example.starquest.vip.monthly" }?.purchaseDate == Fixtures.instant("2026-03-01T00:00:00Z"))
        #expect(receipts[0].renewals.map(\.productId) == ["com.example.starquest.vip.plus.monthly", "com.example.starquest.vip.monthly"])
        #expect(receipts[0].renewals.map { $0.signedDate?.rfc3339 } == ["2026-01-01T00:00:00Z", "2026-02-10T00:00:00Z"])
        let february = try Self.evaluate(receipts, "2026-02-28T23:59:59.999Z", app: Self.starquest)
        #expect(february.isEnabled("vip.plus"))
        let march = try Self.evaluate(receipts, "2026-03-01T00:00:00Z", app: Self.starquest)
        #expect(!march.isEnabled("vip.plus") && march.isEnabled("vip.lounge"))
    }

    @Test("a refund reversed, a period extended, consumption, a grant, another store's plan and another app's purchase")
    func everyOtherEvent() throws {
        let (told, diagnostics) = Self.tell(
            """
            [
              { "at": "2026-01-01", "buy": "com.example.diagrams6.pro", "app": "com.example.diagrams6" },
              { "at": "2026-01-02", "buy": "com.example.diagrams.stencils.10", "quantity": 2 },
              { "at": "2026-01-03", "refund": "com.example.diagrams.stencils.10", "percentage": 50 },
              { "at": "2026-01-04", "reverseRefund": "last" },
              { "at": "2026-01-05", "consume": { "stencils": 15 } },
              { "at": "2026-01-06", "subscribe": "com.example.diagrams.sync.monthly" },
              { "at": "2026-01-20", "extend": "com.example.diagrams.sync.monthly", "days": 10 },
              { "at": "2026-01-21", "grant": ["export.pdf"], "for": "P2D" },
              { "at": "2026-01-22", "subscribe": "pro:yearly", "willRenew": false }
            ]
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let receipts = try #require(told)
        #expect(receipts.map(\.app) == [Self.diagrams, "com.example.diagrams6", Self.diagrams])
        #expect(receipts.map(\.store) == [.appStore, .appStore, .play])
        let refunded = try Self.evaluate(receipts, "2026-01-03T12:00:00Z")
        #expect(refunded.balance(of: "stencils") == 10, "half of 20 refunded")
        let reversed = try Self.evaluate(receipts, "2026-01-04T12:00:00Z")
        #expect(reversed.balance(of: "stencils") == 20)
        let consumed = try Self.evaluate(receipts, "2026-01-05T12:00:00Z")
        #expect(consumed.balance(of: "stencils") == 5)
        // The month from 6 January, extended by 10 days on the 20th: to 16 February.
        let extended = try Self.evaluate(receipts, "2026-02-15T12:00:00Z")
        #expect(extended.isEnabled("cloud.sync"))
        #expect(extended.feature("cloud.sync")?.until == Fixtures.instant("2026-02-16T00:00:00Z"))
        let granted = try Self.evaluate(receipts, "2026-01-22T12:00:00Z")
        #expect(granted.isEnabled("export.pdf"))
        #expect(granted.product("play:pro:yearly")?.state == .active)
        // The prerequisite makes the upgrade offered.
        #expect(granted.offer(for: "com.example.diagrams.pro.upgrade")?.eligible == true)
    }

    @Test("every mistake is located, with a did-you-mean where a name was meant")
    func mistakes() {
        let (told, diagnostics) = Self.tell(
            """
            [
              { "at": "2026-03-01", "subscribe": "com.example.diagrams.sync.montly" },
              { "at": "2026-02-15", "refund": "last" },
              { "at": "2026-06-01", "buy": "com.example.diagrams.sync.monthly" },
              { "at": "2026-06-02", "consume": { "stencil": 5 } },
              { "at": "2026-06-03", "grant": "po", "fro": "P7D" },
              { "at": "2026-06-04", "subscribe": "com.example.diagrams.sync.monthly", "renewals": 1001 },
              { "at": "2026-06-05", "subscribe": "com.example.diagrams.sync.monthly", "offer": "sync.winbak" },
              { "at": "2026-06-06", "upgrade": "com.example.diagrams.sync.monthly" },
              { "at": "2026-06-07", "refund": "story-99" }
            ]
            """)
        #expect(told == nil)
        let lines = diagnostics.map { "\($0.location.map { "\($0.line):\($0.column)" } ?? "") \($0.code.rawValue) \($0.path) \($0.help ?? "")" }
            .sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        #expect(
            lines == [
                "2:38 unknown-product story[0].subscribe did you mean `com.example.diagrams.sync.monthly`?",
                "3:3 story-event story[1].at move the event before that one",
                "3:35 story-event story[1].refund ",
                "4:25 bad-value story[2].buy write `\"subscribe\": \"com.example.diagrams.sync.monthly\"`",
                "5:38 undeclared-currency story[3].consume.stencil did you mean `stencils`?",
                "6:34 undeclared-feature story[4].grant did you mean `pro`?",
                "6:40 unknown-key story[4].fro did you mean `for`?",
                "7:87 limit-exceeded story[5].renewals ",
                "8:84 unknown-product story[6].offer did you mean `sync.winback`?",
                "9:25 story-event story[7].upgrade `subscribe` to `com.example.diagrams.sync.monthly` instead",
                "10:35 unknown-product story[8].refund write `last`, a product id or a transaction id",
            ], "\(lines.joined(separator: "\n"))")
        let messages = diagnostics.map(\.message)
        #expect(messages.contains("nothing to refund: every purchase by 2026-02-15T00:00:00Z is refunded already, or none was made"))
        #expect(messages.contains("`renewals` is 0 to 1000, not 1001"))
        #expect(messages.contains("no subscription of group `sync` is active at 2026-06-06T00:00:00Z to change"))
    }

    @Test("another store's product by its key or its id alone, a store as people write it; a Stripe Price's id points to the Product")
    func otherStoresNames() throws {
        let (told, diagnostics) = Self.tell(
            """
            [
              { "at": "2026-01-01", "subscribe": "play:pro:yearly", "willRenew": false },
              { "at": "2026-01-02", "subscribe": "prod_DiagramsProYearly", "willRenew": false },
              { "at": "2027-02-01", "subscribe": "google-play:pro:yearly", "willRenew": false }
            ]
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let receipts = try #require(told)
        #expect(Set(receipts.filter { !$0.transactions.isEmpty }.map(\.store)) == [.play, .stripe])
        #expect(receipts.flatMap(\.transactions).map(\.productId).sorted() == ["pro:yearly", "pro:yearly", "prod_DiagramsProYearly"])
        let (_, price) = Self.tell(#"[ { "at": "2026-01-01", "subscribe": "price_1PqXyz" } ]"#)
        #expect(price.first?.code == .unknownProduct)
        #expect(
            price.first?.help?.hasPrefix("did you mean `stripe:prod_DiagramsProYearly`? a Stripe product is named by its Product id") == true,
            "\(price)")
    }

    @Test("`entitle receipt` of a story naming no app, among several catalogs: the app whose catalog sells what it buys, else it asks")
    func storyApp() throws {
        let story = try BatchTests.file(
            #"[ { "at": "2026-03-01", "subscribe": "com.example.diagrams.sync.monthly" }, { "at": "2026-03-02", "consume": { "stencils": 1 } } ]"#,
            "no-app.json")
        let told = CLITests.run(["receipt", "--catalog", CLITests.products, story.path])
        #expect(told.exitCode == 0, "\(told.standardError)")
        #expect(try ReceiptDecoder.decodeList(Data(told.standardOutput.utf8)).first?.app == Self.diagrams)
        let vague = try BatchTests.file(#"[ { "at": "2026-03-02", "consume": { "stencils": 1 } } ]"#, "vague.json")
        let asked = CLITests.run(["receipt", "--catalog", CLITests.products, vague.path])
        #expect(asked.exitCode == 1 && asked.standardError.contains("which app is the story told for?"), "\(asked.standardError)")
    }
}
