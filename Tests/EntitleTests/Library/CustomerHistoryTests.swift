import Foundation
import Testing

@testable import Entitle

/// One customer's history as a service keeps it: idempotent, independent of the order data
/// arrives in, every snapshot kept, routed by its keys, stored as stable bytes, evaluated whole.
@Suite("Customer history")
struct CustomerHistoryTests {
    static let app = "com.example.diagrams"

    static let bought = Transaction(
        productId: "com.example.diagrams.sync.monthly", transactionId: "t1", originalTransactionId: "o1",
        purchaseDate: Fixtures.instant("2026-01-01T00:00:00Z"), expiresDate: Fixtures.instant("2026-02-01T00:00:00Z"),
        appAccountToken: "5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47")
    static var refunded: Transaction {
        var copy = bought
        copy.cancellationDate = Fixtures.instant("2026-01-10T00:00:00Z")
        copy.signedDate = Fixtures.instant("2026-01-10T00:00:00Z")
        return copy
    }
    static let renewal = Renewal(productId: "com.example.diagrams.sync.monthly", originalTransactionId: "o1", willRenew: true)
    static let web = Receipt(
        app: app,
        transactions: [
            Transaction(
                productId: "prod_DiagramsProYearly", transactionId: "in_1", originalTransactionId: "sub_1",
                purchaseDate: Fixtures.instant("2026-01-05T00:00:00Z"), expiresDate: Fixtures.instant("2027-01-05T00:00:00Z"),
                account: "cus_9")
        ], store: .stripe)

    @Test("adding is idempotent and the order of adding does not matter: equal histories, the same bytes")
    func orderAndRepeats() throws {
        let first = Receipt(app: Self.app, transactions: [Self.bought], renewals: [Self.renewal], environment: "production")
        let second = Receipt(app: Self.app, transactions: [Self.refunded], environment: "production")
        let ledger = [Consumption(id: "c1", currency: "stencils", amount: 2, date: Fixtures.instant("2026-01-03T00:00:00Z"))]
        var a = CustomerHistory()
        let added1 = try a.add(first)
        #expect(added1)
        let added2 = try a.add(second)
        #expect(added2)
        let added3 = try a.add(Self.web)
        #expect(added3)
        let added4 = try a.add(ledger, app: Self.app)
        #expect(added4)
        let added5 = try a.add(first)
        #expect(!added5, "nothing new")
        let added6 = try a.add(ledger, app: Self.app)
        #expect(!added6)
        var b = CustomerHistory()
        try b.add(ledger, app: Self.app)
        try b.add(Self.web)
        try b.add(second)
        try b.add(first)
        try b.add(second)
        #expect(a == b)
        #expect(a.json == b.json)
        // Both copies of the refunded transaction are kept: evaluation reads them by signedDate.
        let kept = try #require(a.receipts.first { $0.store == .appStore && $0.environment == "production" })
        #expect(kept.transactions.count == 2)
        #expect(a.receipts.count == 3, "the App Store receipt, the ledger (no environment) and Stripe's")
    }

    @Test("keys route data to the customer; evaluation reads every receipt kept, snapshots by their signing")
    func keysAndEvaluation() throws {
        var history = CustomerHistory()
        try history.add(Receipt(app: Self.app, transactions: [Self.bought, Self.refunded], renewals: [Self.renewal]))
        try history.add(Self.web)
        #expect(history.keys.originalTransactionIds == ["o1", "sub_1"])
        #expect(history.keys.appAccountTokens == ["5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47"])
        #expect(history.keys.accounts == ["cus_9"])
        let before = try history.evaluate(in: Fixtures.examples, app: Self.app, at: Fixtures.instant("2026-01-09T00:00:00Z"))
        #expect(before.isEnabled("cloud.sync") && before.isEnabled("pro"))
        let after = try history.evaluate(in: Fixtures.examples, app: Self.app, at: Fixtures.instant("2026-01-10T00:00:00Z"))
        #expect(!after.isEnabled("cloud.sync") && after.isEnabled("pro"))
        #expect(throws: PortfolioError.self) { try history.evaluate(in: Fixtures.examples, app: "com.example.nope", at: .earliest) }
    }

