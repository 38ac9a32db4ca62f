/// Counts as reports print them.
package enum CountText {
    /// A count with thousands separators: `18,240`.
    package static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result += "," }
            result.append(character)
        }
        return result
    }
}
