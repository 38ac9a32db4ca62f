import Entitle
import Foundation

/// Finds test files (`*.test.json`) on disk and resolves the paths they name.
enum TestFiles {
    static let suffix = ".test.json"

    /// The test files at `paths`: a file is taken as it is named, a directory is searched
    /// recursively for `*.test.json` (hidden folders such as `.git` and `.build` are skipped).
    /// Returns the files in order, each once, and a diagnostic for each path that has none.
    static func find(_ paths: [String]) -> (files: [String], problems: [Diagnostic]) {
        var files: [String] = []
        var problems: [Diagnostic] = []
        var seen: Set<String> = []
        func add(_ file: String) {
            let key = URL(fileURLWithPath: file).standardizedFileURL.resolvingSymlinksInPath().path
            if seen.insert(key).inserted { files.append(file) }
        }
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append(unreadable(path, "no such file or directory"))
                continue
            }
            guard isDirectory.boolValue else {
                add(path)
                continue
            }
            var visited: Set<String> = []
            let found = search(path, prefix: path == "." ? "" : path, visited: &visited)
            if found.isEmpty {
                problems.append(unreadable(path, "directory has no `*\(suffix)` test files"))
            }
            found.forEach(add)
        }
        return (files, problems)
    }

    /// The `*.test.json` files under `directory`, in sorted order, named from `prefix`. A folder
    /// reached twice (through a symbolic link) is searched once.
    private static func search(_ directory: String, prefix: String, visited: inout Set<String>) -> [String] {
        let real = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        guard visited.insert(real).inserted,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else { return [] }
        var found: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(name)
            let shown = prefix.isEmpty ? name : (prefix as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                found += search(path, prefix: shown, visited: &visited)
            } else if name.hasSuffix(suffix) {
                found.append(shown)
            }
        }
        return found
    }

    private static func unreadable(_ path: String, _ message: String) -> Diagnostic {
        Diagnostic(severity: .error, code: .unreadableFile, message: message, location: SourceLocation(file: path, line: 1, column: 1))
    }

    /// `path` as named from the folder of `file` (a path that is absolute stays as it is), with
    /// `.` and `..` steps taken: `products/../products` is `products`.
    static func resolve(_ path: String, relativeTo file: String) -> String {
        if path.hasPrefix("/") { return normalized(path) }
        let folder = (file as NSString).deletingLastPathComponent
        return normalized(folder.isEmpty ? path : folder + "/" + path)
    }

    /// A path with its `.` and `..` steps taken, as far as the path itself tells.
    static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else if part == "..", absolute, parts.isEmpty {
                continue
            } else {
                parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }
}
