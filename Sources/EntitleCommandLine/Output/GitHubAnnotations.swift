import Entitle

/// Diagnostics as GitHub Actions workflow commands, which GitHub shows as annotations on the
/// lines of a pull request:
///
///     ::error file=products/diagrams.json,line=30,col=25,title=entitle undeclared-feature::products[0].grants[1]: ...
///
/// Errors are `::error`, warnings `::warning`, notes `::notice`; the help line follows the message
/// after an escaped newline.
enum GitHubAnnotations {
    /// One workflow command per diagnostic, each on its own line.
    static func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map { command(for: $0) + "\n" }.joined()
    }

    static func command(for diagnostic: Diagnostic) -> String {
        let name =
            switch diagnostic.severity {
            case .error: "error"
            case .warning: "warning"
            case .note: "notice"
            }
        var properties: [String] = []
        if let location = diagnostic.location {
            properties.append("file=" + escapeProperty(location.file))
            properties.append("line=\(location.line)")
            properties.append("col=\(location.column)")
        }
        properties.append("title=" + escapeProperty("entitle \(diagnostic.code.rawValue)"))
        var message = diagnostic.path.isEmpty ? diagnostic.message : "\(diagnostic.path): \(diagnostic.message)"
        if let help = diagnostic.help { message += "\nhelp: \(help)" }
        return "::\(name) \(properties.joined(separator: ","))::\(escapeData(message))"
    }

    /// A message: `%`, carriage returns and newlines escaped, as GitHub's runner unescapes them.
    static func escapeData(_ text: String) -> String {
        text.replacingScalars(["%": "%25", "\r": "%0D", "\n": "%0A"])
    }

    /// A property value: as a message, and `:` and `,`, which separate properties, too.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
