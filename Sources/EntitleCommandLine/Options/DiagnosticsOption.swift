import Entitle
import Foundation

/// `--diagnostics FORMAT [--diagnostics-file FILE]`: how `check`, `explain`, `diff` and `test`
/// print catalog diagnostics, whose standard output is their own result.
///
/// `text` (the default) and `github` print on standard error, where GitHub Actions also reads
/// workflow commands; `json` and `sarif` are whole documents, so they go to `--diagnostics-file`
/// (written even when there is nothing to report, for upload steps) and the usual text stays on
/// standard error.
struct DiagnosticsOption {
    /// `--diagnostics FORMAT`.
    static let format: Option<DiagnosticFormat> = .choice(
        "--diagnostics", DiagnosticFormat.allCases.map { ($0, help: nil) },
        help: """
            how catalog diagnostics print: `text` (default) or `github` (workflow commands) on standard error; `json` or
            `sarif` (2.1.0) into --diagnostics-file
            """)
    /// `--diagnostics-file FILE`.
    static let file: Option<String> = .path("--diagnostics-file", valueName: "FILE", help: "write the diagnostics to FILE instead")

    /// What this adds to a command's synopsis.
    static let synopsis: [SynopsisItem] = [.optional(format), .optional(file)]

    var format: DiagnosticFormat = .text
    var file: String?

    /// Reads the options of a scanned command line.
    ///
    /// - Throws: ``UsageError`` for an unknown format, or `json`/`sarif` without a file.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        format = try arguments.value(Self.format) ?? .text
        file = try arguments.value(Self.file)
        let (formatName, fileName) = (Self.format.name, Self.file.name)
        if file == nil, format == .json || format == .sarif {
            throw UsageError(message: "`\(formatName) \(format.rawValue)` writes one document: give `\(fileName) FILE` too")
        }
        // A file that cannot be written is a mistake in the command line, found before any work.
        if let file {
            let directory = (file as NSString).deletingLastPathComponent
            var isDirectory: ObjCBool = false
            let parent = directory.isEmpty ? "." : directory
            if !FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) || !isDirectory.boolValue {
                throw UsageError(message: "`\(fileName) \(file)`: no such directory `\(parent)`")
            }
            if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
                throw UsageError(message: "`\(fileName) \(file)` is a directory")
            }
            if !FileManager.default.isWritableFile(atPath: FileManager.default.fileExists(atPath: file) ? file : parent) {
                throw UsageError(message: "`\(fileName) \(file)` cannot be written (permission denied)")
            }
        }
    }

    /// Prints `diagnostics` as chosen: returns what goes on standard error (the text when
    /// there is no file, plus a line when the file cannot be written).
    func emit(_ diagnostics: [Diagnostic]) -> String {
        let rendered = format == .text ? EntitleCommand.render(diagnostics) : format.standardOutput(diagnostics)
        guard let file else { return rendered }
        do {
            try Data(rendered.utf8).write(to: URL(fileURLWithPath: file))
        } catch {
            return EntitleCommand.render(diagnostics) + "entitle: cannot write `\(file)`: \(error.localizedDescription)\n"
        }
        return format == .text || format == .github ? "" : EntitleCommand.render(diagnostics)
    }
}
