import Entitle

/// `textDocument/completion`: what may be written at the cursor, from the catalog language and
/// from the portfolio's ids.
///
/// The context comes from the ``TolerantScan`` of the text (often not JSON while it is typed):
/// whether the cursor is at a key or a value, and at which path. Keys: the catalog's top-level
/// keys, a product's keys for its `type` (every product key when the type is not known yet),
/// the keys of `introOffer`, `upgrade`, `upgrade.requires` and grandfather rules, and declared
/// currencies as keys of `credits`; keys already in the object are left out. Values: product
/// types and intro offer modes, declared features in `grants` (of products and grandfather rules),
/// this catalog's product ids in `trialOf` and `upgrade.replaces`, the required app's products in
/// `anyOf`, the portfolio's other apps in `requires.app`, and `true`/`false` where a flag goes.
enum Completion {
    /// One thing that could be written.
    struct Candidate {
        var label: String
        /// LSP CompletionItemKind: 10 property, 20 enum member, 18 reference, 9 module, 12 value.
        var kind: Int64
        var detail: String?
        /// Written as a JSON string (else as is: `true`).
        var quoted = true
    }

    static func completion(in snapshot: PortfolioSnapshot) -> JSONOutput {
        guard let cursor = snapshot.current.index.scan.cursor else { return list([]) }
        let candidates: [Candidate] = switch cursor.slot {
        case .key: keys(cursor, snapshot)
        case .value: values(cursor, snapshot)
        case .nowhere: []
        }
        let bytes = snapshot.current.positions.bytes
        let afterColon = cursor.replaceStart > 0 && !cursor.inString && bytes[cursor.replaceStart - 1] == UInt8(ascii: ":")
        let range = snapshot.current.range(cursor.replaceStart, cursor.replaceEnd)
        let items = candidates.enumerated().map { order, candidate -> JSONOutput in
            var newText: String
            if cursor.inString {
                newText = escapedContent(candidate.label)
                if !cursor.stringTerminated { newText += cursor.slot == .key ? "\": " : "\"" }
            } else {
                newText = candidate.quoted ? JSONOutput.string(candidate.label).compact() : candidate.label
                if cursor.slot == .key { newText += ": " }
                if afterColon { newText = " " + newText }
            }
            var members: [(String, JSONOutput)] = [("label", .string(candidate.label)), ("kind", .integer(candidate.kind))]
            if let detail = candidate.detail { members.append(("detail", .string(detail))) }
            // Keep the order given (the catalog's), not the client's alphabetical one.
            members.append(("sortText", .string(String(repeating: "0", count: max(0, 5 - String(order).count)) + String(order))))
            members.append(("textEdit", .object([("range", range), ("newText", .string(newText))])))
            return .object(members)
        }
        return list(items)
    }

    private static func list(_ items: [JSONOutput]) -> JSONOutput {
        .object([("isIncomplete", .bool(false)), ("items", .array(items))])
    }

    /// A label as it goes between quotes.
    private static func escapedContent(_ label: String) -> String {
        String(JSONOutput.string(label).compact().dropFirst().dropLast())
    }

    // MARK: Keys

    private static func keys(_ cursor: TolerantScan.Cursor, _ snapshot: PortfolioSnapshot) -> [Candidate] {
        let index = snapshot.current.index
        let path = cursor.container
        var names: [String]
        var kind: Int64 = 10
        var details: [String: String] = [:]
        switch path.count {
        case 0:
            names = CatalogChecker.topLevelKeys
        case 1 where path[0] == .key("legal"):
            names = ["$comment"] + ProductType.allCases.filter(\.isSubscription).map(\.rawValue)
        case 2 where path[0] == .key("products"):
            names = index.product(at: path)?.type.flatMap(ProductType.init(rawValue:))
                .map { CatalogChecker.commonProductKeys + (CatalogChecker.typeProductKeys[$0] ?? []) } ?? CatalogChecker.allProductKeys
        case 2 where path[0] == .key("grandfathered"):
            names = CatalogChecker.grandfatherKeys
        case 3 where path[0] == .key("products") && path[2] == .key("introOffer"):
            names = CatalogChecker.introOfferKeys
        case 3 where path[0] == .key("products") && path[2] == .key("upgrade"):
            names = CatalogChecker.upgradeKeys
        case 3 where path[0] == .key("products") && path[2] == .key("credits"):
            names = index.currencies.map(\.occurrence.id)
            for currency in index.currencies { details[currency.occurrence.id] = currency.description }
            kind = 18
        case 4 where path[0] == .key("products") && path[2] == .key("upgrade") && path[3] == .key("requires"):
            names = CatalogChecker.upgradeRequirementKeys
        default:
            return []
        }
        // Keys already in the object, but not the one being typed.
        let typedStart = typedTokenStart(cursor)
        let present = Set(index.scan.tokens.filter {
            $0.role == .key && $0.start != typedStart && $0.path.count == path.count + 1 && Array($0.path.dropLast()) == path
        }.map(\.text))
        return names.filter { !present.contains($0) }.map { Candidate(label: $0, kind: kind, detail: details[$0]) }
    }

