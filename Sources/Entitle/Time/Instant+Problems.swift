extension Instant {
    /// Why `text` is not an RFC 3339 instant entitle reads, in words a person can act on: a day
    /// that does not exist, an hour past 23, a year outside 0001-9999, or the wrong shape.
    ///
    /// - Returns: `nil` when the text is a valid instant.
    package static func rfc3339Problem(_ text: String) -> String? {
        guard Instant(rfc3339: text) == nil else { return nil }
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                guard bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        let shape = "it must look like `2026-01-15T09:00:00Z` (RFC 3339: a date, `T`, a time, and `Z` or an offset such as `+01:00`)"
        guard let year = digits(0..<4), bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), let month = digits(5..<7),
            bytes[7] == UInt8(ascii: "-"), let day = digits(8..<10)
        else {
            return shape
        }
        if year == 0 { return "year 0000 is outside years 0001-9999" }
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        guard (1...12).contains(month) else { return "month \(bytes.count >= 7 ? String(decoding: bytes[5..<7], as: UTF8.self) : "") does not exist" }
        let length = CivilCalendar.daysInMonth(year: year, month: month)
        guard (1...length).contains(day) else {
            return "\(String(decoding: bytes[0..<10], as: UTF8.self)) does not exist: \(months[month - 1]) \(year) has \(length) days"
        }
        guard bytes.count > 10 else { return shape }
        if bytes.count >= 19, let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19) {
            if hour > 23 { return "hour \(hour) does not exist: hours go from 00 to 23" }
            if minute > 59 { return "minute \(minute) does not exist: minutes go from 00 to 59" }
            if second > 59 { return "second \(second) is not read: seconds go from 00 to 59 (a leap second is not accepted)" }
            let suffix = bytes[19...].drop { $0 == UInt8(ascii: ".") || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
            if suffix.isEmpty { return "it has no time zone: add `Z` for UTC, or an offset such as `+01:00`" }
            if year == 1 || year == 9999 { return "with its offset it falls outside years 0001-9999" }
        }
        return shape
    }
}

extension Instant {
    /// Reads an instant as people write one: RFC 3339 (`2026-01-15T09:00:00Z`,
    /// `2026-01-15T10:00:00.250+01:00`), or a date alone (`2026-01-15`) meaning its midnight UTC.
    ///
    /// - Throws: ``InstantError`` saying why the text is not an instant (a day that does not
    ///   exist, an hour past 23, a year outside 0001-9999, the wrong shape).
    public static func parse(_ text: String) throws(InstantError) -> Instant {
        if let instant = Instant(rfc3339: text) { return instant }
        if text.utf8.count == 10, let instant = Instant(rfc3339: text + "T00:00:00Z") { return instant }
        var problem =
            rfc3339Problem(text.utf8.count == 10 ? text + "T00:00:00Z" : text)
            ?? "it must look like `2026-01-15T09:00:00Z` or `2026-01-15`"
        if problem.hasPrefix("it must look like `2026-01-15T09:00:00Z` (") {
            problem =
                "it must look like `2026-01-15T09:00:00Z` (RFC 3339, `Z` or an offset such as `+01:00`) or a date alone, `2026-01-15` (midnight UTC)"
        }
        throw InstantError(text: text, problem: problem)
    }
}

/// Text that is not an instant, and why.
public struct InstantError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text that was read.
    public let text: String
    /// Why it is not an instant, in words a person can act on: `2026-02-30 does not exist:
    /// February 2026 has 28 days`.
    public let problem: String

    /// The text in backquotes, then `is not an instant:` and the problem.
    public var description: String { "`\(Diagnostic.excerpt(text))` is not an instant: \(problem)" }
}
