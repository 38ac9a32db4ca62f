/// An option of a command, declared once: its name, the value it takes, how often it may be
/// given, and its help.
///
/// The scanner (``ParsedArguments``), the misuse messages ("unknown option", "needs a value",
/// "is given more than once"), the synopsis and the `--help` of every command that accepts the
/// option are derived from this one declaration. ``Option`` adds how its value is read.
struct OptionSpec: Sendable, Hashable {
    /// Whether an option takes a value, and how often it may be given.
    enum Kind: Sendable, Hashable {
        /// No value: given or not (`--strict`).
        case flag
        /// One value, given at most once (`--app BUNDLE`).
        case single
        /// One value each time, given as often as wanted (`--catalog PATH ...`).
        case repeatable
    }

    /// One of the values of an option that takes a fixed list of them.
    struct Choice: Sendable, Hashable {
        /// The value as typed (`sarif`).
        var value: String
        /// What the value does, listed under the option's help; `nil` when the option's help
        /// says it.
        var help: String?
    }

    /// The name as typed, with its dashes: `--catalog`.
    var name: String
    /// Other spellings of the same option (`-h` for `--help`).
    var aliases: [String] = []
    /// What the value is, in capitals (`PATH`, `FILE`, `INSTANT`); `nil` for a flag.
    var valueName: String?
    /// Whether it takes a value, and how often it may be given.
    var kind: Kind
    /// The values it takes when they are a fixed list (`text`, `json`); empty otherwise.
    var choices: [Choice] = []
    /// What it does: sentences re-flowed to the width of the help (line breaks are spaces).
    var help: String

    /// Every spelling: the aliases, then the name.
    var spellings: [String] { aliases + [name] }

    /// How the option reads in the help's list: `-h, --help`, `--catalog PATH`.
    var label: String {
        (aliases + [name]).joined(separator: ", ") + (valueName.map { " " + $0 } ?? "")
    }

    /// How one use of the option reads in a synopsis: `--format text|json`, `--at INSTANT`.
    var synopsisLabel: String {
        guard kind != .flag else { return name }
        return name + " " + (choices.isEmpty ? valueName ?? "VALUE" : choices.map(\.value).joined(separator: "|"))
    }
}
