/// Whether one feature is on, until when, and which products turn it on.
public struct FeatureStatus: Hashable, Sendable, Codable {
    /// The feature id.
    public var id: String
    /// Whether the feature is on at the instant.
    public var enabled: Bool
    /// The end of the unbroken span of coverage containing the instant; `nil` when the feature is
    /// off or some source never ends.
    public var until: Instant?
    /// The ids of the products covering the instant, sorted.
    public var sources: [String]
}

/// One product's state at the instant.
public struct ProductStatus: Hashable, Sendable, Codable {
    /// The product id.
    public var id: String
    /// The product's type.
    public var type: ProductType
    /// Where the product stands at the instant.
    public var state: ProductState
    /// The end of this product's unbroken coverage containing the instant; `nil` when it never
    /// ends or does not cover the instant.
    public var until: Instant?
}

/// Whether a product may be offered for sale, and the legal text to show with it.
public struct Offer: Hashable, Sendable, Codable {
    /// The product id.
    public var productId: String
    /// Whether the product may be offered for sale to this customer.
    public var eligible: Bool
    /// Why not, when not eligible.
    public var reason: OfferReason?
    /// For auto-renewables with an introductory offer: whether the customer may still have it.
    public var introOfferEligible: Bool?
    /// The product's legal text or its type's default.
    public var legal: String?
}

/// A currency's balance at the instant.
public struct CurrencyBalance: Hashable, Sendable, Codable {
    /// The currency id.
    public var currency: String
    /// Credits bought less consumed at the instant; negative when more was consumed.
    public var balance: Int64
}
