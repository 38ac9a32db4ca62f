/// An amount of money as a store states it: a decimal string (`9.99`, `10`, at most three
/// decimals, as Apple's milliunits allow) and its currency, ISO 4217 (`EUR`).
public struct Price: Hashable, Sendable, Codable {
    /// The amount, a decimal string: digits, and at most three after a point.
    public var amount: String
    /// The currency, three capital letters (ISO 4217).
    public var currency: String

    /// Creates a price.
    public init(amount: String, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    /// Whether `text` is an amount as entitle writes one: 1 to 15 digits, then optionally a point
    /// and 1 to 3 digits.
    public static func isAmount(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        func digits(_ part: Substring.UTF8View.SubSequence, _ most: Int) -> Bool {
            !part.isEmpty && part.count <= most && part.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        guard let whole = parts.first, digits(whole, 15) else { return false }
        return parts.count == 1 || digits(parts[1], 3)
    }

    /// Whether `text` is a currency code: three capital ASCII letters.
    public static func isCurrency(_ text: String) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }

    /// Apple's milliunits (`9990`) as an amount (`9.99`): the shortest decimal, `nil` below 0 or
    /// past 15 whole digits.
    public static func amount(milliunits: Int64) -> String? {
        guard milliunits >= 0, milliunits / 1_000 < 1_000_000_000_000_000 else { return nil }
        return decimal(thousandths: milliunits)
    }

    /// Thousandths as the shortest decimal: `33333` is `33.333`, `50000` is `50`, `9990` is
    /// `9.99` (percentages and prices alike).
    static func decimal(thousandths: Int64) -> String {
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = thousandths.magnitude
        let whole = magnitude / 1_000
        let fraction = magnitude % 1_000
        guard fraction != 0 else { return sign + String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }
}
