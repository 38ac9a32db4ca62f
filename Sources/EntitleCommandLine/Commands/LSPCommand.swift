import Foundation

/// `entitle lsp`: runs the ``LanguageServer`` on standard input and output until the editor
/// sends `exit` or closes the input.
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
        // A client that goes away must end the server with an error from `write`, not a signal.
        signal(SIGPIPE, SIG_IGN)
        var server = LanguageServer(read: reader(FileHandle.standardInput), write: { data in
            try FileHandle.standardOutput.write(contentsOf: data)
        })
        return CommandOutput(exitCode: server.run())
    }

    /// Reads what a file handle has now, blocking until it has something: one `read(2)`, where
    /// `FileHandle.read(upToCount:)` would wait for the whole count.
    static func reader(_ handle: FileHandle) -> () throws -> Data? {
        let descriptor = handle.fileDescriptor
        return {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 { return Data(buffer[0..<count]) }
                if count == 0 { return nil }
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
    }
}
