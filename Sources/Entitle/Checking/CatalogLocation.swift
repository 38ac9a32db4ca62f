/// What a place in a catalog's text is, found from its JSON path through the language
/// (``CatalogKey``): the object it is in, the key of its member, and which entry or element of
/// that member's value it is. The language server reads catalogs that are not JSON yet this way.
package struct CatalogLocation: Sendable, Equatable {
    /// One step of a JSON path.
    package enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// The object the place is in.
    package var object: CatalogObject
    /// The key of the member the place is in; `nil` for the object itself.
    package var key: CatalogKey?
    /// For an entry of a map (a declared feature or currency, a legal text, a credit): its name.
    package var entry: String?
    /// For an element of a list of ids (`grants`, `anyOf`): its position.
    package var element: Int?
    /// The item of a top-level list the place belongs to (the fourth product, the first grandfather rule).
    package var item: Item?

    /// An item of one of the catalog's lists.
    package struct Item: Hashable, Sendable {
        /// The list: the products or the grandfather rules.
        package var list: CatalogKey
        package var index: Int
    }

    /// What the key takes there.
    package var value: CatalogValue? { key?.place(in: object)?.value }

    /// The location of `path`: the member it names (its key and its value), an entry or element
    /// of that member, or the object an index of a list of objects names. `nil` when the path
    /// does not follow the language (an unknown key, an index where a key belongs).
    package static func resolve(_ path: [Component]) -> CatalogLocation? {
        var location = CatalogLocation(object: .catalog)
        var position = 0
        while position < path.count {
            guard case .key(let name) = path[position],
                let key = location.object.keys().first(where: { $0.name == name }),
                let place = key.place(in: location.object)
            else { return nil }
            position += 1
            location.key = key
            guard position < path.count else { return location }
            switch (place.value, path[position]) {
            case (.object(let inner), .key):
                location = CatalogLocation(object: inner, item: location.item)
            case (.objects(let inner, _), .index(let index)):
                let item = location.object == .catalog ? Item(list: key, index: index) : location.item
                location = CatalogLocation(object: inner, item: item)
                position += 1
            case (.keyedObjects(let inner, _, _), .key):
                // A SKU of `items`: the object under it.
                location = CatalogLocation(object: inner, item: location.item)
                position += 1
            case (.features, .index(let index)), (.products, .index(let index)), (.currencyList, .index(let index)):
                guard position + 1 == path.count else { return nil }
                location.element = index
                return location
            case (.declarations, .key(let entry)), (.legalTexts, .key(let entry)), (.credits, .key(let entry)),
                (.limitValues, .key(let entry)):
                guard position + 1 == path.count else { return nil }
                location.entry = entry
                return location
            default:
                return nil
            }
        }
        return location
    }

    /// The object whose members a path's value holds: the object an object-valued member or a
    /// list index names; `nil` for anything else.
    package static func object(at path: [Component]) -> CatalogLocation? {
        if path.isEmpty { return CatalogLocation(object: .catalog) }
        guard let location = resolve(path) else { return nil }
        if location.key == nil { return location }
        guard location.entry == nil, location.element == nil, case .object(let inner)? = location.value else { return nil }
        return CatalogLocation(object: inner, item: location.item)
    }
}
