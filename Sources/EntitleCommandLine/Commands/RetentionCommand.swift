import Entitle
import Foundation

/// `entitle retention`: the answer to Apple's retention request (a subscriber opened the cancel
/// page), from the customer's receipts and the catalog's retention rules.
enum RetentionCommand {
    /// `--request FILE`.
    static let request: Option<String> = .path(
        "--request", valueName: "FILE",
        help: "Apple's retention request, decoded (originalTransactionId, productId, userLocale, requestIdentifier, environment)")

    /// The command, declared.
    static let command = Subcommand(
        name: "retention", summary: "answer Apple's retention request (a subscriber on the cancel page)",
        synopses: [
            [
                .required(SharedOptions.catalog), .required(SharedOptions.receipt), .required(request), .optional(SharedOptions.app),
                .optional(SharedOptions.at), .optional(SharedOptions.environment), .optional(SharedOptions.account),
                .optional(SharedOptions.storefront), .optional(SharedOptions.token), .optional(SharedOptions.format),
            ]
                + DiagnosticsOption.synopsis + [VerifyOption.synopsis]
        ],
        discussion: """
            The answer is the first of the requested product's `retention` rules whose conditions hold (locales, paidAtLeast,
            waitBetween) and whose reply is possible (its promotional offer eligible now; its alternate product not the one the
            subscription renews to already), as Apple's RealtimeResponseBody. No rule, or a chain that is not the customer's or
            not covering now (billing retry is not): no reply, and Apple shows its default message. A promotional offer's reply
            carries no signature: `needsSigning` names what the service signs with its In-App Purchase key.

            With --format json: {"app", "at", "request", "rule", "reason", "reply", "needsSigning", "rules"}; `reason` is
            `rule-matched`, `no-rule-matched`, `not-subscribed` or `not-the-customers-chain`; `rules` says why each rule tried
            did or did not decide.

            Exits 0 with or without a reply, 1 on an invalid catalog, receipt or request (one for another app's product or an
            environment not accepted), 2 on misuse.
            """,
        misuseAsJSON: true, run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        try arguments.refusePositional()
        for option in [SharedOptions.catalog, request] where !arguments.contains(option) {
            throw UsageError(message: "\(option.quoted) is required")
        }
        guard arguments.contains(SharedOptions.receipt) else { throw UsageError(message: "give at least one \(SharedOptions.receipt.quoted)") }
        try EvaluationInputs.refuseStandardInputTwice(arguments)
        let path = try arguments.value(request) ?? ""
        if path == "-", arguments.texts(SharedOptions.receipt).contains("-") {
            throw UsageError(message: "standard input (`-`) can be read only once")
        }
        let json = (try arguments.value(SharedOptions.format) ?? .text) == .json
        let options = try EvaluationInputs.Options(arguments, environment: environment)
        var inputs: EvaluationInputs
        switch EvaluationInputs.load(arguments, options, json: json, environment: environment) {
        case .success(let loaded): inputs = loaded
        case .failure(let failed): return failed.output
        }
        let reply: RetentionReply
        switch answer(path, inputs: inputs, options: options, environment: environment, nothing: "no answer") {
        case .success(let answered): reply = answered
        case .failure(let failed): return failed.output
        }
        inputs.noteOtherCatalogErrors()
        return CommandOutput(exitCode: CommandOutput.success, standardOutput: json ? reply.json : reply.text, standardError: inputs.errorText)
    }

    /// The answer to the retention request at `path` (`-`: standard input) from the loaded
    /// inputs, or the failure to print: the request unreadable, malformed, or not for the app.
    static func answer(
        _ path: String, inputs: EvaluationInputs, options: EvaluationInputs.Options, environment: CommandEnvironment, nothing: String
    ) -> Result<RetentionReply, EvaluationInputs.Failed> {
        let name = path == "-" ? "<stdin>" : path
        let asked: RetentionRequest
        do {
            asked = try RetentionRequest(
                json: try ReceiptFiles.read(path, what: "retention request", standardInput: environment.readStandardInput), name: name)
        } catch {
            return .failure(EvaluationInputs.Failed(output: inputs.failure([error.diagnostic], nothing)))
        }
        do {
            return .success(
                try inputs.portfolio.retentionReply(
                    app: inputs.app, request: asked, receipts: inputs.receipts, at: options.at, environments: inputs.environments,
                    account: options.account))
        } catch {
            let diagnostic = Diagnostic(
                severity: .error, code: .badValue, message: error.message, location: SourceLocation(file: name, line: 1, column: 1),
                help: error.help)
            return .failure(EvaluationInputs.Failed(output: inputs.failure([diagnostic], nothing)))
        }
    }
}
