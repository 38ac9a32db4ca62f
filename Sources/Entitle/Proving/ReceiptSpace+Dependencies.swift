/// Which elements each part of the answer reads, and so which combinations of elements the search
/// must try: the argument that searching related elements only loses nothing.
///
/// Evaluation decides each part of the answer from a few of a customer's elements (the rules are
/// in `EvaluationRules.md`), under either catalog:
///
/// - a feature: the transactions of the products that grant it, and of the products of their
///   subscription groups (a chain may cross products of a group: renewals, upgrades, crossgrades)
///   and pass groups (passes stack); grants of it; the receipt facts, when a grandfather rule grants it;
/// - a balance: the transactions of the consumables that credit its currency;
/// - a product's state: its transactions and those of its subscription group or pass group;
/// - a product's offer: its transactions and its subscription group's (subscribed, billing retry,
///   intro offer used, the level change); for a non-consumable, those of the product it is a trial
///   or upgrade of and of that product's upgrades, the receipts of the apps those upgrades require,
///   and the receipt facts (grandfathering makes it owned);
/// - a win-back or promotional offer: the transactions and renewal entries of its group.
///
/// Call the elements a part `x` reads `D(x)`. The answer for `x` to a customer `C` is the answer
/// for `x` to the customer who has only what `C` has of `D(x)`: taking away elements outside
/// `D(x)` changes nothing `x` reads. So if some customer of up to N elements tells the catalogs
/// apart on `x`, so does one of up to N elements all in `D(x)`, and searching every combination
/// of up to N elements within each `D(x)` finds every difference that any combination of up to N
/// elements shows. The same holds for what a review looks for, each read from the parts it
/// concerns. So a customer is compared only on the parts whose `D` holds all its elements (and,
/// when it has receipt facts, that read them): any other part answers it as the customer with
/// only what it has of that part's `D`, which is searched itself.
extension ReceiptSpace {
    /// A part of the answer and the elements it reads.
    struct SpaceItem: Sendable {
        var item: ProofItem
        /// Indices of the elements it reads, ascending.
        var elements: [Int]
        /// Whether it reads the receipt facts (grandfather rules).
        var readsFacts: Bool
        /// The instants of the grandfather rules it reads that compare a receipt's original
        /// purchase date with an instant: where customers are placed against them matters to
        /// customers with such a date.
        var ruleDates: [Int64] = []
        /// The instants an offer it reads starts or stops running: where customers are placed
        /// against them matters to every customer.
        var windows: [Int64] = []

        /// Whether it reads an absolute instant of a catalog, so where in time customers are
        /// placed matters.
        var readsThresholds: Bool { !ruleDates.isEmpty || !windows.isEmpty }

        /// The absolute instants it reads for a customer with, or without, an original purchase date.
        func thresholds(purchaseDate: Bool) -> [Int64] { windows + (purchaseDate ? ruleDates : []) }
        /// Whether everything it reads is the same in both catalogs of a comparison (so it is the
        /// same for every customer, and is not searched).
        var unchanged = false
    }

