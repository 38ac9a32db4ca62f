import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

private typealias T = Fixtures

/// Google Play's refund review (`orders.reviewrefund`): the same facts as Apple's consumption
/// reply in Google's `OrdersReviewRefundRequest`, with the consumptions charged to the order as
/// usage events; a Stripe purchase has no such request.
@Suite("Google's refund review")
struct GoogleRefundReviewTests {
    static let catalogJSON = """
        { "app": "com.ex.multi", "features": { "pro": "Pro" }, "currencies": { "coins": "Coins" },
          "refundPreference": { "grantFullBelow": 10, "grantProratedBelow": 50 },
          "products": [
            { "id": "coins_10", "store": "play", "type": "consumable", "name": "10 coins", "credits": { "coins": 10 } },
            { "id": "gems", "store": "play", "type": "consumable", "name": "Gems", "credits": { "coins": 10 }, "refundPreference": "grant-full" },
            { "id": "prod_Coins", "store": "stripe", "type": "consumable", "name": "10 coins (web)", "credits": { "coins": 10 } }
          ] }
        """
    static let catalog = T.catalog(catalogJSON)

    /// Two Play orders (20 coins, then 10), and 5 + 10 + 8 coins spent: the first order pays for
    /// all three spends, the second for 3 coins of the last.
    static let receipts = [
        Receipt(
            app: "com.ex.multi",
            transactions: [
                Transaction(
                    productId: "coins_10", transactionId: "GPA.1", purchaseDate: T.instant("2026-03-01T00:00:00Z"), quantity: 2, account: "acct-1"),
                Transaction(productId: "coins_10", transactionId: "GPA.2", purchaseDate: T.instant("2026-03-02T00:00:00Z"), account: "acct-1"),
                Transaction(productId: "gems", transactionId: "GPA.3", purchaseDate: T.instant("2026-03-02T00:00:00Z")),
            ], store: .play),
        Receipt(
            app: "com.ex.multi",
            consumptions: [
                Consumption(id: "c3", currency: "coins", amount: 8, date: T.instant("2026-03-05T00:00:00Z")),
                Consumption(id: "c1", currency: "coins", amount: 5, date: T.instant("2026-03-03T00:00:00Z")),
                Consumption(id: "c2", currency: "coins", amount: 10, date: T.instant("2026-03-04T00:00:00Z")),
            ]),
    ]

    static func reply(_ id: String, receipts: [Receipt] = receipts) throws -> ConsumptionReply {
        try catalog.consumptionReply(transactionId: id, receipts: receipts, at: T.instant("2026-03-06T00:00:00Z"), consented: false)
    }

    @Test("a Play order's reply is Google's OrdersReviewRefundRequest: preference, share, and the spends charged to it")
    func googleBody() throws {
        let second = try Self.reply("GPA.2")
        #expect(second.store == .play && second.appleJSON == nil, "Apple's form is not Google's")
        #expect(second.usage.map(\.id) == ["c3"])
        #expect(
            second.googleJSON(pendingRefundToken: "prt-1")
                == #"""
                {
                  "pendingRefundToken": "prt-1",
                  "refundPreference": "NEUTRAL",
                  "sampleContentProvided": false,
                  "consumptionPercentageMilliunits": 30000,
                  "consumptionUsageEvents": [
                    {
                      "consumptionTime": "2026-03-05T00:00:00Z",
                      "consumptionItemDescription": "c3",
                      "obfuscatedAccountId": "acct-1"
                    }
                  ]
                }

                """#)
        let first = try Self.reply("GPA.1")
        #expect(first.usage.map(\.id) == ["c1", "c2", "c3"], "spent in time order, whatever the ledger's order")
        #expect(first.body?.consumptionPercentage == 100_000 && first.body?.refundPreference?.googleValue == "DECLINE")
        #expect(try Self.reply("GPA.3").body?.refundPreference?.googleValue == "APPROVE", "grant-full is APPROVE")
        #expect(try Self.reply("GPA.3").googleJSON(pendingRefundToken: "t")?.contains("consumptionUsageEvents") == false, "nothing charged to it")
        #expect(first.text.contains("reply to Google's refund review: 100% consumed, prefers DECLINE, 3 usage events"), "\(first.text)")
    }

    @Test("more than 1000 spends: the latest 1000 are sent, and the reply says how many were left out")
    func latestThousand() throws {
        var receipts = Self.receipts
        receipts[0].transactions = [
            Transaction(productId: "coins_10", transactionId: "GPA.9", purchaseDate: T.instant("2026-01-01T00:00:00Z"), quantity: 1000)
        ]
        receipts[1].consumptions = (0..<1_005).map {
            Consumption(
                id: String(format: "c%04d", $0), currency: "coins", amount: 1,
                date: Instant(millisecondsSince1970: T.instant("2026-02-01T00:00:00Z").millisecondsSince1970 + Int64($0) * 1_000))
        }
        let reply = try Self.reply("GPA.9", receipts: receipts)
        #expect(reply.usage.count == 1_005 && reply.usageLeftOut == 5)
        let body = try #require(reply.googleJSON(pendingRefundToken: "t"))
        let events = try #require(
            (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["consumptionUsageEvents"] as? [[String: Any]])
        #expect(events.count == 1_000 && events.first?["consumptionItemDescription"] as? String == "c0005")
        #expect(reply.json(pendingRefundToken: "t").contains("\"usageLeftOut\": 5"))
        #expect(reply.text.contains("(the latest 1000 sent, 5 left out)"), "\(reply.text)")
    }

    @Test("a Stripe purchase has no consumption question: an error saying so")
    func stripeHasNone() {
        let web = Receipt(
            app: "com.ex.multi",
            transactions: [Transaction(productId: "prod_Coins", transactionId: "pi_1", purchaseDate: T.instant("2026-03-01T00:00:00Z"))],
            store: .stripe)
        let error = #expect(throws: ConsumptionReplyError.self) {
            try Self.catalog.consumptionReply(transactionId: "pi_1", receipts: [web], at: T.instant("2026-03-06T00:00:00Z"), consented: true)
        }
        #expect(error?.message == "`pi_1` is a purchase of Stripe, which asks no consumption question", "\(String(describing: error))")
    }

    @Test("`entitle consumption` answers a Play order with Google's body, given the review's token")
    func commandLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("entitle-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = folder.appendingPathComponent("catalog.json")
        try Data(Self.catalogJSON.utf8).write(to: catalog)
        var paths: [String] = []
        for (index, receipt) in Self.receipts.enumerated() {
            let url = folder.appendingPathComponent("r\(index).json")
            try Data(receipt.json.utf8).write(to: url)
            paths += ["--receipt", url.path]
        }
        let base = ["consumption", "--catalog", catalog.path] + paths + ["--at", "2026-03-06T00:00:00Z", "--transaction", "GPA.2"]
        let output = CLITests.run(base + ["--pending-refund-token", "prt-1", "--format", "json"])
        #expect(output.exitCode == 0, "\(output.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        let reply = try #require(json["reply"] as? [String: Any])
        #expect(json["store"] as? String == "play" && reply["pendingRefundToken"] as? String == "prt-1")
        #expect(reply["consumptionPercentageMilliunits"] as? Int == 30_000 && json["usageLeftOut"] as? Int == 0)
        let missing = CLITests.run(base)
        #expect(missing.exitCode == 2 && missing.standardError.contains("--pending-refund-token"), "\(missing.standardError)")
    }
}
