/// Where in a source file something is: file name, 1-based line and column.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the form compilers print and editors jump to.
    public var description: String { "\(file):\(line):\(column)" }
}
