/// Whether one feature is on, until when, and which products turn it on.
public struct FeatureStatus: Hashable, Sendable, Codable {
    public var id: String
    public var enabled: Bool
    /// The end of the unbroken span of coverage containing the instant; `nil` when the feature is
    /// off or some source never ends.
    public var until: Instant?
    /// The ids of the products covering the instant, sorted.
    public var sources: [String]
}

/// One product's state at the instant.
public struct ProductStatus: Hashable, Sendable, Codable {
    public var id: String
    public var type: ProductType
    public var state: ProductState
    /// The end of this product's unbroken coverage containing the instant; `nil` when it never
    /// ends or does not cover the instant.
    public var until: Instant?
}

/// Whether a product may be offered for sale, and the legal text to show with it.
public struct Offer: Hashable, Sendable, Codable {
    public var productId: String
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
    public var currency: String
    public var balance: Int64
}
