import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// Issue 32's Advanced Commerce items: a product's `items` (SKU to grants or credits), a
/// transaction's `items` with per-item revocations and refunds, and Apple's `advancedCommerceInfo`.
@Suite("Advanced Commerce items")
struct AdvancedCommerceTests {
    static let app = "com.example.atelier"
    static let json = """
        { "app": "com.example.atelier",
          "features": { "brushes": "premium brushes", "fonts": "the font pack", "export": "4K export" },
          "currencies": { "renders": "render credits" },
          "legal": { "auto-renewable-subscription": "Renews monthly until cancelled." },
          "products": [
            { "id": "atelier.creator", "type": "auto-renewable-subscription", "name": "Creator", "group": "creator",
              "items": { "sku.brushes": { "grants": ["brushes"] }, "sku.fonts": { "grants": ["fonts"] },
                         "sku.export": { "grants": ["export", "fonts"] } } },
            { "id": "atelier.renders", "type": "consumable", "name": "Renders",
              "items": { "sku.renders.10": { "credits": { "renders": 10 } }, "sku.renders.50": { "credits": { "renders": 50 } } } },
            { "id": "atelier.kit", "type": "non-consumable", "name": "Kit", "items": { "sku.kit.brushes": { "grants": ["brushes"] } } }
          ] }
        """
    static let catalog = T.catalog(json)

    static func item(_ sku: String, revoked: String? = nil, refunds: [Transaction.Item.Refund] = []) -> Transaction.Item {
        Transaction.Item(sku: sku, price: "4.99", revocationDate: revoked.map(T.instant), refunds: refunds)
    }

    /// A monthly chain from 1 January; `items` gives each period's items.
    static func chain(_ periods: Int, items: (Int) -> [Transaction.Item]) -> [Transaction] {
        (0..<periods).map { index in
            let start = ISODuration.add(months: index, days: 0, milliseconds: 0, to: T.instant("2026-01-01T00:00:00Z").millisecondsSince1970)
            let end = ISODuration.add(months: index + 1, days: 0, milliseconds: 0, to: T.instant("2026-01-01T00:00:00Z").millisecondsSince1970)
            return Transaction(
                productId: "atelier.creator", transactionId: "c\(index)", originalTransactionId: "c0",
                purchaseDate: Instant(millisecondsSince1970: start), expiresDate: Instant(millisecondsSince1970: end), items: items(index))
        }
    }

    @Test("each item grants its SKU's features, named <productId>/<SKU>; a revoked item ends at its revocation, the others continue")
    func revocation() {
        let receipt = Receipt(
            app: Self.app,
            transactions: Self.chain(1) { _ in [Self.item("sku.fonts"), Self.item("sku.brushes", revoked: "2026-01-10T00:00:00Z")] })
        let before = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-09T23:59:59.999Z")
        #expect(before.feature("brushes")?.sources == ["atelier.creator/sku.brushes"])
        #expect(before.feature("brushes")?.until == T.instant("2026-01-10T00:00:00Z"))
        #expect(before.feature("fonts")?.sources == ["atelier.creator/sku.fonts"])
        #expect(before.reevaluateAt == T.instant("2026-01-10T00:00:00Z"))
        #expect(before.isEnabled("export") == false)
        let at = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-10T00:00:00Z")
        #expect(at.isEnabled("brushes") == false)
        #expect(at.feature("fonts")?.until == T.instant("2026-02-01T00:00:00Z"))
        // The product itself is as before: the purchase stands.
        #expect(at.product("atelier.creator")?.state == .active)
        let expired = checkedEvaluation(Self.catalog, [receipt], at: "2026-02-01T00:00:00Z")
        #expect(expired.isEnabled("fonts") == false)
    }

