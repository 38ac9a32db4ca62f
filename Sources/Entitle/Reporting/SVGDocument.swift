/// An SVG document written element by element: every attribute value and text is escaped here,
/// so a picture drawn from catalogs and receipts (whose ids may be hostile) stays well-formed XML
/// that shows as it is in a browser or on GitHub.
///
/// It writes no scripts, event attributes, links, external fonts or style sheets: only shapes,
/// text, `<title>` tooltips and patterns referenced within the document.
struct SVGDocument {
    /// The width and height, in pixels.
    let width: Int
    var height: Int
    /// The markup of the `<defs>` and of the picture, in the order written.
    private var definitions = ""
    private var body = ""

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// An attribute's value: a number or a text.
    enum Value: ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
        case text(String)
        case number(Double)
        /// No attribute at all: one written only in some cases.
        case absent

        init(stringLiteral value: String) { self = .text(value) }
        init(floatLiteral value: Double) { self = .number(value) }
        init(integerLiteral value: Int) { self = .number(Double(value)) }

        var rendered: String {
            switch self {
            case .text(let text): SVGDocument.escaped(text)
            case .number(let number): SVGDocument.format(number)
            case .absent: ""
            }
        }
    }

    /// Writes `<name attributes>text</name>` (or `<name attributes/>` without text or tooltip),
    /// with a `<title>` tooltip when one is given.
    mutating func element(
        _ name: StaticString, _ attributes: KeyValuePairs<StaticString, Value>, text: String? = nil,
        tooltip: String? = nil
    ) {
        Self.write(name, attributes, text: text, tooltip: tooltip, into: &body)
    }

    /// Writes an element into `<defs>`, with children written by `content` (a pattern's shapes).
    mutating func definition(
        _ name: StaticString, _ attributes: KeyValuePairs<StaticString, Value>,
        content: (inout SVGDocument) -> Void
    ) {
        var inner = SVGDocument(width: width, height: height)
        content(&inner)
        definitions += "<\(name)" + Self.attributes(attributes) + ">" + inner.body + "</\(name)>\n"
    }

    /// Appends what another document drew (its picture, not its definitions): a part drawn before
    /// what must lie under it was known.
    mutating func append(_ other: SVGDocument) { body += other.body }

    /// The document: the XML declaration, `<svg>` with its size and fonts, a `<title>`, the
    /// definitions and the picture.
    func rendered(title: String, fontFamily: String, fontSize: Int) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\""
            + " font-family=\"\(Self.escaped(fontFamily))\" font-size=\"\(fontSize)\">\n"
            + "<title>\(Self.escaped(title))</title>\n"
            + (definitions.isEmpty ? "" : "<defs>\n" + definitions + "</defs>\n")
            + body + "</svg>\n"
    }

    private static func write(
        _ name: StaticString, _ attributes: KeyValuePairs<StaticString, Value>, text: String?, tooltip: String?,
        into body: inout String
    ) {
        body += "<\(name)" + Self.attributes(attributes)
        guard text != nil || tooltip != nil else {
            body += "/>\n"
            return
        }
        body += ">"
        if let tooltip { body += "<title>" + escaped(tooltip) + "</title>" }
        if let text { body += escaped(text) }
        body += "</\(name)>\n"
    }

    private static func attributes(_ attributes: KeyValuePairs<StaticString, Value>) -> String {
        attributes.map { item in
            if case .absent = item.value { return "" }
            return " \(item.key)=\"\(item.value.rendered)\""
        }.joined()
    }

    /// Text as XML character data or an attribute value: the five markup characters as
    /// entities, after ``visible(_:)``.
    static func escaped(_ text: String) -> String {
        visible(text).replacingScalars(["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"])
    }

    /// The text with characters XML 1.0 does not allow (most controls, U+FFFE, U+FFFF), line
    /// breaks, and characters that would reorder the text around them (bidirectional controls)
    /// written as visible escapes: `\n`, `\u{1B}`, `\u{202E}`. Itself when it has none.
    static func visible(_ text: String) -> String {
        text.escapingScalars(where: isHidden)
    }

    /// Controls (C0, DEL, C1), the two non-characters XML forbids, and the bidirectional
    /// controls (marks, embeddings, overrides, isolates).
    private static func isHidden(_ value: UInt32) -> Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0xFFFE || value == 0xFFFF
            || value == 0x061C || value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }

    /// A coordinate with at most one decimal: `12`, `12.5`; `0` for a value that is not finite.
    static func format(_ number: Double) -> String {
        guard number.isFinite else { return "0" }
        let tenths = (number * 10).rounded()
        guard abs(tenths) < 1e15 else { return "0" }
        let whole = Int64(tenths)
        let sign = whole < 0 ? "-" : ""
        let magnitude = whole.magnitude
        return magnitude % 10 == 0 ? sign + String(magnitude / 10) : sign + "\(magnitude / 10).\(magnitude % 10)"
    }

    /// At most `limit` Unicode scalars of `text`, its end kept (`…sync.monthly`): ids differ
    /// most at their ends. Counted in scalars so that a name of one huge grapheme is cut too.
    /// Hidden characters are made visible first (``visible(_:)``), so the escapes count too.
    static func shortened(_ text: String, to limit: Int) -> String {
        let scalars = visible(text).unicodeScalars
        guard scalars.count > limit else { return String(scalars) }
        var result = String.UnicodeScalarView()
        result.append("…")
        result.append(contentsOf: scalars.suffix(max(limit - 1, 0)))
        return String(result)
    }

    /// At most `limit` Unicode scalars of `text`, its start kept (`counts: covers […`): for
    /// sentences.
    static func truncated(_ text: String, to limit: Int) -> String {
        let scalars = visible(text).unicodeScalars
        guard scalars.count > limit else { return String(scalars) }
        var result = String.UnicodeScalarView(scalars.prefix(max(limit - 1, 0)))
        result.append("…")
        return String(result)
    }
}
