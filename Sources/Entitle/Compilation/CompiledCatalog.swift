import Synchronization

/// One app's catalog, checked and compiled: immutable, `Sendable`, evaluated any number of times
/// from any number of threads.
///
/// Products, features and currencies are dense arrays; receipts are matched to products by one
/// hash lookup per transaction, and everything after that is index arithmetic.
///
/// Everything is immutable after `init`. The tables evaluation reads for every transaction live in
/// buffers the catalog allocates once and frees in `deinit`, so threads sharing one catalog read
/// them without touching reference counts; that is why the class is `@unchecked Sendable`.
public final class CompiledCatalog: @unchecked Sendable {
    /// The app's bundle id.
    public let app: String
    /// The file the catalog came from.
    public let source: String
    /// Declared feature ids, in catalog order.
    public let featureIds: [String]
    /// The product manager's description of each feature, in the order of ``featureIds``.
    public let featureDescriptions: [String]
    /// Declared currency ids, in catalog order.
    public let currencyIds: [String]
    /// The description of each currency, in the order of ``currencyIds``.
    public let currencyDescriptions: [String]
    let compiledProducts: [CompiledProduct]
    /// Every product as the catalog defines it, in catalog order: what a paywall needs.
    public let products: [CatalogProduct]
    /// Every declared feature with its description and the products that grant it.
    public var features: [CatalogFeature] { featureIds.compactMap(feature) }
    /// Every declared currency with its description and the consumables that credit it.
    public var currencies: [CatalogCurrency] { currencyIds.compactMap(currency) }
    let productIndex: [String: Int]
    let featureIndex: [String: Int]
    let currencyIndex: [String: Int]
    /// Product and currency ids by their bytes, for receipts.
    let productTable: ByteKeyTable
    let currencyTable: ByteKeyTable
    /// Feature ids by their bytes, for grants in receipts.
    let featureTable: ByteKeyTable
    /// For each feature, the products that grant it (an Advanced Commerce product's items aside:
    /// those are sources of their own, `<productId>/<SKU>`).
    let granters: [[Int]]
    /// Every Advanced Commerce SKU of the catalog, with its product and its name among a feature's
    /// sources, and the SKUs by their bytes (a SKU belongs to one product).
    let itemList: [(product: Int32, item: CompiledItem, source: String)]
    let itemTable: ByteKeyTable
    /// Subscription group names; products refer to them by index.
    let groups: [String]
    /// Pass group names; non-renewing subscriptions refer to them by index.
    let passGroups: [String]
    /// Grandfather rules, in catalog order.
    let grandfatherRules: [GrandfatherRule]
    /// For each feature, the grandfather rules that grant it.
    let grandfatherGranters: [[Int]]
    /// What evaluation reads per transaction, as plain data (see ``ProductRule``).
    let rules: UnsafeBufferPointer<ProductRule>
    let ruleGrants: UnsafeBufferPointer<Int32>
    let ruleCredits: UnsafeBufferPointer<Credit>
    /// The app's bundle id as bytes, to match receipts.
    let appBytes: UnsafeBufferPointer<UInt8>
    /// The other apps the catalog's upgrades require a purchase in, without repeats.
    let requiredApps: [String]
    /// The required apps some upgrade names qualifying products of (`anyOf`).
    let appsListingProducts: Set<String>
    /// The apps named by an upgrade requirement without `anyOf`: any receipt of theirs counts,
    /// from its original purchase on.
    let appsRequiringAnyPurchase: Set<String>
    /// Per subscription group: whether a product of it has an intro offer that a trial or intro
    /// period uses up (the default audience), so that using one shows.
    let groupHasIntroOffer: [Bool]
    /// Per subscription group: whether an intro offer of it is for new subscribers only, so
    /// that evaluation notes whether the customer bought in it.
    let groupIntroForNewSubscribers: [Bool]
    /// Whether any group's is.
    let introForNewSubscribers: Bool
    /// The win-back and promotional offers of every product, in catalog order, and their ids by
    /// their bytes (for the offer a transaction names).
    let offerList: [(product: Int, offer: SubscriptionOffer)]
    let offerTable: ByteKeyTable
    /// The subscription groups whose products have such offers, ascending, and each group's
    /// offers (indices into ``offerList``).
    let offerGroups: [Int32]
    /// Did-you-mean answers already worked out for ids the catalog does not have, keyed by kind
    /// and id: the same retired or misspelt id recurs across a service's customers, and each search
    /// reads every id of the catalog. At most ``maxRememberedSuggestions``; past them, searched
    /// each time.
    private let rememberedSuggestions = Mutex<[String: String?]>([:])
    static let maxRememberedSuggestions = 4_096
    /// How many did-you-mean answers the catalog remembers (for tests).
    var rememberedSuggestionCount: Int { rememberedSuggestions.withLock { $0.count } }
    let groupOffers: [[Int32]]

