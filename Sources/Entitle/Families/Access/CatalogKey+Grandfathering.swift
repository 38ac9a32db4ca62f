/// The grandfather rules family's keys: the catalog's `grandfathered` rules and their conditions.
extension CatalogKey {
    /// Grandfather rules.
    package static let grandfathered = CatalogKey(
        "grandfathered",
        place(.catalog, .objects(.grandfatherRule, max: nil), "features for customers who bought the app before it turned free"))
    /// A grandfather rule's version condition.
    package static let originalApplicationVersionBefore = CatalogKey(
        "originalApplicationVersionBefore",
        place(.grandfatherRule, .version, "matches receipts whose originalApplicationVersion is lower (dot-separated numbers, missing ones 0)"))
    /// A grandfather rule's date condition.
    package static let originalPurchaseBefore = CatalogKey(
        "originalPurchaseBefore", place(.grandfatherRule, .instant, "matches receipts whose originalPurchaseDate is before this instant"))
    package static let originalPlatform = CatalogKey(
        "originalPlatform",
        place(
            .grandfatherRule, .choices(AppPlatform.allCases.map(\.rawValue), what: "platform"),
            "matches receipts whose app transaction's originalPlatform is one of these (customers who bought the paid Mac app: `[\"macOS\"]`)"))

    /// The keys of a grandfather rule, in the order completion, help and the documentation list them.
    static let grandfatherRuleOrder: [CatalogKey] = [comment, id, grants, originalApplicationVersionBefore, originalPurchaseBefore, originalPlatform]
}
