import Entitle

/// A feature, currency, product or app that a key or value of a catalog names, with the catalog
/// of the portfolio that declares it: what hover, go to definition and find references work on.
///
/// Features and currencies belong to their catalog (two apps may both have a `pro`); products
/// too, but another app's catalog names them in `upgrade.requires.anyOf`, which is resolved
/// through `requires.app`.
struct CatalogSymbol {
    enum Kind: Equatable { case feature, currency, product, app }

    var kind: Kind
    var id: String
    /// The catalog that declares it; `nil` when the portfolio has no catalog for the app named.
    var owner: PortfolioSnapshot.Entry?
    /// The token the symbol was found at, in the current document.
    var token: TolerantScan.Token

    /// The symbol a token at `offset` of the current document names, read through the language:
    /// a declared feature or currency, a feature in a list of features, a currency of credits, a
    /// product's id or a product another names, an app.
    static func at(_ offset: Int, in snapshot: PortfolioSnapshot) -> CatalogSymbol? {
        let index = snapshot.current.index
        guard let token = index.scan.token(at: offset), !token.text.isEmpty, token.role == .key || token.isString,
            let location = CatalogLocation.resolve(token.path.map(\.component)), let value = location.value
        else { return nil }
        let current = snapshot.current
        func symbol(_ kind: Kind, owner: PortfolioSnapshot.Entry?) -> CatalogSymbol {
            CatalogSymbol(kind: kind, id: token.text, owner: owner, token: token)
        }
        switch (token.role, value) {
        case (.key, .declarations(let what)) where location.entry != nil && token.text != CatalogKey.comment.name:
            return symbol(what == "feature" ? .feature : .currency, owner: current)
        case (.key, .credits) where location.entry != nil && token.text != CatalogKey.comment.name:
            return symbol(.currency, owner: current)
        case (.value, .features) where location.element != nil:
            return symbol(.feature, owner: current)
        case (.value, .productId) where location.object == .product, (.value, .productReference):
            return symbol(.product, owner: current)
        case (.value, .bundleId) where location.object == .catalog:
            return symbol(.app, owner: current)
        case (.value, .bundleId):
            return symbol(.app, owner: snapshot.catalog(forApp: token.text))
        case (.value, .products) where location.element != nil:
            let app = index.product(at: token.path)?.requiredApp?.id
            return symbol(.product, owner: app.flatMap { snapshot.catalog(forApp: $0) })
        default:
            return nil
        }
    }

    /// Where the symbol is declared: a feature's or currency's key, a product's `id` value, an
    /// app's `app` value.
    var declaration: (entry: PortfolioSnapshot.Entry, occurrence: CatalogIndex.Occurrence)? {
        guard let owner else { return nil }
        let index = owner.index
        let found: CatalogIndex.Occurrence? =
            switch kind {
            case .feature: index.features.first { $0.occurrence.id == id }?.occurrence
            case .currency: index.currencies.first { $0.occurrence.id == id }?.occurrence
            case .product: index.product(withId: id)?.id
            case .app: index.app.flatMap { $0.id == id ? $0 : nil }
            }
        return found.map { (owner, $0) }
    }

    /// Every place the portfolio names the symbol, the declaration first when asked for.
    func references(in snapshot: PortfolioSnapshot, includeDeclaration: Bool) -> [(
        entry: PortfolioSnapshot.Entry, occurrence: CatalogIndex.Occurrence
    )] {
        guard let owner else { return [] }
        var found: [(PortfolioSnapshot.Entry, CatalogIndex.Occurrence)] = []
        if includeDeclaration, let declaration { found.append(declaration) }
        let index = owner.index
        switch kind {
        case .feature:
            for product in index.products { for grant in product.grants where grant.id == id { found.append((owner, grant)) } }
            for rule in index.grandfatherRules { for grant in rule.grants where grant.id == id { found.append((owner, grant)) } }
        case .currency:
            for product in index.products {
                for credit in product.credits where credit.currency.id == id { found.append((owner, credit.currency)) }
            }
        case .product:
            for product in index.products {
                for reference in product.references where reference.occurrence.id == id { found.append((owner, reference.occurrence)) }
            }
            // Upgrades in other apps (any catalog of the portfolio) that accept a purchase of it.
            guard let app = index.app?.id else { break }
            for entry in snapshot.all {
                for product in entry.index.products where product.requiredApp?.id == app {
                    for listed in product.anyOf where listed.id == id { found.append((entry, listed)) }
                }
            }
        case .app:
            for entry in snapshot.all {
                for product in entry.index.products {
                    if let required = product.requiredApp, required.id == id { found.append((entry, required)) }
                }
            }
        }
        // In file order after the declaration: catalogs as the portfolio lists them, then offsets.
        let order = Dictionary(snapshot.all.enumerated().map { ($1.uri, $0) }, uniquingKeysWith: { first, _ in first })
        let declared = includeDeclaration && declaration != nil ? 1 : 0
        let sorted = found.dropFirst(declared).sorted {
            (order[$0.0.uri] ?? 0, $0.1.start) < (order[$1.0.uri] ?? 0, $1.1.start)
        }
        return Array(found.prefix(declared)) + sorted
    }
}
