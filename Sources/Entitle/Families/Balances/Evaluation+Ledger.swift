/// The ledger's step of an evaluation (a catalog with allowances or unlimited currencies): the
/// consumptions that count, the purchases' credits and the deposit streams of each currency, the
/// free allowances' streams, and the ledger run per currency (``Ledger``).
extension Evaluation {
    /// Notes a consumable purchase's credits for the ledger: what `credited` gained over `before`.
    mutating func notePack(_ entry: Entry, credited: [Int64], before: [Int64]) {
        for currency in credited.indices where credited[currency] != before[currency] {
            let (amount, overflow) = credited[currency].subtractingReportingOverflow(before[currency])
            ledger.packs.append(
                LedgerSources.Pack(
                    currency: Int32(currency), amount: overflow ? .max : amount, at: entry.purchase, product: entry.product,
                    receipt: entry.receipt, transaction: entry.record.transactionId))
        }
    }

    /// Works out every currency's balance with the ledger; `balances` become what it finds.
    mutating func runLedger(balances: inout [Int64], overflowed: inout [Int32]) -> [Ledger.Answer] {
        let currencies = catalog.currencyIds.count
        // The consumptions that count, per currency, in time order (date, then id bytes).
        var consumptions = [[(consumption: Ledger.Consumption, id: [UInt8])]](repeating: [], count: currencies)
        let standing = Evaluator.standingConsumptions(receipts: receipts, own: own) { receipt, index in
            warnings.append(EvaluationWarning(kind: .conflictingConsumption(id: receipt.text(receipt.consumptions[index].id)!)))
        }
        var item = 0
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            for (index, consumption) in receipt.consumptions.enumerated() {
                defer { item += 1 }
                if !standing.isEmpty, !standing[item] { continue }
                guard consumption.date <= at else { continue }
                guard consumption.amount >= 1, consumption.amount <= ReceiptLimits.maxConsumptionAmount else {
                    warnings.append(
                        EvaluationWarning(kind: .amountOutOfRange(consumptionId: receipt.text(consumption.id)!, amount: consumption.amount)))
                    continue
                }
                guard let name = receipt.text(consumption.currency), let currency = catalog.currencyIndex[name] else {
                    warnings.append(
                        EvaluationWarning(
                            kind: .unknownCurrency(consumptionId: receipt.text(consumption.id)!, currency: receipt.text(consumption.currency)!)))
                    continue
                }
                consumptions[currency].append(
                    (
                        Ledger.Consumption(date: consumption.date, amount: consumption.amount, receipt: Int32(receiptIndex), index: Int32(index)),
                        Array((receipt.text(consumption.id) ?? "").utf8)
                    ))
            }
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
            var unlimited = unlimitedOf[currency].map { span in
                CoverageSpan(start: span.start, end: min(span.end, inputs.consentRescinded))
            }.filter { $0.end > $0.start }
            unlimited.sort { $0.start < $1.start }
            var merged: [CoverageSpan] = []
            for span in unlimited {
                if let last = merged.last, span.start <= last.end {
                    merged[merged.count - 1].end = max(last.end, span.end)
                } else {
                    merged.append(span)
                }
            }
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
