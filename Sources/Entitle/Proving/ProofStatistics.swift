/// What a search looked at: how many customers, evaluations and combinations of elements.
public struct ProofStatistics: Hashable, Sendable, Codable {
    /// Customers evaluated (each placement in time counted once).
    public var customers = 0
    /// Evaluations: each customer under each catalog at each instant where its answer changes.
    public var evaluations = 0
    /// Combinations of two or more elements searched (pairs of products, a product and a grant, ...).
    public var combinations = 0
    /// Customers whose answers changed more often than a search follows
    /// (256 instants) under one catalog: later instants of theirs were not compared.
    public var cutWalks = 0
    /// Combinations of elements not searched: past ``ProofOptions/maxCustomers``, or past the two
    /// million combinations a search lists at most.
    public var unsearchedCombinations = 0
    /// When the search stopped at its time limit (``ProofOptions/timeLimit``): the depth up to
    /// which every customer was searched (1: every element alone, which is always searched);
    /// `nil` when it did not stop.
    public var stoppedAtDepth: Int?
    /// The Advanced Commerce products (`app product`) whose `items` differ between the catalogs
    /// compared: the search does not try SKUs, so what they grant is not proven; `nil` when none.
    public var unsearchedItems: [String]?

    /// Whether everything the search set out to do was done: every combination searched, every
    /// customer followed to its last change, no SKUs changed. When not, `same` is not proven for
    /// what the rest reads.
    public var isComplete: Bool { unsearchedCombinations == 0 && cutWalks == 0 && stoppedAtDepth == nil && unsearchedItems == nil }

    /// What the search left undone, in words; `nil` when it is complete: `not complete: 12
    /// combinations of elements past the search's limit were not searched, so `same` is not proven
    /// for what they read`.
    public var incompleteness: String? {
        guard !isComplete else { return nil }
        var parts: [String] = []
        if let stoppedAtDepth {
            parts.append(
                "stopped at the time limit, every receipt of up to \(stoppedAtDepth) transaction\(stoppedAtDepth == 1 ? "" : "s") searched; "
                    + "\(ProofReport.count(unsearchedCombinations)) combination\(unsearchedCombinations == 1 ? "" : "s") of elements \(unsearchedCombinations == 1 ? "was" : "were") not"
            )
        } else if unsearchedCombinations > 0 {
            parts.append(
                "\(ProofReport.count(unsearchedCombinations)) combination\(unsearchedCombinations == 1 ? "" : "s") of elements past the search's limit \(unsearchedCombinations == 1 ? "was" : "were") not searched"
            )
        }
        if cutWalks > 0 {
            parts.append("\(ProofReport.count(cutWalks)) customer\(cutWalks == 1 ? "'s" : "s'") later instants were not followed")
        }
        if let unsearchedItems {
            parts.append(
                "the SKUs of \(unsearchedItems.map { "`\($0)`" }.joined(separator: ", ")), whose `items` changed, were not searched")
        }
        return "not complete: " + parts.joined(separator: "; ") + ", so `same` is not proven for what they read"
    }

    /// No customers yet.
    public init() {}

    /// Adds another search's counts.
    public mutating func add(_ other: ProofStatistics) {
        customers += other.customers
        evaluations += other.evaluations
        combinations += other.combinations
        cutWalks += other.cutWalks
        unsearchedCombinations += other.unsearchedCombinations
        if let depth = other.stoppedAtDepth { stoppedAtDepth = min(stoppedAtDepth ?? depth, depth) }
        if let items = other.unsearchedItems { unsearchedItems = (unsearchedItems ?? []) + items }
    }
}
