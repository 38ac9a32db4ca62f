import Entitle
import Foundation

extension Benchmark {
    /// The ledger's cost: a yearly subscriber with a monthly allowance, a free daily allowance,
    /// packs and 2,000 consumptions against the same customer under a catalog of packs only (goal:
    /// within 1.5x); and a lifetime's hourly allowance ten years on against one day on (goal:
    /// within 1.1x: periods with no consumption between them are not walked one by one).
    mutating func allowanceScaling() {
        let section = "4. scaling"
        let legal = #""legal": { "auto-renewable-subscription": "Renews." }"#
        let packsOnly = Benchmark.compile(
            """
            { "app": "com.example.bench.ai", "features": { "pro": "Pro" }, "currencies": { "ai": "AI credits" }, \(legal),
              "products": [
                { "id": "pro.yearly", "type": "auto-renewable-subscription", "name": "Pro Yearly", "group": "pro", "duration": "P1Y", "grants": ["pro"] },
                { "id": "lifetime", "type": "non-consumable", "name": "Lifetime", "grants": ["pro"] },
                { "id": "pack", "type": "consumable", "name": "Pack", "credits": { "ai": 100 } } ] }
            """)
        let allowances = Benchmark.compile(
            """
            { "app": "com.example.bench.ai", "features": { "pro": "Pro" }, "currencies": { "ai": "AI credits" }, \(legal),
              "allowances": [{ "currency": "ai", "amount": 3, "every": "P1D" }],
              "products": [
                { "id": "pro.yearly", "type": "auto-renewable-subscription", "name": "Pro Yearly", "group": "pro", "duration": "P1Y", "grants": ["pro"],
                  "allowances": [{ "currency": "ai", "amount": 500, "every": "P1M", "rollover": 200 }] },
                { "id": "lifetime", "type": "non-consumable", "name": "Lifetime", "grants": ["pro"],
                  "allowances": [{ "currency": "ai", "amount": 10, "every": "PT1H" }] },
                { "id": "pack", "type": "consumable", "name": "Pack", "credits": { "ai": 100 } } ] }
            """)
        let at = Instant(rfc3339: "2026-12-20T00:00:00Z")!
        // The yearly subscriber: 12 packs and 2,000 consumptions through the year.
        var transactions = [
            #"{"transactionId":"y","productId":"pro.yearly","purchaseDate":"2026-01-01T00:00:00Z","expiresDate":"2027-01-01T00:00:00Z"}"#
        ]
        for month in 1...12 {
            transactions.append(
                #"{"transactionId":"p\#(month)","productId":"pack","purchaseDate":"2026-\#(month < 10 ? "0" : "")\#(month)-02T00:00:00Z"}"#)
        }
        var consumptions: [String] = []
        for index in 0..<2_000 {
            let instant = Instant(millisecondsSince1970: Instant(rfc3339: "2026-01-01T00:00:00Z")!.millisecondsSince1970 + Int64(index) * 15_000_000)
            consumptions.append(#"{"id":"c\#(index)","currency":"ai","amount":\#(1 + index % 40),"date":"\#(instant.rfc3339)"}"#)
        }
        func receipt(_ transactions: [String], _ consumptions: [String]) -> Data {
            Data(
                #"{"app":"com.example.bench.ai","transactions":[\#(transactions.joined(separator: ","))],"consumptions":[\#(consumptions.joined(separator: ","))]}"#
                    .utf8)
        }
        let yearly = receipt(transactions, consumptions)
        // A lifetime bought ten years or one day before, with the day's 20 consumptions.
        let recent = (0..<20).map { #"{"id":"l\#($0)","currency":"ai","amount":7,"date":"2026-12-19T\#(String(format: "%02d", $0)):30:00Z"}"# }
        func lifetime(_ purchase: String) -> Data {
            receipt([#"{"transactionId":"l","productId":"lifetime","purchaseDate":"\#(purchase)"}"#], recent)
        }
        let old = lifetime("2016-12-19T00:00:00Z")
        let new = lifetime("2026-12-19T00:00:00Z")
        let times = stopwatch.compare([
            { try! packsOnly.evaluate([ParsedReceipt(json: yearly)], at: at).balances.count },
            { try! allowances.evaluate([ParsedReceipt(json: yearly)], at: at).balances.count },
            { try! allowances.evaluate([ParsedReceipt(json: new)], at: at).balances.count },
            { try! allowances.evaluate([ParsedReceipt(json: old)], at: at).balances.count },
        ])
        record(
            section, "yearly subscriber, 2,000 consumptions: packs only / with monthly and free daily allowances",
            String(format: "%.1f µs / %.1f µs", times[0] * 1e6, times[1] * 1e6))
        ratio(section, "allowances / packs only (goal <= 1.5x)", times[1] / times[0], key: "allowancesOverPacks")
        record(section, "hourly lifetime allowance: one day / ten years old", String(format: "%.1f µs / %.1f µs", times[2] * 1e6, times[3] * 1e6))
        ratio(section, "ten years / one day old (goal <= 1.1x)", times[3] / times[2], key: "lifetimeTenYearsOverOneDay")
    }
}
