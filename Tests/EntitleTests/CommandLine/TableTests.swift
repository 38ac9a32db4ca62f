import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// What a data analyst reaches for: `check --format csv` (a table in long form), `--customers -`
/// (a corpus streamed through a pipe) and `diff --changes FILE` (every affected customer, not
/// the first hundred).
@Suite("Tables and pipes")
struct TableTests {
    /// A CSV text as rows of fields, read as RFC 4180 says (quoted fields, doubled quotes).
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" {
                        field.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                row.append(field)
                field = ""
            } else if character == "\n" {
                row.append(field)
                rows.append(row)
                (row, field) = ([], "")
            } else {
                field.append(character)
            }
        }
        return rows
    }

    /// A command environment whose standard input is a pipe holding `text` (closed after it).
    /// Runs `arguments` with `text` on standard input.
    static func runPiped(_ text: String, _ arguments: [String]) -> CommandOutput {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data(text.utf8))
        try? pipe.fileHandleForWriting.close()
        defer { try? pipe.fileHandleForReading.close() }
        var environment = CLITests.environment()
        environment.standardInputDescriptor = pipe.fileHandleForReading.fileDescriptor
        return EntitleCommand.run(arguments, environment: environment)
    }

    static let day = "2026-01-10T12:00:00Z"

    static func pass(_ id: String) -> String {
        #"{"customer": "\#(id)", "receipts": [{"app": "com.example.diagrams", "transactions": [{"productId": "com.example.diagrams.daypass", "transactionId": "t-\#(id.count)", "purchaseDate": "2026-01-10T08:00:00Z"}]}]}"#
    }

    @Test("check --format csv: one row per fact, the same facts as JSON, and every field quoted as RFC 4180 says")
    func checkTable() throws {
        let receipt = CLITests.receipt("diagrams-trial.json")
        let arguments = ["check", "--catalog", CLITests.products, "--receipt", receipt, "--at", "2026-01-10T00:00:00Z"]
        let csv = CLITests.run(arguments + ["--format", "csv"])
        #expect(csv.exitCode == 0, "\(csv.standardError)")
        let rows = Self.parse(csv.standardOutput)
        #expect(rows.first == ["customer", "at", "kind", "id", "value", "until", "source"])
        #expect(rows.dropFirst().allSatisfy { $0.count == 7 && $0[1] == "2026-01-10T00:00:00Z" })
        #expect(rows.contains(["", "2026-01-10T00:00:00Z", "feature", "pro", "true", "2026-01-15T09:00:00Z", "com.example.diagrams.trial"]))
        #expect(rows.contains(["", "2026-01-10T00:00:00Z", "reevaluate", "", "", "2026-01-10T12:00:00Z", ""]))
        // The same facts as the JSON answer: each feature, balance, product and offer once.
        let json = CLITests.run(arguments + ["--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let features = try #require(object["features"] as? [String: [String: Any]])
        let products = try #require(object["products"] as? [String: [String: Any]])
        #expect(Set(rows.filter { $0[2] == "feature" }.map { $0[3] }) == Set(features.keys))
        #expect(rows.filter { $0[2] == "feature" }.count == features.count)
        for (id, product) in products {
            #expect(rows.filter { $0[2] == "product" && $0[3] == id }.map { $0[4] } == [product["state"] as? String ?? "?"])
        }
        // A field holding a comma, a quote or a line break is quoted, quotes doubled.
        #expect(CSVTable.quoted("plain") == "plain")
        #expect(CSVTable.quoted("a,b") == "\"a,b\"")
        #expect(CSVTable.quoted("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVTable.quoted("two\nlines") == "\"two\nlines\"")
        var text = ""
        CSVTable.row(["a,b", nil, "\"q\""], to: &text)
        #expect(Self.parse(text) == [["a,b", "", "\"q\""]])
    }

    @Test("check --customers - reads JSON Lines from a pipe; csv rows name each customer as the corpus wrote it, errors located at <stdin>")
    func customersFromStandardInput() throws {
        let corpus = [Self.pass("a,1"), "not json", #"{"customer": 7, "receipts": []}"#, Self.pass("b")].joined(separator: "\n") + "\n"
        let output = Self.runPiped(
            corpus, ["check", "--catalog", CLITests.products, "--customers", "-", "--at", Self.day, "--format", "csv", "--jobs", "2"])
        let rows = Self.parse(output.standardOutput)
        #expect(rows.first == ["customer", "at", "kind", "id", "value", "until", "source"])
        #expect(rows.contains(["a,1", Self.day, "feature", "pro", "true", "2026-01-11T08:00:00Z", "com.example.diagrams.daypass"]))
        #expect(rows.contains(["b", Self.day, "product", "com.example.diagrams.daypass", "active", "2026-01-11T08:00:00Z", "app-store"]))
        // A customer whose receipts cannot be read is one error row, located at <stdin>: the line
        // that is not JSON (named by its place), and customer 7's empty list of receipts.
        let errors = rows.filter { $0[2] == "error" }
        #expect(errors.map(\.[0]) == ["<stdin>:2", "7"], "\(errors)")
        #expect(errors.first?[6].hasPrefix("<stdin>:2:") == true)
        // Customers in corpus order.
        let order = rows.dropFirst().map { $0[0] }.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(order == ["a,1", "<stdin>:2", "7", "b"], "\(order)")
        #expect(output.standardError.hasSuffix("entitle: 4 customers: 2 evaluated, 2 could not be\n"), "\(output.standardError)")
        #expect(output.exitCode == 1)

        // JSON Lines from a pipe: the same customers as from a file.
        let piped = Self.runPiped(corpus, ["check", "--catalog", CLITests.products, "--customers", "-", "--at", Self.day])
        let file = try BatchTests.file(corpus)
        let fromFile = CLITests.run(["check", "--catalog", CLITests.products, "--customers", file.path, "--at", Self.day])
        #expect(piped.standardOutput.replacingOccurrences(of: "<stdin>", with: file.path) == fromFile.standardOutput)
        #expect(piped.standardOutput.split(separator: "\n").count == 4)

        // A table is not text.
        let misuse = CLITests.run(["check", "--catalog", CLITests.products, "--customers", file.path, "--format", "text"])
        #expect(misuse.exitCode == CommandOutput.misuse)
        #expect(misuse.standardError.contains("can be `json`, `csv` or `ofrep`"))
    }

    @Test("a corpus on standard input that stops in the middle of a line: that line is an error, the ones before it answered")
    func truncatedInput() {
        let corpus = Self.pass("a") + "\n" + #"{"customer": "b", "receipts": [{"app": "com.exa"#
        let output = Self.runPiped(
            corpus, ["check", "--catalog", CLITests.products, "--customers", "-", "--at", Self.day, "--format", "csv", "--fields", "features"])
        let rows = Self.parse(output.standardOutput)
        #expect(rows.contains(["a", Self.day, "feature", "pro", "true", "2026-01-11T08:00:00Z", "com.example.diagrams.daypass"]))
        #expect(rows.last?[2] == "error" && rows.last?[3] == "malformed-json" && rows.last?[6].hasPrefix("<stdin>:2:") == true, "\(rows.last ?? [])")
        #expect(output.exitCode == 1)
    }

    @Test("diff --changes lists every customer's every change, past the hundred the report names, as JSON Lines or CSV")
    func everyChange() throws {
        let new = try DiffTests.edited(DiffTests.replacing(DiffTests.dayPassGrants, #""duration": "P1D", "grants": []"#))
        let ids = (0..<150).map { "c-\($0)" }
        let corpus = try BatchTests.file((ids.map(Self.pass) + ["not json"]).joined(separator: "\n") + "\n")
        let directory = corpus.deletingLastPathComponent()
        let lines = directory.appendingPathComponent("changes.jsonl").path
        let table = directory.appendingPathComponent("changes.csv").path
        let arguments = ["diff", CLITests.products, new.path, "--customers", corpus.path, "--at", Self.day]
        let report = CLITests.run(arguments)
        #expect(report.standardOutput.contains(", ..."), "the report names the first ones only")
        let json = CLITests.run(arguments + ["--changes", lines])
        #expect(json.standardOutput == report.standardOutput, "the report does not change")
        let objects = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let lost = objects.filter { $0["kind"] as? String == "feature-off" && $0["id"] as? String == "pro" }
        #expect(lost.map { $0["customer"] as? String } == ids, "every customer, in corpus order")
        #expect(lost.allSatisfy { ($0["from"] as? [String: Bool]) == ["enabled": true] && ($0["to"] as? [String: Bool]) == ["enabled": false] })
        #expect(lost.allSatisfy { $0["at"] as? String == Self.day && $0["app"] as? String == "com.example.diagrams" })
        #expect(objects.filter { $0["errors"] != nil }.count == 1, "the unreadable line is there, with its error")

        let csv = CLITests.run(arguments + ["--changes", table])
        #expect(csv.exitCode == json.exitCode)
        let rows = Self.parse(try String(contentsOfFile: table, encoding: .utf8))
        #expect(rows.first == ["customer", "at", "app", "kind", "id", "from", "to"])
        #expect(rows.count == objects.count + 1, "one row per JSON line")
        #expect(rows.filter { $0[3] == "feature-off" && $0[4] == "pro" }.map { $0[0] } == ids)
        #expect(rows.contains(["c-0", Self.day, "com.example.diagrams", "feature-off", "pro", "on", "off"]))

        // Misuse and a file that cannot be written.
        let alone = CLITests.run(["diff", CLITests.products, new.path, "--changes", lines])
        #expect(alone.exitCode == CommandOutput.misuse)
        #expect(alone.standardError.contains("`--changes` is for `--customers`"), "\(alone.standardError)")
        let unwritable = CLITests.run(arguments + ["--changes", "/nonexistent-directory/changes.jsonl"])
        #expect(unwritable.exitCode == CommandOutput.invalidInput)
        #expect(unwritable.standardError.contains("cannot write /nonexistent-directory/changes.jsonl: no such file or directory"))
    }

    @Test("diff --customers - compares a piped corpus as it compares the file")
    func diffFromStandardInput() throws {
        let new = try DiffTests.edited(DiffTests.replacing(DiffTests.dayPassGrants, #""duration": "P1D", "grants": []"#))
        let corpus = [Self.pass("x"), Self.pass("y")].joined(separator: "\n")
        let piped = Self.runPiped(corpus, ["diff", CLITests.products, new.path, "--customers", "-", "--at", Self.day])
        let file = try BatchTests.file(corpus)
        let fromFile = CLITests.run(["diff", CLITests.products, new.path, "--customers", file.path, "--at", Self.day])
        #expect(piped.standardOutput == fromFile.standardOutput)
        #expect(piped.standardOutput.contains("feature pro: on -> off for 2 of 2: x, y"), "\(piped.standardOutput)")
    }
}
