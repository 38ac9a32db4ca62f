/// Refunds and voids that arrive apart from their purchases, applied across a customer's receipts.
///
/// Google Play reports a void (`VoidedPurchase`, a voided-purchase notification) and Stripe a
/// refund (a Refund, a refunded Charge) as facts about a purchase, named by its order id or
/// payment intent, which a service may receive before the purchase, after it, or in another
/// file. Importers keep them as ``Revocation`` values in the receipt they read; evaluation applies
/// each app's facts to the transactions they name in any of the customer's receipts of that app
/// and store (``applied(_:own:)``), so the same data in one file or several, added in any order,
/// gives one answer.
///
/// For each purchase named, its facts (each distinct fact once; a Stripe refund's `id` once)
/// are taken in time order:
/// - a void of units adds them up (Play's `voidedQuantity`); one without a quantity or an amount
///   takes back the whole purchase;
/// - refunds of money add up (`amount`), and a Charge's running total (`amountRefunded`) stands
///   for them when larger; the share is that total over the amount paid (`amountPaid`, the largest
///   any fact of the payment gives), in full once it reaches it or when no fact says what was
///   paid.
///
/// A transaction of the purchase is then cancelled from the first fact's date, in full or in part
/// (``Transaction/revocationPercentage``), in every copy: a copy folds in the facts dated by its
/// own `signedDate`, and each later fact date makes a copy signed at that date with the share
/// known by then (so a second partial refund counts from when it was made). A purchase revoked
/// earlier by its own data keeps its date, and the larger share. A fact naming no transaction of
/// the customer changes nothing and is warned about (`unmatched-revocation`).
enum RevocationFacts {
    /// What a purchase's facts have taken back by some date.
    struct Tally: Equatable {
        var whole = false
        /// Units voided (Play), saturating.
        var voided: Int64 = 0
        /// Refunds of money: single refunds added up, and the largest running total.
        var refunds: Int64 = 0
        var refundedSoFar: Int64 = 0
        /// What the payment charged, as any of its facts says.
        var paid: Int64?

        /// The money refunded: the single refunds, or the running total when larger.
        var refunded: Int64 { max(refunds, refundedSoFar) }

        /// The share of a purchase of `quantity` units taken back: `nil` for the whole purchase,
        /// else a percentage below 100 (thousandths rounded down, never more than was refunded).
        func share(quantity: Int) -> Double? {
            if whole { return nil }
            if voided > 0 {
                let bought = Int64(ReceiptLimits.countedQuantity(quantity))
                return voided >= bought ? nil : Self.percentage(voided, of: bought)
            }
            guard let paid, paid > 0, refunded < paid else { return nil }
            return Self.percentage(refunded, of: paid)
        }

        static func percentage(_ part: Int64, of whole: Int64) -> Double {
            (Double(part) / Double(whole) * 100_000).rounded(.down) / 1_000
        }
    }

    /// A purchase's facts as the tally after each distinct date, earliest first.
    static func slices(_ facts: Set<Revocation>) -> [(date: Instant, tally: Tally)] {
        // By date, then by the fact's JSON: the order facts arrived in does not matter.
        let sorted = facts.map { ($0, Array($0.jsonOutput.renderedOnOneLine().utf8)) }.sorted {
            $0.0.date != $1.0.date ? $0.0.date < $1.0.date : $0.1.lexicographicallyPrecedes($1.1)
        }
        var tally = Tally()
        tally.paid = facts.compactMap(\.amountPaid).max()
        var refundsById: [String: Int64] = [:]
        var slices: [(date: Instant, tally: Tally)] = []
        for (fact, _) in sorted {
            if fact.isWhole { tally.whole = true }
            if let quantity = fact.voidedQuantity { tally.voided = saturatingSum(tally.voided, Int64(quantity)) }
            if let amount = fact.amount {
                // One refund read twice (alone and in its Charge) counts once, at its largest.
                if let id = fact.id {
                    let before: Int64 = refundsById[id] ?? 0
                    if amount > before {
                        refundsById[id] = amount
                        let increase: Int64 = amount - before
                        tally.refunds = saturatingSum(tally.refunds, increase)
                    }
                } else {
                    tally.refunds = saturatingSum(tally.refunds, amount)
                }
            }
            if let soFar = fact.amountRefunded { tally.refundedSoFar = max(tally.refundedSoFar, soFar) }
            if slices.last?.date == fact.date {
                slices[slices.count - 1].tally = tally
            } else {
                slices.append((fact.date, tally))
            }
        }
        return slices
    }

