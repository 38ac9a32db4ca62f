/// The objects of a normalized receipt and their members: the one declaration the decoder's
/// unknown-key check reads (``ReceiptDecoder``), and that the JSON writer (`Receipt+JSON`),
/// `schemas/receipt.schema.json` and the Receipts article are checked against in the tests
/// (`ReceiptObjectTests`), so a member added to one and forgotten in another fails there.
enum ReceiptObject: String, CaseIterable, Sendable {
    case receipt
    case transaction
    /// A transaction's `commitment`.
    case commitment
    /// An Advanced Commerce item of a transaction.
    case item
    /// A refund of an item.
    case refund
    case renewal
    /// An Advanced Commerce item of a renewal entry.
    case renewalItem
    case grant
    case consumption
    /// A refund or void reported apart from its purchase.
    case revocation

    /// How a message names it: `transaction`, `renewal item`.
    var what: String { self == .renewalItem ? "renewal item" : rawValue }

    /// Its members, in the order the decoder numbers them.
    var keys: [String] {
        switch self {
        case .receipt:
            [
                "$schema", "app", "transactions", "renewals", "consumptions", "environment", "originalApplicationVersion",
                "originalPurchaseDate", "grants", "store", "appTransactionId", "originalPlatform", "preorderDate", "consentRescinded",
                "revocations",
            ]
        case .transaction:
            [
                "productId", "transactionId", "originalTransactionId", "purchaseDate", "originalPurchaseDate",
                "expiresDate", "cancellationDate", "quantity", "isTrialPeriod", "isIntroOfferPeriod", "isUpgraded", "ownership",
                "offerType", "offerId", "revocationReason", "signedDate", "revocationType", "revocationPercentage", "appAccountToken",
                "billingPlan", "commitment", "pending", "acknowledged", "account", "storefront", "appTransactionId",
                "offerPeriod", "offerDiscountType", "items", "linkedPurchaseToken", "purchaseOptionId", "releaseDate", "topUpAfter",
            ]
        case .commitment: ["period", "periods", "endsAt"]
        case .item: ["sku", "price", "revocationDate", "refunds"]
        case .refund: ["amount", "date", "type"]
        case .renewal:
            [
                "productId", "originalTransactionId", "willRenew", "isInBillingRetry", "gracePeriodExpiresDate", "signedDate", "renewsTo",
                "expirationIntent", "winBackOffers", "appAccountToken", "pausedUntil", "account", "appTransactionId",
                "renewalPrice", "currency", "items",
            ]
        case .renewalItem: ["sku", "price"]
        case .grant: ["id", "features", "start", "end", "revokedAt"]
        case .consumption: ["id", "currency", "amount", "date"]
        case .revocation: ["transactionId", "date", "voidedQuantity", "amount", "amountRefunded", "amountPaid", "id"]
        }
    }
}
