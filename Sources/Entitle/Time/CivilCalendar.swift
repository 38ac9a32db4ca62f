/// Proleptic Gregorian calendar arithmetic in UTC, on day numbers counted from 1970-01-01.
///
/// Pure integer arithmetic (no `Calendar`, no time zones), so evaluation never depends on the
/// machine's locale or clock settings.
enum CivilCalendar {
    static let millisecondsPerDay: Int64 = 86_400_000

    /// Days from 1970-01-01 to the given date (negative before it).
    @inline(__always)
    static func dayNumber(year: Int, month: Int, day: Int) -> Int64 {
        // Count years from March so February's variable length falls at the end of a year.
        if year >= 1, year <= 9999, month >= 1, month <= 12, day >= 1, day <= 31 {
            // The years RFC 3339 can write, which every parsed instant has: each quantity is small
            // and non-negative, so unsigned arithmetic divides by constants with a multiplication
            // and a shift and needs no overflow checks. Same formula as below.
            let march = UInt(truncatingIfNeeded: month <= 2 ? year &- 1 : year)
            let era = march / 400
            let yearOfEra = march &- era &* 400
            let shiftedMonth = UInt(truncatingIfNeeded: month > 2 ? month &- 3 : month &+ 9)
            let dayOfYear = (153 &* shiftedMonth &+ 2) / 5 &+ UInt(truncatingIfNeeded: day) &- 1
            let dayOfEra = yearOfEra &* 365 &+ yearOfEra / 4 &- yearOfEra / 100 &+ dayOfYear
            return Int64(truncatingIfNeeded: era &* 146_097 &+ dayOfEra) &- 719_468
        }
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number.
    static func date(dayNumber: Int64) -> (year: Int, month: Int, day: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Floor division, for splitting instants before 1970 into day and time of day.
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}
