import Entitle

/// How far a batch run is, for a terminal: customers done, how much of the corpus that is, the
/// rate, and the time left (`entitle check: 120,000 customers, 12%, 45,210 customers/s, about
/// 20 s left`).
///
/// Shown only through ``CommandEnvironment/progress``, which the executable sets when standard
/// error is a terminal, and at most five times a second. The time is the environment's clock:
/// progress is no part of an answer.
struct BatchProgress {
    /// The command, as the line starts: `entitle check`.
    private(set) var command: String
    private let show: (@Sendable (String) -> Void)?
    private let now: @Sendable () -> Instant
    private var started: Instant
    private var shown: Int64?

    /// The progress of `command`, shown through `environment.progress` (nothing when it is `nil`).
    init(command: String, environment: CommandEnvironment) {
        self.command = command
        show = environment.progress
        now = environment.now
        started = environment.progress == nil ? Instant(millisecondsSince1970: 0) : environment.now()
    }

    /// Shows that `customers` are done and `fraction` of the corpus is read (`nil`: not known).
    mutating func update(customers: Int, fraction: Double?) {
        guard let show else { return }
        let time = now().millisecondsSince1970
        if let shown, time &- shown < 200, time >= shown { return }
        shown = time
        show(Self.line(command: command, customers: customers, fraction: fraction, milliseconds: time &- started.millisecondsSince1970))
    }

    /// Starts over: another part of the run, with its own rate, under its own name.
    mutating func restart(command: String) {
        self.command = command
        if show != nil { started = now() }
        shown = nil
    }

    /// Clears the progress line, before the run's summary is printed.
    func finish() {
        show?("")
    }

    /// The progress line after `milliseconds` of work.
    static func line(command: String, customers: Int, fraction: Double?, milliseconds: Int64) -> String {
        var line = "\(command): \(ImpactReport.count(customers)) customer\(customers == 1 ? "" : "s")"
        if let fraction, fraction.isFinite {
            line += ", \(Int(min(max(fraction, 0), 1) * 100))%"
        }
        // Under a second, a rate says little.
        guard milliseconds >= 1_000 else { return line }
        let seconds = Double(milliseconds) / 1_000
        line += ", \(ImpactReport.count(Int(Double(customers) / seconds))) customers/s"
        if let fraction, fraction.isFinite, fraction > 0, fraction < 1 {
            line += ", about \(duration(seconds * (1 - fraction) / fraction)) left"
        }
        return line
    }

    /// `5 s`, `3 min 20 s`, `2 h 5 min`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(min(max(seconds.rounded(), 0), 86_400 * 365))
        if total < 60 { return "\(total) s" }
        if total < 3_600 { return "\(total / 60) min" + (total % 60 == 0 ? "" : " \(total % 60) s") }
        return "\(total / 3_600) h" + (total % 3_600 / 60 == 0 ? "" : " \(total % 3_600 / 60) min")
    }
}