    mutating func buildItems(offersReadTheirGrants: Bool, skipsUnchanged: Bool) {
        var featureReads: [String: (elements: Set<Int>, facts: Bool, dates: [Int64])] = [:]
        func mates(_ id: String) -> Set<Int> {
            var result: Set<Int> = [element(.product(id))]
            for side in sides(of: id) {
                let product = side.product
                for other in side.catalog.compiledProducts
                where (product.group >= 0 && other.group == product.group)
                    || (product.passGroup >= 0 && other.passGroup == product.passGroup)
                {
                    result.insert(element(.product(other.id)))
                }
            }
            return result
        }
        func rulesOfFeature(_ feature: String) -> (Bool, [Int64]) {
            var facts = false
            var dates: Set<Int64> = []
            for catalog in present {
                guard let index = catalog.featureIndex[feature] else { continue }
                for rule in catalog.grandfatherGranters[index] {
                    facts = true
                    if let instant = catalog.grandfatherRules[rule].condition.originalPurchaseBefore { dates.insert(instant) }
                }
            }
            return (facts, dates.sorted())
        }
        for feature in featureIds {
            var reads: Set<Int> = []
            for catalog in present {
                guard let index = catalog.featureIndex[feature] else { continue }
                for granter in catalog.granters[index] { reads.formUnion(mates(catalog.compiledProducts[granter].id)) }
            }
            if includesGrants { reads.insert(element(.grant(feature: feature))) }
            let (facts, dates) = rulesOfFeature(feature)
            featureReads[feature] = (reads, facts, dates)
            append(ProofItem(app: app, kind: .feature, id: feature), reads, facts: facts, ruleDates: dates)
        }
        for currency in currencyIds {
            var reads: Set<Int> = []
            for catalog in present {
                for product in catalog.compiledProducts where product.credits.contains(where: { catalog.currencyIds[$0.currency] == currency }) {
                    reads.insert(element(.product(product.id)))
                }
            }
            append(ProofItem(app: app, kind: .balance, id: currency), reads, facts: false)
        }
        // Number limits: read from the products that give them a value, and whatever those read.
        var limitIds: [String] = []
        for catalog in present {
            for limit in catalog.limits where !limitIds.contains(limit.id) { limitIds.append(limit.id) }
        }
        for limit in limitIds {
            var reads: Set<Int> = []
            for catalog in present {
                for product in catalog.products where product.limits?[limit] != nil { reads.formUnion(mates(product.key)) }
            }
            append(ProofItem(app: app, kind: .limit, id: limit), reads, facts: false)
        }
        let hasRules = present.contains { !$0.grandfatherRules.isEmpty }
        var ruleDates: Set<Int64> = []
        for catalog in present {
            for rule in catalog.grandfatherRules {
                if let instant = rule.condition.originalPurchaseBefore { ruleDates.insert(instant) }
            }
        }
        for id in productIds {
            let sides = self.sides(of: id)
            if sides.contains(where: { $0.product.type != .consumable }) {
                append(ProofItem(app: app, kind: .product, id: id), mates(id), facts: false)
            }
            // Offers and promotions are compared where every catalog has the product: a product
            // one side lacks is a catalog change, not a customer's.
            guard sides.count == catalogs.count else { continue }
            var reads = mates(id)
            var facts = false
            for side in sides where side.product.type == .nonConsumable {
                facts = facts || hasRules
                var family: [Int] = []
                var required: [String] = []
                switch side.product.role {
                case .standard:
                    family = side.product.upgrades
                case .trial(_, let paid):
                    family = [paid] + side.catalog.compiledProducts[paid].upgrades
                case .upgrade(let replaces, let requirement):
                    family = [replaces] + side.catalog.compiledProducts[replaces].upgrades
                    required.append(requirement.app)
                }
                for member in family {
                    reads.insert(element(.product(side.catalog.compiledProducts[member].id)))
                    if case .upgrade(_, let requirement) = side.catalog.compiledProducts[member].role { required.append(requirement.app) }
                }
                for app in required { reads.insert(element(.prerequisite(app: app))) }
            }
            // A subscription is not sold to a customer subscribed in another store to a plan
            // granting all it grants: its offer reads those plans too.
            for side in sides where side.product.type == .autoRenewableSubscription && !side.product.grants.isEmpty {
                let catalog = side.catalog
                let grants = Set(side.product.grants)
                for other in catalog.compiledProducts
                where other.type == .autoRenewableSubscription && other.store != side.product.store && grants.isSubset(of: Set(other.grants)) {
                    reads.formUnion(mates(other.id))
                }
            }
            if offersReadTheirGrants {
                for side in sides {
                    for grant in side.product.grants {
                        if let feature = featureReads[side.catalog.featureIds[grant]] { reads.formUnion(feature.elements) }
                    }
                }
            }
            append(ProofItem(app: app, kind: .offer, id: id), reads, facts: facts, ruleDates: facts ? ruleDates.sorted() : [])
            // Win-back and promotional offers every catalog gives the product.
            var offerIds: [String] = []
            var windows: [String: Set<Int64>] = [:]
            for side in sides {
                for offer in side.product.offers {
                    if side.catalog === sides[0].catalog, !offerIds.contains(offer.id) { offerIds.append(offer.id) }
                    for instant in [offer.from, offer.until].compactMap({ $0 }) {
                        windows[offer.id, default: []].insert(instant.millisecondsSince1970)
                    }
                }
            }
            for offer in offerIds where sides.allSatisfy({ $0.product.offers.contains { $0.id == offer } }) {
                append(
                    ProofItem(app: app, kind: .promotion, id: offer, product: id), mates(id), facts: false,
                    windows: (windows[offer] ?? []).sorted())
            }
        }
        if catalogs.count == 2, skipsUnchanged { markUnchanged() }
        itemsOfElement = [[Int]](repeating: [], count: elements.count)
        factItems = []
        for (index, item) in items.enumerated() where !item.unchanged {
            for element in item.elements { itemsOfElement[element].append(index) }
            if item.readsFacts { factItems.append(index) }
        }
    }

