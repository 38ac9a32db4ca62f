/// The part of a compiled product that evaluation reads for every transaction, as plain data.
///
/// Copying a ``CompiledProduct`` retains its strings and arrays; with one catalog shared by many
/// threads those retains contend on the same memory. A rule holds no references, so reading it
/// costs nothing shared. Grants and credits are ranges into flat arrays of the catalog.
struct ProductRule: Sendable {
    var type: ProductType
    /// Whether family-shared transactions count.
    var sharesWithFamily: Bool
    /// The trial's length in days, or 0 for a product that is not a trial.
    var trialDays: Int32
    /// Subscription group index, or -1.
    var group: Int32
    /// Pass group index of a non-renewing subscription, or -1.
    var passGroup: Int32 = -1
    var durationMonths: Int32
    var durationDays: Int32
    var durationMilliseconds: Int64
    /// Range in ``CompiledCatalog/ruleGrants``.
    var grants: Range<Int32>
    /// Range in ``CompiledCatalog/ruleCredits``.
    var credits: Range<Int32>
    /// An Advanced Commerce product: it gives through the items of its transactions
    /// (``CompiledCatalog/itemList``), not ``grants`` and ``credits`` (which are empty).
    var hasItems = false
}
