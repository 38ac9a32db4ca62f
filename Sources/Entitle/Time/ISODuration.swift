/// An ISO 8601 duration (`P1M`, `P1Y2M10D`, `P2W`, `PT36H`), added in the UTC Gregorian calendar.
///
/// Calendar parts add first (years and months, clamping the day to the target month's length, so
/// January 31 + P1M is February 28 or 29), then weeks and days, then hours, minutes and seconds.
public struct ISODuration: Hashable, Sendable, CustomStringConvertible {
    // Set only by the parser and `init(days:)`, which keep every part within
    // ±`componentLimit`: all arithmetic on them stays far from overflow.
    /// Calendar years of twelve months.
    public internal(set) var years = 0
    /// Calendar months.
    public internal(set) var months = 0
    /// Weeks of seven days.
    public internal(set) var weeks = 0
    /// Days.
    public internal(set) var days = 0
    /// Hours.
    public internal(set) var hours = 0
    /// Minutes.
    public internal(set) var minutes = 0
    /// Seconds.
    public internal(set) var seconds = 0

    /// Components above this bound are not parsed, which keeps all arithmetic far from overflow
    /// (4e9 hours in milliseconds is 1.4e16). It is above every component `P100Y` can need
    /// (`PT3214080000S`, 37,200 days), so the limit a catalog meets is ``maximumNominalDays``, not this.
    static let componentLimit = 4_000_000_000

    /// The longest duration a catalog may use, in nominal days: `P100Y`, counting a year as 12
    /// months and a month as 31 days (so `P1200M` and `P36525D` are within it too).
    public static let maximumNominalDays = 37_200

    /// The parts in the order ISO 8601 writes them: each one's designator, whether it follows
    /// `T`, and where its value is kept.
    private static let parts: [(designator: UInt8, inTime: Bool, value: WritableKeyPath<ISODuration, Int> & Sendable)] = [
        (UInt8(ascii: "Y"), false, \.years), (UInt8(ascii: "M"), false, \.months), (UInt8(ascii: "W"), false, \.weeks),
        (UInt8(ascii: "D"), false, \.days), (UInt8(ascii: "H"), true, \.hours), (UInt8(ascii: "M"), true, \.minutes),
        (UInt8(ascii: "S"), true, \.seconds),
    ]

    /// Parses `PnYnMnWnDTnHnMnS`, any parts present in that order, whole numbers only.
    public init?(_ text: String) {
        var scalars = Array(text.utf8)[...]
        guard scalars.first == UInt8(ascii: "P") else { return nil }
        scalars = scalars.dropFirst()
        var inTime = false
        var next = 0  // the first of `parts` that may follow, to enforce the ISO order
        while let first = scalars.first {
            if first == UInt8(ascii: "T") {
                guard !inTime else { return nil }
                inTime = true
                scalars = scalars.dropFirst()
                guard !scalars.isEmpty else { return nil }
                continue
            }
            var value = 0
            var digits = 0
            while let d = scalars.first, d &- UInt8(ascii: "0") < 10 {
                value = value * 10 + Int(d - UInt8(ascii: "0"))
                digits += 1
                guard value <= ISODuration.componentLimit else { return nil }
                scalars = scalars.dropFirst()
            }
            guard digits > 0, let designator = scalars.first else { return nil }
            scalars = scalars.dropFirst()
            guard let position = Self.parts.firstIndex(where: { $0.designator == designator && $0.inTime == inTime }), position >= next
            else { return nil }
            self[keyPath: Self.parts[position].value] = value
            next = position + 1
        }
        guard next > 0 else { return nil }  // no part at all
    }

    /// The duration `count` times over (`P1M` × 3 = `P3M`), or `nil` when a part would pass the
    /// parser's bound.
    func repeated(_ count: Int) -> ISODuration? {
        guard count >= 1, count <= ISODuration.componentLimit else { return nil }
        var result = self
        for keyPath in Self.parts.map(\.value) {
            let (value, overflow) = self[keyPath: keyPath].multipliedReportingOverflow(by: count)
            guard !overflow, value <= ISODuration.componentLimit else { return nil }
            result[keyPath: keyPath] = value
        }
        return result
    }

    /// A duration of whole days, clamped to ±4,000,000,000 days.
    public init(days: Int) {
        self.days = min(max(days, -ISODuration.componentLimit), ISODuration.componentLimit)
    }

    /// Whether adding the duration moves time forward at all.
    public var isPositive: Bool {
        years + months + weeks + days + hours + minutes + seconds > 0
    }