    private static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// The purchase a transaction id belongs to among `named`: the id itself, or `<id>` of a line
    /// `<id>:<n>`.
    static func purchase<V>(of transactionId: String, in named: [String: V]) -> String? {
        if named[transactionId] != nil { return transactionId }
        guard let colon = transactionId.lastIndex(of: ":") else { return nil }
        let line = transactionId[transactionId.index(after: colon)...]
        guard !line.isEmpty, line.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let id = String(transactionId[..<colon])
        return named[id] != nil ? id : nil
    }

    /// The first void (in `revocations`' order) that takes the units voided of a purchase past
    /// what one of its transactions bought, with its message; `nil` when none does.
    static func excess(_ revocations: [Revocation], quantities: [(id: String, quantity: Int)]) -> (index: Int, message: String)? {
        guard revocations.contains(where: { $0.voidedQuantity != nil }) else { return nil }
        var named: [String: Void] = [:]
        for revocation in revocations where revocation.voidedQuantity != nil { named[revocation.transactionId] = () }
        // Each purchase's smallest line, by the purchase voided.
        var bought: [String: (id: String, quantity: Int)] = [:]
        for (id, quantity) in quantities {
            guard let purchase = purchase(of: id, in: named) else { continue }
            if let least = bought[purchase], least.quantity <= quantity { continue }
            bought[purchase] = (id, quantity)
        }
        var seen: Set<Revocation> = []
        var voided: [String: Int64] = [:]
        for (index, revocation) in revocations.enumerated() {
            guard let quantity = revocation.voidedQuantity, seen.insert(revocation).inserted else { continue }
            let total = saturatingSum(voided[revocation.transactionId] ?? 0, Int64(quantity))
            voided[revocation.transactionId] = total
            if let least = bought[revocation.transactionId], total > Int64(least.quantity) {
                return (index, "voids \(total) of purchase `\(Diagnostic.excerpt(least.id))`, which bought \(least.quantity)")
            }
        }
        return nil
    }

