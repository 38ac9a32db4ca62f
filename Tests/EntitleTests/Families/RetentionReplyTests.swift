import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// Answers to Apple's retention request: the first rule whose conditions hold and whose reply is
/// possible, at the instants where that changes; requests that cannot be answered; the rules the
/// checker refuses.
@Suite("Retention replies")
struct RetentionReplyTests {
    static let catalog = """
        {"app": "com.example.r", "features": {"f": "F"}, "legal": {"auto-renewable-subscription": "Renews monthly."},
         "products": [
          {"id": "com.example.r.monthly", "type": "auto-renewable-subscription", "name": "Monthly", "group": "g", "level": 2,
           "duration": "P1M", "grants": ["f"],
           "offers": [{"id": "r.promo", "type": "promotional", "mode": "pay-up-front", "duration": "P1M", "subscribed": true}],
           "retention": [
             {"id": "fr", "message": "m-fr", "locales": ["fr"]},
             {"id": "promo", "promotionalOffer": "r.promo", "message": "m-promo", "paidAtLeast": "P2M", "waitBetween": "P6M"},
             {"id": "switch", "alternateProduct": "com.example.r.yearly", "billingPlan": "billed-upfront", "paidAtLeast": "P1M"}
           ]},
          {"id": "com.example.r.yearly", "type": "auto-renewable-subscription", "name": "Yearly", "group": "g", "level": 2,
           "duration": "P1Y", "grants": ["f"]}
         ]}
        """
    static let portfolio: Portfolio = Fixtures.compile(catalog).portfolio!
    static let monthly = "com.example.r.monthly"

    static func at(_ text: String) -> Instant { Fixtures.instant(text.count == 10 ? text + "T00:00:00Z" : text) }

    /// Monthly from 1 January 2026, renewed on the first of each month through `months` periods.
    static func subscriber(months: Int = 12, promoOn: Int? = nil, renewal: Renewal? = nil) -> Receipt {
        var transactions: [Transaction] = []
        for month in 0..<months {
            let start: String = String(format: "2026-%02d-01", month + 1)
            let end: String = month == 11 ? "2027-01-01" : String(format: "2026-%02d-01", month + 2)
            let promoted: Bool = month == promoOn
            transactions.append(
                Transaction(
                    productId: monthly, transactionId: "t\(month)", originalTransactionId: "o1", purchaseDate: at(start), expiresDate: at(end),
                    offerType: promoted ? .promotional : nil, offerId: promoted ? "r.promo" : nil))
        }
        return Receipt(app: "com.example.r", transactions: transactions, renewals: renewal.map { [$0] } ?? [])
    }

    static func request(locale: String? = "en-US", chain: String = "o1", product: String = monthly, environment: String? = nil)
        -> RetentionRequest
    {
        RetentionRequest(
            originalTransactionId: chain, productId: product, userLocale: locale, requestIdentifier: "req-1", environment: environment)
    }

    /// The answer, checked to be the same with the receipt's entries reversed.
    static func answer(_ receipt: Receipt, _ request: RetentionRequest, at: String) throws -> RetentionReply {
        let reply = try portfolio.retentionReply(app: "com.example.r", request: request, receipts: [receipt], at: Self.at(at))
        var reversed = receipt
        reversed.transactions.reverse()
        reversed.renewals.reverse()
        let again = try portfolio.retentionReply(app: "com.example.r", request: request, receipts: [reversed], at: Self.at(at))
        #expect(again == reply, "the answer depends on the order of the entries")
        return reply
    }

