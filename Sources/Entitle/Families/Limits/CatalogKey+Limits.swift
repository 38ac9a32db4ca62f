/// The number limits family's keys: the catalog's `limits` declarations and their keys, and a
/// product's `limits` values.
extension CatalogKey {
    /// Declared number limits, and the values a product gives them.
    package static let limits = CatalogKey(
        "limits",
        place(
            .catalog, .keyedObjects(.limit, what: "limit", max: CatalogLimits.maxDeclarations),
            "limit id to its declaration: numbers an app enforces (projects, seats), set by the products that cover"),
        place(
            .product, .limitValues,
            "declared limit id to the value the product gives while it covers: a whole number or `\"unlimited\"`",
            types: [.nonConsumable, .nonRenewingSubscription, .autoRenewableSubscription]))
    /// What a limit is, for people.
    package static let description = CatalogKey(
        "description", place(.limit, .text, "what the limit counts, for people", .required))
    /// A limit's value when no product gives one.
    package static let `default` = CatalogKey(
        "default",
        place(
            .limit, .integer(0...CatalogLimits.maxLimitValue, rule: "from 0 to \(CatalogLimits.maxLimitValue)"),
            "the value when no covering product gives one (with `max`, the least value); 0 when left out"))
    /// How the values of several covering products make one.
    package static let combine = CatalogKey(
        "combine",
        place(
            .limit, .choice(LimitCombine.allCases.map(\.rawValue), what: "combination"),
            "`max` (the default): the largest value of the covering products; `sum`: each covering product's value times its quantity, added"
        ))

    /// The keys of a limit declaration, in the order completion, help and the documentation list them.
    static let limitOrder: [CatalogKey] = [comment, description, `default`, combine]
}