    /// The number limits family's compiled part: declared limits and what each product gives them.
    let limitRules: CompiledLimits
    /// The allowances family's compiled part: what products deposit and make unlimited, and the
    /// free allowances.
    let allowanceRules: AllowanceRules
    /// Where customers of each store besides the App Store manage a subscription (`stores`).
    public let manageURLs: [Store: String]
    /// The stores the catalog sells in, in ``Store`` order.
    public let stores: [Store]

    /// Credits per unit of a consumable.
    struct Credit {
        var currency: Int32
        var amount: Int64
    }

    init(
        app: String, source: String, featureIds: [String], featureDescriptions: [String],
        currencyIds: [String], currencyDescriptions: [String], products: [CompiledProduct], details: [CatalogProduct],
        groups: [String], passGroups: [String] = [], grandfatherRules: [GrandfatherRule] = [], manageURLs: [Store: String] = [:],
        limits: CompiledLimits = CompiledLimits(), allowances: AllowanceRules = AllowanceRules()
    ) {
        self.limitRules = limits
        self.allowanceRules = allowances
        self.manageURLs = manageURLs
        let sold = Set(products.map(\.store))
        self.stores = Store.allCases.filter { sold.contains($0) }
        self.products = details
        self.passGroups = passGroups
        self.grandfatherRules = grandfatherRules
        var grandfatherGranters = [[Int]](repeating: [], count: featureIds.count)
        for (index, rule) in grandfatherRules.enumerated() {
            for feature in rule.grants { grandfatherGranters[feature].append(index) }
        }
        self.grandfatherGranters = grandfatherGranters
        self.app = app
        self.source = source
        self.featureIds = featureIds
        self.featureDescriptions = featureDescriptions
        self.currencyIds = currencyIds
        self.currencyDescriptions = currencyDescriptions
        self.compiledProducts = products
        self.groups = groups
        var productIndex: [String: Int] = [:]
        productIndex.reserveCapacity(products.count)
        for (index, product) in products.enumerated() { productIndex[product.id] = index }
        self.productIndex = productIndex
        var currencyIndex: [String: Int] = [:]
        for (index, id) in currencyIds.enumerated() { currencyIndex[id] = index }
        self.currencyIndex = currencyIndex
        var featureIndex: [String: Int] = [:]
        for (index, id) in featureIds.enumerated() { featureIndex[id] = index }
        self.featureIndex = featureIndex
        self.productTable = ByteKeyTable(products.map(\.id))
        self.currencyTable = ByteKeyTable(currencyIds)
        self.featureTable = ByteKeyTable(featureIds)
        var granters = [[Int]](repeating: [], count: featureIds.count)
        for (index, product) in products.enumerated() {
            for feature in product.grants { granters[feature].append(index) }
        }
        self.granters = granters
        var itemList: [(product: Int32, item: CompiledItem, source: String)] = []
        for (index, product) in products.enumerated() {
            for item in product.items ?? [] { itemList.append((Int32(index), item, product.id + "/" + item.sku)) }
        }
        self.itemList = itemList
        self.itemTable = ByteKeyTable(itemList.map(\.item.sku))
        var rules: [ProductRule] = []
        var ruleGrants: [Int32] = []
        var ruleCredits: [Credit] = []
        rules.reserveCapacity(products.count)
        for product in products {
            let grantsStart = Int32(ruleGrants.count)
            ruleGrants += product.grants.map { Int32($0) }
            let creditsStart = Int32(ruleCredits.count)
            ruleCredits += product.credits.map { Credit(currency: Int32($0.currency), amount: $0.amount) }
            var trialDays: Int32 = 0
            if case .trial(let days, _) = product.role { trialDays = Int32(days) }
            rules.append(
                ProductRule(
                    type: product.type, sharesWithFamily: product.sharesWithFamily, trialDays: trialDays,
                    group: Int32(product.group), passGroup: Int32(product.passGroup), durationMonths: Int32(product.durationMonths),
                    durationDays: Int32(product.durationDays), durationMilliseconds: product.durationMilliseconds,
                    grants: grantsStart..<Int32(ruleGrants.count), credits: creditsStart..<Int32(ruleCredits.count),
                    hasItems: product.items != nil))
        }
        self.rules = .allocatedCopy(of: rules)
        self.ruleGrants = .allocatedCopy(of: ruleGrants)
        self.ruleCredits = .allocatedCopy(of: ruleCredits)
        self.appBytes = .allocatedCopy(of: Array(app.utf8))
        var requiredApps: [String] = []
        var seenApps: Set<String> = []
        var appsListingProducts: Set<String> = []
        var appsRequiringAnyPurchase: Set<String> = []
        var groupHasIntroOffer = [Bool](repeating: false, count: groups.count)
        var groupIntroForNewSubscribers = [Bool](repeating: false, count: groups.count)
        for product in products {
            if case .upgrade(_, let requirement) = product.role {
                if seenApps.insert(requirement.app).inserted { requiredApps.append(requirement.app) }
                if requirement.anyOf != nil { appsListingProducts.insert(requirement.app) } else { appsRequiringAnyPurchase.insert(requirement.app) }
            }
            if product.introductoryOffer != nil, product.introAudience == .noIntroYet, groups.indices.contains(product.group) {
                groupHasIntroOffer[product.group] = true
            }
            if product.introductoryOffer != nil, product.introAudience == .newSubscribers, groups.indices.contains(product.group) {
                groupIntroForNewSubscribers[product.group] = true
            }
        }
        self.groupIntroForNewSubscribers = groupIntroForNewSubscribers
        self.introForNewSubscribers = groupIntroForNewSubscribers.contains(true)
        self.requiredApps = requiredApps
        self.appsListingProducts = appsListingProducts
        self.appsRequiringAnyPurchase = appsRequiringAnyPurchase
        self.groupHasIntroOffer = groupHasIntroOffer
        var offerList: [(product: Int, offer: SubscriptionOffer)] = []
        var groupOffers = [[Int32]](repeating: [], count: groups.count)
        for (index, product) in products.enumerated() where groups.indices.contains(product.group) {
            for offer in product.offers {
                groupOffers[product.group].append(Int32(offerList.count))
                offerList.append((index, offer))
            }
        }
        self.offerList = offerList
        self.offerTable = ByteKeyTable(offerList.map(\.offer.id))
        self.groupOffers = groupOffers
        // Groups whose facts evaluation gathers: those with offers, and those with retention rules
        // (whose conditions read the same facts).
        var retentionGroups = Set<Int>()
        for (index, product) in products.enumerated() where index < details.count && !details[index].retention.isEmpty {
            retentionGroups.insert(product.group)
        }
        self.offerGroups = groupOffers.indices.filter { !groupOffers[$0].isEmpty || retentionGroups.contains($0) }.map(Int32.init)
    }

