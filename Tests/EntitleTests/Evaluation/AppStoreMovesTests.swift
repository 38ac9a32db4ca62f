import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// The rules of "The App Store as it moves", each at its boundary instants (a millisecond before,
/// at, a millisecond after), each evaluation checked against the reference evaluator too, and the
/// answer byte-identical whatever the order of receipts and entries.
///
/// The catalog: Diagrams (products/diagrams.json) for subscriptions, consumables and offers, and a
/// small one (`Moves`) for what Diagrams does not declare (family sharing, an upgrade whose
/// `requires` has no `anyOf`, a subscription granting what a trial grants).
enum Moves {
    static let app = "com.example.moves"
    static let oldApp = "com.example.moves.classic"
    static let json = """
        { "app": "com.example.moves",
          "features": { "pro": "Pro", "family": "Family album" },
          "legal": { "auto-renewable-subscription": "Renews." },
          "products": [
            { "id": "pro.lifetime", "type": "non-consumable", "name": "Pro", "priceTier": 20, "grants": ["pro"] },
            { "id": "pro.trial", "type": "non-consumable", "name": "14-day Trial", "priceTier": 0, "trialOf": "pro.lifetime", "grants": ["pro"] },
            { "id": "pro.monthly", "type": "auto-renewable-subscription", "name": "Pro monthly", "group": "pro", "duration": "P1M",
              "grants": ["pro"] },
            { "id": "album", "type": "non-consumable", "name": "Family album", "grants": ["family"], "familyShareable": true },
            { "id": "pro.upgrade", "type": "non-consumable", "name": "Upgrade", "priceTier": 10, "grants": ["pro"],
              "upgrade": { "replaces": "pro.lifetime", "requires": { "app": "com.example.moves.classic" } } }
          ] }
        """
    static let classicJSON = """
        { "app": "com.example.moves.classic", "features": { "pro": "Pro" },
          "products": [ { "id": "classic.pro", "type": "non-consumable", "name": "Pro", "grants": ["pro"] } ] }
        """
    static let portfolio: Portfolio = {
        let compilation = Portfolio.compile([
            CatalogSource(name: "moves.json", data: Data(json.utf8)), CatalogSource(name: "classic.json", data: Data(classicJSON.utf8)),
        ])
        return compilation.portfolio!
    }()
    static var catalog: CompiledCatalog { portfolio.catalog(for: app)! }
}

