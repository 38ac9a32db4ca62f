/// `file:` URIs, as editors name documents, and the paths they stand for (RFC 8089; the path's
/// bytes percent-encoded as RFC 3986 says).
enum DocumentURI {
    /// The path of a `file:` URI (`file:///a/b%20c.json` is `/a/b c.json`), or `nil` for another
    /// scheme (an unsaved `untitled:` buffer) or a host other than the local one.
    static func path(of uri: String) -> String? {
        let lowered = uri.lowercased()
        guard lowered.hasPrefix("file://") else { return nil }
        var rest = Substring(uri.dropFirst("file://".count))
        if !rest.hasPrefix("/") {
            // `file://localhost/path`; any other host is not this machine.
            guard let slash = rest.firstIndex(of: "/"), rest[..<slash].lowercased() == "localhost" else { return nil }
            rest = rest[slash...]
        }
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        guard let decoded = percentDecoded(rest), !decoded.isEmpty else { return nil }
        return decoded
    }

    /// The `file:` URI of an absolute path, every byte but unreserved ones and `/` percent-encoded.
    static func uri(ofPath path: String) -> String {
        var text = "file://"
        let hex = Array("0123456789ABCDEF")
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                text.append(Character(Unicode.Scalar(byte)))
            default:
                text.append("%")
                text.append(hex[Int(byte >> 4)])
                text.append(hex[Int(byte & 0xF)])
            }
        }
        return text
    }

    /// `%XX` escapes decoded; `nil` when an escape is broken or the bytes are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
