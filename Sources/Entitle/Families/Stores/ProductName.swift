/// How people name a product wherever they write one (a story, a test file's expectations,
/// `entitle explain --product` and `--offer`): by its key, `<store>:<id>`
/// (`play:pro:yearly`, `stripe:prod_Pro`; an App Store product's key is its id), or by its id
/// alone where only one store sells a product of that id. A store written as people write it
/// (`google-play:pro:yearly`) is read as the store it means.
package enum ProductName {
    /// The product named.
    case found(CatalogProduct)
    /// An id that several stores' products have: the name must say which (`play:pro`, or the
    /// event's `store`).
    case ambiguous([CatalogProduct])
    /// No product of the catalog has this name.
    case unknown
}

extension CompiledCatalog {
    /// The product `name` names (see ``ProductName``); `store`, when given, is the store the
    /// writer says it is sold in.
    package func product(named name: String, in store: Store? = nil) -> ProductName {
        if let store {
            let id = Store.split(key: name).store == store ? Store.split(key: name).id : name
            return product(store.key(of: id)).map(ProductName.found) ?? .unknown
        }
        // Another store's product by its key; any store's by its id (an App Store product's key),
        // when no other store has a product of that id.
        if Store.split(key: name).store != .appStore, let product = product(name) { return .found(product) }
        let byId = products.filter { $0.id == name }
        if byId.count == 1 { return .found(byId[0]) }
        if byId.count > 1 { return .ambiguous(byId) }
        // A store prefix as people write it: `google-play:pro:yearly`.
        if let colon = name.firstIndex(of: ":"), let meant = Suggestion.aliases[name[..<colon].lowercased()],
            let store = Store(rawValue: meant), let product = product(store.key(of: String(name[name.index(after: colon)...])))
        {
            return .found(product)
        }
        return .unknown
    }

    /// What to say about a name no product has: the closest key ("did you mean"), or, for a
    /// Stripe Price's id (`price_...`) where a Product's is expected, the catalog's Stripe
    /// products; `nil` when there is nothing to say.
    package func help(forUnknownProduct name: String) -> String? {
        let id = Store.split(key: name).id
        if id.hasPrefix("price_") || id.hasPrefix("plan_") {
            let stripe = products.filter { $0.store == .stripe }.map(\.key)
            let named = "a Stripe product is named by its Product id (`prod_...`), not a \(id.hasPrefix("price_") ? "Price's" : "Plan's")"
            if stripe.count == 1 { return "did you mean `\(stripe[0])`? " + named }
            return stripe.isEmpty || stripe.count > 5 ? named : named + ": the catalog's are " + CatalogChecker.list(stripe)
        }
        return Suggestion.help(for: name, in: products.map(\.key))
    }

    /// The message and help for a name that is not one product, as every reader of product names
    /// words them; `nil` when `naming` found one.
    package func problem(naming name: String, _ naming: ProductName, in store: Store? = nil) -> (message: String, help: String?)? {
        switch naming {
        case .found: return nil
        case .ambiguous(let products):
            return (
                "`\(Diagnostic.excerpt(name))` is a product of \(CatalogChecker.list(products.map(\.store.rawValue), conjunction: "and"))",
                "name it by its key: \(CatalogChecker.list(products.map(\.key)))"
            )
        case .unknown:
            return (
                "`\(Diagnostic.excerpt(name))` is not a product of \(app)\(store.map { " in `\($0.rawValue)`" } ?? "")",
                help(forUnknownProduct: name)
            )
        }
    }
}
