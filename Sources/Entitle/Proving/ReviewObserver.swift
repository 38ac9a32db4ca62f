/// The observer of a review: what the searched customers of one catalog ever reach, at every
/// instant where their answer changes.
///
/// - a feature: ever on;
/// - a product's offer: ever eligible, ever eligible while buying it adds a feature, and the
///   reasons it was not;
/// - a trial: ever the only source of a feature it grants;
/// - a grandfather rule: ever covering a feature, and the rules covering every feature it covers
///   each time it does;
/// - a win-back or promotional offer: ever eligible, and the reasons it was not.
struct ReviewObserver: ProofObserver {
    private(set) var featureOn: Set<Int> = []
    private(set) var offered: Set<Int> = []
    private(set) var offeredAdding: Set<Int> = []
    private(set) var offerReasons: [Int: Set<String>] = [:]
    private(set) var promotionEligible: Set<Int> = []
    private(set) var promotionReasons: [Int: Set<String>] = [:]
    /// Trials (by product id) seen as the only source of a feature.
    private(set) var trialsAdding: Set<String> = []
    /// Grandfather rules (by index) seen covering a feature, and for each the other rules that
    /// covered everything it covered every time (`nil` until it is first seen).
    private(set) var rulesMatched: Set<Int> = []
    private(set) var companions: [Int: Set<Int>] = [:]

    /// The catalog's trials: product id and the features it grants.
    private let trials: [String: [String]]
    /// The catalog's grandfather rules: id, name among a feature's sources, and the features each grants.
    private let rules: [(id: String, source: String, grants: [String])]

    init(space: ReceiptSpace) {
        var trials: [String: [String]] = [:]
        var rules: [(id: String, source: String, grants: [String])] = []
        if let catalog = space.present.first {
            for product in catalog.compiledProducts where product.trialPaidProduct != nil {
                trials[product.id] = product.grants.map { catalog.featureIds[$0] }
            }
            rules = catalog.grandfatherRules.map { ($0.id, $0.source, $0.grants.map { catalog.featureIds[$0] }) }
        }
        self.trials = trials
        self.rules = rules
    }

    mutating func observe(_ searched: SearchCase, in space: ReceiptSpace) {
        guard let points = searched.points.first else { return }
        let items = searched.touched.map { ($0, space.items[$0].item) }
        let rulesRead = searched.customer.facts != 0 && !rules.isEmpty
        for point in points {
            let result = point.result
            var reader = ResultReader(result)
            for (index, item) in items {
                switch item.kind {
                case .feature:
                    if !featureOn.contains(index), result.isEnabled(item.id) { featureOn.insert(index) }
                case .offer:
                    guard !offeredAdding.contains(index), let offer = reader.decision(of: item.id, additions: true) else { continue }
                    if let reason = offer.reason {
                        if !offered.contains(index) { offerReasons[index, default: []].insert(reason.rawValue) }
                    } else {
                        offered.insert(index)
                        if !offer.adds.isEmpty { offeredAdding.insert(index) }
                    }
                case .promotion:
                    guard !promotionEligible.contains(index), let product = item.product,
                        let promotion = reader.decision(of: product, additions: true)?.promotions?.first(where: { $0.offer.id == item.id })
                    else { continue }
                    if promotion.decision.eligible {
                        promotionEligible.insert(index)
                    } else {
                        promotionReasons[index, default: []].insert(promotion.decision.reason.rawValue)
                    }
                case .product:
                    guard let grants = trials[item.id], !trialsAdding.contains(item.id), result.product(item.id)?.state == .active
                    else { continue }
                    if grants.contains(where: { result.feature($0)?.sources == [item.id] }) { trialsAdding.insert(item.id) }
                case .balance, .limit:
                    break
                }
            }
            if rulesRead { observeRules(result) }
        }
    }

    /// Which rules cover which features at one evaluation.
    private mutating func observeRules(_ result: Entitlements) {
        var covered: [Set<String>] = []
        for rule in rules {
            let source = rule.source
            covered.append(Set(rule.grants.filter { result.feature($0)?.sources.contains(source) == true }))
        }
        for (index, features) in covered.enumerated() where !features.isEmpty {
            let others = Set(covered.indices.filter { $0 != index && features.isSubset(of: covered[$0]) })
            if rulesMatched.insert(index).inserted { companions[index] = others } else { companions[index]?.formIntersection(others) }
        }
    }

