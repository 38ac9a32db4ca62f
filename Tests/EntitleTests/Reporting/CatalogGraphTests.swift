import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// A drawn graph read back: each node's label lines (entities decoded) and kind, the boxes with
/// their nodes in order, and the edges as (from, arrow or style, label, to) by the nodes' second
/// label line (a product's or feature's id is its first or second line).
struct ReadGraph {
    struct Node {
        var lines: [String]
        var kind: String
        var box: String?
    }
    var nodes: [String: Node] = [:]
    var boxes: [String: (title: String, members: [String])] = [:]
    var edges: [(from: String, arrow: String, label: String?, to: String)] = []

    /// The id a node stands for: a product's id (its second line), else its first line.
    func name(_ id: String) -> String {
        guard let node = nodes[id] else { return "?" + id }
        return node.kind == "product" || node.kind == "retired" ? node.lines[1] : node.lines[0]
    }

    /// The edges by name: `a --> b`, `a -.->|trial of| b`.
    var named: Set<String> {
        Set(edges.map { "\(name($0.from)) \($0.arrow)\($0.label.map { "|\($0)|" } ?? "") \(name($0.to))" })
    }

    static func decodeMermaid(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let hash = rest.firstIndex(of: "#") {
            result += rest[..<hash]
            let after = rest[rest.index(after: hash)...]
            guard let semicolon = after.firstIndex(of: ";"), let value = UInt32(after[..<semicolon]), let scalar = Unicode.Scalar(value) else {
                result += "#"
                rest = after
                continue
            }
            result.unicodeScalars.append(scalar)
            rest = after[after.index(after: semicolon)...]
        }
        return result + rest
    }

