import Foundation
import Testing

@testable import Entitle

/// The README and the articles of the DocC catalog promise things about the code and about each
/// other; these tests keep them together. (CI's `docc convert --warnings-as-errors` checks the
/// links DocC resolves itself: `doc:` links and symbol links.)
@Suite("Documentation")
struct DocumentationTests {
    /// The DocC catalog that holds the manual, beside the API reference.
    static let catalog = Fixtures.packageRoot.appendingPathComponent("Sources/Entitle/Entitle.docc")
    static let readmeURL = Fixtures.packageRoot.appendingPathComponent("README.md")

    static var readme: String { text(readmeURL) }

    private static func text(_ url: URL) -> String {
        (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// The articles of the catalog (every `.md` file in it), sorted.
    static var articles: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { catalog.appendingPathComponent($0) }
    }

    /// The text of an article, by its file name without `.md`.
    static func article(_ name: String) -> String {
        text(catalog.appendingPathComponent(name + ".md"))
    }

    /// The text of a `## ` section of an article, up to the next one.
    static func section(_ title: String, of article: String) -> String? {
        let text = Self.article(article)
        guard let start = text.range(of: "\n## \(title)\n") else { return nil }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    @Test("Diagnostics.md lists every code as DiagnosticCode declares it (ENTITLE_RECORD=1 rewrites the list)")
    func diagnosticsListIsGenerated() {
        Snapshot.expect(
            generated: DiagnosticCode.documentation, in: "Sources/Entitle/Entitle.docc/Diagnostics.md",
            between: "<!-- The list below is generated from DiagnosticCode.swift: `ENTITLE_RECORD=1 swift test` rewrites it. -->",
            and: "<!-- End of the generated list. -->")
    }

    @Test("CatalogLanguage.md's key tables are what the language declares (ENTITLE_RECORD=1 rewrites them)")
    func keyTablesAreGenerated() {
        let expected = Snapshot.expect(
            generated: "\n" + CatalogKey.documentation, in: "Sources/Entitle/Entitle.docc/CatalogLanguage.md",
            between: "<!-- The tables below are generated from CatalogLanguage.swift: `ENTITLE_RECORD=1 swift test` rewrites them. -->",
            and: "<!-- End of the generated tables. -->")
        // Every key of the language is in a table.
        for key in CatalogKey.all { #expect(expected?.contains("| `\(key.name)` |") == true, "`\(key.name)` is missing") }
    }

    @Test("every code entitle emits has a summary and an example line, once")
    func everyCodeDescribed() {
        #expect(DiagnosticCode.all.count >= 34)
        #expect(DiagnosticCode.all.count == Set(DiagnosticCode.all).count, "a code is listed twice")
        for code in DiagnosticCode.all {
            let reference = code.reference
            #expect(reference?.summary.isEmpty == false, "`\(code)` has no summary")
            // A located line, `file:line:column: severity: ...`; for `usage`, which only the JSON
            // of a command carries, that JSON.
            let example = reference?.example ?? ""
            let located =
                code == .usage
                ? example.contains("\"code\": \"usage\"") && example.contains("\"severity\": \"error\"")
                : example.contains(": error: ") || example.contains(": warning: ") || example.contains(": note: ")
            #expect(located, "`\(code)` has no example line")
            // A code read back by name is the same code, described.
            #expect(DiagnosticCode(rawValue: code.rawValue).reference == reference)
        }
        #expect(DiagnosticCode(rawValue: "not-a-code").reference == nil)
    }

    // MARK: The README as a front door

    @Test("the README is a front door: at most 300 lines")
    func readmeIsShort() {
        let text = Self.readme
        #expect(!text.isEmpty)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= 300, "README.md has \(lines) lines; the manual belongs in Sources/Entitle/Entitle.docc")
    }

    @Test("the README links to every article, and the catalog's root page lists every article")
    func everyArticleLinked() throws {
        let articles = Self.articles.map { $0.deletingPathExtension().lastPathComponent }
        #expect(articles.count >= 11)
        let readmeLinks = Set(Self.links(in: Self.readme))
        let root = Self.article("Entitle")
        for name in articles where name != "Entitle" {
            #expect(readmeLinks.contains("Sources/Entitle/Entitle.docc/\(name).md"), "README.md does not link to \(name).md")
            #expect(root.contains("- <doc:\(name)>"), "Entitle.md's Topics do not list \(name)")
        }
    }

    @Test("every relative link in the README and the articles points at an existing file")
    func relativeLinksResolve() throws {
        var checked = 0
        for file in [Self.readmeURL] + Self.articles {
            let directory = file.deletingLastPathComponent()
            for target in Self.links(in: Self.text(file)) where Self.isRelative(target) {
                let path = String(target.prefix { $0 != "#" })
                guard !path.isEmpty else { continue }  // an anchor in the same file
                checked += 1
                let resolved = directory.appendingPathComponent(path).standardizedFileURL.path
                #expect(
                    FileManager.default.fileExists(atPath: resolved),
                    "\(file.lastPathComponent) links to `\(target)`, which does not exist")
            }
        }
        #expect(checked >= 10, "the README's links to the articles should have been checked")
    }

    @Test("every doc: link in the articles names an article of the catalog")
    func docLinksResolve() throws {
        let names = Set(Self.articles.map { $0.deletingPathExtension().lastPathComponent })
        for file in Self.articles {
            for target in Self.links(in: Self.text(file)) where target.hasPrefix("doc:") {
                let name = String(target.dropFirst(4).prefix { $0 != "#" })
                #expect(names.contains(name), "\(file.lastPathComponent) links to `\(target)`, which is no article")
            }
        }
    }

    @Test("links are found outside code, with their anchors, and not inside code")
    func linkFinder() {
        let text = """
            See [a](A.md#part), <doc:B> and [c](doc:C). `[not](code.md)` and ``[not](either.md)``
            [ref]: D.md

            ```
            [not](block.md)
            ```
            """
        #expect(Self.links(in: text) == ["A.md#part", "doc:B", "doc:C", "D.md"])
        #expect(
            Self.isRelative("A.md") && Self.isRelative("../x/B.md") && !Self.isRelative("https://example.com")
                && !Self.isRelative("doc:B") && !Self.isRelative("mailto:a@b.c"))
    }

    // MARK: Reading links

    /// The targets of the Markdown links in `text`, in order: inline links `[text](target)`,
    /// autolinks `<scheme:...>` and reference definitions `[name]: target`; nothing inside fenced
    /// code blocks or code spans.
    static func links(in text: String) -> [String] {
        var targets: [String] = []
        var inFence = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = rawLine.drop { $0 == " " }
            if trimmed.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if inFence { continue }
            let line = Array(withoutCodeSpans(String(rawLine)))
            // A reference definition: `[name]: target` at the start of a line.
            let start = line.firstIndex { $0 != " " } ?? line.endIndex
            if start < line.endIndex, line[start] == "[", let close = line[start...].firstIndex(of: "]"),
                close + 1 < line.endIndex, line[close + 1] == ":"
            {
                let target = String(line[(close + 2)...]).trimmingCharacters(in: .whitespaces).prefix { $0 != " " }
                if !target.isEmpty { targets.append(String(target)) }
                continue
            }
            var index = 0
            while index < line.count {
                if line[index] == "]", index + 1 < line.count, line[index + 1] == "(",
                    let close = line[(index + 2)...].firstIndex(of: ")")
                {
                    let inside = String(line[(index + 2)..<close]).trimmingCharacters(in: .whitespaces)
                    targets.append(String(inside.prefix { $0 != " " }))
                    index = close + 1
                } else if line[index] == "<", let close = line[index...].firstIndex(of: ">"),
                    line[(index + 1)..<close].contains(":"), !line[(index + 1)..<close].contains(" ")
                {
                    targets.append(String(line[(index + 1)..<close]))
                    index = close + 1
                } else {
                    index += 1
                }
            }
        }
        return targets
    }

    /// A line without its code spans (a run of backticks up to the next run of as many).
    private static func withoutCodeSpans(_ line: String) -> String {
        let characters = Array(line)
        var kept = ""
        var index = 0
        while index < characters.count {
            guard characters[index] == "`" else {
                kept.append(characters[index])
                index += 1
                continue
            }
            var run = 0
            while index + run < characters.count, characters[index + run] == "`" { run += 1 }
            // The closing run: exactly as many backticks.
            var search = index + run
            var closing: Int?
            while search < characters.count {
                guard characters[search] == "`" else {
                    search += 1
                    continue
                }
                var length = 0
                while search + length < characters.count, characters[search + length] == "`" { length += 1 }
                if length == run {
                    closing = search
                    break
                }
                search += length
            }
            guard let closing else {
                kept += String(repeating: "`", count: run)
                index += run
                continue
            }
            index = closing + run
        }
        return kept
    }

    /// Whether a link target is a path in the repository: no scheme (`https:`, `doc:`, `mailto:`).
    static func isRelative(_ target: String) -> Bool {
        guard let colon = target.firstIndex(of: ":") else { return true }
        let scheme = target[..<colon]
        return scheme.isEmpty || scheme.contains("/") || scheme.contains("#")
            || !scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
    }
}
