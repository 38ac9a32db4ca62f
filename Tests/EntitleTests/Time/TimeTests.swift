import Foundation
import Testing

@testable import Entitle

@Suite("Instants and durations")
struct TimeTests {
    @Test(
        "RFC 3339 parses to milliseconds",
        arguments: [
            ("1970-01-01T00:00:00Z", Int64(0)),
            ("2026-01-15T09:00:00Z", Int64(1_768_467_600_000)),
            ("2026-01-15T10:00:00+01:00", Int64(1_768_467_600_000)),
            ("2026-01-15T04:30:00-04:30", Int64(1_768_467_600_000)),
            ("2026-01-15T09:00:00.5Z", Int64(1_768_467_600_500)),
            ("2026-01-15T09:00:00.123456Z", Int64(1_768_467_600_123)),
            ("2026-01-15t09:00:00z", Int64(1_768_467_600_000)),
            ("1969-12-31T23:59:59.999Z", Int64(-1)),
            ("2024-02-29T00:00:00Z", Int64(1_709_164_800_000)),
        ])
    func parses(text: String, milliseconds: Int64) {
        #expect(Instant(rfc3339: text)?.millisecondsSince1970 == milliseconds)
    }

    @Test(
        "RFC 3339 rejects what is not a real instant",
        arguments: [
            "2026-01-15", "2026-01-15 09:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z", "2026-01-15T24:00:00Z", "2026-01-15T09:60:00Z", "2026-01-15T09:00:60Z",
            "2026-01-15T09:00:00", "2026-01-15T09:00:00+0100", "2026-01-15T09:00:00.Z", "2026-01-15T09:00:00+25:00",
            "20260115T090000Z", "", "2026-01-15T09:00:00Zjunk",
        ])
    func rejects(text: String) {
        #expect(Instant(rfc3339: text) == nil)
    }

