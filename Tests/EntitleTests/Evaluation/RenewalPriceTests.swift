import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// Issue 32's smaller fields: a renewal entry's `renewalPrice` and `currency`, a transaction's
/// `offerPeriod` (a subscription's `offerEndsAt`) and `offerDiscountType`.
@Suite("Renewal prices and offer periods")
struct RenewalPriceTests {
    static let app = "com.example.sketch"
    static let catalog = T.catalog(
        """
        { "app": "com.example.sketch", "features": { "pro": "everything" },
          "legal": { "auto-renewable-subscription": "Renews monthly until cancelled." },
          "products": [
            { "id": "sketch.monthly", "type": "auto-renewable-subscription", "name": "Monthly", "group": "sub", "duration": "P1M",
              "grants": ["pro"] }
          ] }
        """)

    /// A monthly chain from 1 January, `periods` long; `offer` gives each period's offer code and
    /// period (nil: none).
    static func chain(_ periods: Int, offer: (Int) -> (id: String, period: String)? = { _ in nil }) -> [Transaction] {
        (0..<periods).map { index in
            let start = ISODuration.add(months: index, days: 0, milliseconds: 0, to: T.instant("2026-01-01T00:00:00Z").millisecondsSince1970)
            let end = ISODuration.add(months: index + 1, days: 0, milliseconds: 0, to: T.instant("2026-01-01T00:00:00Z").millisecondsSince1970)
            var transaction = Transaction(
                productId: "sketch.monthly", transactionId: "t\(index)", originalTransactionId: "t0",
                purchaseDate: Instant(millisecondsSince1970: start), expiresDate: Instant(millisecondsSince1970: end))
            if let offer = offer(index) {
                transaction.offerType = .offerCode
                transaction.offerId = offer.id
                transaction.offerPeriod = ISODuration(offer.period)
                transaction.offerDiscountType = .payAsYouGo
            }
            return transaction
        }
    }

    @Test("the renewal price is the latest entry's stating it, from its signedDate on; the answer changes then")
    func renewalPrice() throws {
        let entries = [
            Renewal(
                productId: "sketch.monthly", originalTransactionId: "t0", willRenew: true, signedDate: T.instant("2026-01-01T00:00:00Z"),
                renewalPrice: "9.99", currency: "EUR"),
            Renewal(
                productId: "sketch.monthly", originalTransactionId: "t0", willRenew: true, signedDate: T.instant("2026-02-10T00:00:00Z"),
                renewalPrice: "11.49", currency: "EUR"),
            // A later entry that does not state a price leaves the last one standing.
            Renewal(productId: "sketch.monthly", originalTransactionId: "t0", willRenew: true, signedDate: T.instant("2026-02-20T00:00:00Z")),
        ]
        let receipt = Receipt(app: Self.app, transactions: Self.chain(3), renewals: entries)
        let before = checkedEvaluation(Self.catalog, [receipt], at: "2026-02-09T23:59:59.999Z")
        #expect(before.product("sketch.monthly")?.renewalPrice == Price(amount: "9.99", currency: "EUR"))
        #expect(before.reevaluateAt == T.instant("2026-02-10T00:00:00Z"))
        #expect(before.text.contains("renews at 9.99 EUR"))
        let after = checkedEvaluation(Self.catalog, [receipt], at: "2026-02-10T00:00:00Z")
        #expect(after.product("sketch.monthly")?.renewalPrice == Price(amount: "11.49", currency: "EUR"))
        #expect(after.json.contains(#""renewalPrice": {"#) || after.json.contains(#""renewalPrice":{"#))
        let later = checkedEvaluation(Self.catalog, [receipt], at: "2026-02-25T00:00:00Z")
        #expect(later.product("sketch.monthly")?.renewalPrice == Price(amount: "11.49", currency: "EUR"))
        let record = try JSONDecoder().decode(EntitlementsRecord.self, from: Data(after.json.utf8))
        #expect(record.products.first?.renewalPrice == Price(amount: "11.49", currency: "EUR"))
    }

    @Test("an offer's end is the first purchase of its unbroken run in the chain plus its period")
    func offerEnd() {
        // Three periods with the spring code (P3M), then full price.
        let chain = Self.chain(4) { $0 < 3 ? ("spring", "P3M") : nil }
        let receipt = Receipt(app: Self.app, transactions: chain)
        let during = checkedEvaluation(Self.catalog, [receipt], at: "2026-03-15T00:00:00Z")
        #expect(during.product("sketch.monthly")?.offerEndsAt == T.instant("2026-04-01T00:00:00Z"))
        #expect(during.text.contains("offer until 2026-04-01T00:00:00Z"))
        let afterwards = checkedEvaluation(Self.catalog, [receipt], at: "2026-04-15T00:00:00Z")
        #expect(afterwards.product("sketch.monthly")?.offerEndsAt == nil)
        // Another code in between starts a run of its own.
        let broken = Self.chain(3) { $0 == 1 ? ("autumn", "P3M") : ("spring", "P3M") }
        let result = checkedEvaluation(Self.catalog, [Receipt(app: Self.app, transactions: broken)], at: "2026-03-15T00:00:00Z")
        #expect(result.product("sketch.monthly")?.offerEndsAt == T.instant("2026-06-01T00:00:00Z"))
        // The answer before the next purchase does not know it: it changes at that purchase.
        let first = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-15T00:00:00Z")
        #expect(first.product("sketch.monthly")?.offerEndsAt == T.instant("2026-04-01T00:00:00Z"))
    }

