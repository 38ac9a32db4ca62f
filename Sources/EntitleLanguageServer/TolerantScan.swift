import Entitle
import Foundation

/// The keys and scalar values of a JSON text, each with its JSON path and byte range, read by a
/// scan that never fails: an editor's text is often not JSON while it is being typed.
///
/// The scan follows braces, brackets, commas and colons as far as they make sense and guesses
/// where they do not: a string left open ends at the end of its line (JSON strings cannot span
/// lines), a stray closing bracket is skipped, a string after a value in an object is taken as the
/// next key (a comma forgotten), `//` and `/* */` comments are skipped. On valid JSON it finds
/// exactly the document's keys and values. It also says what the cursor is in: a key or a value,
/// at which path, with what typed so far. One pass, linear in the text; nesting past
/// ``maxDepth`` is skipped rather than followed, so paths stay short.
struct TolerantScan {
    /// One step of a JSON path.
    enum PathComponent: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// A member name or a scalar value (string, number, literal or a bare word).
    struct Token {
        enum Role: Equatable { case key, value }
        var role: Role
        /// The path of the value: for a key, its object's path and the key.
        var path: [PathComponent]
        /// Byte range, quotes included.
        var start: Int
        var end: Int
        /// The decoded text of a string token, the raw text of any other.
        var text: String
        var isString: Bool
        /// Whether a string token has its closing quote.
        var isTerminated: Bool

        /// The id a reference names: the text of a string token.
        var string: String? { isString ? text : nil }
    }

    /// What the cursor is in, and what typing there would replace.
    struct Cursor {
        /// `nowhere`: between a key and its colon, or a value and the next comma.
        enum Slot: Equatable { case key, value, nowhere }
        var slot: Slot
        /// The path of the object or array the slot is in.
        var container: [PathComponent]
        /// The path of the value at the slot (for a key slot, the container's path; the key is
        /// what is being typed).
        var path: [PathComponent]
        /// What was typed of the token before the cursor, quotes left out.
        var prefix: String
        /// Whether the cursor is inside a string's quotes.
        var inString: Bool
        /// Whether that string has its closing quote.
        var stringTerminated: Bool
        /// The byte range completing should replace: the string's content, a bare word, or an
        /// empty range at the cursor.
        var replaceStart: Int
        var replaceEnd: Int
    }

    static let maxDepth = 64

    private(set) var tokens: [Token] = []
    private(set) var cursor: Cursor?

    private enum ObjectState { case expectKey, expectColon, expectValue, afterValue }

    private struct Frame {
        var isObject: Bool
        var path: [PathComponent]
        var key: String?
        var state: ObjectState
        var index: Int
    }

    private let bytes: [UInt8]
    private let cursorOffset: Int?
    private var frames: [Frame] = []
    private var rootDone = false
    /// Whether a line ended since the last token: a string on a new line after a key that has
    /// no colon yet is the next key (the one before is being typed).
    private var newLineSinceToken = false

    private init(bytes: [UInt8], cursorOffset: Int?) {
        self.bytes = bytes
        self.cursorOffset = cursorOffset
    }

    /// Scans a text; with a cursor offset, also finds the cursor's context.
    static func scan(_ bytes: [UInt8], cursor: Int? = nil) -> TolerantScan {
        var scan = TolerantScan(bytes: bytes, cursorOffset: cursor)
        scan.run()
        return scan
    }

