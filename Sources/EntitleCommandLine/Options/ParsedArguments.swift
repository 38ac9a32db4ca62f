import Entitle

/// A command line scanned against the options a command declares: what was given for each
/// option, and the positional arguments.
///
/// Accepts `--name value` and `--name=value`; `--` ends options; a lone `-` is a value (standard
/// input). An option the command does not declare, a value missing or given to a flag, and an
/// option of ``OptionSpec/Kind/single`` given twice are misuse found here; values are read
/// (typed, checked) when the command asks for them, so its checks run in the order it chooses.
struct ParsedArguments {
    /// The texts given for each option, by its name (an alias counts as its option).
    private var texts: [String: [String]] = [:]
    /// The options the command declares, by name.
    private let declared: Set<String>
    /// The arguments that are not options, in order.
    private(set) var positional: [String] = []

    /// Scans `arguments` against `options`.
    ///
    /// - Throws: ``UsageError``: an unknown option (with a "did you mean" among `options`), a
    ///   value missing or given to a flag, or a single option given more than once (unless
    ///   `--help` is given too: the help is what was asked for).
    init(_ arguments: [String], options: [OptionSpec]) throws(UsageError) {
        var bySpelling: [String: OptionSpec] = [:]
        for option in options {
            for spelling in option.spellings { bySpelling[spelling] = option }
        }
        declared = Set(options.map(\.name))
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positional.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var spelling = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "=") {
                spelling = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let option = bySpelling[spelling] else {
                throw UsageError(
                    message: "unknown option `\(spelling)`",
                    help: Suggestion.help(for: spelling, in: options.flatMap(\.spellings)))
            }
            switch option.kind {
            case .flag:
                guard inline == nil else { throw UsageError(message: "`\(spelling)` takes no value") }
                texts[option.name, default: []].append("")
            case .single, .repeatable:
                if let inline {
                    texts[option.name, default: []].append(inline)
                } else {
                    guard index < arguments.count else { throw UsageError(message: "`\(spelling)` needs a value") }
                    texts[option.name, default: []].append(arguments[index])
                    index += 1
                }
            }
        }
        guard texts[SharedOptions.help.name] == nil else { return }
        for option in options where option.kind == .single && (texts[option.name]?.count ?? 0) > 1 {
            throw UsageError(message: "`\(option.name)` is given more than once")
        }
    }

    /// Fails on a positional argument, for a command that takes none.
    ///
    /// - Throws: ``UsageError`` naming the first one.
    func refusePositional() throws(UsageError) {
        if let first = positional.first { throw UsageError(message: "unexpected argument `\(first)`") }
    }

    /// Whether a flag (or any option) is given.
    func contains<Value>(_ option: Option<Value>) -> Bool {
        !texts(option).isEmpty
    }

    /// Whether an option is given, by its declaration.
    func contains(_ option: OptionSpec) -> Bool {
        !(texts[option.name] ?? []).isEmpty
    }

    /// The texts given for an option, in order, unread.
    func texts<Value>(_ option: Option<Value>) -> [String] {
        assert(declared.contains(option.name), "\(option.name) is not declared by this command")
        return texts[option.name] ?? []
    }

    /// The value of an option given at most once, read; `nil` when it is not given.
    ///
    /// - Throws: ``UsageError`` from the option's reader.
    func value<Value>(_ option: Option<Value>) throws(UsageError) -> Value? {
        guard let text = texts(option).first else { return nil }
        return try option.read(text)
    }

    /// Every value of an option, read, in order.
    ///
    /// - Throws: ``UsageError`` from the option's reader, for the first value it refuses.
    func values<Value>(_ option: Option<Value>) throws(UsageError) -> [Value] {
        var values: [Value] = []
        for text in texts(option) { values.append(try option.read(text)) }
        return values
    }
}
