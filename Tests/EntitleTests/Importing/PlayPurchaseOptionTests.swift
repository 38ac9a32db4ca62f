import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// Play's 2025-26 shapes: one-time products sold through purchase options (buy, rent,
/// pre-order) and prepaid base plans that are topped up, read from Play's resources and evaluated
/// at the boundaries (each checked against the reference evaluator, in any order).
@Suite("Play purchase options, rentals, pre-orders and prepaid plans")
struct PlayPurchaseOptionTests {
    static let catalog = T.catalog(
        """
        { "app": "com.ex.games", "features": { "play": "Play", "watch": "Watch", "sequel": "Sequel", "pro": "Pro" },
          "legal": { "non-renewing-subscription": "Does not renew." },
          "products": [
            { "id": "game:buy", "store": "play", "type": "non-consumable", "name": "Game", "grants": ["play"] },
            { "id": "movie", "store": "play", "type": "non-consumable", "name": "Movie, bought", "grants": ["watch"] },
            { "id": "movie:rent", "store": "play", "type": "non-renewing-subscription", "name": "Movie, 48-hour rental",
              "duration": "PT48H", "grants": ["watch"] },
            { "id": "sequel", "store": "play", "type": "non-consumable", "name": "Sequel", "grants": ["sequel"] },
            { "id": "pro:prepaid", "store": "play", "type": "non-renewing-subscription", "name": "Pro, 30 days prepaid",
              "duration": "P30D", "grants": ["pro"] }
          ] }
        """)

