/// A pull reader over UTF-8 JSON text (RFC 8259), one value at a time, with no intermediate tree.
///
/// This is the one JSON reader of the package: ``JSONDocument`` builds a located tree from it for
/// catalogs, and ``ReceiptDecoder`` reads receipts straight into their values with it. It never
/// allocates for structure, reads numbers and plain strings in place, and bounds nesting depth so a
/// hostile text cannot exhaust the stack.
///
/// The reader borrows its bytes: use it inside `withUnsafeBytes`.
package struct JSONReader {
    /// The kinds of JSON value, as seen from their first byte.
    package enum Kind: Equatable {
        case object, array, string, number, bool, null

        /// The article-and-noun form used in messages ("an object").
        package var phrase: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .null: "null"
            }
        }
    }

    let bytes: UnsafeRawBufferPointer
    /// The byte offset of the next unread byte.
    private(set) var offset: Int = 0
    let maxDepth: Int
    var depth: Int = 0

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    // MARK: Whitespace and peeking

    @inline(__always)
    mutating func skipWhitespace() {
        // Most values and names follow at once or after one space.
        if offset < bytes.count, bytes[offset] > 0x20 { return }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// Skips whitespace and tells what kind of value comes next, without reading it.
    ///
    /// After `peek`, ``valueOffset`` is the offset of the value's first byte.
    mutating func peek() throws -> Kind {
        skipWhitespace()
        guard offset < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"):
            guard hasLiteral("true") else { throw error("invalid literal, expected `true`") }
            return .bool
        case UInt8(ascii: "f"):
            guard hasLiteral("false") else { throw error("invalid literal, expected `false`") }
            return .bool
        case UInt8(ascii: "n"):
            guard hasLiteral("null") else { throw error("invalid literal, expected `null`") }
            return .null
        default: throw unexpected("expected a value")
        }
    }

    /// Skips whitespace and returns the next byte without reading it (0 at the end of the text):
    /// lets a decoder branch on a value's first byte with one look instead of ``peek()`` and a
    /// second check inside the read.
    @inline(__always)
    mutating func nextByte() -> UInt8 {
        skipWhitespace()
        return offset < bytes.count ? bytes[offset] : 0
    }

    /// Reads the string whose opening quote is at the current offset (``nextByte()`` returned `"`).
    @inline(__always)
    mutating func readStringAtQuote() throws -> JSONString {
        try readKey()
    }

    /// Moves past `count` bytes the caller has already read and checked (a string it parsed in place).
    @inline(__always)
    mutating func skip(_ count: Int) {
        offset += count
    }

    /// The offset of the next value's first byte (valid after ``peek()``).
    var valueOffset: Int { offset }

    /// Fails unless only whitespace remains.
    mutating func finish() throws {
        skipWhitespace()
        if offset < bytes.count {
            throw unexpected("after the end of the JSON value")
        }
    }

    // MARK: Containers

    /// Reads an object, calling `body` once per member with the reader positioned at the member's
    /// value; `body` must consume that value.
    mutating func readObject(_ body: (inout JSONReader, JSONString) throws -> Void) throws {
        try enter(UInt8(ascii: "{"), expected: .object)
        var first = true
        while try nextMember(first: &first) {
            let key = try readKey()
            try expectColon(after: key)
            try body(&self, key)
        }
    }

    /// Reads an object whose member names a decoder knows, calling `body` once per member with the
    /// name's index in `keys` (`nil` for a name not in the table), the name, and the reader
    /// positioned at the member's value; `body` must consume that value.
    ///
    /// Names are first compared in place with the ones `prediction` guesses (see
    /// ``JSONKeyTable``), which learns the orders the text uses. The syntax accepted and every
    /// error are the same as ``readObject(_:)``'s.
    mutating func readObject(
        keys: JSONKeyTable, prediction: inout JSONKeyTable.Prediction,
        _ body: (inout JSONReader, Int?, JSONString) throws -> Void
    ) throws {
        try enter(UInt8(ascii: "{"), expected: .object)
        var first = true
        var previous = JSONKeyTable.objectStart
        while try nextMember(first: &first) {
            let quote = offset
            var index: Int?
            let key: JSONString
            if let found = keys.match(at: quote + 1, in: bytes, after: previous, prediction: &prediction) {
                let length = keys.length(found)
                key = JSONString(
                    raw: UnsafeRawBufferPointer(rebasing: bytes[(quote + 1)..<(quote + 1 + length)]),
                    offset: quote, hasEscapes: false, isASCII: true)
                offset = quote + length + 2
                index = found
            } else {
                key = try readKey()
                index = keys.index(of: key)
                if let index { keys.learn(&prediction, after: previous, index) }
            }
            if let index { previous = index }
            try expectColon(after: key)
            try body(&self, index, key)
        }
    }

    /// Moves to the next member name of an object being read: `false` after its closing `}`,
    /// `true` with the offset at the name's opening quote.
    @inline(__always)
    mutating func nextMember(first: inout Bool) throws -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw (self.error("unexpected end of input inside an object")) }
        if bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return false
        }
        if !first { try skipComma(in: "object", item: "member", closer: UInt8(ascii: "}")) }
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            guard offset < bytes.count else { throw error("unexpected end of input inside an object") }
            throw unexpected("expected a member name in double quotes")
        }
        first = false
        return true
    }

    /// Steps over the `,` that must separate two items of a container, and the whitespace after
    /// it; throws where there is none, or where it is a trailing comma before `closer`.
    @inline(__always)
    mutating func skipComma(in container: String, item: String, closer: UInt8) throws {
        guard bytes[offset] == UInt8(ascii: ",") else {
            throw unexpected("expected `,` or `\(Unicode.Scalar(closer))` after an \(container) \(item)")
        }
        let comma = offset
        offset += 1
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == closer {
            throw JSONSyntaxError(
                offset: comma, message: "trailing comma before `\(Unicode.Scalar(closer))`",
                help: "JSON allows no comma after the last \(item): remove this one")
        }
    }

    @inline(__always)
    mutating func expectColon(after key: JSONString) throws {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
            throw (self.error("expected `:` after member name `\(key.string)`"))
        }
        offset += 1
    }

    /// Reads an array, calling `body` once per element with the reader positioned at the element;
    /// `body` must consume it. The second argument is the element's index.
    mutating func readArray(_ body: (inout JSONReader, Int) throws -> Void) throws {
        try enter(UInt8(ascii: "["), expected: .array)
        var index = 0
        while true {
            skipWhitespace()
            guard offset < bytes.count else { throw (self.error("unexpected end of input inside an array")) }
            if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                depth -= 1
                return
            }
            if index > 0 { try skipComma(in: "array", item: "element", closer: UInt8(ascii: "]")) }
            try body(&self, index)
            index += 1
        }
    }

    mutating func enter(_ opener: UInt8, expected: Kind) throws {
        let kind = try peek()
        guard bytes[offset] == opener else { throw mismatch(expected: expected, found: kind) }
        depth += 1
        if depth > maxDepth {
            throw error("JSON nested deeper than \(maxDepth) levels")
        }
        offset += 1
    }

    // MARK: Scalars

    /// Reads a string value into a Swift `String`.
    mutating func readString() throws -> String {
        try readStringToken().string
    }

    /// Reads a string value without decoding it yet.
    mutating func readStringToken() throws -> JSONString {
        let kind = try peek()
        guard kind == .string else { throw mismatch(expected: .string, found: kind) }
        return try readKey()
    }

    /// Reads a JSON number.
    mutating func readNumber() throws -> JSONNumber {
        let kind = try peek()
        guard kind == .number else { throw mismatch(expected: .number, found: kind) }
        let start = offset
        var negative = false
        if bytes[offset] == UInt8(ascii: "-") {
            negative = true
            offset += 1
        }
        guard offset < bytes.count, isDigit(bytes[offset]) else {
            throw error("expected a digit in a number")
        }
        // Accumulate negatively so Int64.min is representable.
        var value: Int64 = 0
        var overflow = false
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if offset < bytes.count, isDigit(bytes[offset]) {
                throw error("a number cannot have a leading zero")
            }
        } else {
            while offset < bytes.count, isDigit(bytes[offset]) {
                let digit = Int64(bytes[offset] &- UInt8(ascii: "0"))
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.subtractingReportingOverflow(digit)
                overflow = overflow || o1 || o2
                value = next
                offset += 1
            }
        }
        var isInteger = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else {
                throw error("expected a digit after the decimal point")
            }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard offset < bytes.count, isDigit(bytes[offset]) else {
                throw error("expected a digit in the exponent")
            }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        var integer: Int64?
        if isInteger, !overflow {
            if negative {
                integer = value
            } else if value != Int64.min {
                integer = -value
            }
        }
        return JSONNumber(
            integer: integer,
            text: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self))
    }

    /// Reads `true` or `false`.
    mutating func readBool() throws -> Bool {
        let kind = try peek()
        guard kind == .bool else { throw mismatch(expected: .bool, found: kind) }
        // `peek` has checked the whole literal.
        let value = bytes[offset] == UInt8(ascii: "t")
        offset += value ? 4 : 5
        return value
    }

    /// Reads `null`.
    mutating func readNull() throws {
        let kind = try peek()
        guard kind == .null else { throw mismatch(expected: .null, found: kind) }
        offset += 4  // `peek` has checked the whole literal.
    }

    /// Reads and discards one value of any kind, still checking its syntax.
    mutating func skipValue() throws {
        switch try peek() {
        case .object: try readObject { reader, _ in try reader.skipValue() }
        case .array: try readArray { reader, _ in try reader.skipValue() }
        case .string: _ = try readKey()
        case .number: _ = try readNumber()
        case .bool: _ = try readBool()
        case .null: try readNull()
        }
    }

    // MARK: Strings

    /// Reads a string token at `offset` (which must be at its opening quote).
    mutating func readKey() throws -> JSONString {
        let quote = offset
        offset += 1
        let start = offset
        var hasEscapes = false
        var nonASCII: UInt8 = 0
        let count = bytes.count
        while true {
            // Skip eight plain bytes at a time: no quote, backslash, control or non-ASCII byte.
            while offset + 8 <= count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let special = JSONReader.specialBytes(word)
                if special != 0 {
                    // The lowest flagged byte is exact; jump to it.
                    offset += special.trailingZeroBitCount >> 3
                    break
                }
                offset += 8
            }
            guard offset < count else {
                offset = quote
                throw error("unterminated string")
            }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                offset += 1
                guard offset < count else { continue }
                switch bytes[offset] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    offset += 1
                case UInt8(ascii: "u"):
                    for step in 1...4 {
                        guard offset + step < count, isHexDigit(bytes[offset + step]) else {
                            offset -= 1
                            throw error("invalid `\\u` escape, expected four hexadecimal digits")
                        }
                    }
                    offset += 5
                default:
                    offset -= 1
                    throw error("invalid escape `\\\(describeRawByte(bytes[offset + 1]))` in a string")
                }
                continue
            }
            if byte < 0x20 {
                var failure = error("control character U+\(hex(byte)) must be escaped in a string")
                failure.help = curlyQuoteHint(before: offset)
                throw failure
            }
            nonASCII |= byte
            offset += 1
        }
        let end = offset
        offset += 1
        let token = JSONString(
            raw: UnsafeRawBufferPointer(rebasing: bytes[start..<end]),
            offset: quote, hasEscapes: hasEscapes, isASCII: nonASCII & 0x80 == 0)
        if !token.isASCII || hasEscapes {
            // Validate now so every later use of the token can decode without failing.
            guard token.decodeChecked() != nil else {
                offset = quote
                throw error("string is not valid UTF-8 or has an unpaired surrogate escape")
            }
        }
        return token
    }

}

extension String {
    /// The string with zeros in front, up to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
