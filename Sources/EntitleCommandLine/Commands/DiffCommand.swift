import Entitle
import Foundation

/// `entitle diff OLD NEW`: what a catalog change is, and what it does to existing customers.
enum DiffCommand {
    /// `--customers PATH ...`: the customers whose answers are compared.
    static let customers = SharedOptions.customers.help(
        SharedOptions.customers.spec.help + """
            . Every customer is evaluated under both catalogs, and what changes is grouped: "pro: on -> off for 3 of 1,200
            customers: c-17, ..."
            """)
    /// `--at INSTANT ...`: each instant the customers are compared at.
    static let at = SharedOptions.at.repeatable(help: "when to evaluate (repeat for several instants); default: now")
    /// `--changes FILE`: every customer's changes, not only counts and the first ids.
    static let changes: Option<String> = .path(
        "--changes", valueName: "FILE",
        help: """
            with --customers: write every change of every customer to FILE, in corpus order: JSON Lines of {"customer",
            "at", "app", "kind", "id", "from", "to"} (a customer whose receipts cannot be read: {"customer", "errors"}), or
            a CSV table (customer,at,app,kind,id,from,to) when FILE ends in .csv
            """)
    /// `--fail-on-loss`.
    static let failOnLoss: Option<Bool> = .flag(
        "--fail-on-loss", help: "exit 1 when any customer loses a feature or some balance (a CI gate)")

