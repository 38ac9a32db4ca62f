// The help of a command, derived from its declaration: the synopses, a list of its arguments and
// options with their help, then its notes and exit codes.

extension Subcommand {
    /// The width the help is flowed to.
    static let helpWidth = 96
    /// Where the help of each argument and option starts in the list.
    static let helpColumn = 28

    /// What `entitle <command> --help` and `entitle help <command>` print.
    var help: String {
        var lines: [String] = []
        for (index, synopsis) in synopses.enumerated() {
            let lead = (index == 0 ? "usage: " : "       ") + "entitle \(name) "
            lines += HelpText.flow(
                synopsis.map(\.synopsis), width: Self.helpWidth, first: lead,
                rest: String(repeating: " ", count: lead.count))
        }
        lines.append("")
        for argument in arguments {
            lines += HelpText.entry(argument.label, argument.help)
        }
        for option in options {
            lines += HelpText.entry(option.label, option.help)
            for choice in option.choices {
                guard let help = choice.help else { continue }
                let indent = String(repeating: " ", count: Self.helpColumn + 2)
                lines += HelpText.flow(
                    HelpText.words("`\(choice.value)`: " + help), width: Self.helpWidth,
                    first: indent, rest: indent + "  ")
            }
        }
        for paragraph in discussion.components(separatedBy: "\n\n") where !paragraph.isEmpty {
            lines.append("")
            lines += HelpText.flow(HelpText.words(paragraph), width: Self.helpWidth, first: "", rest: "")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension SynopsisItem {
    /// How the part reads in a synopsis line.
    var synopsis: String {
        func use(_ option: OptionSpec) -> String {
            option.kind == .repeatable ? option.synopsisLabel + " ..." : option.synopsisLabel
        }
        switch form {
        case .required:
            let option = options[0]
            return option.kind == .repeatable ? "\(option.synopsisLabel) [\(option.synopsisLabel) ...]" : option.synopsisLabel
        case .optional: return "[\(use(options[0]))]"
        case .oneOf: return "[" + options.map(\.synopsisLabel).joined(separator: " | ") + "]"
        case .together: return "[" + options.map(use).joined(separator: " ") + "]"
        case .anyOf: return "(" + options.map(\.synopsisLabel).joined(separator: " | ") + ")..."
        case .argument(let argument): return argument.synopsis
        }
    }
}

/// Text flowed to a width, for help.
enum HelpText {
    /// The words of `text`: line breaks and runs of spaces separate words like one space, except
    /// within backticks, which keep a command (`swift build --traits SystemCrypto`) on one line.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var open = false
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if open { words[words.count - 1] += " " + word } else { words.append(String(word)) }
            if word.filter({ $0 == "`" }).count % 2 == 1 { open.toggle() }
        }
        return words
    }

    /// `pieces` joined by spaces into lines of at most `width` characters (a piece longer than
    /// a line gets a line of its own), the first line after `first`, the others after `rest`.
    static func flow(_ pieces: [String], width: Int, first: String, rest: String) -> [String] {
        var lines: [String] = []
        var line = first
        var empty = true
        for piece in pieces {
            if !empty && line.count + 1 + piece.count > width {
                lines.append(line)
                line = rest
                empty = true
            }
            line += (empty ? "" : " ") + piece
            empty = false
        }
        lines.append(line)
        return lines
    }

    /// An entry of the list of arguments and options: the label, then the help from
    /// ``Subcommand/helpColumn`` (on the next line when the label reaches it).
    static func entry(_ label: String, _ help: String) -> [String] {
        let column = Subcommand.helpColumn
        let indent = String(repeating: " ", count: column)
        let head = "  " + label
        if head.count + 2 > column {
            return [head] + flow(words(help), width: Subcommand.helpWidth, first: indent, rest: indent)
        }
        return flow(
            words(help), width: Subcommand.helpWidth,
            first: head + String(repeating: " ", count: column - head.count), rest: indent)
    }
}
