import Foundation
import Testing

@testable import Entitle

/// `ProofOptions.searchesEquivalentOnce`: the customers a comparison leaves out as equivalent
/// (receipt facts no grandfather rule tells apart, customers with nothing that changed) lose
/// nothing. On random catalogs with a random change, and on the example catalogs' planted changes,
/// the reduced search and the search of every customer find the same parts of the answer moving
/// the same ways, with witnesses as small.
@Suite("Proving: equivalent customers searched once")
struct ProofEquivalenceTests {
    /// A random catalog (`RandomCase`) and a copy with one random change: a grant taken or added,
    /// a duration, level or family sharing changed, two products swapped in order, a product
    /// removed, a grandfather rule moved or dropped, an offer's condition changed.
    struct Change: Sendable, CustomTestStringConvertible {
        var seed: UInt64
        var testDescription: String { "seed \(seed)" }
    }

    /// The first 12 seeds whose change applies to a catalog small enough to search every customer of.
    static let changes = Array((1...2_000).lazy.map { Change(seed: UInt64($0) &* 7_919) }.filter(applies).prefix(12))

    /// Whether the change of `change` applies to its random catalog, which has at most ``maxProducts``.
    static func applies(_ change: Change) -> Bool {
        let random = RandomCase(seed: change.seed)
        let products = ((try? JSONSerialization.jsonObject(with: Data(random.catalogJSON.utf8))) as? [String: Any])?["products"] as? [Any]
        guard (products?.count ?? .max) <= maxProducts, let edited = changed(random.catalogJSON, seed: change.seed) else { return false }
        return compile(random.catalogJSON, old: random.oldCatalogJSON) != nil && compile(edited, old: random.oldCatalogJSON) != nil
    }

    /// The most products a random catalog searched here has: the search of every customer of a
    /// larger one is minutes of a debug build.
    static let maxProducts = 5

    static func compile(_ catalog: String, old: String) -> Portfolio? {
        Portfolio.compile([CatalogSource(name: "catalog.json", data: Data(catalog.utf8)), CatalogSource(name: "old.json", data: Data(old.utf8))])
            .portfolio
    }

