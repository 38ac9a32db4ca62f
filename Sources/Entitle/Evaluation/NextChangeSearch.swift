import Synchronization

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
/// until the result is released: as fields of this one object, with the lock inline, so that a
/// result pays one allocation for a search it may never run. The lock makes a first read from
/// several threads at once safe; the value is deterministic, so whichever thread runs the search,
/// every reader sees the same.
final class NextChangeSearch: Sendable {
    private let catalog: CompiledCatalog
    private let inputs: Evaluator.Inputs
    private let at: Int64
    private let options: Evaluator.Options
    private let core: Evaluator.Core
    /// The instant found, once searched (`nil` inside: nothing would change).
    private let found = Mutex<Instant??>(nil)

    init(_ catalog: CompiledCatalog, _ inputs: Evaluator.Inputs, at: Int64, options: Evaluator.Options, core: Evaluator.Core) {
        self.catalog = catalog
        self.inputs = inputs
        self.at = at
        self.options = options
        self.core = core
    }

    var result: Instant? {
        found.withLock { found in
            if let known = found { return known }
            let next = Evaluator.nextChange(catalog, inputs, at: at, options: options, core: core)
            let instant = next == .max ? nil : Instant(millisecondsSince1970: next)
            found = .some(instant)
            return instant
        }
    }
}
