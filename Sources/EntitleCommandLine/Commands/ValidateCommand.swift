import Entitle
import Foundation

/// `entitle validate [--format text|json|github|sarif] PATH...`: checks catalogs (files, or
/// directories of `*.json` files) as one portfolio and prints every diagnostic, for people on
/// standard error or for tools on standard output.
enum ValidateCommand {
    /// `--format FORMAT`: where the diagnostics go. Its own option, not ``SharedOptions/format``:
    /// it chooses among the diagnostic formats, not a result's.
    static let format: Option<DiagnosticFormat> = .choice(
        SharedOptions.format.name,
        [
            (.text, help: "diagnostics on standard error, for people (default)"),
            (.json, help: #"a JSON array of {"file", "line", "column", "severity", "code", "path", "message", "help"} on standard output"#),
            (.github, help: "GitHub Actions annotations (::error file=...) on standard output"),
            (.sarif, help: "a SARIF 2.1.0 log on standard output"),
        ],
        help: "where the diagnostics go:")
    /// `--storekit FILE ...`.
    static let storekit: Option<String> = .path(
        "--storekit", valueName: "FILE", kind: .repeatable,
        help: """
            an Xcode StoreKit configuration (repeatable): every difference from the catalog sharing the most product ids
            with it (a product on one side only, type, duration, group, level, family sharing, intro offer) is a warning
            located in the catalog (`store-drift`)
            """)
    /// `--strict`.
    static let strict: Option<Bool> = .flag("--strict", help: "make those differences errors (for CI)")

    /// The command, declared.
    static let command = Subcommand(
        name: "validate", summary: "check catalogs and print their diagnostics",
        synopses: [
            [
                .optional(format), .optional(storekit), .optional(strict), .optional(ProveOptions.deep), .optional(ProveOptions.depth),
                .optional(ProveOptions.timeLimit),
                .argument(
                    "PATH...", label: "PATH",
                    help: """
                        a catalog file, or a directory whose *.json files are catalogs (`*.test.json` files are tests, not catalogs);
                        all paths together are checked as one portfolio (a file named twice is one catalog)
                        """),
            ]
        ],
        discussion: """
            With --deep, the review's findings are warnings like the others (codes `never-on`, `never-offered`,
            `grants-always-on`, `trial-adds-nothing`, `rule-never-matches`, `rule-redundant`, `offer-never-eligible`), and a
            line on standard error says what was searched; catalogs with errors are not searched.

            Every format ends with a summary line on standard error. Exits 1 on any error, 0 otherwise, 2 on misuse.
            """,
        run: { arguments, environment throws(UsageError) in try run(arguments, environment: environment) })

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        let format = try arguments.value(Self.format) ?? .text
        let given = try CatalogArguments.compileOperands(arguments)
        let sources = given.sources
        var diagnostics = given.diagnostics
        let severity: Diagnostic.Severity = arguments.contains(strict) ? .error : .warning
        for path in try arguments.values(storekit) {
            do throws(ReceiptError) {
                let data = try ReceiptFiles.read(path, what: "StoreKit configuration file", standardInput: { [] })
                let configuration = try StoreKitConfiguration(data: data, name: path)
                if !configuration.isKnownVersion, let version = configuration.formatVersion {
                    diagnostics.append(
                        Diagnostic(
                            severity: .warning, code: .storeDrift,
                            message: "StoreKit configuration format version \(version); entitle reads versions 2 to 5",
                            location: SourceLocation(file: path, line: 1, column: 1)))
                }
                diagnostics += StoreKitDrift.diagnostics(sources, configuration: configuration, severity: severity)
            } catch {
                diagnostics.append(error.diagnostic)
            }
        }
        let deep = try deepReview(arguments, compiled: given, environment: environment)
        diagnostics += deep?.diagnostics ?? []
        let failed = diagnostics.contains(where: \.isError)
        var errorText = format.standardError(diagnostics) + (deep?.summary ?? "")
        // A receipt among the catalogs is not counted as a catalog.
        let notCatalogs = Set(diagnostics.filter { $0.code == .notACatalog }.compactMap(\.location?.file)).count
        let catalogs = sources.count - notCatalogs
        var counted = "\(catalogs) catalog\(catalogs == 1 ? "" : "s")"
        if notCatalogs > 0 { counted += " (and \(notCatalogs) file\(notCatalogs == 1 ? "" : "s") that \(notCatalogs == 1 ? "is" : "are") not one)" }
        errorText +=
            failed
            ? "entitle: \(counted) checked: \(EntitleCommand.summary(diagnostics))\n"
            : "entitle: \(counted) valid: \(EntitleCommand.summary(diagnostics))\n"
        return CommandOutput(
            exitCode: failed ? CommandOutput.invalidInput : CommandOutput.success,
            standardOutput: format.standardOutput(diagnostics), standardError: errorText)
    }
}
