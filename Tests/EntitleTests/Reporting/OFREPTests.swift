import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// OpenFeature answers: a result as an OFREP bulk response (`check --format ofrep`).
@Suite("OpenFeature answers")
struct OFREPTests {
    static func flags(_ text: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try #require(object["flags"] as? [[String: Any]])
    }

    static var quill: CompiledCatalog { Fixtures.examples.catalog(for: "com.example.quill")! }

    static var quillReceipts: [ParsedReceipt] {
        ["quill-writer.json", "quill-team-web.json"].map { name in
            try! ParsedReceipt(json: Data(contentsOf: URL(fileURLWithPath: CLITests.receipt(name))), name: name)
        }
    }

    @Test("a flag per feature, balance and limit, sorted by key, with reason, variant and metadata")
    func bulkResponse() throws {
        let result = Self.quill.evaluate(Self.quillReceipts, at: Fixtures.instant("2026-01-10T00:00:00Z"))
        let flags = try Self.flags(result.ofrep)
        #expect(flags.map { $0["key"] as? String } == ["credits", "drafts", "pro", "projects", "seats", "team"])
        let byKey = Dictionary(uniqueKeysWithValues: flags.map { ($0["key"] as! String, $0) })
        // 380 of Pro's monthly 500 left, Team's 1,000 for five seats, a pack of 500.
        #expect(byKey["credits"]?["value"] as? Int == 1880)
        // Drafts are unlimited while Pro or Team covers: the largest exact integer, from a source.
        #expect(byKey["drafts"]?["value"] as? Int == 9_007_199_254_740_991)
        #expect(byKey["drafts"]?["reason"] as? String == "TARGETING_MATCH")
        #expect((byKey["drafts"]?["metadata"] as? [String: Any])?["unlimited"] as? Bool == true)
        #expect(byKey["credits"]?["reason"] as? String == "TARGETING_MATCH")
        #expect(byKey["credits"]?["variant"] == nil)
        #expect(byKey["pro"]?["value"] as? Bool == true)
        #expect(byKey["pro"]?["variant"] as? String == "stripe:prod_QuillTeam")
        let metadata = try #require(byKey["pro"]?["metadata"] as? [String: Any])
        #expect(metadata["until"] as? String == "2026-02-10T00:00:00Z")
        #expect(metadata["store"] as? String == "stripe")
        #expect(metadata["productId"] as? String == "prod_QuillTeam")
        #expect(byKey["projects"]?["value"] as? Int == 9_007_199_254_740_991)
        #expect((byKey["projects"]?["metadata"] as? [String: Any])?["unlimited"] as? Bool == true)
        #expect(byKey["seats"]?["value"] as? Int == 5)
        // The single-flag answer is the bulk answer's flag.
        #expect(
            try JSONSerialization.jsonObject(with: Data(try #require(result.ofrep(flag: "seats")).utf8)) as? NSDictionary == byKey["seats"]
                as NSDictionary?)
        #expect(result.ofrep(flag: "nope") == nil)
    }

    @Test("no source: STATIC, the variant `default`, no metadata; a balance of 0 is STATIC")
    func staticFlags() throws {
        let result = Self.quill.evaluate(Self.quillReceipts, at: Fixtures.instant("2025-12-01T00:00:00Z"))
        for flag in try Self.flags(result.ofrep) {
            #expect(flag["reason"] as? String == "STATIC", "\(flag)")
            #expect(flag["metadata"] == nil, "\(flag)")
            if !["credits", "drafts"].contains(flag["key"] as? String) { #expect(flag["variant"] as? String == "default") }
        }
        let values = Dictionary(uniqueKeysWithValues: try Self.flags(result.ofrep).map { ($0["key"] as! String, $0["value"]!) })
        #expect(values["pro"] as? Bool == false && values["projects"] as? Int == 3 && values["seats"] as? Int == 1 && values["credits"] as? Int == 0)
    }

    @Test("a currency with a feature's id is keyed `balance:<id>`")
    func sharedId() throws {
        let catalog = Fixtures.catalog(
            #"{"app": "com.example.x", "features": {"gems": "Gems mode"}, "currencies": {"gems": "Gems"},"#
                + #""products": [{"id": "p", "type": "non-consumable", "name": "P", "grants": ["gems"]},"#
                + #"{"id": "g", "type": "consumable", "name": "G", "credits": {"gems": 5}}]}"#)
        let result = catalog.evaluate(
            [Receipt(app: "com.example.x", transactions: [Fixtures.transaction("g", "1", "2026-01-01T00:00:00Z")])],
            at: Fixtures.instant("2026-01-02T00:00:00Z"))
        #expect(try Self.flags(result.ofrep).map { $0["key"] as? String } == ["balance:gems", "gems"])
    }

    @Test("a feature's variant is the source explain says decides it, on every example receipt")
    func variantIsExplainsDecision() throws {
        let portfolio = Fixtures.examples
        var compared = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: Fixtures.productsDirectory + "/receipts").sorted() {
            let receipt = try ParsedReceipt(json: Data(contentsOf: URL(fileURLWithPath: CLITests.receipt(name))), name: name)
            guard let catalog = portfolio.catalog(for: receipt.app) else { continue }
            for at in ["2026-01-15T09:00:00Z", "2026-03-01T00:00:00Z", "2026-06-01T00:00:00Z"] {
                let result = catalog.evaluate([receipt], at: Fixtures.instant(at))
                let explanation = catalog.explain([receipt], at: Fixtures.instant(at))
                let flags = Dictionary(uniqueKeysWithValues: try Self.flags(result.ofrep).map { ($0["key"] as! String, $0) })
                for feature in explanation.features where feature.enabled {
                    #expect(flags[feature.id]?["variant"] as? String == feature.decidedBy, "\(name) at \(at): \(feature.id)")
                    compared += 1
                }
            }
        }
        #expect(compared > 10)
    }

    @Test("check --format ofrep, and one line per customer with --customers")
    func commandLine() throws {
        let single = CLITests.run([
            "check", "--catalog", CLITests.products, "--receipt", CLITests.receipt("quill-writer.json"), "--at", "2026-01-05T00:00:00Z",
            "--format", "ofrep",
        ])
        #expect(single.exitCode == 0)
        #expect(single.standardOutput.hasPrefix(#"{"flags":[{"key":"credits","value":880,"reason":"TARGETING_MATCH"},"#))
        let batch = CLITests.run([
            "check", "--catalog", CLITests.products, "--customers", Fixtures.productsDirectory + "/receipts", "--at", "2026-01-15T09:00:00Z",
            "--format", "ofrep",
        ])
        let lines = batch.standardOutput.split(separator: "\n")
        #expect(lines.count == 12)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["customer"] is String && (object["flags"] is [Any] || object["errors"] is [Any]), "\(line)")
        }
    }
}
