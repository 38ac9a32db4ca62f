import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// Stripe's objects and Google Play's purchases read into receipts of their stores: each status
/// and state, refunds and voids, the fields that name accounts and storefronts, and what is
/// refused; then evaluated against the reference evaluator, in any order.
@Suite("Stripe and Play import")
struct StoreImportTests {
    static let catalog = T.catalog(catalogJSON)
    static let catalogJSON = """
        { "app": "com.ex.multi", "features": { "pro": "Pro", "sync": "Sync" }, "currencies": { "coins": "Coins" },
          "legal": { "auto-renewable-subscription": "Renews." },
          "stores": { "stripe": { "manage": "https://billing.example.com/portal" } },
          "products": [
            { "id": "prod_Pro", "store": "stripe", "type": "auto-renewable-subscription", "name": "Pro yearly (web)", "group": "web",
              "duration": "P1Y", "gracePeriod": "P3D", "grants": ["pro"] },
            { "id": "prod_Coins", "store": "stripe", "type": "consumable", "name": "10 coins (web)", "credits": { "coins": 10 } },
            { "id": "pro:yearly", "store": "play", "type": "auto-renewable-subscription", "name": "Pro yearly (Play)", "group": "play",
              "duration": "P1Y", "grants": ["pro", "sync"] },
            { "id": "coins_10", "store": "play", "type": "consumable", "name": "10 coins", "credits": { "coins": 10 } }
          ] }
        """

    static func unix(_ text: String) -> Int64 { T.instant(text).millisecondsSince1970 / 1_000 }

