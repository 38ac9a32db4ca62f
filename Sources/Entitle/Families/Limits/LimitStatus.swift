/// How the values of several covering products make one limit value (a limit's `combine`).
///
/// Closed: a limit takes the largest value or adds them; a new way would be a new kind of limit.
public enum LimitCombine: String, Hashable, Sendable, Codable, CaseIterable {
    /// The largest value among the covering products, and never below the limit's `default`.
    case max
    /// Each covering product's value times the quantity of its covering transaction, added; the
    /// `default` only when no product covers.
    case sum
}

/// A number limit's value: a whole number, or no limit at all.
///
/// Closed: a limit is a number or unlimited. In JSON a number, or the string `"unlimited"`.
public enum LimitValue: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// At most this many.
    case count(Int64)
    /// No limit.
    case unlimited

    /// The value a number-only reader uses for ``unlimited``: 2^53 - 1, the largest integer every
    /// JSON reader holds exactly, so `value >= needed` stays right.
    public static let unlimitedNumber: Int64 = 9_007_199_254_740_991

    /// The value as one number, ``unlimitedNumber`` for ``unlimited``.
    public var number: Int64 {
        switch self {
        case .count(let count): count
        case .unlimited: Self.unlimitedNumber
        }
    }

    /// Whether `count` more fit under the limit when `used` are taken.
    public func allows(_ count: Int64, used: Int64) -> Bool {
        switch self {
        case .unlimited: true
        case .count(let limit):
            used.addingReportingOverflow(count).overflow == false && used + count <= limit
        }
    }

    /// `12` or `unlimited`.
    public var description: String {
        switch self {
        case .count(let count): String(count)
        case .unlimited: "unlimited"
        }
    }

    public static func < (a: LimitValue, b: LimitValue) -> Bool {
        switch (a, b) {
        case (.count(let x), .count(let y)): x < y
        case (.count, .unlimited): true
        case (.unlimited, _): false
        }
    }

    /// Reads a number, or `"unlimited"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let count = try? container.decode(Int64.self) {
            self = .count(count)
            return
        }
        guard try container.decode(String.self) == "unlimited" else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a whole number or \"unlimited\"")
        }
        self = .unlimited
    }

    /// Writes a number, or `"unlimited"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .count(let count): try container.encode(count)
        case .unlimited: try container.encode("unlimited")
        }
    }
}

/// One number limit's value at the instant, what gives it and until when.
public struct LimitStatus: Hashable, Sendable, Codable {
    /// The limit id.
    public var id: String
    /// The value at the instant.
    public var value: LimitValue
    /// The covering products that give the value, sorted (product keys, with their store outside
    /// the App Store: `stripe:prod_Team`); empty when the limit's `default` gives it.
    public var sources: [String]
    /// The next instant the value changes as known now (a source's coverage ends, a scheduled one
    /// starts); `nil` when it does not change.
    public var until: Instant?

    /// Creates a limit status.
    public init(id: String, value: LimitValue, sources: [String], until: Instant?) {
        self.id = id
        self.value = value
        self.sources = sources
        self.until = until
    }
}

/// A declared number limit, as the catalog declares it.
public struct CatalogLimit: Hashable, Sendable, Codable {
    /// The limit id.
    public let id: String
    /// What it counts, for people.
    public let description: String
    /// Its value when no product gives one.
    public let `default`: Int64
    /// How several covering products' values make one.
    public let combine: LimitCombine
    /// The products that give it a value, by key, in catalog order.
    public let setBy: [String]
}
