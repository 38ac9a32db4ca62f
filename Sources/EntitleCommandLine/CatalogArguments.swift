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
}
