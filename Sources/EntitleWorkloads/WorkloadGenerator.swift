import Entitle

/// Generates catalogs and receipts for the benchmark and the tests, deterministically from a seed.
///
/// Catalogs mix all four product types with trials, upgrades and subscription groups. Receipts mix
/// renewal chains with intro periods and grace periods, refunds, restores, duplicated transactions,
/// family sharing, stacked passes, consumables with consumptions, and a few unknown products.
public struct WorkloadGenerator {
    private var random: SplitMix64

    public init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// One subscription chain of the Diagrams catalog's monthly subscription: `transactions`
    /// renewals and as many renewal entries with a grace period (the shape that once took time
    /// quadratic in its length).
    public static func renewalChain(transactions: Int) -> String {
        var text = #"{"app":"com.example.diagrams","transactions":["#
        var start: Int64 = 1_600_000_000_000
        for index in 0..<transactions {
            if index > 0 { text += "," }
            let end = start + 2_592_000_000
            text +=
                #"{"productId":"com.example.diagrams.sync.monthly","transactionId":"\#(100_000 + index)","originalTransactionId":"100000","purchaseDate":"\#(Instant(millisecondsSince1970: start).rfc3339)","expiresDate":"\#(Instant(millisecondsSince1970: end).rfc3339)"}"#
            start = end
        }
        text += #"],"renewals":["#
        let grace = Instant(millisecondsSince1970: start + 1_209_600_000).rfc3339
        for index in 0..<transactions {
            if index > 0 { text += "," }
            text += #"{"originalTransactionId":"100000","willRenew":true,"isInBillingRetry":true,"gracePeriodExpiresDate":"\#(grace)"}"#
        }
        return text + "]}"
    }

    // MARK: Catalogs

    /// Generates a catalog of `productCount` products (at least 6) for `app`.
    public mutating func catalog(products productCount: Int, app: String = "com.example.generated") -> GeneratedCatalog {
        let featureCount = max(4, productCount / 5)
        let features = (0..<featureCount).map { "feature.\($0)" }
        let currencies = ["coins", "gems", "tokens"]
        var shape: [ProductShape] = []
        var groupCount = 0
        var index = 0
        func grants(_ count: Int) -> [String] {
            var chosen: [String] = []
            while chosen.count < count {
                let feature = features[Int(random.next() % UInt64(featureCount))]
                if !chosen.contains(feature) { chosen.append(feature) }
            }
            return chosen
        }
        while shape.count < productCount {
            let id = "\(app).p\(index)"
            index += 1
            let roll = random.next() % 100
            let remaining = productCount - shape.count
            if roll < 30 {
                // A full-price product, sometimes with a trial and an upgrade after it.
                let granted = grants(Int(random.next() % 3) + 1)
                shape.append(ProductShape(id: id, kind: .nonConsumable, grants: granted))
                if remaining >= 2, random.next() % 3 == 0 {
                    let days = [7, 14, 30][Int(random.next() % 3)]
                    shape.append(ProductShape(id: id + ".trial", kind: .trial(days: days, paid: id), grants: Array(granted.prefix(1))))
                }
                if productCount - shape.count >= 1, random.next() % 4 == 0 {
                    shape.append(ProductShape(id: id + ".upgrade", kind: .upgrade(replaces: id), grants: granted))
                }
            } else if roll < 50 {
                let days = [1, 7, 30][Int(random.next() % 3)]
                shape.append(ProductShape(id: id, kind: .nonRenewing(days: days), grants: grants(1)))
            } else if roll < 80 {
                // A subscription group of one to three levels.
                let group = "group\(groupCount)"
                groupCount += 1
                let levels = min(remaining, Int(random.next() % 3) + 1)
                for level in 0..<levels {
                    shape.append(
                        ProductShape(
                            id: "\(id).l\(level)", kind: .autoRenewable(group: group, months: level == 2 ? 12 : 1, intro: level == 0),
                            grants: grants(Int(random.next() % 2) + 1), familyShareable: random.next() % 4 == 0))
                }
            } else {
                let currency = currencies[Int(random.next() % 3)]
                shape.append(ProductShape(id: id, kind: .consumable(currency: currency, amount: Int(random.next() % 500) + 10), grants: []))
            }
        }
        shape.removeLast(shape.count - productCount)
        // Trials and upgrades must keep the product they point at.
        let ids = Set(shape.map(\.id))
        shape = shape.map { product in
            switch product.kind {
            case .trial(_, let paid) where !ids.contains(paid): ProductShape(id: product.id, kind: .nonConsumable, grants: product.grants)
            case .upgrade(let replaces) where !ids.contains(replaces): ProductShape(id: product.id, kind: .nonConsumable, grants: product.grants)
            default: product
            }
        }
        return GeneratedCatalog(app: app, features: features, currencies: currencies, products: shape)
    }

