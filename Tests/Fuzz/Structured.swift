// The `structured` target: the input is a stream of choices that builds a catalog and one to three
// receipts as JSON text, plus an instant; they then go through the public pipeline (compile,
// decode or import, evaluate, render). Blind byte mutation of JSON rarely produces a catalog that
// compiles together with receipts that reach its products, so it never got to the evaluation
// arithmetic; here almost every input does.
//
// Values are drawn mostly from edges (0, 1, 2, every limit and its neighbours, Int64.min/max,
// years 0001 and 9999, month ends) and any element may be repeated up to a few thousand times, so
// quadratic paths show up as libFuzzer timeouts. An exhausted input reads as zeros, and zero
// always picks the first (ordinary) option, so short inputs give small, valid documents.

import Foundation

/// The largest repeat: 16 for `structured` (fast inputs, for traps and wrong answers), 4000 for
/// `stalls` (large inputs, for quadratic paths); `ENTITLE_FUZZ_MAX_REPEAT` sets it.
let maxRepeat: Int =
    ProcessInfo.processInfo.environment["ENTITLE_FUZZ_MAX_REPEAT"].flatMap { Int($0) }.map { max(1, $0) }
    ?? (selectedTarget == .stalls ? 4000 : 16)

/// The input bytes, read as choices.
struct Choices {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// 0..<n for n up to 256.
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(byte()) % n }

    mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }

    /// True about `percent` percent of the time; false on an exhausted input.
    mutating func chance(_ percent: Int) -> Bool {
        let value = Int(byte())
        return value != 0 && value * 100 < percent * 256
    }

    mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int64(bitPattern: value)
    }

    /// Mostly a value every check accepts; rarely (about 2%) one it refuses, so the error paths
    /// stay reachable without making most documents fail.
    mutating func edge<T>(_ valid: [T], invalid: [T]) -> T {
        chance(2) && !invalid.isEmpty ? pick(invalid) : pick(valid)
    }

    /// Mostly 1, sometimes a few, rarely thousands: how many times to write an element.
    /// (Thousands are kept rare: every such input costs tens of milliseconds.)
    mutating func repeatCount() -> Int {
        guard chance(5) else { return 1 }
        return min(chance(8) ? pick([1000, 2000, 4000]) : pick([2, 3, 10, 100]), maxRepeat)
    }
}

/// JSON text built by appending; every key and string this file writes needs no escaping except
/// the few names passed through `string(_:)`.
struct JSONText {
    var text = ""
    /// Whether to start a line after every comma (else the text is one line, as machine-written
    /// JSON is; a one-line document with many diagnostics exercises locating columns).
    var lines = false
    private var needsComma = [false]

    mutating func comma() {
        if needsComma[needsComma.count - 1] { text += lines ? ",\n" : "," }
        needsComma[needsComma.count - 1] = true
    }
    mutating func open(_ bracket: String, key: String? = nil) {
        comma()
        if let key { text += "\"\(key)\":" }
        text += bracket
        needsComma.append(false)
    }
    mutating func close(_ bracket: String) {
        needsComma.removeLast()
        text += bracket
    }
    mutating func raw(_ key: String?, _ value: String) {
        comma()
        if let key { text += "\"\(key)\":" }
        text += value
    }
    mutating func string(_ key: String?, _ value: String) { raw(key, JSONText.quote(value)) }
    mutating func int(_ key: String?, _ value: Int64) { raw(key, String(value)) }
    mutating func bool(_ key: String?, _ value: Bool) { raw(key, value ? "true" : "false") }

    static func quote(_ value: String) -> String {
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return "\"" + value + "\""
        }
        let escaped = value.replacingScalars { scalar in
            switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case _ where scalar.value < 0x20: String(format: "\\u%04x", scalar.value)
            default: nil
            }
        }
        return "\"" + escaped + "\""
    }
}

// MARK: - Edge values

enum Edges {
    static let fuzzApp = "com.example.fuzz"
    static let otherApp = "com.example.other"
    static let otherProducts = ["com.example.other.pro", "com.example.other.lite"]
    static let features = ["f0", "f1", "f2"]
    static let currencies = ["c0", "c1"]
    static let limits = ["l0", "l1"]
    /// Number limit values: whole numbers 0 to 10^12 or "unlimited" (as JSON text), and values past them.
    static let limitValues = ["0", "1", "50", "1000000000000", "\"unlimited\""]
    static let badLimitValues = ["-1", "1000000000001", "\"unlimted\"", "\"50\"", "2.5", "null", "9223372036854775807"]

