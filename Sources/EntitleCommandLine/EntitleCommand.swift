import Entitle

/// The `entitle` command line: dispatches to a subcommand and returns what to print.
///
/// Everything here is library code, so the tests run the same commands the executable does.
public enum EntitleCommand {
    /// The version `entitle --version` prints.
    public static let version = "0.2.0"

    /// A subcommand: its name, one line for the overview, its help, and what it does.
    struct Subcommand: Sendable {
        var name: String
        var summary: String
        var usage: String
        var run: @Sendable ([String], CommandEnvironment) -> CommandOutput
    }

    static let subcommands: [Subcommand] = [
        Subcommand(name: "check", summary: "evaluate receipts against catalogs and print entitlements",
                   usage: CheckCommand.usage, run: CheckCommand.run),
        Subcommand(name: "explain", summary: "say why a customer has what they have, down to each transaction",
                   usage: ExplainCommand.usage, run: ExplainCommand.run),
        Subcommand(name: "diff", summary: "compare two catalog versions and what the change does to customers",
                   usage: DiffCommand.usage, run: DiffCommand.run),
        Subcommand(name: "validate", summary: "check catalogs and print their diagnostics",
                   usage: ValidateCommand.usage, run: { arguments, _ in ValidateCommand.run(arguments) }),
        Subcommand(name: "test", summary: "run the cases of *.test.json files against catalogs and receipts",
                   usage: TestCommand.usage, run: TestCommand.run),
        Subcommand(name: "import", summary: "make a catalog from an Xcode StoreKit configuration file",
                   usage: ImportCommand.usage, run: ImportCommand.run),
        Subcommand(name: "normalize", summary: "read Apple's receipt data and print the normalized receipt",
                   usage: NormalizeCommand.usage, run: NormalizeCommand.run),
        Subcommand(name: "lsp", summary: "serve the Language Server Protocol on standard input and output, for editors",
                   usage: LSPCommand.usage, run: LSPCommand.run),
    ]

    static var usage: String {
        let width = subcommands.map(\.name.count).max() ?? 0
        let commands = subcommands.map { "  " + $0.name.padding(toLength: width + 3, withPad: " ", startingAt: 0) + $0.summary }
        return """
            usage: entitle <command> [options]

            commands:
            \(commands.joined(separator: "\n"))

            options:
              --help     show help (also `entitle help <command>`, `entitle <command> --help`)
              --version  show the version

            """
    }

    /// Runs `entitle` with its arguments (without the program name).
    ///
    /// - Parameters:
    ///   - arguments: the command line after the program name.
    ///   - environment: standard input and the clock.
    /// - Returns: what to print on standard output and standard error, and the exit code.
    public static func run(_ arguments: [String], environment: CommandEnvironment) -> CommandOutput {
        guard let command = arguments.first else {
            return CommandOutput(exitCode: CommandOutput.misuse, standardError: usage)
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h":
            return CommandOutput(standardOutput: usage)
        case "help":
            guard let name = rest.first, name != "help" else { return CommandOutput(standardOutput: usage) }
            guard rest.count == 1 else {
                return CommandOutput(exitCode: CommandOutput.misuse,
                                     standardError: "entitle help: give one command, e.g. `entitle help \(name)`\nrun 'entitle --help' for the commands\n")
            }
            guard let subcommand = subcommands.first(where: { $0.name == name }) else { return unknown(name) }
            return CommandOutput(standardOutput: subcommand.usage)
        case "--version":
            return CommandOutput(standardOutput: "entitle \(version)\n")
        default:
            guard let subcommand = subcommands.first(where: { $0.name == command }) else { return unknown(command) }
            return subcommand.run(rest, environment)
        }
    }

    private static func unknown(_ command: String) -> CommandOutput {
        var message = command.hasPrefix("-") ? "entitle: unknown option `\(command)`; a command comes first"
            : "entitle: unknown command `\(command)`"
        if let suggestion = Suggestion.closest(to: command, in: subcommands.map(\.name)) {
            message += "; did you mean `\(suggestion)`?"
        }
        return CommandOutput(exitCode: CommandOutput.misuse, standardError: message + "\nrun 'entitle --help' for the commands\n")
    }

    /// Misuse of a command: the one-line problem and where to read the usage, exit code 2.
    static func misuse(_ message: String, command: String) -> CommandOutput {
        CommandOutput(exitCode: CommandOutput.misuse, standardError: "entitle \(command): \(message)\nrun 'entitle \(command) --help' for usage\n")
    }

    /// The `--format` option of a command that prints `text` (the default) or `json`.
    static func outputFormat(_ scanner: ArgumentScanner) throws(UsageError) -> String {
        let format = try scanner.single("--format") ?? "text"
        guard format == "text" || format == "json" else {
            var message = "`--format` must be `text` or `json`, not `\(format)`"
            if let suggestion = Suggestion.closest(to: format, in: ["text", "json"]) { message += "; did you mean `\(suggestion)`?" }
            throw UsageError(message: message)
        }
        return format
    }

    /// ``misuse(_:command:)`` for a command whose `--format json` promises JSON on standard output
    /// whatever happens: when the arguments ask for JSON, the problem is printed there too, as
    /// `{"errors": [...]}` with code `usage`.
    static func misuse(_ message: String, command: String, arguments: [String]) -> CommandOutput {
        var output = misuse(message, command: command)
        let asksForJSON = arguments.contains("--format=json")
            || zip(arguments, arguments.dropFirst()).contains { $0 == "--format" && $1 == "json" }
        if asksForJSON {
            output.standardOutput = jsonErrors([Diagnostic(severity: .error, code: .usage, message: message)])
        }
        return output
    }

    /// Diagnostics as printed on standard error, one per line (help lines indented under them).
    static func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map { $0.description + "\n" }.joined()
    }

    /// `2 errors, 1 warning` (and notes, when there are some).
    static func summary(_ diagnostics: [Diagnostic]) -> String {
        let errors = diagnostics.filter(\.isError).count
        let warnings = diagnostics.filter { $0.severity == .warning }.count
        let notes = diagnostics.count - errors - warnings
        var text = "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
        if notes > 0 { text += ", \(notes) note\(notes == 1 ? "" : "s")" }
        return text
    }

    /// `{"errors": [...]}`: what a command asked for JSON prints on standard output when it fails,
    /// so a script reading standard output always gets JSON.
    static func jsonErrors(_ diagnostics: [Diagnostic]) -> String {
        JSONOutput.object([("errors", .array(diagnostics.map(\.jsonOutput)))]).rendered() + "\n"
    }
}
