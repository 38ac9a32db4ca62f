import Foundation
import Testing

@testable import Entitle

/// The rule families (`Sources/Entitle/Families/`) against what they declare: every key of the
/// language and every diagnostic code has one owner, every family has its folder and its
/// declaration there, and the table of families in `AddingARuleFamily.md` is theirs.
@Suite("Rule families")
struct RuleFamilyTests {
    static let families = Fixtures.packageRoot.appendingPathComponent("Sources/Entitle/Families")

    /// Expects each of `names` to have exactly one owner among the families (`owned`) and the
    /// engine (`engine`), and nothing owned that is not one of `names`.
    private static func expectOneOwner(
        of names: [String], what: String, owned: (any RuleFamily.Type) -> [String], engine: [String],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        var owners: [String: [String]] = [:]
        for family in RuleFamilies.all {
            for name in owned(family) { owners[name, default: []].append(family.name) }
        }
        for name in engine { owners[name, default: []].append("the engine") }
        for name in names {
            let found = owners[name] ?? []
            let whose = found.isEmpty ? "no family: add it to its family's `\(what)s`" : found.joined(separator: " and ")
            #expect(found.count == 1, "\(what) `\(name)` belongs to \(whose)", sourceLocation: sourceLocation)
        }
        for name in owners.keys where !names.contains(name) {
            Issue.record("`\(name)` is owned but is no \(what) entitle declares", sourceLocation: sourceLocation)
        }
    }

    @Test("every key of the language belongs to exactly one family or to the engine")
    func everyKeyHasOneOwner() {
        Self.expectOneOwner(
            of: CatalogKey.all.map(\.name), what: "key", owned: { $0.keys.map(\.name) }, engine: RuleFamilies.engineKeys.map(\.name))
    }

    @Test("every diagnostic code belongs to exactly one family or to the engine")
    func everyCodeHasOneOwner() {
        Self.expectOneOwner(
            of: DiagnosticCode.all.map(\.rawValue), what: "code", owned: { $0.codes.map(\.rawValue) },
            engine: RuleFamilies.engineCodes.map(\.rawValue))
    }

    @Test("each family's keys are declared in its folder, the engine's in CatalogLanguage.swift")
    func keysAreDeclaredWithTheirOwner() throws {
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources/Entitle")
        /// The names of the keys a folder's Swift files declare: `CatalogKey("name", ...)`.
        func declared(in folder: URL) throws -> Set<String> {
            var names: Set<String> = []
            let pattern = try Regex(#"CatalogKey\(\s*"([^"]+)""#)
            let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            for file in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in text.matches(of: pattern) { names.insert(String(match.output[1].substring ?? "")) }
            }
            return names
        }
        for family in RuleFamilies.all {
            let here = try declared(in: Self.families.appendingPathComponent(family.folder))
            for key in family.keys {
                #expect(here.contains(key.name), "`\(key.name)` is \(family.name)'s but not declared in Families/\(family.folder)/")
            }
        }
        let engine = try declared(in: sources.appendingPathComponent("Checking"))
        #expect(engine == Set(RuleFamilies.engineKeys.map(\.name)), "Checking/ declares \(engine.sorted())")
    }

    @Test("each family is declared in its own folder, and every file under Families/ is a family's")
    func familiesAreFolders() throws {
        let manager = FileManager.default
        var folders: Set<String> = []
        for family in RuleFamilies.all {
            let declaration = Self.families.appendingPathComponent(family.folder).appendingPathComponent("\(family).swift")
            let text = try #require(try? String(contentsOf: declaration, encoding: .utf8), "no \(family.folder)/\(family).swift")
            #expect(text.contains("enum \(family): RuleFamily"), "\(family.folder)/\(family).swift does not declare \(family)")
            folders.insert(family.folder)
        }
        #expect(Set(RuleFamilies.all.map { "\($0)" }).count == RuleFamilies.all.count, "a family is listed twice")
        let entries = try manager.contentsOfDirectory(atPath: Self.families.path).filter { !$0.hasPrefix(".") }
        for entry in entries where entry != "RuleFamily.swift" {
            #expect(folders.contains(entry), "Families/\(entry) is no family's folder")
        }
    }

    @Test("the engine runs each family's checks across products")
    func checksRunThroughTheFamilies() {
        // Two rules across products of two families broken at once: two trials of one paid
        // product (trials), and two offers sharing an id (offers). Both are reported, each where
        // its second use is.
        let catalog = """
            {"app": "com.example", "features": {"pro": "Pro"}, "legal": {"auto-renewable-subscription": "Terms"},
             "products": [
              {"id": "trial", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "full", "grants": ["pro"]},
              {"id": "full", "type": "non-consumable", "name": "Full", "grants": ["pro"]},
              {"id": "again", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0, "trialOf": "full", "grants": ["pro"]},
              {"id": "m", "type": "auto-renewable-subscription", "name": "M", "group": "g", "grants": ["pro"],
               "offers": [{"id": "o", "type": "promotional", "mode": "free-trial", "duration": "P1M"}]},
              {"id": "y", "type": "auto-renewable-subscription", "name": "Y", "group": "g", "grants": ["pro"],
               "offers": [{"id": "o", "type": "promotional", "mode": "free-trial", "duration": "P1M"}]}
             ]}
            """
        let (_, diagnostics) = CatalogChecker.check(file: "c.json", data: Data(catalog.utf8))
        let trial = diagnostics.first { $0.message.contains("already has a trial") }
        #expect(trial?.code == .trialRule, "\(diagnostics.map(\.message))")
        #expect(trial?.path == "products[2].trialOf")
        let offer = diagnostics.first { $0.message == "duplicate offer id `o`" }
        #expect(offer?.path == "products[4].offers[0].id", "\(diagnostics.map(\.message))")
    }

    @Test("AddingARuleFamily.md's table of families is what RuleFamilies declares (ENTITLE_RECORD=1 rewrites it)")
    func tableIsGenerated() {
        Snapshot.expect(
            generated: "\n" + RuleFamilies.documentation + "\n", in: "Sources/Entitle/Entitle.docc/AddingARuleFamily.md",
            between: "<!-- The table below is generated from RuleFamily.swift: `ENTITLE_RECORD=1 swift test` rewrites it. -->",
            and: "<!-- End of the generated table. -->")
    }

    @Test("the paidAtMost walk-through lists every Swift file that names the condition, and only those")
    func walkThroughIsTrue() throws {
        let root = Fixtures.packageRoot.appendingPathComponent("Sources/Entitle")
        let article = try String(contentsOf: root.appendingPathComponent("Entitle.docc/AddingARuleFamily.md"), encoding: .utf8)
        let walkThrough = try #require(article.range(of: "## Walk-through: adding `paidAtMost`"))
        // The table's rows: `| `Families/Offers/CatalogKey+Offers.swift` | ... |`.
        let listed = Set(
            article[walkThrough.upperBound...].split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
                return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
            })
        var naming: Set<String> = []
        let files = try #require(FileManager.default.enumerator(atPath: root.path))
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            if text.contains("paidAtMost") || text.contains("paidTooMuch") { naming.insert(file) }
        }
        #expect(
            naming == listed,
            "named but not listed: \(naming.subtracting(listed).sorted()); listed but not naming it: \(listed.subtracting(naming).sorted())")
        #expect(naming.filter { !$0.hasPrefix("Families/Offers/") } == ["Importing/StoreKitConfiguration.swift"])
    }
}
