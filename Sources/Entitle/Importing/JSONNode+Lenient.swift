/// Reading Apple's JSON, which writes numbers and booleans as strings ("1594755400000", "true")
/// where other tools write them as JSON numbers and booleans: both are accepted.
extension JSONNode {
    subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    var isObject: Bool { if case .object = value { true } else { false } }

    var isNull: Bool { if case .null = value { true } else { false } }

    var elements: [JSONNode]? {
        if case .array(let elements) = value { return elements }
        return nil
    }

    /// A string, or a number's text.
    var lenientString: String? {
        switch value {
        case .string(let text): text
        case .number(let number): number.text
        default: nil
        }
    }

    /// `true`/`false`, `"true"`/`"false"`, `1`/`0` or `"1"`/`"0"`.
    var lenientBool: Bool? {
        switch value {
        case .bool(let flag): return flag
        case .number(let number): return number.integer.map { $0 != 0 }
        case .string(let text):
            switch text.lowercased() {
            case "true", "1": return true
            case "false", "0": return false
            default: return nil
            }
        default: return nil
        }
    }

    /// An integer, as a number or a string of digits.
    var lenientInteger: Int64? {
        switch value {
        case .number(let number): number.integer
        case .string(let text): Int64(text)
        default: nil
        }
    }

    /// Milliseconds since 1970, as a number (possibly fractional, as Xcode writes them) or a string
    /// of digits; fractions of a millisecond are dropped.
    var milliseconds: Int64? {
        switch value {
        case .number(let number):
            if let integer = number.integer { return integer }
            let double = number.double
            guard double.isFinite, abs(double) < 1e17 else { return nil }
            return Int64(double.rounded(.down))
        case .string(let text):
            // Decimal digits only, with an optional fraction: not `0x1p40`, `1e12`, `+5` or `inf`,
            // which Swift's number parsers would take.
            let bytes = Array(text.utf8)
            let digits = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...]
            let parts = digits.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count),
                parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } })
            else { return nil }
            if parts.count == 1 { return Int64(text) }
            guard let double = Double(text), double.isFinite, abs(double) < 1e17 else { return nil }
            return Int64(double.rounded(.down))
        default:
            return nil
        }
    }

    /// An instant from milliseconds since 1970 (see ``milliseconds``), which must lie within years
    /// 0001-9999 like every instant entitle reads.
    func instant(key: String, path: String) throws(ImportFailure) -> Instant {
        guard let ms = milliseconds else {
            throw ImportFailure(offset: offset, message: "`\(key)` is not milliseconds", path: path)
        }
        guard let instant = Instant(checkedMilliseconds: ms) else {
            throw ImportFailure(
                offset: offset, message: "`\(key)` \(ms) ms is outside years 0001-9999", path: path,
                help: "instants are read from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z")
        }
        return instant
    }
}
