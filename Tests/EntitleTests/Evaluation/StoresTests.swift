import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// One customer, every store: products of the App Store, Google Play, Stripe and a service's own
/// checkout in one catalog, and receipts of each in one answer, each rule at its boundary
/// instants, against the reference evaluator and whatever the order of receipts and entries.
@Suite("Stores")
struct StoresTests {
    static let catalogJSON = """
        { "app": "com.ex.multi", "features": { "pro": "Pro", "sync": "Sync" }, "currencies": { "coins": "Coins" },
          "legal": { "auto-renewable-subscription": "Renews." },
          "stores": { "stripe": { "manage": "https://billing.example.com/portal" } },
          "products": [
            { "id": "pro.monthly", "type": "auto-renewable-subscription", "name": "Pro monthly", "group": "pro", "duration": "P1M",
              "grants": ["pro"] },
            { "id": "prod_Pro", "store": "stripe", "type": "auto-renewable-subscription", "name": "Pro yearly (web)", "group": "web",
              "duration": "P1Y", "gracePeriod": "P3D", "storefronts": ["USA"], "grants": ["pro"] },
            { "id": "pro:yearly", "store": "play", "type": "auto-renewable-subscription", "name": "Pro yearly (Play)", "group": "play",
              "duration": "P1Y", "grants": ["pro", "sync"] },
            { "id": "coins_10", "store": "play", "type": "consumable", "name": "10 coins", "credits": { "coins": 10 } },
            { "id": "lifetime", "store": "external", "type": "non-consumable", "name": "Pro forever", "grants": ["pro"] }
          ] }
        """
    static let catalog = T.catalog(catalogJSON)

    /// The answer, checked against the reference evaluator and the receipts in reverse order.
    static func evaluate(
        _ receipts: [Receipt], at text: String, accounts: [String] = [], storefront: String? = nil, catalog: CompiledCatalog = catalog,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> Entitlements {
        checkedEvaluation(catalog, receipts, at: text, accounts: accounts, storefront: storefront, sourceLocation: sourceLocation)
    }

    static func subscription(_ id: String, _ transaction: String, from: String, to: String) -> Transaction {
        Transaction(
            productId: id, transactionId: transaction, originalTransactionId: transaction, purchaseDate: T.instant(from),
            expiresDate: T.instant(to))
    }

    /// Bought Pro yearly on the web on 1 March 2026.
    static let web = Receipt(
        app: "com.ex.multi", transactions: [subscription("prod_Pro", "sub_1:1772323200", from: "2026-03-01T00:00:00Z", to: "2027-03-01T00:00:00Z")],
        store: .stripe)

    @Test("a web subscriber opening the iOS app: Pro is on from Stripe, and the App Store plan is not sold to them")
    func webSubscriber() {
        let result = Self.evaluate([Self.web], at: "2026-06-01T00:00:00Z", storefront: "USA")
        #expect(result.feature("pro")?.sources == ["stripe:prod_Pro"])
        #expect(result.feature("pro")?.until == T.instant("2027-03-01T00:00:00Z"))
        let web = result.product("stripe:prod_Pro")
        #expect(web?.state == .active && web?.store == .stripe)
        #expect(web?.manage == "https://billing.example.com/portal")
        #expect(result.offer(for: "pro.monthly")?.reason == .subscribedElsewhere)
        #expect(result.offer(for: "stripe:prod_Pro")?.reason == .subscribed)
        // Play's plan grants `sync` too: more than the web plan, so it may be sold.
        #expect(result.offer(for: "play:pro:yearly")?.eligible == true)
        #expect(result.offers(in: .appStore).map(\.productId) == ["pro.monthly"])
        #expect(result.json.contains(#""stripe:prod_Pro": {\#n      "store": "stripe","#))
        // Before the purchase, the App Store plan is offered.
        #expect(Self.evaluate([Self.web], at: "2026-02-28T23:59:59.999Z", storefront: "USA").offer(for: "pro.monthly")?.eligible == true)
    }

    @Test("a product with storefronts is offered there only, and nowhere when the storefront is unknown")
    func storefronts() {
        #expect(Self.evaluate([], at: "2026-06-01T00:00:00Z").offer(for: "stripe:prod_Pro")?.reason == .notInStorefront)
        #expect(Self.evaluate([], at: "2026-06-01T00:00:00Z", storefront: "DEU").offer(for: "stripe:prod_Pro")?.reason == .notInStorefront)
        #expect(Self.evaluate([], at: "2026-06-01T00:00:00Z", storefront: "us").offer(for: "stripe:prod_Pro")?.eligible == true)
        #expect(Self.evaluate([], at: "2026-06-01T00:00:00Z", storefront: "USA").offer(for: "stripe:prod_Pro")?.eligible == true)
        #expect(Self.evaluate([], at: "2026-06-01T00:00:00Z").offer(for: "pro.monthly")?.eligible == true)
    }

    @Test("a Play purchase pending payment grants nothing, is `pending`, and is offered as if not bought; paid, it counts")
    func pending() {
        var pending = Self.subscription("pro:yearly", "GPA.1", from: "2026-03-01T00:00:00Z", to: "2027-03-01T00:00:00Z")
        pending.pending = true
        var paid = pending
        paid.pending = false
        paid.signedDate = T.instant("2026-03-02T00:00:00Z")
        let receipts = [Receipt(app: "com.ex.multi", transactions: [pending, paid], store: .play)]
        let waiting = Self.evaluate(receipts, at: "2026-03-01T12:00:00Z")
        #expect(waiting.product("play:pro:yearly")?.state == .pending)
        #expect(waiting.isEnabled("pro") == false)
        #expect(waiting.offer(for: "play:pro:yearly")?.eligible == true)
        #expect(waiting.offer(for: "pro.monthly")?.eligible == true)
        #expect(waiting.reevaluateAt == T.instant("2026-03-02T00:00:00Z"))
        let now = Self.evaluate(receipts, at: "2026-03-02T00:00:00Z")
        #expect(now.product("play:pro:yearly")?.state == .active)
        #expect(now.offer(for: "pro.monthly")?.reason == .subscribedElsewhere)
        // A pending consumable credits nothing.
        var coins = Transaction(productId: "coins_10", transactionId: "GPA.2", purchaseDate: T.instant("2026-03-01T00:00:00Z"))
        coins.pending = true
        #expect(
            Self.evaluate([Receipt(app: "com.ex.multi", transactions: [coins], store: .play)], at: "2026-03-05T00:00:00Z").balance(of: "coins") == 0)
    }

