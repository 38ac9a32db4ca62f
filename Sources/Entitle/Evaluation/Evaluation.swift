/// One evaluation at one instant, in progress: the compiled catalog, the receipts' facts found once
/// (``Evaluator/Inputs``), the instant and the caller's options, and what the rule families write
/// as they go: the recorder an explanation reads, the warnings, and the earliest instant at which
/// the answer changes with what is known (`boundary`).
///
/// ``run()`` applies the families in order (its steps are numbered); each family's step is a
/// method of this value, in the family's folder under `Families/` (`Evaluator+Renewals`,
/// `+Access`, `+Balances`, `+Items`, `+Promotions`) or, for the engine's own steps, here
/// (`Evaluator+Products`, `+Features`); what a step needs beyond the shared state is its parameters.
/// Pure helpers that need no state stay static on ``Evaluator``.
struct Evaluation<R: EvaluationRecorder> {
    typealias Entry = Evaluator.Entry
    typealias Core = Evaluator.Core
    typealias Options = Evaluator.Options
    typealias AccessSpan = Evaluator.AccessSpan
    typealias RenewalFacts = Evaluator.RenewalFacts
    typealias GroupLapse = Evaluator.GroupLapse
    typealias ChainExpiry = Evaluator.ChainExpiry
    typealias ChainStatus = Evaluator.ChainStatus

    let catalog: CompiledCatalog
    let inputs: Evaluator.Inputs
    let at: Int64
    let options: Options
    /// Told each decision as it is made (``NoRecord`` compiles away).
    var recorder: R
    /// The warnings of the instant, in the order found.
    var warnings: [EvaluationWarning] = []
    /// The next change with what is known at the instant; `Int64.max` when none.
    var boundary = Int64.max
    /// For a catalog with allowances or unlimited currencies: where credits come from, noted as
    /// products are evaluated (`Evaluation+Allowances`), for the ledger (`Evaluation+Ledger`).
    var ledger = LedgerSources()

    /// The accepted receipts (``Evaluator/Inputs/receipts``), held here so the steps' loops read
    /// them without going through `inputs` each time.
    let receipts: [ParsedReceipt]
    /// Indices of the evaluated app's own receipts.
    let own: [Int]

    init(_ catalog: CompiledCatalog, _ inputs: Evaluator.Inputs, at: Int64, options: Options, recorder: R) {
        self.catalog = catalog
        self.inputs = inputs
        receipts = inputs.receipts
        own = inputs.own
        self.at = at
        self.options = options
        self.recorder = recorder
    }
}

extension Evaluator {
    /// The answer at `at`: an ``Evaluation`` run with the caller's recorder, which is handed back
    /// with what it was told.
    static func evaluateCore<R: EvaluationRecorder>(
        _ catalog: CompiledCatalog, _ inputs: Inputs, at: Int64, options: Options, recorder: inout R
    ) -> Core {
        var evaluation = Evaluation(catalog, inputs, at: at, options: options, recorder: R())
        swap(&evaluation.recorder, &recorder)
        let core = evaluation.run()
        swap(&evaluation.recorder, &recorder)
        return core
    }
}
