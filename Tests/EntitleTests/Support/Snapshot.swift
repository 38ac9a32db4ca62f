import Foundation
import Testing

/// Expected outputs kept as files, so a reviewer sees what changed in a diff rather than in
/// Swift string literals. `ENTITLE_RECORD=1 swift test` writes every snapshot anew from what the
/// code produces (then `git diff` shows the change); without it a difference fails the test.
enum Snapshot {
    /// Whether this run records snapshots instead of comparing them.
    static var recording: Bool { ProcessInfo.processInfo.environment["ENTITLE_RECORD"] == "1" }

    /// Compares `actual` with the file at `path` (relative to the package root), or writes it when
    /// recording.
    static func expect(_ actual: String, matches path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = Fixtures.packageRoot.appendingPathComponent(path)
        if recording {
            try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? Data(actual.utf8).write(to: url)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
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
}