    /// The receipts with the facts of the app's receipts (`own`) applied across them, and a
    /// warning for each purchase named that none of them holds; the same array when no receipt
    /// holds a fact (a look at each receipt's list, nothing more).
    static func applied(_ receipts: [ParsedReceipt], own: [Int]) -> (receipts: [ParsedReceipt], warnings: [EvaluationWarning]) {
        guard own.contains(where: { !receipts[$0].revocations.isEmpty }) else { return (receipts, []) }
        var facts: [Store: [String: Set<Revocation>]] = [:]
        for index in own {
            for fact in receipts[index].revocations { facts[receipts[index].store, default: [:]][fact.transactionId, default: []].insert(fact) }
        }
        var values: [Int: Receipt] = [:]
        var result = receipts
        var matched: Set<String> = []
        var warnings: [EvaluationWarning] = []
        for store in facts.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            let named = facts[store]!
            // Every copy of every transaction the facts name, whichever receipt holds it.
            var copies: [String: [(receipt: Int, index: Int)]] = [:]
            for receipt in own where receipts[receipt].store == store {
                let value = values[receipt] ?? receipts[receipt].receipt
                values[receipt] = value
                for (index, transaction) in value.transactions.enumerated() where purchase(of: transaction.transactionId, in: named) != nil {
                    copies[transaction.transactionId, default: []].append((receipt, index))
                }
            }
            var changed: Set<Int> = []
            apply(named, copies: copies, to: &values, changed: &changed, matched: &matched)
            for receipt in changed { result[receipt] = ParsedReceipt(values[receipt]!) }
            for id in named.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) where !matched.contains(id) {
                warnings.append(EvaluationWarning(kind: .unmatchedRevocation(transactionId: id, store: store)))
            }
            matched.removeAll()
        }
        return (result, warnings)
    }

    /// Applies the facts of one store to the copies of the transactions they name.
    private static func apply(
        _ named: [String: Set<Revocation>], copies: [String: [(receipt: Int, index: Int)]], to values: inout [Int: Receipt],
        changed: inout Set<Int>, matched: inout Set<String>
    ) {
        var slicesOf: [String: [(date: Instant, tally: Tally)]] = [:]
        // The copies to add, with the receipt each goes to; made only if the receipts can hold them.
        var added: [(receipt: Int, transaction: Transaction)] = []
        var folds: [(receipt: Int, index: Int, transaction: Transaction)] = []
        var allFolded: [(receipt: Int, index: Int, transaction: Transaction)] = []
        for (id, list) in copies {
            let purchase = purchase(of: id, in: named)!
            matched.insert(purchase)
            let slices = slicesOf[purchase] ?? slices(named[purchase]!)
            slicesOf[purchase] = slices
            let first = slices[0].date
            // Copies by signing, unsigned first: each stands until the next one's signing.
            let bases = list.map { (copy: $0, transaction: values[$0.receipt]!.transactions[$0.index]) }.sorted {
                ($0.transaction.signedDate ?? .earliest) < ($1.transaction.signedDate ?? .earliest)
            }
            for (position, base) in bases.enumerated() {
                let signed = base.transaction.signedDate
                let next = bases[(position + 1)...].first { $0.transaction.signedDate != signed }?.transaction.signedDate
                let known = signed.flatMap { signed in slices.lastIndex { $0.date <= signed } }
                if let known {
                    folds.append((base.copy.receipt, base.copy.index, revoked(base.transaction, from: first, slices[known].tally)))
                }
                for slice in slices[((known ?? -1) + 1)...] where next.map({ slice.date < $0 }) ?? true {
                    var copy = revoked(base.transaction, from: first, slice.tally)
                    copy.signedDate = slice.date
                    added.append((base.copy.receipt, copy))
                }
                allFolded.append((base.copy.receipt, base.copy.index, revoked(base.transaction, from: first, slices[slices.count - 1].tally)))
            }
        }
        var counts: [Int: Int] = [:]
        for (receipt, _) in added { counts[receipt, default: values[receipt]!.transactions.count] += 1 }
        // More copies than a receipt may hold: every copy takes every fact at once instead.
        let fits = counts.values.allSatisfy { $0 <= ReceiptLimits.maxTransactions }
        for (receipt, index, transaction) in fits ? folds : allFolded where values[receipt]!.transactions[index] != transaction {
            values[receipt]!.transactions[index] = transaction
            changed.insert(receipt)
        }
        guard fits else { return }
        // In the order of the copies' ids and dates, so the receipts built are the same whatever
        // order the dictionary gave.
        for (receipt, transaction) in added.sorted(by: {
            ($0.transaction.transactionId, $0.transaction.signedDate ?? .earliest, $0.receipt) < (
                $1.transaction.transactionId, $1.transaction.signedDate ?? .earliest, $1.receipt
            )
        }) {
            values[receipt]!.transactions.append(transaction)
            changed.insert(receipt)
        }
    }

    /// A transaction cancelled from `first` by what `tally` took back; one its own data revoked
    /// no later keeps that date, and the larger share.
    private static func revoked(_ transaction: Transaction, from first: Instant, _ tally: Tally) -> Transaction {
        var result = transaction
        let share = tally.share(quantity: transaction.quantity)
        if let own = transaction.cancellationDate, own <= first {
            guard transaction.revocationType == .refundProrated, let percentage = transaction.revocationPercentage else { return result }
            if let share {
                result.revocationPercentage = max(percentage, share)
            } else {
                result.revocationType = .refundFull
                result.revocationPercentage = nil
            }
            return result
        }
        result.cancellationDate = first
        result.revocationType = share == nil ? .refundFull : .refundProrated
        result.revocationPercentage = share
        return result
    }
}
