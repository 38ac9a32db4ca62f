import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// App transactions: the receipt facts Apple's app transaction carries (`appTransactionId`,
/// `originalPlatform`, `preorderDate`), grandfather rules of several conditions, and consent
/// rescinded (`RESCIND_CONSENT`).
@Suite("App transactions and consent")
struct AppTransactionTests {
    static let app = "com.example.sketch"
    static let json = """
        { "app": "com.example.sketch",
          "features": { "pro": "everything", "brushes": "extra brushes", "export": "export" },
          "currencies": { "ink": "ink drops" },
          "legal": { "auto-renewable-subscription": "Renews monthly until cancelled." },
          "products": [
            { "id": "sketch.pro", "type": "non-consumable", "name": "Pro", "grants": ["pro"] },
            { "id": "sketch.monthly", "type": "auto-renewable-subscription", "name": "Monthly", "group": "sub", "duration": "P1M",
              "grants": ["export"] },
            { "id": "sketch.ink", "type": "consumable", "name": "Ink", "credits": { "ink": 10 } }
          ],
          "grandfathered": [
            { "id": "mac-buyers", "grants": ["pro"], "originalPlatform": ["macOS"] },
            { "id": "early-ios", "grants": ["brushes"], "originalApplicationVersionBefore": "2.0",
              "originalPurchaseBefore": "2025-01-01", "originalPlatform": ["iOS", "visionOS"] }
          ] }
        """
    static let catalog = T.catalog(json)

    static func receipt(
        platform: AppPlatform? = nil, version: String? = nil, originalPurchase: String? = nil, rescinded: String? = nil,
        transactions: [Transaction] = []
    ) -> Receipt {
        Receipt(
            app: app, transactions: transactions, originalApplicationVersion: version, originalPurchaseDate: originalPurchase.map(T.instant),
            originalPlatform: platform, consentRescinded: rescinded.map(T.instant))
    }

    @Test(
        "a platform rule matches the platforms it lists, none other and no receipt without one",
        arguments: [(AppPlatform?.some(.macOS), true), (.iOS, false), (.visionOS, false), (nil, false)])
    func platform(platform: AppPlatform?, matches: Bool) {
        let result = checkedEvaluation(Self.catalog, [Self.receipt(platform: platform)], at: "2026-01-01T00:00:00Z")
        #expect(result.isEnabled("pro") == matches)
        #expect(result.feature("pro")?.sources == (matches ? ["grandfathered:mac-buyers"] : []))
        #expect(result.offer(for: "sketch.pro")?.reason == (matches ? .owned : nil))
    }

