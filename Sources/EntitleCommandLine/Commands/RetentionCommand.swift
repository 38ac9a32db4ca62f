import Entitle
import Foundation

/// `entitle retention`: the answer to Apple's retention request (a subscriber opened the cancel
/// page), from the customer's receipts and the catalog's retention rules.
enum RetentionCommand {
    /// `--request FILE`.
    static let request: Option<String> = .path(
        "--request", valueName: "FILE",
        help: "Apple's retention request, decoded (originalTransactionId, productId, userLocale, requestIdentifier, environment)")

    /// `--signing-key FILE`: the In-App Purchase key (`.p8`) that signs a promotional offer.
    static let signingKey: Option<String> = .path(
        "--signing-key", valueName: "FILE",
        help: "the In-App Purchase key (.p8) that signs a promotional offer reply (needs the SystemCrypto trait)")
    /// `--key-id ID`.
    static let keyId: Option<String> = .text("--key-id", valueName: "ID", help: "the signing key's id in App Store Connect")
    /// `--issuer-id ID`.
    static let issuerId: Option<String> = .text("--issuer-id", valueName: "ID", help: "the issuer id of the team's keys")

    /// The command, declared.
    static let command = Subcommand(
        name: "retention", summary: "answer Apple's retention request (a subscriber on the cancel page)",
        synopses: [
            [
                .required(SharedOptions.catalog), .required(SharedOptions.receipt), .required(request), .optional(SharedOptions.app),
                .optional(SharedOptions.at), .optional(SharedOptions.environment), .optional(SharedOptions.account),
                .optional(SharedOptions.storefront), .optional(SharedOptions.token), .optional(SharedOptions.format),
                .together(signingKey.spec, keyId.spec, issuerId.spec),
            ]
                + DiagnosticsOption.synopsis + [VerifyOption.synopsis]
        ],
        discussion: """
            The answer is the first of the requested product's `retention` rules whose conditions hold (locales, paidAtLeast,
            waitBetween) and whose reply is possible (its promotional offer eligible now; its alternate product not the one the
            subscription renews to already), as Apple's RealtimeResponseBody. No rule, or a chain that is not the customer's or
            not covering now (billing retry is not): no reply, and Apple shows its default message. A promotional offer's reply
            is signed (promotionalOfferSignatureV2) with --signing-key, --key-id and --issuer-id, in a build with the SystemCrypto
            trait; without them it carries no signature, and `needsSigning` names what the service signs.

            With --format json: {"app", "at", "request", "rule", "reason", "reply", "needsSigning", "rules"}; `reason` is
            `rule-matched`, `no-rule-matched`, `not-subscribed`, `not-the-customers-chain` or `consent-rescinded`; `rules` says why each rule tried
            did or did not decide.

            Exits 0 with or without a reply, 1 on an invalid catalog, receipt or request (one for another app's product or an
            environment not accepted), 2 on misuse.
            """,
        misuseAsJSON: true, run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        try arguments.refusePositional()
        try EvaluationInputs.refuseStandardInputTwice(arguments)
        let path = try arguments.value(request) ?? ""
        if path == "-", arguments.texts(SharedOptions.receipt).contains("-") {
            throw UsageError(message: "standard input (`-`) can be read only once")
        }
        let (options, json, loaded) = try EvaluationInputs.load(arguments, environment: environment)
        var inputs: EvaluationInputs
        switch loaded {
        case .success(let loaded): inputs = loaded
        case .failure(let failed): return failed.output
        }
        var signer: PromotionalOfferSigner?
        // All three or none, as the synopsis says (`Subcommand.checkSynopses`).
        if arguments.contains(signingKey) {
            let keyPath = try arguments.value(signingKey) ?? ""
            do {
                let pem = try ReceiptFiles.read(keyPath, what: "signing key", standardInput: environment.readStandardInput)
                signer = try PromotionalOfferSigner(
                    privateKey: pem, keyId: try arguments.value(keyId) ?? "", issuerId: try arguments.value(issuerId) ?? "", bundleId: inputs.app)
            } catch let error as ReceiptError {
                return inputs.failure([error.diagnostic], "no answer")
            } catch let error as PromotionalOfferSigner.SigningError {
                let diagnostic = Diagnostic(
                    severity: .error, code: .badValue, message: error.message, location: SourceLocation(file: keyPath, line: 1, column: 1))
                return inputs.failure([diagnostic], "no answer")
            } catch {
                return inputs.failure([], "no answer")
            }
        }
        let reply: RetentionReply
        switch answer(path, inputs: inputs, options: options, environment: environment, nothing: "no answer", signer: signer) {
        case .success(let answered): reply = answered
        case .failure(let failed): return failed.output
        }
        inputs.noteOtherCatalogErrors()
        return CommandOutput(exitCode: CommandOutput.success, standardOutput: json ? reply.json : reply.text, standardError: inputs.errorText)
    }

    /// The answer to the retention request at `path` (`-`: standard input) from the loaded
    /// inputs, or the failure to print: the request unreadable, malformed, or not for the app.
    static func answer(
        _ path: String, inputs: EvaluationInputs, options: EvaluationInputs.Options, environment: CommandEnvironment, nothing: String,
        signer: PromotionalOfferSigner? = nil
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
            let reply = try inputs.portfolio.retentionReply(
                app: inputs.app, request: asked, receipts: inputs.receipts, at: options.at, options: options.evaluation)
            guard let signer else { return .success(reply) }
            do {
                return .success(try reply.signed(with: signer, transactionId: asked.originalTransactionId))
            } catch {
                let diagnostic = Diagnostic(
                    severity: .error, code: .badValue, message: error.message, location: SourceLocation(file: name, line: 1, column: 1))
                return .failure(EvaluationInputs.Failed(output: inputs.failure([diagnostic], nothing)))
            }
        } catch {
            let diagnostic = Diagnostic(
                severity: .error, code: .badValue, message: error.message, location: SourceLocation(file: name, line: 1, column: 1),
                help: error.help)
            return .failure(EvaluationInputs.Failed(output: inputs.failure([diagnostic], nothing)))
        }
    }
}
