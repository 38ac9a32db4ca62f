import Entitle
import Foundation

// The kinds of values options take, each with the misuse message for a value that is not one.

extension Option where Value == Bool {
    /// An option that takes no value: given or not.
    static func flag(_ name: String, aliases: [String] = [], help: String) -> Option<Bool> {
        Option(OptionSpec(name: name, aliases: aliases, valueName: nil, kind: .flag, help: help)) { _ in true }
    }
}

extension Option where Value == String {
    /// A path of a file or directory, as given (`-` stands for standard input where the command
    /// says so).
    static func path(_ name: String, valueName: String = "PATH", kind: OptionSpec.Kind = .single, help: String) -> Option<String> {
        text(name, valueName: valueName, kind: kind, help: help)
    }

    /// A value read as it is given: a bundle id, an environment name, a product id.
    static func text(_ name: String, valueName: String, kind: OptionSpec.Kind = .single, help: String) -> Option<String> {
        Option(OptionSpec(name: name, valueName: valueName, kind: kind, help: help)) { text in text }
    }

    /// A UUID, 8-4-4-4-12 hexadecimal digits (`5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47`), read in
    /// lowercase.
    static func uuid(_ name: String, valueName: String = "UUID", help: String) -> Option<String> {
        Option(OptionSpec(name: name, valueName: valueName, kind: .single, help: help)) { text throws(UsageError) in
            if let problem = uuidProblem(text) {
                throw UsageError(message: "`\(name) \(text)`: not a UUID: \(problem)")
            }
            return text.lowercased()
        }
    }

    /// An account id: 1 to 256 characters, as given.
    static func account(_ name: String, valueName: String = "ID", kind: OptionSpec.Kind = .single, help: String) -> Option<String> {
        Option(OptionSpec(name: name, valueName: valueName, kind: kind, help: help)) { text throws(UsageError) in
            guard !text.isEmpty, text.count <= 256 else {
                throw UsageError(message: "`\(name)`: an account id is 1 to 256 characters, not \(text.count)")
            }
            return text
        }
    }

    /// What keeps `text` from being a UUID, or `nil` when it is one.
    static func uuidProblem(_ text: String) -> String? {
        let shape = "8-4-4-4-12 hexadecimal digits, like `5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47`"
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.count == 5 else { return "it must be \(shape)" }
        if let bad = text.first(where: { !$0.isHexDigit && $0 != "-" }) {
            return "`\(bad)` is not a hexadecimal digit; it must be \(shape)"
        }
        for (index, (group, length)) in zip(groups, [8, 4, 4, 4, 12]).enumerated() where group.count != length {
            return "group \(index + 1) has \(group.count) digit\(group.count == 1 ? "" : "s"), not \(length); it must be \(shape)"
        }
        return nil
    }
}

extension Option where Value == Storefront {
    /// A storefront: ISO 3166-1 alpha-3 or alpha-2, in any case, read as alpha-3 (`us` is `USA`).
    static func storefront(_ name: String, valueName: String = "CODE", help: String) -> Option<Storefront> {
        Option(OptionSpec(name: name, valueName: valueName, kind: .single, help: help)) { text throws(UsageError) in
            do throws(EvaluationOptions.InvalidValue) {
                return try Storefront(text)
            } catch {
                throw UsageError(
                    message: "`\(name) \(text)`: not an ISO 3166-1 storefront",
                    help: error.help.map { "give three or two letters, as `USA` or `US`; \($0)" } ?? "give three or two letters, as `USA` or `US`")
            }
        }
    }
}

extension Option where Value == ReceiptEnvironment {
    /// A receipt environment (`production`, `sandbox`, `xcode`, `local-testing`), in any case.
    static func environment(_ name: String, valueName: String = "NAME", kind: OptionSpec.Kind = .repeatable, help: String)
        -> Option<ReceiptEnvironment>
    {
        Option(OptionSpec(name: name, valueName: valueName, kind: kind, help: help)) { text throws(UsageError) in
            do throws(EvaluationOptions.InvalidValue) {
                return try ReceiptEnvironment(text)
            } catch {
                throw UsageError(message: "`\(name) \(text)`: \(error.problem)", help: error.help)
            }
        }
    }
}