    // MARK: Receipts

    /// Generates a receipt of `count` transactions for a catalog, purchases spread over 2025,
    /// as normalized receipt JSON.
    public mutating func receipt(for catalog: GeneratedCatalog, transactions count: Int) -> String {
        let start: Int64 = 1_735_689_600_000  // 2025-01-01T00:00:00Z
        let day: Int64 = 86_400_000
        var transactions: [String] = []
        var renewals: [String] = []
        var consumptions: [String] = []
        var nextId = 1_000_000
        func id() -> String {
            nextId += 1
            return String(nextId)
        }
        func instant(_ ms: Int64) -> String { "\"\(Instant(millisecondsSince1970: ms).rfc3339)\"" }
        func someProduct(_ predicate: (ProductShape) -> Bool) -> ProductShape? {
            let candidates = catalog.products.filter(predicate)
            return candidates.isEmpty ? nil : candidates[Int(random.next() % UInt64(candidates.count))]
        }
        while transactions.count < count {
            let roll = random.next() % 100
            let purchase = start + Int64(random.next() % 365) * day + Int64(random.next() % UInt64(day))
            let refund = random.next() % 20 == 0
            let family = random.next() % 15 == 0
            var fields: [String]
            if roll < 40, let product = someProduct({ if case .autoRenewable = $0.kind { true } else { false } }) {
                // A renewal chain: first period possibly a trial, then monthly or yearly renewals.
                guard case .autoRenewable(_, let months, let intro) = product.kind else { continue }
                let chain = id()
                let length = min(count - transactions.count, Int(random.next() % 6) + 1)
                var periodStart = purchase
                for period in 0..<length {
                    let transaction = period == 0 ? chain : id()
                    let end = periodStart + Int64(months) * 30 * day
                    fields = [
                        "\"productId\": \"\(product.id)\"", "\"transactionId\": \"\(transaction)\"",
                        "\"originalTransactionId\": \"\(chain)\"", "\"purchaseDate\": \(instant(periodStart))",
                        "\"originalPurchaseDate\": \(instant(purchase))", "\"expiresDate\": \(instant(end))",
                    ]
                    if period == 0 && intro { fields.append("\"isTrialPeriod\": true") }
                    if refund && period == length - 1 { fields.append("\"cancellationDate\": \(instant(periodStart + 3 * day))") }
                    if family { fields.append("\"ownership\": \"family-shared\"") }
                    if random.next() % 40 == 0 { fields.append("\"isUpgraded\": true") }
                    transactions.append("{ " + fields.joined(separator: ", ") + " }")
                    periodStart = end
                }
                if random.next() % 4 == 0 {
                    renewals.append(
                        "{ \"productId\": \"\(product.id)\", \"originalTransactionId\": \"\(chain)\", \"willRenew\": true, "
                            + "\"isInBillingRetry\": true, \"gracePeriodExpiresDate\": \(instant(periodStart + 16 * day)) }")
                }
                continue
            } else if roll < 55, let product = someProduct({ if case .consumable = $0.kind { true } else { false } }) {
                guard case .consumable(let currency, let amount) = product.kind else { continue }
                let quantity = Int(random.next() % 3) + 1
                fields = [
                    "\"productId\": \"\(product.id)\"", "\"transactionId\": \"\(id())\"",
                    "\"purchaseDate\": \(instant(purchase))", "\"quantity\": \(quantity)",
                ]
                if refund { fields.append("\"cancellationDate\": \(instant(purchase + day))") }
                consumptions.append(
                    "{ \"id\": \"use-\(nextId)\", \"currency\": \"\(currency)\", \"amount\": \(max(1, amount * quantity / 2)), "
                        + "\"date\": \(instant(purchase + 2 * day)) }")
            } else if roll < 70, let product = someProduct({ if case .nonRenewing = $0.kind { true } else { false } }) {
                fields = ["\"productId\": \"\(product.id)\"", "\"transactionId\": \"\(id())\"", "\"purchaseDate\": \(instant(purchase))"]
                if refund { fields.append("\"cancellationDate\": \(instant(purchase + day / 2))") }
            } else if roll < 80, let product = someProduct({ if case .trial = $0.kind { true } else { false } }) {
                // A trial, sometimes restored later with its original purchase date.
                let first = id()
                fields = [
                    "\"productId\": \"\(product.id)\"", "\"transactionId\": \"\(first)\"",
                    "\"originalTransactionId\": \"\(first)\"", "\"purchaseDate\": \(instant(purchase))",
                ]
                if random.next() % 2 == 0, transactions.count + 1 < count {
                    transactions.append(
                        "{ \"productId\": \"\(product.id)\", \"transactionId\": \"\(id())\", \"originalTransactionId\": \"\(first)\", "
                            + "\"purchaseDate\": \(instant(purchase + 20 * day)), \"originalPurchaseDate\": \(instant(purchase)) }")
                }
            } else if roll < 97,
                let product = someProduct({
                    switch $0.kind {
                    case .nonConsumable, .upgrade: true
                    default: false
                    }
                })
            {
                fields = ["\"productId\": \"\(product.id)\"", "\"transactionId\": \"\(id())\"", "\"purchaseDate\": \(instant(purchase))"]
                if refund { fields.append("\"cancellationDate\": \(instant(purchase + 10 * day))") }
                if family { fields.append("\"ownership\": \"family-shared\"") }
            } else {
                fields = [
                    "\"productId\": \"\(catalog.app).retired.\(random.next() % 5)\"", "\"transactionId\": \"\(id())\"",
                    "\"purchaseDate\": \(instant(purchase))",
                ]
            }
            transactions.append("{ " + fields.joined(separator: ", ") + " }")
            // A duplicate copy of the same transaction, as receipts merged from two sources have.
            if random.next() % 12 == 0, transactions.count < count { transactions.append(transactions.last!) }
        }
        transactions.removeLast(transactions.count - count)
        return """
            {
              "app": "\(catalog.app)",
              "transactions": [
                \(transactions.joined(separator: ",\n    "))
              ],
              "renewals": [\(renewals.joined(separator: ", "))],
              "consumptions": [\(consumptions.joined(separator: ", "))]
            }
            """
    }

