import Entitle
import Foundation

/// `entitle normalize`: reads a store's receipt data and prints the normalized receipt.
enum NormalizeCommand {
    /// `--from FORMAT`: the format of the store's data, when it should not be recognized.
    static let from: Option<ReceiptFormat> = .choice(
        "--from", ReceiptFormat.allCases.map { ($0, help: nil) }, help: "the format, when it should not be recognized from the content")
    /// `--app BUNDLE`, as `normalize` reads it.
    static let app = SharedOptions.app.help(
        "the app, for data that names none (Apple's renewal info alone, Stripe's objects, Play's bare resources); with --verify, also the app the signed data must be for"
    )

    /// The command, declared.
    static let command = Subcommand(
        name: "normalize", summary: "read a store's receipt data and print the normalized receipt",
        synopses: [
            [
                .optional(from), .optional(app), .optional(SharedOptions.token), VerifyOption.synopsis, StripeSignatureOption.synopsis,
                .argument(
                    "FILE",
                    help: """
                        a store's data: Apple's (a verifyReceipt response or v1 notification, App Store Server API / StoreKit 2
                        data as JSON or a compact JWS, a PKCS#7 app receipt as DER or base64), Stripe's objects (Subscriptions,
                        Checkout Sessions, Charges, Refunds, Invoices, Events) or Google Play's purchases (SubscriptionPurchaseV2,
                        ProductPurchaseV2, ProductPurchase, voided purchases, records of them); `-` reads standard input
                        """),
            ]
        ],
        discussion: """
            Prints the normalized receipt (schemas/receipt.schema.json) on standard output and what could not be mapped on
            standard error. Apple's signatures are verified only with --verify, a Stripe webhook delivery's only with
            --stripe-secret and --stripe-signature; Play's data carries none entitle checks and is read as given.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        guard arguments.positional.count == 1 else { throw UsageError(message: "give exactly one FILE") }
        let format = try arguments.value(from)
        // A payload without `signedDate` verifies now, as Apple's library verifies it.
        let verify = try VerifyOption.parse(arguments, unsignedAt: environment.now())
        let stripe = try StripeSignatureOption.parse(arguments, at: environment.now())
        let app = try arguments.value(Self.app)
        let token = try arguments.value(SharedOptions.token)
        let path = arguments.positional[0]
        let name = path == "-" ? "<stdin>" : path
        do {
            let data = try ReceiptFiles.read(path, standardInput: environment.readStandardInput)
            let detected = format ?? AppleImport.detect(data).flatMap { if case .imported(let read) = $0 { read } else { nil } }
            if token != nil, detected != .play {
                throw UsageError(message: "`--token` is for Google Play data")
            }
            if let stripe {
                guard detected == .stripe else {
                    throw UsageError(message: "\(StripeSignatureOption.signature.quoted) verifies Stripe's data, and `\(name)` is not Stripe's")
                }
                try stripe.check(data, name: name)
            }
            let imported =
                try verify.map { verify throws(ReceiptError) in
                    try verify.receipt(data, name: name, format: format, app: AppOption(app: app, strict: true))
                }
                ?? (token != nil
                    ? StoreImport.unverifiedReceipt(fromPlay: data, name: name, app: app, token: token)
                    : AppleImport.unverifiedReceipt(from: data, name: name, format: format, app: app))
            var errorText = verify == nil && stripe == nil ? StoreImport.notice(for: imported.format) + "\n" : ""
            for warning in imported.warnings { errorText += "\(name): warning: \(warning)\n" }
            // What each notification says about itself: what a service deduplicates and reacts on.
            for notification in imported.notifications {
                let parts = [
                    notification.subtype.map { "subtype \($0)" }, notification.uuid.map { "uuid \($0)" },
                    notification.signedDate.map { "signed \($0.rfc3339)" }, notification.consumptionRequestReason.map { "reason \($0)" },
                ].compactMap { $0 }
                errorText += "\(name): notification \(notification.type)\(parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))\n"
            }
            // What Play's notifications name without its state: the service fetches it.
            for purchase in imported.toFetch {
                let kind = purchase.subscription ? "subscription" : "one-time purchase"
                errorText +=
                    "\(name): fetch \(kind) \(purchase.token)\(purchase.productId.map { " (\($0))" } ?? ""): the notification carries no purchase state\n"
            }
            return CommandOutput(standardOutput: imported.receipt.json, standardError: errorText)
        } catch let error as ReceiptError {
            return CommandOutput(exitCode: CommandOutput.invalidInput, standardError: error.description + "\n")
        } catch let usage as UsageError {
            throw usage
        } catch {
            return CommandOutput(exitCode: CommandOutput.misuse, standardError: "entitle: \(error)\n")
        }
    }
}
