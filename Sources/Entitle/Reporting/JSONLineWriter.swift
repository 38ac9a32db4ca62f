/// A ``JSONWriter`` that writes straight into bytes, on one line without spaces (`{"a":1}`), as
/// ``JSONOutput/compact()`` renders the same values: for JSON Lines, where building a tree per
/// line would cost more than writing it.
package struct JSONLineWriter: JSONWriter {
    /// What was written.
    package var bytes: [UInt8]
    /// Whether a value or member was written at this level since the last `{`, `[` or key, so
    /// the next one needs a comma first.
    private var needsComma = false

    /// A writer appending to `bytes`.
    package init(bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    /// Ends a line: the next value starts a new one.
    package mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    /// Opens an object or array: its first member or element needs no comma.
    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    /// Closes an object or array: a value follows it with a comma.
    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    package mutating func beginObject() { open(UInt8(ascii: "{")) }
    package mutating func endObject() { close(UInt8(ascii: "}")) }
    package mutating func beginArray() { open(UInt8(ascii: "[")) }
    package mutating func endArray() { close(UInt8(ascii: "]")) }

    package mutating func key(_ name: String) {
        separate()
        JSONOutput.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    package mutating func string(_ value: String) {
        separate()
        JSONOutput.appendString(value, to: &bytes)
        needsComma = true
    }

    package mutating func integer(_ value: Int64) {
        separate()
        JSONOutput.appendInteger(value, to: &bytes)
        needsComma = true
    }

    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    package mutating func instant(_ value: Instant?) {
        guard let value else { return null() }
        separate()
        bytes.append(UInt8(ascii: "\""))
        Instant.appendRFC3339(value.millisecondsSince1970, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// A value already built as a tree, rendered as ``JSONOutput/compact()`` does.
    package mutating func value(_ value: JSONOutput) {
        separate()
        value.appendCompact(to: &bytes)
        needsComma = true
    }
}
