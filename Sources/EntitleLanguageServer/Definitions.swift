import Entitle

/// Go to definition and find references: for a feature, currency, product or app id under the
/// cursor, where the portfolio declares it and every place that names it, across the catalogs
/// of the directory.
///
/// A feature is declared by its key in `features` and named in products' and grandfather rules'
/// `grants`; a currency by its key in `currencies`, named by consumables' `credits`; a product by
/// its `id` value, named by trials (the paid product they try), `upgrade.replaces` and other apps' `upgrade.requires.anyOf`;
/// an app by its catalog's `app`, named by `upgrade.requires.app`.
enum Definitions {
    /// The `textDocument/definition` result: a `Location`, or `null`.
    static func definition(in snapshot: PortfolioSnapshot) -> JSONOutput {
        guard let offset = snapshot.cursorOffset, let symbol = CatalogSymbol.at(offset, in: snapshot),
            let declaration = symbol.declaration
        else { return .null }
        return declaration.entry.location(declaration.occurrence)
    }

    /// The `textDocument/references` result: `Location`s in file order, the declaration first when
    /// `includeDeclaration`.
    static func references(in snapshot: PortfolioSnapshot, includeDeclaration: Bool) -> JSONOutput {
        guard let offset = snapshot.cursorOffset, let symbol = CatalogSymbol.at(offset, in: snapshot) else { return .array([]) }
        return .array(symbol.references(in: snapshot, includeDeclaration: includeDeclaration).map { $0.entry.location($0.occurrence) })
    }
}
