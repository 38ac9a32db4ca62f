import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

private typealias T = Fixtures
private typealias S = Streaming

/// A catalog with a subscription group with levels, one without, a pass group, a lifetime product
/// and grandfather rules, for the rules of renewal info, levels, passes, grandfathering, grants
/// and environments, each checked at its boundary instants.
enum Streaming {
    static let app = "com.example.streaming"
    static let json = """
        { "app": "com.example.streaming",
          "features": { "hd": "HD", "uhd": "4K", "offline": "Downloads", "classic": "Classic library" },
          "legal": { "auto-renewable-subscription": "Renews.", "non-renewing-subscription": "Does not renew." },
          "products": [
            { "id": "premium.monthly", "type": "auto-renewable-subscription", "name": "Premium", "group": "plans", "level": 1,
              "duration": "P1M", "grants": ["hd", "uhd", "offline"] },
            { "id": "premium.yearly", "type": "auto-renewable-subscription", "name": "Premium yearly", "group": "plans", "level": 1,
              "duration": "P1Y", "grants": ["hd", "uhd", "offline"] },
            { "id": "premium.monthly.b", "type": "auto-renewable-subscription", "name": "Premium B", "group": "plans", "level": 1,
              "duration": "P1M", "grants": ["hd", "uhd", "offline"] },
            { "id": "basic.monthly", "type": "auto-renewable-subscription", "name": "Basic", "group": "plans", "level": 2,
              "duration": "P1M", "grants": ["hd"] },
            { "id": "extra.monthly", "type": "auto-renewable-subscription", "name": "Extra", "group": "extras",
              "duration": "P1M", "grants": ["offline"] },
            { "id": "extra.yearly", "type": "auto-renewable-subscription", "name": "Extra yearly", "group": "extras",
              "duration": "P1Y", "grants": ["offline"] },
            { "id": "pass.3m", "type": "non-renewing-subscription", "name": "3 months", "group": "passes", "duration": "P3M", "grants": ["hd"] },
            { "id": "pass.1m", "type": "non-renewing-subscription", "name": "1 month", "group": "passes", "duration": "P1M", "grants": ["hd"] },
            { "id": "classic", "type": "non-consumable", "name": "Classic library", "grants": ["classic"] }
          ],
          "grandfathered": [
            { "id": "paid-app", "grants": ["classic", "hd"], "originalApplicationVersionBefore": "1.10" },
            { "id": "early", "grants": ["offline"], "originalPurchaseBefore": "2025-01-01T00:00:00Z" }
          ] }
        """
    static let catalog = Fixtures.catalog(json)

    static func evaluate(
        _ transactions: [Transaction] = [], renewals: [Renewal] = [], grants: [Grant] = [], version: String? = nil,
        originalPurchase: String? = nil, environment: String? = nil, accept: Set<String>? = nil, at: String
    ) -> Entitlements {
        var receipt = Receipt(app: app, transactions: transactions, renewals: renewals, grants: grants)
        receipt.originalApplicationVersion = version
        receipt.originalPurchaseDate = originalPurchase.map(T.instant)
        receipt.environment = environment
        return catalog.evaluate([receipt], at: T.instant(at), options: .testing(environments: accept))
    }

    static func monthly(_ id: String, _ start: String, _ end: String, product: String = "premium.monthly", chain: String = "1") -> Transaction {
        T.transaction(product, id, start, expires: end, original: chain)
    }
}

@Suite("Renewal info as Apple sends it")
struct RenewalInfoTests {
    @Test("a renewal snapshot counts from its signedDate on: no grace before it, grace from it")
    func signedDate() {
        let chain = [S.monthly("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")]
        let snapshot = Renewal(
            productId: "premium.monthly", originalTransactionId: "1", willRenew: true, isInBillingRetry: true,
            gracePeriodExpiresDate: T.instant("2026-02-17T00:00:00Z"), signedDate: T.instant("2026-02-03T00:00:00Z"))
        let before = S.evaluate(chain, renewals: [snapshot], at: "2026-02-02T23:59:59.999Z")
        #expect(before.product("premium.monthly")?.state == .expired)
        #expect(before.product("premium.monthly")?.willRenew == nil, "no entry counted yet")
        #expect(before.reevaluateAt == T.instant("2026-02-03T00:00:00Z"))
        let from = S.evaluate(chain, renewals: [snapshot], at: "2026-02-03T00:00:00Z")
        #expect(from.product("premium.monthly")?.state == .gracePeriod)
        #expect(from.product("premium.monthly")?.willRenew == true)
        #expect(from.isEnabled("uhd"))
    }