    /// The product id closest to an id the catalog does not have, for an `unknown-product`
    /// warning's did-you-mean; `nil` when none is close (or `budget` ran out).
    func suggestion(forUnknownProduct id: String, budget: inout Suggestion.Budget) -> String? {
        remembered("p" + id, budget: &budget) { Suggestion.closest(to: id, in: compiledProducts.lazy.map(\.id), budget: &$0) }
    }

    /// The currency closest to one the catalog does not declare, as for products.
    func suggestion(forUnknownCurrency currency: String, budget: inout Suggestion.Budget) -> String? {
        remembered("c" + currency, budget: &budget) { Suggestion.closest(to: currency, in: currencyIds, budget: &$0) }
    }

    /// A suggestion from memory, else searched and remembered when the answer is the catalog's
    /// own: the search finished within its budget, or began with a whole one (a catalog too large
    /// to search for this id within a budget gives the same answer every time). An answer cut short
    /// by what earlier searches of the same result spent is not remembered.
    private func remembered(
        _ key: String, budget: inout Suggestion.Budget, search: (inout Suggestion.Budget) -> String?
    ) -> String? {
        if let known = rememberedSuggestions.withLock({ $0[key] }) { return known }
        let whole = budget.remaining >= Suggestion.Budget.perCall.remaining
        let found = search(&budget)
        if budget.remaining > 0 || whole {
            rememberedSuggestions.withLock { memory in
                if memory.count < Self.maxRememberedSuggestions { memory[key] = .some(found) }
            }
        }
        return found
    }

