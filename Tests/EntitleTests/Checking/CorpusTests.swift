import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// The shared corpus (Corpus/cases/*.json), run through the library and through `entitle check`.
@Suite("Corpus")
struct CorpusTests {
    static let cases = CorpusCase.all()

    @Test("the corpus is not empty")
    func present() {
        #expect(Self.cases.count >= 4)
    }

    @Test("library evaluation matches the expected result", arguments: cases)
    func library(_ corpusCase: CorpusCase) throws {
        let portfolio = try Portfolio.load(path: Fixtures.packageRoot.appendingPathComponent(corpusCase.catalog).path).get()
        let receipts = try corpusCase.receipts.map { source -> Receipt in
            switch source {
            case .path(let path):
                let url = Fixtures.packageRoot.appendingPathComponent(path)
                return try ReceiptDecoder.decode(try Data(contentsOf: url), name: path)
            case .inline(let json):
                return try ReceiptDecoder.decode(Data(json.utf8))
            }
        }
        let result = try portfolio.evaluate(
            app: corpusCase.app ?? receipts[0].app, receipts: receipts, at: try #require(Instant(rfc3339: corpusCase.at)))
        let actual = try JSONSubset.parse(result.json)
        let problem = JSONSubset.mismatch(expected: try JSONSubset.parse(corpusCase.expect), actual: actual)
        #expect(problem == nil, "\(corpusCase.file): \(problem ?? "")")
    }

    @Test("entitle check --format json prints the expected result", arguments: cases)
    func commandLine(_ corpusCase: CorpusCase) throws {
        try Fixtures.withTemporaryDirectory("entitle-corpus") { directory in
            var arguments = [
                "check", "--catalog", Fixtures.packageRoot.appendingPathComponent(corpusCase.catalog).path,
                "--at", corpusCase.at, "--format", "json",
            ]
            for (index, source) in corpusCase.receipts.enumerated() {
                switch source {
                case .path(let path):
                    arguments += ["--receipt", Fixtures.packageRoot.appendingPathComponent(path).path]
                case .inline(let json):
                    let file = directory.appendingPathComponent("receipt\(index).json")
                    try Data(json.utf8).write(to: file)
                    arguments += ["--receipt", file.path]
                }
            }
            if let app = corpusCase.app { arguments += ["--app", app] }
            let output = EntitleCommand.run(arguments, environment: CLITests.environment())
            #expect(output.exitCode == 0, "\(output.standardError)")
            let problem = JSONSubset.mismatch(
                expected: try JSONSubset.parse(corpusCase.expect), actual: try JSONSubset.parse(output.standardOutput))
            #expect(problem == nil, "\(corpusCase.file): \(problem ?? "")")
        }
    }
}

/// Files that the JSON Schemas reject (CI checks that with check-jsonschema); the compiler and the
/// receipt decoder must reject every one of them too.
@Suite("Schema agreement")
struct SchemaAgreementTests {
    static func files(_ kind: String) -> [String] {
        let directory = Fixtures.corpusDirectory.appendingPathComponent("schema-invalid/\(kind)")
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted().map { directory.appendingPathComponent($0).path }
    }

    @Test("there are schema-invalid catalogs and receipts to check")
    func present() {
        #expect(Self.files("catalogs").count >= 15)
        #expect(Self.files("receipts").count >= 6)
    }

    @Test("the compiler rejects every catalog the schema rejects", arguments: files("catalogs"))
    func catalogs(_ path: String) {
        let compilation = Portfolio.load(path: path)
        #expect(compilation.portfolio == nil)
        #expect(!compilation.errors.isEmpty)
    }

    @Test("the receipt decoder rejects every receipt the schema rejects", arguments: files("receipts"))
    func receipts(_ path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: ReceiptError.self) { try ReceiptDecoder.decode(data, name: path) }
    }

    @Test("the examples the schema accepts, the compiler and decoder accept")
    func examplesAccepted() throws {
        #expect(Portfolio.load(path: Fixtures.productsDirectory).portfolio != nil)
        let receipts = Fixtures.packageRoot.appendingPathComponent("products/receipts")
        for name in try FileManager.default.contentsOfDirectory(atPath: receipts.path) where name.hasSuffix(".json") {
            let data = try Data(contentsOf: receipts.appendingPathComponent(name))
            _ = try ReceiptDecoder.decode(data, name: name)
        }
    }
}
