extension Diagnostic {
    /// The diagnostic as one JSON object, the form tools read:
    /// `{"file", "line", "column", "severity", "code", "path", "message", "help", "fixes"?}` (a
    /// diagnostic without a location has `null` for the first three; `help` is `null` when there
    /// is none; `fixes`, when there are some, is `[{"replacement", "start", "end"}]` with UTF-8
    /// byte offsets into the file).
    package var jsonOutput: JSONOutput {
        var members: [(String, JSONOutput)] = [
            ("file", location.map { .string($0.file) } ?? .null),
            ("line", location.map { .integer(Int64($0.line)) } ?? .null),
            ("column", location.map { .integer(Int64($0.column)) } ?? .null),
            ("severity", .string(severity.rawValue)),
            ("code", .string(code.rawValue)),
            ("path", .string(path)),
            ("message", .string(message)),
            ("help", help.map { .string($0) } ?? .null),
        ]
        if !fixes.isEmpty {
            members.append(
                (
                    "fixes",
                    .array(
                        fixes.map { fix in
                            .object([
                                ("replacement", .string(fix.replacement)), ("start", .integer(Int64(fix.range.lowerBound))),
                                ("end", .integer(Int64(fix.range.upperBound))),
                            ])
                        })
                ))
        }
        return .object(members)
    }
}

/// Diagnostics encode to the object `entitle validate --format json` prints, so a service can
/// return them in its own responses.
extension Diagnostic: Codable {
    private enum Keys: String, CodingKey { case file, line, column, severity, code, path, message, help, fixes }
    private enum FixKeys: String, CodingKey { case replacement, start, end }

    /// Reads a diagnostic as ``encode(to:)`` writes it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        var location: SourceLocation?
        if let file = try container.decodeIfPresent(String.self, forKey: .file) {
            location = SourceLocation(
                file: file, line: try container.decode(Int.self, forKey: .line),
                column: try container.decode(Int.self, forKey: .column))
        }
        let severityText = try container.decode(String.self, forKey: .severity)
        guard let severity = Severity(rawValue: severityText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .severity, in: container,
                debugDescription: "severity must be `error`, `warning` or `note`")
        }
        self.init(
            severity: severity, code: DiagnosticCode(rawValue: try container.decode(String.self, forKey: .code)),
            message: try container.decode(String.self, forKey: .message), location: location,
            path: try container.decodeIfPresent(String.self, forKey: .path) ?? "",
            help: try container.decodeIfPresent(String.self, forKey: .help))
        if container.contains(.fixes) {
            var list = try container.nestedUnkeyedContainer(forKey: .fixes)
            while !list.isAtEnd {
                let fix = try list.nestedContainer(keyedBy: FixKeys.self)
                let start = try fix.decode(Int.self, forKey: .start)
                let end = try fix.decode(Int.self, forKey: .end)
                guard start >= 0, end >= start else {
                    throw DecodingError.dataCorruptedError(forKey: .end, in: fix, debugDescription: "a fix's range runs from `start` to `end`")
                }
                fixes.append(Fix(replacement: try fix.decode(String.self, forKey: .replacement), range: start..<end))
            }
        }
    }

    /// Encodes the object `entitle validate --format json` prints for the diagnostic:
    /// `{"file", "line", "column", "severity", "code", "path", "message", "help", "fixes"?}`.
    public func encode(to encoder: any Encoder) throws { try jsonOutput.encode(to: encoder) }
}

/// Receipt errors encode as their diagnostic (severity `error`).
extension ReceiptError: Codable {
    /// Reads a receipt error written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        let diagnostic = try Diagnostic(from: decoder)
        self.init(
            code: diagnostic.code, message: diagnostic.message, location: diagnostic.location,
            path: diagnostic.path, help: diagnostic.help)
    }

    /// The object of ``Diagnostic/encode(to:)``.
    public func encode(to encoder: any Encoder) throws { try diagnostic.encode(to: encoder) }
}
