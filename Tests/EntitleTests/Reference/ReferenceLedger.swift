import Foundation

@testable import Entitle

/// The ledger written the plain way, apart from the library's: every deposit is made one by one
/// (its instant `every` x k after its window's start, k at a time, with `ISODuration.repeated`),
/// every instant is an event in time order, and what is left is a list searched and sorted at each
/// consumption. It reads the catalog through its public views (``CatalogProduct/allowances``,
/// ``CatalogProduct/unlimited``, ``CompiledCatalog/freeAllowances``).
enum ReferenceLedger {
    /// One counted or revoked transaction's span of deposits; `access` is when its deposits end
    /// at the latest (`nil`: the end of the product's run of coverage holding its start).
    struct Window {
        var transaction: Transaction
        var start: Int64
        var end: Int64
        var access: Int64?
    }

    /// A consumable purchase's credits.
    struct Pack {
        var currency: String
        var amount: Int64
        var at: Int64
        var source: String
        var transaction: String
    }

    /// What the ledger finds of one currency.
    struct Answer {
        var balance: Int64
        var unlimited: Bool
        var nextDeposit: Int64?
        /// What is left, per source, transaction and end: `source|transaction|end|remaining`, sorted.
        var deposits: [String]
        /// Instants after `at` at which it may change.
        var candidates: Set<Int64>
    }

    private struct Credit {
        var at: Int64
        var end: Int64
        var left: Int64
        var source: String
        var transaction: String?
        var chain: String
        var pack: Int?
        var order: Int
    }

    private struct Deposit {
        var at: Int64
        var end: Int64
        var amount: Int64
        var source: String
        var transaction: String?
        var chain: String
        var rollover: Int64
    }

    /// What is left, summed per source, transaction and end (`Int64.max`: none), as strings sorted.
    static func view(_ items: [(source: String, transaction: String?, end: Int64, remaining: Int64)]) -> [String] {
        var sums: [String: Int64] = [:]
        for item in items {
            let end = item.end >= Instant.latest.millisecondsSince1970 ? "none" : "\(item.end)"
            sums["\(item.source)|\(item.transaction ?? "-")|\(end)", default: 0] += item.remaining
        }
        return sums.map { "\($0.key)|\($0.value)" }.sorted()
    }

