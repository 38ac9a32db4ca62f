/// A string token in a JSON text, borrowed from the reader's bytes and decoded only on demand.
///
/// Comparing a token with a known name (`token == "productId"`) touches no allocation: that is how
/// the decoders match member names on the fast path.
struct JSONString {
    /// The bytes between the quotes, escapes not yet decoded.
    let raw: UnsafeRawBufferPointer
    /// The offset of the opening quote in the text.
    let offset: Int
    let hasEscapes: Bool
    let isASCII: Bool

    /// The decoded string (the reader has already validated it).
    var string: String {
        if !hasEscapes {
            return String(decoding: raw, as: UTF8.self)
        }
        return decodeChecked() ?? ""
    }

    /// Whether the decoded token equals `name`, which must be plain ASCII without escapes.
    @inline(__always)
    static func == (token: JSONString, name: StaticString) -> Bool {
        if token.hasEscapes { return token.string == name.description }
        let count = name.utf8CodeUnitCount
        guard token.raw.count == count else { return false }
        let pointer = name.utf8Start
        for index in 0..<count where token.raw[index] != pointer[index] { return false }
        return true
    }

    /// Decodes escapes and validates UTF-8; `nil` when the bytes are not valid text.
    ///
    /// The decoded text is built as UTF-8 bytes and validated once: appending to a
    /// `String.UnicodeScalarView` piece by piece costs time quadratic in its length, and a
    /// catalog sent by an editor (`entitle lsp`) is one string with an escape on every line.
    func decodeChecked() -> String? {
        if !hasEscapes {
            return String(validating: raw, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = 0
        func hexValue(at position: Int) -> UInt32 {
            var value: UInt32 = 0
            for step in 0..<4 {
                let byte = raw[position + step] | 0x20
                let digit = byte >= UInt8(ascii: "a") ? UInt32(byte - UInt8(ascii: "a") + 10) : UInt32(byte - UInt8(ascii: "0"))
                value = value << 4 | digit
            }
            return value
        }
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                index += 1
                continue
            }
            let escape = raw[index + 1]
            index += 2
            let simple: UInt8? =
                switch escape {
                case UInt8(ascii: "\""): 0x22
                case UInt8(ascii: "\\"): 0x5C
                case UInt8(ascii: "/"): 0x2F
                case UInt8(ascii: "b"): 0x08
                case UInt8(ascii: "f"): 0x0C
                case UInt8(ascii: "n"): 0x0A
                case UInt8(ascii: "r"): 0x0D
                case UInt8(ascii: "t"): 0x09
                default: nil
                }
            if let simple {
                bytes.append(simple)
                continue
            }
            // `\uXXXX`, possibly a surrogate pair.
            let unit = hexValue(at: index)
            index += 4
            let scalar: UnicodeScalar?
            if unit >= 0xD800 && unit < 0xDC00 {
                guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u") else {
                    return nil
                }
                let low = hexValue(at: index + 2)
                guard low >= 0xDC00 && low < 0xE000 else { return nil }
                index += 6
                scalar = UnicodeScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            } else {
                scalar = UnicodeScalar(unit)
            }
            guard let scalar else { return nil }
            bytes.append(contentsOf: scalar.utf8)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
