/// A receipt that was rejected, with where and why.
public struct ReceiptError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: DiagnosticCode
    public var message: String
    public var location: SourceLocation?
    /// JSON path of the offending value, such as `transactions[2].purchaseDate`.
    public var path: String
    public var help: String?

    public init(code: DiagnosticCode, message: String, location: SourceLocation? = nil, path: String = "", help: String? = nil) {
        self.code = code
        self.message = message
        self.location = location
        self.path = path
        self.help = help
    }

    /// The error as a diagnostic, to print like the catalog's.
    public var diagnostic: Diagnostic {
        Diagnostic(severity: .error, code: code, message: message, location: location, path: path, help: help)
    }

    public var description: String { diagnostic.description }
}
