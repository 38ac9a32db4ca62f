/// The catalog language, declared once: every key of every object, where it may appear, the kind
/// of value it takes with its limits, and one line of help.
///
/// This is the only place a key's name is written. The checker takes allowed, required and
/// misplaced keys and each value's kind from here; the language server its completion and hover;
/// `schemas/catalog.schema.json` is generated from it (``CatalogSchema``), and so is the key table
/// of the documentation. A rule that relates keys to each other (a trial's name, an upgrade's
/// target) lives in its rule family's folder (`Families/`) and names keys through these constants.
/// The keys of the catalog and of products that no family brings are declared here; each family
/// declares its own keys, and the order of the objects it owns, in its folder
/// (`Families/Offers/CatalogKey+Offers.swift`), and this file lists every object's keys.
package struct CatalogKey: Hashable, Sendable, CustomStringConvertible {
    /// The member name as written in a catalog.
    package let name: String
    /// Where the key may appear, and what it takes there.
    package let places: [Place]

    /// One object the key may appear in.
    package struct Place: Sendable {
        /// The object.
        package var object: CatalogObject
        /// For product keys: the product types that allow it (all of them when empty).
        package var types: [ProductType] = []
        /// Whether the object needs the key.
        package var requirement: Requirement = .optional
        /// The value it takes.
        package var value: CatalogValue
        /// One line for people: the documentation, hover and the schema's `description`.
        package var help: String
    }

    /// Whether an object needs a key.
    package enum Requirement: Sendable, Equatable {
        /// It may be left out.
        case optional
        /// Every such object needs it: `missing required key` when absent.
        case required
        /// Products of these types need it, with a message of their own and this help.
        case requiredFor([ProductType], help: String)
    }

    package static func == (a: CatalogKey, b: CatalogKey) -> Bool { a.name == b.name }
    package func hash(into hasher: inout Hasher) { hasher.combine(name) }
    package var description: String { name }

    /// Where the key may appear in `object`, or `nil` when it may not.
    package func place(in object: CatalogObject) -> Place? { places.first { $0.object == object } }
}

/// An object of the catalog language, which keys are declared for.
package enum CatalogObject: String, Sendable, CaseIterable {
    case catalog
    case product
    case introductoryOffer
    case upgrade
    case upgradeRequirement
    case grandfatherRule
    case subscriptionOffer
    /// The catalog's `stores`: settings per store other than the App Store.
    case stores
    /// One store's settings in `stores`.
    case storeSettings
    /// A refund preference that depends on how much was consumed.
    case refundThresholds
    /// One rule of a subscription's reply to Apple's retention request.
    case retentionRule
    /// What one SKU of an Advanced Commerce product gives.
    case item
    /// A declared number limit (`limits.<id>`).
    case limit
    /// One of a product's allowances (`allowances[]`): credits it deposits while it covers.
    case allowance
    /// One of the catalog's free allowances (`allowances[]`): credits every customer gets.
    case freeAllowance

    /// What messages call it: `unknown key `x` in introductory offer`.
    package var phrase: String {
        switch self {
        case .catalog: "catalog"
        case .product: "product"
        case .introductoryOffer: "introductory offer"
        case .upgrade: "upgrade"
        case .upgradeRequirement: "upgrade requirement"
        case .grandfatherRule: "grandfather rule"
        case .subscriptionOffer: "offer"
        case .stores: "stores"
        case .storeSettings: "store settings"
        case .refundThresholds: "refund thresholds"
        case .retentionRule: "retention rule"
        case .item: "item"
        case .limit: "limit"
        case .allowance: "allowance"
        case .freeAllowance: "free allowance"
        }
    }

    /// The keys of the object, in the order the language lists them; for products, the keys of
    /// `type` (every product key when `type` is `nil`).
    package func keys(for type: ProductType? = nil) -> [CatalogKey] {
        CatalogKey.order[self]!.filter { key in
            guard let type, let place = key.place(in: self) else { return true }
            return place.types.isEmpty || place.types.contains(type)
        }
    }

    /// The names of ``keys(for:)``.
    package func keyNames(for type: ProductType? = nil) -> [String] { keys(for: type).map(\.name) }

    /// The keys every such object needs.
    package var requiredKeys: [CatalogKey] {
        keys().filter { $0.place(in: self)?.requirement == .required }
    }
}