    /// Marks the parts of the answer that read nothing that differs between the two catalogs of
    /// a comparison: their own definition (a declared feature or currency, a product, an offer),
    /// every product they read (as ``CompiledCatalog/product(_:)`` defines it, and in the same
    /// order), the catalogs of the apps their upgrades require (``unchangedApps``), and the
    /// grandfather rules when they read the receipt facts. Evaluation decides such a part from
    /// these alone (the argument above), so every customer gets the same answer for it under both.
    private mutating func markUnchanged() {
        guard let old = catalogs[0], let new = catalogs[1] else { return }
        let sameRules = Self.sameRules(old, new)
        let same = sameDefinitions(old, new)
        func order(_ catalog: CompiledCatalog, _ reads: [Int]) -> [String] {
            reads.compactMap { element -> String? in
                if case .product(let id) = elements[element] { return id }
                return nil
            }.sorted { (catalog.productIndex[$0] ?? -1) < (catalog.productIndex[$1] ?? -1) }
        }
        for index in items.indices {
            let item = items[index]
            items[index].unchanged =
                same.items[index] && item.elements.allSatisfy { same.elements[$0] } && (!item.readsFacts || sameRules)
                && order(old, item.elements) == order(new, item.elements)
        }
    }

    private mutating func append(_ item: ProofItem, _ reads: Set<Int>, facts: Bool, ruleDates: [Int64] = [], windows: [Int64] = []) {
        items.append(SpaceItem(item: item, elements: reads.sorted(), readsFacts: facts, ruleDates: ruleDates, windows: windows))
    }

    /// What a combination of elements needs searched with: the receipt facts, and placements
    /// relative to the catalogs' absolute instants.
    struct Needs: Hashable, Sendable {
        var facts = false
        var thresholds = false

        mutating func formUnion(_ other: Needs) {
            facts = facts || other.facts
            thresholds = thresholds || other.thresholds
        }
    }

