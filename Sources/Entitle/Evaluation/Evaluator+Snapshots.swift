/// Snapshots of a transaction: the App Store sends a new signed copy of a transaction when it
/// changes (a refund, its reversal, a renewal date extension, a family-sharing revocation).
///
/// - Copies of one `transactionId` are ordered by `signedDate`, copies without one first.
/// - At an instant, the transaction is what its latest copy signed at or before the instant says,
///   read whole; when none is signed by then, its earliest copy.
/// - Copies of equal rank (unsigned ones among themselves, signed ones with one `signedDate`)
///   merge: the earliest cancellation with its revocation fields, the latest expiry, and every
///   other field from the copy whose normalized JSON sorts first by bytes; one
///   `conflicting-transaction` warning when they disagree on more than cancellation and expiry.
extension Evaluator {
    /// The entries at `at`: each transaction with several copies resolved to what stands for it.
    static func resolve<R: EvaluationRecorder>(
        _ catalog: CompiledCatalog, _ deduplicated: Deduplicated, receipts: [ParsedReceipt], at: Int64,
        recorder: inout R, warnings: inout [EvaluationWarning]
    ) -> [Entry] {
        guard !deduplicated.snapshots.isEmpty else { return deduplicated.entries }
        var entries = deduplicated.entries
        for position in entries.indices where !entries[position].copies.isEmpty {
            let copies = entries[position].copies
            entries[position] = resolve(
                catalog, copies: copies, snapshots: deduplicated.snapshots, receipts: receipts, at: at,
                recorder: &recorder, warnings: &warnings)
        }
        return entries
    }

    private static func resolve<R: EvaluationRecorder>(
        _ catalog: CompiledCatalog, copies: Range<Int32>, snapshots: [Snapshot], receipts: [ParsedReceipt], at: Int64,
        recorder: inout R, warnings: inout [EvaluationWarning]
    ) -> Entry {
        let group = snapshots[Int(copies.lowerBound)..<Int(copies.upperBound)]
        // The copies of the standing rank: the latest signed by `at`, else the earliest.
        var end = group.endIndex
        while end > group.startIndex, group[end - 1].rank > at { end -= 1 }
        var start: Int
        if end == group.startIndex {
            start = group.startIndex
            end = start + 1
            while end < group.endIndex, group[end].rank == group[start].rank { end += 1 }
        } else {
            start = end - 1
            while start > group.startIndex, group[start - 1].rank == group[end - 1].rank { start -= 1 }
        }
        let base = group[start]
        let baseReceipt = receipts[Int(base.receipt)]
        var record = baseReceipt.transactions[Int(base.index)]
        var cancelledBy = start
        var expiresBy = start
        var conflicting = false
        for position in (start + 1)..<end {
            let copy = group[position]
            let other = receipts[Int(copy.receipt)]
            let candidate = other.transactions[Int(copy.index)]
            if candidate.cancellation < record.cancellation {
                record.cancellation = candidate.cancellation
                record.revocationType = candidate.revocationType
                record.revocationPercentage = candidate.revocationPercentage
                record.revocationReason = candidate.revocationReason
                cancelledBy = position
            }
            if candidate.expires > record.expires {
                record.expires = candidate.expires
                expiresBy = position
            }
            if !conflicting, !baseReceipt.sameTransaction(baseReceipt.transactions[Int(base.index)], other, candidate) {
                conflicting = true
            }
        }
        if conflicting {
            warnings.append(EvaluationWarning(kind: .conflictingTransaction(transactionId: baseReceipt.text(record.transactionId)!)))
        }
        var entry = baseReceipt.arena.withUnsafeBytes { arena in
            Self.entry(
                catalog, record, receipt: Int(base.receipt), index: Int(base.index), arena: arena, store: baseReceipt.store,
                terms: baseReceipt.terms)
        }
        entry.copies = copies
        if R.records {
            var others: [(receipt: Int32, index: Int32, role: SnapshotRole)] = []
            for position in group.indices where position != start {
                let copy = group[position]
                let role: SnapshotRole =
                    position >= start && position < end
                    ? .merged(cancellation: position == cancelledBy, expiry: position == expiresBy)
                    : copy.rank > at ? .signedLater(copy.rank) : .superseded(by: base.rank)
                others.append((copy.receipt, copy.index, role))
            }
            recorder.snapshots(SnapshotDecision(standing: (base.receipt, base.index), others: others, conflicting: conflicting))
        }
        return entry
    }

    /// The signing dates after `at` of transactions with several copies: from each of them on, a
    /// later snapshot may stand for its transaction; and the purchases and cancellations after
    /// `at` that such a snapshot states, which the entries standing at `at` may not.
    static func snapshotDates(_ deduplicated: Deduplicated, receipts: [ParsedReceipt], after at: Int64) -> [Int64] {
        var dates: [Int64] = []
        for copy in deduplicated.snapshots where copy.rank > at {
            dates.append(copy.rank)
            let record = receipts[Int(copy.receipt)].transactions[Int(copy.index)]
            if record.purchase > at { dates.append(record.purchase) }
            if record.cancellation > at, record.cancellation != TransactionRecord.noCancellation { dates.append(record.cancellation) }
            // A Play purchase not acknowledged is refunded at its deadline, which no field states.
            if record.flags & (TransactionRecord.unacknowledged | TransactionRecord.pending) == TransactionRecord.unacknowledged,
                case let deadline = record.acknowledgementDeadline(release: Evaluator.release(of: record, in: receipts[Int(copy.receipt)])),
                deadline > at
            {
                dates.append(deadline)
            }
        }
        return dates
    }
}

extension ParsedReceipt {
    /// Whether two copies of a transaction say the same, cancellation (with its revocation
    /// fields) and expiry aside.
    func sameTransaction(_ a: TransactionRecord, _ other: ParsedReceipt, _ b: TransactionRecord) -> Bool {
        func same(_ x: TextRange, _ y: TextRange) -> Bool { x.isNone || y.isNone ? x.isNone == y.isNone : bytesEqual(x, other, y) }
        guard a.purchase == b.purchase, a.originalPurchase == b.originalPurchase, a.quantity == b.quantity, a.flags == b.flags,
            a.offerType == b.offerType, a.billingPlan == b.billingPlan, a.signed == b.signed,
            same(a.productId, b.productId), same(a.originalTransactionId, b.originalTransactionId), same(a.offerId, b.offerId),
            same(a.accountToken, b.accountToken), same(a.storefront, b.storefront)
        else { return false }
        let left = a.commitment < 0 ? nil : commitments[Int(a.commitment)]
        let right = b.commitment < 0 ? nil : other.commitments[Int(b.commitment)]
        let leftTerms = a.terms < 0 ? PurchaseTermsRecord() : terms[Int(a.terms)]
        let rightTerms = b.terms < 0 ? PurchaseTermsRecord() : other.terms[Int(b.terms)]
        // (A prepaid plan's top-up instant moves as its snapshots do: not a conflict.)
        return left == right && sameItems(a.items, other, b.items) && leftTerms.release == rightTerms.release
            && same(leftTerms.optionProduct, rightTerms.optionProduct)
    }
}