    @Test("a grace date in an entry that says billing is not retried is stale: ignored, with a warning")
    func staleGrace() {
        let chain = [S.monthly("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")]
        let stale = Renewal(
            originalTransactionId: "1", willRenew: false, isInBillingRetry: false,
            gracePeriodExpiresDate: T.instant("2026-02-17T00:00:00Z"))
        let result = S.evaluate(chain, renewals: [stale], at: "2026-02-05T00:00:00Z")
        #expect(result.product("premium.monthly")?.state == .expired)
        #expect(!result.isEnabled("hd"))
        #expect(result.warnings.map(\.code) == ["stale-grace"])
        #expect(result.product("premium.monthly")?.willRenew == false)
    }

    @Test("billing retry: once coverage and grace end, a chain whose latest entry retries billing is in billing-retry, granting nothing")
    func billingRetry() {
        let chain = [S.monthly("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")]
        let retry = Renewal(originalTransactionId: "1", willRenew: true, isInBillingRetry: true)
        #expect(S.evaluate(chain, renewals: [retry], at: "2026-01-31T23:59:59.999Z").product("premium.monthly")?.state == .active)
        let atExpiry = S.evaluate(chain, renewals: [retry], at: "2026-02-01T00:00:00Z")
        #expect(atExpiry.product("premium.monthly")?.state == .billingRetry)
        #expect(!atExpiry.isEnabled("hd"))
        // The App Store still counts the customer as subscribed: not offered, send them to fix payment.
        #expect(atExpiry.offer(for: "premium.monthly")?.reason == .billingIssue)
        // With a grace period, billing retry comes when the grace ends.
        var withGrace = retry
        withGrace.gracePeriodExpiresDate = T.instant("2026-02-10T00:00:00Z")
        let inGrace = S.evaluate(chain, renewals: [withGrace], at: "2026-02-09T23:59:59.999Z")
        #expect(inGrace.product("premium.monthly")?.state == .gracePeriod)
        #expect(inGrace.reevaluateAt == T.instant("2026-02-10T00:00:00Z"), "the grace period ends then")
        #expect(S.evaluate(chain, renewals: [withGrace], at: "2026-02-10T00:00:00Z").product("premium.monthly")?.state == .billingRetry)
        // The paid period's end is the next change while it is active: active to grace.
        #expect(S.evaluate(chain, renewals: [withGrace], at: "2026-01-20T00:00:00Z").reevaluateAt == T.instant("2026-02-01T00:00:00Z"))
        // A later snapshot saying billing stopped being retried makes it plainly expired.
        let stopped = Renewal(originalTransactionId: "1", willRenew: false, isInBillingRetry: false, signedDate: T.instant("2026-02-05T00:00:00Z"))
        #expect(S.evaluate(chain, renewals: [retry, stopped], at: "2026-02-05T00:00:00Z").product("premium.monthly")?.state == .expired)
        #expect(S.evaluate(chain, renewals: [retry, stopped], at: "2026-02-04T00:00:00Z").product("premium.monthly")?.state == .billingRetry)
    }

    @Test("willRenew and renewsTo come from the chain's latest counted entry, in text and JSON")
    func renewsTo() throws {
        let chain = [S.monthly("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")]
        let first = Renewal(productId: "premium.monthly", originalTransactionId: "1", willRenew: true, signedDate: T.instant("2026-01-02T00:00:00Z"))
        let downgrade = Renewal(
            productId: "premium.monthly", originalTransactionId: "1", willRenew: true,
            signedDate: T.instant("2026-01-20T00:00:00Z"), renewsTo: "basic.monthly")
        let early = S.evaluate(chain, renewals: [first, downgrade], at: "2026-01-19T23:59:59.999Z")
        #expect(early.product("premium.monthly")?.renewsTo == nil)
        #expect(early.reevaluateAt == T.instant("2026-01-20T00:00:00Z"))
        let late = S.evaluate(chain, renewals: [first, downgrade], at: "2026-01-20T00:00:00Z")
        #expect(late.product("premium.monthly")?.renewsTo == "basic.monthly")
        #expect(late.product("premium.monthly")?.willRenew == true)
        #expect(late.text.contains("  premium.monthly    active until 2026-02-01T00:00:00Z, renews to basic.monthly\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(late.json.utf8)) as? [String: Any])
        let product = try #require((json["products"] as? [String: Any])?["premium.monthly"] as? [String: Any])
        #expect(product["willRenew"] as? Bool == true && product["renewsTo"] as? String == "basic.monthly")
        // renewsTo naming the product itself is not a change.
        let same = Renewal(originalTransactionId: "1", willRenew: true, renewsTo: "premium.monthly")
        #expect(S.evaluate(chain, renewals: [same], at: "2026-01-20T00:00:00Z").product("premium.monthly")?.renewsTo == nil)
    }

