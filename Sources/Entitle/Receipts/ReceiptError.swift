/// A receipt that was rejected, with where and why.
public struct ReceiptError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the kind of problem.
    public var code: DiagnosticCode
    /// Lowercase, no trailing period, user input in backticks.
    public var message: String
    /// Where in the receipt file the problem is.
    public var location: SourceLocation?
    /// JSON path of the offending value, such as `transactions[2].purchaseDate`.
    public var path: String
    /// Advice, printed on its own `help:` line.
    public var help: String?

    /// Creates a receipt error.
    public init(code: DiagnosticCode, message: String, location: SourceLocation? = nil, path: String = "", help: String? = nil) {
        self.code = code
        self.message = Diagnostic.bounded(message)
        self.location = location
        self.path = Diagnostic.bounded(path)
        self.help = help.map(Diagnostic.bounded)
    }

    /// The error as a diagnostic, to print like the catalog's.
    public var diagnostic: Diagnostic {
        Diagnostic(severity: .error, code: code, message: message, location: location, path: path, help: help)
    }

    public var description: String { diagnostic.description }
}
