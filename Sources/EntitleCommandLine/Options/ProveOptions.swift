import Entitle
import Foundation

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

    /// `--time-limit TIME` (diff --prove, validate --deep).
    static let timeLimit: Option<Duration> = .duration(
        "--time-limit",
        help: """
            stop searching after TIME (`90`, `90s`, `10m`, `1h`) with what was proved so far: the report says the search is not
            complete and up to which depth every customer was searched
            """)

    /// The search's options from a command line: `--depth`, default 2; `--time-limit`.
    static func options(_ arguments: ParsedArguments) throws(UsageError) -> ProofOptions {
        var options = ProofOptions(depth: try arguments.value(depth) ?? 2)
        options.timeLimit = try arguments.value(timeLimit)
        return options
    }

    /// Progress on a terminal: `entitle diff --prove: com.example.diagrams (1 of 3): 12,345
    /// customers, 40%, 2,100 customers/s, about 20 s left`; `nil` without one.
    static func progress(_ command: String, environment: CommandEnvironment) -> ProofProgressLine? {
        environment.progress == nil ? nil : ProofProgressLine(command: command, environment: environment)
    }
}

/// The progress line of a proof's search, shown from the searching threads (at most five times a
/// second, through ``BatchProgress``).
final class ProofProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private var line: BatchProgress
    private let command: String
    private var app = ""

    init(command: String, environment: CommandEnvironment) {
        self.command = command
        line = BatchProgress(command: command, environment: environment)
    }

    /// ``update(_:)``, as a proof takes it.
    var callback: @Sendable (ProofProgress) -> Void {
        { [self] progress in update(progress) }
    }

    /// Shows how far the search is.
    func update(_ progress: ProofProgress) {
        lock.lock()
        defer { lock.unlock() }
        let name =
            progress.appCount > 1 ? "\(command): \(progress.app) (\(progress.appNumber) of \(progress.appCount))" : "\(command): \(progress.app)"
        if name != app {
            // Another app: its own rate and time left.
            app = name
            line.restart(command: name)
        }
        line.update(customers: progress.customers, fraction: progress.fraction)
    }

    /// Clears the line.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        line.finish()
    }
}
