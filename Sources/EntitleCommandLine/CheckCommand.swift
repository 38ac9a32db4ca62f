import Entitle
import Foundation

/// `entitle check`: evaluates receipts against catalogs at an instant and prints the entitlements.
enum CheckCommand {
    static let usage = """
        usage: entitle check --catalog PATH [--catalog PATH ...] --receipt FILE [--receipt FILE ...]
                             [--app BUNDLE] [--at INSTANT] [--environment NAME ...] [--format text|json]

          --catalog PATH    a catalog file, or a directory whose *.json files are catalogs;
                            repeat to add more
          --receipt FILE    a receipt: normalized JSON, or Apple's verifyReceipt, App Store
                            (JWS) or PKCS#7 data, recognized from the content; `-` reads
                            standard input; repeat for more
          --app BUNDLE      the app to evaluate (default: the first receipt's app); also the
                            app of Apple data that names none (renewal info alone)
          --at INSTANT      when to evaluate: RFC 3339 (2026-01-15T09:00:00Z) or a date alone
                            (2026-01-15, midnight UTC); default: now
          --environment NAME  accept receipts of this environment only (`production`,
                            `sandbox`, `xcode`, `local-testing`); repeat for more; default:
                            all. A receipt without one is `production`; others are ignored
                            with a warning
          --format FORMAT   `text` for people (default) or `json` for scripts

        Catalog errors are printed as they are; the app is still evaluated when its catalog, and
        the catalogs it refers to, compiled. With `--format json`, a failure prints
        {"errors": [...]} on standard output.

        Exits 0 when done, 1 on an invalid catalog or receipt, 2 on misuse.

        """

    static func run(_ arguments: [String], environment: CommandEnvironment) -> CommandOutput {
        let scanner: ArgumentScanner
        let format: String
        let appOption: String?
        let at: Instant
        do throws(UsageError) {
            scanner = try ArgumentScanner(
                arguments, valued: ["--catalog", "--receipt", "--app", "--at", "--format", "--environment"], flags: ["--help", "-h"])
            if scanner.flags.contains("--help") || scanner.flags.contains("-h") {
                return CommandOutput(standardOutput: usage)
            }
            guard scanner.positional.isEmpty else {
                throw UsageError(message: "unexpected argument `\(scanner.positional[0])`")
            }
            guard !scanner.all("--catalog").isEmpty else { throw UsageError(message: "`--catalog` is required") }
            guard !scanner.all("--receipt").isEmpty else { throw UsageError(message: "give at least one `--receipt`") }
            if scanner.all("--receipt").filter({ $0 == "-" }).count > 1 {
                throw UsageError(message: "standard input (`-`) can be read only once")
            }
            format = try scanner.single("--format") ?? "text"
            guard format == "text" || format == "json" else {
                throw UsageError(message: "`--format` must be `text` or `json`, not `\(format)`")
            }
            appOption = try scanner.single("--app")
            at = try scanner.single("--at").map { text throws(UsageError) in try InstantArgument.parse(text) } ?? environment.now()
        } catch {
            return EntitleCommand.misuse(error.message, command: "check")
        }
        let json = format == "json"

        var errorText = ""
        let (sources, unreadable) = CatalogArguments.sources(scanner.all("--catalog"))
        let compilation = Portfolio.compile(sources)
        let catalogDiagnostics = unreadable + compilation.diagnostics
        errorText += EntitleCommand.render(catalogDiagnostics)

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
        func failure(_ diagnostics: [Diagnostic], _ line: String, exitCode: Int32 = CommandOutput.invalidInput) -> CommandOutput {
            CommandOutput(exitCode: exitCode, standardOutput: json ? EntitleCommand.jsonErrors(diagnostics) : "",
                          standardError: errorText + EntitleCommand.render(diagnostics.filter { !catalogDiagnostics.contains($0) })
                              + "entitle: \(line)\n")
        }
        guard receiptErrors.isEmpty else {
            return failure(receiptErrors, "\(receiptErrors.count) receipt\(receiptErrors.count == 1 ? "" : "s") rejected")
        }

        let app = appOption ?? receipts[0].app
        // Evaluate when the app's catalog (and those it refers to) compiled, whatever else failed.
        guard let portfolio = compilation.portfolio(evaluating: app) else {
            let errors = catalogDiagnostics.filter(\.isError)
            if !errors.isEmpty {
                return failure(errors, "the catalogs of `\(app)` have errors: \(EntitleCommand.summary(catalogDiagnostics))")
            }
            let missing = Diagnostic(severity: .error, code: .unknownApp,
                                     message: "\(PortfolioError(missingApp: app, known: compilation.compiledCatalogs.map(\.app)))")
            return failure([missing], "nothing to evaluate", exitCode: CommandOutput.misuse)
        }
        let result: Entitlements
        do {
            let environments = scanner.all("--environment")
            result = try portfolio.evaluate(app: app, receipts: receipts, at: at,
                                            environments: environments.isEmpty ? nil : Set(environments))
        } catch {
            return failure([Diagnostic(severity: .error, code: .unknownApp, message: "\(error)")], "nothing to evaluate",
                           exitCode: CommandOutput.misuse)
        }
        if catalogDiagnostics.contains(where: \.isError) {
            errorText += "entitle: other catalogs have errors (\(EntitleCommand.summary(catalogDiagnostics))); `\(app)` is not affected\n"
        }
        return CommandOutput(
            exitCode: CommandOutput.success,
            standardOutput: json ? result.json : result.text,
            standardError: errorText)
    }
}