extension Option where Value == Instant {
    /// An instant: RFC 3339 (`2026-01-15T09:00:00Z`), or a date alone meaning its midnight UTC.
    /// A wrong value says why (a day that does not exist, an hour past 23, the wrong shape).
    static func instant(_ name: String, valueName: String = "INSTANT", kind: OptionSpec.Kind = .single, help: String) -> Option<Instant> {
        Option<Instant>(OptionSpec(name: name, valueName: valueName, kind: kind, help: help)) { text throws(UsageError) in
            do throws(InstantError) {
                return try Instant.parse(text)
            } catch {
                throw UsageError(message: "`\(name) \(text)`: \(error.problem)")
            }
        }
    }
}

extension Option where Value == Int {
    /// A whole number within `range`.
    static func integer(_ name: String, valueName: String = "N", in range: ClosedRange<Int>, help: String) -> Option<Int> {
        Option<Int>(OptionSpec(name: name, valueName: valueName, kind: .single, help: help)) { text throws(UsageError) in
            guard let value = Int(text) else {
                throw UsageError(message: "`\(name) \(text)`: not a whole number")
            }
            guard range.contains(value) else {
                throw UsageError(message: "`\(name) \(text)`: must be from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
    }
}

extension Option where Value == Duration {
    /// A length of time: seconds (`90`), or a number with `s`, `m` or `h` (`90s`, `10m`, `1h`),
    /// from one second to a week.
    static func duration(_ name: String, valueName: String = "TIME", help: String) -> Option<Duration> {
        Option<Duration>(OptionSpec(name: name, valueName: valueName, kind: .single, help: help)) { text throws(UsageError) in
            let units: [Character: Int] = ["s": 1, "m": 60, "h": 3_600]
            let unit = text.last.flatMap { units[$0] }
            let digits = unit == nil ? Substring(text) : text.dropLast()
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let count = Int(digits), count <= 604_800 else {
                throw UsageError(
                    message: "`\(name) \(text)`: not a length of time", help: "give seconds, or a number with s, m or h: `90`, `90s`, `10m`, `1h`")
            }
            let seconds = count * (unit ?? 1)
            guard seconds >= 1, seconds <= 604_800 else {
                throw UsageError(message: "`\(name) \(text)`: must be from 1 second to a week")
            }
            return .seconds(seconds)
        }
    }
}

extension Option where Value == [String] {
    /// A comma-separated list of names from a fixed list (`features,balances`), each once, in the
    /// order of the fixed list; an unknown name is misuse that names the list, with a "did you
    /// mean".
    static func list(_ name: String, valueName: String = "LIST", of names: [String], help: String) -> Option<[String]> {
        Option<[String]>(OptionSpec(name: name, valueName: valueName, kind: .single, help: help)) { text throws(UsageError) in
            let given = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            for word in given where !names.contains(word) {
                var message =
                    word.isEmpty
                    ? "`\(name) \(text)`: an empty name; give some of \(CatalogChecker.list(names)), separated by commas"
                    : "`\(name)`: `\(word)` is not one of \(CatalogChecker.list(names))"
                if !word.isEmpty, let suggestion = Suggestion.closest(to: word, in: names) { message += "; did you mean `\(suggestion)`?" }
                throw UsageError(message: message)
            }
            return names.filter(given.contains)
        }
    }
}

extension Option where Value: RawRepresentable & Sendable, Value.RawValue == String {
    /// One of a fixed list of values, each with its help or none; anything else is misuse that
    /// names the list, with a "did you mean" when a value is close.
    static func choice(
        _ name: String, valueName: String = "FORMAT", _ choices: [(Value, help: String?)], help: String
    ) -> Option<Value> {
        let names = choices.map(\.0.rawValue)
        let spec = OptionSpec(
            name: name, valueName: valueName, kind: .single,
            choices: choices.map { OptionSpec.Choice(value: $0.0.rawValue, help: $0.help) }, help: help)
        return Option(spec) { text throws(UsageError) in
            if names.contains(text), let value = Value(rawValue: text) { return value }
            throw UsageError(
                message: "`\(name)` must be \(CatalogChecker.list(names)), not `\(text)`",
                help: Suggestion.help(for: text, in: names))
        }
    }
}
