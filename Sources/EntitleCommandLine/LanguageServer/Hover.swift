import Entitle

/// `textDocument/hover`: what the id under the cursor is, in Markdown.
///
/// - a feature (declared, or in a `grants` array): its description and what grants it (products
///   and grandfather rules);
/// - a currency: its description and the consumables that credit it;
/// - a product (its `id`, or a reference to it, in this catalog or another app's `anyOf`): its
///   type, name, duration, group, what it grants or credits, the product it is a trial of or an
///   upgrade from, and for a subscription the legal text it shows (its own, else the catalog's
///   default for its type);
/// - an app (`app`, `requires.app`): its catalog and how many products it has.
enum Hover {
    static func hover(in snapshot: PortfolioSnapshot) -> JSONOutput {
        guard let offset = snapshot.cursorOffset, let symbol = CatalogSymbol.at(offset, in: snapshot),
              let text = markdown(for: symbol, in: snapshot) else { return .null }
        return .object([
            ("contents", .object([("kind", .string("markdown")), ("value", .string(text))])),
            ("range", snapshot.current.range(symbol.token.start, symbol.token.end)),
        ])
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
            var lines = ["feature `\(symbol.id)`\(app)"]
            if let declared = index.features.first(where: { $0.occurrence.id == symbol.id }) {
                if let description = declared.description { lines.append(description) }
            } else {
                lines.append("not declared in `features`")
            }
            var sources = index.products.filter { $0.grants.contains { $0.id == symbol.id } }.map(productLine)
            sources += index.grandfathered.filter { $0.grants.contains { $0.id == symbol.id } }
                .map { "- grandfather rule `\($0.id ?? "grandfathered[\($0.index)]")`" }
            lines.append(sources.isEmpty ? "granted by nothing" : "granted by:\n" + sources.joined(separator: "\n"))
            return lines.joined(separator: "\n\n")
        case .currency:
            var lines = ["currency `\(symbol.id)`\(app)"]
            if let declared = index.currencies.first(where: { $0.occurrence.id == symbol.id }) {
                if let description = declared.description { lines.append(description) }
            } else {
                lines.append("not declared in `currencies`")
            }
            let sources = index.products.compactMap { product -> String? in
                guard let credit = product.credits.first(where: { $0.currency.id == symbol.id }) else { return nil }
                return productLine(product) + (credit.amount.map { ", \($0) per unit" } ?? "")
            }
            lines.append(sources.isEmpty ? "credited by nothing" : "credited by:\n" + sources.joined(separator: "\n"))
            return lines.joined(separator: "\n\n")
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

    private static func productLine(_ product: CatalogIndex.Product) -> String {
        let id = product.id?.id ?? "products[\(product.index)]"
        return "- `\(id)`" + (product.type.map { " (\($0))" } ?? "")
    }

    private static func productMarkdown(_ product: CatalogIndex.Product, index: CatalogIndex, app: String) -> String {
        var lines = ["product `\(product.id?.id ?? "")`\(app)"]
        var facts: [String] = []
        if let type = product.type { facts.append("type: \(type)") }
        if let name = product.values["name"] { facts.append("name: \(name)") }
        if let duration = product.values["duration"] { facts.append("duration: \(duration)") }
        if let group = product.values["group"] { facts.append("group: \(group)") }
        if let level = product.values["level"] { facts.append("level: \(level)") }
        if let tier = product.values["priceTier"] { facts.append("price tier: \(tier)") }
        if let mode = product.introOffer["mode"] {
            facts.append("intro offer: \(mode)" + (product.introOffer["duration"].map { " for \($0)" } ?? ""))
        }
        if let trialOf = product.trialOf { facts.append("trial of: `\(trialOf.id)`") }
        if let replaces = product.replaces { facts.append("upgrade, replaces: `\(replaces.id)`") }
        if let required = product.requiredApp {
            let listed = product.anyOf.map { "`\($0.id)`" }.joined(separator: ", ")
            facts.append("requires a purchase in `\(required.id)`" + (listed.isEmpty ? "" : ": any of \(listed)"))
        }
        if product.values["available"] == "false" { facts.append("retired (not offered)") }
        if !facts.isEmpty { lines.append(facts.map { "- \($0)" }.joined(separator: "\n")) }
        if !product.grants.isEmpty {
            lines.append("grants: " + product.grants.map { "`\($0.id)`" }.joined(separator: ", "))
        } else if !product.credits.isEmpty {
            lines.append("credits: " + product.credits.map { "\($0.amount ?? "?") `\($0.currency.id)`" }.joined(separator: ", "))
        } else {
            lines.append("grants nothing")
        }
        if let type = product.type.flatMap(ProductType.init(rawValue:)), type.isSubscription {
            if let legal = product.values["legal"] {
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
