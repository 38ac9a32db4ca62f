import EntitleWorkloads
import Foundation
import Testing

@testable import Entitle

/// The compiled evaluator against the reference evaluator, and the benchmark's three paths against
/// each other, on generated catalogs and receipts.
@Suite("Agreement on generated workloads")
struct AgreementTests {
    @Test("the compiled evaluator agrees with the reference evaluator", arguments: [1 as UInt64, 2, 3, 4, 5, 6, 7, 8])
    func reference(seed: UInt64) throws {
        var generator = WorkloadGenerator(seed: seed)
        let shape = generator.catalog(products: 12 + Int(seed) * 7)
        let compilation = Portfolio.compile([CatalogSource(name: "generated.json", data: Data(shape.json.utf8))])
        let catalog = try #require(compilation.portfolio?.catalogs.first, "\(compilation.errors.map(\.description))")
        var compared = 0
        for size in [1, 5, 20, 60] {
            let json = generator.receipt(for: shape, transactions: size)
            let receipt = try ReceiptDecoder.decode(Data(json.utf8))
            let legacy = Receipt(
                app: "com.example.legacy",
                transactions: [
                    Transaction(
                        productId: "com.example.legacy.pro", transactionId: "L1",
                        purchaseDate: Instant(millisecondsSince1970: 1_740_000_000_000))
                ])
            for at in generator.instants(in: receipt, count: 25) {
                let receipts = generator.next() % 2 == 0 ? [receipt] : [receipt, legacy]
                let expected = ReferenceEvaluator.evaluate(catalog, receipts: receipts, at: at)
                let actual = ReferenceResult(catalog.evaluate(receipts, at: at))
                #expect(actual == expected, "seed \(seed), \(size) transactions, at \(at)")
                if actual != expected { return }
                compared += 1
            }
        }
        #expect(compared == 100)
    }

    @Test("receipts split across several receipts evaluate like one (duplicates merge)")
    func splitReceipts() throws {
        var generator = WorkloadGenerator(seed: 99)
        let shape = generator.catalog(products: 40)
        let catalog = try #require(Portfolio.compile([CatalogSource(name: "g.json", data: Data(shape.json.utf8))]).portfolio?.catalogs.first)
        let receipt = try ReceiptDecoder.decode(Data(generator.receipt(for: shape, transactions: 80).utf8))
        var first = receipt
        var second = receipt
        first.transactions = Array(receipt.transactions.prefix(50))
        second.transactions = Array(receipt.transactions.suffix(45))  // overlaps: shared transactions merge
        second.consumptions = []
        for at in generator.instants(in: receipt, count: 40) {
            #expect(
                ReferenceResult(catalog.evaluate([first, second], at: at))
                    == ReferenceEvaluator.evaluate(catalog, receipts: [first, second], at: at))
        }
    }

    @Test("the JSONDecoder baseline, the fast path and the hand-written function agree on every generated receipt")
    func benchmarkPaths() throws {
        let catalog = Fixtures.diagrams
        var generator = WorkloadGenerator(seed: 2026)
        let decoder = BaselineReceipt.makeDecoder()
        for size in [1, 20, 200] {
            for _ in 0..<(size == 200 ? 5 : 40) {
                let data = Data(generator.receipt(for: .diagrams, transactions: size).utf8)
                let baseline = try decoder.decode(BaselineReceipt.self, from: data).receipt
                let parsed = try ParsedReceipt(json: data)
                let same = parsed.receipt == baseline
                #expect(same, "the two decoders read the same receipt")
                if !same { return }
                for at in generator.instants(in: baseline, count: 6) {
                    let slow = HandWrittenDiagrams.result(from: catalog.evaluate([baseline], at: at))
                    let fast = HandWrittenDiagrams.result(from: catalog.evaluate([parsed], at: at))
                    let hand = HandWrittenDiagrams.evaluate(baseline, at: at)
                    #expect(slow == fast && fast == hand, "\(size) transactions at \(at)")
                    if slow != fast || fast != hand { return }
                }
            }
        }
    }
}
