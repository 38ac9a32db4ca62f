/// A product as its catalog defines it: what a paywall shows and what a service checks before
/// selling. Read-only, from ``CompiledCatalog/products``.
public struct CatalogProduct: Hashable, Sendable, Codable {
    /// The store's product id (the App Store product id, Play's `<product>:<basePlan>`, Stripe's
    /// Product id).
    public let id: String
    /// Where it is sold.
    public let store: Store
    /// The storefronts (ISO 3166-1 alpha-3) where it may be offered; `nil`: everywhere.
    public let storefronts: [String]?
    /// For a `stripe` or `external` subscription: how long access continues past the period's end
    /// while payment is retried.
    public let gracePeriod: ISODuration?
    /// The display name.
    public let name: String
    /// The App Store product type.
    public let type: ProductType
    /// The ids of the features it grants, in catalog order.
    public let grants: [String]
    /// The App Store price tier, when the catalog gives one (0 is free).
    public let priceTier: Int?
    /// The subscription group of an auto-renewable subscription, or the pass group of a
    /// non-renewing subscription whose purchases add up with others'.
    public let group: String?
    /// An auto-renewable's level in its group, 1 the highest service.
    public let level: Int?
    /// How long it lasts: a non-renewing subscription's duration, an auto-renewable's period, or
    /// a trial's `duration` when the catalog writes one (a trial's length is always in
    /// ``trialDays``, from its "N-day Trial" name); `nil` otherwise.
    public let duration: ISODuration?
    /// An auto-renewable subscription's introductory offer.
    public let introOffer: IntroOffer?
    /// An auto-renewable subscription's win-back and promotional offers, in catalog order.
    public let offers: [SubscriptionOffer]
    /// The legal text to show with it: its own or its type's default.
    public let legal: String?
    /// `false` for a retired product: honored, never offered.
    public let available: Bool
    /// Whether family members get it through Family Sharing.
    public let familyShareable: Bool
    /// For a free "N-day Trial": the paid product it is a trial of, and its days.
    public let trialOf: String?
    /// A trial's length in days, from its name "N-day Trial".
    public let trialDays: Int?
    /// For upgrade pricing: the full-price product it stands in for and what qualifies.
    public let upgrade: Upgrade?
    /// For a consumable: currency id to amount credited per unit, in catalog order.
    public let credits: [Credit]
    /// The refund preference of consumption-request replies about it: its own or the catalog's
    /// default; `nil` when neither states one (the reply then leaves it out).
    public let refundPreference: RefundPolicy?
    /// Whether the customer could try its content before paying (`sampleContent`).
    public let sampleContent: Bool
    /// An auto-renewable's replies to Apple's retention request, in the order they are tried.
    public let retention: [RetentionRule]
    /// For an Advanced Commerce product: what each SKU gives, in catalog order (the product then
    /// gives only through its items); `nil` for any other product.
    public private(set) var items: [Item]? = nil
    /// The values it gives number limits while it covers (`limits`), by limit id; `nil` when it
    /// gives none.
    public internal(set) var limits: [String: LimitValue]? = nil
    /// What it deposits while it covers (`allowances`), in catalog order; `nil` when nothing.
    public internal(set) var allowances: [CatalogAllowance]? = nil
    /// The currencies it makes unlimited while it covers (`unlimited`); `nil` when none.
    public internal(set) var unlimited: [String]? = nil

    /// What one SKU of an Advanced Commerce product gives.
    public struct Item: Hashable, Sendable, Codable {
        /// The SKU.
        public let sku: String
        /// The ids of the features a purchase of it grants, in catalog order.
        public let grants: [String]
        /// What a purchase of it credits (a consumable's items).
        public let credits: [Credit]
    }

    /// An introductory offer: how it is paid and for how long.
    public struct IntroOffer: Hashable, Sendable, Codable {
        /// How the offer is paid.
        public let mode: IntroOfferMode
        /// How long the offer lasts.
        public let duration: ISODuration
        /// Who may have it (the catalog's `for`).
        public let audience: IntroOfferAudience

        /// An introductory offer.
        public init(mode: IntroOfferMode, duration: ISODuration, audience: IntroOfferAudience = .noIntroYet) {
            self.mode = mode
            self.duration = duration
            self.audience = audience
        }

        private enum CodingKeys: String, CodingKey {
            case mode, duration
            case audience = "for"
        }

        /// Reads an offer; `for` left out is ``IntroOfferAudience/noIntroYet``.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            mode = try container.decode(IntroOfferMode.self, forKey: .mode)
            duration = try container.decode(ISODuration.self, forKey: .duration)
            audience = try container.decodeIfPresent(IntroOfferAudience.self, forKey: .audience) ?? .noIntroYet
        }

        /// Writes an offer; `for` only when it is not the default, as a catalog would.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(mode, forKey: .mode)
            try container.encode(duration, forKey: .duration)
            if audience != .noIntroYet { try container.encode(audience, forKey: .audience) }
        }
    }

    /// Upgrade pricing: the product it replaces and the purchase in another app it requires.
    public struct Upgrade: Hashable, Sendable, Codable {
        /// The full-price product the upgrade stands in for.
        public let replaces: String
        /// The other app whose receipt qualifies.
        public let requiresApp: String
        /// The other app's qualifying products; `nil` when any receipt of that app qualifies.
        public let anyOf: [String]?
    }

    /// What one unit of a consumable credits.
    public struct Credit: Hashable, Sendable, Codable {
        /// The currency credited.
        public let currency: String
        /// The amount per unit bought.
        public let amount: Int64
    }
}

