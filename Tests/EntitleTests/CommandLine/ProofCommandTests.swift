import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// `entitle diff --prove` and `entitle validate --deep` on the command line: the report, the
/// witnesses as test files that `entitle test` passes, `--fail-on-loss`, JSON, misuse; and every
/// kind of finding of a deep review, located.
@Suite("diff --prove and validate --deep")
struct ProofCommandTests {
    static func run(_ arguments: [String]) -> CommandOutput {
        EntitleCommand.run(arguments, environment: CLITests.environment())
    }

    static var products: String { CLITests.products }

    /// products/ with the day pass granting nothing.
    static func withoutDayPassGrant() throws -> URL {
        try ProofTests.edited("diagrams.json", ProofTests.plants[0].edits)
    }

    @Test("diff --prove prints what was searched and each difference with its smallest witness")
    func proveText() throws {
        let new = try Self.withoutDayPassGrant()
        let output = Self.run(["diff", Self.products, new.path, "--prove"])
        #expect(output.exitCode == 0, "\(output.standardError)")
        let text = output.standardOutput
        #expect(text.contains("\nproof: searched every receipt of up to 2 transactions at every boundary instant: "))
        #expect(
            text.contains(
                """
                  com.example.diagrams
                    feature pro: less
                      less at 2026-01-31T00:00:00Z: on until 2026-02-01T00:00:00Z -> off  LOSS
                        com.example.diagrams.daypass at 2026-01-31T00:00:00Z: bought (transaction 1)
                """), "\(text)")
        #expect(text.contains("    same: features export.pdf, cloud.sync\n"))
        #expect(output.standardError.contains("entitle: proof: 1 part of the answer differs, some customer loses a feature or balance\n"))
    }

    @Test("the witnesses are test files that `entitle test` passes against the new catalogs, and `check` confirms on both")
    func witnessFiles() throws {
        let new = try ProofTests.edited("diagrams.json", ProofTests.plants[1].edits + ProofTests.plants[4].edits)
        let directory = Fixtures.scratch("entitle-witnesses", ending: "/found")
        let output = Self.run(["diff", Self.products, new.path, "--prove", "--witnesses", directory.path])
        #expect(output.exitCode == 0, "\(output.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".test.json") }.sorted()
        #expect(files.contains("com.example.diagrams.feature.pro.less.test.json"), "\(files)")
        #expect(files.contains("com.example.diagrams.product.com.example.diagrams.daypass.less.test.json"), "\(files)")
        #expect(output.standardError.contains("entitle: \(files.count) witnesses written to \(directory.path)\n"))
        let test = Self.run(["test", directory.path])
        #expect(test.exitCode == 0, "\(test.standardOutput)\(test.standardError)")
        #expect(test.standardOutput.hasSuffix("\(files.count) passed, 0 failed\n"), "\(test.standardOutput)")
        // Against the old catalogs, every case fails: each expects what only the new one answers.
        let file = directory.appendingPathComponent("com.example.diagrams.feature.pro.less.test.json")
        let witness = try String(contentsOf: file, encoding: .utf8)
        #expect(witness.contains("\"catalog\": \"\(WitnessFiles.relativePath(from: directory.path, to: new.path))\""))
        let oldCopy = witness.replacingOccurrences(
            of: WitnessFiles.relativePath(from: directory.path, to: new.path),
            with: WitnessFiles.relativePath(from: directory.path, to: Self.products))
        let oldFile = directory.appendingPathComponent("old.test.json")
        try oldCopy.write(to: oldFile, atomically: true, encoding: .utf8)
        let againstOld = Self.run(["test", oldFile.path])
        #expect(againstOld.exitCode == 1 && againstOld.standardOutput.hasSuffix("0 passed, 1 failed\n"), "\(againstOld.standardOutput)")
        // `check` on the witness's receipts and instant, under each catalog.
        let object = try #require(JSONSerialization.jsonObject(with: Data(witness.utf8)) as? [String: Any])
        let testCase = try #require((object["cases"] as? [[String: Any]])?.first)
        let at = try #require(testCase["at"] as? String)
        // A receipt's original application version cannot be told as a story: the grandfather
        // rule's witness keeps its receipts.
        let receipts = try #require(testCase["receipts"] as? [Any])
        #expect(witness.contains("\"originalApplicationVersion\""))
        // The day pass's witness is a purchase at an instant: told as a story, whose receipts
        // `entitle receipt` writes.
        let pass = try String(
            contentsOf: directory.appendingPathComponent("com.example.diagrams.product.com.example.diagrams.daypass.less.test.json"), encoding: .utf8)
        let passObject = try #require(JSONSerialization.jsonObject(with: Data(pass.utf8)) as? [String: Any])
        let passCase = try #require((passObject["cases"] as? [[String: Any]])?.first)
        let story = try #require(passCase["story"] as? [[String: Any]], "told as a story: \(passCase.keys.sorted())")
        #expect(story.contains { $0["buy"] as? String == "com.example.diagrams.daypass" })
        let storyFile = directory.appendingPathComponent("story.json")
        try JSONSerialization.data(withJSONObject: ["app": "com.example.diagrams", "story": story]).write(to: storyFile)
        let told = Self.run(["receipt", "--catalog", new.path, storyFile.path])
        #expect(told.exitCode == 0 && told.standardOutput.contains("\"productId\": \"com.example.diagrams.daypass\""), "\(told.standardError)")
        var arguments: [String] = []
        for (index, receipt) in receipts.enumerated() {
            let path = directory.appendingPathComponent("receipt-\(index).json")
            try JSONSerialization.data(withJSONObject: receipt).write(to: path)
            arguments += ["--receipt", path.path]
        }
        func pro(_ catalog: String) throws -> Bool? {
            let check = Self.run(["check", "--catalog", catalog, "--at", at, "--format", "json"] + arguments)
            let result = try JSONSerialization.jsonObject(with: Data(check.standardOutput.utf8)) as? [String: Any]
            return ((result?["features"] as? [String: Any])?["pro"] as? [String: Any])?["enabled"] as? Bool
        }
        #expect(try pro(Self.products) == true)
        #expect(try pro(new.path) == false)
    }

    @Test("--fail-on-loss with --prove fails on a witness that loses a feature, not on a gain")
    func failOnLoss() throws {
        let loss = Self.run(["diff", Self.products, try Self.withoutDayPassGrant().path, "--prove", "--fail-on-loss"])
        #expect(loss.exitCode == 1)
        let gain = try ProofTests.edited("diagrams.json", [(ProofTests.plants[0].edits[0].0, #""duration": "P1D", "grants": ["pro", "export.pdf"]"#)])
        let gained = Self.run(["diff", Self.products, gain.path, "--prove", "--fail-on-loss"])
        #expect(gained.exitCode == 0, "\(gained.standardError)")
        #expect(gained.standardOutput.contains("    feature export.pdf: more\n"))
        // Without --prove, the gate looks at customers only: with none given, nothing fails.
        #expect(Self.run(["diff", Self.products, try Self.withoutDayPassGrant().path, "--fail-on-loss"]).exitCode == 0)
    }

    @Test("diff --prove --format json: the proof under `proof`, each witness with its receipts")
    func proveJSON() throws {
        let output = Self.run(["diff", Self.products, try Self.withoutDayPassGrant().path, "--prove", "--format", "json"])
        #expect(output.exitCode == 0)
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        let proof = try #require(object["proof"] as? [String: Any])
        #expect(proof["depth"] as? Int == 2 && proof["loss"] as? Bool == true)
        #expect((proof["receipts"] as? Int ?? 0) > 0 && (proof["evaluations"] as? Int ?? 0) > (proof["receipts"] as? Int ?? 0))
        let items = try #require(proof["items"] as? [[String: Any]])
        let pro = try #require(
            items.first { $0["app"] as? String == ProofTests.diagrams && $0["kind"] as? String == "feature" && $0["id"] as? String == "pro" })
        #expect(pro["verdict"] as? String == "less" && pro["unchanged"] as? Bool == false)
        let witness = try #require((pro["witnesses"] as? [[String: Any]])?.first)
        #expect(
            witness["direction"] as? String == "less" && witness["old"] as? String == "on until 2026-02-01T00:00:00Z"
                && witness["new"] as? String == "off")
        let receipts = try #require(witness["receipts"] as? [[String: Any]])
        #expect((receipts.first?["transactions"] as? [[String: Any]])?.first?["productId"] as? String == "com.example.diagrams.daypass")
        #expect(items.filter { $0["verdict"] as? String != "same" }.count == 1)
        #expect(object["catalogChanges"] != nil && object["impact"] != nil)
    }

    @Test("misuse: --depth and --witnesses need --prove (or --deep), --depth is 1 to 4, --witnesses a directory")
    func misuse() throws {
        let depth = Self.run(["diff", Self.products, Self.products, "--depth", "3"])
        #expect(depth.exitCode == 2 && depth.standardError.contains("`--depth` is for `--prove`"), "\(depth.standardError)")
        let witnesses = Self.run(["diff", Self.products, Self.products, "--witnesses", "/tmp"])
        #expect(witnesses.exitCode == 2 && witnesses.standardError.contains("`--witnesses` is for `--prove`"))
        let tooDeep = Self.run(["diff", Self.products, Self.products, "--prove", "--depth", "5"])
        #expect(tooDeep.exitCode == 2 && tooDeep.standardError.contains("`--depth 5`: must be from 1 to 4"), "\(tooDeep.standardError)")
        let file = Self.run(["diff", Self.products, Self.products, "--prove", "--witnesses", Self.products + "/diagrams.json"])
        #expect(file.exitCode == 2 && file.standardError.contains("is a file, not a directory"))
        let validate = Self.run(["validate", "--depth", "2", Self.products])
        #expect(validate.exitCode == 2 && validate.standardError.contains("`--depth` is for `--deep`"))
        let limit = Self.run(["diff", Self.products, Self.products, "--time-limit", "10"])
        #expect(limit.exitCode == 2 && limit.standardError.contains("`--time-limit` is for `--prove`"), "\(limit.standardError)")
        let validateLimit = Self.run(["validate", "--time-limit", "10m", Self.products])
        #expect(validateLimit.exitCode == 2 && validateLimit.standardError.contains("`--time-limit` is for `--deep`"))
        for bad in ["10x", "0", "-5", "m", "99999999999"] {
            let output = Self.run(["validate", "--deep", "--time-limit", bad, Self.products])
            #expect(output.exitCode == 2 && output.standardError.contains("`--time-limit \(bad)`"), "\(bad): \(output.standardError)")
        }
    }

    @Test("--time-limit: a search within its time is complete; a proof shows its progress on a terminal, and clears it")
    func timeLimitAndProgress() throws {
        let lines = Pieces()
        var environment = CLITests.environment()
        environment.progress = { lines.append($0) }
        let deep = EntitleCommand.run(["validate", "--deep", "--time-limit", "1h", Self.products], environment: environment)
        #expect(deep.exitCode == 0, "\(deep.standardError)")
        #expect(!deep.standardError.contains("not complete"))
        let shown = lines.texts
        #expect(shown.last == "", "the line is cleared at the end")
        #expect(shown.contains { $0.hasPrefix("entitle validate --deep: com.example.diagrams (") && $0.contains(" customers") }, "\(shown.prefix(3))")
        // Without a terminal, nothing.
        let quiet = Self.run(["validate", "--deep", "--time-limit", "1h", Self.products])
        #expect(quiet.standardError == deep.standardError)
    }

    // MARK: validate --deep

    /// A catalog with a feature only a rule that never matches grants, a rule that matches only
    /// with another, and a win-back offer that cannot run after a hundred years' lapse.
    static let deepCatalog = """
        {
          "app": "com.example.deep",
          "features": { "pro": "Pro", "beta": "Beta features", "sync": "Sync" },
          "legal": { "auto-renewable-subscription": "Renews until canceled." },
          "grandfathered": [
            { "id": "paid-app", "originalApplicationVersionBefore": "2.0", "grants": ["pro"] },
            { "id": "early", "originalApplicationVersionBefore": "1.0", "grants": ["pro"] },
            { "id": "testers", "originalApplicationVersionBefore": "0", "grants": ["beta"] }
          ],
          "products": [
            { "id": "com.example.deep.pro", "type": "non-consumable", "name": "Pro", "grants": ["pro"] },
            { "id": "com.example.deep.sync", "type": "auto-renewable-subscription", "name": "Sync", "group": "sync", "duration": "P1M",
              "offers": [
                { "id": "sync.ancient", "type": "win-back", "mode": "free-trial", "duration": "P1M", "lapsedAtLeast": "P100Y",
                  "until": "0050-01-01T00:00:00Z" },
                { "id": "sync.back", "type": "win-back", "mode": "free-trial", "duration": "P1M", "paidAtLeast": "P6M", "lapsedAtLeast": "P2M" }
              ],
              "grants": ["sync"] }
          ]
        }

        """

    static func deepDirectory() throws -> URL {
        let directory = Fixtures.scratch("entitle-deep")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.deepCatalog.write(to: directory.appendingPathComponent("deep.json"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test("validate --deep: a feature never on, a rule that never matches, a redundant rule, an offer that never holds, located")
    func deepFindings() throws {
        let directory = try Self.deepDirectory()
        let file = directory.appendingPathComponent("deep.json").path
        let output = Self.run(["validate", "--deep", directory.path])
        #expect(output.exitCode == 0)
        let searched = "searched every customer of up to 2 transactions at every boundary instant"
        #expect(
            output.standardError.contains(
                """
                \(file):3:31: warning: features.beta: no searched customer has feature `beta` on
                  help: it is granted by grandfather rule `testers`; \(searched)
                \(file):7:5: warning: grandfathered[1]: grandfather rule `early` matches only where rule `paid-app` matches too, covering as much
                  help: remove it, or change its condition; \(searched)
                \(file):8:5: warning: grandfathered[2]: grandfather rule `testers` matches no searched receipt
                """), "\(output.standardError)")
        #expect(
            output.standardError.contains(
                "\(file):14:9: warning: products[1].offers[0]: the conditions of offer `sync.ancient` never all hold for a searched customer\n"))
        #expect(!output.standardError.contains("sync.back"))  // paid six months, lapsed two: it holds
        #expect(output.standardError.contains("entitle: --deep: searched every receipt of up to 2 transactions at every boundary instant: "))
        #expect(output.standardError.hasSuffix("entitle: 1 catalog valid: 0 errors, 4 warnings\n"))
        let codes = CatalogProof.review(try Portfolio.load(path: directory.path).get(), sources: []).findings.map(\.code)
        #expect(codes == [.neverOn, .offerNeverEligible, .ruleRedundant, .ruleNeverMatches])
    }

    @Test("validate --deep in every format: JSON, GitHub annotations, SARIF (searching one transaction deep)")
    func deepFormats() throws {
        let directory = try Self.deepDirectory()
        let json = Self.run(["validate", "--deep", "--depth", "1", "--format", "json", directory.path])
        let diagnostics = try #require(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(diagnostics.map { $0["code"] as? String } == ["never-on", "rule-redundant", "rule-never-matches", "offer-never-eligible"])
        #expect(diagnostics.allSatisfy { $0["severity"] as? String == "warning" && $0["line"] as? Int != nil })
        let github = Self.run(["validate", "--deep", "--depth", "1", "--format", "github", directory.path])
        #expect(github.standardOutput.contains("::warning file=\(directory.path)/deep.json,line=8,col=5"), "\(github.standardOutput)")
        let sarif = Self.run(["validate", "--deep", "--depth", "1", "--format", "sarif", directory.path])
        #expect(sarif.standardOutput.contains("\"ruleId\": \"rule-never-matches\""))
        #expect(sarif.standardOutput.contains("a grandfather rule no searched receipt matches"))
    }

    @Test("validate --deep on the example catalogs finds nothing, and searches customers")
    func deepExamples() {
        let output = Self.run(["validate", "--deep", Self.products])
        #expect(output.exitCode == 0)
        #expect(output.standardError.hasSuffix("entitle: 6 catalogs valid: 0 errors, 0 warnings\n"), "\(output.standardError)")
        #expect(output.standardError.contains("entitle: --deep: searched every receipt of up to 2 transactions"))
    }

    @Test("validate --deep with catalogs that have errors searches nothing and says so")
    func deepWithErrors() throws {
        let directory = try CLITests.catalogDirectory(extra: ["broken.json": #"{ "app": "x", "features": {}, "products": [ { "id": "a" } ] }"#])
        let output = Self.run(["validate", "--deep", directory.path])
        #expect(output.exitCode == 1)
        #expect(output.standardError.contains("entitle: --deep: the catalogs have errors, so no customer was searched\n"))
    }

    /// Three findings cannot be reached under evaluation's rules by any catalog the checker
    /// accepts: the customer with nothing may buy every available product, with nothing on (an
    /// upgrade: the customer with only its prerequisite); a trial bought alone is the only source
    /// of what it grants. A review that saw one customer only, with a day pass, shows how they read.
    @Test("a review that saw one customer: a product never offered, a product whose grants are on, a trial that adds nothing")
    func unreachableFindings() throws {
        let catalog = Fixtures.diagrams
        let space = ReceiptSpace(app: catalog.app, catalogs: [catalog], includesGrants: false, extendOffersWithGrants: true)
        let bought = Fixtures.instant("2026-01-31T00:00:00Z")
        let receipt = Receipt(
            app: catalog.app,
            transactions: [
                Transaction(productId: "com.example.diagrams.daypass", transactionId: "1", purchaseDate: bought)
            ])
        let result = catalog.evaluate([receipt], at: bought)
        var observer = ReviewObserver(space: space)
        observer.observe(
            SearchCase(
                customer: ReceiptSpace.Customer(), base: ReceiptSpace.base, receipts: [receipt],
                points: [[SearchPoint(at: bought.millisecondsSince1970, result: result)]],
                touched: Array(space.items.indices), order: SearchOrder(unit: 0, local: 0)), in: space)
        let findings = observer.findings(catalog: catalog, space: space).filter {
            [.neverOffered, .grantsAlwaysOn, .trialAddsNothing].contains($0.code)
        }
        #expect(findings.map(\.code) == [.trialAddsNothing, .neverOffered, .grantsAlwaysOn], "\(findings)")
        #expect(findings[0].message == "trial `com.example.diagrams.trial` never turns on a feature that nothing else covers")
        #expect(
            findings[1].subject == .product("com.example.diagrams.pro.upgrade") && findings[1].help == "its offer always says `prerequisite-missing`")
        #expect(findings[2].message == "whenever product `com.example.diagrams.daypass` may be bought, everything it grants is on already")
        let source = CatalogSource(name: catalog.source, data: try Data(contentsOf: URL(fileURLWithPath: catalog.source)))
        let review = CatalogReview(
            depth: 2, statistics: ProofStatistics(), findings: findings, sources: [source],
            files: [catalog.app: catalog.source])
        let trial = try #require(review.diagnostics.first { $0.code == .trialAddsNothing })
        let line = String(decoding: source.data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains(#""id": "com.example.diagrams.trial""#) }.map { $0 }  // the object opens a line before
        #expect(trial.path == "products[1]" && trial.location?.line == line && trial.severity == .warning)
    }
}
