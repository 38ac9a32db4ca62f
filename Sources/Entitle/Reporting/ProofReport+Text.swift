/// A proof for people: what was searched, then per app each part of the answer that some
/// customer gets differently, with the smallest witness of each way it moved, and the parts no
/// searched customer tells apart.
extension ProofReport {
    /// The report as `entitle diff --prove` prints it.
    ///
    ///     proof: searched every receipt of up to 2 transactions at every boundary instant: 1,204 receipts, 9,310 evaluations
    ///       com.example.diagrams
    ///         feature pro: less
    ///           less at 2026-01-31T12:00:00Z: on until 2026-02-01T00:00:00Z -> off
    ///             com.example.diagrams.daypass: bought 2026-01-31T00:00:00Z (transaction 1)
    ///         same: features export.pdf, cloud.sync
    ///         same: balance stencils
    public var text: String {
        var lines = ["proof: " + searched]
        for app in apps {
            lines.append("  \(app)")
            let ofApp = items.filter { $0.item.app == app }
            for item in ofApp where item.verdict != .same {
                lines.append("    \(item.item): \(item.verdict.rawValue)")
                for witness in item.witnesses {
                    lines.append(
                        "      \(witness.direction.rawValue) at \(witness.at.rfc3339): \(witness.old) -> \(witness.new)"
                            + (ItemValue.isLoss(item.item.kind, witness.direction) ? "  LOSS" : ""))
                    lines += witness.customer.map { "        " + $0 }
                }
            }
            for kind in ProofItem.Kind.allCases {
                let ids = ofApp.filter { $0.item.kind == kind && $0.verdict == .same }.map { item in
                    item.item.product.map { "\(item.item.id) of \($0)" } ?? item.item.id
                }
                if !ids.isEmpty { lines.append("    same: \(Self.plural(kind, ids.count)) \(ids.joined(separator: ", "))") }
            }
        }
        return lines.textOutput
    }

    private static func plural(_ kind: ProofItem.Kind, _ count: Int) -> String {
        count == 1 ? kind.rawValue : kind.rawValue + "s"
    }
}
