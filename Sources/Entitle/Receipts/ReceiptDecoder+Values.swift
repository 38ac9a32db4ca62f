import Foundation

/// The values of a receipt, read from the bytes: objects, texts kept in the receipt's arena,
/// integers, flags and instants; and the failures each reports, located.
extension ReceiptDecoder {
    // MARK: Values

    /// Member names already seen in one object, as bits, to reject repeated keys without hashing.
    ///
    /// Each object's reader writes out its four opening lines (`expectObject`, a `KeySet`,
    /// `readObject`, `insert`): one function around them, its reader passed on as a closure,
    /// cost 3 to 6% of decoding 2,000 transactions in `entitle-bench`, measured against this form.
    struct KeySet {
        var bits: UInt32 = 0
        @inline(__always)
        mutating func insert(_ bit: Int, _ key: JSONString) throws {
            let mask: UInt32 = 1 << UInt32(bit)
            if bits & mask != 0 {
                throw Failure(offset: key.offset, message: "duplicate key `\(Diagnostic.excerpt(key.string))`", code: .duplicateKey)
            }
            bits |= mask
        }
    }

    static func expectObject(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> Int {
        let kind = try reader.peek()
        guard kind == .object else { throw wrongType(&reader, expected: "an object", found: kind, path: path()) }
        return reader.valueOffset
    }

    static func expectArray(_ reader: inout JSONReader, path: @autoclosure () -> String) throws {
        let kind = try reader.peek()
        guard kind == .array else { throw wrongType(&reader, expected: "an array", found: kind, path: path()) }
    }

    @inline(__always)
    static func stringToken(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> JSONString {
        guard reader.nextByte() == UInt8(ascii: "\"") else { throw try wrongValue(&reader, expected: "a string", path: path()) }
        return try reader.readStringAtQuote()
    }

    /// A string value as `read` reads it, or `previous`'s text again, without scanning or storing
    /// it, when the value repeats it byte for byte. `previous` becomes what was read when it was
    /// stored as written: escapes only shorten a string, so text as long as the token between
    /// its quotes had none, and equal raw bytes followed by the closing quote are then the same
    /// valid string.
    @inline(__always)
    static func text(
        repeating previous: inout TextRange, _ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields,
        read: (inout JSONReader, inout ParsedReceipt.Fields) throws -> TextRange
    ) throws -> TextRange {
        let quote = reader.nextByte() == UInt8(ascii: "\"") ? reader.valueOffset : -1
        if quote >= 0, !previous.isNone {
            let count = Int(previous.count)
            let bytes = reader.bytes
            if quote + count + 1 < bytes.count, bytes[quote + count + 1] == UInt8(ascii: "\""),
                count == 0
                    || receipt.arena.withUnsafeBytes({ arena in
                        memcmp(bytes.baseAddress! + quote + 1, arena.baseAddress! + Int(previous.start), count) == 0
                    })
            {
                reader.skip(count + 2)
                return previous
            }
        }
        let range = try read(&reader, &receipt)
        if quote >= 0 { previous = reader.offset - quote - 2 == Int(range.count) ? range : .none }
        return range
    }

    /// Whether the next value is `null`, which it then reads.
    @inline(__always)
    static func readNull(_ reader: inout JSONReader) throws -> Bool {
        guard reader.nextByte() == UInt8(ascii: "n") else { return false }
        try reader.readNull()
        return true
    }

    /// An id: non-empty text, and its hash, by which entries of one id are found again.
    static func id(_ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, path: @autoclosure () -> String) throws
        -> (TextRange, hash: UInt64)
    {
        let range = try nonEmptyText(&reader, into: &receipt, path: path())
        return (range, receipt.hash(range))
    }

    /// Reads a non-empty string into the receipt's arena.
    static func nonEmptyText(_ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, path: @autoclosure () -> String) throws
        -> TextRange
    {
        let token = try stringToken(&reader, path: path())
        guard token.raw.count > 0 else {
            throw Failure(offset: token.offset, message: "must not be empty", code: .badValue, path: path())
        }
        return try store(token, into: &receipt, path: path())
    }

    /// A non-empty text, or `null` for none.
    static func optionalNonEmptyText(_ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, path: @autoclosure () -> String)
        throws -> TextRange
    {
        if try readNull(&reader) { return .none }
        return try nonEmptyText(&reader, into: &receipt, path: path())
    }

    /// A non-empty string, or `null` for none.
    static func nonEmptyString(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> String? {
        if try readNull(&reader) { return nil }
        let token = try stringToken(&reader, path: path())
        guard token.raw.count > 0 else { throw Failure(offset: token.offset, message: "must not be empty", code: .badValue, path: path()) }
        let text = token.string
        if text.utf8.count > ReceiptLimits.maxTextBytes { throw tooLong(text, at: token.offset, path: path()) }
        return text
    }

    static func optionalText(_ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, path: @autoclosure () -> String) throws
        -> TextRange
    {
        if try readNull(&reader) { return .none }
        return try store(try stringToken(&reader, path: path()), into: &receipt, path: path())
    }

    @inline(__always)
    static func store(_ token: JSONString, into receipt: inout ParsedReceipt.Fields, path: @autoclosure () -> String) throws -> TextRange {
        // Escapes only shorten the text, so the raw length bounds it.
        if token.raw.count > ReceiptLimits.maxTextBytes {
            let text = token.string
            if text.utf8.count > ReceiptLimits.maxTextBytes { throw tooLong(text, at: token.offset, path: path()) }
        }
        return token.hasEscapes ? receipt.store(token.string) : receipt.store(token.raw)
    }

    static func tooLong(_ text: String, at offset: Int, path: String) -> Failure {
        Failure(
            offset: offset, message: "text of \(text.utf8.count) bytes is longer than \(ReceiptLimits.maxTextBytes) bytes",
            code: .limitExceeded, path: path,
            help: "ids and other text in a receipt are at most \(ReceiptLimits.maxTextBytes) bytes of UTF-8")
    }

    static func string(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> String {
        let token = try stringToken(&reader, path: path())
        let text = token.string
        if text.utf8.count > ReceiptLimits.maxTextBytes { throw tooLong(text, at: token.offset, path: path()) }
        return text
    }

    static func optionalString(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> String? {
        if try readNull(&reader) { return nil }
        return try string(&reader, path: path())
    }

    /// An optional enumeration value as its code (index plus one, 0 for `null`).
    static func optionalEnum<E: RawRepresentable & CaseIterable>(
        _ reader: inout JSONReader, _: E.Type, what: String, path: @autoclosure () -> String
    ) throws -> UInt8 where E.RawValue == String {
        if try readNull(&reader) { return 0 }
        let token = try stringToken(&reader, path: path())
        let names = E.allCases.map(\.rawValue)
        let text = token.string
        guard let index = names.firstIndex(of: text) else { throw unknownName(text, of: names, what: what, at: token.offset, path: path()) }
        return UInt8(index + 1)
    }

    /// An enumeration value: a string that must be one of `E`'s raw values.
    static func enumValue<E: RawRepresentable & CaseIterable>(
        _ reader: inout JSONReader, _: E.Type, what: String, path: @autoclosure () -> String
    ) throws -> E where E.RawValue == String {
        let token = try stringToken(&reader, path: path())
        let text = token.string
        guard let value = E(rawValue: text) else {
            throw unknownName(text, of: E.allCases.map(\.rawValue), what: what, at: token.offset, path: path())
        }
        return value
    }

    /// A string that is none of the names an enumeration value may have: a `bad-enum-value`
    /// error quoting it in part, with the closest name or else all of them.
    static func unknownName(_ text: String, of names: [String], what: String, at offset: Int, path: String) -> Failure {
        Failure(
            offset: offset, message: "unknown \(what) `\(Diagnostic.excerpt(text))`", code: .badEnumValue, path: path,
            help: Suggestion.help(for: text, in: names) ?? "expected \(CatalogChecker.list(names))")
    }

    static func integer(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> Int64 {
        let kind = try reader.peek()
        guard kind == .number else { throw wrongType(&reader, expected: "an integer", found: kind, path: path()) }
        let offset = reader.valueOffset
        let number = try reader.readNumber()
        guard let value = number.integer else {
            throw Failure(offset: offset, message: "expected an integer, found `\(number.text)`", code: .wrongType, path: path())
        }
        return value
    }

    static func optionalBool(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> Bool? {
        switch reader.nextByte() {
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return try reader.readBool()
        case UInt8(ascii: "n"):
            try reader.readNull()
            return nil
        default: throw try wrongValue(&reader, expected: "`true` or `false`", path: path())
        }
    }

    static func instant(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> Int64 {
        guard reader.nextByte() == UInt8(ascii: "\"") else {
            throw try wrongValue(&reader, expected: "an RFC 3339 instant string", path: path())
        }
        // The usual layout, `2026-01-15T09:00:00.250Z`, parses in place without scanning for the
        // closing quote first: the parser checks every byte, so none of them is a quote, an
        // escape or a control byte, and the string ends at the quote after them.
        let quote = reader.valueOffset
        let bytes = reader.bytes
        if quote + 26 <= bytes.count, bytes[quote + 25] == UInt8(ascii: "\""),
            let milliseconds = Instant.parseMillisecondUTC(bytes, at: quote + 1)
        {
            reader.skip(26)
            return milliseconds
        }
        let token = try reader.readStringAtQuote()
        let parsed: Instant? =
            token.hasEscapes
            ? Instant(rfc3339: token.string)
            : Instant.parseRFC3339(token.raw)
        guard let parsed else {
            // Say why when it is more than the shape: a day that does not exist, a year out of range.
            let problem = Instant.rfc3339Problem(token.string).flatMap { $0.hasPrefix("it must look like") ? nil : $0 }
            throw Failure(
                offset: token.offset, message: "`\(token.string)` is not an RFC 3339 instant",
                code: .badInstant, path: path(),
                help: problem ?? "write e.g. `2026-01-15T09:00:00Z` or `2026-01-15T10:00:00.250+01:00`")
        }
        return parsed.millisecondsSince1970
    }

    static func optionalInstant(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> Int64? {
        if try readNull(&reader) { return nil }
        return try instant(&reader, path: path())
    }

    // MARK: Failures

    /// A wrong-type failure for the value at the reader, whose kind is looked at only now (a
    /// syntax error there is reported as such, as ``JSONReader/peek()`` would).
    static func wrongValue(_ reader: inout JSONReader, expected: String, path: @autoclosure () -> String) throws -> Failure {
        let kind = try reader.peek()
        return wrongType(&reader, expected: expected, found: kind, path: path())
    }

    static func wrongType(_ reader: inout JSONReader, expected: String, found: JSONReader.Kind, path: @autoclosure () -> String) -> Failure {
        Failure(offset: reader.valueOffset, message: "expected \(expected), found \(found.phrase)", code: .wrongType, path: path())
    }

    /// A member `object` does not declare, with a did-you-mean among those it does.
    static func unknownKey(_ key: JSONString, in object: ReceiptObject, path: String) -> Failure {
        let name = key.string
        return Failure(
            offset: key.offset, message: "unknown key `\(Diagnostic.excerpt(name))` in \(object.what)", code: .unknownKey,
            path: CatalogChecker.path(path, key: name),
            help: Suggestion.help(for: name, in: object.keys) ?? "allowed keys are \(CatalogChecker.list(object.keys))")
    }

    static func missing(_ key: String, in what: String, at offset: Int, path: String) -> Failure {
        Failure(offset: offset, message: "missing required key `\(key)` in \(what)", code: .missingKey, path: path)
    }
}
