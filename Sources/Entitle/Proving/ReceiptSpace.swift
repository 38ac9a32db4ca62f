/// The customers a proof searches for one app: every way each product can be bought that the
/// rules tell apart, the service grants, other apps' receipts and receipt facts evaluation reads,
/// and which of them can change which part of the answer.
///
/// A customer is a few *elements* (a product's transactions, a grant of a feature, a receipt of
/// an app an upgrade requires), each had in one of its *ways* (an ``Atom``: bought plainly,
/// refunded, family-shared, in a free trial, with a renewal entry in billing retry, ...), placed in
/// time relative to the first one, plus the receipt's facts that grandfather rules read. The ways
/// are built from both catalogs of a comparison (a product's ways under either), so what either
/// catalog tells apart is searched. `ReceiptSpace+Ways` lists the ways, `+Dependencies` which
/// elements each part of the answer reads (the argument for searching related elements only), and
/// `+Customers` how a customer becomes receipts.
struct ReceiptSpace: Sendable {
    /// One thing a customer can have, in one of several ways.
    enum Element: Hashable, Sendable {
        /// Transactions of a product of the app.
        case product(String)
        /// A grant of a feature by the service.
        case grant(feature: String)
        /// A receipt of another app that an upgrade requires.
        case prerequisite(app: String)
    }

    /// One way of having an element.
    struct Atom: Sendable {
        /// Index in ``elements``.
        var element: Int
        var way: Way
        /// What the way is, for people: `refunded`, `in billing retry with a grace period`.
        var label: String
    }

    /// How an element is had.
    enum Way: Hashable, Sendable {
        /// One transaction of the element's product in the app's receipt.
        case purchase(Purchase)
        /// The service grants the element's feature for a day.
        case grant
        /// A receipt of the required app: with one transaction of `product`, or with none (first
        /// bought at the placed instant) when `product` is `nil`.
        case prerequisite(product: String?, Purchase)
    }

    /// One transaction, relative to its purchase, and the renewal entry of its chain.
    struct Purchase: Hashable, Sendable {
        var quantity = 1
        var refund: Refund?
        var familyShared = false
        var upgraded = false
        var trialPeriod = false
        var introPeriod = false
        var offerType: Transaction.OfferType?
        var offerId: String?
        /// An auto-renewable transaction's period.
        var expiry: Expiry?
        var renewal: RenewalWay?
        /// Bought, not paid yet (other stores than the App Store).
        var pending = false
        /// A Play purchase the app never acknowledged.
        var unacknowledged = false
    }

    /// How a transaction is refunded: wholly an hour after its purchase, or half of its units.
    enum Refund: Hashable, Sendable { case full, half }

    /// The end of an auto-renewable transaction's period.
    enum Expiry: Hashable, Sendable {
        /// A calendar period after the purchase.
        case period(ISODuration)
        /// A fixed time after the purchase (paid time on either side of an offer's threshold).
        case milliseconds(Int64)
    }

    /// The renewal entry a subscription's chain has.
    enum RenewalWay: Hashable, Sendable {
        /// `willRenew: false`.
        case autoRenewOff
        /// Billing retried with a grace period of 16 days past the expiry.
        case grace
        /// Billing retried, no grace period.
        case billingRetry
        /// Renewing to another product of the group.
        case renewsTo(String)
        /// Apple's list of the win-back offers the customer may redeem.
        case winBackList([String])
        /// Paused at the expiry for 16 days (Play, Stripe).
        case paused
    }

    /// The receipt facts grandfather rules read: the original application version and the
    /// original purchase of the app.
    struct Facts: Hashable, Sendable {
        var version: [Int]?
        var purchase: FactInstant?
        var platform: AppPlatform?

        var isNone: Bool { version == nil && purchase == nil && platform == nil }
    }

    /// An original purchase date: at the customer's first purchase, or at a fixed instant.
    enum FactInstant: Hashable, Sendable {
        case base
        case absolute(Int64)
    }

