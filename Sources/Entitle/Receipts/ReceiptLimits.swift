/// What a receipt may hold. Every value read from a receipt, in any format, is checked against
/// these bounds and a receipt that exceeds one is rejected with a located error, so no receipt can
/// make evaluation overflow or take time out of proportion to its size.
///
/// The bounds are far beyond what the App Store produces (a purchase's quantity is at most 10
/// there, ids are a few dozen characters, a subscriber of ten years has a few hundred
/// transactions).
public enum ReceiptLimits {
    /// The largest receipt file read: 64 MiB.
    public static let maxBytes = 64 << 20
    /// How deeply JSON may nest.
    public static let maxDepth = 32
    /// Transactions in one receipt, copies included.
    public static let maxTransactions = 100_000
    /// Renewal entries in one receipt.
    public static let maxRenewals = 100_000
    /// Consumptions in one receipt.
    public static let maxConsumptions = 1_000_000
    /// Grants in one receipt.
    public static let maxGrants = 100_000
    /// Features one grant names.
    public static let maxGrantFeatures = 10_000
    /// The longest id (app, product, transaction, consumption, currency) and other text value, in
    /// UTF-8 bytes.
    public static let maxTextBytes = 256
    /// The largest `quantity` of one transaction.
    public static let maxQuantity = 1_000

    /// The quantity evaluation counts for a transaction: `quantity` within 1 to ``maxQuantity``
    /// (the decoder keeps it there; a receipt built in code may not, and is warned about).
    public static func countedQuantity(_ quantity: Int) -> Int { min(max(quantity, 1), maxQuantity) }
    /// Win-back offers one renewal entry lists.
    public static let maxWinBackOffers = 1_000
    /// The most billing periods of a commitment.
    public static let maxCommitmentPeriods = 1_000
    /// Advanced Commerce items of one transaction or renewal entry.
    public static let maxItems = 1_000
    /// Refunds of one Advanced Commerce item.
    public static let maxItemRefunds = 100
    /// Refunds and voids (``Receipt/revocations``) in one receipt.
    public static let maxRevocations = 100_000
    /// The largest amount of money a revocation names (`amount`, `amountRefunded`, `amountPaid`),
    /// in a currency's smallest unit.
    public static let maxRefundAmount: Int64 = 1_000_000_000_000_000
    /// The largest `amount` of one consumption.
    public static let maxConsumptionAmount: Int64 = 1_000_000_000_000
}
