import Synchronization

/// What one evaluation found, held once by every copy of its ``Entitlements``: a result is one
/// reference, so copying or releasing it costs one reference count, whatever it holds.
///
/// Two parts of the answer are worked out only when first read, since a caller reading features
/// and balances should not pay for them: ``Entitlements/reevaluateAt`` (a search that may
/// evaluate again at instants where something could change) and the warnings in their fixed
/// order. Each is found once, under its own lock, so a first read from several threads at once is
/// safe; both are deterministic, so whichever thread works one out, every reader sees the same.
final class Answer: Sendable {
    /// The app the result is for.
    let app: String
    /// The catalog evaluated against.
    let catalog: CompiledCatalog
    /// What evaluation found at the instant (its warnings in the order found).
    let core: Evaluator.Core
    /// What the search for the next change reads, kept until the result is released; `nil` when
    /// the next change is known.
    private let search: Search?

    /// The receipts the evaluation read (those of environments accepted, as it read them); `nil`
    /// for an answer built without them.
    var evaluatedReceipts: [ParsedReceipt]? { search?.inputs.receipts }
    /// The next change once found (`nil` inside: nothing would change).
    private let next: Mutex<Instant??>
    /// The warnings in their fixed order, once sorted.
    private let sortedWarnings: Mutex<[EvaluationWarning]?>

    struct Search: Sendable {
        var inputs: Evaluator.Inputs
        var at: Int64
        var options: Evaluator.Options
    }

    /// An evaluation's answer, its next change searched for when first read.
    init(catalog: CompiledCatalog, core: Evaluator.Core, search: Search) {
        app = catalog.app
        self.catalog = catalog
        self.core = core
        self.search = search
        next = Mutex(nil)
        sortedWarnings = Mutex(nil)
    }

    /// An answer evaluated to be compared with another, whose next change is not searched for.
    init(catalog: CompiledCatalog, core: Evaluator.Core, next: Instant?) {
        self.app = catalog.app
        self.catalog = catalog
        self.core = core
        search = nil
        self.next = Mutex(.some(next))
        sortedWarnings = Mutex(nil)
    }

    /// The earliest instant after the answer's at which the answer changes; `nil`: never.
    var reevaluateAt: Instant? {
        next.withLock { found in
            if let known = found { return known }
            guard let search else { return nil }
            let next = Evaluator.nextChange(catalog, search.inputs, at: search.at, options: search.options, core: core)
            let instant = next == .max ? nil : Instant(millisecondsSince1970: next)
            found = .some(instant)
            return instant
        }
    }

    /// Whether the next change has been searched for (or was given): what tests read to see that
    /// comparing results runs no search.
    var nextChangeIsKnown: Bool { next.withLock { $0 != nil } }

    /// The warnings, those found once for all instants and those of this instant, in a fixed
    /// order, so the answer never depends on the order of the receipts.
    var warnings: [EvaluationWarning] {
        guard let search else { return core.warnings }
        return sortedWarnings.withLock { sorted in
            if let sorted { return sorted }
            var found = search.inputs.warnings.isEmpty ? core.warnings : search.inputs.warnings + core.warnings
            var budget = Suggestion.Budget.perCall
            found = found.map { $0.suggesting(in: catalog, budget: &budget) }
            let result = EvaluationWarning.sorted(found)
            sorted = result
            return result
        }
    }
}
