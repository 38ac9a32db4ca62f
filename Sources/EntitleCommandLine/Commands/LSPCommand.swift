import EntitleLanguageServer

/// `entitle lsp`: runs the language server (the `EntitleLanguageServer` target) on standard input
/// and output until the editor sends `exit` or closes the input.
enum LSPCommand {
    /// `--stdio`, which some clients add.
    static let stdio: Option<Bool> = .flag("--stdio", help: "serve on standard input and output (what some clients add; it changes nothing)")

    /// The command, declared.
    static let command = Subcommand(
        name: "lsp", summary: "serve the Language Server Protocol on standard input and output, for editors",
        synopses: [[.optional(stdio)]],
        discussion: """
            Runs a Language Server Protocol server on standard input and output, for editors: diagnostics as `entitle
            validate` prints them (for every catalog of the edited file's directory, as you type), completion of keys, enum
            values and ids, hover, go to definition and find references of features, currencies and products, and quick
            fixes for "did you mean".

            Exits 0 after the editor's `shutdown` and `exit`, 1 otherwise.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, _ environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        try arguments.refusePositional()
        return CommandOutput(exitCode: LanguageServer.serveStandardStreams(version: EntitleCommand.version))
    }
}
