import Entitle
import Foundation

/// `textDocument/codeAction`: a quick fix for each diagnostic of the request whose help is exactly
/// one "did you mean" (``Suggestion``'s `did you mean `X`?`), replacing the key or value the
/// diagnostic is at with the suggestion.
enum CodeActions {
    /// The suggestion of a help text of the form "did you mean `X`?", else `nil`.
    static func suggestion(inHelp help: String) -> String? {
        let prefix = "did you mean `"
        let suffix = "`?"
        guard help.hasPrefix(prefix), help.hasSuffix(suffix), help.count >= prefix.count + suffix.count + 1 else { return nil }
        let word = help.dropFirst(prefix.count).dropLast(suffix.count)
        guard !word.isEmpty, !word.contains("`") else { return nil }
        return String(word)
    }

    /// The suggestion of an LSP diagnostic this server published: its `data.suggestion`, else the
    /// help line of its message.
    static func suggestion(of diagnostic: JSONNode) -> String? {
        if let suggestion = diagnostic.member("data", "suggestion")?.stringValue { return suggestion }
        guard let message = diagnostic.member("message")?.stringValue,
            let range = message.range(of: "\nhelp: ", options: .backwards)
        else { return nil }
        return suggestion(inHelp: String(message[range.upperBound...]))
    }

    /// The code actions for a request's diagnostics in the current document.
    static func actions(for diagnostics: [JSONNode], in snapshot: PortfolioSnapshot) -> JSONOutput {
        var actions: [JSONOutput] = []
        let current = snapshot.current
        for diagnostic in diagnostics {
            if let source = diagnostic.member("source")?.stringValue, source != "entitle" { continue }
            guard let suggestion = suggestion(of: diagnostic),
                let start = diagnostic.member("range", "start")?.positionValue
            else { continue }
            let offset = current.positions.offset(of: start)
            // The token there now: the range the client holds may be older than the text.
            guard let token = current.index.scan.token(startingAt: offset) else { continue }
            // Every suggestion is an id or a key: a JSON string.
            let newText = JSONOutput.string(suggestion).compact()
            let edit = JSONOutput.object([("range", current.range(token.start, token.end)), ("newText", .string(newText))])
            var echoed: [(String, JSONOutput)] = [("range", current.range(token.start, token.end))]
            if let severity = diagnostic.member("severity")?.integerValue { echoed.append(("severity", .integer(severity))) }
            if let code = diagnostic.member("code")?.stringValue { echoed.append(("code", .string(code))) }
            echoed.append(("source", .string("entitle")))
            if let message = diagnostic.member("message")?.stringValue { echoed.append(("message", .string(message))) }
            actions.append(
                .object([
                    ("title", .string("Replace with `\(suggestion)`")),
                    ("kind", .string("quickfix")),
                    ("diagnostics", .array([.object(echoed)])),
                    ("isPreferred", .bool(true)),
                    ("edit", .object([("changes", .object([(current.uri, .array([edit]))]))])),
                ]))
        }
        return .array(actions)
    }
}
