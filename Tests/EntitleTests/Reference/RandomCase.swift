import Foundation

@testable import Entitle

/// A random catalog with receipts, for checking the compiled evaluator against the reference
/// evaluator: every product type, trials, upgrades across apps, subscription groups with intro
/// offers, retired and family-shareable products; receipts with copies of one transaction (with
/// and without cancellations, across and within receipts), conflicting copies, family sharing,
/// upgraded transactions, chains with grace periods, consumptions repeated across receipts, and
/// other apps' receipts for upgrade prerequisites. As the App Store moves: later-signed snapshots
/// of a transaction (refunds, partial refunds, their reversals, renewal date extensions, family
/// revokes), copies of one rank that disagree, renewal entries signed at different instants,
/// account tokens, commitments, and win-back and promotional offers with their redemptions and
/// Apple's list of eligible win-back offers.
///
/// Ids and instants are drawn from small pools so that collisions, ties and month ends are common.
struct RandomCase {
    let seed: UInt64
    let catalogJSON: String
    /// The old app's catalog (upgrade prerequisites, family sharing of them).
    let oldCatalogJSON: String
    /// Receipts as the decoder reads them (generated, rendered to JSON and decoded again).
    let receipts: [Receipt]
    /// The environments to accept, or `nil` for all.
    let environments: Set<String>?
    /// The customer's accounts to evaluate for (an App Store token and another store's account,
    /// sometimes both), or none for any.
    let accounts: [String]
    /// The customer's storefront, or `nil` when unknown.
    let storefront: String?

    /// The pool of account tokens (UUIDs), so that receipts name the account asked for and others.
    static let accounts = ["6F1C1C9E-3A5B-4C1D-9E2F-0A1B2C3D4E5F", "0b6e4c1a-9d2f-4e3a-8c7b-5a4d3e2f1a0b"]

    static let app = "com.example.random"
    static let oldApp = "com.example.old"
    static let oldProducts = ["com.example.old.pro", "com.example.old.plus", "com.example.old.coins"]

    /// The base instant: 2026-01-31T10:00:00Z, a month end.
    static let base: Int64 = 1_769_853_600_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    struct Product {
        enum Kind {
            case standard
            case trial(days: Int, paid: Int)
            case upgrade(replaces: Int, anyOf: [String]?)
            case pass(String, group: Int?)
            case subscription(group: Int, level: Int?, period: String?)
            case consumable
        }
        var id: String
        var kind: Kind
        var grants: [String]
        var credits: [String: Int64] = [:]
        var available = true
        var familyShareable = false
        var intro = false
        /// Whether the intro offer is for new subscribers only (`"for": "new-subscribers"`).
        var introForNew = false
        /// Win-back and promotional offers, as catalog JSON, with their ids and whether each is win-back.
        var offers: [(id: String, winBack: Bool, json: String)] = []
        /// Where it is sold; a web subscription's grace period; the storefronts it is sold in.
        var store: Store = .appStore
        var gracePeriod: String?
        var storefronts: [String]?
        /// An Advanced Commerce product's SKUs, each with what it grants (or credits, for a consumable).
        var items: [(sku: String, grants: [String], credits: [String: Int64])]?
        /// A subscription's retention rules, as catalog JSON.
        var retention: [String] = []
        /// The values it gives number limits, as catalog JSON (`"l0":5`).
        var limits: [String] = []
        /// Its allowances, as catalog JSON, and the currencies it makes unlimited.
        var allowances: [String] = []
        var unlimited: [String] = []
    }

    /// The number limits every case declares: `l0` takes the largest covering value, `l1` adds
    /// them times quantities; each with a default.
    static let limitIds = ["l0", "l1"]