    @Test("the fields read, write and read back; a price without its currency or of the wrong form is located")
    func receiptFields() throws {
        let text = """
            {"app":"com.example.sketch",
             "transactions":[{"productId":"sketch.monthly","transactionId":"1","purchaseDate":"2026-01-01T00:00:00Z",
               "offerType":"offer-code","offerId":"spring","offerPeriod":"P3M","offerDiscountType":"pay-up-front"}],
             "renewals":[{"originalTransactionId":"1","renewalPrice":"9.99","currency":"EUR"}]}
            """
        let receipt = try ReceiptDecoder.decode(Data(text.utf8))
        #expect(receipt.transactions[0].offerPeriod == ISODuration("P3M") && receipt.transactions[0].offerDiscountType == .payUpFront)
        #expect(receipt.renewals[0].renewalPrice == "9.99" && receipt.renewals[0].currency == "EUR")
        #expect(try ReceiptDecoder.decode(Data(receipt.json.utf8)) == receipt)
        #expect(ParsedReceipt(receipt).receipt == receipt)
        let error = Fixtures.receiptError
        let renewal = #"{"app":"a","renewals":[{"originalTransactionId":"1",%@}]}"#
        #expect(error(String(format: renewal, #""renewalPrice":"9.99""#))?.message.contains("`currency`") == true)
        #expect(error(String(format: renewal, #""currency":"EUR""#))?.message.contains("`renewalPrice`") == true)
        #expect(error(String(format: renewal, #""renewalPrice":"9,99","currency":"EUR""#))?.path == "renewals[0].renewalPrice")
        #expect(error(String(format: renewal, #""renewalPrice":"9.99","currency":"eur""#))?.path == "renewals[0].currency")
        let transaction = #"{"app":"a","transactions":[{"productId":"p","transactionId":"1","purchaseDate":"2026-01-01T00:00:00Z",%@}]}"#
        #expect(error(String(format: transaction, #""offerPeriod":"P0D""#))?.path == "transactions[0].offerPeriod")
        #expect(error(String(format: transaction, #""offerPeriod":"1 month""#))?.path == "transactions[0].offerPeriod")
        #expect(error(String(format: transaction, #""offerDiscountType":"FREE_TRIAL""#))?.path == "transactions[0].offerDiscountType")
        #expect(Receipt(app: "a", renewals: [Renewal(originalTransactionId: "1", renewalPrice: "9.99")]).limitViolation != nil)
    }

    @Test(
        "Apple's milliunits read as the shortest decimal",
        arguments: [
            (Int64(9_990), "9.99"), (10_000, "10"), (10_990, "10.99"), (5, "0.005"), (0, "0"), (1_234_567_890, "1234567.89"),
        ])
    func milliunits(_ value: Int64, _ text: String) {
        #expect(Price.amount(milliunits: value) == text)
        #expect(Price.isAmount(text))
    }

    @Test("a negative price, or one past 15 digits, is not an amount")
    func badMilliunits() {
        #expect(Price.amount(milliunits: -1) == nil)
        #expect(Price.amount(milliunits: .max) == nil)
        #expect(!Price.isAmount("1.2345") && !Price.isAmount(".5") && !Price.isAmount("5.") && !Price.isAmount("-1"))
    }

    static let models = "storekit2/apple-app-store-server-library-swift/models/"

    @Test(
        "Apple's renewal info and transaction examples carry the price, the offer period and the discount type",
        .enabled(if: Fixtures.sharedFixturesAvailable))
    func appleExamples() throws {
        let renewalInfo = try Data(contentsOf: Fixtures.sharedFixtures.appendingPathComponent(Self.models + "signedRenewalInfo.json"))
        let renewal = try #require(try AppleImport.unverifiedReceipt(fromAppStore: renewalInfo, app: "com.example").receipt.renewals.first)
        #expect(renewal.renewalPrice == "9.99" && renewal.currency == "USD")
        #expect(renewal.appTransactionId == "71134")
        let transactionData = try Data(contentsOf: Fixtures.sharedFixtures.appendingPathComponent(Self.models + "signedTransaction.json"))
        let imported = try AppleImport.unverifiedReceipt(fromAppStore: transactionData)
        let transaction = try #require(imported.receipt.transactions.first)
        #expect(transaction.offerPeriod == ISODuration("P1Y") && transaction.offerDiscountType == .payAsYouGo)
        #expect(transaction.appTransactionId == "71134")
        #expect(try ReceiptDecoder.decode(Data(imported.receipt.json.utf8)) == imported.receipt)
    }
}
