/// A customer of the search, and the receipts it stands for.
///
/// Customers are canonical: the first element is placed at the base instant and the others after
/// it, transaction ids are `1`, `2`, ... in that order, grant ids `grant-1`, ...; so customers
/// that differ only by renaming, or by shifting in time, are one customer. The base is
/// ``ReceiptSpace/base``, or placed against the catalogs' absolute instants (``ProofSearch``).
extension ReceiptSpace {
    /// One element of a customer, placed in time.
    struct Placed: Hashable, Sendable {
        /// Index in ``ReceiptSpace/atoms``.
        var atom: Int
        /// Milliseconds after the customer's first purchase.
        var offset: Int64
        /// The placed element (by position) whose subscription chain this one continues at its
        /// expiry (a renewal, or a crossgrade in the group), or whose trial it restores.
        var continues: Int? = nil
    }

    /// A customer: elements placed in time, and the receipt facts (an index in ``facts``).
    struct Customer: Hashable, Sendable {
        var placed: [Placed] = []
        var facts = 0

        /// The offset of the latest placed element (0 without any).
        var lastOffset: Int64 { placed.map(\.offset).max() ?? 0 }
    }

    /// The elements of a customer, ascending, an element as often as it is placed.
    func elements(of customer: Customer) -> [Int] {
        customer.placed.map { atoms[$0.atom].element }.sorted()
    }

    /// The receipts of a customer whose first element is at `base`: the app's own receipt (with
    /// the receipt facts), then one receipt per other app's receipt; `nil` when an instant would
    /// fall outside years 0001-9999.
    func receipts(of customer: Customer, base: Int64) -> [Receipt]? {
        let earliest = Instant.earliest.millisecondsSince1970
        let latest = Instant.latest.millisecondsSince1970
        var outOfRange = false
        func instant(_ milliseconds: Int64) -> Instant {
            if milliseconds < earliest || milliseconds > latest { outOfRange = true }
            return Instant(millisecondsSince1970: min(max(milliseconds, earliest), latest))
        }
        func after(_ start: Instant, _ milliseconds: Int64) -> Instant {
            let (sum, overflow) = start.millisecondsSince1970.addingReportingOverflow(milliseconds)
            if overflow { outOfRange = true }
            return instant(overflow ? latest : sum)
        }
        var own = Receipt(app: app, environment: environment)
        let facts = self.facts[customer.facts]
        if let version = facts.version { own.originalApplicationVersion = Self.versionText(version) }
        own.originalPlatform = facts.platform
        switch facts.purchase {
        case .base?: own.originalPurchaseDate = instant(base)
        case .absolute(let value)?: own.originalPurchaseDate = instant(value)
        case nil: break
        }
        var others: [Receipt] = []
        // The app's receipts of the other stores, by store: a product's key names its store.
        var stores: [Store: Receipt] = [:]
        // Each placed element's transaction, for those that continue it.
        var built: [Transaction?] = []
        for (position, placed) in customer.placed.enumerated() {
            let atom = atoms[placed.atom]
            let number = String(position + 1)
            let at = after(instant(base), placed.offset)
            switch (elements[atom.element], atom.way) {
            case (.product(let key), .purchase(let purchase)):
                let (store, product) = Store.split(key: key)
                var transaction = Transaction(productId: product, transactionId: number, originalTransactionId: number, purchaseDate: at)
                if let prior = placed.continues.flatMap({ built[$0] }) {
                    transaction.originalTransactionId = prior.originalTransactionId ?? prior.transactionId
                    transaction.originalPurchaseDate = prior.originalPurchaseDate ?? prior.purchaseDate
                    if let expiry = prior.expiresDate { transaction.purchaseDate = expiry }
                }
                apply(purchase, to: &transaction, after: after)
                var renewal: Renewal?
                if let way = purchase.renewal, let chain = transaction.originalTransactionId {
                    renewal = Self.entry(way, product: product, chain: chain, expires: transaction.expiresDate, after: after)
                }
                if store == .appStore {
                    own.transactions.append(transaction)
                    if let renewal { own.renewals.append(renewal) }
                } else {
                    var receipt = stores[store] ?? Receipt(app: app, environment: environment, store: store)
                    receipt.transactions.append(transaction)
                    if let renewal { receipt.renewals.append(renewal) }
                    stores[store] = receipt
                }
                built.append(transaction)
            case (.grant(let feature), .grant):
                own.grants.append(Grant(id: "grant-\(number)", features: [feature], start: at, end: after(at, Self.grantLength)))
                built.append(nil)
            case (.prerequisite(let required), .prerequisite(let product, let purchase)):
                var receipt = Receipt(app: required, environment: environment)
                if let product {
                    var transaction = Transaction(productId: product, transactionId: number, originalTransactionId: number, purchaseDate: at)
                    apply(purchase, to: &transaction, after: after)
                    receipt.transactions = [transaction]
                } else {
                    receipt.originalPurchaseDate = at
                }
                others.append(receipt)
                built.append(nil)
            default:
                built.append(nil)
            }
        }
        let storeReceipts = Store.allCases.compactMap { stores[$0] }
        return outOfRange ? nil : [own] + storeReceipts + others
    }

