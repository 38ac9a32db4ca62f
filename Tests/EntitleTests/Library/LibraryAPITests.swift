import Foundation
import Testing

@testable import Entitle

/// What a service builds on: results it can embed in its responses, and what a paywall needs.
@Suite("Library API")
struct LibraryAPITests {
    static func results() throws -> [Entitlements] {
        let portfolio = Fixtures.examples
        let trial = try ReceiptDecoder.decode(
            try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("products/receipts/diagrams-trial.json")))
        let owner = try ReceiptDecoder.decode(
            try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("products/receipts/diagrams6-owner.json")))
        return try ["2026-01-01T10:00:00Z", "2026-01-15T09:00:00Z", "2026-02-12T00:00:00Z"].map { at in
            try portfolio.evaluate(app: "com.example.diagrams", receipts: [trial, owner], at: Fixtures.instant(at))
        }
    }

    static func object(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test("enums print as their JSON names, as check --format json writes them")
    func enumsPrintJSONNames() throws {
        #expect("\(ProductState.gracePeriod)" == "grace-period")
        #expect(String(describing: OfferReason.billingIssue) == "billing-issue")
        #expect("\(Transaction.RevocationType.refundProrated)" == "refund-prorated")
        func check<Value: JSONNamed & CaseIterable>(_ type: Value.Type) {
            for value in Value.allCases { #expect("\(value)" == value.rawValue) }
        }
        check(ProductType.self)
        check(IntroOfferMode.self)
        check(SubscriptionOfferType.self)
        check(ProductState.self)
        check(OfferReason.self)
        check(SubscriptionChange.self)
        check(ChangeTiming.self)
        check(PromotionReason.self)
        check(EntitlementChange.Kind.self)
        check(CatalogChange.Kind.self)
        check(TransactionExplanation.Exclusion.self)
        check(Transaction.Ownership.self)
        check(Transaction.OfferType.self)
        check(Transaction.RevocationReason.self)
        check(Transaction.RevocationType.self)
        check(Transaction.BillingPlan.self)
        check(Renewal.ExpirationIntent.self)
        check(ReceiptFormat.self)
        // A status prints its state by name too, inside a struct's description.
        let status = ProductStatus(id: "p", type: .autoRenewableSubscription, state: .billingRetry)
        #expect("\(status)".contains("billing-retry"))
    }

    @Test("a receipt of an app nothing needs (a misspelt ledger app) is warned about once, with a suggestion")
    func unrelatedReceipt() throws {
        let portfolio = Fixtures.examples
        let trial = try ReceiptDecoder.decode(
            try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("products/receipts/diagrams-trial.json")))
        let owner = try ReceiptDecoder.decode(
            try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("products/receipts/diagrams6-owner.json")))
        let at = Fixtures.instant("2026-01-15T09:00:00Z")
        let ledger = Receipt(app: "com.example.diagram", consumptions: [Consumption(id: "c", currency: "stencils", amount: 3, date: at)])
        // The receipt of Diagrams 6, which an upgrade requires, is no warning; the misspelt one is, once.
        let result = try portfolio.evaluate(app: "com.example.diagrams", receipts: [trial, owner, ledger, ledger], at: at)
        let warnings = result.warnings.filter { $0.code == "unrelated-receipt" }
        #expect(
            warnings.map(\.message) == [
                "the receipt of `com.example.diagram` counts for nothing: no catalog is for that app and no upgrade requires it; did you mean `com.example.diagrams`?"
            ])
        // Evaluated for Diagrams 6, the Diagrams receipt belongs to the portfolio: no warning.
        let other = try portfolio.evaluate(app: "com.example.diagrams6", receipts: [trial, owner], at: at)
        #expect(!other.warnings.contains { $0.code == "unrelated-receipt" })
    }

    @Test("a result's record encodes with JSONEncoder to exactly what check --format json prints")
    func encodesLikeCheck() throws {
        for result in try Self.results() {
            let encoded = try JSONEncoder().encode(result.record)
            #expect(try Self.object(encoded) == (try Self.object(Data(result.json.utf8))))
        }
    }

    @Test("a result reads back as an EntitlementsRecord that holds the same answer, listed by id, and writes the same JSON")
    func decodes() throws {
        for result in try Self.results() {
            let decoded = try JSONDecoder().decode(EntitlementsRecord.self, from: Data(result.json.utf8))
            #expect(decoded.app == result.app && decoded.at == result.at && decoded.reevaluateAt == result.reevaluateAt)
            #expect(decoded.features == result.features.sorted { $0.id < $1.id })
            #expect(decoded.balances == result.balances.sorted { $0.currency < $1.currency })
            #expect(decoded.offers == result.offers.sorted { $0.productId < $1.productId })
            #expect(decoded.products == result.products.sorted { $0.id < $1.id })
            for id in result.catalog.featureIds { #expect(decoded.isEnabled(id) == result.isEnabled(id)) }
            #expect(decoded.offers(in: .appStore) == result.offers(in: .appStore).sorted { $0.productId < $1.productId })
            #expect(decoded.warnings.map(\.code) == result.warnings.map(\.code))
            // Warnings compare by what they say: the round trip is equal to the result's record.
            #expect(decoded.warnings == result.warnings)
            #expect(decoded == EntitlementsRecord(result))
            #expect(
                try Self.object(try JSONEncoder().encode(decoded)) == (try Self.object(Data(result.json.utf8))),
                "encoding again gives the same JSON")
        }
    }

    @Test("Apple's data given to the normalized decoder gets help naming the reader it needs")
    func appleDataToNormalizedDecoder() throws {
        let verifyReceipt = Data(#"{"status": 0, "environment": "Production", "receipt": {"bundle_id": "com.example.diagrams", "in_app": []}}"#.utf8)
        #expect(AppleImport.detect(verifyReceipt) == .apple(.verifyReceipt))
        let error = try #require(throws: ReceiptError.self) { try ParsedReceipt(json: verifyReceipt, name: "r.json") }
        #expect(
            error.help == "this is Apple's verifyReceipt response, not a normalized receipt: read it with "
                + "`AppleImport.unverifiedReceipt(from:app:)` (as `entitle check` does), after verifying its signature")
        let jws = Data("eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2lnbmF0dXJl".utf8)
        #expect(AppleImport.detect(jws) == .apple(.appStore))
        let jwsError = try #require(throws: ReceiptError.self) { try ParsedReceipt(json: jws) }
        #expect(jwsError.help?.hasPrefix("this is Apple's App Store Server data, not a normalized receipt") == true)
        // A normalized receipt with a mistake keeps its own help.
        let typo = try #require(throws: ReceiptError.self) { try ParsedReceipt(json: Data(#"{"app": "a", "transactons": []}"#.utf8)) }
        #expect(typo.help == "did you mean `transactions`?")
    }

    @Test("diagnostics, receipt errors and consumptions are Codable in the shapes the CLI and receipts use")
    func codableValues() throws {
        let json =
            #"{"app": "com.example.k", "features": {"pro": "Pro"}, "products": [{"id": "p", "type": "non-consumable", "name": "P", "grants": ["pr0"]}]}"#
        let diagnostics = Portfolio.compile([CatalogSource(name: "k.json", data: Data(json.utf8))]).diagnostics
        #expect(!diagnostics.isEmpty)
        let encoded = try JSONEncoder().encode(diagnostics)
        #expect(try JSONDecoder().decode([Diagnostic].self, from: encoded) == diagnostics)
        let objects = try #require(try JSONSerialization.jsonObject(with: encoded) as? [NSDictionary])
        let printed = try diagnostics.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.jsonOutput.rendered().utf8)) as? NSDictionary)
        }
        #expect(objects == printed, "the same object as `validate --format json`")
        let unlocated = Diagnostic(severity: .error, code: .unreadableFile, message: "no catalogs given")
        #expect(try JSONDecoder().decode(Diagnostic.self, from: JSONEncoder().encode(unlocated)) == unlocated)

        let error = try #require(throws: ReceiptError.self) { try ParsedReceipt(json: Data(#"{"app": 1}"#.utf8), name: "r.json") }
        #expect(try JSONDecoder().decode(ReceiptError.self, from: JSONEncoder().encode(error)) == error)

        let ledger = [Consumption(id: "order-1", currency: "stencils", amount: 3, date: Fixtures.instant("2026-01-05T10:00:00Z"))]
        let stored = try JSONEncoder().encode(ledger)
        #expect(try JSONDecoder().decode([Consumption].self, from: stored) == ledger)
        // What it encodes to is a receipt's `consumptions`, as the decoder reads them.
        let receipt = #"{"app": "com.example.diagrams", "consumptions": "# + String(decoding: stored, as: UTF8.self) + "}"
        #expect(try ParsedReceipt(json: Data(receipt.utf8)).receipt.consumptions == ledger)
    }

    @Test("receipts are Codable as normalized receipt JSON, with the decoder's checks")
    func codableReceipts() throws {
        struct Stored: Codable {
            var customer: String
            var receipts: [Receipt]
        }
        let directory = Fixtures.packageRoot.appendingPathComponent("products/receipts")
        let receipts = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
            .map { try ReceiptDecoder.decode(try Data(contentsOf: directory.appendingPathComponent($0))) }
        #expect(receipts.count >= 3)
        let data = try JSONEncoder().encode(Stored(customer: "c-1", receipts: receipts))
        #expect(try JSONDecoder().decode(Stored.self, from: data).receipts == receipts)
        // Each encodes to the object `json` prints.
        for receipt in receipts {
            #expect(try Self.object(JSONEncoder().encode(receipt)) == (try Self.object(Data(receipt.json.utf8))))
        }
        // A value the decoder refuses is a DecodingError carrying its message.
        let bad = Data(
            #"{"customer": "c", "receipts": [{"app": "a", "transactions": [{"productId": "p", "transactionId": "1", "purchaseDate": "2026-01-01T00:00:00Z", "quantity": 0}]}]}"#
                .utf8)
        do {
            _ = try JSONDecoder().decode(Stored.self, from: bad)
            Issue.record("a quantity of 0 was accepted")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("transactions[0].quantity"), "\(context.debugDescription)")
        }
    }

    @Test("results differing in any answer are unequal")
    func inequality() throws {
        let results = try Self.results()
        #expect(results[0] != results[1] && results[1] != results[2])
        let warned = EvaluationWarning(kind: .negativeBalance(currency: "gems", balance: -1))
        #expect(warned == EvaluationWarning(kind: .reported(code: "negative-balance", message: warned.message)))
        #expect(warned != EvaluationWarning(kind: .negativeBalance(currency: "gems", balance: -2)))
        #expect(Set([warned, EvaluationWarning(kind: .reported(code: warned.code, message: warned.message))]).count == 1)
    }

    @Test("comparing results compares what they hold: it runs no search for the next change")
    func equalityRunsNoSearch() throws {
        let trial = try ReceiptDecoder.decode(
            try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("products/receipts/diagrams-trial.json")))
        let at = Fixtures.instant("2026-01-15T09:00:00Z")
        let (a, b) = (Fixtures.diagrams.evaluate([trial], at: at), Fixtures.diagrams.evaluate([trial], at: at))
        #expect(a == b)
        #expect(!a.answer.nextChangeIsKnown && !b.answer.nextChangeIsKnown)
        // The record holds the next change, so comparing records compares it too.
        #expect(a.record == b.record && a.record.reevaluateAt != nil)
        #expect(a.answer.nextChangeIsKnown)
    }

    @Test("a service embeds results' records in the responses it encodes, and reads them back as equal records")
    func embeds() throws {
        let result = try #require(try Self.results().last)
        let data = try JSONEncoder().encode(Envelope(customer: "c-1", entitlements: result.record, checkedAt: result.at))
        let back = try JSONDecoder().decode(Envelope<EntitlementsRecord>.self, from: data)
        #expect(back.customer == "c-1" && back.checkedAt == result.at)
        #expect(back.entitlements == EntitlementsRecord(result))
        #expect(back.entitlements.features.filter(\.enabled).map(\.id) == result.enabledFeatures.sorted())
        #expect(String(decoding: try JSONEncoder().encode(result.at), as: UTF8.self) == "\"2026-02-12T00:00:00Z\"")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Instant.self, from: Data("\"2026-02-30T00:00:00Z\"".utf8)) }
    }

    @Test("a compiled catalog shows a paywall everything about its products, features and currencies")
    func paywall() throws {
        let catalog = Fixtures.diagrams
        #expect(catalog.products.map(\.key) == catalog.productIds)
        #expect(catalog.products.map(\.id).contains("prod_DiagramsProYearly"), "a product's id is its store's")
        let monthly = try #require(catalog.product("com.example.diagrams.sync.monthly"))
        #expect(monthly.type == .autoRenewableSubscription && monthly.group == "sync" && monthly.duration == ISODuration("P1M"))
        #expect(monthly.introOffer == CatalogProduct.IntroOffer(mode: .freeTrial, duration: ISODuration("P1W")!))
        #expect(monthly.legal?.hasPrefix("Renews automatically") == true)
        #expect(monthly.grants == ["cloud.sync"])
        let trial = try #require(catalog.product("com.example.diagrams.trial"))
        #expect(trial.trialOf == "com.example.diagrams.pro" && trial.trialDays == 14 && trial.priceTier == 0)
        let upgrade = try #require(catalog.product("com.example.diagrams.pro.upgrade"))
        #expect(
            upgrade.upgrade
                == CatalogProduct.Upgrade(
                    replaces: "com.example.diagrams.pro", requiresApp: "com.example.diagrams6",
                    anyOf: ["com.example.diagrams6.pro"]))
        let stencils = try #require(catalog.product("com.example.diagrams.stencils.10"))
        #expect(stencils.credits == [CatalogProduct.Credit(currency: "stencils", amount: 10)])
        let pro = try #require(catalog.features.first { $0.id == "pro" })
        #expect(pro.description == "All drawing tools")
        #expect(pro.grantedBy.contains("com.example.diagrams.daypass"))
        #expect(catalog.currencies.map(\.creditedBy) == [["com.example.diagrams.stencils.10"]])
        #expect(catalog.feature("pro") == pro)
        #expect(catalog.feature("nope") == nil && catalog.currency("nope") == nil)
        #expect(catalog.currency("stencils") == catalog.currencies.first)
        // Values a service sends to its own apps.
        let data = try JSONEncoder().encode(catalog.products)
        #expect(try JSONDecoder().decode([CatalogProduct].self, from: data) == catalog.products)
    }
}

/// A service's own response, holding a result as it is encoded (``Entitlements``) or read back
/// (``EntitlementsRecord``).
private struct Envelope<Result> {
    var customer: String
    var entitlements: Result
    var checkedAt: Instant
}

extension Envelope: Encodable where Result: Encodable {}
extension Envelope: Decodable where Result: Decodable {}
