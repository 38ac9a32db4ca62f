import Foundation
import Testing

@testable import Entitle
@testable import EntitleLanguageServer

/// `entitle lsp` driven through the built executable, as an editor drives it: a scripted session
/// on a copy of products/, and a client that sends garbage.
@Suite("Language server (the entitle executable)", .serialized)
struct LanguageServerTests {
    /// A fresh copy of products/ in a temporary directory.
    static func copyOfProducts() throws -> URL {
        let root = Fixtures.scratch("entitle-lsp")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let copy = root.appendingPathComponent("products")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.productsDirectory), to: copy)
        return copy
    }

    static func start() throws -> LanguageServerProcess {
        let executable = try #require(LanguageServerProcess.executable, "the entitle executable is not built next to the tests")
        return try LanguageServerProcess(executable: executable)
    }

    /// The LSP position (0-based line, UTF-16 character) of the `occurrence`th `needle` in `text`,
    /// moved `by` UTF-16 units.
    static func position(of needle: String, in text: String, occurrence: Int = 0, by delta: Int = 0) -> (line: Int, character: Int) {
        var searchStart = text.startIndex
        var found = text.range(of: needle)!
        for _ in 0...occurrence {
            found = text.range(of: needle, range: searchStart..<text.endIndex)!
            searchStart = found.upperBound
        }
        let before = text[..<found.lowerBound]
        let line = before.filter { $0 == "\n" }.count
        let lineStart = before.lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        return (line, text.utf16.distance(from: lineStart, to: found.lowerBound) + delta)
    }

    static func positionJSON(_ position: (line: Int, character: Int)) -> String {
        #"{"line":\#(position.line),"character":\#(position.character)}"#
    }

    /// The JSON of a range from `needle`'s start to its end.
    static func rangeJSON(of needle: String, in text: String, occurrence: Int = 0) -> String {
        let start = position(of: needle, in: text, occurrence: occurrence)
        return #"{"start":\#(positionJSON(start)),"end":\#(positionJSON((start.line, start.character + needle.utf16.count)))}"#
    }

    static func expect(_ actual: JSONNode?, contains expected: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        guard let actual else {
            Issue.record("no message arrived", sourceLocation: sourceLocation)
            return
        }
        do {
            let problem = JSONSubset.mismatch(expected: try JSONSubset.parse(expected), actual: actual)
            #expect(problem == nil, "\(problem ?? "")", sourceLocation: sourceLocation)
        } catch {
            Issue.record("bad expectation: \(error)", sourceLocation: sourceLocation)
        }
    }

    static func quoted(_ text: String) -> String { JSONOutput.string(text).compact() }

    @Test("a session: diagnostics, completion, hover, definition, references, a quick fix, cross-file rules, shutdown and exit")
    func session() throws {
        let products = try Self.copyOfProducts()
        defer { try? FileManager.default.removeItem(at: products.deletingLastPathComponent()) }
        let path = products.appendingPathComponent("diagrams.json").path
        let uri = "file://" + path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let server = try Self.start()
        let document = #"{"uri":"\#(uri)"}"#

        server.request(1, "initialize", #"{"processId":null,"rootUri":null,"capabilities":{}}"#)
        Self.expect(
            server.response(1),
            contains: """
                {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {
                  "textDocumentSync": {"openClose": true, "change": 1, "save": {"includeText": false}},
                  "completionProvider": {"triggerCharacters": ["\\"", ":"]},
                  "hoverProvider": true, "definitionProvider": true, "referencesProvider": true, "codeActionProvider": true}}}
                """)
        server.notify("initialized")

        // Opening the valid catalog: its diagnostics arrive, empty.
        server.notify("textDocument/didOpen", #"{"textDocument":{"uri":"\#(uri)","languageId":"json","version":1,"text":\#(Self.quoted(text))}}"#)
        let opened = server.diagnostics(for: uri)
        #expect(opened?.count == 0)

        // Completion in the day pass's `grants`: the declared features.
        let inGrants = Self.position(of: #""grants": ["pro"]"#, in: text, by: 12)
        server.request(2, "textDocument/completion", #"{"textDocument":\#(document),"position":\#(Self.positionJSON(inGrants))}"#)
        Self.expect(
            server.response(2),
            contains: """
                {"id": 2, "result": {"isIncomplete": false, "items": [
                  {"label": "pro", "kind": 18, "detail": "All drawing tools"},
                  {"label": "export.pdf", "kind": 18, "detail": "Export to PDF"},
                  {"label": "cloud.sync", "kind": 18, "detail": "Cloud sync"}]}}
                """)

        // Hover on a declared feature: its description and what grants it.
        server.request(
            3, "textDocument/hover",
            #"{"textDocument":\#(document),"position":\#(Self.positionJSON(Self.position(of: #""export.pdf": "#, in: text, by: 3)))}"#)
        let hover = server.response(3)
        Self.expect(
            hover, contains: #"{"id": 3, "result": {"contents": {"kind": "markdown"}, "range": \#(Self.rangeJSON(of: #""export.pdf""#, in: text))}}"#)
        let hoverText = hover?.member("result", "contents", "value")?.stringValue ?? ""
        #expect(hoverText.contains("Export to PDF"))
        #expect(hoverText.contains("`com.example.diagrams.pro` (non-consumable)"))
        #expect(hoverText.contains("`com.example.diagrams.trial` (non-consumable)"))
        #expect(hoverText.contains("grandfather rule `paid-app`"))
        #expect(!hoverText.contains("daypass"))

        // Definition of the product `trialOf` names: the paid product's `id` value.
        let trialOf = Self.position(of: #""trialOf": "com.example.diagrams.pro""#, in: text, by: 16)
        server.request(4, "textDocument/definition", #"{"textDocument":\#(document),"position":\#(Self.positionJSON(trialOf))}"#)
        Self.expect(
            server.response(4),
            contains: #"{"id": 4, "result": {"uri": "\#(uri)", "range": \#(Self.rangeJSON(of: #""com.example.diagrams.pro""#, in: text))}}"#)

        // References of a feature: its declaration, then every grant of it in file order.
        server.request(
            5, "textDocument/references",
            #"{"textDocument":\#(document),"position":\#(Self.positionJSON(Self.position(of: #""export.pdf": "#, in: text, by: 1))),"context":{"includeDeclaration":true}}"#
        )
        let locations = (0..<7).map { #"{"uri": "\#(uri)", "range": \#(Self.rangeJSON(of: #""export.pdf""#, in: text, occurrence: $0))}"# }
        #expect(text.components(separatedBy: #""export.pdf""#).count == 8)
        Self.expect(server.response(5), contains: #"{"id": 5, "result": [\#(locations.joined(separator: ","))]}"#)

        // A typo in the Pro product's grants: one error, underlined whole, with its code.
        let typo = text.replacingOccurrences(
            of: #""priceTier": 30,\#n      "grants": ["pro", "export.pdf"]"#,
            with: #""priceTier": 30,\#n      "grants": ["pro", "export.pfd"]"#)
        #expect(typo != text)
        server.notify("textDocument/didChange", #"{"textDocument":{"uri":"\#(uri)","version":2},"contentChanges":[{"text":\#(Self.quoted(typo))}]}"#)
        let typoRange = Self.rangeJSON(of: #""export.pfd""#, in: typo)
        let errors = try #require(server.diagnostics(for: uri))
        #expect(errors.count == 1)
        Self.expect(
            errors.first,
            contains: """
                {"range": \(typoRange), "severity": 1, "code": "undeclared-feature", "source": "entitle",
                 "message": "products[0].grants[1]: undeclared feature `export.pfd`\\nhelp: did you mean `export.pdf`?"}
                """)

        // The quick fix for it replaces the token with the suggestion.
        let diagnostic = Self.render(errors[0])
        server.request(
            6, "textDocument/codeAction",
            #"{"textDocument":\#(document),"range":\#(typoRange),"context":{"diagnostics":[\#(diagnostic)]}}"#)
        Self.expect(
            server.response(6),
            contains: """
                {"id": 6, "result": [{"title": "Replace with `export.pdf`", "kind": "quickfix",
                  "edit": {"changes": {"\(uri)": [{"range": \(typoRange), "newText": "\\"export.pdf\\""}]}}}]}
                """)

        // Fixed: the diagnostics are cleared.
        server.notify("textDocument/didChange", #"{"textDocument":{"uri":"\#(uri)","version":3},"contentChanges":[{"text":\#(Self.quoted(text))}]}"#)
        #expect(server.diagnostics(for: uri)?.count == 0)

        // Product keys, mid-edit (the text is not JSON): the non-renewing pass's keys not written yet.
        let typing = text.replacingOccurrences(of: #""name": "Pro Day Pass","#, with: "\"name\": \"Pro Day Pass\",\n      \"")
        server.notify(
            "textDocument/didChange", #"{"textDocument":{"uri":"\#(uri)","version":4},"contentChanges":[{"text":\#(Self.quoted(typing))}]}"#)
        let broken = try #require(server.diagnostics(for: uri))
        #expect(broken.first?.member("code")?.stringValue == "malformed-json")
        let keyPosition = Self.position(of: #""name": "Pro Day Pass","#, in: typing)
        server.request(7, "textDocument/completion", #"{"textDocument":\#(document),"position":{"line":\#(keyPosition.line + 1),"character":7}}"#)
        Self.expect(
            server.response(7),
            contains: """
                {"id": 7, "result": {"items": [
                  {"label": "$comment", "kind": 10, "textEdit": {"newText": "$comment\\": "}},
                  {"label": "store"}, {"label": "priceTier"}, {"label": "legal"}, {"label": "available"}, {"label": "familyShareable"},
                  {"label": "storefronts"}, {"label": "group"}, {"label": "allowances"}, {"label": "unlimited"}, {"label": "limits"},
                  {"label": "refundPreference"}, {"label": "sampleContent"}, {"label": "items"}]}}
                """)
        server.notify("textDocument/didChange", #"{"textDocument":{"uri":"\#(uri)","version":5},"contentChanges":[{"text":\#(Self.quoted(text))}]}"#)
        #expect(server.diagnostics(for: uri)?.count == 0)

        // Across files: renaming Diagrams 6's Pro breaks Diagrams' upgrade (`anyOf`), and closing
        // the edit (the disk text again) clears it.
        let path6 = products.appendingPathComponent("diagrams6.json").path
        let uri6 = "file://" + path6
        let text6 = try String(contentsOfFile: path6, encoding: .utf8)
        let renamed = text6.replacingOccurrences(of: #""id": "com.example.diagrams6.pro""#, with: #""id": "com.example.diagrams6.professional""#)
        #expect(renamed != text6)
        server.notify("textDocument/didOpen", #"{"textDocument":{"uri":"\#(uri6)","languageId":"json","version":1,"text":\#(Self.quoted(renamed))}}"#)
        let crossFile = try #require(server.diagnostics(for: uri))
        #expect(crossFile.count == 1)
        Self.expect(
            crossFile.first,
            contains: """
                {"range": \(Self.rangeJSON(of: #""com.example.diagrams6.pro""#, in: text)), "severity": 1, "code": "unknown-product"}
                """)
        server.notify("textDocument/didClose", #"{"textDocument":{"uri":"\#(uri6)"}}"#)
        #expect(server.diagnostics(for: uri)?.count == 0)

        server.request(8, "shutdown")
        Self.expect(server.response(8), contains: #"{"id": 8, "result": null}"#)
        server.notify("exit")
        #expect(server.waitForExit() == 0)
    }

    /// A diagnostic as the client sends it back (code actions echo what was published).
    static func render(_ node: JSONNode) -> String {
        switch node.value {
        case .object(let members):
            return "{" + members.map { Self.quoted($0.key) + ":" + render($0.value) }.joined(separator: ",") + "}"
        case .array(let elements): return "[" + elements.map(render).joined(separator: ",") + "]"
        case .string(let text): return Self.quoted(text)
        case .number(let number): return number.text
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        }
    }

    @Test("malformed JSON, unknown methods, requests before initialize and garbage headers get errors, and the server goes on")
    func protocolErrors() throws {
        let server = try Self.start()
        server.request(1, "textDocument/hover", #"{"textDocument":{"uri":"file:///x.json"},"position":{"line":0,"character":0}}"#)
        Self.expect(server.next(), contains: #"{"jsonrpc": "2.0", "id": 1, "error": {"code": -32002}}"#)
        server.request(2, "initialize", #"{"capabilities":{}}"#)
        Self.expect(server.next(), contains: #"{"id": 2, "result": {"capabilities": {"hoverProvider": true}}}"#)

        server.send(#"{"jsonrpc":"2.0","id":3,"method":"#)
        Self.expect(server.next(), contains: #"{"jsonrpc": "2.0", "id": null, "error": {"code": -32700}}"#)
        server.request(4, "workspace/symbol", #"{"query":""}"#)
        Self.expect(server.next(), contains: #"{"id": 4, "error": {"code": -32601, "message": "unknown method `workspace/symbol`"}}"#)
        // Unknown notifications and cancellations are ignored: the next answer is the next request's.
        server.notify("$/cancelRequest", #"{"id":4}"#)
        server.notify("workspace/didChangeWatchedFiles", #"{"changes":[]}"#)
        server.request(5, "initialize", #"{"capabilities":{}}"#)
        Self.expect(server.next(), contains: #"{"id": 5, "error": {"code": -32600}}"#)

        // Garbage headers, a header part without Content-Length, a Content-Length that is not a
        // number: each an error, then the next message is read.
        server.write(Data("hello there\r\n\r\n".utf8))
        Self.expect(server.next(), contains: #"{"id": null, "error": {"code": -32700, "message": "invalid header line `hello there`"}}"#)
        server.write(Data("Content-Type: application/vscode-jsonrpc\r\n\r\n".utf8))
        Self.expect(server.next(), contains: #"{"id": null, "error": {"code": -32700, "message": "message has no Content-Length header"}}"#)
        server.write(Data("Content-Length: -12\r\n\r\n".utf8))
        Self.expect(server.next(), contains: #"{"id": null, "error": {"code": -32700}}"#)
        server.write(Data([0xFF, 0x00, 0x0A] + Array("\r\n".utf8)))
        Self.expect(server.next(), contains: #"{"id": null, "error": {"code": -32700}}"#)
        server.request(6, "textDocument/hover", #"{"textDocument":{"uri":"file:///nowhere/x.json"},"position":{"line":0,"character":0}}"#)
        Self.expect(server.next(), contains: #"{"id": 6, "result": null}"#)
        // Parameters of the wrong shape.
        server.request(7, "textDocument/completion", #"{"textDocument":{"uri":1}}"#)
        Self.expect(server.next(), contains: #"{"id": 7, "error": {"code": -32602}}"#)

        // `exit` without `shutdown`: exit code 1.
        server.notify("exit")
        #expect(server.waitForExit() == 1)
    }

    @Test("a huge Content-Length is refused at once, the next message is answered, and the server ends when its input does")
    func hugeContentLength() throws {
        let server = try Self.start()
        server.request(1, "initialize", #"{"capabilities":{}}"#)
        Self.expect(server.next(), contains: #"{"id": 1, "result": {}}"#)
        server.write(Data("Content-Length: 99999999999\r\n\r\n{\"jsonrpc\":\"2.0\"}\r\n".utf8))
        Self.expect(
            server.next(timeout: 10),
            contains: """
                {"id": null, "error": {"code": -32600, "message": "message of 99999999999 bytes is over the limit of 67108864 bytes"}}
                """)
        // The announced body never comes: the next message is still read and answered.
        server.request(2, "hover", #"{"textDocument": {"uri": "file:///nowhere.json"}, "position": {"line": 0, "character": 0}}"#)
        Self.expect(server.next(timeout: 10), contains: #"{"id": 2}"#)
        server.write(Data("Content-Length: 99999999999999999999999\r\n\r\n".utf8))
        server.closeInput()
        #expect(server.waitForExit(timeout: 10) == 1)
    }

    @Test("a Content-Length larger than the body sent, then the end of input: no hang")
    func truncatedBody() throws {
        let server = try Self.start()
        server.write(Data("Content-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}".utf8))
        server.closeInput()
        #expect(server.waitForExit(timeout: 10) == 1)
        #expect(server.next(timeout: 1) == nil)
    }
}