    // Valid values sit at and just inside the library's limits (CatalogLimits, ReceiptLimits:
    // durations up to P100Y = 37,200 nominal days, credits up to 10^9, quantity up to 1000,
    // consumption amounts up to 10^12); the "bad" lists hold the values just past them and the
    // far ones (P1000000D, Int64.max, ...) that overflowed before the limits existed.
    static let durations = [
        "P1D", "P1M", "P1Y", "PT24H", "P1W", "P100Y", "P1200M", "P36525D", "P37200D", "P5314W", "PT892800H", "P99Y11M",
        "P99Y11M30D", "PT1S", "PT1M", "PT12H", "P2W", "P3M", "P6M", "P1Y6M", "P12M", "P31D", "P1M1D", "PT86399S",
        "P1Y1M1W1DT1H1M1S", "PT1000000S", "PT1000000M", "P10000D",
    ]
    static let badDurations = [
        "P0D", "P37201D", "P101Y", "P1201M", "P5315W", "PT892801H", "P100YT1S", "P99999D", "P999999D", "P1000000D",
        "P1000001D", "P1000000Y", "P1000000M", "P1000000W", "PT1000000H", "P1000000Y1000000M1000000W1000000DT1000000H1000000M1000000S",
        "P", "PT", "P1H", "1D", "P-1D", "P1D1Y", "P1.5D",
    ]
    static let trialDays: [Int64] = [14, 1, 2, 3, 7, 30, 31, 365, 366, 9999, 36525, 37200, 37201, 99999]
    static let badTrialDays: [Int64] = [0, -1, 100000, 1_000_000, 1_000_000_000, Int64.max, 99_999_999_999_999_999]
    static let priceTiers: [Int64] = [0, 1, 2, 30, 87, 1_000_000, Int64.max]
    static let credits: [Int64] = [10, 1, 2, 1000, 1_000_000, 999_999_999, 1_000_000_000]
    static let badCredits: [Int64] = [
        0, -1, 1_000_000_001, 999_999_999_999, 1_000_000_000_000, 10_000_000_000_000, 9_223_372_036_854,
        9_223_372_036_854_775,  // max / 1000
        4_611_686_018_427_387_904, 4_611_686_018_427_387_903, Int64.max, Int64.max - 1,
    ]
    static let quantities: [Int64] = [1, 2, 3, 10, 999, 1000]
    static let badQuantities: [Int64] = [0, -1, 1001, 999_999, 1_000_000, 1_000_001, Int64.max]
    static let amounts: [Int64] = [1, 2, 3, 10, 1000, 999_999_999_999, 1_000_000_000_000]
    static let badAmounts: [Int64] = [0, -1, 1_000_000_000_001, Int64.max]
    static let introModes = ["free-trial", "pay-as-you-go", "pay-up-front"]
    static let groups = ["g0", "g1"]
    static let offerIds = ["o0", "o1", "o2"]
    static let offerTypes = ["win-back", "promotional"]
    static let accounts = ["6f1c1c9e-3a5b-4c1d-9e2f-0a1b2c3d4e5f", "0B6E4C1A-9D2F-4E3A-8C7B-5A4D3E2F1A0B"]
    static let badAccounts = ["", "not-a-uuid", "6f1c1c9e-3a5b-4c1d-9e2f-0a1b2c3d4e5", "6f1c1c9e3a5b4c1d9e2f0a1b2c3d4e5f"]
    static let percentages = ["0", "25", "33.333", "50", "99.999", "100"]
    static let badPercentages = ["-1", "100.001", "33.3333", "1e400", "\"50\""]
    static let milliPercentages: [Int64] = [0, 25_000, 33_333, 100_000]
    static let badMilliPercentages: [Int64] = [-1, 100_001, Int64.max]
    static let names = ["Pro", "Ünïcødé ✓", "tab\tnew\nline", "", String(repeating: "x", count: 300)]

    /// RFC 3339 texts: years 0001 and 9999, around 1970, month ends, leap days, offsets, fractions.
    static let instantTexts = [
        "2026-01-15T09:00:00Z", "2026-01-01T00:00:00Z", "2026-01-31T00:00:00Z", "2026-01-31T23:59:59.999Z",
        "2024-01-31T12:00:00Z", "2024-02-29T00:00:00Z", "2024-02-29T23:59:59.999Z", "2026-02-28T23:59:59.999Z",
        "2026-03-01T00:00:00Z", "2025-12-31T23:59:59.999Z", "2026-03-31T00:00:00Z", "2026-08-31T00:00:00Z",
        "2000-02-29T00:00:00Z", "2100-02-28T00:00:00Z", "1900-02-28T00:00:00Z",
        "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999Z", "1970-01-01T00:00:00.001Z", "1969-12-31T00:00:00Z",
        "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.001Z", "0001-01-31T00:00:00Z", "0001-12-31T23:59:59.999Z",
        "9999-12-31T23:59:59.999Z", "9999-12-31T00:00:00Z", "9999-12-01T00:00:00Z", "9999-01-31T00:00:00Z", "9998-12-31T00:00:00Z",
        "2026-01-15T09:00:00.5+14:00", "2026-01-01T00:00:00-23:59", "2026-01-15T09:00:00.123456789Z",
        "0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59", "2026-01-15T09:00:00.999999Z",
    ]

    /// Milliseconds for Apple data and for the evaluation instant: Int64 extremes and their
    /// neighbours, zero and around it, and the ends of years 0001 and 9999.
    static let extremeMilliseconds: [Int64] = [
        Int64.min, Int64.min + 1, Int64.max, Int64.max - 1, 0, -1, 1,
        -62_135_596_800_000, -62_135_596_800_001, 253_402_300_799_999, 253_402_300_800_000,
        Int64.max - 86_400_000, Int64.max - 86_399_999, Int64.min + 86_400_000, 9_223_372_036_768_375_809,
    ]
}

/// An instant as it is written: normalized receipts use `text`, Apple data `milliseconds`.
struct DateValue {
    var milliseconds: Int64
    var text: String
}

// MARK: - The generated scenario

struct Scenario {
    var catalog = ""
    var receipts: [(text: String, appStore: Bool)] = []
    var at = Instant(millisecondsSince1970: 0)
}

