import EntitleWorkloads
import Foundation
import Testing

@testable import Entitle

/// `ReceiptSpace+Definitions` and the offer ways of `ReceiptSpace+Equivalence`: a change to a
/// win-back or promotional offer's conditions is compared on that offer only, and its customers
/// are searched in one way of each class the offers cannot tell apart. On a subscription group
/// with both kinds of offers, each planted change to an offer is found by the reduced search as by
/// the search of every customer, and each way left out answers every offer as the way kept for it.
@Suite("Proving: offer changes searched on the offers")
struct ProofOfferWaysTests {
    /// The benchmark's seven-product catalog (``ProofWorkloads/sevenProducts``) with only its Pro
    /// plans: the monthly one with an intro offer, a win-back offer and a promotional offer, and
    /// the yearly one, a group small enough to search every customer of in a debug build.
    static let catalog = ProofWorkloads.sevenProducts
    static let kept: Set<String> = ["com.example.notes.pro.monthly", "com.example.notes.pro.yearly"]

    /// A change to one offer, the offer it shows on, and which way.
    struct Plant: Sendable, CustomTestStringConvertible {
        var name: String
        var edit: (String, String)
        var offer: String
        var testDescription: String { name }
    }

    static let plants: [Plant] = [
        Plant(
            name: "the promotional offer asks for more paid time",
            edit: (#""subscribed": true, "paidAtLeast": "P2M""#, #""subscribed": true, "paidAtLeast": "P3M""#), offer: "pro.loyal"),
        Plant(
            name: "the promotional offer is for customers no longer subscribed",
            edit: (#""subscribed": true"#, #""subscribed": false"#), offer: "pro.loyal"),
        Plant(
            name: "the win-back offer asks for a longer lapse",
            edit: (#""lapsedAtLeast": "P1M""#, #""lapsedAtLeast": "P2M""#), offer: "pro.winback"),
        Plant(
            name: "the win-back offer waits less between redemptions",
            edit: (#""waitBetween": "P6M""#, #""waitBetween": "P1M""#), offer: "pro.winback"),
    ]

    /// The catalog text compiled with only the ``kept`` products.
    static func portfolio(_ text: String) throws -> Portfolio {
        var catalog = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let products = try #require(catalog["products"] as? [[String: Any]])
        catalog["products"] = products.filter { kept.contains($0["id"] as? String ?? "") }
        catalog["currencies"] = nil
        let data = try JSONSerialization.data(withJSONObject: catalog)
        return try #require(Portfolio.compile([CatalogSource(name: "notes.json", data: data)]).portfolio)
    }

    static func edited(_ plant: Plant) throws -> Portfolio {
        #expect(catalog.contains(plant.edit.0))
        return try portfolio(catalog.replacingOccurrences(of: plant.edit.0, with: plant.edit.1))
    }

    @Test("a change to an offer's conditions is found on that offer only, as by the search of every customer", arguments: plants)
    func plantedChanges(_ plant: Plant) throws {
        let old = try Self.portfolio(Self.catalog)
        let new = try Self.edited(plant)
        let reduced = CatalogProof.compare(old, new, options: ProofOptions(depth: 2))
        let every = CatalogProof.compare(old, new, options: ProofEquivalenceTests.unreduced(depth: 2))
        #expect(
            reduced.differences.map(\.item) == [
                ProofItem(app: "com.example.notes", kind: .promotion, id: plant.offer, product: "com.example.notes.pro.monthly")
            ])
        #expect(ProofEquivalenceTests.directions(reduced) == ProofEquivalenceTests.directions(every))
        #expect(reduced.statistics.isComplete && every.statistics.isComplete)
        // Compared on the one offer, in fewer ways: at least a third fewer customers.
        #expect(reduced.statistics.customers * 3 < every.statistics.customers * 2)
    }

    @Test("a product renamed, repriced or given other retention rules is compared on nothing")
    func unreadDefinitions() throws {
        let old = try Self.portfolio(Self.catalog)
        let new = try Self.portfolio(
            Self.catalog.replacingOccurrences(of: #""name": "Notes Pro Yearly""#, with: #""name": "Notes Pro Annual", "priceTier": 30"#))
        let report = CatalogProof.compare(old, new, options: ProofOptions(depth: 2))
        #expect(report.differences.isEmpty)
        #expect(report.statistics.customers == 0)
    }

    /// Every way the search leaves out for customers compared on the offers, with the way kept
    /// for it, on both sides of a plant.
    @Test("each way left out answers every compared offer as the way kept for it, at every instant either changes", arguments: plants)
    func waysLeftOut(_ plant: Plant) throws {
        let old = try #require(try Self.portfolio(Self.catalog).catalog(for: "com.example.notes"))
        let new = try #require(try Self.edited(plant).catalog(for: "com.example.notes"))
        let space = ReceiptSpace(app: "com.example.notes", catalogs: [old, new], includesGrants: true, reducesEquivalents: true)
        let offers = space.items.indices.filter { space.items[$0].item.kind == .promotion }
        var checked = 0
        for compared in [offers, offers.filter { space.items[$0].item.id == plant.offer }] {
            let reads = try #require(space.offerReads(compared))
            let kept = space.searchedAtoms(for: compared)
            for (element, atoms) in space.atomsOf.enumerated() {
                #expect(kept[element].count < atoms.count || atoms.count <= 1)
                for atom in atoms where !kept[element].contains(atom) {
                    let representative = try #require(
                        kept[element].first { ReceiptSpace.way(space.atoms[$0].way, as: reads) == ReceiptSpace.way(space.atoms[atom].way, as: reads) }
                    )
                    for catalog in [old, new] {
                        let answers = Self.answers(space, [atom, representative], catalog, compared)
                        #expect(answers[0] == answers[1], "\(space.atoms[atom].label) and \(space.atoms[representative].label)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked >= 10)
    }

    /// The compared offers' answers to each customer of one atom, at the same instants: a day apart
    /// over three years, and a millisecond either side of each `reevaluateAt` of any of them.
    static func answers(_ space: ReceiptSpace, _ atoms: [Int], _ catalog: CompiledCatalog, _ items: [Int]) -> [[String]] {
        let receipts = atoms.map { atom in
            space.receipts(of: ReceiptSpace.Customer(placed: [ReceiptSpace.Placed(atom: atom, offset: 0)]), base: ReceiptSpace.base) ?? []
        }
        var instants = Set((0..<(3 * 365)).map { ReceiptSpace.base + Int64($0) * 86_400_000 })
        for each in receipts {
            var at = ReceiptSpace.base - 1
            for _ in 0..<256 {
                guard let next = catalog.evaluate(each, at: Instant(millisecondsSince1970: at)).reevaluateAt?.millisecondsSince1970 else { break }
                instants.formUnion([next - 1, next, next + 1])
                at = next
            }
        }
        return receipts.map { each in
            instants.sorted().map { instant in
                var reader = ResultReader(catalog.evaluate(each, at: Instant(millisecondsSince1970: instant)))
                return items.map { ItemValue.read(space.items[$0].item, in: &reader).map(\.text) ?? "-" }.joined(separator: "; ")
            }
        }
    }
}
