import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// Replies to Apple's consumption request: delivery, the share consumed at its boundaries, the
/// refund preference's thresholds, sample content, consent, and every mistake an error.
@Suite("Consumption replies")
struct ConsumptionReplyTests {
    static let app = "com.example.diagrams"
    static let stencils = "com.example.diagrams.stencils.10"
    static let sync = "com.example.diagrams.sync.monthly"
    /// An instant written in full or as a date alone (midnight UTC).
    static func at(_ text: String) -> Instant { Fixtures.instant(text.count == 10 ? text + "T00:00:00Z" : text) }

    /// The reply, checked to be the same with the receipts' entries and the receipts reversed.
    static func reply(
        _ id: String, _ receipts: [Receipt], at: String, consented: Bool = true, undelivered: ConsumptionReply.Undelivered? = nil
    ) throws -> ConsumptionReply {
        let reply = try Fixtures.examples.consumptionReply(
            app: app, transactionId: id, receipts: receipts, at: Self.at(at), consented: consented, undelivered: undelivered)
        let reversed = receipts.reversed().map { receipt in
            Receipt(
                app: receipt.app, transactions: receipt.transactions.reversed(), renewals: receipt.renewals.reversed(),
                consumptions: receipt.consumptions.reversed(), environment: receipt.environment,
                originalApplicationVersion: receipt.originalApplicationVersion, originalPurchaseDate: receipt.originalPurchaseDate,
                grants: receipt.grants.reversed(), store: receipt.store)
        }
        let again = try Fixtures.examples.consumptionReply(
            app: app, transactionId: id, receipts: reversed, at: Self.at(at), consented: consented, undelivered: undelivered)
        #expect(again == reply, "the reply depends on the order of the receipts")
        return reply
    }

    /// Two purchases of 10 stencil credits (one unit, then two) and what was spent.
    static func stencilReceipt(spent: [(Int64, String)]) -> Receipt {
        Receipt(
            app: app,
            transactions: [
                Transaction(productId: stencils, transactionId: "a", purchaseDate: at("2026-03-01T00:00:00Z")),
                Transaction(productId: stencils, transactionId: "b", purchaseDate: at("2026-03-05T00:00:00Z"), quantity: 2),
            ],
            consumptions: spent.enumerated().map { index, item in
                Consumption(id: "c\(index)", currency: "stencils", amount: item.0, date: at(item.1))
            })
    }

    @Test("a consumable: what was spent is charged to purchases in the order bought; the thresholds at their boundaries")
    func consumables() throws {
        // 14 spent: the first purchase's 10, then 4 of the second's 20.
        let receipt = Self.stencilReceipt(spent: [(6, "2026-03-06T00:00:00Z"), (8, "2026-03-07T00:00:00Z")])
        let first = try Self.reply("a", [receipt], at: "2026-03-08T00:00:00Z")
        #expect(first.body?.consumptionPercentage == 100_000)
        #expect(first.body?.refundPreference == .decline)
        #expect(first.body?.deliveryStatus == .delivered && first.reason == .delivered)
        let second = try Self.reply("b", [receipt], at: "2026-03-08T00:00:00Z")
        #expect(second.body?.consumptionPercentage == 20_000)
        #expect(second.body?.refundPreference == .grantProrated, "10 <= 20 < 50")
        #expect(second.consumption.contains("4 of 20 stencils"), "\(second.consumption)")
        // Before the second consumption only 6 were spent, all the first purchase's.
        let earlier = try Self.reply("b", [receipt], at: "2026-03-06T23:59:59.999Z")
        #expect(earlier.body?.consumptionPercentage == 0)
        #expect(earlier.body?.refundPreference == .grantFull)

        // The second purchase at exactly 10% spent is past the full refund; a millisecond before it, within.
        let tenth = Self.stencilReceipt(spent: [(10, "2026-03-06T00:00:00Z"), (2, "2026-03-07T00:00:00Z")])
        #expect(try Self.reply("b", [tenth], at: "2026-03-07T00:00:00Z").body?.refundPreference == .grantProrated)
        #expect(try Self.reply("b", [tenth], at: "2026-03-06T23:59:59.999Z").body?.refundPreference == .grantFull)
        // At exactly half, declined.
        let half = Self.stencilReceipt(spent: [(20, "2026-03-06T00:00:00Z")])
        let declined = try Self.reply("b", [half], at: "2026-03-07T00:00:00Z")
        #expect(declined.body?.consumptionPercentage == 50_000 && declined.body?.refundPreference == .decline)
        // Thousandths rounded down: a third is 33333.
        let third = Receipt(
            app: Self.app,
            transactions: [Transaction(productId: Self.stencils, transactionId: "t", purchaseDate: Self.at("2026-03-01"), quantity: 3)],
            consumptions: [Consumption(id: "c", currency: "stencils", amount: 10, date: Self.at("2026-03-02"))])
        #expect(try Self.reply("t", [third], at: "2026-03-03").body?.consumptionPercentage == 33_333)
        // Overspent: the balance below zero charges every purchase wholly.
        let over = Self.stencilReceipt(spent: [(45, "2026-03-06T00:00:00Z")])
        #expect(try Self.reply("b", [over], at: "2026-03-07").body?.consumptionPercentage == 100_000)
    }