    deinit {
        rules.deallocate()
        ruleGrants.deallocate()
        ruleCredits.deallocate()
        appBytes.deallocate()
    }

    /// Product keys in catalog order: ids, prefixed with their store outside the App Store
    /// (`stripe:prod_Pro`).
    public var productIds: [String] { compiledProducts.map(\.id) }

    /// A product as the catalog defines it, by key (`pro.monthly`, `stripe:prod_Pro`), or `nil`
    /// when the catalog does not define it.
    public func product(_ id: String) -> CatalogProduct? {
        productIndex[id].map { products[$0] }
    }

    /// A declared feature with its description and the products that grant it, or `nil` when the
    /// catalog does not declare it.
    public func feature(_ id: String) -> CatalogFeature? {
        featureIndex[id].map { index in
            CatalogFeature(
                id: featureIds[index], description: featureDescriptions[index],
                grantedBy: granters[index].map { compiledProducts[$0].id })
        }
    }

    /// A declared currency with its description and the consumables that credit it, or `nil`
    /// when the catalog does not declare it.
    public func currency(_ id: String) -> CatalogCurrency? {
        currencyIndex[id].map { index in
            CatalogCurrency(
                id: currencyIds[index], description: currencyDescriptions[index],
                creditedBy: products.filter { $0.credits.contains { $0.currency == id } }.map(\.key))
        }
    }

    /// The product a receipt of `store` names by `id` (the store's id, as bytes): its index, or -1.
    /// App Store ids are looked up as they are; another store's with its key prefix.
    @inline(__always)
    func product(_ id: UnsafeRawBufferPointer, store: Store) -> Int32 {
        guard store != .appStore else { return productTable.find(id) }
        let prefix = store.keyPrefix
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + id.count) { buffer in
            for (offset, byte) in prefix.enumerated() { buffer[offset] = byte }
            for (offset, byte) in id.enumerated() { buffer[prefix.count + offset] = byte }
            return productTable.find(UnsafeRawBufferPointer(buffer))
        }
    }

    /// The product a receipt names by the text at `range` in its store; -1 when none.
    func product(_ range: TextRange, in receipt: ParsedReceipt) -> Int32 {
        guard !range.isNone else { return -1 }
        return receipt.arena.withUnsafeBytes { arena in
            product(UnsafeRawBufferPointer(rebasing: arena[Int(range.start)..<Int(range.start + range.count)]), store: receipt.store)
        }
    }

    /// Where customers of `store` manage a subscription of product `index`, as the answer shows
    /// it: the App Store's and Play's pages, the catalog's `stores` URL for Stripe and others.
    func manageURL(of index: Int) -> String? {
        let product = compiledProducts[index]
        return product.store.manageURL(productId: product.storeId, app: app) ?? manageURLs[product.store]
    }

    /// The type of a product, or `nil` when the catalog does not define it.
    public func productType(_ id: String) -> ProductType? {
        productIndex[id].map { compiledProducts[$0].type }
    }
}

extension CompiledCatalog {
    /// The win-back and promotional offers of a group's products: (index in ``offerList``,
    /// product, offer).
    func offers(inGroup group: Int32) -> [(index: Int32, product: Int, offer: SubscriptionOffer)] {
        guard groupOffers.indices.contains(Int(group)) else { return [] }
        return groupOffers[Int(group)].map { ($0, offerList[Int($0)].product, offerList[Int($0)].offer) }
    }
}