    /// Writes a way's fields into a transaction bought at its `purchaseDate`.
    private func apply(_ purchase: Purchase, to transaction: inout Transaction, after: (Instant, Int64) -> Instant) {
        let at = transaction.purchaseDate
        transaction.quantity = purchase.quantity
        transaction.isTrialPeriod = purchase.trialPeriod
        transaction.isIntroOfferPeriod = purchase.introPeriod
        transaction.isUpgraded = purchase.upgraded
        if purchase.familyShared { transaction.ownership = .familyShared }
        transaction.offerType = purchase.offerType
        transaction.offerId = purchase.offerId
        transaction.pending = purchase.pending
        if purchase.unacknowledged { transaction.acknowledged = false }
        switch purchase.expiry {
        case .period(let duration)?: transaction.expiresDate = duration.added(to: at)
        case .milliseconds(let length)?: transaction.expiresDate = after(at, length)
        case nil: break
        }
        switch purchase.refund {
        case .full?:
            transaction.cancellationDate = after(at, Self.refundDelay)
        case .half?:
            transaction.cancellationDate = after(at, Self.refundDelay)
            transaction.revocationType = .refundProrated
            transaction.revocationPercentage = 50
        case nil: break
        }
    }

    /// The renewal entry a way gives a chain.
    private static func entry(
        _ way: RenewalWay, product: String, chain: String, expires: Instant?, after: (Instant, Int64) -> Instant
    ) -> Renewal {
        var renewal = Renewal(productId: product, originalTransactionId: chain, willRenew: true)
        switch way {
        case .autoRenewOff:
            renewal.willRenew = false
        case .grace:
            renewal.isInBillingRetry = true
            if let expires { renewal.gracePeriodExpiresDate = after(expires, gracePeriod) }
        case .billingRetry:
            renewal.isInBillingRetry = true
        case .renewsTo(let other):
            renewal.renewsTo = other
        case .winBackList(let offers):
            renewal.willRenew = false
            renewal.winBackOffers = offers
        case .paused:
            if let expires { renewal.pausedUntil = after(expires, gracePeriod) }
        }
        return renewal
    }

    /// Whether `next` may continue the chain of `previous`: auto-renewables of one subscription
    /// group (a renewal, or a crossgrade), the first without a renewal entry of its own; or the
    /// same trial bought plainly twice (a restore).
    func mayContinue(_ previous: Int, with next: Int) -> Bool {
        let first = atoms[previous]
        let second = atoms[next]
        guard case .product(let a) = elements[first.element], case .product(let b) = elements[second.element],
            case .purchase(let p) = first.way, case .purchase(let q) = second.way
        else { return false }
        if p.expiry != nil, q.expiry != nil, p.renewal == nil {
            return present.contains { catalog in
                guard let x = catalog.productIndex[a], let y = catalog.productIndex[b] else { return false }
                let group = catalog.compiledProducts[x].group
                return group >= 0 && group == catalog.compiledProducts[y].group
            }
        }
        guard a == b, p == Purchase(), q == Purchase() else { return false }
        return definitions(of: a).contains { $0.trialPaidProduct != nil }
    }

    /// Where a new element may be placed after the elements placed so far: at each instant
    /// where an answer to the customer so far changes (`boundaries`, relative to the first
    /// purchase, with each placed element's purchase), less each instant where the new element's
    /// own answer changes (`own`, relative to its purchase), and a millisecond later; from `lower`
    /// on. These are the placements at which the order of the two customers' changes differs:
    /// between two of them the new element's changes all fall between the same changes of the
    /// others.
    static func placements(after boundaries: [Int64], own: [Int64], from lower: Int64) -> [Int64] {
        var result = Set<Int64>()
        for boundary in boundaries {
            for change in own {
                let (x, overflow) = boundary.subtractingReportingOverflow(change)
                guard !overflow else { continue }
                if x >= lower { result.insert(x) }
                if x < .max, x + 1 >= lower { result.insert(x + 1) }
            }
        }
        return result.sorted()
    }

    /// The customer as lines for people: each element with its way and instant, and the
    /// receipt facts.
    func describe(_ customer: Customer, receipts: [Receipt]) -> [String] {
        var lines: [String] = []
        let facts = self.facts[customer.facts]
        if !facts.isNone, let own = receipts.first {
            var parts: [String] = []
            if let version = own.originalApplicationVersion { parts.append("originalApplicationVersion \(version)") }
            if let date = own.originalPurchaseDate { parts.append("originalPurchaseDate \(date.rfc3339)") }
            if let platform = own.originalPlatform { parts.append("originalPlatform \(platform.rawValue)") }
            lines.append("\(app) receipt: " + parts.joined(separator: ", "))
        }
        // As ``receipts(of:base:)`` builds them: the app's receipt of each store holds its
        // products' transactions in placing order, other apps' receipts follow.
        var transactions: [Store: ArraySlice<Transaction>] = [:]
        for receipt in receipts where receipt.app == app { transactions[receipt.store, default: []] += receipt.transactions }
        var grants = receipts.first?.grants[...] ?? []
        var others = receipts.filter { $0.app != app }[...]
        for placed in customer.placed {
            let atom = atoms[placed.atom]
            switch elements[atom.element] {
            case .product(let product):
                guard let transaction = transactions[Store.split(key: product).store]?.popFirst() else { continue }
                var line = "\(product) at \(transaction.purchaseDate.rfc3339): \(atom.label) (transaction \(transaction.transactionId))"
                if let continued = placed.continues {
                    line +=
                        atom.way == .purchase(Purchase())
                        ? ", restoring transaction \(continued + 1)"
                        : ", continuing the chain of transaction \(continued + 1)"
                }
                lines.append(line)
            case .grant(let feature):
                guard let grant = grants.popFirst() else { continue }
                lines.append("grant of \(feature) from \(grant.start.rfc3339) to \(grant.end?.rfc3339 ?? "no end")")
            case .prerequisite(let required):
                guard let receipt = others.popFirst() else { continue }
                let at = receipt.transactions.first?.purchaseDate ?? receipt.originalPurchaseDate
                lines.append("\(required) receipt at \(at?.rfc3339 ?? ""): \(atom.label)")
            }
        }
        if lines.isEmpty { lines.append("no purchase") }
        return lines
    }
}
