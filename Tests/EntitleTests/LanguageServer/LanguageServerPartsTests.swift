import Foundation
import Testing

@testable import Entitle
@testable import EntitleLanguageServer

/// The parts of `entitle lsp`, in process: positions in UTF-16, the tolerant scan, the framing,
/// URIs, and the language features on catalogs that are mid-edit.
@Suite("Language server parts")
struct LanguageServerPartsTests {
    // MARK: Positions

    @Test("byte offsets, scalar columns and UTF-16 positions agree on accents, emoji, CRLF and lone CR lines")
    func positions() {
        let text = "{ \"é\": \"🎨x\",\r\n  \"a\": \"\u{10437}\" }\n\nz\ry"
        let bytes = Array(text.utf8)
        let positions = TextPositions(bytes)
        let lines = LineTable(bytes)
        // `x` is after a 4-byte emoji: 1 scalar but 2 UTF-16 units.
        let x = bytes.firstIndex(of: UInt8(ascii: "x"))!
        #expect(lines.location(of: x) == (1, 10))
        #expect(positions.position(of: x) == TextPosition(line: 0, character: 10))
        #expect(positions.offset(line: 1, column: 10) == x)
        #expect(positions.offset(of: TextPosition(line: 0, character: 10)) == x)
        // The end of the first line is before `\r\n`.
        #expect(positions.lineEnd(0) == bytes.firstIndex(of: 0x0D)!)
        // Past the end of a line: the line's end; past the last line: the text's end.
        #expect(positions.offset(of: TextPosition(line: 2, character: 40)) == positions.lineStart(2))
        #expect(positions.offset(of: TextPosition(line: 99, character: 0)) == bytes.count)
        // Inside a surrogate pair: the end of its scalar.
        let emoji = bytes.firstIndex(of: 0xF0)!
        #expect(positions.offset(of: TextPosition(line: 0, character: 9)) == emoji + 4)
        // A lone `\r` ends a line, as LSP and editors count lines.
        let y = bytes.firstIndex(of: UInt8(ascii: "y"))!
        #expect(lines.location(of: y) == (5, 1))
        #expect(positions.position(of: y) == TextPosition(line: 4, character: 0))
        #expect(positions.lineCount == 5)
        #expect(positions.lineEnd(3) == y - 1)
        // Every scalar boundary (but the middle of a `\r\n`) converts there and back, both ways.
        for offset in 0...bytes.count
        where offset == bytes.count || (bytes[offset] & 0xC0 != 0x80 && !(offset > 0 && bytes[offset - 1] == 0x0D && bytes[offset] == 0x0A)) {
            let location = lines.location(of: offset)
            #expect(positions.offset(line: location.line, column: location.column) == offset)
            #expect(positions.offset(of: positions.position(of: offset)) == offset)
        }
    }

    @Test("a catalog written with lone CR line breaks is located as an editor shows it")
    func carriageReturnCatalog() {
        let catalog =
            "{\r\"app\": \"com.x.y\",\r\"features\": {\"pro\": \"x\"},\r\"products\": [{\"name\": \"n\", \"id\": \"p\", \"type\": \"non-consumable\",\r\"grants\": [\"prp\"]}]}"
        let diagnostic = Portfolio.compile([CatalogSource(name: "cr.json", data: Data(catalog.utf8))]).diagnostics.first
        #expect(diagnostic?.location == SourceLocation(file: "cr.json", line: 5, column: 12))
    }

