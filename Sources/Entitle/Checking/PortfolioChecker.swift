import Foundation

/// Checks what no single catalog can: that each app has one catalog, and that an upgrade's
/// `requires` names an app and products the required app's catalog defines, when that catalog is
/// in the same portfolio.
///
/// It runs on every catalog that could be read, errors or not, so that a portfolio's problems
/// come in one pass.
enum PortfolioChecker {
    /// - Parameters:
    ///   - texts: each catalog's bytes by file name, to locate diagnostics.
    ///   - someAppUnknown: whether a catalog of the portfolio has errors that hide which app it is
    ///     for. An upgrade requiring an app without a catalog is then not reported: that catalog
    ///     may be the required app's, and its own error is the one to fix.
    static func check(_ catalogs: [CatalogDefinition], texts: [String: Data], someAppUnknown: Bool = false) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        // One line table per file, built on its first diagnostic.
        var tables: [String: LineTable] = [:]
        var suggestions = Suggestion.Budget.perFile
        func report(
            _ severity: Diagnostic.Severity, _ code: DiagnosticCode, _ message: String,
            file: String, offset: Int, path: String, help: String? = nil, meant: String? = nil
        ) {
            if tables[file] == nil, let text = texts[file] { tables[file] = LineTable(text) }
            let (line, column) = tables[file]?.location(of: offset) ?? (1, 1)
            let diagnostic = Diagnostic(
                severity: severity, code: code, message: message,
                location: SourceLocation(file: file, line: line, column: column), path: path, help: help)
            diagnostics.append(meant.map { diagnostic.suggesting($0, at: offset, in: texts[file]) } ?? diagnostic)
        }
        var byApp: [String: CatalogDefinition] = [:]
        for catalog in catalogs {
            guard let app = catalog.app else { continue }
            if let first = byApp[app.value] {
                report(
                    .error, .duplicateApp, "app `\(app.value)` already has a catalog in `\(first.file)`",
                    file: catalog.file, offset: app.offset, path: "app",
                    help: "a portfolio holds one catalog per app")
            } else {
                byApp[app.value] = catalog
            }
        }
        let apps = Array(byApp.keys).sorted()
        for catalog in catalogs {
            for product in catalog.products {
                guard let upgrade = product.upgrade, let requiredApp = upgrade.requiredApp,
                    requiredApp.value != catalog.app?.value
                else { continue }
                guard let required = byApp[requiredApp.value] else {
                    guard !someAppUnknown else { continue }
                    // Another app of the portfolio, misspelt, or an app whose catalog lives elsewhere
                    // (never the catalog's own app: an upgrade cannot require it).
                    let candidates = apps.filter { $0 != catalog.app?.value }
                    if let meant = Suggestion.closest(to: requiredApp.value, in: candidates, budget: &suggestions) {
                        report(
                            .warning, .unknownApp, "`\(requiredApp.value)` is not an app of this portfolio",
                            file: catalog.file, offset: requiredApp.offset, path: requiredApp.path, meant: meant)
                    } else if upgrade.anyOf != nil {
                        report(
                            .note, .unknownApp,
                            "`\(requiredApp.value)` has no catalog in this portfolio, so the products `anyOf` names cannot be checked",
                            file: catalog.file, offset: requiredApp.offset, path: requiredApp.path,
                            help: "check it together with that app's catalog (`entitle validate DIR`) to have them checked")
                    }
                    continue
                }
                guard let anyOf = upgrade.anyOf else { continue }
                var known: [String: ProductDefinition] = [:]
                for other in required.products { if let id = other.id, known[id.value] == nil { known[id.value] = other } }
                let knownIds = required.products.compactMap(\.id?.value)
                for id in anyOf {
                    guard let other = known[id.value] else {
                        report(
                            .error, .unknownProduct,
                            "`\(id.value)` is not a product of `\(requiredApp.value)` (catalog `\(required.file)`)",
                            file: catalog.file, offset: id.offset, path: id.path,
                            meant: Suggestion.closest(to: id.value, in: knownIds, budget: &suggestions))
                        continue
                    }
                    if other.type == .consumable {
                        report(
                            .warning, .upgradeRule,
                            "`anyOf` names `\(id.value)`, a consumable of `\(requiredApp.value)`: buying it once qualifies for good",
                            file: catalog.file, offset: id.offset, path: id.path,
                            help: "name the other app's non-consumables or subscriptions that make a customer an owner")
                    }
                }
            }
        }
        return diagnostics
    }
}
