import Entitle
import Foundation

/// `entitle normalize`: reads Apple's receipt data and prints the normalized receipt.
enum NormalizeCommand {
    static let usage = """
        usage: entitle normalize [--from verify-receipt|app-store|pkcs7] [--app BUNDLE] [--verify --root FILE ...] FILE

          FILE          Apple data: a verifyReceipt response or v1 notification, App Store
                        Server API / StoreKit 2 data (JSON or a compact JWS), or a PKCS#7 app
                        receipt (DER or base64); `-` reads standard input
          --from        the format, when it should not be recognized from the content
          --app BUNDLE  the app, for data that names none (renewal info alone); with --verify,
                        also the app the signed data must be for
        \(VerifyOption.usage)

        Prints the normalized receipt (schemas/receipt.schema.json) on standard output and what
        could not be mapped on standard error. Signatures are verified only with --verify.

        """

    static func run(_ arguments: [String], environment: CommandEnvironment) -> CommandOutput {
        let scanner: ArgumentScanner
        let format: AppleFormat?
        let verify: VerifyOption?
        do {
            scanner = try ArgumentScanner(arguments, valued: VerifyOption.valued.union(["--from", "--app"]),
                                          flags: VerifyOption.flags.union(["--help", "-h"]))
            if scanner.flags.contains("--help") || scanner.flags.contains("-h") { return CommandOutput(standardOutput: usage) }
            guard scanner.positional.count == 1 else { throw UsageError(message: "give exactly one FILE") }
            if let name = try scanner.single("--from") {
                guard let parsed = AppleFormat(rawValue: name) else {
                    throw UsageError(message: "`--from` must be \(CatalogChecker.list(AppleFormat.allCases.map(\.rawValue))), not `\(name)`")
                }
                format = parsed
            } else {
                format = nil
            }
            verify = try VerifyOption.parse(scanner)
        } catch let error as UsageError {
            return EntitleCommand.misuse(error.message, command: "normalize")
        } catch {
            return EntitleCommand.misuse("\(error)", command: "normalize")
        }
        let path = scanner.positional[0]
        let name = path == "-" ? "<stdin>" : path
        do {
            let data = try ReceiptFiles.read(path, standardInput: environment.readStandardInput)
            let app = try scanner.single("--app")
            let imported = try verify.map { verify throws(ReceiptError) in
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