    /// Every combination of 2 to `depth` elements (an element may repeat: two transactions of one
    /// product) that lies within what some part of the answer reads, with what it needs; by size,
    /// then element by element. Single elements are searched on their own, every one of them.
    ///
    /// With `relatedOnly` false, every combination of the elements some compared part reads,
    /// related or not (what the argument says is not needed; for tests of the argument).
    ///
    /// At most ``maxCombinations`` are listed (the first parts' first); `complete` says whether
    /// every one was.
    func combinations(depth: Int, relatedOnly: Bool = true) -> (list: [(elements: [Int], needs: Needs)], complete: Bool) {
        guard depth >= 2 else { return ([], true) }
        var found: [[Int]: Needs] = [:]
        var complete = true
        if !relatedOnly {
            let read = elements.indices.filter { !itemsOfElement[$0].isEmpty }
            var chosen: [Int] = []
            func extend(from start: Int) {
                guard complete else { return }
                if chosen.count >= 2 {
                    if found.count >= Self.maxCombinations {
                        complete = false
                        return
                    }
                    var needs = Needs()
                    for element in chosen { needs.formUnion(self.needs(ofElement: element)) }
                    found[chosen] = needs
                }
                guard chosen.count < depth else { return }
                for position in start..<read.count {
                    chosen.append(read[position])
                    extend(from: position)
                    chosen.removeLast()
                }
            }
            extend(from: 0)
        }
        for item in items where !item.elements.isEmpty && !item.unchanged {
            let needs = Needs(facts: item.readsFacts, thresholds: item.readsThresholds)
            var chosen: [Int] = []
            func extend(from start: Int) {
                guard complete else { return }
                if chosen.count >= 2 {
                    if found[chosen] == nil, found.count >= Self.maxCombinations {
                        complete = false
                        return
                    }
                    found[chosen, default: Needs()].formUnion(needs)
                }
                guard chosen.count < depth else { return }
                for position in start..<item.elements.count {
                    chosen.append(item.elements[position])
                    extend(from: position)
                    chosen.removeLast()
                }
            }
            extend(from: 0)
        }
        let list = found.map { ($0.key, $0.value) }.sorted { a, b in
            if a.0.count != b.0.count { return a.0.count < b.0.count }
            return a.0.lexicographicallyPrecedes(b.0)
        }
        return (list, complete)
    }

    /// The most combinations a search lists (what it holds in memory at once).
    static let maxCombinations = 2_000_000

    /// About how many customers a combination takes: the ways of each element searched (`atoms`)
    /// multiplied, 8 placements for each element after the first, the receipt-fact variants it
    /// needs.
    func estimatedCustomers(_ combination: [Int], needs: Needs, atoms: [[Int]]) -> Int {
        var estimate = needs.facts ? facts.count : 1
        for (position, element) in combination.enumerated() {
            estimate = estimate.multipliedReportingOverflow(by: max(1, atoms[element].count) * (position == 0 ? 1 : 8)).partialValue
            if estimate < 0 || estimate > Int(Int32.max) { return Int(Int32.max) }
        }
        return estimate
    }

    /// What a single element needs: the union over the parts that read it.
    func needs(ofElement element: Int) -> Needs {
        var needs = Needs()
        for index in itemsOfElement[element] {
            needs.formUnion(Needs(facts: items[index].readsFacts, thresholds: items[index].readsThresholds))
        }
        return needs
    }

    /// The parts of the answer a customer with these elements (and receipt facts, when it has
    /// some) is compared on: those that read every one of its elements (and the facts), ascending.
    /// With `readingAll` false, those that read any of its elements (for tests of the argument).
    /// A customer of two or more elements none of which reaches a change is not compared on the
    /// parts whose own definition did not change (`+Equivalence`).
    func touchedItems(elements: [Int], hasFacts: Bool, readingAll: Bool = true) -> [Int] {
        var distinct = Array(Set(elements))
        guard let first = distinct.popLast() else {
            return hasFacts ? factItems : items.indices.filter { !items[$0].unchanged }
        }
        var touched = Set(itemsOfElement[first])
        for element in distinct {
            if readingAll { touched.formIntersection(itemsOfElement[element]) } else { touched.formUnion(itemsOfElement[element]) }
        }
        if hasFacts { touched = touched.filter { items[$0].readsFacts } }
        if leavesOutSteadyItems(elements) { touched = touched.filter { !steadyItems[$0] } }
        return touched.sorted()
    }
}