    /// The catalog with one change drawn from `seed`; `nil` when the change found nothing to apply to.
    static func changed(_ json: String, seed: UInt64) -> String? {
        guard var catalog = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any],
            var products = catalog["products"] as? [[String: Any]], !products.isEmpty
        else { return nil }
        var random = SplitMix(seed: seed ^ 0x5EED)
        let features = (catalog["features"] as? [String: Any]).map { Array($0.keys).sorted() } ?? []
        let index = random.below(products.count)
        let referenced = Set(
            products.compactMap { $0["trialOf"] as? String } + products.compactMap { ($0["upgrade"] as? [String: Any])?["replaces"] as? String })
        switch random.below(8) {
        case 0:
            guard var grants = products[index]["grants"] as? [String], !grants.isEmpty else { return nil }
            grants.removeLast()
            products[index]["grants"] = grants
        case 1:
            guard let feature = features.first, (products[index]["type"] as? String) != "consumable" else { return nil }
            let grants = products[index]["grants"] as? [String] ?? []
            guard !grants.contains(feature) else { return nil }
            products[index]["grants"] = grants + [feature]
        case 2:
            guard products[index]["duration"] != nil else { return nil }
            products[index]["duration"] = ["P1D", "P1M", "P1Y", "P2W"][random.below(4)]
        case 3:
            guard products[index]["level"] != nil else { return nil }
            products[index]["level"] = 1 + random.below(3)
        case 4:
            guard products.count >= 2 else { return nil }
            products.swapAt(index, (index + 1) % products.count)
        case 5:
            guard let id = products[index]["id"] as? String, !referenced.contains(id), products.count >= 2 else { return nil }
            products.remove(at: index)
        case 6:
            guard var rules = catalog["grandfathered"] as? [[String: Any]], !rules.isEmpty else { return nil }
            let rule = random.below(rules.count)
            if rules[rule]["originalApplicationVersionBefore"] != nil, random.below(2) == 0 {
                rules[rule]["originalApplicationVersionBefore"] = ["1.5", "2.0", "2.1", "10"][random.below(4)]
            } else if rules[rule]["originalPurchaseBefore"] != nil, random.below(2) == 0 {
                rules[rule]["originalPurchaseBefore"] = "2026-01-01T00:00:00Z"
            } else {
                rules.remove(at: rule)
            }
            catalog["grandfathered"] = rules
        default:
            guard var offers = products[index]["offers"] as? [[String: Any]], !offers.isEmpty else {
                guard products[index]["familyShareable"] != nil || (products[index]["type"] as? String) == "non-consumable" else { return nil }
                products[index]["familyShareable"] = !((products[index]["familyShareable"] as? Bool) ?? false)
                break
            }
            offers[0]["paidAtLeast"] = ["P1M", "P2M", "P3M"][random.below(3)]
            products[index]["offers"] = offers
        }
        catalog["products"] = products
        guard let data = try? JSONSerialization.data(withJSONObject: catalog, options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Each part of the answer with its verdict and the directions and sizes of its witnesses.
    static func directions(_ report: ProofReport) -> [String] {
        report.items.map { item in
            "\(item.item) \(item.verdict) \(item.witnesses.map { "\($0.direction.rawValue):\($0.transactions)" })"
        }
    }

    static func unreduced(depth: Int) -> ProofOptions {
        var options = ProofOptions(depth: depth)
        options.searchesEquivalentOnce = false
        return options
    }

    @Test("on random catalogs and changes, the reduced search finds what the search of every customer finds", arguments: changes)
    func randomChanges(_ change: Change) throws {
        let random = RandomCase(seed: change.seed)
        let products = ((try? JSONSerialization.jsonObject(with: Data(random.catalogJSON.utf8))) as? [String: Any])?["products"] as? [Any]
        guard (products?.count ?? .max) <= Self.maxProducts,
            let edited = Self.changed(random.catalogJSON, seed: change.seed),
            let old = Self.compile(random.catalogJSON, old: random.oldCatalogJSON),
            let new = Self.compile(edited, old: random.oldCatalogJSON)
        else { return }
        let reduced = CatalogProof.compare(old, new, options: ProofOptions(depth: 2))
        let every = CatalogProof.compare(old, new, options: Self.unreduced(depth: 2))
        #expect(Self.directions(reduced) == Self.directions(every))
        #expect(reduced.showsLoss == every.showsLoss)
        #expect(reduced.statistics.customers <= every.statistics.customers)
        #expect(reduced.statistics.isComplete == every.statistics.isComplete)
    }

    @Test("twelve random changes apply to catalogs small enough to search every customer of")
    func randomChangesApply() {
        #expect(Self.changes.count == 12)
    }

    @Test(
        "on the example catalogs' planted changes, the reduced search finds what the search of every customer finds",
        arguments: [ProofTests.plants[0], ProofTests.plants[4], ProofTests.plants[6]])
    func plantedChanges(_ plant: ProofTests.Plant) throws {
        let old = try ProofTests.smallPortfolio(without: ProofTests.notNeededExhaustively)
        let new = try ProofTests.smallPortfolio(plant.edits, without: ProofTests.notNeededExhaustively)
        let reduced = CatalogProof.compare(old, new, options: ProofOptions(depth: 2))
        let every = CatalogProof.compare(old, new, options: Self.unreduced(depth: 2))
        #expect(!reduced.differences.isEmpty)
        #expect(Self.directions(reduced) == Self.directions(every))
        #expect(reduced.statistics.customers < every.statistics.customers)
    }

    @Test("receipt facts no grandfather rule tells apart are one variant; a rule moved keeps both sides of each threshold")
    func factsVariants() throws {
        let diagrams = try #require(Fixtures.examples.catalog(for: ProofTests.diagrams))
        let full = ReceiptSpace(app: ProofTests.diagrams, catalogs: [diagrams, diagrams], includesGrants: true)
        let reduced = ReceiptSpace(app: ProofTests.diagrams, catalogs: [diagrams, diagrams], includesGrants: true, reducesEquivalents: true)
        // Before 2.0: a version below it, with and without an original purchase date; none for the rest.
        #expect(full.facts.count == 6)
        #expect(reduced.facts.map { $0.version.map(ReceiptSpace.versionText) } == [nil, "1.999999999999999999", "1.999999999999999999"])
        #expect(reduced.facts.map(\.purchase) == [nil, nil, .base])
        // Old rule 2.0, new rule 1.5: each version answers one rule or the other.
        let moved = try ProofTests.portfolio(try ProofTests.edited("diagrams.json", ProofTests.plants[4].edits))
        let newDiagrams = try #require(moved.catalog(for: ProofTests.diagrams))
        let both = ReceiptSpace(app: ProofTests.diagrams, catalogs: [diagrams, newDiagrams], includesGrants: true, reducesEquivalents: true)
        // Matched by both rules, and by the old one only (1.5 standing for 1.999...); each with
        // and without an original purchase date.
        #expect(Set(both.facts.compactMap { $0.version.map(ReceiptSpace.versionText) }) == ["1.4.999999999999999999", "1.5"])
        #expect(both.facts.count == 5)
    }

    @Test("a customer of two or more elements none of which reaches a change is compared only on what changed")
    func steadyItems() throws {
        let old = try ProofTests.smallPortfolio()
        let new = try ProofTests.smallPortfolio(ProofTests.plants[0].edits)
        let space = ReceiptSpace(
            app: ProofTests.diagrams, catalogs: [old.catalog(for: ProofTests.diagrams), new.catalog(for: ProofTests.diagrams)],
            includesGrants: true, unchangedApps: ["com.example.diagrams6"], reducesEquivalents: true)
        let dayPass = try #require(space.elementIndex[.product("com.example.diagrams.daypass")])
        let pro = try #require(space.elementIndex[.product("com.example.diagrams.pro")])
        let web = try #require(space.elementIndex[.product("stripe:prod_DiagramsProYearly")])
        #expect(space.reachesChange[dayPass] && !space.reachesChange[pro] && !space.reachesChange[web])
        let feature = try #require(space.items.firstIndex { $0.item == ProofItem(app: ProofTests.diagrams, kind: .feature, id: "pro") })
        #expect(space.steadyItems[feature])
        #expect(space.touchedItems(elements: [pro, web], hasFacts: false).isEmpty)
        #expect(space.touchedItems(elements: [dayPass, web], hasFacts: false).contains(feature))
        // Each element alone is compared on every part reading it.
        #expect(space.touchedItems(elements: [pro], hasFacts: false).contains(feature))
    }
}
