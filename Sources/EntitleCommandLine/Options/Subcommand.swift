/// A command of `entitle`, declared: its name, one line for the overview, its synopses (which
/// name the options it accepts), the paragraphs of its help, and what it does.
///
/// Its scanner (``parse(_:)``), its `--help` and `entitle help <command>` (``help``) are derived
/// from the declaration, so an option is spelled in one place and its help cannot drift from
/// what the command accepts.
struct Subcommand: Sendable {
    /// The name typed after `entitle`.
    var name: String
    /// One line for `entitle --help`.
    var summary: String
    /// The forms of the command line, one synopsis line each; the options they name, and
    /// `--help`, are what the command accepts.
    var synopses: [[SynopsisItem]]
    /// The notes and the exit codes: paragraphs separated by a blank line, re-flowed.
    var discussion: String
    /// Whether misuse is also printed as `{"errors": [...]}` on standard output when the
    /// command line asks for `--format json` (`check` and `explain` promise JSON whatever happens).
    var misuseAsJSON = false
    /// Runs the command on its scanned arguments.
    ///
    /// - Throws: ``UsageError`` for a command line it cannot run (printed as misuse, exit 2).
    var run: @Sendable (ParsedArguments, CommandEnvironment) throws(UsageError) -> CommandOutput

    /// Every option the command accepts, in the order the synopses name them, then `--help`.
    var options: [OptionSpec] {
        var seen: Set<String> = []
        var options: [OptionSpec] = []
        for item in synopses.joined() {
            for option in item.options where seen.insert(option.name).inserted { options.append(option) }
        }
        return options + [SharedOptions.help.spec]
    }

    /// The positional arguments, in the order the synopses name them.
    var arguments: [ArgumentSpec] {
        var arguments: [ArgumentSpec] = []
        for item in synopses.joined() {
            if case .argument(let argument) = item.form, !arguments.contains(argument) { arguments.append(argument) }
        }
        return arguments
    }

    /// Scans a command line against ``options``.
    ///
    /// - Throws: ``UsageError`` for an unknown option, a missing value, a repeated single one.
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        try ParsedArguments(arguments, options: options)
    }
}

/// A positional argument, as the synopsis shows it and as the help explains it.
struct ArgumentSpec: Sendable, Hashable {
    /// How it reads in the synopsis: `FILE`, `OLD NEW`, `[PATH...]`.
    var synopsis: String
    /// How it reads in the help's list: `FILE`, `OLD, NEW`, `PATH`.
    var label: String
    /// What it is, re-flowed.
    var help: String
}

/// One part of a synopsis: an option (required or not), options that go together or exclude
/// each other, or a positional argument.
struct SynopsisItem: Sendable {
    /// How the part reads.
    enum Form: Sendable {
        /// `--catalog PATH [--catalog PATH ...]`: must be given.
        case required
        /// `[--at INSTANT]`, `[--environment NAME ...]`.
        case optional
        /// `[--feature ID | --product ID | --offer ID]`: at most one of them.
        case oneOf
        /// `[--verify --root FILE ...]`: all of them, or none.
        case together
        /// A positional argument.
        case argument(ArgumentSpec)
    }

    /// How the part reads.
    var form: Form
    /// The options it names (none for an argument).
    var options: [OptionSpec]

    /// An option that must be given.
    static func required<Value>(_ option: Option<Value>) -> SynopsisItem {
        SynopsisItem(form: .required, options: [option.spec])
    }

    /// An option that may be given.
    static func optional<Value>(_ option: Option<Value>) -> SynopsisItem {
        SynopsisItem(form: .optional, options: [option.spec])
    }

    /// Options of which at most one may be given.
    static func oneOf(_ options: OptionSpec...) -> SynopsisItem {
        SynopsisItem(form: .oneOf, options: options)
    }

    /// Options given together, or not at all.
    static func together(_ options: OptionSpec...) -> SynopsisItem {
        SynopsisItem(form: .together, options: options)
    }

    /// A positional argument.
    static func argument(_ synopsis: String, label: String? = nil, help: String) -> SynopsisItem {
        SynopsisItem(form: .argument(ArgumentSpec(synopsis: synopsis, label: label ?? synopsis, help: help)), options: [])
    }
}
