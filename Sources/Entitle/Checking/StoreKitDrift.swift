import Foundation

/// Where a catalog and the store disagree: a catalog compared with an Xcode StoreKit
/// configuration, each difference a diagnostic (code `store-drift`) located in the catalog.
///
/// Compared: products on one side only, and for products on both sides the type, family sharing,
/// and for auto-renewables the duration, subscription group (its name or its id in the file),
/// level (when the catalog gives levels), introductory offer (mode and duration), and promotional
/// and win-back offers: an offer on one side only (by id, within the product), and for offers on
/// both sides the type, mode, duration and, for pay-as-you-go, the number of periods (1 when not
/// given). Non-renewing subscriptions carry no duration in a `.storekit` file, prices are not in
/// a catalog, and a file states an offer's eligibility seldom and its dates never, so none of
/// these is compared.
public enum StoreKitDrift {
    /// The differences between the catalog of a portfolio that shares the most product ids with the
    /// configuration and the configuration (the first such catalog on a tie). When no catalog
    /// shares a product, one diagnostic says so.
    ///
    /// - Parameters:
    ///   - sources: the portfolio's catalogs; differences are located in the one compared.
    ///   - configuration: the products read from the `.storekit` file.
    ///   - severity: `.warning` to report, `.error` to fail CI on any drift.
    public static func diagnostics(
        _ sources: [CatalogSource], configuration: StoreKitConfiguration, severity: Diagnostic.Severity = .warning
    ) -> [Diagnostic] {
        let ids = Set(configuration.products.map(\.id))
        var best: (source: CatalogSource, shared: Int)?
        for source in sources {
            guard let catalog = Portfolio.compile([source]).compiledCatalogs.first else { continue }
            let shared = catalog.products.filter { $0.store == .appStore && ids.contains($0.id) }.count
            if shared > (best?.shared ?? 0) { best = (source, shared) }
        }
        guard let best else {
            return [
                Diagnostic(
                    severity: severity, code: .storeDrift,
                    message: "no catalog shares a product id with \(configuration.name)",
                    location: SourceLocation(file: configuration.name, line: 1, column: 1),
                    help: "`entitle import \(configuration.name)` shows its products as a catalog")
            ]
        }
        return diagnostics(best.source, configuration: configuration, severity: severity)
    }

