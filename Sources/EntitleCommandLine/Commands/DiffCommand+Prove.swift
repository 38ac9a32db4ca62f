import Entitle
import Foundation

/// `diff --prove [--depth N] [--witnesses DIR]`: the proof of a catalog change by search
/// (``CatalogProof``), its text and JSON, and its witnesses written as test files.
extension DiffCommand {
    /// What `--prove` adds to `diff`'s output.
    struct Proof {
        /// The report, for people.
        var text: String
        /// The report, under `proof` in `diff --format json`.
        var json: JSONOutput
        /// Whether a witness shows a customer losing a feature or some balance.
        var loss: Bool
        /// Whether the search did all it set out to (``ProofStatistics/isComplete``).
        var complete: Bool
        /// Lines for standard error: the witness files written or not written, the summary.
        var messages: String
    }

    /// Checks that `--depth` and `--witnesses` come with `--prove`.
    static func checkProofOptions(_ arguments: ParsedArguments) throws(UsageError) {
        guard !arguments.contains(ProveOptions.prove) else { return }
        let given =
            arguments.contains(ProveOptions.depth)
            ? ProveOptions.depth.name
            : arguments.contains(ProveOptions.witnesses)
                ? ProveOptions.witnesses.name : arguments.contains(ProveOptions.timeLimit) ? ProveOptions.timeLimit.name : nil
        if let given { throw UsageError(message: "`\(given)` is for `\(ProveOptions.prove.name)`") }
    }

    /// Runs the proof when `--prove` is given: searches, and writes the witnesses into
    /// `--witnesses DIR` as test files whose `catalog` is the new catalogs' path.
    static func proof(
        _ arguments: ParsedArguments, old: Portfolio, new: Portfolio, newPath: String, environment: CommandEnvironment
    ) throws(UsageError) -> Proof? {
        guard arguments.contains(ProveOptions.prove) else { return nil }
        let options = try ProveOptions.options(arguments)
        let directory = try arguments.value(ProveOptions.witnesses)
        if let directory { try WitnessFiles.prepare(directory) }
        let line = ProveOptions.progress("entitle diff --prove", environment: environment)
        let report = CatalogProof.compare(old, new, options: options, progress: line?.callback)
        line?.finish()
        var messages = ""
        if let directory { messages += WitnessFiles.write(report, into: directory, catalog: newPath, portfolios: [old, new]) }
        let differing = report.differences.count
        messages +=
            "entitle: proof: \(differing) part\(differing == 1 ? "" : "s") of the answer differ\(differing == 1 ? "s" : "")"
            + (report.showsLoss ? ", some customer loses a feature or balance" : "") + "\n"
        if !report.statistics.isComplete, arguments.contains(failOnLoss) {
            messages += "entitle: \(failOnLoss.name): the search is not complete, so the change is not shown to be safe\n"
        }
        return Proof(
            text: report.text, json: report.jsonOutput, loss: report.showsLoss, complete: report.statistics.isComplete,
            messages: messages)
    }
}
