import Foundation

/// One problem found in a catalog or receipt: severity, a stable code, a message, where it is and,
/// when there is something to suggest, a help line.
///
/// Diagnostics are values: the checker gathers all of them in one pass instead of stopping at the
/// first. Printed, a diagnostic reads like a compiler's:
///
///     products/diagrams.json:14:27: error: products[0].grants[1]: undeclared feature `export.pfd`
///       help: did you mean `export.pdf`?
public struct Diagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    /// How serious a diagnostic is.
    @nonexhaustive
    public enum Severity: String, Hashable, Sendable {
        /// The input is rejected.
        case error
        /// The input is accepted; something is probably not what was meant.
        case warning
        /// The input is accepted; something could not be checked, or is worth knowing.
        case note
    }

    /// Whether the input is rejected (`error`) or accepted (`warning`, `note`).
    public var severity: Severity
    /// A stable identifier of the kind of problem, for tools and tests.
    public var code: DiagnosticCode
    /// Lowercase, no trailing period, user input in backticks.
    public var message: String
    /// Where the problem is; `nil` for problems of no one file (no catalogs given).
    public var location: SourceLocation?
    /// The JSON path of the value concerned, such as `products[3].grants[1]`; empty for the root.
    public var path: String
    /// Extra advice, printed on its own `help:` line.
    public var help: String?
    /// Edits that resolve the problem, as data: a "did you mean" as the replacement of the
    /// misspelt key or value. Editors offer them as quick fixes; the help line says the same in
    /// words.
    public var fixes: [Fix] = []

    /// One edit of the input: replace the bytes of `range` with `replacement`.
    public struct Fix: Hashable, Sendable {
        /// The text to write, as it goes in the file: a key or an id with its JSON quotes
        /// (`"export.pdf"`).
        public var replacement: String
        /// The UTF-8 byte offsets of the text it replaces in the file: the whole key or string
        /// value, quotes included.
        public var range: Range<Int>

        /// Creates an edit.
        public init(replacement: String, range: Range<Int>) {
            self.replacement = replacement
            self.range = range
        }
    }

    /// Creates a diagnostic.
    public init(
        severity: Severity, code: DiagnosticCode, message: String,
        location: SourceLocation? = nil, path: String = "", help: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = Self.bounded(message)
        self.location = location
        self.path = Self.bounded(path)
        self.help = help.map(Self.bounded)
    }

    /// The most UTF-8 bytes a message, path or help line keeps; past it the middle is cut. A
    /// crafted name of megabytes must not make every logged diagnostic as large (names echoed in
    /// messages are shortened far earlier, by ``excerpt(_:)``; this bounds everything else).
    package static let maxTextBytes = 4096

    /// `text`, or its start and end with the middle replaced by how much was cut when it is
    /// longer than ``maxTextBytes``.
    package static func bounded(_ text: String) -> String {
        guard text.utf8.count > maxTextBytes else { return text }
        let keep = maxTextBytes / 2 - 64
        let head = String(decoding: text.utf8.prefix(keep), as: UTF8.self)
        let tail = String(decoding: text.utf8.suffix(keep), as: UTF8.self)
        return "\(head)…[\(text.utf8.count - 2 * keep) bytes cut]…\(tail)"
    }

    /// A name from the input as messages and paths show it: itself, or when longer than 120
    /// bytes its first 60 and how long it is (`AAAA…` (5000000 bytes)), so a crafted name is
    /// recognizable without being repeated whole.
    package static func excerpt(_ name: String) -> String {
        guard name.utf8.count > 120 else { return name }
        return "\(String(decoding: name.utf8.prefix(60), as: UTF8.self))…(\(name.utf8.count) bytes)"
    }

    /// Whether the diagnostic rejects the input.
    public var isError: Bool { severity == .error }

    /// `file:line:column: severity: path: message`, then `  help: ...` when there is help.
    public var description: String {
        var text = ""
        if let location { text += "\(location): " }
        text += "\(severity.rawValue): "
        if !path.isEmpty { text += "\(path): " }
        text += message
        // Names from the input may hold line breaks or escapes: printed escaped, one line each.
        text = text.escapingControlCharacters
        if let help { text += "\n  help: \(help.escapingControlCharacters)" }
        return text
    }
}

extension Diagnostic {
    /// The diagnostic with a did-you-mean for the key or string value that starts at `offset` of
    /// `data`: the help line says it (`did you mean `X`?`, then `meaning`), and the fix replaces
    /// that JSON string with `meant` (no fix when no string starts there).
    func suggesting(_ meant: String, _ meaning: String = "", at offset: Int, in data: Data?) -> Diagnostic {
        var diagnostic = self
        diagnostic.help = Self.bounded("did you mean `\(meant)`?" + meaning)
        if let data, let end = CatalogChecker.endOfString(in: data, at: offset) {
            diagnostic.fixes = [Fix(replacement: JSONOutput.string(meant).compact(), range: offset..<end)]
        }
        return diagnostic
    }
}
