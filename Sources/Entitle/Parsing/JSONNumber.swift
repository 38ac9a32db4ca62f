/// A JSON number as written, with its exact integer value when it has one.
package struct JSONNumber: Sendable, Hashable {
    /// The value when the text is an integer literal (no fraction, no exponent) that fits `Int64`.
    package var integer: Int64?
    /// The number exactly as written in the text.
    package var text: String

    /// The value as a double (exact for integers up to 2^53).
    var double: Double { Double(text) ?? .nan }
}
