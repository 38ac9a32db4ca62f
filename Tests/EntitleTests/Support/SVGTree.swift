import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An SVG document read back with Foundation's XML parser, which refuses anything that is not
/// well-formed XML: its elements in document order, each with its attributes, its own text and
/// the text of its `<title>` child (the tooltip).
struct SVGTree {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        var title: String?
        var depth: Int

        func number(_ attribute: String) -> Double? { attributes[attribute].flatMap(Double.init) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var elements: [Element] = []

    init(_ svg: String) throws {
        let reader = Reader()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = reader
        guard parser.parse() else {
            throw Failure(description: "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "unknown error") at line \(parser.lineNumber)")
        }
        elements = reader.elements
    }

    /// The elements named `name`.
    func all(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    /// The texts of the `<text>` elements, in order.
    var texts: [String] { all("text").map(\.text) }

    private final class Reader: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        /// Indices into `elements` of the open elements.
        var open: [Int] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            open.append(elements.count)
            elements.append(Element(name: elementName, attributes: attributes, depth: open.count - 1))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let last = open.last { elements[last].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            let closed = open.removeLast()
            if elementName == "title", let parent = open.last { elements[parent].title = elements[closed].text }
        }
    }
}
