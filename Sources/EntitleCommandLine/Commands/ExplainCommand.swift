import Entitle
import Foundation

/// `entitle explain`: why a customer has what they have, down to each transaction.
enum ExplainCommand {
    /// `--feature ID`.
    static let feature: Option<String> = .text(
        "--feature", valueName: "ID",
        help: """
            a feature: on or off, until when, and every product, grandfather rule and grant that can grant it, each with its
            state and why, down to each transaction (counted, or why not) and the span it covers
            """)
    /// `--product ID`.
    static let product: Option<String> = .text(
        "--product", valueName: "ID", help: "a product: its state and why, its coverage, transactions and renewal entries")
    /// `--offer ID`.
    static let offer: Option<String> = .text("--offer", valueName: "ID", help: "an offer: the rule that decided it and the fact behind it")
    /// `--balance CURRENCY`.
    static let balance: Option<String> = .text(
        "--balance", valueName: "CURRENCY",
        help: "a currency: its balance, and each consumable crediting it with its transactions (refunds in part included)")

    /// What `--format` chooses for an explanation.
    enum Format: String, Sendable {
        /// For people (the default).
        case text
        /// For scripts: the library's `Explanation` values.
        case json
        /// A picture of the customer's timeline.
        case svg
    }

    /// `--format text|json|svg`: its own option, not ``SharedOptions/format``, for the picture.
    static let format: Option<Format> = .choice(
        SharedOptions.format.name,
        [
            (.text, help: "for people (default)"), (.json, help: "the library's `Explanation` values (see the README for the shape)"),
            (
                .svg,
                help: """
                the customer's timeline as an SVG picture: a row per feature, a bar per source's coverage (a color per product; grace and
                billing retry striped), marks for purchases, refunds and later-signed snapshots, a line at the instant; with --feature one
                row, with --product its lanes only
                """
            ),
        ],
        help: "how the explanation prints:")

    /// The command, declared.
    static let command = Subcommand(
        name: "explain", summary: "say why a customer has what they have, down to each transaction",
        synopses: [
            [
                .required(SharedOptions.catalog), .required(SharedOptions.receipt), .optional(SharedOptions.app), .optional(SharedOptions.at),
                .optional(SharedOptions.environment), .optional(SharedOptions.account), .oneOf(feature.spec, product.spec, offer.spec, balance.spec),
                .optional(format),
            ]
                + DiagnosticsOption.synopsis + [VerifyOption.synopsis]
        ],
        discussion: """
            Without --feature, --product, --offer or --balance: every feature, one line each, with the source that decides it,
            then every balance.

            Exits 0 when done, 1 on an invalid catalog or receipt, 2 on misuse (an id the catalog does not define included).
            """,
        misuseAsJSON: true, run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        let (catalog, receipt) = (SharedOptions.catalog, SharedOptions.receipt)
        try arguments.refusePositional()
        guard arguments.contains(catalog) else { throw UsageError(message: "\(catalog.quoted) is required") }
        guard arguments.contains(receipt) else { throw UsageError(message: "give at least one \(receipt.quoted)") }
        try EvaluationInputs.refuseStandardInputTwice(arguments)
        let chosen = try arguments.value(format) ?? .text
        let json = chosen == .json
        let diagnostics = try DiagnosticsOption(arguments)
        let verify = try VerifyOption.parse(arguments)
        let appOption = try arguments.value(SharedOptions.app)
        let at = try arguments.value(SharedOptions.at) ?? environment.now()
        let account = try arguments.value(SharedOptions.account)
        var selectors: [(option: Option<String>, id: String)] = []
        for option in [feature, product, offer, balance] {
            if let id = try arguments.value(option) { selectors.append((option, id)) }
        }
        guard selectors.count <= 1 else {
            throw UsageError(message: "give one of \(feature.quoted), \(product.quoted), \(offer.quoted) or \(balance.quoted)")
        }
        let selector = selectors.first
        if chosen == .svg, selector?.option.name == offer.name || selector?.option.name == balance.name {
            throw UsageError(
                message:
                    "`\(format.name) \(Format.svg.rawValue)` draws features and products, not an offer or a balance: give \(feature.quoted) or \(product.quoted), or neither"
            )
        }

        var inputs: EvaluationInputs
        switch EvaluationInputs.load(
            arguments, app: appOption, at: at, json: json, diagnostics: diagnostics, verify: verify, environment: environment)
        {
        case .success(let loaded): inputs = loaded
        case .failure(let failed): return failed.output
        }
        let explanation: Explanation
        do {
            explanation = try inputs.portfolio.explain(
                app: inputs.app, receipts: inputs.receipts, at: at,
                environments: inputs.environments, account: account)
        } catch {
            return inputs.failure(
                [error.diagnostic], "nothing to explain",
                exitCode: CommandOutput.misuse)
        }
        inputs.noteOtherCatalogErrors()
        let output: String?
        switch selector?.option.name {
        case feature.name?:
            let id = selector!.id
            output =
                switch chosen {
                case .json: explanation.json(feature: id)
                case .svg: explanation.svg(feature: id)
                case .text: explanation.text(feature: id)
                }
        case product.name?:
            let id = selector!.id
            output =
                switch chosen {
                case .json: explanation.json(product: id)
                case .svg: explanation.svg(product: id)
                case .text: explanation.text(product: id)
                }
        case offer.name?: output = json ? explanation.json(offer: selector!.id) : explanation.text(offer: selector!.id)
        case balance.name?: output = json ? explanation.json(balance: selector!.id) : explanation.text(balance: selector!.id)
        default:
            output =
                switch chosen {
                case .json: explanation.json
                case .svg: explanation.svg
                case .text: explanation.text
                }
        }
        guard let output else {
            let (option, id) = (selector!.option.name, selector!.id)
            let kind = option == feature.name ? "feature" : option == balance.name ? "currency" : "product"
            let known =
                option == feature.name
                ? explanation.features.map(\.id)
                : option == product.name
                    ? explanation.products.map(\.id)
                    : option == balance.name ? explanation.balances.map(\.currency) : explanation.offers.map(\.productId)
            var message = "`\(inputs.app)` has no \(kind) `\(id)`"
            var help = Suggestion.help(for: id, in: known)
            if option == product.name, explanation.offer(id) != nil {
                message = "`\(id)` is a consumable"
                help = "its transactions are explained with its currency (\(balance.quoted))"
            }
            let code: DiagnosticCode = option == feature.name ? .undeclaredFeature : option == balance.name ? .undeclaredCurrency : .unknownProduct
            return inputs.failure(
                [Diagnostic(severity: .error, code: code, message: message, help: help)], "nothing to explain",
                exitCode: CommandOutput.misuse)
        }
        return CommandOutput(exitCode: CommandOutput.success, standardOutput: output, standardError: inputs.errorText)
    }
}
