import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

@Suite("Evaluation")
struct EvaluatorTests {
    // MARK: Non-consumables and boundaries

    @Test("a non-consumable is on from the instant of purchase, forever")
    func nonConsumableBoundary() throws {
        let purchase = [T.transaction(Diagrams.pro, "1", "2026-01-10T12:00:00Z")]
        let before = Diagrams.evaluate(purchase, at: "2026-01-10T11:59:59.999Z")
        #expect(!before.isEnabled("pro"))
        #expect(before.product(Diagrams.pro)?.state == .notPurchased)
        let at = Diagrams.evaluate(purchase, at: "2026-01-10T12:00:00Z")
        let pro = try #require(at.feature("pro"))
        #expect(pro.enabled && pro.until == nil && pro.sources == [Diagrams.pro])
        #expect(at.product(Diagrams.pro) == ProductStatus(id: Diagrams.pro, type: .nonConsumable, state: .active, until: nil))
        #expect(at.reevaluateAt == nil)
    }

    @Test("a cancellation counts from its instant on, and not before")
    func cancellationBoundary() {
        let purchase = [T.transaction(Diagrams.pro, "1", "2026-01-10T12:00:00Z", cancelled: "2026-02-01T00:00:00Z")]
        let before = Diagrams.evaluate(purchase, at: "2026-01-31T23:59:59.999Z")
        #expect(before.isEnabled("pro"))
        #expect(before.product(Diagrams.pro)?.state == .active)
        let at = Diagrams.evaluate(purchase, at: "2026-02-01T00:00:00Z")
        #expect(!at.isEnabled("pro"))
        #expect(at.product(Diagrams.pro)?.state == .revoked)
        #expect(at.offer(for: Diagrams.pro)?.eligible == true)
    }

    @Test("purchases dated after the instant are not known yet")
    func futurePurchase() {
        let result = Diagrams.evaluate([T.transaction(Diagrams.pro, "1", "2026-03-01T00:00:00Z")], at: "2026-02-01T00:00:00Z")
        #expect(!result.isEnabled("pro"))
        #expect(result.product(Diagrams.pro)?.state == .notPurchased)
        // Evaluated later, the same data gives another answer: the purchase is dated.
        #expect(result.reevaluateAt == T.instant("2026-03-01T00:00:00Z"))
    }

    // MARK: Trials

    @Test("a 14-day trial is on for exactly 14 days from its purchase")
    func trialBoundaries() throws {
        let trial = [T.transaction(Diagrams.trial, "1", "2026-01-01T09:00:00Z")]
        let first = Diagrams.evaluate(trial, at: "2026-01-01T09:00:00Z")
        #expect(first.feature("pro")?.until == T.instant("2026-01-15T09:00:00Z"))
        #expect(first.product(Diagrams.trial)?.until == T.instant("2026-01-15T09:00:00Z"))
        #expect(first.reevaluateAt == T.instant("2026-01-15T09:00:00Z"))
        #expect(Diagrams.evaluate(trial, at: "2026-01-15T08:59:59.999Z").isEnabled("export.pdf"))
        let after = Diagrams.evaluate(trial, at: "2026-01-15T09:00:00Z")
        #expect(!after.isEnabled("pro") && !after.isEnabled("export.pdf"))
        #expect(after.product(Diagrams.trial)?.state == .expired)
        #expect(after.offer(for: Diagrams.trial)?.reason == .trialUsed)
    }

    @Test("restoring a trial never restarts it")
    func trialRestore() {
        // The restore has a new transaction and purchase date but the original purchase date.
        let restored = [
            T.transaction(Diagrams.trial, "1", "2026-01-01T09:00:00Z"),
            T.transaction(Diagrams.trial, "2", "2026-01-20T10:00:00Z", original: "1", originalPurchase: "2026-01-01T09:00:00Z"),
        ]
        #expect(!Diagrams.evaluate(restored, at: "2026-01-20T10:00:00Z").isEnabled("pro"))
        // On a new device only the restore may be in the receipt: its original purchase date still rules.
        let onlyRestore = [T.transaction(Diagrams.trial, "2", "2026-01-10T10:00:00Z", originalPurchase: "2026-01-01T09:00:00Z")]
        let result = Diagrams.evaluate(onlyRestore, at: "2026-01-10T10:00:00Z")
        #expect(result.feature("pro")?.until == T.instant("2026-01-15T09:00:00Z"))
    }

