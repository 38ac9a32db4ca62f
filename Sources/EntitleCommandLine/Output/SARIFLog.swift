import Entitle

/// Diagnostics as a SARIF 2.1.0 log (OASIS Static Analysis Results Interchange Format), the form
/// code-scanning services read: one run of the `entitle` tool, a rule per diagnostic code used,
/// a result per diagnostic.
///
/// Columns count Unicode scalars, as the diagnostics do, so the run says
/// `"columnKind": "unicodeCodePoints"` (SARIF's default would be UTF-16 code units).
enum SARIFLog {
    static let schema = "https://json.schemastore.org/sarif-2.1.0.json"
    /// Where to read about the tool: the project's address, as the JSON Schemas' `$id`s give it.
    static let informationUri: String? = "https://github.com/entitle/entitle"

    /// The whole log, as JSON text.
    static func render(_ diagnostics: [Diagnostic]) -> String {
        var codes: [DiagnosticCode] = []
        for diagnostic in diagnostics where !codes.contains(diagnostic.code) { codes.append(diagnostic.code) }
        let rules = codes.map { code in
            JSONOutput.object([
                ("id", .string(code.rawValue)),
                ("shortDescription", .object([("text", .string(code.summary ?? code.rawValue))])),
            ])
        }
        let results = diagnostics.map { diagnostic in
            var text = diagnostic.path.isEmpty ? diagnostic.message : "\(diagnostic.path): \(diagnostic.message)"
            if let help = diagnostic.help { text += "\nhelp: \(help)" }
            var members: [(String, JSONOutput)] = [
                ("ruleId", .string(diagnostic.code.rawValue)),
                ("ruleIndex", .integer(Int64(codes.firstIndex(of: diagnostic.code) ?? 0))),
                ("level", .string(level(diagnostic.severity))),
                ("message", .object([("text", .string(text))])),
            ]
            if let location = diagnostic.location {
                members.append(
                    (
                        "locations",
                        .array([
                            .object([
                                (
                                    "physicalLocation",
                                    .object([
                                        ("artifactLocation", .object([("uri", .string(uri(location.file)))])),
                                        (
                                            "region",
                                            .object([
                                                ("startLine", .integer(Int64(location.line))),
                                                ("startColumn", .integer(Int64(location.column))),
                                            ])
                                        ),
                                    ])
                                )
                            ])
                        ])
                    ))
            }
            return JSONOutput.object(members)
        }
        var driver: [(String, JSONOutput)] = [("name", .string("entitle"))]
        if let informationUri { driver.append(("informationUri", .string(informationUri))) }
        driver += [("version", .string(EntitleCommand.version)), ("rules", .array(rules))]
        let log = JSONOutput.object([
            ("$schema", .string(schema)),
            ("version", .string("2.1.0")),
            (
                "runs",
                .array([
                    .object([
                        ("tool", .object([("driver", .object(driver))])),
                        ("columnKind", .string("unicodeCodePoints")),
                        ("results", .array(results)),
                    ])
                ])
            ),
        ])
        return log.rendered() + "\n"
    }

    static func level(_ severity: Diagnostic.Severity) -> String {
        switch severity {
        case .error: "error"
        case .warning: "warning"
        case .note: "note"
        }
    }

    /// A file path as a URI reference: a relative path stays relative (to where entitle ran), an
    /// absolute one becomes a `file:` URI; bytes other than unreserved ones and `/` are
    /// percent-encoded (a space, `%`, `#`, `:`, non-ASCII letters).
    static func uri(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        let encoded = String(decoding: bytes, as: UTF8.self)
        return path.hasPrefix("/") ? "file://" + encoded : encoded
    }
}
