extension Instant {
    /// Parses RFC 3339 from raw bytes, without allocating.
    ///
    /// - Parameter allowCompactOffset: also accept `+0100` (no colon), the form some Apple receipts use.
    static func parseRFC3339(_ bytes: UnsafeRawBufferPointer, allowCompactOffset: Bool = false) -> Instant? {
        let count = bytes.count
        guard count >= 20 else { return nil }
        // Digits at fixed positions, checked all at once. `d = byte - "0"` (wrapping) is a digit
        // when d < 10: then both d and d + 6 are below 16. A byte below "0" wraps d to 0xF0 or
        // more, and one from ":" upwards makes d + 6 at least 16, so either sets a high bit.
        @inline(__always) func digit(_ index: Int) -> UInt8 { bytes[index] &- UInt8(ascii: "0") }
        @inline(__always) func flags(_ d: UInt8) -> UInt8 { d | (d &+ 6) }
        let y0 = digit(0)
        let y1 = digit(1)
        let y2 = digit(2)
        let y3 = digit(3)
        let mo0 = digit(5)
        let mo1 = digit(6)
        let d0 = digit(8)
        let d1 = digit(9)
        let h0 = digit(11)
        let h1 = digit(12)
        let mi0 = digit(14)
        let mi1 = digit(15)
        let s0 = digit(17)
        let s1 = digit(18)
        var check = flags(y0) | flags(y1) | flags(y2) | flags(y3) | flags(mo0) | flags(mo1) | flags(d0) | flags(d1)
        check |= flags(h0) | flags(h1) | flags(mi0) | flags(mi1) | flags(s0) | flags(s1)
        guard check & 0xF0 == 0, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] | 0x20 == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        let year = Int(y0) * 1000 + Int(y1) * 100 + Int(y2) * 10 + Int(y3)
        let month = Int(mo0) * 10 + Int(mo1)
        let day = Int(d0) * 10 + Int(d1)
        let hour = Int(h0) * 10 + Int(h1)
        let minute = Int(mi0) * 10 + Int(mi1)
        let second = Int(s0) * 10 + Int(s1)
        @inline(__always) func number(_ index: Int, _ length: Int) -> Int? {
            var value = 0
            for position in index..<(index + length) {
                let d = digit(position)
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
            }
            return value
        }
        guard year >= 1, month >= 1, month <= 12, day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
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
                let h = number(index + 1, 2), let m = number(index + 4, 2)
            {
                guard h < 24, m < 60 else { return nil }
                offsetMinutes = sign * (h * 60 + m)
                index += 6
            } else if allowCompactOffset, index + 5 == count,
                let h = number(index + 1, 2), let m = number(index + 3, 2)
            {
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
        let milliseconds =
            days * CivilCalendar.millisecondsPerDay
            + Int64(hour * 3_600_000 + minute * 60_000 + second * 1000 + millisecond)
            - Int64(offsetMinutes) * 60_000
        // An offset can carry 0001-01-01 or 9999-12-31 past the range.
        return Instant(checkedMilliseconds: milliseconds)
    }

