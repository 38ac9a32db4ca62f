import Foundation

/// A JWS in compact serialization (`header.payload.signature`, each base64url), split and decoded.
///
/// Everything works on bytes in one pass: App Store data comes from the network, and a crafted
/// 30 MB "JWS" must cost no more than reading 30 MB. The signature is not checked here:
/// ``JWSVerification`` does that, with the platform's cryptography, when asked.
struct CompactJWS {
    struct Failure: Error {
        var message: String
    }

    let header: Data
    let payload: Data

    /// Whether `bytes`, less surrounding whitespace, have the shape of a compact JWS: three
    /// base64url parts joined by dots, the first two of at least four characters.
    static func looksLike(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let parts = split(bytes) else { return false }
        return parts.0.count >= 4 && parts.1.count >= 4
    }

    /// ``looksLike(_:)`` on a string.
    static func looksLike(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { looksLike(UnsafeRawBufferPointer($0)) }
    }

    /// ``looksLike(_:)`` on data.
    static func looksLike(_ data: Data) -> Bool {
        data.withUnsafeBytes { looksLike($0) }
    }

    init(_ text: String) throws(Failure) {
        var text = text
        let result: Result<CompactJWS, Failure> = text.withUTF8 { bytes in
            do throws(Failure) { return .success(try CompactJWS(bytes: UnsafeRawBufferPointer(bytes))) } catch { return .failure(error) }
        }
        self = try result.get()
    }

    init(bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard let (header, payload, _) = CompactJWS.split(bytes) else {
            throw Failure(message: "a compact JWS is three base64url parts joined by dots")
        }
        guard let decodedHeader = Base64.decode(header) else { throw Failure(message: "the JWS header is not base64url") }
        guard let decodedPayload = Base64.decode(payload) else { throw Failure(message: "the JWS payload is not base64url") }
        self.header = Data(decodedHeader)
        self.payload = Data(decodedPayload)
    }

    /// The three parts, when the bytes (less surrounding whitespace) are base64url characters
    /// and exactly two dots; `nil` otherwise.
    static func split(_ bytes: UnsafeRawBufferPointer)
        -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer)?
    {
        var start = 0
        var end = bytes.count
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        var dots = (first: -1, second: -1)
        var index = start
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                if dots.first < 0 { dots.first = index } else if dots.second < 0 { dots.second = index } else { return nil }
            } else if !Base64.isURLSafe(byte) && byte != UInt8(ascii: "=") {
                return nil
            }
            index += 1
        }
        guard dots.second >= 0 else { return nil }
        return (
            UnsafeRawBufferPointer(rebasing: bytes[start..<dots.first]),
            UnsafeRawBufferPointer(rebasing: bytes[(dots.first + 1)..<dots.second]),
            UnsafeRawBufferPointer(rebasing: bytes[(dots.second + 1)..<end])
        )
    }

    /// What keeps `bytes` (less surrounding whitespace) from being a compact JWS, for data that
    /// was meant to be one (a `signedPayload`, a file that starts as a JWS does); `nil` when it
    /// has the shape of one.
    static func problem(_ bytes: UnsafeRawBufferPointer) -> String? {
        if looksLike(bytes) { return nil }
        var start = 0
        var end = bytes.count
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return "it is empty" }
        // How many parts, and the lengths of the first two: no more is kept, whatever the size.
        var count = 1
        var lengths = (header: 0, payload: 0)
        for index in start..<end {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                count += 1
            } else if Base64.isURLSafe(byte) || byte == UInt8(ascii: "=") {
                if count == 1 { lengths.header += 1 } else if count == 2 { lengths.payload += 1 }
            } else {
                return "byte \(index - start + 1) (`\(Diagnostic.excerpt(String(decoding: [byte], as: UTF8.self)))`) is not base64url"
            }
        }
        if count != 3 {
            return "\(count) part\(count == 1 ? "" : "s") where `header.payload.signature` has three" + (count < 3 ? ", so it was cut short" : "")
        }
        return lengths.header < 4
            ? "a header of \(lengths.header) characters, so it was cut short" : "a payload of \(lengths.payload) characters, so it was cut short"
    }

    /// ``problem(_:)`` on a string.
    static func problem(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { problem(UnsafeRawBufferPointer($0)) }
    }

    /// Whether bytes were meant as a compact JWS, whole or not: they start as every JWS header
    /// does (`eyJ`, base64url of `{"`), which no JSON, DER or placeholder text does.
    static func resembles(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        while start < bytes.count, isWhitespace(bytes[start]) { start += 1 }
        return bytes.count - start >= 3 && bytes[start] == UInt8(ascii: "e") && bytes[start + 1] == UInt8(ascii: "y")
            && bytes[start + 2] == UInt8(ascii: "J")
    }

    /// ``resembles(_:)`` on data.
    static func resembles(_ data: Data) -> Bool { data.withUnsafeBytes { resembles($0) } }

    /// ``resembles(_:)`` on a string.
    static func resembles(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { resembles(UnsafeRawBufferPointer($0)) }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Whether the header names an `x5c` certificate chain (Apple's signed data always has one).
    var headerHasCertificateChain: Bool {
        guard let root = try? JSONDocument.parse(header, limits: .init(maxBytes: 1 << 20, maxDepth: 16)).root else { return false }
        return root["x5c"]?.elements?.isEmpty == false
    }
}
