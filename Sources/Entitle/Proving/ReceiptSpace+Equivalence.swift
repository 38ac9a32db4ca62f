/// Customers the catalogs of a comparison cannot tell apart, searched once
/// (``ProofOptions/searchesEquivalentOnce``): the argument that leaving them out loses nothing.
///
/// - Receipt facts no rule tells apart. The receipt facts are read by the grandfather rules only
///   (the argument of `+Dependencies`), and a rule reads them only through whether it matches
///   and, when it does, the instant its coverage starts (`Evaluator+Access`: from the receipt's
///   `originalPurchaseDate`, from always without one). Two variants of the facts that every rule
///   of both catalogs matches alike, from the same instant, give every customer the same answer
///   under each catalog, so only the first of them is searched; a variant that no rule matches is
///   the customer without facts, searched already. A variant whose `originalPurchaseDate` is the
///   customer's first purchase is kept whenever a rule compares that date with an instant (its
///   match depends on where the customer is placed).
/// - Customers with nothing that changed. A part of the answer whose own definition is the same in
///   both catalogs (a declared feature or currency, a product, with its offers) may still read
///   products that changed; but evaluation answers a customer from the definitions of what the
///   customer has: the products it bought, the products evaluated with them (their subscription
///   group and pass group, the trial, paid product and upgrades of a non-consumable, the apps an
///   upgrade requires), its grants. A product the customer never bought and that none of its
///   products is evaluated with adds nothing to any feature, balance, state or offer of its.
///   So when the grandfather rules and the order of the products are the same in both catalogs,
///   such a part answers a customer none of whose elements reaches a changed definition
///   (``reachesChange``) alike under both, and the customer is not compared on it. Only
///   customers of two or more elements are left out this way: each element alone is searched,
///   as it places the others.
extension ReceiptSpace {
    // MARK: Receipt facts

    /// The variants of the receipt facts without those every grandfather rule of the catalogs
    /// matches as it matches an earlier one (or none), from the same instant: the first (none),
    /// then each that some rule answers otherwise than every earlier one.
    func distinctFacts(_ variants: [Facts]) -> [Facts] {
        var kept: [Facts] = []
        var seen: Set<[RuleOutcome]> = []
        for (index, variant) in variants.enumerated() {
            guard index > 0, let outcome = ruleOutcomes(variant) else {
                kept.append(variant)
                continue
            }
            if outcome.allSatisfy({ $0 == .unmatched }) { continue }
            if seen.insert(outcome).inserted { kept.append(variant) }
        }
        return kept
    }

    /// How a grandfather rule answers a variant of the facts: not at all, or matched from an
    /// instant.
    enum RuleOutcome: Hashable, Sendable {
        case unmatched
        /// From always (the receipt has no original purchase date).
        case always
        /// From the customer's first purchase (the base).
        case base
        case from(Int64)
    }

    /// How every rule of every catalog answers `facts`, in order; `nil` when it cannot be said
    /// without placing the customer (a date rule reading an original purchase at the base), or
    /// when the version would not read back as written.
    func ruleOutcomes(_ facts: Facts) -> [RuleOutcome]? {
        if let version = facts.version, CatalogChecker.versionComponents(Self.versionText(version)) != version { return nil }
        var outcomes: [RuleOutcome] = []
        for catalog in present {
            for rule in catalog.grandfatherRules {
                let condition = rule.condition
                if let before = condition.originalApplicationVersionBefore {
                    guard let version = facts.version, Evaluator.version(version, isBefore: before) else {
                        outcomes.append(.unmatched)
                        continue
                    }
                }
                if let platforms = condition.originalPlatforms {
                    guard let platform = facts.platform, platforms.contains(platform) else {
                        outcomes.append(.unmatched)
                        continue
                    }
                }
                if let before = condition.originalPurchaseBefore {
                    switch facts.purchase {
                    case nil:
                        outcomes.append(.unmatched)
                        continue
                    case .base?: return nil
                    case .absolute(let instant)?:
                        guard instant < before else {
                            outcomes.append(.unmatched)
                            continue
                        }
                    }
                }
                switch facts.purchase {
                case nil: outcomes.append(.always)
                case .base?: outcomes.append(.base)
                case .absolute(let instant)?: outcomes.append(.from(instant))
                }
            }
        }
        return outcomes
    }

    // MARK: Customers with nothing that changed

    /// Marks, in a comparison, the parts of the answer whose own definition is the same in both
    /// catalogs (``steadyItems``) and the elements whose evaluation reads a definition that is
    /// not (``reachesChange``); nothing when the grandfather rules or the order of the products
    /// differ, or a side lacks the app.
    mutating func buildEquivalences() {
        steadyItems = [Bool](repeating: false, count: items.count)
        reachesChange = [Bool](repeating: true, count: elements.count)
        guard reducesEquivalents, catalogs.count == 2, let old = catalogs[0], let new = catalogs[1] else { return }
        guard Self.sameRules(old, new) else { return }
        // The products both catalogs have, in the same order in both.
        let common = Set(old.productIds).intersection(new.productIds)
        guard old.productIds.filter(common.contains) == new.productIds.filter(common.contains) else { return }
        let same = sameDefinitions(old, new)
        for index in elements.indices {
            reachesChange[index] = evaluatedWith(index).contains { !same.elements[$0] }
        }
        steadyItems = same.items
    }

