/// A run of bytes in a ``ParsedReceipt``'s text arena.
struct TextRange: Hashable, Sendable {
    var start: Int32
    var count: Int32

    static let none = TextRange(start: 0, count: -1)
    var isNone: Bool { count < 0 }
}

/// One transaction reduced to numbers and text ranges.
struct TransactionRecord: Sendable {
    static let trialPeriod: UInt8 = 1
    static let introOfferPeriod: UInt8 = 2
    static let upgraded: UInt8 = 4
    static let familyShared: UInt8 = 8
    /// Bought but not paid yet: it counts for nothing.
    static let pending: UInt8 = 16
    /// A Play purchase the app did not acknowledge: refunded three days after its purchase.
    static let unacknowledged: UInt8 = 32

    var productId: TextRange
    var transactionId: TextRange
    var transactionIdHash: UInt64
    /// `.none` when absent.
    var originalTransactionId: TextRange
    var purchase: Int64
    /// `Int64.min` when absent.
    var originalPurchase: Int64
    /// `Int64.min` when absent.
    var expires: Int64
    /// `Int64.max` when absent.
    var cancellation: Int64
    var quantity: Int32
    var flags: UInt8
    /// `Transaction.OfferType` by its index in `allCases`, plus one; 0 when absent.
    var offerType: UInt8 = 0
    /// `Transaction.RevocationReason` by its index, plus one; 0 when absent.
    var revocationReason: UInt8 = 0
    var offerId: TextRange = .none
    /// When this snapshot of the transaction was signed; `Int64.min` when absent.
    var signed: Int64 = TransactionRecord.absentDate
    /// `Transaction.RevocationType` by its index, plus one; 0 when absent.
    var revocationType: UInt8 = 0
    /// `Transaction.BillingPlan` by its index, plus one; 0 when absent.
    var billingPlan: UInt8 = 0
    /// The part refunded, in thousandths of a percent (0 to 100,000); -1 when absent.
    var revocationPercentage: Int32 = -1
    /// The customer's account, `.none` when absent: an App Store receipt's `appAccountToken` (a
    /// UUID, lowercase), another store's `account` as written.
    var accountToken: TextRange = .none
    /// The purchase's storefront (alpha-3), `.none` when absent.
    var storefront: TextRange = .none
    /// Index into ``ParsedReceipt/commitments``, -1 when absent.
    var commitment: Int32 = -1
    /// Apple's `appTransactionId`, `.none` when absent (carried along).
    var appTransactionId: TextRange = .none
    /// Index into ``ParsedReceipt/offerPeriods``, -1 when absent.
    var offerPeriod: Int32 = -1
    /// `Transaction.OfferDiscountType` by its index, plus one; 0 when absent.
    var offerDiscountType: UInt8 = 0
    /// Its Advanced Commerce items, a range into ``ParsedReceipt/items``, sorted by SKU.
    var items: Range<Int32> = 0..<0
    /// The purchase token of the Play subscription it replaced (``Transaction/linkedPurchaseToken``).
    var linkedToken: TextRange = .none
    /// Index into ``ParsedReceipt/terms`` (a purchase option, a release, a top-up instant), -1
    /// when it has none.
    var terms: Int32 = -1

    static let absentDate = Int64.min
    static let noCancellation = Int64.max
    /// How long Google gives an app to acknowledge a Play purchase before refunding it: 3 days.
    static let acknowledgementWindow: Int64 = 3 * 86_400_000

    /// When an unacknowledged Play purchase is refunded: three days after its purchase, or for a
    /// pre-order after its `release` (``Evaluator/release(of:in:)``), when it is bought.
    func acknowledgementDeadline(release: Int64) -> Int64 {
        let (deadline, overflow) = max(purchase, release).addingReportingOverflow(Self.acknowledgementWindow)
        return overflow ? Int64.max - 1 : deadline
    }
    /// A percentage of 100, in thousandths.
    static let wholePercentage: Int32 = 100_000
}