    @Test(
        "a subscription: the share of its period elapsed, from 0 at its purchase to 100% at its expiry; sample content from a free trial in its group"
    )
    func subscriptions() throws {
        let receipt = Receipt(
            app: Self.app,
            transactions: [
                Transaction(
                    productId: Self.sync, transactionId: "s1", originalTransactionId: "s1", purchaseDate: Self.at("2026-03-01"),
                    expiresDate: Self.at("2026-03-08"), isTrialPeriod: true, offerType: .introductory),
                Transaction(
                    productId: Self.sync, transactionId: "s2", originalTransactionId: "s1", purchaseDate: Self.at("2026-03-08"),
                    expiresDate: Self.at("2026-04-08")),
            ])
        let start = try Self.reply("s2", [receipt], at: "2026-03-08T00:00:00Z")
        #expect(start.body?.consumptionPercentage == 0)
        #expect(start.body?.sampleContentProvided == true, "the free week was sample content")
        #expect(start.body?.refundPreference == .grantProrated, "the catalog's default")
        // 31 days: one millisecond in is 0.000037%, rounded down to 0; half-way is 50%.
        #expect(try Self.reply("s2", [receipt], at: "2026-03-08T00:00:00.001Z").body?.consumptionPercentage == 0)
        #expect(try Self.reply("s2", [receipt], at: "2026-03-23T12:00:00Z").body?.consumptionPercentage == 50_000)
        #expect(try Self.reply("s2", [receipt], at: "2026-04-07T23:59:59.999Z").body?.consumptionPercentage == 99_999)
        #expect(try Self.reply("s2", [receipt], at: "2026-04-08T00:00:00Z").body?.consumptionPercentage == 100_000)

        // Without the free week, no sample content.
        var paid = receipt
        paid.transactions.removeFirst()
        #expect(try Self.reply("s2", [paid], at: "2026-03-20").body?.sampleContentProvided == false)
    }

