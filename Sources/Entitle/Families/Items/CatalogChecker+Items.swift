/// Advanced Commerce items: `items` maps each SKU of a product to what a purchase of it grants
/// (`grants`) or, for a consumable, credits (`credits`). A product with `items` gives only through
/// them, so it may not also state its own `grants` or `credits`; it is sold on the App Store; a
/// SKU belongs to one product of the catalog.
extension CatalogChecker {
    /// Reads `items` into the product (`itemsBroken` when some of it could not be read).
    mutating func items(_ node: JSONNode, path: String, into product: inout ProductDefinition) {
        guard let entries = entries(node, expected: "an object of SKUs to items", path: path) else {
            product.itemsBroken = true
            return
        }
        var items: [ItemDefinition] = []
        for (member, memberPath) in entries {
            let sku = member.key
            guard !sku.isEmpty, sku.utf8.count <= CatalogLimits.maxIdentifierBytes,
                !sku.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 })
            else {
                report(
                    sku.utf8.count > CatalogLimits.maxIdentifierBytes ? .limitExceeded : .badValue,
                    "`\(Diagnostic.excerpt(sku))` is not a SKU", at: member.keyOffset, path: memberPath,
                    help: "a SKU is 1 to \(CatalogLimits.maxIdentifierBytes) bytes without spaces, as the Advanced Commerce request names it")
                product.itemsBroken = true
                continue
            }
            var item = ItemDefinition(sku: Located(value: sku, offset: member.keyOffset, path: memberPath))
            guard let keys = object(member.value, .item, path: memberPath) else {
                product.itemsBroken = true
                continue
            }
            item.grantsBroken = misspeltKeys.contains(CatalogKey.grants.name)
            item.creditsBroken = misspeltKeys.contains(CatalogKey.credits.name)
            if let grants = keys[CatalogKey.grants.name] {
                grantList(grants.value, path: Self.path(memberPath, key: CatalogKey.grants.name), into: &item)
                if product.type == .consumable {
                    report(
                        .itemRule, "an item of a consumable credits, it does not grant", at: grants.keyOffset,
                        path: Self.path(memberPath, key: CatalogKey.grants.name), help: "give the SKU `credits` instead")
                }
            }
            if let credits = keys[CatalogKey.credits.name] {
                self.credits(credits.value, path: Self.path(memberPath, key: CatalogKey.credits.name), into: &item)
                if let type = product.type, type != .consumable {
                    report(
                        .itemRule, "an item of \(type.phrase) grants, it does not credit", at: credits.keyOffset,
                        path: Self.path(memberPath, key: CatalogKey.credits.name), help: "only a consumable's items credit currencies")
                }
            }
            if item.grants.isEmpty, item.creditedCurrencies.isEmpty, !item.grantsBroken, !item.creditsBroken {
                warn(
                    .grantsNothing, "item `\(Diagnostic.excerpt(sku))` of product \(product.label) grants nothing", at: member.keyOffset,
                    path: memberPath, help: product.type == .consumable ? "add `credits`" : "add `grants`")
            }
            items.append(item)
        }
        if entries.isEmpty {
            report(.badValue, "`items` declares no SKU", at: node.offset, path: path, help: "name each SKU with what it grants, or remove `items`")
            product.itemsBroken = true
        } else if items.count > CatalogLimits.maxItemsPerProduct {
            report(
                .limitExceeded, "more than \(CatalogLimits.maxItemsPerProduct) SKUs in one product", at: node.offset, path: path)
            product.itemsBroken = true
        }
        product.items = items
    }

    /// The rules across products: a SKU declared by two products; `items` beside the product's
    /// own `grants` or `credits`; `items` on a product another store sells.
    mutating func checkItems(_ catalog: CatalogDefinition) {
        var owners: [String: (product: Int, sku: Located<String>)] = [:]
        for (index, product) in catalog.products.enumerated() {
            guard let items = product.items else { continue }
            for key in [CatalogKey.grants, CatalogKey.credits] {
                guard let offset = product.keyOffsets[key.name] else { continue }
                report(
                    .itemRule, "product \(product.label) has `items`, so it gives only through them, not its own `\(key.name)`", at: offset,
                    path: Self.path(product.path, key: key.name), help: "move `\(key.name)` into each SKU under `items`")
            }
            if product.store != .appStore, let offset = product.keyOffsets[CatalogKey.items.name] {
                report(
                    .itemRule, "`items` are Advanced Commerce SKUs, sold only on the App Store", at: offset,
                    path: Self.path(product.path, key: CatalogKey.items.name), help: "remove `items`, or sell the product on the App Store")
            }
            for item in items {
                if let first = owners[item.sku.value], first.product != index {
                    report(
                        .itemRule, "SKU `\(Diagnostic.excerpt(item.sku.value))` is declared by two products", at: item.sku.offset,
                        path: item.sku.path,
                        help: "it is already declared at \(first.sku.path) (line \(line(of: first.sku.offset))); a SKU gives one thing")
                } else if owners[item.sku.value] == nil {
                    owners[item.sku.value] = (index, item.sku)
                }
            }
        }
    }
}