    /// The start of the UTC calendar period (`P1D`, `P1W` from Monday, `P1M`, `P1Y`) holding `instant`.
    static func periodStart(_ every: ISODuration, _ instant: Int64) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        calendar.firstWeekday = 2
        let date = Date(timeIntervalSince1970: Double(instant) / 1000)
        let unit: Calendar.Component = every.years > 0 ? .year : every.months > 0 ? .month : every.weeks > 0 ? .weekOfYear : .day
        let start = calendar.dateInterval(of: unit, for: date)!.start
        return Int64((start.timeIntervalSince1970 * 1000).rounded())
    }

    static func after(_ duration: ISODuration, times: Int, from start: Int64) -> Int64 {
        guard times > 0 else { return start }
        return duration.repeated(times)!.added(to: Instant(millisecondsSince1970: start)).millisecondsSince1970
    }

    /// The ledger of `currency` at `at`.
    static func answer(
        _ catalog: CompiledCatalog, currency: String, windows: [[Window]], runs: [[CoverageSpan]], packs: [Pack],
        consumptions: [Consumption], at: Int64, rescinded: Int64?, name: (String) -> String
    ) -> Answer {
        var candidates: Set<Int64> = []
        var deposits: [Deposit] = []
        var nextDeposit: Int64?
        func noteNext(_ instant: Int64) {
            if instant > at { nextDeposit = min(nextDeposit ?? .max, instant) }
        }
        for (index, product) in catalog.products.enumerated() {
            for (position, allowance) in (product.allowances ?? []).enumerated() where allowance.currency == currency {
                let chain = "\(product.key)#\(position)"
                // Its windows, those that deposit something, in start order.
                let own = windows[index].sorted { $0.start < $1.start }.compactMap { window -> (Window, Int64)? in
                    let intro = window.transaction.isTrialPeriod || window.transaction.isIntroOfferPeriod
                    let each = intro ? allowance.introOffer ?? allowance.amount : allowance.amount
                    let amount = each * Int64(ReferenceEvaluator.countedQuantity(window.transaction.quantity))
                    return amount > 0 ? (window, amount) : nil
                }
                for (number, (window, amount)) in own.enumerated() {
                    let nextStart = number + 1 < own.count ? own[number + 1].0.start : nil
                    let access =
                        window.access ?? runs[index].first { $0.start <= window.start && window.start < $0.end }.map { max($0.end, window.end) }
                        ?? window.end
                    // Deposit instants: the start, then every `every` before the window's end and
                    // before the next purchase (which starts a new cycle).
                    var instants: [Int64] = []
                    var k = 0
                    while true {
                        let instant = allowance.every.map { after($0, times: k, from: window.start) } ?? window.start
                        let last = min(window.end, Instant.latest.millisecondsSince1970)
                        guard instant < last, k == 0 || nextStart.map({ instant < $0 }) ?? true else { break }
                        guard instant <= at else {
                            noteNext(instant)
                            break
                        }
                        instants.append(instant)
                        if allowance.every == nil { break }
                        k += 1
                    }
                    for (offset, instant) in instants.enumerated() {
                        var end = access
                        switch allowance.expires {
                        case .next:
                            let following = allowance.every.map { after($0, times: offset + 1, from: window.start) }
                            let stillThis =
                                following.map { instant in
                                    instant < min(window.end, Instant.latest.millisecondsSince1970) && (nextStart.map { instant < $0 } ?? true)
                                }
                                ?? false
                            if stillThis { end = min(end, following!) } else if let nextStart { end = min(end, nextStart) }
                        case .never:
                            break
                        case .after(let duration):
                            end = min(end, duration.added(to: Instant(millisecondsSince1970: instant)).millisecondsSince1970)
                        }
                        deposits.append(
                            Deposit(
                                at: instant, end: end, amount: amount, source: product.key, transaction: name(window.transaction.transactionId),
                                chain: chain,
                                rollover: allowance.rollover))
                    }
                }
            }
        }
        // Free allowances, from the period holding the first instant they matter.
        let charges = consumptions.filter { $0.currency == currency && $0.date.millisecondsSince1970 <= at }.sorted {
            $0.date != $1.date ? $0.date < $1.date : $0.id.utf8.lexicographicallyPrecedes($1.id.utf8)
        }
        for (position, allowance) in catalog.freeAllowances.enumerated() where allowance.currency == currency {
            let every = allowance.every!
            var from = min(charges.first?.date.millisecondsSince1970 ?? at, at)
            if case .after(let duration) = allowance.expires {
                // A duration's reach in the other direction: at most 31 days a month.
                from -= ISODuration.longestMilliseconds(of: duration)
            }
            var instant = periodStart(every, from)
            while instant <= at {
                let next = every.added(to: Instant(millisecondsSince1970: instant)).millisecondsSince1970
                var end = next
                if case .after(let duration) = allowance.expires {
                    end = duration.added(to: Instant(millisecondsSince1970: instant)).millisecondsSince1970
                }
                deposits.append(
                    Deposit(at: instant, end: end, amount: allowance.amount, source: "free", transaction: nil, chain: "free#\(position)", rollover: 0)
                )
                instant = next
            }
            noteNext(instant)
        }
        // Unlimited: the runs of coverage of products that make the currency unlimited.
        var unlimitedSpans: [CoverageSpan] = []
        for (index, product) in catalog.products.enumerated() where (product.unlimited ?? []).contains(currency) {
            for run in runs[index] {
                let end = min(run.end, rescinded ?? .max)
                if end > run.start { unlimitedSpans.append(CoverageSpan(start: run.start, end: end)) }
            }
        }
        func unlimited(_ instant: Int64) -> Bool { unlimitedSpans.contains { $0.start <= instant && instant < $0.end } }
        for span in unlimitedSpans { candidates.formUnion([span.start, span.end]) }

        // Events: deposits and purchases before consumptions at one instant.
        enum Event {
            case deposit(Int)
            case pack(Int)
            case consumption(Int)
        }
        let ownPacks = packs.filter { $0.currency == currency && $0.at <= at }.sorted {
            $0.at != $1.at
                ? $0.at < $1.at
                : ($0.source != $1.source ? $0.source.utf8.lexicographicallyPrecedes($1.source.utf8) : $0.transaction < $1.transaction)
        }
        var events: [(at: Int64, rank: Int, event: Event)] = []
        for (index, deposit) in deposits.enumerated() { events.append((deposit.at, 0, .deposit(index))) }
        for (index, pack) in ownPacks.enumerated() { events.append((pack.at, 1, .pack(index))) }
        for (index, charge) in charges.enumerated() { events.append((charge.date.millisecondsSince1970, 2, .consumption(index))) }
        // Stable: deposits at one instant in the order they would be spent.
        events = events.enumerated().sorted { a, b in
            if a.element.at != b.element.at { return a.element.at < b.element.at }
            if a.element.rank != b.element.rank { return a.element.rank < b.element.rank }
            if case .deposit(let x) = a.element.event, case .deposit(let y) = b.element.event {
                let (p, q) = (deposits[x], deposits[y])
                if p.end != q.end { return p.end < q.end }
                if p.source != q.source { return p.source.utf8.lexicographicallyPrecedes(q.source.utf8) }
            }
            return a.offset < b.offset
        }.map(\.element)
        var credits: [Credit] = []
        var debt: Int64 = 0
        var order = 0
        func spendingOrder(_ a: Credit, _ b: Credit) -> Bool {
            if (a.pack == nil) != (b.pack == nil) { return a.pack == nil }
            if let x = a.pack, let y = b.pack { return x < y }
            if a.end != b.end { return a.end < b.end }
            if a.at != b.at { return a.at < b.at }
            if a.source != b.source { return a.source.utf8.lexicographicallyPrecedes(b.source.utf8) }
            return a.order < b.order
        }
        func arrive(_ credit: Credit) {
            var credit = credit
            let paid = min(debt, credit.left)
            debt -= paid
            credit.left -= paid
            credits.append(credit)
        }
        for (instant, _, event) in events {
            switch event {
            case .deposit(let index):
                let deposit = deposits[index]
                var left = deposit.amount
                if deposit.rollover > 0,
                    let previous = credits.firstIndex(where: { $0.pack == nil && $0.chain == deposit.chain && $0.end == instant })
                {
                    left += min(deposit.rollover, credits[previous].left)
                    credits.remove(at: previous)
                }
                order += 1
                arrive(
                    Credit(
                        at: instant, end: deposit.end, left: left, source: deposit.source, transaction: deposit.transaction, chain: deposit.chain,
                        order: order))
            case .pack(let index):
                order += 1
                let pack = ownPacks[index]
                arrive(
                    Credit(
                        at: pack.at, end: .max, left: pack.amount, source: pack.source, transaction: pack.transaction, chain: "", pack: index,
                        order: order))
            case .consumption(let index):
                credits.removeAll { $0.end <= instant }
                guard !unlimited(instant) else { continue }
                credits.sort(by: spendingOrder)
                var left = charges[index].amount
                for position in credits.indices where left > 0 {
                    let taken = min(left, credits[position].left)
                    credits[position].left -= taken
                    left -= taken
                }
                debt += left
            }
        }
        credits.removeAll { $0.end <= at }
        for credit in credits where credit.left > 0 && credit.end != .max { candidates.insert(credit.end) }
        if let nextDeposit { candidates.insert(nextDeposit) }
        return Answer(
            balance: credits.map(\.left).reduce(0, +) - debt, unlimited: unlimited(at), nextDeposit: nextDeposit,
            deposits: view(credits.filter { $0.left > 0 }.map { ($0.source, $0.transaction, $0.end, $0.left) }), candidates: candidates)
    }
}