    @Test("random ledgers: every purchase's share against a first-bought, first-spent reference written from the rule")
    func referenceLedger() throws {
        let day: Int64 = 86_400_000
        let base = Self.at("2026-03-01").millisecondsSince1970
        for seed in 0..<300 {
            var random = SplitMix(seed: UInt64(seed))
            // Instants on a coarse grid, so purchases, refunds, consumptions and the instant meet.
            func instant() -> Int64 { base + Int64(random.below(10)) * day }
            var transactions: [Transaction] = []
            for index in 0..<(1 + random.below(4)) {
                let bought = instant()
                let refunded: Int64? = random.below(4) == 0 ? bought + Int64(random.below(5)) * day : nil
                transactions.append(
                    Transaction(
                        productId: Self.stencils, transactionId: "t\(index)", purchaseDate: Instant(millisecondsSince1970: bought),
                        cancellationDate: refunded.map { Instant(millisecondsSince1970: $0) }, quantity: 1 + random.below(3)))
            }
            let consumptions = (0..<random.below(4)).map { index in
                Consumption(
                    id: "c\(index)", currency: "stencils", amount: Int64(1 + random.below(25)), date: Instant(millisecondsSince1970: instant()))
            }
            let receipt = Receipt(app: Self.app, transactions: transactions, consumptions: consumptions)
            let at = instant()

            // The reference: purchases counted at `at` (bought by then, not refunded by then), in
            // purchase order then id; what was spent by then charged to them in that order.
            let counted = transactions.filter { transaction in
                transaction.purchaseDate.millisecondsSince1970 <= at && (transaction.cancellationDate.map { $0.millisecondsSince1970 > at } ?? true)
            }.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
            var left = consumptions.filter { $0.date.millisecondsSince1970 <= at }.reduce(Int64(0)) { $0 + $1.amount }
            var expected: [String: Int] = [:]
            for transaction in counted {
                let credit = Int64(transaction.quantity) * 10
                let charged = min(credit, left)
                left -= charged
                expected[transaction.transactionId] = Int(charged * 100_000 / credit)
            }
            for transaction in transactions where transaction.purchaseDate.millisecondsSince1970 <= at {
                let reply = try Self.reply(transaction.transactionId, [receipt], at: Instant(millisecondsSince1970: at).rfc3339)
                if let share = expected[transaction.transactionId] {
                    #expect(reply.reason == .delivered && reply.body?.consumptionPercentage == share, "seed \(seed): \(transaction.transactionId)")
                } else {
                    #expect(
                        reply.reason == .notDelivered && reply.body?.deliveryStatus == .undeliveredOther, "seed \(seed): \(transaction.transactionId)"
                    )
                }
            }
        }
    }

    @Test("a non-consumable is wholly consumed once delivered; its trial was sample content")
    func nonConsumables() throws {
        let pro = Transaction(productId: "com.example.diagrams.pro", transactionId: "p", purchaseDate: Self.at("2026-02-01"))
        let alone = try Self.reply("p", [Receipt(app: Self.app, transactions: [pro])], at: "2026-02-01")
        #expect(alone.body?.consumptionPercentage == 100_000 && alone.body?.sampleContentProvided == false)
        let trial = Transaction(productId: "com.example.diagrams.trial", transactionId: "tr", purchaseDate: Self.at("2026-01-20"))
        let tried = try Self.reply("p", [Receipt(app: Self.app, transactions: [trial, pro])], at: "2026-02-01")
        #expect(tried.body?.sampleContentProvided == true)
        // A trial bought after the instant is not had yet.
        let late = Transaction(productId: "com.example.diagrams.trial", transactionId: "tr", purchaseDate: Self.at("2026-03-01"))
        #expect(try Self.reply("p", [Receipt(app: Self.app, transactions: [late, pro])], at: "2026-02-01").body?.sampleContentProvided == false)
    }

    @Test("refunded before the instant: not delivered, with the service's reason; delivered the millisecond before")
    func notDelivered() throws {
        let refunded = Receipt(
            app: Self.app,
            transactions: [
                Transaction(
                    productId: "com.example.diagrams.pro", transactionId: "p", purchaseDate: Self.at("2026-02-01"),
                    cancellationDate: Self.at("2026-02-10"))
            ])
        let after = try Self.reply("p", [refunded], at: "2026-02-10T00:00:00Z")
        #expect(after.reason == .notDelivered)
        #expect(after.body?.deliveryStatus == .undeliveredOther && after.body?.consumptionPercentage == 0)
        let quality = try Self.reply("p", [refunded], at: "2026-02-10T00:00:00Z", undelivered: .quality)
        #expect(quality.body?.deliveryStatus == .undeliveredQualityIssue)
        let before = try Self.reply("p", [refunded], at: "2026-02-09T23:59:59.999Z", undelivered: .quality)
        #expect(before.body?.deliveryStatus == .delivered, "the stated reason applies only to what was not delivered")
    }

    @Test("without consent there is no body; Apple's JSON names Apple's fields and values")
    func consentAndJSON() throws {
        let receipt = Self.stencilReceipt(spent: [(14, "2026-03-06T00:00:00Z")])
        let refused = try Self.reply("b", [receipt], at: "2026-03-08", consented: false)
        #expect(refused.reason == .noConsent && refused.body == nil && refused.appleJSON == nil)
        #expect(refused.json.contains("\"reply\": null"), "\(refused.json)")
        let reply = try Self.reply("b", [receipt], at: "2026-03-08")
        let appleJSON = try #require(reply.appleJSON)
        let apple = try #require(try JSONSerialization.jsonObject(with: Data(appleJSON.utf8)) as? [String: Any])
        #expect(apple["customerConsented"] as? Bool == true)
        #expect(apple["deliveryStatus"] as? String == "DELIVERED")
        #expect(apple["consumptionPercentage"] as? Int == 20_000)
        #expect(apple["refundPreference"] as? String == "GRANT_PRORATED")
        #expect(apple["sampleContentProvided"] as? Bool == false)
        #expect(apple.count == 5)
    }

    @Test("a transaction the customer does not have at the instant, or an app without a catalog, is an error with a did-you-mean, never a guess")
    func unknownTransactions() throws {
        /// The error the portfolio's reply throws, `nil` when it replies.
        func failure(_ id: String, _ receipts: [Receipt], at: String, app: String = Self.app) -> ConsumptionReplyError? {
            do {
                _ = try Fixtures.examples.consumptionReply(app: app, transactionId: id, receipts: receipts, at: Self.at(at), consented: true)
                return nil
            } catch {
                return error
            }
        }
        let receipt = Self.stencilReceipt(spent: [])
        #expect(throws: ConsumptionReplyError.self) { try Self.reply("c", [receipt], at: "2026-03-08") }
        let misspelt = try #require(failure("bb", [receipt], at: "2026-03-08"))
        #expect(misspelt.message.contains("no transaction `bb`"))
        #expect(misspelt.help?.contains("`b`") == true, "\(misspelt)")
        let early = try #require(failure("b", [receipt], at: "2026-03-04"))
        #expect(early.message.contains("after 2026-03-04"), "\(early)")
        let unknown = Receipt(
            app: Self.app, transactions: [Transaction(productId: "com.example.gone", transactionId: "g", purchaseDate: Self.at("2026-03-01"))])
        let gone = try #require(failure("g", [unknown], at: "2026-03-08"))
        #expect(gone.message.contains("`com.example.gone`, which the catalog"), "\(gone)")
        let app = try #require(failure("b", [receipt], at: "2026-03-08", app: "com.example.diagram"))
        #expect(app.message == "no catalog for app `com.example.diagram`")
        #expect(app.help == "did you mean `com.example.diagrams`?")
        // An app id from the network is quoted in part, as every message quotes input.
        let long = try #require(failure("b", [receipt], at: "2026-03-08", app: String(repeating: "x", count: 10_000)))
        #expect(long.message.count < 200, "\(long.message.count)")
    }

    @Test("refundPreference and sampleContent are checked: located errors with a did-you-mean")
    func catalogKeys() throws {
        func diagnostics(_ preference: String) -> [String] {
            Fixtures.compile(
                """
                {"app": "com.example.r", "features": {"f": "F"}, "currencies": {"c": "C"},
                 "products": [{"id": "com.example.r.c", "type": "consumable", "name": "C", "credits": {"c": 1},
                 "refundPreference": \(preference), "sampleContent": true}]}
                """
            ).diagnostics.filter(\.isError).map(\.description)
        }
        #expect(diagnostics("\"grant-full\"").isEmpty)
        #expect(diagnostics(#"{"grantFullBelow": 10, "grantProratedBelow": 10}"#).isEmpty)
        let misspelt = diagnostics("\"grant-ful\"")
        #expect(misspelt.count == 1 && misspelt[0].contains("products[0].refundPreference") && misspelt[0].contains("`grant-full`"), "\(misspelt)")
        let reversed = diagnostics(#"{"grantFullBelow": 50, "grantProratedBelow": 10}"#)
        #expect(reversed.count == 1 && reversed[0].contains("products[0].refundPreference.grantProratedBelow"), "\(reversed)")
        let range = diagnostics(#"{"grantFullBelow": 10, "grantProratedBelow": 101}"#)
        #expect(range.count == 1 && range[0].contains("0 to 100"), "\(range)")
        let key = diagnostics(#"{"grantFullBelow": 10, "grantProratedBelw": 20}"#)
        #expect(key.contains { $0.contains("unknown key `grantProratedBelw`") && $0.contains("grantProratedBelow") }, "\(key)")
        let type = diagnostics("3")
        #expect(type.count == 1 && type[0].contains("refund preference"), "\(type)")
        // The catalog's default applies to products that state none, and shows as theirs.
        let products = Fixtures.examples.catalog(for: Self.app)!.products
        #expect(products.first { $0.id == Self.sync }?.refundPreference == .always(.grantProrated))
        #expect(products.first { $0.id == Self.stencils }?.refundPreference == .thresholds(fullBelow: 10, proratedBelow: 50))
    }

    @Test("entitle consumption: a CONSUMPTION_REQUEST notification's transaction, with the receipts; its mistakes exit 1")
    func command() throws {
        let notification = Fixtures.productsDirectory + "/service-example/06-consumption-request.json"
        let spent = try BatchTests.file(
            """
            {"app": "com.example.diagrams", "transactions": [
              {"productId": "com.example.diagrams.stencils.10", "transactionId": "1000", "purchaseDate": "2026-03-01T00:00:00Z"}],
             "consumptions": [{"id": "c1", "currency": "stencils", "amount": 14, "date": "2026-03-22T12:00:00Z"}]}
            """, "spent.json")
        let ran = CLITests.run([
            "consumption", "--catalog", CLITests.products, "--receipt", spent.path, "--notification", notification, "--at", "2026-03-23",
            "--consented", "--format", "json",
        ])
        #expect(ran.exitCode == 0, "\(ran.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(ran.standardOutput.utf8)) as? [String: Any])
        #expect(json["transaction"] as? String == "2000000107" && json["reason"] as? String == "delivered")
        let reply = try #require(json["reply"] as? [String: Any])
        #expect(reply["consumptionPercentage"] as? Int == 20_000, "4 of its 20 credits: the first purchase's 10 went first")

        let disagree = CLITests.run([
            "consumption", "--catalog", CLITests.products, "--receipt", spent.path, "--notification", notification, "--transaction", "1000",
        ])
        #expect(
            disagree.exitCode == 1 && disagree.standardError.contains("is about transaction `2000000107`, not `1000`"), "\(disagree.standardError)")
        let other = CLITests.run([
            "consumption", "--catalog", CLITests.products, "--receipt", spent.path, "--notification",
            Fixtures.productsDirectory + "/service-example/04-refund.json",
        ])
        #expect(other.exitCode == 1 && other.standardError.contains("a `REFUND` notification, not a consumption request"), "\(other.standardError)")
        let missing = CLITests.run(["consumption", "--catalog", CLITests.products, "--receipt", spent.path, "--transaction", "100"])
        #expect(missing.exitCode == 1 && missing.standardError.contains("did you mean `1000`?"), "\(missing.standardError)")
        let neither = CLITests.run(["consumption", "--catalog", CLITests.products, "--receipt", spent.path])
        #expect(neither.exitCode == 2)
        // explain --transaction: the same reply, with every purchase's part of what was spent.
        let explained = CLITests.run([
            "explain", "--catalog", CLITests.products, "--receipt", spent.path, "--receipt", notification, "--transaction", "2000000107",
            "--at", "2026-03-23",
        ])
        #expect(explained.exitCode == 0, "\(explained.standardError)")
        #expect(explained.standardOutput.contains("    1000 bought 2026-03-01T00:00:00Z: 10 of 10 stencils"), "\(explained.standardOutput)")
        #expect(explained.standardOutput.contains("  → 2000000107 bought 2026-03-22T00:00:00Z: 4 of 20 stencils"), "\(explained.standardOutput)")
        let unknown = CLITests.run(["explain", "--catalog", CLITests.products, "--receipt", spent.path, "--transaction", "100"])
        #expect(unknown.exitCode == 1 && unknown.standardError.contains("did you mean `1000`?"), "\(unknown.standardError)")
        let refused = CLITests.run([
            "consumption", "--catalog", CLITests.products, "--receipt", spent.path, "--transaction", "1000", "--at", "2026-03-23",
        ])
        #expect(refused.exitCode == 0 && refused.standardOutput.contains("no reply: the customer did not consent"), "\(refused.standardOutput)")
    }
}
