/// What other apps' receipts show at the instant, for upgrade pricing: the products of each
/// required app with a counted purchase, and which required apps have a receipt at all.
///
/// Copies of one transaction across an app's receipts are snapshots, the same rule as for the
/// evaluated app's own transactions: the latest signed by the instant stands for it, copies of
/// one rank merging with the earliest cancellation. A family-shared purchase counts only when the required
/// app's catalog is in the portfolio and makes that product family-shareable.
struct UpgradePrerequisites: Sendable, Equatable {
    /// App bundle id -> product ids with a counted purchase at the instant.
    private var purchased: [String: Set<String>] = [:]
    /// App bundle id -> product id -> the transaction that shows it (of several, the least id by
    /// bytes), for explanations.
    private var witnesses: [String: [String: Witness]] = [:]
    /// App bundle id -> the earliest original purchase of the app among its receipts that count
    /// (`Int64.min`: a receipt without one) and the receipt showing it, for explanations.
    private var firstPurchases: [String: FirstPurchase] = [:]

    /// The earliest original purchase of a required app among its receipts that count, and the
    /// receipt showing it.
    struct FirstPurchase: Equatable, Sendable {
        /// The original purchase; `Int64.min` for a receipt without `originalPurchaseDate`.
        var instant: Int64
        /// The receipt: its index among the evaluation's receipts.
        var receipt: Int
    }

    /// A transaction of a required app that shows a qualifying purchase, and where it is.
    struct Witness: Equatable, Sendable {
        /// Its transaction id.
        var transaction: String
        /// The receipt it is in: its index among the evaluation's receipts.
        var receipt: Int
    }
    /// Required apps with a receipt that counts at the instant: one without an
    /// `originalPurchaseDate`, or one whose original purchase is at or before the instant.
    private var appsWithReceipts: Set<String> = []

    private init() {}

    static let none = UpgradePrerequisites()

    /// Gathers what `receipts` (other apps' receipts) show at `at`, for the apps the catalog's
    /// upgrades require. Costs nothing when the catalog has no upgrades.
    ///
    /// - Parameter indices: each receipt's index among the evaluation's receipts (what an
    ///   explanation names); by default its position in `receipts`.
    init(_ catalog: CompiledCatalog, receipts: [ParsedReceipt], indices: [Int]? = nil, at: Int64, catalogs: [String: CompiledCatalog] = [:]) {
        guard !catalog.requiredApps.isEmpty, !receipts.isEmpty else { return }
        let indices = indices ?? Array(receipts.indices)
        for app in catalog.requiredApps {
            let positions = receipts.indices.filter { receipts[$0].bytesEqual(receipts[$0].appRange, app) }
            let ofApp = positions.map { receipts[$0] }
            guard !ofApp.isEmpty else { continue }
            // Any receipt of the app qualifies only from the customer's first purchase of the app on:
            // the receipt showing the earliest (of equal ones, the first given) is the one that qualifies.
            let counting = positions.filter { receipts[$0].originalPurchase == TransactionRecord.absentDate || receipts[$0].originalPurchase <= at }
            if let first = counting.min(by: { (receipts[$0].originalPurchase, indices[$0]) < (receipts[$1].originalPurchase, indices[$1]) }) {
                appsWithReceipts.insert(app)
                firstPurchases[app] = FirstPurchase(instant: receipts[first].originalPurchase, receipt: indices[first])
            }
            var items: [(receipt: Int32, index: Int32)] = []
            for (receiptIndex, receipt) in ofApp.enumerated() {
                for index in receipt.transactions.indices { items.append((Int32(receiptIndex), Int32(index))) }
            }
            func id(_ item: Int) -> (ParsedReceipt, TextRange) {
                let receipt = ofApp[Int(items[item].receipt)]
                return (receipt, receipt.transactions[Int(items[item].index)].transactionId)
            }
            let first = DuplicateFinder.firstOccurrences(
                count: items.count, hash: { ofApp[Int(items[$0].receipt)].transactions[Int(items[$0].index)].transactionIdHash }, text: id)
            // Copies of one transaction are snapshots, as for the app's own: at `at`, the latest
            // signed by then (else the earliest) stands for it, copies of one rank merging.
            var copies: [Int32: [Evaluator.Snapshot]] = [:]
            for item in items.indices {
                let receipt = ofApp[Int(items[item].receipt)]
                copies[first[item], default: []].append(
                    Evaluator.Snapshot(
                        receipt: items[item].receipt, index: items[item].index,
                        rank: receipt.transactions[Int(items[item].index)].signed))
            }
            var products: Set<String> = []
            for (_, var group) in copies {
                if group.count > 1 { Evaluator.sortSnapshots(&group, receipts: ofApp) }
                var end = group.count
                while end > 0, group[end - 1].rank > at { end -= 1 }
                var start = end - 1
                if end == 0 {
                    start = 0
                    end = 1
                    while end < group.count, group[end].rank == group[0].rank { end += 1 }
                } else {
                    while start > 0, group[start - 1].rank == group[end - 1].rank { start -= 1 }
                }
                let receipt = ofApp[Int(group[start].receipt)]
                let record = receipt.transactions[Int(group[start].index)]
                let cancellation = group[start..<end].map { ofApp[Int($0.receipt)].transactions[Int($0.index)].cancellation }.min()!
                guard record.purchase <= at, cancellation > at else { continue }
                let product = receipt.text(record.productId)!
                if record.flags & TransactionRecord.familyShared != 0 {
                    guard let required = catalogs[app], let index = required.productIndex[product],
                        required.compiledProducts[index].sharesWithFamily
                    else { continue }
                }
                products.insert(product)
                let transaction = receipt.text(record.transactionId)!
                if let known = witnesses[app]?[product], !Array(transaction.utf8).lexicographicallyPrecedes(Array(known.transaction.utf8)) {
                    continue
                }
                witnesses[app, default: [:]][product] = Witness(transaction: transaction, receipt: indices[positions[Int(group[start].receipt)]])
            }
            purchased[app] = products
        }
    }

    /// Whether some receipt of the required app shows a qualifying purchase: any receipt that
    /// counts (from its `originalPurchaseDate` on, when it has one) when `anyOf` is left out, else a
    /// counted purchase of a listed product.
    func meets(_ requirement: UpgradeRequirement) -> Bool {
        guard let anyOf = requirement.anyOf else { return appsWithReceipts.contains(requirement.app) }
        guard let products = purchased[requirement.app] else { return false }
        return !products.isDisjoint(with: anyOf)
    }

    /// The purchases of the required app that a requirement lists, with the transaction showing
    /// each and its receipt (an index among the evaluation's receipts), by product id; for an explanation.
    func qualifying(_ requirement: UpgradeRequirement) -> [(product: String, witness: Witness)] {
        (purchased[requirement.app] ?? []).filter { requirement.anyOf?.contains($0) ?? true }.sorted()
            .map { ($0, witnesses[requirement.app]?[$0] ?? Witness(transaction: "", receipt: -1)) }
    }

    /// Whether a receipt of the app counts at the instant: the earliest original purchase of the
    /// app among those that do (`Int64.min` when one has none) and the receipt showing it (an
    /// index among the evaluation's receipts, the first given of equal ones); `nil` when none counts.
    func firstPurchase(of app: String) -> FirstPurchase? { firstPurchases[app] }

    /// Whether any receipt of the app was given (counting or not yet).
    func hasReceipts(of app: String) -> Bool { purchased[app] != nil }
}
