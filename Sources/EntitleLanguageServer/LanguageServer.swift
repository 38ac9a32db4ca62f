import Entitle
import Foundation

/// `entitle lsp`: a Language Server Protocol server for catalogs, one message at a time over a
/// byte stream (standard input and output for the command).
///
/// It keeps the open documents' text, checks each document's portfolio (the catalogs of its
/// directory) as `entitle validate` does and pushes the diagnostics on open, change and save;
/// it answers completion, hover, go to definition, find references and quick fixes for "did you
/// mean". Requests are answered in the order they come; `$/cancelRequest` is ignored (every
/// answer is quick). Nothing a client sends ends the session but `exit` or the end of the input.
package struct LanguageServer {
    /// The largest message body read: 64 MiB (twice the largest catalog, with JSON escapes).
    static let maxMessageBytes = 64 << 20

    private enum State { case uninitialized, running, shutDown }

    private var framing: MessageFraming
    private let write: (Data) throws -> Void
    private var workspace = Workspace()
    private var state = State.uninitialized
    private var exitCode: Int32?
    private var outputClosed = false
    /// The version the server tells the client it is (`entitle --version`'s).
    private let version: String

    /// A server reading messages with `read` and writing answers with `write`.
    ///
    /// - Parameters:
    ///   - version: the version of entitle, which `initialize` answers with.
    ///   - read: the next bytes of the input (blocking until there are some), `nil` or empty at its end.
    ///   - write: writes bytes to the client; a throw (the client is gone) ends the session.
    package init(version: String, read: @escaping () throws -> Data?, write: @escaping (Data) throws -> Void) {
        framing = MessageFraming(maxBodyBytes: Self.maxMessageBytes, read: read)
        self.write = write
        self.version = version
    }

    /// Serves until `exit` (exit code 0 after `shutdown`, else 1) or the end of the input (0 when
    /// `shutdown` came first, else 1).
    package mutating func run() -> Int32 {
        while true {
            switch framing.next() {
            case .end:
                return state == .shutDown ? 0 : 1
            case .problem(let message):
                send(JSONRPC.error(id: nil, code: .parseError, message: message))
            case .tooLarge(let message):
                send(JSONRPC.error(id: nil, code: .invalidRequest, message: message))
            case .message(let body):
                handle(body)
            }
            if let exitCode { return exitCode }
            if outputClosed { return 1 }
        }
    }

    // MARK: Dispatch

    private mutating func handle(_ body: [UInt8]) {
        let message: JSONRPC.Message
        switch JSONRPC.parse(body) {
        case .failure(let failure):
            send(JSONRPC.error(id: failure.id, code: failure.code, message: failure.message))
            return
        case .success(let parsed):
            message = parsed
        }
        // A response to a request of the server's: it sends none.
        guard let method = message.method else { return }
        if method == "exit" {
            exitCode = state == .shutDown ? 0 : 1
            return
        }
        switch state {
        case .uninitialized:
            if method == "initialize" {
                state = .running
                reply(message, initializeResult)
            } else if message.isRequest {
                fail(message, .serverNotInitialized, "the server is not initialized: send `initialize` first")
            }
        case .shutDown:
            if message.isRequest { fail(message, .invalidRequest, "the server is shut down: send `exit`") }
        case .running:
            dispatch(method, message)
        }
    }

    private mutating func dispatch(_ method: String, _ message: JSONRPC.Message) {
        let params = message.params
        switch method {
        case "initialize":
            fail(message, .invalidRequest, "the server is already initialized")
        case "initialized":
            break
        case "shutdown":
            state = .shutDown
            reply(message, .null)
        case "textDocument/didOpen":
            guard let document = params?.member("textDocument"), let uri = document.member("uri")?.stringValue,
                let text = document.member("text")?.stringValue
            else { return }
            workspace.open(uri: uri, text: text, version: document.member("version")?.integerValue)
            publish(after: uri)
        case "textDocument/didChange":
            guard let uri = params?.member("textDocument", "uri")?.stringValue, workspace.document(uri) != nil,
                let changes = params?.member("contentChanges")?.arrayValue
            else { return }
            let edits = changes.compactMap { change -> (range: (start: TextPosition, end: TextPosition)?, text: String)? in
                guard let text = change.member("text")?.stringValue else { return nil }
                guard let range = change.member("range") else { return (nil, text) }
                guard let start = range.member("start")?.positionValue, let end = range.member("end")?.positionValue else { return nil }
                return ((start, end), text)
            }
            workspace.change(uri: uri, changes: edits, version: params?.member("textDocument", "version")?.integerValue)
            publish(after: uri)
        case "textDocument/didSave":
            guard let uri = params?.member("textDocument", "uri")?.stringValue else { return }
            if let text = params?.member("text")?.stringValue { workspace.replaceText(uri: uri, text: text) }
            publish(after: uri)
        case "textDocument/didClose":
            guard let uri = params?.member("textDocument", "uri")?.stringValue else { return }
            workspace.close(uri: uri)
            publish(after: uri)
        case "textDocument/completion", "textDocument/hover", "textDocument/definition", "textDocument/references":
            guard message.isRequest else { return }
            guard let uri = params?.member("textDocument", "uri")?.stringValue,
                let position = params?.member("position")?.positionValue
            else {
                return fail(message, .invalidParams, "expected `textDocument.uri` and `position`")
            }
            guard let snapshot = workspace.snapshot(of: uri, cursor: position) else {
                return reply(message, method == "textDocument/completion" || method == "textDocument/references" ? .array([]) : .null)
            }
            switch method {
            case "textDocument/completion": reply(message, Completion.completion(in: snapshot))
            case "textDocument/hover": reply(message, Hover.hover(in: snapshot))
            case "textDocument/definition": reply(message, Definitions.definition(in: snapshot))
            default:
                let includeDeclaration = params?.member("context", "includeDeclaration")?.boolValue ?? false
                reply(message, Definitions.references(in: snapshot, includeDeclaration: includeDeclaration))
            }
        case "textDocument/codeAction":
            guard message.isRequest else { return }
            guard let uri = params?.member("textDocument", "uri")?.stringValue else {
                return fail(message, .invalidParams, "expected `textDocument.uri`")
            }
            let diagnostics = params?.member("context", "diagnostics")?.arrayValue ?? []
            guard let snapshot = workspace.snapshot(of: uri) else { return reply(message, .array([])) }
            reply(message, CodeActions.actions(for: diagnostics, in: snapshot))
        default:
            // Unknown notifications ($/cancelRequest, $/setTrace, workspace/didChangeConfiguration, ...)
            // are ignored, as the protocol asks.
            if message.isRequest { fail(message, .methodNotFound, "unknown method `\(method)`") }
        }
    }

    /// The `initialize` result: full text sync with open, close and save; completion triggered by
    /// `"` and `:`; hover, definition, references and code actions; positions in UTF-16.
    private var initializeResult: JSONOutput {
        .object([
            (
                "capabilities",
                .object([
                    ("positionEncoding", .string("utf-16")),
                    (
                        "textDocumentSync",
                        .object([
                            ("openClose", .bool(true)), ("change", .integer(1)),
                            ("save", .object([("includeText", .bool(false))])),
                        ])
                    ),
                    ("completionProvider", .object([("triggerCharacters", .array([.string("\""), .string(":")]))])),
                    ("hoverProvider", .bool(true)),
                    ("definitionProvider", .bool(true)),
                    ("referencesProvider", .bool(true)),
                    ("codeActionProvider", .bool(true)),
                ])
            ),
            ("serverInfo", .object([("name", .string("entitle")), ("version", .string(version))])),
        ])
    }

    // MARK: Output

    private mutating func publish(after uri: String) {
        for params in workspace.publications(after: uri) {
            send(JSONRPC.notification(method: "textDocument/publishDiagnostics", params: params))
        }
    }

    private mutating func reply(_ message: JSONRPC.Message, _ result: JSONOutput) {
        guard message.isRequest else { return }
        send(
            message.id.map { JSONRPC.response(id: $0, result: result) }
                ?? .object([("jsonrpc", .string("2.0")), ("id", .null), ("result", result)]))
    }

    private mutating func fail(_ message: JSONRPC.Message, _ code: JSONRPC.ErrorCode, _ text: String) {
        guard message.isRequest else { return }
        send(JSONRPC.error(id: message.id, code: code, message: text))
    }

    private mutating func send(_ message: JSONOutput) {
        guard !outputClosed else { return }
        do {
            try write(MessageFraming.frame(message.compact()))
        } catch {
            outputClosed = true
        }
    }
}
