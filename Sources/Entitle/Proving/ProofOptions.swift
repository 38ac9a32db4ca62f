/// What a proof searches: how many transactions a customer has at most, and which receipt
/// environments evaluation accepts.
///
/// The search is described in `Sources/Entitle/Entitle.docc/Proving.md` ("Proving a catalog
/// change"): every customer of up to ``depth`` transactions built from the catalogs, at every
/// instant at which an answer changes.
public struct ProofOptions: Sendable, Hashable {
    /// The depths a search may have: 1 to 4 transactions per customer.
    public static let depths: ClosedRange<Int> = 1...4

    /// The most transactions a searched customer has (a service grant or another app's receipt
    /// counting as one), within ``depths``.
    public var depth: Int
    /// The receipt environments evaluation accepts, as `CompiledCatalog.evaluate(_:at:environments:)`
    /// takes them; `nil` accepts all.
    public var environments: Set<String>?
    /// How many threads search at once; `nil`: one per active processor.
    public var threads: Int?
    /// The most customers the combinations of two or more elements may take, as estimated before
    /// the search starts (each combination: the ways of each element multiplied, times 8 placements
    /// per element after the first, times the receipt-fact variants it needs). Combinations past
    /// it are not searched, and the report says so (``ProofStatistics/isComplete``); every element
    /// alone always is. The default, 30 million, is some minutes on two cores.
    public var maxCustomers = 30_000_000
    /// How long the search may take: past it, no further combination is begun, the ones begun
    /// finish, and the report says the search is not complete and up to which depth every
    /// customer was searched (``ProofStatistics/stoppedAtDepth``). Every element alone is always
    /// searched. `nil` (the default): no limit. The only thing a proof reads the clock for.
    public var timeLimit: Duration?
    /// Whether combinations are searched only within what one part of the answer reads (the
    /// search's argument); off, every combination is (for tests of the argument).
    var relatedOnly = true
    /// Whether parts of the answer that read nothing that changed are left unsearched; off, they
    /// are searched too (for tests of that argument).
    var skipsUnchanged = true
    /// Whether customers the catalogs of a comparison cannot tell apart are searched once:
    /// variants of the receipt facts that every grandfather rule answers alike, and customers of
    /// two or more elements none of which reaches a changed definition, on the parts of the
    /// answer whose own definition did not change (`ReceiptSpace+Equivalence`); off, every one is
    /// searched (for tests of that argument).
    var searchesEquivalentOnce = true

    /// Creates options.
    ///
    /// - Parameters:
    ///   - depth: the most transactions per searched customer, clamped to ``depths`` (default 2).
    ///   - environments: the receipt environments evaluation accepts; `nil` accepts all.
    ///   - threads: how many threads search at once; `nil`: one per active processor.
    public init(depth: Int = 2, environments: Set<String>? = nil, threads: Int? = nil) {
        self.depth = min(max(depth, Self.depths.lowerBound), Self.depths.upperBound)
        self.environments = environments
        self.threads = threads.map { max(1, $0) }
    }
}
