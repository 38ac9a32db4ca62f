import EntitleWorkloads
import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

@Suite("Catalog changes and their impact")
struct DiffTests {
    static let diagrams = try! String(contentsOfFile: Fixtures.productsDirectory + "/diagrams.json", encoding: .utf8)

    /// The example catalogs with diagrams.json edited, in a temporary directory.
    static func edited(_ edit: (String) -> String) throws -> URL {
        let directory = try CLITests.catalogDirectory()
        try edit(diagrams).write(to: directory.appendingPathComponent("diagrams.json"), atomically: true, encoding: .utf8)
        return directory
    }

    static func replacing(_ old: String, _ new: String) -> (String) -> String {
        { text in
            precondition(text.contains(old), "the edit does not apply: \(old)")
            return text.replacingOccurrences(of: old, with: new)
        }
    }

    static let dayPassGrants = #""duration": "P1D",\#n      "grants": ["pro"]"#

    @Test("a plan that grants more than another store's now sells to that store's subscribers: its own line in diff and in the impact")
    func offeredToSubscribers() throws {
        let edit = Self.replacing(
            #""group": "pro.play",\#n      "duration": "P1Y",\#n      "grants": ["pro", "export.pdf"]"#,
            #""group": "pro.play",\#n      "duration": "P1Y",\#n      "grants": ["pro", "export.pdf", "cloud.sync"]"#)
        let directory = try Self.edited(edit)
        let new = try Portfolio.load(path: directory.path).get()
        let changes = CatalogDiff.changes(from: Fixtures.examples, to: new).filter { $0.kind == .offeredToSubscribers }
        #expect(
            changes.map(\.description) == [
                "com.example.diagrams: would now be offered play:pro:yearly while subscribed on stripe:prod_DiagramsProYearly"
            ])
        #expect(changes.first?.dangerous == true && changes.first?.why?.contains("it now grants cloud.sync") == true, "\(changes)")
        // Undone: the Play plan is kept from web subscribers again (no such change), and the App
        // Store's sync plan, which Play's granted too, is now offered to Play subscribers.
        #expect(
            CatalogDiff.changes(from: new, to: Fixtures.examples).filter { $0.kind == .offeredToSubscribers }.map(\.description) == [
                "com.example.diagrams: would now be offered com.example.diagrams.sync.monthly while subscribed on play:pro:yearly"
            ])

