import Entitle

/// Reading the parameters of LSP messages: a missing member and a value of another type both read
/// as `nil`, for the handler to answer `InvalidParams` or to use a default.
extension JSONNode {
    /// The value of a member of an object.
    func member(_ key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The value at a path of member names.
    func member(_ keys: String...) -> JSONNode? {
        var node: JSONNode? = self
        for key in keys { node = node?.member(key) }
        return node
    }

    var stringValue: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    var integerValue: Int64? {
        if case .number(let number) = value { return number.integer }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let flag) = value { return flag }
        return nil
    }

    var arrayValue: [JSONNode]? {
        if case .array(let elements) = value { return elements }
        return nil
    }

    /// An LSP `Position` (`{"line", "character"}`), both 0 or more.
    var positionValue: TextPosition? {
        guard let line = member("line")?.integerValue, let character = member("character")?.integerValue,
            line >= 0, character >= 0, line <= Int64(Int32.max), character <= Int64(Int32.max)
        else { return nil }
        return TextPosition(line: Int(line), character: Int(character))
    }
}