struct ScenarioBuilder {
    var choices: Choices
    var productIds: [String] = []
    var paid: [(id: String, grants: [String])] = []
    var dates: [Int64] = []
    var transactionIds = ["1000", "1001", "1002", "1003"]
    var uniqueCounter = 0
    /// The Advanced Commerce SKUs the catalog declares so far (transactions list these and others).
    var skus: [String] = []

    /// Elements written per receipt list, repeats included: bounds the work per input.
    static let maxElements = 6000
    /// Advanced Commerce items written per input, over every transaction: one list may pass the
    /// limit of a transaction's items, and thousands of transactions each with a thousand items
    /// would build gigabytes of text no decoder reads past its byte limit.
    static let maxItemsPerInput = 2 * (ReceiptLimits.maxItems + 1)
    var itemsWritten = 0

    /// An instant: one of the RFC 3339 edges, an earlier date (±1 ms), any instant of years
    /// 0001-9999, or (Apple data; rarely in normalized receipts, which cannot say them) Int64
    /// extremes.
    mutating func date(appStore: Bool = false) -> DateValue {
        let value: DateValue
        switch choices.below(8) {
        case 0..<5:
            let text = choices.pick(Edges.instantTexts)
            value = DateValue(milliseconds: Instant(rfc3339: text)?.millisecondsSince1970 ?? 0, text: text)
        case 5 where appStore || choices.chance(3):
            let milliseconds = choices.pick(Edges.extremeMilliseconds)
            value = DateValue(milliseconds: milliseconds, text: Instant(millisecondsSince1970: milliseconds).rfc3339)
        case 6 where !dates.isEmpty:
            // Reuse an earlier date, possibly a millisecond off: ties and half-open ends.
            let milliseconds = choices.pick(dates) &+ Int64(choices.below(3) - 1)
            value = DateValue(milliseconds: milliseconds, text: Instant(millisecondsSince1970: milliseconds).rfc3339)
        default:
            // Any instant from year 0001 to 9999.
            let span: Int64 = 253_402_300_800_000 + 62_135_596_800_000
            let raw = choices.int64()
            let milliseconds = -62_135_596_800_000 + Int64(UInt64(bitPattern: raw) % UInt64(span))
            value = DateValue(milliseconds: milliseconds, text: Instant(millisecondsSince1970: milliseconds).rfc3339)
        }
        dates.append(value.milliseconds)
        return value
    }

    mutating func grants(_ json: inout JSONText, from features: [String] = Edges.features) -> [String] {
        let mask = Int(choices.byte())
        var chosen = features.enumerated().filter { mask & (1 << $0.offset) == 0 }.map(\.element)
        if chosen.isEmpty && mask & 0x80 == 0 { chosen = [features[0]] }
        json.open("[", key: "grants")
        for feature in chosen { json.string(nil, feature) }
        if choices.chance(2) { json.string(nil, "undeclared") }
        json.close("]")
        return chosen
    }

    /// An Advanced Commerce product's `items` in place of its grants or credits: one to three SKUs
    /// of its own (rarely one declared before, by another product: an error), each granting or
    /// crediting, now and then with a misspelt key.
    mutating func items(_ json: inout JSONText, id: String, credits: Bool) {
        json.open("{", key: "items")
        for number in 0..<(1 + choices.below(3)) {
            let sku = choices.chance(3) && !skus.isEmpty ? choices.pick(skus) : "\(id).sku\(number)"
            skus.append(sku)
            json.open("{", key: sku)
            if credits {
                json.open("{", key: "credits")
                json.int(Edges.currencies[choices.below(2)], choices.edge(Edges.credits, invalid: Edges.badCredits))
                json.close("}")
            } else {
                _ = grants(&json)
            }
            if choices.chance(2) { json.string("grant", "f0") }
            json.close("}")
        }
        json.close("}")
    }

    /// A transaction's items: normalized (`items`) or Apple's (`advancedCommerceInfo.items`), some
    /// revoked or refunded, any of them repeated.
    mutating func transactionItems(_ json: inout JSONText, appStore: Bool) {
        let prices: [Int64] = [9990, 0, 1, 999_999_999_999_999_999]
        var elements: [String] = []
        for _ in 0..<(1 + choices.below(3)) {
            let sku = skus.isEmpty || choices.chance(10) ? "unknown.sku" : choices.pick(skus)
            let price = choices.edge(Array(prices.prefix(3)), invalid: [prices[3], -1])
            var fields =
                appStore
                ? ["\"SKU\":\(JSONText.quote(sku))", "\"price\":\(price)"]
                : ["\"sku\":\(JSONText.quote(sku))", "\"price\":\"\(Price.decimal(thousandths: price))\""]
            if choices.chance(30) {
                let when = date(appStore: appStore)
                fields.append(appStore ? "\"revocationDate\":\(when.milliseconds)" : "\"revocationDate\":\(JSONText.quote(when.text))")
            }
            if choices.chance(30) {
                let when = date(appStore: appStore)
                let amount = choices.edge([price, price / 2, 0], invalid: [price + 1])
                let kind = choices.pick(["FULL", "PRORATED", "CUSTOM", "PARTIAL"])
                let refund =
                    appStore
                    ? "{\"refundAmount\":\(amount),\"refundDate\":\(when.milliseconds),\"refundType\":\"\(kind)\"}"
                    : "{\"amount\":\"\(Price.decimal(thousandths: amount))\",\"date\":\(JSONText.quote(when.text)),\"type\":\"\(kind.lowercased())\"}"
                fields.append("\"refunds\":[\(Array(repeating: refund, count: choices.chance(5) ? 2 : 1).joined(separator: ","))]")
            }
            let element = "{" + fields.joined(separator: ",") + "}"
            elements += Array(repeating: element, count: choices.repeatCount())
        }
        let kept = elements.prefix(min(ReceiptLimits.maxItems + 1, max(1, Self.maxItemsPerInput - itemsWritten)))
        itemsWritten += kept.count
        let list = "[" + kept.joined(separator: ",") + "]"
        if appStore { json.raw("advancedCommerceInfo", "{\"items\":\(list)}") } else { json.raw("items", list) }
    }

