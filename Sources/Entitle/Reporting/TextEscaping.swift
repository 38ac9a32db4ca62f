/// Text output for people holds names from the input (ids, case names, customer ids). A name with
/// a line break could fake a line of the output (in CI, a `::error` workflow command) and an
/// escape character could drive the terminal, so text renderers write such characters as escapes.
extension String {
    /// The text with control characters (C0, DEL, C1) written as escapes: `\n`, `\r`, `\t`,
    /// `\u{1B}`. Itself when it has none (the usual case, checked without copying).
    package var escapingControlCharacters: String {
        escapingScalars { $0 < 0x20 || (0x7F...0x9F).contains($0) }
    }

    /// The text with the scalars whose values `isEscaped` picks written as escapes, as Swift
    /// writes them: `\n`, `\r`, `\t`, `\u{1B}`. Itself when it has none (checked without
    /// copying).
    package func escapingScalars(where isEscaped: (UInt32) -> Bool) -> String {
        guard unicodeScalars.contains(where: { isEscaped($0.value) }) else { return self }
        return replacingScalars { scalar in
            switch scalar {
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case _ where isEscaped(scalar.value): "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: nil
            }
        }
    }

    /// The text with each scalar that `replacement` gives text for written as that text, the
    /// others as they are.
    package func replacingScalars(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let replaced = replacement(scalar) {
                result += replaced
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The text with each scalar that is a key of `replacements` written as its value.
    package func replacingScalars(_ replacements: [Unicode.Scalar: String]) -> String {
        replacingScalars { replacements[$0] }
    }
}

extension Array where Element == String {
    /// The lines of a text output joined, each ending in a line break, with control characters
    /// inside a line escaped (``Swift/String/escapingControlCharacters``).
    package var textOutput: String {
        map { $0.escapingControlCharacters }.joined(separator: "\n") + "\n"
    }
}
