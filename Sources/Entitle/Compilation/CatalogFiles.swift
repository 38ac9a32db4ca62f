import Foundation

/// Finds catalog files on disk: a file, or the `*.json` files directly inside a directory (but
/// not `*.test.json` files, which are tests kept beside the catalogs: `entitle test`).
package enum CatalogFiles {
    package static func sources(at path: String) -> Result<[CatalogSource], Diagnostic> {
        func failure(_ message: String) -> Result<[CatalogSource], Diagnostic> {
            .failure(
                Diagnostic(
                    severity: .error, code: .unreadableFile, message: message,
                    location: SourceLocation(file: path, line: 1, column: 1)))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return failure("no such file or directory")
        }
        var files = [path]
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            files = names.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".test.json") }.sorted()
                .map { (path as NSString).appendingPathComponent($0) }
                .filter { file in
                    var nested: ObjCBool = false
                    return FileManager.default.fileExists(atPath: file, isDirectory: &nested) && !nested.boolValue
                }
            if files.isEmpty { return failure("directory has no `*.json` catalogs") }
        }
        var sources: [CatalogSource] = []
        for file in files {
            if let oversized = oversized(file) { return .failure(oversized) }
            guard let data = FileManager.default.contents(atPath: file) else {
                return .failure(
                    Diagnostic(
                        severity: .error, code: .unreadableFile, message: "cannot read file",
                        location: SourceLocation(file: file, line: 1, column: 1)))
            }
            sources.append(CatalogSource(name: file, data: data))
        }
        return .success(sources)
    }

    /// The error for a catalog file past ``CatalogLimits/maxBytes``, found from its size before it
    /// is read into memory; `nil` when it is within the limit (or has no size to read).
    package static func oversized(_ path: String) -> Diagnostic? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
            size > CatalogLimits.maxBytes
        else { return nil }
        return Diagnostic(
            severity: .error, code: .limitExceeded,
            message: "file is \(size) bytes, over the limit of \(CatalogLimits.maxBytes) bytes",
            location: SourceLocation(file: path, line: 1, column: 1))
    }
}
