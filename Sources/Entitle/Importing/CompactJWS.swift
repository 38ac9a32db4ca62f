import Foundation

/// A JWS in compact serialization (`header.payload.signature`, each base64url), split and decoded.
///
/// The signature is not checked: that needs cryptography, and entitle ships without packages.
struct CompactJWS {
    struct Failure: Error {
        var message: String
    }

    let header: Data
    let payload: Data

    /// Whether `text` has the shape of a compact JWS: three base64url parts joined by dots.
    static func looksLike(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0].count >= 4 && parts[1].count >= 4
            && trimmed.unicodeScalars.allSatisfy { isBase64URL($0) || $0 == "." }
    }

    init(_ text: String) throws(Failure) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Failure(message: "a compact JWS has three dot-separated parts, this has \(parts.count)") }
        guard let header = CompactJWS.decode(parts[0]) else { throw Failure(message: "the JWS header is not base64url") }
        guard let payload = CompactJWS.decode(parts[1]) else { throw Failure(message: "the JWS payload is not base64url") }
        self.header = header
        self.payload = payload
    }

    /// Whether the header names an `x5c` certificate chain (Apple's signed data always has one).
    var headerHasCertificateChain: Bool {
        guard let root = try? JSONDocument.parse(header, limits: .init(maxBytes: 1 << 20, maxDepth: 16)).root else { return false }
        return root["x5c"]?.elements?.isEmpty == false
    }

    static func decode(_ part: Substring) -> Data? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)
    }

    private static func isBase64URL(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_", "=": true
        default: false
        }
    }
}