    @Test("paidAtLeast at its millisecond: no rule before, the switch at 30 days paid, the offer at 60")
    func paidThresholds() throws {
        let receipt = Self.subscriber()
        let before = try Self.answer(receipt, Self.request(), at: "2026-01-30T23:59:59.999Z")
        #expect(before.reason == .noRuleMatched && before.reply == nil && before.appleJSON == nil)
        #expect(before.outcomes.map(\.rule) == ["fr", "promo", "switch"])
        let month = try Self.answer(receipt, Self.request(), at: "2026-01-31T00:00:00Z")
        #expect(month.rule == "switch")
        #expect(month.reply == .alternateProduct(productId: "com.example.r.yearly", message: nil, billingPlan: .billedUpfront))
        #expect(month.appleJSON?.contains("\"billingPlanType\": \"BILLED_UPFRONT\"") == true, "\(month.appleJSON ?? "")")
        // 31 + 28 days is 59: the promotional offer's 60 days are reached on 2 March.
        #expect(try Self.answer(receipt, Self.request(), at: "2026-03-01T23:59:59.999Z").rule == "switch")
        let promo = try Self.answer(receipt, Self.request(), at: "2026-03-02T00:00:00Z")
        #expect(promo.rule == "promo" && promo.reply == .promotionalOffer(offerId: "r.promo", productId: Self.monthly, message: "m-promo"))
        #expect(promo.needsSigning?.productId == Self.monthly && promo.needsSigning?.offerIdentifier == "r.promo")
        #expect(promo.json.contains("\"needsSigning\""))
    }

    @Test("locales are RFC 4647 basic filtering: fr matches fr and fr-CA, not fra; no locale matches no list")
    func locales() throws {
        let receipt = Self.subscriber()
        #expect(try Self.answer(receipt, Self.request(locale: "fr"), at: "2026-01-05").rule == "fr")
        #expect(try Self.answer(receipt, Self.request(locale: "FR-ca"), at: "2026-01-05").reply == .message("m-fr"))
        #expect(try Self.answer(receipt, Self.request(locale: "fr_CA"), at: "2026-01-05").rule == "fr")
        #expect(try Self.answer(receipt, Self.request(locale: "fra"), at: "2026-01-05").rule == nil)
        let none = try Self.answer(receipt, Self.request(locale: nil), at: "2026-01-05")
        #expect(none.rule == nil && none.outcomes[0].because.contains("names no locale"))
    }

    @Test("waitBetween counts from the last redemption of the rule's offer, to the millisecond")
    func waitBetween() throws {
        // Redeemed with the March renewal (1 March): P6M is 180 days, so 28 August.
        let receipt = Self.subscriber(promoOn: 2)
        let waiting = try Self.answer(receipt, Self.request(), at: "2026-08-27T23:59:59.999Z")
        #expect(waiting.rule == "switch")
        #expect(waiting.outcomes[1].because.contains("2026-03-01T00:00:00Z"), "\(waiting.outcomes[1].because)")
        #expect(try Self.answer(receipt, Self.request(), at: "2026-08-28T00:00:00Z").rule == "promo")
    }

    @Test("the alternate product already renewed to is not a reply; the chain must be the customer's and covering")
    func chainAndRenewal() throws {
        let renewsToYearly = Renewal(productId: Self.monthly, originalTransactionId: "o1", willRenew: true, renewsTo: "com.example.r.yearly")
        let switching = try Self.answer(Self.subscriber(renewal: renewsToYearly), Self.request(), at: "2026-02-10")
        #expect(switching.rule == nil && switching.outcomes.last?.because.contains("renews to `com.example.r.yearly` already") == true)

        let other = try Self.answer(Self.subscriber(), Self.request(chain: "o2"), at: "2026-02-10")
        #expect(other.reason == .notTheCustomersChain && other.reply == nil && other.outcomes.isEmpty)
        // Expired at the end of its last period; in billing retry (no grace) too.
        let lapsed = try Self.answer(Self.subscriber(months: 2), Self.request(), at: "2026-03-01T00:00:00Z")
        #expect(lapsed.reason == .notSubscribed)
        #expect(try Self.answer(Self.subscriber(months: 2), Self.request(), at: "2026-02-28T23:59:59.999Z").reason == .ruleMatched)
        let retry = Renewal(productId: Self.monthly, originalTransactionId: "o1", willRenew: true, isInBillingRetry: true)
        #expect(try Self.answer(Self.subscriber(months: 2, renewal: retry), Self.request(), at: "2026-03-05").reason == .notSubscribed)
    }

