/// The reader's byte-level helpers: scanning words for special bytes, literals and digits, and
/// describing a byte or scalar in a syntax error.
extension JSONReader {
    // MARK: Helpers

    /// The high bits of the bytes of a little-endian word that are a `"`, a `\\`, a control byte
    /// (< 0x20) or non-ASCII. Bytes above a flagged one may be flagged falsely (borrows), so only
    /// the lowest flag is exact; the caller looks at that byte and goes on from there.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let zeroQuote = (quotes &- ones) & ~quotes
        let zeroBackslash = (backslashes &- ones) & ~backslashes
        let control = word &- (ones &* 0x20)
        return (zeroQuote | zeroBackslash | control | word) & highs
    }

    /// Whether `literal` starts at the current offset, not followed by more letters.
    func hasLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        let pointer = literal.utf8Start
        for index in 0..<count where bytes[offset + index] != pointer[index] { return false }
        if offset + count < bytes.count {
            let next = bytes[offset + count] | 0x20
            if next >= UInt8(ascii: "a") && next <= UInt8(ascii: "z") { return false }
        }
        return true
    }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }

    /// An error at the current offset.
    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, message: message)
    }

    func mismatch(expected: Kind, found: Kind) -> JSONSyntaxError {
        error("expected \(expected.phrase), found \(found.phrase)")
    }

    /// An error for an unexpected byte at the current offset, `"<context>, found <byte>"` (or
    /// `"unexpected <byte> <context>"` when `context` does not say what was expected), naming
    /// what people usually meant: curly quotes pasted from a document, comments, single quotes,
    /// pasted spaces and dashes.
    func unexpected(_ context: String) -> JSONSyntaxError {
        let byte = bytes[offset]
        func next(_ distance: Int) -> UInt8? { offset + distance < bytes.count ? bytes[offset + distance] : nil }
        var thing = describeByte(at: offset)
        var help: String?
        if byte == 0xE2, next(1) == 0x80, let third = next(2), [0x9C, 0x9D, 0x98, 0x99].contains(third) {
            thing = "a curly quote `\([0x9C: "“", 0x9D: "”", 0x98: "‘", 0x99: "’"][third]!)`"
            help = "JSON needs straight double quotes `\"`; curly quotes come from pasting out of a document"
        } else if (byte == UInt8(ascii: "/") && (next(1) == UInt8(ascii: "/") || next(1) == UInt8(ascii: "*"))) || byte == UInt8(ascii: "#") {
            thing = "a comment `\(byte == UInt8(ascii: "#") ? "#" : "/" + String(UnicodeScalar(next(1)!)))`"
            help = "JSON has no comments; write a `\"$comment\": \"...\"` member instead"
        } else if byte == UInt8(ascii: "'") {
            thing = "a single quote"
            help = "JSON strings and member names take double quotes `\"`"
        } else if byte >= 0x80, let scalar = scalar(at: offset) {
            (thing, help) = Self.describe(scalar)
        }
        let message =
            context.hasPrefix("expected")
            ? "\(context), found \(thing)"
            : thing.hasPrefix("a ") || thing.hasPrefix("an ") ? "found \(thing) \(context)" : "unexpected \(thing) \(context)"
        return JSONSyntaxError(offset: offset, message: message, help: help ?? curlyQuoteHint(before: offset))
    }

    /// A pasted character where JSON expects structure, and what to write instead.
    static func describe(_ scalar: Unicode.Scalar) -> (String, String?) {
        let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        switch scalar.value {
        case 0xA0, 0x2000...0x200B, 0x202F, 0x205F, 0x3000, 0xFEFF:
            let name =
                [0xA0: "a no-break space", 0x200B: "a zero-width space", 0xFEFF: "a byte order mark"][Int(scalar.value)]
                ?? "a typographic space"
            return (
                "\(name) (\(code))",
                "JSON allows only ordinary spaces, tabs and line breaks between values; this one was probably pasted from a document"
            )
        case 0x2028, 0x2029:
            return ("a Unicode line separator (\(code))", "use an ordinary line break")
        case 0x2010...0x2015, 0x2212:
            return ("`\(Character(scalar))` (\(code), a typographic dash)", "write numbers and ids with the plain hyphen-minus `-`")
        default:
            return ("`\(Character(scalar))` (\(code))", nil)
        }
    }

    /// The Unicode scalar whose UTF-8 encoding starts at `index`, if the bytes there are one.
    func scalar(at index: Int) -> Unicode.Scalar? {
        let lead = bytes[index]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
        guard length > 0, index + length <= bytes.count else { return nil }
        var value = UInt32(lead) & (0xFF >> UInt32(length + 1))
        for step in 1..<length {
            let byte = bytes[index + step]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return Unicode.Scalar(value)
    }

    /// When a string on the line before `offset` holds a curly double quote, help saying it does
    /// not end the string: `"Pro”, "grants"` reads as one string up to the next straight quote, and
    /// the error appears later on the line. Only on errors, and bounded to the line.
    func curlyQuoteHint(before offset: Int) -> String? {
        var index = min(offset, bytes.count) - 1
        let stop = max(0, offset - 4096)
        var found: Int?
        while index >= stop + 2, bytes[index] != UInt8(ascii: "\n") {
            if bytes[index - 2] == 0xE2, bytes[index - 1] == 0x80, bytes[index] == 0x9D || bytes[index] == 0x9C { found = index - 2 }
            index -= 1
        }
        guard let found else { return nil }
        let quote = bytes[found + 2] == 0x9D ? "”" : "“"
        return
            "the curly quote `\(quote)` earlier on this line does not end a string: JSON needs straight double quotes `\"` (curly quotes come from pasting out of a document)"
    }

    func describeByte(at index: Int) -> String {
        "`\(describeRawByte(bytes[index]))`"
    }

    func describeRawByte(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return String(UnicodeScalar(byte)) }
        return "0x" + hex(byte)
    }

    func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
