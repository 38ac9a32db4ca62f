import Entitle
import Foundation

/// Section 7: one customer, every store. A catalog selling its products in the App Store, on
/// Google Play and on Stripe against one of the same size selling them all in the App Store, with
/// the same purchases: in one receipt, or split across the three stores' receipts.
extension Benchmark {
    /// The store of product `index` of `count` in the three-store catalog: a third each.
    private static func store(of index: Int, count: Int) -> Store {
        [Store.appStore, .play, .stripe][min(2, index * 3 / count)]
    }

    /// Product `index`'s id in `store`: an App Store id, Play's `<product>:<basePlan>` for a
    /// subscription, a Stripe Product id.
    private static func productId(_ kind: String, _ index: Int, store: Store) -> String {
        switch store {
        case .appStore, .external: "com.example.bench.\(kind)\(index)"
        case .play: kind == "sub" ? "\(kind)\(index):monthly" : "\(kind)\(index)"
        case .stripe: "prod_\(kind)\(index)"
        }
    }

    /// A catalog of `count` subscriptions (each in its group), `count` non-consumables and `count`
    /// consumables granting 8 features and crediting one currency; `threeStores` sells each third
    /// of them in the App Store, on Play and on Stripe.
    static func storesCatalog(count: Int, threeStores: Bool) -> String {
        var products: [String] = []
        for index in 0..<count {
            let store = threeStores ? Self.store(of: index, count: count) : .appStore
            let storeKey = store == .appStore ? "" : #""store": "\#(store.rawValue)", "#
            let feature = "f\(index % 8)"
            products.append(
                #"{ \#(storeKey)"id": "\#(productId("sub", index, store: store))", "type": "auto-renewable-subscription", "name": "Sub \#(index)", "group": "g\#(index)", "duration": "P1M", "grants": ["\#(feature)"] }"#
            )
            products.append(
                #"{ \#(storeKey)"id": "\#(productId("nc", index, store: store))", "type": "non-consumable", "name": "Unlock \#(index)", "grants": ["\#(feature)"] }"#
            )
            products.append(
                #"{ \#(storeKey)"id": "\#(productId("coins", index, store: store))", "type": "consumable", "name": "Coins \#(index)", "credits": { "coins": 10 } }"#
            )
        }
        let features = (0..<8).map { #""f\#($0)": "Feature \#($0)""# }.joined(separator: ", ")
        return """
            { "app": "com.example.bench", "features": { \(features) }, "currencies": { "coins": "Coins" },
              "legal": { "auto-renewable-subscription": "Renews." },
              "stores": { "stripe": { "manage": "https://bench.example.com/billing" } },
              "products": [\(products.joined(separator: ",\n"))] }
            """
    }

    /// A customer's `transactions` purchases (a third subscription renewals, a third unlocks, a
    /// third coins) as receipts: one App Store receipt, or one per store of the three-store catalog.
    static func storesReceipts(count: Int, transactions: Int, seed: UInt64, threeStores: Bool) -> [Receipt] {
        var random = seed | 1
        func next(_ bound: Int) -> Int {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return Int(random % UInt64(bound))
        }
        let start = Instant(rfc3339: "2025-01-01T00:00:00Z")!.millisecondsSince1970
        let month: Int64 = 30 * 86_400_000
        var receipts: [Store: Receipt] = [:]
        for number in 0..<transactions {
            let index = next(count)
            let store = threeStores ? Self.store(of: index, count: count) : .appStore
            let kind = ["sub", "nc", "coins"][number % 3]
            let id = productId(kind, index, store: store)
            let purchase = start + Int64(next(8)) * month + Int64(next(86_400_000))
            var transaction = Transaction(
                productId: id, transactionId: "\(number + 1)", originalTransactionId: "\(number + 1)",
                purchaseDate: Instant(millisecondsSince1970: purchase))
            if kind == "sub" { transaction.expiresDate = Instant(millisecondsSince1970: purchase + month) }
            if kind == "coins" { transaction.quantity = 1 + next(3) }
            var receipt = receipts[store] ?? Receipt(app: "com.example.bench", store: store)
            receipt.transactions.append(transaction)
            if kind == "sub" {
                receipt.renewals.append(Renewal(productId: id, originalTransactionId: "\(number + 1)", willRenew: number % 2 == 0))
            }
            receipts[store] = receipt
        }
        return Store.allCases.compactMap { receipts[$0] }
    }

    // MARK: 7. Stores

    mutating func stores() {
        let section = "7. one customer, every store"
        let count = 300
        let appStoreOnly = Benchmark.compile(Self.storesCatalog(count: count, threeStores: false))
        let threeStores = Benchmark.compile(Self.storesCatalog(count: count, threeStores: true))
        for transactions in [20, 200] {
            let customers = 16
            let single = (0..<customers).map {
                Self.storesReceipts(count: count, transactions: transactions, seed: UInt64($0 + 1), threeStores: false).map(ParsedReceipt.init)
            }
            let split = (0..<customers).map {
                Self.storesReceipts(count: count, transactions: transactions, seed: UInt64($0 + 1), threeStores: true).map(ParsedReceipt.init)
            }
            var next = 0
            let times = stopwatch.compare([
                {
                    next = (next + 1) % customers
                    return appStoreOnly.evaluate(single[next], at: Benchmark.at).warnings.count
                },
                {
                    next = (next + 1) % customers
                    return threeStores.evaluate(split[next], at: Benchmark.at).warnings.count
                },
            ])
            record(
                section, "\(transactions) transactions, App Store only / three stores (3 receipts)",
                String(format: "%.2f µs / %.2f µs", times[0] * 1e6, times[1] * 1e6))
            ratio(
                section, "\(transactions) transactions: three stores / App Store only (\(3 * count) products)", times[1] / times[0],
                key: "threeStoresOverAppStore\(transactions)")
        }
    }
}