    @Test("a Play purchase not acknowledged grants until three days after its purchase, with a warning, then counts as refunded")
    func unacknowledged() {
        var purchase = Self.subscription("pro:yearly", "GPA.3", from: "2026-03-01T10:00:00Z", to: "2027-03-01T10:00:00Z")
        purchase.acknowledged = false
        let receipts = [Receipt(app: "com.ex.multi", transactions: [purchase], store: .play)]
        let before = Self.evaluate(receipts, at: "2026-03-04T09:59:59.999Z")
        #expect(before.feature("pro")?.until == T.instant("2026-03-04T10:00:00Z"))
        #expect(before.warnings.map(\.code) == ["unacknowledged"])
        #expect(before.reevaluateAt == T.instant("2026-03-04T10:00:00Z"))
        let after = Self.evaluate(receipts, at: "2026-03-04T10:00:00Z")
        #expect(after.isEnabled("pro") == false)
        #expect(after.product("play:pro:yearly")?.state == .revoked)
        #expect(after.warnings.map(\.code) == ["unacknowledged"])
        // Acknowledged (the default), it runs its year.
        purchase.acknowledged = nil
        #expect(Self.evaluate([Receipt(app: "com.ex.multi", transactions: [purchase], store: .play)], at: "2026-03-05T00:00:00Z").isEnabled("pro"))
    }

