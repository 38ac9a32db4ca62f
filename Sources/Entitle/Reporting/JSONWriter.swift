/// Where JSON goes as it is written, value by value: into a ``JSONOutput`` tree
/// (``JSONOutput/Builder``, which renders indented or feeds `Codable`) or straight into the bytes
/// of one line (``JSONLineWriter``, for a batch's JSON Lines).
///
/// A result's JSON is described once, as calls on a writer (`Entitlements.write(to:parts:compact:)`),
/// so the two forms cannot drift apart; a batch line then costs no tree.
package protocol JSONWriter {
    /// Opens an object; its members follow as ``key(_:)`` and a value each.
    mutating func beginObject()
    /// Closes the object opened last.
    mutating func endObject()
    /// Opens an array; its elements follow.
    mutating func beginArray()
    /// Closes the array opened last.
    mutating func endArray()
    /// The name of the next member of the open object.
    mutating func key(_ name: String)
    /// A string value.
    mutating func string(_ value: String)
    /// A whole number.
    mutating func integer(_ value: Int64)
    /// `true` or `false`.
    mutating func bool(_ value: Bool)
    /// `null`.
    mutating func null()
    /// An instant as an RFC 3339 string, or `null` when there is none.
    mutating func instant(_ value: Instant?)
}

extension JSONWriter {
    package mutating func instant(_ value: Instant?) {
        string(value?.rfc3339)
    }

    /// A string, or `null` when there is none.
    package mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// A member `name` of a string value.
    @inline(__always)
    package mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    /// A member `name` of a value named by its raw value.
    @inline(__always)
    package mutating func member<Value: RawRepresentable<String>>(_ name: String, _ value: Value) {
        member(name, value.rawValue)
    }

    /// A member `name` of `true` or `false`.
    @inline(__always)
    package mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// A member `name` of a whole number.
    @inline(__always)
    package mutating func member(_ name: String, _ value: Int64) {
        key(name)
        integer(value)
    }

    /// A member `name` of an array of strings.
    @inline(__always)
    package mutating func member(_ name: String, _ values: [String]) {
        key(name)
        strings(values)
    }

    /// A member `name` of an instant, `null` when there is none.
    @inline(__always)
    package mutating func member(_ name: String, _ value: Instant?) {
        key(name)
        instant(value)
    }

    /// A member `name` written only when `value` is there: a result leaves an absent field out
    /// rather than writing `null`.
    @inline(__always)
    package mutating func member(_ name: String, ifPresent value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// A member `name` written only when `value` is there.
    @inline(__always)
    package mutating func member(_ name: String, ifPresent value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    /// A member `name` written only when `value` is there, as an RFC 3339 string.
    @inline(__always)
    package mutating func member(_ name: String, ifPresent value: Instant?) {
        guard let value else { return }
        key(name)
        instant(value)
    }

    /// A member `name` written only when `value` is there, as its raw value.
    @inline(__always)
    package mutating func member<Value: RawRepresentable<String>>(_ name: String, ifPresent value: Value?) {
        member(name, ifPresent: value?.rawValue)
    }

    /// A member `name` whose value is an object of one member per element, each named by `id`
    /// and written by `value`.
    package mutating func object<Element>(
        _ name: String, of elements: [Element], id: (Element) -> String, value: (inout Self, Element) -> Void
    ) {
        key(name)
        beginObject()
        for element in elements {
            key(id(element))
            value(&self, element)
        }
        endObject()
    }

    /// A member `name` whose value is an array of one value per element, each written by `value`.
    @inline(__always)
    package mutating func array<Element>(_ name: String, of elements: [Element], value: (inout Self, Element) -> Void) {
        key(name)
        beginArray()
        for element in elements { value(&self, element) }
        endArray()
    }

    /// An array of strings.
    package mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }
}