    @Test("a notification is remembered by its UUID: a retry adds nothing; the history round-trips through JSON")
    func notificationsAndStorage() throws {
        let receipt = Receipt(app: Self.app, transactions: [Self.bought])
        let notification = NotificationInfo(type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: "n-1")
        var history = CustomerHistory()
        let added7 = try history.add(ImportedReceipt(receipt: receipt, format: .appStore, warnings: [], notifications: [notification]))
        #expect(added7)
        let added8 = try history.add(ImportedReceipt(receipt: receipt, format: .appStore, warnings: [], notifications: [notification]))
        #expect(!added8)
        // Another notification about the same transaction is new, though it adds no entry.
        let renewal = NotificationInfo(type: "DID_CHANGE_RENEWAL_STATUS", uuid: "n-2")
        let added9 = try history.add(ImportedReceipt(receipt: receipt, format: .appStore, warnings: [], notifications: [renewal]))
        #expect(added9)
        #expect(history.notifications == ["n-1", "n-2"])
        try history.add(Self.web)
        let stored = try JSONEncoder().encode(history)
        let restored = try JSONDecoder().decode(CustomerHistory.self, from: stored)
        #expect(restored == history)
        #expect(restored.json == history.json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(history.json.utf8)) as? [String: Any])
        #expect(object["notifications"] as? [String] == ["n-1", "n-2"])
        #expect((object["receipts"] as? [[String: Any]])?.count == 2)
        // A stored receipt is held to the decoder's checks.
        let broken = #"{"notifications": [], "receipts": [{"app": "", "transactions": []}]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CustomerHistory.self, from: Data(broken.utf8)) }
    }

    @Test("an id held with other content is refused, saying why, and the history stays as it was")
    func conflictsAreRefused() throws {
        let spent = Consumption(id: "c-1", currency: "stencils", amount: 3, date: Fixtures.instant("2026-01-05T10:00:00Z"))
        var retried = spent
        retried.amount = 5
        var history = CustomerHistory()
        try history.add([spent], app: Self.app)
        let kept = history
        let refused = #expect(throws: ReceiptError.self) { try history.add([retried], app: Self.app) }
        #expect(refused?.code == .conflictingConsumption)
        #expect(refused?.path == "consumptions[0]")
        #expect(refused?.message == "the history holds consumption `c-1` with other content")
        #expect(refused?.help?.contains(#""amount": 5"#) == false && refused?.help?.contains(#""amount": 3"#) == true)
        #expect(history == kept && history.json == kept.json)
        // The same record again is no conflict; two records of one id in the data itself are.
        let again = try history.add([spent], app: Self.app)
        #expect(!again)
        var fresh = CustomerHistory()
        let within = #expect(throws: ReceiptError.self) { try fresh.add([spent, retried], app: Self.app) }
        #expect(within?.path == "consumptions[1]" && within?.message == "consumption `c-1` appears twice with different content")
        #expect(fresh == CustomerHistory())

        // A grant extended under its old id.
        let grant = Grant(
            id: "support-1", features: ["pro"], start: Fixtures.instant("2026-01-01T00:00:00Z"), end: Fixtures.instant("2026-02-01T00:00:00Z"))
        var extended = grant
        extended.end = Fixtures.instant("2026-03-01T00:00:00Z")
        try history.add(Receipt(app: Self.app, grants: [grant]))
        let withGrant = history
        let grantRefused = #expect(throws: ReceiptError.self) { try history.add(Receipt(app: Self.app, grants: [extended])) }
        #expect(grantRefused?.code == .conflictingGrant && grantRefused?.path == "grants[0]")
        #expect(history == withGrant)

        // A notification whose data is refused is not remembered: its retry is read again.
        let notification = NotificationInfo(type: "CONSUMPTION_REQUEST", uuid: "n-9")
        let imported = ImportedReceipt(
            receipt: Receipt(app: Self.app, consumptions: [retried]), format: .appStore, warnings: [], notifications: [notification])
        #expect(throws: ReceiptError.self) { try history.add(imported) }
        #expect(history.notifications.isEmpty && history == withGrant)

        // A value the decoder refuses, in a receipt built in code, is refused too.
        let zero = Consumption(id: "c-2", currency: "stencils", amount: 0, date: Fixtures.instant("2026-01-05T10:00:00Z"))
        let outOfRange = #expect(throws: ReceiptError.self) { try history.add([zero], app: Self.app) }
        #expect(outOfRange?.message.hasPrefix("the history cannot keep this data: ") == true)
        #expect(history == withGrant)
        let restored = try JSONDecoder().decode(CustomerHistory.self, from: Data(history.json.utf8))
        #expect(restored == history)
    }

