extension Diagnostic {
    /// The diagnostic as one JSON object, the form tools read:
    /// `{"file", "line", "column", "severity", "code", "path", "message", "help"}` (a diagnostic
    /// without a location has `null` for the first three; `help` is `null` when there is none).
    package var jsonOutput: JSONOutput {
        .object([
            ("file", location.map { .string($0.file) } ?? .null),
            ("line", location.map { .integer(Int64($0.line)) } ?? .null),
            ("column", location.map { .integer(Int64($0.column)) } ?? .null),
            ("severity", .string(severity.rawValue)),
            ("code", .string(code.rawValue)),
            ("path", .string(path)),
            ("message", .string(message)),
            ("help", help.map { .string($0) } ?? .null),
        ])
    }
}