    @Test("a product with 40,000 grants and anyOf entries is indexed in one pass (each element took a copy of the list: 7.6 s per request)")
    func longArraysIndexed() {
        let grants = Array(repeating: #""f""#, count: 40_000).joined(separator: ",")
        let anyOf = Array(repeating: #""o""#, count: 40_000).joined(separator: ",")
        let text =
            #"{"app": "com.x.big", "features": {"f": "x"}, "grandfathered": [{"id": "r", "grants": [\#(grants)]}], "products": [{"id": "p", "type": "non-consumable", "name": "n", "grants": [\#(grants)], "upgrade": {"replaces": "q", "requires": {"app": "a", "anyOf": [\#(anyOf)]}}}]}"#
        let index = CatalogIndex(Array(text.utf8))
        #expect(index.products.count == 1)
        #expect(index.products.first?.grants.count == 40_000)
        #expect(index.products.first?.anyOf.count == 40_000)
        #expect(index.grandfatherRules.first?.grants.count == 40_000)
        #expect(index.products.first?.id?.id == "p")
    }

    @Test("positions in a long one-line text: each lookup is cheap, the answers exact")
    func longLine() {
        let unit = "ab🎨é"
        let text = String(repeating: unit, count: 20_000)
        let bytes = Array(text.utf8)
        let positions = TextPositions(bytes)
        let lastUnitStart = bytes.count - unit.utf8.count
        #expect(positions.position(of: lastUnitStart) == TextPosition(line: 0, character: 19_999 * 5))
        #expect(positions.offset(of: TextPosition(line: 0, character: 19_999 * 5 + 2)) == lastUnitStart + 2)
        #expect(positions.offset(line: 1, column: 19_999 * 4 + 4) == lastUnitStart + 6)
    }

    // MARK: Scan

    @Test(
        "on valid JSON the scan finds exactly the document's keys and scalar values",
        arguments: ["diagrams.json", "starquest.json", "diagrams6.json", "backyard-birds.json"])
    func scanMatchesTheTree(_ name: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.productsDirectory).appendingPathComponent(name))
        let document = try JSONDocument.parse(data, limits: .catalog)
        var keys: [Int] = []
        var scalars: [Int] = []
        func walk(_ node: JSONNode) {
            switch node.value {
            case .object(let members):
                for member in members {
                    keys.append(member.keyOffset)
                    walk(member.value)
                }
            case .array(let elements): elements.forEach(walk)
            default: scalars.append(node.offset)
            }
        }
        walk(document.root)
        let scan = TolerantScan.scan(Array(data))
        #expect(scan.tokens.filter { $0.role == .key }.map(\.start) == keys)
        #expect(scan.tokens.filter { $0.role == .value }.map(\.start) == scalars.sorted())
        // Every value's end is where the reader says the value ends.
        for token in scan.tokens where token.role == .value {
            #expect(JSONDocument.endOfValue(at: token.start, in: data, limits: .catalog) == token.end)
        }
    }

