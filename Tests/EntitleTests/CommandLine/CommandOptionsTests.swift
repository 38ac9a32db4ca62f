import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// The option model of the command line: options declared once (``OptionSpec``, ``Option``), a
/// command line scanned against them (``ParsedArguments``), typed values, and help derived from
/// the declarations.
@Suite("Command options: declared once")
struct CommandOptionsTests {
    static let strict: Option<Bool> = .flag("--strict", help: "make warnings errors")
    static let count: Option<Int> = .integer("--count", in: 1...10, help: "how many")
    static let options = [
        SharedOptions.catalog.spec, SharedOptions.at.spec, SharedOptions.account.spec, SharedOptions.storefront.spec, SharedOptions.format.spec,
        strict.spec, count.spec, SharedOptions.help.spec,
    ]

    static func scan(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        try ParsedArguments(arguments, options: options)
    }

    static func problem(_ arguments: [String]) -> String? {
        do throws(UsageError) {
            _ = try scan(arguments)
            return nil
        } catch {
            // As the command prints it: the suggestion after the message.
            return error.help.map { "\(error.message); \($0)" } ?? error.message
        }
    }

    @Test("--name value, --name=value, flags, positional arguments, `-` and `--`")
    func scanning() throws {
        let parsed = try Self.scan(["a", "--catalog", "x", "--catalog=y", "--strict", "-", "--", "--at"])
        #expect(parsed.texts(SharedOptions.catalog) == ["x", "y"])
        #expect(parsed.contains(Self.strict))
        #expect(!parsed.contains(SharedOptions.at))
        #expect(parsed.positional == ["a", "-", "--at"])
        #expect(try Self.scan(["-h"]).contains(SharedOptions.help), "an alias counts as its option")
    }

    @Test(
        "misuse found while scanning",
        arguments: [
            (["--catlog", "x"], "unknown option `--catlog`; did you mean `--catalog`?"),
            (["--colour"], "unknown option `--colour`"),
            (["--at"], "`--at` needs a value"),
            (["--strict=yes"], "`--strict` takes no value"),
            (["--format", "json", "--format=text"], "`--format` is given more than once"),
        ])
    func scanMisuse(_ arguments: [String], message: String) {
        #expect(Self.problem(arguments) == message)
    }

    @Test("--help wins over a repeated option, not over an unknown one")
    func helpFirst() {
        #expect(Self.problem(["--format", "json", "--format", "text", "--help"]) == nil)
        #expect(Self.problem(["--bogus", "--help"]) == "unknown option `--bogus`")
    }

    @Test("values are read as their type, each refusal naming the option")
    func typedValues() throws {
        let parsed = try Self.scan([
            "--at", "2026-01-15", "--format", "json", "--count", "3",
            "--account", "5F1C3A9E-2B7D-4C21-9A0E-6D3F8B2C1E47",
        ])
        #expect(try parsed.value(SharedOptions.at) == Instant(rfc3339: "2026-01-15T00:00:00Z"))
        #expect(try parsed.value(SharedOptions.format) == .json)
        #expect(try parsed.value(Self.count) == 3)
        #expect(try parsed.value(SharedOptions.account) == "5F1C3A9E-2B7D-4C21-9A0E-6D3F8B2C1E47", "read as given")
        #expect(try Self.scan([]).value(SharedOptions.at) == nil)
    }

    @Test(
        "a value that is not of the option's type",
        arguments: [
            (["--at", "2026-02-30"], "`--at 2026-02-30`: 2026-02-30 does not exist: February 2026 has 28 days"),
            (["--format", "jsn"], "`--format` must be `text` or `json`, not `jsn`; did you mean `json`?"),
            (["--count", "11"], "`--count 11`: must be from 1 to 10"),
            (["--count", "x"], "`--count x`: not a whole number"),
            (["--account", ""], "`--account`: an account id is 1 to 256 characters, not 0"),
            (["--storefront", "XX"], "`--storefront XX`: not an ISO 3166-1 storefront; give three or two letters, as `USA` or `US`"),
        ])
    func badValues(_ arguments: [String], message: String) throws {
        let parsed = try Self.scan(arguments)
        do throws(UsageError) {
            switch arguments[0] {
            case "--at": _ = try parsed.value(SharedOptions.at)
            case "--format": _ = try parsed.value(SharedOptions.format)
            case "--count": _ = try parsed.value(Self.count)
            case "--storefront": _ = try parsed.value(SharedOptions.storefront)
            default: _ = try parsed.value(SharedOptions.account)
            }
            Issue.record("\(arguments) was read")
        } catch {
            let line = error.help.map { "\(error.message); \($0)" } ?? error.message
            #expect(line.hasPrefix(message), "\(line)")
        }
    }

