/// What a proof found: for each part of each app's answer, whether any searched customer tells
/// the two catalogs apart, and the smallest that does; and what was searched.
///
/// Made by ``CatalogProof/compare(_:_:options:progress:)``; ``text`` and ``json`` render it as
/// `entitle diff --prove` prints it.
public struct ProofReport: Sendable {
    /// One part of the answer and what the search found for it.
    public struct Item: Sendable {
        /// The part of the answer.
        public var item: ProofItem
        /// `same`, or which way customers' answers moved.
        public var verdict: ProofVerdict
        /// The smallest witness of each way the answer moved (`less`, `more`, `changed`, in that
        /// order); empty when `same`.
        public var witnesses: [ProofWitness]
        /// Whether everything this part reads (its own definition, the products it depends on,
        /// the grandfather rules, the catalogs of required apps) is the same in both catalogs: it
        /// is then `same` for every customer, and was not searched.
        public var unchanged: Bool

        /// Whether a witness shows a customer losing a feature or some balance.
        public var showsLoss: Bool { witnesses.contains { ItemValue.isLoss(item.kind, $0.direction) } }
    }

    /// The most transactions a searched customer had.
    public var depth: Int
    /// What was searched, over every app.
    public var statistics: ProofStatistics
    /// The apps compared, in the new portfolio's order, then apps only the old one has.
    public var apps: [String]
    /// Every part of every app's answer, by app, then kind (features, balances, products,
    /// offers, promotions), in catalog order.
    public var items: [Item]

    /// The parts of the answer some customer gets differently.
    public var differences: [Item] { items.filter { $0.verdict != .same } }

    /// Whether a witness shows a customer losing a feature or some balance (what
    /// `entitle diff --prove --fail-on-loss` fails on).
    public var showsLoss: Bool { items.contains(where: \.showsLoss) }

    /// What was searched, in one sentence: `searched every receipt of up to 2 transactions at
    /// every boundary instant: 18,240 receipts, 391,000 evaluations`.
    public var searched: String {
        var text =
            "searched every receipt of up to \(depth) transaction\(depth == 1 ? "" : "s") at every boundary instant: "
            + "\(Self.count(statistics.customers)) receipts, \(Self.count(statistics.evaluations)) evaluations"
        let unchanged = items.filter(\.unchanged).count
        if unchanged > 0 { text += "; \(Self.count(unchanged)) of \(Self.count(items.count)) parts of the answer read nothing that changed" }
        if let incompleteness = statistics.incompleteness { text += "; " + incompleteness }
        return text
    }

    /// A count with thousands separators: `18,240`.
    static func count(_ value: Int) -> String { CountText.grouped(value) }
}
