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

    /// No customers yet.
    public init() {}

    /// Adds another search's counts.
    public mutating func add(_ other: ProofStatistics) {
        customers += other.customers
        evaluations += other.evaluations
        combinations += other.combinations
        cutWalks += other.cutWalks
    }
}
