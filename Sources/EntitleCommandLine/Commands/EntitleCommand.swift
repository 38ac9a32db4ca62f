import Entitle

/// The `entitle` command line: dispatches to a subcommand and returns what to print.
///
/// Everything here is library code, so the tests run the same commands the executable does.
public enum EntitleCommand {
    /// The version `entitle --version` prints: the library's (``LibraryVersion/current``).
    public static var version: String { LibraryVersion.current.description }

    /// The commands, in the order the overview lists them; each declares its options once
    /// (``Subcommand``), and its scanner and help are derived from that.
    static let subcommands: [Subcommand] = [
        CheckCommand.command, ExplainCommand.command, DiffCommand.command, ValidateCommand.command, GraphCommand.command, TestCommand.command,
        ImportCommand.command, NormalizeCommand.command, ReceiptCommand.command, ConsumptionCommand.command, RetentionCommand.command,
        LSPCommand.command,
    ]

    /// `entitle --version`.
    static let versionFlag: Option<Bool> = .flag("--version", help: "show the version")

    /// The options `entitle` takes before a command.
    static let options = [SharedOptions.help.help("show help (also `entitle help <command>`, `entitle <command> --help`)"), versionFlag]

    /// The overview: the commands, each with its summary, and the options before a command.
    static var usage: String {
        let width = subcommands.map(\.name.count).max() ?? 0
        let commands = subcommands.map { "  " + $0.name.padding(toLength: width + 3, withPad: " ", startingAt: 0) + $0.summary }
        let options = options.flatMap { HelpText.entry($0.spec.label, $0.spec.help) }
        return """
            usage: entitle <command> [options]

            commands:
            \(commands.joined(separator: "\n"))

            options:
            \(options.joined(separator: "\n"))

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
        if SharedOptions.help.spec.spellings.contains(command) { return CommandOutput(standardOutput: usage) }
        switch command {
        case "help":
            guard let name = rest.first, name != "help" else { return CommandOutput(standardOutput: usage) }
            guard rest.count == 1 else {
                return CommandOutput(
                    exitCode: CommandOutput.misuse,
                    standardError: "entitle help: give one command, e.g. `entitle help \(name)`\nrun 'entitle --help' for the commands\n")
            }
            guard let subcommand = subcommands.first(where: { $0.name == name }) else { return unknown(name) }
            return CommandOutput(standardOutput: subcommand.help)
        case versionFlag.name:
            return CommandOutput(standardOutput: "entitle \(version)\n")
        default:
            guard let subcommand = subcommands.first(where: { $0.name == command }) else { return unknown(command) }
            return run(subcommand, rest, environment: environment)
        }
    }

    /// Scans a command's arguments against its declaration and runs it: its help when asked
    /// for, misuse when the command line cannot run.
    static func run(_ subcommand: Subcommand, _ arguments: [String], environment: CommandEnvironment) -> CommandOutput {
        do throws(UsageError) {
            let parsed = try subcommand.parse(arguments)
            if parsed.contains(SharedOptions.help) { return CommandOutput(standardOutput: subcommand.help) }
            return try subcommand.run(parsed, environment)
        } catch {
            return subcommand.misuseAsJSON
                ? misuse(error, command: subcommand.name, arguments: arguments)
                : misuse(error, command: subcommand.name)
        }
    }

    private static func unknown(_ command: String) -> CommandOutput {
        var message =
            command.hasPrefix("-")
            ? "entitle: unknown option `\(command)`; a command comes first"
            : "entitle: unknown command `\(command)`"
        if let suggestion = Suggestion.closest(to: command, in: subcommands.map(\.name)) {
            message += "; did you mean `\(suggestion)`?"
        }
        return CommandOutput(exitCode: CommandOutput.misuse, standardError: message + "\nrun 'entitle --help' for the commands\n")
    }

    /// Misuse of a command: the one-line problem and where to read the usage, exit code 2.
    static func misuse(_ message: String, command: String) -> CommandOutput {
        misuse(UsageError(message: message), command: command)
    }

    /// ``misuse(_:command:)`` with the suggestion, if any, after the message.
    static func misuse(_ error: UsageError, command: String) -> CommandOutput {
        let line = error.help.map { "\(error.message); \($0)" } ?? error.message
        return CommandOutput(
            exitCode: CommandOutput.misuse, standardError: "entitle \(command): \(line)\nrun 'entitle \(command) --help' for usage\n")
    }

    /// ``misuse(_:command:)`` for a command whose `--format json` promises JSON on standard output
    /// whatever happens: when the arguments ask for JSON, the problem is printed there too, as
    /// `{"errors": [...]}` with code `usage`.
    static func misuse(_ error: UsageError, command: String, arguments: [String]) -> CommandOutput {
        var output = misuse(error, command: command)
        // Read from the words themselves: the command line may be one that cannot be scanned.
        let (format, json) = (SharedOptions.format.name, OutputFormat.json.rawValue)
        let asksForJSON =
            arguments.contains("\(format)=\(json)")
            || zip(arguments, arguments.dropFirst()).contains { $0 == format && $1 == json }
        if asksForJSON {
            output.standardOutput = jsonErrors([Diagnostic(severity: .error, code: .usage, message: error.message, help: error.help)])
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
