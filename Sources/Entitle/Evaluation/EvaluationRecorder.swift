/// What evaluation decides, told as it decides it: the facts an explanation formats.
///
/// The evaluator is generic over its recorder. Evaluation for an answer uses ``NoRecord``, whose
/// methods do nothing and are specialized away, and skips every fact it would compute only to
/// tell (`Self.records` is `false`); an explanation passes a recorder that keeps them. So the
/// reasons are the evaluator's own, recorded once, and evaluation pays nothing for them.
protocol EvaluationRecorder {
    /// Whether the recorder keeps what it is told.
    static var records: Bool { get }
    /// A recorder told nothing yet.
    init()

    /// A receipt of an environment the caller does not accept, ignored whole.
    mutating func ignored(receipt: Int, environment: String)
    /// The copies of a transaction with several, and which stands for it at the instant.
    mutating func snapshots(_ decision: SnapshotDecision)
    /// A transaction known at the instant that counts for nothing, and why.
    mutating func excluded(_ entry: Evaluator.Entry, because exclusion: TransactionExclusion)
    /// A transaction purchased after the instant.
    mutating func later(_ entry: Evaluator.Entry)
    /// A counted consumable transaction, with the units that credit (after a partial refund).
    mutating func credited(_ entry: Evaluator.Entry, units: Int64, refunded: Int64)
    /// A transaction of a subscription group known at the instant, counting for the account:
    /// what intro offer eligibility reads (`usesIntro`: a trial or intro offer period).
    mutating func boughtInGroup(_ entry: Evaluator.Entry, usesIntro: Bool)
    /// A consumption that counts at the instant, spending from `currency`.
    mutating func spent(receipt: Int, index: Int, currency: Int)
    /// The span a counted transaction covers (`nil`: it counts but adds nothing, as a second
    /// purchase of a non-consumable owned already).
    mutating func covers(_ entry: Evaluator.Entry, span: CoverageSpan?)
    /// What a transaction cancelled at or before the instant covered before its cancellation.
    mutating func refunded(_ entry: Evaluator.Entry, span: CoverageSpan)
    /// What a renewal entry is at the instant.
    mutating func renewal(_ decision: RenewalDecision)
    /// A product's state and the fact that decides it.
    mutating func state(of product: Int32, _ decision: StateDecision)
    /// Whether a grandfather rule matched a receipt, and why.
    mutating func grandfather(rule: Int, receipt: Int, _ decision: GrandfatherDecision)
    /// The customer rescinded consent for the app at `at` (at or before the instant): no feature is on.
    mutating func consentRescinded(at: Int64)
    /// Whether a grant counts, and why.
    mutating func grant(receipt: Int, index: Int, _ decision: GrantDecision)
    /// An Advanced Commerce item (``CompiledCatalog/itemList`` index `item`) of a counted
    /// transaction, and when it stops giving on its own (`Int64.max`: not revoked or refunded in full).
    mutating func item(_ entry: Evaluator.Entry, item: Int, ends: Int64)
}

extension Evaluator {
    /// The recorder of an evaluation that explains nothing.
    struct NoRecord: EvaluationRecorder {
        static var records: Bool { false }
        /// One byte, so that the recorder has storage of its own: a value of no size passed
        /// `inout` gets a shared placeholder address, which ThreadSanitizer reports as an access
        /// race between threads that each evaluate with their own recorder.
        private var storage: UInt8 = 0
        @inline(__always) mutating func ignored(receipt: Int, environment: String) {}
        @inline(__always) mutating func snapshots(_ decision: SnapshotDecision) {}
        @inline(__always) mutating func excluded(_ entry: Evaluator.Entry, because exclusion: TransactionExclusion) {}
        @inline(__always) mutating func later(_ entry: Evaluator.Entry) {}
        @inline(__always) mutating func credited(_ entry: Evaluator.Entry, units: Int64, refunded: Int64) {}
        @inline(__always) mutating func boughtInGroup(_ entry: Evaluator.Entry, usesIntro: Bool) {}
        @inline(__always) mutating func spent(receipt: Int, index: Int, currency: Int) {}
        @inline(__always) mutating func covers(_ entry: Evaluator.Entry, span: CoverageSpan?) {}
        @inline(__always) mutating func refunded(_ entry: Evaluator.Entry, span: CoverageSpan) {}
        @inline(__always) mutating func renewal(_ decision: RenewalDecision) {}
        @inline(__always) mutating func state(of product: Int32, _ decision: StateDecision) {}
        @inline(__always) mutating func grandfather(rule: Int, receipt: Int, _ decision: GrandfatherDecision) {}
        @inline(__always) mutating func consentRescinded(at: Int64) {}
        @inline(__always) mutating func grant(receipt: Int, index: Int, _ decision: GrantDecision) {}
        @inline(__always) mutating func item(_ entry: Evaluator.Entry, item: Int, ends: Int64) {}
    }
}

