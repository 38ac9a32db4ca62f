import Foundation
import Testing

@testable import Entitle

/// Diagnostics as product managers meet them: every mistake in one pass, each reported once at
/// its root, and help for what people actually type.
@Suite("Diagnostics: one pass, no knock-on errors")
struct DiagnosticsTests {
    static func diagnostics(_ json: String) -> [Diagnostic] {
        Fixtures.compile(json).diagnostics
    }

    @Test("twelve planted mistakes give exactly twelve errors and nothing that only follows from them")
    func twelveMistakes() throws {
        let json = """
            {
              "app": "com.example.app",
              "features": { "pro": "Pro", "export.pdf": "PDF", "sync": "Sync" },
              "currencies": { "coins": "Coins" },
              "legal": { "auto-renewable-subscription": "Renews." },
              "products": [
                { "id": "full", "type": "non-consumable", "name": "Full", "grants": ["pro", "export.pfd"] },
                { "id": "trial", "type": "non-consumable", "name": "14-day trial", "priceTier": 0, "trialOf": "full", "grants": ["pro", "export.pdf"] },
                { "id": "monthly", "type": "auto-renewable", "name": "Monthly", "group": "g", "grants": ["sync", "sink"] },
                { "id": "pass", "type": "non-renewing-subscription", "name": "Pass", "duration": "P1Q", "grants": ["pro"] },
                { "id": "coins", "type": "consumable", "name": "Coins", "credits": { "coin": 5 } },
                { "id": "full", "type": "non-consumable", "name": "Again", "grants": ["pro"] },
                { "id": "up", "type": "non-consumable", "name": "Up", "grants": ["pro"],
                  "upgrade": { "replaces": "monthly", "requires": { "app": "com.example.app" } } },
                { "id": "x", "type": "non-consumable", "name": "X", "grants": "pro" },
                { "id": "y", "type": "consumable", "name": " ", "credits": { "coins": 0 } }
              ]
            }
            """
        let all = Self.diagnostics(json)
        let errors = all.filter(\.isError)
        #expect(
            errors.map(\.path) == [
                "products[0].grants[1]", "products[1].name", "products[2].type", "products[2].grants[1]",
                "products[3]", "products[3].duration", "products[4].credits.coin", "products[5].id",
                "products[6].upgrade.requires.app", "products[7].grants", "products[8].name", "products[8].credits.coins",
            ], "\(errors.map(\.description).joined(separator: "\n"))")
        #expect(
            errors.map(\.code) == [
                .undeclaredFeature, .trialRule, .badEnumValue, .undeclaredFeature, .missingLegal, .badDuration,
                .undeclaredCurrency, .duplicateProduct, .upgradeRule, .wrongType, .badValue, .badValue,
            ])
        #expect(all.count == errors.count, "no warnings follow from the errors: \(all.filter { !$0.isError })")
        #expect(errors[2].help == "did you mean `auto-renewable-subscription`?")
        #expect(errors[0].help == "did you mean `export.pdf`?")
    }

    @Test("a misspelt grant in the paid product does not make its trial wrong")
    func paidGrantTypo() throws {
        let json = catalogText(
            products: #"""
                    { "id": "p", "type": "non-consumable", "name": "P", "priceTier": 3, "grants": ["pro", "export.pfd"] },
                    { "id": "t", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "p", "grants": ["pro", "export.pdf"] }
                """#)
        let errors = Self.diagnostics(json).filter(\.isError)
        #expect(errors.map(\.code) == [.undeclaredFeature])
    }

    @Test("a misspelt type does not make references to the product undefined, nor hide its other mistakes")
    func misspeltType() throws {
        let json = catalogText(
            products: #"""
                    { "id": "p", "type": "non-consumabel", "name": "P", "grants": ["nope"] },
                    { "id": "t", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "p", "grants": ["pro"] },
                    { "id": "u", "type": "non-consumable", "name": "U", "grants": ["pro"], "upgrade": { "replaces": "p", "requires": { "app": "com.example.old" } } }
                """#)
        let all = Self.diagnostics(json)
        #expect(all.filter(\.isError).map(\.code) == [.badEnumValue, .undeclaredFeature])
        #expect(all.first { $0.code == .badEnumValue }?.help == "did you mean `non-consumable`?")
        #expect(!all.contains { $0.message.contains("does not define") })
    }

    @Test("`grants` that is not a list is one error: no grants-nothing warning, no trial errors")
    func grantsNotAList() throws {
        let json = catalogText(
            products: #"""
                    { "id": "p", "type": "non-consumable", "name": "P", "priceTier": 3, "grants": "pro" },
                    { "id": "t", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "p", "grants": ["pro"] }
                """#)
        let all = Self.diagnostics(json)
        #expect(all.map(\.code) == [.wrongType])
        #expect(all.first?.message == "expected an array of feature ids, found a string")
    }

    @Test("a bad app id does not stop the rules from being checked")
    func badAppStillChecked() {
        let json = catalogText(products: #"    { "id": "p", "type": "non-consumable", "name": "P", "grants": ["nope"] }"#, app: "com example")
        #expect(Self.diagnostics(json).filter(\.isError).map(\.code) == [.badValue, .undeclaredFeature])
    }

    @Test("a missing `features` is the error, not every grant")
    func missingFeatures() {
        let json = #"{ "app": "a.b", "products": [ { "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"] } ] }"#
        #expect(Self.diagnostics(json).map(\.message) == ["missing required key `features` in catalog"])
    }

    // MARK: Help for what people type

    @Test(
        "pasted curly quotes, comments, single quotes, spaces and dashes are named, with the fix",
        arguments: [
            (
                "{ “app”: \"a\" }", "expected a member name in double quotes, found a curly quote `“`", 3,
                "JSON needs straight double quotes `\"`; curly quotes come from pasting out of a document"
            ),
            (
                "{ \"app\": ”a” }", "expected a value, found a curly quote `”`", 10,
                "JSON needs straight double quotes `\"`; curly quotes come from pasting out of a document"
            ),
            (
                "{\n  // the app\n  \"app\": \"a\" }", "expected a member name in double quotes, found a comment `//`", 3,
                "JSON has no comments; write a `\"$comment\": \"...\"` member instead"
            ),
            (
                "{ \"app\": \"a\", # note\n }", "expected a member name in double quotes, found a comment `#`", 15,
                "JSON has no comments; write a `\"$comment\": \"...\"` member instead"
            ),
            (
                "{ 'app': \"a\" }", "expected a member name in double quotes, found a single quote", 3,
                "JSON strings and member names take double quotes `\"`"
            ),
            (
                "{ \"products\": [1, 2, ] }", "trailing comma before `]`", 20,
                "JSON allows no comma after the last element: remove this one"
            ),
            // A curly quote meant to close a straight-quoted string; pasted spaces and dashes.
            (
                "{ \"app\": \"a\", \"features\": {}, \"products\": [ { \"id\": \"p\", \"name\": \"Pro”, \"grants\": [] } ] }",
                "expected `,` or `}` after an object member, found `g`", 74,
                "the curly quote `”` earlier on this line does not end a string: JSON needs straight double quotes `\"` (curly quotes come from pasting out of a document)"
            ),
            (
                "{ \"app\": \"com.example.q”,\n  \"features\": {} }", "control character U+0A must be escaped in a string", 26,
                "the curly quote `”` earlier on this line does not end a string: JSON needs straight double quotes `\"` (curly quotes come from pasting out of a document)"
            ),
            (
                "{ \"app\": \"a\",\u{00A0}\"features\": {} }", "expected a member name in double quotes, found a no-break space (U+00A0)", 14,
                "JSON allows only ordinary spaces, tabs and line breaks between values; this one was probably pasted from a document"
            ),
            (
                "{ \"app\": \"a\", \"products\": [ { \"priceTier\": \u{2212}1 } ] }",
                "expected a value, found `\u{2212}` (U+2212, a typographic dash)", 44,
                "write numbers and ids with the plain hyphen-minus `-`"
            ),
            (
                "{ \"app\": \"a\" } // done", "found a comment `//` after the end of the JSON value", 16,
                "JSON has no comments; write a `\"$comment\": \"...\"` member instead"
            ),
        ])
    func syntaxHelp(json: String, message: String, column: Int, help: String) throws {
        let diagnostic = try #require(Self.diagnostics(json).first)
        #expect(diagnostic.message == message)
        #expect(diagnostic.location?.column == column)
        #expect(diagnostic.help == help)
    }

    @Test("a paid price tier on a trial says how to fix it either way")
    func trialPriceTier() throws {
        let json = catalogText(
            products:
                #"    { "id": "t", "type": "non-consumable", "name": "7-day Trial", "priceTier": 1, "trialOf": "com.example.app.full", "grants": ["pro"] }"#
        )
        let diagnostic = try #require(Self.diagnostics(json).first { $0.code == .trialRule })
        #expect(diagnostic.message == "a trial must have `priceTier` 0, found 1")
        #expect(diagnostic.help == "a trial is free: set `\"priceTier\": 0`; if this product is sold, remove `trialOf`")
    }

    @Test("two trials of one paid product are a warning")
    func twoTrials() throws {
        let json = catalogText(
            products: #"""
                    { "id": "t1", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "com.example.app.full", "grants": ["pro"] },
                    { "id": "t2", "type": "non-consumable", "name": "14-day Trial", "priceTier": 0, "trialOf": "com.example.app.full", "grants": ["pro"] }
                """#)
        let compilation = Fixtures.compile(json)
        #expect(compilation.portfolio != nil)
        let warning = try #require(compilation.diagnostics.first { $0.code == .trialRule })
        #expect(warning.severity == .warning)
        #expect(warning.message == "`com.example.app.full` already has a trial, `t1` (line 9); a customer can take each in turn")
        #expect(warning.location?.line == 10)
    }

    @Test("`$comment` is allowed on the catalog, products and nested objects, and must be a string")
    func comments() throws {
        let json = """
            {
              "$comment": "price agreed with finance on 2026-03-02",
              "app": "com.example.app",
              "features": { "$comment": "features", "pro": "Pro" },
              "currencies": { "$comment": "none yet", "coins": "Coins" },
              "legal": { "$comment": "from legal", "auto-renewable-subscription": "Renews." },
              "products": [
                { "$comment": "the main product", "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"],
                  "upgrade": { "$comment": "for owners of v1", "replaces": "q", "requires": { "$comment": "v1", "app": "com.example.v1" } } },
                { "id": "q", "type": "non-consumable", "name": "Q", "grants": ["pro"] },
                { "id": "s", "type": "auto-renewable-subscription", "name": "S", "group": "g", "grants": ["pro"],
                  "introOffer": { "$comment": "one week", "mode": "free-trial", "duration": "P1W" } },
                { "id": "c", "type": "consumable", "name": "C", "credits": { "$comment": "five", "coins": 5 } }
              ]
            }
            """
        let compilation = Fixtures.compile(json)
        #expect(compilation.errors.isEmpty, "\(compilation.errors)")
        let catalog = try #require(compilation.portfolio?.catalogs.first)
        #expect(catalog.featureIds == ["pro"] && catalog.currencyIds == ["coins"])
        let bad = Self.diagnostics(#"{ "$comment": 5, "app": "a", "features": {}, "products": [] }"#)
        #expect(bad.filter(\.isError).map(\.message) == ["expected a string, found a number"])
    }

    // MARK: Root causes reported once

    @Test(
        "a mistake that only hides what something is for is reported once, at its root",
        arguments: [
            // A feature or currency whose description is not a string is still declared.
            (
                #"{ "app": "com.example.app", "features": { "pro": 5 }, "products": [ { "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"] } ] }"#,
                [DiagnosticCode.wrongType]
            ),
            (
                #"{ "app": "com.example.app", "features": {}, "currencies": { "gems": 5 }, "products": [ { "id": "c", "type": "consumable", "name": "C", "credits": { "gems": 5 } } ] }"#,
                [.wrongType]
            ),
            // `grant` for `grants`: not also "grants nothing".
            (
                #"{ "app": "com.example.app", "features": { "pro": "Pro" }, "products": [ { "id": "p", "type": "non-consumable", "name": "P", "grant": ["pro"] } ] }"#,
                [.unknownKey]
            ),
            // A credit in a misspelt currency: not also "gems is declared but no product credits it".
            (
                #"{ "app": "com.example.app", "features": {}, "currencies": { "gems": "Gems" }, "products": [ { "id": "c", "type": "consumable", "name": "C", "credits": { "gem": 5 } } ] }"#,
                [.undeclaredCurrency]
            ),
            // Grants or credits that are not a list or object: the declarations are not "unused".
            (
                #"{ "app": "com.example.app", "features": { "pro": "Pro", "export.pdf": "PDF" }, "products": [ { "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"] }, { "id": "q", "type": "non-consumable", "name": "Q", "grants": "export.pdf" } ] }"#,
                [.wrongType]
            ),
            (
                #"{ "app": "com.example.app", "features": {}, "currencies": { "gems": "Gems" }, "products": [ { "id": "c", "type": "consumable", "name": "C", "credits": "gems" } ] }"#,
                [.wrongType]
            ),
            // `feature` for `features`: not also "missing required key `features`".
            (
                #"{ "app": "com.example.app", "feature": { "pro": "Pro" }, "products": [ { "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"] } ] }"#,
                [.unknownKey]
            ),
            // `grants` on a consumable: not also "grants nothing".
            (
                #"{ "app": "com.example.app", "features": { "pro": "Pro" }, "products": [ { "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"] }, { "id": "c", "type": "consumable", "name": "C", "grants": ["pro"] } ] }"#,
                [.keyNotAllowed]
            ),
        ])
    func rootCauseOnce(json: String, codes: [DiagnosticCode]) {
        let all = Self.diagnostics(json)
        #expect(all.map(\.code) == codes, "\(all.map(\.description).joined(separator: "\n"))")
    }

    @Test("a grant of an undeclared feature, when none is declared, says to declare it")
    func nothingDeclared() throws {
        let all = Self.diagnostics(
            #"{ "app": "com.example.app", "features": {}, "products": [ { "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"] } ] }"#)
        let error = try #require(all.first { $0.code == .undeclaredFeature })
        #expect(error.help == "declare it under `features`")
    }
}

@Suite("Diagnostics across a portfolio")
struct PortfolioDiagnosticsTests {
    static let old = """
        { "app": "com.example.old", "features": { "pro": "Pro" }, "currencies": { "gems": "Gems" },
          "products": [ { "id": "old.pro", "type": "non-consumable", "name": "Pro", "grants": ["pro"] },
                        { "id": "old.gems", "type": "consumable", "name": "Gems", "credits": { "gems": 1 } } ] }
        """

    static func new(requiring app: String, anyOf: String) -> String {
        catalogText(
            products:
                #"    { "id": "up", "type": "non-consumable", "name": "Up", "grants": ["pro"], "upgrade": { "replaces": "com.example.app.full", "requires": { "app": "\#(app)", "anyOf": \#(anyOf) } } }"#
        )
    }

    @Test("a requires.app close to an app of the portfolio gets a did-you-mean warning")
    func nearMissApp() throws {
        let compilation = Portfolio.compile([
            CatalogSource(name: "old.json", data: Data(Self.old.utf8)),
            CatalogSource(name: "new.json", data: Data(Self.new(requiring: "com.example.olt", anyOf: #"["old.pro"]"#).utf8)),
        ])
        let warning = try #require(compilation.diagnostics.first { $0.code == .unknownApp })
        #expect(warning.severity == .warning)
        #expect(warning.message == "`com.example.olt` is not an app of this portfolio")
        #expect(warning.help == "did you mean `com.example.old`?")
    }

    @Test("a requires.app outside the portfolio gets a note that anyOf cannot be checked")
    func outsideApp() throws {
        let compilation = Portfolio.compile([
            CatalogSource(name: "new.json", data: Data(Self.new(requiring: "com.elsewhere.app", anyOf: #"["x"]"#).utf8))
        ])
        #expect(compilation.portfolio != nil)
        let note = try #require(compilation.diagnostics.first { $0.code == .unknownApp })
        #expect(note.severity == .note)
        #expect(note.description.hasPrefix("new.json:9:"))
        #expect(note.message == "`com.elsewhere.app` has no catalog in this portfolio, so the products `anyOf` names cannot be checked")
    }

    @Test("anyOf naming a consumable of the other app is a warning")
    func consumablePrerequisite() throws {
        let compilation = Portfolio.compile([
            CatalogSource(name: "old.json", data: Data(Self.old.utf8)),
            CatalogSource(name: "new.json", data: Data(Self.new(requiring: "com.example.old", anyOf: #"["old.pro", "old.gems"]"#).utf8)),
        ])
        #expect(compilation.portfolio != nil)
        let warning = try #require(compilation.diagnostics.first { $0.code == .upgradeRule })
        #expect(warning.severity == .warning)
        #expect(warning.message == "`anyOf` names `old.gems`, a consumable of `com.example.old`: buying it once qualifies for good")
    }

    @Test("cross-catalog rules are checked even when a catalog has other errors")
    func crossFileWithErrors() {
        let broken = Self.new(requiring: "com.example.old", anyOf: #"["old.pr"]"#)
            .replacingOccurrences(of: #""grants": ["pro", "export.pdf"]"#, with: #""grants": ["pro", "export.pfd"]"#)
        let compilation = Portfolio.compile([
            CatalogSource(name: "old.json", data: Data(Self.old.utf8)),
            CatalogSource(name: "new.json", data: Data(broken.utf8)),
        ])
        #expect(Set(compilation.errors.map(\.code)) == [.undeclaredFeature, .unknownProduct])
        // The old app's catalog compiled and can be evaluated on its own.
        #expect(compilation.portfolio == nil)
        #expect(compilation.portfolio(evaluating: "com.example.old") != nil)
        #expect(compilation.portfolio(evaluating: "com.example.app") == nil)
    }

    @Test("requires.app never suggests the catalog's own app: alone, the note; beside the right app, that app")
    func ownAppNotSuggested() throws {
        let alone = Portfolio.compile([CatalogSource(name: "new.json", data: Data(Self.new(requiring: "com.example.apq", anyOf: #"["x"]"#).utf8))])
        let note = try #require(alone.diagnostics.first { $0.code == .unknownApp })
        #expect(note.severity == .note)
        #expect(note.help != "did you mean `com.example.app`?")
        let both = Portfolio.compile([
            CatalogSource(name: "old.json", data: Data(Self.old.replacingOccurrences(of: "com.example.old", with: "com.example.app6").utf8)),
            CatalogSource(name: "new.json", data: Data(Self.new(requiring: "com.example.ap6", anyOf: #"["old.pro"]"#).utf8)),
        ])
        let warning = try #require(both.diagnostics.first { $0.code == .unknownApp })
        #expect(warning.help == "did you mean `com.example.app6`?")
    }

    @Test("a catalog too broken to say its app hides unknown-app warnings, and keeps apps that may need it from being evaluated")
    func unidentifiedCatalog() throws {
        let requiring = Self.new(requiring: "com.example.old", anyOf: #"["old.pro"]"#)
        for broken in ["{,", Self.old.replacingOccurrences(of: #""app""#, with: #""ap""#)] {
            let compilation = Portfolio.compile([
                CatalogSource(name: "old.json", data: Data(broken.utf8)),
                CatalogSource(name: "new.json", data: Data(requiring.utf8)),
            ])
            #expect(!compilation.diagnostics.contains { $0.code == .unknownApp }, "\(compilation.diagnostics)")
            #expect(compilation.portfolio(evaluating: "com.example.app") == nil)
        }
        // A required app's catalog that cannot be read at all counts the same.
        let alone = Portfolio.compile([CatalogSource(name: "new.json", data: Data(requiring.utf8))])
        #expect(alone.portfolio(evaluating: "com.example.app") != nil)
        #expect(alone.portfolio(evaluating: "com.example.app", missingSources: true) == nil)
        // A broken catalog of an app nothing requires does not matter.
        let plain = Portfolio.compile([
            CatalogSource(name: "x.json", data: Data("{,".utf8)),
            CatalogSource(name: "old.json", data: Data(Self.old.utf8)),
        ])
        #expect(plain.portfolio(evaluating: "com.example.old") != nil)
    }
}