    @Test("any sequence of adds, in any order, reads back from its json and evaluates the same", arguments: 0..<4)
    func everySequenceReadsBack(chunk: Int) throws {
        var refusals = 0
        var accepted = 0
        for seed in stride(from: UInt64(chunk + 1), through: 120, by: 4) {
            let random = RandomCase(seed: seed)
            let portfolio = try #require(
                Portfolio.compile([
                    CatalogSource(name: "random.json", data: Data(random.catalogJSON.utf8)),
                    CatalogSource(name: "old.json", data: Data(random.oldCatalogJSON.utf8)),
                ]).portfolio)
            var generator = SplitMix(seed: seed ^ 0xC0FFEE)
            // Each receipt in pieces (a few entries each, the receipt's facts on every piece), and
            // copies of some consumptions and grants with other content: a retried spend that
            // differs, a grant extended under its id.
            var pieces: [Receipt] = []
            for receipt in random.receipts {
                var empty = receipt
                empty.transactions = []
                empty.renewals = []
                empty.consumptions = []
                empty.grants = []
                for _ in 0..<(1 + generator.below(3)) {
                    var piece = empty
                    piece.transactions = receipt.transactions.filter { _ in generator.below(2) == 0 }
                    piece.renewals = receipt.renewals.filter { _ in generator.below(2) == 0 }
                    piece.consumptions = receipt.consumptions.filter { _ in generator.below(2) == 0 }
                    piece.grants = receipt.grants.filter { _ in generator.below(2) == 0 }
                    if let first = piece.consumptions.first, generator.below(3) == 0 {
                        var other = first
                        other.amount += 1
                        piece.consumptions.append(other)
                    }
                    if var first = piece.grants.first, generator.below(3) == 0 {
                        first.end = Instant(millisecondsSince1970: (first.end ?? first.start).millisecondsSince1970 + RandomCase.day)
                        pieces.append(Receipt(app: piece.app, environment: piece.environment, grants: [first], store: piece.store))
                    }
                    pieces.append(piece)
                }
            }
            pieces.shuffle(using: &generator)
            var history = CustomerHistory()
            var kept: [Receipt] = []
            for piece in pieces {
                let before = history
                do {
                    try history.add(piece)
                    kept.append(piece)
                } catch {
                    refusals += 1
                    #expect(history == before, "seed \(seed): a refused add changed the history")
                }
                let restored = try JSONDecoder().decode(CustomerHistory.self, from: Data(history.json.utf8))
                #expect(restored == history && restored.json == history.json, "seed \(seed): the history does not read back")
            }
            accepted += kept.count
            let restored = try JSONDecoder().decode(CustomerHistory.self, from: Data(history.json.utf8))
            for at in random.boundaries(portfolio.catalog(for: RandomCase.app)!).prefix(12) {
                let answer = try history.evaluate(in: portfolio, app: RandomCase.app, at: at)
                let again = try restored.evaluate(in: portfolio, app: RandomCase.app, at: at)
                #expect(answer.json == again.json, "seed \(seed) at \(at.rfc3339)")
            }
            // What was accepted in one order is accepted in every order, with the same bytes.
            var reordered = CustomerHistory()
            for piece in kept.shuffled(using: &generator) { try reordered.add(piece) }
            #expect(reordered.json == history.json, "seed \(seed): another order of the same adds gave other bytes")
        }
        #expect(refusals > 0 && accepted > refusals, "the sequences must both keep and refuse: \(accepted) kept, \(refusals) refused")
    }
}