    @Test("a refunded trial is revoked, and refunding and buying again does not restart it")
    func trialRefund() {
        let refunded = [T.transaction(Diagrams.trial, "1", "2026-01-01T09:00:00Z", cancelled: "2026-01-02T09:00:00Z")]
        let result = Diagrams.evaluate(refunded, at: "2026-01-03T00:00:00Z")
        #expect(!result.isEnabled("pro"))
        #expect(result.product(Diagrams.trial)?.state == .revoked)
        let again = refunded + [T.transaction(Diagrams.trial, "2", "2026-01-05T09:00:00Z")]
        #expect(Diagrams.evaluate(again, at: "2026-01-05T09:00:00Z").feature("pro")?.until == T.instant("2026-01-15T09:00:00Z"))
    }

    // MARK: Non-renewing subscriptions

    @Test("non-renewing purchases stack end to end, and a gap breaks the span")
    func stacking() throws {
        let passes = [
            T.transaction(Diagrams.dayPass, "1", "2026-01-01T10:00:00Z"),
            T.transaction(Diagrams.dayPass, "2", "2026-01-01T22:00:00Z"),  // stacks: covers Jan 2 10:00 to Jan 3 10:00
            T.transaction(Diagrams.dayPass, "3", "2026-01-05T08:00:00Z"),  // after a gap
        ]
        let inSecond = Diagrams.evaluate(passes, at: "2026-01-02T12:00:00Z")
        #expect(inSecond.feature("pro")?.until == T.instant("2026-01-03T10:00:00Z"))
        #expect(inSecond.product(Diagrams.dayPass)?.until == T.instant("2026-01-03T10:00:00Z"))
        let inGap = Diagrams.evaluate(passes, at: "2026-01-03T10:00:00Z")
        #expect(!inGap.isEnabled("pro"))
        #expect(inGap.product(Diagrams.dayPass)?.state == .expired)
        let third = Diagrams.evaluate(passes, at: "2026-01-05T08:00:00Z")
        #expect(third.feature("pro")?.until == T.instant("2026-01-06T08:00:00Z"))
    }

    @Test("a quantity of N covers N durations, and a refunded pass leaves the stack")
    func stackQuantityAndRefund() {
        let two = [T.transaction(Diagrams.dayPass, "1", "2026-01-01T10:00:00Z", quantity: 2)]
        #expect(Diagrams.evaluate(two, at: "2026-01-01T10:00:00Z").feature("pro")?.until == T.instant("2026-01-03T10:00:00Z"))
        let refunded = [
            T.transaction(Diagrams.dayPass, "1", "2026-01-01T10:00:00Z", cancelled: "2026-01-01T11:00:00Z"),
            T.transaction(Diagrams.dayPass, "2", "2026-01-01T12:00:00Z"),
        ]
        // Before the refund is known, pass 2 stacks behind pass 1.
        #expect(Diagrams.evaluate(refunded, at: "2026-01-01T12:00:00Z").feature("pro")?.until == T.instant("2026-01-02T12:00:00Z"))
        #expect(Diagrams.evaluate(refunded, at: "2026-01-01T10:30:00Z").feature("pro")?.until == T.instant("2026-01-02T10:00:00Z"))
    }

    @Test("a quantity multiplies the duration in one calendar step: Jan 31 + 2 x P1M is Mar 31")
    func quantityMultipliesMonths() {
        let twoMonths = [T.transaction("month", "1", "2026-01-31T10:00:00Z", quantity: 2)]
        #expect(Self.newsReading(twoMonths, at: "2026-02-01T00:00:00Z")?.until == T.instant("2026-03-31T10:00:00Z"))
    }

    /// A news app selling `month`, a non-renewing subscription of P1M that grants `read`.
    static let news = T.catalog(
        """
        { "app": "com.example.news", "features": { "read": "Read" },
          "legal": { "non-renewing-subscription": "Does not renew." },
          "products": [ { "id": "month", "type": "non-renewing-subscription", "name": "Month", "duration": "P1M", "grants": ["read"] } ] }
        """)

    /// The news app's `read` with `transactions` at `at`.
    static func newsReading(_ transactions: [Transaction], at: String) -> FeatureStatus? {
        news.evaluate([Receipt(app: "com.example.news", transactions: transactions)], at: T.instant(at)).feature("read")
    }

