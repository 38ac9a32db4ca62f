/// What a search hands each evaluated customer to: a comparison of two catalogs or a review of
/// one. Each worker has its own; they are merged at the end.
protocol ProofObserver: Sendable {
    /// Looks at one evaluated customer.
    mutating func observe(_ searched: SearchCase, in space: ReceiptSpace)
    /// Adds what another worker's observer saw.
    mutating func merge(_ other: Self)
}

/// One evaluation of a customer in a search.
struct SearchPoint: Sendable {
    var at: Int64
    var result: Entitlements
}

/// One customer evaluated at one base instant, as observers see it.
struct SearchCase {
    var customer: ReceiptSpace.Customer
    var base: Int64
    var receipts: [Receipt]
    /// Per side, the evaluations at each instant where that side's answer changes, ascending; empty
    /// for a side without the app.
    var points: [[SearchPoint]]
    /// The parts of the answer (indices in ``ReceiptSpace/items``) the customer can change.
    var touched: [Int]
    var order: SearchOrder
}

/// Where a customer comes in the search, for choosing the smallest witness whatever the threads
/// did: the unit (the empty customer, each atom alone, then each combination by size), the
/// customer within it, and the base.
struct SearchOrder: Comparable, Hashable, Sendable {
    var unit: Int
    var local: Int
    var base = 0

    static func < (a: SearchOrder, b: SearchOrder) -> Bool {
        (a.unit, a.local, a.base) < (b.unit, b.local, b.base)
    }
}