    /// Instants worth evaluating a receipt at: each purchase, expiry and cancellation, a millisecond
    /// either side, and a few random ones.
    public mutating func instants(in receipt: Receipt, count: Int) -> [Instant] {
        var candidates: [Int64] = []
        for transaction in receipt.transactions {
            for instant in [transaction.purchaseDate, transaction.expiresDate, transaction.cancellationDate].compactMap({ $0 }) {
                let ms = instant.millisecondsSince1970
                candidates += [ms - 1, ms, ms + 1]
            }
        }
        for renewal in receipt.renewals {
            if let grace = renewal.gracePeriodExpiresDate?.millisecondsSince1970 { candidates += [grace - 1, grace] }
        }
        var chosen: [Instant] = []
        for _ in 0..<count {
            if candidates.isEmpty || random.next() % 4 == 0 {
                chosen.append(Instant(millisecondsSince1970: 1_735_689_600_000 + Int64(random.next() % (500 * 86_400_000))))
            } else {
                chosen.append(Instant(millisecondsSince1970: candidates[Int(random.next() % UInt64(candidates.count))]))
            }
        }
        return chosen
    }

    public mutating func next() -> UInt64 { random.next() }
}

/// A generated catalog, as a shape that renders to catalog JSON.
public struct GeneratedCatalog: Sendable {
    public var app: String
    public var features: [String]
    public var currencies: [String]
    public var products: [ProductShape]

