import EntitleWorkloads
import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// `check --customers` and `diff --customers` at any size: streamed in chunks through a pipeline
/// on several threads, the same output for any `--jobs`, repeated ids found exactly, the parts
/// of each line chosen, and the counts right.
@Suite("Batch runs: streamed, on every core, counted right")
struct BatchTests {
    static let trial = try! String(contentsOfFile: CLITests.receipt("diagrams-trial.json"), encoding: .utf8)
        .replacingOccurrences(of: "\n", with: " ")
    static let unknownProduct =
        #"{"app": "com.example.diagrams", "transactions": [{"productId": "com.example.nope", "transactionId": "9", "purchaseDate": "2026-01-01T00:00:00Z"}]}"#
    static let at = "2026-01-15T09:00:00Z"

    /// A temporary file holding `text`.
    static func file(_ text: String, _ name: String = "corpus.jsonl") throws -> URL {
        let directory = Fixtures.scratch("batch")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    static func run(_ arguments: [String], environment: CommandEnvironment = CLITests.environment()) -> CommandOutput {
        EntitleCommand.run(arguments, environment: environment)
    }

    static func lines(_ output: CommandOutput) throws -> [[String: Any]] {
        try output.standardOutput.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// Generated Diagrams customers with every kind of trouble mixed in: repeated ids (also of an
    /// unreadable customer), lines that are not JSON, empty receipt lists, unknown products, ids
    /// as numbers, blank lines.
    static func troubledCorpus(_ count: Int) -> String {
        var generator = WorkloadGenerator(seed: 11)
        var lines: [String] = []
        for index in 0..<count {
            let receipt = generator.receipt(for: .diagrams, transactions: 1 + index % 9).replacingOccurrences(of: "\n", with: " ")
            switch index % 37 {
            case 5: lines.append(#"{"customer": "c-\#(index - 3)", "receipts": [\#(receipt)]}"#)
            case 9: lines.append("not json at all")
            case 13: lines.append(#"{"customer": "c-\#(index)", "receipts": []}"#)
            case 17: lines.append(#"{"customer": \#(index), "receipts": [\#(unknownProduct)]}"#)
            case 21: lines.append("   ")
            case 25: lines.append(#"{"customer": "c-13", "receipts": [\#(receipt)]}"#)
            default: lines.append(#"{"customer": "c-\#(index)", "receipts": [\#(receipt)]}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test("check --customers reports a repeated id on its line, located, as diff does; only the first entry counts; exit 1")
    func checkRepeats() throws {
        let corpus = try Self.file(
            [
                #"{"customer": "alice", "receipts": [\#(Self.trial)]}"#, #"{"customer": "bob", "receipts": [\#(Self.trial)]}"#,
                #"{"customer": "alice", "receipts": [\#(Self.unknownProduct)]}"#, #"{"customer": 7, "receipts": [\#(Self.trial)]}"#,
                #"{"customer": "7", "receipts": [\#(Self.trial)]}"#, #"{"customer": 7, "receipts": [\#(Self.trial)]}"#,
            ].joined(separator: "\n"))
        let output = Self.run(["check", "--catalog", CLITests.products, "--customers", corpus.path, "--at", Self.at])
        #expect(output.exitCode == 1)
        let lines = try Self.lines(output)
        #expect(lines.count == 6, "one line per entry, in corpus order")
        #expect(lines.map { "\($0["customer"]!)" } == ["alice", "bob", "alice", "7", "7", "7"])
        #expect(
            lines[0]["features"] != nil && lines[1]["features"] != nil && lines[3]["features"] != nil && lines[4]["features"] != nil,
            "7 and \"7\" are two customers")
        for (index, line) in [(2, 3), (5, 6)] {
            let error = try #require((lines[index]["errors"] as? [[String: Any]])?.first)
            #expect(error["line"] as? Int == line)
            #expect(error["file"] as? String == corpus.path)
            #expect((error["message"] as? String)?.hasSuffix("appears more than once in the corpus; only its first entry counts") == true)
        }
        #expect(lines[5]["customer"] as? Int == 7, "the repeat keeps its id as written")
        #expect(
            output.standardError.hasSuffix("entitle: 4 customers: 4 evaluated, 0 could not be; 2 repeated ids: only the first entry counts\n"),
            "\(output.standardError)")
        // diff says the same of the same repeat.
        let diff = Self.run(["diff", CLITests.products, CLITests.products, "--customers", corpus.path, "--at", Self.at])
        #expect(
            diff.standardOutput.contains(
                "\(corpus.path):3:1: error: customer `alice` appears more than once in the corpus; only its first entry counts"))
        #expect(diff.standardOutput.contains("impact on 4 customers at"))
    }

    @Test("the first entry of an id counts even when it cannot be read: a later entry is still the repeat")
    func firstEntryCounts() throws {
        let corpus = try Self.file(
            [
                #"{"customer": "alice", "receipts": []}"#, #"{"customer": "alice", "receipts": [\#(Self.trial)]}"#,
            ].joined(separator: "\n"))
        let check = Self.run(["check", "--catalog", CLITests.products, "--customers", corpus.path, "--at", Self.at])
        let lines = try Self.lines(check)
        #expect(lines.count == 2 && lines.allSatisfy { $0["errors"] != nil })
        #expect(check.standardError.hasSuffix("entitle: 1 customer: 0 evaluated, 1 could not be; 1 repeated id: only the first entry counts\n"))
        let diff = Self.run(["diff", CLITests.products, CLITests.products, "--customers", corpus.path, "--at", Self.at, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(diff.standardOutput.utf8)) as? [String: Any])
        let impact = try #require((object["impact"] as? [[String: Any]])?.first)
        #expect(impact["customers"] as? Int == 0 && impact["unreadable"] as? Int == 2)
    }

    @Test("diff counts distinct customers losing something across all instants, besides each instant's count, in text and JSON")
    func distinctLosing() throws {
        // The day pass grants nothing in the new catalogs; customers holding a pass at one instant
        // or the other lose pro there.
        let new = try DiffTests.edited(DiffTests.replacing(DiffTests.dayPassGrants, #""duration": "P1D", "grants": []"#))
        let pass = { (id: String, day: String) in
            #"{"customer": "\#(id)", "receipts": [{"app": "com.example.diagrams", "transactions": [{"productId": "com.example.diagrams.daypass", "transactionId": "\#(id)", "purchaseDate": "\#(day)T08:00:00Z"}]}]}"#
        }
        let corpus = try Self.file(
            [
                pass("early", "2026-01-10"), pass("late", "2026-02-10"), pass("none", "2025-01-01"),
                pass("both", "2026-01-10"),
                #"{"customer": "both2", "receipts": [{"app": "com.example.diagrams", "transactions": [{"productId": "com.example.diagrams.daypass", "transactionId": "a", "purchaseDate": "2026-01-10T08:00:00Z"}, {"productId": "com.example.diagrams.daypass", "transactionId": "b", "purchaseDate": "2026-02-10T08:00:00Z"}]}]}"#,
            ].joined(separator: "\n"))
        let arguments = [
            "diff", CLITests.products, new.path, "--customers", corpus.path, "--at", "2026-01-10T12:00:00Z", "--at", "2026-02-10T12:00:00Z",
        ]
        let text = Self.run(arguments)
        // At the first instant early, both and both2 lose pro; at the second late and both2: 4 distinct.
        #expect(
            text.standardError.hasSuffix(
                "entitle: 1 catalog change (1 dangerous); 4 customers lose a feature or balance (3 at 2026-01-10T12:00:00Z, 2 at 2026-02-10T12:00:00Z)\n"
            ),
            "\(text.standardError)")
        #expect(
            text.standardOutput.hasSuffix("across the 2 instants\n  4 customers lose a feature or balance: early, late, both, both2\n"),
            "\(text.standardOutput)")
        let json = Self.run(arguments + ["--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["losing"] as? Int == 4)
        #expect(object["losingCustomers"] as? [String] == ["early", "late", "both", "both2"])
        #expect((object["impact"] as? [[String: Any]])?.map { $0["losing"] as? Int } == [3, 2])

        // One customer, one instant: the verb agrees.
        let one = try Self.file(pass("early", "2026-01-10"))
        let single = Self.run(["diff", CLITests.products, new.path, "--customers", one.path, "--at", "2026-01-10T12:00:00Z"])
        #expect(single.standardError.hasSuffix("entitle: 1 catalog change (1 dangerous); 1 customer loses a feature or balance\n"))
        #expect(!single.standardOutput.contains("across the"), "one instant needs no total of its own")
        let nobody = Self.run(["diff", CLITests.products, CLITests.products, "--customers", one.path, "--at", "2026-01-10T12:00:00Z"])
        #expect(nobody.standardError.hasSuffix("entitle: 0 catalog changes (0 dangerous); 0 customers lose a feature or balance\n"))
    }

    @Test("--fields chooses the parts of each line; customer, app, at and reevaluateAt are always there")
    func fields() throws {
        let corpus = try Self.file(#"{"customer": "a", "receipts": [\#(Self.trial)]}"#)
        let base = ["check", "--catalog", CLITests.products, "--customers", corpus.path, "--at", Self.at]
        let all = try Self.lines(Self.run(base))[0]
        #expect(Set(all.keys) == ["customer", "app", "at", "features", "balances", "products", "offers", "reevaluateAt", "warnings"])
        let chosen = Self.run(base + ["--fields", "balances,features"])
        #expect(chosen.exitCode == 0)
        let line = try Self.lines(chosen)[0]
        #expect(Set(line.keys) == ["customer", "app", "at", "features", "balances", "reevaluateAt"])
        #expect(NSDictionary(dictionary: line["features"] as! [String: Any]).isEqual(to: all["features"] as! [String: Any]))
        #expect(
            chosen.standardOutput.hasPrefix(#"{"customer":"a","app":"com.example.diagrams","at":"2026-01-15T09:00:00Z","features":"#),
            "parts keep their usual order")
        #expect(Set(try Self.lines(Self.run(base + ["--fields", "warnings"]))[0].keys) == ["customer", "app", "at", "reevaluateAt", "warnings"])

        let unknown = Self.run(base + ["--fields", "features,balance"])
        #expect(unknown.exitCode == 2)
        #expect(
            unknown.standardError.hasPrefix(
                "entitle check: `--fields`: `balance` is not one of `features`, `balances`, `limits`, `products`, `offers` or `warnings`; did you mean `balances`?\n"
            ),
            "\(unknown.standardError)")
        #expect(Self.run(base + ["--fields", "features,"]).standardError.contains("an empty name"))
        let single = Self.run(["check", "--catalog", CLITests.products, "--receipt", CLITests.receipt("diagrams-trial.json"), "--fields", "features"])
        #expect(single.exitCode == 2 && single.standardError.hasPrefix("entitle check: `--fields` is for `--customers`\n"))
        #expect(
            Self.run(["check", "--catalog", CLITests.products, "--receipt", CLITests.receipt("diagrams-trial.json"), "--jobs", "2"])
                .standardError.hasPrefix("entitle check: `--jobs` is for `--customers`\n"))
        #expect(Self.run(base + ["--jobs", "0"]).standardError.hasPrefix("entitle check: `--jobs 0`: must be from 1 to 1024\n"))
    }

    @Test("--compact leaves out offers' legal text and warnings' messages; the default keeps them")
    func compact() throws {
        let corpus = try Self.file(
            [
                #"{"customer": "a", "receipts": [\#(Self.trial)]}"#, #"{"customer": "b", "receipts": [\#(Self.unknownProduct)]}"#,
            ].joined(separator: "\n"))
        let base = ["check", "--catalog", CLITests.products, "--customers", corpus.path, "--at", Self.at]
        let full = Self.run(base)
        #expect(full.standardOutput.contains(#""legal":"Renews automatically until canceled"#))
        #expect(full.standardOutput.contains(#""warnings":[{"code":"unknown-product","message":"#))
        let compact = Self.run(base + ["--compact"])
        #expect(compact.exitCode == 0)
        #expect(!compact.standardOutput.contains("legal"))
        #expect(!compact.standardOutput.contains("message"))
        #expect(compact.standardOutput.contains(#""warnings":[{"code":"unknown-product"}]"#))
        #expect(compact.standardOutput.utf8.count < full.standardOutput.utf8.count)
        // Apart from the prose, the lines are the same.
        let (fullLines, compactLines) = (try Self.lines(full), try Self.lines(compact))
        for (whole, short) in zip(fullLines, compactLines) {
            #expect(NSDictionary(dictionary: whole["features"] as! [String: Any]).isEqual(to: short["features"] as! [String: Any]))
            let offers = (whole["offers"] as! [String: [String: Any]]).mapValues { offer in offer.filter { $0.key != "legal" } }
            #expect(NSDictionary(dictionary: offers).isEqual(to: short["offers"] as! [String: Any]))
        }
        let both = Self.run(base + ["--compact", "--fields", "offers"])
        #expect(Set(try Self.lines(both)[0].keys) == ["customer", "app", "at", "offers", "reevaluateAt"] && !both.standardOutput.contains("legal"))
    }

    @Test("a corpus line reads its normalized receipts in place, each as its bytes alone read; anything else is kept as bytes")
    func receiptsReadInPlace() throws {
        var generator = WorkloadGenerator(seed: 5)
        let odd =
            #"{"app": "com.example.diagrams", "transactions": [{"productId": "com.example.\"odd\"\n\u0001é", "transactionId": "t\\1", "purchaseDate": "2025-03-01T00:00:00.250Z"}]}"#
        let values = [
            generator.receipt(for: .diagrams, transactions: 7).replacingOccurrences(of: "\n", with: " "), odd, Self.unknownProduct,
            // Not normalized receipts: an unknown member, a bad instant, a repeated key, Apple's
            // JSON, a string, a number.
            #"{"app": "x", "extra": 1}"#,
            #"{"app": "x", "transactions": [{"productId": "p", "transactionId": "1", "purchaseDate": "2025-02-30T00:00:00Z"}]}"#,
            #"{"app": "x", "app": "y"}"#, #"{"receipt": {"bundle_id": "x", "in_app": []}, "status": 0}"#, #""eyJhbGciOiJFUzI1NiJ9.e30.sig""#, "7",
        ]
        let line = #"{"customer": "c", "receipts": [ "# + values.joined(separator: " ,\n") + " ]}"
        let inPlace = try CustomerLine(Data(line.utf8), name: "corpus", line: 1, readingNormalized: true)
        let scanned = try CustomerLine(Data(line.utf8), name: "corpus", line: 1)
        #expect(inPlace.count == values.count)
        #expect(scanned.normalized.allSatisfy { $0 == nil })
        #expect(inPlace.receipts == scanned.receipts)
        #expect(inPlace.columns == scanned.columns)
        for index in values.indices {
            #expect(String(decoding: inPlace.receipt(at: index), as: UTF8.self) == values[index])
            let alone = try? ParsedReceipt(json: Data(values[index].utf8))
            #expect(inPlace.normalized[index]?.receipt == alone?.receipt, "receipt \(index)")
            #expect((inPlace.normalized[index] == nil) == (alone == nil), "receipt \(index)")
        }
        #expect(inPlace.normalized.prefix(3).allSatisfy { $0 != nil })
        // A line broken inside a receipt that reads in place is still refused where it breaks.
        #expect(throws: ReceiptError.self) {
            try CustomerLine(Data((#"{"customer": "c", "receipts": ["# + values[0] + "}").utf8), name: "corpus", line: 1, readingNormalized: true)
        }
    }

    @Test("a batch line is the result's JSON written straight into bytes: the same as the tree, for every part and with or without prose")
    func lineWriterMatchesTheTree() throws {
        var generator = WorkloadGenerator(seed: 21)
        let odd =
            #"{"app": "com.example.diagrams", "transactions": [{"productId": "com.example.\"odd\"\n\u0001é", "transactionId": "t\\1", "purchaseDate": "2025-03-01T00:00:00Z"}]}"#
        var receipts = [try ParsedReceipt(json: Data(odd.utf8))]
        for index in 0..<40 { receipts.append(try ParsedReceipt(json: Data(generator.receipt(for: .diagrams, transactions: 1 + index % 25).utf8))) }
        let parts: [Entitlements.JSONParts] = [.all, [], [.features, .balances], [.offers], [.warnings, .products]]
        for (index, receipt) in receipts.enumerated() {
            let result = try Fixtures.examples.evaluate(
                app: Diagrams.app, receipts: [receipt], at: Fixtures.instant(index % 2 == 0 ? "2025-07-01T00:00:00Z" : "2025-12-24T13:00:00Z"))
            for part in parts {
                for compact in [false, true] {
                    var line = JSONLineWriter()
                    result.write(to: &line, parts: part, compact: compact)
                    let tree = result.jsonOutput(parts: part, compact: compact)
                    #expect(String(decoding: line.bytes, as: UTF8.self) == tree.compact())
                }
            }
        }
        // The tree is the one `check --format json` prints and `Codable` reads back.
        let result = try Fixtures.examples.evaluate(app: Diagrams.app, receipts: [receipts[0]], at: Fixtures.instant("2025-07-01T00:00:00Z"))
        #expect(result.json.contains(#""code": "unknown-product""#))
        #expect(try JSONDecoder().decode(EntitlementsRecord.self, from: Data(result.json.utf8)) == EntitlementsRecord(result))
    }

    @Test(
        "--jobs 1, 2 and 7 print byte for byte the same, on a corpus with bad lines and repeated ids",
        arguments: ["check", "diff-text", "diff-json"])
    func jobsDoNotChangeTheOutput(command: String) throws {
        let corpus = try Self.file(Self.troubledCorpus(800))
        let new = try DiffTests.edited(DiffTests.replacing(DiffTests.dayPassGrants, #""duration": "P1D", "grants": []"#))
        func output(jobs: Int) -> CommandOutput {
            switch command {
            case "check":
                return Self.run(["check", "--catalog", CLITests.products, "--customers", corpus.path, "--at", "2025-07-01", "--jobs", String(jobs)])
            default:
                return Self.run(
                    [
                        "diff", CLITests.products, new.path, "--customers", corpus.path, "--at", "2025-07-01", "--at", "2025-11-20",
                        "--jobs", String(jobs),
                    ] + (command == "diff-json" ? ["--format", "json"] : []))
            }
        }
        let one = output(jobs: 1)
        #expect(one.exitCode == (command == "check" ? 1 : 0))
        #expect(!one.standardOutput.isEmpty)
        for jobs in [2, 7] {
            let other = output(jobs: jobs)
            #expect(other.standardOutput == one.standardOutput, "--jobs \(jobs)")
            #expect(other.standardError == one.standardError, "--jobs \(jobs)")
            #expect(other.exitCode == one.exitCode)
        }
        if command == "check" {
            let entries = Self.troubledCorpus(800).split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
            #expect(one.standardOutput.split(separator: "\n").count == entries.count, "blank lines are not customers")
            #expect(one.standardOutput.contains("appears more than once"))
        }
        // Written as it goes: a writer of standard output receives the same lines, a chunk at a time.
        let pieces = Pieces()
        var environment = CLITests.environment()
        environment.writeStandardOutput = { pieces.append($0) }
        if command == "check" {
            let streamed = Self.run(
                ["check", "--catalog", CLITests.products, "--customers", corpus.path, "--at", "2025-07-01", "--jobs", "2"],
                environment: environment)
            #expect(streamed.standardOutput.isEmpty)
            #expect(pieces.texts.count >= 3, "one piece per chunk of 256 customers")
            #expect(pieces.texts.joined() == one.standardOutput)
        }
    }

    @Test("both corpus shapes stream the same customers in chunks, in order; long lines are skipped, not held")
    func corpusShapesStream() throws {
        var generator = WorkloadGenerator(seed: 5)
        let directory = Fixtures.scratch("shapes")
        let files = directory.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var lines = ""
        for index in 0..<700 {
            let receipt = generator.receipt(for: .diagrams, transactions: 1 + index % 5)
            let id = String(format: "c-%04d", index)
            try receipt.write(to: files.appendingPathComponent(id + ".json"), atomically: true, encoding: .utf8)
            lines += #"{"customer": "\#(id)", "receipts": [\#(receipt.replacingOccurrences(of: "\n", with: " "))]}"# + "\n"
        }
        try ".hidden".write(to: files.appendingPathComponent(".DS_Store"), atomically: true, encoding: .utf8)
        let jsonl = directory.appendingPathComponent("customers.jsonl")
        try lines.write(to: jsonl, atomically: true, encoding: .utf8)

        // Read in small blocks, so lines straddle blocks often.
        for path in [files.path, jsonl.path] {
            var corpus = CustomerCorpus.open([path])
            corpus.blockBytes = 1_000
            corpus.chunkCustomers = 64
            var ids: [String] = []
            var chunks = 0
            var lastProgress = 0.0
            let problems = corpus.read { chunk in
                chunks += 1
                #expect(chunk.items.count <= 64)
                #expect((chunk.progress ?? 0) >= lastProgress)
                lastProgress = chunk.progress ?? 0
                for item in chunk.items {
                    let customer = corpus.load(item)
                    ids.append(customer.id)
                    if case .failure(let error) = customer.receipts { Issue.record("\(customer.id): \(error)") }
                }
            }
            #expect(problems.isEmpty)
            #expect(ids == (0..<700).map { String(format: "c-%04d", $0) }, "\(path)")
            #expect(chunks >= 700 / 64)
            #expect(lastProgress == 1)
        }
        // Both shapes, any jobs: the same lines.
        let byFiles = Self.run(["check", "--catalog", CLITests.products, "--customers", files.path, "--at", "2025-08-01", "--jobs", "3"])
        let byLines = Self.run(["check", "--catalog", CLITests.products, "--customers", jsonl.path, "--at", "2025-08-01", "--jobs", "1"])
        #expect(byFiles.exitCode == 0 && byLines.exitCode == 0)
        #expect(byFiles.standardOutput == byLines.standardOutput)
        #expect(byFiles.standardOutput.split(separator: "\n").count == 700)

        // A line past the limit is an unreadable customer located at its line, its bytes dropped as
        // read; the lines after it are read as usual, the last without a line feed.
        let long = #"{"customer": "big", "receipts": ["# + String(repeating: #"{"app": "x"},"#, count: 400) + #"{"app": "x"}]}"#
        let mixed = try Self.file(
            [#"{"customer": "a", "receipts": [\#(Self.trial)]}"#, long, #"{"customer": "b", "receipts": [\#(Self.trial)]}"#]
                .joined(separator: "\n"))
        var corpus = CustomerCorpus.open([mixed.path])
        corpus.blockBytes = 512
        corpus.maxLineBytes = 3_000
        var customers: [CustomerCorpus.Customer] = []
        _ = corpus.read { chunk in customers += chunk.items.map(corpus.load) }
        #expect(customers.map(\.id) == ["a", "\(mixed.path):2", "b"])
        guard case .failure(let error) = customers[1].receipts else {
            Issue.record("the long line was read")
            return
        }
        #expect(error.message == "the customer line is longer than 3000 bytes, the limit of a receipt file")
        #expect(error.location?.line == 2)
        #expect(!customers[1].identified)
        if case .failure = customers[2].receipts { Issue.record("the line after the long one does not read") }
    }

    // Named for CI's ThreadSanitizer run (`--filter Concurrency`).
    @Test("the pipeline holds a bounded number of chunks and hands results over in reading order")
    func pipelineConcurrency() {
        let counter = Counter()
        var order: [Int] = []
        var maxOutstanding = 0
        var firstConsumedAfter = -1
        BatchPipeline<Int, Int>(jobs: 3, inFlight: 4).run(
            readChunks: { emit in
                for chunk in 0..<200 {
                    emit(chunk)
                    counter.add(1)
                }
            },
            transform: { chunk in
                // Uneven work, so workers finish out of order.
                var value = UInt64(chunk)
                for _ in 0..<((chunk * 7_919) % 13) * 2_000 { value = value &* 6_364_136_223_846_793_005 &+ 1 }
                return chunk + Int(value & 0)
            },
            consume: { result in
                if firstConsumedAfter < 0 { firstConsumedAfter = counter.value }
                maxOutstanding = max(maxOutstanding, counter.value - order.count)
                order.append(result)
            })
        #expect(order == Array(0..<200))
        // The reader may add one chunk between a result being taken and the consumer looking.
        #expect(maxOutstanding <= 5, "never more chunks read than in flight")
        #expect(firstConsumedAfter <= 5, "the first result is consumed before the whole input is read")
    }

    @Test("a batch on three threads prints what one thread does (run under ThreadSanitizer in CI)")
    func batchConcurrency() throws {
        let corpus = try Self.file(Self.troubledCorpus(300))
        let new = try DiffTests.edited(DiffTests.replacing(DiffTests.dayPassGrants, #""duration": "P1D", "grants": []"#))
        for arguments in [
            ["check", "--catalog", CLITests.products, "--customers", corpus.path, "--at", "2025-07-01"],
            ["diff", CLITests.products, new.path, "--customers", corpus.path, "--at", "2025-07-01", "--format", "json"],
        ] {
            let one = Self.run(arguments + ["--jobs", "1"])
            let three = Self.run(arguments + ["--jobs", "3"])
            #expect(one == three, "\(arguments[0])")
        }
    }

    @Test("customer ids are kept exactly: by bytes and by how they were written, across growth of the table")
    func idSet() {
        var set = CustomerIdSet()
        var reference = Set<[UInt8]>()
        var random = SplitMix64(seed: 3)
        for round in 0..<60_000 {
            // Short ids repeat often; some share every byte but one, some are empty.
            let id = round % 1_000 == 0 ? "" : "c-\(random.next() % 40_000)" + (round % 7 == 0 ? "\u{E9}" : "")
            let kind = round % 5 == 0 ? UInt8(ascii: "#") : UInt8(ascii: "\"")
            let inserted = set.insert(kind: kind, id: id)
            #expect(inserted == reference.insert([kind] + Array(id.utf8)).inserted)
        }
        #expect(set.count == reference.count)
        var composed = CustomerIdSet()
        let inserted = [("\"", "\u{E9}"), ("\"", "e\u{301}"), ("#", "1"), ("\"", "1"), ("\"", "\u{E9}")].map { kind, id in
            composed.insert(kind: UInt8(ascii: Unicode.Scalar(kind)!), id: id)
        }
        // Composed and decomposed é are two ids, as are 1 and "1"; the same é again is a repeat.
        #expect(inserted == [true, true, true, true, false])
    }

    @Test("progress on a terminal shows the rate and the time left; none without a terminal")
    func progress() throws {
        let corpus = try Self.file(Self.troubledCorpus(600))
        let shown = Pieces()
        let clock = Counter()
        var environment = CommandEnvironment(
            readStandardInput: { [] },
            now: {
                // Each reading of the clock is a second later.
                clock.add(1)
                return Instant(millisecondsSince1970: 1_800_000_000_000 + Int64(clock.value) * 1_000)
            }, progress: { shown.append($0) })
        environment.writeStandardOutput = { _ in }
        _ = Self.run(
            ["check", "--catalog", CLITests.products, "--customers", corpus.path, "--at", "2025-07-01", "--jobs", "2"],
            environment: environment)
        let lines = shown.texts
        #expect(lines.last == "", "the line is cleared at the end")
        let updates = lines.dropLast()
        #expect(!updates.isEmpty)
        #expect(updates.allSatisfy { $0.hasPrefix("entitle check: ") && $0.contains("customers/s") })
        #expect(updates.dropLast().allSatisfy { $0.contains(" left") }, "\(updates)")
        #expect(updates.last?.contains("100%") == true)
        #expect(
            BatchProgress.line(command: "entitle diff", customers: 1_500, fraction: 0.25, milliseconds: 3_000)
                == "entitle diff: 1,500 customers, 25%, 500 customers/s, about 9 s left")
        #expect(BatchProgress.line(command: "entitle diff", customers: 1, fraction: nil, milliseconds: 500) == "entitle diff: 1 customer")
        #expect(BatchProgress.duration(200) == "3 min 20 s" && BatchProgress.duration(7_500) == "2 h 5 min" && BatchProgress.duration(60) == "1 min")
        // Without a terminal the environment has no progress, and nothing reads the clock for it.
        let quiet = Counter()
        let plain = CommandEnvironment(
            readStandardInput: { [] },
            now: {
                quiet.add(1)
                return Instant(millisecondsSince1970: 1_800_000_000_000)
            })
        _ = Self.run(["check", "--catalog", CLITests.products, "--customers", corpus.path, "--at", "2025-07-01"], environment: plain)
        #expect(quiet.value == 0)
    }

    @Test("a customer's changes carry structured values: in the library, in its Codable form and in diff --format json")
    func structuredChanges() throws {
        typealias Value = EntitlementChange.Value
        let changes = [
            EntitlementChange(kind: .featureOff, id: "nothing", from: .enabled(true), to: .enabled(false)),
            EntitlementChange(kind: .featureOff, id: "gone", from: .enabled(true), to: nil),
            EntitlementChange(kind: .featureUntil, id: "pro", from: .until(Fixtures.instant("2026-01-15T09:00:00Z")), to: .until(nil)),
            EntitlementChange(kind: .productState, id: "p", from: .state(.active), to: .state(.gracePeriod)),
            EntitlementChange(kind: .balance, id: "gems", from: .balance(10), to: .balance(-4)),
            EntitlementChange(
                kind: .offer, id: "p", from: .offer(.init(eligible: false, reason: .owned)),
                to: .offer(.init(eligible: true, change: .upgrade, effective: .immediately, introOfferEligible: false))),
        ]
        #expect(
            changes.map(\.description) == [
                "feature nothing: on -> off", "feature gone: on -> (none)", "feature pro until: 2026-01-15T09:00:00Z -> no end",
                "product p: active -> grace-period", "balance gems: 10 -> -4",
                "offer p: do not offer (owned) -> offer, upgrade immediately, intro offer used",
            ])
        #expect(changes.map(\.isLoss) == [true, true, false, false, true, false])
        let encoded = try JSONEncoder().encode(changes)
        #expect(try JSONDecoder().decode([EntitlementChange].self, from: encoded) == changes)
        let objects = try #require(try JSONSerialization.jsonObject(with: encoded) as? [[String: Any]])
        #expect(objects[0]["to"] as? [String: Bool] == ["enabled": false], "a value, not the text `off`")
        #expect(objects[1]["to"] is NSNull, "not in that catalog")
        let noEnd = try #require(objects[2]["to"] as? [String: Any])
        #expect(noEnd.keys.sorted() == ["until"] && noEnd["until"] is NSNull, "no end is told apart from a missing side")
        #expect(objects[3]["to"] as? [String: String] == ["state": "grace-period"])
        #expect(objects[4]["to"] as? [String: Int] == ["balance": -4])
        let offer = try #require(objects[5]["to"] as? [String: Any])
        #expect(offer["eligible"] as? Bool == true && offer["change"] as? String == "upgrade" && offer["introOfferEligible"] as? Bool == false)
        #expect(offer["reason"] == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Value.self, from: Data(#"{"on": true}"#.utf8)) }

        // diff --format json writes the same values for a customer's change.
        let new = try DiffTests.edited(DiffTests.replacing(DiffTests.dayPassGrants, #""duration": "P1D", "grants": []"#))
        let corpus = try Self.file(#"{"customer": "a", "receipts": [\#(Self.trial)]}"#)
        let json = Self.run(["diff", CLITests.products, new.path, "--customers", corpus.path, "--at", Self.at, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let groups = try #require((object["impact"] as? [[String: Any]])?.first?["changes"] as? [[String: Any]])
        let lost = try #require(groups.first { $0["kind"] as? String == "feature-off" })
        #expect(lost["from"] as? [String: Bool] == ["enabled": true] && lost["to"] as? [String: Bool] == ["enabled": false])
        let text = Self.run(["diff", CLITests.products, new.path, "--customers", corpus.path, "--at", Self.at])
        #expect(text.standardOutput.contains("    feature pro: on -> off for 1 of 1: a  LOSS\n"), "the text reads as before")
    }
}

/// Texts handed to a closure from any thread, in order.
final class Pieces: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ text: String) { lock.withLock { stored.append(text) } }
    var texts: [String] { lock.withLock { stored } }
}

/// A count shared between threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ amount: Int) { lock.withLock { count += amount } }
    var value: Int { lock.withLock { count } }
}
