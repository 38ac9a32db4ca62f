import Entitle

/// The options of a proof by search: `diff --prove [--depth N] [--witnesses DIR]` and `validate
/// --deep [--depth N]`, each declared once (``DiffCommand`` and ``ValidateCommand`` list them).
enum ProveOptions {
    /// `--prove` (diff).
    static let prove: Option<Bool> = .flag(
        "--prove",
        help: """
            also search every customer of up to N transactions built from both catalogs (each product bought in every way
            the rules tell apart, renewal entries, grants, receipt facts, prerequisite receipts), evaluated under each at
            every instant where an answer changes, and report each feature, balance, product and offer as `same` or
            `more`, `less`, `changed` with the smallest customer showing it
            """)
    /// `--depth N` (diff --prove, validate --deep).
    static let depth: Option<Int> = .integer(
        "--depth", in: ProofOptions.depths,
        help:
            "the most transactions a searched customer has, \(ProofOptions.depths.lowerBound) to \(ProofOptions.depths.upperBound) (default 2); each more multiplies the time"
    )
    /// `--witnesses DIR` (diff --prove).
    static let witnesses: Option<String> = .path(
        "--witnesses", valueName: "DIR",
        help: """
            write each witness of --prove to DIR as a test file (*.test.json) expecting the new catalog's answer, ready for
            `entitle test` and to join the catalog's tests
            """)
    /// `--deep` (validate).
    static let deep: Option<Bool> = .flag(
        "--deep",
        help: """
            also search every customer of up to N transactions (--depth, default 2) at every instant where the answer
            changes, and warn about what none of them reaches: a feature never on, a product never offered, a product whose
            grants are always on already when it may be bought, a trial that adds nothing, a grandfather rule that never
            matches or only with another covering as much, an offer whose conditions never all hold
            """)

    /// The search's options from a command line: `--depth`, default 2.
    static func options(_ arguments: ParsedArguments) throws(UsageError) -> ProofOptions {
        ProofOptions(depth: try arguments.value(depth) ?? 2)
    }
}
