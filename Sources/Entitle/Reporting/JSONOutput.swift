/// A JSON value to print, with members kept in the order they were added.
///
/// Output is built as a small tree and rendered once: results are printed for people and scripts,
/// never on the evaluation path.
package enum JSONOutput: Equatable, Sendable {
    case object([(String, JSONOutput)])
    case array([JSONOutput])
    case string(String)
    case integer(Int64)
    /// A number written as this JSON text (a decimal such as `33.333`).
    case number(String)
    case bool(Bool)
    case null

    package static func == (lhs: JSONOutput, rhs: JSONOutput) -> Bool { lhs.rendered() == rhs.rendered() }

    /// Renders with two-space indentation; empty containers and scalar arrays stay on one line.
    package func rendered(indent: Int = 0) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        render(into: &bytes, indent: indent)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Renders on one line, `{"a": 1, "b": [true, null]}`: for a value quoted in a message.
    package func renderedOnOneLine() -> String {
        var bytes: [UInt8] = []
        renderOnOneLine(into: &bytes, separator: [UInt8(ascii: " ")])
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Renders on one line without spaces, `{"a":1}`: for JSON Lines.
    package func compact() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        appendCompact(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``compact()``, appended to `bytes`: a batch writes many lines into one buffer.
    package func appendCompact(to bytes: inout [UInt8]) {
        renderOnOneLine(into: &bytes, separator: [])
    }

    private func renderOnOneLine(into bytes: inout [UInt8], separator: [UInt8]) {
        switch self {
        case .object(let members):
            JSONOutput.renderOnOneLine(members.count, between: "{", "}", separator: separator, into: &bytes) { index, bytes in
                JSONOutput.appendString(members[index].0, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                bytes.append(contentsOf: separator)
                members[index].1.renderOnOneLine(into: &bytes, separator: separator)
            }
        case .array(let elements):
            JSONOutput.renderOnOneLine(elements.count, between: "[", "]", separator: separator, into: &bytes) { index, bytes in
                elements[index].renderOnOneLine(into: &bytes, separator: separator)
            }
        default:
            render(into: &bytes, indent: 0)
        }
    }

    /// An object's members or an array's elements, `count` of them, between `open` and `close` on
    /// one line, `separator` after each comma (`item` writes one).
    @inline(__always)
    private static func renderOnOneLine(
        _ count: Int, between open: Unicode.Scalar, _ close: Unicode.Scalar, separator: [UInt8], into bytes: inout [UInt8],
        item: (Int, inout [UInt8]) -> Void
    ) {
        bytes.append(UInt8(ascii: open))
        for index in 0..<count {
            if index > 0 {
                bytes.append(UInt8(ascii: ","))
                bytes.append(contentsOf: separator)
            }
            item(index, &bytes)
        }
        bytes.append(UInt8(ascii: close))
    }

    private static func indentation(_ count: Int, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count))
    }

    /// An object's members or an array's elements, `count` of them, between `open` and `close`:
    /// each on its own line, indented two more than `indent` (`item` writes it); `{}` or `[]`
    /// when there are none.
    private static func renderLines(
        _ count: Int, between open: Unicode.Scalar, _ close: Unicode.Scalar, indent: Int, into bytes: inout [UInt8],
        item: (Int, inout [UInt8]) -> Void
    ) {
        guard count > 0 else {
            bytes += [UInt8(ascii: open), UInt8(ascii: close)]
            return
        }
        bytes += [UInt8(ascii: open), UInt8(ascii: "\n")]
        for index in 0..<count {
            indentation(indent + 2, into: &bytes)
            item(index, &bytes)
            if index < count - 1 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\n"))
        }
        indentation(indent, into: &bytes)
        bytes.append(UInt8(ascii: close))
    }

    private func render(into bytes: inout [UInt8], indent: Int) {
        switch self {
        case .object(let members):
            JSONOutput.renderLines(members.count, between: "{", "}", indent: indent, into: &bytes) { index, bytes in
                let (key, value) = members[index]
                JSONOutput.appendString(key, to: &bytes)
                bytes += [UInt8(ascii: ":"), UInt8(ascii: " ")]
                value.render(into: &bytes, indent: indent + 2)
            }
        case .array(let elements):
            if !elements.isEmpty, elements.allSatisfy(\.isScalar) {
                bytes.append(UInt8(ascii: "["))
                for (index, element) in elements.enumerated() {
                    if index > 0 { bytes += [UInt8(ascii: ","), UInt8(ascii: " ")] }
                    element.render(into: &bytes, indent: indent)
                }
                bytes.append(UInt8(ascii: "]"))
                return
            }
            JSONOutput.renderLines(elements.count, between: "[", "]", indent: indent, into: &bytes) { index, bytes in
                elements[index].render(into: &bytes, indent: indent + 2)
            }
        case .string(let value):
            JSONOutput.appendString(value, to: &bytes)
        case .integer(let value):
            JSONOutput.appendInteger(value, to: &bytes)
        case .number(let text):
            bytes.append(contentsOf: text.utf8)
        case .bool(let value):
            bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .null:
            bytes.append(contentsOf: "null".utf8)
        }
    }

    private var isScalar: Bool {
        switch self {
        case .object, .array: false
        default: true
        }
    }

    /// Appends an integer's decimal digits, without building a string.
    static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude as unsigned, so `Int64.min` needs no negation that would trap.
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends a JSON string literal, escaping quotes, backslashes and control characters, and
    /// copying runs of other bytes at once.
    static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                defer { index += 1 }
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// Any JSON value through `Codable`, for types whose JSON is defined by entitle's own reader and
/// writer (``Receipt``): members keep their order when encoded; a decoded object's order is the
/// decoder's. Numbers are integers, but for a receipt's refund percentages.
extension JSONOutput: Codable {
    /// A member name taken from the data, as a coding key.
    package struct MemberKey: CodingKey {
        package var stringValue: String
        package var intValue: Int? { nil }
        package init(_ string: String) { stringValue = string }
        package init?(stringValue: String) { self.stringValue = stringValue }
        package init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: MemberKey.self) {
            self = .object(try object.allKeys.map { ($0.stringValue, try object.decode(JSONOutput.self, forKey: $0)) })
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONOutput] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONOutput.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let bool = try? single.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? single.decode(Double.self), number.isFinite {
            self = .number(String(number))
        } else if let string = try? single.decode(String.self) {
            self = .string(string)
        } else {
            throw DecodingError.dataCorruptedError(in: single, debugDescription: "expected a JSON value whose numbers are integers")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for (name, value) in members { try container.encode(value, forKey: MemberKey(name)) }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .integer(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .number(let text):
            var container = encoder.singleValueContainer()
            try container.encode(Double(text) ?? 0)
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }
}