    @Test("when two products of a chain share the latest expiry, grace goes to the product the entry names")
    func graceTie() {
        let chain = [
            S.monthly("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"),
            S.monthly("2", "2026-01-15T00:00:00Z", "2026-02-01T00:00:00Z", product: "premium.monthly.b"),
        ]
        let grace = Renewal(
            productId: "premium.monthly.b", originalTransactionId: "1", isInBillingRetry: true,
            gracePeriodExpiresDate: T.instant("2026-02-10T00:00:00Z"))
        let result = S.evaluate(chain, renewals: [grace], at: "2026-02-05T00:00:00Z")
        #expect(result.product("premium.monthly.b")?.state == .gracePeriod)
        #expect(result.product("premium.monthly")?.state == .expired)
    }

    @Test("an entry that leaves isInBillingRetry out does not end billing retry; one that says false does")
    func retryLeftOut() {
        let chain = [S.monthly("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")]
        let retry = Renewal(originalTransactionId: "1", isInBillingRetry: true, signedDate: T.instant("2026-02-02T00:00:00Z"))
        let silent = Renewal(originalTransactionId: "1", willRenew: true, signedDate: T.instant("2026-02-05T00:00:00Z"))
        let result = S.evaluate(chain, renewals: [retry, silent], at: "2026-02-05T00:00:00Z")
        #expect(result.product("premium.monthly")?.state == .billingRetry)
        #expect(result.product("premium.monthly")?.willRenew == true, "willRenew is the latest entry's")
        let fixed = Renewal(originalTransactionId: "1", isInBillingRetry: false, signedDate: T.instant("2026-02-06T00:00:00Z"))
        #expect(S.evaluate(chain, renewals: [retry, silent, fixed], at: "2026-02-06T00:00:00Z").product("premium.monthly")?.state == .expired)
    }