/// The kind of value a key takes, with its limits.
package enum CatalogValue: Sendable {
    /// Any string: a note for people.
    case comment
    /// Any string: the JSON Schema editors read.
    case schemaReference
    /// A string that is not empty or only white space.
    case text
    /// A bundle id: letters, digits, `.` and `-`, at most ``CatalogLimits/maxIdentifierBytes`` bytes.
    case bundleId
    /// A product id: letters, digits, `.`, `_` and `-`, at most ``CatalogLimits/maxIdentifierBytes`` bytes.
    case productId
    /// A product id naming another product of the catalog.
    case productReference
    /// A name that is not empty, at most ``CatalogLimits/maxIdentifierBytes`` bytes.
    case name
    /// One of the four product types.
    case productType
    /// One of these strings; `what` names them in messages ("offer mode").
    case choice([String], what: String)
    /// A whole number in the range; `rule` says the range in messages ("0 or more").
    case integer(ClosedRange<Int64>, rule: String)
    /// `true` or `false`, and what leaving it out means (`nil`: it states nothing).
    case flag(default: Bool?)
    /// An ISO 8601 duration, longer than zero and at most `P100Y`.
    case duration
    /// An RFC 3339 instant within years 0001-9999.
    case instant
    /// Dot-separated whole numbers, such as `2.0`.
    case version
    /// A list of declared feature ids.
    case features
    /// A non-empty list of distinct product ids.
    case products
    /// An object of ids (feature or currency, as `what` says) to descriptions.
    case declarations(what: String)
    /// An object of product types to legal text.
    case legalTexts
    /// An object of declared currency ids to whole amounts from 1 to ``CatalogLimits/maxCredit``.
    case credits
    /// An `https://` URL.
    case url
    /// A non-empty list of distinct storefronts, ISO 3166-1 alpha-3 codes in upper case (`USA`).
    case storefronts
    /// An object of the language.
    case object(CatalogObject)
    /// A non-empty list of distinct language tags (`de`, `en-US`), as BCP 47 writes them.
    case languageTags
    /// A non-empty list of distinct strings among these; `what` names one in messages ("platform").
    case choices([String], what: String)
    /// One of these strings (`what` names them in messages), or an object of the language.
    case choiceOrObject([String], what: String, CatalogObject)
    /// A list of objects of the language, at most `max` of them.
    case objects(CatalogObject, max: Int?)
    /// An object of names (`what` says of what: "SKU") to objects of the language, at least one
    /// and at most `max`.
    case keyedObjects(CatalogObject, what: String, max: Int)
    /// An object of declared limit ids to values: whole numbers from 0 to
    /// ``CatalogLimits/maxLimitValue``, or `"unlimited"`.
    case limitValues
    /// A declared currency id.
    case currencyReference
    /// A non-empty list of distinct declared currency ids.
    case currencyList
    /// An ISO 8601 duration from `PT1H` to `P100Y`, or one of these words (`what` names them in
    /// messages).
    case durationOrChoice([String], what: String)

    /// The strings a value may be, when it is one of a few.
    package var choices: [String]? {
        switch self {
        case .productType: ProductType.allCases.map(\.rawValue)
        case .choice(let values, _), .choiceOrObject(let values, _, _): values
        case .flag: ["true", "false"]
        default: nil
        }
    }
}

extension CatalogKey {
    init(_ name: String, _ places: Place...) {
        self.name = name
        self.places = places
    }

    static func place(
        _ object: CatalogObject, _ value: CatalogValue, _ help: String, types: [ProductType] = [],
        _ requirement: Requirement = .optional
    ) -> Place {
        Place(object: object, types: types, requirement: requirement, value: value, help: help)
    }

    // MARK: The catalog

    /// The JSON Schema an editor reads.
    package static let schema = CatalogKey(
        "$schema", place(.catalog, .schemaReference, "the JSON Schema editors check the catalog with: `../schemas/catalog.schema.json`"))
    /// A note for people, anywhere.
    package static let comment = CatalogKey(
        "$comment",
        place(.catalog, .comment, "a note for people, ignored by entitle"),
        place(.product, .comment, "a note for people, ignored by entitle"),
        place(.introductoryOffer, .comment, "a note for people, ignored by entitle"),
        place(.upgrade, .comment, "a note for people, ignored by entitle"),
        place(.upgradeRequirement, .comment, "a note for people, ignored by entitle"),
        place(.grandfatherRule, .comment, "a note for people, ignored by entitle"),
        place(.subscriptionOffer, .comment, "a note for people, ignored by entitle"),
        place(.stores, .comment, "a note for people, ignored by entitle"),
        place(.storeSettings, .comment, "a note for people, ignored by entitle"),
        place(.refundThresholds, .comment, "a note for people, ignored by entitle"),
        place(.retentionRule, .comment, "a note for people, ignored by entitle"),
        place(.item, .comment, "a note for people, ignored by entitle"),
        place(.limit, .comment, "a note for people, ignored by entitle"),
        place(.allowance, .comment, "a note for people, ignored by entitle"),
        place(.freeAllowance, .comment, "a note for people, ignored by entitle"))
    /// The catalog's app, and an upgrade's required app.
    package static let app = CatalogKey(
        "app",
        place(.catalog, .bundleId, "the app's bundle id", .required),
        place(.upgradeRequirement, .bundleId, "the other app whose receipt qualifies for the upgrade", .required))
    /// Declared features.
    package static let features = CatalogKey(
        "features",
        place(.catalog, .declarations(what: "feature"), "feature id to description; products grant features, apps ask for them", .required))
    /// Default legal text per product type, and a product's own.
    package static let legal = CatalogKey(
        "legal",
        place(.catalog, .legalTexts, "default legal text per product type; every subscription must resolve one"),
        place(.product, .text, "the product's legal text, instead of the catalog's default for its type"))
    /// The products.
    package static let products = CatalogKey(
        "products", place(.catalog, .objects(.product, max: CatalogLimits.maxProducts), "the app's in-app purchases", .required))