    mutating func name(_ json: inout JSONText, _ ordinary: String) {
        json.string("name", choices.chance(10) ? choices.pick(Edges.names) : ordinary)
    }

    mutating func common(_ json: inout JSONText) {
        if choices.chance(20) { json.int("priceTier", choices.pick(Edges.priceTiers)) }
        if choices.chance(25) {
            // Values for the declared limits, now and then one not declared or not a value.
            let values = Edges.limits.filter { _ in choices.byte() & 1 == 0 }.map { limit in
                "\"\(choices.chance(5) ? "undeclared" : limit)\":" + choices.edge(Edges.limitValues, invalid: Edges.badLimitValues)
            }
            json.raw("limits", "{" + values.joined(separator: ",") + "}")
        }
        if choices.chance(20) { json.raw("allowances", allowances(free: false)) }
        if choices.chance(10) {
            json.raw(
                "unlimited", "[" + Edges.currencies.filter { _ in choices.byte() & 1 == 0 }.map { JSONText.quote($0) }.joined(separator: ",") + "]")
        }
        if choices.chance(20) { json.bool("familyShareable", choices.byte() & 1 == 0) }
        if choices.chance(8) { json.bool("available", false) }
    }

    /// A list of allowances (a product's, or the catalog's free ones) at and just past the
    /// language's limits: amounts to 10^9, every and expires from `PT1H`, rollovers to 100 x amount.
    mutating func allowances(free: Bool) -> String {
        var list: [String] = []
        for _ in 0..<(1 + choices.below(3)) {
            var fields = ["\"currency\":" + JSONText.quote(choices.chance(5) ? "undeclared" : choices.pick(Edges.currencies))]
            fields.append("\"amount\":" + choices.edge(["1", "500", "1000000000"], invalid: ["0", "1000000001", "-5", "\"5\""]))
            let periods = free ? ["P1D", "P1W", "P1M", "P1Y"] : ["PT1H", "P1D", "P1M", "P1Y", "P100Y"]
            if free || choices.chance(70) {
                fields.append("\"every\":" + JSONText.quote(choices.edge(periods, invalid: ["PT59M", "P2D", "P101Y", "1M", ""])))
            }
            if choices.chance(50) {
                fields.append(
                    "\"expires\":" + JSONText.quote(choices.edge(["next", "never", "PT1H", "P3D", "P100Y"], invalid: ["soon", "PT1M", ""])))
            }
            if !free, choices.chance(30) {
                fields.append("\"rollover\":" + choices.edge(["0", "200", "100000000000"], invalid: ["-1", "100000000001"]))
            }
            if !free, choices.chance(15) { fields.append("\"introOffer\":" + choices.edge(["0", "50"], invalid: ["-1"])) }
            list.append("{" + fields.joined(separator: ",") + "}")
        }
        return "[" + list.joined(separator: ",") + "]"
    }

    /// A product's type, its name (now and then an edge case instead) and the keys any product
    /// may have.
    mutating func typeAndName(_ json: inout JSONText, _ type: String, name ordinary: String) {
        json.string("type", type)
        name(&json, ordinary)
        common(&json)
    }

