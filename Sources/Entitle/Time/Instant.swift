import Foundation

/// A point in time, as whole milliseconds since 1970-01-01T00:00:00Z.
///
/// Receipts, catalogs and results use instants rather than `Date`: they compare exactly, parse
/// without formatters and never read the clock. Evaluation always takes the instant to evaluate
/// at as a parameter.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z (negative before).
    public var millisecondsSince1970: Int64

    /// Creates an instant from milliseconds since 1970-01-01T00:00:00Z.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Creates an instant from a `Date`, rounded to the nearest millisecond and clamped to
    /// ``earliest`` ... ``latest`` (years 0001-9999); a `Date` that is not a number (NaN) gives
    /// 1970-01-01T00:00:00Z.
    ///
    /// A `Date` holds seconds as a `Double`, so a parsed `...36.239Z` may come back as
    /// 36.238999...; rounding down would move it a millisecond earlier.
    public init(_ date: Date) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        if milliseconds.isNaN {
            millisecondsSince1970 = 0
        } else {
            millisecondsSince1970 = Int64(
                min(
                    max(milliseconds, Double(Instant.earliest.millisecondsSince1970)),
                    Double(Instant.latest.millisecondsSince1970)))
        }
    }

    /// `0001-01-01T00:00:00Z`, the earliest instant RFC 3339 can write.
    ///
    /// Every instant entitle reads (catalogs, receipts, Apple's millisecond dates, `--at`) must lie
    /// within ``earliest`` ... ``latest``; anything outside is rejected with a located error.
    public static let earliest = Instant(millisecondsSince1970: -62_135_596_800_000)

    /// `9999-12-31T23:59:59.999Z`, the latest instant RFC 3339 can write. Coverage that would
    /// end later (a pass stacked for millennia) ends here.
    public static let latest = Instant(millisecondsSince1970: 253_402_300_799_999)

    /// Whether the instant lies within years 0001-9999, the range RFC 3339 can write.
    public var isInRange: Bool {
        millisecondsSince1970 >= Instant.earliest.millisecondsSince1970
            && millisecondsSince1970 <= Instant.latest.millisecondsSince1970
    }

    /// The instant, or the nearer of ``earliest`` and ``latest`` when it lies outside them.
    public var clampedToRange: Instant {
        Instant(
            millisecondsSince1970: min(
                max(millisecondsSince1970, Instant.earliest.millisecondsSince1970),
                Instant.latest.millisecondsSince1970))
    }

    /// `Instant(millisecondsSince1970:)` when the value is within years 0001-9999, else `nil`.
    public init?(checkedMilliseconds milliseconds: Int64) {
        let instant = Instant(millisecondsSince1970: milliseconds)
        guard instant.isInRange else { return nil }
        self = instant
    }

    /// The same instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    /// Parses an RFC 3339 timestamp such as `2026-01-15T09:00:00Z` or `2026-01-15T10:00:00.250+01:00`.
    ///
    /// Digits past milliseconds are truncated. Returns `nil` for anything else, including dates
    /// that do not exist (February 30) and leap seconds.
    public init?(rfc3339 text: String) {
        var text = text
        let parsed = text.withUTF8 { Instant.parseRFC3339(UnsafeRawBufferPointer($0)) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The instant in RFC 3339 UTC form, with milliseconds only when they are not zero.
    public var rfc3339: String { Instant.format(millisecondsSince1970) }

    public var description: String { rfc3339 }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }
}
