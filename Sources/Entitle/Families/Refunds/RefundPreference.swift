/// What a consumption-request reply prefers for a refund: Apple's `refundPreference`.
@nonexhaustive
public enum RefundPreference: String, Hashable, Sendable, Codable, CaseIterable {
    /// Prefer that Apple declines the refund (`DECLINE`).
    case decline = "decline"
    /// Prefer a full refund (`GRANT_FULL`).
    case grantFull = "grant-full"
    /// Prefer a prorated refund (`GRANT_PRORATED`).
    case grantProrated = "grant-prorated"

    /// The names a catalog writes, in the language's order.
    package static let names = allCases.map(\.rawValue)

    /// Apple's name in the `ConsumptionRequest` body.
    public var appleValue: String {
        switch self {
        case .decline: "DECLINE"
        case .grantFull: "GRANT_FULL"
        case .grantProrated: "GRANT_PRORATED"
        }
    }

    /// Google Play's name in the `OrdersReviewRefundRequest` body: Play refunds in full or not at
    /// all, so a prorated refund is no preference either way.
    public var googleValue: String {
        switch self {
        case .decline: "DECLINE"
        case .grantFull: "APPROVE"
        case .grantProrated: "NEUTRAL"
        }
    }
}

/// A product's (or a catalog's) `refundPreference`: one preference, or one that depends on the
/// share of the purchase consumed.
@nonexhaustive
public enum RefundPolicy: Hashable, Sendable {
    /// The same preference whatever was consumed.
    case always(RefundPreference)
    /// Below `fullBelow` percent consumed a full refund, below `proratedBelow` percent a
    /// prorated one, otherwise decline (`0 <= fullBelow <= proratedBelow <= 100`).
    case thresholds(fullBelow: Int, proratedBelow: Int)

    /// The preference for a share consumed, in Apple's thousandths of a percent (0 to 100,000).
    public func preference(consumed thousandths: Int) -> RefundPreference {
        switch self {
        case .always(let preference):
            return preference
        case .thresholds(let fullBelow, let proratedBelow):
            // The percentages are 0...100 (checked), so the products cannot overflow.
            if thousandths < fullBelow * 1_000 { return .grantFull }
            if thousandths < proratedBelow * 1_000 { return .grantProrated }
            return .decline
        }
    }

    /// As a catalog writes it: `grant-full`, or `{"grantFullBelow": 10, "grantProratedBelow": 50}`.
    public var description: String {
        switch self {
        case .always(let preference): preference.rawValue
        case .thresholds(let full, let prorated): "{\"grantFullBelow\": \(full), \"grantProratedBelow\": \(prorated)}"
        }
    }
}

extension RefundPolicy: Codable {
    private enum CodingKeys: String, CodingKey { case grantFullBelow, grantProratedBelow }

    /// Reads what a catalog writes: a preference's name, or the two thresholds.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            guard let preference = RefundPreference(rawValue: name) else {
                throw DecodingError.dataCorruptedError(in: single, debugDescription: "unknown refund preference `\(name)`")
            }
            self = .always(preference)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let full = try container.decode(Int.self, forKey: .grantFullBelow)
        let prorated = try container.decode(Int.self, forKey: .grantProratedBelow)
        guard (0...100).contains(full), (full...100).contains(prorated) else {
            throw DecodingError.dataCorruptedError(
                forKey: .grantProratedBelow, in: container, debugDescription: "thresholds must be 0 <= grantFullBelow <= grantProratedBelow <= 100")
        }
        self = .thresholds(fullBelow: full, proratedBelow: prorated)
    }

    /// Writes it as a catalog would.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .always(let preference):
            var single = encoder.singleValueContainer()
            try single.encode(preference.rawValue)
        case .thresholds(let full, let prorated):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(full, forKey: .grantFullBelow)
            try container.encode(prorated, forKey: .grantProratedBelow)
        }
    }
}
