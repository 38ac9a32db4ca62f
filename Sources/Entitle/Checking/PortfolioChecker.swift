import Foundation

/// Checks what no single catalog can: that each app has one catalog, and that an upgrade's
/// `requires.anyOf` names products the required app's catalog defines, when that catalog is in
/// the same portfolio.
enum PortfolioChecker {
    /// - Parameter texts: each catalog's bytes by file name, to locate diagnostics.
    static func check(_ catalogs: [CatalogDefinition], texts: [String: Data]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        // One line table per file, built on its first diagnostic.
        var tables: [String: LineTable] = [:]
        var suggestions = Suggestion.Budget.perFile
        func report(_ code: DiagnosticCode, _ message: String, file: String, offset: Int, path: String, help: String? = nil) {
            if tables[file] == nil, let text = texts[file] { tables[file] = LineTable(text) }
            let (line, column) = tables[file]?.location(of: offset) ?? (1, 1)
            diagnostics.append(Diagnostic(
                severity: .error, code: code, message: message,
                location: SourceLocation(file: file, line: line, column: column), path: path, help: help))
        }
        var byApp: [String: CatalogDefinition] = [:]
        for catalog in catalogs {
            if let first = byApp[catalog.app.value] {
                report(.duplicateApp, "app `\(catalog.app.value)` already has a catalog in `\(first.file)`",
                       file: catalog.file, offset: catalog.app.offset, path: "app",
                       help: "a portfolio holds one catalog per app")
            } else {
                byApp[catalog.app.value] = catalog
            }
        }
        for catalog in catalogs {
            for product in catalog.products {
                guard let upgrade = product.upgrade, let anyOf = upgrade.anyOf,
                      let required = byApp[upgrade.requiredApp.value] else { continue }
                let known = required.products.map(\.id.value)
                let knownSet = Set(known)
                for id in anyOf where !knownSet.contains(id.value) {
                    report(.unknownProduct,
                           "`\(id.value)` is not a product of `\(required.app.value)` (catalog `\(required.file)`)",
                           file: catalog.file, offset: id.offset, path: id.path,
                           help: Suggestion.help(for: id.value, in: known, budget: &suggestions))
                }
            }
        }
        return diagnostics
    }
}
