/// Reads ASN.1 BER/DER, the encoding of PKCS#7 app receipts, one element at a time.
///
/// Apple's receipts use BER indefinite lengths on their outer layers, so both definite and
/// indefinite lengths are read, and constructed OCTET STRINGs are joined. Every length is checked
/// against the bytes that remain and nesting is bounded, so truncated or corrupted input gives an
/// error, never a crash or a hang.
struct BERReader {
    /// One element: its tag, whether it is constructed, and its content bytes.
    struct Element {
        var tag: UInt8
        var constructed: Bool
        /// For definite lengths the content; for indefinite ones the content up to the end-of-contents.
        var content: ArraySlice<UInt8>
        var offset: Int

        var tagNumber: UInt8 { tag & 0x1F }
        var tagClass: UInt8 { tag & 0xC0 }
    }

    struct Failure: Error {
        var offset: Int
        var message: String
    }

    static let maxDepth = 32

    private let bytes: ArraySlice<UInt8>
    private var position: Int
    private let depth: Int

    init(_ bytes: ArraySlice<UInt8>, depth: Int = 0) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.depth = depth
    }

    var isAtEnd: Bool { position >= bytes.endIndex }

    /// Reads the next element.
    mutating func next() throws(Failure) -> Element {
        guard depth < BERReader.maxDepth else { throw Failure(offset: position, message: "ASN.1 nested too deeply") }
        let start = position
        guard position < bytes.endIndex else { throw Failure(offset: position, message: "unexpected end of ASN.1 data") }
        let tag = bytes[position]
        position += 1
        guard tag & 0x1F != 0x1F else { throw Failure(offset: start, message: "multi-byte ASN.1 tags are not used in receipts") }
        guard position < bytes.endIndex else { throw Failure(offset: position, message: "unexpected end of ASN.1 data") }
        let first = bytes[position]
        position += 1
        let constructed = tag & 0x20 != 0
        if first == 0x80 {
            // Indefinite length: constructed content runs to an end-of-contents marker (00 00).
            guard constructed else { throw Failure(offset: start, message: "indefinite length on a primitive ASN.1 element") }
            let contentStart = position
            var inner = BERReader(bytes[position...], depth: depth + 1)
            while true {
                guard inner.position + 1 < bytes.endIndex else {
                    throw Failure(offset: inner.position, message: "missing ASN.1 end-of-contents")
                }
                if bytes[inner.position] == 0, bytes[inner.position + 1] == 0 { break }
                _ = try inner.next()
            }
            let contentEnd = inner.position
            position = inner.position + 2
            return Element(tag: tag, constructed: true, content: bytes[contentStart..<contentEnd], offset: start)
        }
        let length = try Self.definiteLength(bytes, first: first, at: &position, end: bytes.endIndex, element: start)
        let content = bytes[position..<(position + length)]
        position += length
        return Element(tag: tag, constructed: constructed, content: content, offset: start)
    }

    /// A definite length whose first byte is `first`, its further bytes read from `position`;
    /// checked against the bytes up to `end`.
    private static func definiteLength(
        _ bytes: ArraySlice<UInt8>, first: UInt8, at position: inout Int, end: Int, element start: Int
    ) throws(Failure) -> Int {
        var length = 0
        if first & 0x80 == 0 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count <= 4 else { throw Failure(offset: start, message: "ASN.1 length too large") }
            for _ in 0..<count {
                guard position < end else { throw Failure(offset: position, message: "unexpected end of ASN.1 data") }
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard length <= end - position else {
            throw Failure(offset: start, message: "ASN.1 element is longer than the data (\(length) bytes)")
        }
        return length
    }

    /// Reads the next element and checks its tag.
    mutating func next(tag: UInt8, _ what: String) throws(Failure) -> Element {
        let element = try next()
        guard element.tag == tag || element.tag == tag | 0x20 && tag & 0x1F == 0x04 else {
            throw Failure(offset: element.offset, message: "expected \(what) in the ASN.1 data")
        }
        return element
    }

    /// The bytes of an OCTET STRING, joining the pieces of a constructed one.
    ///
    /// The pieces are walked once, in order, each byte read once however deeply pieces nest:
    /// reading each level with ``next()`` would find every indefinite-length piece's end by
    /// reading all of it again at each level.
    static func octets(_ element: Element, depth: Int = 0) throws(Failure) -> [UInt8] {
        guard element.constructed else { return Array(element.content) }
        var result: [UInt8] = []
        var position = element.content.startIndex
        try join(element.content, at: &position, end: element.content.endIndex, indefinite: false, depth: depth + 1, into: &result)
        return result
    }

    /// Appends the contents of the OCTET STRING pieces from `position` on, up to `end` (or, when
    /// `indefinite`, up to and past the end-of-contents marker) to `result`.
    private static func join(
        _ bytes: ArraySlice<UInt8>, at position: inout Int, end: Int, indefinite: Bool, depth: Int, into result: inout [UInt8]
    ) throws(Failure) {
        guard depth < maxDepth else { throw Failure(offset: position, message: "ASN.1 nested too deeply") }
        while true {
            if indefinite {
                guard position + 1 < end else { throw Failure(offset: position, message: "missing ASN.1 end-of-contents") }
                if bytes[position] == 0, bytes[position + 1] == 0 {
                    position += 2
                    return
                }
            } else if position >= end {
                return
            }
            let start = position
            guard position + 1 < end else { throw Failure(offset: position, message: "unexpected end of ASN.1 data") }
            let tag = bytes[position]
            let first = bytes[position + 1]
            position += 2
            guard tag & 0x1F == 0x04 else { throw Failure(offset: start, message: "expected an OCTET STRING piece") }
            let constructed = tag & 0x20 != 0
            if first == 0x80 {
                guard constructed else { throw Failure(offset: start, message: "indefinite length on a primitive ASN.1 element") }
                try join(bytes, at: &position, end: end, indefinite: true, depth: depth + 1, into: &result)
                continue
            }
            let length = try definiteLength(bytes, first: first, at: &position, end: end, element: start)
            if constructed {
                var inner = position
                try join(bytes, at: &inner, end: position + length, indefinite: false, depth: depth + 1, into: &result)
            } else {
                result += bytes[position..<(position + length)]
            }
            position += length
        }
    }

    /// A non-negative INTEGER that fits in `Int64`.
    static func integer(_ element: Element) throws(Failure) -> Int64 {
        guard element.tag == 0x02, !element.content.isEmpty, element.content.count <= 9 else {
            throw Failure(offset: element.offset, message: "expected a small ASN.1 INTEGER")
        }
        var value: Int64 = element.content.first! & 0x80 != 0 ? -1 : 0
        for byte in element.content { value = value << 8 | Int64(byte) }
        return value
    }

    /// The text of a UTF8String, IA5String or PrintableString.
    static func text(_ element: Element) throws(Failure) -> String {
        guard [0x0C, 0x16, 0x13].contains(element.tag), let text = String(validating: element.content, as: UTF8.self) else {
            throw Failure(offset: element.offset, message: "expected an ASN.1 string")
        }
        return text
    }

    /// The dotted form of an OBJECT IDENTIFIER.
    static func objectIdentifier(_ element: Element) throws(Failure) -> String {
        guard element.tag == 0x06, let first = element.content.first else {
            throw Failure(offset: element.offset, message: "expected an ASN.1 OBJECT IDENTIFIER")
        }
        var parts = [Int(first) / 40, Int(first) % 40]
        var value = 0
        for byte in element.content.dropFirst() {
            value = value << 7 | Int(byte & 0x7F)
            guard value < 1 << 40 else { throw Failure(offset: element.offset, message: "OBJECT IDENTIFIER too large") }
            if byte & 0x80 == 0 {
                parts.append(value)
                value = 0
            }
        }
        return parts.map(String.init).joined(separator: ".")
    }
}