    static func evaluate(_ receipts: [Receipt], at text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Entitlements {
        StoresTests.evaluate(receipts, at: text, catalog: catalog, sourceLocation: sourceLocation)
    }

    static func play(_ json: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> Receipt {
        let imported = try StoreImport.unverifiedReceipt(fromPlay: Data(json.utf8), app: nil)
        #expect(imported.warnings.isEmpty, "\(imported.warnings)", sourceLocation: sourceLocation)
        return imported.receipt
    }

    /// A record of a ProductPurchaseV2 of `product` completed at `time`, with `details` in its
    /// line item's `productOfferDetails`.
    static func oneTime(
        _ product: String, order: String, time: String? = "2026-05-01T10:00:00Z", details: String, state: String = "PURCHASED"
    ) -> String {
        """
        { "packageName": "com.ex.games", "purchaseToken": "tok-\(order)", "observedAt": "2026-05-01T10:00:00Z",
          "productPurchase": { "kind": "androidpublisher#productPurchaseV2", "orderId": "\(order)",
            \(time.map { #""purchaseCompletionTime": "\#($0)","# } ?? "")
            "purchaseStateContext": { "purchaseState": "\(state)" }, "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
            "productLineItem": [ { "productId": "\(product)", "productOfferDetails": { "quantity": 1, \(details) } } ] } }
        """
    }

    @Test("a purchase option counts for the catalog's `<productId>:<option>` when declared, else for `<productId>`; a rental is a pass")
    func purchaseOptions() throws {
        let game = try Self.play(Self.oneTime("game", order: "GPA.1", details: #""purchaseOptionId": "buy", "offerId": "launch""#))
        #expect(game.transactions[0].productId == "game" && game.transactions[0].purchaseOptionId == "buy")
        #expect(game.transactions[0].offerId == "launch")
        let owned = Self.evaluate([game], at: "2026-05-02T00:00:00Z")
        #expect(owned.feature("play")?.sources == ["play:game:buy"] && owned.product("play:game:buy")?.state == .active)
        #expect(owned.offer(for: "play:game:buy")?.reason == .owned)

        let bought = try Self.play(Self.oneTime("movie", order: "GPA.2", details: #""purchaseOptionId": "buy""#))
        #expect(Self.evaluate([bought], at: "2026-05-02T00:00:00Z").feature("watch")?.sources == ["play:movie"], "an undeclared option: the product")

        let rented = try Self.play(Self.oneTime("movie", order: "GPA.3", details: #""purchaseOptionId": "rent""#))
        let renting = Self.evaluate([rented], at: "2026-05-03T09:59:59.999Z")
        #expect(renting.feature("watch")?.sources == ["play:movie:rent"])
        #expect(renting.product("play:movie:rent")?.until == T.instant("2026-05-03T10:00:00Z"))
        #expect(renting.reevaluateAt == T.instant("2026-05-03T10:00:00Z"))
        #expect(renting.product("play:movie")?.state == .notPurchased)
        #expect(Self.evaluate([rented], at: "2026-05-03T10:00:00Z").feature("watch")?.enabled == false, "48 hours, to the millisecond")
        // Renting twice stacks, as passes do.
        let again = try Self.play(Self.oneTime("movie", order: "GPA.4", time: "2026-05-02T10:00:00Z", details: #""purchaseOptionId": "rent""#))
        #expect(Self.evaluate([rented, again], at: "2026-05-04T00:00:00Z").product("play:movie:rent")?.until == T.instant("2026-05-05T10:00:00Z"))

        // An option of a product the catalog has under neither name: the product id is the one warned about.
        let unknown = try Self.play(Self.oneTime("album", order: "GPA.5", details: #""purchaseOptionId": "buy""#))
        #expect(Self.evaluate([unknown], at: "2026-05-02T00:00:00Z").warnings.map(\.message).first?.contains("`play:album`") == true)
    }

    @Test("a pre-order counts for nothing until its release: `preordered`, offered as owned, next change the release; then it is bought")
    func preorders() throws {
        let json = Self.oneTime(
            "sequel", order: "GPA.7", time: nil,
            details: #""purchaseOptionId": "preorder", "preorderOfferDetails": { "preorderReleaseTime": "2026-06-01T00:00:00Z" }"#)
        let receipt = try Self.play(json)
        let transaction = receipt.transactions[0]
        #expect(transaction.purchaseDate == T.instant("2026-05-01T10:00:00Z"), "not completed yet: dated by the record")
        #expect(transaction.releaseDate == T.instant("2026-06-01T00:00:00Z"))

        let before = Self.evaluate([receipt], at: "2026-05-31T23:59:59.999Z")
        let status = try #require(before.product("play:sequel"))
        #expect(status.state == .preordered && status.startsAt == T.instant("2026-06-01T00:00:00Z") && status.until == nil)
        #expect(before.feature("sequel")?.enabled == false)
        #expect(before.offer(for: "play:sequel")?.reason == .owned)
        #expect(before.reevaluateAt == T.instant("2026-06-01T00:00:00Z"))
        let explained = Self.catalog.explain([receipt], at: T.instant("2026-05-15T00:00:00Z"))
        #expect(
            explained.product("play:sequel")?.reason
                == "pre-ordered: released 2026-06-01T00:00:00Z; it grants nothing until then, and is not offered again")
        #expect(explained.product("play:sequel")?.transactions.first?.exclusion == .preordered)
        #expect(explained.offer("play:sequel")?.because.contains("pre-ordered: it is the customer's from its release, 2026-06-01T00:00:00Z") == true)

        let released = Self.evaluate([receipt], at: "2026-06-01T00:00:00Z")
        #expect(released.feature("sequel")?.enabled == true && released.product("play:sequel")?.state == .active)
        #expect(released.reevaluateAt == nil)

        // Before the pre-order was placed there is nothing; cancelled before its release it bought nothing.
        #expect(Self.evaluate([receipt], at: "2026-05-01T09:59:59.999Z").product("play:sequel")?.state == .notPurchased)
        var cancelled = receipt
        cancelled.transactions[0].cancellationDate = T.instant("2026-05-10T00:00:00Z")
        for at in ["2026-05-20T00:00:00Z", "2026-06-02T00:00:00Z"] {
            let result = Self.evaluate([cancelled], at: at)
            #expect(result.product("play:sequel")?.state != .preordered && result.feature("sequel")?.enabled == false, "at \(at)")
            #expect(result.offer(for: "play:sequel")?.eligible == true, "at \(at)")
        }
        // Bought outright as well, it is active: owning covers the pre-order.
        let outright = try Self.play(Self.oneTime("sequel", order: "GPA.8", details: #""purchaseOptionId": "buy""#))
        #expect(Self.evaluate([receipt, outright], at: "2026-05-15T00:00:00Z").product("play:sequel")?.state == .active)
    }

    /// A record of a prepaid SubscriptionPurchaseV2 of `pro:prepaid` from `start` to `expiry`,
    /// which may be topped up after `topUp`.
    static func prepaid(token: String, order: String, start: String, expiry: String, topUp: String, linked: String? = nil) -> String {
        """
        { "packageName": "com.ex.games", "purchaseToken": "\(token)", "observedAt": "\(start)",
          "subscriptionPurchase": { "kind": "androidpublisher#subscriptionPurchaseV2", "startTime": "\(start)",
            "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
            \(linked.map { #", "linkedPurchaseToken": "\#($0)""# } ?? ""),
            "lineItems": [ { "productId": "pro", "expiryTime": "\(expiry)", "prepaidPlan": { "allowExtendAfterTime": "\(topUp)" },
              "offerDetails": { "basePlanId": "prepaid" }, "latestSuccessfulOrderId": "\(order)" } ] } }
        """
    }

    @Test("a prepaid plan does not renew; it is `subscribed` until its top-up instant, then offered; a top-up stacks after it")
    func prepaidPlans() throws {
        let first = try Self.play(
            Self.prepaid(
                token: "tok-p1", order: "GPA.p1", start: "2026-05-01T00:00:00Z", expiry: "2026-05-31T00:00:00Z", topUp: "2026-05-24T00:00:00Z"))
        #expect(first.transactions[0].productId == "pro:prepaid" && first.transactions[0].topUpAfter == T.instant("2026-05-24T00:00:00Z"))
        #expect(first.renewals[0].willRenew == false)
        let early = Self.evaluate([first], at: "2026-05-23T23:59:59.999Z")
        #expect(early.feature("pro")?.enabled == true && early.product("play:pro:prepaid")?.until == T.instant("2026-05-31T00:00:00Z"))
        #expect(early.offer(for: "play:pro:prepaid")?.reason == .subscribed)
        #expect(early.reevaluateAt == T.instant("2026-05-24T00:00:00Z"))
        let because = Self.catalog.explain([first], at: T.instant("2026-05-10T00:00:00Z")).offer("play:pro:prepaid")?.because
        #expect(
            because == "a prepaid plan held until 2026-05-31T00:00:00Z; Google Play allows a top-up only after 2026-05-24T00:00:00Z",
            "\(String(describing: because))")
        let open = Self.evaluate([first], at: "2026-05-24T00:00:00Z")
        #expect(open.offer(for: "play:pro:prepaid")?.eligible == true && open.offer(for: "play:pro:prepaid")?.extends == ["pro"])

        // The top-up, a new token linking the first, stacks after it: the first keeps its time.
        let topUp = try Self.play(
            Self.prepaid(
                token: "tok-p2", order: "GPA.p2", start: "2026-05-25T00:00:00Z", expiry: "2026-06-30T00:00:00Z", topUp: "2026-06-23T00:00:00Z",
                linked: "tok-p1"))
        #expect(topUp.transactions[0].linkedPurchaseToken == nil, "a top-up replaces nothing")
        for receipts in [[first, topUp], [Receipt(app: "com.ex.games", transactions: first.transactions + topUp.transactions, store: .play)]] {
            let stacked = Self.evaluate(receipts, at: "2026-05-26T00:00:00Z")
            #expect(stacked.product("play:pro:prepaid")?.until == T.instant("2026-06-30T00:00:00Z"))
            #expect(stacked.offer(for: "play:pro:prepaid")?.reason == .subscribed)
            #expect(Self.evaluate(receipts, at: "2026-06-29T23:59:59.999Z").feature("pro")?.enabled == true)
            #expect(Self.evaluate(receipts, at: "2026-06-30T00:00:00Z").feature("pro")?.enabled == false)
        }
    }

    @Test("the new fields: Play's alone refuse the App Store; each reads back through JSON and a customer history")
    func fieldsReadBack() throws {
        for (key, value) in [("purchaseOptionId", #""buy""#), ("topUpAfter", #""2026-05-24T00:00:00Z""#)] {
            let json =
                #"{ "app": "com.ex.games", "transactions": [ { "productId": "game", "transactionId": "1", "purchaseDate": "2026-05-01T00:00:00Z", "\#(key)": \#(value) } ] }"#
            let refused = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(json.utf8)) }
            #expect(refused.code == .keyNotAllowed && refused.path == "transactions[0].\(key)", "\(refused)")
            #expect(refused.message == "`\(key)` is for Play receipts, not `app-store` ones")
        }
        let appStorePreorder =
            #"{ "app": "com.ex.games", "transactions": [ { "productId": "game", "transactionId": "1", "purchaseDate": "2026-05-01T00:00:00Z", "releaseDate": "2026-06-01T00:00:00Z" } ] }"#
        #expect(try ReceiptDecoder.decode(Data(appStorePreorder.utf8)).transactions[0].releaseDate == T.instant("2026-06-01T00:00:00Z"))

        let receipt = Receipt(
            app: "com.ex.games",
            transactions: [
                Transaction(
                    productId: "sequel", transactionId: "GPA.7", purchaseDate: T.instant("2026-05-01T10:00:00Z"), purchaseOptionId: "preorder",
                    releaseDate: T.instant("2026-06-01T00:00:00Z")),
                Transaction(
                    productId: "pro:prepaid", transactionId: "GPA.p1", originalTransactionId: "tok-p1",
                    purchaseDate: T.instant("2026-05-01T00:00:00Z"),
                    expiresDate: T.instant("2026-05-31T00:00:00Z"), topUpAfter: T.instant("2026-05-24T00:00:00Z")),
            ], store: .play)
        let again = try ReceiptDecoder.decode(Data(receipt.json.utf8))
        #expect(again == receipt)
        #expect(ParsedReceipt(receipt).receipt == receipt, "through the arena and back")
        var history = CustomerHistory()
        try history.add(receipt)
        let stored = try JSONDecoder().decode(CustomerHistory.self, from: Data(history.json.utf8))
        #expect(stored == history)
        #expect(
            Self.catalog.evaluate(stored.receipts, at: T.instant("2026-05-20T00:00:00Z")).json
                == Self.catalog.evaluate([receipt], at: T.instant("2026-05-20T00:00:00Z")).json)
        // A later copy moving the release is a conflicting copy of the transaction, not the same one read again.
        var moved = receipt
        moved.transactions[0].releaseDate = T.instant("2026-07-01T00:00:00Z")
        #expect(try history.add(moved))
        #expect(
            Self.catalog.evaluate(history.receipts, at: T.instant("2026-05-20T00:00:00Z")).warnings.map(\.code).contains("conflicting-transaction"))
    }
}
