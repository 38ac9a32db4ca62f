import Foundation
import Testing

@testable import Entitle

/// One catalog mistake (a file of `Corpus/rejections/`) and the diagnostic it must produce.
struct Rejection: CustomTestStringConvertible, Sendable {
    var name: String
    var json: String
    var code: DiagnosticCode
    /// Located in the file of `Corpus/rejections/` that holds `json`.
    var expected: ExpectedError
    var help: String?
    var testDescription: String { name }
}

/// Builds a catalog around some products, keeping line numbers predictable: the first product
/// object starts on line 9.
func catalogText(products: String, extra: String = "", app: String = "com.example.app") -> String {
    """
    {
      "app": "\(app)",
      "features": { "pro": "Pro tools", "export.pdf": "PDF export" },
      "currencies": { "coins": "Coins" },
      "legal": { "auto-renewable-subscription": "Renews.", "non-renewing-subscription": "Does not renew." },\(extra)
      "products": [
        { "id": "com.example.app.full", "type": "non-consumable", "name": "Full", "grants": ["pro", "export.pdf"] },
        { "id": "com.example.app.coins", "type": "consumable", "name": "Coins", "credits": { "coins": 5 } }\(products.isEmpty ? "" : ",\n" + products)
      ]
    }
    """
}

@Suite("Catalog checking")
struct CatalogCheckerTests {
    /// The rejected catalogs of `Tests/EntitleTests/Corpus/rejections/`, each file a catalog with
    /// one mistake, and `expected.json` the diagnostic each must produce.
    static let rejections: [Rejection] = {
        let directory = Fixtures.corpusDirectory.appendingPathComponent("rejections")
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("expected.json")),
            let entries = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return [] }
        return entries.compactMap { entry in
            guard let file = entry["file"] as? String, let name = entry["name"] as? String,
                let code = entry["code"] as? String, let message = entry["message"] as? String,
                let line = entry["line"] as? Int, let column = entry["column"] as? Int, let path = entry["path"] as? String,
                let bytes = try? Data(contentsOf: directory.appendingPathComponent(file))
            else { return nil }
            return Rejection(
                name: name, json: String(decoding: bytes, as: UTF8.self), code: DiagnosticCode(rawValue: code),
                expected: ExpectedError(
                    message: message, location: SourceLocation(file: file, line: line, column: column), path: path,
                    token: entry["token"] as? String),
                help: entry["help"] as? String)
        }
    }()

    @Test("every file of the rejection corpus has its expected diagnostic, and every expected one its file")
    func rejectionCorpus() throws {
        let directory = Fixtures.corpusDirectory.appendingPathComponent("rejections")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "expected.json" }.sorted()
        #expect(Self.rejections.count >= 43)
        #expect(files == Self.rejections.map(\.expected.location.file).sorted())
    }

    @Test("each mistake is rejected with its message, location and help", arguments: rejections)
    func rejection(_ given: Rejection) throws {
        let compilation = Fixtures.compile(given.json, name: given.expected.location.file)
        #expect(compilation.portfolio == nil, "a catalog with an error must not compile")
        let matching = compilation.diagnostics.filter { $0.code == given.code && $0.isError }
        let diagnostic = try #require(matching.first, "no \(given.code) among: \(compilation.diagnostics.map(\.description))")
        given.expected.check(message: diagnostic.message, location: diagnostic.location, path: diagnostic.path, in: given.json)
        if let help = given.help { #expect(diagnostic.help == help) }
    }

    @Test("every problem is reported in one pass")
    func allAtOnce() {
        let json = catalogText(
            products: #"""
                    { "id": "p1", "type": "non-consumable", "name": "P", "grants": ["pro", "nope"], "colour": "red" },
                    { "id": "p1", "type": "consumable", "name": "C", "credits": { "gold": 1 } },
                    { "id": "d", "type": "non-renewing-subscription", "name": "D", "duration": "P1Q", "grants": ["pro"] }
                """#)
        let errors = Fixtures.compile(json).errors
        #expect(Set(errors.map(\.code)) == [.undeclaredFeature, .unknownKey, .duplicateProduct, .undeclaredCurrency, .badDuration])
        #expect(errors.count == 5)
        let lines = errors.map { $0.location!.line * 1000 + $0.location!.column }
        #expect(lines == lines.sorted(), "diagnostics come in file order")
    }

    @Test("warnings do not fail: unused features and currencies, products granting nothing, trial-like names")
    func warnings() throws {
        let json = """
            {
              "app": "com.example.app",
              "features": { "pro": "Pro", "unused": "Nobody grants this" },
              "currencies": { "gems": "Gems" },
              "products": [
                { "id": "full", "type": "non-consumable", "name": "Full", "grants": ["pro"] },
                { "id": "empty", "type": "non-consumable", "name": "Empty" },
                { "id": "free", "type": "non-consumable", "name": "30-day Trial", "priceTier": 0, "grants": ["pro"] }
              ]
            }
            """
        let compilation = Fixtures.compile(json)
        #expect(compilation.portfolio != nil)
        let warnings = compilation.diagnostics
        #expect(warnings.allSatisfy { $0.severity == .warning })
        #expect(Set(warnings.map(\.code)) == [.unusedFeature, .unusedCurrency, .grantsNothing, .looksLikeTrial])
        let unused = try #require(warnings.first { $0.code == .unusedFeature })
        #expect(unused.description == "catalog.json:3:31: warning: features.unused: feature `unused` is declared but no product grants it")
    }

    @Test("diagnostics print as file:line:column: severity: path: message, with help on its own line")
    func printedForm() throws {
        let json = catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "grants": ["export.pfd"] }"#)
        let diagnostic = try #require(Fixtures.compile(json).errors.first)
        #expect(
            diagnostic.description == """
                catalog.json:9:69: error: products[2].grants[0]: undeclared feature `export.pfd`
                  help: did you mean `export.pdf`?
                """)
    }

    @Test("nesting deeper than the bound is a clear error, not a crash")
    func deepNesting() throws {
        let depth = 100_000
        let json = "{\"app\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        let diagnostic = try #require(Fixtures.compile(json).errors.first)
        #expect(diagnostic.code == .malformedJSON)
        #expect(diagnostic.message == "JSON nested deeper than 64 levels")
    }

    @Test("files over the size limit are refused before reading")
    func tooLarge() throws {
        var data = Data("{\"app\": \"".utf8)
        data.append(Data(repeating: UInt8(ascii: "a"), count: JSONDocument.Limits.catalog.maxBytes))
        let compilation = Portfolio.compile([CatalogSource(name: "big.json", data: data)])
        let diagnostic = try #require(compilation.errors.first)
        #expect(diagnostic.message.contains("over the limit of 33554432 bytes"))
    }

    @Test("the example portfolio compiles without warnings")
    func examples() {
        let compilation = Portfolio.load(path: Fixtures.productsDirectory)
        #expect(
            compilation.portfolio?.apps.sorted() == [
                "com.example.atelier", "com.example.diagrams", "com.example.diagrams6", "com.example.naturelab.backyardbirds.example",
                "com.example.quill", "com.example.starquest",
            ])
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.map(\.description))")
    }

    @Test("in a portfolio, anyOf must name products of the required app's catalog")
    func crossCatalog() throws {
        let old = """
            { "app": "com.example.old", "features": { "pro": "Pro" },
              "products": [ { "id": "old.pro", "type": "non-consumable", "name": "Old Pro", "grants": ["pro"] } ] }
            """
        let new = catalogText(
            products:
                #"    { "id": "u", "type": "non-consumable", "name": "U", "grants": ["pro"], "upgrade": { "replaces": "com.example.app.full", "requires": { "app": "com.example.old", "anyOf": ["old.por"] } } }"#
        )
        let compilation = Portfolio.compile([
            CatalogSource(name: "old.json", data: Data(old.utf8)), CatalogSource(name: "new.json", data: Data(new.utf8)),
        ])
        #expect(compilation.portfolio == nil)
        let diagnostic = try #require(compilation.errors.first)
        #expect(diagnostic.message == "`old.por` is not a product of `com.example.old` (catalog `old.json`)")
        #expect(diagnostic.location == SourceLocation(file: "new.json", line: 9, column: 175))
        #expect(diagnostic.help == "did you mean `old.pro`?")
        // Without the old app's catalog the same upgrade is accepted: nothing to check anyOf against.
        #expect(Portfolio.compile([CatalogSource(name: "new.json", data: Data(new.utf8))]).portfolio != nil)
    }

    @Test("two catalogs for one app are rejected")
    func duplicateApp() throws {
        let json = catalogText(products: "")
        let compilation = Portfolio.compile([
            CatalogSource(name: "a.json", data: Data(json.utf8)), CatalogSource(name: "b.json", data: Data(json.utf8)),
        ])
        #expect(compilation.portfolio == nil)
        #expect(compilation.errors.first?.message == "app `com.example.app` already has a catalog in `a.json`")
    }

    @Test("did-you-mean uses edit distance and stays quiet when nothing is close")
    func suggestions() {
        #expect(Suggestion.closest(to: "grnats", in: ["grants", "group"]) == "grants")
        #expect(Suggestion.closest(to: "xyz", in: ["grants", "group"]) == nil)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("ab", "ba") == 1)
    }
}

@Suite("Reloading catalogs")
struct PortfolioStoreTests {
    @Test("a bad reload is refused with its diagnostics and the last good portfolio stays")
    func keepsLastGood() throws {
        let store = PortfolioStore()
        #expect(store.portfolio == nil)
        let good = catalogText(products: "")
        #expect(store.reload([CatalogSource(name: "a.json", data: Data(good.utf8))]).errors.isEmpty)
        let first = try #require(store.portfolio)
        #expect(first.catalog(for: "com.example.app")?.productIds == ["com.example.app.full", "com.example.app.coins"])

        let bad = catalogText(products: #"    { "id": "p", "type": "non-consumable", "name": "P", "grants": ["nope"] }"#)
        let refused = store.reload([CatalogSource(name: "a.json", data: Data(bad.utf8))])
        #expect(refused.errors.map(\.code) == [.undeclaredFeature])
        #expect(store.portfolio?.catalog(for: "com.example.app")?.productIds == first.catalog(for: "com.example.app")?.productIds)

        let better = catalogText(products: #"    { "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"] }"#)
        store.reload([CatalogSource(name: "a.json", data: Data(better.utf8))])
        #expect(store.portfolio?.catalog(for: "com.example.app")?.productIds.last == "p")
    }

    @Test("the store says which catalogs answer: a generation for each change, and a hash of their content")
    func generationAndHash() throws {
        let store = PortfolioStore()
        #expect(store.loaded == nil)
        let good = Data(catalogText(products: "").utf8)
        store.reload([CatalogSource(name: "a.json", data: good)])
        let first = try #require(store.loaded)
        #expect(first.generation == 1 && first.contentHash.hasPrefix("sha256:") && first.contentHash.count == 71)
        // The same bytes under another name: the same content, so nothing changes.
        store.reload([CatalogSource(name: "renamed.json", data: good)])
        #expect(store.loaded?.generation == 1 && store.loaded?.contentHash == first.contentHash)
        // A refused reload changes nothing either.
        store.reload([CatalogSource(name: "a.json", data: Data("{".utf8))])
        #expect(store.loaded?.generation == 1)
        // A change, however small, is a new generation with another hash.
        let edited = Data(catalogText(products: "").replacingOccurrences(of: "\n", with: " \n").utf8)
        store.reload([CatalogSource(name: "a.json", data: edited)])
        #expect(store.loaded?.generation == 2 && store.loaded?.contentHash != first.contentHash)
        // The order of the files does not matter.
        let other = Data(
            #"{"app":"com.example.other","features":{"x":"X"},"products":[{"id":"o","type":"non-consumable","name":"O","grants":["x"]}]}"#.utf8)
        let forward = try Portfolio.compile([CatalogSource(name: "a.json", data: good), CatalogSource(name: "b.json", data: other)]).get()
        let backward = try Portfolio.compile([CatalogSource(name: "b.json", data: other), CatalogSource(name: "a.json", data: good)]).get()
        #expect(forward.contentHash == backward.contentHash && forward.contentHash != first.contentHash)
    }

    @Test("the content hash is SHA-256, as the standard's examples give it")
    func sha256() {
        func digest(_ text: String) -> String {
            var hash = ContentHash()
            hash.update(Array(text.utf8))
            return hash.finish()
        }
        #expect(digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(digest(String(repeating: "a", count: 1_000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
