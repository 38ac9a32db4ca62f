/// The key reference of the documentation (`CatalogLanguage.md`), generated from the language's
/// declarations (``CatalogKey``) so that it cannot drift from what the checker accepts: one table
/// per object, each key with the value it takes, whether it is needed and its help.
///
/// The article holds it between two markers; `ENTITLE_RECORD=1 swift test` rewrites it there.
extension CatalogKey {
    /// The tables, in Markdown.
    package static var documentation: String {
        var text = ""
        for object in CatalogObject.allCases {
            text += "### \(heading(object))\n\n| key | value | needed | meaning |\n|---|---|---|---|\n"
            for key in object.keys() {
                guard let place = key.place(in: object) else { continue }
                let cells = ["`\(key.name)`", place.value.summary, need(place), meaning(place)]
                text += "| " + cells.map(escaped).joined(separator: " | ") + " |\n"
            }
            text += "\n"
        }
        return text
    }

    private static func heading(_ object: CatalogObject) -> String {
        switch object {
        case .catalog: "The catalog"
        case .product: "A product (`\(products)[]`)"
        case .introductoryOffer: "An introductory offer (`\(introOffer)`)"
        case .upgrade: "Upgrade pricing (`\(upgrade)`)"
        case .upgradeRequirement: "What an upgrade requires (`\(upgrade).\(requires)`)"
        case .grandfatherRule: "A grandfather rule (`\(grandfathered)[]`)"
        case .subscriptionOffer: "A win-back or promotional offer (`\(offers)[]`)"
        case .stores: "The stores besides the App Store (`\(stores)`)"
        case .storeSettings: "One store's settings (`\(stores).stripe`, `\(stores).external`)"
        case .refundThresholds: "Refund thresholds (`\(CatalogKey.refundPreference)` as an object)"
        case .retentionRule: "A retention rule (`\(CatalogKey.retention)[]`)"
        case .item: "An Advanced Commerce item (`\(CatalogKey.items).<SKU>`)"
        case .limit: "A number limit (`\(CatalogKey.limits).<id>`)"
        case .allowance: "A product's allowance (`\(CatalogKey.allowances)[]`)"
        case .freeAllowance: "A free allowance (the catalog's `\(CatalogKey.allowances)[]`)"
        }
    }

    private static func need(_ place: Place) -> String {
        switch place.requirement {
        case .required: "required"
        case .optional: "optional"
        case .requiredFor(let types, _): "required for " + types.map(\.rawValue).joined(separator: ", ")
        }
    }

    private static func meaning(_ place: Place) -> String {
        guard !place.types.isEmpty, place.types.count < ProductType.allCases.count else { return place.help }
        return place.help + " (" + place.types.map(\.rawValue).joined(separator: ", ") + ")"
    }

    /// A table cell: `|` and line breaks would end it.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}

extension CatalogValue {
    /// The value in a few words, for the documentation.
    package var summary: String {
        switch self {
        case .comment, .schemaReference: "string"
        case .text: "non-empty string"
        case .bundleId: "bundle id"
        case .productId: "id: letters, digits, `.`, `_`, `-` (Play subscriptions: `<product>:<basePlan>`)"
        case .productReference: "a product id of the catalog"
        case .name: "non-empty name"
        case .productType: ProductType.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
        case .choice(let values, _): values.map { "`\($0)`" }.joined(separator: ", ")
        case .integer(let range, _):
            range.upperBound == Int64.max ? "integer ≥ \(range.lowerBound)" : "integer \(range.lowerBound)–\(range.upperBound)"
        case .flag(let value): value.map { "`true` or `false` (default `\($0)`)" } ?? "`true` or `false`"
        case .duration: "ISO 8601 duration (`P1M`, `P2W`, `PT12H`)"
        case .instant: "RFC 3339 instant, or a date alone (midnight UTC)"
        case .url: "`https://` URL"
        case .storefronts: "non-empty list of ISO 3166-1 alpha-3 codes (`USA`)"
        case .version: "version (`2.0`)"
        case .features: "list of declared feature ids"
        case .products: "non-empty list of product ids"
        case .declarations(let what): "object: \(what) id → description"
        case .legalTexts: "object: product type → legal text"
        case .credits: "object: currency id → amount 1–\(CatalogLimits.maxCredit)"
        case .limitValues: "object: limit id → 0–\(CatalogLimits.maxLimitValue) or `\"unlimited\"`"
        case .currencyReference: "declared currency id"
        case .currencyList: "list of declared currency ids"
        case .durationOrChoice(let values, _): "ISO 8601 duration `PT1H`–`P100Y`, or " + values.map { "`\($0)`" }.joined(separator: ", ")
        case .object: "object (below)"
        case .choices(let values, _): "non-empty list of " + values.map { "`\($0)`" }.joined(separator: ", ")
        case .languageTags: "non-empty list of language tags (`de`, `en-US`)"
        case .choiceOrObject(let values, _, _): values.map { "`\($0)`" }.joined(separator: ", ") + ", or an object (below)"
        case .objects(_, let max): "list of objects (below)" + (max.map { ", at most \($0)" } ?? "")
        case .keyedObjects(_, let what, let max): "object: \(what) → object (below), 1–\(max) of them"
        }
    }
}
