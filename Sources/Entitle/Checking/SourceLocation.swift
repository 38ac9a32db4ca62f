/// Where in a source file something is: file name, 1-based line and column.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file name, as given to the checker or decoder.
    public var file: String
    /// The 1-based line.
    public var line: Int
    /// The 1-based column, in Unicode scalars (as editors count).
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the form compilers print and editors jump to.
    public var description: String { "\(file):\(line):\(column)" }
}