    mutating func product(_ json: inout JSONText, kind: Int, id: String) {
        json.open("{")
        json.string("id", id)
        switch kind {
        case 0:  // non-consumable
            typeAndName(&json, "non-consumable", name: "Pro")
            if choices.chance(8) {
                items(&json, id: id, credits: false)
            } else {
                let granted = grants(&json)
                paid.append((id, granted))
            }
        case 1:  // "N-day Trial" of a paid non-consumable
            let days = choices.edge(Edges.trialDays, invalid: Edges.badTrialDays)
            json.string("type", "non-consumable")
            json.string("name", "\(days)-day Trial")
            json.int("priceTier", 0)
            if let paid = paid.isEmpty ? nil : choices.pick(paid) {
                if !choices.chance(5) { json.string("trialOf", paid.id) }
                _ = grants(&json, from: paid.grants.isEmpty ? Edges.features : paid.grants)
            } else {
                _ = grants(&json)
            }
            if choices.chance(15) { json.string("duration", choices.chance(95) ? "P\(days)D" : choices.pick(Edges.durations)) }
        case 2:  // upgrade from another app
            typeAndName(&json, "non-consumable", name: "Upgrade")
            json.open("{", key: "upgrade")
            if let paid = paid.isEmpty ? nil : choices.pick(paid) { json.string("replaces", paid.id) }
            json.open("{", key: "requires")
            json.string("app", choices.chance(5) ? Edges.fuzzApp : Edges.otherApp)
            if !choices.chance(30) {
                json.open("[", key: "anyOf")
                json.string(nil, choices.pick(Edges.otherProducts))
                json.close("]")
            }
            json.close("}")
            json.close("}")
            _ = grants(&json)
        case 3:  // non-renewing subscription
            typeAndName(&json, "non-renewing-subscription", name: "Pass")
            json.string("duration", duration())
            _ = grants(&json)
        case 4:  // auto-renewable subscription
            typeAndName(&json, "auto-renewable-subscription", name: "Monthly")
            json.string("group", choices.pick(Edges.groups))
            if !choices.chance(20) { json.string("duration", duration()) }
            if choices.chance(50) {
                json.open("{", key: "introOffer")
                json.string("mode", choices.pick(Edges.introModes))
                json.string("duration", duration())
                json.close("}")
            }
            if choices.chance(40) {
                json.open("[", key: "offers")
                for _ in 0..<(1 + choices.below(3)) { offer(&json) }
                json.close("]")
            }
            if choices.chance(8) { items(&json, id: id, credits: false) } else { _ = grants(&json) }
        default:  // consumable
            typeAndName(&json, "consumable", name: "Credits")
            if choices.chance(8) {
                items(&json, id: id, credits: true)
            } else {
                json.open("{", key: "credits")
                let mask = choices.byte()
                if mask & 3 != 3 { json.int(Edges.currencies[0], choices.edge(Edges.credits, invalid: Edges.badCredits)) }
                if mask & 3 != 0 { json.int(Edges.currencies[1], choices.edge(Edges.credits, invalid: Edges.badCredits)) }
                json.close("}")
            }
        }
        json.close("}")
    }

    mutating func duration() -> String { choices.edge(Edges.durations, invalid: Edges.badDurations) }

    /// A win-back or promotional offer, each condition present or not, values valid or not.
    mutating func offer(_ json: inout JSONText) {
        json.open("{")
        json.string("id", choices.pick(Edges.offerIds))
        json.string("type", choices.chance(95) ? choices.pick(Edges.offerTypes) : "introductory")
        json.string("mode", choices.pick(Edges.introModes))
        json.string("duration", duration())
        if choices.chance(30) { json.int("periods", choices.edge([1, 2, 12], invalid: [0, 13, -1])) }
        if choices.chance(30) { json.string("from", choices.pick(Edges.instantTexts)) }
        if choices.chance(30) { json.string("until", choices.pick(Edges.instantTexts)) }
        if choices.chance(30) { json.bool("subscribed", choices.byte() & 1 == 0) }
        for key in ["paidAtLeast", "paidAtMost", "lapsedAtLeast", "lapsedAtMost", "waitBetween"] where choices.chance(40) {
            json.string(key, duration())
        }
        json.close("}")
    }

    mutating func buildCatalog() -> String {
        var json = JSONText()
        json.lines = choices.chance(50)
        json.open("{")
        json.string("app", Edges.fuzzApp)
        json.open("{", key: "features")
        for feature in Edges.features { json.string(feature, "Feature \(feature)") }
        json.close("}")
        json.open("{", key: "currencies")
        for currency in Edges.currencies { json.string(currency, "Currency \(currency)") }
        json.close("}")
        if choices.chance(50) {
            json.open("{", key: "limits")
            for limit in Edges.limits {
                json.open("{", key: limit)
                json.string("description", "Limit \(limit)")
                if choices.chance(50) { json.raw("default", choices.edge(["0", "3", "1000000000000"], invalid: ["-1", "1000000000001", "\"3\""])) }
                if choices.chance(50) { json.string("combine", choices.edge(["max", "sum"], invalid: ["avg", ""])) }
                json.close("}")
            }
            json.close("}")
        }
        if choices.chance(30) { json.raw("allowances", allowances(free: true)) }
        json.open("{", key: "legal")
        let omit = choices.chance(4) ? choices.below(2) : -1
        if omit != 0 { json.string("auto-renewable-subscription", "Renews automatically.") }
        if omit != 1 { json.string("non-renewing-subscription", "Does not renew.") }
        json.close("}")
        json.open("[", key: "products")
        let kinds = 1 + choices.below(8)
        var written = 0
        for _ in 0..<kinds {
            let kind = choices.below(6)
            if kind == 1 || kind == 2, paid.isEmpty {
                // Trials and upgrades need a paid non-consumable to refer to.
                let id = "\(Edges.fuzzApp).p\(productIds.count)"
                productIds.append(id)
                product(&json, kind: 0, id: id)
            }
            let copies = min(choices.repeatCount(), Self.maxElements - written)
            // A snapshot of the choices, so every copy is the same product under its own id.
            let saved = choices.index
            for copy in 0..<copies {
                if copy > 0 { choices.index = saved }
                let id = "\(Edges.fuzzApp).p\(productIds.count)"
                productIds.append(id)
                product(&json, kind: kind, id: id)
            }
            written += copies
        }
        json.close("]")
        // Grandfather rules of one condition or several, the platform among them.
        if choices.chance(30) {
            let conditions = [
                #""originalApplicationVersionBefore":"2.0""#, #""originalPurchaseBefore":"2026-01-01T00:00:00Z""#,
                #""originalPlatform":["macOS","visionOS"]"#,
            ].filter { _ in choices.chance(50) }
            let rule =
                #"{"id":"early","grants":["f0"],"# + (conditions.isEmpty ? #""originalPlatform":["iOS"]"# : conditions.joined(separator: ",")) + "}"
            json.raw("grandfathered", "[" + rule + "]")
        }
        json.close("}")
        return json.text
    }