    @Test("when the entry names neither of two products sharing the latest expiry, grace goes to the one bought last, whatever the receipt's order")
    func graceTieUnnamed() {
        let first = S.monthly("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")
        let second = S.monthly("2", "2026-01-15T00:00:00Z", "2026-02-01T00:00:00Z", product: "premium.monthly.b")
        let grace = Renewal(originalTransactionId: "1", isInBillingRetry: true, gracePeriodExpiresDate: T.instant("2026-02-10T00:00:00Z"))
        for order in [[first, second], [second, first]] {
            let result = S.evaluate(order, renewals: [grace], at: "2026-02-05T00:00:00Z")
            #expect(result.product("premium.monthly.b")?.state == .gracePeriod)
            #expect(result.product("premium.monthly")?.state == .expired)
        }
        // Bought at one instant: the numerically later transaction id is the later purchase.
        let nine = S.monthly("9", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", product: "premium.monthly.b", chain: "9")
        let ten = S.monthly("10", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", chain: "9")
        let tied = Renewal(originalTransactionId: "9", isInBillingRetry: true, gracePeriodExpiresDate: T.instant("2026-02-10T00:00:00Z"))
        for order in [[nine, ten], [ten, nine]] {
            #expect(S.evaluate(order, renewals: [tied], at: "2026-02-05T00:00:00Z").product("premium.monthly")?.state == .gracePeriod)
        }
    }

    @Test("an entry naming a chain without transactions warns from its signedDate on")
    func orphanFromSignedDate() {
        let orphan = Renewal(originalTransactionId: "777", willRenew: true, signedDate: T.instant("2026-03-01T00:00:00Z"))
        let before = S.evaluate(renewals: [orphan], at: "2026-02-01T00:00:00Z")
        #expect(before.warnings.isEmpty)
        #expect(before.reevaluateAt == T.instant("2026-03-01T00:00:00Z"))
        #expect(S.evaluate(renewals: [orphan], at: "2026-03-01T00:00:00Z").warnings.map(\.code) == ["orphan-renewal"])
    }

    @Test("repeated snapshots signed later that change nothing do not bring reevaluateAt forward")
    func repeatedSnapshots() {
        let chain = [S.monthly("1", "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z")]
        let snapshots = (2...21).map { day in
            Renewal(
                productId: "premium.monthly", originalTransactionId: "1", willRenew: true,
                signedDate: T.instant(String(format: "2026-01-%02dT00:00:00Z", day)))
        }
        #expect(S.evaluate(chain, renewals: snapshots, at: "2026-01-02T00:00:00Z").reevaluateAt == T.instant("2027-01-01T00:00:00Z"))
        // One that says something new is a change at its date.
        var changed = snapshots
        changed[10].willRenew = false
        #expect(S.evaluate(chain, renewals: changed, at: "2026-01-02T00:00:00Z").reevaluateAt == changed[10].signedDate)
        // Forty snapshots that differ in what the answer does not show (the expiration intent):
        // each is checked, and the search gets past all of them to the real change.
        let start = T.instant("2026-01-02T00:00:00Z").millisecondsSince1970
        let intents: [Renewal] = (0..<40).map { (index: Int) -> Renewal in
            let signed = Instant(millisecondsSince1970: start + Int64(index + 1) * 3_600_000)
            let intent: Renewal.ExpirationIntent = index % 2 == 0 ? .voluntary : .billingError
            return Renewal(
                productId: "premium.monthly", originalTransactionId: "1", willRenew: true, signedDate: signed,
                expirationIntent: intent)
        }
        #expect(
            S.evaluate(chain, renewals: [snapshots[0]] + intents, at: "2026-01-02T00:00:00Z").reevaluateAt
                == T.instant("2027-01-01T00:00:00Z"))
    }

    @Test("the latest transaction by purchase date breaks ties by transaction id, numerically")
    func numericTies() {
        // Same purchase instant: `10` comes after `9`, so the refunded `10` is the latest.
        let purchases = [
            T.transaction("classic", "9", "2026-01-01T00:00:00Z", cancelled: "2026-01-02T00:00:00Z"),
            T.transaction("classic", "10", "2026-01-01T00:00:00Z", cancelled: "2026-01-02T00:00:00Z"),
        ]
        #expect(S.evaluate(purchases, at: "2026-01-03T00:00:00Z").product("classic")?.state == .revoked)
        // Passes bought at one instant stack `9` then `10`: the 1-month pass (id 9) first.
        let passes = [T.transaction("pass.3m", "10", "2026-01-01T00:00:00Z"), T.transaction("pass.1m", "9", "2026-01-01T00:00:00Z")]
        let result = S.evaluate(passes, at: "2026-01-15T00:00:00Z")
        #expect(result.product("pass.1m")?.until == T.instant("2026-02-01T00:00:00Z"))
        #expect(result.product("pass.3m")?.state == .scheduled)
        #expect(result.product("pass.3m")?.startsAt == T.instant("2026-02-01T00:00:00Z"))
    }
}

@Suite("Subscription levels")
struct LevelTests {
    @Test("while a product of a leveled group is active, the others' offers say upgrade, downgrade or crossgrade, and when")
    func changes() throws {
        let basic = [S.monthly("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", product: "basic.monthly")]
        let result = S.evaluate(basic, at: "2026-01-10T00:00:00Z")
        #expect(result.offer(for: "basic.monthly")?.reason == .subscribed)
        #expect(result.offer(for: "basic.monthly")?.change == nil)
        let up = try #require(result.offer(for: "premium.monthly"))
        #expect(up.eligible && up.change == .upgrade && up.effective == .immediately)
        let premium = [S.monthly("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")]
        let onPremium = S.evaluate(premium, at: "2026-01-10T00:00:00Z")
        #expect(onPremium.offer(for: "basic.monthly")?.change == .downgrade)
        #expect(onPremium.offer(for: "basic.monthly")?.effective == .nextRenewal)
        #expect(onPremium.offer(for: "premium.monthly.b")?.change == .crossgrade)
        #expect(onPremium.offer(for: "premium.monthly.b")?.effective == .immediately, "same duration")
        #expect(onPremium.offer(for: "premium.yearly")?.change == .crossgrade)
        #expect(onPremium.offer(for: "premium.yearly")?.effective == .nextRenewal, "another duration")
        #expect(onPremium.text.contains("premium.yearly     offer, crossgrade (at the next renewal)"))
        // At the end of the period, nothing is active: no change any more.
        let lapsed = S.evaluate(premium, at: "2026-02-01T00:00:00Z")
        #expect(lapsed.offer(for: "basic.monthly")?.change == nil)
        // A group without levels gets no change.
        let extra = S.evaluate(
            [S.monthly("2", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", product: "extra.monthly", chain: "2")],
            at: "2026-01-10T00:00:00Z")
        #expect(extra.offer(for: "extra.yearly")?.change == nil && extra.offer(for: "extra.yearly")?.eligible == true)
    }

    @Test("a group where some products have a level and others do not is an error", arguments: [true, false])
    func allOrNone(levelOnFirst: Bool) throws {
        let json = catalogText(
            products: """
                    { "id": "a", "type": "auto-renewable-subscription", "name": "A", "group": "g", \(levelOnFirst ? "\"level\": 1, " : "")"grants": ["pro"] },
                    { "id": "b", "type": "auto-renewable-subscription", "name": "B", "group": "g", \(levelOnFirst ? "" : "\"level\": 2, ")"grants": ["pro"] }
                """)
        let error = try #require(Fixtures.compile(json).errors.first)
        #expect(error.code == .groupRule)
        #expect(
            error.message
                == (levelOnFirst
                    ? "in subscription group `g`, `a` has a `level` and `b` does not"
                    : "in subscription group `g`, `b` has a `level` and `a` does not"))
        #expect(error.help == "give every product of the group a level (1 is the highest service), or none")
        let zero = catalogText(
            products: #"    { "id": "a", "type": "auto-renewable-subscription", "name": "A", "group": "g", "level": 0, "grants": ["pro"] }"#)
        #expect(Fixtures.compile(zero).errors.first?.message == "`level` must be a whole number from 1 (the highest service) to 10000, found 0")
    }
}

@Suite("Passes that add up")
struct PassGroupTests {
    @Test("passes of one group stack across products, each span its own product's, and a queued pass is scheduled")
    func stacking() throws {
        let passes = [T.transaction("pass.3m", "1", "2026-01-10T00:00:00Z"), T.transaction("pass.1m", "2", "2026-01-20T00:00:00Z")]
        let queued = S.evaluate(passes, at: "2026-01-20T00:00:00Z")
        #expect(queued.product("pass.3m")?.state == .active)
        #expect(queued.product("pass.3m")?.until == T.instant("2026-04-10T00:00:00Z"))
        let scheduled = try #require(queued.product("pass.1m"))
        #expect(scheduled.state == .scheduled && scheduled.startsAt == T.instant("2026-04-10T00:00:00Z") && scheduled.until == nil)
        #expect(queued.feature("hd")?.until == T.instant("2026-05-10T00:00:00Z"), "the union of the two")
        #expect(queued.reevaluateAt == T.instant("2026-04-10T00:00:00Z"), "the queued pass starts")
        #expect(queued.text.contains("pass.1m            scheduled from 2026-04-10T00:00:00Z"))
        let started = S.evaluate(passes, at: "2026-04-10T00:00:00Z")
        #expect(started.product("pass.3m")?.state == .expired)
        #expect(started.product("pass.1m")?.state == .active)
        #expect(started.product("pass.1m")?.until == T.instant("2026-05-10T00:00:00Z"))
        #expect(S.evaluate(passes, at: "2026-05-10T00:00:00Z").isEnabled("hd") == false)
    }

    @Test("a pass group may not share its name with an auto-renewable group")
    func nameClash() throws {
        let json = catalogText(
            products: """
                    { "id": "s", "type": "auto-renewable-subscription", "name": "S", "group": "pro", "grants": ["pro"] },
                    { "id": "p", "type": "non-renewing-subscription", "name": "P", "group": "pro", "duration": "P1M", "grants": ["pro"] }
                """)
        let error = try #require(Fixtures.compile(json).errors.first)
        #expect(error.code == .groupRule)
        #expect(error.message == "pass group `pro` is also the name of an auto-renewable subscription group")
        #expect(error.location?.line == 10)
    }
}

@Suite("Grandfathered customers")
struct GrandfatherTests {
    @Test(
        "a receipt's original application version below the rule's matches, comparing numbers",
        arguments: [
            ("1.9", true), ("1.9.9", true), ("1.10", false), ("1.10.0", false), ("1.11", false), ("1", true), ("0.1", true), ("2.0", false),
        ])
    func versions(version: String, matches: Bool) {
        let result = S.evaluate(version: version, at: "2026-01-01T00:00:00Z")
        #expect(result.isEnabled("classic") == matches)
        #expect(result.feature("classic")?.sources == (matches ? ["grandfathered:paid-app"] : []))
        #expect(result.offer(for: "classic")?.reason == (matches ? .owned : nil), "all it grants is covered")
    }

    @Test(
        "long versions and date-like build numbers are versions too",
        arguments: [
            ("1.2.3.4.5.6.7.8.9", true), ("2024060100", false), ("1.0.2024060100", true),
        ])
    func longVersions(version: String, matches: Bool) {
        let result = S.evaluate(version: version, at: "2026-01-01T00:00:00Z")
        #expect(result.isEnabled("classic") == matches)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(CatalogChecker.versionComponents("2024060100") == [2_024_060_100])
        #expect(CatalogChecker.versionComponents(String(repeating: "1.", count: 128) + "1") == nil, "past 256 bytes")
    }

    @Test("coverage starts at the receipt's original purchase date and has no end")
    func fromOriginalPurchase() {
        let before = S.evaluate(version: "1.0", originalPurchase: "2026-03-01T00:00:00Z", at: "2026-02-28T23:59:59.999Z")
        #expect(!before.isEnabled("classic"))
        #expect(before.reevaluateAt == T.instant("2026-03-01T00:00:00Z"))
        let from = S.evaluate(version: "1.0", originalPurchase: "2026-03-01T00:00:00Z", at: "2026-03-01T00:00:00Z")
        #expect(from.isEnabled("classic") && from.feature("classic")?.until == nil)
    }

    @Test("originalPurchaseBefore matches a purchase strictly before its instant")
    func purchaseBefore() {
        #expect(
            S.evaluate(originalPurchase: "2024-12-31T23:59:59.999Z", at: "2026-01-01T00:00:00Z").feature("offline")?.sources == [
                "grandfathered:early"
            ])
        #expect(!S.evaluate(originalPurchase: "2025-01-01T00:00:00Z", at: "2026-01-01T00:00:00Z").isEnabled("offline"))
        #expect(!S.evaluate(at: "2026-01-01T00:00:00Z").isEnabled("offline"), "no original purchase date, no match")
    }

    @Test("a receipt version that is not numbers applies no version rule, with a warning; a rule's is a catalog error; two conditions are one rule")
    func badVersions() throws {
        let result = S.evaluate(version: "2.0-beta", at: "2026-01-01T00:00:00Z")
        #expect(!result.isEnabled("classic"))
        #expect(result.warnings.map(\.code) == ["bad-version"])
        let json = catalogText(
            products: "", extra: #"\#n  "grandfathered": [ { "id": "r", "grants": ["pro"], "originalApplicationVersionBefore": "2.x" } ],"#)
        let error = try #require(Fixtures.compile(json).errors.first)
        #expect(error.message == "`2.x` is not a version of dot-separated whole numbers")
        #expect(error.path == "grandfathered[0].originalApplicationVersionBefore")
        let both = catalogText(
            products: "",
            extra:
                #"\#n  "grandfathered": [ { "id": "r", "grants": ["pro"], "originalApplicationVersionBefore": "2", "originalPurchaseBefore": "2025-01-01T00:00:00Z" } ],"#
        )
        // Several conditions are one rule now (issue 32): every one must hold.
        #expect(Fixtures.compile(both).errors.isEmpty)
    }

    @Test("a version beyond what entitle compares names the limit, in the catalog and in a receipt")
    func versionLimits() throws {
        let long = String(repeating: "9", count: 19) + ".0"
        let json = catalogText(
            products: "", extra: #"\#n  "grandfathered": [ { "id": "r", "grants": ["pro"], "originalApplicationVersionBefore": "\#(long)" } ],"#)
        let error = try #require(Fixtures.compile(json).errors.first)
        #expect(error.message == "`\(long)` has a part of more than 18 digits, the most entitle compares")
        let eighteen = String(repeating: "9", count: 18) + ".0"
        #expect(CatalogChecker.versionLimitProblem(eighteen) == nil)
        #expect(CatalogChecker.versionComponents(eighteen) == [999_999_999_999_999_999, 0])
        let parts = Array(repeating: "1", count: 129).joined(separator: ".")
        #expect(CatalogChecker.versionLimitProblem(parts) == "is longer than 256 characters, the longest version entitle compares")
        #expect(CatalogChecker.versionLimitProblem(String(parts.dropLast(2))) == nil)
        #expect(CatalogChecker.versionLimitProblem("2.x") == nil)
        #expect(CatalogChecker.versionLimitProblem("1..2") == nil)
        let result = S.evaluate(version: long, at: "2026-01-01T00:00:00Z")
        #expect(result.warnings.map(\.code) == ["bad-version"])
        #expect(
            result.warnings.first?.message.contains(
                "which has a part of more than 18 digits, the most entitle compares; version grandfather rules do not apply") == true)
    }
}

@Suite("Access granted outside the App Store")
struct GrantTests {
    @Test("a grant covers [start, end) from when it is known, until revoked")
    func span() {
        let grant = Grant(id: "support-42", features: ["uhd"], start: T.instant("2026-01-10T00:00:00Z"), end: T.instant("2026-01-20T00:00:00Z"))
        let before = S.evaluate(grants: [grant], at: "2026-01-09T23:59:59.999Z")
        #expect(!before.isEnabled("uhd"))
        #expect(before.reevaluateAt == T.instant("2026-01-10T00:00:00Z"))
        let during = S.evaluate(grants: [grant], at: "2026-01-10T00:00:00Z")
        #expect(
            during.feature("uhd") == FeatureStatus(id: "uhd", enabled: true, until: T.instant("2026-01-20T00:00:00Z"), sources: ["grant:support-42"]))
        #expect(during.reevaluateAt == T.instant("2026-01-20T00:00:00Z"))
        #expect(!S.evaluate(grants: [grant], at: "2026-01-20T00:00:00Z").isEnabled("uhd"))
        var revoked = grant
        revoked.revokedAt = T.instant("2026-01-15T00:00:00Z")
        #expect(S.evaluate(grants: [revoked], at: "2026-01-14T23:59:59.999Z").isEnabled("uhd"))
        #expect(!S.evaluate(grants: [revoked], at: "2026-01-15T00:00:00Z").isEnabled("uhd"))
    }

    @Test("grants with an undeclared feature warn; one id across receipts counts once, the first")
    func deduplication() {
        let grant = Grant(id: "press", features: ["hd", "8k"], start: T.instant("2026-01-01T00:00:00Z"))
        var other = grant
        other.features = ["uhd"]
        let receipts = [Receipt(app: S.app, grants: [grant]), Receipt(app: S.app, grants: [other])]
        let result = S.catalog.evaluate(receipts, at: T.instant("2026-02-01T00:00:00Z"))
        #expect(result.isEnabled("hd") && !result.isEnabled("uhd"))
        #expect(Set(result.warnings.map(\.code)) == ["unknown-grant-feature", "conflicting-grant"])
        #expect(result.feature("hd")?.sources == ["grant:press"])
    }

    @Test("within one receipt, one grant id with two contents rejects the receipt")
    func conflictInOneReceipt() throws {
        let json =
            #"{"app":"a","grants":[{"id":"g","features":["x"],"start":"2026-01-01T00:00:00Z"},{"id":"g","features":["y"],"start":"2026-01-01T00:00:00Z"}]}"#
        let error = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(json.utf8)) }
        #expect(error.code == .conflictingGrant)
        #expect(error.path == "grants[1]")
    }
}

