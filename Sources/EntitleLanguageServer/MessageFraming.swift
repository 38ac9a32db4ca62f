import Foundation

/// The base protocol of the Language Server Protocol: each message is a header part (`Name: value`
/// lines, `Content-Length` required, ended by an empty line) and then exactly `Content-Length`
/// bytes of JSON.
///
/// Reading never trusts the peer: a header line is at most ``maxHeaderLine`` bytes, a body at most
/// `maxBodyBytes` (a larger one is refused before any of it is read, then skipped as it arrives,
/// never held), and a header part that makes no sense is reported and skipped, so a broken
/// message costs one error reply, not the session. Lines may end in `\r\n` or `\n`.
struct MessageFraming {
    /// What the next read found.
    enum Event: Equatable {
        /// A message's body.
        case message([UInt8])
        /// A header part that was not usable; the message is skipped.
        case problem(String)
        /// A body over the limit, refused before it is read, then skipped.
        case tooLarge(String)
        /// The input is closed.
        case end
    }

    static let maxHeaderLine = 8192
    /// A Content-Length of more digits than this is refused without reading it as a number.
    private static let maxLengthDigits = 18

    private let read: () throws -> Data?
    private let maxBodyBytes: Int
    private var buffer: [UInt8] = []
    private var position = 0
    private var closed = false
    /// Bytes of a refused body still to skip.
    private var discarding = 0

    /// - Parameters:
    ///   - read: returns the next bytes available (blocking until there are some), `nil` or empty
    ///     at the end of the input.
    ///   - maxBodyBytes: the largest body accepted.
    init(maxBodyBytes: Int, read: @escaping () throws -> Data?) {
        self.maxBodyBytes = maxBodyBytes
        self.read = read
    }

    /// A message framed for writing: its `Content-Length` header and its body.
    static func frame(_ body: String) -> Data {
        var data = Data("Content-Length: \(body.utf8.count)\r\n\r\n".utf8)
        data.append(contentsOf: body.utf8)
        return data
    }

    /// Reads the next message.
    mutating func next() -> Event {
        if discarding > 0 {
            guard skip(discarding) else { return .end }
            discarding = 0
        }
        var contentLength: Int?
        var problem: String?
        var sawHeader = false
        while true {
            guard let line = readLine() else { return .end }
            guard let text = line else {
                problem = problem ?? "header line longer than \(Self.maxHeaderLine) bytes"
                sawHeader = true
                continue
            }
            if text.isEmpty {
                // Blank lines before a header part are tolerated.
                guard sawHeader else { continue }
                if let problem { return .problem(problem) }
                guard let length = contentLength else { return .problem("message has no Content-Length header") }
                if length > maxBodyBytes {
                    discarding = length
                    return .tooLarge("message of \(length) bytes is over the limit of \(maxBodyBytes) bytes")
                }
                guard let body = readBytes(length) else { return .end }
                return .message(body)
            }
            sawHeader = true
            switch Self.header(text) {
            case .contentLength(let length): contentLength = length
            case .other: break
            case .invalid(let message): problem = problem ?? message
            }
        }
    }

    private enum Header {
        case contentLength(Int)
        case other
        case invalid(String)
    }

    /// One header line. A `Content-Length:` anywhere in the line counts (case-insensitively), so
    /// that after a body whose length was wrong the next message's header is still found.
    private static func header(_ line: [UInt8]) -> Header {
        let name = Array("content-length:".utf8)
        func lowercased(_ byte: UInt8) -> UInt8 {
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
        }
        var found: Int?
        var start = line.count - name.count
        while start >= 0, found == nil {
            if name.indices.allSatisfy({ lowercased(line[start + $0]) == name[$0] }) { found = start }
            start -= 1
        }
        guard let found else {
            return line.contains(UInt8(ascii: ":")) ? .other : .invalid("invalid header line `\(describe(line))`")
        }
        let value = line[(found + name.count)...].drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        let digits = Array(value)
        guard !digits.isEmpty, digits.count <= maxLengthDigits, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            if !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                return .invalid("Content-Length `\(describe(digits))` is too large")
            }
            return .invalid("invalid Content-Length `\(describe(digits))`")
        }
        var length = 0
        for digit in digits { length = length * 10 + Int(digit - UInt8(ascii: "0")) }
        return .contentLength(length)
    }

    /// A header's bytes for a message: printable ASCII, at most 40 of them.
    private static func describe<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let shown = bytes.prefix(40).map { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "`") ? Character(Unicode.Scalar($0)) : "?" }
        return String(shown) + (bytes.count > 40 ? "..." : "")
    }

    // MARK: Buffer

    /// Makes more bytes available; false at the end of the input.
    private mutating func fill() -> Bool {
        guard !closed else { return false }
        // Drop what has been read once it is most of the buffer, so memory stays bounded.
        if position > 65536, position * 2 > buffer.count {
            buffer.removeSubrange(0..<position)
            position = 0
        }
        let data: Data?
        do { data = try read() } catch { data = nil }
        guard let data, !data.isEmpty else {
            closed = true
            return false
        }
        buffer.append(contentsOf: data)
        return true
    }

    /// The next line without its `\n` (and `\r`); `.some(nil)` for a line over the limit (skipped
    /// to its end); `nil` at the end of the input.
    private mutating func readLine() -> [UInt8]?? {
        var scanned = position
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                guard newline - position <= Self.maxHeaderLine else {
                    position = newline + 1
                    return .some(nil)
                }
                var line = Array(buffer[position..<newline])
                position = newline + 1
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return .some(line)
            }
            if buffer.count - position > Self.maxHeaderLine {
                // Too long: skip to the end of the line, keeping nothing.
                position = buffer.count
                while true {
                    guard fill() else { return nil }
                    if let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                        position = newline + 1
                        return .some(nil)
                    }
                    position = buffer.count
                }
            }
            scanned = buffer.count
            let before = position
            guard fill() else { return nil }
            // `fill` may have moved the bytes down.
            scanned -= before - position
        }
    }

    private mutating func readBytes(_ count: Int) -> [UInt8]? {
        while buffer.count - position < count {
            guard fill() else { return nil }
        }
        let bytes = Array(buffer[position..<(position + count)])
        position += count
        return bytes
    }

    /// Skips `count` bytes as they arrive, or up to a line that starts a header (`Content-Length:`),
    /// whichever comes first: no JSON body holds one (a line break may not appear raw in a JSON
    /// string, and the words are not JSON outside one), so a peer that announced a body it never
    /// sent and went on with its next message is followed, not swallowed. False when the input
    /// ends first.
    private mutating func skip(_ count: Int) -> Bool {
        let marker = Array("Content-Length:".utf8)
        var remaining = count
        // The body starts right after the blank line that ends the header part.
        var atLineStart = true
        while true {
            var index = position
            let limit = min(buffer.count, position + remaining)
            scan: while index < limit {
                if atLineStart, buffer[index] == marker[0] {
                    // Wait for the whole marker before deciding.
                    if index + marker.count > buffer.count { break scan }
                    if buffer[index..<(index + marker.count)].elementsEqual(marker) {
                        position = index
                        return true
                    }
                }
                atLineStart = buffer[index] == UInt8(ascii: "\n")
                index += 1
            }
            remaining -= index - position
            position = index
            if remaining == 0 { return true }
            guard fill() else { return false }
        }
    }
}
