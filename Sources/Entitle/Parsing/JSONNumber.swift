/// A JSON number as written, with its exact integer value when it has one.
struct JSONNumber: Sendable, Hashable {
    /// The value when the text is an integer literal (no fraction, no exponent) that fits `Int64`.
    var integer: Int64?
    /// The number exactly as written in the text.
    var text: String

    /// The value as a double (exact for integers up to 2^53).
    var double: Double { Double(text) ?? .nan }
}