@Suite("Environments")
struct EnvironmentTests {
    @Test("a receipt from an environment not accepted is ignored entirely, with one warning; none means production")
    func accepted() {
        let purchase = [T.transaction("classic", "1", "2026-01-01T00:00:00Z")]
        let sandbox = S.evaluate(purchase, environment: "sandbox", accept: ["production"], at: "2026-01-02T00:00:00Z")
        #expect(!sandbox.isEnabled("classic"))
        #expect(
            sandbox.warnings.map(\.message) == [
                "the receipt of `com.example.streaming` from the `sandbox` environment is ignored: its environment is not accepted"
            ])
        #expect(S.evaluate(purchase, accept: ["production"], at: "2026-01-02T00:00:00Z").isEnabled("classic"))
        #expect(S.evaluate(purchase, environment: "sandbox", at: "2026-01-02T00:00:00Z").isEnabled("classic"), "all accepted by default")
    }

    @Test(
        "Apple's raw environment values are the normalized names",
        arguments: [
            ("Production", "production", true), ("production", "Production", true), ("LocalTesting", "local-testing", true),
            ("Sandbox", "production", false), ("Xcode", "xcode", true),
        ])
    func appleValues(environment: String, accepted: String, counts: Bool) {
        let purchase = [T.transaction("classic", "1", "2026-01-01T00:00:00Z")]
        #expect(S.evaluate(purchase, environment: environment, accept: [accepted], at: "2026-01-02T00:00:00Z").isEnabled("classic") == counts)
    }

    @Test("a sandbox receipt of another app does not meet an upgrade prerequisite in production")
    func prerequisites() throws {
        let old = Receipt(
            app: Diagrams.oldApp, transactions: [T.transaction(Diagrams.oldPro, "9", "2021-01-01T00:00:00Z")],
            environment: "sandbox")
        let production = Fixtures.diagrams.evaluate(
            [old], at: T.instant("2026-01-01T00:00:00Z"), options: EvaluationOptions(environments: [.production]))
        #expect(production.offer(for: Diagrams.upgrade)?.reason == .prerequisiteMissing)
        #expect(Fixtures.diagrams.evaluate([old], at: T.instant("2026-01-01T00:00:00Z")).offer(for: Diagrams.upgrade)?.eligible == true)
    }

    @Test("check --environment is repeatable and filters receipts")
    func commandLine() throws {
        let receipt =
            #"{"app":"com.example.diagrams","environment":"sandbox","transactions":[{"productId":"com.example.diagrams.pro","transactionId":"1","purchaseDate":"2026-01-01T00:00:00Z"}]}"#
        let file = Fixtures.scratch("entitle-sandbox", ending: ".json")
        try Data(receipt.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let production = EntitleCommand.run(
            [
                "check", "--catalog", Fixtures.productsDirectory, "--receipt", file.path, "--app", "com.example.diagrams",
                "--at", "2026-01-02", "--environment", "production",
            ], environment: CLITests.environment())
        #expect(production.exitCode == 0, "\(production.standardError)")
        #expect(production.standardOutput.contains("pro         off"))
        #expect(production.standardOutput.contains("is ignored: its environment is not accepted"))
        let both = EntitleCommand.run(
            [
                "check", "--catalog", Fixtures.productsDirectory, "--receipt", file.path, "--at", "2026-01-02",
                "--environment", "production", "--environment", "sandbox",
            ], environment: CLITests.environment())
        #expect(both.standardOutput.contains("pro         on"))
    }
}

