import Entitle

/// How a command prints diagnostics: `text` for people, `json` for scripts, `github` for GitHub
/// Actions annotations, `sarif` for code-scanning tools.
enum DiagnosticFormat: String, CaseIterable, Sendable {
    /// `file:line:column: severity: path: message`, on standard error.
    case text
    /// A JSON array of `{"file", "line", "column", "severity", "code", "path", "message", "help"}`.
    case json
    /// GitHub Actions workflow commands, one per diagnostic.
    case github
    /// A SARIF 2.1.0 log.
    case sarif

    /// The diagnostics as this format prints them on standard output (empty for `text`, which
    /// prints on standard error).
    func standardOutput(_ diagnostics: [Diagnostic]) -> String {
        switch self {
        case .text: ""
        case .json: JSONOutput.array(diagnostics.map(\.jsonOutput)).rendered() + "\n"
        case .github: GitHubAnnotations.render(diagnostics)
        case .sarif: SARIFLog.render(diagnostics)
        }
    }

    /// The diagnostics as this format prints them on standard error: all of them for `text`,
    /// none otherwise.
    func standardError(_ diagnostics: [Diagnostic]) -> String {
        self == .text ? EntitleCommand.render(diagnostics) : ""
    }
}
