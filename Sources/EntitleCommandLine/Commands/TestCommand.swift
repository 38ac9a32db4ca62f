import Entitle
import Foundation

/// `entitle test [PATH...] [--format text|json] [--coverage]`: runs the cases of test files
/// (`*.test.json`) kept beside the catalogs and prints each difference from what they expect.
enum TestCommand {
    /// `--coverage`.
    static let coverage: Option<Bool> = .flag(
        "--coverage",
        help: """
            also list, per app, what no case exercised: products never purchased, features never on or never off, offer
            reasons never seen
            """)

    /// The command, declared.
    static let command = Subcommand(
        name: "test", summary: "run the cases of *.test.json files against catalogs and receipts",
        synopses: [
            [
                .argument(
                    "[PATH...]", label: "PATH",
                    help: """
                        a test file, or a directory searched (recursively, hidden folders skipped) for *.test.json files; default: the
                        current directory
                        """),
                .optional(SharedOptions.format), .optional(coverage),
            ] + DiagnosticsOption.synopsis
        ],
        discussion: """
            A test file names catalogs and receipts and holds cases, each an instant and a part of what `entitle check
            --format json` would print then (schemas/test.schema.json). Each difference prints as `file:line:column: case
            NAME: PATH: expected X, got Y`, then `N passed, M failed`. A test file that cannot run (malformed, an unknown
            key, a bad instant, a catalog with errors, a receipt that cannot be read) is reported, located, on standard
            error.

            Exits 0 when every case passes, 1 when any fails, 2 on misuse or a test file that cannot run.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        let json = try arguments.value(SharedOptions.format) == .json
        let diagnostics = try DiagnosticsOption(arguments)
        let coverage = arguments.contains(Self.coverage)
        let (files, missing) = TestFiles.find(arguments.positional.isEmpty ? ["."] : arguments.positional)

        var runner = TestRunner()
        for file in files { runner.run(file) }
        let errors = missing + runner.errors
        let exitCode =
            errors.contains(where: \.isError)
            ? CommandOutput.misuse
            : runner.failed > 0 ? CommandOutput.invalidInput : CommandOutput.success
        let closing = "\(runner.passed) passed, \(runner.failed) failed"

        var errorText = ReceiptFiles.notices(runner.unverifiedFormats)
        errorText += runner.importWarnings.map { $0 + "\n" }.joined()
        if json {
            var members: [(String, JSONOutput)] = [
                ("passed", .integer(Int64(runner.passed))),
                ("failed", .integer(Int64(runner.failed))),
                ("failures", .array(runner.failures.map(\.json))),
                ("errors", .array(errors.map(\.jsonOutput))),
            ]
            if coverage { members.append(("coverage", .object(runner.coverage.map { ($0.app, $0.json) }))) }
            return CommandOutput(
                exitCode: exitCode, standardOutput: JSONOutput.object(members).rendered() + "\n",
                standardError: errorText)
        }
        var text = runner.failures.map { $0.text + "\n" }.joined()
        if coverage { text += runner.coverage.map(\.text).joined() }
        text += closing + "\n"
        errorText += diagnostics.emit(errors)
        let unrun = runner.invalidFiles + missing.count
        if unrun > 0 {
            errorText += "entitle: \(unrun) test \(unrun == 1 ? "file" : "files") could not be run\n"
        }
        return CommandOutput(exitCode: exitCode, standardOutput: text, standardError: errorText)
    }
}