    /// The token whose range holds an offset (a cursor just after a token is still on it).
    func token(at offset: Int) -> Token? {
        // Tokens are in text order and never overlap.
        var low = 0
        var high = tokens.count
        while low < high {
            let middle = low + (high - low) / 2
            if tokens[middle].start <= offset { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let token = tokens[low - 1]
        return offset <= token.end ? token : nil
    }

    /// The token that starts at an offset.
    func token(startingAt offset: Int) -> Token? {
        guard let token = token(at: offset), token.start == offset else { return nil }
        return token
    }

    // MARK: Scanning

    private mutating func run() {
        var index = 0
        var skippedDepth = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x20, 0x0D, 0x09:
                index += 1
                continue
            case 0x0A:
                newLineSinceToken = true
                index += 1
                continue
            default:
                break
            }
            if byte == UInt8(ascii: "/"), index + 1 < bytes.count,
                bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*")
            {
                index = skipComment(from: index)
                continue
            }
            if skippedDepth > 0 {
                // Inside nesting too deep to follow: only keep count of brackets outside strings.
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["): skippedDepth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): skippedDepth -= 1
                case UInt8(ascii: "\""):
                    index = stringEnd(from: index).end
                    continue
                default: break
                }
                if skippedDepth == 0 { valueDone() }
                index += 1
                continue
            }
            captureBetweenTokens(at: index)
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if frames.count >= Self.maxDepth {
                    skippedDepth = 1
                } else {
                    let path = valuePath()
                    frames.append(
                        Frame(
                            isObject: byte == UInt8(ascii: "{"), path: path, key: nil,
                            state: .expectKey, index: 0))
                }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                close(object: byte == UInt8(ascii: "}"))
                index += 1
            case UInt8(ascii: ","):
                if var top = frames.popLast() {
                    if top.isObject {
                        top.state = .expectKey
                        top.key = nil
                    } else {
                        top.index += 1
                    }
                    frames.append(top)
                }
                index += 1
            case UInt8(ascii: ":"):
                if var top = frames.popLast() {
                    if top.isObject { top.state = .expectValue }
                    frames.append(top)
                }
                index += 1
            case UInt8(ascii: "\""):
                index = readString(from: index)
            default:
                index = readBareWord(from: index)
            }
        }
        captureBetweenTokens(at: bytes.count)
    }

    /// Whether the next string or word would be a member name.
    private var expectsKey: Bool {
        guard let top = frames.last, top.isObject else { return false }
        return top.state == .expectKey || top.state == .afterValue
    }

    /// The path of a value read now.
    private func valuePath() -> [PathComponent] {
        guard let top = frames.last else { return [] }
        return top.isObject ? top.path + [.key(top.key ?? "")] : top.path + [.index(top.index)]
    }

    /// After a value: an object waits for a comma (or, forgiving, the next key).
    private mutating func valueDone() {
        guard var top = frames.popLast() else {
            rootDone = true
            return
        }
        if top.isObject { top.state = .afterValue }
        frames.append(top)
    }

    private mutating func close(object: Bool) {
        // A closing bracket closes the nearest container of its kind; a stray one is skipped.
        guard let match = frames.lastIndex(where: { $0.isObject == object }) else { return }
        frames.removeSubrange(match...)
        valueDone()
    }

    private func skipComment(from index: Int) -> Int {
        var index = index + 2
        if bytes[index - 1] == UInt8(ascii: "/") {
            while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            return index
        }
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "*"), bytes[index + 1] == UInt8(ascii: "/") { return index + 2 }
            index += 1
        }
        return bytes.count
    }

    /// Where a string that opens at `start` ends: after its closing quote, or at the end of its
    /// line when it has none.
    private func stringEnd(from start: Int) -> (contentEnd: Int, end: Int, terminated: Bool, escapes: Bool) {
        var index = start + 1
        var escapes = false
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return (index, index + 1, true, escapes)
            case UInt8(ascii: "\\"):
                escapes = true
                if index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "\n"), bytes[index + 1] != UInt8(ascii: "\r") {
                    index += 2
                } else {
                    index += 1
                }
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                return (index, index, false, escapes)
            default:
                index += 1
            }
        }
        return (bytes.count, bytes.count, false, escapes)
    }

    private mutating func readString(from start: Int) -> Int {
        let (contentEnd, end, terminated, escapes) = stringEnd(from: start)
        let text = decode(start: start, contentEnd: contentEnd, end: end, terminated: terminated, escapes: escapes)
        let isKey = expectsKey || (newLineSinceToken && frames.last?.isObject == true && frames.last?.state == .expectColon)
        if let cursorOffset, cursor == nil, cursorOffset > start, cursorOffset <= contentEnd {
            cursor = Cursor(
                slot: isKey ? .key : .value, container: frames.last?.path ?? [], path: isKey ? (frames.last?.path ?? []) : valuePath(),
                prefix: String(decoding: bytes[(start + 1)..<cursorOffset], as: UTF8.self),
                inString: true, stringTerminated: terminated, replaceStart: start + 1, replaceEnd: contentEnd)
        }
        record(text: text, start: start, end: end, isString: true, terminated: terminated, isKey: isKey)
        return end
    }

    private mutating func readBareWord(from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
                UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "\""):
                break
            default:
                index += 1
                continue
            }
            break
        }
        let isKey = expectsKey
        if let cursorOffset, cursor == nil, cursorOffset > start, cursorOffset <= index {
            cursor = Cursor(
                slot: isKey ? .key : .value, container: frames.last?.path ?? [], path: isKey ? (frames.last?.path ?? []) : valuePath(),
                prefix: String(decoding: bytes[start..<cursorOffset], as: UTF8.self),
                inString: false, stringTerminated: false, replaceStart: start, replaceEnd: index)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        record(text: text, start: start, end: index, isString: false, terminated: true, isKey: isKey)
        return index
    }

    private mutating func record(text: String, start: Int, end: Int, isString: Bool, terminated: Bool, isKey: Bool) {
        newLineSinceToken = false
        if isKey, var top = frames.popLast() {
            top.key = text
            top.state = .expectColon
            tokens.append(
                Token(
                    role: .key, path: top.path + [.key(text)], start: start, end: end, text: text,
                    isString: isString, isTerminated: terminated))
            frames.append(top)
            return
        }
        if frames.isEmpty && rootDone { return }  // text after the root value
        tokens.append(
            Token(
                role: .value, path: valuePath(), start: start, end: end, text: text,
                isString: isString, isTerminated: terminated))
        valueDone()
    }

    /// Decodes a string token's content: with the project's JSON reader when it has escapes and
    /// is whole, else as it stands.
    private func decode(start: Int, contentEnd: Int, end: Int, terminated: Bool, escapes: Bool) -> String {
        if escapes, terminated,
            let document = try? JSONDocument.parse(Data(bytes[start..<end]), limits: JSONDocument.Limits(maxBytes: end - start, maxDepth: 1)),
            case .string(let text) = document.root.value
        {
            return text
        }
        return String(decoding: bytes[(start + 1)..<contentEnd], as: UTF8.self)
    }

    /// Records the context of a cursor that is before the byte at `index` and not inside a token.
    private mutating func captureBetweenTokens(at index: Int) {
        guard let cursorOffset, cursor == nil, cursorOffset <= index else { return }
        let slot: Cursor.Slot
        if let top = frames.last {
            if top.isObject {
                switch top.state {
                case .expectKey: slot = .key
                case .expectValue: slot = .value
                // Right after a key (before its colon) or a value (before a comma).
                case .expectColon, .afterValue: slot = .nowhere
                }
            } else {
                slot = .value
            }
        } else {
            slot = rootDone ? .nowhere : .value
        }
        cursor = Cursor(
            slot: slot, container: frames.last?.path ?? [], path: slot == .value ? valuePath() : (frames.last?.path ?? []),
            prefix: "", inString: false, stringTerminated: false, replaceStart: cursorOffset, replaceEnd: cursorOffset)
    }
}
