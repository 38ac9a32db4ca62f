import Foundation

/// A receipt decoded into numbers and one block of text: the form evaluation reads.
///
/// Decoding builds no `String` per field: ids are ranges into one byte arena, instants are
/// milliseconds. A service that evaluates one receipt at many instants decodes it once;
/// ``receipt`` gives the same data as a ``Receipt`` value when it is needed.
public struct ParsedReceipt: Sendable {
    /// A receipt's fields while it is built (by the decoder, or from a ``Receipt`` value).
    struct Fields: Sendable {
        var arena: [UInt8]
        var appRange: TextRange
        var transactions: [TransactionRecord]
        var renewals: [RenewalRecord]
        var consumptions: [ConsumptionRecord]
        var environment: String?
        var originalApplicationVersion: String?
        /// When the customer first got the app; `Int64.min` when absent.
        var originalPurchase: Int64 = TransactionRecord.absentDate
        var grants: [GrantRecord] = []
        /// The feature ids of all grants, as ranges into the arena.
        var grantFeatures: [TextRange] = []
        /// The offer ids renewal entries list (``RenewalRecord/winBackOffers``), as ranges into the arena.
        var offerIds: [TextRange] = []
        /// The commitments of transactions billed monthly (``TransactionRecord/commitment``).
        var commitments: [CommitmentRecord] = []
        /// The offer periods of transactions bought with an offer (``TransactionRecord/offerPeriod``).
        var offerPeriods: [ISODuration] = []
        /// Purchase options, releases and top-up instants (``TransactionRecord/terms``).
        var terms: [PurchaseTermsRecord] = []
        /// The Advanced Commerce items of transactions and renewal entries, and their refunds.
        var items: [ItemRecord] = []
        var itemRefunds: [ItemRefundRecord] = []
        /// The store the purchases were made in.
        var store: Store = .appStore
        /// The app transaction's facts (``Receipt/appTransactionId`` and the next ones).
        var appTransactionId: String?
        var originalPlatform: AppPlatform?
        /// `Int64.min` when absent.
        var preorder: Int64 = TransactionRecord.absentDate
        /// When the customer rescinded consent; `Int64.max` when they did not.
        var consentRescinded: Int64 = TransactionRecord.noCancellation
        /// Whether a transaction names a subscription it replaced (``TransactionRecord/linkedToken``),
        /// which evaluation applies across the customer's receipts.
        var hasLinks = false
        /// Refunds and voids reported apart from their purchases (``Receipt/revocations``): a few,
        /// when any, kept as values.
        var revocations: [Revocation] = []

        init() {
            arena = []
            appRange = .none
            transactions = []
            renewals = []
            consumptions = []
        }

        /// Appends bytes to the arena and returns their range.
        mutating func store(_ bytes: UnsafeRawBufferPointer) -> TextRange {
            let start = arena.count
            // Typed bytes append with one copy; a raw buffer would go element by element.
            arena.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
            return TextRange(start: Int32(start), count: Int32(bytes.count))
        }

        mutating func store(_ string: String) -> TextRange {
            var string = string
            return string.withUTF8 { store(UnsafeRawBufferPointer($0)) }
        }

        /// The hash of the text at `range`, as ``ByteKeyTable`` computes it.
        func hash(_ range: TextRange) -> UInt64 { ParsedReceipt.hash(range, in: arena) }
    }

    /// The fields, in one object that never changes: evaluation copies receipts often (into
    /// lists, through closures), and a copy costs one reference count this way, not one per list.
    final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private let storage: Storage

    /// The receipt of fields built.
    init(_ fields: Fields) { storage = Storage(fields) }

    /// The fields, to build another receipt from.
    var fields: Fields { storage.fields }

