/// Balances: credits bought less consumptions, deduplicated by id across the app's receipts.
extension Evaluator {
    /// Which consumptions of the app's receipts count, in receipt then entry order: of copies of
    /// one id that differ, the one whose normalized JSON sorts first by bytes (`conflict` is told
    /// once per such id). Empty when every one counts: one receipt's consumptions are unique
    /// already (the decoder checks).
    static func standingConsumptions(
        receipts: [ParsedReceipt], own: [Int], conflict: (ParsedReceipt, Int) -> Void
    ) -> [Bool] {
        guard own.count > 1 else { return [] }
        var items: [(receipt: Int32, index: Int32)] = []
        for receiptIndex in own {
            for index in receipts[receiptIndex].consumptions.indices { items.append((Int32(receiptIndex), Int32(index))) }
        }
        return standingCopies(
            items, receipts: receipts, id: { $0.consumptions[$1].id }, hash: { $0.consumptions[$1].idHash },
            same: { a, i, b, j in
                let x = a.consumptions[i]
                let y = b.consumptions[j]
                return a.bytesEqual(x.currency, b, y.currency) && x.amount == y.amount && x.date == y.date
            },
            canonical: { receipt, index in receipt.consumption(receipt.consumptions[index]).jsonOutput.compact() },
            conflict: conflict)
    }
}

/// Balance arithmetic that cannot overflow: a sum past `Int64`'s range stops at its end, and the
/// currency is noted so evaluation warns about it.
enum Balance {
    @inline(__always)
    static func add(_ amount: Int64, to balances: inout [Int64], _ currency: Int, overflowed: inout [Int32]) {
        let (sum, overflow) = balances[currency].addingReportingOverflow(amount)
        if overflow {
            let limit: Int64 = amount > 0 ? .max : .min
            // Noted once per arrival at the limit; the caller removes repeats.
            if balances[currency] != limit { overflowed.append(Int32(currency)) }
            balances[currency] = limit
        } else {
            balances[currency] = sum
        }
    }
}

/// A small set of subscription group indices: a bit set, allocated only when a group is added.
struct GroupSet {
    /// Groups 0-63 in one word, the rest in `words` (a catalog rarely has more than a few groups).
    private var first: UInt64 = 0
    private var words: [UInt64] = []

    mutating func insert(_ group: Int32) {
        if group < 64 {
            first |= 1 << UInt64(group)
            return
        }
        let word = Int(group) >> 6 - 1
        if word >= words.count { words += [UInt64](repeating: 0, count: word + 1 - words.count) }
        words[word] |= 1 << UInt64(group & 63)
    }

    /// The members, ascending.
    var members: [Int32] {
        var result: [Int32] = []
        guard first != 0 || !words.isEmpty else { return result }
        result.reserveCapacity(first.nonzeroBitCount)
        func add(_ word: UInt64, base: Int) {
            var rest = word
            while rest != 0 {
                result.append(Int32(base + rest.trailingZeroBitCount))
                rest &= rest - 1
            }
        }
        add(first, base: 0)
        for (index, word) in words.enumerated() { add(word, base: (index + 1) * 64) }
        return result
    }
}

extension Evaluation {
    /// Each consumption that counts at the instant, in receipt then entry order, with its
    /// currency's index: of copies of one id, the one that stands; dated at or before the
    /// instant; its amount in range and its currency declared (else a warning, and it is skipped).
    @inline(__always)
    mutating func forEachCountedConsumption(
        _ body: (_ receipt: ParsedReceipt, _ receiptIndex: Int, _ index: Int, _ consumption: ConsumptionRecord, _ currency: Int) -> Void
    ) {
        let standing = Evaluator.standingConsumptions(receipts: receipts, own: own) { receipt, index in
            warnings.append(EvaluationWarning(kind: .conflictingConsumption(id: receipt.text(receipt.consumptions[index].id)!)))
        }
        var item = 0
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            receipt.arena.withUnsafeBytes { arena in
                for (index, consumption) in receipt.consumptions.enumerated() {
                    defer { item += 1 }
                    if !standing.isEmpty, !standing[item] { continue }
                    guard consumption.date <= at else { continue }
                    // The decoder keeps amounts in range; a consumption built in code may not.
                    guard consumption.amount >= 1, consumption.amount <= ReceiptLimits.maxConsumptionAmount else {
                        warnings.append(
                            EvaluationWarning(
                                kind: .amountOutOfRange(
                                    consumptionId: receipt.text(consumption.id)!, amount: consumption.amount)))
                        continue
                    }
                    let currency = catalog.currencyTable.find(
                        UnsafeRawBufferPointer(
                            rebasing: arena[Int(consumption.currency.start)..<Int(consumption.currency.start + consumption.currency.count)]))
                    guard currency >= 0 else {
                        warnings.append(
                            EvaluationWarning(
                                kind: .unknownCurrency(
                                    consumptionId: receipt.text(consumption.id)!, currency: receipt.text(consumption.currency)!)))
                        continue
                    }
                    body(receipt, receiptIndex, index, consumption, Int(currency))
                }
            }
        }
    }

    mutating func spend(balances: inout [Int64], overflowed: inout [Int32]) {
        var spent: [(receipt: Int, index: Int, currency: Int)] = []
        forEachCountedConsumption { _, receipt, index, consumption, currency in
            Balance.add(-consumption.amount, to: &balances, currency, overflowed: &overflowed)
            if R.records { spent.append((receipt, index, currency)) }
        }
        for item in spent { recorder.spent(receipt: item.receipt, index: item.index, currency: item.currency) }
    }
}
