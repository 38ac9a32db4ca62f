import Entitle
import Foundation

/// JSON-RPC 2.0 messages as the Language Server Protocol uses them: requests (a method and an
/// id), notifications (a method, no id), responses; read with the project's JSON reader and
/// written with ``JSONOutput``.
enum JSONRPC {
    /// The error codes of JSON-RPC 2.0 and of the Language Server Protocol this server sends.
    enum ErrorCode: Int64 {
        /// The body is not JSON.
        case parseError = -32700
        /// The JSON is not a request, or the request may not be sent now.
        case invalidRequest = -32600
        /// No such method.
        case methodNotFound = -32601
        /// The method's parameters are missing or of the wrong type.
        case invalidParams = -32602
        /// A request before `initialize`.
        case serverNotInitialized = -32002
    }

    /// A request's id: an integer or a string.
    enum ID: Equatable {
        case integer(Int64)
        case string(String)

        var json: JSONOutput {
            switch self {
            case .integer(let value): .integer(value)
            case .string(let value): .string(value)
            }
        }
    }

    /// A message read from the client.
    struct Message {
        /// The id of a request (or of a response to the server).
        var id: ID?
        /// Whether the message has an `id` member, usable or not.
        var hasID: Bool
        var method: String?
        var params: JSONNode?

        var isRequest: Bool { method != nil && hasID }
        var isNotification: Bool { method != nil && !hasID }
    }

    /// Why a body is not a message: the code and text of the error reply, and the id when it
    /// could be read.
    struct Failure: Error {
        var code: ErrorCode
        var message: String
        var id: ID?
    }

    /// Bodies are limited by the framing; nesting as the catalogs' is plenty for LSP's params.
    private static let limits = JSONDocument.Limits(maxBytes: Int.max, maxDepth: 64)

    /// Reads a message body.
    static func parse(_ body: [UInt8]) -> Result<Message, Failure> {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(Data(body), limits: limits)
        } catch let error as JSONSyntaxError {
            return .failure(Failure(code: .parseError, message: "malformed JSON at byte \(error.offset): \(error.message)"))
        } catch {
            return .failure(Failure(code: .parseError, message: "malformed JSON"))
        }
        guard case .object(let members) = document.root.value else {
            return .failure(Failure(code: .invalidRequest, message: "a message must be a JSON object, found \(document.root.kind.phrase)"))
        }
        var message = Message(id: nil, hasID: false, method: nil, params: nil)
        var idProblem: String?
        for member in members {
            switch member.key {
            case "id":
                message.hasID = true
                switch member.value.value {
                case .string(let text): message.id = .string(text)
                case .number(let number):
                    if let integer = number.integer { message.id = .integer(integer) } else { idProblem = "`id` must be an integer or a string" }
                case .null: break
                default: idProblem = "`id` must be an integer or a string"
                }
            case "method":
                guard case .string(let method) = member.value.value else {
                    return .failure(Failure(code: .invalidRequest, message: "`method` must be a string", id: message.id))
                }
                message.method = method
            case "params":
                message.params = member.value
            default:
                break
            }
        }
        if let idProblem { return .failure(Failure(code: .invalidRequest, message: idProblem)) }
        if message.method == nil, !members.contains(where: { $0.key == "result" || $0.key == "error" }) {
            return .failure(Failure(code: .invalidRequest, message: "a message needs a `method` (or is a response)", id: message.id))
        }
        return .success(message)
    }

    /// A successful response.
    static func response(id: ID, result: JSONOutput) -> JSONOutput {
        .object([("jsonrpc", .string("2.0")), ("id", id.json), ("result", result)])
    }

    /// An error response; `id` is `null` when the request's id could not be read.
    static func error(id: ID?, code: ErrorCode, message: String) -> JSONOutput {
        .object([
            ("jsonrpc", .string("2.0")), ("id", id?.json ?? .null),
            ("error", .object([("code", .integer(code.rawValue)), ("message", .string(message))])),
        ])
    }

    /// A notification from the server.
    static func notification(method: String, params: JSONOutput) -> JSONOutput {
        .object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)])
    }
}
