/// The graph as a Mermaid flowchart, for Markdown: GitHub shows it in a ```` ```mermaid ```` block.
extension CatalogGraph {
    /// The flowchart, left to right: a box per app and per group, a shape per kind of node
    /// (products as rectangles, features as stadiums, currencies as hexagons, grandfather rules
    /// as parallelograms, offers as flags, other apps as subroutines), edges labelled with what
    /// they say.
    ///
    /// Labels are quoted, and every character but letters, digits and a few plain punctuation
    /// marks is written as Mermaid's entity code (`#60;`), so no catalog text can end a label,
    /// start markup or be read as Markdown.
    public var mermaid: String {
        var lines = ["flowchart LR"]
        func write(_ cluster: Cluster, indent: String) {
            lines.append(indent + "subgraph \(cluster.id)[\"\(Self.mermaidText(cluster.title))\"]")
            for inner in cluster.clusters { write(inner, indent: indent + "  ") }
            for node in cluster.nodes {
                let label = "\"" + node.lines.map(Self.mermaidText).joined(separator: "<br/>") + "\""
                let shaped: String =
                    switch node.kind {
                    case .product, .retired: "[\(label)]"
                    case .feature: "([\(label)])"
                    case .currency: "{{\(label)}}"
                    case .rule: "[/\(label)/]"
                    case .offer: ">\(label)]"
                    case .external: "[[\(label)]]"
                    }
                lines.append(indent + "  " + node.id + shaped + ":::" + node.kind.rawValue)
            }
            lines.append(indent + "end")
        }
        for cluster in clusters { write(cluster, indent: "  ") }
        for edge in edges {
            let arrow: String =
                switch edge.relation {
                case .grants, .credits, .item: "-->"
                case .trial, .requires: "-.->"
                case .replaces: "==>"
                case .offers: "-.-"
                }
            let label = Self.label(edge.relation).map { "|\"" + Self.mermaidText($0) + "\"|" } ?? ""
            lines.append("  \(edge.from) \(arrow)\(label) \(edge.to)")
        }
        for (kind, style) in Self.mermaidStyles { lines.append("  classDef \(kind.rawValue) \(style)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The style of each kind of node.
    static let mermaidStyles: [(Kind, String)] = [
        (.product, "fill:#ddf4ff,stroke:#0969da,color:#1f2328"),
        (.retired, "fill:#f6f8fa,stroke:#8c959f,stroke-dasharray:4 3,color:#57606a"),
        (.feature, "fill:#dafbe1,stroke:#1a7f37,color:#1f2328"),
        (.currency, "fill:#fff8c5,stroke:#9a6700,color:#1f2328"),
        (.rule, "fill:#fbefff,stroke:#8250df,color:#1f2328"),
        (.offer, "fill:#ffeff7,stroke:#bf3989,color:#1f2328"),
        (.external, "fill:#ffffff,stroke:#57606a,stroke-dasharray:4 3,color:#1f2328"),
    ]

    /// Text inside a quoted Mermaid label: letters and digits of ASCII, spaces, `.,:_/+=@-()` and
    /// characters beyond ASCII as they are, every other character as its entity code (`"` is
    /// `#34;`, `<` is `#60;`, `#` is `#35;`).
    static func mermaidText(_ text: String) -> String {
        SVGDocument.visible(text).replacingScalars { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", " ", ".", ",", ":", "_", "/", "+", "=", "@", "-", "(", ")": nil
            // Beyond ASCII nothing is Mermaid's syntax (hidden characters are escapes by now).
            case _ where scalar.value >= 0xA0: nil
            default: "#\(scalar.value);"
            }
        }
    }
}
