/// A catalog after checking: every value typed and well-formed, every reference resolved within
/// the file. The compiler turns it into a ``CompiledCatalog``.
///
/// The checker builds a definition even for a catalog with errors, with what it could read, so
/// that rules across products and across catalogs are still checked; only a definition without
/// errors is compiled, and then every optional that a valid catalog must have is present.
struct CatalogDefinition {
    var file: String
    var app: Located<String>?
    /// Declared features in file order, with their descriptions.
    var features: [Located<String>]
    var featureDescriptions: [String]
    /// Declared currencies in file order, with their descriptions.
    var currencies: [Located<String>]
    var currencyDescriptions: [String]
    /// Default legal text per product type.
    var legal: [ProductType: String]
    var products: [ProductDefinition]
    /// Rules for customers who bought the app before it turned free.
    var grandfatherRules: [GrandfatherRuleDefinition] = []
    /// Where customers of each store besides the App Store manage a subscription (`stores`).
    var manageURLs: [Store: String] = [:]
    /// The consumption replies' refund preference of products that state none.
    var refundPreference: Located<RefundPolicy>?
    /// Declared number limits, in file order (`limits`).
    var limits: [LimitDefinition] = []
    /// `limits` is there but not an object.
    var limitsBroken = false
    /// Free allowances (`allowances`), in file order.
    var allowances: [AllowanceDefinition] = []
}

/// A grandfather rule: features for customers whose receipt shows an early purchase of the app.
struct GrandfatherRuleDefinition {
    var path: String
    var offset: Int
    var id: Located<String>?
    var grants: [Located<String>] = []
    var grantsBroken = false
    var condition: GrandfatherCondition?
}

/// What makes a grandfather rule match a receipt: every condition it states holds (it states at
/// least one).
struct GrandfatherCondition: Hashable, Sendable, CustomStringConvertible {
    /// The receipt's `originalApplicationVersion` is lower than these dot-separated numbers.
    var originalApplicationVersionBefore: [Int]?
    /// The receipt's `originalPurchaseDate` is before this instant (milliseconds).
    var originalPurchaseBefore: Int64?
    /// The receipt's `originalPlatform` is one of these, in `AppPlatform.allCases` order.
    var originalPlatforms: [AppPlatform]?

    var isEmpty: Bool { originalApplicationVersionBefore == nil && originalPurchaseBefore == nil && originalPlatforms == nil }

    /// Whether the rule reads only the version (the proof search varies the facts one at a time
    /// for rules of one condition each).
    var conditionCount: Int {
        (originalApplicationVersionBefore == nil ? 0 : 1) + (originalPurchaseBefore == nil ? 0 : 1) + (originalPlatforms == nil ? 0 : 1)
    }

    /// Each condition in words, as `diff`, `graph` and `explain` write them (`<` when `symbols`).
    func phrases(symbols: Bool = false) -> [String] {
        var phrases: [String] = []
        let before = symbols ? " < " : " before "
        if let version = originalApplicationVersionBefore {
            phrases.append("originalApplicationVersion" + before + version.map(String.init).joined(separator: "."))
        }
        if let instant = originalPurchaseBefore {
            phrases.append("originalPurchaseDate" + before + Instant(millisecondsSince1970: instant).rfc3339)
        }
        if let platforms = originalPlatforms {
            phrases.append("originalPlatform " + (symbols ? "in " : "one of ") + platforms.map(\.rawValue).joined(separator: ", "))
        }
        return phrases
    }

    var description: String { phrases().joined(separator: " and ") }
}

/// What grants features or credits currencies: a product, or one SKU of its `items`.
protocol GrantHolder {
    var grants: [Located<String>] { get set }
    /// `grants` is there but not a list of strings, or some element is not a string.
    var grantsBroken: Bool { get set }
    var credits: [(currency: Located<String>, amount: Int64)] { get set }
    var creditedCurrencies: [Located<String>] { get set }
    /// `credits` is there but not an object, or some amount is not valid.
    var creditsBroken: Bool { get set }
}

/// What one SKU of an Advanced Commerce product gives (`items.<SKU>`).
struct ItemDefinition: GrantHolder {
    var sku: Located<String>
    var grants: [Located<String>] = []
    var grantsBroken = false
    /// Credits with valid amounts, and every currency named.
    var credits: [(currency: Located<String>, amount: Int64)] = []
    var creditedCurrencies: [Located<String>] = []
    var creditsBroken = false
}

