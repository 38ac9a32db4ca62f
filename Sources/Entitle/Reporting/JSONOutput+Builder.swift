extension JSONOutput {
    /// A ``JSONWriter`` that builds a ``JSONOutput`` tree: what is rendered indented for people,
    /// encoded through `Codable`, or compared in tests.
    package struct Builder: JSONWriter {
        /// The open objects and arrays, innermost last.
        private var open: [Container] = []
        /// The value written, once every container is closed.
        package private(set) var value: JSONOutput = .null

        /// An open object or array: a reference, so adding to it never copies what it holds.
        private final class Container {
            let isObject: Bool
            var members: [(String, JSONOutput)] = []
            var elements: [JSONOutput] = []
            var key = ""

            init(isObject: Bool) { self.isObject = isObject }
        }

        /// An empty builder.
        package init() {}

        /// Adds a finished value to the container open last, or makes it the whole value.
        private mutating func add(_ element: JSONOutput) {
            guard let container = open.last else {
                value = element
                return
            }
            if container.isObject {
                container.members.append((container.key, element))
            } else {
                container.elements.append(element)
            }
        }

        package mutating func beginObject() { open.append(Container(isObject: true)) }

        package mutating func endObject() {
            guard let container = open.popLast() else { return }
            add(.object(container.members))
        }

        package mutating func beginArray() { open.append(Container(isObject: false)) }

        package mutating func endArray() {
            guard let container = open.popLast() else { return }
            add(.array(container.elements))
        }

        package mutating func key(_ name: String) { open.last?.key = name }
        package mutating func string(_ value: String) { add(.string(value)) }
        package mutating func integer(_ value: Int64) { add(.integer(value)) }
        package mutating func bool(_ value: Bool) { add(.bool(value)) }
        package mutating func null() { add(.null) }
    }
}
