import Testing

@testable import Entitle

/// The located error a test expects for an input with one mistake: its message, where it points
/// and its JSON path, and the text of the input at that place.
struct ExpectedError: Sendable {
    var message: String
    var location: Entitle.SourceLocation
    var path: String
    /// The text the location must point at.
    var token: String?

    /// Checks an error's message, location and path, and that the text of `json` at its location
    /// (its column counted in Unicode scalars) starts with ``token``.
    func check(
        message: String, location: Entitle.SourceLocation?, path: String, in json: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(message == self.message, sourceLocation: sourceLocation)
        #expect(location == self.location, sourceLocation: sourceLocation)
        #expect(path == self.path, sourceLocation: sourceLocation)
        guard let token else { return }
        let (line, column) = (self.location.line, self.location.column)
        let lines = json.split(separator: "\n", omittingEmptySubsequences: false)
        let text = String(String.UnicodeScalarView(Array(lines[line - 1].unicodeScalars)[(column - 1)...]))
        #expect(text.hasPrefix(token), "at \(line):\(column) the text is `\(text.prefix(20))`", sourceLocation: sourceLocation)
    }
}
