import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

@Suite("Explanations")
struct ExplainTests {
    static let trial = ParsedReceipt(Fixtures.receipt(try! String(contentsOfFile: CLITests.receipt("diagrams-trial.json"), encoding: .utf8)))
    static let owner = ParsedReceipt(Fixtures.receipt(try! String(contentsOfFile: CLITests.receipt("diagrams6-owner.json"), encoding: .utf8)))

    static func explain(_ receipts: [ParsedReceipt], at: String, environments: Set<String>? = nil) -> Explanation {
        try! Fixtures.examples.explain(app: Diagrams.app, receipts: receipts, at: Fixtures.instant(at), options: .testing(environments: environments))
    }

    @Test("a feature lists every source that can grant it, each with its state and why, down to each transaction")
    func featureSources() throws {
        let explanation = Self.explain([Self.trial], at: "2026-02-12T00:00:00Z")
        let feature = try #require(explanation.feature("export.pdf"))
        #expect(!feature.enabled)
        #expect(
            feature.sources.map(\.id) == [
                "com.example.diagrams.pro", "com.example.diagrams.trial",
                "com.example.diagrams.pro.upgrade", "stripe:prod_DiagramsProYearly", "play:pro:yearly", "grandfathered:paid-app",
            ])
        #expect(feature.decidedBy == "com.example.diagrams.trial")
        let trial = try #require(feature.sources.first { $0.id == "com.example.diagrams.trial" })
        #expect(trial.state == "expired" && !trial.covers)
        #expect(trial.ended == Fixtures.instant("2026-01-15T09:00:00Z"))
        #expect(trial.reason == "coverage ended 2026-01-15T09:00:00Z")
        let rule = try #require(feature.sources.last)
        #expect(rule.state == "not-matched")
        #expect(rule.reason == "for originalApplicationVersion before 2.0: receipt 0 has no originalApplicationVersion")
        let product = try #require(explanation.product("com.example.diagrams.trial"))
        #expect(product.transactions.count == 1)
        #expect(product.transactions[0].counted)
        #expect(
            product.transactions[0].covers
                == ExplainedSpan(
                    start: Fixtures.instant("2026-01-01T09:00:00Z"),
                    end: Fixtures.instant("2026-01-15T09:00:00Z"), grace: false))
    }

    @Test("receipt values explain as their parsed form does, and offers read with either label")
    func receiptValues() throws {
        let at = Fixtures.instant("2026-01-15T09:00:00Z")
        let values = [Self.trial.receipt, Self.owner.receipt]
        let fromValues = try Fixtures.examples.explain(app: Diagrams.app, receipts: values, at: at)
        #expect(fromValues == Self.explain([Self.trial, Self.owner], at: "2026-01-15T09:00:00Z"))
        #expect(Fixtures.diagrams.explain(values, at: at).features == Fixtures.diagrams.explain([Self.trial, Self.owner], at: at).features)
        #expect(fromValues.offer(for: "com.example.diagrams.pro") == fromValues.offer("com.example.diagrams.pro"))
        #expect(fromValues.offer(for: "com.example.diagrams.pro") != nil)
    }

    @Test("the decisions are the evaluation's: every feature, product state and offer agrees with check")
    func agreesWithEvaluation() {
        for at in ["2026-01-01T08:59:59Z", "2026-01-10T00:00:00Z", "2026-01-15T09:00:00Z", "2026-02-12T00:00:00Z", "2026-03-01T00:00:00Z"] {
            let explanation = Self.explain([Self.trial, Self.owner], at: at)
            let result = try! Fixtures.examples.evaluate(app: Diagrams.app, receipts: [Self.trial, Self.owner], at: Fixtures.instant(at))
            #expect(explanation.features.map(\.enabled) == result.features.map(\.enabled), "\(at)")
            #expect(explanation.features.map(\.until) == result.features.map(\.until), "\(at)")
            #expect(explanation.products.map(\.state) == result.products.map(\.state), "\(at)")
            #expect(explanation.offers.map(\.reason) == result.offers.map(\.reason), "\(at)")
            for feature in explanation.features where feature.enabled {
                #expect(feature.sources.filter(\.covers).map(\.id).sorted() == result.feature(feature.id)!.sources, "\(at) \(feature.id)")
            }
        }
    }

    @Test("transactions that do not count say why: later, cancelled, upgraded, family-shared, a copy")
    func exclusions() throws {
        let receipt = Fixtures.receipt(
            """
            { "app": "com.example.diagrams", "transactions": [
              { "productId": "com.example.diagrams.daypass", "transactionId": "1", "purchaseDate": "2026-01-02T00:00:00Z",
                "cancellationDate": "2026-01-02T06:00:00Z" },
              { "productId": "com.example.diagrams.daypass", "transactionId": "2", "purchaseDate": "2026-01-03T00:00:00Z",
                "ownership": "family-shared" },
              { "productId": "com.example.diagrams.daypass", "transactionId": "3", "purchaseDate": "2026-01-04T00:00:00Z" },
              { "productId": "com.example.diagrams.daypass", "transactionId": "4", "purchaseDate": "2026-02-01T00:00:00Z" },
              { "productId": "com.example.diagrams.sync.monthly", "transactionId": "5", "purchaseDate": "2026-01-04T00:00:00Z",
                "expiresDate": "2026-02-04T00:00:00Z", "isUpgraded": true } ] }
            """)
        let copy = Fixtures.receipt(
            """
            { "app": "com.example.diagrams", "transactions": [
              { "productId": "com.example.diagrams.daypass", "transactionId": "3", "purchaseDate": "2026-01-04T00:00:00Z" } ] }
            """)
        let explanation = Self.explain([ParsedReceipt(receipt), ParsedReceipt(copy)], at: "2026-01-04T12:00:00Z")
        let daypass = try #require(explanation.product("com.example.diagrams.daypass"))
        #expect(daypass.transactions.map(\.transactionId) == ["1", "2", "3", "3", "4"])
        #expect(daypass.transactions.map(\.exclusion) == [.cancelled, .notFamilyShareable, nil, .duplicate, .purchasedLater])
        #expect(daypass.transactions[0].reason == "cancelled 2026-01-02T06:00:00Z")
        #expect(daypass.transactions[3].receipt == 1)
        #expect(daypass.transactions[2].covers?.end == Fixtures.instant("2026-01-05T00:00:00Z"))
        #expect(daypass.state == .active)
        #expect(daypass.reason == "covered until 2026-01-05T00:00:00Z by transaction 3")
        let sync = try #require(explanation.product("com.example.diagrams.sync.monthly"))
        #expect(sync.transactions.map(\.exclusion) == [.upgraded])
        #expect(sync.transactions[0].reason == "isUpgraded: replaced by a purchase of a higher subscription")
        #expect(sync.state == .expired)
        #expect(sync.reason == "no transaction covers anything (upgraded)")
    }

    @Test("a pass bought ahead: the product's reason names the transaction covering now, then those stacked after it")
    func stackedPasses() throws {
        let explanation = Self.explain([Self.trial], at: "2026-01-15T09:00:00Z")
        let daypass = try #require(explanation.product("com.example.diagrams.daypass"))
        #expect(daypass.until == Fixtures.instant("2026-01-16T18:00:00Z"))
        #expect(daypass.reason == "covered until 2026-01-16T18:00:00Z by transaction 4001, then 4002")
        // An upgraded non-consumable is not said to be replaced by a subscription.
        let upgraded = Fixtures.receipt(
            """
            { "app": "com.example.diagrams", "transactions": [
              { "productId": "com.example.diagrams.pro", "transactionId": "12", "purchaseDate": "2026-01-02T00:00:00Z", "isUpgraded": true } ] }
            """)
        let pro = try #require(Self.explain([ParsedReceipt(upgraded)], at: "2026-01-15T00:00:00Z").product("com.example.diagrams.pro"))
        #expect(pro.transactions[0].reason == "isUpgraded: the App Store marks it as replaced by an upgrade, so it grants nothing")
        #expect(pro.reason == "no transaction covers anything (upgraded)")
    }

    @Test("renewal entries: the deciding one, grace given, stale grace, not yet signed")
    func renewals() throws {
        let receipt = Fixtures.receipt(
            """
            { "app": "com.example.diagrams", "transactions": [
              { "productId": "com.example.diagrams.sync.monthly", "transactionId": "10", "originalTransactionId": "10",
                "purchaseDate": "2026-01-01T00:00:00Z", "expiresDate": "2026-02-01T00:00:00Z" } ],
              "renewals": [
              { "productId": "com.example.diagrams.sync.monthly", "originalTransactionId": "10", "willRenew": true,
                "isInBillingRetry": true, "gracePeriodExpiresDate": "2026-02-08T00:00:00Z", "signedDate": "2026-02-01T01:00:00Z" },
              { "productId": "com.example.diagrams.sync.monthly", "originalTransactionId": "10", "willRenew": false,
                "isInBillingRetry": false, "gracePeriodExpiresDate": "2026-02-08T00:00:00Z", "signedDate": "2026-02-03T00:00:00Z" } ] }
            """)
        let early = try #require(Self.explain([ParsedReceipt(receipt)], at: "2026-02-02T00:00:00Z").product("com.example.diagrams.sync.monthly"))
        #expect(early.state == .gracePeriod)
        #expect(early.renewals.map(\.counted) == [true, false])
        #expect(early.renewals[0].grace?.end == Fixtures.instant("2026-02-08T00:00:00Z"))
        #expect(
            early.renewals[0].reason.contains(
                "(the chain's latest entry stating it: it decides productId, willRenew, isInBillingRetry, gracePeriodExpiresDate)"))
        #expect(early.renewals[1].reason == "signed 2026-02-03T00:00:00Z, after the instant: not known yet")
        #expect(early.coverage.map(\.grace) == [false, true])
        let late = try #require(Self.explain([ParsedReceipt(receipt)], at: "2026-02-04T00:00:00Z").product("com.example.diagrams.sync.monthly"))
        // Each field comes from the latest entry stating it: the later entry's grace date and its
        // `isInBillingRetry: false` make the grace stale, so the chain has none and has expired.
        #expect(late.state == .expired)
        #expect(late.renewals[1].reason.contains("isInBillingRetry false: its gracePeriodExpiresDate 2026-02-08T00:00:00Z is stale, ignored"))
        #expect(late.renewals[1].reason.contains("decides productId, willRenew"))
        #expect(late.renewals[0].reason.contains("(later entries state all it says)"))
    }

    @Test("offers carry the fact behind their rule")
    func offers() throws {
        let explanation = Self.explain([Self.trial, Self.owner], at: "2026-01-10T00:00:00Z")
        #expect(
            explanation.offer("com.example.diagrams.trial")?.because
                == "the trial is running: transaction 1001, bought 2026-01-01T09:00:00Z")
        let upgrade = try #require(explanation.offer("com.example.diagrams.pro.upgrade"))
        #expect(upgrade.eligible)
        #expect(upgrade.because.hasPrefix("qualifies: the receipts of com.example.diagrams6 show com.example.diagrams6.pro (transaction "))
        let sync = try #require(explanation.offer("com.example.diagrams.sync.monthly"))
        #expect(sync.reason == .subscribed)
        #expect(
            sync.because
                == "subscribed: active until 2026-02-17T00:00:00Z; intro offer used: transaction 2001 of com.example.diagrams.sync.monthly (isTrialPeriod)"
        )
        let later = Self.explain([Self.trial], at: "2026-02-20T00:00:00Z")
        #expect(later.offer("com.example.diagrams.trial")?.because == "the trial was taken on 2026-01-01T09:00:00Z (transaction 1001)")
        #expect(
            later.offer("com.example.diagrams.pro.upgrade")?.because
                == "needs a purchase of com.example.diagrams6.pro in com.example.diagrams6; no receipt of com.example.diagrams6 was given")
        let owner = Self.explain([Self.owner], at: "2026-02-20T00:00:00Z")
        #expect(owner.offer("com.example.diagrams.pro")?.reason == .upgradeAvailable)
        #expect(
            owner.offer("com.example.diagrams.pro")?.because.hasPrefix(
                "offer the upgrade instead: com.example.diagrams.pro.upgrade (the receipts of com.example.diagrams6 show com.example.diagrams6.pro")
                == true)
    }

    @Test("grandfather rules and grants appear as sources with why")
    func accessSources() throws {
        let receipt = Fixtures.receipt(
            """
            { "app": "com.example.diagrams", "originalApplicationVersion": "1.4", "originalPurchaseDate": "2019-05-02T17:20:00Z",
              "transactions": [],
              "grants": [ { "id": "support-1", "features": ["cloud.sync"], "start": "2026-01-01T00:00:00Z", "end": "2026-02-01T00:00:00Z" },
                          { "id": "press", "features": ["cloud.sync"], "start": "2026-03-01T00:00:00Z" } ] }
            """)
        let explanation = Self.explain([ParsedReceipt(receipt)], at: "2026-01-15T00:00:00Z")
        let pro = try #require(explanation.feature("pro"))
        #expect(pro.enabled && pro.decidedBy == "grandfathered:paid-app")
        #expect(
            pro.sources.last?.reason
                == "for originalApplicationVersion before 2.0: originalApplicationVersion 1.4 is before 2.0; covers from 2019-05-02T17:20:00Z")
        #expect(explanation.offer("com.example.diagrams.pro")?.because == "grandfather rules cover everything it grants (grandfathered:paid-app)")
        let sync = try #require(explanation.feature("cloud.sync"))
        #expect(sync.sources.map(\.id) == ["com.example.diagrams.sync.monthly", "grant:support-1", "grant:press"])
        #expect(sync.sources.map(\.covers) == [false, true, false])
        #expect(sync.sources[2].reason == "starts 2026-03-01T00:00:00Z, after the instant")
        #expect(sync.until == Fixtures.instant("2026-02-01T00:00:00Z"))
    }

    @Test("receipts of environments not accepted are listed as ignored")
    func ignoredReceipts() {
        var receipt = Fixtures.receipt(try! String(contentsOfFile: CLITests.receipt("diagrams-trial.json"), encoding: .utf8))
        receipt.environment = "sandbox"
        let explanation = Self.explain([ParsedReceipt(receipt)], at: "2026-01-10T00:00:00Z", environments: ["production"])
        #expect(
            explanation.ignoredReceipts == [
                IgnoredReceipt(
                    receipt: 0, app: "com.example.diagrams",
                    reason: "its environment `sandbox` is not among those accepted")
            ])
        #expect(explanation.features.allSatisfy { !$0.enabled })
        #expect(explanation.product("com.example.diagrams.trial")?.reason == "no transaction of this product")
    }

    @Test("explanations are Codable: JSON decodes back to the same values")
    func codable() throws {
        let explanation = Self.explain([Self.trial, Self.owner], at: "2026-01-15T09:00:00Z")
        let decoded = try JSONDecoder().decode(Explanation.self, from: Data(explanation.json.utf8))
        #expect(decoded == explanation)
    }

    @Test("entitle explain: summary, --feature, --product, --offer in text and JSON; an unknown id is misuse")
    func command() throws {
        func run(_ extra: [String]) -> CommandOutput {
            EntitleCommand.run(
                [
                    "explain", "--catalog", CLITests.products, "--receipt", CLITests.receipt("diagrams-trial.json"),
                    "--at", "2026-02-12",
                ] + extra, environment: CLITests.environment())
        }
        let summary = run([])
        #expect(summary.exitCode == 0)
        #expect(
            summary.standardOutput.contains(
                "  export.pdf  off                            com.example.diagrams.trial: coverage ended 2026-01-15T09:00:00Z\n"))
        let feature = run(["--feature", "export.pdf"])
        #expect(feature.standardOutput.contains("feature export.pdf: off (last covered by com.example.diagrams.trial until 2026-01-15T09:00:00Z)\n"))
        #expect(
            feature.standardOutput.contains(
                "        1001  receipt 0  bought 2026-01-01T09:00:00Z  counts: covers [2026-01-01T09:00:00Z, 2026-01-15T09:00:00Z)"))
        let product = run(["--product", "com.example.diagrams.sync.monthly"])
        #expect(product.standardOutput.contains("product com.example.diagrams.sync.monthly: grace-period until 2026-02-17T00:00:00Z, renews\n"))
        #expect(product.standardOutput.contains("    [2026-02-10T12:00:00Z, 2026-02-17T00:00:00Z) grace\n"))
        let offer = run(["--offer", "com.example.diagrams.trial"])
        #expect(
            offer.standardOutput.hasSuffix(
                "offer com.example.diagrams.trial: do not offer (trial-used)\n  the trial was taken on 2026-01-01T09:00:00Z (transaction 1001)\n  buying it adds pro, export.pdf\n"
            ))
        let json = run(["--feature", "export.pdf", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect((object["feature"] as? [String: Any])?["decidedBy"] as? String == "com.example.diagrams.trial")
        #expect((object["products"] as? [[String: Any]])?.count == 5, "the three App Store products, the web and the Android plan")
        let unknown = run(["--feature", "export.pfd"])
        #expect(unknown.exitCode == 2)
        #expect(unknown.standardError.contains("`com.example.diagrams` has no feature `export.pfd`\n  help: did you mean `export.pdf`?\n"))
        let both = run(["--feature", "pro", "--offer", "com.example.diagrams.pro"])
        #expect(both.exitCode == 2)
        #expect(
            both.standardError.hasPrefix(
                "entitle explain: give one of `--feature`, `--product`, `--offer`, `--balance`, `--limit`, `--transaction` or `--retention`, "
                    + "not `--feature` and `--offer`\n"))
        // A balance: the consumables crediting it, each transaction with its units.
        let balance = run(["--balance", "stencils"])
        #expect(balance.exitCode == 0)
        #expect(balance.standardOutput.contains("balance stencils: 13\n  com.example.diagrams.stencils.10  10 per unit\n"))
        #expect(balance.standardOutput.contains("  receipt 0  bought 2026-01-04T08:30:00Z  counts: 2 units credit\n"))
        #expect(
            balance.standardOutput.hasSuffix(
                "  spent 7 in 2 consumptions\n      c-1  receipt 0  2026-01-05T10:00:00Z  3\n      c-2  receipt 0  2026-01-12T16:45:00Z  4\n"))
        let consumable = run(["--product", "com.example.diagrams.stencils.10"])
        #expect(
            consumable.exitCode == 2
                && consumable.standardError.contains("is a consumable\n  help: its transactions are explained with its currency (`--balance`)"))
    }

    @Test("an explanation of a hostile receipt stays linear: 20,000 copies and renewal entries")
    func largeInput() {
        var transactions: [String] = []
        var renewals: [String] = []
        for index in 0..<20_000 {
            transactions.append(
                #"{"productId":"com.example.diagrams.daypass","transactionId":"\#(index % 5_000)","purchaseDate":"2026-01-01T00:00:00Z"}"#)
            renewals.append(#"{"productId":"com.example.diagrams.sync.monthly","originalTransactionId":"\#(index)","willRenew":true}"#)
        }
        let json =
            #"{"app":"com.example.diagrams","transactions":[\#(transactions.joined(separator: ","))],"renewals":[\#(renewals.joined(separator: ","))]}"#
        let receipt = try! ParsedReceipt(json: Data(json.utf8))
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            let explanation = Self.explain([receipt], at: "2026-01-02T00:00:00Z")
            #expect(explanation.product("com.example.diagrams.daypass")?.transactions.count == 20_000)
        }
        // Quadratic work on 20,000 items takes minutes; linear work, well under one.
        #expect(elapsed < .seconds(60))
    }
}