    // MARK: Values

    private static func values(_ cursor: TolerantScan.Cursor, _ snapshot: PortfolioSnapshot) -> [Candidate] {
        let index = snapshot.current.index
        let path = cursor.path
        guard path.count >= 2, case .key(let top) = path[0], case .index = path[1] else { return [] }
        let rest = Array(path.dropFirst(2))
        if top == "grandfathered" {
            guard rest.count == 2, rest[0] == .key("grants") else { return [] }
            return features(index, excluding: listed(in: Array(path.dropLast()), cursor, index))
        }
        guard top == "products", let first = rest.first else { return [] }
        let product = index.product(at: path)
        let ownId = product?.id?.id
        switch (first, rest.count) {
        case (.key("type"), 1):
            return ProductType.allCases.map { Candidate(label: $0.rawValue, kind: 20, detail: nil) }
        case (.key("grants"), 2):
            return features(index, excluding: listed(in: Array(path.dropLast()), cursor, index))
        case (.key("trialOf"), 1):
            return products(index, excluding: Set([ownId].compactMap { $0 }), onlyPaidNonConsumables: true)
        case (.key("available"), 1), (.key("familyShareable"), 1):
            return ["true", "false"].map { Candidate(label: $0, kind: 12, detail: nil, quoted: false) }
        case (.key("introOffer"), 2) where rest[1] == .key("mode"):
            return IntroOfferMode.allCases.map { Candidate(label: $0.rawValue, kind: 20, detail: nil) }
        case (.key("upgrade"), 2) where rest[1] == .key("replaces"):
            return products(index, excluding: Set([ownId].compactMap { $0 }), onlyPaidNonConsumables: true)
        case (.key("upgrade"), 3) where rest[1] == .key("requires") && rest[2] == .key("app"):
            let own = index.app?.id
            return snapshot.apps.filter { $0 != own }.map { Candidate(label: $0, kind: 9, detail: "app of this directory") }
        case (.key("upgrade"), 4) where rest[1] == .key("requires") && rest[2] == .key("anyOf"):
            guard let app = product?.requiredApp?.id, let catalog = snapshot.catalog(forApp: app) else { return [] }
            // A consumable bought once would qualify for good (the checker warns): not offered.
            return products(catalog.index, excluding: listed(in: Array(path.dropLast()), cursor, index), onlyPaidNonConsumables: false)
                .filter { candidate in catalog.index.product(withId: candidate.label)?.type != ProductType.consumable.rawValue }
        default:
            return []
        }
    }

    /// The string values already in the array at `path`, but not the one being typed.
    private static func listed(in path: [TolerantScan.PathComponent], _ cursor: TolerantScan.Cursor, _ index: CatalogIndex) -> Set<String> {
        let typedStart = typedTokenStart(cursor)
        return Set(index.scan.tokens.filter {
            $0.role == .value && $0.isString && $0.start != typedStart && $0.path.count == path.count + 1 && Array($0.path.dropLast()) == path
        }.map(\.text))
    }

    /// Where the token being typed starts (its opening quote, or its first letter for a bare
    /// word); -1 when the cursor is between tokens.
    private static func typedTokenStart(_ cursor: TolerantScan.Cursor) -> Int {
        if cursor.inString { return cursor.replaceStart - 1 }
        return cursor.replaceEnd > cursor.replaceStart ? cursor.replaceStart : -1
    }

    private static func features(_ index: CatalogIndex, excluding: Set<String>) -> [Candidate] {
        index.features.filter { !excluding.contains($0.occurrence.id) }
            .map { Candidate(label: $0.occurrence.id, kind: 18, detail: $0.description) }
    }

    /// Product ids, with their type and name as detail; for `trialOf` and `replaces`, only the
    /// full-price products: non-consumables (or products whose type is not written yet) that are
    /// not at tier 0 and are not themselves trials or upgrades.
    private static func products(_ index: CatalogIndex, excluding: Set<String>, onlyPaidNonConsumables: Bool) -> [Candidate] {
        index.products.compactMap { product in
            guard let id = product.id?.id, !excluding.contains(id) else { return nil }
            if onlyPaidNonConsumables {
                if let type = product.type, type != ProductType.nonConsumable.rawValue { return nil }
                if product.values["priceTier"] == "0" || product.trialOf != nil || product.replaces != nil { return nil }
            }
            let detail = [product.type, product.values["name"]].compactMap { $0 }.joined(separator: ", ")
            return Candidate(label: id, kind: 18, detail: detail.isEmpty ? nil : detail)
        }
    }
}
