import Entitle
import Foundation

/// The `entitle` command line: dispatches to a subcommand and returns what to print.
///
/// Everything here is library code, so the tests run the same commands the executable does.
public enum EntitleCommand {
    public static let version = "0.1.0"

    static let usage = """
        usage: entitle <command> [options]

        commands:
          check      evaluate receipts against catalogs and print entitlements
          validate   check catalogs and print their diagnostics
          normalize  read Apple's receipt data and print the normalized receipt

        options:
          --help     show help (also `entitle <command> --help`)
          --version  show the version

        """

    /// Runs `entitle` with its arguments (without the program name).
    public static func run(_ arguments: [String], environment: CommandEnvironment) -> CommandOutput {
        guard let command = arguments.first else {
            return CommandOutput(exitCode: CommandOutput.misuse, standardError: usage)
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h", "help":
            return CommandOutput(standardOutput: usage)
        case "--version":
            return CommandOutput(standardOutput: "entitle \(version)\n")
        case "check":
            return CheckCommand.run(rest, environment: environment)
        case "validate":
            return ValidateCommand.run(rest)
        case "normalize":
            return NormalizeCommand.run(rest, environment: environment)
        default:
            var message = "entitle: unknown command `\(command)`"
            if let suggestion = Suggestion.closest(to: command, in: ["check", "validate", "normalize"]) {
                message += "; did you mean `\(suggestion)`?"
            }
            return CommandOutput(exitCode: CommandOutput.misuse, standardError: message + "\n\n" + usage)
        }
    }

    static func misuse(_ message: String, usage: String) -> CommandOutput {
        CommandOutput(exitCode: CommandOutput.misuse, standardError: "entitle: \(message)\n\n\(usage)")
    }

    /// Diagnostics as printed on standard error, one per line (help lines indented under them).
    static func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map { $0.description + "\n" }.joined()
    }

    /// `2 errors, 1 warning`.
    static func summary(_ diagnostics: [Diagnostic]) -> String {
        let errors = diagnostics.filter(\.isError).count
        let warnings = diagnostics.filter { $0.severity == .warning }.count
        let notes = diagnostics.count - errors - warnings
        var text = "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
        if notes > 0 { text += ", \(notes) note\(notes == 1 ? "" : "s")" }
        return text
    }
}