    @Test("a paused Play subscription: no access until it resumes, still subscribed (the App Store plan is not sold), then as without the pause")
    func paused() {
        let purchase = Self.subscription("pro:yearly", "GPA.4", from: "2025-03-01T00:00:00Z", to: "2026-03-01T00:00:00Z")
        let renewal = Renewal(
            productId: "pro:yearly", originalTransactionId: "GPA.4", willRenew: true, pausedUntil: T.instant("2026-05-01T00:00:00Z"))
        let receipts = [Receipt(app: "com.ex.multi", transactions: [purchase], renewals: [renewal], store: .play)]
        let during = Self.evaluate(receipts, at: "2026-04-01T00:00:00Z")
        #expect(during.product("play:pro:yearly")?.state == .paused)
        #expect(during.isEnabled("pro") == false)
        #expect(during.offer(for: "pro.monthly")?.reason == .subscribedElsewhere)
        #expect(during.reevaluateAt == T.instant("2026-05-01T00:00:00Z"))
        let after = Self.evaluate(receipts, at: "2026-05-01T00:00:00Z")
        #expect(after.product("play:pro:yearly")?.state == .expired)
        #expect(after.offer(for: "pro.monthly")?.eligible == true)
        #expect(after.product("play:pro:yearly")?.manage == "https://play.google.com/store/account/subscriptions?sku=pro&package=com.ex.multi")
    }

    @Test("a Stripe subscription past due keeps access for the catalog's grace period, then is in billing retry")
    func webGracePeriod() {
        let period = Self.subscription("prod_Pro", "sub_2:1", from: "2025-06-01T00:00:00Z", to: "2026-06-01T00:00:00Z")
        let retry = Renewal(productId: "prod_Pro", originalTransactionId: "sub_2:1", willRenew: true, isInBillingRetry: true)
        let receipts = [Receipt(app: "com.ex.multi", transactions: [period], renewals: [retry], store: .stripe)]
        let grace = Self.evaluate(receipts, at: "2026-06-03T23:59:59.999Z", storefront: "USA")
        #expect(grace.product("stripe:prod_Pro")?.state == .gracePeriod)
        #expect(grace.feature("pro")?.until == T.instant("2026-06-04T00:00:00Z"))
        let retrying = Self.evaluate(receipts, at: "2026-06-04T00:00:00Z", storefront: "USA")
        #expect(retrying.product("stripe:prod_Pro")?.state == .billingRetry)
        #expect(retrying.isEnabled("pro") == false)
        // Still subscribed elsewhere: the App Store plan is not sold.
        #expect(retrying.offer(for: "pro.monthly")?.reason == .subscribedElsewhere)
    }

