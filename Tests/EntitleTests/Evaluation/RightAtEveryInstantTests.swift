import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// Answers that were wrong at some instant (issue "Right at every instant"), each at its boundary
/// instants, against the reference evaluator, and the same bytes with the receipts and their
/// entries in either order.
@Suite("Right at every instant")
struct RightAtEveryInstantTests {
    /// The answer, checked against the reference evaluator and the receipts in reverse order.
    static func evaluate(
        _ catalog: CompiledCatalog, _ receipts: [Receipt], at text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> Entitlements {
        checkedEvaluation(catalog, receipts, at: text, sourceLocation: sourceLocation)
    }

    // MARK: reevaluateAt

    static let upgrades = T.catalog(
        """
        { "app": "com.ex.app", "features": { "pro": "Pro" },
          "products": [
            { "id": "full", "type": "non-consumable", "name": "Full", "priceTier": 10, "grants": ["pro"] },
            { "id": "full.up", "type": "non-consumable", "name": "Upgrade", "priceTier": 5, "grants": ["pro"],
              "upgrade": { "replaces": "full", "requires": { "app": "com.ex.old", "anyOf": ["old.pro"] } } } ] }
        """)

    /// The old app's purchase that upgrade pricing requires, as a copy signed at `signed`
    /// (cancelled at `cancelled`).
    static func prerequisite(signed: String? = nil, cancelled: String? = nil) -> Transaction {
        var copy = Transaction(productId: "old.pro", transactionId: "9001", purchaseDate: T.instant("2020-01-01T00:00:00Z"))
        copy.signedDate = signed.map(T.instant)
        copy.cancellationDate = cancelled.map(T.instant)
        return copy
    }

    @Test("a later snapshot of an upgrade prerequisite (a refund reversed) is a change reevaluateAt names")
    func prerequisiteReversal() {
        var refunded = Self.prerequisite(signed: "2024-04-01T00:00:00Z", cancelled: "2024-04-01T00:00:00Z")
        refunded.revocationType = .refundFull
        let reversed = Self.prerequisite(signed: "2024-04-13T01:00:00Z")
        let receipts = [Receipt(app: "com.ex.app"), Receipt(app: "com.ex.old", transactions: [refunded, reversed])]
        let before = Self.evaluate(Self.upgrades, receipts, at: "2024-04-13T00:00:00Z")
        #expect(before.offer(for: "full.up")?.reason == .prerequisiteMissing)
        #expect(before.reevaluateAt == T.instant("2024-04-13T01:00:00Z"))
        let after = Self.evaluate(Self.upgrades, receipts, at: "2024-04-13T01:00:00Z")
        #expect(after.offer(for: "full.up")?.eligible == true)
        #expect(Self.evaluate(Self.upgrades, receipts, at: "2024-04-13T00:59:59.999Z").offer(for: "full.up")?.eligible == false)
    }

    @Test("a prerequisite's refund signed later than its cancellationDate changes the answer at its signing")
    func prerequisiteRefundSignedLater() {
        let refunded = Self.prerequisite(signed: "2024-04-13T00:00:00Z", cancelled: "2024-04-01T00:00:00Z")
        let receipts = [Receipt(app: "com.ex.app"), Receipt(app: "com.ex.old", transactions: [Self.prerequisite(), refunded])]
        let before = Self.evaluate(Self.upgrades, receipts, at: "2024-04-05T00:00:00Z")
        #expect(before.offer(for: "full.up")?.eligible == true)
        #expect(before.reevaluateAt == T.instant("2024-04-13T00:00:00Z"))
        #expect(Self.evaluate(Self.upgrades, receipts, at: "2024-04-13T00:00:00Z").offer(for: "full.up")?.reason == .prerequisiteMissing)
    }

    static let coins = T.catalog(
        """
        { "app": "com.ex.app", "features": { "pro": "Pro" }, "currencies": { "coins": "Coins" },
          "products": [ { "id": "coins.10", "type": "consumable", "name": "10 coins", "credits": { "coins": 10 } } ] }
        """)

    @Test("a consumable refunded in part at its own purchase instant credits what is left from then on")
    func partialRefundAtPurchase() {
        let pack = Transaction(
            productId: "coins.10", transactionId: "1", purchaseDate: T.instant("2024-07-08T00:00:00Z"),
            cancellationDate: T.instant("2024-07-08T00:00:00Z"), quantity: 2, revocationType: .refundProrated, revocationPercentage: 50)
        let receipts = [Receipt(app: "com.ex.app", transactions: [pack])]
        let before = Self.evaluate(Self.coins, receipts, at: "2024-07-01T00:00:00Z")
        #expect(before.balance(of: "coins") == 0)
        #expect(before.reevaluateAt == T.instant("2024-07-08T00:00:00Z"))
        #expect(Self.evaluate(Self.coins, receipts, at: "2024-07-08T00:00:00Z").balance(of: "coins") == 10)
        // Refunded in full at its purchase: nothing ever credits, nothing changes.
        var whole = pack
        whole.revocationPercentage = 100
        #expect(Self.evaluate(Self.coins, [Receipt(app: "com.ex.app", transactions: [whole])], at: "2024-07-01T00:00:00Z").reevaluateAt == nil)
    }

    @Test("copies of a grant id that disagree on the start: reevaluateAt reads the copy that counts, in either order")
    func disagreeingGrantCopies() {
        let r1 = Receipt(app: "com.ex.app", grants: [Grant(id: "g", features: ["pro"], start: T.instant("2024-03-01T00:00:00Z"))])
        let r2 = Receipt(app: "com.ex.app", grants: [Grant(id: "g", features: ["pro"], start: T.instant("2024-03-01T00:00:00.500Z"))])
        for receipts in [[r1, r2], [r2, r1]] {
            let result = Self.evaluate(Self.coins, receipts, at: "2024-03-01T00:00:00.200Z")
            // The copy first by the bytes of its JSON (`.500Z` before `Z`) counts: not started yet.
            #expect(result.feature("pro")?.enabled == false)
            #expect(result.reevaluateAt == T.instant("2024-03-01T00:00:00.500Z"))
        }
    }

    @Test("copies of a consumption id that disagree on the date: reevaluateAt reads the copy that counts, in either order")
    func disagreeingConsumptionCopies() {
        let pack = Transaction(productId: "coins.10", transactionId: "1", purchaseDate: T.instant("2024-02-01T00:00:00Z"))
        let r1 = Receipt(
            app: "com.ex.app", transactions: [pack],
            consumptions: [Consumption(id: "c", currency: "coins", amount: 1, date: T.instant("2024-03-01T00:00:00Z"))])
        let r2 = Receipt(
            app: "com.ex.app", consumptions: [Consumption(id: "c", currency: "coins", amount: 1, date: T.instant("2024-03-01T00:00:00.500Z"))])
        for receipts in [[r1, r2], [r2, r1]] {
            let result = Self.evaluate(Self.coins, receipts, at: "2024-03-01T00:00:00.200Z")
            #expect(result.balance(of: "coins") == 10)
            #expect(result.reevaluateAt == T.instant("2024-03-01T00:00:00.500Z"))
        }
    }

    // MARK: Offers

    static let levels = T.catalog(
        """
        { "app": "com.ex.app", "features": { "pro": "Pro" }, "legal": { "auto-renewable-subscription": "Renews." },
          "products": [
            { "id": "plus", "type": "auto-renewable-subscription", "name": "Plus", "group": "g", "level": 1, "duration": "P1M", "grants": ["pro"] },
            { "id": "basic", "type": "auto-renewable-subscription", "name": "Basic", "group": "g", "level": 2, "duration": "P1M", "grants": ["pro"] },
            { "id": "basic.year", "type": "auto-renewable-subscription", "name": "Basic yearly", "group": "g", "level": 2, "duration": "P1Y",
              "grants": ["pro"] } ] }
        """)

    @Test("a product in billing retry keeps the group's change: every other product says what buying it would be")
    func billingRetryKeepsChange() {
        let plus = Transaction(
            productId: "plus", transactionId: "20", originalTransactionId: "20", purchaseDate: T.instant("2024-02-15T00:00:00Z"),
            expiresDate: T.instant("2024-03-15T00:00:00Z"))
        let basic = Transaction(
            productId: "basic", transactionId: "10", originalTransactionId: "10", purchaseDate: T.instant("2024-01-01T00:00:00Z"),
            expiresDate: T.instant("2024-02-01T00:00:00Z"))
        let retry = Renewal(productId: "basic", originalTransactionId: "10", willRenew: true, isInBillingRetry: true)
        let result = Self.evaluate(
            Self.levels, [Receipt(app: "com.ex.app", transactions: [plus, basic], renewals: [retry])], at: "2024-03-01T00:00:00Z")
        #expect(result.product("basic")?.state == .billingRetry)
        for id in ["basic", "basic.year"] {
            let offer = result.offer(for: id)
            #expect(offer?.reason == .billingIssue)
            #expect(offer?.change == .downgrade && offer?.effective == .nextRenewal, "\(id)")
        }
        #expect(result.offer(for: "plus")?.change == nil)
    }

    // MARK: Refund history

    static let winBack = T.catalog(
        """
        { "app": "com.ex.app", "features": { "pro": "Pro" }, "legal": { "auto-renewable-subscription": "Renews." },
          "products": [
            { "id": "yearly", "type": "auto-renewable-subscription", "name": "Yearly", "group": "g", "duration": "P1Y", "grants": ["pro"],
              "offers": [ { "id": "back", "type": "win-back", "mode": "free-trial", "duration": "P1M", "lapsedAtMost": "P1M" } ] } ] }
        """)

    /// Paid a month in January, bought the year on 27 February, refunded on 1 April.
    static let refundedYear = [
        Receipt(
            app: "com.ex.app",
            transactions: [
                Transaction(
                    productId: "yearly", transactionId: "1", originalTransactionId: "1", purchaseDate: T.instant("2026-01-27T00:00:00Z"),
                    expiresDate: T.instant("2026-02-27T00:00:00Z")),
                Transaction(
                    productId: "yearly", transactionId: "2", originalTransactionId: "1", purchaseDate: T.instant("2026-02-27T00:00:00Z"),
                    expiresDate: T.instant("2027-02-27T00:00:00Z"), cancellationDate: T.instant("2026-04-01T00:00:00Z"),
                    revocationType: .refundFull),
            ])
    ]

    @Test("a refund ends coverage, not its history: the lapse a win-back offer measures runs from the refund")
    func refundKeepsHistory() {
        // 14 days after the refund: lapsed 14 days (not 47 since the paid month's end).
        let result = Self.evaluate(Self.winBack, Self.refundedYear, at: "2026-04-15T00:00:00Z")
        #expect(result.feature("pro")?.enabled == false)
        #expect(result.product("yearly")?.state == .revoked)
        #expect(result.offer(for: "yearly")?.promotions?.first?.eligible == true)
        // Eligible until a month (30 days) after the refund, inclusive; a millisecond later, not.
        #expect(result.reevaluateAt == T.instant("2026-05-01T00:00:00.001Z"))
        #expect(Self.evaluate(Self.winBack, Self.refundedYear, at: "2026-05-01T00:00:00Z").offer(for: "yearly")?.promotions?.first?.eligible == true)
        let late = Self.evaluate(Self.winBack, Self.refundedYear, at: "2026-05-01T00:00:00.001Z")
        #expect(late.offer(for: "yearly")?.promotions?.first?.reason == .lapsedTooLong)
    }

    @Test("explain and the timeline show coverage up to the refund, marked refunded")
    func refundHistoryExplained() {
        let explanation = Self.winBack.explain(Self.refundedYear, at: T.instant("2026-04-15T00:00:00Z"))
        let feature = explanation.features.first { $0.id == "pro" }!
        #expect(feature.sources.first?.ended == T.instant("2026-04-01T00:00:00Z"))
        #expect(explanation.text(feature: "pro")?.contains("last covered by yearly until 2026-04-01T00:00:00Z") == true)
        let product = explanation.products.first { $0.id == "yearly" }!
        #expect(
            product.coverage == [
                ExplainedSpan(start: T.instant("2026-01-27T00:00:00Z"), end: T.instant("2026-02-27T00:00:00Z"), grace: false),
                ExplainedSpan(start: T.instant("2026-02-27T00:00:00Z"), end: T.instant("2026-04-01T00:00:00Z"), grace: false, refunded: true),
            ])
        let promotion = explanation.offers.first { $0.productId == "yearly" }!.promotions!.first!
        #expect(promotion.because.contains("lapsed 14 days ago"))
        let svg = explanation.svg
        #expect(svg.contains("covered until refunded or revoked, no access now [2026-02-27T00:00:00Z, 2026-04-01T00:00:00Z)"))
        #expect(svg.contains("refunded (covered until the refund, no access now)"))
    }

