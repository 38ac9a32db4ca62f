/// Compiled catalogs drawn as a graph, in Mermaid (which GitHub shows in Markdown and pull
/// requests) or Graphviz DOT: each app's products and the features they grant, consumables and
/// the currencies they credit, trials to their paid products, upgrades to the product they
/// replace and the purchase they require (in another app's catalog when it is drawn too),
/// subscription groups with their products by level, pass groups, win-back and promotional
/// offers, and grandfather rules with the features they grant.
///
/// Node ids are generated (`n1`, `c1`), never taken from a catalog; every label is escaped for
/// the format, so any id or description a catalog holds reads as text.
public struct CatalogGraph: Sendable {
    /// What a node stands for; it decides the node's shape and style.
    enum Kind: String, Sendable {
        case product, retired, feature, currency, rule, offer, external
    }

    struct Node: Sendable {
        var id: String
        var kind: Kind
        /// The label's lines.
        var lines: [String]
    }

    /// What an edge says.
    enum Relation: Sendable {
        /// A product or grandfather rule grants a feature.
        case grants
        /// A consumable credits a currency, this much per unit.
        case credits(Int64)
        /// A trial leads to its paid product.
        case trial(days: Int?)
        /// An upgrade stands in for a full-price product.
        case replaces
        /// An upgrade requires a purchase in another app.
        case requires
        /// A subscription has a win-back or promotional offer.
        case offers
        /// An Advanced Commerce SKU of a product grants a feature, or credits a currency this much
        /// per unit.
        case item(sku: String, credits: Int64?)
    }

    struct Edge: Sendable {
        var from: String
        var to: String
        var relation: Relation
    }

    /// A box around nodes: an app, or a group within it.
    struct Cluster: Sendable {
        var id: String
        var title: String
        var nodes: [Node] = []
        var clusters: [Cluster] = []
    }

    var clusters: [Cluster] = []
    var edges: [Edge] = []

