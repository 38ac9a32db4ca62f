import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// `CatalogProof`: a change planted in the example catalogs is found, with a witness that
/// evaluation confirms on both catalogs; equivalent rewrites are `same`; the arguments that let the
/// search skip combinations lose nothing.
@Suite("Proving catalog changes")
struct ProofTests {
    /// A copy of products/ with `file` edited, as a directory.
    static func edited(_ file: String, _ edits: [(String, String)]) throws -> URL {
        let directory = try CLITests.catalogDirectory()
        let url = directory.appendingPathComponent(file)
        var text = try String(contentsOf: url, encoding: .utf8)
        for (old, new) in edits {
            precondition(text.contains(old), "the edit does not apply: \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        try text.write(to: url, atomically: true, encoding: .utf8)
        return directory
    }

    static func portfolio(_ directory: URL) throws -> Portfolio {
        try Portfolio.load(path: directory.path).get()
    }

    /// A change planted in one catalog, the part of the answer it must show on, and which way.
    struct Plant: Sendable, CustomTestStringConvertible {
        var name: String
        var file: String
        var edits: [(String, String)]
        var item: ProofItem
        var direction: ProofVerdict
        var testDescription: String { name }
    }

    static let diagrams = "com.example.diagrams", starquest = "com.example.starquest"

    static let plants: [Plant] = [
        Plant(
            name: "a grant removed", file: "diagrams.json",
            edits: [(#""duration": "P1D",\#n      "grants": ["pro"]"#, #""duration": "P1D", "grants": []"#)],
            item: ProofItem(app: diagrams, kind: .feature, id: "pro"), direction: .less),
        Plant(
            name: "a duration shortened", file: "diagrams.json",
            edits: [(#""duration": "P1D""#, #""duration": "PT12H""#)],
            item: ProofItem(app: diagrams, kind: .product, id: "com.example.diagrams.daypass"), direction: .less),
        Plant(
            name: "a trial unpaired", file: "diagrams.json",
            edits: [(#""trialOf": "com.example.diagrams.pro","#, "")],
            item: ProofItem(app: diagrams, kind: .feature, id: "export.pdf"), direction: .more),
        Plant(
            name: "a level swapped", file: "starquest.json",
            edits: [
                (
                    #""level": 2,\#n      "duration": "P1M",\#n      "familyShareable": true,\#n      "introOffer""#,
                    #""level": 1,\#n      "duration": "P1M",\#n      "familyShareable": true,\#n      "introOffer""#
                ),
                (
                    #""level": 1,\#n      "duration": "P1M",\#n      "familyShareable": true,\#n      "grants": ["vip.lounge", "vip.plus""#,
                    #""level": 2,\#n      "duration": "P1M",\#n      "familyShareable": true,\#n      "grants": ["vip.lounge", "vip.plus""#
                ),
            ],
            item: ProofItem(app: starquest, kind: .offer, id: "com.example.starquest.vip.plus.monthly"), direction: .changed),
        Plant(
            name: "a grandfather threshold moved", file: "diagrams.json",
            edits: [(#""originalApplicationVersionBefore": "2.0""#, #""originalApplicationVersionBefore": "1.5""#)],
            item: ProofItem(app: diagrams, kind: .feature, id: "pro"), direction: .less),
        Plant(
            name: "an offer condition tightened", file: "diagrams.json",
            edits: [(#""paidAtLeast": "P3M", "lapsedAtLeast""#, #""paidAtLeast": "P4M", "lapsedAtLeast""#)],
            item: ProofItem(app: diagrams, kind: .promotion, id: "sync.winback", product: "com.example.diagrams.sync.monthly"),
            direction: .less),
        Plant(
            name: "the web plan's grace period shortened", file: "diagrams.json",
            edits: [(#""gracePeriod": "P7D""#, #""gracePeriod": "P3D""#)],
            item: ProofItem(app: diagrams, kind: .feature, id: "pro"), direction: .less),
        Plant(
            name: "the Android plan's PDF export taken away", file: "diagrams.json",
            edits: [
                (
                    #""group": "pro.play",\#n      "duration": "P1Y",\#n      "grants": ["pro", "export.pdf"]"#,
                    #""group": "pro.play",\#n      "duration": "P1Y",\#n      "grants": ["pro"]"#
                )
            ],
            item: ProofItem(app: diagrams, kind: .feature, id: "export.pdf"), direction: .less),
    ]

    @Test("a planted change is found, and both catalogs' evaluation confirms the witness", arguments: plants)
    func plantedChange(_ plant: Plant) throws {
        let old = Fixtures.examples
        let new = try Self.portfolio(try Self.edited(plant.file, plant.edits))
        let report = CatalogProof.compare(old, new)
        let found = try #require(report.items.first { $0.item == plant.item }, "no item \(plant.item)")
        #expect(
            found.verdict == plant.direction || (plant.direction == .changed && found.verdict != .same),
            "\(plant.item): \(found.verdict)")
        let witness = try #require(found.witnesses.first { $0.direction == plant.direction }, "no \(plant.direction) witness")
        #expect(witness.old != witness.new)
        // What `check` evaluates: the portfolio, the witness's receipts, its instant.
        let before = try old.evaluate(app: plant.item.app, receipts: witness.receipts, at: witness.at)
        let after = try new.evaluate(app: plant.item.app, receipts: witness.receipts, at: witness.at)
        let (oldAnswer, newAnswer) = (Self.answer(plant.item, before), Self.answer(plant.item, after))
        #expect(oldAnswer != newAnswer, "the catalogs agree at the witness: \(oldAnswer)")
        switch (plant.item.kind, plant.direction) {
        case (.feature, .less): #expect(before.isEnabled(plant.item.id) && !after.isEnabled(plant.item.id))
        case (.feature, .more): #expect(!before.isEnabled(plant.item.id) && after.isEnabled(plant.item.id))
        case (.product, .less):
            #expect([.active, .gracePeriod].contains(before.product(plant.item.id)?.state))
            #expect(![.active, .gracePeriod].contains(after.product(plant.item.id)?.state))
        case (.promotion, .less): #expect(oldAnswer.hasPrefix("eligible") && newAnswer.hasPrefix("not eligible"))
        default: break
        }
        // A store's product is shown by a receipt of that store.
        if let store = [Store.stripe, .play].first(where: { plant.name.contains($0 == .stripe ? "web" : "Android") }) {
            #expect(witness.receipts.contains { $0.store == store && !$0.transactions.isEmpty }, "\(witness.receipts.map(\.store))")
        }
        // The other parts of the catalogs are untouched: nothing else differs in the other apps.
        let otherApps = report.differences.filter { $0.item.app != plant.item.app }
        #expect(otherApps.isEmpty, "\(otherApps.map(\.item))")
    }

    @Test("equivalent rewrites are `same`: keys reordered, descriptions changed, products reordered")
    func equivalentRewrites() throws {
        let directory = try CLITests.catalogDirectory()
        for name in ["diagrams.json", "diagrams6.json", "starquest.json", "backyard-birds.json"] {
            let url = directory.appendingPathComponent(name)
            var catalog = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            for key in ["features", "currencies"] {
                if let descriptions = catalog[key] as? [String: String] {
                    catalog[key] = descriptions.mapValues { $0 + " (reworded)" }
                }
            }
            if let products = catalog["products"] as? [Any] { catalog["products"] = Array(products.reversed()) }
            // Keys sorted: every object's keys in another order.
            try JSONSerialization.data(withJSONObject: catalog, options: [.sortedKeys, .prettyPrinted]).write(to: url)
        }
        let report = CatalogProof.compare(Fixtures.examples, try Self.portfolio(directory))
        #expect(report.differences.isEmpty, "\(report.differences.map { "\($0.item): \($0.verdict)" })")
        // The order of products is read (ties at one level follow it), so the reordered ones were searched.
        #expect(report.items.contains { !$0.unchanged } && report.statistics.customers > 1_000)
        #expect(report.items.allSatisfy { $0.verdict == .same && $0.witnesses.isEmpty })
    }

    /// The example portfolio without the game and the bird app (the arguments' tests search
    /// what the argument would skip, which takes longer).
    /// The small portfolio compared with itself after `edits`, under `first` and then under
    /// `second` options.
    static func compareSmall(_ edits: [(String, String)], _ first: ProofOptions, _ second: ProofOptions) throws -> (ProofReport, ProofReport) {
        let old = try smallPortfolio()
        let new = try smallPortfolio(edits)
        return (CatalogProof.compare(old, new, options: first), CatalogProof.compare(old, new, options: second))
    }

    static func smallPortfolio(_ edits: [(String, String)] = [], without products: Set<String> = []) throws -> Portfolio {
        let directory = try CLITests.catalogDirectory(
            without: [
                "starquest.json", "backyard-birds.json", "atelier.json", "quill.json", "diagrams.test.json", "atelier.test.json", "quill.test.json",
            ])
        let url = directory.appendingPathComponent("diagrams.json")
        var text = try String(contentsOf: url, encoding: .utf8)
        for (old, new) in edits { text = text.replacingOccurrences(of: old, with: new) }
        if !products.isEmpty {
            var catalog = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let list = try #require(catalog["products"] as? [[String: Any]])
            catalog["products"] = list.filter { !products.contains($0["id"] as? String ?? "") }
            text = String(decoding: try JSONSerialization.data(withJSONObject: catalog), as: UTF8.self)
        }
        try text.write(to: url, atomically: true, encoding: .utf8)
        return try Self.portfolio(directory)
    }

    /// Products of diagrams.json an exhaustive search can do without: neither plant of
    /// `argumentsLoseNothing` (a grant of the day pass, the web plan's grace period) reads them,
    /// and the search of every pair of every way is quadratic.
    static let notNeededExhaustively: Set<String> = [
        "com.example.diagrams.pro.upgrade", "com.example.diagrams.sync.monthly", "com.example.diagrams.stencils.10",
    ]

    @Test("searching only related elements, and only what changed, loses nothing", arguments: [plants[0], plants[6]])
    func argumentsLoseNothing(_ plant: Plant) throws {
        var options = ProofOptions()
        options.relatedOnly = false
        options.skipsUnchanged = false
        // Diagrams without three products unrelated to either plant: searching every pair of
        // every way of eight products is minutes of a debug build.
        let old = try Self.smallPortfolio(without: Self.notNeededExhaustively)
        let new = try Self.smallPortfolio(plant.edits, without: Self.notNeededExhaustively)
        let focused = CatalogProof.compare(old, new, options: ProofOptions())
        let everything = CatalogProof.compare(old, new, options: options)
        #expect(!focused.differences.isEmpty)
        #expect(everything.statistics.customers > focused.statistics.customers)
        func directions(_ report: ProofReport) -> [String] {
            report.items.map { "\($0.item) \($0.verdict) \($0.witnesses.map(\.direction.rawValue))" }
        }
        #expect(directions(focused) == directions(everything))
        // The smallest witnesses have as few transactions either way.
        #expect(focused.items.map { $0.witnesses.map(\.transactions) } == everything.items.map { $0.witnesses.map(\.transactions) })
    }

    @Test("the report does not depend on the number of threads")
    func threadsDoNotMatter() throws {
        let (one, two) = try Self.compareSmall(Self.plants[1].edits, ProofOptions(threads: 1), ProofOptions(threads: 3))
        #expect(one.text == two.text)
        #expect(one.json == two.json)
        #expect(one.statistics == two.statistics)
    }

    @Test("a deeper search finds what a shallower finds, with the same smallest witnesses, and searches more")
    func deeperSearch() throws {
        let (one, two) = try Self.compareSmall(Self.plants[0].edits, ProofOptions(depth: 1), ProofOptions(depth: 2))
        #expect(two.statistics.customers > one.statistics.customers)
        for (shallow, deep) in zip(one.items, two.items) where shallow.verdict != .same {
            #expect(deep.verdict != .same)
            for witness in shallow.witnesses {
                #expect(deep.witnesses.first { $0.direction == witness.direction }?.transactions == witness.transactions)
            }
        }
        #expect(one.searched.hasPrefix("searched every receipt of up to 1 transaction at every boundary instant: "))
    }

    @Test("a web plan added with the App Store plan's grants: the same for App Store customers, more for web ones")
    func webPlanAdded() throws {
        let old = try Self.smallPortfolio()
        let webPlan = """
            { "id": "prod_Web", "store": "stripe", "type": "auto-renewable-subscription", "name": "Sync (web)", "group": "sync.web",
              "duration": "P1M", "grants": ["cloud.sync"] },
            { "id": "com.example.diagrams.daypass"
            """
        let new = try Self.smallPortfolio([(#"{\#n      "id": "com.example.diagrams.daypass""#, webPlan)])
        let report = CatalogProof.compare(old, new)
        let sync = try #require(report.items.first { $0.item == ProofItem(app: Self.diagrams, kind: .feature, id: "cloud.sync") })
        #expect(sync.verdict == .more, "\(sync.verdict)")
        let more = try #require(sync.witnesses.first { $0.direction == .more })
        #expect(more.receipts.contains { $0.store == .stripe && $0.transactions.map(\.productId) == ["prod_Web"] })
        // App Store customers: no witness buys only App Store products.
        #expect(sync.witnesses.allSatisfy { $0.receipts.contains { $0.store == .stripe } })
        let offer = try #require(
            report.items.first { $0.item == ProofItem(app: Self.diagrams, kind: .offer, id: "com.example.diagrams.sync.monthly") })
        #expect(offer.verdict != .same, "the App Store plan is no longer sold to a web subscriber")
        // Each witness in words names the transaction its receipts hold for the product, in
        // whichever store's receipt it is; a customer with purchases is never "no purchase".
        var named = 0
        for witness in report.items.flatMap(\.witnesses) {
            let bought = witness.receipts.filter { $0.app == Self.diagrams }.flatMap { receipt in
                receipt.transactions.map { (receipt.store.key(of: $0.productId), $0.transactionId, $0.purchaseDate.rfc3339) }
            }
            if !bought.isEmpty { #expect(witness.customer != ["no purchase"], "\(witness.receipts)") }
            for line in witness.customer {
                guard let close = line.range(of: " (transaction ", options: .backwards) else { continue }
                let product = String(line[..<line.range(of: " at ")!.lowerBound])
                let id = String(line[close.upperBound...].prefix { $0 != ")" })
                #expect(
                    bought.contains { $0.0 == product && $0.1 == id && line.contains("at \($0.2)") },
                    "\(line) names no transaction of its receipts: \(bought)")
                named += 1
            }
        }
        #expect(named > 0)
    }

    @Test("a removed product: its buyers lose what it granted, shown by a purchase of it")
    func removedProduct() throws {
        let old = try Self.smallPortfolio()
        let new = try Self.smallPortfolio([(#""id": "com.example.diagrams.daypass""#, #""id": "com.example.diagrams.daypass2""#)])
        let report = CatalogProof.compare(old, new)
        let pro = try #require(report.items.first { $0.item == ProofItem(app: Self.diagrams, kind: .feature, id: "pro") })
        #expect(pro.verdict == .changed)  // the old id's buyers lose pro, the new id's gain it
        let loss = try #require(pro.witnesses.first { $0.direction == .less })
        #expect(loss.receipts[0].transactions.map(\.productId) == ["com.example.diagrams.daypass"])
        #expect(report.showsLoss)
    }

    @Test("a search past its budget of customers says it is not complete, and still shows what single elements show")
    func budget() throws {
        var options = ProofOptions()
        options.maxCustomers = 10
        let (report, full) = try Self.compareSmall(Self.plants[0].edits, options, ProofOptions())
        #expect(!report.statistics.isComplete && report.statistics.unsearchedCombinations > 0 && report.statistics.combinations == 0)
        #expect(
            report.searched.contains(
                "; not complete: \(report.statistics.unsearchedCombinations) combinations of elements past the search's limit were not searched, so `same` is not proven for what they read"
            ))
        #expect(report.items.first { $0.item.kind == .feature && $0.item.id == "pro" }?.verdict == .less)
        #expect(full.statistics.isComplete && full.statistics.incompleteness == nil && !full.searched.contains("not complete"))
    }

    @Test("a search past its time limit stops with every element alone searched, says so, and told its progress as it went")
    func timeLimit() throws {
        var stopped = ProofOptions()
        stopped.timeLimit = .zero
        let old = try Self.smallPortfolio()
        let new = try Self.smallPortfolio(Self.plants[0].edits)
        let report = CatalogProof.compare(old, new, options: stopped)
        #expect(report.statistics.stoppedAtDepth == 1 && !report.statistics.isComplete)
        #expect(report.statistics.combinations == 0 && report.statistics.unsearchedCombinations > 0)
        #expect(
            report.searched.contains("not complete: stopped at the time limit, every receipt of up to 1 transaction searched; "), "\(report.searched)"
        )
        #expect(report.json.contains("\"stoppedAtDepth\": 1"), "\(report.json.prefix(400))")
        // What single elements show is shown: the day pass's buyers lose pro.
        #expect(report.items.first { $0.item.kind == .feature && $0.item.id == "pro" }?.verdict == .less)

        // Within its time: the same as without a limit, and the progress reaches the end.
        var generous = ProofOptions()
        generous.timeLimit = .seconds(3_600)
        let seen = Reports()
        let full = CatalogProof.compare(old, new, options: generous) { seen.append($0) }
        #expect(full.statistics.isComplete && full.statistics.stoppedAtDepth == nil)
        #expect(full.items.first { $0.item.kind == .feature && $0.item.id == "pro" }?.verdict == .less)
        let reports = seen.values
        #expect(!reports.isEmpty)
        #expect(reports.allSatisfy { $0.fraction > 0 && $0.fraction <= 1 && $0.appCount == 2 })
        #expect(reports.contains { $0.fraction == 1 && $0.app == Self.diagrams })
        #expect(reports.filter { $0.app == Self.diagrams }.map(\.customers).max() ?? 0 <= full.statistics.customers)
    }

    /// Progress reports handed over from the searching threads.
    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [ProofProgress] = []
        func append(_ report: ProofProgress) { lock.withLock { stored.append(report) } }
        var values: [ProofProgress] { lock.withLock { stored } }
    }

    /// A part of an answer read through the public views, as `check --format json` shows it.
    static func answer(_ item: ProofItem, _ result: Entitlements) -> String {
        switch item.kind {
        case .feature: return result.feature(item.id).map { "\($0.enabled) \($0.until?.rfc3339 ?? "-")" } ?? "none"
        case .balance: return result.balance(of: item.id).map(String.init) ?? "none"
        case .limit: return result.limit(item.id).map { $0.value.description } ?? "none"
        case .product: return result.product(item.id).map { "\($0.state) \($0.until?.rfc3339 ?? "-") \($0.willRenew as Any)" } ?? "none"
        case .offer:
            return result.offer(for: item.id).map {
                "\($0.eligible) \($0.reason as Any) \($0.change as Any) \($0.effective as Any) \($0.introOfferEligible as Any)"
            } ?? "none"
        case .promotion:
            guard let promotion = item.product.flatMap({ result.offer(for: $0) })?.promotions?.first(where: { $0.id == item.id }) else {
                return "none"
            }
            return "\(promotion.eligible ? "eligible" : "not eligible") \(promotion.reason)"
        }
    }
}