    @Test("a full refund ends its item at its date; a prorated or custom one does not")
    func refunds() {
        let full = Transaction.Item.Refund(amount: "4.99", date: T.instant("2026-01-05T12:00:00Z"), type: .full)
        let prorated = Transaction.Item.Refund(amount: "2", date: T.instant("2026-01-03T00:00:00Z"), type: .prorated)
        let custom = Transaction.Item.Refund(amount: "1", date: T.instant("2026-01-04T00:00:00Z"), type: .custom)
        let receipt = Receipt(
            app: Self.app,
            transactions: Self.chain(1) { _ in
                [Self.item("sku.brushes", refunds: [prorated, full]), Self.item("sku.fonts", refunds: [custom])]
            })
        let before = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-05T11:59:59.999Z")
        #expect(before.isEnabled("brushes") && before.isEnabled("fonts"))
        #expect(before.reevaluateAt == T.instant("2026-01-05T12:00:00Z"))
        let after = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-05T12:00:00Z")
        #expect(!after.isEnabled("brushes") && after.isEnabled("fonts"))
        #expect(Transaction.Item(sku: "x", price: "1", refunds: [prorated, full]).endsAt == full.date)
    }

    @Test("a renewal's items replace the last period's from its purchase on; two SKUs granting one feature are both sources")
    func renewals() {
        let receipt = Receipt(
            app: Self.app,
            transactions: Self.chain(2) { $0 == 0 ? [Self.item("sku.fonts"), Self.item("sku.brushes")] : [Self.item("sku.export")] })
        // The renewal is not known before its purchase: the period's end is the end.
        let first = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-20T00:00:00Z")
        #expect(first.feature("brushes")?.until == T.instant("2026-02-01T00:00:00Z"))
        #expect(first.feature("fonts")?.until == T.instant("2026-02-01T00:00:00Z"))
        // Once it is, `fonts` continues from the first period's SKU into the second's, which grants it too.
        let last = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-31T23:59:59.999Z")
        #expect(last.feature("fonts")?.sources == ["atelier.creator/sku.fonts"])
        #expect(last.reevaluateAt == T.instant("2026-02-01T00:00:00Z"))
        let boundary = checkedEvaluation(Self.catalog, [receipt], at: "2026-02-01T00:00:00Z")
        #expect(!boundary.isEnabled("brushes"))
        #expect(boundary.feature("fonts")?.sources == ["atelier.creator/sku.export"])
        #expect(boundary.feature("export")?.sources == ["atelier.creator/sku.export"])
    }