@Suite("Family sharing of upgrade prerequisites")
struct FamilyPrerequisiteTests {
    @Test("a family-shared prerequisite counts only when the required app's catalog makes the product shareable")
    func familyShared() throws {
        let shared = Receipt(
            app: Diagrams.oldApp,
            transactions: [
                T.transaction(Diagrams.oldPro, "9", "2021-01-01T00:00:00Z", familyShared: true)
            ])
        let at = T.instant("2026-01-01T00:00:00Z")
        // products/diagrams6.json: is `com.example.diagrams6.pro` family-shareable?
        let shareable = Fixtures.examples.catalog(for: Diagrams.oldApp)?.product(Diagrams.oldPro)?.familyShareable ?? false
        let result = try Fixtures.examples.evaluate(app: Diagrams.app, receipts: [shared], at: at)
        #expect(result.offer(for: Diagrams.upgrade)?.eligible == shareable)
        // Without the portfolio, the required app's catalog is unknown: it never counts.
        #expect(Fixtures.diagrams.evaluate([shared], at: at).offer(for: Diagrams.upgrade)?.reason == .prerequisiteMissing)
    }

    @Test("a version read from its bytes in one pass reads as the plain split-and-check reads it, on random and edge texts")
    func versionComponentsAgree() {
        var random = SplitMix(seed: 11)
        let alphabet: [String] = ["0", "1", "9", ".", ".", "a", "-", " ", "\u{301}", "١", "+", "00"]
        var texts = [
            "", ".", "1.", ".1", "1..2", "0", "007.1", String(repeating: "9", count: 18), String(repeating: "9", count: 19),
            String(repeating: "1.", count: 127) + "1", String(repeating: "1.", count: 128) + "1", String(repeating: "1", count: 256),
        ]
        for _ in 0..<20_000 {
            texts.append((0..<random.below(40)).map { _ in alphabet[random.below(alphabet.count)] }.joined())
        }
        for text in texts {
            #expect(CatalogChecker.versionComponents(text) == ReferenceEvaluator.versionComponents(text), "`\(text)`")
        }
    }
}
