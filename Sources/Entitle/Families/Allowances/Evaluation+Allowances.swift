/// What the ledger needs of a product that deposits or makes a currency unlimited, noted while
/// its coverage is found (before its runs are cut to those that end after the instant): one
/// stream of deposits per allowance and counted transaction, and its coverage runs.
extension Evaluation {
    /// Notes product `entries`' deposit streams and unlimited spans; `runs` are all its coverage
    /// spans, sorted by start.
    mutating func noteLedgerSources(entries: ArraySlice<Entry>, rule: ProductRule, runs: ArraySlice<CoverageSpan>) {
        let product = entries.first!.product
        let allowances = catalog.allowanceRules.allowances(of: Int(product))
        // The product's access: its runs merged.
        let merged = CoverageSpan.merged(runs)
        for currency in catalog.allowanceRules.unlimitedCurrencies(of: Int(product)) {
            for run in merged { ledger.unlimited.append(LedgerSources.Unlimited(currency: currency, start: run.start, end: run.end)) }
        }
        guard !allowances.isEmpty else { return }
        // The run holding `start` (runs are sorted and apart): found by bisection.
        func accessEnd(from start: Int64, within end: Int64) -> Int64 {
            var low = 0
            var high = merged.count
            while low < high {
                let middle = (low + high) / 2
                if merged[middle].start <= start { low = middle + 1 } else { high = middle }
            }
            guard low > 0, start < merged[low - 1].end else { return end }
            return max(merged[low - 1].end, end)
        }
        // Each counted transaction's window of deposits, and when its deposits end at the latest.
        var windows: [(entry: Entry, start: Int64, end: Int64, access: Int64)] = []
        let revoked = entries.filter { $0.cancellation <= at && !$0.isUpgraded }
        let counted = entries.filter { $0.cancellation > at && !$0.isUpgraded }
        switch rule.type {
        case .autoRenewableSubscription:
            for entry in counted where entry.expires != TransactionRecord.absentDate {
                let end = entry.capped(entry.expires)
                if end > entry.purchase { windows.append((entry, entry.purchase, end, accessEnd(from: entry.purchase, within: end))) }
            }
        case .nonRenewingSubscription:
            // Its spans are its counted purchases' stacked spans, in purchase order.
            for (entry, span) in zip(counted, runs) where span.end > span.start {
                windows.append((entry, span.start, span.end, accessEnd(from: span.start, within: span.end)))
            }
        case .nonConsumable:
            if rule.trialDays > 0 {
                if let first = counted.first, let span = runs.first { windows.append((first, span.start, span.end, span.end)) }
            } else if let first = counted.first {
                let end = first.capped(CoverageSpan.never)
                windows.append((first, first.purchase, end, end))
            }
        case .consumable:
            break
        }
        // A refunded or revoked transaction deposits up to its revocation, where its deposits end.
        for entry in revoked {
            guard let span = Evaluator.historySpan(rule, entry), span.end > span.start else { continue }
            windows.append((entry, span.start, span.end, span.end))
        }
        windows.sort { $0.start < $1.start }
        for (position, allowance) in allowances.enumerated() {
            let chain = Int32(ledger.chains)
            ledger.chains += 1
            let first = ledger.streams.count
            for window in windows {
                let intro = window.entry.record.flags & (TransactionRecord.trialPeriod | TransactionRecord.introOfferPeriod) != 0
                let each = intro ? allowance.introAmount ?? allowance.amount : allowance.amount
                let (amount, overflow) = each.multipliedReportingOverflow(by: window.entry.record.countedQuantity)
                guard amount > 0 else { continue }
                ledger.streams.append(
                    DepositStream(
                        currency: allowance.currency, product: product, allowance: Int32(position), chain: chain,
                        receipt: window.entry.receipt, transaction: window.entry.record.transactionId, start: window.start,
                        windowEnd: window.end, access: window.access, amount: overflow ? .max : amount, allowanceRule: allowance))
            }
            // A later purchase of the product starts a new cycle: the earlier stops depositing, and
            // an `expires: next` deposit ends at the next stream's first deposit.
            if ledger.streams.count - first > 1 {
                for index in first..<(ledger.streams.count - 1) {
                    let next = ledger.streams[index + 1].start
                    ledger.streams[index].windowEnd = min(ledger.streams[index].windowEnd, max(next, ledger.streams[index].start + 1))
                    ledger.streams[index].chainNext = next
                }
            }
        }
    }
}

/// Where credits come from and what makes a currency unlimited, as evaluation notes them for the
/// ledger (``Ledger``).
struct LedgerSources {
    /// A span during which a product makes a currency unlimited.
    struct Unlimited {
        var currency: Int32
        var start: Int64
        var end: Int64
    }

    /// A consumable's purchase: credits that never end.
    struct Pack {
        var currency: Int32
        var amount: Int64
        var at: Int64
        var product: Int32
        var receipt: Int32
        var transaction: TextRange
    }

    var streams: [DepositStream] = []
    var unlimited: [Unlimited] = []
    var packs: [Pack] = []
    /// Chains of streams (a product's allowance across its transactions) handed out so far.
    var chains = 0
}

/// The deposits of one allowance earned by one transaction (or of a free allowance): at `start`,
/// then every `every` while before `windowEnd`, each ending as its allowance says, never after
/// `access`.
struct DepositStream {
    var currency: Int32
    /// The product (compiled index), or -1 for a free allowance.
    var product: Int32
    var allowance: Int32
    /// Streams of one chain are one product's allowance across its transactions, in start order.
    var chain: Int32
    var receipt: Int32 = -1
    var transaction = TextRange.none
    var start: Int64
    var windowEnd: Int64
    var access: Int64
    /// Credits per deposit (the allowance's amount times the transaction's quantity).
    var amount: Int64
    var allowanceRule: AllowanceRules.Allowance
    /// For `expires: next`: the first deposit of the chain's next stream; `Int64.max` when none.
    var chainNext = Int64.max
}
