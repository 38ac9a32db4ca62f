import Foundation

/// The orders evaluation reads entries in: by product, then purchase order; transaction ids
/// numerically where both are digits.
extension Evaluator {
    /// Sorts entries by product, then in purchase order. Entries are large: their positions are
    /// sorted (on the stack), then each entry moves once, following the permutation's cycles.
    static func sortByProduct(_ entries: inout [Entry], receipts: [ParsedReceipt]) {
        let count = entries.count
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { buffer in
            var order = buffer
            for index in 0..<count { order[index] = Int32(index) }
            entries.withUnsafeMutableBufferPointer { entries in
                order.sort { a, b in
                    let (left, right) = (entries[Int(a)], entries[Int(b)])
                    if left.product != right.product { return left.product < right.product }
                    return precedes(left, right, receipts: receipts)
                }
                // Position `index` takes the entry at `order[index]`; a placed position is marked -1.
                for start in 0..<count where order[start] >= 0 && Int(order[start]) != start {
                    let held = entries[start]
                    var position = start
                    while true {
                        let source = Int(order[position])
                        order[position] = -1
                        if source == start {
                            entries[position] = held
                            break
                        }
                        entries[position] = entries[source]
                        position = source
                    }
                }
            }
        }
    }

    /// Purchase order: by purchase date, ties by transaction id, numerically when both are digits.
    @inline(__always)
    static func precedes(_ a: Entry, _ b: Entry, receipts: [ParsedReceipt]) -> Bool {
        if a.purchase != b.purchase { return a.purchase < b.purchase }
        return receipts[Int(a.receipt)].transactionIdPrecedes(a.record.transactionId, receipts[Int(b.receipt)], b.record.transactionId)
    }
}

/// A product with transactions, after evaluation.
struct ProductOutcome: Sendable, Equatable {
    var product: Int32
    var state: ProductState
    /// End of the covering span, `CoverageSpan.never` when it never ends or does not cover.
    var until: Int64
    /// Its coverage runs that end after the instant, in the evaluation's span buffer.
    var spans: Range<Int32>
    /// For a scheduled pass, the start of its first queued purchase; for a paused subscription,
    /// when it resumes; else `Int64.min`.
    var startsAt: Int64 = .min
    /// From the chain's renewal entries: 0 false, 1 true, 2 unknown.
    var willRenew: UInt8 = 2
    /// The product it renews to, when that is another product.
    var renewsTo: String?
    /// The commitment of its latest counted transaction, for a subscription billed monthly.
    var commitment: CommitmentRecord?
    /// From the chain's renewal entries: what the next renewal costs.
    var renewalPrice: Price?
    /// When the offer its latest counted transaction was bought with ends; `Int64.min` when none.
    var offerEndsAt: Int64 = .min
    /// For a Play prepaid plan that covers: the latest instant after which its counted purchases
    /// may be topped up (``Transaction/topUpAfter``); `Int64.min` when none says.
    var topUpAfter: Int64 = .min
    /// For a product that covers, in a catalog with a limit that adds quantities: the quantity of
    /// its covering transaction; else 1.
    var quantity: Int64 = 1
}

extension ProductOutcome {
    /// Whether the two give the same product status (what a result shows of an outcome).
    func readsTheSame(as other: ProductOutcome) -> Bool {
        guard product == other.product, state == other.state, willRenew == other.willRenew, renewsTo == other.renewsTo,
            commitment == other.commitment, renewalPrice == other.renewalPrice, offerEndsAt == other.offerEndsAt
        else { return false }
        if state.covers && until != other.until { return false }
        return (state != .scheduled && state != .paused && state != .preordered) || startsAt == other.startsAt
    }
}

/// An enabled feature and the end of its unbroken coverage.
struct FeatureOutcome: Sendable, Equatable {
    var feature: Int32
    var until: Int64
}

extension TransactionRecord {
    /// The id of the subscription chain: the original transaction's, else its own.
    var chainId: TextRange { originalTransactionId.isNone ? transactionId : originalTransactionId }
}

extension ProductRule {
    /// Whether a transaction of this product counts for nothing because it is family-shared and
    /// the product is not family-shareable.
    @inline(__always)
    func ignores(_ record: TransactionRecord) -> Bool {
        record.flags & TransactionRecord.familyShared != 0 && !sharesWithFamily
    }
}

extension ParsedReceipt {
    /// Byte-wise ordering of two ranges, for deterministic tie-breaks.
    func lexicographicallyPrecedes(_ range: TextRange, _ other: ParsedReceipt, _ otherRange: TextRange) -> Bool {
        arena[Int(range.start)..<Int(range.start + range.count)]
            .lexicographicallyPrecedes(other.arena[Int(otherRange.start)..<Int(otherRange.start + otherRange.count)])
    }

    /// Transaction ids in order: numerically when both are digits (`9` before `10`), else byte-wise.
    func transactionIdPrecedes(_ range: TextRange, _ other: ParsedReceipt, _ otherRange: TextRange) -> Bool {
        let left = arena[Int(range.start)..<Int(range.start + range.count)]
        let right = other.arena[Int(otherRange.start)..<Int(otherRange.start + otherRange.count)]
        func isDigits(_ bytes: ArraySlice<UInt8>) -> Bool { !bytes.isEmpty && bytes.allSatisfy { $0 &- UInt8(ascii: "0") < 10 } }
        if isDigits(left), isDigits(right) {
            let a = left.drop { $0 == UInt8(ascii: "0") }
            let b = right.drop { $0 == UInt8(ascii: "0") }
            if a.count != b.count { return a.count < b.count }
            if !a.elementsEqual(b) { return a.lexicographicallyPrecedes(b) }
            // The same number written differently (`07`, `7`): the bytes decide.
        }
        return left.lexicographicallyPrecedes(right)
    }
}
