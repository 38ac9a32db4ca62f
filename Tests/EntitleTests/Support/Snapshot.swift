import Foundation
import Testing

/// Expected outputs kept as files, so a reviewer sees what changed in a diff rather than in
/// Swift string literals. `ENTITLE_RECORD=1 swift test` writes every snapshot that differs anew
/// from what the code produces (then `git diff` shows the change), and still fails each test whose
/// snapshot it wrote, saying so: a record run never passes on what it just wrote. Without it a
/// difference fails the test.
enum Snapshot {
    /// Whether this run records snapshots instead of comparing them.
    static var recording: Bool { ProcessInfo.processInfo.environment["ENTITLE_RECORD"] == "1" }

    /// Compares `actual` with the file at `path` (relative to the package root), or writes it when
    /// recording.
    static func expect(_ actual: String, matches path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = Fixtures.packageRoot.appendingPathComponent(path)
        let expected = try? String(contentsOf: url, encoding: .utf8)
        if recording {
            guard expected != actual else { return }
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(actual.utf8).write(to: url)
                Issue.record(
                    "recorded \(path) anew (ENTITLE_RECORD=1): review it with `git diff`, then run the tests without ENTITLE_RECORD",
                    sourceLocation: sourceLocation)
            } catch {
                Issue.record("could not record \(path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let expected else {
            Issue.record("no snapshot at \(path); run `ENTITLE_RECORD=1 swift test` to write it", sourceLocation: sourceLocation)
            return
        }
        if expected != actual {
            let expectedLines = expected.components(separatedBy: "\n")
            let actualLines = actual.components(separatedBy: "\n")
            let first =
                zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(expectedLines.count, actualLines.count)
            Issue.record(
                """
                \(path) differs at line \(first + 1) (ENTITLE_RECORD=1 swift test records what the code gives now)
                  expected: \(first < expectedLines.count ? expectedLines[first] : "(end of file)")
                  actual:   \(first < actualLines.count ? actualLines[first] : "(end of output)")
                """, sourceLocation: sourceLocation)
        }
    }

    /// Compares the part of the file at `path` between the lines `start` and `end` with
    /// `generated`, or writes it there when recording; the rest of the file is kept as it is.
    /// Returns the file as it should be, or `nil` (an issue recorded) when a marker is missing.
    @discardableResult
    static func expect(
        generated: String, in path: String, between start: String, and end: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        let text = (try? String(contentsOf: Fixtures.packageRoot.appendingPathComponent(path), encoding: .utf8)) ?? ""
        guard let opening = text.range(of: start + "\n"), let closing = text.range(of: end + "\n", range: opening.upperBound..<text.endIndex) else {
            Issue.record("\(path) has no generated part between `\(start)` and `\(end)`", sourceLocation: sourceLocation)
            return nil
        }
        let expected = String(text[..<opening.upperBound]) + generated + String(text[closing.lowerBound...])
        expect(expected, matches: path, sourceLocation: sourceLocation)
        return expected
    }
}
