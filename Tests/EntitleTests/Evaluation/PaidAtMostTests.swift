import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// `paidAtMost`, the promotional offer condition added as the walk-through of "Adding a rule
/// family": checked, compiled, evaluated at its boundary, turned in `reevaluateAt`, explained,
/// compared by `diff` and drawn by `graph`.
@Suite("paidAtMost: promotional offers for customers who have paid little so far")
struct PaidAtMostTests {
    static let early =
        #"{ "id": "planner.early", "type": "promotional", "mode": "free-trial", "duration": "P1W", "subscribed": true, "paidAtMost": "P1M" }"#
    static let catalog = T.catalog(PapercutTests.catalog(offer: early))
    static let product = "planner.pro.monthly"

    /// Paid from 2026-01-01 to 2026-04-01 in one transaction: 30 days paid on 2026-01-31.
    static let quarter = [T.transaction(product, "1", "2026-01-01T00:00:00Z", expires: "2026-04-01T00:00:00Z", original: "1")]

    /// The answer, checked against the reference evaluator and with the entries reversed.
    static func evaluate(_ transactions: [Transaction], at: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Entitlements {
        checkedEvaluation(catalog, [Receipt(app: "com.ex.app", transactions: transactions)], at: at, sourceLocation: sourceLocation)
    }

    static func promotion(_ result: Entitlements) -> Promotion? {
        result.offer(for: product)?.promotions?.first { $0.id == "planner.early" }
    }

    @Test("held at exactly the most paid time, not a millisecond later; reevaluateAt names that millisecond")
    func boundary() throws {
        let waiting = Self.evaluate(Self.quarter, at: "2026-01-15T00:00:00Z")
        #expect(Self.promotion(waiting) == Promotion(id: "planner.early", type: .promotional, eligible: true, reason: .eligible))
        #expect(waiting.reevaluateAt == T.instant("2026-01-31T00:00:00.001Z"))
        #expect(Self.promotion(Self.evaluate(Self.quarter, at: "2026-01-31T00:00:00Z"))?.eligible == true)
        let past = Self.evaluate(Self.quarter, at: "2026-01-31T00:00:00.001Z")
        #expect(Self.promotion(past)?.reason == .paidTooMuch)
        #expect(past.reevaluateAt == T.instant("2026-04-01T00:00:00Z"))
        // Ended before the most was paid: the paid time stops growing, nothing turns.
        let short = [T.transaction(Self.product, "2", "2026-01-01T00:00:00Z", expires: "2026-01-20T00:00:00Z", original: "2")]
        let renewed = short + [T.transaction(Self.product, "3", "2026-02-10T00:00:00Z", expires: "2026-03-10T00:00:00Z", original: "2")]
        // 19 days, then 11 more from 10 February: 30 days on 21 February.
        #expect(Self.evaluate(renewed, at: "2026-02-15T00:00:00Z").reevaluateAt == T.instant("2026-02-21T00:00:00.001Z"))
        #expect(Self.promotion(Self.evaluate(renewed, at: "2026-02-21T00:00:00Z"))?.eligible == true)
        #expect(Self.promotion(Self.evaluate(renewed, at: "2026-02-21T00:00:00.001Z"))?.reason == .paidTooMuch)
    }

    @Test("a free trial is not paid time, and a customer who never paid has paid none")
    func trialIsNotPaid() {
        var trial = Self.quarter[0]
        trial.isTrialPeriod = true
        let result = Self.evaluate([trial], at: "2026-03-15T00:00:00Z")
        #expect(Self.promotion(result)?.eligible == true)
        // `subscribed` is checked first: a lapsed customer is not-subscribed, not paid-too-much.
        #expect(Self.promotion(Self.evaluate(Self.quarter, at: "2026-04-01T00:00:00Z"))?.reason == .notSubscribed)
    }

    @Test("explain gives the figures")
    func explained() throws {
        let receipt = Receipt(app: "com.ex.app", transactions: Self.quarter)
        let text = try #require(Self.catalog.explain([receipt], at: T.instant("2026-02-15T00:00:00Z")).text(offer: Self.product))
        #expect(text.contains("do not offer (paid-too-much): paid 45 days in `pro`, at most 30 days"), "\(text)")
    }

    @Test("a win-back offer with paidAtMost, and a most below the least, are located offer-rule errors")
    func checked() {
        let winBack = T.compile(
            PapercutTests.catalog(
                offer: #"{ "id": "planner.back", "type": "win-back", "mode": "free-trial", "duration": "P1M", "paidAtMost": "P1M" }"#))
        #expect(winBack.errors.map(\.code) == [.offerRule])
        #expect(winBack.errors.first?.path == "products[0].offers[0].paidAtMost")
        #expect(winBack.errors.first?.message.contains("for promotional offers") == true)
        let inverted = T.compile(
            PapercutTests.catalog(
                offer:
                    #"{ "id": "planner.mid", "type": "promotional", "mode": "free-trial", "duration": "P1M", "paidAtLeast": "P2M", "paidAtMost": "P1M" }"#
            ))
        #expect(inverted.errors.map(\.code) == [.offerRule])
        #expect(inverted.errors.first?.message == "`paidAtMost` P1M is shorter than `paidAtLeast` P2M, so no customer qualifies")
        let equal = T.compile(
            PapercutTests.catalog(
                offer:
                    #"{ "id": "planner.mid", "type": "promotional", "mode": "free-trial", "duration": "P1M", "paidAtLeast": "P1M", "paidAtMost": "P30D" }"#
            ))
        #expect(equal.errors.isEmpty, "\(equal.errors.map(\.description))")
    }

    @Test("diff shows a changed paidAtMost, and graph draws it")
    func comparedAndDrawn() {
        let wider = T.catalog(PapercutTests.catalog(offer: Self.early.replacingOccurrences(of: "\"P1M\" }", with: "\"P2M\" }")))
        #expect(
            CatalogDiff.changes(from: Self.catalog, to: wider).map(\.description) == [
                "com.ex.app: product-changed planner.pro.monthly offers[planner.early].paidAtMost: P1M -> P2M"
            ])
        #expect(CatalogGraph.lines(Self.catalog.products[0].offers[0]).contains("subscribed, paid ≤ P1M"))
    }
}
