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
        var values: [String: String] = [:]
        var grants: [Occurrence] = []
        var credits: [(currency: Occurrence, amount: String?)] = []
        var trialOf: Occurrence?
        var replaces: Occurrence?
        var requiredApp: Occurrence?
        var anyOf: [Occurrence] = []
        var introOffer: [String: String] = [:]

        var type: String? { values["type"] }
    }

    /// A grandfather rule's id and grants.
    struct GrandfatherRule {
        var index: Int
        var id: String?
        var grants: [Occurrence] = []
        var values: [String: String] = [:]
    }

    let scan: TolerantScan
    private(set) var app: Occurrence?
    private(set) var features: [Declaration] = []
    private(set) var currencies: [Declaration] = []
    /// Default legal text by product type.
    private(set) var legal: [String: String] = [:]
    private(set) var products: [Product] = []
    private(set) var grandfathered: [GrandfatherRule] = []

    init(_ bytes: [UInt8], cursor: Int? = nil) {
        self.init(scan: TolerantScan.scan(bytes, cursor: cursor))
    }

    init(scan: TolerantScan) {
        self.scan = scan
        var products: [Int: Product] = [:]
        var rules: [Int: GrandfatherRule] = [:]
        for token in scan.tokens {
            let occurrence = Occurrence(id: token.text, start: token.start, end: token.end)
            let path = token.path
            guard case .key(let top)? = path.first else { continue }
            switch (top, token.role) {
            case ("app", .value) where path.count == 1 && token.isString:
                app = occurrence
            case ("features", .key) where path.count == 2 && token.text != "$comment":
                features.append(Declaration(occurrence: occurrence))
            case ("features", .value) where path.count == 2 && token.isString:
                if case .key(let id) = path[1], let last = features.indices.last, features[last].occurrence.id == id {
                    features[last].description = token.text
                }
            case ("currencies", .key) where path.count == 2 && token.text != "$comment":
                currencies.append(Declaration(occurrence: occurrence))
            case ("currencies", .value) where path.count == 2 && token.isString:
                if case .key(let id) = path[1], let last = currencies.indices.last, currencies[last].occurrence.id == id {
                    currencies[last].description = token.text
                }
            case ("legal", .value) where path.count == 2 && token.isString:
                if case .key(let type) = path[1] { legal[type] = token.text }
            case ("products", _):
                guard path.count >= 3, case .index(let index) = path[1], case .key(let key) = path[2] else { continue }
                // Changed in place: a copy out and back would copy the product's arrays on every
                // element, quadratic in a long `grants` list.
                Self.add(token, occurrence, key: key, rest: path.dropFirst(3), to: &products[index, default: Product(index: index)])
            case ("grandfathered", _):
                guard path.count >= 3, case .index(let index) = path[1], case .key(let key) = path[2] else { continue }
                if rules[index] == nil { rules[index] = GrandfatherRule(index: index) }
                if token.role == .value, token.isString {
                    if key == "grants", path.count == 4 {
                        rules[index]!.grants.append(occurrence)
                    } else if path.count == 3 {
                        rules[index]!.values[key] = token.text
                        if key == "id" { rules[index]!.id = token.text }
                    }
                }
            default:
                break
            }
        }
        self.products = products.keys.sorted().compactMap { products[$0] }
        self.grandfathered = rules.keys.sorted().compactMap { rules[$0] }
    }

    private static func add(_ token: TolerantScan.Token, _ occurrence: Occurrence, key: String,
                            rest: ArraySlice<TolerantScan.PathComponent>, to product: inout Product) {
        if key == "credits", rest.count == 1, token.role == .key, token.text != "$comment" {
            product.credits.append((occurrence, nil))
            return
        }
        guard token.role == .value else { return }
        switch key {
        case "credits" where rest.count == 1:
            if case .key(let currency)? = rest.first, let last = product.credits.indices.last,
               product.credits[last].currency.id == currency {
                product.credits[last].amount = token.text
            }
        case "grants" where rest.count == 1 && token.isString:
            product.grants.append(occurrence)
        case "introOffer" where rest.count == 1:
            if case .key(let name)? = rest.first { product.introOffer[name] = token.text }
        case "upgrade" where rest.count >= 1:
            let steps = Array(rest)
            guard token.isString else { return }
            if steps == [.key("replaces")] {
                product.replaces = occurrence
            } else if steps == [.key("requires"), .key("app")] {
                product.requiredApp = occurrence
            } else if steps.count == 3, steps[0] == .key("requires"), steps[1] == .key("anyOf"), case .index = steps[2] {
                product.anyOf.append(occurrence)
            }
        default:
            guard rest.isEmpty else { return }
            product.values[key] = token.text
            if key == "id", token.isString { product.id = occurrence }
            if key == "trialOf", token.isString { product.trialOf = occurrence }
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
        guard path.count >= 2, path[0] == .key("products"), case .index(let index) = path[1] else { return nil }
        return products.first { $0.index == index }
    }
}
