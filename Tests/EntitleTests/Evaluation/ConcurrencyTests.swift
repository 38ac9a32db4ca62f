import Dispatch
import Foundation
import Testing

@testable import Entitle

/// What services do from many threads at once: one compiled catalog shared by every request, and
/// catalogs reloaded while requests read them. CI runs this suite under ThreadSanitizer
/// (`swift test --sanitize=thread --filter Concurrency`).
@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("one compiled catalog evaluated from many threads gives each thread the single-threaded answer")
    func sharedCatalog() throws {
        let catalog = Fixtures.diagrams
        let receipts = try (1...40).map { seed -> ParsedReceipt in
            try ParsedReceipt(json: Data(RandomishReceipts.diagrams(seed: seed).utf8))
        }
        let instants = (0..<12).map { Instant(millisecondsSince1970: 1_767_225_600_000 + Int64($0) * 5 * 86_400_000) }
        // Expected answers, computed on one thread.
        let expected = receipts.map { receipt in instants.map { catalog.evaluate([receipt], at: $0).json } }
        let mismatches = Mismatches()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<30 {
                let index = (worker * 7 + round) % receipts.count
                for (position, at) in instants.enumerated() {
                    let result = catalog.evaluate([receipts[index]], at: at)
                    if result.json != expected[index][position] { mismatches.add() }
                    _ = result.text
                    _ = result.offers
                }
                // Decoding from bytes on each thread too.
                let again = try? catalog.evaluate([ParsedReceipt(json: Data(RandomishReceipts.diagrams(seed: index + 1).utf8))], at: instants[0])
                if again?.json != expected[index][0] { mismatches.add() }
            }
        }
        #expect(mismatches.count == 0)
    }

    @Test("readers on other threads see a whole portfolio while reloads happen")
    func reloadUnderReaders() throws {
        let store = PortfolioStore()
        store.reload(path: Fixtures.productsDirectory)
        let receipt = try ReceiptDecoder.decode(
            try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("products/receipts/diagrams-trial.json")))
        let at = Instant(rfc3339: "2026-01-10T00:00:00Z")!
        let failures = Mismatches()
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            for iteration in 0..<150 {
                if worker == 0 && iteration % 15 == 0 {
                    // A bad edit is refused; a good one replaces the portfolio.
                    store.reload([CatalogSource(name: "bad.json", data: Data("{".utf8))])
                    store.reload(path: Fixtures.productsDirectory)
                }
                let result = try? store.portfolio?.evaluate(app: "com.example.diagrams", receipts: [receipt], at: at)
                if result?.isEnabled("pro") != true { failures.add() }
            }
        }
        #expect(failures.count == 0)
    }
}

/// A counter threads add to.
final class Mismatches: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

/// Small Diagrams receipts that differ by seed: trials, passes, subscriptions, credits.
enum RandomishReceipts {
    static func diagrams(seed: Int) -> String {
        var random = SplitMix(seed: UInt64(seed))
        var transactions: [String] = []
        let products = [
            "com.example.diagrams.pro", "com.example.diagrams.trial", "com.example.diagrams.daypass",
            "com.example.diagrams.sync.monthly", "com.example.diagrams.stencils.10",
        ]
        for index in 0..<(1 + random.below(8)) {
            let product = products[random.below(products.count)]
            let day = 1 + random.below(27)
            var fields = #""productId":"\#(product)","transactionId":"\#(index)","purchaseDate":"2026-01-\#(day < 10 ? "0" : "")\#(day)T09:00:00Z""#
            if product.hasSuffix("monthly") { fields += #","expiresDate":"2026-02-\#(day < 10 ? "0" : "")\#(day)T09:00:00Z""# }
            if random.below(5) == 0 { fields += #","cancellationDate":"2026-02-01T00:00:00Z""# }
            transactions.append("{\(fields)}")
        }
        return
            #"{"app":"com.example.diagrams","transactions":[\#(transactions.joined(separator: ","))],"consumptions":[{"id":"c","currency":"stencils","amount":3,"date":"2026-01-20T00:00:00Z"}]}"#
    }
}
