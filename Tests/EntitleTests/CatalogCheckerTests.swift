import Foundation
import Testing
@testable import Entitle

/// One catalog mistake and the diagnostic it must produce.
struct Rejection: CustomTestStringConvertible, Sendable {
    var name: String
    var json: String
    var code: DiagnosticCode
    var message: String
    var line: Int
    var column: Int
    var path: String
    var help: String?
    /// The text the location must point at.
    var token: String?
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
    static let rejections: [Rejection] = [
        Rejection(name: "malformed JSON", json: "{\n  \"app\": \"x\",\n  \"features\": {,\n}", code: .malformedJSON,
                  message: "expected a member name in double quotes, found `,`", line: 3, column: 16, path: "", token: ","),
        Rejection(name: "trailing comma", json: "{ \"app\": \"a\", }", code: .malformedJSON,
                  message: "trailing comma before `}`", line: 1, column: 13, path: "",
                  help: "JSON allows no comma after the last member: remove this one", token: ","),
        Rejection(name: "unterminated string", json: "{ \"app\": \"a", code: .malformedJSON,
                  message: "unterminated string", line: 1, column: 10, path: "", token: "\"a"),
        Rejection(name: "duplicate key",
                  json: catalogText(products: #"    { "id": "p1", "type": "consumable", "name": "P", "name": "Q", "credits": { "coins": 1 } }"#),
                  code: .duplicateKey, message: "duplicate key `name`", line: 9, column: 54, path: "",
                  help: "the first `name` is at line 9, column 41; keep one", token: "\"name\": \"Q\""),
        Rejection(name: "unknown key with a suggestion",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "grnats": ["pro"] }"#),
                  code: .unknownKey, message: "unknown key `grnats` in product", line: 9, column: 58,
                  path: "products[2].grnats", help: "did you mean `grants`?", token: "\"grnats\""),
        Rejection(name: "unknown top-level key",
                  json: catalogText(products: "", extra: "\n  \"feature\": {},"),
                  code: .unknownKey, message: "unknown key `feature` in catalog", line: 6, column: 3,
                  path: "feature", help: "did you mean `features`?", token: "\"feature\""),
        Rejection(name: "key of another product type",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "credits": { "coins": 1 } }"#),
                  code: .keyNotAllowed, message: "`credits` is not allowed on a non-consumable", line: 9, column: 58,
                  path: "products[2].credits", help: "`credits` belongs on a consumable", token: "\"credits\""),
        Rejection(name: "missing required key",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumable", "grants": ["pro"] }"#),
                  code: .missingKey, message: "missing required key `name` in product", line: 9, column: 5, path: "products[2]", token: "{ \"id\": \"p1\""),
        Rejection(name: "wrong type",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "grants": "pro" }"#),
                  code: .wrongType, message: "expected an array of feature ids, found a string", line: 9, column: 68,
                  path: "products[2].grants", token: "\"pro\" }"),
        Rejection(name: "fractional price tier",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "priceTier": 1.5, "grants": ["pro"] }"#),
                  code: .wrongType, message: "expected an integer, found `1.5`", line: 9, column: 71, path: "products[2].priceTier", token: "1.5"),
        Rejection(name: "negative price tier",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "priceTier": -1, "grants": ["pro"] }"#),
                  code: .badValue, message: "`priceTier` must be 0 or more, found -1", line: 9, column: 71, path: "products[2].priceTier", token: "-1"),
        Rejection(name: "bad product type",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumible", "name": "P" }"#),
                  code: .badEnumValue, message: "unknown product type `non-consumible`", line: 9, column: 27,
                  path: "products[2].type", help: "did you mean `non-consumable`?", token: "\"non-consumible\""),
        Rejection(name: "bad intro offer mode",
                  json: catalogText(products: #"    { "id": "s", "type": "auto-renewable-subscription", "name": "S", "group": "g", "grants": ["pro"], "introOffer": { "mode": "free", "duration": "P1W" } }"#),
                  code: .badEnumValue, message: "unknown offer mode `free`", line: 9, column: 127,
                  path: "products[2].introOffer.mode", help: "did you mean `free-trial`?", token: "\"free\""),
        Rejection(name: "bad duration",
                  json: catalogText(products: #"    { "id": "d", "type": "non-renewing-subscription", "name": "D", "duration": "1 month", "grants": ["pro"] }"#),
                  code: .badDuration, message: "`1 month` is not an ISO 8601 duration", line: 9, column: 80, path: "products[2].duration", token: "\"1 month\""),
        Rejection(name: "zero duration",
                  json: catalogText(products: #"    { "id": "d", "type": "non-renewing-subscription", "name": "D", "duration": "P0D", "grants": ["pro"] }"#),
                  code: .badDuration, message: "duration `P0D` must be longer than zero", line: 9, column: 80, path: "products[2].duration", token: "\"P0D\""),
        Rejection(name: "non-renewing without duration",
                  json: catalogText(products: #"    { "id": "d", "type": "non-renewing-subscription", "name": "D", "grants": ["pro"] }"#),
                  code: .missingKey, message: "a non-renewing subscription needs a `duration`", line: 9, column: 5, path: "products[2]", token: "{ \"id\": \"d\""),
        Rejection(name: "auto-renewable without group",
                  json: catalogText(products: #"    { "id": "s", "type": "auto-renewable-subscription", "name": "S", "grants": ["pro"] }"#),
                  code: .missingKey, message: "an auto-renewable subscription needs a `group`", line: 9, column: 5, path: "products[2]", token: "{ \"id\": \"s\""),
        Rejection(name: "duplicate product id",
                  json: catalogText(products: #"    { "id": "com.example.app.full", "type": "non-consumable", "name": "Again", "grants": ["pro"] }"#),
                  code: .duplicateProduct, message: "duplicate product id `com.example.app.full`", line: 9, column: 13,
                  path: "products[2].id", help: "it is already defined at products[0] (line 7)", token: "\"com.example.app.full\", \"type\""),
        Rejection(name: "undeclared feature",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "grants": ["pro", "export.pfd"] }"#),
                  code: .undeclaredFeature, message: "undeclared feature `export.pfd`", line: 9, column: 76,
                  path: "products[2].grants[1]", help: "did you mean `export.pdf`?", token: "\"export.pfd\""),
        Rejection(name: "feature granted twice",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "grants": ["pro", "pro"] }"#),
                  code: .duplicateGrant, message: "feature `pro` is granted twice", line: 9, column: 76,
                  path: "products[2].grants[1]", help: "it is already listed at products[2].grants[0]", token: "\"pro\"]"),
        Rejection(name: "undeclared currency",
                  json: catalogText(products: #"    { "id": "c2", "type": "consumable", "name": "C", "credits": { "coin": 5 } }"#),
                  code: .undeclaredCurrency, message: "undeclared currency `coin`", line: 9, column: 67,
                  path: "products[2].credits.coin", help: "did you mean `coins`?", token: "\"coin\""),
        Rejection(name: "non-positive credit",
                  json: catalogText(products: #"    { "id": "c2", "type": "consumable", "name": "C", "credits": { "coins": 0 } }"#),
                  code: .badValue, message: "credit amount must be a positive integer up to 1000000000, found 0", line: 9, column: 76,
                  path: "products[2].credits.coins", token: "0 }"),
        Rejection(name: "grants on a consumable",
                  json: catalogText(products: #"    { "id": "c2", "type": "consumable", "name": "C", "grants": ["pro"] }"#),
                  code: .keyNotAllowed, message: "`grants` is not allowed on a consumable", line: 9, column: 54,
                  path: "products[2].grants", token: "\"grants\""),
        Rejection(name: "subscription without legal text",
                  json: """
                  {
                    "app": "com.example.app",
                    "features": { "pro": "Pro" },
                    "products": [
                      { "id": "s", "type": "auto-renewable-subscription", "name": "S", "group": "g", "grants": ["pro"] }
                    ]
                  }
                  """,
                  code: .missingLegal, message: "an auto-renewable subscription needs legal text", line: 5, column: 13,
                  path: "products[0]",
                  help: "add `legal` to the product, or a default under the catalog's `legal.auto-renewable-subscription`", token: "\"s\""),
        Rejection(name: "unknown legal type",
                  json: "{\n  \"app\": \"com.example.app\",\n  \"legal\": { \"non-renewing\": \"x\" },\n  \"features\": {}, \"products\": []\n}",
                  code: .unknownKey, message: "unknown product type `non-renewing`", line: 3, column: 14,
                  path: "legal[\"non-renewing\"]", token: "\"non-renewing\""),
        // Trials
        Rejection(name: "trial that is not a non-consumable",
                  json: catalogText(products: #"    { "id": "t", "type": "non-renewing-subscription", "name": "7-day Trial", "priceTier": 0, "duration": "P7D", "trialOf": "com.example.app.full", "grants": ["pro"] }"#),
                  code: .keyNotAllowed, message: "`trialOf` is not allowed on a non-renewing subscription", line: 9, column: 113,
                  path: "products[2].trialOf", token: "\"trialOf\""),
        Rejection(name: "trial with a price",
                  json: catalogText(products: #"    { "id": "t", "type": "non-consumable", "name": "7-day Trial", "priceTier": 1, "trialOf": "com.example.app.full", "grants": ["pro"] }"#),
                  code: .trialRule, message: "a trial must have `priceTier` 0, found 1", line: 9, column: 80, path: "products[2].priceTier", token: "1,"),
        Rejection(name: "trial without a price tier",
                  json: catalogText(products: #"    { "id": "t", "type": "non-consumable", "name": "7-day Trial", "trialOf": "com.example.app.full", "grants": ["pro"] }"#),
                  code: .trialRule, message: "a trial must have `priceTier` 0", line: 9, column: 13, path: "products[2]",
                  help: "add `\"priceTier\": 0`", token: "\"t\""),
        Rejection(name: "trial badly named",
                  json: catalogText(products: #"    { "id": "t", "type": "non-consumable", "name": "Free Trial", "priceTier": 0, "trialOf": "com.example.app.full", "grants": ["pro"] }"#),
                  code: .trialRule, message: "trial name `Free Trial` is not of the form \"N-day Trial\"", line: 9, column: 52,
                  path: "products[2].name", help: "App Review requires the form \"N-day Trial\", e.g. \"14-day Trial\"", token: "\"Free Trial\""),
        Rejection(name: "trial name in the wrong case",
                  json: catalogText(products: #"    { "id": "t", "type": "non-consumable", "name": "14-Day trial", "priceTier": 0, "trialOf": "com.example.app.full", "grants": ["pro"] }"#),
                  code: .trialRule, message: "trial name `14-Day trial` is not of the form \"N-day Trial\"", line: 9, column: 52,
                  path: "products[2].name", help: "write it exactly as \"N-day Trial\", e.g. \"14-day Trial\"", token: "\"14-Day trial\""),
        Rejection(name: "trial duration disagrees with its name",
                  json: catalogText(products: #"    { "id": "t", "type": "non-consumable", "name": "14-day Trial", "priceTier": 0, "duration": "P1M", "trialOf": "com.example.app.full", "grants": ["pro"] }"#),
                  code: .trialRule, message: "`duration` P1M does not agree with the name's 14 days", line: 9, column: 96,
                  path: "products[2].duration", help: "use `P14D` or remove `duration`", token: "\"P1M\""),
        Rejection(name: "trial of an unknown product",
                  json: catalogText(products: #"    { "id": "t", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "com.example.app.ful", "grants": ["pro"] }"#),
                  code: .unknownProduct, message: "`trialOf` names `com.example.app.ful`, which this catalog does not define",
                  line: 9, column: 94, path: "products[2].trialOf", help: "did you mean `com.example.app.full`?", token: "\"com.example.app.ful\""),
        Rejection(name: "trial of a consumable",
                  json: catalogText(products: #"    { "id": "t", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "com.example.app.coins", "grants": ["pro"] }"#),
                  code: .trialRule, message: "`trialOf` must name a non-consumable, but `com.example.app.coins` is a consumable",
                  line: 9, column: 94, path: "products[2].trialOf", token: "\"com.example.app.coins\""),
        Rejection(name: "trial of a free product",
                  json: catalogText(products: #"""
                      { "id": "free", "type": "non-consumable", "name": "Free", "priceTier": 0, "grants": ["pro"] },
                      { "id": "t", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "free", "grants": ["pro"] }
                  """#),
                  code: .trialRule, message: "`trialOf` must name a paid product, but `free` is free", line: 10, column: 94,
                  path: "products[3].trialOf", token: "\"free\""),
        Rejection(name: "trial granting more than its paid product",
                  json: catalogText(products: #"""
                      { "id": "basic", "type": "non-consumable", "name": "Basic", "grants": ["pro"] },
                      { "id": "t", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "basic", "grants": ["pro", "export.pdf"] }
                  """#),
                  code: .trialRule, message: "trial grants `export.pdf`, which its paid product `basic` does not", line: 10, column: 121,
                  path: "products[3].grants[1]", token: "\"export.pdf\""),
        Rejection(name: "duration on a plain non-consumable",
                  json: catalogText(products: #"    { "id": "p1", "type": "non-consumable", "name": "P", "duration": "P7D", "grants": ["pro"] }"#),
                  code: .keyNotAllowed, message: "only a trial non-consumable may have a `duration`", line: 9, column: 70,
                  path: "products[2].duration", token: "\"P7D\""),
        // Upgrades
        Rejection(name: "upgrade requiring its own app",
                  json: catalogText(products: #"    { "id": "u", "type": "non-consumable", "name": "U", "grants": ["pro"], "upgrade": { "replaces": "com.example.app.full", "requires": { "app": "com.example.app" } } }"#),
                  code: .upgradeRule, message: "an upgrade cannot require a purchase in its own app `com.example.app`", line: 9, column: 146,
                  path: "products[2].upgrade.requires.app", token: "\"com.example.app\" }"),
        Rejection(name: "upgrade replacing an unknown product",
                  json: catalogText(products: #"    { "id": "u", "type": "non-consumable", "name": "U", "grants": ["pro"], "upgrade": { "replaces": "com.example.app.fll", "requires": { "app": "com.example.old" } } }"#),
                  code: .unknownProduct, message: "`replaces` names `com.example.app.fll`, which this catalog does not define",
                  line: 9, column: 101, path: "products[2].upgrade.replaces", help: "did you mean `com.example.app.full`?", token: "\"com.example.app.fll\""),
        Rejection(name: "upgrade replacing a consumable",
                  json: catalogText(products: #"    { "id": "u", "type": "non-consumable", "name": "U", "grants": ["pro"], "upgrade": { "replaces": "com.example.app.coins", "requires": { "app": "com.example.old" } } }"#),
                  code: .upgradeRule, message: "`replaces` must name a non-consumable, but `com.example.app.coins` is a consumable",
                  line: 9, column: 101, path: "products[2].upgrade.replaces", token: "\"com.example.app.coins\""),
        Rejection(name: "upgrade with an empty anyOf",
                  json: catalogText(products: #"    { "id": "u", "type": "non-consumable", "name": "U", "grants": ["pro"], "upgrade": { "replaces": "com.example.app.full", "requires": { "app": "com.example.old", "anyOf": [] } } }"#),
                  code: .badValue, message: "`anyOf` is empty, so no purchase could ever qualify", line: 9, column: 174,
                  path: "products[2].upgrade.requires.anyOf", token: "[]"),
        Rejection(name: "upgrade that is a subscription",
                  json: catalogText(products: #"    { "id": "u", "type": "auto-renewable-subscription", "name": "U", "group": "g", "grants": ["pro"], "upgrade": { "replaces": "com.example.app.full", "requires": { "app": "com.example.old" } } }"#),
                  code: .keyNotAllowed, message: "`upgrade` is not allowed on an auto-renewable subscription", line: 9, column: 103,
                  path: "products[2].upgrade", token: "\"upgrade\""),
        Rejection(name: "bad bundle id",
                  json: catalogText(products: "", app: "com example app"),
                  code: .badValue, message: "bundle id `com example app` may contain only letters, digits, `.` and `-`", line: 2, column: 10,
                  path: "app", token: "\"com example app\""),
        Rejection(name: "root that is not an object", json: "[]", code: .wrongType,
                  message: "expected a catalog object, found an array", line: 1, column: 1, path: "", token: "[]"),
    ]

    @Test("each mistake is rejected with its message, location and help", arguments: rejections)
    func rejection(_ case_: Rejection) throws {
        let compilation = Fixtures.compile(case_.json)
        #expect(compilation.portfolio == nil, "a catalog with an error must not compile")
        let matching = compilation.diagnostics.filter { $0.code == case_.code && $0.isError }
        let diagnostic = try #require(matching.first, "no \(case_.code) among: \(compilation.diagnostics.map(\.description))")
        #expect(diagnostic.message == case_.message)
        #expect(diagnostic.location == SourceLocation(file: "catalog.json", line: case_.line, column: case_.column))
        #expect(diagnostic.path == case_.path)
        if let token = case_.token {
            let lines = case_.json.split(separator: "\n", omittingEmptySubsequences: false)
            let line = Array(lines[case_.line - 1].unicodeScalars)
            let text = String(String.UnicodeScalarView(line[(case_.column - 1)...]))
            #expect(text.hasPrefix(token), "at \(case_.line):\(case_.column) the text is `\(text.prefix(20))`")
        }
        if let help = case_.help { #expect(diagnostic.help == help) }
    }

    @Test("every problem is reported in one pass")
    func allAtOnce() {
        let json = catalogText(products: #"""
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
        #expect(diagnostic.description == """
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
        #expect(compilation.portfolio?.apps.sorted() == ["com.example.diagrams", "com.example.diagrams6", "com.example.naturelab.backyardbirds.example", "com.example.starquest"])
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.map(\.description))")
    }

    @Test("in a portfolio, anyOf must name products of the required app's catalog")
    func crossCatalog() throws {
        let old = """
        { "app": "com.example.old", "features": { "pro": "Pro" },
          "products": [ { "id": "old.pro", "type": "non-consumable", "name": "Old Pro", "grants": ["pro"] } ] }
        """
        let new = catalogText(products: #"    { "id": "u", "type": "non-consumable", "name": "U", "grants": ["pro"], "upgrade": { "replaces": "com.example.app.full", "requires": { "app": "com.example.old", "anyOf": ["old.por"] } } }"#)
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
        let other = Data(#"{"app":"com.example.other","features":{"x":"X"},"products":[{"id":"o","type":"non-consumable","name":"O","grants":["x"]}]}"#.utf8)
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
        #expect(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(digest(String(repeating: "a", count: 1_000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