    /// The differences between one catalog and the configuration, located in the catalog. A
    /// catalog that does not compile gives none (its own diagnostics say why).
    public static func diagnostics(
        _ source: CatalogSource, configuration: StoreKitConfiguration, severity: Diagnostic.Severity = .warning
    ) -> [Diagnostic] {
        guard let catalog = Portfolio.compile([source]).compiledCatalogs.first,
            let document = try? JSONDocument.parse(source.data, limits: .catalog),
            case .object(let root) = document.root.value
        else { return [] }
        let lines = LineTable(source.data)
        let store = configuration.name.split(separator: "/").last.map(String.init) ?? configuration.name
        var diagnostics: [Diagnostic] = []
        func report(_ offset: Int, _ path: String, _ message: String, help: String? = nil) {
            let (line, column) = lines.location(of: offset)
            diagnostics.append(
                Diagnostic(
                    severity: severity, code: .storeDrift, message: message,
                    location: SourceLocation(file: source.name, line: line, column: column),
                    path: path, help: help))
        }
        // Where each product and each of its members is, by product id.
        let productsMember = root.first { $0.key == CatalogKey.products.name }
        var located: [String: (index: Int, offset: Int, members: [String: Int], offers: [JSONNode])] = [:]
        if case .array(let elements)? = productsMember?.value.value {
            for (index, element) in elements.enumerated() {
                guard case .object(let members) = element.value,
                    let idNode = members.first(where: { $0.key == CatalogKey.id.name })?.value, case .string(let id) = idNode.value,
                    located[id] == nil
                else { continue }
                // Another store's product may share an App Store product's id.
                if case .string(let store)? = members.first(where: { $0.key == CatalogKey.store.name })?.value.value,
                    store != Store.appStore.rawValue
                {
                    continue
                }
                var offers: [JSONNode] = []
                if case .array(let list)? = members.first(where: { $0.key == CatalogKey.offers.name })?.value.value { offers = list }
                located[id] = (
                    index, idNode.offset, Dictionary(members.map { ($0.key, $0.value.offset) }, uniquingKeysWith: { a, _ in a }),
                    offers
                )
            }
        }
        let storeProducts = Dictionary(configuration.products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // A `.storekit` file holds App Store products only: other stores' are not compared.
        for product in catalog.products where product.store == .appStore {
            guard let place = located[product.id] else { continue }
            func at(_ key: CatalogKey) -> Int { place.members[key.name] ?? place.offset }
            let path = "\(CatalogKey.products.name)[\(place.index)]"
            guard let other = storeProducts[product.id] else {
                report(
                    place.offset, Self.memberPath(path, .id), "product `\(product.id)` is not in \(store)",
                    help: "add it in App Store Connect and \(store), or remove it here")
                continue
            }
            if other.type != product.type {
                report(at(.type), Self.memberPath(path, .type), "type `\(product.type.rawValue)` here, `\(other.type.rawValue)` in \(store)")
                continue
            }
            if other.familyShareable != product.familyShareable {
                report(
                    at(.familyShareable), Self.memberPath(path, .familyShareable),
                    "familyShareable \(product.familyShareable) here, \(other.familyShareable) in \(store)")
            }
            guard product.type == .autoRenewableSubscription else { continue }
            if let duration = other.duration, product.duration.map({ !same($0, duration) }) ?? true {
                report(
                    at(.duration), Self.memberPath(path, .duration),
                    "duration \(product.duration?.description ?? "not given") here, \(duration) in \(store)")
            }
            // A catalog may name the group by its name or by its id in the file.
            if let group = other.group, product.group != group, product.group != other.groupId {
                report(at(.group), Self.memberPath(path, .group), "group `\(product.group ?? "")` here, `\(group)` in \(store)")
            }
            if let level = product.level, let storeLevel = other.level, level != storeLevel {
                report(at(.level), Self.memberPath(path, .level), "level \(level) here, \(storeLevel) in \(store)")
            }
            switch (product.introOffer, other.introOffer) {
            case (nil, nil): break
            case (let offer?, nil):
                report(
                    at(.introOffer), Self.memberPath(path, .introOffer),
                    "an intro offer (\(offer.mode.rawValue) \(offer.duration)) here, none in \(store)")
            case (nil, let offer?):
                report(place.offset, path, "no intro offer here, \(offer.mode.rawValue) \(offer.duration) in \(store)")
            case (let offer?, let storeOffer?):
                if offer.mode != storeOffer.mode || !same(offer.duration, storeOffer.duration) {
                    report(
                        at(.introOffer), Self.memberPath(path, .introOffer),
                        "intro offer \(offer.mode.rawValue) \(offer.duration) here, \(storeOffer.mode.rawValue) \(storeOffer.duration) in \(store)")
                }
            }
            compareOffers(product, other, offers: place.offers, at: at(.offers), path: path, store: store, report: report)
        }
        let defined = Set(catalog.products.filter { $0.store == .appStore }.map(\.id))
        for product in configuration.products where !defined.contains(product.id) {
            report(
                productsMember?.keyOffset ?? 0, CatalogKey.products.name,
                "\(store) has product `\(Diagnostic.excerpt(product.id))` (\(product.type.rawValue), \"\(Diagnostic.excerpt(product.name))\"), which the catalog does not define",
                help: "`entitle import \(store)` shows it as a catalog product")
        }
        // A file shows its first diagnostics, as the checker does, and counts the rest.
        let limit = CatalogLimits.maxDiagnosticsPerFile
        if diagnostics.count > limit {
            let more = diagnostics.count - limit
            diagnostics.removeLast(more)
            diagnostics.append(
                Diagnostic(
                    severity: severity, code: .limitExceeded,
                    message: "\(more) more difference\(more == 1 ? "" : "s") from \(store) not shown",
                    location: SourceLocation(file: source.name, line: 1, column: 1),
                    help: "a file shows its first \(limit) diagnostics; fix those and check again"))
        }
        return diagnostics
    }

    private static func memberPath(_ path: String, _ key: CatalogKey) -> String { CatalogChecker.path(path, key: key.name) }

    /// The differences between a product's promotional and win-back offers here and in the file,
    /// by offer id: offers on one side only, and a different type, mode, duration or number of periods.
    ///
    /// - Parameters:
    ///   - nodes: the product's `offers` array in the catalog, to locate each offer and its members.
    ///   - offersAt: where the product's `offers` member is (else the product), for offers only the file has.
    private static func compareOffers(
        _ product: CatalogProduct, _ other: StoreKitConfiguration.Product, offers nodes: [JSONNode], at offersAt: Int,
        path: String, store: String, report: (Int, String, String, String?) -> Void
    ) {
        let storeOffers = Dictionary(other.offers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var defined: Set<String> = []
        for offer in product.offers {
            defined.insert(offer.id)
            // The offer's object in the catalog, found by its id; the product when it cannot be.
            let position = nodes.firstIndex { node in
                if case .string(let id)? = node[CatalogKey.id.name]?.value { return id == offer.id }
                return false
            }
            let offerPath = position.map { "\(memberPath(path, .offers))[\($0)]" } ?? memberPath(path, .offers)
            let node = position.map { nodes[$0] }
            func at(_ key: CatalogKey) -> Int { node?[key.name]?.offset ?? node?.offset ?? offersAt }
            func keyPath(_ key: CatalogKey) -> String { position == nil ? offerPath : memberPath(offerPath, key) }
            let name = "offer `\(Diagnostic.excerpt(offer.id))`"
            guard let storeOffer = storeOffers[offer.id] else {
                report(at(.id), keyPath(.id), "\(name) is not in \(store)", "add it in App Store Connect and \(store), or remove it here")
                continue
            }
            if offer.type != storeOffer.type {
                report(at(.type), keyPath(.type), "\(name): type `\(offer.type.rawValue)` here, `\(storeOffer.type.rawValue)` in \(store)", nil)
            }
            if offer.mode != storeOffer.mode {
                report(at(.mode), keyPath(.mode), "\(name): mode `\(offer.mode.rawValue)` here, `\(storeOffer.mode.rawValue)` in \(store)", nil)
            }
            if !same(offer.duration, storeOffer.duration) {
                report(at(.duration), keyPath(.duration), "\(name): duration \(offer.duration) here, \(storeOffer.duration) in \(store)", nil)
            }
            // Periods count for pay-as-you-go only; left out, an offer has one. A changed mode is already said.
            if offer.mode == .payAsYouGo, storeOffer.mode == .payAsYouGo, (offer.periods ?? 1) != (storeOffer.periods ?? 1) {
                let spot = node?[CatalogKey.periods.name] != nil ? (at(.periods), keyPath(.periods)) : (at(.duration), keyPath(.duration))
                report(spot.0, spot.1, "\(name): \(offer.periods ?? 1) periods here, \(storeOffer.periods ?? 1) in \(store)", nil)
            }
        }
        for offer in other.offers where !defined.contains(offer.id) {
            report(
                offersAt, memberPath(path, .offers),
                "\(store) has \(offer.type.rawValue) offer `\(Diagnostic.excerpt(offer.id))` (\(offer.mode.rawValue) \(offer.duration)"
                    + (offer.periods.map { " x \($0)" } ?? "") + "), which the catalog does not define for `\(Diagnostic.excerpt(product.id))`",
                "`entitle import \(store)` shows it as a catalog offer")
        }
    }

    /// Whether two durations are the same length (`P1Y` and `P12M`, `P1W` and `P7D`).
    private static func same(_ a: ISODuration, _ b: ISODuration) -> Bool {
        a.totalMonths == b.totalMonths && a.totalDays == b.totalDays && a.timeMilliseconds == b.timeMilliseconds
    }
}
