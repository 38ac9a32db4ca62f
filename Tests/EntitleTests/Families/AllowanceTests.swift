import Foundation
import Testing

@testable import Entitle

/// Allowances, free allowances and unlimited currencies: what the catalog may say, and the ledger
/// at the boundary instants (a deposit, its end, a renewal, a refund, the calendar boundary).
@Suite("Allowances and the ledger")
struct AllowanceTests {
    static let app = "com.example.ai"

    /// Monthly Pro (500 `ai` per transaction, rollover `rollover`, unlimited drafts), yearly Pro
    /// (500 `ai` every month), a lifetime (`lifetimeEvery` of 10 `ai`, never expiring), a pack of 100
    /// `ai`, and 3 free drafts a day.
    static func catalog(rollover: Int = 200, extraAllowance: String = "", lifetimeEvery: String = "PT1H") -> String {
        """
        {
          "app": "\(app)",
          "features": { "pro": "Pro" },
          "currencies": { "ai": "AI credits", "drafts": "Drafts" },
          "allowances": [{ "currency": "drafts", "amount": 3, "every": "P1D" }],
          "legal": { "auto-renewable-subscription": "Renews." },
          "products": [
            { "id": "pro.monthly", "type": "auto-renewable-subscription", "name": "Pro Monthly", "group": "pro", "duration": "P1M",
              "grants": ["pro"], "allowances": [{ "currency": "ai", "amount": 500, "rollover": \(rollover) }\(extraAllowance)],
              "unlimited": ["drafts"] },
            { "id": "pro.yearly", "type": "auto-renewable-subscription", "name": "Pro Yearly", "group": "pro", "duration": "P1Y",
              "grants": ["pro"], "allowances": [{ "currency": "ai", "amount": 500, "every": "P1M" }] },
            { "id": "lifetime", "type": "non-consumable", "name": "Lifetime", "grants": ["pro"],
              "allowances": [{ "currency": "ai", "amount": 10, "every": "\(lifetimeEvery)", "expires": "never" }] },
            { "id": "pack", "type": "consumable", "name": "100 credits", "credits": { "ai": 100 } }
          ]
        }
        """
    }

    static func use(_ id: String, _ currency: String, _ amount: Int64, _ date: String) -> Consumption {
        Consumption(id: id, currency: currency, amount: amount, date: Fixtures.instant(date))
    }

    static func evaluate(
        _ catalog: CompiledCatalog, _ transactions: [Transaction], _ consumptions: [Consumption] = [], at: String
    ) -> Entitlements {
        catalog.evaluate([Receipt(app: app, transactions: transactions, consumptions: consumptions)], at: Fixtures.instant(at))
    }

    static func monthly(_ id: String, _ purchase: String, _ expires: String, cancelled: String? = nil, intro: Bool = false) -> Transaction {
        Fixtures.transaction("pro.monthly", id, purchase, expires: expires, cancelled: cancelled, original: "m", intro: intro)
    }

    // MARK: Checking