extension CatalogProduct {
    /// How results and messages name it: its id, prefixed with its store outside the App Store
    /// (`stripe:prod_Pro`).
    public var key: String { store.key(of: id) }

    /// The value a key of the language has for the product, as one line (what `entitle diff`
    /// compares and shows): ids and texts as they are, lists joined by `, ` (`nothing` for an
    /// empty list of grants), nested objects as a phrase; `nil` when the product has no value.
    package func text(of key: CatalogKey) -> String? { Self.fieldTexts[key.name].flatMap { $0(self) } }

    /// The text of each key of the language a product may have, `comment` aside: a test checks
    /// that it names every product key, so a new key shows in `entitle diff` or fails the tests.
    package static let fieldTexts: [String: @Sendable (CatalogProduct) -> String?] = [
        CatalogKey.id.name: { $0.id },
        CatalogKey.store.name: { $0.store.rawValue },
        CatalogKey.storefronts.name: { $0.storefronts?.joined(separator: ", ") },
        CatalogKey.gracePeriod.name: { $0.gracePeriod?.description },
        CatalogKey.type.name: { $0.type.rawValue },
        CatalogKey.name.name: { $0.name },
        CatalogKey.priceTier.name: { $0.priceTier.map(String.init) },
        CatalogKey.legal.name: { $0.legal },
        CatalogKey.available.name: { String($0.available) },
        CatalogKey.familyShareable.name: { String($0.familyShareable) },
        CatalogKey.grants.name: { $0.grants.isEmpty ? "nothing" : $0.grants.joined(separator: ", ") },
        CatalogKey.trialOf.name: { $0.trialOf },
        CatalogKey.upgrade.name: { product in
            product.upgrade.map {
                "replaces \($0.replaces), requires \($0.requiresApp)" + ($0.anyOf.map { " (\($0.joined(separator: ", ")))" } ?? "")
            }
        },
        CatalogKey.group.name: { $0.group },
        CatalogKey.level.name: { $0.level.map(String.init) },
        CatalogKey.duration.name: { $0.duration?.description },
        CatalogKey.introOffer.name: { product in
            product.introOffer.map {
                "\($0.mode.rawValue) \($0.duration)" + ($0.audience == .noIntroYet ? "" : " for \($0.audience.rawValue)")
            }
        },
        CatalogKey.offers.name: { $0.offers.isEmpty ? nil : $0.offers.map(\.description).joined(separator: "; ") },
        CatalogKey.credits.name: { $0.credits.isEmpty ? nil : $0.credits.map { "\($0.amount) \($0.currency)" }.joined(separator: ", ") },
        CatalogKey.refundPreference.name: { $0.refundPreference?.description },
        CatalogKey.sampleContent.name: { String($0.sampleContent) },
        CatalogKey.retention.name: { $0.retention.isEmpty ? nil : $0.retention.map(\.description).joined(separator: "; ") },
        CatalogKey.limits.name: { product in
            product.limits.map { limits in limits.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
        },
        CatalogKey.allowances.name: { product in product.allowances.map { $0.map(\.summary).joined(separator: "; ") } },
        CatalogKey.unlimited.name: { product in product.unlimited.map { $0.joined(separator: ", ") } },
        CatalogKey.items.name: { product in
            product.items.map { items in
                items.map { item in
                    let gives =
                        item.credits.isEmpty
                        ? (item.grants.isEmpty ? "nothing" : item.grants.joined(separator: ", "))
                        : item.credits.map { "\($0.amount) \($0.currency)" }.joined(separator: ", ")
                    return "\(item.sku): \(gives)"
                }.joined(separator: "; ")
            }
        },
    ]
}

extension CatalogProduct.IntroOffer {
    /// The value a key of the introductory offer has, as one line (what `entitle diff` compares).
    package func text(of key: CatalogKey) -> String? { Self.fieldTexts[key.name].flatMap { $0(self) } }

    /// The text of each key of the introductory offer, `comment` aside (checked by a test as the
    /// product's are).
    package static let fieldTexts: [String: @Sendable (Self) -> String?] = [
        CatalogKey.mode.name: { $0.mode.rawValue },
        CatalogKey.duration.name: { $0.duration.description },
        CatalogKey.audience.name: { $0.audience.rawValue },
    ]
}

/// A declared feature: its id, the product manager's description, and what grants it.
public struct CatalogFeature: Hashable, Sendable, Codable {
    /// The feature id apps ask for.
    public let id: String
    /// The product manager's description of the feature.
    public let description: String
    /// The ids of the products that grant it, in catalog order.
    public let grantedBy: [String]
}

/// A declared currency: its id, description, and the consumables that credit it.
public struct CatalogCurrency: Hashable, Sendable, Codable {
    /// The currency id.
    public let id: String
    /// The product manager's description of the currency.
    public let description: String
    /// The ids of the consumables that credit it, in catalog order.
    public let creditedBy: [String]
}

extension ISODuration: Codable {
    /// Decodes the ISO 8601 text, such as `"P1M"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let duration = ISODuration(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "`\(text)` is not an ISO 8601 duration")
        }
        self = duration
    }

    /// Encodes the canonical text, such as `"P1M"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension IntroOfferMode: Codable {}
extension ProductType: Codable {}
