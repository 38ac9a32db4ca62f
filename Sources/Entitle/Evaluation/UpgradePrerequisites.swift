/// What other apps' receipts show at the instant, for upgrade pricing: the products of each
/// required app with a counted purchase, and which required apps have a receipt at all.
///
/// Copies of one transaction across an app's receipts count once and the earliest cancellation
/// among them holds, the same rule as for the evaluated app's own transactions: a refund recorded
/// in any copy takes the prerequisite away. A family-shared purchase counts only when the required
/// app's catalog is in the portfolio and makes that product family-shareable.
struct UpgradePrerequisites: Sendable, Equatable {
    /// App bundle id -> product ids with a counted purchase at the instant.
    private var purchased: [String: Set<String>] = [:]
    /// Required apps with at least one receipt.
    private var appsWithReceipts: Set<String> = []

    private init() {}

    static let none = UpgradePrerequisites()

    /// Gathers what `receipts` (other apps' receipts) show at `at`, for the apps the catalog's
    /// upgrades require. Costs nothing when the catalog has no upgrades.
    init(_ catalog: CompiledCatalog, receipts: [ParsedReceipt], at: Int64, catalogs: [String: CompiledCatalog] = [:]) {
        guard !catalog.requiredApps.isEmpty, !receipts.isEmpty else { return }
        for app in catalog.requiredApps {
            let ofApp = receipts.filter { $0.bytesEqual($0.appRange, app) }
            guard !ofApp.isEmpty else { continue }
            appsWithReceipts.insert(app)
            var items: [(receipt: Int32, index: Int32)] = []
            for (receiptIndex, receipt) in ofApp.enumerated() {
                for index in receipt.transactions.indices { items.append((Int32(receiptIndex), Int32(index))) }
            }
            func id(_ item: Int) -> (ParsedReceipt, TextRange) {
                let receipt = ofApp[Int(items[item].receipt)]
                return (receipt, receipt.transactions[Int(items[item].index)].transactionId)
            }
            let first = DuplicateFinder.firstOccurrences(
                count: items.count,
                hash: { ofApp[Int(items[$0].receipt)].transactions[Int(items[$0].index)].transactionIdHash },
                equal: { a, b in let (x, r) = id(a), (y, s) = id(b); return x.bytesEqual(r, y, s) },
                precedes: { a, b in let (x, r) = id(a), (y, s) = id(b); return x.lexicographicallyPrecedes(r, y, s) })
            // The earliest cancellation of each transaction, kept at its first copy.
            var cancellation = [Int64](repeating: .max, count: items.count)
            for item in items.indices {
                let record = ofApp[Int(items[item].receipt)].transactions[Int(items[item].index)]
                let leader = Int(first[item])
                cancellation[leader] = min(cancellation[leader], record.cancellation)
            }
            var products: Set<String> = []
            for item in items.indices where Int(first[item]) == item {
                let receipt = ofApp[Int(items[item].receipt)]
                let record = receipt.transactions[Int(items[item].index)]
                guard record.purchase <= at, cancellation[item] > at else { continue }
                let product = receipt.text(record.productId)!
                if record.flags & TransactionRecord.familyShared != 0 {
                    guard let required = catalogs[app], let index = required.productIndex[product],
                          required.compiledProducts[index].familyShareable else { continue }
                }
                products.insert(product)
            }
            purchased[app] = products
        }
    }

    /// Whether some receipt of the required app shows a qualifying purchase.
    func meets(_ requirement: UpgradeRequirement) -> Bool {
        guard appsWithReceipts.contains(requirement.app) else { return false }
        guard let anyOf = requirement.anyOf else { return true }
        guard let products = purchased[requirement.app] else { return false }
        return !products.isDisjoint(with: anyOf)
    }
}