    @Test("balances at the limits add up exactly, and past Int64 they stop at its end with a warning")
    func balanceLimits() {
        let catalog = T.catalog(
            """
            { "app": "com.example.game", "features": { "play": "Play" }, "currencies": { "gems": "Gems" },
              "products": [ { "id": "gems", "type": "consumable", "name": "Gems", "credits": { "gems": 1000000000 } },
                            { "id": "game", "type": "non-consumable", "name": "Game", "grants": ["play"] } ] }
            """)
        let at = T.instant("2026-01-02T00:00:00Z")
        let full = (0..<100).map { T.transaction("gems", "\($0)", "2026-01-01T00:00:00Z", quantity: 1000) }
        let receipt = Receipt(app: "com.example.game", transactions: full)
        #expect(catalog.evaluate([receipt], at: at).balance(of: "gems") == 100_000_000_000_000)
        // Receipts built in code are not held to the limits: a quantity past 1,000 counts as 1,000,
        // one below 1 as 1, each with a warning; a negative consumption would add credits, so it
        // is ignored with a warning.
        var huge = Receipt(
            app: "com.example.game",
            transactions: (0..<20).map {
                T.transaction("gems", "h\($0)", "2026-01-01T00:00:00Z", quantity: Int(Int32.max))
            } + [
                T.transaction("gems", "zero", "2026-01-01T00:00:00Z", quantity: 0),
                T.transaction("gems", "negative", "2026-01-01T00:00:00Z", quantity: -5),
            ])
        huge.consumptions = [
            Consumption(id: "refund?", currency: "gems", amount: -100, date: T.instant("2026-01-01T00:00:00Z")),
            Consumption(id: "spend", currency: "gems", amount: 7, date: T.instant("2026-01-01T00:00:00Z")),
        ]
        let result = catalog.evaluate([huge], at: at)
        let expected: Int64 = 20_001_999_999_993  // 20 x 1,000 x 10^9 + 2 x 10^9 - 7
        #expect(result.balance(of: "gems") == expected)
        // Warnings in their fixed order: by code, then message.
        #expect(result.warnings.map(\.code) == ["amount-out-of-range"] + Array(repeating: "quantity-out-of-range", count: 22))
        #expect(result.warnings[0].message == "consumption `refund?` has amount -100, outside 1 to 1000000000000; it is ignored")
        #expect(result.warnings[1].message == "transaction `h0` has quantity 2147483647, outside 1 to 1000; it counts as 1000")
        #expect(result.warnings[21].message == "transaction `negative` has quantity -5, outside 1 to 1000; it counts as 1")
        #expect(huge.limitViolation?.path == "transactions[0].quantity")
        // Past Int64 a balance stops at its end (only millions of receipts built in code get there).
        var balances: [Int64] = [.max - 5, .min + 5]
        var overflowed: [Int32] = []
        Balance.add(10, to: &balances, 0, overflowed: &overflowed)
        Balance.add(-10, to: &balances, 1, overflowed: &overflowed)
        Balance.add(10, to: &balances, 0, overflowed: &overflowed)
        #expect(balances == [.max, .min])
        #expect(overflowed == [0, 1])
    }

    @Test("stacked months clamp to the month's end: Jan 31 + P1M is Feb 28, and the next starts there")
    func monthEndStacking() {
        let stacked = [T.transaction("month", "1", "2026-01-31T10:00:00Z"), T.transaction("month", "2", "2026-02-10T10:00:00Z")]
        #expect(Self.newsReading(stacked, at: "2026-02-27T00:00:00Z")?.until == T.instant("2026-03-28T10:00:00Z"))
        let leap = [T.transaction("month", "1", "2024-01-31T10:00:00Z")]
        #expect(Self.newsReading(leap, at: "2024-02-01T00:00:00Z")?.until == T.instant("2024-02-29T10:00:00Z"))
    }

    // MARK: Auto-renewable subscriptions

    @Test("an auto-renewable covers [purchase, expiry): on at purchase, off at expiry")
    func autoRenewableBoundary() {
        let chain = [
            T.transaction(Diagrams.sync, "1", "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z", original: "1"),
            T.transaction(Diagrams.sync, "2", "2026-02-01T00:00:00Z", expires: "2026-03-01T00:00:00Z", original: "1"),
        ]
        let first = Diagrams.evaluate(chain, at: "2026-01-01T00:00:00Z")
        #expect(first.feature("cloud.sync")?.until == T.instant("2026-02-01T00:00:00Z"), "the renewal is not known yet")
        #expect(first.product(Diagrams.sync)?.state == .active)
        let renewed = Diagrams.evaluate(chain, at: "2026-02-01T00:00:00Z")
        #expect(renewed.feature("cloud.sync")?.until == T.instant("2026-03-01T00:00:00Z"))
        #expect(renewed.product(Diagrams.sync)?.until == T.instant("2026-03-01T00:00:00Z"))
        #expect(Diagrams.evaluate(chain, at: "2026-02-28T23:59:59.999Z").isEnabled("cloud.sync"))
        let expired = Diagrams.evaluate(chain, at: "2026-03-01T00:00:00Z")
        #expect(!expired.isEnabled("cloud.sync"))
        #expect(expired.product(Diagrams.sync)?.state == .expired)
        #expect(expired.offer(for: Diagrams.sync)?.eligible == true)
    }