    @Test("the in-place reader of `...:00.250Z` instants agrees with the general one on every one-byte change")
    func millisecondLayout() throws {
        let samples = [
            "2026-01-15T09:00:00.250Z", "2024-02-29T23:59:59.999Z", "0001-01-01T00:00:00.000Z",
            "9999-12-31T23:59:59.999Z", "1970-01-01T00:00:00.000Z", "2000-12-31T12:30:45.007Z",
        ]
        var changed = 0
        for sample in samples {
            #expect(Self.inPlace(Array(sample.utf8)) == Instant(rfc3339: sample)?.millisecondsSince1970)
            for position in 0..<24 {
                for value in 0...255 {
                    var bytes = Array(sample.utf8)
                    bytes[position] = UInt8(value)
                    let general = bytes.withUnsafeBytes { Instant.parseRFC3339($0) }?.millisecondsSince1970
                    let fast = Self.inPlace(bytes)
                    // The in-place reader may decline (lowercase `t`, `z`); when it answers, it agrees.
                    if let fast {
                        #expect(fast == general, "\(String(decoding: bytes, as: UTF8.self))")
                    } else if general != nil {
                        #expect(
                            bytes[10] == UInt8(ascii: "t") || bytes[23] == UInt8(ascii: "z"),
                            "declined \(String(decoding: bytes, as: UTF8.self))")
                    }
                    if fast != nil { changed += 1 }
                }
            }
        }
        #expect(changed > 24 * 6)  // digits changed into other digits still read
        // Every 7th day of years 0001-9999, at a time of day that moves with the day.
        var day = CivilCalendar.dayNumber(year: 1, month: 1, day: 1)
        let last = CivilCalendar.dayNumber(year: 9999, month: 12, day: 31)
        while day <= last {
            let milliseconds =
                day * CivilCalendar.millisecondsPerDay + (day * 7_919_993 % CivilCalendar.millisecondsPerDay + CivilCalendar.millisecondsPerDay)
                % CivilCalendar.millisecondsPerDay
            var text = Instant.format(milliseconds)
            if !text.contains(".") { text = String(text.dropLast()) + ".000Z" }
            #expect(Self.inPlace(Array(text.utf8)) == milliseconds, "\(text)")
            day += 7
        }
        #expect(Self.inPlace(Array("2023-02-29T00:00:00.000Z".utf8)) == nil)
        #expect(Self.inPlace(Array("2026-04-31T00:00:00.000Z".utf8)) == nil)
        #expect(Self.inPlace(Array("0000-01-01T00:00:00.000Z".utf8)) == nil)
    }

    private static func inPlace(_ bytes: [UInt8]) -> Int64? {
        bytes.withUnsafeBytes { Instant.parseMillisecondUTC($0, at: 0) }
    }

    @Test("instants are written with four-digit years, milliseconds only when there are some, and every digit of a year past 9999")
    func formatting() {
        #expect(Instant.format(0) == "1970-01-01T00:00:00Z")
        #expect(Instant.format(1_768_467_600_250) == "2026-01-15T09:00:00.250Z")
        #expect(Instant.format(1_768_467_600_007) == "2026-01-15T09:00:00.007Z")
        #expect(Instant.format(Instant.earliest.millisecondsSince1970) == "0001-01-01T00:00:00Z")
        #expect(Instant.format(Instant.latest.millisecondsSince1970) == "9999-12-31T23:59:59.999Z")
        #expect(Instant.format(Instant.latest.millisecondsSince1970 + 1) == "10000-01-01T00:00:00Z")
        #expect(Instant.format(Instant.earliest.millisecondsSince1970 - 1) == "0000-12-31T23:59:59.999Z")
        var bytes = Array("x".utf8)
        Instant.appendRFC3339(86_399_999, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x1970-01-01T23:59:59.999Z")
    }

    @Test("compact offsets only where Apple uses them")
    func compactOffset() {
        var text = "2020-07-22T18:33:15+0100"
        let parsed = text.withUTF8 { Instant.parseRFC3339(UnsafeRawBufferPointer($0), allowCompactOffset: true) }
        #expect(parsed == Instant(rfc3339: "2020-07-22T17:33:15Z"))
    }

    @Test(
        "formats UTC with milliseconds only when not zero",
        arguments: [
            (Int64(1_768_467_600_000), "2026-01-15T09:00:00Z"),
            (Int64(1_768_467_600_250), "2026-01-15T09:00:00.250Z"),
            (Int64(-1), "1969-12-31T23:59:59.999Z"),
            (Int64(951_782_400_000), "2000-02-29T00:00:00Z"),
        ])
    func formats(milliseconds: Int64, text: String) {
        #expect(Instant(millisecondsSince1970: milliseconds).rfc3339 == text)
    }

    @Test("formatting and parsing round-trip across centuries")
    func roundTrip() {
        var value: Int64 = -2_208_988_800_000  // 1900-01-01
        while value < 4_102_444_800_000 {  // 2100-01-01
            let text = Instant(millisecondsSince1970: value).rfc3339
            #expect(Instant(rfc3339: text)?.millisecondsSince1970 == value, "\(text)")
            value += 86_400_000 * 37 + 3_600_000 * 5 + 1_234
        }
    }

    @Test("every digit position of an RFC 3339 instant takes only digits", arguments: [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18])
    func digitsOnly(position: Int) {
        for byte in Array("*+,-./:;<=>?@ aZ".utf8) {
            var text = Array("2026-01-14T18:00:00Z".utf8)
            text[position] = byte
            #expect(Instant(rfc3339: String(decoding: text, as: UTF8.self)) == nil, "\(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test("instants are read within years 0001-9999, offsets included")
    func range() {
        #expect(Instant(rfc3339: "0001-01-01T00:00:00Z") == Instant.earliest)
        #expect(Instant(rfc3339: "9999-12-31T23:59:59.999Z") == Instant.latest)
        #expect(Instant(rfc3339: "0000-01-01T00:00:00Z") == nil)
        #expect(Instant(rfc3339: "0001-01-01T00:00:00+00:01") == nil)
        #expect(Instant(rfc3339: "9999-12-31T23:59:59-00:01") == nil)
        #expect(Instant.earliest.rfc3339 == "0001-01-01T00:00:00Z")
        #expect(Instant.latest.rfc3339 == "9999-12-31T23:59:59.999Z")
        #expect(Instant(checkedMilliseconds: .max) == nil && Instant(checkedMilliseconds: .min) == nil)
        #expect(Instant(Date(timeIntervalSince1970: 1e300)) == Instant.latest)
        #expect(Instant(Date(timeIntervalSince1970: -1e300)) == Instant.earliest)
        #expect(Instant(Date(timeIntervalSince1970: .nan)).millisecondsSince1970 == 0)
    }

    @Test(
        "durations longer than P100Y are over the limit",
        arguments: [
            ("P100Y", true), ("P1200M", true), ("P36525D", true), ("P37200D", true), ("P37201D", false), ("P101Y", false),
            ("P99Y12M", true), ("P99Y13M", false), ("PT892800H", true), ("PT892801H", false),
        ])
    func durationLimit(text: String, within: Bool) throws {
        #expect(try #require(ISODuration(text)).isWithinLimit == within)
    }

    @Test(
        "ISO 8601 durations parse",
        arguments: [
            ("P1M", ISODuration(months: 1)), ("P1Y2M3W4D", ISODuration(years: 1, months: 2, weeks: 3, days: 4)),
            ("PT36H", ISODuration(hours: 36)), ("P1DT12H30M5S", ISODuration(days: 1, hours: 12, minutes: 30, seconds: 5)),
            ("P14D", ISODuration(days: 14)), ("P2W", ISODuration(weeks: 2)),
        ])
    func durationParses(text: String, expected: ISODuration) {
        #expect(ISODuration(text) == expected)
    }

    @Test(
        "bad ISO 8601 durations are rejected",
        arguments: [
            "", "P", "PT", "1M", "P1", "P1.5M", "P-1D", "PM", "P1D1M", "P1MT", "P1H", "PT1D", "P1M1M", "p1m", "P1DT",
            "P4000000001D", "PT99999999999S",
        ])
    func durationRejects(text: String) {
        #expect(ISODuration(text) == nil)
    }

    @Test("a duration that parses but is longer than P100Y is over the catalog's limit", arguments: ["P10000000D", "P101Y", "P1201M"])
    func durationOverLimit(text: String) {
        #expect(ISODuration(text)?.isWithinLimit == false)
    }

    @Test(
        "months add in the calendar, clamping to the month's last day",
        arguments: [
            ("2026-01-31T10:00:00Z", "P1M", "2026-02-28T10:00:00Z"),
            ("2024-01-31T10:00:00Z", "P1M", "2024-02-29T10:00:00Z"),
            ("2026-03-31T00:00:00Z", "P1M", "2026-04-30T00:00:00Z"),
            ("2024-02-29T00:00:00Z", "P1Y", "2025-02-28T00:00:00Z"),
            ("2026-12-15T00:00:00Z", "P1M", "2027-01-15T00:00:00Z"),
            ("2026-01-31T00:00:00Z", "P1M1D", "2026-03-01T00:00:00Z"),
            ("2026-03-08T12:00:00Z", "P1D", "2026-03-09T12:00:00Z"),
            ("2026-01-01T00:00:00Z", "PT36H", "2026-01-02T12:00:00Z"),
            ("2026-01-01T00:00:00Z", "P2W", "2026-01-15T00:00:00Z"),
            ("1969-12-31T23:00:00Z", "P1M", "1970-01-31T23:00:00Z"),
        ])
    func durationAdds(start: String, duration: String, end: String) throws {
        let duration = try #require(ISODuration(duration))
        #expect(duration.added(to: Fixtures.instant(start)) == Fixtures.instant(end))
    }
}

extension ISODuration {
    init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        self.init(days: days)
        self.years = years
        self.months = months
        self.weeks = weeks
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }
}
