/// What a catalog may hold. A catalog beyond one of these bounds gets a located error; within
/// them, no evaluation can overflow.
public enum CatalogLimits {
    /// The largest catalog file read: 32 MiB.
    public static let maxBytes = 32 << 20
    /// How deeply its JSON may nest.
    public static let maxDepth = 64
    /// Products in one catalog (App Store Connect allows 10,000 in-app purchases per app).
    public static let maxProducts = 10_000
    /// Win-back and promotional offers of one product.
    public static let maxOffersPerProduct = 1_000
    /// Retention rules of one product.
    public static let maxRetentionRules = 100
    /// The SKUs one Advanced Commerce product declares under `items`.
    public static let maxItemsPerProduct = 1_000
    /// Declared features, and declared currencies, each.
    public static let maxDeclarations = 10_000
    /// The longest id (app, product, feature, currency, group), in UTF-8 bytes.
    public static let maxIdentifierBytes = 256
    /// The largest amount one unit of a consumable credits.
    public static let maxCredit: Int64 = 1_000_000_000
    /// The largest value a product or a declaration gives a number limit (`limits`): 10^12.
    public static let maxLimitValue: Int64 = 1_000_000_000_000
    /// The most diagnostics one catalog file reports; the rest are counted in one closing
    /// diagnostic (a file with two million mistakes is not two million lines of output).
    public static let maxDiagnosticsPerFile = 1_000
    /// The longest duration, in nominal days (``ISODuration/maximumNominalDays``: `P100Y`).
    public static let maxDurationNominalDays = ISODuration.maximumNominalDays
}
