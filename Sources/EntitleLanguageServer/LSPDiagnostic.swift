import Entitle

/// An entitle ``Diagnostic`` as an LSP `Diagnostic`: the same message, code and help as
/// `entitle validate`, located as a range.
///
/// The range starts at the diagnostic's line and column and ends where the key or value that
/// starts there ends (a misspelt feature id is underlined whole, quotes included); where no key or
/// scalar starts there (an object, a syntax error) it runs to the end of the line.
enum LSPDiagnostic {
    static func json(_ diagnostic: Diagnostic, positions: TextPositions, scan: TolerantScan) -> JSONOutput {
        let range = self.range(of: diagnostic, positions: positions, scan: scan)
        var message = diagnostic.path.isEmpty ? diagnostic.message : "\(diagnostic.path): \(diagnostic.message)"
        if let help = diagnostic.help { message += "\nhelp: \(help)" }
        var members: [(String, JSONOutput)] = [
            ("range", rangeJSON(range.start, range.end, positions)),
            ("severity", .integer(severity(diagnostic.severity))),
            ("code", .string(diagnostic.code.rawValue)),
            ("source", .string("entitle")),
            ("message", .string(message)),
        ]
        if let help = diagnostic.help {
            var data: [(String, JSONOutput)] = [("help", .string(help))]
            // The checker's fix, as data: the code action replaces the token with it.
            if let fix = diagnostic.fixes.first { data.append(("replacement", .string(fix.replacement))) }
            members.append(("data", .object(data)))
        }
        return .object(members)
    }

    /// LSP's DiagnosticSeverity: 1 error, 2 warning, 3 information (entitle's notes).
    static func severity(_ severity: Diagnostic.Severity) -> Int64 {
        switch severity {
        case .error: 1
        case .warning: 2
        case .note: 3
        }
    }

    /// The byte range a diagnostic covers.
    static func range(of diagnostic: Diagnostic, positions: TextPositions, scan: TolerantScan) -> (start: Int, end: Int) {
        guard let location = diagnostic.location else { return (0, 0) }
        let start = positions.offset(line: location.line, column: location.column)
        if let token = scan.token(startingAt: start), token.end > start { return (start, token.end) }
        return (start, max(start, positions.lineEnd(positions.line(of: start))))
    }

    /// An LSP `Range` of a byte range.
    static func rangeJSON(_ start: Int, _ end: Int, _ positions: TextPositions) -> JSONOutput {
        .object([("start", positionJSON(positions.position(of: start))), ("end", positionJSON(positions.position(of: end)))])
    }

    static func positionJSON(_ position: TextPosition) -> JSONOutput {
        .object([("line", .integer(Int64(position.line))), ("character", .integer(Int64(position.character)))])
    }
}
