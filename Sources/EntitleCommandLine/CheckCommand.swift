import Entitle
import Foundation

/// `entitle check`: evaluates receipts against catalogs at an instant and prints the entitlements.
enum CheckCommand {
    static let usage = """
        usage: entitle check --catalog PATH [--catalog PATH ...] --receipt FILE [--receipt FILE ...]
                             [--app BUNDLE] [--at INSTANT] [--environment NAME ...] [--format text|json]
                             [--diagnostics FORMAT] [--diagnostics-file FILE] [--verify --root FILE ...]
               entitle check --catalog PATH [--catalog PATH ...] --customers PATH [--customers PATH ...]
                             [--app BUNDLE] [--at INSTANT] [--environment NAME ...] [--verify --root FILE ...]

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
        \(DiagnosticsOption.usage)
          --customers PATH  evaluate a customer corpus instead (a directory with one receipt file
                            or one subdirectory of receipts per customer, or a JSON Lines file of
                            {"customer": ID, "receipts": [...]}) and print one JSON object per
                            line: {"customer": ID, ...the check JSON...}, or {"customer": ID,
                            "errors": [...]} for a customer whose receipts cannot be read
                            (with --verify: or do not verify)
        \(VerifyOption.usage)

        Catalog errors are printed as they are; the app is still evaluated when its catalog, and
        the catalogs it refers to, compiled. With `--format json`, a failure prints
        {"errors": [...]} on standard output.

        Exits 0 when done, 1 on an invalid catalog or receipt (with --customers: when any
        customer's receipts could not be read; every other line is still printed), 2 on misuse.

        """

    static func run(_ arguments: [String], environment: CommandEnvironment) -> CommandOutput {
        let scanner: ArgumentScanner
        let format: String
        let appOption: String?
        let at: Instant
        let diagnostics: DiagnosticsOption
        let verify: VerifyOption?
        do throws(UsageError) {
            scanner = try ArgumentScanner(
                arguments, valued: DiagnosticsOption.valued.union(["--catalog", "--receipt", "--app", "--at", "--format", "--environment", "--customers"])
                    .union(VerifyOption.valued),
                flags: VerifyOption.flags.union(["--help", "-h"]))
            if scanner.flags.contains("--help") || scanner.flags.contains("-h") {
                return CommandOutput(standardOutput: usage)
            }
            guard scanner.positional.isEmpty else {
                throw UsageError(message: "unexpected argument `\(scanner.positional[0])`")
            }
            guard !scanner.all("--catalog").isEmpty else { throw UsageError(message: "`--catalog` is required") }
            if !scanner.all("--customers").isEmpty {
                guard scanner.all("--receipt").isEmpty else { throw UsageError(message: "give `--receipt` or `--customers`, not both") }
                guard try scanner.single("--format") ?? "json" == "json" else {
                    throw UsageError(message: "`--customers` prints JSON Lines: `--format` can only be `json`")
                }
            } else {
                guard !scanner.all("--receipt").isEmpty else { throw UsageError(message: "give at least one `--receipt`") }
            }
            if scanner.all("--receipt").filter({ $0 == "-" }).count > 1 {
                throw UsageError(message: "standard input (`-`) can be read only once")
            }
            format = try EntitleCommand.outputFormat(scanner)
            diagnostics = try DiagnosticsOption(scanner)
            verify = try VerifyOption.parse(scanner)
            appOption = try scanner.single("--app")
            at = try scanner.single("--at").map { text throws(UsageError) in try InstantArgument.parse(text) } ?? environment.now()
        } catch {
            return EntitleCommand.misuse(error.message, command: "check", arguments: arguments)
        }
        let json = format == "json"
        if !scanner.all("--customers").isEmpty {
            return BatchCheck.run(scanner, app: appOption, at: at, diagnostics: diagnostics, verify: verify, environment: environment)
        }

        var inputs: EvaluationInputs
        switch EvaluationInputs.load(scanner, app: appOption, at: at, json: json, diagnostics: diagnostics, verify: verify, environment: environment) {
        case .success(let loaded): inputs = loaded
        case .failure(let failed): return failed.output
        }
        let result: Entitlements
        do {
            result = try inputs.portfolio.evaluate(app: inputs.app, receipts: inputs.receipts, at: at, environments: inputs.environments)
        } catch {
            return inputs.failure([Diagnostic(severity: .error, code: .unknownApp, message: "\(error)")], "nothing to evaluate",
                                  exitCode: CommandOutput.misuse)
        }
        inputs.noteOtherCatalogErrors()
        return CommandOutput(exitCode: CommandOutput.success, standardOutput: json ? result.json : result.text,
                             standardError: inputs.errorText)
    }
}
