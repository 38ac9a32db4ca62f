/// What a proof found for one item: no searched customer tells the catalogs apart, or some gain
/// under the new one, lose, or see something else change.
///
/// Closed: same, more, less or changed partition every outcome of a comparison.
public enum ProofVerdict: String, Hashable, Sendable, CaseIterable, Codable {
    /// No searched customer, at no searched instant, gets a different answer.
    case same
    /// Some customers get more under the new catalog (a feature on, a higher balance, a product
    /// active, an offer they may take), and none less.
    case more
    /// Some customers get less under the new catalog (a feature off, a lower balance, a product no
    /// longer active, an offer withdrawn), and none more.
    case less
    /// Some get more and some less, or the answer differs otherwise (an `until` moved, another
    /// state, another reason).
    case changed
}