    /// The elements whose definitions evaluation reads for a customer having `element`, under
    /// either catalog: the element itself; for a product, the products of its subscription group
    /// and its pass group, the non-consumables of its family (the paid product, its trials and
    /// upgrades) and the apps those upgrades require; for another app's receipt, the upgrades
    /// requiring that app and their families.
    func evaluatedWith(_ element: Int) -> Set<Int> {
        var result: Set<Int> = [element]
        func add(_ id: String) { if let index = elementIndex[.product(id)] { result.insert(index) } }
        func addFamily(root: Int, in catalog: CompiledCatalog) {
            for (index, product) in catalog.compiledProducts.enumerated() where Self.familyRoot(index, in: catalog) == root {
                add(product.id)
                if case .upgrade(_, let requirement) = product.role, let app = elementIndex[.prerequisite(app: requirement.app)] {
                    result.insert(app)
                }
            }
        }
        switch elements[element] {
        case .product(let id):
            for side in sides(of: id) {
                let product = side.product
                for other in side.catalog.compiledProducts
                where (product.group >= 0 && other.group == product.group) || (product.passGroup >= 0 && other.passGroup == product.passGroup) {
                    add(other.id)
                }
                if product.type == .nonConsumable { addFamily(root: Self.familyRoot(side.index, in: side.catalog), in: side.catalog) }
            }
        case .grant:
            break
        case .prerequisite(let app):
            for catalog in present {
                for (index, product) in catalog.compiledProducts.enumerated() {
                    guard case .upgrade(_, let requirement) = product.role, requirement.app == app else { continue }
                    addFamily(root: Self.familyRoot(index, in: catalog), in: catalog)
                }
            }
        }
        return result
    }

    /// The product a non-consumable's family is rooted at: the paid product of a trial, the
    /// product an upgrade replaces, else itself.
    static func familyRoot(_ index: Int, in catalog: CompiledCatalog) -> Int {
        switch catalog.compiledProducts[index].role {
        case .standard: index
        case .trial(_, let paid): paid
        case .upgrade(let replaces, _): replaces
        }
    }

    /// Whether a customer of these elements (two or more) is left out of the comparison of the
    /// parts of the answer whose definition is the same in both catalogs: none of its elements
    /// reaches a change.
    func leavesOutSteadyItems(_ elements: [Int]) -> Bool {
        reducesEquivalents && elements.count >= 2 && !steadyItems.isEmpty && !elements.contains { reachesChange[$0] }
    }
}

// MARK: Ways an offer cannot tell apart

/// - Ways no compared win-back or promotional offer tells apart. An offer's decision reads its
///   group's facts (`Evaluator+Promotions`): which counted transactions are free trials, their
///   purchases, expiries and refunds, whether one is upgraded, family-shared or pending, the
///   purchases with a win-back offer and with each offer's id, when the group's coverage ended
///   (grace included), whether the customer is subscribed (a product active, in grace, in billing
///   retry or paused), and Apple's list of eligible win-back offers. It reads no intro price (paid
///   time counts it), no `willRenew` and no `renewsTo` (neither keeps nor ends a subscription), no
///   redemption of another offer, no win-back purchase or list unless it is a win-back offer
///   itself, and when the group's coverage ended only for `lapsedAtLeast` and `lapsedAtMost`
///   (billing retry keeps the customer subscribed with or without a grace period). So a customer
///   compared on such offers only answers alike with an atom replaced by another of its element
///   that differs in nothing the offers read; each element is searched in one atom of each such
///   class, the first in the order searched (its placements stand for the others': where an
///   answer changes differs between them only at instants these offers do not read).
extension ReceiptSpace {
    /// What the win-back and promotional offers among some parts of the answer read of a way.
    struct OfferReads: Hashable, Sendable {
        /// The offers' ids.
        var offers: Set<String> = []
        /// Whether one of them is a win-back offer (in either catalog).
        var winBack = false
        /// Whether one of them states `lapsedAtLeast` or `lapsedAtMost` (in either catalog).
        var lapses = false
    }

    /// What the parts `items` read of a way, when every one of them is a win-back or promotional
    /// offer; `nil` when one is another part (which may read anything of a way).
    func offerReads(_ items: [Int]) -> OfferReads? {
        guard !items.isEmpty else { return nil }
        var reads = OfferReads()
        for index in items {
            let item = self.items[index].item
            guard item.kind == .promotion, let product = item.product else { return nil }
            reads.offers.insert(item.id)
            for side in sides(of: product) {
                for offer in side.product.offers where offer.id == item.id {
                    if offer.type == .winBack { reads.winBack = true }
                    if offer.lapsedAtLeast != nil || offer.lapsedAtMost != nil { reads.lapses = true }
                }
            }
        }
        return reads
    }

    /// The atoms of each element searched for a customer compared on the parts `items`: every
    /// atom, or, when the parts are win-back and promotional offers only, the first atom of each
    /// class of atoms they do not tell apart.
    func searchedAtoms(for items: [Int]) -> [[Int]] {
        guard reducesEquivalents, let reads = offerReads(items) else { return atomsOf }
        return atomsOf.map { atoms in
            var seen: Set<Way> = []
            return atoms.filter { seen.insert(Self.way(self.atoms[$0].way, as: reads)).inserted }
        }
    }

    /// A way as offers reading `reads` see it: what they do not read cleared.
    static func way(_ way: Way, as reads: OfferReads) -> Way {
        guard case .purchase(var purchase) = way else { return way }
        purchase.introPeriod = false
        if purchase.offerType != .winBack || !reads.winBack { purchase.offerType = nil }
        if let id = purchase.offerId, !reads.offers.contains(id) { purchase.offerId = nil }
        switch purchase.renewal {
        case .autoRenewOff?, .renewsTo?: purchase.renewal = nil
        case .winBackList? where !reads.winBack: purchase.renewal = nil
        case .grace? where !reads.lapses: purchase.renewal = .billingRetry
        default: break
        }
        return .purchase(purchase)
    }
}