    /// The graph of `catalogs`, in their order; an upgrade's required app is linked to its
    /// catalog's products when that catalog is among them.
    public init(_ catalogs: [CompiledCatalog]) {
        var counters: [String: Int] = [:]
        func next(_ prefix: String) -> String {
            counters[prefix, default: 0] += 1
            return prefix + String(counters[prefix]!)
        }
        // Every product's node, by app then id, so upgrades can point into another app.
        var productNodes: [String: [String: String]] = [:]
        var built: [(catalog: CompiledCatalog, nodes: [String])] = []
        for catalog in catalogs {
            var ids: [String] = []
            var byId: [String: String] = [:]
            for product in catalog.products {
                let id = next("n")
                ids.append(id)
                if byId[product.key] == nil { byId[product.key] = id }
            }
            if productNodes[catalog.app] == nil { productNodes[catalog.app] = byId }
            built.append((catalog, ids))
        }
        var externals: [String: String] = [:]
        var externalNodes: [Node] = []
        for (catalog, ids) in built {
            var app = Cluster(id: next("c"), title: "app " + catalog.app)
            var groups: [String: Int] = [:]
            var featureNodes: [String] = []
            for _ in catalog.featureIds { featureNodes.append(next("n")) }
            var currencyNodes: [String: String] = [:]
            for currency in catalog.currencyIds where currencyNodes[currency] == nil { currencyNodes[currency] = next("n") }
            let products = productNodes[catalog.app] ?? [:]
            for (index, product) in catalog.products.enumerated() {
                let node = Node(id: ids[index], kind: product.available ? .product : .retired, lines: Self.lines(product))
                // Subscriptions of a group, and passes of a pass group, in a box of their own.
                if let group = product.group, product.type == .autoRenewableSubscription || product.type == .nonRenewingSubscription {
                    let title = product.type == .autoRenewableSubscription ? "subscription group " + group : "pass group " + group + " (passes stack)"
                    let key = "\(product.type == .autoRenewableSubscription ? "s" : "p"):\(group)"
                    if groups[key] == nil {
                        groups[key] = app.clusters.count
                        app.clusters.append(Cluster(id: next("c"), title: title))
                    }
                    app.clusters[groups[key]!].nodes.append(node)
                } else {
                    app.nodes.append(node)
                }
                for feature in product.grants {
                    if let position = catalog.featureIndex[feature] {
                        edges.append(Edge(from: node.id, to: featureNodes[position], relation: .grants))
                    }
                }
                for item in product.items ?? [] {
                    for feature in item.grants {
                        if let position = catalog.featureIndex[feature] {
                            edges.append(Edge(from: node.id, to: featureNodes[position], relation: .item(sku: item.sku, credits: nil)))
                        }
                    }
                    for credit in item.credits {
                        if let currency = currencyNodes[credit.currency] {
                            edges.append(Edge(from: node.id, to: currency, relation: .item(sku: item.sku, credits: credit.amount)))
                        }
                    }
                }
                for credit in product.credits {
                    if let currency = currencyNodes[credit.currency] {
                        edges.append(Edge(from: node.id, to: currency, relation: .credits(credit.amount)))
                    }
                }
                if let paid = product.trialOf, let target = products[paid] {
                    edges.append(Edge(from: node.id, to: target, relation: .trial(days: product.trialDays)))
                }
                if let upgrade = product.upgrade {
                    if let target = products[upgrade.replaces] { edges.append(Edge(from: node.id, to: target, relation: .replaces)) }
                    // The required purchase: the listed products in that app's catalog when it is
                    // drawn, else a node standing for the other app.
                    let listed = (upgrade.anyOf ?? []).compactMap { productNodes[upgrade.requiresApp]?[$0] }
                    if upgrade.anyOf != nil, listed.count == upgrade.anyOf?.count, !listed.isEmpty {
                        for target in listed { edges.append(Edge(from: node.id, to: target, relation: .requires)) }
                    } else {
                        let what = upgrade.anyOf.map { "a purchase of " + $0.joined(separator: " or ") } ?? "any purchase"
                        let key = upgrade.requiresApp + "\u{0}" + what
                        if externals[key] == nil {
                            let id = next("n")
                            externals[key] = id
                            externalNodes.append(Node(id: id, kind: .external, lines: [upgrade.requiresApp, what]))
                        }
                        edges.append(Edge(from: node.id, to: externals[key]!, relation: .requires))
                    }
                }
                for offer in product.offers {
                    let offerNode = Node(id: next("n"), kind: .offer, lines: Self.lines(offer))
                    if let key = product.group.map({ "s:" + $0 }), let group = groups[key] {
                        app.clusters[group].nodes.append(offerNode)
                    } else {
                        app.nodes.append(offerNode)
                    }
                    edges.append(Edge(from: node.id, to: offerNode.id, relation: .offers))
                }
            }
            // A group's subscriptions by level, the highest service (level 1) first.
            let levels = Dictionary(
                catalog.products.enumerated().map { (ids[$0.offset], $0.element.level ?? Int.max) },
                uniquingKeysWith: { first, _ in first })
            for index in app.clusters.indices {
                let nodes = app.clusters[index].nodes
                app.clusters[index].nodes = nodes.enumerated().sorted {
                    (levels[$0.element.id] ?? Int.max, $0.offset) < (levels[$1.element.id] ?? Int.max, $1.offset)
                }.map(\.element)
            }
            for (index, feature) in catalog.featureIds.enumerated() {
                let description = catalog.featureDescriptions[index]
                app.nodes.append(Node(id: featureNodes[index], kind: .feature, lines: description.isEmpty ? [feature] : [feature, description]))
            }
            for (index, currency) in catalog.currencyIds.enumerated() where currencyNodes[currency] != nil {
                let description = catalog.currencyDescriptions[index]
                app.nodes.append(
                    Node(
                        id: currencyNodes[currency]!, kind: .currency,
                        lines: description.isEmpty ? [currency] : [currency, description]))
                currencyNodes[currency] = nil
            }
            for rule in catalog.grandfatherRules {
                let id = next("n")
                app.nodes.append(Node(id: id, kind: .rule, lines: ["grandfathered: " + rule.id] + rule.condition.phrases(symbols: true)))
                for feature in rule.grants where featureNodes.indices.contains(feature) {
                    edges.append(Edge(from: id, to: featureNodes[feature], relation: .grants))
                }
            }
            clusters.append(app)
        }
        if !externalNodes.isEmpty {
            clusters.append(Cluster(id: next("c"), title: "other apps (no catalog given)", nodes: externalNodes))
        }
    }

    // MARK: Labels

    /// A product's label: its name, id, and what kind of product it is.
    static func lines(_ product: CatalogProduct) -> [String] {
        var kind: String
        switch product.type {
        case .nonConsumable: kind = product.trialDays.map { "\($0)-day trial" } ?? (product.upgrade != nil ? "upgrade" : "non-consumable")
        case .consumable: kind = "consumable"
        case .nonRenewingSubscription: kind = "pass" + (product.duration.map { " " + $0.description } ?? "")
        case .autoRenewableSubscription: kind = "auto-renewable" + (product.duration.map { " " + $0.description } ?? "")
        }
        if let level = product.level { kind += ", level \(level)" }
        if product.familyShareable { kind += ", family" }
        if !product.available { kind += ", retired" }
        var lines = [product.name, product.key, kind]
        if let intro = product.introOffer { lines.append("intro: \(intro.mode.rawValue) \(intro.duration)") }
        return lines
    }

    /// What an edge says in words; `nil` for a plain grant.
    static func label(_ relation: Relation) -> String? {
        switch relation {
        case .grants, .offers: nil
        case .credits(let amount): "+\(amount)"
        case .trial: "trial of"
        case .replaces: "replaces"
        case .requires: "requires"
        case .item(let sku, let credits): credits.map { "\(sku) +\($0)" } ?? sku
        }
    }
}