    /// The app.
    let app: String
    /// The app's catalog on each side (old, new), or the one reviewed; `nil` on a side without it.
    let catalogs: [CompiledCatalog?]
    /// Whether the space is a comparison's, whose customers also have service grants and Apple's
    /// lists of win-back offers (a review asks what the catalog turns on and what its conditions
    /// allow: a grant turns on any declared feature, and Apple's list overrides the conditions).
    let includesGrants: Bool
    /// The environment of the customers' receipts: `nil` (production) when evaluation accepts
    /// every environment, else the first it accepts. Evaluation reads a receipt's environment only
    /// to keep or drop the whole receipt, so one accepted environment stands for all, and a
    /// receipt of one not accepted is the customer without it, searched too.
    let environment: String?
    /// The apps an upgrade requires whose catalogs are the same in both portfolios of a
    /// comparison (or absent from both).
    let unchangedApps: Set<String>
    private(set) var elements: [Element] = []
    private(set) var elementIndex: [Element: Int] = [:]
    private(set) var atoms: [Atom] = []
    /// The atoms of each element, in the order searched (plain first).
    private(set) var atomsOf: [[Int]] = []
    /// Every variant of the receipt facts; the first is none.
    private(set) var facts: [Facts] = [Facts()]
    /// The parts of the answer compared, with what each reads.
    var items: [SpaceItem] = []
    /// For each element, the items that read it.
    var itemsOfElement: [[Int]] = []
    /// The items that read the receipt facts, and those that read an absolute instant of a
    /// catalog.
    var factItems: [Int] = []
    /// The instants the catalogs compare with (grandfather dates, offer windows), ascending.
    private(set) var thresholds: [Int64] = []
    /// Whether customers the catalogs of a comparison cannot tell apart are searched once
    /// (``ProofOptions/searchesEquivalentOnce``, `+Equivalence`).
    let reducesEquivalents: Bool
    /// For each item, whether its own definition is the same in both catalogs of a comparison
    /// whose grandfather rules and order of products are the same: it answers alike every
    /// customer none of whose elements reaches a change (`+Equivalence`).
    var steadyItems: [Bool] = []
    /// For each element, whether a definition evaluation reads for a customer having it differs
    /// between the catalogs of a comparison (true wherever that is not worked out).
    var reachesChange: [Bool] = []

    /// Where a customer's first purchase is placed unless an absolute threshold says otherwise:
    /// 2026-01-31T00:00:00Z, the last day of a month, so adding months clamps the day.
    static let base: Int64 = 1_769_817_600_000

    /// Builds the space of `app` from its catalog on each side.
    init(
        app: String, catalogs: [CompiledCatalog?], includesGrants: Bool, environments: Set<String>? = nil,
        unchangedApps: Set<String> = [], skipsUnchanged: Bool = true, extendOffersWithGrants: Bool = false,
        reducesEquivalents: Bool = false
    ) {
        self.reducesEquivalents = reducesEquivalents
        self.unchangedApps = unchangedApps
        self.app = app
        self.catalogs = catalogs
        self.includesGrants = includesGrants
        environment = environments.flatMap { accepted in
            accepted.contains { Evaluator.environment($0) == "production" } ? nil : accepted.min()
        }
        for id in productIds { addWays(product: id) }
        if includesGrants {
            for feature in featureIds {
                let element = self.element(.grant(feature: feature))
                addAtom(element: element, way: .grant, label: "granted by the service for a day")
            }
        }
        for app in requiredApps { addPrerequisiteWays(app: app) }
        buildFacts()
        buildItems(offersReadTheirGrants: extendOffersWithGrants, skipsUnchanged: skipsUnchanged)
        buildEquivalences()
    }

    /// The index of an element, added when new.
    mutating func element(_ element: Element) -> Int {
        if let index = elementIndex[element] { return index }
        elements.append(element)
        atomsOf.append([])
        elementIndex[element] = elements.count - 1
        return elements.count - 1
    }

    mutating func addAtom(element: Int, way: Way, label: String) {
        guard !atomsOf[element].contains(where: { atoms[$0].way == way }) else { return }
        atomsOf[element].append(atoms.count)
        atoms.append(Atom(element: element, way: way, label: label))
    }

    // MARK: What the catalogs hold

    /// The catalogs present.
    var present: [CompiledCatalog] { catalogs.compactMap { $0 } }

    /// Every product id of either catalog: the last catalog's order, then ids only earlier ones have.
    var productIds: [String] { Self.union(present.reversed().map(\.productIds)) }

    /// Every declared feature of either catalog, in the same order.
    var featureIds: [String] { Self.union(present.reversed().map(\.featureIds)) }

    /// Every declared currency of either catalog.
    var currencyIds: [String] { Self.union(present.reversed().map(\.currencyIds)) }

    /// The apps the catalogs' upgrades require.
    var requiredApps: [String] { Self.union(present.map(\.requiredApps)) }

    /// A product's definition in each catalog that has it.
    func definitions(of id: String) -> [CompiledProduct] {
        present.compactMap { catalog in catalog.productIndex[id].map { catalog.compiledProducts[$0] } }
    }

    /// A product's definitions, with their catalogs.
    func sides(of id: String) -> [Side] {
        present.compactMap { catalog in catalog.productIndex[id].map { (catalog, catalog.compiledProducts[$0], $0) } }
    }

    /// The ids of `lists` in order, each once.
    static func union(_ lists: [[String]]) -> [String] {
        var seen: Set<String> = []
        var result: [String] = []
        for list in lists {
            for id in list where seen.insert(id).inserted { result.append(id) }
        }
        return result
    }

    // MARK: Receipt facts

