import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// Refunds and voids that arrive apart from their purchases (``Revocation``): applied to the
/// purchase they name wherever it is read, in any order, at their instant; kept and warned about
/// when no purchase is there; more units voided than bought refused where both are in one receipt.
@Suite("Refunds and voids arriving apart")
struct RevocationFactsTests {
    static let app = "com.ex.multi"

    /// Play Pro yearly from 1 January 2026, order GPA.1 of token tok-1.
    static let playPro = Receipt(
        app: app,
        transactions: [
            Transaction(
                productId: "pro:yearly", transactionId: "GPA.1", originalTransactionId: "tok-1", purchaseDate: T.instant("2026-01-01T00:00:00Z"),
                expiresDate: T.instant("2027-01-01T00:00:00Z"), signedDate: T.instant("2026-01-01T00:00:00Z"))
        ], store: .play)

    /// Play's void of GPA.1 on 1 March, alone in a receipt of its own.
    static let playVoid = Receipt(app: app, store: .play, revocations: [Revocation(transactionId: "GPA.1", date: T.instant("2026-03-01T00:00:00Z"))])

    @Test("a void read apart revokes its purchase from its instant, whichever receipt comes first, and through a history in any order")
    func playVoidApart() throws {
        for receipts in [[Self.playPro, Self.playVoid], [Self.playVoid, Self.playPro]] {
            let before = StoresTests.evaluate(receipts, at: "2026-02-28T23:59:59.999Z")
            #expect(before.feature("pro")?.enabled == true && before.reevaluateAt == T.instant("2026-03-01T00:00:00Z"))
            let after = StoresTests.evaluate(receipts, at: "2026-03-01T00:00:00Z")
            #expect(after.feature("pro")?.enabled == false && after.product("play:pro:yearly")?.state == .revoked, "\(after.json)")
            #expect(after.warnings.isEmpty)
        }
        var forward = CustomerHistory()
        try forward.add(Self.playPro)
        try forward.add(Self.playVoid)
        var backward = CustomerHistory()
        try backward.add(Self.playVoid)
        try backward.add(Self.playPro)
        #expect(forward.json == backward.json)
        #expect(try JSONDecoder().decode(CustomerHistory.self, from: Data(forward.json.utf8)) == forward)
        let stored = StoresTests.evaluate(forward.receipts, at: "2026-03-01T00:00:00Z")
        #expect(stored.feature("pro")?.enabled == false)
        // Adding the same void again changes nothing.
        #expect(try !forward.add(Self.playVoid))
    }

    @Test("a void naming no purchase of the customer is kept, warns `unmatched-revocation`, and changes nothing")
    func unmatched() {
        let stray = Receipt(app: Self.app, store: .play, revocations: [Revocation(transactionId: "GPA.404", date: T.instant("2026-02-01T00:00:00Z"))])
        let result = StoresTests.evaluate([Self.playPro, stray], at: "2026-03-01T00:00:00Z")
        #expect(result.feature("pro")?.enabled == true)
        #expect(result.warnings.map { $0.code } == ["unmatched-revocation"])
        #expect(result.warnings.first?.message.contains("`GPA.404`") == true && result.warnings.first?.message.contains("Google Play") == true)
        // Another store's purchase of that id is not it: a void is a fact of its store.
        let appStore = Receipt(
            app: Self.app, transactions: [StoresTests.subscription("pro.monthly", "GPA.1", from: "2026-01-01T00:00:00Z", to: "2026-12-01T00:00:00Z")])
        let crossed = StoresTests.evaluate([appStore, Self.playVoid], at: "2026-03-01T00:00:00Z")
        #expect(crossed.feature("pro")?.enabled == true && crossed.warnings.map { $0.code } == ["unmatched-revocation"])
    }

    /// Stripe: three packs of coins (30 coins) paid 1500 on 1 March, payment pi_1.
    static let coins = Receipt(
        app: app,
        transactions: [Transaction(productId: "prod_Coins", transactionId: "pi_1", purchaseDate: T.instant("2026-03-01T00:00:00Z"), quantity: 3)],
        store: .stripe)

    @Test("partial refunds in two receipts add up, each from when it was made; one refund read twice counts once")
    func stripeRefundsApart() {
        let first = Receipt(
            app: Self.app, store: .stripe,
            revocations: [Revocation(transactionId: "pi_1", date: T.instant("2026-03-05T00:00:00Z"), amount: 500, amountPaid: 1500, id: "re_1")])
        // The second refund, and the first again without the amount paid (a Refund alone).
        let second = Receipt(
            app: Self.app, store: .stripe,
            revocations: [
                Revocation(transactionId: "pi_1", date: T.instant("2026-03-09T00:00:00Z"), amount: 500, id: "re_2"),
                Revocation(transactionId: "pi_1", date: T.instant("2026-03-05T00:00:00Z"), amount: 500, id: "re_1"),
            ])
        let catalog = StoreImportTests.catalog
        for receipts in [[Self.coins, first, second], [second, Self.coins, first], [first, second, Self.coins]] {
            func balance(_ at: String) -> Int64? { checkedEvaluation(catalog, receipts, at: at).balance(of: "coins") }
            #expect(balance("2026-03-04T23:59:59.999Z") == 30)
            #expect(balance("2026-03-05T00:00:00Z") == 20)
            #expect(balance("2026-03-08T23:59:59.999Z") == 20)
            #expect(balance("2026-03-09T00:00:00Z") == 10)
        }
        // Without any amount paid known, a refund takes back the whole purchase.
        let unknown = Receipt(
            app: Self.app, store: .stripe,
            revocations: [Revocation(transactionId: "pi_1", date: T.instant("2026-03-05T00:00:00Z"), amount: 500, id: "re_1")])
        #expect(checkedEvaluation(catalog, [Self.coins, unknown], at: "2026-03-06T00:00:00Z").balance(of: "coins") == 0)
        // A Charge's running total stands for the refunds when larger.
        let total = Receipt(
            app: Self.app, store: .stripe,
            revocations: [Revocation(transactionId: "pi_1", date: T.instant("2026-03-07T00:00:00Z"), amountRefunded: 1000, amountPaid: 1500)])
        #expect(checkedEvaluation(catalog, [Self.coins, first, total], at: "2026-03-07T00:00:00Z").balance(of: "coins") == 10)
    }