    /// The length in days when the duration is made only of weeks and days; `nil` otherwise.
    public var wholeDays: Int? {
        guard years == 0, months == 0, hours == 0, minutes == 0, seconds == 0 else { return nil }
        return weeks * 7 + days
    }

    /// The length in days counting a month as 31 days and any part of a day as a whole day: an
    /// upper bound of the real length, compared with ``maximumNominalDays``.
    public var nominalDays: Int {
        let time = (hours * 3600 + minutes * 60 + seconds + 86_399) / 86_400
        return totalMonths * 31 + weeks * 7 + days + time
    }

    /// Whether the duration is no longer than `P100Y` (``maximumNominalDays``).
    public var isWithinLimit: Bool { nominalDays <= ISODuration.maximumNominalDays }

    var totalMonths: Int { years * 12 + months }
    var totalDays: Int64 { Int64(weeks) * 7 + Int64(days) }
    var timeMilliseconds: Int64 { (Int64(hours) * 3600 + Int64(minutes) * 60 + Int64(seconds)) * 1000 }

    /// The instant this duration after `start`; past ``Instant/latest`` it is ``Instant/latest``.
    public func added(to start: Instant) -> Instant {
        Instant(
            millisecondsSince1970: ISODuration.add(
                months: totalMonths, days: totalDays, milliseconds: timeMilliseconds,
                to: start.millisecondsSince1970))
    }

    /// Adds calendar months (clamping the day), then days, then milliseconds, `times` times over as
    /// one step (`P1M` three times is `P3M`).
    ///
    /// Total for every input: the start is taken within years 0001-9999 and the result saturates
    /// at ``Instant/earliest`` and ``Instant/latest``, so no value of a receipt or a catalog can
    /// make it overflow, and its cost does not depend on `times`.
    static func add(months: Int, days: Int64, milliseconds: Int64, times: Int64 = 1, to start: Int64) -> Int64 {
        let earliest = Instant.earliest.millisecondsSince1970
        let latest = Instant.latest.millisecondsSince1970
        let (totalMonths, o1) = Int64(months).multipliedReportingOverflow(by: times)
        let (totalDays, o2) = days.multipliedReportingOverflow(by: times)
        let (totalMilliseconds, o3) = milliseconds.multipliedReportingOverflow(by: times)
        // Beyond these, the result is past the range whatever the start (10,000 years each).
        let monthLimit: Int64 = 120_000
        let dayLimit: Int64 = 3_660_000
        let millisecondLimit = dayLimit * CivilCalendar.millisecondsPerDay
        if o1 || o2 || o3 || abs(totalMonths) > monthLimit || abs(totalDays) > dayLimit || abs(totalMilliseconds) > millisecondLimit {
            let forward =
                (o1 ? (months > 0) == (times > 0) : totalMonths > 0)
                || (o2 ? (days > 0) == (times > 0) : totalDays > 0)
                || (o3 ? (milliseconds > 0) == (times > 0) : totalMilliseconds > 0)
            return forward ? latest : earliest
        }
        var (dayNumber, timeOfDay) = CivilCalendar.floorDivide(min(max(start, earliest), latest), CivilCalendar.millisecondsPerDay)
        if totalMonths != 0 {
            let (year, month, day) = CivilCalendar.date(dayNumber: dayNumber)
            let monthIndex = year * 12 + (month - 1) + Int(totalMonths)
            let newYear = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
            let newMonth = monthIndex - newYear * 12 + 1
            let newDay = min(day, CivilCalendar.daysInMonth(year: newYear, month: newMonth))
            dayNumber = CivilCalendar.dayNumber(year: newYear, month: newMonth, day: newDay)
        }
        dayNumber += totalDays
        timeOfDay += totalMilliseconds
        let result = dayNumber * CivilCalendar.millisecondsPerDay + timeOfDay
        return min(max(result, earliest), latest)
    }

    /// The canonical text, e.g. `P1Y2M` or `PT36H`.
    public var description: String {
        var text = "P"
        if years > 0 { text += "\(years)Y" }
        if months > 0 { text += "\(months)M" }
        if weeks > 0 { text += "\(weeks)W" }
        if days > 0 { text += "\(days)D" }
        if hours + minutes + seconds > 0 {
            text += "T"
            if hours > 0 { text += "\(hours)H" }
            if minutes > 0 { text += "\(minutes)M" }
            if seconds > 0 { text += "\(seconds)S" }
        }
        return text == "P" ? "P0D" : text
    }
}