    /// The receipt facts each grandfather rule reads, on both sides of its threshold: versions at
    /// each rule's version and just below it (with no original purchase date, or one at the first
    /// purchase), original purchases a millisecond before each rule's instant and at it (with no
    /// version), and none. Each rule reads one of the two facts, so varying them one at a time
    /// leaves no rule's side unsearched, and keeps the variants as many as the rules.
    private mutating func buildFacts() {
        var absolute: Set<Int64> = []
        for catalog in present {
            for rule in catalog.grandfatherRules {
                if let instant = rule.condition.originalPurchaseBefore { absolute.insert(instant) }
            }
            for (_, offer) in catalog.offerList {
                if let from = offer.from { absolute.insert(from.millisecondsSince1970) }
                if let until = offer.until { absolute.insert(until.millisecondsSince1970) }
            }
        }
        thresholds = absolute.sorted()
        let rules = present.flatMap(\.grandfatherRules)
        guard !rules.isEmpty else { return }
        if rules.allSatisfy({ $0.condition.conditionCount == 1 && $0.condition.originalPlatforms == nil }) {
            facts += Self.factsOneAtATime(rules)
        } else {
            facts += Self.factsPerRule(rules)
        }
        if reducesEquivalents { facts = distinctFacts(facts) }
    }

    /// The variants for rules of one condition each, on the version or the original purchase.
    private static func factsOneAtATime(_ rules: [GrandfatherRule]) -> [Facts] {
        var versions: [[Int]] = []
        var dates: [Int64] = []
        for rule in rules {
            if let version = rule.condition.originalApplicationVersionBefore {
                for value in [version, Self.versionBelow(version)].compactMap({ $0 }) where !versions.contains(value) {
                    versions.append(value)
                }
            }
            if let instant = rule.condition.originalPurchaseBefore {
                for value in [instant - 1, instant] where !dates.contains(value) && Instant(millisecondsSince1970: value).isInRange {
                    dates.append(value)
                }
            }
        }
        versions.sort { $0.lexicographicallyPrecedes($1) }
        dates.sort()
        var facts: [Facts] = []
        for version in versions {
            facts.append(Facts(version: version, purchase: nil))
            facts.append(Facts(version: version, purchase: .base))
        }
        facts.append(Facts(version: nil, purchase: .base))
        for date in dates { facts.append(Facts(version: nil, purchase: .absolute(date))) }
        return facts
    }

    /// The variants when a rule states several conditions or reads the platform: for each rule,
    /// every condition it states holding (once with each platform it lists; an original purchase
    /// it does not read absent, and at the first purchase, since coverage starts there), and each
    /// stated condition failing alone while the others hold (a version at the rule's or none, an
    /// original purchase at its instant or none, a platform it does not list or none). A fact the
    /// rule does not read is absent otherwise. So each rule is searched on both sides of each of
    /// its conditions, and the variants stay linear in the rules.
    private static func factsPerRule(_ rules: [GrandfatherRule]) -> [Facts] {
        var facts: [Facts] = [Facts(version: nil, purchase: .base)]
        var seen: Set<Facts> = [Facts(), facts[0]]
        func add(_ version: [Int]?, _ purchase: FactInstant?, _ platform: AppPlatform?) {
            let variant = Facts(version: version, purchase: purchase, platform: platform)
            if let version, CatalogChecker.versionComponents(versionText(version)) != version { return }
            if case .absolute(let date)? = purchase, !Instant(millisecondsSince1970: date).isInRange { return }
            if seen.insert(variant).inserted { facts.append(variant) }
        }
        for rule in rules {
            let condition = rule.condition
            let version = condition.originalApplicationVersionBefore
            let holdsVersion = version.map { versionBelow($0) } ?? nil
            // A version rule with nothing below it (`0`) never holds: only its failing side exists.
            if version != nil, holdsVersion == nil { continue }
            let purchase = condition.originalPurchaseBefore
            let holdsPurchase: FactInstant? = purchase.map { .absolute($0 - 1) }
            let listed = condition.originalPlatforms
            let holdsPlatform = listed?.first
            // Every condition holding.
            let platforms: [AppPlatform?] = listed.map { $0.map(Optional.some) } ?? [nil]
            for platform in platforms {
                for start in purchase == nil ? [nil, .base] : [holdsPurchase] { add(holdsVersion, start, platform) }
            }
            // Each one failing alone.
            if let version {
                for failing in [version, nil] { add(failing, holdsPurchase, holdsPlatform) }
            }
            if let purchase {
                for failing in [FactInstant.absolute(purchase), nil] { add(holdsVersion, failing, holdsPlatform) }
            }
            if let listed {
                for failing in [AppPlatform.allCases.first { !listed.contains($0) }, nil] { add(holdsVersion, holdsPurchase, failing) }
            }
        }
        return facts
    }

    /// The highest version below `version` that a version of up to 128 components of up to 18
    /// digits can be, near enough: its last non-zero component one lower, every later component
    /// 999999999999999999 (`2.0` gives `1.999999999999999999`); `nil` below `0`.
    static func versionBelow(_ version: [Int]) -> [Int]? {
        guard let last = version.lastIndex(where: { $0 > 0 }) else { return nil }
        var below = version
        below[last] -= 1
        let nines = 999_999_999_999_999_999
        for index in (last + 1)..<below.count { below[index] = nines }
        if last == below.count - 1, below.count < 128 { below.append(nines) }
        return below
    }

    /// A version as a receipt writes it: `1.999999999999999999`.
    static func versionText(_ version: [Int]) -> String { version.map(String.init).joined(separator: ".") }
}
