import Entitle
import Foundation

/// `entitle validate PATH...`: checks catalogs (files, or directories of `*.json` files) as one
/// portfolio and prints every diagnostic to standard error.
enum ValidateCommand {
    static let usage = """
        usage: entitle validate PATH...

          PATH   a catalog file, or a directory whose *.json files are catalogs;
                 all paths together are checked as one portfolio (a file named twice
                 is one catalog)

        Prints diagnostics to standard error; exits 1 on any error, 0 otherwise.

        """

    static func run(_ arguments: [String]) -> CommandOutput {
        let scanner: ArgumentScanner
        do {
            scanner = try ArgumentScanner(arguments, valued: [], flags: ["--help", "-h"])
        } catch {
            return EntitleCommand.misuse(error.message, command: "validate")
        }
        if scanner.flags.contains("--help") || scanner.flags.contains("-h") { return CommandOutput(standardOutput: usage) }
        guard !scanner.positional.isEmpty else { return EntitleCommand.misuse("give at least one catalog path", command: "validate") }
        let (sources, unreadable) = CatalogArguments.sources(scanner.positional)
        var diagnostics = unreadable
        // With nothing readable, the unreadable paths are the whole story.
        if !sources.isEmpty || unreadable.isEmpty { diagnostics += Portfolio.compile(sources).diagnostics }
        let failed = diagnostics.contains(where: \.isError)
        var errorText = EntitleCommand.render(diagnostics)
        let counted = "\(sources.count) catalog\(sources.count == 1 ? "" : "s")"
        errorText += failed
            ? "entitle: \(counted) checked: \(EntitleCommand.summary(diagnostics))\n"
            : "entitle: \(counted) valid: \(EntitleCommand.summary(diagnostics))\n"
        return CommandOutput(exitCode: failed ? CommandOutput.invalidInput : CommandOutput.success, standardError: errorText)
    }
}
