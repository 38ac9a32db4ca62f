import EntitleCommandLine
import Foundation
import Testing

@testable import Entitle

/// What a service may rely on as the library grows (Versioning.md).
@Suite("Public API")
struct PublicAPITests {
    /// Each public enumeration with cases in the library's sources, with the lines above it.
    static func publicEnumerations() throws -> [(file: String, name: String, attributes: [String], doc: [String])] {
        var found: [(file: String, name: String, attributes: [String], doc: [String])] = []
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources")
        for target in ["Entitle", "EntitleCommandLine", "EntitleLanguageServer"] {
            let root = sources.appendingPathComponent(target)
            let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            for file in files.sorted() where file.hasSuffix(".swift") {
                let lines = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
                for (index, line) in lines.enumerated() {
                    let trimmed = line.drop { $0 == " " }
                    guard trimmed.hasPrefix("public enum ") || trimmed.hasPrefix("public indirect enum ") else { continue }
                    let indent = String(line.prefix(line.count - trimmed.count))
                    // An enumeration with cases: a `case` one level in before its closing brace.
                    let body = lines[(index + 1)...].prefix { !$0.hasPrefix(indent + "}") }
                    guard body.contains(where: { $0.hasPrefix(indent + "    case ") || $0.hasPrefix(indent + "    indirect case ") }) else {
                        continue
                    }
                    let name =
                        trimmed.split(separator: " ").first { !["public", "enum", "indirect"].contains($0) }
                        .map { String($0.prefix { $0.isLetter || $0.isNumber }) } ?? ""
                    var above = lines[..<index].reversed().map { $0.trimmingCharacters(in: .whitespaces) }
                    let attributes = Array(above.prefix { $0.hasPrefix("@") })
                    above.removeFirst(attributes.count)
                    let doc = Array(above.prefix { $0.hasPrefix("///") })
                    found.append((file: "\(target)/\(file)", name: name, attributes: attributes, doc: doc))
                }
            }
        }
        return found
    }

