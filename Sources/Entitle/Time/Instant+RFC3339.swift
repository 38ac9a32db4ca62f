extension Instant {
    /// Parses RFC 3339 from raw bytes, without allocating.
    ///
    /// - Parameter allowCompactOffset: also accept `+0100` (no colon), the form some Apple receipts use.
    static func parseRFC3339(_ bytes: UnsafeRawBufferPointer, allowCompactOffset: Bool = false) -> Instant? {
        let count = bytes.count
        guard count >= 20 else { return nil }
        // Digits at fixed positions, checked all at once: `d &+ 6` reaches 16 only for a non-digit.
        @inline(__always) func digit(_ index: Int) -> UInt8 { bytes[index] &- UInt8(ascii: "0") }
        let y0 = digit(0), y1 = digit(1), y2 = digit(2), y3 = digit(3)
        let mo0 = digit(5), mo1 = digit(6), d0 = digit(8), d1 = digit(9)
        let h0 = digit(11), h1 = digit(12), mi0 = digit(14), mi1 = digit(15), s0 = digit(17), s1 = digit(18)
        var check = (y0 &+ 6) | (y1 &+ 6) | (y2 &+ 6) | (y3 &+ 6) | (mo0 &+ 6) | (mo1 &+ 6) | (d0 &+ 6) | (d1 &+ 6)
        check |= (h0 &+ 6) | (h1 &+ 6) | (mi0 &+ 6) | (mi1 &+ 6) | (s0 &+ 6) | (s1 &+ 6)
        guard check & 0xF0 == 0, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] | 0x20 == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        let year = Int(y0) * 1000 + Int(y1) * 100 + Int(y2) * 10 + Int(y3)
        let month = Int(mo0) * 10 + Int(mo1), day = Int(d0) * 10 + Int(d1)
        let hour = Int(h0) * 10 + Int(h1), minute = Int(mi0) * 10 + Int(mi1), second = Int(s0) * 10 + Int(s1)
        @inline(__always) func number(_ index: Int, _ length: Int) -> Int? {
            var value = 0
            for position in index..<(index + length) {
                let d = digit(position)
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
            }
            return value
        }
        guard month >= 1, month <= 12, day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var millisecond = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < count, digit(index) < 10 {
                if digits < 3 { millisecond = millisecond * 10 + Int(digit(index)) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millisecond *= 10 }
        }
        guard index < count else { return nil }
        var offsetMinutes = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            if index + 6 == count, bytes[index + 3] == UInt8(ascii: ":"),
               let h = number(index + 1, 2), let m = number(index + 4, 2) {
                guard h < 24, m < 60 else { return nil }
                offsetMinutes = sign * (h * 60 + m)
                index += 6
            } else if allowCompactOffset, index + 5 == count,
                      let h = number(index + 1, 2), let m = number(index + 3, 2) {
                guard h < 24, m < 60 else { return nil }
                offsetMinutes = sign * (h * 60 + m)
                index += 5
            } else {
                return nil
            }
        default:
            return nil
        }
        guard index == count else { return nil }
        let days = CivilCalendar.dayNumber(year: year, month: month, day: day)
        let milliseconds = days * CivilCalendar.millisecondsPerDay
            + Int64(hour * 3_600_000 + minute * 60_000 + second * 1000 + millisecond)
            - Int64(offsetMinutes) * 60_000
        return Instant(millisecondsSince1970: milliseconds)
    }

    /// Formats milliseconds as RFC 3339 UTC (`2026-01-15T09:00:00Z`, or `...:00.250Z`).
    static func format(_ milliseconds: Int64) -> String {
        let (days, timeOfDay) = CivilCalendar.floorDivide(milliseconds, CivilCalendar.millisecondsPerDay)
        let (year, month, day) = CivilCalendar.date(dayNumber: days)
        let ms = Int(timeOfDay)
        var text = ""
        text.reserveCapacity(24)
        func pad(_ value: Int, _ width: Int) {
            let digits = String(value)
            if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
            text += digits
        }
        if year < 0 { text += "-" }
        pad(abs(year), 4)
        text += "-"; pad(month, 2)
        text += "-"; pad(day, 2)
        text += "T"; pad(ms / 3_600_000, 2)
        text += ":"; pad(ms / 60_000 % 60, 2)
        text += ":"; pad(ms / 1000 % 60, 2)
        if ms % 1000 != 0 {
            text += "."; pad(ms % 1000, 3)
        }
        text += "Z"
        return text
    }
}