    /// The command, declared.
    static let command = Subcommand(
        name: "diff", summary: "compare two catalog versions and what the change does to customers",
        synopses: [
            [
                .argument(
                    "OLD NEW", label: "OLD, NEW",
                    help: """
                        catalog paths (a file, or a directory whose *.json files are catalogs), e.g. main's products/ and the pull
                        request's
                        """),
                .optional(customers), .optional(at), .optional(SharedOptions.format), .optional(failOnLoss), .optional(SharedOptions.jobs),
                .optional(changes),
            ]
                + [
                    .optional(ProveOptions.prove), .optional(ProveOptions.depth), .optional(ProveOptions.witnesses),
                    .optional(ProveOptions.timeLimit),
                ]
                + DiagnosticsOption.synopsis
        ],
        discussion: """
            Catalog changes are listed per app; those that take something from existing customers (a product removed or
            renamed, a type changed, a grant removed, ...) are flagged DANGEROUS.

            With --prove, the proof follows: what was searched, then per app each feature, balance, product and offer some
            searched customer gets differently, with the smallest such customer (its receipts, the instant, the old and the
            new answer), and those no searched customer tells apart (`same`). --fail-on-loss then also fails when a witness
            loses a feature or some balance, with or without --customers.

            Exits 0 when done, 1 when a catalog has errors (or, with --fail-on-loss, on a loss), 2 on misuse.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        guard arguments.positional.count == 2 else {
            throw UsageError(
                message: arguments.positional.count < 2
                    ? "give the OLD and the NEW catalogs"
                    : "unexpected argument `\(arguments.positional[2])`")
        }
        let json = try arguments.value(SharedOptions.format) == .json
        let diagnosticsOption = try DiagnosticsOption(arguments)
        try checkProofOptions(arguments)
        var instants = try arguments.values(at)
        if instants.isEmpty { instants = [environment.now()] }

        // Both versions must compile: a change is judged between two working catalogs.
        var errorText = ""
        var portfolios: [Portfolio] = []
        var catalogErrors: [Diagnostic] = []
        var allDiagnostics: [Diagnostic] = []
        for path in arguments.positional {
            let catalogs = CatalogArguments.compile([path])
            let diagnostics = catalogs.diagnostics
            allDiagnostics += diagnostics
            if let portfolio = catalogs.compilation.portfolio, catalogs.unreadable.isEmpty {
                portfolios.append(portfolio)
            } else {
                catalogErrors += diagnostics.filter(\.isError)
            }
        }
        errorText += diagnosticsOption.emit(allDiagnostics)
        guard portfolios.count == 2 else {
            return CommandOutput(
                exitCode: CommandOutput.invalidInput, standardOutput: json ? EntitleCommand.jsonErrors(catalogErrors) : "",
                standardError: errorText + "entitle: the catalogs have errors: nothing to compare\n")
        }
        let (old, new) = (portfolios[0], portfolios[1])
        let catalogChanges = CatalogDiff.changes(from: old, to: new)
        let proof = try Self.proof(arguments, old: old, new: new, newPath: arguments.positional[1], environment: environment)

        let corpusPaths = arguments.texts(customers)
        var impact = BatchImpact(reports: instants.map(ImpactReport.init))
        let changesPath = try arguments.value(changes)
        if changesPath != nil, corpusPaths.isEmpty { throw UsageError(message: "\(changes.quoted) is for \(customers.quoted)") }
        if !corpusPaths.isEmpty {
            var changesFile: ChangesFile?
            if let changesPath {
                do {
                    changesFile = try ChangesFile(path: changesPath)
                } catch {
                    return CommandOutput(
                        exitCode: CommandOutput.invalidInput, standardError: errorText + "entitle: cannot write \(changesPath): \(error.reason)\n")
                }
            }
            impact = BatchImpact.run(
                corpus: corpusPaths, old: old, new: new, at: instants,
                jobs: try arguments.value(SharedOptions.jobs) ?? ProcessInfo.processInfo.activeProcessorCount,
                environment: environment, changes: changesFile)
            changesFile?.close()
            errorText += EntitleCommand.render(impact.problems)
        }
        let (reports, corpusProblems) = (impact.reports, impact.problems)

        let losing = impact.losing
        let dangerous = catalogChanges.filter(\.dangerous).count
        var summary = "entitle: \(catalogChanges.count) catalog change\(catalogChanges.count == 1 ? "" : "s") (\(dangerous) dangerous)"
        if !corpusPaths.isEmpty {
            summary += "; " + BatchImpact.loseSentence(losing)
            if reports.count > 1 {
                summary += " (" + reports.map { "\(ImpactReport.count($0.losing)) at \($0.at.rfc3339)" }.joined(separator: ", ") + ")"
            }
        }
        errorText += (proof?.messages ?? "") + summary + "\n"
        // A gate that could not look at every customer has not shown that nobody loses anything.
        let unchecked = !corpusProblems.isEmpty || reports.contains { $0.unreadable > 0 || $0.customers == 0 }
        let failOnLoss = arguments.contains(Self.failOnLoss)
        if failOnLoss, !corpusPaths.isEmpty, unchecked {
            errorText +=
                "entitle: \(Self.failOnLoss.name): not every customer of the corpus could be evaluated, so the change is not shown to be safe\n"
        }
        let failed =
            (failOnLoss && (losing > 0 || (!corpusPaths.isEmpty && unchecked) || proof?.loss == true || proof?.complete == false))
            || !corpusProblems.isEmpty
        let output =
            json
            ? JSONOutput.object(
                [
                    ("catalogChanges", .array(catalogChanges.map(Self.jsonOutput))),
                    ("impact", .array(corpusPaths.isEmpty ? [] : reports.map(\.jsonOutput))),
                    ("losing", .integer(Int64(losing))),
                    ("losingCustomers", .array(impact.losingCustomers.map(JSONOutput.string))),
                    ("errors", .array(corpusProblems.map(\.jsonOutput))),
                ] + (proof.map { [("proof", $0.json)] } ?? [])
            ).rendered() + "\n"
            : text(catalogChanges) + (corpusPaths.isEmpty ? "" : "\n" + reports.map(\.text).joined(separator: "\n"))
                + (corpusPaths.isEmpty || reports.count < 2 ? "" : "\n" + impact.text)
                + (proof.map { "\n" + $0.text } ?? "")
        return CommandOutput(
            exitCode: failed ? CommandOutput.invalidInput : CommandOutput.success,
            standardOutput: output, standardError: errorText)
    }

    private static func text(_ changes: [CatalogChange]) -> String {
        var lines = ["catalog changes"]
        var app: String?
        for change in changes {
            if change.app != app {
                lines.append("  \(change.app)")
                app = change.app
            }
            var line = "    " + change.summary
            if change.dangerous { line += "  DANGEROUS: \(change.why ?? "")" }
            lines.append(line)
        }
        if changes.isEmpty { lines.append("  none") }
        return lines.textOutput
    }

    static func jsonOutput(_ change: CatalogChange) -> JSONOutput {
        func optional(_ text: String?) -> JSONOutput { text.map(JSONOutput.string) ?? .null }
        return .object([
            ("app", .string(change.app)), ("kind", .string(change.kind.rawValue)), ("id", .string(change.id)),
            ("field", optional(change.field)), ("from", optional(change.from)), ("to", optional(change.to)),
            ("dangerous", .bool(change.dangerous)), ("why", optional(change.why)),
        ])
    }
}