    mutating func productId() -> String {
        switch choices.below(16) {
        case 14: return "\(Edges.fuzzApp).unknown"
        case 15: return choices.pick(Edges.otherProducts)
        default: return productIds.isEmpty ? "\(Edges.fuzzApp).p0" : choices.pick(productIds)
        }
    }

    mutating func transactionId() -> String {
        if choices.chance(60) { return choices.pick(transactionIds) }
        uniqueCounter += 1
        return "u\(uniqueCounter)"
    }

    /// One element of a list, written `repeatCount` times: identical copies, or copies that differ
    /// only in their ids (renumbered), so both the de-duplication and the stacking paths grow.
    mutating func list(_ json: inout JSONText, key: String, maxKinds: Int, element: (inout Self, inout JSONText, Int?) -> Void) {
        json.open("[", key: key)
        var written = 0
        var kinds = 0
        while kinds < maxKinds, written < Self.maxElements, kinds == 0 ? !choices.chance(10) : choices.chance(70) {
            kinds += 1
            let copies = min(choices.repeatCount(), Self.maxElements - written)
            let renumber = copies > 1 && choices.byte() & 1 == 1
            let saved = (choices.index, dates.count, uniqueCounter)
            for copy in 0..<copies {
                if copy > 0 {
                    choices.index = saved.0
                    dates.removeSubrange(saved.1...)
                    uniqueCounter = saved.2
                }
                element(&self, &json, renumber ? copy : nil)
            }
            written += copies
        }
        json.close("]")
    }

    mutating func transaction(_ json: inout JSONText, appStore: Bool, app: String, copy: Int?) {
        json.open("{")
        if appStore { json.string("bundleId", app) }
        let product = app == Edges.fuzzApp ? productId() : choices.pick(Edges.otherProducts)
        json.string("productId", product)
        let id = transactionId()
        json.string("transactionId", copy.map { "\(id)-\($0)" } ?? id)
        if choices.chance(60) { json.string("originalTransactionId", choices.pick(transactionIds)) }
        func put(_ key: String, _ value: DateValue) {
            if appStore { json.int(key, value.milliseconds) } else { json.string(key, value.text) }
        }
        put("purchaseDate", date(appStore: appStore))
        if choices.chance(30) { put("originalPurchaseDate", date(appStore: appStore)) }
        if choices.chance(50) { put("expiresDate", date(appStore: appStore)) }
        if choices.chance(20) { put(appStore ? "revocationDate" : "cancellationDate", date(appStore: appStore)) }
        if choices.chance(30) { json.int("quantity", choices.edge(Edges.quantities, invalid: Edges.badQuantities)) }
        if choices.chance(10) { json.bool(appStore ? "isUpgraded" : "isTrialPeriod", true) }
        if !appStore, choices.chance(10) { json.bool("isIntroOfferPeriod", true) }
        if !appStore, choices.chance(10) { json.bool("isUpgraded", true) }
        if choices.chance(20) {
            let shared = choices.byte() & 1 == 0
            json.string(
                appStore ? "inAppOwnershipType" : "ownership",
                appStore ? (shared ? "FAMILY_SHARED" : "PURCHASED") : (shared ? "family-shared" : "purchased"))
        }
        if appStore, choices.chance(10) {
            json.int("offerType", 1)
            json.string("offerDiscountType", "FREE_TRIAL")
        }
        // As the App Store moves: snapshots, revocations in detail, accounts, offers, commitments.
        if choices.chance(40) { put("signedDate", date(appStore: appStore)) }
        if choices.chance(15) { json.string("offerPeriod", choices.pick(["P1M", "P3M", "P1Y", "P0D", "1 month"])) }
        if choices.chance(10) {
            json.string(
                "offerDiscountType",
                appStore ? choices.pick(["FREE_TRIAL", "PAY_AS_YOU_GO", "ONE_TIME", "HALF_OFF"]) : choices.pick(["free-trial", "pay-up-front"]))
        }
        if choices.chance(15) {
            json.string(
                "revocationType",
                appStore
                    ? choices.pick(["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE", "REFUND_LATER"])
                    : choices.pick(["refund-full", "refund-prorated", "family-revoke"]))
            if appStore {
                json.int("revocationPercentage", choices.edge(Edges.milliPercentages, invalid: Edges.badMilliPercentages))
            } else {
                json.raw("revocationPercentage", choices.edge(Edges.percentages, invalid: Edges.badPercentages))
            }
        }
        if choices.chance(15) { json.string("appAccountToken", choices.edge(Edges.accounts, invalid: Edges.badAccounts)) }
        if choices.chance(15) {
            let winBack = choices.byte() & 1 == 0
            if appStore {
                json.int("offerType", winBack ? 4 : 2)
                json.string("offerIdentifier", choices.pick(Edges.offerIds))
            } else {
                json.string("offerType", winBack ? "win-back" : "promotional")
                json.string("offerId", choices.pick(Edges.offerIds))
            }
        }
        if choices.chance(5) {
            let period = choices.edge([1, 2, 12], invalid: [0, -1, 13])
            let ends = date(appStore: appStore)
            if appStore {
                json.string("billingPlanType", "MONTHLY")
                json.raw(
                    "commitmentInfo", "{\"billingPeriodNumber\":\(period),\"totalBillingPeriods\":12,\"commitmentExpiresDate\":\(ends.milliseconds)}")
            } else {
                json.string("billingPlan", "monthly")
                json.raw("commitment", "{\"period\":\(period),\"periods\":12,\"endsAt\":\(JSONText.quote(ends.text))}")
            }
        }
        if choices.chance(15) { transactionItems(&json, appStore: appStore) }
        // Play's key, which a receipt of another store refuses.
        if !appStore, choices.chance(3) { json.string("linkedPurchaseToken", choices.pick(transactionIds)) }
        // A pre-order's release (any store), Play's purchase option and prepaid top-up instant.
        if !appStore, choices.chance(5) { json.string("releaseDate", date(appStore: false).text) }
        if !appStore, choices.chance(3) { json.string("purchaseOptionId", choices.pick(["buy", "rent", "preorder"])) }
        if !appStore, choices.chance(3) { json.string("topUpAfter", date(appStore: false).text) }
        json.close("}")
    }

