import Foundation

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
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// Decodes base64 in either alphabet, padded or not.
    ///
    /// - Parameter skippingWhitespace: ignore spaces and line breaks anywhere (PKCS#7 files are
    ///   often wrapped); otherwise they make the text invalid.
    /// - Returns: the bytes, or `nil` when the text is not base64.
    static func decode(_ data: Data, skippingWhitespace: Bool = false) -> [UInt8]? {
        data.withUnsafeBytes { decode($0, skippingWhitespace: skippingWhitespace) }
    }

    /// ``decode(_:skippingWhitespace:)`` on raw bytes.
    static func decode(_ text: UnsafeRawBufferPointer, skippingWhitespace: Bool = false) -> [UInt8]? {
        table.withUnsafeBufferPointer { table in
            var output = [UInt8](repeating: 0, count: text.count / 4 * 3 + 3)
            var written = 0
            var accumulator: UInt32 = 0
            var pending = 0
            var padding = 0
            let ok: Bool = output.withUnsafeMutableBufferPointer { output in
                for byte in text {
                    let value = table[Int(byte)]
                    if value < 64 {
                        guard padding == 0 else { return false }  // data after padding
                        accumulator = accumulator << 6 | UInt32(value)
                        pending += 1
                        if pending == 4 {
                            output[written] = UInt8(truncatingIfNeeded: accumulator >> 16)
                            output[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 8)
                            output[written + 2] = UInt8(truncatingIfNeeded: accumulator)
                            written += 3
                            accumulator = 0
                            pending = 0
                        }
                    } else if value == 0xFF {
                        padding += 1
                        guard padding <= 2 else { return false }
                    } else if value == 0xFE, skippingWhitespace {
                        continue
                    } else {
                        return false
                    }
                }
                // Padding, when present, must complete the last group.
                if padding > 0, pending + padding != 4 { return false }
                switch pending {
                case 0: break
                case 2:
                    output[written] = UInt8(truncatingIfNeeded: accumulator >> 4)
                    written += 1
                case 3:
                    output[written] = UInt8(truncatingIfNeeded: accumulator >> 10)
                    output[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 2)
                    written += 2
                default: return false  // one leftover character carries no whole byte
                }
                return true
            }
            guard ok else { return nil }
            output.removeSubrange(written...)
            return output
        }
    }
}
