/// Play's replaced subscriptions, across a customer's receipts.
///
/// A Play subscription bought as an upgrade, a downgrade or a resubscription names the purchase it
/// replaces (`linkedPurchaseToken`, ``Transaction/linkedPurchaseToken``). The replaced chain ends,
/// at the latest, when the replacing purchase starts (its expiry is cut there, in every copy, even
/// when its own record, fetched earlier, still says it is active), and renews no more: its renewal
/// entries say `willRenew` false, and neither billing retry, grace nor a pause.
///
/// Evaluation applies this to the app's Play receipts together (``applied(_:own:)``), so the same
/// purchases read from one file or from several, in any order, give one answer; the Play importer
/// applies it to what it reads at once (``apply(transactions:renewals:)``), and applying it twice
/// changes nothing.
enum SubscriptionLinks {
    /// The receipts with the links of the app's Play receipts (`own`) applied across them; the
    /// same array when none has a link (a flag each receipt keeps: no look at its entries).
    static func applied(_ receipts: [ParsedReceipt], own: [Int]) -> [ParsedReceipt] {
        // The usual case costs a look at each receipt's flag, and allocates nothing.
        guard own.contains(where: { receipts[$0].hasLinks && receipts[$0].store == .play }) else { return receipts }
        let play = own.filter { receipts[$0].store == .play }
        let values = play.map { receipts[$0].receipt }
        let starts = starts(values.lazy.flatMap(\.transactions))
        var result = receipts
        for (index, value) in zip(play, values) {
            var receipt = value
            guard cut(&receipt.transactions, &receipt.renewals, starts: starts) else { continue }
            result[index] = ParsedReceipt(receipt)
        }
        return result
    }

    /// Applies the links among `transactions` to them and to `renewals` (one import's data).
    static func apply(transactions: inout [Transaction], renewals: inout [Renewal]) {
        _ = cut(&transactions, &renewals, starts: starts(transactions))
    }

    /// When each replaced purchase token's replacement starts: the earliest start of the
    /// purchases naming it.
    private static func starts<S: Sequence>(_ transactions: S) -> [String: Instant] where S.Element == Transaction {
        var starts: [String: Instant] = [:]
        for transaction in transactions {
            guard let token = transaction.linkedPurchaseToken else { continue }
            starts[token] = min(starts[token] ?? transaction.purchaseDate, transaction.purchaseDate)
        }
        return starts
    }

    /// Cuts the replaced chains; whether anything changed.
    private static func cut(_ transactions: inout [Transaction], _ renewals: inout [Renewal], starts: [String: Instant]) -> Bool {
        guard !starts.isEmpty else { return false }
        // A token's chain is the token, or `<token>:<productId>` for a subscription of several
        // items (Play's tokens and product ids hold no `:`).
        func start(of chain: String) -> Instant? {
            starts[chain] ?? chain.firstIndex(of: ":").flatMap { starts[String(chain[..<$0])] }
        }
        var changed = false
        for index in transactions.indices {
            guard let chain = transactions[index].originalTransactionId, let start = start(of: chain),
                let expiry = transactions[index].expiresDate, expiry > start
            else { continue }
            transactions[index].expiresDate = max(start, transactions[index].purchaseDate)
            changed = true
        }
        for index in renewals.indices where start(of: renewals[index].originalTransactionId) != nil {
            let before = renewals[index]
            renewals[index].willRenew = false
            renewals[index].isInBillingRetry = nil
            renewals[index].gracePeriodExpiresDate = nil
            renewals[index].pausedUntil = nil
            if renewals[index] != before { changed = true }
        }
        return changed
    }
}