/// Why a transaction known at the instant counts for nothing.
enum TransactionExclusion: Equatable {
    /// Its product is not in the catalog.
    case unknownProduct
    /// Family-shared, and the product is not family-shareable.
    case notFamilyShareable
    /// It names another account than the one evaluated.
    case otherAccount
    /// Cancelled (refunded or revoked) at or before the instant.
    case cancelled
    /// `isUpgraded`: replaced by a purchase of a higher subscription.
    case upgraded
    /// An auto-renewable transaction without `expiresDate`.
    case noExpiry
    /// Bought but not paid yet.
    case pending
    /// A pre-order whose product is not released yet.
    case preordered
}

/// The copies of one transaction id among the app's receipts, and which one stands for it at
/// the instant: the latest snapshot signed at or before it (copies without `signedDate` first),
/// or the earliest when none is; copies of equal rank merge.
struct SnapshotDecision {
    /// The copy standing for the transaction (its text and most of its fields).
    var standing: (receipt: Int32, index: Int32)
    /// Every other copy and its part.
    var others: [(receipt: Int32, index: Int32, role: SnapshotRole)]
    /// When copies of equal rank disagree on more than cancellation and expiry.
    var conflicting: Bool
}

/// The part a copy of a transaction plays at the instant.
enum SnapshotRole: Equatable {
    /// Signed as the standing copy (or both unsigned): merged with it; it gave the earliest
    /// cancellation or the latest expiry when the flags say so.
    case merged(cancellation: Bool, expiry: Bool)
    /// An earlier snapshot, which a later one replaces.
    case superseded(by: Int64)
    /// Signed after the instant: not known yet.
    case signedLater(Int64)
}

/// A renewal entry at the instant.
struct RenewalDecision {
    var receipt: Int
    var index: Int
    var verdict: Verdict
    /// The product its chain's facts attach to, when its chain has a counted transaction.
    var product: Int32

    enum Verdict: Equatable {
        /// Signed after the instant.
        case signedLater
        /// It names another account than the one evaluated.
        case otherAccount
        /// No transaction of the app's receipts is of its chain.
        case orphan
        /// No transaction of its chain counts at the instant.
        case chainNotCounted
        /// It counts: the fields it decides for the chain (the latest entry stating each), the
        /// grace span it gives, and whether its grace date is stale.
        case counted(decides: [String], grace: CoverageSpan?, stale: Bool)
    }
}

/// What decides a product's state at the instant.
enum StateDecision {
    /// Covered until `end` (`CoverageSpan.never`: no end), by the transactions of the run.
    case active(end: Int64, transactions: [Evaluator.Entry])
    /// Paid coverage ended; a renewal entry's grace period covers until `end`.
    case gracePeriod(end: Int64)
    /// Coverage ended at `ended`; the chain's latest entry saying so says billing is retried.
    case billingRetry(ended: Int64)
    /// Coverage ended; the chain's renewal entries say it is paused until `until`.
    case paused(until: Int64)
    /// Its only purchases known are pending (not paid yet), the first bought at `since`.
    case pending(since: Int64)
    /// Pre-ordered and not released yet: released at `release`.
    case preordered(release: Int64)
    /// Every counted purchase of the pass starts after the instant, the first at `start`.
    case scheduled(start: Int64)
    /// Its latest transaction was cancelled.
    case revoked(Evaluator.Entry)
    /// Coverage ended at `ended` (`nil`: nothing ever covered).
    case expired(ended: Int64?)
}

/// Whether a grandfather rule matches one receipt: matched, or the first of its conditions that
/// does not hold, and why.
enum GrandfatherDecision: Equatable {
    /// It matches: every condition holds.
    case matched(from: Int64)
    /// The receipt's value is not before the rule's (for the platform: not one the rule lists).
    case notMatched(GrandfatherFact)
    /// The receipt does not say.
    case missing(GrandfatherFact)
    /// The receipt's version is not dot-separated numbers.
    case unreadableVersion
}

/// The receipt facts grandfather rules read.
enum GrandfatherFact: Equatable {
    case version, purchase, platform
}

/// Whether a grant counts at the instant.
enum GrantDecision: Equatable {
    /// A copy of a grant with the same id in another receipt, which stands for it.
    case copy
    /// It starts after the instant.
    case later
    /// It was revoked at or before the instant.
    case revoked
    /// It counts, covering `[start, end)`.
    case counted
}