    @Test("a copy signed after a fact takes it; one signed before it is followed by a copy at the fact's date")
    func snapshots() {
        var later = Self.playPro
        later.transactions[0].signedDate = T.instant("2026-04-01T00:00:00Z")
        let both = Receipt(app: Self.app, transactions: Self.playPro.transactions + later.transactions, store: .play)
        for at in ["2026-02-28T23:59:59.999Z", "2026-03-01T00:00:00Z", "2026-03-31T23:59:59.999Z", "2026-04-01T00:00:00Z"] {
            let result = StoresTests.evaluate([both, Self.playVoid], at: at)
            #expect(result.feature("pro")?.enabled == (at < "2026-03-01"), "at \(at)")
            #expect(!result.warnings.contains { $0.code == "conflicting-transaction" }, "at \(at)")
        }
        let applied = RevocationFacts.applied([ParsedReceipt(both), ParsedReceipt(Self.playVoid)], own: [0, 1]).receipts[0].receipt
        #expect(applied.transactions.count == 3, "the copy signed in January is followed by one signed at the void")
        let voided = T.instant("2026-03-01T00:00:00Z")
        for transaction in applied.transactions {
            let signed = transaction.signedDate ?? .earliest
            #expect(transaction.cancellationDate == (signed < voided ? nil : voided), "signed \(signed)")
        }
    }

    @Test("more units voided than a purchase of the same receipt bought is an error naming `voidedQuantity`; a history refuses it whole")
    func tooManyVoided() throws {
        let json = """
            { "app": "com.ex.multi", "store": "play",
              "transactions": [ { "productId": "coins_10", "transactionId": "GPA.2", "purchaseDate": "2026-03-01T00:00:00Z", "quantity": 2 } ],
              "revocations": [ { "transactionId": "GPA.2", "date": "2026-03-02T00:00:00Z", "voidedQuantity": 1 },
                               { "transactionId": "GPA.2", "date": "2026-03-03T00:00:00Z", "voidedQuantity": 2 } ] }
            """
        let error = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(json.utf8)) }
        #expect(error.path == "revocations[1].voidedQuantity" && error.message == "voids 3 of purchase `GPA.2`, which bought 2", "\(error)")
        #expect(error.location?.line == 4)
        // Each half alone reads; the history that would hold both refuses the second, and stays as it was.
        var history = CustomerHistory()
        let purchase = Receipt(
            app: Self.app,
            transactions: [Transaction(productId: "coins_10", transactionId: "GPA.2", purchaseDate: T.instant("2026-03-01T00:00:00Z"), quantity: 2)],
            store: .play)
        try history.add(purchase)
        try history.add(
            Receipt(
                app: Self.app, store: .play,
                revocations: [Revocation(transactionId: "GPA.2", date: T.instant("2026-03-02T00:00:00Z"), voidedQuantity: 1)]))
        let kept = history.json
        let refused = try #require(throws: ReceiptError.self) {
            try history.add(
                Receipt(
                    app: Self.app, store: .play,
                    revocations: [Revocation(transactionId: "GPA.2", date: T.instant("2026-03-03T00:00:00Z"), voidedQuantity: 2)]))
        }
        #expect(refused.message.hasPrefix("the history cannot keep this data: voids 3 of purchase `GPA.2`"), "\(refused)")
        #expect(history.json == kept)
        // A revocation's own values are checked where read.
        for (fact, message) in [
            (
                #"{ "transactionId": "x", "date": "2026-03-02T00:00:00Z", "voidedQuantity": 0 }"#,
                "`voidedQuantity` must be a whole number from 1 to 1000, found 0"
            ),
            (
                #"{ "transactionId": "x", "date": "2026-03-02T00:00:00Z", "amount": 5, "voidedQuantity": 1 }"#,
                "a revocation gives one of `voidedQuantity`, `amount` and `amountRefunded`, not `amount` and `voidedQuantity`"
            ),
            (
                #"{ "transactionId": "x", "date": "2026-03-02T00:00:00Z", "amountPaid": 5 }"#,
                "`amountPaid` is the share's base: it goes with `amount` or `amountRefunded`"
            ),
            (
                #"{ "transactionId": "x", "date": "2026-03-02T00:00:00Z", "amount": -1 }"#,
                "an amount must be a whole number from 0 to 10^15 (the currency's smallest unit), found -1"
            ),
            (#"{ "date": "2026-03-02T00:00:00Z" }"#, "missing"),
        ] {
            let receipt = #"{ "app": "com.ex.multi", "store": "stripe", "revocations": [ \#(fact) ] }"#
            let error = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(receipt.utf8)) }
            #expect(error.message.contains(message), "\(error)")
            #expect(error.path.hasPrefix("revocations[0]"), "\(error)")
        }
    }
}
