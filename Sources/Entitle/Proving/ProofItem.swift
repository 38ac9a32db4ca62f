/// One part of an app's answer that a proof compares: a feature, a balance, a product's state, a
/// product's offer, or a win-back or promotional offer.
public struct ProofItem: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// What part of the answer.
    @nonexhaustive
    public enum Kind: String, Hashable, Sendable, CaseIterable, Codable {
        /// Whether a feature is on, and until when.
        case feature
        /// A currency's balance.
        case balance
        /// A number limit's value.
        case limit
        /// A product's state (not a consumable's), its `until`, renewal and what it renews to.
        case product
        /// Whether a product may be offered, why not, its level change and intro offer.
        case offer
        /// Whether a win-back or promotional offer may be offered, and why not.
        case promotion
    }

    /// The app whose answer it is part of.
    public var app: String
    /// What part of the answer.
    public var kind: Kind
    /// The feature, currency, limit or product id; for a promotion, the offer's id.
    public var id: String
    /// For a promotion: the product whose offer it is; `nil` otherwise.
    public var product: String?

    /// Creates an item.
    public init(app: String, kind: Kind, id: String, product: String? = nil) {
        self.app = app
        self.kind = kind
        self.id = id
        self.product = product
    }

    /// `feature pro`, `promotion sync.winback of com.example.diagrams.sync.monthly`.
    public var description: String {
        "\(kind.rawValue) \(id)" + (product.map { " of \($0)" } ?? "")
    }

    /// By app, then kind in the order of ``Kind``, then id.
    public static func < (a: ProofItem, b: ProofItem) -> Bool {
        if a.app != b.app { return a.app < b.app }
        let kinds = Kind.allCases
        if a.kind != b.kind { return kinds.firstIndex(of: a.kind)! < kinds.firstIndex(of: b.kind)! }
        if a.id != b.id { return a.id < b.id }
        return (a.product ?? "") < (b.product ?? "")
    }
}