    @Test("allowance keys out of range or in the wrong place are located errors; nothing compiles")
    func badAllowances() throws {
        func errors(_ json: String) -> [Diagnostic] { Fixtures.compile(json).diagnostics.filter { $0.severity == .error } }
        #expect(errors(Self.catalog()).isEmpty)
        let undeclared = errors(
            Self.catalog().replacingOccurrences(
                of: #""currency": "ai", "amount": 500, "rollover""#, with: #""currency": "aj", "amount": 500, "rollover""#))
        #expect(undeclared.first?.code == .undeclaredCurrency)
        #expect(undeclared.first?.path == "products[0].allowances[0].currency")
        #expect(undeclared.first?.help == "did you mean `ai`?")
        let rollover = errors(Self.catalog(rollover: 50_001))
        #expect(rollover.map(\.code) == [.allowanceRule])
        #expect(rollover.first?.path == "products[0].allowances[0].rollover")
        let hourly = errors(Self.catalog(lifetimeEvery: "PT30M"))
        #expect(hourly.map(\.code) == [.allowanceRule])
        let noEvery = errors(Self.catalog().replacingOccurrences(of: #""every": "PT1H", "expires": "never""#, with: #""expires": "never""#))
        #expect(noEvery.map(\.message) == ["an allowance of a lifetime product needs `every`"])
        let rolloverNever = errors(Self.catalog(extraAllowance: #", { "currency": "drafts", "amount": 1, "expires": "never", "rollover": 1 }"#))
        #expect(rolloverNever.map(\.path) == ["products[0].allowances[1].rollover"])
        let intro = errors(Self.catalog(extraAllowance: #", { "currency": "drafts", "amount": 1, "introOffer": 0 }"#))
        #expect(intro.map(\.path) == ["products[0].allowances[1].introOffer"])
        let never = errors(
            Self.catalog().replacingOccurrences(of: #""amount": 3, "every": "P1D" }"#, with: #""amount": 3, "every": "P1D", "expires": "never" }"#))
        #expect(never.map(\.code) == [.badEnumValue])
        let weekly = errors(Self.catalog().replacingOccurrences(of: #""amount": 3, "every": "P1D" }"#, with: #""amount": 3, "every": "P2D" }"#))
        #expect(weekly.map(\.path) == ["allowances[0].every"])
        let pack = errors(Self.catalog().replacingOccurrences(of: #""credits": { "ai": 100 }"#, with: #""credits": { "ai": 100 }, "allowances": []"#))
        #expect(pack.first?.code == .keyNotAllowed)
        #expect(pack.first?.help?.contains("App Review Guideline 3.1.1") == true)
        let expires = errors(
            Self.catalog().replacingOccurrences(of: #""credits": { "ai": 100 }"#, with: #""credits": { "ai": 100 }, "expires": "P30D""#))
        #expect(expires.first?.help?.contains("App Review Guideline 3.1.1") == true)
        let warned = Fixtures.compile(Self.catalog(extraAllowance: #", { "currency": "drafts", "amount": 1 }"#)).diagnostics
        #expect(warned.contains { $0.code == .unlimitedAllowance && $0.severity == .warning && $0.path == "products[0].unlimited[0]" })
    }

    // MARK: The ledger

    @Test("a monthly allowance: deposited at the purchase, spent before packs, rolled over at the renewal up to the rollover")
    func monthlyRollover() {
        let catalog = Fixtures.catalog(Self.catalog())
        let transactions = [
            Self.monthly("1", "2026-01-10T00:00:00Z", "2026-02-10T00:00:00Z"),
            Self.monthly("2", "2026-02-10T00:00:00Z", "2026-03-10T00:00:00Z"),
            Fixtures.transaction("pack", "3", "2026-01-15T00:00:00Z"),
        ]
        let uses = [Self.use("c1", "ai", 100, "2026-01-20T00:00:00Z")]
        func ai(_ at: String) -> CurrencyBalance { Self.evaluate(catalog, transactions, uses, at: at).balances.first { $0.currency == "ai" }! }
        #expect(ai("2026-01-09T23:59:59.999Z").balance == 0)
        #expect(ai("2026-01-10T00:00:00Z").balance == 500)
        let january = ai("2026-01-25T00:00:00Z")
        #expect(january.balance == 500)
        #expect(january.deposits?.map(\.remaining) == [400, 100])
        #expect(january.deposits?.map(\.source) == ["pro.monthly", "pack"])
        #expect(january.deposits?.first?.endsAt == Fixtures.instant("2026-02-10T00:00:00Z"))
        // At the renewal 200 of the 400 left carry into the new deposit.
        let february = ai("2026-02-10T00:00:00Z")
        #expect(february.balance == 800)
        #expect(february.deposits?.first?.carried == 200)
        #expect(february.deposits?.first?.remaining == 700)
        // The last deposit ends with the access: only the pack is left.
        #expect(ai("2026-03-09T23:59:59.999Z").balance == 800)
        #expect(ai("2026-03-10T00:00:00Z").balance == 100)
        #expect(ai("2026-03-10T00:00:00Z").nextDepositAt == nil)
    }

    @Test("a yearly plan deposits every month, each deposit ending at the next; a refund ends them all")
    func yearlyDrip() {
        let catalog = Fixtures.catalog(Self.catalog())
        let yearly = Fixtures.transaction("pro.yearly", "y", "2026-01-31T00:00:00Z", expires: "2027-01-31T00:00:00Z")
        func ai(_ at: String, _ transaction: Transaction = yearly, _ uses: [Consumption] = []) -> CurrencyBalance {
            Self.evaluate(catalog, [transaction], uses, at: at).balances.first { $0.currency == "ai" }!
        }
        // 31 January + P1M is 28 February; + 2 x P1M is 31 March.
        #expect(ai("2026-02-27T00:00:00Z").nextDepositAt == Fixtures.instant("2026-02-28T00:00:00Z"))
        #expect(ai("2026-03-01T00:00:00Z").nextDepositAt == Fixtures.instant("2026-03-31T00:00:00Z"))
        let used = [Self.use("u", "ai", 300, "2026-02-01T00:00:00Z")]
        #expect(ai("2026-02-27T23:59:59.999Z", yearly, used).balance == 200)
        #expect(ai("2026-02-28T00:00:00Z", yearly, used).balance == 500)
        // The free daily drafts change every answer at the next midnight; the monthly deposit after.
        let entitlements = Self.evaluate(catalog, [yearly], used, at: "2026-02-10T00:00:00Z")
        #expect(entitlements.reevaluateAt == Fixtures.instant("2026-02-11T00:00:00Z"))
        let withoutFree = Fixtures.catalog(
            Self.catalog().replacingOccurrences(of: #""allowances": [{ "currency": "drafts", "amount": 3, "every": "P1D" }],"#, with: ""))
        #expect(Self.evaluate(withoutFree, [yearly], used, at: "2026-02-10T00:00:00Z").reevaluateAt == Fixtures.instant("2026-02-28T00:00:00Z"))
        let refunded = Fixtures.transaction(
            "pro.yearly", "y", "2026-01-31T00:00:00Z", expires: "2027-01-31T00:00:00Z", cancelled: "2026-03-15T00:00:00Z")
        #expect(ai("2026-03-14T00:00:00Z", refunded).balance == 500)
        #expect(ai("2026-03-15T00:00:00Z", refunded).balance == 0)
        #expect(ai("2026-03-15T00:00:00Z", refunded).nextDepositAt == nil)
    }

    @Test("a consumption larger than what is there leaves a debt that the next credits pay")
    func debt() {
        let catalog = Fixtures.catalog(Self.catalog(rollover: 0))
        let transactions = [
            Self.monthly("1", "2026-01-10T00:00:00Z", "2026-02-10T00:00:00Z"),
            Self.monthly("2", "2026-02-10T00:00:00Z", "2026-03-10T00:00:00Z"),
        ]
        let uses = [Self.use("big", "ai", 700, "2026-01-20T00:00:00Z")]
        let january = Self.evaluate(catalog, transactions, uses, at: "2026-01-25T00:00:00Z")
        #expect(january.balance(of: "ai") == -200)
        #expect(january.warnings.contains { $0.code == "negative-balance" })
        // The renewal's 500 pays the 200 owed.
        let february = Self.evaluate(catalog, transactions, uses, at: "2026-02-10T00:00:00Z")
        #expect(february.balance(of: "ai") == 300)
        #expect(february.balances.first { $0.currency == "ai" }?.deposits?.first?.remaining == 300)
    }

    @Test("unlimited while the product covers: consumptions then charge nothing; free drafts come each UTC midnight")
    func unlimitedAndFree() {
        let catalog = Fixtures.catalog(Self.catalog())
        let transactions = [Self.monthly("1", "2026-01-10T00:00:00Z", "2026-02-10T00:00:00Z")]
        let uses = [
            Self.use("d1", "drafts", 5, "2026-01-20T10:00:00Z"), Self.use("d2", "drafts", 2, "2026-02-20T10:00:00Z"),
            Self.use("d3", "drafts", 1, "2026-02-09T23:59:59.999Z"),
        ]
        func drafts(_ at: String) -> CurrencyBalance {
            Self.evaluate(catalog, transactions, uses, at: at).balances.first { $0.currency == "drafts" }!
        }
        let covered = drafts("2026-01-20T12:00:00Z")
        #expect(covered.balance == 3)
        #expect(covered.unlimited)
        #expect(covered.deposits?.map(\.source) == ["free"])
        #expect(covered.nextDepositAt == Fixtures.instant("2026-01-21T00:00:00Z"))
        #expect(!drafts("2026-02-10T00:00:00Z").unlimited)
        #expect(drafts("2026-02-20T09:59:59.999Z").balance == 3)
        #expect(drafts("2026-02-20T10:00:00Z").balance == 1)
        #expect(drafts("2026-02-20T23:59:59.999Z").balance == 1)
        #expect(drafts("2026-02-21T00:00:00Z").balance == 3)
        let entitlements = Self.evaluate(catalog, transactions, uses, at: "2026-02-20T12:00:00Z")
        #expect(entitlements.reevaluateAt == Fixtures.instant("2026-02-21T00:00:00Z"))
    }

    @Test("an intro offer's transaction deposits its `introOffer` amount; 0 deposits nothing")
    func introAmount() {
        let json = Self.catalog().replacingOccurrences(
            of: #""allowances": [{ "currency": "ai", "amount": 500, "rollover": 200 }]"#,
            with: #""introOffer": { "mode": "free-trial", "duration": "P1W" }, "allowances": [{ "currency": "ai", "amount": 500, "introOffer": 50 }]"#
        )
        let catalog = Fixtures.catalog(json)
        let trial = Self.monthly("1", "2026-01-01T00:00:00Z", "2026-01-08T00:00:00Z", intro: true)
        let paid = Self.monthly("2", "2026-01-08T00:00:00Z", "2026-02-08T00:00:00Z")
        #expect(Self.evaluate(catalog, [trial, paid], at: "2026-01-07T00:00:00Z").balance(of: "ai") == 50)
        #expect(Self.evaluate(catalog, [trial, paid], at: "2026-01-08T00:00:00Z").balance(of: "ai") == 500)
    }

    @Test("a lifetime's hourly deposits that never expire: ten years on they are one run, charged in order")
    func lifetimeRun() {
        let catalog = Fixtures.catalog(Self.catalog())
        let lifetime = Fixtures.transaction("lifetime", "l", "2016-01-01T00:00:00Z")
        let uses = [Self.use("a", "ai", 25, "2016-01-01T02:30:00Z")]
        let early = Self.evaluate(catalog, [lifetime], uses, at: "2016-01-01T02:30:00Z").balances.first { $0.currency == "ai" }!
        #expect(early.balance == 5)
        let later = Self.evaluate(catalog, [lifetime], uses, at: "2026-01-01T00:00:00Z").balances.first { $0.currency == "ai" }!
        // 87,649 deposits of 10 in ten years (2016, 2020 and 2024 are leap years), less 25.
        let hours: Int64 = (365 * 10 + 3) * 24 + 1
        #expect(later.balance == hours * 10 - 25)
        // The first two deposits went to the consumption, 5 of the third is left; every later one
        // joined the run, whole.
        #expect(later.deposits?.count == 1)
        #expect(later.deposits?.first?.count == hours - 2)
        #expect(later.deposits?.first?.remaining == (hours - 3) * 10 + 5)
        #expect(later.deposits?.first?.at == Fixtures.instant("2016-01-01T02:00:00Z"))
    }

    @Test("catalogs without the new keys answer as before: balances stay numbers in JSON")
    func unchangedShape() throws {
        let catalog = Fixtures.catalog(LimitTestsCatalog.plain)
        let result = catalog.evaluate([Receipt(app: "com.example.plain")], at: Fixtures.instant("2026-01-01T00:00:00Z"))
        #expect(result.balances.allSatisfy { $0.deposits == nil })
        #expect(result.json.contains(#""gems": 0"#) || result.json.contains(#""gems":0"#))
    }

    @Test("the ledger's answer does not depend on the order of receipts or of their entries")
    func orderDoesNotMatter() {
        let catalog = Fixtures.catalog(Self.catalog())
        let transactions = [
            Self.monthly("1", "2026-01-10T00:00:00Z", "2026-02-10T00:00:00Z"),
            Self.monthly("2", "2026-02-10T00:00:00Z", "2026-03-10T00:00:00Z"),
            Fixtures.transaction("pack", "3", "2026-01-15T00:00:00Z"),
            Fixtures.transaction("pack", "4", "2026-02-15T00:00:00Z"),
        ]
        var uses: [Consumption] = []
        for index in 0..<12 {
            let currency = index % 3 == 0 ? "drafts" : "ai"
            let amount = Int64(37 * (index + 1))
            uses.append(Self.use("u\(index)", currency, amount, "2026-0\(1 + index % 3)-\(10 + index)T08:00:00Z"))
        }
        let expected = Self.evaluate(catalog, transactions, uses, at: "2026-03-25T00:00:00Z")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10 {
            let split = Int.random(in: 0...transactions.count, using: &generator)
            let shuffled = transactions.shuffled(using: &generator)
            let receipts: [Receipt] = [
                Receipt(app: Self.app, transactions: Array(shuffled[..<split]), consumptions: uses.shuffled(using: &generator)),
                Receipt(app: Self.app, transactions: Array(shuffled[split...])),
            ].shuffled(using: &generator)
            let result = catalog.evaluate(receipts, at: Fixtures.instant("2026-03-25T00:00:00Z"))
            #expect(result.balances == expected.balances)
            #expect(result.reevaluateAt == expected.reevaluateAt)
        }
    }

    @Test("the ledger agrees with a deposit-by-deposit model on random consumptions")
    func agreesWithModel() {
        var generator = SplitMix(seed: 45)
        for rollover in [0, 200, 1_500] {
            let catalog = Fixtures.catalog(Self.catalog(rollover: rollover))
            for _ in 0..<40 {
                let months = Int.random(in: 1...4, using: &generator)
                var transactions: [Transaction] = []
                for month in 0..<months {
                    transactions.append(
                        Self.monthly("\(month)", "2026-0\(month + 1)-05T00:00:00Z", "2026-0\(month + 2)-05T00:00:00Z"))
                }
                let packs = Int.random(in: 0...2, using: &generator)
                for pack in 0..<packs { transactions.append(Fixtures.transaction("pack", "p\(pack)", "2026-0\(pack + 1)-2\(pack)T00:00:00Z")) }
                let uses = (0..<Int.random(in: 0...8, using: &generator)).map { index in
                    Self.use(
                        "c\(index)", "ai", Int64.random(in: 1...900, using: &generator),
                        "2026-0\(Int.random(in: 1...5, using: &generator))-\(10 + Int.random(in: 0...18, using: &generator))T00:00:00Z")
                }
                let at = "2026-0\(Int.random(in: 1...6, using: &generator))-2\(Int.random(in: 0...8, using: &generator))T00:00:00Z"
                let result = Self.evaluate(catalog, transactions, uses, at: at)
                let model = ModelLedger.balance(
                    months: months, packs: packs, rollover: Int64(rollover), uses: uses, at: Fixtures.instant(at).millisecondsSince1970)
                #expect(result.balance(of: "ai") == model, "rollover \(rollover), \(months) months, \(packs) packs, at \(at), \(uses)")
            }
        }
    }
}

/// A catalog with a currency and nothing new: answers keep today's shape.
enum LimitTestsCatalog {
    static let plain = """
        { "app": "com.example.plain", "features": { "x": "X" }, "currencies": { "gems": "Gems" },
          "products": [{ "id": "gems", "type": "consumable", "name": "Gems", "credits": { "gems": 10 } },
                       { "id": "x", "type": "non-consumable", "name": "X", "grants": ["x"] }] }
        """
}

/// The monthly plan of ``AllowanceTests`` worked out deposit by deposit and consumption by
/// consumption, written apart from the ledger: every deposit is an element, every instant an event.
enum ModelLedger {
    struct Credit {
        var at: Int64
        var end: Int64
        var left: Int64
        var pack: Bool
    }

    static func balance(months: Int, packs: Int, rollover: Int64, uses: [Consumption], at: Int64) -> Int64 {
        func instant(_ text: String) -> Int64 { Fixtures.instant(text).millisecondsSince1970 }
        // Deposits: 500 at each month's purchase, ending at the next (or the last expiry).
        var arrivals: [(at: Int64, end: Int64, amount: Int64, pack: Bool)] = []
        for month in 0..<months {
            arrivals.append((instant("2026-0\(month + 1)-05T00:00:00Z"), instant("2026-0\(month + 2)-05T00:00:00Z"), 500, false))
        }
        for pack in 0..<packs { arrivals.append((instant("2026-0\(pack + 1)-2\(pack)T00:00:00Z"), .max, 100, true)) }
        arrivals = arrivals.filter { $0.at <= at }
        let charges = uses.filter { $0.date.millisecondsSince1970 <= at }.sorted {
            $0.date != $1.date ? $0.date < $1.date : $0.id.utf8.lexicographicallyPrecedes($1.id.utf8)
        }
        var credits: [Credit] = []
        var debt: Int64 = 0
        var events: [(at: Int64, kind: Int, index: Int)] = arrivals.indices.map { (arrivals[$0].at, 0, $0) }
        events += charges.indices.map { (charges[$0].date.millisecondsSince1970, 1, $0) }
        events.sort { $0.at != $1.at ? $0.at < $1.at : $0.kind < $1.kind }
        for event in events {
            if event.kind == 0 {
                let arrival = arrivals[event.index]
                var amount = arrival.amount
                if !arrival.pack {
                    // What the previous deposit has left at this instant carries, up to the rollover.
                    if let index = credits.firstIndex(where: { !$0.pack && $0.end == arrival.at }) {
                        amount += min(rollover, credits[index].left)
                        credits.remove(at: index)
                    }
                }
                let paid = min(debt, amount)
                debt -= paid
                credits.append(Credit(at: arrival.at, end: arrival.end, left: amount - paid, pack: arrival.pack))
            } else {
                let charge = charges[event.index]
                credits.removeAll { $0.end <= event.at }
                credits.sort { a, b in a.pack != b.pack ? !a.pack : (a.end != b.end ? a.end < b.end : a.at < b.at) }
                var left = charge.amount
                for index in credits.indices where left > 0 {
                    let taken = min(left, credits[index].left)
                    credits[index].left -= taken
                    left -= taken
                }
                debt += left
            }
        }
        credits.removeAll { $0.end <= at }
        return credits.map(\.left).reduce(0, +) - debt
    }
}
