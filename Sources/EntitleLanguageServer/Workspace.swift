import Entitle
import Foundation

/// The documents the editor has open, and the portfolios they belong to.
///
/// A document's portfolio is every catalog (`*.json`, not `*.test.json`) in the document's
/// directory, read from disk, with the open documents' text in place of what is on disk: what
/// `entitle validate DIR` would check if every open document were saved. A document that is not a
/// `file:` URI (an unsaved buffer) is a portfolio of its own.
struct Workspace {
    /// An open document.
    struct Document {
        var uri: String
        var path: String?
        var bytes: [UInt8]
        var version: Int64?
    }

    /// A catalog of a portfolio: the name its diagnostics carry, the URI the editor knows it by,
    /// its text, and its version when it is open.
    struct CatalogFile {
        var name: String
        var uri: String
        var bytes: [UInt8]
        var version: Int64?
    }

    private(set) var documents: [String: Document] = [:]
    /// What was last published for each file (by path, or URI for a buffer): where, under which
    /// URI, and the rendered diagnostics; only files whose last publication was not empty.
    private var published: [String: (directory: String?, uri: String, rendered: String)] = [:]

    /// A document's key: its path, so that two spellings of one file's URI are one document.
    static func key(of uri: String) -> String {
        DocumentURI.path(of: uri) ?? uri
    }

    /// Whether a document's name makes it a catalog: `*.json` but not a test file (`*.test.json`),
    /// as ``CatalogFiles`` lists a directory for `entitle validate`.
    static func isCatalog(_ key: String) -> Bool {
        key.hasSuffix(".json") && !key.hasSuffix(".test.json")
    }

    func document(_ uri: String) -> Document? {
        documents[Self.key(of: uri)]
    }

    mutating func open(uri: String, text: String, version: Int64?) {
        documents[Self.key(of: uri)] = Document(uri: uri, path: DocumentURI.path(of: uri), bytes: Array(text.utf8), version: version)
    }

    /// Applies `textDocument/didChange` content changes: a change with a range replaces that
    /// range, one without replaces the whole text.
    ///
    /// The server asks for whole texts; ranges are applied for clients that send them anyway, each
    /// at the cost of a pass over the text, within a budget of a few passes per byte of text and
    /// message (so a message of a million tiny edits to a large text cannot stall the server):
    /// past it, ranged changes are dropped until the next whole text.
    mutating func change(uri: String, changes: [(range: (start: TextPosition, end: TextPosition)?, text: String)], version: Int64?) {
        let key = Self.key(of: uri)
        guard var document = documents[key] else { return }
        let sent = changes.reduce(0) { $0 + $1.text.utf8.count }
        var budget = 16 * (document.bytes.count + sent) + (1 << 20)
        for change in changes {
            guard let range = change.range else {
                document.bytes = Array(change.text.utf8)
                continue
            }
            budget -= document.bytes.count + change.text.utf8.count
            guard budget >= 0 else { continue }
            let positions = TextPositions(document.bytes)
            let start = positions.offset(of: range.start)
            let end = max(start, positions.offset(of: range.end))
            document.bytes.replaceSubrange(start..<end, with: Array(change.text.utf8))
        }
        document.version = version ?? document.version
        documents[key] = document
    }

    /// Replaces a document's text (`didSave` with its text).
    mutating func replaceText(uri: String, text: String) {
        let key = Self.key(of: uri)
        documents[key]?.bytes = Array(text.utf8)
    }

    mutating func close(uri: String) {
        documents[Self.key(of: uri)] = nil
    }

    // MARK: Portfolios

    /// The directory whose catalogs make a document's portfolio; `nil` for a buffer.
    private static func directory(of key: String) -> String? {
        guard key.hasPrefix("/") else { return nil }
        return (key as NSString).deletingLastPathComponent
    }

    /// The catalogs of a document's portfolio, sorted by name; empty when the document is not a
    /// catalog.
    func portfolio(of uri: String) -> [CatalogFile] {
        let key = Self.key(of: uri)
        guard Self.isCatalog(key) else { return [] }
        guard let directory = Self.directory(of: key) else {
            guard let document = documents[key] else { return [] }
            return [CatalogFile(name: document.uri, uri: document.uri, bytes: document.bytes, version: document.version)]
        }
        var files: [String: CatalogFile] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where Self.isCatalog(name) {
            let path = (directory as NSString).appendingPathComponent(name)
            if let document = documents[path] {
                files[path] = CatalogFile(name: path, uri: document.uri, bytes: document.bytes, version: document.version)
            } else if let bytes = Self.readCatalog(at: path) {
                files[path] = CatalogFile(name: path, uri: DocumentURI.uri(ofPath: path), bytes: bytes)
            }
        }
        // Open documents not saved yet are catalogs of the directory too.
        for (path, document) in documents where files[path] == nil && Self.isCatalog(path) && Self.directory(of: path) == directory {
            files[path] = CatalogFile(name: path, uri: document.uri, bytes: document.bytes, version: document.version)
        }
        return files.keys.sorted().compactMap { files[$0] }
    }