/// The answer, checked against the reference evaluator and the receipts in reverse order.
private func evaluate(
    _ catalog: CompiledCatalog, _ receipts: [Receipt], at text: String, accounts: [String] = [],
    catalogs: [String: CompiledCatalog] = [:], sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> Entitlements {
    checkedEvaluation(catalog, receipts, at: text, accounts: accounts, catalogs: catalogs, sourceLocation: sourceLocation)
}

private func diagrams(_ transactions: [Transaction], renewals: [Renewal] = [], at: String, accounts: [String] = []) -> Entitlements {
    evaluate(T.diagrams, [Receipt(app: Diagrams.app, transactions: transactions, renewals: renewals)], at: at, accounts: accounts)
}

private func signed(_ transaction: Transaction, _ date: String?) -> Transaction {
    var copy = transaction
    copy.signedDate = date.map(T.instant)
    return copy
}

@Suite("Snapshots of a transaction")
struct SnapshotTests {
    static let original = T.transaction(Diagrams.sync, "5001", "2026-01-10T00:00:00Z", expires: "2026-02-10T00:00:00Z", original: "5001")

    @Test("an extension counts from the extending snapshot's signedDate, whichever receipt comes first")
    func extension_() throws {
        var extended = Self.original
        extended.expiresDate = T.instant("2026-02-20T00:00:00Z")
        let first = Receipt(app: Diagrams.app, transactions: [signed(Self.original, "2026-01-10T00:00:00Z")])
        let second = Receipt(app: Diagrams.app, transactions: [signed(extended, "2026-02-05T00:00:00Z")])
        for receipts in [[first, second], [second, first]] {
            let before = evaluate(T.diagrams, receipts, at: "2026-02-04T23:59:59.999Z")
            #expect(before.feature("cloud.sync")?.until == T.instant("2026-02-10T00:00:00Z"))
            #expect(before.reevaluateAt == T.instant("2026-02-05T00:00:00Z"))
            let at = evaluate(T.diagrams, receipts, at: "2026-02-05T00:00:00Z")
            #expect(at.feature("cloud.sync")?.until == T.instant("2026-02-20T00:00:00Z"))
            #expect(evaluate(T.diagrams, receipts, at: "2026-02-15T00:00:00Z").isEnabled("cloud.sync"))
            #expect(evaluate(T.diagrams, receipts, at: "2026-02-19T23:59:59.999Z").isEnabled("cloud.sync"))
            #expect(!evaluate(T.diagrams, receipts, at: "2026-02-20T00:00:00Z").isEnabled("cloud.sync"))
        }
        // Unsigned copies merge: the latest expiry, in either order, with no warning (they differ only in expiry).
        let unsigned = [Receipt(app: Diagrams.app, transactions: [Self.original]), Receipt(app: Diagrams.app, transactions: [extended])]
        let merged = evaluate(T.diagrams, unsigned, at: "2026-02-15T00:00:00Z")
        #expect(merged.isEnabled("cloud.sync") && merged.warnings.isEmpty)
    }

    @Test("a refund holds from its snapshot on, and its reversal gives access back from the reversing snapshot's signedDate")
    func refundAndReversal() {
        let bought = signed(T.transaction(Diagrams.pro, "7", "2026-01-10T00:00:00Z"), "2026-01-10T00:00:00Z")
        var refunded = signed(bought, "2026-02-01T00:00:00Z")
        refunded.cancellationDate = T.instant("2026-02-01T00:00:00Z")
        refunded.revocationType = .refundFull
        let reversed = signed(bought, "2026-02-15T00:00:00Z")
        let all = [bought, refunded, reversed]
        let early = diagrams(all, at: "2026-01-20T00:00:00Z")
        #expect(early.isEnabled("pro") && early.reevaluateAt == T.instant("2026-02-01T00:00:00Z"))
        #expect(diagrams(all, at: "2026-01-31T23:59:59.999Z").isEnabled("pro"))
        let revoked = diagrams(all, at: "2026-02-01T00:00:00Z")
        #expect(!revoked.isEnabled("pro") && revoked.product(Diagrams.pro)?.state == .revoked)
        #expect(revoked.reevaluateAt == T.instant("2026-02-15T00:00:00Z"))
        #expect(!diagrams(all, at: "2026-02-14T23:59:59.999Z").isEnabled("pro"))
        let back = diagrams(all, at: "2026-02-15T00:00:00Z")
        #expect(back.isEnabled("pro") && back.product(Diagrams.pro)?.state == .active && back.reevaluateAt == nil)
        // Before any snapshot is signed, the earliest stands; a refund copy alone is refunded from its date.
        #expect(diagrams([refunded], at: "2026-01-20T00:00:00Z").isEnabled("pro"))
        #expect(!diagrams([refunded], at: "2026-02-01T00:00:00Z").isEnabled("pro"))
    }

    @Test("copies signed at one instant that disagree: byte order decides, one conflicting-transaction warning, in any order")
    func equalRank() throws {
        let one = signed(T.transaction(Diagrams.stencils, "9", "2026-01-10T00:00:00Z", quantity: 1), "2026-01-10T00:00:00Z")
        var three = one
        three.quantity = 3
        let result = diagrams([one, three], at: "2026-01-11T00:00:00Z")
        #expect(result.warnings.map(\.code) == ["conflicting-transaction"])
        // `"quantity": 1` is left out of the normalized JSON; the copy without it sorts... by bytes, whichever that is,
        // the same in either order (checked by `evaluate`), and one of the two.
        #expect([10, 30].contains(result.balance(of: "stencils") ?? -1))
        // A later snapshot alone decides, with no warning.
        let later = signed(three, "2026-01-12T00:00:00Z")
        let resolved = diagrams([one, three, later], at: "2026-01-12T00:00:00Z")
        #expect(resolved.balance(of: "stencils") == 30 && resolved.warnings.isEmpty)
    }
}

@Suite("Revocations in detail")
struct RevocationTests {
    static func pack(percentage: Double?, type: Transaction.RevocationType? = .refundProrated) -> [Transaction] {
        let bought = signed(T.transaction(Diagrams.stencils, "3", "2026-01-10T00:00:00Z", quantity: 3), "2026-01-10T00:00:00Z")
        var refund = signed(bought, "2026-02-01T00:00:00Z")
        refund.cancellationDate = T.instant("2026-02-01T00:00:00Z")
        refund.revocationType = type
        refund.revocationPercentage = percentage
        return [bought, refund]
    }

    @Test(
        "a consumable refunded in part keeps the credits of the units not refunded, from the cancellation on",
        arguments: [(33.333, 20), (50, 10), (16.666, 30), (16.667, 20), (0, 30), (100, 0)] as [(Double, Int64)])
    func partial(percentage: Double, balance: Int64) {
        let transactions = Self.pack(percentage: percentage)
        #expect(diagrams(transactions, at: "2026-01-31T23:59:59.999Z").balance(of: "stencils") == 30)
        #expect(diagrams(transactions, at: "2026-02-01T00:00:00Z").balance(of: "stencils") == balance)
    }

    @Test("without a percentage every unit is refunded")
    func whole() {
        #expect(diagrams(Self.pack(percentage: nil, type: .refundFull), at: "2026-02-01T00:00:00Z").balance(of: "stencils") == 0)
        #expect(diagrams(Self.pack(percentage: nil, type: nil), at: "2026-02-01T00:00:00Z").balance(of: "stencils") == 0)
    }

    @Test("explain names the kind: refunded in part with its units, family sharing revoked")
    func explained() throws {
        let receipt = Receipt(app: Diagrams.app, transactions: Self.pack(percentage: 33.333))
        let explanation = T.diagrams.explain([receipt], at: T.instant("2026-02-02T00:00:00Z"))
        let stencils = try #require(explanation.balance("stencils"))
        #expect(stencils.balance == 20 && stencils.sources.map(\.productId) == [Diagrams.stencils])
        let text = try #require(explanation.text(balance: "stencils"))
        #expect(text.contains("refunded in part (33.333%: 1 of 3 units): 2 units still credit"), "\(text)")
        #expect(explanation.text.contains("\nbalances\n  stencils  20  1 purchase of \(Diagrams.stencils)\n"))

        let shared = signed(T.transaction("album", "4", "2026-01-10T00:00:00Z", familyShared: true), "2026-01-10T00:00:00Z")
        var revoked = signed(shared, "2026-03-01T00:00:00Z")
        revoked.cancellationDate = T.instant("2026-03-01T00:00:00Z")
        revoked.revocationType = .familyRevoke
        let family = [Receipt(app: Moves.app, transactions: [shared, revoked])]
        #expect(evaluate(Moves.catalog, family, at: "2026-02-28T23:59:59.999Z").isEnabled("family"))
        #expect(!evaluate(Moves.catalog, family, at: "2026-03-01T00:00:00Z").isEnabled("family"))
        let album = try #require(Moves.catalog.explain(family, at: T.instant("2026-03-02T00:00:00Z")).text(product: "album"))
        #expect(album.contains("family sharing revoked"), "\(album)")
    }
}

@Suite("Renewal entries and billing issues")
struct RenewalFieldTests {
    static let chain = [T.transaction(Diagrams.sync, "20", "2026-01-10T00:00:00Z", expires: "2026-02-10T00:00:00Z", original: "20")]

    @Test("each field comes from the latest entry stating it, from its signedDate on")
    func fieldWise() throws {
        let early = Renewal(
            productId: Diagrams.sync, originalTransactionId: "20", willRenew: true, isInBillingRetry: false,
            signedDate: T.instant("2026-01-20T00:00:00Z"))
        let late = Renewal(
            productId: Diagrams.sync, originalTransactionId: "20", willRenew: false,
            signedDate: T.instant("2026-02-01T00:00:00Z"))
        let renewals = [early, late]
        let before = diagrams(Self.chain, renewals: renewals, at: "2026-01-31T23:59:59.999Z")
        #expect(before.product(Diagrams.sync)?.willRenew == true)
        #expect(before.reevaluateAt == T.instant("2026-02-01T00:00:00Z"))
        #expect(diagrams(Self.chain, renewals: renewals, at: "2026-02-01T00:00:00Z").product(Diagrams.sync)?.willRenew == false)
    }

    @Test("entries signed at one instant that disagree: byte order decides, with a conflicting-renewal warning")
    func conflicting() {
        let yes = Renewal(productId: Diagrams.sync, originalTransactionId: "20", willRenew: true, signedDate: T.instant("2026-01-20T00:00:00Z"))
        var no = yes
        no.willRenew = false
        let result = diagrams(Self.chain, renewals: [yes, no], at: "2026-01-25T00:00:00Z")
        #expect(result.warnings.map(\.code) == ["conflicting-renewal"])
    }

    @Test("billing retry is still subscribed: the group is not offered (billing-issue) and its intro offer is used up")
    func billingIssue() throws {
        let retry = Renewal(productId: Diagrams.sync, originalTransactionId: "20", willRenew: true, isInBillingRetry: true)
        let covered = diagrams(Self.chain, renewals: [retry], at: "2026-02-09T23:59:59.999Z")
        #expect(covered.offer(for: Diagrams.sync)?.reason == .subscribed)
        #expect(covered.reevaluateAt == T.instant("2026-02-10T00:00:00Z"))
        let retrying = diagrams(Self.chain, renewals: [retry], at: "2026-02-10T00:00:00Z")
        #expect(retrying.product(Diagrams.sync)?.state == .billingRetry)
        let offer = try #require(retrying.offer(for: Diagrams.sync))
        #expect(offer.reason == .billingIssue && offer.introOfferEligible == false)
        #expect(!retrying.isEnabled("cloud.sync"))
        // Once the entry says billing is no longer retried, the product expired and is offered again.
        let stopped = Renewal(
            productId: Diagrams.sync, originalTransactionId: "20", isInBillingRetry: false,
            signedDate: T.instant("2026-02-20T00:00:00Z"))
        let lapsed = diagrams(Self.chain, renewals: [retry, stopped], at: "2026-02-20T00:00:00Z")
        #expect(lapsed.product(Diagrams.sync)?.state == .expired && lapsed.offer(for: Diagrams.sync)?.eligible == true)
    }
}

@Suite("Accounts")
struct AccountTests {
    static let mine = "5F1C3A9E-2B7D-4C21-9A0E-6D3F8B2C1E47"
    static let theirs = "11111111-2222-3333-4444-555555555555"

    @Test("another account's transactions count for nothing, with one warning per account; tokens compare without case")
    func accounts() throws {
        var own = T.transaction(Diagrams.pro, "1", "2026-01-10T00:00:00Z")
        own.appAccountToken = Self.mine
        var other = T.transaction(Diagrams.stencils, "2", "2026-01-10T00:00:00Z", quantity: 2)
        other.appAccountToken = Self.theirs
        var otherTrial = T.transaction(Diagrams.trial, "3", "2026-01-11T00:00:00Z")
        otherTrial.appAccountToken = Self.theirs
        let untagged = T.transaction(Diagrams.dayPass, "4", "2026-01-12T00:00:00Z")
        let all = [own, other, otherTrial, untagged]
        let anyone = diagrams(all, at: "2026-01-12T00:00:00Z")
        #expect(anyone.balance(of: "stencils") == 20 && anyone.warnings.isEmpty && anyone.product(Diagrams.trial)?.state == .active)
        let me = diagrams(all, at: "2026-01-12T00:00:00Z", accounts: [Self.mine.lowercased()])
        #expect(me.isEnabled("pro") && me.balance(of: "stencils") == 0)
        #expect(me.product(Diagrams.dayPass)?.state == .active)  // no token: counts for every account
        #expect(me.product(Diagrams.trial)?.state == .notPurchased)
        #expect(me.warnings.map(\.code) == ["other-account"])
        // The warning starts with the other account's first purchase.
        let earlier = diagrams([own, otherTrial], at: "2026-01-10T23:59:59.999Z", accounts: [Self.mine])
        #expect(earlier.warnings.isEmpty && earlier.reevaluateAt == T.instant("2026-01-11T00:00:00Z"))
        let them = diagrams(all, at: "2026-01-12T00:00:00Z", accounts: [Self.theirs])
        #expect(them.isEnabled("export.pdf") && them.product(Diagrams.trial)?.state == .active)
        #expect(them.product(Diagrams.pro)?.state == .notPurchased && them.balance(of: "stencils") == 20)
    }
}

@Suite("Win-back and promotional offers")
struct PromotionTests {
    /// Paid from 2026-01-01 to 2026-04-01: 90 days, exactly `paidAtLeast` P3M.
    static let paid = [
        T.transaction(Diagrams.sync, "31", "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z", original: "31"),
        T.transaction(Diagrams.sync, "32", "2026-02-01T00:00:00Z", expires: "2026-03-01T00:00:00Z", original: "31"),
        T.transaction(Diagrams.sync, "33", "2026-03-01T00:00:00Z", expires: "2026-04-01T00:00:00Z", original: "31"),
    ]

    static func promotion(_ result: Entitlements, _ id: String) -> Promotion? {
        result.offer(for: Diagrams.sync)?.promotions?.first { $0.id == id }
    }

    @Test("win-back: lapsed at least a month after three paid months, at most a year, then not again for six months")
    func winBack() throws {
        #expect(Self.promotion(diagrams(Self.paid, at: "2026-03-31T23:59:59.999Z"), "sync.winback")?.reason == .subscribed)
        let recent = diagrams(Self.paid, at: "2026-04-15T00:00:00Z")
        #expect(Self.promotion(recent, "sync.winback")?.reason == .lapsedTooRecently)
        #expect(recent.reevaluateAt == T.instant("2026-05-01T00:00:00Z"))
        #expect(Self.promotion(diagrams(Self.paid, at: "2026-04-30T23:59:59.999Z"), "sync.winback")?.reason == .lapsedTooRecently)
        let eligible = diagrams(Self.paid, at: "2026-05-01T00:00:00Z")
        #expect(Self.promotion(eligible, "sync.winback") == Promotion(id: "sync.winback", type: .winBack, eligible: true, reason: .eligible))
        // 365 days after the lapse is still within a year; a millisecond more is not.
        #expect(diagrams(Self.paid, at: "2026-05-01T00:00:00Z").reevaluateAt == T.instant("2027-04-01T00:00:00.001Z"))
        #expect(Self.promotion(diagrams(Self.paid, at: "2027-04-01T00:00:00Z"), "sync.winback")?.eligible == true)
        #expect(Self.promotion(diagrams(Self.paid, at: "2027-04-01T00:00:00.001Z"), "sync.winback")?.reason == .lapsedTooLong)
        // Two paid months are too little.
        let short = Array(Self.paid.prefix(2))
        #expect(Self.promotion(diagrams(short, at: "2026-05-01T00:00:00Z"), "sync.winback")?.reason == .paidTooLittle)
        // Redeemed on 2026-06-01: not again before 180 days have passed.
        var redeemed = T.transaction(Diagrams.sync, "34", "2026-06-01T00:00:00Z", expires: "2026-07-01T00:00:00Z", original: "31")
        redeemed.offerType = .winBack
        redeemed.offerId = "sync.winback"
        let again = Self.paid + [redeemed]
        #expect(Self.promotion(diagrams(again, at: "2026-11-27T23:59:59.999Z"), "sync.winback")?.reason == .redeemedRecently)
        #expect(Self.promotion(diagrams(again, at: "2026-11-28T00:00:00Z"), "sync.winback")?.eligible == true)
    }

    @Test("Apple's list decides win-back eligibility from the entry's signedDate on, warning where the catalog disagrees")
    func applesList() throws {
        let none = Renewal(
            productId: Diagrams.sync, originalTransactionId: "31", willRenew: false,
            signedDate: T.instant("2026-05-02T00:00:00Z"), winBackOffers: [])
        let before = diagrams(Self.paid, renewals: [none], at: "2026-05-01T23:59:59.999Z")
        #expect(Self.promotion(before, "sync.winback")?.eligible == true && before.warnings.isEmpty)
        let after = diagrams(Self.paid, renewals: [none], at: "2026-05-02T00:00:00Z")
        #expect(Self.promotion(after, "sync.winback")?.reason == .notListedByApple)
        #expect(after.warnings.map(\.code) == ["win-back-criteria-disagree"])
        var listed = none
        listed.winBackOffers = ["sync.winback"]
        let early = diagrams(Self.paid, renewals: [listed], at: "2026-05-02T00:00:00Z")
        #expect(Self.promotion(early, "sync.winback")?.reason == .listedByApple && early.warnings.isEmpty)
        let tooEarly = diagrams(Self.paid, renewals: [signedRenewal(listed, "2026-04-10T00:00:00Z")], at: "2026-04-10T00:00:00Z")
        #expect(Self.promotion(tooEarly, "sync.winback")?.reason == .listedByApple)
        #expect(tooEarly.warnings.map(\.code) == ["win-back-criteria-disagree"])
    }

    private func signedRenewal(_ renewal: Renewal, _ date: String) -> Renewal {
        var copy = renewal
        copy.signedDate = T.instant(date)
        return copy
    }

    @Test("promotional for subscribers of 60 paid days: from the instant paid time reaches it, while subscribed")
    func loyal() throws {
        let long = [T.transaction(Diagrams.sync, "41", "2026-01-01T00:00:00Z", expires: "2026-04-01T00:00:00Z", original: "41")]
        let waiting = diagrams(long, at: "2026-02-15T00:00:00Z")
        #expect(Self.promotion(waiting, "sync.loyal")?.reason == .paidTooLittle)
        #expect(waiting.reevaluateAt == T.instant("2026-03-02T00:00:00Z"))
        #expect(Self.promotion(diagrams(long, at: "2026-03-01T23:59:59.999Z"), "sync.loyal")?.reason == .paidTooLittle)
        #expect(Self.promotion(diagrams(long, at: "2026-03-02T00:00:00Z"), "sync.loyal")?.eligible == true)
        #expect(Self.promotion(diagrams(long, at: "2026-04-01T00:00:00Z"), "sync.loyal")?.reason == .notSubscribed)
        // A free trial is not paid time.
        var trial = long[0]
        trial.isTrialPeriod = true
        #expect(Self.promotion(diagrams([trial], at: "2026-03-15T00:00:00Z"), "sync.loyal")?.reason == .neverPaid)
        // explain gives the figures.
        let receipt = Receipt(app: Diagrams.app, transactions: long)
        let text = try #require(T.diagrams.explain([receipt], at: T.instant("2026-02-15T00:00:00Z")).text(offer: Diagrams.sync))
        #expect(text.contains("paid 45 days in `sync`, needs 60"), "\(text)")
    }
}

@Suite("Commitments, upgrade dates, adds and extends")
struct SmallerRuleTests {
    @Test("a subscription shows the commitment of its latest counted transaction")
    func commitment() throws {
        let ends = T.instant("2027-01-01T00:00:00Z")
        var first = T.transaction(Diagrams.sync, "51", "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z", original: "51")
        first.billingPlan = .monthly
        first.commitment = Transaction.Commitment(period: 1, periods: 12, endsAt: ends)
        var second = T.transaction(Diagrams.sync, "52", "2026-02-01T00:00:00Z", expires: "2026-03-01T00:00:00Z", original: "51")
        second.billingPlan = .monthly
        second.commitment = Transaction.Commitment(period: 2, periods: 12, endsAt: ends)
        let january = diagrams([first, second], at: "2026-01-31T23:59:59.999Z")
        #expect(january.product(Diagrams.sync)?.commitment == Transaction.Commitment(period: 1, periods: 12, endsAt: ends))
        #expect(january.reevaluateAt == T.instant("2026-02-01T00:00:00Z"))
        #expect(diagrams([first, second], at: "2026-02-01T00:00:00Z").product(Diagrams.sync)?.commitment?.period == 2)
        // Access still follows each transaction's expiry.
        #expect(!diagrams([first, second], at: "2026-03-01T00:00:00Z").isEnabled("cloud.sync"))
    }

    @Test("a requires without anyOf is met from the required app's original purchase on")
    func requiresFromOriginalPurchase() {
        var classic = Receipt(app: Moves.oldApp)
        classic.originalPurchaseDate = T.instant("2022-01-01T00:00:00Z")
        let receipts = [Receipt(app: Moves.app), classic]
        let catalogs = [Moves.oldApp: Moves.portfolio.catalog(for: Moves.oldApp)!]
        let before = evaluate(Moves.catalog, receipts, at: "2021-12-31T23:59:59.999Z", catalogs: catalogs)
        #expect(before.offer(for: "pro.upgrade")?.reason == .prerequisiteMissing)
        #expect(before.reevaluateAt == T.instant("2022-01-01T00:00:00Z"))
        let after = evaluate(Moves.catalog, receipts, at: "2022-01-01T00:00:00Z", catalogs: catalogs)
        #expect(after.offer(for: "pro.upgrade")?.eligible == true)
        #expect(after.offer(for: "pro.lifetime")?.reason == .upgradeAvailable)
    }

    @Test("a subscriber with 30 days of Pro left sees a 14-day trial add and extend nothing; with 14 days and a millisecond less, extend Pro")
    func addsAndExtends() throws {
        let subscription = [T.transaction("pro.monthly", "61", "2026-01-01T00:00:00Z", expires: "2026-01-31T00:00:00Z", original: "61")]
        let receipts = [Receipt(app: Moves.app, transactions: subscription)]
        let thirty = evaluate(Moves.catalog, receipts, at: "2026-01-01T00:00:00Z")
        let trial = try #require(thirty.offer(for: "pro.trial"))
        #expect(trial.adds == [] && trial.extends == [])
        #expect(thirty.offer(for: "pro.lifetime")?.extends == ["pro"])
        // The trial bought at `at` covers to at + 14 days: it extends Pro only once that is later than the 31st.
        #expect(evaluate(Moves.catalog, receipts, at: "2026-01-17T00:00:00Z").offer(for: "pro.trial")?.extends == [String]())
        #expect(evaluate(Moves.catalog, receipts, at: "2026-01-17T00:00:00.001Z").offer(for: "pro.trial")?.extends == ["pro"])
        let lapsed = evaluate(Moves.catalog, receipts, at: "2026-01-31T00:00:00Z")
        #expect(lapsed.offer(for: "pro.trial")?.adds == ["pro"] && lapsed.offer(for: "pro.trial")?.extends == [String]())
    }
}
