import Entitle

/// What an editor needs to know of one catalog text: where each feature, currency and product is
/// declared and every place that names one, read from a ``TolerantScan`` so that a catalog being
/// typed (not JSON for the moment) still has its ids.
///
/// Unlike the checker, the index judges nothing: it takes what the text says, for completion,
/// hover, definitions and references.
struct CatalogIndex {
    /// An id where it is written: its text and the byte range of its token (quotes included).
    struct Occurrence {
        var id: String
        var start: Int
        var end: Int
    }

    /// A declared feature or currency and its description.
    struct Declaration {
        var occurrence: Occurrence
        var description: String?
    }

    /// A product's values as written.
    struct Product {
        var index: Int
        var id: Occurrence?
        /// Scalar values by their key's name (`type`, `name`), and those of nested objects by
        /// path (`upgrade.replaces`).
        var values: [String: String] = [:]
        var grants: [Occurrence] = []
        var credits: [(currency: Occurrence, amount: String?)] = []
        /// Other products of the catalog it names (a trial's paid product, what an upgrade replaces).
        var references: [(key: CatalogKey, occurrence: Occurrence)] = []
        var requiredApp: Occurrence?
        var anyOf: [Occurrence] = []

        var type: String? { values[CatalogKey.type.name] }
        /// Whether it stands in for another product of the catalog (a trial, an upgrade) rather
        /// than being sold at full price.
        var namesAnotherProduct: Bool { !references.isEmpty }
    }

    /// A grandfather rule's id and grants.
    struct GrandfatherRule {
        var index: Int
        var id: String?
        var grants: [Occurrence] = []
        var values: [String: String] = [:]

        /// How hover names it: its id, else its place in the catalog's list of rules.
        var name: String { id ?? "\(CatalogKey.grandfathered.name)[\(index)]" }
    }

    let scan: TolerantScan
    private(set) var app: Occurrence?
    private(set) var features: [Declaration] = []
    private(set) var currencies: [Declaration] = []
    /// Declared number limits (`limits.<id>`), with their descriptions.
    private(set) var limits: [Declaration] = []
    /// Default legal text by product type.
    private(set) var legal: [String: String] = [:]
    private(set) var products: [Product] = []
    private(set) var grandfatherRules: [GrandfatherRule] = []

    init(_ bytes: [UInt8], cursor: Int? = nil) {
        self.init(scan: TolerantScan.scan(bytes, cursor: cursor))
    }

    /// Reads every token through the language: what its path leads to decides what it is.
    init(scan: TolerantScan) {
        self.scan = scan
        var products: [Int: Product] = [:]
        var rules: [Int: GrandfatherRule] = [:]
        for token in scan.tokens {
            let occurrence = Occurrence(id: token.text, start: token.start, end: token.end)
            // A limit's id is the key of its declaration object, and its description a key inside.
            let components = token.path.map(\.component)
            if components.first == .key(CatalogKey.limits.name), components.count >= 2, case .key(let id) = components[1],
                id != CatalogKey.comment.name
            {
                if components.count == 2, token.role == .key {
                    limits.append(Declaration(occurrence: occurrence))
                } else if components.count == 3, components[2] == .key(CatalogKey.description.name), token.role == .value, token.isString,
                    let last = limits.indices.last, limits[last].occurrence.id == id
                {
                    limits[last].description = token.text
                }
            }
            guard let location = CatalogLocation.resolve(token.path.map(\.component)), let key = location.key,
                token.text != CatalogKey.comment.name || token.role == .value
            else { continue }
            let isString = token.role == .key || token.isString
            switch (location.value, location.item?.list) {
            case (.declarations(let what)?, _):
                guard let entry = location.entry else { continue }
                var list = what == "feature" ? features : currencies
                if token.role == .key {
                    list.append(Declaration(occurrence: occurrence))
                } else if isString, let last = list.indices.last, list[last].occurrence.id == entry {
                    list[last].description = token.text
                }
                if what == "feature" { features = list } else { currencies = list }
            case (.legalTexts?, _):
                if token.role == .value, isString, let entry = location.entry { legal[entry] = token.text }
            case (.bundleId?, nil):
                if token.role == .value, isString { app = occurrence }
            case (_, let list?) where list == .products:
                let index = location.item!.index
                // Changed in place: a copy out and back would copy the product's arrays on every
                // element, quadratic in a long `grants` list.
                Self.add(token, occurrence, location, key: key, to: &products[index, default: Product(index: index)])
            case (_, let list?) where list == .grandfathered:
                let index = location.item!.index
                if rules[index] == nil { rules[index] = GrandfatherRule(index: index) }
                guard token.role == .value, isString else { continue }
                if location.element != nil {
                    rules[index]!.grants.append(occurrence)
                } else if location.object == .grandfatherRule {
                    rules[index]!.values[key.name] = token.text
                    if key == .id { rules[index]!.id = token.text }
                }
            default:
                break
            }
        }
        self.products = products.keys.sorted().compactMap { products[$0] }
        self.grandfatherRules = rules.keys.sorted().compactMap { rules[$0] }
    }

    private static func add(
        _ token: TolerantScan.Token, _ occurrence: Occurrence, _ location: CatalogLocation, key: CatalogKey, to product: inout Product
    ) {
        switch location.value {
        case .credits?:
            guard let currency = location.entry else { return }
            if token.role == .key {
                product.credits.append((occurrence, nil))
            } else if let last = product.credits.indices.last, product.credits[last].currency.id == currency {
                product.credits[last].amount = token.text
            }
        case .features?:
            if token.role == .value, token.isString, location.element != nil { product.grants.append(occurrence) }
        case .products?:
            if token.role == .value, token.isString, location.element != nil { product.anyOf.append(occurrence) }
        default:
            guard token.role == .value, location.entry == nil, location.element == nil else { return }
            let name = location.object == .product ? key.name : "\(location.object.rawValue).\(key.name)"
            product.values[name] = token.text
            guard token.isString else { return }
            switch location.value {
            case .productId? where location.object == .product: product.id = occurrence
            case .productReference?: product.references.append((key, occurrence))
            case .bundleId?: product.requiredApp = occurrence
            default: break
            }
        }
    }

    /// The ids of the products, in catalog order.
    var productIds: [String] { products.compactMap(\.id?.id) }

    /// The product with an id.
    func product(withId id: String) -> Product? {
        products.first { $0.id?.id == id }
    }

    /// The product whose object holds a path.
    func product(at path: [TolerantScan.PathComponent]) -> Product? {
        guard path.count >= 2, path[0] == .key(CatalogKey.products.name), case .index(let index) = path[1] else { return nil }
        return products.first { $0.index == index }
    }
}

extension TolerantScan.PathComponent {
    /// The step as the language reads paths.
    var component: CatalogLocation.Component {
        switch self {
        case .key(let name): .key(name)
        case .index(let index): .index(index)
        }
    }
}