    mutating func renewal(_ json: inout JSONText, appStore: Bool, app: String, copy: Int?) {
        json.open("{")
        if appStore, choices.chance(50) { json.string("bundleId", app) }
        if choices.chance(80) { json.string("productId", productId()) }
        let original = choices.pick(transactionIds)
        json.string("originalTransactionId", copy.map { "\(original)-\($0)" } ?? original)
        if choices.chance(50) { json.bool(appStore ? "autoRenewStatus" : "willRenew", choices.byte() & 1 == 0) }
        if choices.chance(50) { json.bool(appStore ? "isInBillingRetryPeriod" : "isInBillingRetry", choices.byte() & 1 == 0) }
        if choices.chance(70) {
            let grace = date(appStore: appStore)
            if appStore { json.int("gracePeriodExpiresDate", grace.milliseconds) } else { json.string("gracePeriodExpiresDate", grace.text) }
        }
        if choices.chance(40) {
            let signed = date(appStore: appStore)
            if appStore { json.int("signedDate", signed.milliseconds) } else { json.string("signedDate", signed.text) }
        }
        if choices.chance(20) {
            let listed = Edges.offerIds.filter { _ in choices.byte() & 1 == 0 }.map(JSONText.quote).joined(separator: ",")
            json.raw(appStore ? "eligibleWinBackOfferIds" : "winBackOffers", "[\(listed)]")
        }
        if choices.chance(10) { json.string("appAccountToken", choices.edge(Edges.accounts, invalid: Edges.badAccounts)) }
        if choices.chance(20) {
            if appStore {
                json.int("renewalPrice", choices.pick([9990, 0, -5, 4_999_999_999_999_999]))
            } else {
                json.string("renewalPrice", choices.pick(["9.99", "10", "1.2345"]))
            }
            if choices.chance(90) { json.string("currency", choices.pick(["EUR", "USD", "eur"])) }
        }
        json.close("}")
    }

    mutating func consumption(_ json: inout JSONText, copy: Int?) {
        json.open("{")
        // A shared id with different content makes the receipt invalid: keep that rare.
        let id = choices.chance(4) ? "c-\(choices.below(2))" : "c-u\(uniqueCounter)"
        uniqueCounter += 1
        json.string("id", copy.map { "\(id)-\($0)" } ?? id)
        json.string("currency", choices.chance(3) ? "undeclared" : choices.pick(Edges.currencies))
        json.int("amount", choices.edge(Edges.amounts, invalid: Edges.badAmounts))
        json.string("date", date().text)
        json.close("}")
    }

    /// A refund or void reported apart (`revocations`): of a transaction id the receipts use, or
    /// of none; by units, money or the whole purchase; sometimes with a value out of range.
    mutating func revocation(_ json: inout JSONText, copy: Int?) {
        json.open("{")
        json.string("transactionId", choices.chance(60) ? choices.pick(transactionIds) + (choices.chance(5) ? ":0" : "") : "nobody")
        json.string("date", date().text)
        switch choices.below(4) {
        case 0: json.int("voidedQuantity", choices.edge(Edges.quantities, invalid: Edges.badQuantities))
        case 1:
            json.int("amount", choices.edge(Edges.amounts, invalid: Edges.badAmounts))
            if choices.chance(50) { json.string("id", "re_\(choices.below(3))") }
        case 2: json.int("amountRefunded", choices.edge(Edges.amounts, invalid: Edges.badAmounts))
        default: break
        }
        if choices.chance(40) { json.int("amountPaid", choices.edge(Edges.amounts, invalid: Edges.badAmounts)) }
        json.close("}")
    }

