/// The ledger's step of an evaluation (a catalog with allowances or unlimited currencies): the
/// consumptions that count, the purchases' credits and the deposit streams of each currency, the
/// free allowances' streams, and the ledger run per currency (``Ledger``).
extension Evaluation {
    /// Credits `amount` of a consumable purchase (`entry`, or one of its items) to `currency`;
    /// with the ledger, also notes it as a purchase, one per transaction and currency.
    @inline(__always)
    mutating func addCredits(_ entry: Entry, _ amount: Int64, to currency: Int, balances: inout [Int64], overflowed: inout [Int32]) {
        Balance.add(amount, to: &balances, currency, overflowed: &overflowed)
        guard !catalog.allowanceRules.isEmpty else { return }
        // This transaction's purchases are the last ones noted.
        var index = ledger.packs.count - 1
        while index >= 0, ledger.packs[index].receipt == entry.receipt, ledger.packs[index].transaction == entry.record.transactionId {
            if ledger.packs[index].currency == Int32(currency) {
                let (sum, overflow) = ledger.packs[index].amount.addingReportingOverflow(amount)
                ledger.packs[index].amount = overflow ? .max : sum
                return
            }
            index -= 1
        }
        ledger.packs.append(
            LedgerSources.Pack(
                currency: Int32(currency), amount: amount, at: entry.purchase, product: entry.product, receipt: entry.receipt,
                transaction: entry.record.transactionId))
    }

