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
        let added1 = a.add(first)
        #expect(added1)
        let added2 = a.add(second)
        #expect(added2)
        let added3 = a.add(Self.web)
        #expect(added3)
        let added4 = a.add(ledger, app: Self.app)
        #expect(added4)
        let added5 = a.add(first)
        #expect(!added5, "nothing new")
        let added6 = a.add(ledger, app: Self.app)
        #expect(!added6)
        var b = CustomerHistory()
        b.add(ledger, app: Self.app)
        b.add(Self.web)
        b.add(second)
        b.add(first)
        b.add(second)
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
        history.add(Receipt(app: Self.app, transactions: [Self.bought, Self.refunded], renewals: [Self.renewal]))
        history.add(Self.web)
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
        let added7 = history.add(ImportedReceipt(receipt: receipt, format: .appStore, warnings: [], notifications: [notification]))
        #expect(added7)
        let added8 = history.add(ImportedReceipt(receipt: receipt, format: .appStore, warnings: [], notifications: [notification]))
        #expect(!added8)
        // Another notification about the same transaction is new, though it adds no entry.
        let renewal = NotificationInfo(type: "DID_CHANGE_RENEWAL_STATUS", uuid: "n-2")
        let added9 = history.add(ImportedReceipt(receipt: receipt, format: .appStore, warnings: [], notifications: [renewal]))
        #expect(added9)
        #expect(history.notifications == ["n-1", "n-2"])
        history.add(Self.web)
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
}
