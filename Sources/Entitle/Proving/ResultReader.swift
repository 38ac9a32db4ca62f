/// Reads parts of one result for a search, finding once what every product's offer reads (the
/// same ``Entitlements/offers`` computes, through the same decision), so a search that reads many
/// offers of one result pays for that once.
struct ResultReader {
    let result: Entitlements
    private var context: Entitlements.OfferContext?
    private var decisions: [Int: OfferDecision] = [:]

    init(_ result: Entitlements) { self.result = result }

    /// The offer of a product, as ``Entitlements/offer(for:)`` decides it; with `adds` only when
    /// `additions` is true. `nil` for a product the catalog does not define.
    mutating func decision(of product: String, additions: Bool = false) -> OfferDecision? {
        let catalog = result.catalog
        guard let index = catalog.productIndex[product] else { return nil }
        if let known = decisions[index] { return known }
        if context == nil { context = Entitlements.OfferContext(result) }
        let decision = result.offerDecision(index, context: context!, additions: additions)
        decisions[index] = decision
        return decision
    }
}