    @Test("an App Store subscriber in billing retry who pays on Play is subscribed-elsewhere for the App Store plan, not billing-issue")
    func retryHerePaidElsewhere() {
        let apple = Self.subscription("pro.monthly", "100", from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z")
        let retry = Renewal(productId: "pro.monthly", originalTransactionId: "100", willRenew: true, isInBillingRetry: true)
        let play = Self.subscription("pro:yearly", "GPA.7", from: "2026-02-10T00:00:00Z", to: "2027-02-10T00:00:00Z")
        let receipts = [
            Receipt(app: "com.ex.multi", transactions: [apple], renewals: [retry]),
            Receipt(app: "com.ex.multi", transactions: [play], store: .play),
        ]
        let before = Self.evaluate(receipts, at: "2026-02-09T23:59:59.999Z")
        #expect(before.product("pro.monthly")?.state == .billingRetry)
        #expect(before.offer(for: "pro.monthly")?.reason == .billingIssue)
        let paying = Self.evaluate(receipts, at: "2026-02-10T00:00:00Z")
        #expect(paying.product("pro.monthly")?.state == .billingRetry)
        #expect(paying.offer(for: "pro.monthly")?.reason == .subscribedElsewhere)
        #expect(paying.offer(for: "pro.monthly")?.introOfferEligible == nil || paying.offer(for: "pro.monthly")?.introOfferEligible == false)
        let lapsed = Self.evaluate(receipts, at: "2027-02-10T00:00:00Z")
        #expect(lapsed.offer(for: "pro.monthly")?.reason == .billingIssue, "Play's plan lapsed: the App Store retry is the reason again")
    }

    @Test("billing retry on Play: the offer's fact names Google Play, and its intro offer is kept by the retry, not used")
    func playRetryWording() throws {
        let catalog = T.catalog(
            """
            { "app": "com.ex.play", "features": { "pro": "Pro" }, "legal": { "auto-renewable-subscription": "Renews." },
              "products": [
                { "id": "pro:monthly", "store": "play", "type": "auto-renewable-subscription", "name": "Pro monthly", "group": "pro",
                  "duration": "P1M", "introOffer": { "mode": "free-trial", "duration": "P1W" }, "grants": ["pro"] },
                { "id": "pro:yearly", "store": "play", "type": "auto-renewable-subscription", "name": "Pro yearly", "group": "pro",
                  "duration": "P1Y", "introOffer": { "mode": "free-trial", "duration": "P1W" }, "grants": ["pro"] } ] }
            """)
        let bought = Self.subscription("pro:monthly", "GPA.1", from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z")
        let retry = Renewal(productId: "pro:monthly", originalTransactionId: "GPA.1", willRenew: true, isInBillingRetry: true)
        let receipts = [Receipt(app: "com.ex.play", transactions: [bought], renewals: [retry], store: .play)]
        let result = Self.evaluate(receipts, at: "2026-02-05T00:00:00Z", catalog: catalog)
        let offer = try #require(result.offer(for: "play:pro:yearly"))
        #expect(offer.reason == .billingIssue && offer.introOfferEligible == false)
        #expect(result.text.contains("play:pro:yearly   do not offer (billing-issue), no intro offer while billing is retried"), "\(result.text)")
        #expect(!result.text.contains("intro offer used"))
        let explanation = catalog.explain(receipts, at: T.instant("2026-02-05T00:00:00Z"))
        let text = try #require(explanation.text(offer: "play:pro:yearly"))
        #expect(text.contains("play:pro:monthly is in billing retry: Google Play still counts the customer as subscribed"), "\(text)")
        #expect(!text.contains("App Store") && !text.contains("intro offer used"), "\(text)")
    }

    @Test("another store's account compares exactly; a UUID matches an App Store token without case; the same id in two stores is two transactions")
    func accountsAndIds() {
        var play = Self.subscription("pro:yearly", "1", from: "2026-01-01T00:00:00Z", to: "2027-01-01T00:00:00Z")
        play.account = "user-42"
        var apple = Self.subscription("pro.monthly", "1", from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z")
        apple.appAccountToken = "5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47"
        let receipts = [
            Receipt(app: "com.ex.multi", transactions: [play], store: .play), Receipt(app: "com.ex.multi", transactions: [apple]),
        ]
        let both = Self.evaluate(receipts, at: "2026-01-15T00:00:00Z")
        #expect(both.feature("pro")?.sources == ["play:pro:yearly", "pro.monthly"])
        let user = Self.evaluate(receipts, at: "2026-01-15T00:00:00Z", accounts: ["user-42"])
        #expect(user.feature("pro")?.sources == ["play:pro:yearly"])
        #expect(Self.evaluate(receipts, at: "2026-01-15T00:00:00Z", accounts: ["USER-42"]).isEnabled("pro") == false)
        let token = Self.evaluate(receipts, at: "2026-01-15T00:00:00Z", accounts: ["5F1C3A9E-2B7D-4C21-9A0E-6D3F8B2C1E47"])
        #expect(token.feature("pro")?.sources == ["pro.monthly"])
        // One customer, two accounts: the App Store token and the service's own id both count.
        let customer = Self.evaluate(receipts, at: "2026-01-15T00:00:00Z", accounts: ["user-42", "5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47"])
        #expect(customer.feature("pro")?.sources == ["play:pro:yearly", "pro.monthly"])
        #expect(!customer.warnings.contains { $0.code == "other-account" })
    }

    @Test("a renewal entry naming another account counts for nothing and warns from its signing, in every store")
    func renewalOfAnotherAccount() {
        for store in [Store.play, .stripe, .appStore] {
            let product = store == .play ? "pro:yearly" : store == .stripe ? "prod_Pro" : "pro.monthly"
            var bought = Self.subscription(product, "1", from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z")
            var renewal = Renewal(
                productId: product, originalTransactionId: "1", willRenew: false, signedDate: T.instant("2026-01-10T00:00:00Z"))
            if store == .appStore {
                bought.appAccountToken = "5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47"
                renewal.appAccountToken = "11111111-2222-3333-4444-555555555555"
            } else {
                bought.account = "user-42"
                renewal.account = "user-7"
            }
            let receipts = [Receipt(app: "com.ex.multi", transactions: [bought], renewals: [renewal], store: store)]
            let accounts = ["user-42", "5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47"]
            let key = store.key(of: product)
            let before = Self.evaluate(receipts, at: "2026-01-09T23:59:59.999Z", accounts: accounts, storefront: "USA")
            #expect(!before.warnings.contains { $0.code == "other-account" }, "\(store)")
            #expect(before.reevaluateAt == T.instant("2026-01-10T00:00:00Z"), "\(store): the warning starts at the entry's signing")
            let after = Self.evaluate(receipts, at: "2026-01-10T00:00:00Z", accounts: accounts, storefront: "USA")
            #expect(after.warnings.filter { $0.code == "other-account" }.count == 1, "\(store)")
            #expect(after.product(key)?.willRenew == nil, "\(store): the entry of another account says nothing")
            let theirs = Self.evaluate(receipts, at: "2026-01-10T00:00:00Z", storefront: "USA")
            #expect(theirs.product(key)?.willRenew == false, "\(store): without accounts the entry counts")
        }
    }

    @Test("a purchase on an external checkout grants like any non-consumable, and does not make the App Store plan owned")
    func external() {
        let lifetime = Transaction(productId: "lifetime", transactionId: "order-9", purchaseDate: T.instant("2026-01-01T00:00:00Z"))
        let result = Self.evaluate([Receipt(app: "com.ex.multi", transactions: [lifetime], store: .external)], at: "2026-02-01T00:00:00Z")
        #expect(result.feature("pro")?.sources == ["external:lifetime"])
        #expect(result.feature("pro")?.until == nil)
        #expect(result.offer(for: "pro.monthly")?.eligible == true)
        #expect(result.offer(for: "external:lifetime")?.reason == .owned)
        // An unknown product id of another store is named with its store.
        let typo = Transaction(productId: "lifetme", transactionId: "order-10", purchaseDate: T.instant("2026-01-01T00:00:00Z"))
        let warned = Self.evaluate([Receipt(app: "com.ex.multi", transactions: [typo], store: .external)], at: "2026-02-01T00:00:00Z")
        #expect(warned.warnings.first?.message.contains("`external:lifetme`") == true)
        #expect(warned.warnings.first?.message.hasSuffix("did you mean `external:lifetime`?") == true, "\(warned.warnings)")
    }
}

@Suite("Stores in the catalog and receipts")
struct StoreLanguageTests {
    static func errors(_ products: String, stores: String = "") -> [String] {
        T.compile(
            """
            { "app": "com.ex.app", "features": { "pro": "Pro" }, "legal": { "auto-renewable-subscription": "Renews." }\(stores),
              "products": [ \(products) ] }
            """
        ).errors.map { "\($0.path): \($0.code): \($0.message)" }
    }

    @Test("what people write for a store gets its name (`google-play` is `play`); a Stripe Price's id for a product is a warning")
    func storeNamesPeopleWrite() throws {
        let catalog = T.compile(
            """
            { "app": "com.ex.app", "features": { "pro": "Pro" }, "legal": { "auto-renewable-subscription": "Renews." },
              "products": [
                { "id": "pro:yearly", "store": "google-play", "type": "auto-renewable-subscription", "name": "P", "group": "g", "grants": ["pro"] },
                { "id": "price_1PqXyz", "store": "stripe", "type": "auto-renewable-subscription", "name": "W", "group": "w", "grants": ["pro"] },
                { "id": "plan_Old", "store": "stripe", "type": "non-consumable", "name": "O", "grants": ["pro"] },
                { "id": "price_local", "type": "non-consumable", "name": "A price-named App Store product", "grants": ["pro"] } ] }
            """)
        let store = try #require(catalog.errors.first { $0.path == "products[0].store" })
        #expect(store.message == "unknown store `google-play`" && store.help == "did you mean `play`?")
        let warnings = catalog.diagnostics.filter { $0.code == .stripePriceId }
        #expect(warnings.map(\.path) == ["products[1].id", "products[2].id"])
        #expect(warnings.allSatisfy { $0.severity == .warning })
        #expect(warnings.first?.message.hasPrefix("`price_1PqXyz` is a Stripe Price's id") == true)
        #expect(warnings.last?.message.hasPrefix("`plan_Old` is a Stripe Plan's id") == true)
        // A receipt's store, and a command line's, the same way.
        let receipt = #"{ "app": "com.ex.app", "store": "google_play", "transactions": [] }"#
        let refused = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(receipt.utf8)) }
        #expect(refused.help == "did you mean `play`?", "\(refused)")
        #expect(Suggestion.closest(to: "AppStore", in: Store.allCases.map(\.rawValue)) == "app-store")
        #expect(Suggestion.closest(to: "google-play", in: ["production", "sandbox"]) == nil, "an alias only for its own value")
    }

    @Test("App Store-only keys on another store's product, a grace period on an App Store one, groups across stores, Play ids: located errors")
    func storeRules() {
        #expect(
            Self.errors(
                #"{ "id": "prod_A", "store": "stripe", "type": "non-consumable", "name": "A", "priceTier": 3, "familyShareable": true, "grants": ["pro"] }"#
            )
                == [
                    "products[0].priceTier: not-for-store: `priceTier` is for App Store products, not `stripe` ones",
                    "products[0].familyShareable: not-for-store: `familyShareable` is for App Store products, not `stripe` ones",
                ])
        #expect(
            Self.errors(#"{ "id": "m", "type": "auto-renewable-subscription", "name": "M", "group": "g", "gracePeriod": "P3D", "grants": ["pro"] }"#)
                == ["products[0].gracePeriod: not-for-store: `gracePeriod` is for `stripe` and `external` subscriptions, not `app-store` ones"])
        #expect(
            Self.errors(
                #"{ "id": "m", "type": "auto-renewable-subscription", "name": "M", "group": "g", "grants": ["pro"] }, "#
                    + #"{ "id": "prod_M", "store": "stripe", "type": "auto-renewable-subscription", "name": "W", "group": "g", "grants": ["pro"] }"#)
                == ["products[1].group: mixed-store-group: group `g` holds products of `app-store` (`m`) and `stripe`"])
        #expect(
            Self.errors(#"{ "id": "pro", "store": "play", "type": "auto-renewable-subscription", "name": "P", "group": "g", "grants": ["pro"] }"#)
                == ["products[0].id: bad-play-id: Play subscription id `pro` names no base plan"])
        #expect(
            Self.errors(#"{ "id": "pro:x", "type": "non-consumable", "name": "P", "grants": ["pro"] }"#).first?
                .hasPrefix("products[0].id: bad-play-id: `:` belongs only in a Play product's id") == true)
        // A Play one-time product may name a purchase option; a prepaid plan its base plan, a rental neither.
        #expect(Self.errors(#"{ "id": "game:buy", "store": "play", "type": "non-consumable", "name": "G", "grants": ["pro"] }"#).isEmpty)
        #expect(
            Self.errors(
                #"{ "id": "movie", "store": "play", "type": "non-renewing-subscription", "name": "M", "duration": "P2D", "grants": ["pro"] }"#)
                == ["products[0]: missing-legal: a non-renewing subscription needs legal text"], "its id is fine")
        #expect(
            Self.errors(#"{ "id": "game:buy:x", "store": "play", "type": "non-consumable", "name": "G", "grants": ["pro"] }"#)
                == ["products[0].id: bad-play-id: Play product id `game:buy:x` is neither `<productId>` nor `<productId>:<purchaseOptionId>`"])
        // One id in two stores is two products; twice in one store, a duplicate.
        #expect(
            Self.errors(
                #"{ "id": "pro", "type": "non-consumable", "name": "P", "grants": ["pro"] }, "#
                    + #"{ "id": "pro", "store": "external", "type": "non-consumable", "name": "P", "grants": ["pro"] }"#
            ).isEmpty)
        #expect(
            Self.errors(
                #"{ "id": "pro", "store": "external", "type": "non-consumable", "name": "P", "grants": ["pro"] }, "#
                    + #"{ "id": "pro", "store": "external", "type": "non-consumable", "name": "P", "grants": ["pro"] }"#)
                == ["products[1].id: duplicate-product: duplicate product id `pro` in store `external`"])
        #expect(
            Self.errors(#"{ "id": "p", "store": "paddle", "type": "non-consumable", "name": "P", "grants": ["pro"] }"#).first?
                .hasPrefix("products[0].store: bad-enum-value: unknown store `paddle`") == true)
    }