    // MARK: Products

    /// A product's or a grandfather rule's id.
    package static let id = CatalogKey(
        "id",
        place(
            .product, .productId,
            "the store's product id, unique in its store (Play: `<product>:<basePlan>` for subscriptions; Stripe: the Product id)",
            .required),
        place(
            .grandfatherRule, .productId, "the rule's id, unique among the catalog's rules; features it covers name it `grandfathered:<id>`",
            .required),
        place(.subscriptionOffer, .productId, "the offer's id in App Store Connect, unique among the catalog's offers", .required),
        place(.retentionRule, .productId, "the rule's id, unique among the product's retention rules; replies name it", .required))
    /// A product's type.
    package static let type = CatalogKey(
        "type",
        place(.product, .productType, "one of the four App Store product types; it decides the other keys", .required),
        place(
            .subscriptionOffer, .choice(SubscriptionOfferType.allCases.map(\.rawValue), what: "offer type"),
            "`win-back` for lapsed subscribers, or `promotional`, whose eligibility the developer decides", .required))
    /// A product's display name.
    package static let name = CatalogKey(
        "name", place(.product, .text, "the display name; a trial's is \"N-day Trial\"", .required))
    /// A product's price tier.
    package static let priceTier = CatalogKey(
        "priceTier", place(.product, .integer(0...Int64.max, rule: "0 or more"), "the App Store price tier; 0 is free"))
    /// Whether a product is still sold.
    package static let available = CatalogKey(
        "available", place(.product, .flag(default: true), "false retires the product: honored for its buyers, never offered"))
    /// Whether family sharing passes a product on.
    package static let familyShareable = CatalogKey(
        "familyShareable", place(.product, .flag(default: false), "family members' purchases count for it too"))
    /// What a product or a grandfather rule turns on.
    package static let grants = CatalogKey(
        "grants",
        place(
            .product, .features, "the declared features it turns on",
            types: [.nonConsumable, .nonRenewingSubscription, .autoRenewableSubscription]),
        place(.grandfatherRule, .features, "the declared features its customers keep", .required),
        place(.item, .features, "the declared features a purchase of the SKU turns on (products that are not consumables)"))
    /// How long a product or an introductory offer lasts.
    package static let duration = CatalogKey(
        "duration",
        place(
            .product, .duration,
            "ISO 8601: how long a pass lasts; an auto-renewable's period (informative); a trial's days (must agree with its name)",
            types: [.nonConsumable, .nonRenewingSubscription, .autoRenewableSubscription],
            .requiredFor(
                [.nonRenewingSubscription],
                help: "the App Store does not know how long it lasts: add e.g. `\"duration\": \"P1M\"`")),
        place(.introductoryOffer, .duration, "how long the offer lasts, ISO 8601", .required),
        place(.subscriptionOffer, .duration, "how long the offer lasts, ISO 8601 (a period, with `periods`)", .required))

    /// The keys of each object, in the order completion, help and the documentation list them.
    package static let order: [CatalogObject: [CatalogKey]] = [
        .catalog: [schema, comment, app, features, currencies, limits, allowances, legal, stores, refundPreference, products, grandfathered],
        .product: [
            comment, id, store, type, name, priceTier, legal, available, familyShareable, storefronts,
            grants, trialOf, upgrade, group, level, duration, introOffer, offers, gracePeriod, credits, allowances, unlimited, limits,
            refundPreference,
            sampleContent,
            retention, items,
        ],
        .introductoryOffer: introductoryOfferOrder,
        .upgrade: upgradeOrder,
        .upgradeRequirement: upgradeRequirementOrder,
        .grandfatherRule: grandfatherRuleOrder,
        .subscriptionOffer: subscriptionOfferOrder,
        .stores: storesOrder,
        .storeSettings: storeSettingsOrder,
        .refundThresholds: refundThresholdsOrder,
        .retentionRule: retentionRuleOrder,
        .item: itemOrder,
        .limit: limitOrder,
        .allowance: allowanceOrder,
        .freeAllowance: freeAllowanceOrder,
    ]

    /// Every key, each once.
    package static var all: [CatalogKey] {
        var seen: Set<String> = []
        return CatalogObject.allCases.flatMap { order[$0]! }.filter { seen.insert($0.name).inserted }
    }
}