/// One product of a ``CatalogDefinition``.
///
/// A product is kept even when some of its values are broken (a misspelt `type`, `grants` that
/// is not a list): the rules that do not depend on the broken value are still checked, and the
/// `...Broken` flags let the rules that do stay quiet instead of reporting what only follows from
/// an error already reported.
struct ProductDefinition: GrantHolder {
    var path: String
    /// The offset of the product object.
    var offset: Int
    var id: Located<String>?
    /// Where it is sold (`store`; the App Store when left out or unreadable, reported).
    var store: Store = .appStore
    /// `store` is there but not a store.
    var storeBroken = false
    /// Where each key of the product is, by name: store rules name the keys a store refuses.
    var keyOffsets: [String: Int] = [:]
    /// `nil` when missing or not a product type (reported).
    var type: ProductType?
    var name: Located<String>?
    var grants: [Located<String>] = []
    /// `grants` is there but not a list of strings, or some element is not a string.
    var grantsBroken = false
    var priceTier: Located<Int>?
    /// `priceTier` is there but not a whole number of 0 or more.
    var priceTierBroken = false
    var legal: String?
    /// `legal` is there but not usable text.
    var legalBroken = false
    var available = true
    var familyShareable = false
    var duration: Located<ISODuration>?
    /// `duration` is there but not a valid duration.
    var durationBroken = false
    var group: Located<String>?
    /// An auto-renewable's level in its group, 1 the highest service.
    var level: Located<Int>?
    /// `level` is there but not a valid level (reported already: no other check reads it).
    var levelBroken = false
    var introOffer: IntroOfferDefinition?
    /// The values it gives limits (`limits`), and every limit id it names whatever its value.
    var limits: [(id: Located<String>, value: LimitValue)] = []
    var limitIds: [Located<String>] = []
    /// `limits` is there but not an object, or some value is not valid.
    var limitsBroken = false
    /// What it deposits while it covers (`allowances`), and the currencies it makes unlimited.
    var allowances: [AllowanceDefinition] = []
    var unlimited: [Located<String>] = []
    /// How long a web subscription's access continues while payment is retried.
    var gracePeriod: Located<ISODuration>?
    /// The storefronts (alpha-3) it may be offered in; `nil`: everywhere.
    var storefronts: [Located<String>]?
    /// An auto-renewable's win-back and promotional offers.
    var offers: [SubscriptionOfferDefinition] = []
    var trialOf: Located<String>?
    var upgrade: UpgradeDefinition?
    /// Whether it is a trial of another product.
    var isTrial: Bool { trialOf != nil }
    /// Credits with valid amounts.
    var credits: [(currency: Located<String>, amount: Int64)] = []
    /// Every currency `credits` names, whatever its amount.
    var creditedCurrencies: [Located<String>] = []
    /// `credits` is there but not an object, or some amount is not valid.
    var creditsBroken = false
    /// The consumption replies' refund preference for it.
    var refundPreference: Located<RefundPolicy>?
    /// The customer could try its content first.
    var sampleContent = false
    /// An auto-renewable's replies to Apple's retention request, in order.
    var retention: [RetentionRuleDefinition] = []
    /// What each SKU of an Advanced Commerce product gives; `nil` without `items`.
    var items: [ItemDefinition]?
    /// `items` is there but could not be read whole (reported).
    var itemsBroken = false

    /// What the product is called in messages: its key (`stripe:prod_Pro`), or its path when it
    /// has no id.
    var label: String { id.map { "`\(store.key(of: $0.value))`" } ?? path }
    /// Its key: the id, prefixed with the store outside the App Store.
    var key: String? { id.map { store.key(of: $0.value) } }
}

/// One retention rule of a product, as read: each value located, so that the rules relating it
/// to the catalog's other products and offers can point at it.
struct RetentionRuleDefinition {
    var path: String
    var offset: Int
    var id: Located<String>?
    var message: Located<String>?
    var alternateProduct: Located<String>?
    var billingPlan: Located<Transaction.BillingPlan>?
    var promotionalOffer: Located<String>?
    var locales: [String]?
    var paidAtLeast: Located<ISODuration>?
    var waitBetween: Located<ISODuration>?
}

/// An auto-renewable subscription's introductory offer.
struct IntroOfferDefinition {
    var mode: IntroOfferMode
    var duration: ISODuration
    var audience: IntroOfferAudience = .noIntroYet
}

/// A non-consumable sold at upgrade pricing to owners of another app.
struct UpgradeDefinition {
    /// The full-price non-consumable this product stands in for.
    var replaces: Located<String>?
    /// The other app whose receipt qualifies.
    var requiredApp: Located<String>?
    /// That app's products, any one of which qualifies; `nil` means any receipt of the app does.
    var anyOf: [Located<String>]?
}