    @Test(
        "a rule of several conditions matches only when every one holds",
        arguments: [
            ("1.9", "2024-12-31T23:59:59.999Z", AppPlatform?.some(.iOS), true),
            ("1.9", "2024-12-31T23:59:59.999Z", .visionOS, true),
            ("2.0", "2024-12-31T23:59:59.999Z", .iOS, false),
            ("1.9", "2025-01-01T00:00:00Z", .iOS, false),
            ("1.9", "2024-12-31T23:59:59.999Z", .macOS, false),
            ("1.9", "2024-12-31T23:59:59.999Z", nil, false),
            ("1.9", nil, .iOS, false),
            (nil, "2024-12-31T23:59:59.999Z", .iOS, false),
        ] as [(String?, String?, AppPlatform?, Bool)])
    func allConditions(version: String?, purchase: String?, platform: AppPlatform?, matches: Bool) {
        let receipt = Self.receipt(platform: platform, version: version, originalPurchase: purchase)
        let result = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-01T00:00:00Z")
        #expect(result.isEnabled("brushes") == matches)
        if matches { #expect(result.feature("brushes")?.until == nil, "no end") }
    }

    @Test("a matched rule covers from the original purchase, with no end; before it, reevaluate then")
    func coverageStart() {
        let receipt = Self.receipt(platform: .macOS, originalPurchase: "2026-03-01T00:00:00Z")
        let before = checkedEvaluation(Self.catalog, [receipt], at: "2026-02-28T23:59:59.999Z")
        #expect(!before.isEnabled("pro"))
        #expect(before.reevaluateAt == T.instant("2026-03-01T00:00:00Z"))
        #expect(checkedEvaluation(Self.catalog, [receipt], at: "2026-03-01T00:00:00Z").isEnabled("pro"))
    }

    @Test("explain says which condition failed, and every one that held")
    func explained() throws {
        let failed = Self.catalog.explain(
            [Self.receipt(platform: .macOS, version: "1.9", originalPurchase: "2024-06-01T00:00:00Z")], at: T.instant("2026-01-01T00:00:00Z"))
        let brushes = try #require(failed.feature("brushes")?.sources.first { $0.id == "grandfathered:early-ios" })
        #expect(
            brushes.reason.hasPrefix(
                "for originalApplicationVersion before 2.0 and originalPurchaseDate before 2025-01-01T00:00:00Z and originalPlatform one of iOS, visionOS: "
            ))
        #expect(brushes.reason.hasSuffix("originalPlatform macOS is not one of iOS, visionOS"), "\(brushes.reason)")
        let held = Self.catalog.explain(
            [Self.receipt(platform: .iOS, version: "1.9", originalPurchase: "2024-06-01T00:00:00Z")], at: T.instant("2026-01-01T00:00:00Z"))
        let reason = try #require(held.feature("brushes")?.sources.first { $0.id == "grandfathered:early-ios" }?.reason)
        #expect(
            reason.contains(
                "originalApplicationVersion 1.9 is before 2.0, originalPurchaseDate 2024-06-01T00:00:00Z is before 2025-01-01T00:00:00Z, originalPlatform iOS is one of iOS, visionOS"
            ), "\(reason)")
        let missing = Self.catalog.explain([Self.receipt()], at: T.instant("2026-01-01T00:00:00Z"))
        #expect(missing.feature("pro")?.sources.first { $0.kind == .grandfathered }?.reason.contains("receipt 0 has no originalPlatform") == true)
    }

    @Test("a grandfather rule needs a condition; platforms are Apple's, each once")
    func checks() throws {
        func problems(_ rule: String) -> [Diagnostic] {
            let text = #"{"app":"a.b","features":{"f":"x"},"products":[],"grandfathered":[\#(rule)]}"#
            return T.compile(text).diagnostics.filter { $0.severity == .error }
        }
        let none = problems(#"{"id":"r","grants":["f"]}"#)
        #expect(none.map(\.code) == [.missingKey])
        #expect(none.first?.message.contains("`originalPlatform`") == true)
        let misspelt = problems(#"{"id":"r","grants":["f"],"originalPlatform":["macos"]}"#)
        #expect(misspelt.map(\.code) == [.badEnumValue])
        #expect(misspelt.first?.path == "grandfathered[0].originalPlatform[0]")
        #expect(misspelt.first?.description.contains("macOS") == true, "did you mean")
        #expect(problems(#"{"id":"r","grants":["f"],"originalPlatform":["iOS","iOS"]}"#).first?.message == "platform `iOS` is listed twice")
        #expect(problems(#"{"id":"r","grants":["f"],"originalPlatform":[]}"#).map(\.code) == [.wrongType])
        #expect(problems(#"{"id":"r","grants":["f"],"originalPlatform":"iOS"}"#).map(\.code) == [.wrongType])
        #expect(problems(#"{"id":"r","grants":["f"],"originalPlatform":["tvOS"],"originalApplicationVersionBefore":"2"}"#).isEmpty)
        // A broken condition is reported alone, not as a missing one too.
        #expect(problems(#"{"id":"r","grants":["f"],"originalPlatform":["watchOS"]}"#).count == 1)
    }

    @Test("a platform or a condition added to a rule is a loss the proof finds, with a witness of the platform dropped")
    func proofs() throws {
        let narrowed = Self.json.replacingOccurrences(of: #""originalPlatform": ["iOS", "visionOS"]"#, with: #""originalPlatform": ["iOS"]"#)
        let old = try #require(T.compile(Self.json).portfolio)
        let new = try #require(T.compile(narrowed).portfolio)
        let report = CatalogProof.compare(old, new, options: ProofOptions(depth: 1))
        let brushes = try #require(report.items.first { $0.item.kind == .feature && $0.item.id == "brushes" })
        #expect(brushes.verdict == .less)
        let witness = try #require(brushes.witnesses.first)
        #expect(witness.receipts.first?.originalPlatform == .visionOS)
        #expect(try old.evaluate(app: Self.app, receipts: witness.receipts, at: witness.at).isEnabled("brushes"))
        #expect(try !new.evaluate(app: Self.app, receipts: witness.receipts, at: witness.at).isEnabled("brushes"))
        // The Mac rule gains a version condition: Mac customers of 2.0 and later lose Pro.
        let versioned = Self.json.replacingOccurrences(
            of: #""grants": ["pro"], "originalPlatform": ["macOS"]"#,
            with: #""grants": ["pro"], "originalPlatform": ["macOS"], "originalApplicationVersionBefore": "2.0""#)
        let stricter = try #require(T.compile(versioned).portfolio)
        let pro = try #require(
            CatalogProof.compare(old, stricter, options: ProofOptions(depth: 1)).items.first { $0.item.kind == .feature && $0.item.id == "pro" })
        #expect(pro.verdict == .less)
        #expect(CatalogProof.compare(old, old, options: ProofOptions(depth: 1)).differences.isEmpty)
    }

    // MARK: Consent rescinded

    static let purchases = [
        T.transaction("sketch.pro", "1", "2025-06-01T00:00:00Z"),
        T.transaction("sketch.monthly", "2", "2025-12-15T00:00:00Z", expires: "2026-01-15T00:00:00Z", original: "2"),
        T.transaction("sketch.ink", "3", "2025-12-01T00:00:00Z", quantity: 2),
    ]

    @Test("before consent is rescinded nothing changes, and reevaluateAt is that instant")
    func beforeRescinding() {
        let receipt = Self.receipt(platform: .macOS, rescinded: "2026-01-10T12:00:00Z", transactions: Self.purchases)
        let result = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-10T11:59:59.999Z")
        #expect(result.consentRescinded == nil)
        #expect(result.isEnabled("pro") && result.isEnabled("export"))
        #expect(result.reevaluateAt == T.instant("2026-01-10T12:00:00Z"))
        #expect(!result.json.contains("consentRescinded"))
    }

    @Test("from the instant consent is rescinded: no feature, nothing offered; products and balances stand")
    func rescinded() throws {
        let receipt = Self.receipt(platform: .macOS, rescinded: "2026-01-10T12:00:00Z", transactions: Self.purchases)
        for at in ["2026-01-10T12:00:00Z", "2026-03-01T00:00:00Z"] {
            let result = checkedEvaluation(Self.catalog, [receipt], at: at)
            #expect(result.consentRescinded == T.instant("2026-01-10T12:00:00Z"))
            #expect(result.features.allSatisfy { !$0.enabled && $0.sources.isEmpty })
            #expect(result.offers.allSatisfy { !$0.eligible && $0.reason == .consentRescinded })
            #expect(result.offers.allSatisfy { $0.adds.isEmpty && $0.extends.isEmpty }, "buying turns nothing on")
            #expect(result.balance(of: "ink") == 20)
            #expect(result.product("sketch.pro")?.state == .active)
            let json = try JSONSerialization.jsonObject(with: Data(result.json.utf8)) as? [String: Any]
            #expect(json?["consentRescinded"] as? String == "2026-01-10T12:00:00Z")
            #expect(result.text.contains("consent rescinded at 2026-01-10T12:00:00Z"))
            // The stored form reads it back.
            let record = try JSONDecoder().decode(EntitlementsRecord.self, from: Data(result.json.utf8))
            #expect(record.consentRescinded == result.consentRescinded)
        }
        let during = Self.catalog.evaluate([receipt], at: T.instant("2026-01-12T00:00:00Z"))
        #expect(during.reevaluateAt == T.instant("2026-01-15T00:00:00Z"), "the subscription's end still changes its state")
        let explanation = Self.catalog.explain([receipt], at: T.instant("2026-01-12T00:00:00Z"))
        #expect(explanation.consentRescinded == T.instant("2026-01-10T12:00:00Z"))
        #expect(explanation.text(offer: "sketch.pro")?.contains("the customer rescinded consent for the app at 2026-01-10T12:00:00Z") == true)
        #expect(explanation.text(feature: "pro")?.contains("consent rescinded at 2026-01-10T12:00:00Z") == true)
    }

    @Test("of several receipts of the app, the earliest consent rescinded counts; another app's does not")
    func earliest() {
        let early = Self.receipt(rescinded: "2026-01-05T00:00:00Z")
        let late = Self.receipt(platform: .macOS, rescinded: "2026-01-20T00:00:00Z", transactions: Self.purchases)
        var other = Self.receipt(rescinded: "2025-01-01T00:00:00Z")
        other.app = "com.example.other"
        let result = checkedEvaluation(Self.catalog, [late, early, other], at: "2026-01-06T00:00:00Z")
        #expect(result.consentRescinded == T.instant("2026-01-05T00:00:00Z"))
        let unaffected = Self.catalog.evaluate([late, other], at: T.instant("2026-01-06T00:00:00Z"))
        #expect(unaffected.consentRescinded == nil && unaffected.isEnabled("pro"))
    }

    // MARK: Receipts and import

    @Test("the new receipt fields read, write and read back the same; bad values are located")
    func receiptFields() throws {
        let text = """
            {"app":"com.example.sketch","appTransactionId":"71134","originalPlatform":"visionOS","preorderDate":"2023-10-24T12:18:20Z",
             "consentRescinded":"2026-01-10T12:00:00Z",
             "transactions":[{"productId":"sketch.pro","transactionId":"1","purchaseDate":"2025-06-01T00:00:00Z","appTransactionId":"71134"}],
             "renewals":[{"originalTransactionId":"1","appTransactionId":"71134"}]}
            """
        let receipt = try ReceiptDecoder.decode(Data(text.utf8))
        #expect(receipt.appTransactionId == "71134" && receipt.originalPlatform == .visionOS)
        #expect(receipt.preorderDate == T.instant("2023-10-24T12:18:20Z"))
        #expect(receipt.consentRescinded == T.instant("2026-01-10T12:00:00Z"))
        #expect(receipt.transactions[0].appTransactionId == "71134" && receipt.renewals[0].appTransactionId == "71134")
        #expect(try ReceiptDecoder.decode(Data(receipt.json.utf8)) == receipt)
        #expect(ParsedReceipt(receipt).receipt == receipt)

        let error = Fixtures.receiptError
        let platform = try #require(error(#"{"app":"a","originalPlatform":"macos"}"#))
        #expect(platform.path == "originalPlatform" && platform.description.contains("macOS"))
        #expect(error(#"{"app":"a","appTransactionId":""}"#)?.path == "appTransactionId")
        #expect(error(#"{"app":"a","consentRescinded":"yesterday"}"#)?.path == "consentRescinded")
        #expect(
            error(#"{"app":"a","transactions":[{"productId":"p","transactionId":"1","purchaseDate":"2025-01-01T00:00:00Z","appTransactionId":""}]}"#)?
                .path == "transactions[0].appTransactionId")
        #expect(Receipt(app: "a", appTransactionId: "").limitViolation?.path == "appTransactionId")
    }

    static let models = "storekit2/apple-app-store-server-library-swift/models/"

    @Test("Apple's app transaction and RESCIND_CONSENT examples import", .enabled(if: Fixtures.sharedFixturesAvailable))
    func appleExamples() throws {
        let appTransaction = try Data(contentsOf: Fixtures.sharedFixtures.appendingPathComponent(Self.models + "appTransaction.json"))
        let imported = try AppleImport.unverifiedReceipt(fromAppStore: appTransaction).receipt
        #expect(imported.app == "com.example")
        #expect(imported.appTransactionId == "71134" && imported.originalPlatform == .iOS)
        #expect(imported.preorderDate?.millisecondsSince1970 == 1_698_148_700_000)
        #expect(imported.originalApplicationVersion == "1.1.2")
        #expect(imported.originalPurchaseDate?.millisecondsSince1970 == 1_698_148_800_000)

        let notification = try Data(contentsOf: Fixtures.sharedFixtures.appendingPathComponent(Self.models + "signedRescindConsentNotification.json"))
        let rescind = try AppleImport.unverifiedReceipt(fromAppStore: notification)
        #expect(rescind.receipt.app == "com.example")
        #expect(rescind.receipt.consentRescinded?.millisecondsSince1970 == 1_698_148_900_000)
        #expect(rescind.notifications.map(\.type) == ["RESCIND_CONSENT"])
        #expect(!rescind.warnings.contains { $0.message.contains("carries no transaction") })
        #expect(try ReceiptDecoder.decode(Data(rescind.receipt.json.utf8)) == rescind.receipt)
    }

    @Test("a RESCIND_CONSENT notification with its signed app transaction sets both; without signedDate it is refused")
    func rescindNotification() throws {
        let jws = Fixtures.unsignedJWS
        let appTransaction =
            #"{"bundleId":"com.example.sketch","appTransactionId":"9","originalPlatform":"macOS","originalPurchaseDate":1600000000000}"#
        let notification =
            #"{"notificationType":"RESCIND_CONSENT","signedDate":1767960000000,"appData":{"bundleId":"com.example.sketch","signedAppTransactionInfo":"\#(jws(appTransaction))"}}"#
        let receipt = try AppleImport.unverifiedReceipt(fromAppStore: Data(#"{"signedPayload":"\#(jws(notification))"}"#.utf8)).receipt
        #expect(receipt.consentRescinded?.millisecondsSince1970 == 1_767_960_000_000)
        #expect(receipt.appTransactionId == "9" && receipt.originalPlatform == .macOS)
        // The facts and the consent together: the Mac buyer's grandfathered feature ends with consent.
        #expect(!Self.catalog.evaluate([receipt], at: T.instant("2026-02-01T00:00:00Z")).isEnabled("pro"))
        #expect(Self.catalog.evaluate([receipt], at: T.instant("2025-02-01T00:00:00Z")).isEnabled("pro"))

        let undated = #"{"notificationType":"RESCIND_CONSENT","appData":{"bundleId":"com.example.sketch"}}"#
        #expect(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(fromAppStore: Data(undated.utf8)) }
    }

    @Test("a customer history keeps the earliest consent rescinded and the app transaction's facts, in any order")
    func history() throws {
        let purchases = Self.receipt(transactions: Self.purchases)
        let facts = Receipt(app: Self.app, appTransactionId: "9", originalPlatform: .macOS)
        let rescinds = [Self.receipt(rescinded: "2026-02-01T00:00:00Z"), Self.receipt(rescinded: "2026-01-10T00:00:00Z")]
        var forward = CustomerHistory()
        for receipt in [purchases, facts] + rescinds { try forward.add(receipt) }
        var backward = CustomerHistory()
        for receipt in ([purchases, facts] + rescinds).reversed() { try backward.add(receipt) }
        #expect(forward.receipts == backward.receipts)
        #expect(forward.receipts.first?.consentRescinded == T.instant("2026-01-10T00:00:00Z"))
        #expect(forward.receipts.first?.originalPlatform == .macOS && forward.receipts.first?.appTransactionId == "9")
    }
}