    /// Works out every currency's balance with the ledger; `balances` become what it finds.
    mutating func runLedger(balances: inout [Int64], overflowed: inout [Int32]) -> [Ledger.Answer] {
        let currencies = catalog.currencyIds.count
        // The consumptions that count, per currency, in time order (date, then id bytes).
        var consumptions = [[(consumption: Ledger.Consumption, id: [UInt8])]](repeating: [], count: currencies)
        forEachCountedConsumption { receipt, receiptIndex, index, consumption, currency in
            consumptions[currency].append(
                (
                    Ledger.Consumption(date: consumption.date, amount: consumption.amount, receipt: Int32(receiptIndex), index: Int32(index)),
                    Array((receipt.text(consumption.id) ?? "").utf8)
                ))
        }
        for currency in consumptions.indices where consumptions[currency].count > 1 {
            consumptions[currency].sort { a, b in
                a.consumption.date != b.consumption.date ? a.consumption.date < b.consumption.date : a.id.lexicographicallyPrecedes(b.id)
            }
        }
        // What each currency reads, sorted out in one pass each.
        var streamsOf = [[DepositStream]](repeating: [], count: currencies)
        for stream in ledger.streams { streamsOf[Int(stream.currency)].append(stream) }
        var packsOf = [[LedgerSources.Pack]](repeating: [], count: currencies)
        for pack in ledger.packs { packsOf[Int(pack.currency)].append(pack) }
        var unlimitedOf = [[LedgerSources.Unlimited]](repeating: [], count: currencies)
        for span in ledger.unlimited { unlimitedOf[Int(span.currency)].append(span) }
        var answers: [Ledger.Answer] = []
        answers.reserveCapacity(currencies)
        for currency in 0..<currencies {
            let charges = consumptions[currency].map(\.consumption)
            var streams = streamsOf[currency]
            // Free allowances: from the calendar period holding the first instant they can matter.
            let earliest = min(charges.first?.date ?? at, at)
            for (position, allowance) in catalog.allowanceRules.free.enumerated() where allowance.currency == Int32(currency) {
                guard let every = allowance.every else { continue }
                var from = earliest
                if case .after(let duration) = allowance.expires {
                    from = max(Instant.earliest.millisecondsSince1970, from - ISODuration.longestMilliseconds(of: duration))
                }
                streams.append(
                    DepositStream(
                        currency: Int32(currency), product: -1, allowance: Int32(position), chain: -1 - Int32(position),
                        start: Self.periodStart(every, holding: from), windowEnd: .max, access: .max, amount: allowance.amount,
                        allowanceRule: allowance))
            }
            var packs = packsOf[currency]
            packs.sort { a, b in
                if a.at != b.at { return a.at < b.at }
                let x = catalog.compiledProducts[Int(a.product)].id
                let y = catalog.compiledProducts[Int(b.product)].id
                if x != y { return x.utf8.lexicographicallyPrecedes(y.utf8) }
                let (ra, rb) = (receipts[Int(a.receipt)], receipts[Int(b.receipt)])
                return (ra.text(a.transaction) ?? "").utf8.lexicographicallyPrecedes((rb.text(b.transaction) ?? "").utf8)
            }
            // Unlimited spans of the currency, merged; none once the customer rescinded consent.
            let merged = CoverageSpan.merged(
                unlimitedOf[currency].map { CoverageSpan(start: $0.start, end: min($0.end, inputs.consentRescinded)) }.sorted { $0.start < $1.start })
            func isUnlimited(_ t: Int64) -> Bool {
                var low = 0
                var high = merged.count
                while low < high {
                    let middle = (low + high) / 2
                    if merged[middle].start <= t { low = middle + 1 } else { high = middle }
                }
                return low > 0 && t < merged[low - 1].end
            }
            guard !streams.isEmpty || !packs.isEmpty || !charges.isEmpty || !merged.isEmpty else {
                balances[currency] = 0
                answers.append(Ledger.Answer())
                continue
            }
            let sourceIds = streams.map { $0.product < 0 ? AllowanceRules.freeSource : catalog.compiledProducts[Int($0.product)].id }
            var run = Ledger(streams: streams, packs: packs, sourceIds: sourceIds)
            var answer = run.run(charges, at: at, unlimited: isUnlimited) { consumption, _ in
                if R.records { recorder.spent(receipt: Int(consumption.receipt), index: Int(consumption.index), currency: currency) }
            }
            answer.unlimited = isUnlimited(at)
            answer.deposits = answer.items.map { item in
                if item.stream < 0 {
                    let pack = packs[Int(item.pack)]
                    return BalanceDeposit(
                        source: catalog.compiledProducts[Int(pack.product)].id, transaction: receipts[Int(pack.receipt)].text(pack.transaction),
                        amount: pack.amount, remaining: item.remaining, carried: nil, at: Instant(millisecondsSince1970: pack.at), endsAt: nil)
                }
                let stream = streams[Int(item.stream)]
                let (total, overflow) = item.amount.multipliedReportingOverflow(by: item.count)
                return BalanceDeposit(
                    source: sourceIds[Int(item.stream)],
                    transaction: stream.receipt < 0 ? nil : receipts[Int(stream.receipt)].text(stream.transaction),
                    amount: overflow ? .max : total, remaining: item.remaining, carried: item.carried > 0 ? item.carried : nil,
                    at: Instant(millisecondsSince1970: item.at),
                    endsAt: item.end == .max || item.end >= Instant.latest.millisecondsSince1970 ? nil : Instant(millisecondsSince1970: item.end),
                    count: item.count)
            }
            for span in merged {
                if span.start > at { answer.boundary = min(answer.boundary, span.start) }
                if span.end > at, span.end != .max { answer.boundary = min(answer.boundary, span.end) }
            }
            boundary = min(boundary, answer.boundary)
            balances[currency] = answer.balance
            if answer.overflowed { overflowed.append(Int32(currency)) }
            answers.append(answer)
        }
        return answers
    }

    /// The start of the calendar period (UTC) of a free allowance that holds `instant`: the day, the
    /// week from Monday, the month, the year.
    static func periodStart(_ every: ISODuration, holding instant: Int64) -> Int64 {
        let (day, _) = CivilCalendar.floorDivide(instant, CivilCalendar.millisecondsPerDay)
        var start = day
        if every.years > 0 {
            let (year, _, _) = CivilCalendar.date(dayNumber: day)
            start = CivilCalendar.dayNumber(year: year, month: 1, day: 1)
        } else if every.months > 0 {
            let (year, month, _) = CivilCalendar.date(dayNumber: day)
            start = CivilCalendar.dayNumber(year: year, month: month, day: 1)
        } else if every.weeks > 0 {
            // 1970-01-01 was a Thursday: day 0 is three days after a Monday.
            let (_, sinceMonday) = CivilCalendar.floorDivide(day + 3, 7)
            start = day - sinceMonday
        }
        return start * CivilCalendar.millisecondsPerDay
    }
}
