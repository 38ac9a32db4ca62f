/// The number limits family's compiled part: the declared limits, in catalog order, and per
/// product (by compiled index) the values it gives them.
struct CompiledLimits: Sendable {
    var ids: [String] = []
    var descriptions: [String] = []
    var defaults: [Int64] = []
    var combine: [LimitCombine] = []
    var index: [String: Int] = [:]
    /// Per product: the limits it gives, by limit index, with their values; empty for a catalog
    /// with no limits.
    var values: [[(limit: Int32, value: LimitValue)]] = []
    /// Whether some limit adds its sources' values times their quantity, so evaluation notes the
    /// quantity of each covering transaction.
    var needsQuantity = false

    var isEmpty: Bool { ids.isEmpty }

    init() {}

    /// Compiles checked declarations and each product's values (in compiled product order).
    init(_ declarations: [LimitDefinition], products: [[(id: String, value: LimitValue)]]) {
        guard !declarations.isEmpty else { return }
        ids = declarations.map(\.id.value)
        descriptions = declarations.map(\.description)
        defaults = declarations.map(\.default)
        combine = declarations.map(\.combine)
        for (position, id) in ids.enumerated() { index[id] = position }
        let index = index
        values = products.map { given in given.compactMap { item in index[item.id].map { (Int32($0), item.value) } } }
        needsQuantity = combine.contains(.sum)
    }

    /// The values product `product` gives, by limit index.
    func given(by product: Int) -> [(limit: Int32, value: LimitValue)] {
        values.indices.contains(product) ? values[product] : []
    }
}

extension CompiledCatalog {
    /// Every declared number limit, in catalog order.
    public var limits: [CatalogLimit] { limitRules.ids.compactMap(limit) }

    /// A declared number limit, or `nil` when the catalog does not declare it.
    public func limit(_ id: String) -> CatalogLimit? {
        limitRules.index[id].map { index in
            CatalogLimit(
                id: limitRules.ids[index], description: limitRules.descriptions[index], default: limitRules.defaults[index],
                combine: limitRules.combine[index],
                setBy: compiledProducts.indices.filter { product in limitRules.given(by: product).contains { $0.limit == Int32(index) } }
                    .map { compiledProducts[$0].id })
        }
    }
}
