/// A JSON value to print, with members kept in the order they were added.
///
/// Output is built as a small tree and rendered once: results are printed for people and scripts,
/// never on the evaluation path.
package indirect enum JSONOutput: Equatable {
    case object([(String, JSONOutput)])
    case array([JSONOutput])
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case null

    package static func == (lhs: JSONOutput, rhs: JSONOutput) -> Bool { lhs.rendered() == rhs.rendered() }

    /// Renders with two-space indentation; empty containers and scalar arrays stay on one line.
    package func rendered(indent: Int = 0) -> String {
        var text = ""
        render(into: &text, indent: indent)
        return text
    }

    private func render(into text: inout String, indent: Int) {
        switch self {
        case .object(let members):
            guard !members.isEmpty else { text += "{}"; return }
            text += "{\n"
            for (index, (key, value)) in members.enumerated() {
                text += String(repeating: " ", count: indent + 2)
                JSONOutput.appendString(key, to: &text)
                text += ": "
                value.render(into: &text, indent: indent + 2)
                text += index == members.count - 1 ? "\n" : ",\n"
            }
            text += String(repeating: " ", count: indent) + "}"
        case .array(let elements):
            guard !elements.isEmpty else { text += "[]"; return }
            if elements.allSatisfy(\.isScalar) {
                text += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { text += ", " }
                    element.render(into: &text, indent: indent)
                }
                text += "]"
                return
            }
            text += "[\n"
            for (index, element) in elements.enumerated() {
                text += String(repeating: " ", count: indent + 2)
                element.render(into: &text, indent: indent + 2)
                text += index == elements.count - 1 ? "\n" : ",\n"
            }
            text += String(repeating: " ", count: indent) + "]"
        case .string(let value):
            JSONOutput.appendString(value, to: &text)
        case .integer(let value):
            text += String(value)
        case .bool(let value):
            text += value ? "true" : "false"
        case .null:
            text += "null"
        }
    }

    private var isScalar: Bool {
        switch self {
        case .object, .array: false
        default: true
        }
    }

    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
