import Entitle
import Foundation

/// Catalog paths given on the command line (files, or directories of `*.json` files), read as
/// one portfolio. A file named twice, directly or through its directory, is one catalog.
enum CatalogArguments {
    /// The catalogs at `paths`, and a diagnostic for each path that cannot be read.
    static func sources(_ paths: [String]) -> (sources: [CatalogSource], problems: [Diagnostic]) {
        var sources: [CatalogSource] = []
        var problems: [Diagnostic] = []
        var seen: Set<String> = []
        for path in paths {
            switch CatalogFiles.sources(at: path) {
            case .success(let found):
                for source in found {
                    let key = URL(fileURLWithPath: source.name).standardizedFileURL.resolvingSymlinksInPath().path
                    if seen.insert(key).inserted { sources.append(source) }
                }
            case .failure(let diagnostic):
                problems.append(diagnostic)
            }
        }
        return (sources, problems)
    }

    /// The catalogs at `paths`, compiled as one portfolio.
    struct Compiled {
        var sources: [CatalogSource]
        /// A diagnostic for each path that cannot be read.
        var unreadable: [Diagnostic]
        var compilation: Compilation
        /// The unreadable paths, then the compilation's diagnostics; when no path could be read,
        /// the unreadable paths alone (not also a knock-on "no catalogs given").
        var diagnostics: [Diagnostic]
        /// Whether no path could be read at all.
        var nothingRead: Bool { sources.isEmpty && !unreadable.isEmpty }
    }

    /// Reads and compiles the catalogs at `paths`.
    static func compile(_ paths: [String]) -> Compiled {
        let (sources, unreadable) = self.sources(paths)
        let compilation = Portfolio.compile(sources)
        let nothingRead = sources.isEmpty && !unreadable.isEmpty
        return Compiled(
            sources: sources, unreadable: unreadable, compilation: compilation,
            diagnostics: unreadable + (nothingRead ? [] : compilation.diagnostics))
    }

    /// Reads and compiles the catalogs given as a command's operands (`validate`, `graph`).
    ///
    /// - Throws: ``UsageError`` when there is none.
    static func compileOperands(_ arguments: ParsedArguments) throws(UsageError) -> Compiled {
        guard !arguments.positional.isEmpty else { throw UsageError(message: "give at least one catalog path") }
        return compile(arguments.positional)
    }
}
