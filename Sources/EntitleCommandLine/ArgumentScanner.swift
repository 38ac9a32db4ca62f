import Entitle
import Foundation

/// Splits a command's arguments into options with values and positional arguments.
///
/// Accepts `--name value` and `--name=value`; `--` ends options; a lone `-` is a value (standard
/// input).
struct ArgumentScanner {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    /// - Parameters:
    ///   - valued: options that take a value.
    ///   - flags: options that take none.
    init(_ arguments: [String], valued: Set<String>, flags knownFlags: Set<String>) throws(UsageError) {
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
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            if knownFlags.contains(name) {
                guard inline == nil else { throw UsageError(message: "`\(name)` takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                if let inline {
                    values[name, default: []].append(inline)
                } else {
                    guard index < arguments.count else { throw UsageError(message: "`\(name)` needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                let known = Array(valued) + Array(knownFlags)
                var message = "unknown option `\(name)`"
                if let suggestion = Suggestion.closest(to: name, in: known) { message += "; did you mean `\(suggestion)`?" }
                throw UsageError(message: message)
            }
        }
    }

    /// The single value of an option, or `nil`; fails when it is given twice.
    func single(_ name: String) throws(UsageError) -> String? {
        guard let all = values[name] else { return nil }
        guard all.count == 1 else { throw UsageError(message: "`\(name)` is given more than once") }
        return all[0]
    }

    func all(_ name: String) -> [String] { values[name] ?? [] }
}
