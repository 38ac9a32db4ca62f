import Entitle
import Foundation

/// `entitle check`: evaluates receipts against catalogs at an instant and prints the entitlements.
enum CheckCommand {
    /// `--customers PATH ...`: a customer corpus evaluated instead of `--receipt`.
    static let customers = SharedOptions.customers.help(
        """
        evaluate a customer corpus instead (a directory with one receipt file or one subdirectory of receipts per
        customer, or a JSON Lines file of {"customer": ID, "receipts": [...]}) and print one JSON object per line:
        {"customer": ID, ...the check JSON...}, or {"customer": ID, "errors": [...]} for a customer whose receipts
        cannot be read (with --verify: or do not verify); lines are in corpus order, printed as they are evaluated
        """)
    /// `--fields LIST`: the parts each line of `--customers` carries.
    static let fields: Option<[String]> = .list(
        "--fields", of: ["features", "balances", "limits", "products", "offers", "warnings"],
        help: """
            with --customers: the parts each line carries, separated by commas, from `features`, `balances`, `limits`,
            `products`, `offers`, `warnings` (default: all); `customer`, `app`, `at` and `reevaluateAt` are always there
            """)
    /// `--compact`: lines without prose.
    static let compact: Option<Bool> = .flag(
        "--compact", help: "with --customers: leave out the prose: offers' legal text and warnings' messages (their codes stay)")

    /// `--format FORMAT`: ``SharedOptions/format`` and a table.
    static let format: Option<OutputFormat> = .choice(
        SharedOptions.format.name,
        [
            (.text, help: "for people (default; with --customers: json)"), (.json, help: "for scripts (with --customers: JSON Lines)"),
            (.csv, help: "a table in long form: customer,at,kind,id,value,until,source, one row per fact"),
            (
                .ofrep,
                help:
                    "an OpenFeature (OFREP) bulk response, {\"flags\": [...]}: a flag per feature, balance and limit (with --customers: one {\"customer\": ID, \"flags\": [...]} per line)"
            ),
        ],
        help: "the output:")

    /// The command, declared.
    static let command = Subcommand(
        name: "check", summary: "evaluate receipts against catalogs and print entitlements",
        synopses: [
            SharedOptions.evaluating(.required(SharedOptions.receipt), store: true) + [.optional(SharedOptions.token), .optional(format)]
                + DiagnosticsOption.synopsis + [VerifyOption.synopsis, StripeSignatureOption.synopsis],
            SharedOptions.evaluating(.required(customers), store: true) + [
                .optional(format), .optional(fields), .optional(compact), .optional(SharedOptions.jobs), VerifyOption.synopsis,
            ],
        ],
        discussion: """
            Catalog errors are printed as they are; the app is still evaluated when its catalog, and the catalogs it refers
            to, compiled. With `--format json`, a failure prints {"errors": [...]} on standard output.

            With --customers, a customer id seen before in the corpus is an error on its line (only its first entry counts).

            Exits 0 when done, 1 on an invalid catalog or receipt (with --customers: when any customer's receipts could not
            be read, or an id repeats; every other line is still printed), 2 on misuse.
            """,
        misuseAsJSON: true, run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        try arguments.refusePositional()
        // The synopses say which options go with `--receipt` and which with `--customers`.
        if arguments.contains(customers), try arguments.value(format) == .text {
            throw UsageError(message: "\(customers.quoted) prints JSON Lines or a table: \(format.quoted) can be `json`, `csv` or `ofrep`")
        }
        try EvaluationInputs.refuseStandardInputTwice(arguments)
        let output = try arguments.value(format) ?? .text
        var options = try EvaluationInputs.Options(arguments, environment: environment)
        if arguments.contains(customers) {
            var parts: Entitlements.JSONParts = []
            for name in try arguments.value(fields) ?? ["features", "balances", "limits", "products", "offers", "warnings"] {
                parts.insert(
                    ["features": .features, "balances": .balances, "limits": .limits, "products": .products, "offers": .offers][name] ?? .warnings)
            }
            let request = BatchCheck.Request(
                app: options.app, at: options.at, evaluation: options.evaluation, verify: options.verify,
                parts: parts, compact: arguments.contains(compact), offerStore: try arguments.value(SharedOptions.store), csv: output == .csv,
                ofrep: output == .ofrep,
                jobs: try arguments.value(SharedOptions.jobs) ?? ProcessInfo.processInfo.activeProcessorCount)
            return BatchCheck.run(arguments, request: request, diagnostics: options.diagnostics, environment: environment)
        }

        options.stripe = try StripeSignatureOption.parse(arguments, at: options.at)
        let store = try arguments.value(SharedOptions.store)
        return EvaluationInputs.run(
            arguments, options, json: output == .json || output == .ofrep, environment: environment, nothing: "nothing to evaluate",
            EvaluationInputs.evaluate
        ) { result, inputs in
            var table = CSVTable.header
            if output == .csv { CSVTable.rows(result, customer: "", offersOf: store, to: &table) }
            return CommandOutput(
                exitCode: CommandOutput.success,
                standardOutput: output == .json
                    ? result.json(offersOf: store) : output == .csv ? table : output == .ofrep ? result.ofrep : result.text(offersOf: store),
                standardError: inputs.errorText)
        }
    }
}
