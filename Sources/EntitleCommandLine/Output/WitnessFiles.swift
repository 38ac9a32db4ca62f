import Entitle
import Foundation

/// The witnesses of a proof as test files (`*.test.json`, schemas/test.schema.json): one case
/// each, the witness's receipts at its instant, expecting the new catalog's answer, so that
/// `entitle test` passes on them against the new catalogs and they can join the catalog's tests.
enum WitnessFiles {
    /// Makes `directory` when it is missing, before any search.
    ///
    /// - Throws: ``UsageError`` when it cannot be made or is a file.
    static func prepare(_ directory: String) throws(UsageError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw UsageError(message: "`--witnesses \(directory)` is a file, not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw UsageError(message: "`--witnesses \(directory)`: cannot make the directory (\(error.localizedDescription))")
        }
    }

    /// Writes every witness of `report` into `directory`, each test file naming `catalog` (the
    /// new catalogs' path) relative to it; returns lines for standard error.
    static func write(_ report: ProofReport, into directory: String, catalog: String, portfolios: [Portfolio] = []) -> String {
        var messages = ""
        var written = 0
        let relative = relativePath(from: directory, to: catalog)
        for item in report.items {
            for witness in item.witnesses {
                guard let text = testFile(item, witness, catalog: relative, portfolios: portfolios) else {
                    messages += "entitle: no test for \(item.item) (\(witness.direction.rawValue)): the new catalog does not have it\n"
                    continue
                }
                let path = (directory as NSString).appendingPathComponent(fileName(item.item, witness.direction))
                do {
                    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                    written += 1
                } catch {
                    messages += "entitle: cannot write `\(path)`: \(error.localizedDescription)\n"
                }
            }
        }
        return messages + "entitle: \(written) witness\(written == 1 ? "" : "es") written to \(directory)\n"
    }

    /// One witness as a test file; `nil` when the new catalog does not have the item (there is
    /// no answer of it to expect). The customer is told as a story when it can be one that
    /// answers the same under `portfolios` (the old and the new catalogs, ``StoryTeller``), else
    /// written as its receipts.
    static func testFile(_ item: ProofReport.Item, _ witness: ProofWitness, catalog: String, portfolios: [Portfolio] = []) -> String? {
        guard let expectation = witness.expectation else { return nil }
        let what = "\(item.item): \(witness.direction.rawValue), \(witness.old) -> \(witness.new)"
        let file = JSONOutput.object([
            (
                "$comment",
                .string(
                    "Found by `entitle diff --prove`: the smallest customer for whom \(item.item) moves "
                        + "(\(witness.old) under the old catalog, \(witness.new) under the new); the case expects the new answer.")
            ),
            ("catalog", .string(catalog)),
            ("app", .string(item.item.app)),
            (
                "cases",
                .array([
                    .object([
                        ("name", .string(what)),
                        ("at", .string(witness.at.rfc3339)),
                        StoryTeller.story(of: witness.receipts, app: item.item.app, at: witness.at, portfolios: portfolios).map { ("story", $0) }
                            ?? ("receipts", .array(witness.receipts.map(\.jsonOutput))),
                        ("expect", expectation),
                    ])
                ])
            ),
        ])
        return file.rendered() + "\n"
    }

    /// `com.example.diagrams.feature.pro.less.test.json`: app, kind, id (and a promotion's
    /// product), direction, with anything but letters, digits, `.`, `-` and `_` as `_`.
    static func fileName(_ item: ProofItem, _ direction: ProofVerdict) -> String {
        let parts = [item.app, item.kind.rawValue] + (item.product.map { [$0] } ?? []) + [item.id, direction.rawValue]
        let name = parts.joined(separator: ".")
        let safe = String(
            name.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_": Character(scalar)
                default: "_"
                }
            })
        return String(safe.prefix(200)) + ".test.json"
    }

    /// `path` as named from `directory`: `../products` from `witnesses` for `products`.
    static func relativePath(from directory: String, to path: String) -> String {
        func components(_ path: String) -> [String] {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().pathComponents.filter { $0 != "/" }
        }
        let from = components(directory)
        let to = components(path)
        var common = 0
        while common < from.count, common < to.count, from[common] == to[common] { common += 1 }
        let steps = Array(repeating: "..", count: from.count - common) + to[common...]
        return steps.isEmpty ? "." : steps.joined(separator: "/")
    }
}