    mutating func merge(_ other: ReviewObserver) {
        featureOn.formUnion(other.featureOn)
        offered.formUnion(other.offered)
        offeredAdding.formUnion(other.offeredAdding)
        for (index, reasons) in other.offerReasons { offerReasons[index, default: []].formUnion(reasons) }
        promotionEligible.formUnion(other.promotionEligible)
        for (index, reasons) in other.promotionReasons { promotionReasons[index, default: []].formUnion(reasons) }
        trialsAdding.formUnion(other.trialsAdding)
        for index in other.rulesMatched {
            if rulesMatched.insert(index).inserted {
                companions[index] = other.companions[index]
            } else {
                companions[index]?.formIntersection(other.companions[index] ?? [])
            }
        }
    }

    /// What no searched customer reached, one finding each, in catalog order.
    func findings(catalog: CompiledCatalog, space: ReceiptSpace) -> [CatalogReview.Finding] {
        var findings: [CatalogReview.Finding] = []
        let app = catalog.app
        for (index, spaceItem) in space.items.enumerated() {
            let item = spaceItem.item
            switch item.kind {
            case .feature:
                guard !featureOn.contains(index), let feature = catalog.feature(item.id) else { continue }
                let rules = self.rules.filter { $0.grants.contains(item.id) }.map(\.id)
                // A feature nothing grants is `unused-feature` already.
                guard !feature.grantedBy.isEmpty || !rules.isEmpty else { continue }
                let granters = feature.grantedBy.map { "`\($0)`" } + rules.map { "grandfather rule `\($0)`" }
                findings.append(
                    .init(
                        app: app, code: .neverOn, subject: .feature(item.id),
                        message: "no searched customer has feature `\(item.id)` on",
                        help: "it is granted by \(Self.list(granters))"))
            case .offer:
                // A product sold in some storefronts only is offered by the customer's storefront,
                // which the search does not vary (it evaluates without one): not a finding.
                guard let product = catalog.product(item.id), product.available, product.storefronts == nil else { continue }
                if !offered.contains(index) {
                    let reasons = (offerReasons[index] ?? []).sorted()
                    findings.append(
                        .init(
                            app: app, code: .neverOffered, subject: .product(item.id),
                            message: "product `\(item.id)` is offered to no searched customer",
                            help: reasons.isEmpty ? nil : "its offer always says \(Self.list(reasons.map { "`\($0)`" }))"))
                } else if !product.grants.isEmpty, !offeredAdding.contains(index) {
                    findings.append(
                        .init(
                            app: app, code: .grantsAlwaysOn, subject: .product(item.id),
                            message: "whenever product `\(item.id)` may be bought, everything it grants is on already",
                            help: "buying it adds none of \(Self.list(product.grants.map { "`\($0)`" }))"))
                }
            case .promotion:
                guard !promotionEligible.contains(index), let product = item.product else { continue }
                let reasons = (promotionReasons[index] ?? []).sorted()
                findings.append(
                    .init(
                        app: app, code: .offerNeverEligible, subject: .offer(product: product, id: item.id),
                        message: "the conditions of offer `\(item.id)` never all hold for a searched customer",
                        help: reasons.isEmpty ? nil : "it was never eligible: \(Self.list(reasons.map { "`\($0)`" }))"))
            case .product:
                guard let grants = trials[item.id], !grants.isEmpty, !trialsAdding.contains(item.id) else { continue }
                findings.append(
                    .init(
                        app: app, code: .trialAddsNothing, subject: .product(item.id),
                        message: "trial `\(item.id)` never turns on a feature that nothing else covers",
                        help: "whenever it is active, every feature it grants has another source"))
            case .balance, .limit:
                continue
            }
        }
        for (index, rule) in rules.enumerated() where !rule.grants.isEmpty {
            if !rulesMatched.contains(index) {
                findings.append(
                    .init(
                        app: app, code: .ruleNeverMatches, subject: .rule(rule.id),
                        message: "grandfather rule `\(rule.id)` matches no searched receipt",
                        help: "no receipt of the app, with any original application version or purchase date, gets its features from it"))
            } else if let other = (companions[index] ?? []).sorted().first(where: { $0 < index || companions[$0]?.contains(index) != true }) {
                // Of two rules that always match together, covering the same, the later is the one to remove.
                findings.append(
                    .init(
                        app: app, code: .ruleRedundant, subject: .rule(rule.id),
                        message: "grandfather rule `\(rule.id)` matches only where rule `\(rules[other].id)` matches too, covering as much",
                        help: "remove it, or change its condition"))
            }
        }
        return findings
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}