    @Test("a synopsis and a help derived from the declarations")
    func derivedHelp() {
        let command = Subcommand(
            name: "demo", summary: "a demonstration",
            synopses: [
                [
                    .required(SharedOptions.catalog), .optional(SharedOptions.at), .optional(SharedOptions.format),
                    .oneOf(Self.strict.spec, Self.count.spec), .argument("[PATH...]", label: "PATH", help: "a path"),
                ]
            ],
            discussion: "Exits 0 when done,\n2 on misuse.",
            run: { _, _ in CommandOutput() })
        #expect(command.options.map(\.name) == ["--catalog", "--at", "--format", "--strict", "--count", "--help"])
        let help = command.help
        #expect(
            help.hasPrefix(
                "usage: entitle demo --catalog PATH [--catalog PATH ...] [--at INSTANT] [--format text|json]\n"
                    + "                    [--strict | --count N] [PATH...]\n"), "\(help)")
        #expect(help.contains("\n  PATH                      a path\n"))
        #expect(help.contains("\n  -h, --help                show this help\n"))
        #expect(help.hasSuffix("\n\nExits 0 when done, 2 on misuse.\n"))
        for line in help.split(separator: "\n") { #expect(line.count <= Subcommand.helpWidth, "\(line)") }
    }

    // MARK: Every command's help, derived

    static let commands = EntitleCommand.subcommands.map(\.name)

    static func run(_ arguments: [String]) -> CommandOutput {
        EntitleCommand.run(arguments, environment: CLITests.environment())
    }

    @Test("every option a command accepts is in its --help, and every option its --help names is accepted", arguments: commands)
    func helpNamesEveryOption(_ name: String) throws {
        let command = try #require(EntitleCommand.subcommands.first { $0.name == name })
        let help = Self.run([name, "--help"])
        #expect(help.exitCode == 0)
        for option in command.options {
            for spelling in option.spellings {
                #expect(help.standardOutput.contains(spelling + (option.valueName.map { " " + $0 } ?? "")), "`\(name) --help` lacks \(spelling)")
            }
        }
        // An option named in the help (the synopsis, the list, the notes) is one the command takes;
        // the options of another program's command line (`swift build --traits SystemCrypto`) aside.
        let ours = help.standardOutput.replacingOccurrences(of: "`swift [^`]*`", with: "", options: .regularExpression)
        let named = Set(
            ours.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") })
                .filter { $0.hasPrefix("--") && $0.count > 2 }.map(String.init))
        let accepted = Set(command.options.flatMap(\.spellings))
        for option in named.sorted() {
            #expect(accepted.contains(option), "`\(name) --help` names \(option), which it refuses")
        }
    }

    @Test("each command's --help matches its snapshot, and `entitle help <command>` prints the same", arguments: commands)
    func helpSnapshot(_ name: String) {
        let help = Self.run([name, "--help"]).standardOutput
        Snapshot.expect(help, matches: "Tests/EntitleTests/Snapshots/help-\(name).txt")
        #expect(Self.run(["help", name]).standardOutput == help)
        #expect(Self.run([name, "-h"]).standardOutput == help)
    }

    @Test("the overview lists every command and matches its snapshot")
    func overviewSnapshot() {
        let overview = Self.run(["--help"]).standardOutput
        Snapshot.expect(overview, matches: "Tests/EntitleTests/Snapshots/help.txt")
        for name in Self.commands { #expect(overview.contains("\n  \(name) "), "\(name)") }
    }
}
