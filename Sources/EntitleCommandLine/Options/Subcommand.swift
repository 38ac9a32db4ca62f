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

    /// Scans a command line against ``options``, and holds it to the synopses (unless it asks
    /// for `--help`).
    ///
    /// - Throws: ``UsageError`` for an unknown option, a missing value, a repeated single one, or
    ///   a command line no synopsis allows (``checkSynopses(_:)``).
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        let parsed = try ParsedArguments(arguments, options: options)
        if !parsed.contains(SharedOptions.help) { try checkSynopses(parsed) }
        return parsed
    }

    /// Holds a command line to what the synopses show, so that the help and parsing cannot
    /// disagree: its options all belong to one synopsis, which it satisfies (each `required`
    /// option given, at least one of an `anyOf`, at most one of a `oneOf`, all or none of a
    /// `together`).
    ///
    /// - Throws: ``UsageError`` with the first problem of the first synopsis its options belong
    ///   to; when they belong to none, naming an option that does not go with the others.
    func checkSynopses(_ parsed: ParsedArguments) throws(UsageError) {
        guard !synopses.isEmpty else { return }
        let given = options.filter { $0.name != SharedOptions.help.name && parsed.contains($0) }
        let fitting = synopses.filter { synopsis in given.allSatisfy { Self.names(synopsis).contains($0.name) } }
        guard !fitting.isEmpty else { throw Self.mixed(given, synopses: synopses) }
        var problems: [UsageError] = []
        for synopsis in fitting {
            guard let found = Self.problem(synopsis, parsed) else { return }
            problems.append(found)
        }
        throw problems[0]
    }

    /// The names of the options a synopsis names.
    private static func names(_ synopsis: [SynopsisItem]) -> Set<String> { Set(synopsis.flatMap(\.options).map(\.name)) }

    /// The first constraint of `synopsis` the command line breaks, or `nil`.
    private static func problem(_ synopsis: [SynopsisItem], _ parsed: ParsedArguments) -> UsageError? {
        func list(_ options: [OptionSpec], _ conjunction: String) -> String {
            let quoted = options.map { "`\($0.name)`" }
            return quoted.count < 2 ? quoted.joined() : quoted.dropLast().joined(separator: ", ") + " \(conjunction) " + quoted.last!
        }
        for item in synopsis {
            let given = item.options.filter { parsed.contains($0) }
            switch item.form {
            case .required:
                guard let option = item.options.first, given.isEmpty else { continue }
                return UsageError(message: "`\(option.name)` is required")
            case .anyOf where given.isEmpty:
                return UsageError(
                    message: item.options.count == 2
                        ? "give \(list(item.options, "or")), or both" : "give at least one of \(list(item.options, "or"))")
            case .oneOf where given.count > 1:
                return UsageError(message: "give one of \(list(item.options, "or")), not \(list(given, "and"))")
            case .together where !given.isEmpty && given.count < item.options.count:
                let missing = item.options.filter { !parsed.contains($0) }
                return UsageError(
                    message: "\(list(item.options, "and")) go together: give \(list(missing, "and")) too, or "
                        + (item.options.count == 2 ? "neither" : "none of them"))
            default: continue
            }
        }
        return nil
    }

    /// Options that belong to no one synopsis together: the first that the synopsis holding most
    /// of them lacks, said as what it is for (the required options of its own synopsis).
    private static func mixed(_ given: [OptionSpec], synopses: [[SynopsisItem]]) -> UsageError {
        func required(_ synopsis: [SynopsisItem]) -> [OptionSpec] { synopsis.filter { $0.form == .required }.flatMap(\.options) }
        guard
            let best = synopses.max(by: { a, b in
                given.filter { names(a).contains($0.name) }.count < given.filter { names(b).contains($0.name) }.count
            }),
            let stray = given.first(where: { !names(best).contains($0.name) }),
            let home = synopses.first(where: { names($0).contains(stray.name) })
        else { return UsageError(message: "these options do not go together: " + given.map { "`\($0.name)`" }.joined(separator: ", ")) }
        let own = required(home).filter { !names(best).contains($0.name) }
        let rival = required(best).filter { option in given.contains(option) && !names(home).contains(option.name) }
        if own.contains(stray), let other = rival.first {
            return UsageError(message: "give `\(other.name)` or `\(stray.name)`, not both")
        }
        let purpose = own.isEmpty ? "another form of the command" : own.map { "`\($0.name)`" }.joined(separator: " and ")
        return UsageError(message: "`\(stray.name)` is for \(purpose)")
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
    enum Form: Sendable, Equatable {
        /// `--catalog PATH [--catalog PATH ...]`: must be given.
        case required
        /// `[--at INSTANT]`, `[--environment NAME ...]`.
        case optional
        /// `[--feature ID | --product ID | --offer ID]`: at most one of them.
        case oneOf
        /// `[--verify --root FILE ...]`: all of them, or none.
        case together
        /// `(--transaction ID | --notification FILE)...`: at least one of them.
        case anyOf
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

    /// Options of which at least one must be given.
    static func anyOf(_ options: OptionSpec...) -> SynopsisItem {
        SynopsisItem(form: .anyOf, options: options)
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