    /// The catalog as JSON text, its keys named by the catalog language's declarations.
    public var json: String {
        func member(_ key: CatalogKey, _ value: String) -> String { "\"\(key.name)\": \(value)" }
        func text(_ value: String) -> String { "\"\(value)\"" }
        func type(_ type: ProductType) -> String { member(.type, text(type.rawValue)) }
        var lines: [String] = []
        for product in products {
            var fields = [member(.id, text(product.id))]
            switch product.kind {
            case .nonConsumable:
                fields += [type(.nonConsumable), member(.name, text("Product \(product.id)"))]
            case .trial(let days, let paid):
                fields += [type(.nonConsumable), member(.name, text("\(days)-day Trial")), member(.priceTier, "0"), member(.trialOf, text(paid))]
            case .upgrade(let replaces):
                let requires = "{ " + member(.app, text("com.example.legacy")) + ", " + member(.anyOf, "[\"com.example.legacy.pro\"]") + " }"
                fields += [
                    type(.nonConsumable), member(.name, text("Upgrade \(product.id)")),
                    member(.upgrade, "{ " + member(.replaces, text(replaces)) + ", " + member(.requires, requires) + " }"),
                ]
            case .nonRenewing(let days):
                fields += [type(.nonRenewingSubscription), member(.name, text("Pass \(product.id)")), member(.duration, text("P\(days)D"))]
            case .autoRenewable(let group, let months, let intro):
                fields += [
                    type(.autoRenewableSubscription), member(.name, text("Plan \(product.id)")), member(.group, text(group)),
                    member(.duration, text("P\(months)M")),
                ]
                if intro {
                    fields.append(member(.introOffer, "{ " + member(.mode, text("free-trial")) + ", " + member(.duration, text("P1W")) + " }"))
                }
            case .consumable(let currency, let amount):
                fields += [type(.consumable), member(.name, text("Pack \(product.id)")), member(.credits, "{ \(text(currency)): \(amount) }")]
            }
            if product.familyShareable { fields.append(member(.familyShareable, "true")) }
            if !product.grants.isEmpty { fields.append(member(.grants, "[" + product.grants.map(text).joined(separator: ", ") + "]")) }
            lines.append("    { " + fields.joined(separator: ", ") + " }")
        }
        let legal =
            "{ " + text(ProductType.autoRenewableSubscription.rawValue) + ": \"Renews until canceled.\", "
            + text(ProductType.nonRenewingSubscription.rawValue) + ": \"Does not renew.\" }"
        return "{\n  "
            + [
                member(.app, text(app)),
                member(.features, "{ " + features.map { text($0) + ": \"Generated feature\"" }.joined(separator: ", ") + " }"),
                member(.currencies, "{ " + currencies.map { text($0) + ": \"Generated currency\"" }.joined(separator: ", ") + " }"),
                member(.legal, legal),
                member(.products, "[\n" + lines.joined(separator: ",\n") + "\n  ]"),
            ].joined(separator: ",\n  ") + "\n}"
    }
}

/// One generated product.
public struct ProductShape: Sendable {
    public enum Kind: Sendable {
        case nonConsumable
        case trial(days: Int, paid: String)
        case upgrade(replaces: String)
        case nonRenewing(days: Int)
        case autoRenewable(group: String, months: Int, intro: Bool)
        case consumable(currency: String, amount: Int)
    }

    public var id: String
    public var kind: Kind
    public var grants: [String]
    public var familyShareable = false
}

/// A small, fast, deterministic random number generator.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