    @Test("from the millisecond the customer rescinds consent for the app, no reply: consent-rescinded")
    func consentRescinded() throws {
        var receipt = Self.subscriber()
        receipt.consentRescinded = Self.at("2026-02-10T12:00:00Z")
        let before = try Self.answer(receipt, Self.request(), at: "2026-02-10T11:59:59.999Z")
        #expect(before.reason == .ruleMatched && before.reply != nil)
        let after = try Self.answer(receipt, Self.request(), at: "2026-02-10T12:00:00Z")
        #expect(after.reason == .consentRescinded && after.reply == nil && after.appleJSON == nil)
        #expect(after.json.contains("\"consent-rescinded\""))
        // Another customer's chain is still that, first.
        #expect(try Self.answer(receipt, Self.request(chain: "o2"), at: "2026-02-11").reason == .notTheCustomersChain)
    }

    @Test("a request for another app's product, from an environment not accepted, or malformed, is an error")
    func badRequests() throws {
        #expect(throws: RetentionRequestError.self) {
            try Self.portfolio.retentionReply(
                app: "com.example.r", request: Self.request(product: "com.example.r.monthy"), receipts: [Self.subscriber()], at: Self.at("2026-02-01")
            )
        }
        /// The error the portfolio's reply throws, `nil` when it replies.
        func failure(_ request: RetentionRequest, app: String = "com.example.r") -> RetentionRequestError? {
            do {
                _ = try Self.portfolio.retentionReply(app: app, request: request, receipts: [Self.subscriber()], at: Self.at("2026-02-01"))
                return nil
            } catch {
                return error
            }
        }
        let product = try #require(failure(Self.request(product: "com.example.r.monthy")))
        #expect(product.help?.contains("`com.example.r.monthly`") == true, "\(product)")
        let app = try #require(failure(Self.request(), app: "com.example.q"))
        #expect(app.message == "no catalog for app `com.example.q`" && app.help == "did you mean `com.example.r`?", "\(app)")
        #expect(throws: RetentionRequestError.self) {
            try Self.portfolio.retentionReply(
                app: "com.example.r", request: Self.request(environment: "sandbox"), receipts: [Self.subscriber()], at: Self.at("2026-02-01"),
                options: EvaluationOptions(environments: [.production]))
        }
        // Apple's own example reads, its environment normalized.
        let path = Fixtures.sharedFixtures.appendingPathComponent("storekit2/apple-app-store-server-library-swift/models/decodedRealtimeRequest.json")
        if let data = try? Data(contentsOf: path) {
            let apple = try RetentionRequest(json: data)
            #expect(apple.originalTransactionId == "99371282" && apple.productId == "com.example.product")
            #expect(apple.userLocale == "en-US" && apple.environment == "local-testing")
        }
        #expect(throws: ReceiptError.self) { try RetentionRequest(json: Data(#"{"productId": "p", "requestIdentifier": "r"}"#.utf8)) }
        #expect(throws: ReceiptError.self) { try RetentionRequest(json: Data(#"{"originalTransactionId": 5}"#.utf8)) }
        #expect(throws: ReceiptError.self) { try RetentionRequest(json: Data("{".utf8)) }
    }

    @Test("the checker: one reply, offers that are promotional, plans of the group, unique ids, language tags")
    func checker() {
        func errors(_ rules: String, type: String = "auto-renewable-subscription") -> [String] {
            Fixtures.compile(
                Self.catalog.replacingOccurrences(
                    of: #"{"id": "fr", "message": "m-fr", "locales": ["fr"]},"#, with: rules + ","
                ).replacingOccurrences(
                    of: #""id": "com.example.r.monthly", "type": "auto-renewable-subscription""#,
                    with: #""id": "com.example.r.monthly", "type": "\#(type)""#)
            ).diagnostics.filter(\.isError).map(\.description)
        }
        // Each mistake is reported once.
        for rules in [
            #"{"id": "x", "promotionalOffer": "sync.winback"}"#, #"{"id": "x", "promotionalOffer": "r.prom"}"#,
            #"{"id": "x", "alternateProduct": "com.example.r.monthly"}"#,
        ] {
            let found = errors(rules)
            #expect(found.count == 1, "\(found)")
        }
        #expect(errors(#"{"id": "x", "message": "m"}"#).isEmpty)
        #expect(errors(#"{"id": "x"}"#).contains { $0.contains("retention[0]: a retention rule needs a reply") })
        #expect(
            errors(#"{"id": "x", "alternateProduct": "com.example.r.yearly", "promotionalOffer": "r.promo"}"#).contains { $0.contains("not both") })
        #expect(errors(#"{"id": "x", "message": "m", "billingPlan": "monthly"}"#).contains { $0.contains("retention[0].billingPlan") })
        #expect(errors(#"{"id": "x", "promotionalOffer": "r.prom"}"#).contains { $0.contains("did you mean `r.promo`?") })
        #expect(errors(#"{"id": "x", "alternateProduct": "com.example.r.monthly"}"#).contains { $0.contains("cannot suggest switching to itself") })
        #expect(errors(#"{"id": "x", "alternateProduct": "com.example.r.yearl"}"#).contains { $0.contains("did you mean `com.example.r.yearly`?") })
        // Another store's plan, by key or id: Apple's reply cannot carry it, and says so (not "not defined").
        let web = Self.catalog.replacingOccurrences(
            of: #"{"id": "fr", "message": "m-fr", "locales": ["fr"]},"#, with: #"{"id": "x", "alternateProduct": "stripe:prod_R"},"#
        ).replacingOccurrences(
            of: #""duration": "P1Y", "grants": ["f"]}"#,
            with:
                #""duration": "P1Y", "grants": ["f"]}, {"id": "prod_R", "store": "stripe", "type": "auto-renewable-subscription", "name": "Web", "group": "w", "duration": "P1Y", "grants": ["f"]}"#
        )
        for name in ["stripe:prod_R", "prod_R"] {
            let found = Fixtures.compile(web.replacingOccurrences(of: "stripe:prod_R\"}", with: "\(name)\"}")).diagnostics.filter(\.isError)
            #expect(found.count == 1, "\(name): \(found)")
            #expect(found.first?.code == .retentionRule && found.first?.path == "products[0].retention[0].alternateProduct", "\(found)")
            #expect(
                found.first?.message
                    == "`alternateProduct` names `stripe:prod_R`, sold in Stripe: Apple's retention reply names only App Store products",
                "\(found)")
        }
        #expect(errors(#"{"id": "promo", "message": "m"}"#).contains { $0.contains("retention[0].id") && $0.contains("duplicate") })
        #expect(errors(#"{"id": "x", "message": "m", "locales": ["d e"]}"#).contains { $0.contains("is not a language tag") })
        #expect(
            errors(#"{"id": "x", "message": "m", "lapsedAtLeast": "P1M"}"#).contains { $0.contains("unknown key `lapsedAtLeast` in retention rule") })
        #expect(errors(#"{"id": "x", "message": "m"}"#, type: "non-consumable").contains { $0.contains("`retention` is not allowed on") })
    }

    @Test("entitle retention: the example catalogs' rules, from a story's receipts")
    func command() throws {
        let told = try StoryTests.told(
            #"{"app": "com.example.diagrams", "story": [{"at": "2026-03-01", "subscribe": "com.example.diagrams.sync.monthly", "renewals": 3}]}"#)
        let receipts = try BatchTests.file(told.standardOutput, "receipts.json")
        let request = try BatchTests.file(
            #"{"originalTransactionId": "story-1", "productId": "com.example.diagrams.sync.monthly", "userLocale": "de-AT", "requestIdentifier": "q1", "environment": "Production"}"#,
            "request.json")
        let ran = CLITests.run([
            "retention", "--catalog", CLITests.products, "--receipt", receipts.path, "--request", request.path, "--at", "2026-05-15",
            "--format", "json",
        ])
        #expect(ran.exitCode == 0, "\(ran.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(ran.standardOutput.utf8)) as? [String: Any])
        #expect(json["rule"] as? String == "loyal-de" && json["reason"] as? String == "rule-matched")
        #expect((json["needsSigning"] as? [String: Any])?["offerIdentifier"] as? String == "sync.loyal")
        let early = CLITests.run([
            "retention", "--catalog", CLITests.products, "--receipt", receipts.path, "--request", request.path, "--at", "2026-03-15",
        ])
        #expect(early.exitCode == 0 && early.standardOutput.contains("no reply (no-rule-matched)"), "\(early.standardOutput)")
        // explain --retention: the rule that answers, and why each earlier one did not.
        let explained = CLITests.run([
            "explain", "--catalog", CLITests.products, "--receipt", receipts.path, "--retention", request.path, "--at", "2026-04-15",
        ])
        #expect(explained.exitCode == 0, "\(explained.standardError)")
        #expect(explained.standardOutput.contains("reply: message sync-keeps-your-diagrams by rule remind"), "\(explained.standardOutput)")
        #expect(explained.standardOutput.contains("· loyal-de: promotional offer `sync.loyal` is not eligible now (paid-too-little)"))
        let bad = try BatchTests.file(
            #"{"originalTransactionId": "story-1", "productId": "com.example.diagrams.pro", "requestIdentifier": "q1"}"#, "bad.json")
        let refused = CLITests.run(["retention", "--catalog", CLITests.products, "--receipt", receipts.path, "--request", bad.path])
        #expect(refused.exitCode == 1 && refused.standardError.contains("not an App Store subscription"), "\(refused.standardError)")
        // Signing: the three options go together; with them, the offer is signed (SystemCrypto)
        // or the build says why it cannot, never quoting the key.
        let partial = CLITests.run([
            "retention", "--catalog", CLITests.products, "--receipt", receipts.path, "--request", request.path, "--key-id", "ABC123",
        ])
        #expect(partial.exitCode == 2 && partial.standardError.contains("go together"), "\(partial.standardError)")
        let key = try BatchTests.file(String(decoding: OfferSigningVerificationTests.key, as: UTF8.self), "SubscriptionKey_ABC123.p8")
        let signing = CLITests.run([
            "retention", "--catalog", CLITests.products, "--receipt", receipts.path, "--request", request.path, "--at", "2026-05-15",
            "--format", "json", "--signing-key", key.path, "--key-id", "ABC123", "--issuer-id", "issuer-1",
        ])
        #expect(!signing.standardOutput.contains("MIGHAgEA") && !signing.standardError.contains("MIGHAgEA"))
        if PromotionalOfferSigner.isAvailable {
            #expect(signing.exitCode == 0, "\(signing.standardError)")
            let signed = try #require(try JSONSerialization.jsonObject(with: Data(signing.standardOutput.utf8)) as? [String: Any])
            let offer = ((signed["reply"] as? [String: Any])?["promotionalOffer"] as? [String: Any])
            #expect((offer?["promotionalOfferSignatureV2"] as? String)?.split(separator: ".").count == 3)
            #expect(signed["needsSigning"] == nil)
        } else {
            #expect(signing.exitCode == 1 && signing.standardError.contains("SystemCrypto"), "\(signing.standardError)")
        }
    }
}