    @Test("the cursor's context in text that is not JSON")
    func cursorContexts() {
        func context(_ text: String) -> TolerantScan.Cursor? {
            let marked = text.replacingOccurrences(of: "|", with: "")
            let offset = text[..<text.range(of: "|")!.lowerBound].utf8.count
            return TolerantScan.scan(Array(marked.utf8), cursor: offset).cursor
        }
        let key = context(#"{"products": [{"type": "consumable", "na|"#)
        #expect(key?.slot == .key)
        #expect(key?.container == [.key("products"), .index(0)])
        #expect(key?.prefix == "na")
        #expect(key?.inString == true && key?.stringTerminated == false)

        let value = context("{\"products\": [{\"grants\": [\"pro\", |\n  }]}")
        #expect(value?.slot == .value)
        #expect(value?.path == [.key("products"), .index(0), .key("grants"), .index(1)])
        #expect(value?.prefix == "")

        let afterColon = context(#"{"products": [{"id": "a"}, {"trialOf":|"#)
        #expect(afterColon?.slot == .value)
        #expect(afterColon?.path == [.key("products"), .index(1), .key("trialOf")])

        let bare = context(#"{"products": [{"id": "a", gra|}]}"#)
        #expect(bare?.slot == .key)
        #expect(bare?.prefix == "gra")

        // Between a key and its colon, or a value and a comma: nothing to write there.
        #expect(context(#"{"app"| : 1}"#)?.slot == .nowhere)
        #expect(context(#"{"app": "x"| }"#)?.slot == .nowhere)
        // Stray closers, comments and deep nesting do not confuse the path.
        let stray = context("{ ] // a comment\n \"features\": {\"a\": \"b\"}, \"products\": [ { /* x */ \"grants\": [\"|\"] } ] }")
        #expect(stray?.path == [.key("products"), .index(0), .key("grants"), .index(0)])
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let afterDeep = context("{\"a\": \(deep), \"products\": [{\"type\": \"|\"}]}")
        #expect(afterDeep?.path == [.key("products"), .index(0), .key("type")])
    }

    // MARK: Framing

    @Test("messages framed across reads one byte at a time, with \\n-only headers and other headers")
    func framing() {
        let body1 = #"{"jsonrpc":"2.0","method":"x","params":{"text":"é🎨"}}"#
        let body2 = #"{"id":1}"#
        var stream = Data("Content-Length: \(body1.utf8.count)\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n".utf8)
        stream.append(Data(body1.utf8))
        stream.append(Data("\ncontent-length: \(body2.utf8.count)\n\n\(body2)".utf8))
        let chunks = stream.map { Data([$0]) }
        var next = 0
        var framing = MessageFraming(maxBodyBytes: 1000) {
            defer { next += 1 }
            return next < chunks.count ? chunks[next] : nil
        }
        #expect(framing.next() == .message(Array(body1.utf8)))
        #expect(framing.next() == .message(Array(body2.utf8)))
        #expect(framing.next() == .end)
    }

    @Test("an over-long header line and an over-limit body are refused, and the stream goes on")
    func framingLimits() {
        var stream = Data(String(repeating: "x", count: 20_000).utf8)
        stream.append(Data("\r\n\r\nContent-Length: 2000\r\n\r\n".utf8))
        stream.append(Data(repeating: UInt8(ascii: "a"), count: 2000))
        stream.append(Data("Content-Length: 2\r\n\r\n{}".utf8))
        var remaining = Optional(stream)
        var framing = MessageFraming(maxBodyBytes: 1000) {
            defer { remaining = nil }
            return remaining
        }
        #expect(framing.next() == .problem("header line longer than 8192 bytes"))
        #expect(framing.next() == .tooLarge("message of 2000 bytes is over the limit of 1000 bytes"))
        #expect(framing.next() == .message(Array("{}".utf8)))
        #expect(framing.next() == .end)
    }

    // MARK: URIs

    @Test("file URIs and paths")
    func uris() {
        #expect(DocumentURI.path(of: "file:///tmp/a%20b/caf%C3%A9.json") == "/tmp/a b/café.json")
        #expect(DocumentURI.path(of: "file://localhost/tmp/x.json") == "/tmp/x.json")
        #expect(DocumentURI.path(of: "file://server/share/x.json") == nil)
        #expect(DocumentURI.path(of: "untitled:Untitled-1") == nil)
        #expect(DocumentURI.path(of: "file:///bad%zz") == nil)
        let path = "/tmp/a b/café #1.json"
        #expect(DocumentURI.uri(ofPath: path) == "file:///tmp/a%20b/caf%C3%A9%20%231.json")
        #expect(DocumentURI.path(of: DocumentURI.uri(ofPath: path)) == path)
    }

    @Test("a did-you-mean is a fix as data: the replacement and the byte range of the key or value it replaces")
    func fixesAsData() throws {
        func fixes(_ text: String, _ code: DiagnosticCode) throws -> (replacements: [String], replaced: [String], help: String?) {
            let diagnostic = try #require(Fixtures.compile(text).diagnostics.first { $0.code == code }, "\(code)")
            let bytes = Array(text.utf8)
            return (diagnostic.fixes.map(\.replacement), diagnostic.fixes.map { String(decoding: bytes[$0.range], as: UTF8.self) }, diagnostic.help)
        }
        let key = try fixes(#"{"app": "com.example.a", "featurs": {"pro": "Pro"}, "products": []}"#, .unknownKey)
        #expect(key.replacements == [#""features""#] && key.replaced == [#""featurs""#] && key.help == "did you mean `features`?")
        let catalog =
            #"{"app": "com.example.a", "features": {"pro": "Pro"}, "products": [{"id": "a.b", "type": "non-consumable", "name": "P", "grants": ["pr0"]}, {"id": "a.c", "type": "consumabel", "name": "C"}, {"id": "a.d", "type": "consumable", "name": "D"}]}"#
        let feature = try fixes(catalog, .undeclaredFeature)
        #expect(feature.replacements == [#""pro""#] && feature.replaced == [#""pr0""#])
        // In the JSON `validate --format json` prints, and read back.
        let diagnostic = try #require(Fixtures.compile(catalog).diagnostics.first { $0.code == .undeclaredFeature })
        let encoded = try JSONEncoder().encode(diagnostic)
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""fixes":[{"#))
        #expect(try JSONDecoder().decode(Diagnostic.self, from: encoded) == diagnostic)
        let type = try fixes(catalog, .badEnumValue)
        #expect(type.replacements == [#""consumable""#] && type.replaced == [#""consumabel""#])
        // Advice with no guess: no fix.
        let nothing = try fixes(catalog, .grantsNothing)
        #expect(nothing.replacements.isEmpty && nothing.help != nil)
        #expect(CodeActions.title(#""export.pdf""#) == "export.pdf" && CodeActions.title(#""a\"b""#) == #""a\"b""#)
        #expect(CatalogChecker.endOfString(in: Data(#"x "a\"b" y"#.utf8), at: 2) == 8)
        #expect(CatalogChecker.endOfString(in: Data(#""open"#.utf8), at: 0) == nil)
        #expect(CatalogChecker.endOfString(in: Data("abc".utf8), at: 5) == nil)
    }

    // MARK: Workspace

    /// A directory of catalogs, one of them open in a workspace.
    static func workspace(_ files: [String: String], open name: String) throws -> (Workspace, String, URL) {
        let directory = Fixtures.scratch("entitle-lsp-parts")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (file, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(file)) }
        var workspace = Workspace()
        let uri = DocumentURI.uri(ofPath: directory.appendingPathComponent(name).path)
        workspace.open(uri: uri, text: files[name] ?? "", version: 1)
        return (workspace, uri, directory)
    }

    @Test("diagnostics as LSP ranges: UTF-16 columns after an emoji, severities, codes, help as data")
    func diagnosticRanges() throws {
        let catalog = """
            {"app": "com.example.a", "features": {"pro": "Pro 🎨"}, "products": [
              {"id": "com.example.a.up", "type": "non-consumable", "name": "🎨 Pro", "grants": ["pr0"],
               "upgrade": {"replaces": "com.example.a.up", "requires": {"app": "com.example.elsewhere", "anyOf": ["x.y"]}}},
              {"id": "com.example.a.tip", "type": "consumable"}]}
            """
        let (workspaceValue, uri, directory) = try Self.workspace(["a.json": catalog, "a.test.json": "{}"], open: "a.json")
        defer { try? FileManager.default.removeItem(at: directory) }
        var workspace = workspaceValue
        let published = workspace.publications(after: uri)
        #expect(published.count == 1)
        let rendered = try JSONSubset.parse(published[0].compact())
        let diagnostics = rendered.member("diagnostics")?.arrayValue ?? []
        let byCode = Dictionary(
            diagnostics.compactMap { node in node.member("code")?.stringValue.map { ($0, node) } }, uniquingKeysWith: { a, _ in a })
        // `"pr0"` on line 1 after `🎨` (2 UTF-16 units, 1 scalar): one character further than its column.
        let line = catalog.split(separator: "\n", omittingEmptySubsequences: false)[1]
        let start = line.range(of: "\"pr0\"")!.lowerBound
        let character = line.utf16.distance(from: line.startIndex, to: start)
        #expect(character == line.unicodeScalars.distance(from: line.startIndex, to: start) + 1)
        let undeclared = try #require(byCode["undeclared-feature"])
        LanguageServerTests.expect(
            undeclared,
            contains: """
                {"range": {"start": {"line": 1, "character": \(character)}, "end": {"line": 1, "character": \(character + 5)}}, "severity": 1,
                 "source": "entitle", "message": "products[0].grants[0]: undeclared feature `pr0`\\nhelp: did you mean `pro`?",
                 "data": {"help": "did you mean `pro`?", "replacement": "\\"pro\\""}}
                """)
        #expect(byCode["grants-nothing"]?.member("severity")?.integerValue == 2)
        #expect(byCode["unknown-app"]?.member("severity")?.integerValue == 3)
        // At an id: the id, quotes included.
        LanguageServerTests.expect(
            byCode["grants-nothing"],
            contains: """
                {"range": {"start": {"line": 3, "character": 9}, "end": {"line": 3, "character": 28}}, "severity": 2,
                 "message": "products[1]: product `com.example.a.tip` grants nothing\\nhelp: add `credits`", "data": {"help": "add `credits`"}}
                """)
        #expect(byCode["grants-nothing"]?.member("data", "replacement") == nil)
        // At a product object (a key missing): from its brace to the end of the line.
        let tipLine = catalog.split(separator: "\n", omittingEmptySubsequences: false)[3]
        LanguageServerTests.expect(
            byCode["missing-key"],
            contains: """
                {"range": {"start": {"line": 3, "character": 2}, "end": {"line": 3, "character": \(tipLine.utf16.count)}}, "severity": 1}
                """)

        // Unchanged diagnostics of other files are not sent again; the edited file's always are.
        #expect(workspace.publications(after: uri).count == 1)
        // A test file is no catalog: nothing of it is checked.
        let testURI = DocumentURI.uri(ofPath: directory.appendingPathComponent("a.test.json").path)
        workspace.open(uri: testURI, text: "{", version: 1)
        let forTest = workspace.publications(after: testURI)
        #expect(forTest.map { $0.compact() } == [#"{"uri":"\#(testURI)","version":1,"diagnostics":[]}"#])
    }

    @Test("ranged changes, for clients that send them: UTF-16 ranges, applied in order")
    func rangedChanges() {
        var workspace = Workspace()
        let uri = "untitled:Untitled-1"
        workspace.open(uri: uri, text: "a🎨b\ncd", version: 1)
        workspace.change(
            uri: uri,
            changes: [
                ((TextPosition(line: 0, character: 3), TextPosition(line: 0, character: 4)), "X"),  // b after the emoji
                ((TextPosition(line: 1, character: 0), TextPosition(line: 1, character: 0)), "é"),
                ((TextPosition(line: 1, character: 1), TextPosition(line: 9, character: 0)), "!"),  // to the end
            ], version: 2)
        #expect(workspace.document(uri).map { String(decoding: $0.bytes, as: UTF8.self) } == "a🎨X\né!")
        #expect(workspace.document(uri)?.version == 2)
        workspace.change(
            uri: uri, changes: [(nil, "whole"), ((TextPosition(line: 0, character: 5), TextPosition(line: 0, character: 5)), "!")], version: 3)
        #expect(workspace.document(uri).map { String(decoding: $0.bytes, as: UTF8.self) } == "whole!")
    }

    @Test("a file deleted from the directory has its diagnostics cleared")
    func deletedFile() throws {
        let (workspaceValue, uri, directory) = try Self.workspace(
            [
                "a.json":
                    #"{"app": "com.example.a", "features": {"pro": "Pro"}, "products": [{"id": "a.pro", "type": "non-consumable", "name": "Pro", "grants": ["pro"]}]}"#,
                "b.json": #"{"app": "com.example.b", "features": {}, "products": [], "oops": 1}"#,
            ], open: "a.json")
        defer { try? FileManager.default.removeItem(at: directory) }
        var workspace = workspaceValue
        let first = workspace.publications(after: uri).map { $0.compact() }
        let bURI = DocumentURI.uri(ofPath: directory.appendingPathComponent("b.json").path)
        #expect(first.count == 2)
        #expect(first.contains { $0.contains(bURI) && $0.contains("unknown-key") })
        try FileManager.default.removeItem(at: directory.appendingPathComponent("b.json"))
        let second = workspace.publications(after: uri).map { $0.compact() }
        #expect(second.contains(#"{"uri":"\#(bURI)","diagnostics":[]}"#))
    }

    // MARK: Language features

    static let portfolio: [String: String] = [
        "new.json": """
        {
          "app": "com.example.new",
          "features": { "pro": "All tools", "sync": "Cloud sync" },
          "currencies": { "gems": "Gems" },
          "grandfathered": [ { "id": "old", "originalApplicationVersionBefore": "2.0", "grants": [""] } ],
          "products": [
            { "id": "com.example.new.pro", "type": "non-consumable", "name": "Pro", "grants": ["pro"] },
            { "id": "com.example.new.gems", "type": "consumable", "name": "Gems", "credits": { "": 5 } },
            { "id": "com.example.new.up", "type": "non-consumable", "name": "Up",
              "upgrade": { "replaces": "", "requires": { "app": "com.example.old", "anyOf": ["com.example.old.pro", ""] } } },
            { "id": "com.example.new.up2", "type": "non-consumable", "name": "Up 2", "grants": ["pro"],
              "upgrade": { "replaces": "com.example.new.pro", "requires": { "app": "com.example.gone", "anyOf": ["x.pro"] } } },
            { "id": "com.example.new.sub", "type": "auto-renewable-subscription", "name": "Sub", "group": "g",
              "introOffer": { "mode": "" }, "grants": ["sync"] }
          ]
        }
        """,
        "old.json": """
        {"app": "com.example.old", "features": {"pro": "Pro"}, "products": [
          {"id": "com.example.old.pro", "type": "non-consumable", "name": "Old Pro", "grants": ["pro"]},
          {"id": "com.example.old.tip", "type": "consumable", "name": "Tip"},
          {"id": "com.example.old.plus", "type": "non-consumable", "name": "Old Plus", "grants": ["pro"]}]}
        """,
    ]

    /// Completion labels at the `occurrence`th `needle` of new.json, `by` bytes into it.
    static func labels(at needle: String, occurrence: Int = 0, by delta: Int, in text: String? = nil) throws -> [String] {
        var files = portfolio
        if let text { files["new.json"] = text }
        let (workspace, uri, directory) = try workspace(files, open: "new.json")
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = files["new.json"]!
        var start = source.startIndex
        var found = source.range(of: needle)!
        for _ in 0...occurrence {
            found = source.range(of: needle, range: start..<source.endIndex)!
            start = found.upperBound
        }
        let offset = source.utf8.distance(from: source.utf8.startIndex, to: found.lowerBound) + delta
        let positions = TextPositions(Array(source.utf8))
        let snapshot = try #require(workspace.snapshot(of: uri, cursor: positions.position(of: offset)))
        let result = try JSONSubset.parse(Completion.completion(in: snapshot).compact())
        return result.member("items")?.arrayValue?.compactMap { $0.member("label")?.stringValue } ?? []
    }

    @Test("completion: ids of the portfolio, enum values and keys, at each kind of place")
    func completions() throws {
        #expect(try Self.labels(at: #""grants": [""]"#, by: 12) == ["pro", "sync"])
        #expect(try Self.labels(at: #""credits": { ""#, by: 13) == ["gems"])
        #expect(try Self.labels(at: #""replaces": """#, by: 13) == ["com.example.new.pro"])
        #expect(try Self.labels(at: #""app": "com.example.old", "anyOf""#, by: 8) == ["com.example.old"])
        // The required app's products not listed yet, but not its consumables.
        #expect(try Self.labels(at: #", ""]"#, by: 3) == ["com.example.old.plus"])
        #expect(try Self.labels(at: #""mode": """#, by: 9) == ["free-trial", "pay-as-you-go", "pay-up-front"])
        #expect(
            try Self.labels(at: #""type": "non-consumable""#, by: 9)
                == ["non-consumable", "non-renewing-subscription", "auto-renewable-subscription", "consumable"])
        #expect(try Self.labels(at: #""introOffer": { "#, by: 16) == ["$comment", "duration", "for"])
        #expect(try Self.labels(at: #""requires": { "#, by: 14) == ["$comment"])
        #expect(try Self.labels(at: #"{ "id": "old""#, by: 2) == ["$comment", "originalPurchaseBefore", "originalPlatform"])
        // A new top-level key: the keys not written yet.
        #expect(try Self.labels(at: "{\n", by: 2) == ["$schema", "$comment", "limits", "allowances", "legal", "stores", "refundPreference"])
        // In an allowance's `currency` and in `unlimited`: the declared currencies.
        let allowances = Self.portfolio["new.json"]!.replacingOccurrences(
            of: #""name": "Pro", "grants": ["pro"] }"#,
            with: #""name": "Pro", "grants": ["pro"], "allowances": [{ "currency": "" }], "unlimited": [""] }"#)
        #expect(try Self.labels(at: #""currency": ""#, by: 13, in: allowances) == ["gems"])
        #expect(try Self.labels(at: #""unlimited": [""#, by: 15, in: allowances) == ["gems"])
        // In a product's `limits`: the declared limits, with their descriptions; in a declaration, its keys.
        let limits = Self.portfolio["new.json"]!.replacingOccurrences(
            of: #""currencies": { "gems": "Gems" },"#,
            with: #""currencies": { "gems": "Gems" }, "limits": { "projects": { "description": "Projects" }, "seats": { } },"#
        ).replacingOccurrences(of: #""name": "Pro", "grants": ["pro"] }"#, with: #""name": "Pro", "grants": ["pro"], "limits": { } }"#)
        #expect(try Self.labels(at: #""limits": { } }"#, by: 12, in: limits) == ["projects", "seats"])
        #expect(try Self.labels(at: #""seats": { "#, by: 11, in: limits) == ["$comment", "description", "default", "combine"])
        // Inside an Advanced Commerce SKU: the item's keys, and in its grants the declared features.
        let items = Self.portfolio["new.json"]!.replacingOccurrences(
            of: #""name": "Pro", "grants": ["pro"] }"#, with: #""name": "Pro", "items": { "s1": { }, "s2": { "grants": [""] } } }"#)
        #expect(try Self.labels(at: #""s1": { "#, by: 8, in: items) == ["$comment", "grants", "credits"])
        #expect(try Self.labels(at: #""s2": { "grants": ["""#, by: 20, in: items) == ["pro", "sync"])
        // A subscription's keys, typed as a bare word (not JSON yet).
        let typing = Self.portfolio["new.json"]!.replacingOccurrences(of: #""group": "g","#, with: #""group": "g", le"#)
        #expect(
            try Self.labels(at: " le", by: 3, in: typing) == [
                "$comment", "store", "priceTier", "legal", "available", "familyShareable", "storefronts", "level", "duration", "offers",
                "gracePeriod", "allowances", "unlimited", "limits", "refundPreference", "sampleContent", "retention", "items",
            ])
    }

    @Test("hover, definition and references across catalogs; a reference to an app without a catalog has none")
    func navigation() throws {
        let (workspace, uri, directory) = try Self.workspace(Self.portfolio, open: "new.json")
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = Self.portfolio["new.json"]!
        let positions = TextPositions(Array(text.utf8))
        func snapshot(at needle: String, by delta: Int) throws -> PortfolioSnapshot {
            let offset = text.utf8.distance(from: text.utf8.startIndex, to: text.range(of: needle)!.lowerBound) + delta
            return try #require(workspace.snapshot(of: uri, cursor: positions.position(of: offset)))
        }
        let anyOf = try snapshot(at: #""com.example.old.pro""#, by: 2)
        let oldURI = DocumentURI.uri(ofPath: directory.appendingPathComponent("old.json").path)
        let definition = Definitions.definition(in: anyOf).compact()
        #expect(definition == #"{"uri":"\#(oldURI)","range":{"start":{"line":1,"character":9},"end":{"line":1,"character":30}}}"#)
        let hover = Hover.hover(in: anyOf).compact()
        #expect(hover.contains("product `com.example.old.pro` of `com.example.old`"))
        #expect(hover.contains("grants: `pro`"))
        // References of the old app's product from the new app's `anyOf`, with its declaration.
        let references = Definitions.references(in: anyOf, includeDeclaration: true).compact()
        #expect(references.components(separatedBy: "\"uri\"").count == 3)
        #expect(references.hasPrefix(#"[{"uri":"\#(oldURI)""#))

        // A subscription: its legal text, resolved; here there is none.
        let subscription = Hover.hover(in: try snapshot(at: #""com.example.new.sub""#, by: 1)).compact()
        #expect(subscription.contains("no legal text"))
        // A currency: who credits it.
        let gems = Hover.hover(in: try snapshot(at: #""gems": "Gems""#, by: 1)).compact()
        #expect(gems.contains("currency `gems`"))
        #expect(gems.contains("Gems"))
        // An app with no catalog here: no definition, and a hover that says so.
        let gone = try snapshot(at: #""x.pro""#, by: 1)
        #expect(Definitions.definition(in: gone).compact() == "null")
        #expect(Hover.hover(in: gone).compact().contains("its app has no catalog in this directory"))
    }

    @Test("no text makes the features crash: every prefix of a catalog, at every place")
    func everyPrefix() throws {
        let text = Array(try String(contentsOfFile: Fixtures.productsDirectory + "/diagrams.json", encoding: .utf8).utf8)
        let (workspaceValue, uri, directory) = try Self.workspace(Self.portfolio, open: "new.json")
        defer { try? FileManager.default.removeItem(at: directory) }
        var workspace = workspaceValue
        for cut in stride(from: 0, through: text.count, by: 5) {
            let prefix = String(decoding: text[0..<cut], as: UTF8.self) + (cut % 2 == 0 ? "" : "\"")
            workspace.open(uri: uri, text: prefix, version: Int64(cut))
            let positions = TextPositions(Array(prefix.utf8))
            for offset in [0, cut / 2, cut] {
                guard let snapshot = workspace.snapshot(of: uri, cursor: positions.position(of: offset)) else {
                    Issue.record("no snapshot")
                    continue
                }
                _ = Completion.completion(in: snapshot)
                _ = Hover.hover(in: snapshot)
                _ = Definitions.definition(in: snapshot)
                _ = Definitions.references(in: snapshot, includeDeclaration: true)
            }
            let published = workspace.publications(after: uri)
            #expect(!published.isEmpty)
        }
    }
}
