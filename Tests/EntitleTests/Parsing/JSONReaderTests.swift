import Foundation
import Testing

@testable import Entitle

@Suite("JSON reader")
struct JSONReaderTests {
    /// Reads one JSON string value.
    static func read(_ json: String) throws -> String {
        let data = Data(json.utf8)
        return try data.withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw, maxDepth: 8)
            let value = try reader.readString()
            try reader.finish()
            return value
        }
    }

    @Test("strings with a special byte at every position around the eight-byte scan", arguments: Array(0..<20))
    func specialAtEveryPosition(position: Int) throws {
        let plain = String(repeating: "a", count: position)
        #expect(try Self.read("\"\(plain)\"") == plain)
        #expect(try Self.read("\"\(plain)\\\"b\"") == plain + "\"b")
        #expect(try Self.read("\"\(plain)\\\\\"") == plain + "\\")
        #expect(try Self.read("\"\(plain)é\(plain)\"") == plain + "é" + plain)
        #expect(try Self.read("\"\(plain)\\u00e9\\ud83d\\ude00\"") == plain + "é😀")
        #expect(throws: JSONSyntaxError.self) { try Self.read("\"\(plain)\u{01}x\"") }
        #expect(throws: JSONSyntaxError.self) { try Self.read("\"\(plain)") }
        #expect(throws: JSONSyntaxError.self) { try Self.read("\"\(plain)\\x\"") }
    }

    @Test("a long string with an escape on every line (a catalog sent by an editor) decodes in linear time")
    func manyEscapes() throws {
        // 400,000 escapes: appended scalar by scalar to a String.UnicodeScalarView this took
        // minutes (the view's appends are quadratic); as bytes it takes milliseconds.
        let line = #"    \"name\": \"é 😀\",\n"#
        let count = 100_000
        let started = Date()
        let value = try Self.read("\"" + String(repeating: line, count: count) + "\"")
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(value == String(repeating: "    \"name\": \"é 😀\",\n", count: count))
        // Invalid UTF-8 between escapes is still refused.
        let invalid = Data([0x22, 0x5C, 0x6E, 0xC3, 0x5C, 0x6E, 0x22])
        #expect(throws: JSONSyntaxError.self) {
            try invalid.withUnsafeBytes { raw in
                var reader = JSONReader(bytes: raw, maxDepth: 8)
                _ = try reader.readString()
            }
        }
    }

    @Test("the special-byte mask flags exactly the first special byte")
    func mask() {
        for position in 0..<8 {
            for special: UInt8 in [0x22, 0x5C, 0x00, 0x1F, 0x80, 0xFF] {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = special
                let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                #expect(JSONReader.specialBytes(word).trailingZeroBitCount >> 3 == position)
            }
        }
        let plain = Array("az09 -_.".utf8).withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        #expect(JSONReader.specialBytes(plain) == 0)
    }

    @Test(
        "invalid UTF-8 and lone surrogates are rejected",
        arguments: [
            [0x22, 0xC3, 0x28, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xE2, 0x82, 0x22],
        ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(throws: JSONSyntaxError.self) {
            try Data(bytes).withUnsafeBytes { raw in
                var reader = JSONReader(bytes: raw, maxDepth: 8)
                _ = try reader.readString()
            }
        }
        #expect(throws: JSONSyntaxError.self) { try Self.read("\"\\ud800\"") }
    }

    @Test(
        "numbers: integers exact to Int64, fractions and exponents kept as text",
        arguments: [
            ("0", Int64(0) as Int64?), ("-0", 0), ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
            ("9223372036854775808", nil), ("1.5", nil), ("1e3", nil), ("-12", -12),
        ])
    func numbers(text: String, integer: Int64?) throws {
        let number = try Data(text.utf8).withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw, maxDepth: 8)
            return try reader.readNumber()
        }
        #expect(number.integer == integer)
        #expect(number.text == text)
    }

    @Test("malformed numbers and literals are rejected", arguments: ["01", "-", "1.", "1e", ".5", "+1", "tru", "nul", "truex"])
    func malformed(text: String) {
        #expect(throws: JSONSyntaxError.self) {
            try Data(text.utf8).withUnsafeBytes { raw in
                var reader = JSONReader(bytes: raw, maxDepth: 8)
                try reader.skipValue()
                try reader.finish()
            }
        }
    }
}
