/// An option and how its value is read: the typed declaration a command asks its
/// ``ParsedArguments`` for (`try arguments.value(SharedOptions.at)` is an `Instant`).
///
/// Declared once, as a static member (``SharedOptions`` for the options several commands share,
/// the command's own type for the others), and listed in the synopses of the commands that
/// accept it; a command may give it help of its own (``help(_:)``) or let it repeat
/// (``repeatable(help:)``) without declaring it again.
struct Option<Value>: Sendable {
    /// The name, value name, kind, choices and help.
    var spec: OptionSpec
    /// Reads one value as given on the command line.
    ///
    /// - Throws: ``UsageError`` saying what is wrong with the value, naming the option.
    let read: @Sendable (String) throws(UsageError) -> Value

    /// Declares an option from its spec and the reader of its value.
    init(_ spec: OptionSpec, read: @escaping @Sendable (String) throws(UsageError) -> Value) {
        self.spec = spec
        self.read = read
    }

    /// The name as typed: `--catalog`.
    var name: String { spec.name }

    /// The name in backticks, as misuse messages quote it.
    var quoted: String { "`\(spec.name)`" }

    /// The same option with the help a command gives it.
    func help(_ text: String) -> Option {
        var option = self
        option.spec.help = text
        return option
    }

    /// The same option, given as often as wanted (`diff --at` evaluates at each instant).
    func repeatable(help text: String? = nil) -> Option {
        var option = self
        option.spec.kind = .repeatable
        if let text { option.spec.help = text }
        return option
    }
}