    @Test("a billing grace period extends coverage from the latest expiry, in state grace-period")
    func grace() throws {
        let chain = [T.transaction(Diagrams.sync, "1", "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z", original: "1")]
        let renewal = [
            Renewal(
                productId: Diagrams.sync, originalTransactionId: "1", willRenew: true,
                isInBillingRetry: true, gracePeriodExpiresDate: T.instant("2026-02-17T00:00:00Z"))
        ]
        let paid = Diagrams.evaluate(chain, renewals: renewal, at: "2026-01-31T00:00:00Z")
        #expect(paid.product(Diagrams.sync)?.state == .active)
        #expect(paid.feature("cloud.sync")?.until == T.instant("2026-02-17T00:00:00Z"))
        let inGrace = Diagrams.evaluate(chain, renewals: renewal, at: "2026-02-01T00:00:00Z")
        #expect(inGrace.isEnabled("cloud.sync"))
        #expect(
            inGrace.product(Diagrams.sync)
                == ProductStatus(
                    id: Diagrams.sync, type: .autoRenewableSubscription, state: .gracePeriod, until: T.instant("2026-02-17T00:00:00Z"),
                    willRenew: true, manage: "https://apps.apple.com/account/subscriptions"))
        #expect(inGrace.offer(for: Diagrams.sync)?.reason == .subscribed)
        let over = Diagrams.evaluate(chain, renewals: renewal, at: "2026-02-17T00:00:00Z")
        #expect(!over.isEnabled("cloud.sync"))
        // The grace period is over and billing is still retried: billing retry, which grants nothing.
        #expect(over.product(Diagrams.sync)?.state == .billingRetry)
        // A renewal for another chain extends nothing.
        let other = [Renewal(originalTransactionId: "99", gracePeriodExpiresDate: T.instant("2026-02-17T00:00:00Z"))]
        #expect(!Diagrams.evaluate(chain, renewals: other, at: "2026-02-01T00:00:00Z").isEnabled("cloud.sync"))
    }

    @Test("a refund wins over the expiry date")
    func refundBeatsExpiry() {
        let chain = [
            T.transaction(
                Diagrams.sync, "1", "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z",
                cancelled: "2026-01-10T00:00:00Z", original: "1")
        ]
        let result = Diagrams.evaluate(chain, at: "2026-01-15T00:00:00Z")
        #expect(!result.isEnabled("cloud.sync"))
        #expect(result.product(Diagrams.sync)?.state == .revoked)
    }

    @Test("a renewal entry with no transaction of its chain is warned about, once per chain")
    func orphanRenewal() {
        let result = Diagrams.evaluate(
            [T.transaction(Diagrams.sync, "1", "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z")],
            renewals: [
                Renewal(originalTransactionId: "1", willRenew: true), Renewal(originalTransactionId: "7", willRenew: true),
                Renewal(originalTransactionId: "7", gracePeriodExpiresDate: T.instant("2026-03-01T00:00:00Z")),
            ],
            at: "2026-01-15T00:00:00Z")
        #expect(
            result.warnings.map(\.message) == [
                "renewal entry for chain `7` has no transaction of that chain in the receipts and is ignored"
            ])
    }

    @Test("an upgraded transaction credits nothing either")
    func upgradedCreditsNothing() {
        let upgraded = [
            T.transaction(Diagrams.stencils, "1", "2026-01-01T00:00:00Z", upgraded: true),
            T.transaction(Diagrams.stencils, "2", "2026-01-01T00:00:00Z"),
        ]
        #expect(Diagrams.evaluate(upgraded, at: "2026-01-02T00:00:00Z").balance(of: "stencils") == 10)
    }

    @Test("an upgraded transaction grants nothing")
    func upgradedGrantsNothing() {
        let chain = [T.transaction(Diagrams.sync, "1", "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z", upgraded: true)]
        let result = Diagrams.evaluate(chain, at: "2026-01-15T00:00:00Z")
        #expect(!result.isEnabled("cloud.sync"))
        #expect(result.product(Diagrams.sync)?.state == .expired)
    }

    @Test("a subscription transaction with no expiry grants nothing, with a warning")
    func missingExpiry() {
        let result = Diagrams.evaluate([T.transaction(Diagrams.sync, "1", "2026-01-01T00:00:00Z")], at: "2026-01-02T00:00:00Z")
        #expect(!result.isEnabled("cloud.sync"))
        #expect(result.warnings.map(\.code) == ["missing-expiry"])
    }

    @Test("spending asks whether a consumption fits the balance: what is left, or how many are short")
    func spending() {
        let bought = Receipt(app: Diagrams.app, transactions: [T.transaction(Diagrams.stencils, "1", "2026-01-01T00:00:00Z", quantity: 3)])
        let result = T.diagrams.evaluate([bought], at: T.instant("2026-01-02T00:00:00Z"))
        #expect(result.spending(30, of: "stencils") == .fits(left: 0))
        #expect(result.spending(12, of: "stencils") == .fits(left: 18))
        #expect(result.spending(31, of: "stencils") == .short(by: 1))
        #expect(result.spending(ReceiptLimits.maxConsumptionAmount, of: "stencils") == .short(by: ReceiptLimits.maxConsumptionAmount - 30))
        #expect(result.spending(1, of: "stencil") == .unknownCurrency)
        #expect(result.spending(0, of: "stencils") == .invalidAmount)
        #expect(result.spending(-5, of: "stencils") == .invalidAmount)
        #expect(result.spending(.max, of: "stencils") == .invalidAmount)
        // After recording what fits, the balance is what `fits` said was left.
        var ledger = Receipt(app: Diagrams.app)
        ledger.consumptions = [Consumption(id: "c1", currency: "stencils", amount: 12, date: T.instant("2026-01-02T00:00:00Z"))]
        #expect(T.diagrams.evaluate([bought, ledger], at: T.instant("2026-01-02T00:00:00Z")).balance(of: "stencils") == 18)
    }

    // MARK: Deduplication and family sharing

    @Test("one transaction id counts once across receipts; the earliest cancellation holds")
    func deduplication() {
        let one = Receipt(app: Diagrams.app, transactions: [T.transaction(Diagrams.stencils, "1", "2026-01-01T00:00:00Z", quantity: 3)])
        let copy = Receipt(app: Diagrams.app, transactions: [T.transaction(Diagrams.stencils, "1", "2026-01-01T00:00:00Z", quantity: 3)])
        #expect(T.diagrams.evaluate([one, copy], at: T.instant("2026-01-02T00:00:00Z")).balance(of: "stencils") == 30)
        let late = Receipt(
            app: Diagrams.app, transactions: [T.transaction(Diagrams.pro, "7", "2026-01-01T00:00:00Z", cancelled: "2026-03-01T00:00:00Z")])
        let early = Receipt(
            app: Diagrams.app, transactions: [T.transaction(Diagrams.pro, "7", "2026-01-01T00:00:00Z", cancelled: "2026-02-01T00:00:00Z")])
        let plain = Receipt(app: Diagrams.app, transactions: [T.transaction(Diagrams.pro, "7", "2026-01-01T00:00:00Z")])
        for order in [[plain, late, early], [early, plain, late], [late, early, plain]] {
            #expect(!T.diagrams.evaluate(order, at: T.instant("2026-02-01T00:00:00Z")).isEnabled("pro"))
            #expect(T.diagrams.evaluate(order, at: T.instant("2026-01-31T00:00:00Z")).isEnabled("pro"))
        }
    }

    @Test("a family-shared transaction counts only for a family-shareable product")
    func familySharing() throws {
        let shared = [T.transaction(Diagrams.pro, "1", "2026-01-01T00:00:00Z", familyShared: true)]
        let result = Diagrams.evaluate(shared, at: "2026-01-02T00:00:00Z")
        #expect(!result.isEnabled("pro"))
        #expect(result.product(Diagrams.pro)?.state == .notPurchased)
        #expect(result.warnings.map(\.code) == ["not-family-shareable"])

        let game = try #require(T.examples.catalog(for: "com.example.starquest"))
        let receipt = Receipt(
            app: "com.example.starquest",
            transactions: [
                T.transaction("com.example.starquest.noads", "1", "2026-01-01T00:00:00Z", familyShared: true)
            ])
        let gameResult = game.evaluate([receipt], at: T.instant("2026-01-02T00:00:00Z"))
        #expect(gameResult.isEnabled("ad-free"))
        #expect(gameResult.warnings.isEmpty)
    }

    @Test("other apps' receipts never feed this app's features")
    func otherApps() {
        let other = Receipt(app: "com.example.other", transactions: [T.transaction(Diagrams.pro, "1", "2026-01-01T00:00:00Z")])
        #expect(!T.diagrams.evaluate([other], at: T.instant("2026-01-02T00:00:00Z")).isEnabled("pro"))
    }

    // MARK: Features across products

    @Test("a feature's until spans every granting product's unbroken coverage")
    func featureSpanAcrossProducts() throws {
        let purchases = [
            T.transaction(Diagrams.trial, "1", "2026-01-01T09:00:00Z"),
            T.transaction(Diagrams.dayPass, "2", "2026-01-14T18:00:00Z"),
        ]
        let trialOnly = Diagrams.evaluate(purchases, at: "2026-01-10T00:00:00Z")
        #expect(trialOnly.feature("pro")?.until == T.instant("2026-01-15T09:00:00Z"), "the day pass is not bought yet")
        let result = Diagrams.evaluate(purchases, at: "2026-01-14T18:00:00Z")
        let pro = try #require(result.feature("pro"))
        #expect(pro.until == T.instant("2026-01-15T18:00:00Z"))
        #expect(pro.sources == [Diagrams.dayPass, Diagrams.trial])
        #expect(result.feature("export.pdf")?.until == T.instant("2026-01-15T09:00:00Z"))
        #expect(result.reevaluateAt == T.instant("2026-01-15T09:00:00Z"), "export.pdf changes first")
        let owned = Diagrams.evaluate(purchases + [T.transaction(Diagrams.pro, "3", "2026-01-12T00:00:00Z")], at: "2026-01-14T18:00:00Z")
        // The features stay on, but the trial's state changes when it ends.
        #expect(owned.reevaluateAt == T.instant("2026-01-15T09:00:00Z"))
        #expect(owned.feature("pro")?.until == nil, "a source that never ends makes the feature never end")
        #expect(owned.feature("pro")?.sources == [Diagrams.dayPass, Diagrams.pro, Diagrams.trial])
    }

    // MARK: Balances

    @Test("balances: credits times quantity, less consumptions up to the instant; refunds credit nothing")
    func balances() {
        let purchases = [
            T.transaction(Diagrams.stencils, "1", "2026-01-01T00:00:00Z", quantity: 2),
            T.transaction(Diagrams.stencils, "2", "2026-01-02T00:00:00Z", cancelled: "2026-01-03T00:00:00Z"),
        ]
        let consumptions = [
            Consumption(id: "a", currency: "stencils", amount: 3, date: T.instant("2026-01-05T00:00:00Z")),
            Consumption(id: "b", currency: "stencils", amount: 4, date: T.instant("2026-01-06T00:00:00Z")),
        ]
        #expect(Diagrams.evaluate(purchases, consumptions: consumptions, at: "2026-01-02T12:00:00Z").balance(of: "stencils") == 30)
        #expect(Diagrams.evaluate(purchases, consumptions: consumptions, at: "2026-01-05T00:00:00Z").balance(of: "stencils") == 17)
        #expect(Diagrams.evaluate(purchases, consumptions: consumptions, at: "2026-01-06T00:00:00Z").balance(of: "stencils") == 13)
    }

    @Test("a negative balance is reported as is, with a warning; unknown currencies are warned about")
    func negativeBalance() {
        let consumptions = [
            Consumption(id: "a", currency: "stencils", amount: 5, date: T.instant("2026-01-05T00:00:00Z")),
            Consumption(id: "b", currency: "gold", amount: 1, date: T.instant("2026-01-05T00:00:00Z")),
        ]
        let result = Diagrams.evaluate([], consumptions: consumptions, at: "2026-01-06T00:00:00Z")
        #expect(result.balance(of: "stencils") == -5)
        #expect(result.warnings.map(\.code) == ["negative-balance", "unknown-currency"])
    }

    @Test("transactions for products not in the catalog grant nothing and are warned about once per product")
    func unknownProducts() throws {
        let result = Diagrams.evaluate(
            [
                T.transaction("com.example.diagrams.legacy", "1", "2026-01-01T00:00:00Z"),
                T.transaction("com.example.diagrams.legacy", "2", "2026-01-02T00:00:00Z"),
            ], at: "2026-01-03T00:00:00Z")
        let warning = try #require(result.warnings.first)
        #expect(result.warnings.count == 1)
        #expect(warning.message == "2 transactions for `com.example.diagrams.legacy`, which the catalog does not define, grant nothing")
    }

    // MARK: Offers

    @Test("a new customer: everything offered but the upgrade, whose prerequisite is missing")
    func offersNewCustomer() throws {
        let result = Diagrams.evaluate([], at: "2026-01-01T00:00:00Z")
        let offers = Dictionary(uniqueKeysWithValues: result.offers.map { ($0.productId, $0) })
        #expect(offers[Diagrams.pro]?.eligible == true)
        #expect(offers[Diagrams.trial]?.eligible == true)
        #expect(offers[Diagrams.upgrade]?.reason == .prerequisiteMissing)
        #expect(
            offers[Diagrams.sync]
                == Offer(
                    productId: Diagrams.sync, eligible: true, reason: nil, introOfferEligible: true,
                    legal: "Renews automatically until canceled at least 24 hours before the period ends.",
                    promotions: [
                        Promotion(id: "sync.winback", type: .winBack, eligible: false, reason: .neverPaid),
                        Promotion(id: "sync.loyal", type: .promotional, eligible: false, reason: .notSubscribed),
                    ],
                    adds: ["cloud.sync"]))
        #expect(offers[Diagrams.dayPass]?.legal == "Does not renew. Access ends when the period ends.")
        #expect(offers[Diagrams.stencils]?.eligible == true)
    }

    @Test("owning Diagrams 6 Pro makes the upgrade eligible and the full price product upgrade-available")
    func offersUpgrade() {
        let old = Receipt(app: Diagrams.oldApp, transactions: [T.transaction(Diagrams.oldPro, "9", "2021-01-01T00:00:00Z")])
        let result = Diagrams.evaluate([], others: [old], at: "2026-01-01T00:00:00Z")
        #expect(result.offer(for: Diagrams.upgrade)?.eligible == true)
        #expect(result.offer(for: Diagrams.pro)?.reason == .upgradeAvailable)
        // A refunded or not-yet-made purchase does not qualify, nor does a receipt without the product.
        let refunded = Receipt(
            app: Diagrams.oldApp,
            transactions: [
                T.transaction(Diagrams.oldPro, "9", "2021-01-01T00:00:00Z", cancelled: "2021-02-01T00:00:00Z")
            ])
        #expect(Diagrams.evaluate([], others: [refunded], at: "2026-01-01T00:00:00Z").offer(for: Diagrams.upgrade)?.reason == .prerequisiteMissing)
        #expect(Diagrams.evaluate([], others: [old], at: "2020-01-01T00:00:00Z").offer(for: Diagrams.upgrade)?.reason == .prerequisiteMissing)
        let empty = Receipt(app: Diagrams.oldApp)
        #expect(Diagrams.evaluate([], others: [empty], at: "2026-01-01T00:00:00Z").offer(for: Diagrams.pro)?.eligible == true)
    }

    @Test("an upgrade prerequisite's copies count once: a refund in any copy, in any receipt of the old app, holds")
    func prerequisiteCopies() {
        let bought = T.transaction(Diagrams.oldPro, "9", "2021-01-01T00:00:00Z")
        let refundedCopy = T.transaction(Diagrams.oldPro, "9", "2021-01-01T00:00:00Z", cancelled: "2021-02-01T00:00:00Z")
        let first = Receipt(app: Diagrams.oldApp, transactions: [bought])
        let second = Receipt(app: Diagrams.oldApp, transactions: [refundedCopy])
        let twiceInOne = Receipt(app: Diagrams.oldApp, transactions: [bought, refundedCopy])
        for others in [[first, second], [second, first], [twiceInOne]] {
            #expect(
                Diagrams.evaluate([], others: others, at: "2026-01-01T00:00:00Z").offer(for: Diagrams.upgrade)?.reason
                    == .prerequisiteMissing)
            #expect(Diagrams.evaluate([], others: others, at: "2026-01-01T00:00:00Z").offer(for: Diagrams.pro)?.eligible == true)
            // Before the refund, the copies qualify.
            #expect(Diagrams.evaluate([], others: others, at: "2021-01-31T23:59:59.999Z").offer(for: Diagrams.upgrade)?.eligible == true)
        }
        // Another transaction of the product still qualifies.
        let other = Receipt(app: Diagrams.oldApp, transactions: [T.transaction(Diagrams.oldPro, "10", "2022-01-01T00:00:00Z")])
        #expect(Diagrams.evaluate([], others: [first, second, other], at: "2026-01-01T00:00:00Z").offer(for: Diagrams.upgrade)?.eligible == true)
    }

    @Test("without anyOf, any receipt of the required app qualifies")
    func anyReceiptQualifies() {
        let catalog = T.catalog(
            """
            { "app": "com.example.new", "features": { "pro": "Pro" },
              "products": [
                { "id": "full", "type": "non-consumable", "name": "Full", "grants": ["pro"] },
                { "id": "up", "type": "non-consumable", "name": "Upgrade", "grants": ["pro"],
                  "upgrade": { "replaces": "full", "requires": { "app": "com.example.paid" } } } ] }
            """)
        let at = T.instant("2026-01-01T00:00:00Z")
        #expect(catalog.evaluate([Receipt](), at: at).offer(for: "up")?.reason == .prerequisiteMissing)
        #expect(catalog.evaluate([Receipt(app: "com.example.paid")], at: at).offer(for: "up")?.eligible == true)
        #expect(catalog.evaluate([Receipt(app: "com.example.paid")], at: at).offer(for: "full")?.reason == .upgradeAvailable)
    }

    @Test("owning the product, its upgrade or its paid product marks the family owned")
    func offersOwned() {
        for owned in [Diagrams.pro, Diagrams.upgrade] {
            let result = Diagrams.evaluate([T.transaction(owned, "1", "2026-01-01T00:00:00Z")], at: "2026-01-02T00:00:00Z")
            #expect(result.offer(for: Diagrams.pro)?.reason == .owned)
            #expect(result.offer(for: Diagrams.upgrade)?.reason == .owned)
            #expect(result.offer(for: Diagrams.trial)?.reason == .owned, "owned beats trial-used and not-yet-used")
        }
        let inTrial = Diagrams.evaluate([T.transaction(Diagrams.trial, "1", "2026-01-01T00:00:00Z")], at: "2026-01-02T00:00:00Z")
        #expect(inTrial.offer(for: Diagrams.trial)?.reason == .owned)
        #expect(inTrial.offer(for: Diagrams.pro)?.eligible == true, "a trial leads to the paid product")
    }

    @Test("subscribed, intro offer used, and retired")
    func offersSubscribedAndRetired() throws {
        let chain = [T.transaction(Diagrams.sync, "1", "2026-01-01T00:00:00Z", expires: "2026-01-08T00:00:00Z", original: "1", trial: true)]
        let during = Diagrams.evaluate(chain, at: "2026-01-02T00:00:00Z")
        #expect(during.offer(for: Diagrams.sync)?.reason == .subscribed)
        #expect(during.offer(for: Diagrams.sync)?.introOfferEligible == false)
        let lapsed = Diagrams.evaluate(chain, at: "2026-02-01T00:00:00Z")
        #expect(lapsed.offer(for: Diagrams.sync)?.eligible == true)
        #expect(lapsed.offer(for: Diagrams.sync)?.introOfferEligible == false)

        let old = try #require(T.examples.catalog(for: Diagrams.oldApp))
        let owner = Receipt(app: Diagrams.oldApp, transactions: [T.transaction(Diagrams.oldPro, "9", "2021-01-01T00:00:00Z")])
        let result = old.evaluate([owner], at: T.instant("2026-01-01T00:00:00Z"))
        #expect(result.offer(for: Diagrams.oldPro)?.reason == .retired, "retired comes first, even before owned")
        #expect(result.isEnabled("pro"), "a retired product is still honored")
    }

    @Test("intro offer eligibility is per subscription group")
    func introOfferPerGroup() throws {
        let game = try #require(T.examples.catalog(for: "com.example.starquest"))
        let receipt = Receipt(
            app: "com.example.starquest",
            transactions: [
                T.transaction("com.example.starquest.vip.monthly", "1", "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z", intro: true)
            ])
        let result = game.evaluate([receipt], at: T.instant("2026-03-01T00:00:00Z"))
        #expect(result.offer(for: "com.example.starquest.vip.yearly")?.introOfferEligible == false)
        #expect(result.offer(for: "com.example.starquest.vip.monthly")?.introOfferEligible == false)
        let fresh = game.evaluate([Receipt](), at: T.instant("2026-03-01T00:00:00Z"))
        #expect(fresh.offer(for: "com.example.starquest.vip.yearly")?.introOfferEligible == true)
    }
}
