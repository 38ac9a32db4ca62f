/// The graph in Graphviz's DOT language, for `dot -Tsvg`.
extension CatalogGraph {
    /// The digraph, left to right: a cluster per app and per group, a shape and color per kind
    /// of node, edges labelled with what they say (trials dashed, upgrades bold, offers dotted).
    ///
    /// Every label is a quoted string with backslashes and quotes escaped, and control
    /// characters written as visible escapes, so no catalog text can end a string or add a
    /// Graphviz escape (`\l`, `\N`).
    public var dot: String {
        var lines = [
            "digraph catalogs {", "  rankdir=LR;", "  graph [fontname=\"Helvetica\", fontsize=11];",
            "  node [fontname=\"Helvetica\", fontsize=10, style=filled];", "  edge [fontname=\"Helvetica\", fontsize=9];",
        ]
        func write(_ cluster: Cluster, indent: String) {
            lines.append(indent + "subgraph cluster_\(cluster.id) {")
            lines.append(indent + "  label=\(Self.dotString(cluster.title)); style=rounded; color=\"#8c959f\";")
            for inner in cluster.clusters { write(inner, indent: indent + "  ") }
            for node in cluster.nodes {
                let label = "\"" + node.lines.map(Self.dotText).joined(separator: "\\n") + "\""
                lines.append(indent + "  \(node.id) [label=\(label), \(Self.dotStyle(node.kind))];")
            }
            lines.append(indent + "}")
        }
        for cluster in clusters { write(cluster, indent: "  ") }
        for edge in edges {
            var attributes: [String] = []
            if let label = Self.label(edge.relation) { attributes.append("label=" + Self.dotString(label)) }
            switch edge.relation {
            case .grants, .credits, .item: break
            case .trial, .requires: attributes.append("style=dashed")
            case .replaces: attributes.append("penwidth=2")
            case .offers: attributes += ["style=dotted", "arrowhead=none"]
            }
            lines.append("  \(edge.from) -> \(edge.to)" + (attributes.isEmpty ? "" : " [" + attributes.joined(separator: ", ") + "]") + ";")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The shape and colors of each kind of node.
    static func dotStyle(_ kind: Kind) -> String {
        switch kind {
        case .product: "shape=box, fillcolor=\"#ddf4ff\", color=\"#0969da\""
        case .retired: "shape=box, style=\"filled,dashed\", fillcolor=\"#f6f8fa\", color=\"#8c959f\", fontcolor=\"#57606a\""
        case .feature: "shape=ellipse, fillcolor=\"#dafbe1\", color=\"#1a7f37\""
        case .currency: "shape=hexagon, fillcolor=\"#fff8c5\", color=\"#9a6700\""
        case .rule: "shape=parallelogram, fillcolor=\"#fbefff\", color=\"#8250df\""
        case .offer: "shape=cds, fillcolor=\"#ffeff7\", color=\"#bf3989\""
        case .external: "shape=box, style=\"filled,dashed\", fillcolor=\"#ffffff\", color=\"#57606a\""
        }
    }

    /// A DOT string: the text escaped (``dotText(_:)``) in double quotes.
    static func dotString(_ text: String) -> String { "\"" + dotText(text) + "\"" }

    /// Text inside a quoted DOT string: backslashes doubled and quotes escaped, after control
    /// and bidirectional characters are made visible (``SVGDocument/visible(_:)``).
    static func dotText(_ text: String) -> String {
        SVGDocument.visible(text).replacingScalars(["\\": "\\\\", "\"": "\\\""])
    }
}
