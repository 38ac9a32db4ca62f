/// The time axis of a drawn timeline: from the earliest to the latest instant drawn (the instant
/// explained among them), padded, mapped linearly onto the plot's width, with a few ticks at
/// round dates (hours, days, weeks, months or years, whichever gives at most eight).
struct TimeScale {
    /// The first and last instants of the axis, in milliseconds.
    let start: Double
    let end: Double
    /// Where the axis begins and ends, in pixels.
    let left: Double
    let right: Double

    /// An axis showing everything `rows` draws, and `at`.
    init(rows: [TimelineSVG.Row], at: Int64, left: Double, right: Double) {
        let lanes = rows.flatMap(\.lanes)
        let drawn = lanes.flatMap { lane in lane.bars.flatMap { [$0.start, $0.end].compactMap { $0 } } + lane.marks.map(\.at) }
        let (low, high) = (min(at, drawn.min() ?? at), max(at, drawn.max() ?? at))
        self.init(from: low, to: high, left: left, right: right)
    }

    /// An axis from `low` to `high` (milliseconds), padded by 4% on each side and at least a day
    /// long, within years 0001-9999.
    init(from low: Int64, to high: Int64, left: Double, right: Double) {
        let day = Double(CivilCalendar.millisecondsPerDay)
        var start = Double(low)
        var end = Double(high)
        if end - start < day {
            let middle = (start + end) / 2
            start = middle - day / 2
            end = middle + day / 2
        }
        let padding = (end - start) * 0.04
        self.start = max(start - padding, Double(Instant.earliest.millisecondsSince1970))
        self.end = min(end + padding, Double(Instant.latest.millisecondsSince1970))
        self.left = left
        self.right = right
    }

    /// Where an instant lies, in pixels, within the axis.
    func x(_ milliseconds: Int64) -> Double {
        let fraction = (Double(milliseconds) - start) / (end - start)
        return min(max(left + fraction * (right - left), left), right)
    }

    /// The steps ticks may take, shortest first: fixed lengths, then calendar months.
    private enum Step {
        case milliseconds(Int64)
        case months(Int)

        var approximateLength: Double {
            switch self {
            case .milliseconds(let length): Double(length)
            case .months(let count): Double(count) * 30.436875 * Double(CivilCalendar.millisecondsPerDay)
            }
        }

        static let all: [Step] = {
            let hour: Int64 = 3_600_000
            let day = CivilCalendar.millisecondsPerDay
            return [
                .milliseconds(hour), .milliseconds(3 * hour), .milliseconds(6 * hour), .milliseconds(12 * hour),
                .milliseconds(day), .milliseconds(2 * day), .milliseconds(7 * day), .milliseconds(14 * day),
            ]
                + [1, 2, 3, 6, 12, 24, 60, 120, 240, 600, 1200, 2400, 6000, 12000, 24000].map { .months($0) }
        }()
    }

    /// A tick of the axis: where it is and its date.
    struct Tick: Equatable {
        var x: Double
        var label: String
    }

    /// The ticks: the shortest step giving at most eight, each at a round instant, labelled as
    /// finely as the step needs (`01-15 06:00`, `2026-01-15`, `2026-01`, `2026`).
    func ticks() -> [Tick] {
        let step = Step.all.first { (end - start) / $0.approximateLength <= 8 } ?? .months(24000)
        var instants: [Int64] = []
        let low = Int64(start.rounded(.up))
        let high = Int64(end.rounded(.down))
        switch step {
        case .milliseconds(let length):
            // Weeks begin on Monday (1970-01-05 was one), other steps at multiples of themselves.
            let offset: Int64 = length == 7 * CivilCalendar.millisecondsPerDay ? 4 * CivilCalendar.millisecondsPerDay : 0
            var tick = CivilCalendar.floorDivide(low - offset, length).quotient * length + offset
            if tick < low { tick += length }
            while tick <= high, instants.count < 40 {
                instants.append(tick)
                tick += length
            }
        case .months(let count):
            let first = CivilCalendar.date(dayNumber: CivilCalendar.floorDivide(low, CivilCalendar.millisecondsPerDay).quotient)
            var month = first.year * 12 + first.month - 1
            month += (count - month % count) % count
            while instants.count < 40 {
                let (year, monthOfYear) = (month / 12, month % 12 + 1)
                guard year <= 9999 else { break }
                let tick = CivilCalendar.dayNumber(year: year, month: monthOfYear, day: 1) * CivilCalendar.millisecondsPerDay
                if tick > high { break }
                if tick >= low { instants.append(tick) }
                month += count
            }
        }
        return instants.map { instant in
            let text = Instant(millisecondsSince1970: instant).rfc3339
            let label: String
            switch step {
            case .milliseconds(let length) where length < CivilCalendar.millisecondsPerDay:
                label = String(text.dropFirst(5).prefix(5)) + " " + String(text.dropFirst(11).prefix(5))
            case .milliseconds: label = String(text.prefix(10))
            case .months(let count) where count < 12: label = String(text.prefix(7))
            case .months: label = String(text.prefix(4))
            }
            return Tick(x: x(instant), label: label)
        }
    }
}
