/// A refund or void a store reports apart from the purchase it takes back: a Google Play
/// `VoidedPurchase` (or voided-purchase notification), a Stripe Refund, or the running total of a
/// refunded Charge.
///
/// Such a fact names a purchase and may arrive before it, after it, in another file or in another
/// ``CustomerHistory/add(_:)-(Receipt)``: it is kept in the receipt it came in
/// (``Receipt/revocations``), and evaluation applies it to the customer's purchase it names,
/// whichever receipt of the app and store holds that purchase (<doc:Receipts>, "Refunds and voids"). One that names
/// no purchase of the customer changes nothing and is warned about (`unmatched-revocation`).
///
/// In a normalized receipt:
///
/// ```json
/// "revocations": [
///   {"transactionId": "GPA.1234-5678-9012-34567", "date": "2026-03-05T00:00:00Z", "voidedQuantity": 1},
///   {"transactionId": "pi_3Q1", "date": "2026-03-06T00:00:00Z", "id": "re_1", "amount": 500, "amountPaid": 1500}
/// ]
/// ```
public struct Revocation: Hashable, Sendable {
    /// The purchase it takes back, as its transactions are named: a Play order id (or the purchase
    /// token of a purchase without one), a Stripe payment intent. It applies to the transaction of
    /// that id and to those named `<transactionId>:<n>` (each line of a purchase of several products).
    public var transactionId: String
    /// When the purchase was refunded or voided: from then on it grants nothing (a consumable
    /// credits what the share refunded leaves).
    public var date: Instant
    /// How many units of the purchase were voided (Play's `voidedQuantity`); more than the purchase
    /// bought is an error in a receipt holding both. Without it, and without an amount, the whole
    /// purchase.
    public var voidedQuantity: Int?
    /// The amount of this one refund, in the currency's smallest unit (Stripe's `amount`).
    public var amount: Int64?
    /// Everything refunded from the payment so far (a Charge's `amount_refunded`), in place of
    /// `amount`.
    public var amountRefunded: Int64?
    /// What the payment charged, when the data says (a Charge's `amount`, a Checkout Session's
    /// `amount_total`): the share refunded is the amounts over it. When no fact of the payment
    /// says, a refund takes back the whole purchase.
    public var amountPaid: Int64?
    /// The store's id of the refund (Stripe's `re_...`): one refund read twice (alone and in its
    /// Charge) counts once.
    public var id: String?

    /// Creates a revocation.
    public init(
        transactionId: String, date: Instant, voidedQuantity: Int? = nil, amount: Int64? = nil, amountRefunded: Int64? = nil,
        amountPaid: Int64? = nil, id: String? = nil
    ) {
        self.transactionId = transactionId
        self.date = date
        self.voidedQuantity = voidedQuantity
        self.amount = amount
        self.amountRefunded = amountRefunded
        self.amountPaid = amountPaid
        self.id = id
    }

    /// Whether it takes back the whole purchase whatever was bought: no quantity, no amount.
    var isWhole: Bool { voidedQuantity == nil && amount == nil && amountRefunded == nil }
}