    /// - Parameters:
    ///   - items: whether some App Store products are Advanced Commerce products with `items`
    ///     (drawn from a stream of their own: the cases without stay the same).
    ///   - retention: whether some App Store subscriptions have retention rules (another stream).
    init(seed: UInt64, items: Bool = false, retention: Bool = false, allowances: Bool = false) {
        self.seed = seed
        var random = SplitMix(seed: seed)
        let features = (0..<(2 + random.below(5))).map { "f\($0)" }
        let currencies = (0..<(1 + random.below(2))).map { "c\($0)" }
        var products: [Product] = []
        func someGrants(_ from: [String], atLeast: Int = 1) -> [String] {
            var chosen = from.filter { _ in random.below(3) == 0 }
            if chosen.count < atLeast, let first = from.randomElement(using: &random) { chosen = [first] }
            return chosen
        }
        // Trials and upgrades are App Store Connect's: they stand in for App Store products.
        var standardIndices: [Int] {
            products.indices.filter {
                if case .standard = products[$0].kind { return products[$0].store == .appStore }
                return false
            }
        }
        let count = 3 + random.below(9)
        for index in 0..<count {
            let id = "p\(index)"
            let choice = random.below(11)
            // A trial or an upgrade stands in for an earlier standard product: a standard one while there is none.
            let earlier = choice == 2 || choice == 3 ? standardIndices.randomElement(using: &random) : nil
            switch (choice, earlier) {
            case (2, let paid?):
                // A trial, granting a subset of what its paid product grants.
                products.append(
                    Product(
                        id: id, kind: .trial(days: [1, 7, 14, 30][random.below(4)], paid: paid),
                        grants: someGrants(products[paid].grants)))
            case (3, let full?):
                let anyOf: [String]? = random.below(3) == 0 ? nil : Array(Self.oldProducts.prefix(1 + random.below(2)))
                products.append(Product(id: id, kind: .upgrade(replaces: full, anyOf: anyOf), grants: someGrants(features)))
            case (0...3, _):
                products.append(Product(id: id, kind: .standard, grants: someGrants(features)))
            case (4, _), (5, _), (10, _):
                products.append(
                    Product(
                        id: id,
                        kind: .pass(
                            ["P1D", "P1M", "P1Y", "PT12H", "P2W", "P1M1D", "P3M"][random.below(7)],
                            group: random.below(3) == 0 ? nil : random.below(2)),
                        grants: someGrants(features)))
            case (6...8, _):
                let group = random.below(2)
                // Group 0 has levels, group 1 none; periods differ so crossgrades wait or not.
                products.append(
                    Product(
                        id: id,
                        kind: .subscription(
                            group: group, level: group == 0 ? 1 + random.below(3) : nil,
                            period: random.below(4) == 0 ? nil : ["P1M", "P1Y", "P12M"][random.below(3)]),
                        grants: someGrants(features), intro: random.below(2) == 0, introForNew: random.below(3) == 0))
            default:
                var credits: [String: Int64] = [:]
                for currency in currencies where random.below(2) == 0 || credits.isEmpty { credits[currency] = Int64(1 + random.below(50)) }
                products.append(Product(id: id, kind: .consumable, grants: [], credits: credits))
            }
            products[products.count - 1].available = random.below(8) != 0
            products[products.count - 1].familyShareable = random.below(3) == 0
            // Now and then sold in another store: Play (subscriptions `<product>:<basePlan>`), Stripe,
            // or the service's own checkout; App Store-only keys left out.
            let last = products.count - 1
            switch products[last].kind {
            case .standard, .pass, .subscription, .consumable:
                guard random.below(4) == 0 else { break }
                let store = [Store.play, .stripe, .external][random.below(3)]
                products[last].store = store
                products[last].familyShareable = false
                switch products[last].kind {
                case .pass, .subscription:
                    if store == .play { products[last].id += ":base\(random.below(2))" }
                    if case .subscription = products[last].kind, store != .play, random.below(2) == 0 {
                        products[last].gracePeriod = ["P3D", "P1W"][random.below(2)]
                    }
                default: break
                }
            default: break
            }
            if random.below(6) == 0 {
                products[last].storefronts = Array(["USA", "DEU", "JPN"].shuffled(using: &random).prefix(1 + random.below(2)))
            }
        }
        // Win-back and promotional offers on some subscriptions, conditions drawn from small pools.
        var offerCount = 0
        for index in products.indices {
            guard case .subscription = products[index].kind, products[index].store == .appStore, random.below(2) == 0 else { continue }
            for _ in 0..<(1 + random.below(2)) {
                products[index].offers.append(Self.offer(id: "o\(offerCount)", random: &random))
                offerCount += 1
            }
        }
        var rules: [String] = []
        // Draws for what later issues added come from a stream of their own, so the cases the
        // main stream made before stay the same cases.
        var extra = SplitMix(seed: seed ^ 0x0A99_5EED)
        for index in 0..<random.below(3) {
            var conditions =
                random.below(2) == 0
                ? [#""originalApplicationVersionBefore":"\#(["2.0", "1.10", "3"][random.below(3)])""#]
                : [#""originalPurchaseBefore":"\#(Instant(millisecondsSince1970: Self.base - Int64(random.below(40)) * Self.day).rfc3339)""#]
            // Now and then the platform too, or instead: every condition a rule states must hold.
            let platform = #""originalPlatform":\#([#"["macOS"]"#, #"["iOS","visionOS"]"#][extra.below(2)])"#
            switch extra.below(8) {
            case 0: conditions.append(platform)
            case 1: conditions = [platform]
            default: break
            }
            rules.append(#"{"id":"early\#(index)","grants":\#(Self.quoted(someGrants(features))),\#(conditions.joined(separator: ","))}"#)
        }
        if items {
            var skus = SplitMix(seed: seed ^ 0x17E4_5EED)
            for index in products.indices where products[index].store == .appStore && skus.below(3) == 0 {
                let credits: Bool
                switch products[index].kind {
                case .standard, .subscription: credits = false
                case .consumable: credits = true
                default: continue
                }
                products[index].items = (0..<(1 + skus.below(3))).map { number in
                    let sku = "\(products[index].id).sku\(number)"
                    if credits {
                        return (sku, [], [currencies[skus.below(currencies.count)]: Int64(1 + skus.below(20))])
                    }
                    // The first SKU grants what the product did, so a trial of it still grants a subset.
                    return (sku, number == 0 ? products[index].grants : features.filter { _ in skus.below(2) == 0 }, [:])
                }
            }
        }
        if retention {
            var rules = SplitMix(seed: seed ^ 0x4E7E_5EED)
            for index in products.indices where products[index].store == .appStore && rules.below(2) == 0 {
                guard case .subscription(let group, _, _) = products[index].kind else { continue }
                var list: [String] = []
                let locales = [#"["de"]"#, #"["fr","de-AT"]"#][rules.below(2)]
                if rules.below(2) == 0 { list.append(#"{"id":"r-de","message":"m-de","locales":\#(locales)}"#) }
                for offer in products[index].offers where !offer.winBack && rules.below(2) == 0 {
                    var rule = #"{"id":"r-\#(offer.id)","promotionalOffer":"\#(offer.id)""#
                    if rules.below(2) == 0 { rule += #","message":"m-offer""# }
                    if rules.below(2) == 0 { rule += #","paidAtLeast":"\#(["P1M", "P2W", "P40D"][rules.below(3)])""# }
                    if rules.below(2) == 0 { rule += #","waitBetween":"\#(["P1M", "P10D"][rules.below(2)])""# }
                    list.append(rule + "}")
                }
                let mates = products.indices.filter { other in
                    guard other != index, products[other].store == .appStore, products[other].available,
                        case .subscription(let otherGroup, _, _) = products[other].kind
                    else { return false }
                    return otherGroup == group
                }
                if let mate = mates.first, rules.below(2) == 0 {
                    var rule = #"{"id":"r-switch","alternateProduct":"\#(products[mate].id)""#
                    if rules.below(2) == 0 { rule += #","billingPlan":"\#(["monthly", "billed-upfront"][rules.below(2)])""# }
                    if rules.below(2) == 0 { rule += #","paidAtLeast":"P1M""# }
                    list.append(rule + "}")
                }
                if rules.below(2) == 0 {
                    list.append(#"{"id":"r-last","message":"m-last"\#(rules.below(2) == 0 ? #","waitBetween":"P1M""# : "")}"#)
                }
                products[index].retention = list
            }
        }
        var stores: [String] = []
        for store in [Store.stripe, .external] where random.below(2) == 0 {
            stores.append(#""\#(store.rawValue)":{"manage":"https://billing.example.com/\#(store.rawValue)"}"#)
        }
        // Number limits, from a stream of their own (the rest of the case is as without them): each
        // product that may have them gives some a value, now and then unlimited.
        var limitRandom = SplitMix(seed: seed ^ 0x11_1117)
        let limitDefaults = Self.limitIds.map { _ in Int64(limitRandom.below(4)) }
        for index in products.indices where products[index].items == nil {
            if case .consumable = products[index].kind { continue }
            for id in Self.limitIds where limitRandom.below(2) == 0 {
                let value = [#"0"#, #"2"#, #"5"#, #"50"#, #""unlimited""#][limitRandom.below(5)]
                products[index].limits.append(#""\#(id)":\#(value)"#)
            }
        }
        // Allowances, free allowances and unlimited currencies, from a stream of their own too.
        var allowanceRandom = SplitMix(seed: seed ^ 0xA110_7A9C)
        var freeAllowances: [String] = []
        if allowances, allowanceRandom.below(6) == 0 {
            for index in products.indices where products[index].items == nil {
                if case .consumable = products[index].kind { continue }
                if allowanceRandom.below(2) == 0 {
                    var lifetime = false
                    if case .standard = products[index].kind { lifetime = true }
                    if case .upgrade = products[index].kind { lifetime = true }
                    let everyChoices = lifetime ? ["P1D", "P1W", "P1M"] : ["", "P1D", "P1W", "P1M"]
                    let every = everyChoices[allowanceRandom.below(everyChoices.count)]
                    let expires = ["", "never", "P3D", "PT12H"][allowanceRandom.below(4)]
                    let amount = 1 + allowanceRandom.below(40)
                    var fields = [#""currency":"\#(currencies[allowanceRandom.below(currencies.count)])""#, #""amount":\#(amount)"#]
                    if !every.isEmpty { fields.append(#""every":"\#(every)""#) }
                    if !expires.isEmpty { fields.append(#""expires":"\#(expires)""#) }
                    if expires.isEmpty, allowanceRandom.below(2) == 0 { fields.append(#""rollover":\#(allowanceRandom.below(2 * amount))"#) }
                    if products[index].intro, allowanceRandom.below(2) == 0 { fields.append(#""introOffer":\#(allowanceRandom.below(5))"#) }
                    products[index].allowances.append("{" + fields.joined(separator: ",") + "}")
                }
                if allowanceRandom.below(4) == 0 { products[index].unlimited = [currencies[allowanceRandom.below(currencies.count)]] }
            }
            if allowanceRandom.below(2) == 0 {
                let every = ["P1D", "P1W", "P1M"][allowanceRandom.below(3)]
                let expires = allowanceRandom.below(3) == 0 ? #","expires":"PT12H""# : ""
                freeAllowances.append(
                    #"{"currency":"\#(currencies[allowanceRandom.below(currencies.count)])","amount":\#(1 + allowanceRandom.below(5)),"every":"\#(every)"\#(expires)}"#
                )
            }
        }
        let limitDeclarations = zip(Self.limitIds, limitDefaults).enumerated().map { index, limit in
            #""\#(limit.0)":{"description":"Limit \#(limit.0)","default":\#(limit.1)\#(index == 1 ? #","combine":"sum""# : "")}"#
        }
        catalogJSON = Self.catalogJSON(
            features: features, currencies: currencies, products: products, grandfathered: rules, stores: stores, limits: limitDeclarations,
            freeAllowances: freeAllowances)
        oldCatalogJSON = #"""
            {"app":"\#(Self.oldApp)","features":{"pro":"Pro"},"currencies":{"coins":"Coins"},"products":[
             {"id":"com.example.old.pro","type":"non-consumable","name":"Pro","grants":["pro"],"familyShareable":true},
             {"id":"com.example.old.plus","type":"non-consumable","name":"Plus","grants":["pro"]},
             {"id":"com.example.old.coins","type":"consumable","name":"Coins","credits":{"coins":1}}]}
            """#
        receipts =
            Self.receipts(products: products, features: features, currencies: currencies, random: &random)
            + Self.otherStoreReceipts(products: products, random: &random)
        environments = [nil, nil, ["production"], ["production", "sandbox"]][random.below(4)]
        let account = random.below(3) == 0 ? [Self.accounts[0].lowercased(), Self.accounts[1].lowercased(), "acct-7"][random.below(3)] : nil
        storefront = [nil, "USA", "DEU", "us"][random.below(4)]
        // One customer with accounts in two stores: a second account, drawn last so that the
        // cases drawn before stay as they were.
        var accounts = account.map { [$0] } ?? []
        if let account, random.below(2) == 0 {
            accounts.append(account == "acct-7" ? Self.accounts[random.below(2)] : ["acct-7", "acct-9"][random.below(2)])
        }
        self.accounts = accounts
    }

    /// One offer: win-back or promotional, its conditions each present or not.
    static func offer(id: String, random: inout SplitMix) -> (id: String, winBack: Bool, json: String) {
        let winBack = random.below(2) == 0
        var fields = [#""id":"\#(id)""#, #""type":"\#(winBack ? "win-back" : "promotional")""#]
        if random.below(2) == 0 {
            fields += [#""mode":"free-trial""#, #""duration":"P1M""#]
        } else {
            fields += [#""mode":"pay-as-you-go""#, #""duration":"P1M""#, #""periods":\#(1 + random.below(3))"#]
        }
        // Durations counted in days: P1W 7, P10D 10, P1M 30, P2M 60, P1Y 365.
        let durations = [("P1W", 7), ("P10D", 10), ("P1M", 30), ("P2M", 60), ("P1Y", 365)]
        let paidLeast = random.below(2) == 0 ? durations[random.below(4)] : nil
        if let paidLeast { fields.append(#""paidAtLeast":"\#(paidLeast.0)""#) }
        if winBack {
            let least = random.below(3) == 0 ? nil : durations[random.below(3)]
            var most = random.below(3) == 0 ? nil : durations[1 + random.below(4)]
            if let low = least, let high = most, high.1 < low.1 { most = nil }
            if let least { fields.append(#""lapsedAtLeast":"\#(least.0)""#) }
            if let most { fields.append(#""lapsedAtMost":"\#(most.0)""#) }
        } else {
            if random.below(3) != 0 { fields.append(#""subscribed":\#(random.below(2) == 0)"#) }
            // At most some paid time, never below the least.
            if random.below(3) == 0 {
                let most = durations[random.below(5)]
                if most.1 >= (paidLeast?.1 ?? 0) { fields.append(#""paidAtMost":"\#(most.0)""#) }
            }
        }
        if random.below(2) == 0 { fields.append(#""waitBetween":"\#(durations[random.below(5)].0)""#) }
        if random.below(4) == 0 {
            let from = base + Int64(random.below(40) - 20) * day
            fields.append(#""from":"\#(Instant(millisecondsSince1970: from).rfc3339)""#)
            if random.below(2) == 0 {
                fields.append(#""until":"\#(Instant(millisecondsSince1970: from + Int64(1 + random.below(30)) * day).rfc3339)""#)
            }
        } else if random.below(6) == 0 {
            fields.append(#""until":"\#(Instant(millisecondsSince1970: base + Int64(random.below(40) - 10) * day).rfc3339)""#)
        }
        return (id, winBack, "{" + fields.joined(separator: ",") + "}")
    }

    // MARK: Catalog

    static func quoted(_ items: [String]) -> String { "[" + items.map { "\"\($0)\"" }.joined(separator: ",") + "]" }

    static func catalogJSON(
        features: [String], currencies: [String], products: [Product], grandfathered: [String], stores: [String] = [],
        limits: [String] = [], freeAllowances: [String] = []
    ) -> String {
        var entries: [String] = []
        for product in products {
            var fields = [#""id":"\#(product.id)""#]
            // A group holds one store's products: another store's groups have names of their own.
            let suffix = product.store == .appStore ? "" : "-" + product.store.rawValue
            switch product.kind {
            case .standard:
                fields += [#""type":"non-consumable""#, #""name":"Standard""#]
                if product.store == .appStore { fields.append(#""priceTier":3"#) }
            case .trial(let days, let paid):
                fields += [
                    #""type":"non-consumable""#, #""name":"\#(days)-day Trial""#, #""priceTier":0"#,
                    #""trialOf":"\#(products[paid].id)""#,
                ]
            case .upgrade(let replaces, let anyOf):
                var requires = #""app":"\#(oldApp)""#
                if let anyOf { requires += #","anyOf":\#(quoted(anyOf))"# }
                fields += [
                    #""type":"non-consumable""#, #""name":"Upgrade""#, #""priceTier":2"#,
                    #""upgrade":{"replaces":"\#(products[replaces].id)","requires":{\#(requires)}}"#,
                ]
            case .pass(let duration, let group):
                fields += [#""type":"non-renewing-subscription""#, #""name":"Pass""#, #""duration":"\#(duration)""#]
                if let group { fields.append(#""group":"passes\#(group)\#(suffix)""#) }
            case .subscription(let group, let level, let period):
                fields += [#""type":"auto-renewable-subscription""#, #""name":"Subscription""#, #""group":"g\#(group)\#(suffix)""#]
                if let grace = product.gracePeriod { fields.append(#""gracePeriod":"\#(grace)""#) }
                if let level { fields.append(#""level":\#(level)"#) }
                if let period { fields.append(#""duration":"\#(period)""#) }
                if product.intro {
                    let audience = product.introForNew ? #","for":"new-subscribers""# : ""
                    fields.append(#""introOffer":{"mode":"free-trial","duration":"P1W"\#(audience)}"#)
                }
                if !product.offers.isEmpty { fields.append(#""offers":[\#(product.offers.map(\.json).joined(separator: ","))]"#) }
            case .consumable:
                let credits = product.credits.sorted { $0.key < $1.key }.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",")
                fields += [#""type":"consumable""#, #""name":"Credits""#]
                if product.items == nil { fields.append(#""credits":{\#(credits)}"#) }
            }
            if let items = product.items {
                let members = items.map { item in
                    let credits = item.credits.sorted { $0.key < $1.key }.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",")
                    let gives = item.credits.isEmpty ? #""grants":\#(quoted(item.grants))"# : #""credits":{\#(credits)}"#
                    return #""\#(item.sku)":{\#(gives)}"#
                }
                fields.append(#""items":{\#(members.joined(separator: ","))}"#)
            } else if case .consumable = product.kind {
            } else {
                fields.append(#""grants":\#(quoted(product.grants))"#)
            }
            if !product.retention.isEmpty { fields.append(#""retention":[\#(product.retention.joined(separator: ","))]"#) }
            if !product.limits.isEmpty { fields.append(#""limits":{\#(product.limits.joined(separator: ","))}"#) }
            if !product.allowances.isEmpty { fields.append(#""allowances":[\#(product.allowances.joined(separator: ","))]"#) }
            if !product.unlimited.isEmpty { fields.append(#""unlimited":\#(quoted(product.unlimited))"#) }
            if product.store != .appStore { fields.append(#""store":"\#(product.store.rawValue)""#) }
            if let storefronts = product.storefronts { fields.append(#""storefronts":\#(quoted(storefronts))"#) }
            if !product.available { fields.append(#""available":false"#) }
            if product.familyShareable { fields.append(#""familyShareable":true"#) }
            entries.append("{" + fields.joined(separator: ",") + "}")
        }
        let featureMembers = features.map { #""\#($0)":"Feature \#($0)""# }.joined(separator: ",")
        let currencyMembers = currencies.map { #""\#($0)":"Currency \#($0)""# }.joined(separator: ",")
        return """
            {"app":"\(app)","features":{\(featureMembers)},"currencies":{\(currencyMembers)},\(limits.isEmpty ? "" : #""limits":{\#(limits.joined(separator: ","))},"#)\(freeAllowances.isEmpty ? "" : #""allowances":[\#(freeAllowances.joined(separator: ","))],"#)
             "legal":{"auto-renewable-subscription":"Renews.","non-renewing-subscription":"Does not renew."},
             "products":[\(entries.joined(separator: ",\n"))],
             "stores":{\(stores.joined(separator: ","))},
             "grandfathered":[\(grandfathered.joined(separator: ","))]}
            """
    }

    // MARK: Receipts

    /// An instant near the base: whole days and hours apart, so ties and exact boundaries happen.
    static func instant(_ random: inout SplitMix) -> Int64 {
        base + Int64(random.below(70) - 20) * day + Int64(random.below(4)) * 6 * hour
    }

    static func receipts(products: [Product], features: [String], currencies: [String], random: inout SplitMix) -> [Receipt] {
        // Draws for what later issues added, from a stream of their own (see `init`).
        var extra = SplitMix(
            seed: {
                var copy = random
                return copy.next() ^ 0x0A99_5EED
            }())
        // The purchases, before they are spread over receipts as copies.
        var transactions: [Transaction] = []
        var renewals: [Renewal] = []
        let allOffers = products.flatMap(\.offers)
        var nextId = 1
        func id() -> String {
            defer { nextId += 1 }
            return "\(nextId)"
        }
        let purchases = random.below(12)
        for _ in 0..<purchases {
            // The App Store's products, now and then another store's (an unknown product here).
            let appStore = products.filter { $0.store == .appStore }
            let product = appStore.isEmpty || random.below(12) == 0 ? products[random.below(products.count)] : appStore[random.below(appStore.count)]
            var transaction = Transaction(productId: product.id, transactionId: id(), purchaseDate: Instant(millisecondsSince1970: instant(&random)))
            if random.below(6) == 0 { transaction.cancellationDate = Instant(millisecondsSince1970: instant(&random)) }
            if random.below(5) == 0 { transaction.ownership = .familyShared }
            if random.below(4) == 0 {
                transaction.originalPurchaseDate = Instant(
                    millisecondsSince1970: transaction.purchaseDate.millisecondsSince1970 - Int64(random.below(3)) * day)
            }
            switch product.kind {
            case .consumable:
                transaction.quantity = [1, 1, 2, 3][random.below(4)]
                // Refunded in part at its own purchase instant: only the units left ever credit.
                if random.below(8) == 0 {
                    transaction.cancellationDate = transaction.purchaseDate
                    transaction.revocationType = .refundProrated
                    transaction.revocationPercentage = [33.333, 50, 100][random.below(3)]
                }
            case .pass(_, nil): transaction.quantity = [1, 1, 2, 3][random.below(4)]
            case .subscription:
                // A chain of renewals, each paying one month.
                let chain = transaction.transactionId
                var start = transaction.purchaseDate.millisecondsSince1970
                let length = 1 + random.below(4)
                // The first periods of some chains bought with an offer code that says its period.
                let offerRun = extra.below(3) == 0 ? 1 + extra.below(3) : 0
                let offerPeriod = [ISODuration("P1M")!, ISODuration("P3M")!, ISODuration("P1Y")!][extra.below(3)]
                for period in 0..<length {
                    var renewal = transaction
                    if period > 0 {
                        renewal.transactionId = id()
                        renewal.cancellationDate = random.below(8) == 0 ? Instant(millisecondsSince1970: instant(&random)) : nil
                        // A gap now and then: the customer came back later.
                        if random.below(4) == 0 { start += Int64(random.below(10)) * day }
                    }
                    let end = ISODuration.add(months: 1, days: 0, milliseconds: 0, to: start)
                    renewal.originalTransactionId = chain
                    renewal.purchaseDate = Instant(millisecondsSince1970: start)
                    renewal.expiresDate = random.below(15) == 0 ? nil : Instant(millisecondsSince1970: end)
                    renewal.isTrialPeriod = period == 0 && random.below(3) == 0
                    renewal.isIntroOfferPeriod = period == 0 && !renewal.isTrialPeriod && random.below(4) == 0
                    renewal.isUpgraded = random.below(10) == 0
                    // A purchase with a win-back or promotional offer (now and then one the
                    // catalog does not have, or of the other type).
                    if random.below(5) == 0, let offer = allOffers.randomElement(using: &random) {
                        renewal.offerId = random.below(10) == 0 ? "o99" : offer.id
                        renewal.offerType = (offer.winBack != (random.below(10) == 0)) ? .winBack : .promotional
                    }
                    if period < offerRun {
                        renewal.offerType = .offerCode
                        renewal.offerId = extra.below(8) == 0 ? "autumn" : "spring"
                        renewal.offerPeriod = extra.below(8) == 0 ? ISODuration("P2M")! : offerPeriod
                        renewal.offerDiscountType = .payAsYouGo
                    }
                    if random.below(4) == 0 { renewal.appAccountToken = accounts[random.below(2)] }
                    if random.below(8) == 0 {
                        renewal.billingPlan = .monthly
                        renewal.commitment = Transaction.Commitment(
                            period: 1 + period, periods: 12, endsAt: Instant(millisecondsSince1970: start + 365 * day))
                    }
                    // Sometimes the chain moves to another product of the catalog.
                    if random.below(6) == 0,
                        let other = products.filter({
                            if case .subscription = $0.kind { return $0.store == .appStore }
                            return false
                        })
                        .randomElement(using: &random)
                    {
                        renewal.productId = other.id
                    }
                    transactions.append(renewal)
                    start = end
                }
                // Renewal snapshots, some signed before others, some saying another thing.
                for _ in 0..<random.below(3) {
                    let others = products.filter {
                        if case .subscription = $0.kind { return $0.store == .appStore }
                        return false
                    }
                    let price =
                        extra.below(3) == 0
                        ? Price(amount: ["9.99", "4.5", "12"][extra.below(3)], currency: ["EUR", "USD"][extra.below(2)]) : nil
                    renewals.append(
                        Renewal(
                            productId: random.below(4) == 0 ? others.randomElement(using: &random)?.id : product.id,
                            originalTransactionId: random.below(8) == 0 ? "999" : chain,
                            willRenew: [true, false, nil][random.below(3)], isInBillingRetry: [true, false, nil][random.below(3)],
                            gracePeriodExpiresDate: random.below(3) == 0
                                ? nil : Instant(millisecondsSince1970: start + Int64(random.below(20) - 4) * day),
                            signedDate: random.below(2) == 0 ? nil : Instant(millisecondsSince1970: instant(&random)),
                            renewsTo: random.below(3) == 0 ? others.randomElement(using: &random)?.id : nil,
                            expirationIntent: random.below(3) == 0 ? .billingError : nil,
                            winBackOffers: random.below(3) == 0 ? allOffers.filter { $0.winBack && random.below(2) == 0 }.map(\.id) : nil,
                            appAccountToken: random.below(5) == 0 ? accounts[random.below(2)] : nil, renewalPrice: price?.amount,
                            currency: price?.currency))
                }
                continue
            case .pass(_, let group?):
                transaction.quantity = [1, 1, 2, 3][random.below(4)]
                // Another pass of the group bought soon after queues behind this one.
                let mates = products.filter {
                    if $0.id != product.id, case .pass(_, let other?) = $0.kind { return other == group }
                    return false
                }
                if random.below(4) != 0, let mate = mates.randomElement(using: &random) {
                    transactions.append(
                        Transaction(
                            productId: mate.id, transactionId: id(),
                            purchaseDate: Instant(
                                millisecondsSince1970: transaction.purchaseDate.millisecondsSince1970 + Int64(random.below(4)) * day)))
                }
            default: break
            }
            if random.below(6) == 0 { transaction.appAccountToken = accounts[random.below(2)] }
            transactions.append(transaction)
        }
        // Advanced Commerce: each purchase of a product with `items` lists some of its SKUs (now
        // and then one it does not declare), some revoked or refunded, in full or in part.
        for position in transactions.indices {
            guard let items = products.first(where: { $0.id == transactions[position].productId })?.items else { continue }
            let skus = items.map(\.sku).filter { _ in extra.below(2) == 0 } + (extra.below(8) == 0 ? ["zz.sku"] : [])
            transactions[position].items = skus.map { sku in
                var item = Transaction.Item(sku: sku, price: ["1.99", "5", "0.5"][extra.below(3)])
                let when = Instant(millisecondsSince1970: instant(&extra))
                switch extra.below(6) {
                case 0: item.revocationDate = when
                case 1: item.refunds = [Transaction.Item.Refund(amount: item.price, date: when, type: .full)]
                case 2: item.refunds = [Transaction.Item.Refund(amount: "0.25", date: when, type: [.prorated, .custom][extra.below(2)])]
                default: break
                }
                return item
            }
        }
        // Snapshots as the App Store sends them over time: a refund (whole, partial, or a family
        // revoke), then sometimes its reversal; a renewal date extension. Each signed later.
        for transaction in transactions where random.below(4) == 0 {
            let purchase = transaction.purchaseDate.millisecondsSince1970
            var first = transaction
            first.signedDate = random.below(3) == 0 ? nil : Instant(millisecondsSince1970: purchase + Int64(random.below(3)) * hour)
            // The copy already spread stays as it is; this one is signed (or not) at purchase.
            transactions.append(first)
            var signed = purchase + Int64(1 + random.below(30)) * day + Int64(random.below(4)) * 6 * hour
            var later = first
            later.signedDate = Instant(millisecondsSince1970: signed)
            if transaction.expiresDate != nil, random.below(3) == 0 {
                // A renewal date extension: the same transaction, expiring later.
                later.expiresDate = Instant(millisecondsSince1970: transaction.expiresDate!.millisecondsSince1970 + Int64(1 + random.below(15)) * day)
                transactions.append(later)
                continue
            }
            later.cancellationDate = Instant(millisecondsSince1970: signed - Int64(random.below(3)) * day)
            switch random.below(4) {
            case 0 where transaction.ownership == .familyShared: later.revocationType = .familyRevoke
            case 1, 2:
                later.revocationType = .refundProrated
                later.revocationPercentage = [25, 33.333, 50, 99.999, 100, 0][random.below(6)]
            default: later.revocationType = random.below(2) == 0 ? .refundFull : nil
            }
            later.revocationReason = random.below(2) == 0 ? .appIssue : nil
            transactions.append(later)
            if random.below(3) == 0 {
                // The refund reversed: a later snapshot without the cancellation.
                signed += Int64(1 + random.below(10)) * day
                var reversed = first
                reversed.signedDate = Instant(millisecondsSince1970: signed)
                transactions.append(reversed)
            }
        }
        // Now and then a product the catalog does not define.
        if random.below(5) == 0 {
            transactions.append(
                Transaction(productId: "p.unknown", transactionId: id(), purchaseDate: Instant(millisecondsSince1970: instant(&random))))
        }
        // Copies: a transaction repeated within or across receipts, sometimes cancelled in the
        // copy only, sometimes (rarely) naming another product.
        let receiptCount = 1 + random.below(3)
        var spread = [[Transaction]](repeating: [], count: receiptCount)
        for transaction in transactions {
            spread[random.below(receiptCount)].append(transaction)
            if random.below(4) == 0 {
                var copy = transaction
                if random.below(2) == 0 { copy.cancellationDate = Instant(millisecondsSince1970: instant(&random)) }
                if random.below(3) == 0 { copy.originalPurchaseDate = nil }
                if random.below(12) == 0 { copy.productId = products[random.below(products.count)].id }
                spread[random.below(receiptCount)].append(copy)
            }
        }
        // Consumptions, some repeated in other receipts (the same or, rarely, conflicting).
        var consumptions = [[Consumption]](repeating: [], count: receiptCount)
        for index in 0..<random.below(5) {
            let currency = random.below(6) == 0 ? "unknown" : currencies[random.below(currencies.count)]
            let consumption = Consumption(
                id: "u\(index)", currency: currency, amount: Int64(1 + random.below(30)),
                date: Instant(millisecondsSince1970: instant(&random)))
            let home = random.below(receiptCount)
            consumptions[home].append(consumption)
            if receiptCount > 1, random.below(3) == 0 {
                var copy = consumption
                switch random.below(6) {
                case 0: copy.amount += 1
                // Copies that disagree on the date, by a millisecond's fraction or by hours.
                case 1: copy.date = Instant(millisecondsSince1970: consumption.date.millisecondsSince1970 + 500)
                case 2: copy.date = Instant(millisecondsSince1970: consumption.date.millisecondsSince1970 - 6 * hour)
                default: break
                }
                consumptions[(home + 1) % receiptCount].append(copy)
            }
        }
        // Grants of access, some copied to another receipt (the same, or now and then not).
        var grants = [[Grant]](repeating: [], count: receiptCount)
        for index in 0..<random.below(3) {
            var granted = features.filter { _ in random.below(3) == 0 }
            if random.below(5) == 0 { granted.append("undeclared") }
            let start = instant(&random)
            let grant = Grant(
                id: "g\(index)", features: granted, start: Instant(millisecondsSince1970: start),
                end: random.below(3) == 0 ? nil : Instant(millisecondsSince1970: start + Int64(1 + random.below(20)) * day),
                revokedAt: random.below(5) == 0 ? Instant(millisecondsSince1970: instant(&random)) : nil)
            let home = random.below(receiptCount)
            grants[home].append(grant)
            if receiptCount > 1, random.below(3) == 0 {
                var copy = grant
                switch random.below(5) {
                case 0: copy.end = nil
                // Copies that disagree on the start, by a fraction of a second or by hours.
                case 1: copy.start = Instant(millisecondsSince1970: start + 500)
                case 2: copy.start = Instant(millisecondsSince1970: start + 6 * hour)
                default: break
                }
                grants[(home + 1) % receiptCount].append(copy)
            }
        }
        var result: [Receipt] = []
        for index in 0..<receiptCount {
            let ownRenewals = index == 0 ? renewals : renewals.filter { _ in random.below(3) == 0 }
            var receipt = Receipt(
                app: app, transactions: spread[index], renewals: ownRenewals, consumptions: consumptions[index],
                grants: grants[index])
            receipt.environment = [nil, "production", "sandbox", "xcode"][random.below(4)]
            receipt.originalApplicationVersion = [nil, "1.0", "1.9", "1.10.2", "2.0", "2.1", "beta"][random.below(7)]
            if random.below(2) == 0 {
                receipt.originalPurchaseDate = Instant(millisecondsSince1970: instant(&random) - Int64(random.below(30)) * day)
            }
            receipt.originalPlatform = [nil, .iOS, .macOS, .visionOS][extra.below(4)]
            // Now and then the customer rescinds consent (Apple's RESCIND_CONSENT).
            if extra.below(10) == 0 { receipt.consentRescinded = Instant(millisecondsSince1970: instant(&extra)) }
            result.append(receipt)
        }
        // The old app's receipts: prerequisites, with copies and refunds across them.
        for _ in 0..<random.below(3) {
            var old = Receipt(app: oldApp)
            for _ in 0..<random.below(3) {
                var purchase = Transaction(
                    productId: oldProducts[random.below(oldProducts.count)], transactionId: "o\(random.below(3))",
                    purchaseDate: Instant(millisecondsSince1970: instant(&random)),
                    cancellationDate: random.below(3) == 0 ? Instant(millisecondsSince1970: instant(&random)) : nil,
                    ownership: random.below(3) == 0 ? .familyShared : .purchased)
                // Snapshots over time: signed copies, a refund signed after its cancellation, its reversal.
                if random.below(3) == 0 {
                    purchase.signedDate = Instant(millisecondsSince1970: instant(&random))
                    var later = purchase
                    later.signedDate = Instant(millisecondsSince1970: purchase.signedDate!.millisecondsSince1970 + Int64(1 + random.below(10)) * day)
                    later.cancellationDate = later.cancellationDate == nil ? purchase.signedDate : nil
                    old.transactions.append(later)
                }
                old.transactions.append(purchase)
            }
            result.append(old)
        }
        if random.below(6) == 0 {
            result.append(
                Receipt(
                    app: "com.example.unrelated",
                    transactions: [
                        Transaction(productId: products[0].id, transactionId: "1", purchaseDate: Instant(millisecondsSince1970: base))
                    ]))
        }
        // Through JSON and the decoder, as a service would read them.
        return result.map { try! ReceiptDecoder.decode(Data($0.json.utf8)) }
    }

    /// Receipts of the other stores the catalog sells in: purchases pending payment (then paid in
    /// a later snapshot), Play purchases not acknowledged, accounts and storefronts as those stores
    /// write them, subscription chains with renewal entries that pause, retry billing or give a
    /// grace date. Transaction ids are drawn from the App Store's pool, so two stores' ids meet.
    static func otherStoreReceipts(products: [Product], random: inout SplitMix) -> [Receipt] {
        var result: [Receipt] = []
        for store in [Store.play, .stripe, .external] {
            let sold = products.filter { $0.store == store }
            guard !sold.isEmpty, random.below(4) != 0 else { continue }
            var transactions: [Transaction] = []
            var renewals: [Renewal] = []
            let accounts = [Self.accounts[0], Self.accounts[1].uppercased(), "acct-7"]
            for _ in 0..<(1 + random.below(5)) {
                let product = sold[random.below(sold.count)]
                let id = "\(1 + random.below(12))"
                var purchase = Transaction(productId: product.id, transactionId: id, purchaseDate: Instant(millisecondsSince1970: instant(&random)))
                if random.below(6) == 0 { purchase.pending = true }
                if store == .play, random.below(5) == 0 { purchase.acknowledged = false }
                if random.below(4) == 0 { purchase.account = accounts[random.below(accounts.count)] }
                if random.below(4) == 0 { purchase.storefront = ["USA", "DEU", "JPN"][random.below(3)] }
                if random.below(8) == 0 { purchase.cancellationDate = Instant(millisecondsSince1970: instant(&random)) }
                switch product.kind {
                case .subscription:
                    // A chain of periods, and entries saying what happens next.
                    var start = purchase.purchaseDate.millisecondsSince1970
                    for period in 0..<(1 + random.below(3)) {
                        var renewal = purchase
                        if period > 0 {
                            renewal.transactionId = "\(id).\(period)"
                            renewal.pending = false
                            renewal.acknowledged = nil
                        }
                        let end = ISODuration.add(months: 1, days: 0, milliseconds: 0, to: start)
                        renewal.originalTransactionId = id
                        renewal.purchaseDate = Instant(millisecondsSince1970: start)
                        renewal.expiresDate = Instant(millisecondsSince1970: end)
                        transactions.append(renewal)
                        start = end
                    }
                    for _ in 0..<random.below(3) {
                        renewals.append(
                            Renewal(
                                productId: product.id, originalTransactionId: id, willRenew: [true, false, nil][random.below(3)],
                                isInBillingRetry: [true, false, nil][random.below(3)],
                                gracePeriodExpiresDate: store == .play && random.below(3) == 0
                                    ? Instant(millisecondsSince1970: start + Int64(random.below(10)) * day) : nil,
                                signedDate: random.below(2) == 0 ? nil : Instant(millisecondsSince1970: instant(&random)),
                                pausedUntil: random.below(3) == 0 ? Instant(millisecondsSince1970: start + Int64(random.below(20)) * day) : nil,
                                account: random.below(5) == 0 ? accounts[random.below(accounts.count)] : nil))
                    }
                    continue
                case .pass, .consumable:
                    purchase.quantity = [1, 1, 2][random.below(3)]
                default: break
                }
                // A pre-order released later (or, as data may say, earlier); Play's purchase
                // options (the catalog declares none of these, so the bare product counts) and a
                // prepaid pass's top-up instant.
                if random.below(5) == 0 {
                    let offset = Int64(random.below(40)) * day - 5 * day
                    purchase.releaseDate = Instant(millisecondsSince1970: purchase.purchaseDate.millisecondsSince1970 + offset)
                }
                if store == .play, random.below(4) == 0 { purchase.purchaseOptionId = ["buy", "rent"][random.below(2)] }
                if store == .play, case .pass = product.kind, random.below(3) == 0 {
                    purchase.topUpAfter = Instant(millisecondsSince1970: purchase.purchaseDate.millisecondsSince1970 + Int64(random.below(30)) * day)
                }
                transactions.append(purchase)
                // Paid later: a snapshot without `pending`, signed when the payment went through.
                if purchase.pending, random.below(2) == 0 {
                    var paid = purchase
                    paid.pending = false
                    paid.signedDate = Instant(millisecondsSince1970: purchase.purchaseDate.millisecondsSince1970 + Int64(1 + random.below(5)) * day)
                    transactions.append(paid)
                }
            }
            // A Play subscription replacing another (`linkedPurchaseToken`), its purchases sometimes
            // in a receipt of their own: the replaced chain ends where the new one starts, whichever
            // receipt each is in.
            var moved: [Transaction] = []
            let chains = Array(Set(transactions.compactMap { $0.expiresDate == nil ? nil : $0.originalTransactionId })).sorted()
            if store == .play, chains.count > 1, random.below(2) == 0 {
                let replaced = chains[random.below(chains.count)]
                let replacing = chains.filter { $0 != replaced }[random.below(chains.count - 1)]
                for index in transactions.indices where transactions[index].originalTransactionId == replacing {
                    transactions[index].linkedPurchaseToken = replaced
                }
                if random.below(2) == 0 {
                    moved = transactions.filter { $0.originalTransactionId == replacing }
                    transactions.removeAll { $0.originalTransactionId == replacing }
                }
            }
            // Refunds and voids reported apart (`revocations`): of a purchase here, of a line of
            // one, or of none, sometimes in a receipt of their own; the purchase sometimes also
            // has a copy signed later, which takes the facts known by then.
            var facts: [Revocation] = []
            if store != .appStore, !transactions.isEmpty, random.below(2) == 0 {
                var voidedOnce: Set<String> = []
                for _ in 0..<(1 + random.below(3)) {
                    let target = random.below(6) == 0 ? "nobody" : transactions[random.below(transactions.count)].transactionId
                    var fact = Revocation(transactionId: target, date: Instant(millisecondsSince1970: instant(&random)))
                    if store == .play {
                        // At most one unit voided per purchase in one receipt: never more than it bought.
                        if random.below(2) == 0, voidedOnce.insert(target).inserted { fact.voidedQuantity = 1 }
                    } else {
                        switch random.below(4) {
                        case 0: break
                        case 1: fact.amountRefunded = Int64(100 * (1 + random.below(20)))
                        default:
                            fact.amount = Int64(100 * (1 + random.below(10)))
                            fact.id = random.below(2) == 0 ? "re_\(random.below(3))" : nil
                        }
                        if fact.amount != nil || fact.amountRefunded != nil, random.below(3) > 0 { fact.amountPaid = 1500 }
                    }
                    facts.append(fact)
                    if random.below(3) == 0, let index = transactions.firstIndex(where: { $0.transactionId == target }),
                        transactions[index].signedDate == nil
                    {
                        var signed = transactions[index]
                        signed.signedDate = Instant(millisecondsSince1970: instant(&random))
                        transactions.append(signed)
                    }
                }
            }
            let apart = !facts.isEmpty && random.below(2) == 0
            var receipt = Receipt(app: app, transactions: transactions, renewals: renewals, store: store, revocations: apart ? [] : facts)
            receipt.environment = [nil, "production", "sandbox"][random.below(3)]
            result.append(try! ReceiptDecoder.decode(Data(receipt.json.utf8)))
            if !moved.isEmpty {
                var other = Receipt(app: app, transactions: moved, store: store)
                other.environment = receipt.environment
                result.append(try! ReceiptDecoder.decode(Data(other.json.utf8)))
            }
            if apart {
                var other = Receipt(app: app, store: store, revocations: facts)
                other.environment = receipt.environment
                result.append(try! ReceiptDecoder.decode(Data(other.json.utf8)))
            }
        }
        return result
    }

    // MARK: Instants

    /// Every instant at which something in the receipts happens, a millisecond either side, and
    /// the instants at which the reference says something changes.
    func boundaries(_ catalog: CompiledCatalog) -> [Instant] {
        var points: Set<Int64> = [Self.base - 400 * Self.day]
        for receipt in receipts {
            for transaction in receipt.transactions {
                for date in [
                    transaction.purchaseDate, transaction.originalPurchaseDate, transaction.expiresDate, transaction.cancellationDate,
                    transaction.releaseDate, transaction.topUpAfter,
                ] {
                    if let date { points.insert(date.millisecondsSince1970) }
                }
            }
            for transaction in receipt.transactions { if let date = transaction.signedDate { points.insert(date.millisecondsSince1970) } }
            for renewal in receipt.renewals {
                if let grace = renewal.gracePeriodExpiresDate { points.insert(grace.millisecondsSince1970) }
                if let date = renewal.signedDate { points.insert(date.millisecondsSince1970) }
            }
            for consumption in receipt.consumptions { points.insert(consumption.date.millisecondsSince1970) }
            for fact in receipt.revocations { points.insert(fact.date.millisecondsSince1970) }
        }
        // Ends the reference computes (trials, stacked passes, grace), found by asking it.
        for point in Array(points) {
            points.formUnion(ReferenceEvaluator.candidateInstants(catalog, receipts: receipts, at: Instant(millisecondsSince1970: point)))
        }
        var instants: Set<Int64> = []
        for point in points where Instant(millisecondsSince1970: point).isInRange { instants.formUnion([point - 1, point, point + 1]) }
        return instants.sorted().map { Instant(millisecondsSince1970: $0) }
    }
}

/// SplitMix64: small, fast and good enough for test data; deterministic from its seed.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 ^ 0xD1B5_4A32_D192_ED03 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
