import Entitle
import Foundation

/// `entitle consumption`: the reply to Apple's consumption request about one transaction (a
/// customer asked for a refund), from the customer's receipts at an instant.
enum ConsumptionCommand {
    /// `--transaction ID`.
    static let transaction: Option<String> = .text("--transaction", valueName: "ID", help: "the transaction the request is about")
    /// `--notification FILE`.
    static let notification: Option<String> = .path(
        "--notification", valueName: "FILE",
        help: """
            Apple's CONSUMPTION_REQUEST notification (its signedPayload, as JSON or a compact JWS): the transaction is its
            signed transaction's, which is read with the receipts too
            """)
    /// `--consented`.
    static let consented: Option<Bool> = .flag(
        "--consented", help: "the customer consented to sharing consumption data (Apple's customerConsented); without it, no reply body")
    /// `--pending-refund-token TOKEN`.
    static let pendingRefundToken: Option<String> = .text(
        "--pending-refund-token", valueName: "TOKEN",
        help: """
            for a Google Play order: the token of Google's pending refund review notification, which the reply
            (OrdersReviewRefundRequest) carries
            """)
    /// `--undelivered REASON`.
    static let undelivered: Option<ConsumptionReply.Undelivered> = .choice(
        "--undelivered", valueName: "REASON", ConsumptionReply.Undelivered.allCases.map { ($0, help: nil) },
        help: "why the purchase was not delivered, when it was not (default: other): the reply's UNDELIVERED_... status")

    /// The command, declared.
    static let command = Subcommand(
        name: "consumption", summary: "reply to Apple's consumption request or Google's refund review (a refund asked for) about one transaction",
        synopses: [
            SharedOptions.evaluating(.required(SharedOptions.receipt)) + [
                .optional(SharedOptions.token), .anyOf(transaction.spec, notification.spec),
                .optional(consented), .optional(undelivered), .optional(pendingRefundToken), .optional(SharedOptions.format),
            ]
                + DiagnosticsOption.synopsis + [VerifyOption.synopsis]
        ],
        discussion: """
            The reply is Apple's ConsumptionRequest body (V2): DELIVERED when the transaction counted at the instant (a
            consumable's credits, a subscription's or a product's coverage) and was not refunded or revoked already, otherwise
            the --undelivered reason; consumptionPercentage in thousandths of a percent: for a consumable, the share of its
            credits spent (what was spent charged to purchases in the order bought), for a subscription or pass the share of
            its period elapsed, for a non-consumable 100%; refundPreference from the product's (or the catalog's)
            `refundPreference`; sampleContentProvided from its `sampleContent`, a free trial or intro offer in its group, or
            a trial of it. Without --consented there is no reply body.

            For a Google Play order the reply is Google's refund review (orders.reviewrefund's OrdersReviewRefundRequest):
            the --pending-refund-token, refundPreference APPROVE (grant-full), DECLINE (decline) or NEUTRAL (grant-prorated,
            or none), sampleContentProvided, consumptionPercentageMilliunits as above, and consumptionUsageEvents: the
            consumptions charged to the purchase (the latest 1000), with the order's account. Google asks no consent. A
            Stripe purchase has no such request: an error.

            With --format json: {"app", "at", "transaction", "productId", "store", "reason", "consumption", "reply"}, `reply`
            being the store's body or null (for Play, with `usageLeftOut`); `reason` is `delivered`, `not-delivered` or
            `no-consent`.

            Exits 0 with or without a reply body, 1 on an invalid catalog, receipt or notification, or a transaction the
            customer does not have, 2 on misuse.
            """,
        misuseAsJSON: true, run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        try arguments.refusePositional()
        try EvaluationInputs.refuseStandardInputTwice(arguments)
        let given = try arguments.value(transaction)
        let notificationPath = try arguments.value(notification)
        let (options, json, loaded) = try EvaluationInputs.load(arguments, environment: environment)
        var inputs: EvaluationInputs
        switch loaded {
        case .success(let loaded): inputs = loaded
        case .failure(let failed): return failed.output
        }
        var transactionId = given ?? ""
        if let notificationPath {
            switch Self.request(notificationPath, app: inputs.app, verify: options.verify, environment: environment) {
            case .failure(let diagnostic):
                return inputs.failure([diagnostic], "no reply")
            case .success(let (receipt, id)):
                if let given, given != id {
                    return inputs.failure(
                        [
                            Diagnostic(
                                severity: .error, code: .badValue,
                                message: "the notification is about transaction `\(id)`, not `\(Diagnostic.excerpt(given))` (\(transaction.quoted))",
                                location: SourceLocation(file: notificationPath, line: 1, column: 1),
                                help: "give one of them, or the two naming the same transaction")
                        ], "no reply")
                }
                transactionId = id
                inputs.receipts.append(receipt)
            }
        }
        let (consent, reason) = (try arguments.value(consented) ?? false, try arguments.value(undelivered))
        let reply: ConsumptionReply
        do {
            reply = try inputs.portfolio.consumptionReply(
                app: inputs.app, transactionId: transactionId, receipts: inputs.receipts, at: options.at, consented: consent,
                undelivered: reason, options: options.evaluation)
        } catch {
            // Located in the notification when the transaction is its.
            let location = notificationPath.map { SourceLocation(file: $0 == "-" ? "<stdin>" : $0, line: 1, column: 1) }
            return inputs.failure(
                [Diagnostic(severity: .error, code: .unknownTransaction, message: error.message, location: location, help: error.help)],
                "no reply")
        }
        let token = try arguments.value(pendingRefundToken)
        if reply.store == .play, token == nil {
            throw UsageError(message: "`\(transactionId)` is a Google Play order: its refund review reply needs \(pendingRefundToken.quoted) TOKEN")
        }
        if reply.store != .play, token != nil {
            throw UsageError(message: "\(pendingRefundToken.quoted) is for Google Play orders; `\(transactionId)` is \(reply.store.phrase)'s")
        }
        inputs.noteOtherCatalogErrors()
        return CommandOutput(
            exitCode: CommandOutput.success, standardOutput: json ? reply.json(pendingRefundToken: token) : reply.text,
            standardError: inputs.errorText)
    }

