import Foundation

/// A JWS in compact serialization (`header.payload.signature`, each base64url), split and decoded.
///
/// Everything works on bytes in one pass: App Store data comes from the network, and a crafted
/// 30 MB "JWS" must cost no more than reading 30 MB. The signature is not checked: that needs
/// cryptography, and entitle ships without packages.
struct CompactJWS {
    struct Failure: Error {
        var message: String
    }

    let header: Data
    let payload: Data

    /// Whether `bytes`, less surrounding whitespace, have the shape of a compact JWS: three
    /// base64url parts joined by dots, the first two of at least four characters.
    static func looksLike<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8, Bytes.Index == Int {
        guard let parts = split(bytes) else { return false }
        return parts.0.count >= 4 && parts.1.count >= 4
    }

    /// ``looksLike(_:)`` on a string.
    static func looksLike(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { looksLike($0) }
    }

    init(_ text: String) throws(Failure) {
        var text = text
        let result: Result<CompactJWS, Failure> = text.withUTF8 { bytes in
            do throws(Failure) { return .success(try CompactJWS(bytes: bytes)) } catch { return .failure(error) }
        }
        self = try result.get()
    }

    init<Bytes: Collection>(bytes: Bytes) throws(Failure) where Bytes.Element == UInt8, Bytes.Index == Int {
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
    private static func split<Bytes: Collection>(_ bytes: Bytes) -> (Bytes.SubSequence, Bytes.SubSequence, Bytes.SubSequence)?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        var dots: [Int] = []
        for index in start..<end {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                dots.append(index)
                if dots.count > 2 { return nil }
            } else if !Base64.isURLSafe(byte) && byte != UInt8(ascii: "=") {
                return nil
            }
        }
        guard dots.count == 2 else { return nil }
        return (bytes[start..<dots[0]], bytes[(dots[0] + 1)..<dots[1]], bytes[(dots[1] + 1)..<end])
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
