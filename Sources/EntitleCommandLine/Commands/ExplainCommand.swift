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
    /// `--limit LIMIT`.
    static let limit: Option<String> = .text(
        "--limit", valueName: "LIMIT", help: "a number limit: its value, and each product giving it one with whether it covers and what it gives")
    /// `--balance CURRENCY`.
    static let balance: Option<String> = .text(
        "--balance", valueName: "CURRENCY",
        help: "a currency: its balance, and each consumable crediting it with its transactions (refunds in part included)")

    /// `--transaction ID`.
    static let transaction: Option<String> = .text(
        "--transaction", valueName: "ID",
        help: """
            a transaction: the reply to Apple's consumption request about it (asked with the customer's consent), down to how
            what was spent is charged to purchases in the order bought
            """)
    /// `--retention FILE`.
    static let retention: Option<String> = .path(
        "--retention", valueName: "FILE",
        help: "Apple's retention request (decoded): the rule that answers it and why each earlier rule did not")

    /// What `--format` chooses for an explanation.
    enum Format: String, Sendable {
        /// For people (the default).
        case text
        /// For scripts: the library's `Explanation` values.
        case json
        /// A picture of the customer's timeline.
        case svg

        /// The one of three values that is this format's (only it is computed).
        func pick<Value>(json: @autoclosure () -> Value, svg: @autoclosure () -> Value, text: @autoclosure () -> Value) -> Value {
            switch self {
            case .json: json()
            case .svg: svg()
            case .text: text()
            }
        }
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
            SharedOptions.evaluating(.required(SharedOptions.receipt)) + [
                .optional(SharedOptions.token),
                .oneOf(feature.spec, product.spec, offer.spec, balance.spec, limit.spec, transaction.spec, retention.spec),
                .optional(format),
            ]
                + DiagnosticsOption.synopsis + [VerifyOption.synopsis]
        ],
        discussion: """
            Without --feature, --product, --offer, --balance or --limit: every feature, one line each, with the source that decides it,
            then every balance.

            Exits 0 when done, 1 on an invalid catalog or receipt, 2 on misuse (an id the catalog does not define included).
            """,
        misuseAsJSON: true, run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        try arguments.refusePositional()
        try EvaluationInputs.refuseStandardInputTwice(arguments)
        let chosen = try arguments.value(format) ?? .text
        let options = try EvaluationInputs.Options(arguments, environment: environment)
        var selectors: [(option: Option<String>, id: String)] = []
        for option in [feature, product, offer, balance, limit, transaction, retention] {
            if let id = try arguments.value(option) { selectors.append((option, id)) }
        }
        // At most one, as the synopsis says (`Subcommand.checkSynopses`).
        let selector = selectors.first
        if let selector, selector.option.name == transaction.name || selector.option.name == retention.name {
            guard chosen != .svg else {
                throw UsageError(message: "`\(format.name) \(Format.svg.rawValue)` draws features and products, not \(selector.option.quoted)")
            }
            return reply(arguments, options, selector: selector, json: chosen == .json, environment: environment)
        }
        if chosen == .svg, [offer.name, balance.name, limit.name].contains(selector?.option.name) {
            throw UsageError(
                message:
                    "`\(format.name) \(Format.svg.rawValue)` draws features and products, not an offer, a balance or a limit: give \(feature.quoted) or \(product.quoted), or neither"
            )
        }

        return EvaluationInputs.run(
            arguments, options, json: chosen == .json, environment: environment, nothing: "nothing to explain", EvaluationInputs.explain
        ) { explanation, inputs in
            output(explanation, selector: selector, format: chosen, inputs: inputs)
        }
    }

    /// The reply to Apple's consumption request about a transaction, or the answer to a retention
    /// request, with everything behind it.
    private static func reply(
        _ arguments: ParsedArguments, _ options: EvaluationInputs.Options, selector: (option: Option<String>, id: String), json: Bool,
        environment: CommandEnvironment
    ) -> CommandOutput {
        var inputs: EvaluationInputs
        switch EvaluationInputs.load(arguments, options, json: json, environment: environment) {
        case .success(let loaded): inputs = loaded
        case .failure(let failed): return failed.output
        }
        let output: String
        if selector.option.name == transaction.name {
            do {
                let reply = try inputs.portfolio.consumptionReply(
                    app: inputs.app, transactionId: selector.id, receipts: inputs.receipts, at: options.at, consented: true,
                    options: options.evaluation)
                output = json ? reply.json : reply.explanationText
            } catch {
                return inputs.failure(
                    [Diagnostic(severity: .error, code: .unknownTransaction, message: error.message, help: error.help)], "nothing to explain")
            }
        } else {
            switch RetentionCommand.answer(selector.id, inputs: inputs, options: options, environment: environment, nothing: "nothing to explain") {
            case .success(let reply): output = json ? reply.json : reply.text
            case .failure(let failed): return failed.output
            }
        }
        inputs.noteOtherCatalogErrors()
        return CommandOutput(exitCode: CommandOutput.success, standardOutput: output, standardError: inputs.errorText)
    }

    /// The explanation in `format`: whole, or of the one item `selector` picks, which must be in
    /// it (else a misuse naming the ids there are).
    private static func output(
        _ explanation: Explanation, selector: (option: Option<String>, id: String)?, format chosen: Format, inputs: EvaluationInputs
    ) -> CommandOutput {
        let json = chosen == .json
        var id = selector?.id ?? ""
        // A product by its key or, for another store's, by its id alone where that is one product's.
        let names = selector.map { $0.option.name == product.name || $0.option.name == offer.name } ?? false
        let naming = names ? inputs.portfolio.catalog(for: inputs.app)?.product(named: id) : nil
        if case .found(let found)? = naming { id = found.key }
        let output: String? =
            switch selector?.option.name {
            case feature.name?:
                chosen.pick(json: explanation.json(feature: id), svg: explanation.svg(feature: id), text: explanation.text(feature: id))
            case product.name?:
                chosen.pick(json: explanation.json(product: id), svg: explanation.svg(product: id), text: explanation.text(product: id))
            case offer.name?: json ? explanation.json(offer: id) : explanation.text(offer: id)
            case balance.name?: json ? explanation.json(balance: id) : explanation.text(balance: id)
            case limit.name?: json ? explanation.json(limit: id) : explanation.text(limit: id)
            default: chosen.pick(json: explanation.json, svg: explanation.svg, text: explanation.text)
            }
        guard let output else {
            let option = selector!.option.name
            let kind = option == feature.name ? "feature" : option == balance.name ? "currency" : option == limit.name ? "limit" : "product"
            let known =
                option == feature.name
                ? explanation.features.map(\.id)
                : option == product.name
                    ? explanation.products.map(\.id)
                    : option == balance.name
                        ? explanation.balances.map(\.currency)
                        : option == limit.name ? (explanation.limits ?? []).map(\.id) : explanation.offers.map(\.productId)
            var message = "`\(inputs.app)` has no \(kind) `\(Diagnostic.excerpt(id))`"
            var help = Suggestion.help(for: id, in: known)
            if let naming, let catalog = inputs.portfolio.catalog(for: inputs.app), let problem = catalog.problem(naming: id, naming) {
                if case .ambiguous = naming { message = problem.message }
                help = problem.help
            }
            if option == product.name, explanation.offer(id) != nil {
                message = "`\(id)` is a consumable"
                help = "its transactions are explained with its currency (\(balance.quoted))"
            }
            let code: DiagnosticCode =
                option == feature.name
                ? .undeclaredFeature : option == balance.name ? .undeclaredCurrency : option == limit.name ? .undeclaredLimit : .unknownProduct
            return inputs.failure(
                [Diagnostic(severity: .error, code: code, message: message, help: help)], "nothing to explain",
                exitCode: CommandOutput.misuse)
        }
        return CommandOutput(exitCode: CommandOutput.success, standardOutput: output, standardError: inputs.errorText)
    }
}