    // MARK: Intro offers

    static func introCatalog(_ audience: String?) -> CompiledCatalog {
        let member = audience.map { #", "for": "\#($0)""# } ?? ""
        return T.catalog(
            """
            { "app": "com.ex.app", "features": { "pro": "Pro" }, "legal": { "auto-renewable-subscription": "Renews." },
              "products": [
                { "id": "monthly", "type": "auto-renewable-subscription", "name": "Monthly", "group": "g", "duration": "P1M", "grants": ["pro"],
                  "introOffer": { "mode": "free-trial", "duration": "P1W"\(member) } } ] }
            """)
    }

    @Test("an intro offer for new subscribers is used up by any purchase in the group; by default only a trial or intro period uses it")
    func introForNewSubscribers() {
        let paid = Transaction(
            productId: "monthly", transactionId: "1", originalTransactionId: "1", purchaseDate: T.instant("2026-01-01T00:00:00Z"),
            expiresDate: T.instant("2026-02-01T00:00:00Z"))
        let receipts = [Receipt(app: "com.ex.app", transactions: [paid])]
        for audience in [nil, "no-intro-yet"] {
            let lapsed = Self.evaluate(Self.introCatalog(audience), receipts, at: "2026-03-01T00:00:00Z")
            #expect(lapsed.offer(for: "monthly")?.introOfferEligible == true)
        }
        let strict = Self.introCatalog("new-subscribers")
        #expect(Self.evaluate(strict, receipts, at: "2025-12-31T23:59:59.999Z").offer(for: "monthly")?.introOfferEligible == true)
        #expect(Self.evaluate(strict, receipts, at: "2025-12-31T23:59:59.999Z").reevaluateAt == T.instant("2026-01-01T00:00:00Z"))
        #expect(Self.evaluate(strict, receipts, at: "2026-03-01T00:00:00Z").offer(for: "monthly")?.introOfferEligible == false)
        // explain says why, naming the transaction.
        let text = strict.explain(receipts, at: T.instant("2026-03-01T00:00:00Z")).offers[0].because
        #expect(text.contains("intro offer is for new subscribers: transaction 1 of monthly was bought in `g`"), "\(text)")
        let eligible = Self.introCatalog(nil).explain(receipts, at: T.instant("2026-03-01T00:00:00Z")).offers[0].because
        #expect(eligible.contains("intro offer eligible: no trial or intro offer in `g` before"), "\(eligible)")
    }

    @Test("`for` takes its two values; anything else is a located error with a did-you-mean")
    func introAudienceChecked() {
        let compilation = T.compile(
            """
            { "app": "com.ex.app", "features": { "pro": "Pro" }, "legal": { "auto-renewable-subscription": "Renews." },
              "products": [
                { "id": "monthly", "type": "auto-renewable-subscription", "name": "Monthly", "group": "g", "grants": ["pro"],
                  "introOffer": { "mode": "free-trial", "duration": "P1W", "for": "new-subscriber" } } ] }
            """)
        let error = compilation.errors.first
        #expect(error?.path == "products[0].introOffer.for")
        #expect(error?.help?.contains("new-subscribers") == true, "\(String(describing: error))")
    }
}