    @Test("every public enumeration that may gain cases is @nonexhaustive; the others say why they are closed")
    func enumerationsCanGrow() throws {
        let enumerations = try Self.publicEnumerations()
        // The scan finds the enumerations it must (so it cannot pass by finding none).
        #expect(enumerations.contains { $0.name == "ProductState" } && enumerations.contains { $0.name == "Kind" })
        #expect(enumerations.count >= 30)
        for enumeration in enumerations {
            let open = enumeration.attributes.contains("@nonexhaustive")
            let closed = enumeration.doc.contains { $0.hasPrefix("/// Closed: ") }
            #expect(open != closed, "\(enumeration.file): \(enumeration.name) is neither @nonexhaustive nor documented `Closed: why`, or is both")
        }
        for name in ["ProductState", "OfferReason", "PromotionReason", "Kind", "Store", "ReceiptFormat"] {
            #expect(
                enumerations.filter { $0.name == name }.allSatisfy { $0.attributes.contains("@nonexhaustive") },
                "\(name) will gain cases")
        }
    }

    /// The `enum` of the test schema's member reached by `path` (`*` any member of an object's
    /// `additionalProperties`, `[]` an array's items).
    static func schemaEnum(_ path: [String]) throws -> [String?] {
        let data = try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("schemas/test.schema.json"))
        var node = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        // A case's expectations: the schema's definition of `expect`.
        let definitions = try #require(node["$defs"] as? [String: Any])
        node = try #require(definitions["expect"] as? [String: Any], "the schema defines `expect`")
        for step in path {
            switch step {
            case "*": node = try #require(node["additionalProperties"] as? [String: Any], "\(path)")
            case "[]": node = try #require(node["items"] as? [String: Any], "\(path)")
            default: node = try #require((node["properties"] as? [String: Any])?[step] as? [String: Any], "\(path): \(step)")
            }
        }
        let values = try #require(node["enum"] as? [Any], "\(path) has an enum")
        return values.map { $0 as? String }
    }

    @Test("the test file schema's lists of states, reasons and kinds are the library's, in its order")
    func schemaListsAreTheTypes() throws {
        // `null` (the answer has none: an offer that is eligible, no change) closes a list that has it.
        func expect<T: CaseIterable & RawRepresentable>(_ path: [String], _: T.Type, null: Bool = false) throws where T.RawValue == String {
            var names: [String?] = T.allCases.map(\.rawValue)
            if null { names.append(nil) }
            #expect(try Self.schemaEnum(path) == names, "\(path.joined(separator: ".")) lists \(T.self)")
        }
        try expect(["products", "*", "state"], ProductState.self)
        try expect(["products", "*", "type"], ProductType.self)
        try expect(["offers", "*", "reason"], OfferReason.self, null: true)
        try expect(["offers", "*", "change"], SubscriptionChange.self, null: true)
        try expect(["offers", "*", "effective"], ChangeTiming.self, null: true)
        try expect(["offers", "*", "promotions", "[]", "type"], SubscriptionOfferType.self)
        try expect(["offers", "*", "promotions", "[]", "reason"], PromotionReason.self)
        // A test file's consumption request is asked with the customer's consent: never `no-consent`.
        #expect(
            try Self.schemaEnum(["consumption", "*", "reason"])
                == ConsumptionReply.Reason.allCases.filter { $0 != .noConsent }.map(\.rawValue))
        try expect(["consumption", "*", "deliveryStatus"], ConsumptionReply.DeliveryStatus.self)
        try expect(["retention", "*", "reason"], RetentionReply.Reason.self)
    }

    @Test("one evaluate and one explain per owner: CompiledCatalog, Portfolio, CustomerHistory")
    func oneWayToAsk() throws {
        let root = Fixtures.packageRoot.appendingPathComponent("Sources/Entitle")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var declared: [String: [String]] = [:]
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            var owner = ""
            for line in text.components(separatedBy: "\n") {
                if line.hasPrefix("extension ") || line.hasPrefix("public struct ") || line.hasPrefix("public final class ") {
                    owner = String(line.split(separator: " ").first { !["extension", "public", "struct", "final", "class"].contains($0) } ?? "")
                        .trimmingCharacters(in: CharacterSet(charactersIn: ":{"))
                }
                for verb in ["evaluate", "explain"] where line.trimmingCharacters(in: .whitespaces).hasPrefix("public func \(verb)(") {
                    declared[verb, default: []].append(owner)
                }
            }
        }
        #expect(declared["evaluate"]?.sorted() == ["CompiledCatalog", "CustomerHistory", "Portfolio"])
        #expect(declared["explain"]?.sorted() == ["CompiledCatalog", "CustomerHistory", "Portfolio"])
    }

    @Test("a storefront that is not one is refused where it is made, with the closest code")
    func storefrontRefused() throws {
        #expect(try Storefront("us").code == "USA" && Storefront("DEU").description == "DEU")
        do {
            _ = try Storefront("USB")
            Issue.record("USB was accepted")
        } catch {
            #expect(error.option == "storefront" && error.value == "USB" && error.help?.hasPrefix("did you mean `") == true)
        }
        #expect(throws: EvaluationOptions.InvalidValue.self) { try EvaluationOptions(environments: nil, storefront: "Atlantis") }
        let options = try EvaluationOptions(environments: ["Production", "LocalTesting"], accounts: ["a"], storefront: "de")
        #expect(options.environments == [.production, .localTesting] && options.storefront?.code == "DEU" && options.accounts == ["a"])
    }

    @Test("the version is one value, printed by entitle --version")
    func version() {
        #expect(LibraryVersion.current.description.split(separator: ".").count == 3)
        #expect(EntitleCommand.version == LibraryVersion.current.description)
        #expect(LibraryVersion(major: 0, minor: 9, patch: 1) > LibraryVersion(major: 0, minor: 9, patch: 0))
        #expect(
            LibraryVersion(major: 0, minor: 9, patch: 3).compatibility == "0.9" && LibraryVersion(major: 1, minor: 2, patch: 0).compatibility == "1")
    }

    @Test("diagnostic codes and verification codes are two code spaces that share no spelling (Versioning.md)")
    func codeSpaces() throws {
        let source = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("Sources/Entitle/Verification/VerificationError.swift"), encoding: .utf8)
        let verification = source.components(separatedBy: "Self(rawValue: \"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(verification.count >= 10 && verification.contains(VerificationError.Code.badSignature.rawValue))
        let diagnostics = Set(DiagnosticCode.all.map(\.rawValue))
        #expect(diagnostics.count > 40)
        #expect(diagnostics.isDisjoint(with: verification), "\(diagnostics.intersection(verification))")
    }

    @Test("the README and the changes page name the version")
    func versionNamed() throws {
        let version = LibraryVersion.current.description
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("version \(version)"))
        let changes = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("Sources/Entitle/Entitle.docc/Changes.md"), encoding: .utf8)
        #expect(changes.contains("## \(version)\n"), "Changes.md has no section for \(version)")
    }
}