        // A web subscriber in the corpus: the Play plan is now offered to them, on its own line.
        let normalized = CLITests.run([
            "normalize", "--app", Diagrams.app, Fixtures.packageRoot.appendingPathComponent("products/store-data/stripe-events.json").path,
        ])
        #expect(normalized.exitCode == 0, "\(normalized.standardError)")
        let corpus = Fixtures.scratch("subscribed-elsewhere")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        try normalized.standardOutput.write(to: corpus.appendingPathComponent("web-1.json"), atomically: true, encoding: .utf8)
        let diff = CLITests.run(["diff", CLITests.products, directory.path, "--customers", corpus.path, "--at", "2026-04-20"])
        #expect(
            diff.standardOutput.contains(
                "would now be offered play:pro:yearly while subscribed on Stripe (offer play:pro:yearly: do not offer (subscribed-elsewhere) -> offer) for 1 of 1: web-1"
            ), "\(diff.standardOutput)")
        let json = CLITests.run(["diff", CLITests.products, directory.path, "--customers", corpus.path, "--at", "2026-04-20", "--format", "json"])
        #expect(json.standardOutput.contains(#""subscribedIn": ["stripe"]"#) || json.standardOutput.contains(#""subscribedIn":["stripe"]"#))
    }

    @Test("every key of a product, an introductory offer and an offer has a text diff compares: a new key cannot be invisible to diff")
    func everyKeyIsCompared() {
        func keys(_ object: CatalogObject) -> Set<String> { Set(object.keys().map(\.name)).subtracting([CatalogKey.comment.name]) }
        #expect(Set(CatalogProduct.fieldTexts.keys) == keys(.product))
        #expect(Set(CatalogProduct.IntroOffer.fieldTexts.keys) == keys(.introductoryOffer))
        #expect(Set(SubscriptionOffer.fieldTexts.keys) == keys(.subscriptionOffer))
    }

    @Test("every dangerous change is flagged, with why; harmless ones are not")
    func dangerousChanges() throws {
        let old = Fixtures.examples
        func changes(_ edit: @escaping (String) -> String) throws -> [CatalogChange] {
            let directory = try Self.edited(edit)
            let new = try Portfolio.load(path: directory.path).get()
            return CatalogDiff.changes(from: old, to: new).filter { $0.app == Diagrams.app }
        }
        let removedGrant = try changes(Self.replacing(Self.dayPassGrants, #""duration": "P1D", "grants": []"#))
        #expect(
            removedGrant == [
                CatalogChange(
                    app: Diagrams.app, kind: .productChanged, id: Diagrams.dayPass, field: "grants",
                    from: "pro", to: "nothing", dangerous: true, why: "its buyers lose pro")
            ])
        let renamed = try changes(Self.replacing(#""id": "com.example.diagrams.daypass""#, #""id": "com.example.diagrams.daypass2""#))
        #expect(renamed.map(\.kind) == [.productAdded, .productRemoved])
        #expect(renamed[1].dangerous && renamed[1].why?.hasPrefix("its buyers' purchases will grant nothing") == true)
        #expect(!renamed[0].dangerous)
        let retyped = try changes(
            Self.replacing(#""type": "non-renewing-subscription","#, #""type": "non-consumable","#)
                >>> Self.replacing(#""duration": "P1D","#, ""))
        #expect(retyped.contains { $0.field == "type" && $0.dangerous })
        let shorter = try changes(Self.replacing(#""duration": "P1D""#, #""duration": "PT12H""#))
        #expect(
            shorter == [
                CatalogChange(
                    app: Diagrams.app, kind: .productChanged, id: Diagrams.dayPass, field: "duration",
                    from: "P1D", to: "PT12H", dangerous: true,
                    why: "existing passes and trials are recomputed with the new duration")
            ])
        let credits = try changes(Self.replacing(#""credits": { "stencils": 10 }"#, #""credits": { "stencils": 8 }"#))
        #expect(credits.first?.field == "credits" && credits.first?.dangerous == true)
        #expect(credits.first?.why == "balances of customers who bought it drop")
        let moreCredits = try changes(Self.replacing(#""credits": { "stencils": 10 }"#, #""credits": { "stencils": 12 }"#))
        #expect(moreCredits.first?.field == "credits" && moreCredits.first?.dangerous == false)
        // A pass's group is the subscriptions family's key: it says a pass grouped anew stacks
        // differently, and a subscription's group moving takes nothing.
        let grouped = try changes(Self.replacing(#""duration": "P1D","#, #""duration": "P1D", "group": "passes","#))
        #expect(
            grouped == [
                CatalogChange(
                    app: Diagrams.app, kind: .productChanged, id: Diagrams.dayPass, field: "group", from: nil, to: "passes",
                    dangerous: true, why: "existing passes stack differently")
            ])
        let regrouped = try changes(Self.replacing(#""group": "pro.web""#, #""group": "pro.www""#))
        #expect(regrouped.map(\.field) == ["group"] && regrouped.allSatisfy { !$0.dangerous })
        let rule = try changes(Self.replacing(#""originalApplicationVersionBefore": "2.0""#, #""originalApplicationVersionBefore": "1.5""#))
        #expect(rule.first?.kind == .ruleChanged && rule.first?.field == "condition" && rule.first?.dangerous == true)
        let renamedProduct = try changes(Self.replacing(#""name": "Pro Day Pass""#, #""name": "Day Pass""#))
        #expect(
            renamedProduct == [
                CatalogChange(
                    app: Diagrams.app, kind: .productChanged, id: Diagrams.dayPass, field: "name",
                    from: "Pro Day Pass", to: "Day Pass")
            ])
        let addedGrant = try changes(Self.replacing(Self.dayPassGrants, #""duration": "P1D", "grants": ["pro", "export.pdf"]"#))
        #expect(addedGrant.count == 1 && !addedGrant[0].dangerous)
        let retired = try changes(Self.replacing(#""name": "Pro Day Pass","#, #""name": "Pro Day Pass", "available": false,"#))
        #expect(retired.first?.field == "available" && retired.first?.dangerous == false)
        let removedFeature = try changes(Self.replacing(#""cloud.sync": "Cloud sync""#, #""cloud.sync": "Cloud sync", "beta": "Beta""#))
        #expect(removedFeature.map(\.kind).contains(.featureAdded))
        #expect(try changes { $0 }.isEmpty)
    }

    /// A corpus of `count` generated Diagrams customers as JSON Lines, each with a few purchases.
    static func corpus(_ count: Int, seed: UInt64 = 7) throws -> URL {
        var generator = WorkloadGenerator(seed: seed)
        var lines = ""
        for index in 0..<count {
            let receipt = generator.receipt(for: .diagrams, transactions: 1 + index % 6)
            let compact = receipt.replacingOccurrences(of: "\n", with: " ")
            lines += #"{"customer": "c-\#(index)", "receipts": [\#(compact)]}"# + "\n"
        }
        let file = Fixtures.scratch("corpus", ending: ".jsonl")
        try lines.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("the impact over 10,000 generated customers matches evaluating each customer under both catalogs")
    func impactOverCorpus() throws {
        let corpus = try Self.corpus(10_000)
        let new = try Self.edited(Self.replacing(Self.dayPassGrants, #""duration": "P1D", "grants": []"#))
        let at = "2025-06-15T00:00:00Z"
        let output = CLITests.run([
            "diff", Fixtures.productsDirectory, new.path, "--customers", corpus.path, "--at", at,
            "--format", "json",
        ])
        #expect(output.exitCode == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        let impact = try #require((object["impact"] as? [[String: Any]])?.first)
        #expect(impact["customers"] as? Int == 10_000)
        let changes = try #require(impact["changes"] as? [[String: Any]])
        let lost = try #require(changes.first { $0["kind"] as? String == "feature-off" && $0["id"] as? String == "pro" })

        // The same question asked directly of the library, customer by customer.
        let newPortfolio = try Portfolio.load(path: new.path).get()
        var expected: [String] = []
        let data = try Data(contentsOf: corpus)
        for (index, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
            let parsed = try CustomerLine(Data(line), name: "corpus", line: index + 1)
            let receipts = try parsed.receipts.map { try ParsedReceipt(json: $0) }
            let before = try Fixtures.examples.evaluate(app: Diagrams.app, receipts: receipts, at: Fixtures.instant(at))
            let after = try newPortfolio.evaluate(app: Diagrams.app, receipts: receipts, at: Fixtures.instant(at))
            if before.isEnabled("pro") && !after.isEnabled("pro") { expected.append(parsed.customer) }
        }
        #expect(expected.count >= 5, "the corpus should hold day-pass holders")
        #expect(lost["count"] as? Int == expected.count)
        #expect(lost["loss"] as? Bool == true)
        #expect((lost["customers"] as? [String]) == Array(expected.prefix(ImpactReport.keptIds)))
        #expect(impact["losing"] as? Int == expected.count)

        let gate = CLITests.run([
            "diff", Fixtures.productsDirectory, new.path, "--customers", corpus.path, "--at", at,
            "--fail-on-loss",
        ])
        #expect(gate.exitCode == 1)
        #expect(gate.standardOutput.contains("    feature pro: on -> off for \(ImpactReport.count(expected.count)) of 10,000: c-"))
        #expect(gate.standardOutput.contains("DANGEROUS: its buyers lose pro"))
        #expect(
            gate.standardError.hasSuffix(
                "entitle: 1 catalog change (1 dangerous); \(ImpactReport.count(expected.count)) customers lose a feature or balance\n"))
        let same = CLITests.run([
            "diff", Fixtures.productsDirectory, Fixtures.productsDirectory, "--customers", corpus.path,
            "--at", at, "--fail-on-loss",
        ])
        #expect(same.exitCode == 0)
        #expect(
            same.standardOutput == "catalog changes\n  none\n\nimpact on 10,000 customers at 2025-06-15T00:00:00Z\n  no customer's answer changes\n")
    }

    @Test("a corpus directory: one file per customer or one subdirectory per customer; unreadable customers are counted")
    func corpusDirectory() throws {
        let directory = Fixtures.scratch("customers")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("c-3"), withIntermediateDirectories: true)
        let trial = try String(contentsOfFile: CLITests.receipt("diagrams-trial.json"), encoding: .utf8)
        try trial.write(to: directory.appendingPathComponent("c-1.json"), atomically: true, encoding: .utf8)
        try "{ \"app\": ".write(to: directory.appendingPathComponent("c-2.json"), atomically: true, encoding: .utf8)
        try trial.write(to: directory.appendingPathComponent("c-3/a.json"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: CLITests.receipt("diagrams6-owner.json"), toPath: directory.appendingPathComponent("c-3/b.json").path)
        let new = try Self.edited(Self.replacing(Self.dayPassGrants, #""duration": "P1D", "grants": []"#))
        let output = CLITests.run([
            "diff", Fixtures.productsDirectory, new.path, "--customers", directory.path,
            "--at", "2026-01-15T09:00:00Z",
        ])
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("impact on 2 customers at 2026-01-15T09:00:00Z\n"))
        #expect(output.standardOutput.contains("    feature pro: on -> off for 2 of 2: c-1, c-3  LOSS\n"))
        #expect(output.standardOutput.contains("  1 customer could not be read:\n    \(directory.path)/c-2.json:1:10: error: "))
        let missing = CLITests.run(["diff", Fixtures.productsDirectory, new.path, "--customers", "/nonexistent/corpus"])
        #expect(missing.standardError.contains("/nonexistent/corpus:1:1: error: no such customer corpus"))
        #expect(missing.exitCode == 1)
    }

    @Test("--fail-on-loss passes only when the whole corpus was evaluated and nobody loses anything")
    func gateNeedsTheWholeCorpus() throws {
        let empty = Fixtures.scratch("empty", ending: ".jsonl")
        try Data().write(to: empty)
        let trial = try String(contentsOfFile: CLITests.receipt("diagrams-trial.json"), encoding: .utf8).replacingOccurrences(of: "\n", with: " ")
        let oneBad = Fixtures.scratch("bad", ending: ".jsonl")
        try (#"{"customer": "a", "receipts": [\#(trial)]}"# + "\n" + #"{"customer": "b", "receipts": [{"app": 5}]}"# + "\n")
            .write(to: oneBad, atomically: true, encoding: .utf8)
        let good = Fixtures.scratch("good", ending: ".jsonl")
        try (#"{"customer": "a", "receipts": [\#(trial)]}"# + "\n").write(to: good, atomically: true, encoding: .utf8)
        defer { for file in [empty, oneBad, good] { try? FileManager.default.removeItem(at: file) } }
        func gate(_ corpus: String) -> CommandOutput {
            CLITests.run([
                "diff", Fixtures.productsDirectory, Fixtures.productsDirectory, "--customers", corpus,
                "--at", "2026-01-15T09:00:00Z", "--fail-on-loss",
            ])
        }
        for corpus in ["/nonexistent/corpus", empty.path, oneBad.path] {
            let output = gate(corpus)
            #expect(output.exitCode == 1, "\(corpus)")
            #expect(output.standardError.contains("not every customer of the corpus could be evaluated"), "\(corpus): \(output.standardError)")
        }
        #expect(gate(good.path).exitCode == 0)
    }

    @Test("an app the new catalogs no longer have: its customers lose what it granted")
    func removedApp() throws {
        let new = try CLITests.catalogDirectory(without: ["diagrams6.json"])
        let corpus = Fixtures.scratch("owners")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLITests.receipt("diagrams6-owner.json"), toPath: corpus.appendingPathComponent("d6.json").path)
        defer {
            try? FileManager.default.removeItem(at: corpus)
            try? FileManager.default.removeItem(at: new)
        }
        let output = CLITests.run([
            "diff", Fixtures.productsDirectory, new.path, "--customers", corpus.path,
            "--at", "2026-03-05T00:00:00Z", "--fail-on-loss",
        ])
        #expect(output.exitCode == 1)
        #expect(
            output.standardOutput.contains("  com.example.diagrams6\n    feature pro: on -> off for 1 of 1: d6  LOSS\n"), "\(output.standardOutput)")
    }

    @Test("a lower balance is a loss in text and JSON alike; a repeated customer id counts once")
    func balancesAndRepeats() throws {
        let new = try Self.edited(Self.replacing(#""credits": { "stencils": 10 }"#, #""credits": { "stencils": 5 }"#))
        let receipt =
            #"{"app": "com.example.diagrams", "transactions": [{"productId": "com.example.diagrams.stencils.10", "transactionId": "s1", "purchaseDate": "2026-01-02T00:00:00Z"}]}"#
        let corpus = Fixtures.scratch("credits", ending: ".jsonl")
        try [
            #"{"customer": "alice", "receipts": [\#(receipt)]}"#, #"{"customer": "bob", "receipts": [\#(receipt)]}"#,
            #"{"customer": "alice", "receipts": [\#(receipt)]}"#,
        ].joined(separator: "\n").write(to: corpus, atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(at: corpus)
            try? FileManager.default.removeItem(at: new)
        }
        let json = CLITests.run([
            "diff", Fixtures.productsDirectory, new.path, "--customers", corpus.path, "--at", "2026-03-05T00:00:00Z",
            "--format", "json",
        ])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let impact = try #require((object["impact"] as? [[String: Any]])?.first)
        let balance = try #require((impact["changes"] as? [[String: Any]])?.first { $0["kind"] as? String == "balance" })
        #expect(balance["loss"] as? Bool == true)
        #expect(balance["direction"] as? String == "lower")
        #expect(balance["count"] as? Int == 2)
        #expect(impact["losing"] as? Int == 2)
        #expect(impact["customers"] as? Int == 2)
        #expect(impact["unreadable"] as? Int == 1)
        let text = CLITests.run(["diff", Fixtures.productsDirectory, new.path, "--customers", corpus.path, "--at", "2026-03-05T00:00:00Z"])
        #expect(text.standardOutput.contains("    balance stencils: lower for 2 of 2: alice, bob  LOSS\n"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("customer `alice` appears more than once in the corpus; only its first entry counts"))
        #expect(text.standardOutput.contains("\(corpus.path):3:1: error: customer `alice` appears more than once"), "located at the repeat")
    }

    @Test(
        "a base64 app receipt written as a string on a corpus line is read as its file would be",
        .enabled(if: Fixtures.sharedFixturesAvailable, "needs the shared App Store fixtures"))
    func pkcs7OnCorpusLine() throws {
        let base64 = try String(
            contentsOf: Fixtures.sharedFixtures.appendingPathComponent("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-xcode"), encoding: .utf8
        )
        .filter { !$0.isWhitespace }
        let corpus = Fixtures.scratch("pkcs7", ending: ".jsonl")
        try #"{"customer": "a", "receipts": ["\#(base64)"]}"#.write(to: corpus, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: corpus) }
        let output = CLITests.run([
            "check", "--catalog", Fixtures.productsDirectory, "--customers", corpus.path,
            "--at", "2026-01-15T00:00:00Z", "--app", "com.example.diagrams",
        ])
        #expect(output.standardOutput.hasPrefix(#"{"customer":"a","app":"com.example.diagrams""#), "\(output.standardOutput.prefix(300))")
        #expect(
            output.standardError.hasSuffix("1 customer: 1 evaluated, 0 could not be\n") || output.standardError.contains("1 evaluated"),
            "\(output.standardError)")
    }

    @Test("customers are told apart exactly; dangling links are unreadable customers; a corpus named twice is read once")
    func corpusIdentities() throws {
        let receipt = #"{"app": "com.example.diagrams", "transactions": []}"#
        try Fixtures.withTemporaryDirectory("ids") { directory in
            let lines = directory.appendingPathComponent("ids.jsonl")
            try [
                #"{"customer": "\#u{E9}", "receipts": [\#(receipt)]}"#, #"{"customer": "e\#u{301}", "receipts": [\#(receipt)]}"#,
                #"{"customer": 1, "receipts": [\#(receipt)]}"#, #"{"customer": "1", "receipts": [\#(receipt)]}"#,
                #"{"customer": "c-9", "receipts": []}"#,
            ].joined(separator: "\n").write(to: lines, atomically: true, encoding: .utf8)
            func impact(_ arguments: [String]) throws -> [String: Any] {
                let output = CLITests.run(
                    [
                        "diff", Fixtures.productsDirectory, Fixtures.productsDirectory, "--at", "2026-01-15T00:00:00Z",
                        "--format", "json",
                    ] + arguments)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
                return try #require((object["impact"] as? [[String: Any]])?.first)
            }
            // é composed and decomposed, 1 and "1": four customers; the empty list is unreadable, with its id.
            let byLine = try impact(["--customers", lines.path, "--customers", "\(directory.path)/./ids.jsonl"])
            #expect(byLine["customers"] as? Int == 4)
            #expect(byLine["unreadable"] as? Int == 1)
            let error = try #require((byLine["errors"] as? [[String: Any]])?.first)
            #expect(error["message"] as? String == "customer `c-9` has an empty `receipts` list: nothing to evaluate")
            #expect(error["line"] as? Int == 5)
            // A directory with a receipt, a dangling link and a link to itself: two unreadable customers.
            let files = directory.appendingPathComponent("files")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            try receipt.write(to: files.appendingPathComponent("ok.json"), atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(
                atPath: files.appendingPathComponent("dangling.json").path, withDestinationPath: "/nonexistent-entitle")
            try FileManager.default.createSymbolicLink(atPath: files.appendingPathComponent("loop.json").path, withDestinationPath: "loop.json")
            let byFile = try impact(["--customers", files.path])
            #expect(byFile["customers"] as? Int == 1)
            #expect(byFile["unreadable"] as? Int == 2)
            let gate = CLITests.run([
                "diff", Fixtures.productsDirectory, Fixtures.productsDirectory, "--at", "2026-01-15T00:00:00Z",
                "--customers", files.path, "--fail-on-loss",
            ])
            #expect(gate.exitCode == 1, "a corpus with unreadable customers does not pass the gate")
        }
    }

    @Test("diff misuse and broken catalogs")
    func misuse() throws {
        let one = CLITests.run(["diff", Fixtures.productsDirectory])
        #expect(one.exitCode == 2 && one.standardError.hasPrefix("entitle diff: give the OLD and the NEW catalogs\n"))
        let broken = try Self.edited(Self.replacing(#""grants": ["pro"]"#, #""grants": ["pr0"]"#))
        let output = CLITests.run(["diff", Fixtures.productsDirectory, broken.path])
        #expect(output.exitCode == 1)
        #expect(output.standardError.contains("undeclared feature `pr0`"))
        #expect(output.standardError.hasSuffix("entitle: the catalogs have errors: nothing to compare\n"))
    }

    @Test("Entitlements.changes(since:) lists features, until, states, balances and offers; losses are marked")
    func entitlementChanges() throws {
        let receipt = ParsedReceipt(Fixtures.receipt(try String(contentsOfFile: CLITests.receipt("diagrams-trial.json"), encoding: .utf8)))
        let earlier = try Fixtures.examples.evaluate(app: Diagrams.app, receipts: [receipt], at: Fixtures.instant("2026-01-10T00:00:00Z"))
        let later = try Fixtures.examples.evaluate(app: Diagrams.app, receipts: [receipt], at: Fixtures.instant("2026-01-15T10:00:00Z"))
        let changes = later.changes(since: earlier)
        #expect(
            changes.map(\.description) == [
                "feature pro until: 2026-01-15T09:00:00Z -> 2026-01-16T18:00:00Z",
                "feature export.pdf: on -> off",
                "product com.example.diagrams.trial: active -> expired",
                "product com.example.diagrams.daypass: not-purchased -> active",
                "balance stencils: 17 -> 13",
                "offer com.example.diagrams.trial: do not offer (owned) -> do not offer (trial-used)",
            ])
        #expect(changes.filter(\.isLoss).map(\.id) == ["export.pdf", "stencils"])
        #expect(later.changes(since: later).isEmpty)
        let encoded = try JSONEncoder().encode(changes)
        let decoded = try JSONDecoder().decode([EntitlementChange].self, from: encoded)
        #expect(decoded == changes)
        // Each change carries `loss` in its JSON, as `diff --format json` does.
        let objects = try #require(try JSONSerialization.jsonObject(with: encoded) as? [[String: Any]])
        #expect(objects.map { $0["loss"] as? Bool } == changes.map(\.isLoss))
        #expect(Set(objects[0].keys) == ["kind", "id", "from", "to", "loss"])
    }

    @Test("check --customers prints one JSON line per customer; a bad receipt fails only its line")
    func batchCheck() throws {
        let trial = try String(contentsOfFile: CLITests.receipt("diagrams-trial.json"), encoding: .utf8).replacingOccurrences(of: "\n", with: " ")
        let lines = """
            {"customer": "a", "receipts": [\(trial)]}
            {"customer": 7, "receipts": [{"app": "com.example.diagrams", "transactions": [{"productId": "x"}]}]}

            {"customer": "c", "receipts": [\(trial)]}
            """
        let file = Fixtures.scratch("batch", ending: ".jsonl")
        try lines.write(to: file, atomically: true, encoding: .utf8)
        let output = CLITests.run([
            "check", "--catalog", Fixtures.productsDirectory, "--customers", file.path,
            "--at", "2026-01-15T09:00:00Z",
        ])
        #expect(output.exitCode == 1)
        let printed = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(printed.count == 3)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(printed[0].utf8)) as? [String: Any])
        #expect(first["customer"] as? String == "a")
        let single = CLITests.run([
            "check", "--catalog", Fixtures.productsDirectory, "--receipt", CLITests.receipt("diagrams-trial.json"),
            "--at", "2026-01-15T09:00:00Z", "--format", "json",
        ])
        var expected = try #require(try JSONSerialization.jsonObject(with: Data(single.standardOutput.utf8)) as? [String: Any])
        expected["customer"] = "a"
        #expect(NSDictionary(dictionary: first).isEqual(to: expected))
        let second = try #require(try JSONSerialization.jsonObject(with: Data(printed[1].utf8)) as? [String: Any])
        #expect(second["customer"] as? Int == 7, "a whole-number id is written back as a number")
        let error = try #require((second["errors"] as? [[String: Any]])?.first)
        #expect(error["line"] as? Int == 2)
        #expect(error["column"] as? Int == 79)  // the transaction object without `transactionId`
        #expect(error["path"] as? String == "receipts[0].transactions[0]")
        #expect(printed[2].hasPrefix(#"{"customer":"c","app":"com.example.diagrams""#))
        #expect(output.standardError.hasSuffix("entitle: 3 customers: 2 evaluated, 1 could not be\n"))
        let both = CLITests.run([
            "check", "--catalog", Fixtures.productsDirectory, "--customers", file.path,
            "--receipt", CLITests.receipt("diagrams-trial.json"),
        ])
        #expect(both.exitCode == 2)
    }
}

/// Applies two edits in turn.
func >>> (first: @escaping (String) -> String, second: @escaping (String) -> String) -> (String) -> String {
    { second(first($0)) }
}
infix operator >>> : AdditionPrecedence
