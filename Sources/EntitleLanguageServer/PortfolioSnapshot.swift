import Entitle

/// The catalogs of one document's portfolio at one moment, indexed: the document a request is
/// about (with the cursor's context) and the other catalogs of its directory.
struct PortfolioSnapshot {
    /// One catalog: the URI the editor knows it by, its index and its positions.
    struct Entry {
        var uri: String
        var index: CatalogIndex
        var positions: TextPositions

        /// An LSP `Location` of an occurrence in this catalog.
        func location(_ occurrence: CatalogIndex.Occurrence) -> JSONOutput {
            .object([("uri", .string(uri)), ("range", range(occurrence.start, occurrence.end))])
        }

        /// An LSP `Range` of bytes of this catalog.
        func range(_ start: Int, _ end: Int) -> JSONOutput {
            LSPDiagnostic.rangeJSON(start, end, positions)
        }
    }

    var current: Entry
    var others: [Entry]
    /// The byte offset of the request's position in the current document.
    var cursorOffset: Int?

    /// Every catalog, the current one first.
    var all: [Entry] { [current] + others }

    /// The catalog of an app: the current one when it is that app's, else the first other one.
    func catalog(forApp app: String) -> Entry? {
        all.first { $0.index.app?.id == app }
    }

    /// The apps of the portfolio, in order, each once.
    var apps: [String] {
        var seen: Set<String> = []
        return all.compactMap(\.index.app?.id).filter { seen.insert($0).inserted }
    }
}
