import Entitle
import Foundation

/// `textDocument/codeAction`: a quick fix for each diagnostic of the request that carries the
/// checker's fix (``Diagnostic/fixes``, published as `data.replacement`), replacing the key or
/// value the diagnostic is at with it.
enum CodeActions {
    /// A replacement as a title shows it: a JSON string without its quotes when it has no escape.
    static func title(_ replacement: String) -> String {
        guard replacement.count >= 2, replacement.hasPrefix("\""), replacement.hasSuffix("\""), !replacement.contains("\\") else {
            return replacement
        }
        return String(replacement.dropFirst().dropLast())
    }

    /// The code actions for a request's diagnostics in the current document.
    static func actions(for diagnostics: [JSONNode], in snapshot: PortfolioSnapshot) -> JSONOutput {
        var actions: [JSONOutput] = []
        let current = snapshot.current
        for diagnostic in diagnostics {
            if let source = diagnostic.member("source")?.stringValue, source != "entitle" { continue }
            guard let newText = diagnostic.member("data", "replacement")?.stringValue,
                let start = diagnostic.member("range", "start")?.positionValue
            else { continue }
            let offset = current.positions.offset(of: start)
            // The token there now: the range the client holds may be older than the text.
            guard let token = current.index.scan.token(startingAt: offset) else { continue }
            let edit = JSONOutput.object([("range", current.range(token.start, token.end)), ("newText", .string(newText))])
            var echoed: [(String, JSONOutput)] = [("range", current.range(token.start, token.end))]
            if let severity = diagnostic.member("severity")?.integerValue { echoed.append(("severity", .integer(severity))) }
            if let code = diagnostic.member("code")?.stringValue { echoed.append(("code", .string(code))) }
            echoed.append(("source", .string("entitle")))
            if let message = diagnostic.member("message")?.stringValue { echoed.append(("message", .string(message))) }
            actions.append(
                .object([
                    ("title", .string("Replace with `\(title(newText))`")),
                    ("kind", .string("quickfix")),
                    ("diagnostics", .array([.object(echoed)])),
                    ("isPreferred", .bool(true)),
                    ("edit", .object([("changes", .object([(current.uri, .array([edit]))]))])),
                ]))
        }
        return .array(actions)
    }
}
