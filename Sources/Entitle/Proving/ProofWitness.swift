/// The smallest customer a search found that tells two catalogs apart on one part of the
/// answer: its receipts, the instant, and the old and the new answer.
///
/// Smallest: fewest transactions (a grant or another app's receipt counting as one), then the
/// first in the search's order (plain purchases before refunds and renewal entries, no receipt
/// facts before some, the usual base instant before shifted ones), at the earliest instant the
/// difference shows.
public struct ProofWitness: Sendable {
    /// Which way the answer moved: ``ProofVerdict/more``, ``ProofVerdict/less`` or
    /// ``ProofVerdict/changed``.
    public var direction: ProofVerdict
    /// The customer's receipts: the app's own first, then other apps' (an upgrade's prerequisite).
    public var receipts: [Receipt]
    /// When the answers differ.
    public var at: Instant
    /// The old catalog's answer, as `check` words it (`on until 2026-02-28T00:00:00Z`, `off`).
    public var old: String
    /// The new catalog's answer.
    public var new: String
    /// How many transactions the customer has (grants and other apps' receipts included).
    public var transactions: Int
    /// The customer in words, a line per element: product, way, instant.
    public var customer: [String]
    /// The new answer as part of what `entitle check --format json` prints, the `expect` of a test
    /// case; `nil` when the new catalog does not have the item.
    package var expectation: JSONOutput?
    /// Where the customer came in the search.
    var order: SearchOrder
}
