/// A catalog after checking: every value typed and well-formed, every reference resolved within
/// the file. The compiler turns it into a ``CompiledCatalog``.
struct CatalogDefinition {
    var file: String
    var app: Located<String>
    /// Declared features in file order, with their descriptions.
    var features: [Located<String>]
    var featureDescriptions: [String]
    /// Declared currencies in file order, with their descriptions.
    var currencies: [Located<String>]
    var currencyDescriptions: [String]
    /// Default legal text per product type.
    var legal: [ProductType: String]
    var products: [ProductDefinition]
}

/// One product of a ``CatalogDefinition``.
struct ProductDefinition {
    var path: String
    var id: Located<String>
    var type: ProductType
    var name: Located<String>
    var grants: [Located<String>] = []
    var priceTier: Located<Int>?
    var legal: String?
    var available = true
    var familyShareable = false
    var duration: Located<ISODuration>?
    var group: String?
    var introOffer: IntroOfferDefinition?
    var trialOf: Located<String>?
    var upgrade: UpgradeDefinition?
    var credits: [(currency: Located<String>, amount: Int64)] = []
}

/// An auto-renewable subscription's introductory offer.
struct IntroOfferDefinition {
    var mode: IntroOfferMode
    var duration: ISODuration
}

/// A non-consumable sold at upgrade pricing to owners of another app.
struct UpgradeDefinition {
    /// The full-price non-consumable this product stands in for.
    var replaces: Located<String>
    /// The other app whose receipt qualifies.
    var requiredApp: Located<String>
    /// That app's products, any one of which qualifies; `nil` means any receipt of the app does.
    var anyOf: [Located<String>]?
}