    static func stripe(_ json: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> ImportedReceipt {
        let imported = try StoreImport.unverifiedReceipt(fromStripe: Data(json.utf8), app: "com.ex.multi")
        #expect(imported.format == .stripe && imported.receipt.store == .stripe, sourceLocation: sourceLocation)
        // Recognized from its content too.
        #expect(AppleImport.detect(Data(json.utf8)) == .imported(.stripe), sourceLocation: sourceLocation)
        return imported
    }

    static func play(_ json: String, app: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> ImportedReceipt {
        let imported = try StoreImport.unverifiedReceipt(fromPlay: Data(json.utf8), app: app)
        #expect(imported.format == .play && imported.receipt.store == .play, sourceLocation: sourceLocation)
        #expect(AppleImport.detect(Data(json.utf8)) == .imported(.play), sourceLocation: sourceLocation)
        return imported
    }

    static func evaluate(_ receipt: Receipt, at text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Entitlements {
        StoresTests.evaluate([receipt], at: text, storefront: "USA", catalog: catalog, sourceLocation: sourceLocation)
    }

    /// The receipt as evaluation reads it: its refunds and voids applied to its purchases.
    static func applied(_ receipt: Receipt) -> Receipt {
        RevocationFacts.applied([ParsedReceipt(receipt)], own: [0]).receipts[0].receipt
    }

    /// The error reading `json` as `format`, or a failed expectation when it reads.
    static func failure(_ json: String, _ format: ReceiptFormat, app: String? = "com.ex.multi") -> ReceiptError? {
        do {
            _ = try AppleImport.unverifiedReceipt(from: Data(json.utf8), format: format, app: app)
            Issue.record("expected an error")
            return nil
        } catch {
            return error
        }
    }

    // MARK: Stripe

    /// A Subscription of `prod_Pro` in `status`, for the year from 1 March 2026.
    static func subscription(_ status: String, extra: String = "", item: String = "") -> String {
        """
        { "id": "sub_1", "object": "subscription", "status": "\(status)", "cancel_at_period_end": false, "latest_invoice": "in_2",
          "metadata": { "account": "acct-1" } \(extra),
          "items": { "object": "list", "data": [ { "id": "si_1", "object": "subscription_item", "quantity": 1 \(item),
            "current_period_start": \(unix("2026-03-01T00:00:00Z")), "current_period_end": \(unix("2027-03-01T00:00:00Z")),
            "price": { "id": "price_1", "object": "price", "product": "prod_Pro" } } ] } }
        """
    }

    @Test("an active Subscription is its current period, `<subscription>:<period start>`, of the subscription's chain")
    func activeSubscription() throws {
        let imported = try Self.stripe(Self.subscription("active"))
        let transaction = try #require(imported.receipt.transactions.first)
        #expect(imported.receipt.transactions.count == 1)
        #expect(
            transaction.productId == "prod_Pro" && transaction.transactionId == "sub_1:1772323200" && transaction.originalTransactionId == "sub_1")
        #expect(transaction.purchaseDate == T.instant("2026-03-01T00:00:00Z") && transaction.expiresDate == T.instant("2027-03-01T00:00:00Z"))
        #expect(transaction.account == "acct-1" && transaction.signedDate == nil)
        #expect(imported.receipt.renewals.first?.willRenew == true)
        let result = Self.evaluate(imported.receipt, at: "2026-06-01T00:00:00Z")
        #expect(result.feature("pro")?.sources == ["stripe:prod_Pro"])
        #expect(result.product("stripe:prod_Pro")?.manage == "https://billing.example.com/portal")
        #expect(Self.evaluate(imported.receipt, at: "2027-03-01T00:00:00Z").feature("pro")?.enabled == false)
    }

    @Test("each Subscription status: trial, billing retry in the catalog's grace period, unpaid, paused, incomplete, cancelled")
    func subscriptionStatuses() throws {
        let trial = try Self.stripe(Self.subscription("trialing")).receipt
        #expect(trial.transactions[0].isTrialPeriod && trial.transactions[0].offerType == .introductory)

        // past_due: the new period is unpaid, so coverage ends at its start, then the catalog's
        // three days of grace.
        let pastDue = try Self.stripe(Self.subscription("past_due")).receipt
        #expect(pastDue.transactions[0].expiresDate == T.instant("2026-03-01T00:00:00Z"))
        #expect(pastDue.renewals[0].isInBillingRetry == true && pastDue.renewals[0].gracePeriodExpiresDate == nil)
        let inGrace = Self.evaluate(pastDue, at: "2026-03-03T23:59:59.999Z")
        #expect(inGrace.feature("pro")?.enabled == true && inGrace.product("stripe:prod_Pro")?.state == .gracePeriod)
        let after = Self.evaluate(pastDue, at: "2026-03-04T00:00:00Z")
        #expect(after.feature("pro")?.enabled == false && after.product("stripe:prod_Pro")?.state == .billingRetry)

        // unpaid: retries are over, no grace.
        let unpaid = try Self.stripe(Self.subscription("unpaid")).receipt
        #expect(Self.evaluate(unpaid, at: "2026-03-01T00:00:00Z").feature("pro")?.enabled == false)

        let resumes = Self.unix("2026-06-01T00:00:00Z")
        let paused = try Self.stripe(Self.subscription("paused", extra: #", "pause_collection": { "behavior": "void", "resumes_at": \#(resumes) }"#))
            .receipt
        #expect(paused.renewals[0].pausedUntil == T.instant("2026-06-01T00:00:00Z"))
        let pausedResult = Self.evaluate(paused, at: "2026-04-01T00:00:00Z")
        #expect(pausedResult.product("stripe:prod_Pro")?.state == .paused && pausedResult.feature("pro")?.enabled == false)
        #expect(pausedResult.product("stripe:prod_Pro")?.resumesAt == T.instant("2026-06-01T00:00:00Z"))

        let incomplete = try Self.stripe(Self.subscription("incomplete")).receipt
        #expect(incomplete.transactions[0].pending)
        #expect(Self.evaluate(incomplete, at: "2026-04-01T00:00:00Z").product("stripe:prod_Pro")?.state == .pending)

        let expired = try Self.stripe(Self.subscription("incomplete_expired"))
        #expect(expired.receipt.transactions.isEmpty && expired.warnings.contains { $0.message.contains("never succeeded") })

        let ended = Self.unix("2026-05-01T00:00:00Z")
        let canceled = try Self.stripe(Self.subscription("canceled", extra: #", "ended_at": \#(ended)"#)).receipt
        #expect(canceled.transactions[0].expiresDate == T.instant("2026-05-01T00:00:00Z") && canceled.renewals[0].willRenew == false)
        #expect(Self.evaluate(canceled, at: "2026-04-30T23:59:59.999Z").feature("pro")?.enabled == true)
        #expect(Self.evaluate(canceled, at: "2026-05-01T00:00:00Z").feature("pro")?.enabled == false)

        let unknown = try Self.stripe(Self.subscription("paused_forever"))
        #expect(unknown.receipt.transactions.isEmpty && unknown.warnings.contains { $0.message.contains("unknown Subscription status") })
    }

    @Test("webhook Events are snapshots at their time: the example's cancel-at-period-end turns willRenew off from then")
    func stripeEvents() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: T.productsDirectory + "/store-data/stripe-events.json"))
        let imported = try StoreImport.unverifiedReceipt(fromStripe: data, app: "com.example.diagrams")
        #expect(imported.warnings.isEmpty, "\(imported.warnings)")
        let receipt = imported.receipt
        // The paid Invoice is its own transaction; the Subscription's period `<subscription>:<start>`.
        #expect(receipt.transactions.map(\.transactionId) == ["in_1QdiagramsFirstYear", "sub_1QdiagramsWeb:1772323200"])
        #expect(receipt.transactions.map(\.signedDate) == [T.instant("2026-03-01T00:00:07Z"), T.instant("2026-09-14T10:30:00Z")])
        #expect(Set(receipt.transactions.map(\.originalTransactionId)) == ["sub_1QdiagramsWeb"])
        // The account comes from the Checkout Session that started the subscription.
        #expect(receipt.transactions.allSatisfy { $0.account == "customer-8817" })
        #expect(receipt.renewals.map(\.willRenew) == [false])
        let diagrams = T.diagrams
        let before = diagrams.evaluate([receipt], at: T.instant("2026-09-14T10:29:59Z"))
        #expect(before.product("stripe:prod_DiagramsProYearly")?.state == .active)
        let after = diagrams.evaluate([receipt], at: T.instant("2026-10-01T00:00:00Z"))
        #expect(after.product("stripe:prod_DiagramsProYearly")?.willRenew == false)
        #expect(after.feature("pro")?.until == T.instant("2027-03-01T00:00:00Z"))
    }

    /// A paid Checkout Session for three packs of `prod_Coins`, and refunds of it.
    static func coinsSession(_ refunds: String = "") -> String {
        """
        [ { "id": "cs_1", "object": "checkout.session", "mode": "payment", "status": "complete", "payment_status": "paid",
            "client_reference_id": "acct-1", "payment_intent": "pi_1", "amount_total": 1500, "created": \(unix("2026-03-01T00:00:00Z")),
            "line_items": { "object": "list", "data": [ { "id": "li_1", "object": "item", "quantity": 3,
              "price": { "id": "price_c", "object": "price", "product": "prod_Coins" } } ] } }
          \(refunds) ]
        """
    }

    @Test("a Checkout Session buys its line items; Refunds revoke them in part, then in full, each from when it was made")
    func refunds() throws {
        let first = Self.unix("2026-03-05T00:00:00Z")
        let second = Self.unix("2026-03-09T00:00:00Z")
        let json = Self.coinsSession(
            """
            , { "id": "re_2", "object": "refund", "status": "succeeded", "amount": 1000, "payment_intent": "pi_1", "created": \(second) },
              { "id": "re_1", "object": "refund", "status": "succeeded", "amount": 500, "payment_intent": "pi_1", "created": \(first) },
              { "id": "re_1", "object": "refund", "status": "succeeded", "amount": 500, "payment_intent": "pi_1", "created": \(first) },
              { "id": "re_3", "object": "refund", "status": "pending", "amount": 1, "payment_intent": "pi_1", "created": \(second) }
            """)
        let imported = try Self.stripe(json)
        #expect(imported.receipt.transactions.count == 1 && imported.receipt.revocations.count == 2, "re_1 read twice is one fact")
        #expect(
            imported.receipt.revocations.first { $0.id == "re_1" }
                == Revocation(transactionId: "pi_1", date: T.instant("2026-03-05T00:00:00Z"), amount: 500, amountPaid: 1500, id: "re_1"))
        let receipt = Self.applied(imported.receipt)
        #expect(receipt.transactions.count == 3, "the purchase, and one snapshot per refund")
        let partial = try #require(receipt.transactions.first { $0.signedDate == T.instant("2026-03-05T00:00:00Z") })
        #expect(partial.revocationType == .refundProrated && partial.revocationPercentage == 33.333)
        #expect(partial.cancellationDate == T.instant("2026-03-05T00:00:00Z"))
        let full = try #require(receipt.transactions.first { $0.signedDate == T.instant("2026-03-09T00:00:00Z") })
        #expect(full.revocationType == .refundFull && full.cancellationDate == T.instant("2026-03-05T00:00:00Z"))
        #expect(imported.warnings.contains { $0.message.contains("takes nothing back yet") })

        for value in [imported.receipt, receipt] {
            #expect(Self.evaluate(value, at: "2026-03-04T00:00:00Z").balance(of: "coins") == 30)
            #expect(Self.evaluate(value, at: "2026-03-06T00:00:00Z").balance(of: "coins") == 20)
            #expect(Self.evaluate(value, at: "2026-03-10T00:00:00Z").balance(of: "coins") == 0)
        }

        // A Charge listing the same refunds counts each once; its running total alone dates by the Event.
        let charge = Self.coinsSession(
            """
            , { "id": "ch_1", "object": "charge", "amount": 1500, "amount_refunded": 500, "payment_intent": "pi_1",
                "refunds": { "object": "list", "data": [ { "id": "re_1", "object": "refund", "amount": 500, "charge": "ch_1", "created": \(first) } ] } },
              { "id": "re_1", "object": "refund", "amount": 500, "charge": "ch_1", "created": \(first) }
            """)
        let charged = Self.applied(try Self.stripe(charge).receipt)
        #expect(charged.transactions.count == 2 && charged.transactions[1].revocationPercentage == 33.333)
        let event = Self.coinsSession(
            """
            , { "id": "evt_1", "object": "event", "type": "charge.refunded", "created": \(second),
                "data": { "object": { "id": "ch_1", "object": "charge", "amount": 1500, "amount_refunded": 1500, "payment_intent": "pi_1" } } }
            """)
        let evented = Self.applied(try Self.stripe(event).receipt)
        #expect(evented.transactions.last?.cancellationDate == T.instant("2026-03-09T00:00:00Z"))
        #expect(evented.transactions.last?.revocationType == .refundFull)
    }

    @Test("the order of Stripe's objects does not change the receipt's answer")
    func stripeOrder() throws {
        let refund =
            #"{ "id": "re_1", "object": "refund", "amount": 500, "payment_intent": "pi_1", "created": \#(Self.unix("2026-03-05T00:00:00Z")) }"#
        let forward = try Self.stripe(Self.coinsSession(", " + refund)).receipt
        let session = Self.coinsSession().trimmingCharacters(in: .whitespacesAndNewlines).dropFirst().dropLast()
        let backward = try Self.stripe("[ \(refund), \(session) ]").receipt
        #expect(Set(forward.transactions) == Set(backward.transactions) && Set(forward.revocations) == Set(backward.revocations))
        #expect(
            Self.catalog.evaluate([forward], at: T.instant("2026-04-01T00:00:00Z")).json
                == Self.catalog.evaluate([backward], at: T.instant("2026-04-01T00:00:00Z")).json)
    }

    @Test("what Stripe data is refused, located: no app, a refund without its purchase, periods out of order, timestamps out of range")
    func stripeRefusals() throws {
        do {
            _ = try AppleImport.unverifiedReceipt(from: Data(Self.subscription("active").utf8), format: .stripe)
            Issue.record("expected an error")
        } catch {
            #expect(error.message == "Stripe's objects name no app" && error.help?.contains("--app") == true)
        }
        // A refund alone is a fact kept for its purchase, read later or elsewhere: never an error.
        let orphan = try Self.stripe(#"{ "id": "re_1", "object": "refund", "amount": 5, "payment_intent": "pi_9", "created": 1772323200 }"#)
        #expect(orphan.receipt.transactions.isEmpty && orphan.receipt.revocations.map(\.transactionId) == ["pi_9"])
        #expect(orphan.warnings.contains { $0.message.hasPrefix("what payment `pi_9` charged is not in the data") }, "\(orphan.warnings)")
        #expect(Self.evaluate(orphan.receipt, at: "2026-04-01T00:00:00Z").warnings.map(\.code) == ["unmatched-revocation"])
        let nameless = Self.failure(#"{ "id": "re_1", "object": "refund", "amount": 5, "created": 1772323200 }"#, .stripe)
        #expect(nameless?.message == "a refund that names neither its payment intent nor its Charge")
        let reversed = Self.subscription("active").replacingOccurrences(of: "\(Self.unix("2027-03-01T00:00:00Z"))", with: "1000")
        let period = Self.failure(reversed, .stripe)
        #expect(period?.message.hasPrefix("the current period ends (1970-01-01T00:16:40Z) before it starts") == true)
        #expect(period?.path == "items.data[0]")
        let far = Self.failure(
            Self.subscription("active").replacingOccurrences(of: "\(Self.unix("2026-03-01T00:00:00Z"))", with: "253402300800"), .stripe)
        #expect(far?.message == "`current_period_start` 253402300800 is outside years 0001-9999")
        let huge = Self.failure(
            Self.subscription("active").replacingOccurrences(of: "\(Self.unix("2026-03-01T00:00:00Z"))", with: "9223372036854775807"), .stripe)
        #expect(huge?.message.contains("outside years 0001-9999") == true)
        let negative = Self.failure(Self.subscription("active").replacingOccurrences(of: "\(Self.unix("2026-03-01T00:00:00Z"))", with: "-5"), .stripe)
        #expect(negative?.message == "`current_period_start` -5 is negative" && negative?.path == "items.data[0].current_period_start")
        let unknown = Self.failure(#"{ "id": "x", "object": "quote" }"#, .stripe)
        #expect(unknown?.message == "a Stripe object of type `quote`, which entitle does not read" && unknown?.path == "object")
        let lineless = Self.failure(
            #"{ "id": "cs_1", "object": "checkout.session", "mode": "payment", "status": "complete", "payment_status": "paid", "created": 1772323200 }"#,
            .stripe)
        #expect(lineless?.help?.contains("expand[]=line_items") == true)
        // A refund of more than was charged is a full refund, not a percentage over 100.
        let over = try Self.stripe(
            Self.coinsSession(
                #", { "id": "re_1", "object": "refund", "amount": 9223372036854775807, "payment_intent": "pi_1", "created": 1772323300 }"#))
        #expect(Self.applied(over.receipt).transactions.last?.revocationType == .refundFull)
        #expect(
            over.warnings.contains { $0.message.hasPrefix("the refunds of payment `pi_1` add up to 1000000000000000, more than the 1500 paid") },
            "\(over.warnings)")
    }

    @Test("a Stripe quantity out of range is a located error, 0 a warning; never dropped in silence")
    func stripeQuantities() throws {
        #expect(try Self.stripe(Self.subscription("active")).receipt.transactions.first?.quantity == 1)
        func items(_ quantity: String) -> String {
            Self.subscription("active").replacingOccurrences(of: #""quantity": 1"#, with: #""quantity": \#(quantity)"#)
        }
        #expect(try Self.stripe(items("5")).receipt.transactions.first?.quantity == 5)
        let zero = try Self.stripe(items("0"))
        #expect(zero.receipt.transactions.first?.quantity == 1)
        #expect(zero.warnings.contains { $0.path == "items.data[0].quantity" && $0.message.hasPrefix("quantity 0 is read as 1") })
        for (bad, message) in [
            ("1001", "quantity 1001 is outside 1 to 1000"), ("-2", "quantity -2 is outside 1 to 1000"),
            ("9223372036854775807", "quantity 9223372036854775807 is outside 1 to 1000"), ("2.5", "`quantity` is not a whole number"),
            (#""many""#, "`quantity` is not a whole number"),
        ] {
            let error = Self.failure(items(bad), .stripe)
            #expect(error?.message == message, "\(bad): \(String(describing: error))")
            #expect(error?.path == "items.data[0].quantity" && error?.location?.line == 3, "\(bad)")
        }
        #expect(try Self.stripe(Self.coinsSession()).receipt.transactions.first?.quantity == 3)
        let session = Self.coinsSession().replacingOccurrences(of: #""quantity": 3"#, with: #""quantity": 5000"#)
        let pack = Self.failure(session, .stripe)
        #expect(
            pack?.message == "quantity 5000 is outside 1 to 1000" && pack?.path == "[0].line_items.data[0].quantity", "\(String(describing: pack))")
    }

    @Test("Stripe's published example objects: each is read, skipped with a warning, or refused with a located error")
    func stripeFixtures() throws {
        try #require(T.sharedFixturesAvailable)
        let url = T.sharedFixtures.appendingPathComponent("stripe/openapi-fixtures3-objects.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var outcomes: [String: String] = [:]
        for (type, object) in root {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            #expect(AppleImport.detect(data) == .imported(.stripe), "\(type)")
            do {
                let imported = try StoreImport.unverifiedReceipt(fromStripe: data, app: "com.ex.multi")
                outcomes[type] =
                    !imported.receipt.revocations.isEmpty
                    ? "kept: \(imported.receipt.revocations.map(\.transactionId).joined(separator: ", "))"
                    : imported.receipt.transactions.isEmpty ? "nothing: \(imported.warnings.map(\.message).joined(separator: "; "))" : "read"
            } catch {
                #expect((error.location?.line ?? 0) >= 1 && (error.location?.column ?? 0) >= 1)
                outcomes[type] = "error: \(error.message)"
            }
        }
        // Stripe's placeholders: a period that ends before it starts, a Session still open, a
        // draft Invoice, a refund of a charge whose Session is not there (kept for it).
        #expect(outcomes["subscription"]?.hasPrefix("error: the current period ends") == true)
        #expect(outcomes["checkout.session"]?.contains("not complete (`open`)") == true)
        #expect(outcomes["invoice"]?.contains("not paid") == true)
        #expect(outcomes["refund"]?.hasPrefix("kept: ") == true, "\(outcomes["refund"] ?? "")")
        #expect(outcomes["customer"]?.contains("holds no purchase") == true)
        #expect(outcomes["charge"]?.hasPrefix("nothing") == true, "an unrefunded Charge alone buys nothing")
        #expect(outcomes.count == root.count)
    }

    // MARK: Play

    /// A record of a SubscriptionPurchaseV2 of `pro:yearly` in `state`, fetched on 15 April 2026.
    static func playRecord(
        _ state: String, token: String = "tok-1", start: String = "2025-04-10T08:00:00Z", expiry: String = "2026-04-10T08:00:00Z", extra: String = ""
    ) -> String {
        """
        { "packageName": "com.ex.multi", "purchaseToken": "\(token)", "eventTimeMillis": "\(T.instant("2026-04-15T00:00:00Z").millisecondsSince1970)",
          "subscriptionPurchase": { "kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": "US", "startTime": "\(start)",
            "subscriptionState": "SUBSCRIPTION_STATE_\(state)", "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
            "externalAccountIdentifiers": { "obfuscatedExternalAccountId": "acct-1" } \(extra),
            "lineItems": [ { "productId": "pro", "expiryTime": "\(expiry)", "autoRenewingPlan": { "autoRenewEnabled": true },
              "offerDetails": { "basePlanId": "yearly" }, "latestSuccessfulOrderId": "GPA.1111-2222-3333-44444..0" } ] } }
        """
    }

    @Test("an active Play subscription: product <productId>:<basePlanId>, the token's chain, the latest order, account and storefront")
    func activePlay() throws {
        let imported = try Self.play(Self.playRecord("ACTIVE", expiry: "2026-04-20T08:00:00Z"))
        #expect(imported.warnings.isEmpty, "\(imported.warnings)")
        let receipt = imported.receipt
        #expect(receipt.app == "com.ex.multi" && receipt.environment == "production")
        let transaction = try #require(receipt.transactions.first)
        #expect(transaction.productId == "pro:yearly" && transaction.originalTransactionId == "tok-1")
        #expect(transaction.transactionId == "GPA.1111-2222-3333-44444..0")
        #expect(transaction.account == "acct-1" && transaction.storefront == "USA" && transaction.acknowledged == nil)
        #expect(transaction.signedDate == T.instant("2026-04-15T00:00:00Z"))
        #expect(transaction.expiresDate == T.instant("2026-04-20T08:00:00Z"))
        let result = Self.evaluate(receipt, at: "2026-04-16T00:00:00Z")
        #expect(result.feature("sync")?.sources == ["play:pro:yearly"])
        #expect(
            result.product("play:pro:yearly")?.manage?.hasPrefix("https://play.google.com/store/account/subscriptions?sku=pro&package=com.ex.multi")
                == true)
        #expect(Self.evaluate(receipt, at: "2026-04-20T08:00:00Z").feature("sync")?.enabled == false)
    }

    @Test("a resource read alone takes its token from the caller; a record may hold it as `purchase`")
    func tokens() throws {
        let bare =
            #"{ "kind": "androidpublisher#subscriptionPurchaseV2", "startTime": "2026-01-01T00:00:00Z", "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "lineItems": [ { "productId": "pro", "expiryTime": "2027-01-01T00:00:00Z", "offerDetails": { "basePlanId": "yearly" } } ] }"#
        let given = try StoreImport.unverifiedReceipt(fromPlay: Data(bare.utf8), app: "com.ex.multi", token: "tok-9").receipt
        #expect(given.transactions[0].originalTransactionId == "tok-9" && given.renewals[0].originalTransactionId == "tok-9")
        // Without a token or an order id there is no chain to name.
        let chainless = Self.failure(bare, .play)
        #expect(chainless?.message == "a subscription with neither its purchase token nor an order id")
        let record = #"{ "packageName": "com.ex.multi", "purchaseToken": "tok-7", "purchase": \#(bare) }"#
        let wrapped = try Self.play(record).receipt
        #expect(wrapped.transactions[0].originalTransactionId == "tok-7" && wrapped.transactions[0].productId == "pro:yearly")
        let recordToken = try StoreImport.unverifiedReceipt(fromPlay: Data(record.utf8), token: "tok-9").receipt
        #expect(recordToken.transactions[0].originalTransactionId == "tok-7", "the record's own token wins")
    }

    @Test("Play's states: grace period, account hold, paused, cancelled, expired, pending, a pending purchase cancelled")
    func playStates() throws {
        let grace = try Self.play(Self.playRecord("IN_GRACE_PERIOD", expiry: "2026-04-24T08:00:00Z")).receipt
        #expect(grace.renewals[0].isInBillingRetry == true && grace.renewals[0].gracePeriodExpiresDate == T.instant("2026-04-24T08:00:00Z"))
        #expect(grace.transactions[0].expiresDate == T.instant("2026-04-15T00:00:00Z"), "paid until the record's time")
        #expect(Self.evaluate(grace, at: "2026-04-24T07:59:59.999Z").product("play:pro:yearly")?.state == .gracePeriod)
        #expect(Self.evaluate(grace, at: "2026-04-24T08:00:00Z").feature("pro")?.enabled == false)

        let hold = try Self.play(Self.playRecord("ON_HOLD")).receipt
        #expect(hold.renewals[0].isInBillingRetry == true)
        #expect(Self.evaluate(hold, at: "2026-04-16T00:00:00Z").product("play:pro:yearly")?.state == .billingRetry)

        let paused = try Self.play(Self.playRecord("PAUSED", extra: #", "pausedStateContext": { "autoResumeTime": "2026-06-10T08:00:00Z" }"#)).receipt
        #expect(paused.renewals[0].pausedUntil == T.instant("2026-06-10T08:00:00Z"))
        let pausedResult = Self.evaluate(paused, at: "2026-05-01T00:00:00Z")
        #expect(pausedResult.product("play:pro:yearly")?.state == .paused && pausedResult.feature("pro")?.enabled == false)

        let canceled = try Self.play(Self.playRecord("CANCELED", expiry: "2026-05-01T00:00:00Z")).receipt
        #expect(canceled.renewals[0].willRenew == false)
        #expect(Self.evaluate(canceled, at: "2026-04-30T00:00:00Z").feature("pro")?.enabled == true)

        let expired = try Self.play(Self.playRecord("EXPIRED")).receipt
        #expect(Self.evaluate(expired, at: "2026-04-16T00:00:00Z").product("play:pro:yearly")?.state == .expired)

        let pendingJSON = Self.playRecord("PENDING").replacingOccurrences(of: #""startTime": "2025-04-10T08:00:00Z","#, with: "")
        let pending = try Self.play(pendingJSON).receipt
        #expect(pending.transactions[0].pending && pending.transactions[0].purchaseDate == T.instant("2026-04-15T00:00:00Z"))
        #expect(Self.evaluate(pending, at: "2026-04-16T00:00:00Z").product("play:pro:yearly")?.state == .pending)

        // Without the record's time, a pending purchase has none: refused, not guessed.
        let undated = Self.failure(
            pendingJSON.replacingOccurrences(of: #""eventTimeMillis": "\#(T.instant("2026-04-15T00:00:00Z").millisecondsSince1970)","#, with: ""),
            .play)
        #expect(undated?.message == "a pending subscription without `startTime` needs the record's `observedAt`")
        let observed = try Self.play(
            pendingJSON.replacingOccurrences(
                of: #""eventTimeMillis": "\#(T.instant("2026-04-15T00:00:00Z").millisecondsSince1970)""#,
                with: #""observedAt": "2026-04-16T00:00:00Z""#)
        ).receipt
        #expect(
            observed.transactions[0].purchaseDate == T.instant("2026-04-16T00:00:00Z")
                && observed.transactions[0].signedDate == T.instant("2026-04-16T00:00:00Z"))

        let dropped = try Self.play(Self.playRecord("PENDING_PURCHASE_CANCELED"))
        #expect(dropped.receipt.transactions.isEmpty && dropped.warnings.contains { $0.message.contains("bought nothing") })
        let strange = try Self.play(Self.playRecord("SUSPENDED"))
        #expect(strange.receipt.transactions.isEmpty && strange.warnings.contains { $0.message.contains("not one entitle knows") })
    }

    @Test("an unacknowledged Play purchase grants for three days; a replaced subscription ends when its replacement starts")
    func acknowledgementAndReplacement() throws {
        let unacknowledged = try Self.play(
            Self.playRecord("ACTIVE", start: "2026-04-14T00:00:00Z", expiry: "2027-04-14T00:00:00Z")
                .replacingOccurrences(of: "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED", with: "ACKNOWLEDGEMENT_STATE_PENDING")
        ).receipt
        #expect(unacknowledged.transactions[0].acknowledged == false)
        let early = Self.evaluate(unacknowledged, at: "2026-04-16T23:59:59.999Z")
        #expect(early.feature("pro")?.enabled == true && early.warnings.contains { $0.code == "unacknowledged" })
        #expect(Self.evaluate(unacknowledged, at: "2026-04-17T00:00:00Z").feature("pro")?.enabled == false)

        let old = Self.playRecord("ACTIVE", token: "tok-old", expiry: "2026-09-01T00:00:00Z")
        let new = Self.playRecord(
            "ACTIVE", token: "tok-new", start: "2026-04-12T00:00:00Z", expiry: "2027-04-12T00:00:00Z", extra: #", "linkedPurchaseToken": "tok-old""#
        )
        .replacingOccurrences(of: "44444..0", with: "55555..0")
        let replaced = try Self.play("[\(new), \(old)]").receipt
        let oldTransaction = try #require(replaced.transactions.first { $0.originalTransactionId == "tok-old" })
        #expect(oldTransaction.expiresDate == T.instant("2026-04-12T00:00:00Z"))
        #expect(replaced.renewals.first { $0.originalTransactionId == "tok-old" }?.willRenew == false)
        #expect(Self.evaluate(replaced, at: "2026-05-01T00:00:00Z").feature("pro")?.sources == ["play:pro:yearly"])
        #expect(replaced.transactions.first { $0.originalTransactionId == "tok-new" }?.linkedPurchaseToken == "tok-old")

        // The same data as separate files, in either order, and added to a history in either
        // order: the old purchase's own record, which still says it runs to September, ends too.
        let alone = try Self.play(old).receipt
        #expect(alone.transactions.first?.expiresDate == T.instant("2026-09-01T00:00:00Z"))
        let linking = try Self.play(new).receipt
        let together = Self.catalog
        for at in ["2026-04-11T23:59:59.999Z", "2026-04-12T00:00:00Z", "2026-05-01T00:00:00Z", "2026-09-01T00:00:00Z"] {
            let instant = T.instant(at)
            let one = together.evaluate([replaced], at: instant)
            let apart = StoresTests.evaluate([alone, linking], at: at, storefront: "USA", catalog: Self.catalog)
            let reversed = together.evaluate([linking, alone], at: instant)
            #expect(apart.json == together.evaluate([alone, linking], at: instant).json)
            #expect(reversed.features == one.features && reversed.products == one.products, "at \(at)")
            #expect(apart.features == one.features && apart.products == one.products, "at \(at)")
        }
        let later = together.evaluate([alone, linking], at: T.instant("2026-05-01T00:00:00Z"))
        #expect(later.product("play:pro:yearly")?.until == T.instant("2027-04-12T00:00:00Z"))
        // explain tells the transactions as evaluation read them: the old one cut at the new start.
        let explained = together.explain([alone, linking], at: T.instant("2026-05-01T00:00:00Z"))
        let cut = explained.product("play:pro:yearly")?.transactions.first { $0.transactionId == alone.transactions[0].transactionId }
        #expect(cut?.covers?.end == T.instant("2026-04-12T00:00:00Z"), "\(String(describing: cut))")
        var forward = CustomerHistory()
        try forward.add(alone)
        try forward.add(linking)
        var backward = CustomerHistory()
        try backward.add(linking)
        try backward.add(alone)
        #expect(forward.json == backward.json)
        let stored = Self.catalog.evaluate(forward.receipts, at: T.instant("2026-05-01T00:00:00Z"))
        #expect(stored.feature("pro")?.sources == ["play:pro:yearly"] && stored.feature("pro")?.until == T.instant("2027-04-12T00:00:00Z"))
        // Only Play receipts say it.
        let stripe =
            #"{"app": "com.ex.multi", "store": "stripe", "transactions": [{"productId": "prod_Pro", "transactionId": "1", "purchaseDate": "2026-01-01T00:00:00Z", "linkedPurchaseToken": "x"}]}"#
        let refused = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(stripe.utf8)) }
        #expect(refused.code == .keyNotAllowed && refused.path == "transactions[0].linkedPurchaseToken", "\(refused)")
    }

    @Test("an installment plan is a commitment, payment k of n; pending cancellation renews until the payments are made")
    func installments() throws {
        func record(remaining: Int, pending: Bool = false) -> String {
            Self.playRecord("ACTIVE", expiry: "2026-05-10T08:00:00Z").replacingOccurrences(
                of: #""autoRenewingPlan": { "autoRenewEnabled": true }"#,
                with: #""autoRenewingPlan": { "autoRenewEnabled": true, "installmentDetails": { "initialCommittedPaymentsCount": 12, "#
                    + #""remainingCommittedPaymentsCount": \#(remaining)\#(pending ? #", "pendingCancellation": {}"# : "") } }"#)
        }
        let third = try Self.play(record(remaining: 9)).receipt
        #expect(
            third.transactions[0].commitment
                == Transaction.Commitment(period: 3, periods: 12, endsAt: T.instant("2027-02-10T08:00:00Z")),
            "the 3rd of 12 payments, 9 months after this one")
        #expect(third.renewals[0].willRenew == true)
        let status = Self.evaluate(third, at: "2026-04-20T00:00:00Z").product("play:pro:yearly")
        #expect(status?.commitment?.periods == 12 && status?.commitment?.period == 3, "\(String(describing: status))")
        #expect(try Self.play(record(remaining: 9, pending: true)).receipt.renewals[0].willRenew == true, "committed: it renews")
        let last = try Self.play(record(remaining: 0, pending: true)).receipt
        #expect(last.renewals[0].willRenew == false && last.transactions[0].commitment?.endsAt == T.instant("2026-05-10T08:00:00Z"))
        for (bad, key) in [(record(remaining: 12), "remainingCommittedPaymentsCount"), (record(remaining: -1), "remainingCommittedPaymentsCount")] {
            let error = Self.failure(bad, .play)
            #expect(error?.path.hasSuffix("installmentDetails.\(key)") == true, "\(String(describing: error))")
        }
    }

    @Test("a deferred replacement is the chain's renewsTo; a resubscription from outside the app ends the expired purchase it names")
    func deferredAndOutOfApp() throws {
        let deferred = try Self.play(
            Self.playRecord("ACTIVE").replacingOccurrences(
                of: #""offerDetails": { "basePlanId": "yearly" }"#,
                with: #""offerDetails": { "basePlanId": "yearly" }, "deferredItemReplacement": { "productId": "pro_plus" }"#))
        #expect(deferred.receipt.renewals[0].renewsTo == "pro_plus:yearly")
        #expect(
            deferred.warnings.map(\.message) == ["a deferred change to `pro_plus` names no base plan: read as `pro_plus:yearly`, the current item's"])
        let resubscribed = try Self.play(
            Self.playRecord(
                "ACTIVE", token: "tok-2", start: "2026-06-01T00:00:00Z", expiry: "2027-06-01T00:00:00Z",
                extra: #", "outOfAppPurchaseContext": { "expiredPurchaseToken": "tok-1" }"#
            )
            .replacingOccurrences(of: "GPA.1111-2222-3333-44444..0", with: "GPA.5555-2222-3333-44444..0"))
        #expect(resubscribed.receipt.transactions[0].linkedPurchaseToken == "tok-1")
        // The old purchase's own record, fetched before it expired, still says it runs to 2026-08; the resubscription ends it.
        let old = try Self.play(Self.playRecord("ACTIVE", expiry: "2026-08-01T00:00:00Z")).receipt
        let result = Self.evaluate(
            Receipt(
                app: "com.ex.multi", transactions: old.transactions + resubscribed.receipt.transactions,
                renewals: old.renewals + resubscribed.receipt.renewals, store: .play), at: "2026-07-01T00:00:00Z")
        #expect(result.product("play:pro:yearly")?.until == T.instant("2027-06-01T00:00:00Z"))
        let apart = StoresTests.evaluate([old, resubscribed.receipt], at: "2026-07-01T00:00:00Z", storefront: "USA", catalog: Self.catalog)
        #expect(apart.product("play:pro:yearly")?.until == T.instant("2027-06-01T00:00:00Z"))
    }

    /// A Pub/Sub push around a DeveloperNotification, as Play delivers it.
    static func push(_ notification: String, messageId: String = "136969346945") -> String {
        let data = Data(notification.utf8).base64EncodedString()
        return #"{ "message": { "attributes": {}, "data": "\#(data)", "messageId": "\#(messageId)" }, "subscription": "projects/p/subscriptions/s" }"#
    }

    @Test("real-time developer notifications, pushed or decoded: their kind, type, messageId and time noted, the purchases to fetch listed")
    func developerNotifications() throws {
        let renewed =
            #"{ "version": "1.0", "packageName": "com.ex.multi", "eventTimeMillis": "1772323200000", "subscriptionNotification": { "version": "1.0", "notificationType": 2, "purchaseToken": "tok-1", "subscriptionId": "pro" } }"#
        let pushed = try Self.play(Self.push(renewed))
        #expect(
            pushed.notifications == [
                NotificationInfo(
                    type: "SUBSCRIPTION_NOTIFICATION", subtype: "SUBSCRIPTION_RENEWED", uuid: "136969346945",
                    signedDate: T.instant("2026-03-01T00:00:00Z"))
            ])
        #expect(pushed.toFetch == [PurchaseToFetch(token: "tok-1", subscription: true, productId: "pro")])
        #expect(pushed.receipt.app == "com.ex.multi" && pushed.receipt.transactions.isEmpty)
        #expect(!pushed.warnings.contains { $0.message == "the data carries no purchase" })
        // Pub/Sub redelivers: a history keeps one notification of one messageId, and says nothing was new.
        var history = CustomerHistory()
        #expect(try history.add(pushed))
        #expect(try !history.add(try Self.play(Self.push(renewed))))
        #expect(try history.add(try Self.play(Self.push(renewed, messageId: "2"))))
        // Each kind.
        let kinds: [(String, String, String?)] = [
            (
                #""oneTimeProductNotification": { "notificationType": 1, "purchaseToken": "tok-c", "sku": "coins_10" }"#,
                "ONE_TIME_PRODUCT_NOTIFICATION", "ONE_TIME_PRODUCT_PURCHASED"
            ),
            (
                #""subscriptionNotification": { "notificationType": 99, "purchaseToken": "tok-1" }"#, "SUBSCRIPTION_NOTIFICATION",
                "SUBSCRIPTION_NOTIFICATION_99"
            ),
            (
                #""voidedPurchaseNotification": { "purchaseToken": "tok-c", "orderId": "GPA.9", "productType": 2, "refundType": 1 }"#,
                "VOIDED_PURCHASE_NOTIFICATION", "REFUND_TYPE_FULL_REFUND"
            ),
            (#""pendingRefundReviewNotification": { "purchaseToken": "tok-c" }"#, "PENDING_REFUND_REVIEW_NOTIFICATION", nil),
            (#""testNotification": { "version": "1.0" }"#, "TEST_NOTIFICATION", nil),
        ]
        for (member, type, subtype) in kinds {
            let imported = try Self.play(
                Self.push(#"{ "version": "1.0", "packageName": "com.ex.multi", "eventTimeMillis": "1772323200000", \#(member) }"#))
            #expect(imported.notifications.map(\.type) == [type] && imported.notifications.first?.subtype == subtype, "\(member)")
        }
        let voided = try Self.play(Self.push(#"{ "packageName": "com.ex.multi", "eventTimeMillis": "1772323200000", \#(kinds[2].0) }"#))
        #expect(
            voided.receipt.revocations == [Revocation(transactionId: "GPA.9", date: T.instant("2026-03-01T00:00:00Z"))], "a void pushed is a fact")
        #expect(voided.toFetch.isEmpty)
        // A record (the notification with the purchase fetched) names nothing to fetch.
        #expect(
            try Self.play(
                Self.playRecord("ACTIVE", extra: "").replacingOccurrences(
                    of: #""subscriptionPurchase""#,
                    with: #""subscriptionNotification": { "notificationType": 2, "purchaseToken": "tok-1" }, "subscriptionPurchase""#)
            ).toFetch.isEmpty)
        // Damaged pushes: located at `data`.
        let bad = Self.failure(#"{ "message": { "data": "%%%", "messageId": "1" } }"#, .play)
        #expect(bad?.message == "a Pub/Sub message's `data` is not base64" && bad?.path == "message.data", "\(String(describing: bad))")
        let notJSON = Self.failure(#"{ "message": { "data": "\#(Data("nope".utf8).base64EncodedString())", "messageId": "1" } }"#, .play)
        #expect(notJSON?.message == "a Pub/Sub message's `data` is not a JSON DeveloperNotification")
        let inner = Self.failure(Self.push(#"{ "packageName": "com.ex.multi", "eventTimeMillis": "-5", "testNotification": {} }"#), .play)
        #expect(inner?.path.hasPrefix("message.data (decoded).eventTimeMillis") == true && inner?.location?.line == 1, "\(String(describing: inner))")
    }

    /// A one-time purchase of three packs of `coins_10`: a v1 ProductPurchase in a record.
    static let coinsRecord = """
        { "packageName": "com.ex.multi", "purchaseToken": "tok-coins", "productId": "coins_10",
          "productPurchase": { "kind": "androidpublisher#productPurchase", "purchaseTimeMillis": "\(T.instant("2026-03-01T00:00:00Z").millisecondsSince1970)",
            "purchaseState": 0, "consumptionState": 1, "orderId": "GPA.9999-0000-1111-22222", "quantity": 3, "acknowledgementState": 1,
            "obfuscatedExternalAccountId": "acct-1", "regionCode": "US" } }
        """

    @Test("one-time purchases, v1 and v2; voided purchases revoke them by quantity at their time; unknown voids are warnings")
    func productsAndVoids() throws {
        let v1 = try Self.play(Self.coinsRecord).receipt
        #expect(
            v1.transactions[0].productId == "coins_10" && v1.transactions[0].quantity == 3
                && v1.transactions[0].transactionId == "GPA.9999-0000-1111-22222")
        #expect(Self.evaluate(v1, at: "2026-03-02T00:00:00Z").balance(of: "coins") == 30)

        let v2 = try Self.play(
            """
            { "kind": "androidpublisher#productPurchaseV2", "orderId": "GPA.1", "purchaseCompletionTime": "2026-03-01T00:00:00.123456789Z",
              "purchaseStateContext": { "purchaseState": "PURCHASED" }, "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
              "testPurchaseContext": { "fopType": "TEST" },
              "productLineItem": [ { "productId": "coins_10", "productOfferDetails": { "quantity": 2, "consumptionState": "CONSUMPTION_STATE_CONSUMED" } } ] }
            """, app: "com.ex.multi"
        ).receipt
        #expect(v2.transactions[0].purchaseDate == T.instant("2026-03-01T00:00:00.123Z") && v2.transactions[0].quantity == 2)
        #expect(v2.environment == "sandbox")

        let voidedAt = T.instant("2026-03-05T00:00:00Z").millisecondsSince1970
        let voids = """
            { "voidedPurchases": [
              { "kind": "androidpublisher#voidedPurchase", "purchaseToken": "tok-coins", "orderId": "GPA.9999-0000-1111-22222",
                "voidedTimeMillis": "\(voidedAt)", "voidedQuantity": 1, "voidedReason": 1, "voidedSource": 0 },
              { "kind": "androidpublisher#voidedPurchase", "purchaseToken": "tok-someone-else", "orderId": "GPA.0", "voidedTimeMillis": "\(voidedAt)" } ] }
            """
        let partly = try Self.play("[\(Self.coinsRecord), \(voids)]")
        #expect(
            partly.receipt.revocations == [
                Revocation(transactionId: "GPA.9999-0000-1111-22222", date: T.instant("2026-03-05T00:00:00Z"), voidedQuantity: 1),
                Revocation(transactionId: "GPA.0", date: T.instant("2026-03-05T00:00:00Z")),
            ])
        let transaction = Self.applied(partly.receipt).transactions.last!
        #expect(transaction.cancellationDate == T.instant("2026-03-05T00:00:00Z") && transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == 33.333)
        #expect(partly.warnings.isEmpty, "\(partly.warnings)")
        #expect(
            Self.evaluate(partly.receipt, at: "2026-03-05T00:00:00Z").warnings.map(\.message) == [
                "a refund or void of `GPA.0` names no purchase of the customer's in Google Play; it is kept and changes nothing until that purchase is read"
            ])
        #expect(Self.evaluate(partly.receipt, at: "2026-03-04T23:59:59.999Z").balance(of: "coins") == 30)
        #expect(Self.evaluate(partly.receipt, at: "2026-03-05T00:00:00Z").balance(of: "coins") == 20)

        // A purchase Play reports cancelled is revoked from its purchase, with a warning, until its void dates it.
        let cancelled = Self.coinsRecord.replacingOccurrences(of: #""purchaseState": 0"#, with: #""purchaseState": 1"#)
        let guessed = try Self.play(cancelled)
        #expect(guessed.receipt.transactions[0].cancellationDate == T.instant("2026-03-01T00:00:00Z"))
        #expect(guessed.warnings.count == 1 && guessed.warnings[0].message.contains("at a time Play does not give here"))
        let dated = try Self.play("[\(voids.replacingOccurrences(of: #""voidedQuantity": 1, "#, with: "")), \(cancelled)]")
        #expect(dated.receipt.transactions[0].cancellationDate == nil, "left to the void to date")
        #expect(Self.applied(dated.receipt).transactions.last?.cancellationDate == T.instant("2026-03-05T00:00:00Z"))
        #expect(Self.applied(dated.receipt).transactions.last?.revocationType == .refundFull)
        #expect(!dated.warnings.contains { $0.message.contains("at a time Play does not give here") })

        // Voids alone are kept for the purchases they name, which may be read later or elsewhere.
        let alone = try Self.play(voids, app: "com.ex.multi")
        #expect(alone.receipt.transactions.isEmpty && alone.receipt.revocations == partly.receipt.revocations)
        #expect(
            Self.catalog.evaluate([Self.applied(v1), alone.receipt], at: T.instant("2026-03-06T00:00:00Z")).json
                == Self.catalog.evaluate([partly.receipt], at: T.instant("2026-03-06T00:00:00Z")).json)
        let tooMany = Self.failure(
            "[\(Self.coinsRecord), \(voids.replacingOccurrences(of: #""voidedQuantity": 1"#, with: #""voidedQuantity": 4"#))]", .play)
        #expect(tooMany?.message == "voids 4 of purchase `GPA.9999-0000-1111-22222`, which bought 3")
        #expect(tooMany?.path == "[1].voidedPurchases[0].voidedQuantity", "\(String(describing: tooMany))")
    }

    @Test("what Play data is refused, located: another package, several packages, no package, bad times, a notification naming no token")
    func playRefusals() throws {
        let other = Self.failure(Self.playRecord("ACTIVE"), .play, app: "com.ex.other")
        #expect(other?.message == "the data is for app `com.ex.multi`, not `com.ex.other`")
        let two = Self.failure(
            "[\(Self.playRecord("ACTIVE")), \(Self.playRecord("ACTIVE").replacingOccurrences(of: "com.ex.multi", with: "com.ex.two"))]", .play)
        #expect(two?.message == "the data is for several apps: `com.ex.multi` and `com.ex.two`")
        let bare =
            #"{ "kind": "androidpublisher#productPurchase", "productId": "coins_10", "orderId": "GPA.1", "purchaseState": 0, "purchaseTimeMillis": "1772323200000" }"#
        let nameless = Self.failure(bare, .play, app: nil)
        #expect(nameless?.message == "the data names no app (no `packageName`)")
        #expect(try Self.play(bare, app: "com.ex.multi").receipt.app == "com.ex.multi")
        let badTime = Self.failure(Self.playRecord("ACTIVE", expiry: "2026-13-01T00:00:00Z"), .play)
        #expect(badTime?.message == "`expiryTime` is not an RFC 3339 time within years 0001-9999")
        #expect(badTime?.path == "subscriptionPurchase.lineItems[0].expiryTime")
        let noBasePlan = Self.failure(Self.playRecord("ACTIVE").replacingOccurrences(of: #""basePlanId": "yearly""#, with: #""offerId": "x""#), .play)
        #expect(noBasePlan?.message == "a line item without `offerDetails.basePlanId`")
        // A notification alone is read: it names the purchase to fetch (see `developerNotifications`).
        let notification = try Self.play(
            #"{ "version": "1.0", "packageName": "com.ex.multi", "eventTimeMillis": "1772323200000", "subscriptionNotification": { "version": "1.0", "notificationType": 4, "purchaseToken": "t", "subscriptionId": "pro" }, "kind": "androidpublisher#subscriptionPurchaseV2" }"#
        )
        #expect(notification.toFetch == [PurchaseToFetch(token: "t", subscription: true, productId: "pro")])
        let tokenless = Self.failure(
            #"{ "packageName": "com.ex.multi", "eventTimeMillis": "1772323200000", "oneTimeProductNotification": { "notificationType": 1, "sku": "coins_10" } }"#,
            .play)
        #expect(tokenless?.message == "a oneTimeProductNotification without its `purchaseToken`", "\(String(describing: tokenless))")
        let negative = Self.failure(
            Self.coinsRecord.replacingOccurrences(of: "\(T.instant("2026-03-01T00:00:00Z").millisecondsSince1970)", with: "-1"), .play)
        #expect(negative?.message == "`purchaseTimeMillis` -1 is negative" && negative?.path == "productPurchase.purchaseTimeMillis")
        let quantity = Self.failure(Self.coinsRecord.replacingOccurrences(of: #""quantity": 3"#, with: #""quantity": 99999999999"#), .play)
        #expect(quantity?.message == "a quantity must be a whole number from 1 to 1000000")
        let region = try Self.play(Self.playRecord("ACTIVE").replacingOccurrences(of: #""regionCode": "US""#, with: #""regionCode": "XX""#))
        #expect(region.receipt.transactions[0].storefront == nil && region.warnings.contains { $0.message.contains("not an ISO 3166-1 region") })
    }

    @Test("the Play test data uses only field names Google's schemas define")
    func playFieldNames() throws {
        try #require(T.sharedFixturesAvailable)
        let url = T.sharedFixtures.appendingPathComponent("play/androidpublisher-v3-schemas.json")
        let schemas = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: [String: Any]])
        func properties(_ name: String) -> Set<String> {
            Set(((schemas[name]?["properties"] as? [String: Any]) ?? [:]).keys)
        }
        func keys(_ json: String, _ path: [String]) throws -> Set<String> {
            var value: Any? = try JSONSerialization.jsonObject(with: Data(json.utf8))
            for key in path {
                if let index = Int(key) { value = (value as? [Any])?[index] } else { value = (value as? [String: Any])?[key] }
            }
            return Set(((value as? [String: Any]) ?? [:]).keys)
        }
        let record = Self.playRecord(
            "PAUSED", extra: #", "pausedStateContext": { "autoResumeTime": "2026-06-10T08:00:00Z" }, "linkedPurchaseToken": "t""#)
        #expect(try keys(record, ["subscriptionPurchase"]).isSubset(of: properties("SubscriptionPurchaseV2")))
        #expect(try keys(record, ["subscriptionPurchase", "lineItems", "0"]).isSubset(of: properties("SubscriptionPurchaseLineItem")))
        #expect(try keys(record, ["subscriptionPurchase", "lineItems", "0", "offerDetails"]).isSubset(of: properties("OfferDetails")))
        #expect(try keys(Self.coinsRecord, ["productPurchase"]).isSubset(of: properties("ProductPurchase")))
        #expect(
            Set(["purchaseToken", "orderId", "voidedTimeMillis", "voidedQuantity", "voidedReason", "voidedSource", "kind"]).isSubset(
                of: properties("VoidedPurchase")))
        let example = try String(contentsOf: URL(fileURLWithPath: T.productsDirectory + "/store-data/play-record.json"), encoding: .utf8)
        #expect(try keys(example, ["purchase"]).isSubset(of: properties("SubscriptionPurchaseV2")))
        #expect(try keys(example, ["purchase", "lineItems", "0"]).isSubset(of: properties("SubscriptionPurchaseLineItem")))
    }
}
