import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// What newcomers tripped on: a rejected value that fed another check, a diff of a list of objects
/// printed whole, a receipt's typo without a did-you-mean, a verb that did not agree.
@Suite("Newcomer papercuts")
struct PapercutTests {
    @Test("a level already rejected does not feed the group check: one error, at the level")
    func rejectedLevelStaysQuiet() {
        let compilation = T.compile(
            """
            { "app": "com.ex.app", "features": { "pro": "Pro" }, "legal": { "auto-renewable-subscription": "Renews." },
              "products": [
                { "id": "pro.monthly", "type": "auto-renewable-subscription", "name": "Monthly", "group": "pro", "level": 1, "grants": ["pro"] },
                { "id": "pro.yearly", "type": "auto-renewable-subscription", "name": "Yearly", "group": "pro", "level": 0, "grants": ["pro"] } ] }
            """)
        #expect(compilation.errors.count == 1, "\(compilation.errors.map(\.description))")
        #expect(compilation.errors.first?.path == "products[1].level")
    }

    static func catalog(offer: String) -> String {
        """
        { "app": "com.ex.app", "features": { "pro": "Pro" }, "legal": { "auto-renewable-subscription": "Renews." },
          "products": [
            { "id": "planner.pro.monthly", "type": "auto-renewable-subscription", "name": "Monthly", "group": "pro", "grants": ["pro"],
              "introOffer": { "mode": "free-trial", "duration": "P1W" },
              "offers": [ \(offer) ] } ] }
        """
    }

    @Test("diff names a changed offer and its field, not the whole list before and after")
    func offerChangedFieldByField() {
        let old = T.catalog(
            Self.catalog(offer: #"{ "id": "planner.winback", "type": "win-back", "mode": "free-trial", "duration": "P1M", "lapsedAtLeast": "P1M" }"#))
        let new = T.catalog(
            Self.catalog(
                offer: #"{ "id": "planner.winback", "type": "win-back", "mode": "free-trial", "duration": "P1M", "lapsedAtLeast": "P2M" }, "#
                    + #"{ "id": "planner.loyal", "type": "promotional", "mode": "free-trial", "duration": "P1W", "subscribed": true }"#))
        let changes = CatalogDiff.changes(from: old, to: new)
        #expect(
            changes.map(\.description) == [
                "com.ex.app: product-changed planner.pro.monthly offers[planner.winback].lapsedAtLeast: P1M -> P2M",
                "com.ex.app: product-changed planner.pro.monthly offers[planner.loyal]: (none) -> type promotional, mode free-trial, duration P1W, subscribed true",
            ])
        // The other way: the added offer is removed.
        #expect(
            CatalogDiff.changes(from: new, to: old).map(\.description).last
                == "com.ex.app: product-changed planner.pro.monthly offers[planner.loyal]: type promotional, mode free-trial, duration P1W, subscribed true -> (none)"
        )
    }

    @Test("diff names an intro offer's changed field")
    func introOfferChangedFieldByField() {
        let old = T.catalog(Self.catalog(offer: ""))
        let new = T.catalog(
            Self.catalog(offer: "").replacingOccurrences(of: #""duration": "P1W" }"#, with: #""duration": "P2W", "for": "new-subscribers" }"#))
        #expect(
            CatalogDiff.changes(from: old, to: new).map(\.description) == [
                "com.ex.app: product-changed planner.pro.monthly introOffer.duration: P1W -> P2W",
                "com.ex.app: product-changed planner.pro.monthly introOffer.for: no-intro-yet -> new-subscribers",
            ])
    }

    @Test("a receipt's unknown product and a consumption's unknown currency get a did-you-mean")
    func receiptTyposSuggested() {
        let catalog = T.catalog(
            """
            { "app": "com.ex.app", "features": { "pro": "Pro" }, "currencies": { "pellets": "Pellets" },
              "legal": { "auto-renewable-subscription": "Renews." },
              "products": [
                { "id": "pro.monthly", "type": "auto-renewable-subscription", "name": "Monthly", "group": "pro", "grants": ["pro"] } ] }
            """)
        let receipt = Receipt(
            app: "com.ex.app",
            transactions: [Transaction(productId: "pro.montly", transactionId: "1", purchaseDate: T.instant("2026-01-01T00:00:00Z"))],
            consumptions: [Consumption(id: "c1", currency: "pelets", amount: 1, date: T.instant("2026-01-02T00:00:00Z"))])
        let messages = catalog.evaluate([receipt], at: T.instant("2026-02-01T00:00:00Z")).warnings.map(\.message)
        #expect(messages.contains { $0.hasSuffix("grants nothing; did you mean `pro.monthly`?") }, "\(messages)")
        #expect(messages.contains { $0.hasSuffix("is ignored; did you mean `pellets`?") }, "\(messages)")
        // Far from any id: no suggestion.
        var far = receipt
        far.transactions[0].productId = "com.other.thing"
        #expect(
            catalog.evaluate([far], at: T.instant("2026-02-01T00:00:00Z")).warnings.allSatisfy {
                !$0.message.contains("com.other.thing`, which the catalog does not define, grants nothing;")
            })
    }

    @Test("receipts of both forms mix in one call, each as its parsedReceipt")
    func mixedReceipts() throws {
        let catalog = T.diagrams
        let receipt = Receipt(
            app: "com.example.diagrams",
            transactions: [Transaction(productId: "com.example.diagrams.pro", transactionId: "1", purchaseDate: T.instant("2026-01-01T00:00:00Z"))])
        let parsed = ParsedReceipt(
            Receipt(
                app: "com.example.diagrams",
                consumptions: [Consumption(id: "c", currency: "stencils", amount: 2, date: T.instant("2026-01-02T00:00:00Z"))]))
        let result = catalog.evaluate([receipt.parsedReceipt, parsed], at: T.instant("2026-02-01T00:00:00Z"))
        #expect(result.isEnabled("pro"))
        #expect(result.balance(of: "stencils") == -2)
        let portfolio = T.examples
        let same = try portfolio.evaluate(
            app: "com.example.diagrams", receipts: [parsed, receipt.parsedReceipt], at: T.instant("2026-02-01T00:00:00Z"))
        #expect(same.json == result.json)
        #expect(
            catalog.explain([receipt.parsedReceipt, parsed], at: T.instant("2026-02-01T00:00:00Z")).features.first { $0.id == "pro" }?.enabled == true
        )
    }
}
