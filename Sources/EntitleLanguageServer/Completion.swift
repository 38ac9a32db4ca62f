import Entitle

/// `textDocument/completion`: what may be written at the cursor, from the catalog language and
/// from the portfolio's ids.
///
/// The context comes from the ``TolerantScan`` of the text (often not JSON while it is typed):
/// whether the cursor is at a key or a value, and at which path, which the language
/// (``CatalogLocation``) turns into an object and a key. Keys: the object's keys (a product's for
/// its `type`, every product key before the type is written), with their help; the subscription
/// types in the catalog's default legal texts; declared currencies in a consumable's credits.
/// Keys already in the object are left out. Values: the choices a key declares (product types,
/// offer modes, `true`/`false`), declared features in lists of features, this catalog's
/// full-price products where a key names another product, the required app's products in a list
/// of its products, and the portfolio's other apps in an upgrade's required app.
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
        let candidates: [Candidate] =
            switch cursor.slot {
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
        guard let location = CatalogLocation.object(at: path.map(\.component)) ?? CatalogLocation.resolve(path.map(\.component))
        else { return [] }
        var candidates: [Candidate]
        switch location.value {
        case nil:
            let type = location.object == .product ? index.product(at: path)?.type.flatMap(ProductType.init(rawValue:)) : nil
            candidates = location.object.keys(for: type).map { key in
                Candidate(label: key.name, kind: 10, detail: key.place(in: location.object)?.help)
            }
        case .legalTexts?:
            candidates =
                [Candidate(label: CatalogKey.comment.name, kind: 10, detail: nil)]
                + ProductType.allCases.filter(\.isSubscription).map { Candidate(label: $0.rawValue, kind: 10, detail: nil) }
        case .credits?:
            candidates = index.currencies.map { Candidate(label: $0.occurrence.id, kind: 18, detail: $0.description) }
        case .limitValues?:
            candidates = index.limits.map { Candidate(label: $0.occurrence.id, kind: 18, detail: $0.description) }
        default:
            return []
        }
        // Keys already in the object, but not the one being typed.
        let typedStart = typedTokenStart(cursor)
        let present = Set(
            index.scan.tokens.filter {
                $0.role == .key && $0.start != typedStart && $0.path.count == path.count + 1 && Array($0.path.dropLast()) == path
            }.map(\.text))
        return candidates.filter { !present.contains($0.label) }
    }

    // MARK: Values

    private static func values(_ cursor: TolerantScan.Cursor, _ snapshot: PortfolioSnapshot) -> [Candidate] {
        let index = snapshot.current.index
        let path = cursor.path
        guard let location = CatalogLocation.resolve(path.map(\.component)), let value = location.value, location.entry == nil
        else { return [] }
        let product = index.product(at: path)
        let ownId = product?.id?.id
        if let choices = value.choices {
            if case .flag = value { return choices.map { Candidate(label: $0, kind: 12, detail: nil, quoted: false) } }
            return choices.map { Candidate(label: $0, kind: 20, detail: nil) }
        }
        switch value {
        case .features where location.element != nil:
            return features(index, excluding: listed(in: Array(path.dropLast()), cursor, index))
        case .currencyReference:
            return index.currencies.map { Candidate(label: $0.occurrence.id, kind: 18, detail: $0.description) }
        case .currencyList where location.element != nil:
            let written = listed(in: Array(path.dropLast()), cursor, index)
            return index.currencies.filter { !written.contains($0.occurrence.id) }
                .map { Candidate(label: $0.occurrence.id, kind: 18, detail: $0.description) }
        case .productReference:
            return products(index, excluding: Set([ownId].compactMap { $0 }), onlyPaidNonConsumables: true)
        case .bundleId where location.object == .upgradeRequirement:
            let own = index.app?.id
            return snapshot.apps.filter { $0 != own }.map { Candidate(label: $0, kind: 9, detail: "app of this directory") }
        case .products where location.element != nil:
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
        return Set(
            index.scan.tokens.filter {
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

    /// Product ids, with their type and name as detail; for a trial's paid product and `replaces`, only the
    /// full-price products: non-consumables (or products whose type is not written yet) that are
    /// not at tier 0 and are not themselves trials or upgrades.
    private static func products(_ index: CatalogIndex, excluding: Set<String>, onlyPaidNonConsumables: Bool) -> [Candidate] {
        index.products.compactMap { product in
            guard let id = product.id?.id, !excluding.contains(id) else { return nil }
            if onlyPaidNonConsumables {
                if let type = product.type, type != ProductType.nonConsumable.rawValue { return nil }
                if product.values[CatalogKey.priceTier.name] == "0" || product.namesAnotherProduct { return nil }
            }
            let detail = [product.type, product.values[CatalogKey.name.name]].compactMap { $0 }.joined(separator: ", ")
            return Candidate(label: id, kind: 18, detail: detail.isEmpty ? nil : detail)
        }
    }
}