    /// Parses the layout receipts use most, `2026-01-15T09:00:00.250Z` (exactly 24 bytes, UTC,
    /// milliseconds), from three 8-byte loads at `position`; `nil` for anything else, which
    /// ``parseRFC3339(_:allowCompactOffset:)`` then reads. The caller makes sure 24 bytes exist.
    ///
    /// Every byte is checked: a digit where the layout has one, the exact separator elsewhere. The
    /// answer is the same as the general parser's for every input both accept.
    @inline(__always)
    static func parseMillisecondUTC(_ bytes: UnsafeRawBufferPointer, at position: Int) -> Int64? {
        @inline(__always) func load(_ index: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position + index, as: UInt64.self))
        }
        // XOR with the layout turns each digit into 0...9 and each right separator into 0.
        // Byte i of a word is bits 8i...8i+7. Digit bytes (`0`) may keep only their low nibble, and
        // adding 6 to it must not reach 16; separator bytes must be 0 outright.
        let layout0: UInt64 = 0x2D30_302D_3030_3030  // "0000-00-"
        let layout1: UInt64 = 0x3030_3A30_3054_3030  // "00T00:00"
        let layout2: UInt64 = 0x5A30_3030_2E30_303A  // ":00.000Z"
        let digits0: UInt64 = 0x000F_0F00_0F0F_0F0F
        let digits1: UInt64 = 0x0F0F_000F_0F00_0F0F
        let digits2: UInt64 = 0x000F_0F0F_000F_0F00
        let d0 = load(0) ^ layout0
        let d1 = load(8) ^ layout1
        let d2 = load(16) ^ layout2
        let outside = (d0 & ~digits0) | (d1 & ~digits1) | (d2 & ~digits2)
        let sixes: UInt64 = 0x0606_0606_0606_0606
        let overNine =
            ((d0 &+ (sixes & digits0)) & ~digits0) | ((d1 &+ (sixes & digits1)) & ~digits1)
            | ((d2 &+ (sixes & digits2)) & ~digits2)
        guard outside | overNine == 0 else { return nil }
        // Each byte i of `pairs` is the two-digit number of digits i and i + 1: ten times a digit
        // is at most 90, plus the next at most 99, so no byte carries into the next.
        @inline(__always) func pairs(_ word: UInt64) -> UInt64 { word &* 10 &+ (word >> 8) }
        @inline(__always) func byte(_ word: UInt64, _ index: UInt64) -> Int { Int(truncatingIfNeeded: (word >> (8 * index)) & 0xFF) }
        let p0 = pairs(d0)
        let p1 = pairs(d1)
        let p2 = pairs(d2)
        let year = byte(p0, 0) &* 100 &+ byte(p0, 2)
        let month = byte(p0, 5)
        let day = byte(p1, 0)
        let hour = byte(p1, 3)
        let minute = byte(p1, 6)
        let second = byte(p2, 1)
        let millisecond = byte(p2, 4) &* 10 &+ byte(d2, 6)
        // Every month has 28 days: only the days after need its length.
        guard year >= 1, month >= 1, month <= 12, day >= 1, day <= 28 || day <= CivilCalendar.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        // Years 0001-9999 in UTC always lie within ``Instant/earliest``...``Instant/latest``.
        return CivilCalendar.dayNumber(year: year, month: month, day: day) * CivilCalendar.millisecondsPerDay
            + Int64(hour * 3_600_000 + minute * 60_000 + second * 1000 + millisecond)
    }

    /// Formats milliseconds as RFC 3339 UTC (`2026-01-15T09:00:00Z`, or `...:00.250Z`).
    static func format(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendRFC3339(milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``format(_:)``'s text, appended to `bytes` without building a string.
    static func appendRFC3339(_ milliseconds: Int64, to bytes: inout [UInt8]) {
        let (days, timeOfDay) = CivilCalendar.floorDivide(milliseconds, CivilCalendar.millisecondsPerDay)
        let (year, month, day) = CivilCalendar.date(dayNumber: days)
        let ms = Int(timeOfDay)
        let digit = UInt8(ascii: "0")
        func pad(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor &*= 10 }
            // A year past 9999 keeps all its digits.
            while value / divisor >= 10 { divisor &*= 10 }
            while divisor > 0 {
                bytes.append(digit &+ UInt8(truncatingIfNeeded: value / divisor % 10))
                divisor /= 10
            }
        }
        if year < 0 { bytes.append(UInt8(ascii: "-")) }
        pad(abs(year), 4)
        bytes.append(UInt8(ascii: "-"))
        pad(month, 2)
        bytes.append(UInt8(ascii: "-"))
        pad(day, 2)
        bytes.append(UInt8(ascii: "T"))
        pad(ms / 3_600_000, 2)
        bytes.append(UInt8(ascii: ":"))
        pad(ms / 60_000 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        pad(ms / 1000 % 60, 2)
        if ms % 1000 != 0 {
            bytes.append(UInt8(ascii: "."))
            pad(ms % 1000, 3)
        }
        bytes.append(UInt8(ascii: "Z"))
    }
}