    /// A normalized receipt, or (rarely) the same content as App Store data: a JSON array of
    /// decoded transaction and renewal payloads whose dates are milliseconds, which is how
    /// Int64.min/max dates reach evaluation.
    mutating func buildReceipt(first: Bool) -> (text: String, appStore: Bool) {
        let app = first || choices.chance(50) ? Edges.fuzzApp : Edges.otherApp
        let appStore = choices.chance(15)
        var json = JSONText()
        if appStore {
            json.open("[")
            // Reuse the list writer for its repeats; the array brackets below are dropped.
            var transactions = JSONText()
            list(&transactions, key: "t", maxKinds: 12) { builder, json, copy in
                builder.transaction(&json, appStore: true, app: app, copy: copy)
            }
            var renewals = JSONText()
            list(&renewals, key: "r", maxKinds: 4) { builder, json, copy in
                builder.renewal(&json, appStore: true, app: app, copy: copy)
            }
            // `"t":[...]` less the key and the brackets.
            let inner = [transactions.text, renewals.text].map { String(Substring($0.utf8.dropFirst(5).dropLast())) }.filter { !$0.isEmpty }
            json.raw(nil, inner.joined(separator: ","))
            if inner.isEmpty { json.raw(nil, "{\"bundleId\":\"\(app)\",\"signedDate\":0}") }
            json.close("]")
        } else {
            json.open("{")
            json.string("app", app)
            // The app transaction's facts, and consent rescinded now and then.
            if choices.chance(20) { json.string("originalPlatform", choices.pick(["iOS", "macOS", "tvOS", "visionOS"])) }
            if choices.chance(10) { json.string("appTransactionId", "a\(choices.below(3))") }
            if choices.chance(10) { json.string("consentRescinded", date(appStore: false).text) }
            list(&json, key: "transactions", maxKinds: 12) { builder, json, copy in
                builder.transaction(&json, appStore: false, app: app, copy: copy)
            }
            if choices.chance(50) {
                list(&json, key: "renewals", maxKinds: 4) { builder, json, copy in
                    builder.renewal(&json, appStore: false, app: app, copy: copy)
                }
            }
            if app == Edges.fuzzApp, choices.chance(50) {
                list(&json, key: "consumptions", maxKinds: 6) { builder, json, copy in
                    builder.consumption(&json, copy: copy)
                }
            }
            if choices.chance(25) {
                list(&json, key: "revocations", maxKinds: 4) { builder, json, copy in
                    builder.revocation(&json, copy: copy)
                }
            }
            json.close("}")
        }
        return (json.text, appStore)
    }

    mutating func build() -> Scenario {
        var scenario = Scenario()
        scenario.catalog = buildCatalog()
        let count = 1 + choices.below(3)
        for index in 0..<count { scenario.receipts.append(buildReceipt(first: index == 0)) }
        switch choices.below(4) {
        case 0, 1:
            scenario.at = Instant(rfc3339: choices.pick(Edges.instantTexts)) ?? Instant(millisecondsSince1970: 0)
        case 2 where !dates.isEmpty:
            scenario.at = Instant(millisecondsSince1970: choices.pick(dates))
        default:
            scenario.at = Instant(millisecondsSince1970: choices.pick(Edges.extremeMilliseconds))
        }
        return scenario
    }
}

// MARK: - Running a scenario

func fuzzStructured(_ bytes: UnsafeBufferPointer<UInt8>) {
    var builder = ScenarioBuilder(choices: Choices(bytes))
    let scenario = builder.build()
    if printing {
        consume("== catalog\n\(scenario.catalog)")
        for receipt in scenario.receipts { consume("== receipt\(receipt.appStore ? " (App Store data)" : "")\n\(receipt.text)") }
        consume("== at \(scenario.at.millisecondsSince1970) ms = \(scenario.at.rfc3339)")
    }
    let compilation = Portfolio.compile([CatalogSource(name: "structured.json", data: Data(scenario.catalog.utf8))])
    for diagnostic in compilation.diagnostics { consume(diagnostic.description) }
    guard let portfolio = compilation.portfolio else { return }

    var parsed: [ParsedReceipt] = []
    var parsedLabels: [String] = []
    for (index, receipt) in scenario.receipts.enumerated() {
        let data = Data(receipt.text.utf8)
        let name = "receipt\(index).json"
        if receipt.appStore {
            do {
                let imported = try AppleImport.unverifiedReceipt(fromAppStore: data, name: name)
                for warning in imported.warnings { consume(warning.description) }
                parsed.append(ParsedReceipt(imported.receipt))
                parsedLabels.append("structured receipt \(index) (App Store data)")
            } catch {
                consume(error.description)
            }
        } else {
            do {
                parsed.append(try ParsedReceipt(json: data, name: name))
                parsedLabels.append("structured receipt \(index)")
            } catch {
                consume(error.description)
            }
        }
    }
    for instant in withNeighbours(scenario.at) {
        do {
            // No account, one, or one customer's two (an App Store token and another store's id).
            let accounts = [[], [Edges.accounts[0]], Array(Edges.accounts.prefix(2))][Int(scenario.at.millisecondsSince1970 & 3) % 3]
            let result = try portfolio.evaluate(app: Edges.fuzzApp, receipts: parsed, at: instant, options: EvaluationOptions(accounts: accounts))
            // Rendering costs more than evaluating: render fully at the instant, read the views either side.
            if instant == scenario.at {
                let json = result.json
                consume(json)
                consume(result.text)
                checkJSON(json, what: "Entitlements.json at \(instant.millisecondsSince1970) ms")
            } else {
                consume(
                    "\(result.features.count) \(result.products.count) \(result.offers.count) \(result.balances.count) \(result.reevaluateAt?.rfc3339 ?? "")"
                )
            }
        } catch {
            fatalError("harness: the structured catalog has no catalog for its own app: \(error)")
        }
    }
    // Checked after evaluation, so an evaluation trap is reported as such.
    for (receipt, label) in zip(parsed, parsedLabels) { checkRoundTrip(receipt.receipt, what: label) }
}
