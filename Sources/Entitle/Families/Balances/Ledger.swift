/// How a balance is worked out when a catalog has allowances or unlimited currencies: deposits
/// (allowances, free allowances) and purchases (a consumable's credits) put credits in;
/// consumptions, in time order (date, then `id` bytes), take them out of what is available at
/// their date: first the deposit that ends soonest, then the earliest, then by source id bytes;
/// purchased credits last, first bought first spent. A consumption while a covering product makes
/// its currency unlimited charges nothing. A consumption larger than what is available takes all
/// of it and leaves a debt, paid from the next credits that come in. A deposit that ends takes
/// its unspent credits with it.
///
/// Cost: O(n log n) in the consumptions and transactions, whatever the number of periods passed:
/// between two consumptions only the deposits still alive at the second are made (with `expires:
/// next`, the last one; with a rollover, until what carries is steady), a debt is paid by
/// searching the instant the credits that came in reach it, and deposits that never end are kept
/// as one run per stretch between consumptions.
struct Ledger {
    /// A deposit (or a run of deposits of one stream that end together) or a purchase with
    /// credits left.
    struct Item: Equatable, Sendable {
        /// The stream (index in the sources' streams), or -1 for a purchase.
        var stream: Int32
        /// For a purchase: its index in the sources' packs.
        var pack: Int32 = -1
        /// The first deposit's index in its stream, and how many the run holds.
        var k: Int64 = 0
        var count: Int64 = 1
        var at: Int64
        /// What each deposit put in (a purchase: its credits), and what is left of the first.
        var amount: Int64
        var remainingFirst: Int64
        var carried: Int64 = 0
        /// When its credits end; `Int64.max`: never.
        var end: Int64

        /// Credits left in the whole run.
        var remaining: Int64 {
            let (rest, overflow) = amount.multipliedReportingOverflow(by: count - 1)
            let (sum, past) = remainingFirst.addingReportingOverflow(overflow ? .max : rest)
            return past || overflow ? .max : sum
        }
    }

    /// One currency's ledger at the instant.
    struct Answer: Equatable, Sendable {
        var balance: Int64 = 0
        /// What is left, in the order it will be spent.
        var items: [Item] = []
        var nextDeposit = Int64.max
        var unlimited = false
        /// The next instant the ledger changes with what is known (a deposit, an end of credits
        /// left, the start or end of an unlimited span).
        var boundary = Int64.max
        /// A sum went past `Int64`'s range and stopped at its end.
        var overflowed = false
        /// The items as a result shows them.
        var deposits: [BalanceDeposit] = []

        /// The same answer: what a result shows (the next change aside, which moves with the instant).
        static func == (a: Answer, b: Answer) -> Bool {
            a.balance == b.balance && a.deposits == b.deposits && a.nextDeposit == b.nextDeposit && a.unlimited == b.unlimited
        }
    }

    /// A consumption the ledger charges.
    struct Consumption {
        var date: Int64
        var amount: Int64
        var receipt: Int32
        var index: Int32
    }

    let streams: [DepositStream]
    let packs: [LedgerSources.Pack]
    let sourceIds: [String]
    /// Per stream: how many deposits it makes in its window.
    private var counts: [Int64]
    /// Per stream: its next deposit not made yet.
    private var nextK: [Int64]
    /// The streams in start order, how many of them have started, and those started that still
    /// deposit: what each step looks at (a product's streams do not overlap, so few at a time).
    private let byStart: [Int]
    private var started = 0
    private var live: [Int] = []
    private var arrivedPacks: Int = 0
    /// Deposits (and runs of them) with credits left; purchases are `packLeft`, first bought first.
    private var items: [Item] = []
    private var packLeft: [(pack: Int32, remaining: Int64)] = []
    private var packHead = 0
    private var debt: Int64 = 0
    private var overflowed = false

    /// `streams` and `packs` of one currency (packs in purchase order); `sourceIds` per stream the
    /// id of what earned it (`free` for a free allowance).
    init(streams: [DepositStream], packs: [LedgerSources.Pack], sourceIds: [String]) {
        self.streams = streams
        self.packs = packs
        self.sourceIds = sourceIds
        counts = streams.map(Self.depositCount)
        nextK = [Int64](repeating: 0, count: streams.count)
        byStart = streams.indices.sorted { streams[$0].start != streams[$1].start ? streams[$0].start < streams[$1].start : $0 < $1 }
    }

