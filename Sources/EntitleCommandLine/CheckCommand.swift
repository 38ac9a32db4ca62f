import Entitle
import Foundation

/// `entitle check`: evaluates receipts against catalogs at an instant and prints the entitlements.
enum CheckCommand {
    static let usage = """
        usage: entitle check --catalog PATH --receipt FILE [--receipt FILE ...]
                             [--app BUNDLE] [--at INSTANT] [--format text|json]

          --catalog PATH    a catalog file, or a directory whose *.json files are catalogs
          --receipt FILE    a receipt: normalized JSON, or Apple's verifyReceipt, App Store
                            (JWS) or PKCS#7 data, recognized from the content; `-` reads
                            standard input; repeat for more
          --app BUNDLE      the app to evaluate (default: the first receipt's app)
          --at INSTANT      RFC 3339 instant to evaluate at (default: now)
          --format FORMAT   `text` for people (default) or `json` for scripts

        Exits 0 when done, 1 on an invalid catalog or receipt, 2 on misuse.

        """

    static func run(_ arguments: [String], environment: CommandEnvironment) -> CommandOutput {
        let scanner: ArgumentScanner
        let catalogPath: String
        let format: String
        let appOption: String?
        let at: Instant
        do {
            scanner = try ArgumentScanner(
                arguments, valued: ["--catalog", "--receipt", "--app", "--at", "--format"], flags: ["--help", "-h"])
            if scanner.flags.contains("--help") || scanner.flags.contains("-h") {
                return CommandOutput(standardOutput: usage)
            }
            guard scanner.positional.isEmpty else {
                throw UsageError(message: "unexpected argument `\(scanner.positional[0])`")
            }
            guard let catalog = try scanner.single("--catalog") else { throw UsageError(message: "`--catalog` is required") }
            catalogPath = catalog
            guard !scanner.all("--receipt").isEmpty else { throw UsageError(message: "give at least one `--receipt`") }
            if scanner.all("--receipt").filter({ $0 == "-" }).count > 1 {
                throw UsageError(message: "standard input (`-`) can be read only once")
            }
            format = try scanner.single("--format") ?? "text"
            guard format == "text" || format == "json" else {
                throw UsageError(message: "`--format` must be `text` or `json`, not `\(format)`")
            }
            appOption = try scanner.single("--app")
            if let text = try scanner.single("--at") {
                guard let parsed = Instant(rfc3339: text) else {
                    throw UsageError(message: "`--at` must be an RFC 3339 instant such as 2026-01-15T09:00:00Z, not `\(text)`")
                }
                at = parsed
            } else {
                at = environment.now()
            }
        } catch let error as UsageError {
            return EntitleCommand.misuse(error.message, usage: usage)
        } catch {
            return EntitleCommand.misuse("\(error)", usage: usage)
        }

        var errorText = ""
        let compilation = Portfolio.load(path: catalogPath)
        errorText += EntitleCommand.render(compilation.diagnostics)
        guard let portfolio = compilation.portfolio else {
            errorText += "entitle: catalogs have errors: \(EntitleCommand.summary(compilation.diagnostics))\n"
            return CommandOutput(exitCode: CommandOutput.invalidInput, standardError: errorText)
        }

        var receipts: [Receipt] = []
        var receiptErrors: [Diagnostic] = []
        var readApple = false
        for path in scanner.all("--receipt") {
            do {
                let loaded = try ReceiptFiles.load(path, app: appOption, standardInput: environment.readStandardInput)
                receipts.append(loaded.receipt)
                readApple = readApple || loaded.fromApple
                for warning in loaded.warnings { errorText += "\(path == "-" ? "<stdin>" : path): warning: \(warning)\n" }
            } catch {
                receiptErrors.append(error.diagnostic)
            }
        }
        if readApple { errorText = AppleImport.notice + "\n" + errorText }
        guard receiptErrors.isEmpty else {
            errorText += EntitleCommand.render(receiptErrors)
            errorText += "entitle: \(receiptErrors.count) receipt\(receiptErrors.count == 1 ? "" : "s") rejected\n"
            return CommandOutput(exitCode: CommandOutput.invalidInput, standardError: errorText)
        }

        let app = appOption ?? receipts[0].app
        let result: Entitlements
        do {
            result = try portfolio.evaluate(app: app, receipts: receipts, at: at)
        } catch {
            return CommandOutput(exitCode: CommandOutput.misuse, standardError: errorText + "entitle: \(error)\n")
        }
        return CommandOutput(
            exitCode: CommandOutput.success,
            standardOutput: format == "json" ? result.json : result.text,
            standardError: errorText)
    }
}
