import Foundation

/// A result's next change (``Entitlements/reevaluateAt``): known, or to be searched for.
enum NextChange: Sendable {
    /// Known: a decoded result's, or one evaluation found without searching.
    case known(Instant?)
    /// Searched for when first read.
    case search(NextChangeSearch)
}

/// The search for a result's next change, run once, when ``Entitlements/reevaluateAt`` is first
/// read: it may evaluate again at instants where something could change, which a caller reading
/// only features and balances should not pay for.
///
/// It keeps what the search reads (the catalog, the receipts as read, the evaluation's findings)
/// until the result is released. The lock makes a first read from several threads at once safe;
/// the value is deterministic, so whichever thread runs the search, every reader sees the same.
final class NextChangeSearch: @unchecked Sendable {
    // `value` is only read or written under `lock`.
    private let lock = NSLock()
    private var value: Instant??
    private let search: @Sendable () -> Instant?

    init(_ search: @escaping @Sendable () -> Instant?) {
        self.search = search
    }

    var result: Instant? {
        lock.lock()
        defer { lock.unlock() }
        if let value { return value }
        let found = search()
        value = .some(found)
        return found
    }
}