/// What a few purchases say about when and as what they count: Play's purchase options, a
/// pre-order's release, a prepaid plan's top-up instant.
struct PurchaseTermsRecord: Sendable, Hashable {
    /// `<productId>:<purchaseOptionId>` in the arena (the catalog product tried first), `.none`
    /// without a purchase option.
    var optionProduct: TextRange = .none
    /// When a pre-order is released; `Int64.min` when absent.
    var release: Int64 = TransactionRecord.absentDate
    /// After when a prepaid plan may be topped up; `Int64.min` when absent.
    var topUpAfter: Int64 = TransactionRecord.absentDate
}

/// A transaction's monthly billing commitment (Apple's `commitmentInfo`).
struct CommitmentRecord: Sendable, Equatable {
    /// Which billing period of the commitment this transaction is, from 1.
    var period: Int32
    /// How many periods the commitment has.
    var periods: Int32
    /// When the commitment ends.
    var ends: Int64
}

/// One renewal entry: which chain, and until when its grace period extends access.
struct RenewalRecord: Sendable {
    var productId: TextRange
    var originalTransactionId: TextRange
    /// 0 false, 1 true, 2 absent.
    var willRenew: UInt8
    var isInBillingRetry: UInt8
    /// `Int64.min` when absent.
    var graceExpires: Int64
    /// `Int64.min` when absent (the entry counts at every instant).
    var signed: Int64 = TransactionRecord.absentDate
    var renewsTo: TextRange = .none
    /// `Renewal.ExpirationIntent` by its index plus one; 0 when absent.
    var expirationIntent: UInt8 = 0
    /// The customer's account, `.none` when absent (as a transaction's ``TransactionRecord/accountToken``).
    var accountToken: TextRange = .none
    /// Until when the chain is paused; `Int64.min` when not.
    var pausedUntil: Int64 = TransactionRecord.absentDate
    /// Apple's eligible win-back offers: a range into ``ParsedReceipt/offerIds``; `nil` when the
    /// entry does not say (an empty range says none is eligible).
    var winBackOffers: Range<Int32>?
    /// Apple's `appTransactionId`, `.none` when absent (carried along).
    var appTransactionId: TextRange = .none
    /// The next renewal's price (a decimal string) and currency; both `.none` or neither.
    var renewalPrice: TextRange = .none
    var currency: TextRange = .none
    /// The next renewal's Advanced Commerce items, a range into ``ParsedReceipt/items``.
    var items: Range<Int32> = 0..<0
}

/// A record a receipt identifies by an id of its own, which must name one content.
protocol IdentifiedRecord {
    var id: TextRange { get }
    var idHash: UInt64 { get }
}

/// One grant of access by the service: its id, features (ranges into the arena), and span.
struct GrantRecord: Sendable, IdentifiedRecord {
    var id: TextRange
    var idHash: UInt64
    /// Range into ``ParsedReceipt/grantFeatures``.
    var features: Range<Int32>
    var start: Int64
    /// `Int64.max` when there is no end.
    var end: Int64
    /// `Int64.max` when not revoked.
    var revoked: Int64
}

/// One consumption.
struct ConsumptionRecord: Sendable, IdentifiedRecord {
    var id: TextRange
    var idHash: UInt64
    var currency: TextRange
    var amount: Int64
    var date: Int64
}

extension TransactionRecord {
    /// The quantity evaluation counts: `quantity` within 1 to ``ReceiptLimits/maxQuantity`` (the
    /// decoder guarantees that; a receipt built in code may hold anything, and is warned about).
    @inline(__always)
    var countedQuantity: Int64 { Int64(ReceiptLimits.countedQuantity(Int(quantity))) }

    /// Whether `quantity` is outside what evaluation counts.
    var quantityOutOfRange: Bool { quantity < 1 || quantity > Int32(ReceiptLimits.maxQuantity) }
}
