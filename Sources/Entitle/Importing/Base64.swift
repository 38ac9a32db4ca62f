/// Base64 decoding on bytes, for JWS parts (base64url, unpadded) and PKCS#7 app receipts
/// (standard alphabet, often wrapped in lines).
///
/// One pass over the bytes and no `String` work, so a hostile megabyte costs microseconds, not seconds.
enum Base64 {
    /// The value of each byte in either alphabet (`+`/`-` = 62, `/`/`_` = 63); 0xFF for padding
    /// `=`, 0xFE for whitespace, 0xFD for anything else.
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFD, count: 256)
        for (index, byte) in Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8).enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        table[Int(UInt8(ascii: "_"))] = 63
        table[Int(UInt8(ascii: "="))] = 0xFF
        for byte in [0x20, 0x0A, 0x0D, 0x09] as [UInt8] { table[Int(byte)] = 0xFE }
        return table
    }()

    /// Whether a byte belongs to the base64url alphabet (letters, digits, `-`, `_`).
    @inline(__always)
    static func isURLSafe(_ byte: UInt8) -> Bool {
        table[Int(byte)] < 64 && byte != UInt8(ascii: "+") && byte != UInt8(ascii: "/")
    }

    /// Decodes base64 in either alphabet, padded or not.
    ///
    /// - Parameter skippingWhitespace: ignore spaces and line breaks anywhere (PKCS#7 files are
    ///   often wrapped); otherwise they make the text invalid.
    /// - Returns: the bytes, or `nil` when the text is not base64.
    static func decode<Bytes: Collection>(_ text: Bytes, skippingWhitespace: Bool = false) -> [UInt8]? where Bytes.Element == UInt8 {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var pending = 0
        var padding = 0
        for byte in text {
            let value = table[Int(byte)]
            if value < 64 {
                guard padding == 0 else { return nil }  // data after padding
                accumulator = accumulator << 6 | UInt32(value)
                pending += 1
                if pending == 4 {
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                    output.append(UInt8(truncatingIfNeeded: accumulator))
                    accumulator = 0
                    pending = 0
                }
            } else if value == 0xFF {
                padding += 1
                guard padding <= 2 else { return nil }
            } else if value == 0xFE, skippingWhitespace {
                continue
            } else {
                return nil
            }
        }
        // Padding, when present, must complete the last group.
        if padding > 0, pending + padding != 4 { return nil }
        switch pending {
        case 0: break
        case 2: output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default: return nil  // one leftover character carries no whole byte
        }
        return output
    }
}