    var arena: [UInt8] { storage.fields.arena }
    var appRange: TextRange { storage.fields.appRange }
    var transactions: [TransactionRecord] { storage.fields.transactions }
    var renewals: [RenewalRecord] { storage.fields.renewals }
    var consumptions: [ConsumptionRecord] { storage.fields.consumptions }
    var environment: String? { storage.fields.environment }
    var originalApplicationVersion: String? { storage.fields.originalApplicationVersion }
    /// When the customer first got the app; `Int64.min` when absent.
    var originalPurchase: Int64 { storage.fields.originalPurchase }
    var grants: [GrantRecord] { storage.fields.grants }
    /// The feature ids of all grants, as ranges into the arena.
    var grantFeatures: [TextRange] { storage.fields.grantFeatures }
    /// The offer ids renewal entries list (``RenewalRecord/winBackOffers``), as ranges into the arena.
    var offerIds: [TextRange] { storage.fields.offerIds }
    /// The commitments of transactions billed monthly (``TransactionRecord/commitment``).
    var commitments: [CommitmentRecord] { storage.fields.commitments }
    /// The offer periods of transactions bought with an offer (``TransactionRecord/offerPeriod``).
    var offerPeriods: [ISODuration] { storage.fields.offerPeriods }
    /// Purchase options, releases and top-up instants (``TransactionRecord/terms``).
    var terms: [PurchaseTermsRecord] { storage.fields.terms }
    /// The Advanced Commerce items of transactions and renewal entries, and their refunds.
    var items: [ItemRecord] { storage.fields.items }
    var itemRefunds: [ItemRefundRecord] { storage.fields.itemRefunds }
    /// The store the purchases were made in.
    public var store: Store { storage.fields.store }
    var appTransactionId: String? { storage.fields.appTransactionId }
    var originalPlatform: AppPlatform? { storage.fields.originalPlatform }
    /// When the customer pre-ordered the app; `Int64.min` when absent.
    var preorder: Int64 { storage.fields.preorder }
    /// When the customer rescinded consent; `Int64.max` when they did not.
    var consentRescinded: Int64 { storage.fields.consentRescinded }
    /// Whether a transaction names a subscription it replaced.
    var hasLinks: Bool { storage.fields.hasLinks }
    /// Refunds and voids reported apart from their purchases.
    var revocations: [Revocation] { storage.fields.revocations }

    /// Decodes normalized receipt JSON.
    ///
    /// - Parameters:
    ///   - json: the receipt's bytes.
    ///   - name: the file name to use in the error's location.
    /// - Throws: ``ReceiptError`` locating the first problem.
    public init(json: Data, name: String = "<receipt>") throws(ReceiptError) {
        self = try ReceiptDecoder.parse(json, name: name)
    }

    /// The bundle id of the app the receipt belongs to.
    public var app: String { text(appRange) ?? "" }

    /// The number of transactions, copies included.
    public var transactionCount: Int { transactions.count }

    func text(_ range: TextRange) -> String? {
        guard !range.isNone else { return nil }
        return String(decoding: arena[Int(range.start)..<Int(range.start + range.count)], as: UTF8.self)
    }

    func bytesEqual(_ range: TextRange, _ other: ParsedReceipt, _ otherRange: TextRange) -> Bool {
        guard range.count == otherRange.count else { return false }
        return other.arena.withUnsafeBufferPointer { otherArena in
            bytesEqual(range, UnsafeBufferPointer(rebasing: otherArena[Int(otherRange.start)..<Int(otherRange.start + otherRange.count)]))
        }
    }

    /// Whether the text at `range` is `bytes` (one `memcmp`: evaluation compares ids often).
    func bytesEqual(_ range: TextRange, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !range.isNone, Int(range.count) == bytes.count else { return false }
        guard bytes.count > 0 else { return true }
        return arena.withUnsafeBufferPointer { arena in
            memcmp(arena.baseAddress! + Int(range.start), bytes.baseAddress!, bytes.count) == 0
        }
    }

    func bytesEqual(_ range: TextRange, _ string: String) -> Bool {
        !range.isNone && arena[Int(range.start)..<Int(range.start + range.count)].elementsEqual(string.utf8)
    }

    /// Whether two grants (of this receipt and `other`) have the same content.
    func sameGrant(_ grant: GrantRecord, _ other: ParsedReceipt, _ otherGrant: GrantRecord) -> Bool {
        guard grant.start == otherGrant.start, grant.end == otherGrant.end, grant.revoked == otherGrant.revoked,
            grant.features.count == otherGrant.features.count
        else { return false }
        return zip(grant.features, otherGrant.features).allSatisfy { a, b in
            bytesEqual(grantFeatures[Int(a)], other, other.grantFeatures[Int(b)])
        }
    }
}
