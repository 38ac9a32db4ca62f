import Entitle
import Foundation

/// What a command printed and how it exited; the executable writes it out, tests read it.
public struct CommandOutput: Sendable, Equatable {
    /// 0 done, 1 invalid catalog or receipt, 2 misuse.
    public var exitCode: Int32
    /// What to print on standard output.
    public var standardOutput: String
    /// What to print on standard error.
    public var standardError: String

    /// Creates an outcome.
    public init(exitCode: Int32 = 0, standardOutput: String = "", standardError: String = "") {
        self.exitCode = exitCode
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    static let success: Int32 = 0
    static let invalidInput: Int32 = 1
    static let misuse: Int32 = 2
}

/// What a command may read from outside its arguments: standard input and the clock.
public struct CommandEnvironment: Sendable {
    /// Reads standard input: all of it, or its first ``maxStandardInputBytes`` + 1 bytes (a
    /// reader stops there, so an endless stream cannot fill memory; one byte more than the limit
    /// tells the command the input is too long).
    public var readStandardInput: @Sendable () -> [UInt8]
    /// The most standard input a command reads: the largest receipt file.
    public static let maxStandardInputBytes = ReceiptLimits.maxBytes
    /// The current instant, used only when `--at` is not given.
    public var now: @Sendable () -> Instant
    /// Shows how far a long run is (a line on a terminal's standard error); `nil` shows nothing.
    public var progress: (@Sendable (String) -> Void)?
    /// Writes standard output as it is produced (batch runs stream their lines through it);
    /// `nil` collects everything in ``CommandOutput/standardOutput``.
    public var writeStandardOutput: (@Sendable (String) -> Void)?
    /// The file descriptor a customer corpus given as `-` is streamed from (standard input, 0).
    public var standardInputDescriptor: Int32 = 0

    /// Creates an environment from a reader of standard input, a clock and, for long runs, a
    /// progress display and a writer of standard output.
    public init(
        readStandardInput: @escaping @Sendable () -> [UInt8], now: @escaping @Sendable () -> Instant,
        progress: (@Sendable (String) -> Void)? = nil, writeStandardOutput: (@Sendable (String) -> Void)? = nil
    ) {
        self.readStandardInput = readStandardInput
        self.now = now
        self.progress = progress
        self.writeStandardOutput = writeStandardOutput
    }
}

/// A command-line mistake: printed as one line and where to find the usage, exit code 2.
struct UsageError: Error {
    var message: String
    /// A suggestion ("did you mean `--catalog`?"): after the message in text, the diagnostic's
    /// `help` in JSON.
    var help: String? = nil
}
