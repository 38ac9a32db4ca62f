import Entitle
import Foundation

/// `entitle normalize`: reads Apple's receipt data and prints the normalized receipt.
enum NormalizeCommand {
    /// `--from FORMAT`: the format of Apple's data, when it should not be recognized.
    static let from: Option<AppleFormat> = .choice(
        "--from", AppleFormat.allCases.map { ($0, help: nil) }, help: "the format, when it should not be recognized from the content")
    /// `--app BUNDLE`, as `normalize` reads it.
    static let app = SharedOptions.app.help(
        "the app, for data that names none (renewal info alone); with --verify, also the app the signed data must be for")

    /// The command, declared.
    static let command = Subcommand(
        name: "normalize", summary: "read Apple's receipt data and print the normalized receipt",
        synopses: [
            [
                .optional(from), .optional(app), VerifyOption.synopsis,
                .argument(
                    "FILE",
                    help: """
                        Apple data: a verifyReceipt response or v1 notification, App Store Server API / StoreKit 2 data (JSON or a
                        compact JWS), or a PKCS#7 app receipt (DER or base64); `-` reads standard input
                        """),
            ]
        ],
        discussion: """
            Prints the normalized receipt (schemas/receipt.schema.json) on standard output and what could not be mapped on
            standard error. Signatures are verified only with --verify.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        guard arguments.positional.count == 1 else { throw UsageError(message: "give exactly one FILE") }
        let format = try arguments.value(from)
        // A payload without `signedDate` verifies now, as Apple's library verifies it.
        let verify = try VerifyOption.parse(arguments, unsignedAt: environment.now())
        let app = try arguments.value(Self.app)
        let path = arguments.positional[0]
        let name = path == "-" ? "<stdin>" : path
        do {
            let data = try ReceiptFiles.read(path, standardInput: environment.readStandardInput)
            let imported =
                try verify.map { verify throws(ReceiptError) in
                    try verify.receipt(data, name: name, format: format, app: AppOption(app: app, strict: true))
                } ?? AppleImport.unverifiedReceipt(from: data, name: name, format: format, app: app)
            var errorText = verify == nil ? AppleImport.notice + "\n" : ""
            for warning in imported.warnings { errorText += "\(name): warning: \(warning)\n" }
            return CommandOutput(standardOutput: imported.receipt.json, standardError: errorText)
        } catch let error as ReceiptError {
            return CommandOutput(exitCode: CommandOutput.invalidInput, standardError: error.description + "\n")
        } catch {
            return CommandOutput(exitCode: CommandOutput.misuse, standardError: "entitle: \(error)\n")
        }
    }
}