    /// The receipt a `CONSUMPTION_REQUEST` notification carries and its transaction's id, or why
    /// it cannot be read as one for `app`.
    private static func request(
        _ path: String, app: String, verify: VerifyOption?, environment: CommandEnvironment
    ) -> Result<(ParsedReceipt, String), Diagnostic> {
        let name = path == "-" ? "<stdin>" : path
        let imported: ImportedReceipt
        do {
            let data = try ReceiptFiles.read(path, what: "notification", standardInput: environment.readStandardInput)
            imported =
                if let verify {
                    try verify.receipt(data, name: name, app: AppOption(app: app, strict: false))
                } else {
                    try AppleImport.unverifiedReceipt(from: data, name: name, format: nil, app: AppOption(app: app, strict: false))
                }
        } catch {
            return .failure(error.diagnostic)
        }
        let location = SourceLocation(file: name, line: 1, column: 1)
        guard let info = imported.notifications.first, info.type == "CONSUMPTION_REQUEST" else {
            let what = imported.notifications.first.map { "a `\($0.type)` notification" } ?? "not a notification"
            return .failure(
                Diagnostic(
                    severity: .error, code: .badValue, message: "\(what), not a consumption request (`CONSUMPTION_REQUEST`)",
                    location: location))
        }
        guard imported.receipt.app == app else {
            return .failure(
                Diagnostic(
                    severity: .error, code: .unknownApp,
                    message: "the notification is for `\(Diagnostic.excerpt(imported.receipt.app))`, not the app evaluated (`\(app)`)",
                    location: location, help: "give `\(SharedOptions.app.name) \(Diagnostic.excerpt(imported.receipt.app))` with its catalog"))
        }
        guard let transaction = imported.receipt.transactions.first else {
            return .failure(
                Diagnostic(
                    severity: .error, code: .missingKey, message: "the consumption request carries no signed transaction",
                    location: location))
        }
        return .success((ParsedReceipt(imported.receipt), transaction.transactionId))
    }
}
