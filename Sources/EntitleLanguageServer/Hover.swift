import Entitle

/// `textDocument/hover`: what the id or key under the cursor is, in Markdown.
///
/// - a feature (declared, or in a `grants` array): its description and what grants it (products
///   and grandfather rules);
/// - a currency: its description and the consumables that credit it;
/// - a product (its `id`, or a reference to it, in this catalog or another app's `anyOf`): the
///   values written for it (type, name, duration, group, its intro offer ...), what it grants or
///   credits, the product it stands in for, and for a subscription the legal text it shows (its
///   own, else the catalog's default for its type);
/// - an app (`app`, `requires.app`): its catalog and how many products it has;
/// - a key of the language: what it means there and what it takes (``CatalogKey``).
enum Hover {
    static func hover(in snapshot: PortfolioSnapshot) -> JSONOutput {
        guard let offset = snapshot.cursorOffset else { return .null }
        let found: (text: String, token: TolerantScan.Token)?
        if let symbol = CatalogSymbol.at(offset, in: snapshot) {
            found = markdown(for: symbol, in: snapshot).map { ($0, symbol.token) }
        } else {
            found = keyMarkdown(at: offset, in: snapshot)
        }
        guard let found else { return .null }
        return .object([
            ("contents", .object([("kind", .string("markdown")), ("value", .string(found.text))])),
            ("range", snapshot.current.range(found.token.start, found.token.end)),
        ])
    }

    /// A key of the language under the cursor: its help and the value it takes.
    private static func keyMarkdown(at offset: Int, in snapshot: PortfolioSnapshot) -> (String, TolerantScan.Token)? {
        guard let token = snapshot.current.index.scan.token(at: offset), token.role == .key,
            let location = CatalogLocation.resolve(token.path.map(\.component)), location.entry == nil,
            let key = location.key, let place = key.place(in: location.object)
        else { return nil }
        var lines = ["`\(key.name)` in \(location.object.phrase)", place.help]
        if !place.types.isEmpty { lines.append("on \(CatalogChecker.list(place.types.map(\.rawValue)))") }
        switch place.requirement {
        case .optional: break
        case .required: lines.append("required")
        case .requiredFor(let types, _): lines.append("required on \(CatalogChecker.list(types.map(\.rawValue)))")
        }
        if let choices = place.value.choices { lines.append("one of \(CatalogChecker.list(choices))") }
        return (lines.joined(separator: "\n\n"), token)
    }

    static func markdown(for symbol: CatalogSymbol, in snapshot: PortfolioSnapshot) -> String? {
        guard let owner = symbol.owner else {
            return symbol.kind == .app
                ? "app `\(symbol.id)`\n\nno catalog of this directory is this app's"
                : "product `\(symbol.id)`\n\nits app has no catalog in this directory"
        }
        let index = owner.index
        let app = index.app.map { " of `\($0.id)`" } ?? ""
        switch symbol.kind {
        case .feature:
            var sources = index.products.filter { $0.grants.contains { $0.id == symbol.id } }.map(productLine)
            sources += index.grandfatherRules.filter { $0.grants.contains { $0.id == symbol.id } }
                .map { "- grandfather rule `\($0.name)`" }
            return declaredMarkdown(symbol.id, "feature", app: app, in: index.features, key: .features, sources: sources, verb: "granted")
        case .currency:
            let sources = index.products.compactMap { product -> String? in
                guard let credit = product.credits.first(where: { $0.currency.id == symbol.id }) else { return nil }
                return productLine(product) + (credit.amount.map { ", \($0) per unit" } ?? "")
            }
            return declaredMarkdown(symbol.id, "currency", app: app, in: index.currencies, key: .currencies, sources: sources, verb: "credited")
        case .product:
            guard let product = index.product(withId: symbol.id) else {
                return "product `\(symbol.id)`\n\nnot defined in `\(owner.uri)`"
            }
            return productMarkdown(product, index: index, app: app)
        case .app:
            let count = index.products.count
            return "app `\(symbol.id)`\n\ncatalog `\(owner.uri)`, \(count) product\(count == 1 ? "" : "s")"
        }
    }

    /// A feature's or currency's hover: the id and its app, its description (or that `key` does not
    /// declare it), then the `sources` that grant or credit it (`verb`).
    private static func declaredMarkdown(
        _ id: String, _ kind: String, app: String, in declarations: [CatalogIndex.Declaration], key: CatalogKey, sources: [String],
        verb: String
    ) -> String {
        var lines = ["\(kind) `\(id)`\(app)"]
        if let declared = declarations.first(where: { $0.occurrence.id == id }) {
            if let description = declared.description { lines.append(description) }
        } else {
            lines.append("not declared in `\(key.name)`")
        }
        lines.append(sources.isEmpty ? "\(verb) by nothing" : "\(verb) by:\n" + sources.joined(separator: "\n"))
        return lines.joined(separator: "\n\n")
    }

    private static func productLine(_ product: CatalogIndex.Product) -> String {
        let id = product.id?.id ?? "\(CatalogKey.products.name)[\(product.index)]"
        return "- `\(id)`" + (product.type.map { " (\($0))" } ?? "")
    }

    private static func productMarkdown(_ product: CatalogIndex.Product, index: CatalogIndex, app: String) -> String {
        var lines = ["product `\(product.id?.id ?? "")`\(app)"]
        var facts: [String] = []
        // The values written, in the language's order; those of nested objects on one line each.
        for key in CatalogObject.product.keys() {
            switch key.place(in: .product)?.value {
            case .comment?, .productId?, .productReference?, .features?, .credits?:
                continue
            case .text? where key == .legal:
                continue
            case .object(let inner)?:
                // Its own values; what it names is listed below.
                let parts = inner.keys().compactMap { nested -> String? in
                    switch nested.place(in: inner)?.value {
                    case .productReference?, .bundleId?, .comment?: return nil
                    default: return product.values["\(inner.rawValue).\(nested.name)"].map { "\(nested.name) \($0)" }
                    }
                }
                if !parts.isEmpty { facts.append("\(key.name): \(parts.joined(separator: ", "))") }
            default:
                if let value = product.values[key.name] { facts.append("\(key.name): \(value)") }
            }
        }
        for reference in product.references { facts.append("\(reference.key.name): `\(reference.occurrence.id)`") }
        if let required = product.requiredApp {
            let listed = product.anyOf.map { "`\($0.id)`" }.joined(separator: ", ")
            facts.append("requires a purchase in `\(required.id)`" + (listed.isEmpty ? "" : ": any of \(listed)"))
        }
        if product.values[CatalogKey.available.name] == "false" { facts.append("retired (not offered)") }
        if !facts.isEmpty { lines.append(facts.map { "- \($0)" }.joined(separator: "\n")) }
        if !product.grants.isEmpty {
            lines.append("grants: " + product.grants.map { "`\($0.id)`" }.joined(separator: ", "))
        } else if !product.credits.isEmpty {
            lines.append("credits: " + product.credits.map { "\($0.amount ?? "?") `\($0.currency.id)`" }.joined(separator: ", "))
        } else {
            lines.append("grants nothing")
        }
        if let type = product.type.flatMap(ProductType.init(rawValue:)), type.isSubscription {
            if let legal = product.values[CatalogKey.legal.name] {
                lines.append("legal text (its own):\n\n> \(legal)")
            } else if let legal = index.legal[type.rawValue] {
                lines.append("legal text (the catalog's for \(type.rawValue)):\n\n> \(legal)")
            } else {
                lines.append("no legal text: a subscription needs one")
            }
        }
        return lines.joined(separator: "\n\n")
    }
}