    init(mermaid: String) throws {
        var open: [String] = []
        let node = try Regex(#"^\s+(n\d+)(\[|\(\[|\{\{|\[/|>|\[\[)"([^"]*)"(\]|\]\)|\}\}|/\]|\]\]):::(\w+)$"#)
        let box = try Regex(#"^\s*subgraph (c\d+)\["([^"]*)"\]$"#)
        let edge = try Regex(#"^\s+(n\d+) (-->|-\.->|==>|-\.-)(?:\|"([^"]*)"\|)? (n\d+)$"#)
        for line in mermaid.split(separator: "\n").dropFirst() {
            if let match = try node.wholeMatch(in: line) {
                let id = String(match.output[1].substring!)
                let lines = match.output[3].substring!.components(separatedBy: "<br/>").map(Self.decodeMermaid)
                nodes[id] = Node(lines: lines, kind: String(match.output[5].substring!), box: open.last)
                if let current = open.last { boxes[current]!.members.append(id) }
            } else if let match = try box.wholeMatch(in: line) {
                let id = String(match.output[1].substring!)
                boxes[id] = (Self.decodeMermaid(String(match.output[2].substring!)), [])
                open.append(id)
            } else if line.trimmingCharacters(in: .whitespaces) == "end" {
                open.removeLast()
            } else if let match = try edge.wholeMatch(in: line) {
                edges.append(
                    (
                        String(match.output[1].substring!), String(match.output[2].substring!),
                        match.output[3].substring.map { Self.decodeMermaid(String($0)) }, String(match.output[4].substring!)
                    ))
            } else if !line.hasPrefix("  classDef ") {
                throw SVGTree.Failure(description: "a line of no known form: \(line)")
            }
        }
        guard open.isEmpty else { throw SVGTree.Failure(description: "unclosed subgraph") }
    }

    /// Reads DOT's quoted strings back: `\\` and `\"` undone; `\n` separates lines.
    static func decodeDOT(_ text: Substring) -> [String] {
        var lines = [""]
        var escaped = false
        for character in text {
            if escaped {
                if character == "n" { lines.append("") } else { lines[lines.count - 1].append(character) }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                lines[lines.count - 1].append(character)
            }
        }
        return lines
    }

    init(dot: String) throws {
        var open: [String] = []
        let string = #""((?:[^"\\]|\\.)*)""#
        let node = try Regex(#"^\s+(n\d+) \[label="# + string + #", (.*)\];$"#)
        let box = try Regex(#"^\s*subgraph cluster_(c\d+) \{$"#)
        let title = try Regex(#"^\s*label="# + string + ##"; style=rounded; color="#8c959f";$"##)
        let edge = try Regex(#"^\s+(n\d+) -> (n\d+)(?: \[(.*)\])?;$"#)
        let label = try Regex(#"label="# + string)
        for line in dot.split(separator: "\n") {
            if let match = try node.wholeMatch(in: line) {
                let id = String(match.output[1].substring!)
                let style = match.output[3].substring!
                let kind =
                    style.contains("#dafbe1")
                    ? "feature"
                    : style.contains("dashed") && style.contains("#8c959f")
                        ? "retired"
                        : style.contains("#ddf4ff")
                            ? "product"
                            : style.contains("cds")
                                ? "offer"
                                : style.contains("parallelogram")
                                    ? "rule"
                                    : style.contains("hexagon") ? "currency" : "external"
                nodes[id] = Node(lines: Self.decodeDOT(match.output[2].substring!), kind: kind, box: open.last)
                if let current = open.last { boxes[current]!.members.append(id) }
            } else if let match = try box.wholeMatch(in: line) {
                let id = String(match.output[1].substring!)
                boxes[id] = ("", [])
                open.append(id)
            } else if let match = try title.wholeMatch(in: line), let current = open.last {
                boxes[current]!.title = Self.decodeDOT(match.output[1].substring!).joined(separator: "\n")
            } else if line.trimmingCharacters(in: .whitespaces) == "}" {
                if !open.isEmpty { open.removeLast() }
            } else if let match = try edge.wholeMatch(in: line) {
                let attributes = match.output[3].substring ?? ""
                let text = try label.firstMatch(in: attributes).map { Self.decodeDOT($0.output[1].substring!).joined() }
                let arrow =
                    attributes.contains("arrowhead=none")
                    ? "-.-"
                    : attributes.contains("dashed")
                        ? "-.->"
                        : attributes.contains("penwidth=2") ? "==>" : "-->"
                edges.append((String(match.output[1].substring!), arrow, text, String(match.output[2].substring!)))
            }
        }
    }
}

@Suite("Catalog graphs (entitle graph)")
struct CatalogGraphTests {
    /// The edges products/ must show, whichever format draws them.
    static let expectedEdges: Set<String> = [
        "com.example.diagrams.pro --> pro", "com.example.diagrams.pro --> export.pdf",
        "com.example.diagrams.trial -.->|trial of| com.example.diagrams.pro",
        "com.example.diagrams.pro.upgrade ==>|replaces| com.example.diagrams.pro",
        "com.example.diagrams.pro.upgrade -.->|requires| com.example.diagrams6.pro",
        "com.example.diagrams.sync.monthly --> cloud.sync",
        "com.example.diagrams.sync.monthly -.- win-back sync.winback",
        "com.example.diagrams.sync.monthly -.- promotional sync.loyal",
        "com.example.diagrams.stencils.10 -->|+10| stencils",
        "grandfathered: paid-app --> pro", "grandfathered: paid-app --> export.pdf",
        "com.example.diagrams6.pro --> pro",
        "com.example.starquest.starter -->|+200| gems", "com.example.starquest.starter -->|+5| lives",
        "com.example.starquest.vip.plus.monthly --> vip.plus", "com.example.starquest.season.pass --> season.pass",
    ]

    static func graph() -> CatalogGraph { CatalogGraph(Fixtures.examples.catalogs) }

    @Test("Mermaid for products/: products to features, trials, upgrades into the required app, groups by level, pass groups, offers, rules")
    func mermaid() throws {
        let text = Self.graph().mermaid
        #expect(text.hasPrefix("flowchart LR\n"))
        let read = try ReadGraph(mermaid: text)
        #expect(Self.expectedEdges.isSubset(of: read.named), "\(Self.expectedEdges.subtracting(read.named).sorted())")
        // Every edge joins nodes that exist, and nothing points where it should not.
        #expect(read.edges.allSatisfy { read.nodes[$0.from] != nil && read.nodes[$0.to] != nil })
        #expect(!read.named.contains { $0.contains("?") })
        #expect(read.edges.count == Self.graph().edges.count)
        Self.checkBoxes(read)
        // Labels: a product's name, id and kind; a retired one says so; a feature its description.
        let old = try #require(read.nodes.values.first { $0.lines.count > 1 && $0.lines[1] == "com.example.diagrams6.pro" })
        #expect(old.lines == ["Diagrams 6 Pro", "com.example.diagrams6.pro", "non-consumable, retired"] && old.kind == "retired")
        let sync = try #require(read.nodes.values.first { $0.lines.count > 1 && $0.lines[1] == Diagrams.sync })
        #expect(sync.lines == ["Sync Monthly", Diagrams.sync, "auto-renewable P1M", "intro: free-trial P1W"])
        #expect(read.nodes.values.contains { $0.kind == "feature" && $0.lines == ["cloud.sync", "Cloud sync"] })
        #expect(read.nodes.values.contains { $0.kind == "rule" && $0.lines == ["grandfathered: paid-app", "originalApplicationVersion < 2.0"] })
        #expect(
            read.nodes.values.contains {
                $0.kind == "offer" && $0.lines[0] == "win-back sync.winback"
                    && $0.lines[2] == "paid ≥ P3M, lapsed ≥ P1M, lapsed ≤ P1Y, every P6M"
            })
        #expect(text.contains("paid ≥ P3M"))
    }

    /// Boxes: one per app, subscription groups with their products by level, pass groups.
    static func checkBoxes(_ read: ReadGraph, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let titles = Set(read.boxes.values.map(\.title))
        #expect(
            titles.isSuperset(of: [
                "app com.example.diagrams", "app com.example.diagrams6", "app com.example.starquest",
                "subscription group sync", "subscription group vip", "pass group seasons (passes stack)",
            ]),
            "\(titles)", sourceLocation: sourceLocation)
        let members = [
            ("subscription group vip", ["vip.plus.monthly", "vip.monthly", "vip.yearly"]),
            ("pass group seasons (passes stack)", ["season.1", "season.pass", "season.month"]),
        ]
        for (title, products) in members {
            let box = read.boxes.values.first { $0.title == title }
            #expect(box?.members.map(read.name) == products.map { "com.example.starquest." + $0 }, "\(title)", sourceLocation: sourceLocation)
        }
        let declared = Fixtures.examples.catalogs.reduce(0) { $0 + $1.featureIds.count }
        #expect(declared >= 15)
        #expect(read.nodes.values.filter { $0.kind == "feature" }.count == declared, sourceLocation: sourceLocation)
    }

    @Test("DOT for products/: the same edges and boxes, trials dashed, upgrades bold, offers dotted")
    func dot() throws {
        let text = Self.graph().dot
        #expect(text.hasPrefix("digraph catalogs {\n  rankdir=LR;\n") && text.hasSuffix("}\n"))
        let read = try ReadGraph(dot: text)
        #expect(Self.expectedEdges.isSubset(of: read.named), "\(Self.expectedEdges.subtracting(read.named).sorted())")
        #expect(read.edges.count == Self.graph().edges.count)
        #expect(!read.named.contains { $0.contains("?") })
        Self.checkBoxes(read)
        // An Advanced Commerce product's edges are labelled with their SKU (and a credit's amount).
        #expect(text.contains("label=\"atelier.sku.studio\""), "\(text)")
        #expect(text.contains("label=\"atelier.sku.renders.50 +50\""))
    }

    @Test("Graphviz reads the DOT (when `dot` is installed)", .enabled(if: Self.graphviz != nil, "Graphviz is not installed"))
    func graphvizReads() throws {
        for catalogs in [Fixtures.examples.catalogs, [Self.hostileCatalog()]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.graphviz!)
            process.arguments = ["-Tsvg"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data(CatalogGraph(catalogs).dot.utf8))
            try input.fileHandleForWriting.close()
            let svg = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(String(decoding: svg, as: UTF8.self).contains("<svg"))
        }
    }

    static let graphviz: String? = ["/usr/bin/dot", "/usr/local/bin/dot", "/opt/homebrew/bin/dot"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Names and descriptions are free text: these try to end a label, start markup, add a
    /// Mermaid entity or a Graphviz escape, and hide characters.
    static let hostile = "Pro \"x\" <b>y</b> #quot; \\l |] end; %% \u{202E}\u{7}"

    static func hostileCatalog() -> CompiledCatalog {
        let name = hostile.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\u{202E}", with: "\\u202E").replacingOccurrences(of: "\u{7}", with: "\\u0007")
        return Fixtures.catalog(
            """
            { "app": "com.example.hostile", "features": { "pro": "\(name)" }, "currencies": { "coins": "\(name)" },
              "products": [ { "id": "p", "type": "non-consumable", "name": "\(name)", "grants": ["pro"] },
                            { "id": "c", "type": "consumable", "name": "\(name)", "credits": { "coins": 3 } } ] }
            """)
    }

    @Test("free text is escaped for each format: it reads back as written, with hidden characters made visible")
    func hostileText() throws {
        let graph = CatalogGraph([Self.hostileCatalog()])
        let visible = "Pro \"x\" <b>y</b> #quot; \\l |] end; %% \\u{202E}\\u{7}"
        // Mermaid: every label is one quoted string of plain characters and entity codes.
        for line in graph.mermaid.split(separator: "\n") where line.contains("\"") {
            let inner = line.drop { $0 != "\"" }.dropFirst().prefix { $0 != "\"" }
            #expect(inner.allSatisfy { !$0.isASCII || $0.isLetter || $0.isNumber || " .,:_/+=@-()#;<>".contains($0) }, "\(line)")
            #expect(!inner.contains("<b>") && !inner.contains("|") && !inner.contains("%"), "\(line)")
            #expect(line.filter { $0 == "\"" }.count == 2, "\(line)")
        }
        #expect(!graph.mermaid.contains("<b>") && !graph.mermaid.contains("\u{202E}"))
        let mermaid = try ReadGraph(mermaid: graph.mermaid)
        #expect(mermaid.nodes.values.contains { $0.kind == "product" && $0.lines == [visible, "p", "non-consumable"] })
        #expect(mermaid.nodes.values.contains { $0.kind == "feature" && $0.lines == ["pro", visible] })
        #expect(mermaid.nodes.values.contains { $0.kind == "currency" && $0.lines == ["coins", visible] })
        // DOT: the same text back from its quoted strings.
        #expect(!graph.dot.contains("\u{202E}") && !graph.dot.contains("\u{7}"))
        let dot = try ReadGraph(dot: graph.dot)
        #expect(dot.nodes.values.contains { $0.kind == "product" && $0.lines == [visible, "p", "non-consumable"] })
        #expect(dot.named.contains("p --> pro") && dot.named.contains("c -->|+3| coins"))
    }

    @Test("the Mermaid block in CommandLine.md is what `entitle graph products/diagrams.json` prints")
    func manualGraph() throws {
        let article = DocumentationTests.article("CommandLine")
        let command = try #require(article.range(of: "$ entitle graph products/diagrams.json\n```\n\n```mermaid\n"))
        let block = article[command.upperBound...].prefix { _ in true }
        let end = try #require(block.range(of: "```\n"))
        let output = EntitleCommand.run(["graph", Fixtures.productsDirectory + "/diagrams.json"], environment: CLITests.environment())
        #expect(String(block[..<end.lowerBound]) == output.standardOutput)
    }

    @Test("entitle graph: Mermaid by default, --format dot, a catalog with errors draws nothing, misuse says why")
    func command() throws {
        let environment = CLITests.environment()
        let mermaid = EntitleCommand.run(["graph", CLITests.products], environment: environment)
        #expect(mermaid.exitCode == 0 && mermaid.standardError.isEmpty)
        #expect(mermaid.standardOutput == Self.graph().mermaid)
        let dot = EntitleCommand.run(["graph", "--format", "dot", CLITests.products], environment: environment)
        #expect(dot.exitCode == 0 && dot.standardOutput == Self.graph().dot)
        // One file alone: the upgrade's required app has no catalog, so its own node.
        let alone = try ReadGraph(
            mermaid: EntitleCommand.run(["graph", CLITests.products + "/diagrams.json"], environment: environment).standardOutput)
        #expect(alone.named.contains("com.example.diagrams.pro.upgrade -.->|requires| com.example.diagrams6"))
        #expect(alone.boxes.values.contains { $0.title == "other apps (no catalog given)" })
        #expect(
            alone.nodes.values.contains { $0.kind == "external" && $0.lines == ["com.example.diagrams6", "a purchase of com.example.diagrams6.pro"] })

        try Fixtures.withTemporaryDirectory("entitle-graph") { directory in
            let broken = directory.appendingPathComponent("broken.json")
            try Data(
                #"{ "app": "com.example.x", "features": {}, "products": [ { "id": "p", "type": "non-consumable", "name": "P", "grants": ["pr0"] } ] }"#
                    .utf8
            )
            .write(to: broken)
            let failed = EntitleCommand.run(["graph", broken.path], environment: environment)
            #expect(failed.exitCode == 1 && failed.standardOutput.isEmpty)
            #expect(failed.standardError.contains("undeclared feature `pr0`"))
            #expect(failed.standardError.hasSuffix("entitle: nothing drawn: 1 error, 0 warnings\n"))

            let misuse = EntitleCommand.run(["graph", "--format", "mermiad", CLITests.products], environment: environment)
            #expect(misuse.exitCode == 2)
            #expect(misuse.standardError.hasPrefix("entitle graph: `--format` must be `mermaid` or `dot`, not `mermiad`; did you mean `mermaid`?"))
            #expect(EntitleCommand.run(["graph"], environment: environment).standardError.hasPrefix("entitle graph: give at least one catalog path"))

            // Past Mermaid's default size, a note says so and how else to draw it.
            let products = (0..<800).map {
                #"{ "id": "com.example.big.product\#($0)", "type": "non-consumable", "name": "Product number \#($0)", "grants": ["pro"] }"#
            }
            let big = directory.appendingPathComponent("big.json")
            try Data(#"{ "app": "com.example.big", "features": { "pro": "Pro" }, "products": [\#(products.joined(separator: ","))] }"#.utf8).write(
                to: big)
            let large = EntitleCommand.run(["graph", big.path], environment: environment)
            #expect(large.exitCode == 0 && large.standardOutput.utf8.count > GraphCommand.mermaidLimit)
            #expect(large.standardError.contains("Mermaid (GitHub too) draws at most 50000 by default: draw fewer catalogs, or use `--format dot`"))
        }
    }
}