    /// A regular file's bytes, or `nil` for a directory, an unreadable file or one too large to read
    /// (that one reads as empty here; ``diagnostics(of:)`` reports its size).
    private static func readCatalog(at path: String) -> [UInt8]? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
        if CatalogFiles.oversized(path) != nil { return [] }
        return FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// Checks a portfolio as `entitle validate` would: its diagnostics by file name.
    static func diagnostics(of files: [CatalogFile]) -> [String: [Diagnostic]] {
        var byFile: [String: [Diagnostic]] = [:]
        var sources: [CatalogSource] = []
        for file in files {
            if file.bytes.isEmpty, let oversized = CatalogFiles.oversized(file.name) {
                byFile[file.name, default: []].append(oversized)
                continue
            }
            sources.append(CatalogSource(name: file.name, data: Data(file.bytes)))
        }
        guard !sources.isEmpty else { return byFile }
        for diagnostic in Portfolio.compile(sources).diagnostics {
            guard let file = diagnostic.location?.file else { continue }
            byFile[file, default: []].append(diagnostic)
        }
        return byFile
    }

    /// The `textDocument/publishDiagnostics` parameters to send after a document was opened,
    /// changed, saved or closed: for that document always, and for every other file of its
    /// portfolio whose diagnostics changed (an empty list clears a file that has none any more,
    /// or that left the directory).
    mutating func publications(after uri: String) -> [JSONOutput] {
        let key = Self.key(of: uri)
        // A document that is not a catalog (a test file) gets an empty list, so nothing stale stays.
        guard Self.isCatalog(key) else { return [Self.params(uri: uri, version: document(uri)?.version, items: [])] }
        let directory = Self.directory(of: key)
        let files = portfolio(of: uri)
        let byFile = Self.diagnostics(of: files)
        var out: [JSONOutput] = []
        var seen: Set<String> = []
        for file in files {
            let fileKey = Self.key(of: file.uri)
            seen.insert(fileKey)
            let diagnostics = byFile[file.name] ?? []
            var items: [JSONOutput] = []
            if !diagnostics.isEmpty {
                let positions = TextPositions(file.bytes)
                let scan = TolerantScan.scan(file.bytes)
                items = diagnostics.map { LSPDiagnostic.json($0, positions: positions, scan: scan) }
            }
            let rendered = JSONOutput.array(items).compact()
            let before = published[fileKey]
            if let before, before.uri != file.uri {
                out.append(Self.params(uri: before.uri, version: nil, items: []))
            }
            if fileKey == key || (before?.rendered ?? "[]") != rendered {
                out.append(Self.params(uri: file.uri, version: file.version, items: items))
            }
            published[fileKey] = items.isEmpty ? nil : (directory, file.uri, rendered)
        }
        // Files that left the portfolio (deleted, or no longer a catalog) keep no diagnostics.
        let gone = published.filter { $0.value.directory == directory && !seen.contains($0.key) && (directory != nil || $0.key == key) }
        for (fileKey, entry) in gone.sorted(by: { $0.key < $1.key }) {
            out.append(Self.params(uri: entry.uri, version: nil, items: []))
            published[fileKey] = nil
        }
        return out
    }

    private static func params(uri: String, version: Int64?, items: [JSONOutput]) -> JSONOutput {
        var members: [(String, JSONOutput)] = [("uri", .string(uri))]
        if let version { members.append(("version", .integer(version))) }
        members.append(("diagnostics", .array(items)))
        return .object(members)
    }

    // MARK: Language features

    /// A document's portfolio indexed for completion, hover, definitions and references, with the
    /// cursor's context in the document itself; `nil` when the document is not an open catalog.
    func snapshot(of uri: String, cursor: TextPosition? = nil) -> PortfolioSnapshot? {
        let key = Self.key(of: uri)
        guard let document = documents[key], Self.isCatalog(key) else { return nil }
        let positions = TextPositions(document.bytes)
        let offset = cursor.map { positions.offset(of: $0) }
        let current = PortfolioSnapshot.Entry(uri: document.uri, index: CatalogIndex(document.bytes, cursor: offset), positions: positions)
        let others = portfolio(of: uri).filter { Self.key(of: $0.uri) != key }.map { file in
            PortfolioSnapshot.Entry(uri: file.uri, index: CatalogIndex(file.bytes), positions: TextPositions(file.bytes))
        }
        return PortfolioSnapshot(current: current, others: others, cursorOffset: offset)
    }
}