    @Test("storefronts are ISO 3166-1 alpha-3 codes in capitals; `stores` takes https URLs")
    func storefrontsAndStores() {
        let product = #"{ "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"], "storefronts": STOREFRONTS }"#
        #expect(Self.errors(product.replacingOccurrences(of: "STOREFRONTS", with: #"["USA", "DEU"]"#)).isEmpty)
        #expect(
            Self.errors(product.replacingOccurrences(of: "STOREFRONTS", with: #"["US"]"#))
                == ["products[0].storefronts[0]: bad-value: `US` is not an ISO 3166-1 alpha-3 storefront"])
        #expect(Self.errors(product.replacingOccurrences(of: "STOREFRONTS", with: "[]")).first?.contains("at least one storefront") == true)
        let plain = #"{ "id": "p", "type": "non-consumable", "name": "P", "grants": ["pro"] }"#
        #expect(Self.errors(plain, stores: #", "stores": { "stripe": { "manage": "https://billing.example.com" } }"#).isEmpty)
        #expect(
            Self.errors(plain, stores: #", "stores": { "stripe": { "manage": "billing.example.com" } }"#)
                == ["stores.stripe.manage: bad-value: `billing.example.com` is not an `https://` URL"])
    }

    @Test("a receipt's store, and the keys each store takes: located errors")
    func receipts() {
        func error(_ json: String) -> String? {
            do {
                _ = try ReceiptDecoder.decode(Data(json.utf8))
                return nil
            } catch {
                return "\(error.path): \(error.message)"
            }
        }
        let purchase = #""productId": "p", "transactionId": "1", "purchaseDate": "2026-01-01T00:00:00Z""#
        #expect(
            error(#"{ "app": "a", "store": "play", "transactions": [{ \#(purchase), "acknowledged": false, "account": "u1", "pending": true }] }"#)
                == nil)
        #expect(error(#"{ "app": "a", "store": "paddle" }"#) == "store: unknown store `paddle`")
        #expect(
            error(#"{ "app": "a", "transactions": [{ \#(purchase), "acknowledged": false }], "store": "stripe" }"#)
                == "transactions[0].acknowledged: `acknowledged` is for Play receipts, not `stripe` ones")
        #expect(
            error(#"{ "app": "a", "transactions": [{ \#(purchase), "account": "u1" }] }"#)
                == "transactions[0].account: `account` is for receipts of other stores; an App Store receipt says `appAccountToken`")
        #expect(
            error(#"{ "app": "a", "store": "play", "transactions": [{ \#(purchase), "appAccountToken": "5f1c3a9e-2b7d-4c21-9a0e-6d3f8b2c1e47" }] }"#)
                == "transactions[0].appAccountToken: `appAccountToken` is the App Store's; a `play` receipt says `account`")
        #expect(
            error(#"{ "app": "a", "transactions": [{ \#(purchase), "storefront": "US" }] }"#)
                == "transactions[0].storefront: `US` is not an ISO 3166-1 alpha-3 storefront")
        // Read back, every new field is written as it was read.
        let receipt = try! ReceiptDecoder.decode(
            Data(
                #"""
                { "app": "a", "store": "play", "transactions": [{ \#(purchase), "pending": true, "acknowledged": false, "account": "u1", "storefront": "USA" }],
                  "renewals": [{ "originalTransactionId": "1", "pausedUntil": "2026-02-01T00:00:00Z", "account": "u1" }] }
                """#.utf8))
        #expect(try! ReceiptDecoder.decode(Data(receipt.json.utf8)) == receipt)
        #expect(receipt.store == .play && receipt.transactions[0].pending && receipt.transactions[0].acknowledged == false)
        #expect(receipt.renewals[0].pausedUntil == T.instant("2026-02-01T00:00:00Z") && receipt.renewals[0].account == "u1")
    }
}