    /// Starts the streams whose window has begun by `t`, and lets go of those that are done.
    private mutating func activate(upTo t: Int64) {
        while started < byStart.count, streams[byStart[started]].start <= t {
            if counts[byStart[started]] > 0 { live.append(byStart[started]) }
            started += 1
        }
        live.removeAll { nextK[$0] >= counts[$0] }
    }

    // MARK: Deposits of a stream

    /// The k-th deposit of a stream: its start plus k times `every`, added in one calendar step.
    static func deposit(_ stream: DepositStream, _ k: Int64) -> Int64 {
        guard k > 0, let every = stream.allowanceRule.every else { return stream.start }
        return ISODuration.add(
            months: every.totalMonths, days: every.totalDays, milliseconds: every.timeMilliseconds, times: k, to: stream.start)
    }

    /// How many deposits a stream makes: those before the end of its window (one without `every`).
    static func depositCount(_ stream: DepositStream) -> Int64 {
        let end = min(stream.windowEnd, Instant.latest.millisecondsSince1970)
        guard stream.start < end else { return 0 }
        guard let every = stream.allowanceRule.every else { return 1 }
        let shortest = max(ISODuration.shortestMilliseconds(of: every), 1)
        // The k-th deposit is at least k shortest periods after the start.
        var low: Int64 = 1
        var high = (end - stream.start) / shortest + 2
        // The smallest k whose deposit is at or after the end.
        while low < high {
            let middle = low + (high - low) / 2
            if deposit(stream, middle) >= end { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// How many of stream `s`'s deposits are made at or before `t`.
    private func count(_ s: Int, upTo t: Int64) -> Int64 {
        let stream = streams[s]
        guard counts[s] > 0, stream.start <= t else { return 0 }
        var low: Int64 = 1
        var high = counts[s]
        // The largest k with deposit(k - 1) <= t.
        while low < high {
            let middle = low + (high - low + 1) / 2
            if Self.deposit(stream, middle - 1) <= t { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// When the k-th deposit of stream `s` ends.
    private func end(_ s: Int, _ k: Int64) -> Int64 {
        let stream = streams[s]
        let access = stream.access
        switch stream.allowanceRule.expires {
        case .next:
            let next = k + 1 < counts[s] ? Self.deposit(stream, k + 1) : stream.chainNext
            return min(access, next)
        case .never:
            return access
        case .after(let duration):
            return min(access, duration.added(to: Instant(millisecondsSince1970: Self.deposit(stream, k))).millisecondsSince1970)
        }
    }

    // MARK: Running

    /// Charges `consumptions` (sorted by date, then id bytes) and works out the ledger at `at`;
    /// `unlimited` is whether a consumption's date is in an unlimited span.
    mutating func run(_ consumptions: [Consumption], at: Int64, unlimited: (Int64) -> Bool, charged: (Consumption, Int64) -> Void) -> Answer {
        for consumption in consumptions {
            advance(to: consumption.date)
            if unlimited(consumption.date) {
                charged(consumption, 0)
                continue
            }
            charged(consumption, charge(consumption.amount, at: consumption.date))
        }
        advance(to: at)
        var answer = Answer()
        items.sort(by: spendsBefore)
        answer.items = items
        for (pack, remaining) in packLeft[packHead...] where remaining > 0 {
            let bought = packs[Int(pack)]
            answer.items.append(Item(stream: -1, pack: pack, at: bought.at, amount: bought.amount, remainingFirst: remaining, end: .max))
        }
        var balance: Int64 = 0
        for item in answer.items { balance = Self.add(balance, item.remaining, &overflowed) }
        answer.balance = Self.add(balance, -debt, &overflowed)
        for s in streams.indices where nextK[s] < counts[s] {
            answer.nextDeposit = min(answer.nextDeposit, Self.deposit(streams[s], nextK[s]))
        }
        answer.boundary = answer.nextDeposit
        for item in items where item.end != .max && item.remaining > 0 { answer.boundary = min(answer.boundary, item.end) }
        answer.overflowed = overflowed
        return answer
    }

    /// Makes every deposit and purchase up to `t` and lets credits that end by `t` go.
    private mutating func advance(to t: Int64) {
        activate(upTo: t)
        if debt > 0 { payDebt(upTo: t) }
        // In start order, so a chain's earlier stream has made its last deposit (which the next
        // one's first may carry from) before the next one starts.
        for s in live where nextK[s] < counts[s] && Self.deposit(streams[s], nextK[s]) <= t { arrive(s, upTo: t) }
        while arrivedPacks < packs.count, packs[arrivedPacks].at <= t {
            packLeft.append((Int32(arrivedPacks), packs[arrivedPacks].amount))
            arrivedPacks += 1
        }
        items.removeAll { $0.end <= t || $0.remaining == 0 }
    }

    /// The credits that come in from what has not arrived up to `t`, at most `cap`.
    private func incoming(upTo t: Int64) -> Int64 {
        var total: Int64 = 0
        var ignored = false
        for s in live where nextK[s] < counts[s] {
            let n = count(s, upTo: t) - nextK[s]
            guard n > 0 else { continue }
            let (credits, overflow) = streams[s].amount.multipliedReportingOverflow(by: n)
            total = Self.add(total, overflow ? .max : credits, &ignored)
        }
        var index = arrivedPacks
        while index < packs.count, packs[index].at <= t {
            total = Self.add(total, packs[index].amount, &ignored)
            index += 1
        }
        return total
    }

    /// Pays the debt from the credits that come in up to `t`, in the order they come.
    private mutating func payDebt(upTo t: Int64) {
        var earliest = Int64.max
        for s in live where nextK[s] < counts[s] { earliest = min(earliest, Self.deposit(streams[s], nextK[s])) }
        if arrivedPacks < packs.count { earliest = min(earliest, packs[arrivedPacks].at) }
        guard earliest <= t else { return }
        let all = incoming(upTo: t)
        if all <= debt {
            // Everything that comes in goes to the debt.
            debt -= all
            for s in live where nextK[s] < counts[s] { nextK[s] = max(nextK[s], count(s, upTo: t)) }
            while arrivedPacks < packs.count, packs[arrivedPacks].at <= t { arrivedPacks += 1 }
            return
        }
        // The first instant by which what came in reaches the debt.
        var low = earliest
        var high = t
        while low < high {
            let middle = low + (high - low) / 2
            if incoming(upTo: middle) >= debt { high = middle } else { low = middle + 1 }
        }
        let paidAt = low
        debt -= incoming(upTo: paidAt - 1)
        for s in live where nextK[s] < counts[s] { nextK[s] = max(nextK[s], count(s, upTo: paidAt - 1)) }
        while arrivedPacks < packs.count, packs[arrivedPacks].at < paidAt { arrivedPacks += 1 }
        // What comes in at that instant pays the rest, in the order it would be spent.
        var arriving: [Item] = []
        for s in live where nextK[s] < counts[s] && Self.deposit(streams[s], nextK[s]) == paidAt {
            let k = nextK[s]
            arriving.append(Item(stream: Int32(s), k: k, at: paidAt, amount: streams[s].amount, remainingFirst: streams[s].amount, end: end(s, k)))
            nextK[s] += 1
        }
        while arrivedPacks < packs.count, packs[arrivedPacks].at == paidAt {
            let pack = packs[arrivedPacks]
            arriving.append(Item(stream: -1, pack: Int32(arrivedPacks), at: pack.at, amount: pack.amount, remainingFirst: pack.amount, end: .max))
            arrivedPacks += 1
        }
        arriving.sort(by: spendsBefore)
        for var item in arriving {
            let taken = min(debt, item.remainingFirst)
            debt -= taken
            item.remainingFirst -= taken
            guard item.remainingFirst > 0 else { continue }
            if item.stream < 0 { packLeft.append((item.pack, item.remainingFirst)) } else { items.append(item) }
        }
    }

    /// Makes stream `s`'s deposits up to `t` (no debt is owed): those still alive at `t`, and for a
    /// rollover what they carry.
    private mutating func arrive(_ s: Int, upTo t: Int64) {
        let stream = streams[s]
        let last = count(s, upTo: t) - 1
        let first = nextK[s]
        guard last >= first else { return }
        nextK[s] = last + 1
        let amount = stream.amount
        let rule = stream.allowanceRule
        switch rule.expires {
        case .next where rule.rollover > 0:
            // Each deposit carries what the chain's previous one had left, up to the rollover,
            // when that one ended at it; what carries is steady after at most about 100 deposits.
            var k = first
            var previousCarried: Int64 = -1
            while k <= last {
                let at = Self.deposit(stream, k)
                var carried: Int64 = 0
                if let index = items.firstIndex(where: { $0.stream >= 0 && streams[Int($0.stream)].chain == stream.chain && $0.end == at }) {
                    carried = min(rule.rollover, items[index].remaining)
                    items.remove(at: index)
                }
                var item = Item(
                    stream: Int32(s), k: k, at: at, amount: amount, remainingFirst: Self.add(amount, carried, &overflowed), end: end(s, k))
                item.carried = carried
                if carried == previousCarried, k < last, end(s, k) == Self.deposit(stream, k + 1) {
                    // Steady: the last deposit carries the same.
                    k = last
                    item = Item(
                        stream: Int32(s), k: k, at: Self.deposit(stream, k), amount: amount, remainingFirst: Self.add(amount, carried, &overflowed),
                        end: end(s, k))
                    item.carried = carried
                }
                items.append(item)
                previousCarried = carried
                k += 1
            }
        case .next:
            items.append(Item(stream: Int32(s), k: last, at: Self.deposit(stream, last), amount: amount, remainingFirst: amount, end: end(s, last)))
        case .never:
            // One run per stream: deposits that follow its untouched tail join it.
            if let index = items.lastIndex(where: { $0.stream == Int32(s) && $0.k + $0.count == first }) {
                items[index].count += last - first + 1
            } else {
                items.append(
                    Item(
                        stream: Int32(s), k: first, count: last - first + 1, at: Self.deposit(stream, first), amount: amount,
                        remainingFirst: amount, end: stream.access))
            }
        case .after(let duration):
            // Only the deposits that last past `t`: at most `AllowanceRules.maxAlive` + 1 of them.
            var low = first
            var high = last + 1
            while low < high {
                let middle = low + (high - low) / 2
                let ends = duration.added(to: Instant(millisecondsSince1970: Self.deposit(stream, middle))).millisecondsSince1970
                if ends > t { high = middle } else { low = middle + 1 }
            }
            var k = low
            while k <= last {
                items.append(Item(stream: Int32(s), k: k, at: Self.deposit(stream, k), amount: amount, remainingFirst: amount, end: end(s, k)))
                k += 1
            }
        }
    }

    /// Takes `amount` from what is available at `t`, in spending order; what is not there becomes
    /// debt. Returns what it took from credits available.
    private mutating func charge(_ amount: Int64, at t: Int64) -> Int64 {
        items.sort(by: spendsBefore)
        var left = amount
        var index = 0
        while left > 0, index < items.count {
            var item = items[index]
            let first = min(left, item.remainingFirst)
            item.remainingFirst -= first
            left -= first
            if item.remainingFirst == 0, item.count > 1 {
                // A run: whole deposits after the first, then part of one.
                let whole = min(left / item.amount, item.count - 1)
                left -= whole * item.amount
                item.k += 1 + whole
                item.count -= 1 + whole
                item.at = item.count > 0 ? Self.deposit(streams[Int(item.stream)], item.k) : item.at
                item.remainingFirst = item.count > 0 ? item.amount : 0
                if item.count > 0, left > 0 {
                    item.remainingFirst -= left
                    left = 0
                }
            }
            items[index] = item
            index += 1
        }
        items.removeAll { $0.remaining == 0 || $0.count == 0 }
        // Then purchases, first bought first.
        while left > 0, packHead < packLeft.count {
            let taken = min(left, packLeft[packHead].remaining)
            packLeft[packHead].remaining -= taken
            left -= taken
            if packLeft[packHead].remaining == 0 { packHead += 1 }
        }
        debt = Self.add(debt, left, &overflowed)
        return amount - left
    }

    /// The spending order: ending soonest, then earliest, then by source id bytes; purchases last,
    /// first bought first.
    private func spendsBefore(_ a: Item, _ b: Item) -> Bool {
        if (a.stream < 0) != (b.stream < 0) { return a.stream >= 0 }
        if a.stream < 0 { return a.pack < b.pack }
        if a.end != b.end { return a.end < b.end }
        if a.at != b.at { return a.at < b.at }
        let x = sourceIds[Int(a.stream)]
        let y = sourceIds[Int(b.stream)]
        if x != y { return x.utf8.lexicographicallyPrecedes(y.utf8) }
        return a.stream < b.stream
    }

    @inline(__always)
    static func add(_ a: Int64, _ b: Int64, _ overflowed: inout Bool) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        overflowed = true
        return b > 0 ? .max : .min
    }
}
