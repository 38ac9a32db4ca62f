/// The consumption replies family's keys: `refundPreference` and its thresholds, and
/// `sampleContent`.
extension CatalogKey {
    /// What entitle answers Apple's consumption request with, for a refund of the product.
    package static let refundPreference = CatalogKey(
        "refundPreference",
        place(
            .catalog, .choiceOrObject(RefundPreference.names, what: "refund preference", .refundThresholds),
            "the refund preference of consumption-request replies for products that state none"),
        place(
            .product, .choiceOrObject(RefundPreference.names, what: "refund preference", .refundThresholds),
            "the refund preference of consumption-request replies: a preference, or thresholds on the share consumed"))
    /// Whether the product lets a customer try its content before paying.
    package static let sampleContent = CatalogKey(
        "sampleContent",
        place(
            .product, .flag(default: false),
            "the customer could try the content first (consumption replies' sampleContentProvided; a free trial or intro offer counts too)"))
    /// Below this share consumed, a full refund.
    package static let grantFullBelow = CatalogKey(
        "grantFullBelow",
        place(
            .refundThresholds, .integer(0...100, rule: "a percentage from 0 to 100"), "below this percentage consumed, prefer a full refund",
            .required))
    /// Below this share consumed, a prorated refund.
    package static let grantProratedBelow = CatalogKey(
        "grantProratedBelow",
        place(
            .refundThresholds, .integer(0...100, rule: "a percentage from 0 to 100"),
            "below this percentage consumed (and at least grantFullBelow), a prorated refund; at or above it, decline", .required))

    /// The keys of refund thresholds, in the order completion, help and the documentation list them.
    static let refundThresholdsOrder: [CatalogKey] = [comment, grantFullBelow, grantProratedBelow]
}
