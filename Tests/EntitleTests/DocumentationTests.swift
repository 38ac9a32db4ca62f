import Foundation
import Testing
@testable import Entitle

/// The README promises things about the code; these tests keep the two together.
@Suite("README")
struct DocumentationTests {
    static var readme: String {
        (try? String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
    }

    /// The text of a `## ` section of the README, up to the next one.
    static func section(_ title: String) -> String? {
        let text = readme
        guard let start = text.range(of: "\n## \(title)\n") else { return nil }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// Every code declared in Diagnostic.swift (`Self(rawValue: "...")`), read from the source so
    /// that a new code cannot be missed.
    static var declaredCodes: [String] {
        let source = (try? String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Sources/Entitle/Checking/Diagnostic.swift"),
                                  encoding: .utf8)) ?? ""
        var codes: [String] = []
        var rest = source[...]
        while let start = rest.range(of: "Self(rawValue: \"") {
            let tail = rest[start.upperBound...]
            guard let end = tail.firstIndex(of: "\"") else { break }
            codes.append(String(tail[..<end]))
            rest = tail[end...]
        }
        return codes
    }

    @Test("Diagnostic.swift declares the codes this test reads")
    func codesFound() {
        #expect(Self.declaredCodes.count >= 30)
        #expect(Self.declaredCodes.contains("undeclared-feature"))
        #expect(Self.declaredCodes.contains("invalid-catalog"))
    }

    @Test("the README's \"Diagnostic codes\" lists every code, each with an example line")
    func everyCodeInReadme() throws {
        let section = try #require(Self.section("Diagnostic codes"), "README has no \"## Diagnostic codes\" section")
        for code in Self.declaredCodes {
            let entry = section.components(separatedBy: "\n- `\(code)`")
            #expect(entry.count == 2, "`\(code)` is not listed in README's Diagnostic codes")
            if entry.count == 2 {
                // The entry's example: a located line, `file:line:column: severity: ...`; for
                // `usage`, which only the JSON of a command carries, that JSON.
                let body = entry[1].components(separatedBy: "\n- ")[0]
                let example = code == "usage" ? body.contains("\"code\": \"usage\"") && body.contains("\"severity\": \"error\"")
                    : body.contains(": error: ") || body.contains(": warning: ") || body.contains(": note: ")
                #expect(example, "`\(code)` has no example line")
            }
        }
    }

    @Test("every declared code has a summary, which SARIF rules use")
    func everyCodeSummarized() {
        let summarized = Set(DiagnosticCode.all.map(\.code.rawValue))
        for code in Self.declaredCodes {
            #expect(summarized.contains(code), "`\(code)` has no summary in DiagnosticCode.all")
        }
        #expect(DiagnosticCode.all.count == Set(DiagnosticCode.all.map(\.code)).count, "a code is listed twice")
    }
}
