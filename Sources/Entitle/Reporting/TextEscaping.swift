/// Text output for people holds names from the input (ids, case names, customer ids). A name with
/// a line break could fake a line of the output (in CI, a `::error` workflow command) and an
/// escape character could drive the terminal, so text renderers write such characters as escapes.
extension String {
    /// The text with control characters (C0, DEL, C1) written as escapes: `\n`, `\r`, `\t`,
    /// `\u{1B}`. Itself when it has none (the usual case, checked without copying).
    package var escapingControlCharacters: String {
        func isControl(_ value: UInt32) -> Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
        guard unicodeScalars.contains(where: { isControl($0.value) }) else { return self }
        var result = ""
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case let value where isControl(value): result += "\\u{\(String(value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension Array where Element == String {
    /// The lines of a text output joined, each ending in a line break, with control characters
    /// inside a line escaped (``Swift/String/escapingControlCharacters``).
    package var textOutput: String {
        map { $0.escapingControlCharacters }.joined(separator: "\n") + "\n"
    }
}