    @Test("a SKU the product does not declare warns unknown-item with a did-you-mean and gives nothing")
    func unknownItem() throws {
        let receipt = Receipt(app: Self.app, transactions: Self.chain(1) { _ in [Self.item("sku.font")] })
        let result = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-02T00:00:00Z")
        #expect(result.enabledFeatures.isEmpty)
        let warning = try #require(result.warnings.first { $0.code == "unknown-item" })
        #expect(
            warning.message == "SKU `sku.font` of `atelier.creator` is not among the product's `items` and gives nothing; did you mean `sku.fonts`?")
        // A SKU of another product is not this product's either.
        let other = Receipt(app: Self.app, transactions: Self.chain(1) { _ in [Self.item("sku.kit.brushes")] })
        #expect(checkedEvaluation(Self.catalog, [other], at: "2026-01-02T00:00:00Z").warnings.contains { $0.code == "unknown-item" })
    }

    @Test("a consumable's items credit per unit until revoked or refunded in full; the consumption reply reads them")
    func credits() throws {
        let purchase = Transaction(
            productId: "atelier.renders", transactionId: "r1", purchaseDate: T.instant("2026-01-01T00:00:00Z"), quantity: 2,
            items: [Self.item("sku.renders.10"), Self.item("sku.renders.50", revoked: "2026-01-08T00:00:00Z")])
        let receipt = Receipt(
            app: Self.app, transactions: [purchase],
            consumptions: [Consumption(id: "k1", currency: "renders", amount: 5, date: T.instant("2026-01-02T00:00:00Z"))])
        let before = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-07T23:59:59.999Z")
        #expect(before.balance(of: "renders") == 115)
        #expect(before.reevaluateAt == T.instant("2026-01-08T00:00:00Z"))
        let after = checkedEvaluation(Self.catalog, [receipt], at: "2026-01-08T00:00:00Z")
        #expect(after.balance(of: "renders") == 15)
        // The consumption reply charges what was spent to what the purchase's SKUs credit: 5 of
        // 120, then of 20 once the 50-credit SKU is revoked.
        let portfolio = try #require(T.compile(Self.json).portfolio)
        func consumed(_ at: String) throws -> Int? {
            try portfolio.consumptionReply(app: Self.app, transactionId: "r1", receipts: [receipt], at: T.instant(at), consented: true)
                .body?.consumptionPercentage
        }
        #expect(try consumed("2026-01-07T23:59:59.999Z") == 4_166)
        #expect(try consumed("2026-01-08T00:00:00Z") == 25_000)
        let explanation = Self.catalog.explain([receipt], at: T.instant("2026-01-07T00:00:00Z"))
        #expect(explanation.balance("renders")?.sources.map(\.name) == ["atelier.renders/sku.renders.10", "atelier.renders/sku.renders.50"])
        #expect(explanation.balance("renders")?.sources.allSatisfy { $0.productId == "atelier.renders" } == true)
        #expect(explanation.text.contains("renders  115  1 purchase of atelier.renders/sku.renders.10, atelier.renders/sku.renders.50"))
    }

    @Test("a non-consumable bought again with other SKUs adds them; the explanation names each SKU's coverage")
    func nonConsumable() {
        let first = Transaction(
            productId: "atelier.kit", transactionId: "k1", purchaseDate: T.instant("2026-01-01T00:00:00Z"), items: [Self.item("sku.nope")])
        let second = Transaction(
            productId: "atelier.kit", transactionId: "k2", purchaseDate: T.instant("2026-03-01T00:00:00Z"),
            items: [Self.item("sku.kit.brushes")])
        let receipt = Receipt(app: Self.app, transactions: [first, second])
        let before = checkedEvaluation(Self.catalog, [receipt], at: "2026-02-01T00:00:00Z")
        #expect(!before.isEnabled("brushes"))
        #expect(before.reevaluateAt == T.instant("2026-03-01T00:00:00Z"))
        let after = checkedEvaluation(Self.catalog, [receipt], at: "2026-03-01T00:00:00Z")
        #expect(after.feature("brushes")?.sources == ["atelier.kit/sku.kit.brushes"])
        let explanation = Self.catalog.explain([receipt], at: T.instant("2026-03-02T00:00:00Z"))
        let sources = explanation.feature("brushes")?.sources.filter { $0.kind == .item } ?? []
        #expect(sources.map(\.id) == ["atelier.creator/sku.brushes", "atelier.kit/sku.kit.brushes"])
        #expect(sources.first?.reason == "SKU sku.brushes is in no counted purchase")
        let source = sources.last
        #expect(source?.covers == true)
        #expect(source?.reason == "SKU sku.kit.brushes covers with its purchase")
    }

    @Test("the decoder reads items sorted by SKU and refuses a SKU twice, a refund above the price and unknown keys, located")
    func decoding() throws {
        func receipt(_ items: String, renewal: String = "") -> String {
            #"{"app":"a.b","transactions":[{"productId":"p","transactionId":"1","purchaseDate":"2026-01-01T00:00:00Z","items":\#(items)}],"renewals":[\#(renewal)],"consumptions":[]}"#
        }
        let decoded = T.receipt(
            receipt(
                #"[{"sku":"b","price":"2.50"},{"sku":"a","price":"1","refunds":[{"amount":"0.5","date":"2026-01-02T00:00:00Z","type":"custom"}]}]"#))
        #expect(decoded.transactions[0].items.map(\.sku) == ["a", "b"])
        #expect(decoded.transactions[0].items[1].price == "2.5")
        #expect(decoded.transactions[0].items[0].refunds.first?.type == .custom)
        // The writer writes what the decoder reads.
        #expect(T.receipt(decoded.json) == decoded)

        let twice = try #require(T.receiptError(receipt(#"[{"sku":"a","price":"1"},{"sku":"a","price":"2"}]"#)))
        #expect(twice.path == "transactions[0].items[1].sku")
        #expect(twice.message == "SKU `a` is listed twice")
        let above = try #require(
            T.receiptError(receipt(#"[{"sku":"a","price":"1","refunds":[{"amount":"1.001","date":"2026-01-02T00:00:00Z","type":"full"}]}]"#)))
        #expect(above.path == "transactions[0].items[0].refunds[0].amount")
        #expect(above.message == "a refund of 1.001 is more than the item's price of 1")
        let unknown = try #require(T.receiptError(receipt(#"[{"sku":"a","price":"1","prise":"2"}]"#)))
        #expect(unknown.code == .unknownKey)
        #expect(unknown.description.contains("price") || unknown.help?.contains("price") == true)
        let badType = try #require(
            T.receiptError(receipt(#"[{"sku":"a","price":"1","refunds":[{"amount":"1","date":"2026-01-02T00:00:00Z","type":"partial"}]}]"#)))
        #expect(badType.code == .badEnumValue)
        #expect(T.receiptError(receipt(#"[{"sku":"a"}]"#))?.message.contains("missing") == true)
        // A renewal entry's items have a SKU and a price only.
        let renewal = try #require(
            T.receiptError(
                receipt("[]", renewal: #"{"originalTransactionId":"1","items":[{"sku":"a","price":"1","revocationDate":"2026-01-02T00:00:00Z"}]}"#)))
        #expect(renewal.code == .unknownKey)
        #expect(renewal.path.hasPrefix("renewals[0].items[0]"))
        // A value built in code is checked the same way.
        var built = Receipt(
            app: "a.b", transactions: [Transaction(productId: "p", transactionId: "1", purchaseDate: T.instant("2026-01-01T00:00:00Z"))])
        built.transactions[0].items = [Transaction.Item(sku: "a", price: "1"), Transaction.Item(sku: "a", price: "1")]
        #expect(built.limitViolation?.path == "transactions[0].items[1].sku")
        built.transactions[0].items = [Transaction.Item(sku: "a", price: "nine")]
        #expect(built.limitViolation?.path == "transactions[0].items[0].price")
    }

    @Test("Apple's advancedCommerceInfo imports: SKU, price, per-item revocation and refunds")
    func importing() throws {
        try #require(T.sharedFixturesAvailable)
        let file = T.sharedFixtures.appendingPathComponent("storekit2/apple-app-store-server-library-swift/models/signedTransaction.json")
        let imported = try AppleImport.unverifiedReceipt(fromAppStore: Data(contentsOf: file)).receipt
        let item = try #require(imported.transactions.first?.items.first)
        #expect(item.sku == "com.example.sku.premium")
        #expect(item.price == "9.99")
        #expect(item.revocationDate == Instant(millisecondsSince1970: 1_698_149_200_000))
        #expect(item.refunds == [Transaction.Item.Refund(amount: "5", date: Instant(millisecondsSince1970: 1_698_149_100_000), type: .prorated)])
        let renewalFile = T.sharedFixtures.appendingPathComponent("storekit2/apple-app-store-server-library-swift/models/signedRenewalInfo.json")
        let renewal = try AppleImport.unverifiedReceipt(fromAppStore: Data(contentsOf: renewalFile), app: "com.example").receipt
        #expect(renewal.renewals.first?.items == [Transaction.Item(sku: "com.example.sku.premium", price: "9.99")])
        // Items out of byte order (the fuzzer's `atel!er` before `atelier`) come out in the order the
        // normalized receipt reads back, so the imported receipt and its JSON are the same receipt.
        let unordered =
            #"{"transactionId":"1","productId":"p","bundleId":"a.b","purchaseDate":1,"advancedCommerceInfo":{"items":[{"SKU":"atelier.sku.b","price":10},{"SKU":"atel!er.sku.s","price":20,"refunds":[{"refundAmount":5,"refundDate":9,"refundType":"CUSTOM"},{"refundAmount":5,"refundDate":3,"refundType":"PRORATED"}]}]}}"#
        let read = try AppleImport.unverifiedReceipt(fromAppStore: Data(unordered.utf8)).receipt
        #expect(read.transactions[0].items.map(\.sku) == ["atel!er.sku.s", "atelier.sku.b"])
        #expect(read.transactions[0].items[0].refunds.map(\.type) == [.prorated, .custom])
        #expect(T.receipt(read.json) == read)
        // A refund above the price refuses the data, located.
        let payload =
            #"{"transactionId":"1","productId":"p","bundleId":"a.b","purchaseDate":1,"advancedCommerceInfo":{"items":[{"SKU":"s","price":1000,"refunds":[{"refundAmount":2000,"refundDate":2,"refundType":"FULL"}]}]}}"#
        #expect(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(fromAppStore: Data(payload.utf8)) }
    }

    @Test("catalog rules: a SKU of two products, items beside grants, credits on a subscription's item, another store, a misspelt key")
    func checks() throws {
        func errors(_ products: String) -> [Diagnostic] {
            let text =
                #"{"app":"a.b","features":{"f":"x"},"currencies":{"c":"y"},"legal":{"auto-renewable-subscription":"R."},"products":[\#(products)]}"#
            return T.compile(text).diagnostics.filter { $0.severity == .error }
        }
        let two = errors(
            #"{"id":"p1","type":"non-consumable","name":"A","items":{"s":{"grants":["f"]}}},{"id":"p2","type":"non-consumable","name":"B","items":{"s":{"grants":["f"]}}}"#
        )
        #expect(two.map(\.code) == [.itemRule])
        #expect(two.first?.path == "products[1].items.s")
        #expect(two.first?.message == "SKU `s` is declared by two products")
        let beside = errors(#"{"id":"p1","type":"non-consumable","name":"A","grants":["f"],"items":{"s":{"grants":["f"]}}}"#)
        #expect(beside.map(\.code) == [.itemRule])
        #expect(beside.first?.path == "products[0].grants")
        let credits = errors(#"{"id":"p1","type":"auto-renewable-subscription","name":"A","group":"g","items":{"s":{"credits":{"c":1}}}}"#)
        #expect(credits.map(\.code) == [.itemRule])
        let store = errors(#"{"id":"prod_1","store":"stripe","type":"non-consumable","name":"A","items":{"s":{"grants":["f"]}}}"#)
        #expect(store.contains { $0.code == .itemRule })
        let misspelt = errors(#"{"id":"p1","type":"non-consumable","name":"A","items":{"s":{"grant":["f"]}}}"#)
        #expect(misspelt.map(\.code) == [.unknownKey])
        #expect(misspelt.first?.description.contains("did you mean `grants`") == true)
        let undeclared = errors(#"{"id":"p1","type":"non-consumable","name":"A","items":{"s":{"grants":["g"]}}}"#)
        #expect(undeclared.map(\.code) == [.undeclaredFeature])
        #expect(undeclared.first?.path == "products[0].items.s.grants[0]")
        #expect(errors(#"{"id":"p1","type":"non-consumable","name":"A","items":{}}"#).map(\.code) == [.badValue])
        // A valid catalog with items warns of nothing the items grant.
        let valid = T.compile(Self.json)
        #expect(valid.diagnostics.isEmpty, "\(valid.diagnostics)")
        #expect(Self.catalog.product("atelier.creator")?.items?.map(\.sku) == ["sku.brushes", "sku.fonts", "sku.export"])
    }

    @Test("a proof over a change of items says the SKUs were not searched: not complete")
    func proof() throws {
        let changed = Self.json.replacingOccurrences(of: #""sku.fonts": { "grants": ["fonts"] }"#, with: #""sku.fonts": { "grants": ["brushes"] }"#)
        let old = try #require(T.compile(Self.json).portfolio)
        let new = try #require(T.compile(changed).portfolio)
        let report = CatalogProof.compare(old, new, options: ProofOptions(depth: 1))
        #expect(report.statistics.unsearchedItems == ["com.example.atelier atelier.creator"])
        #expect(!report.statistics.isComplete)
        #expect(report.statistics.incompleteness?.contains("`com.example.atelier atelier.creator`, whose `items` changed, were not searched") == true)
        // Unchanged items say nothing.
        #expect(CatalogProof.compare(old, old, options: ProofOptions(depth: 1)).statistics.unsearchedItems == nil)
    }

    @Test("diff shows a change of a product's items")
    func diff() throws {
        let changed = Self.json.replacingOccurrences(of: #""sku.fonts": { "grants": ["fonts"] }"#, with: #""sku.fonts": { "grants": ["brushes"] }"#)
        #expect(changed != Self.json)
        let old = try #require(Self.catalog.product("atelier.creator"))
        let new = try #require(T.catalog(changed).product("atelier.creator"))
        #expect(old.text(of: .items) != new.text(of: .items))
        #expect(new.text(of: .items) == "sku.brushes: brushes; sku.fonts: brushes; sku.export: export, fonts")
    }
}
