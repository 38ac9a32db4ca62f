@testable import Entitle

/// The reference evaluator: the rules of `Sources/Entitle/Entitle.docc/EvaluationRules.md` ("How
/// evaluation decides") applied in the most direct way, over `Receipt` values, with no attention
/// to speed, written apart from the compiled evaluator (it reads the same compiled catalog). It
/// finds `reevaluateAt` by brute force, evaluating at every instant where something could change,
/// in order, until the answer differs. The compiled evaluator is checked against it on generated
/// catalogs and receipts (`DifferentialTests`, `AgreementTests`).
enum ReferenceEvaluator {
    /// A transaction after deduplication.
    private struct Merged {
        var transaction: Transaction
        var product: Int
        var cancellation: Int64?
    }

    /// What evaluation learns about one product from its transactions.
    private struct ProductFacts {
        var visible = 0
        var latest: Transaction?
        var latestCancelled = false
        var firstCountedPurchase = Int64.max
        /// The first counted purchase in purchase order, and where its ownership ends.
        var firstCounted: Transaction?
        var firstCountedEnd = CoverageSpan.never
        var hasCounted = false
        var trialStart = Int64.max
        var spans: [CoverageSpan] = []
        var stack: [Transaction] = []
        var willRenew: Bool?
        var renewsTo: String?
        var retry = false
        var pausedUntil: Instant?
        /// The chain the status comes from: latest expiry, then latest entry (signing date, place).
        var latestCounted: Transaction?
        var renewalPrice: Price?
        /// Every transaction of the product known at the instant, upgraded ones aside.
        var bought: [Transaction] = []
        /// The latest instant after which a counted prepaid purchase may be topped up.
        var topUpAfter: Int64 = .min
        /// Every counted transaction's purchase, expiry and quantity (number limits read them).
        var counted: [(purchase: Int64, expires: Int64?, quantity: Int64)] = []
        /// Each counted or revoked transaction's span of allowance deposits (the ledger reads them).
        var windows: [ReferenceLedger.Window] = []
    }

    /// Evaluates, with `reevaluateAt` found by brute force.
    static func evaluate(
        _ catalog: CompiledCatalog, receipts: [Receipt], at instant: Instant, environments: Set<String>? = nil,
        catalogs: [String: CompiledCatalog] = [:], accounts: [String] = [], storefront: String? = nil
    ) -> ReferenceResult {
        let at = instant.millisecondsSince1970
        var (result, candidates) = answer(
            catalog, receipts: receipts, at: at, environments: environments, catalogs: catalogs, accounts: accounts, storefront: storefront)
        // Try every instant where something could change, in order, until the answer differs.
        var tried: Set<Int64> = []
        while let next = candidates.filter({ $0 > at && !tried.contains($0) }).min() {
            tried.insert(next)
            let (later, more) = answer(
                catalog, receipts: receipts, at: next, environments: environments, catalogs: catalogs, accounts: accounts, storefront: storefront)
            if !later.sameAnswer(as: result) {
                result.reevaluateAt = Instant(millisecondsSince1970: next)
                return result
            }
            candidates.formUnion(more)
        }
        result.reevaluateAt = nil
        return result
    }

    /// Every instant at which the answer at `at` could change (dates in the data, starts and ends
    /// of coverage), without the brute-force search.
    static func candidateInstants(
        _ catalog: CompiledCatalog, receipts: [Receipt], at instant: Instant, environments: Set<String>? = nil
    ) -> Set<Int64> {
        answer(catalog, receipts: receipts, at: instant.millisecondsSince1970, environments: environments, catalogs: [:], accounts: []).1
    }

    /// The answer at `at`, and every instant at which something in it could change: each date in
    /// the data and each start and end of coverage computed.
    private static func answer(
        _ catalog: CompiledCatalog, receipts allReceipts: [Receipt], at: Int64, environments: Set<String>?,
        catalogs: [String: CompiledCatalog], accounts: [String], storefront: String? = nil
    ) -> (ReferenceResult, Set<Int64>) {
        let products = catalog.compiledProducts
        var warnings: [EvaluationWarning] = []
        var candidates: Set<Int64> = []

        var receipts: [Receipt] = []
        for receipt in allReceipts {
            // Apple's raw values and the normalized names are one: compared without case, and
            // `LocalTesting` is `local-testing`.
            func canonical(_ text: String) -> String { text.lowercased() == "localtesting" ? "local-testing" : text.lowercased() }
            let environment = receipt.environment ?? "production"
            if let environments, !environments.map(canonical).contains(canonical(environment)) {
                warnings.append(EvaluationWarning(kind: .environmentIgnored(app: receipt.app, environment: environment)))
            } else {
                receipts.append(receipt)
            }
        }
        // Play's replacements: a subscription naming a purchase token it replaced cuts that
        // token's chain (the token, or `<token>:<product>`) at its start, in whichever of the
        // app's Play receipts each is, and that chain's renewal entries renew no more.
        var replacedAt: [String: Int64] = [:]
        for receipt in receipts where receipt.app == catalog.app && receipt.store == .play {
            for transaction in receipt.transactions {
                guard let token = transaction.linkedPurchaseToken else { continue }
                replacedAt[token] = min(replacedAt[token] ?? .max, transaction.purchaseDate.millisecondsSince1970)
            }
        }
        if !replacedAt.isEmpty {
            func cut(_ chain: String?) -> Int64? {
                guard let chain else { return nil }
                return replacedAt[chain] ?? replacedAt[String(chain.prefix { $0 != ":" })]
            }
            receipts = receipts.map { receipt in
                guard receipt.app == catalog.app, receipt.store == .play else { return receipt }
                var receipt = receipt
                for index in receipt.transactions.indices {
                    guard let end = cut(receipt.transactions[index].originalTransactionId),
                        let expiry = receipt.transactions[index].expiresDate?.millisecondsSince1970, expiry > end
                    else { continue }
                    let purchase = receipt.transactions[index].purchaseDate.millisecondsSince1970
                    receipt.transactions[index].expiresDate = Instant(millisecondsSince1970: max(end, purchase))
                }
                for index in receipt.renewals.indices where cut(receipt.renewals[index].originalTransactionId) != nil {
                    receipt.renewals[index].willRenew = false
                    receipt.renewals[index].isInBillingRetry = nil
                    receipt.renewals[index].gracePeriodExpiresDate = nil
                    receipt.renewals[index].pausedUntil = nil
                }
                return receipt
            }
        }
        // Another store's ids are qualified with the store (`play:5`), as product keys are: one
        // store's transaction and chain ids never meet another's. `name` gives back the id as the
        // receipt writes it, for messages; `storeOf` the store of a qualified transaction id.
        var rawIds: [String: String] = [:]
        var storeOf: [String: Store] = [:]
        var chainStore: [String: Store] = [:]
        func name(_ id: String) -> String { rawIds[id] ?? id }
        let own = receipts.filter { $0.app == catalog.app }.map { receipt -> Receipt in
            var qualified = receipt
            func q(_ id: String) -> String {
                let key = receipt.store.key(of: id)
                rawIds[key] = id
                return key
            }
            qualified.transactions = receipt.transactions.map { transaction in
                var transaction = transaction
                transaction.transactionId = q(transaction.transactionId)
                storeOf[transaction.transactionId] = receipt.store
                transaction.originalTransactionId = transaction.originalTransactionId.map(q)
                // A purchase option names `<productId>:<option>` when the catalog declares it.
                let option = transaction.purchaseOptionId.map { receipt.store.key(of: "\(transaction.productId):\($0)") }
                transaction.productId = option.flatMap { catalog.productIndex[$0] == nil ? nil : $0 } ?? receipt.store.key(of: transaction.productId)
                return transaction
            }
            qualified.renewals = receipt.renewals.map { renewal in
                var renewal = renewal
                renewal.originalTransactionId = q(renewal.originalTransactionId)
                chainStore[renewal.originalTransactionId] = receipt.store
                renewal.productId = renewal.productId.map { receipt.store.key(of: $0) }
                renewal.renewsTo = renewal.renewsTo.map { receipt.store.key(of: $0) }
                return renewal
            }
            return qualified
        }
        /// Whether an item naming `token` in a receipt of `store` counts for the accounts: it
        /// names one of them (an App Store token is a UUID matching without case; another store's
        /// account matches exactly, or without case when both are UUIDs), or none at all.
        func counts(_ token: String?, store: Store) -> Bool {
            guard !accounts.isEmpty, let token else { return true }
            return accounts.contains { account in
                let uuid = AccountToken.canonical(account)
                if store == .appStore { return uuid != nil && token.lowercased() == uuid }
                return token == account || (uuid != nil && AccountToken.canonical(token) == uuid)
            }
        }
        // Receipts of an app with no catalog in the portfolio that no upgrade requires count for
        // nothing: one warning per such app.
        var unrelated: Set<String> = []
        for receipt in receipts
        where receipt.app != catalog.app && catalogs[receipt.app] == nil
            && !catalog.requiredApps.contains(receipt.app) && unrelated.insert(receipt.app).inserted
        {
            let known = [catalog.app] + catalog.requiredApps + catalogs.keys.sorted()
            warnings.append(EvaluationWarning(kind: .unrelatedReceipt(app: receipt.app, suggestion: Suggestion.closest(to: receipt.app, in: known))))
        }
        for receipt in receipts {
            for transaction in receipt.transactions {
                candidates.insert(transaction.purchaseDate.millisecondsSince1970)
                if let date = transaction.cancellationDate { candidates.insert(date.millisecondsSince1970) }
                for item in transaction.items { if let date = item.endsAt { candidates.insert(date.millisecondsSince1970) } }
                if let date = transaction.signedDate { candidates.insert(date.millisecondsSince1970) }
                if let date = transaction.releaseDate { candidates.insert(date.millisecondsSince1970) }
                if let date = transaction.topUpAfter { candidates.insert(date.millisecondsSince1970) }
                if transaction.acknowledged == false, !transaction.pending {
                    candidates.insert(acknowledgementStart(transaction) + 3 * CivilCalendar.millisecondsPerDay)
                }
            }
            for consumption in receipt.consumptions { candidates.insert(consumption.date.millisecondsSince1970) }
            for renewal in receipt.renewals {
                if let date = renewal.signedDate { candidates.insert(date.millisecondsSince1970) }
                if let date = renewal.pausedUntil { candidates.insert(date.millisecondsSince1970) }
            }
            for grant in receipt.grants {
                candidates.insert(grant.start.millisecondsSince1970)
                if let date = grant.end { candidates.insert(date.millisecondsSince1970) }
                if let date = grant.revokedAt { candidates.insert(date.millisecondsSince1970) }
            }
            if let date = receipt.originalPurchaseDate { candidates.insert(date.millisecondsSince1970) }
        }

        // 1. Copies of one transaction id are snapshots: the latest signed by `at` stands for it
        //    (unsigned copies first), else the earliest; copies of one rank merge (earliest
        //    cancellation with its revocation fields, latest expiry, the rest from the copy whose
        //    normalized JSON sorts first by bytes).
        var merged: [Merged] = []
        var copiesById: [String: [Transaction]] = [:]
        var idOrder: [String] = []
        for receipt in own {
            for transaction in receipt.transactions {
                if copiesById[transaction.transactionId] == nil { idOrder.append(transaction.transactionId) }
                copiesById[transaction.transactionId, default: []].append(transaction)
                if !(1...ReceiptLimits.maxQuantity).contains(transaction.quantity), copiesById[transaction.transactionId]!.count == 1 {
                    warnings.append(
                        EvaluationWarning(kind: .quantityOutOfRange(transactionId: name(transaction.transactionId), quantity: transaction.quantity)))
                }
            }
        }
        // Refunds and voids reported apart (`revocations`), from any receipt of the app: each
        // names a purchase of its receipt's store, the transaction of that id or its lines `<id>:<n>`.
        var factsOf: [String: Set<Revocation>] = [:]
        for receipt in receipts where receipt.app == catalog.app {
            for fact in receipt.revocations {
                factsOf[receipt.store.key(of: fact.transactionId), default: []].insert(fact)
                rawIds[receipt.store.key(of: fact.transactionId)] = fact.transactionId
                candidates.insert(fact.date.millisecondsSince1970)
            }
        }
        func purchaseNamed(_ id: String) -> String? {
            if factsOf[id] != nil { return id }
            guard let colon = id.lastIndex(of: ":"), id[id.index(after: colon)...].allSatisfy(\.isWholeNumber),
                colon < id.index(before: id.endIndex)
            else { return nil }
            let purchase = String(id[..<colon])
            return factsOf[purchase] != nil ? purchase : nil
        }
        var namedPurchases: Set<String> = []
        for id in idOrder { if let purchase = purchaseNamed(id) { namedPurchases.insert(purchase) } }
        for key in factsOf.keys.sorted() where !namedPurchases.contains(key) {
            let (store, _) = Store.split(key: key)
            warnings.append(EvaluationWarning(kind: .unmatchedRevocation(transactionId: name(key), store: store)))
        }
        var otherAccounts: Set<String> = []
        for id in idOrder {
            var (transaction, conflicting) = standing(copiesById[id]!, at: at)
            if conflicting { warnings.append(EvaluationWarning(kind: .conflictingTransaction(transactionId: name(id)))) }
            if let purchase = purchaseNamed(id) {
                let horizon = max(at, transaction.signedDate?.millisecondsSince1970 ?? .min)
                transaction = Self.revoke(transaction, by: factsOf[purchase]!, knownBy: horizon)
            }
            let store = storeOf[id] ?? .appStore
            let token =
                store == .appStore ? transaction.appAccountToken?.lowercased() : (transaction.account ?? transaction.appAccountToken?.lowercased())
            if !counts(token, store: store) {
                if transaction.purchaseDate.millisecondsSince1970 <= at, catalog.productIndex[transaction.productId] != nil {
                    otherAccounts.insert(token!)
                }
                if catalog.productIndex[transaction.productId] != nil { continue }
            }
            // A Play purchase not acknowledged is refunded in full three days after its purchase
            // (once it is paid: a pending one has nothing to acknowledge yet).
            if transaction.acknowledged == false, !transaction.pending {
                let deadline = acknowledgementStart(transaction) + 3 * CivilCalendar.millisecondsPerDay
                if deadline < transaction.cancellationDate?.millisecondsSince1970 ?? .max {
                    transaction.cancellationDate = Instant(millisecondsSince1970: deadline)
                    transaction.revocationType = .refundFull
                    transaction.revocationPercentage = nil
                }
            }
            merged.append(
                Merged(
                    transaction: transaction, product: catalog.productIndex[transaction.productId] ?? -1,
                    cancellation: transaction.cancellationDate?.millisecondsSince1970))
        }
        // Renewal entries of another account, signed by `at`, count for nothing and are warned
        // about as transactions are.
        for receipt in own {
            for renewal in receipt.renewals where (renewal.signedDate?.millisecondsSince1970 ?? .min) <= at {
                let store = receipt.store
                let token = store == .appStore ? renewal.appAccountToken?.lowercased() : (renewal.account ?? renewal.appAccountToken?.lowercased())
                if !counts(token, store: store) { otherAccounts.insert(token!) }
            }
        }
        for token in otherAccounts { warnings.append(EvaluationWarning(kind: .otherAccount(account: token))) }

        // 2. What each product's transactions say.
        var facts = [ProductFacts](repeating: ProductFacts(), count: products.count)
        var balances = [Int64](repeating: 0, count: catalog.currencyIds.count)
        var everBought = FeatureSet(capacity: products.count)
        // Advanced Commerce: per product with `items`, its counted transactions; SKUs a product
        // does not declare (product, SKU).
        var itemTransactions: [Int: [Transaction]] = [:]
        // Consumable purchases' credits, and the consumptions that count: what the ledger reads.
        var packs: [ReferenceLedger.Pack] = []
        var ledgerUses: [Consumption] = []
        var unknownItems: Set<[String]> = []
        /// The catalog's item of a transaction's SKU, or `nil` (noted) when the product declares none.
        func declaredItem(_ product: CompiledProduct, _ sku: String) -> CompiledItem? {
            guard let item = product.items?.first(where: { $0.sku == sku }) else {
                unknownItems.insert([product.id, sku])
                return nil
            }
            return item
        }
        var introUsed = FeatureSet(capacity: catalog.groups.count)
        // Groups with any transaction known at `at`: an intro offer for new subscribers is used up.
        var boughtInGroup = FeatureSet(capacity: catalog.groups.count)
        var unknownProducts: [String: Int] = [:]
        var unknownOrder: [String] = []
        var subscriptionTransactions: [(transaction: Transaction, product: Int)] = []
        // Every counted auto-renewable transaction, with an expiry or not (offer conditions read them).
        var countedSubscriptions: [(transaction: Transaction, product: Int)] = []
        // Per group: the latest end of what a refunded subscription covered before its refund.
        var refundedEnds: [Int: Int64] = [:]
        // Products with a purchase not paid yet, and the earliest such purchase.
        var pendingSince: [Int: Int64] = [:]
        // Products with a pre-order not released, and the earliest such release.
        var preordered: [Int: Int64] = [:]
        for entry in merged {
            var transaction = entry.transaction
            var purchase = transaction.purchaseDate.millisecondsSince1970
            guard purchase <= at else { continue }
            guard entry.product >= 0 else {
                if unknownProducts[transaction.productId] == nil { unknownOrder.append(transaction.productId) }
                unknownProducts[transaction.productId, default: 0] += 1
                continue
            }
            let product = products[entry.product]
            if transaction.ownership == .familyShared && !product.sharesWithFamily {
                warnings.append(EvaluationWarning(kind: .notFamilyShareable(transactionId: name(transaction.transactionId), productId: product.id)))
                continue
            }
            let cancelled = entry.cancellation.map { $0 <= at } ?? false
            // Bought, not paid yet: it counts for nothing; its product is `pending`.
            if transaction.pending, !cancelled {
                if product.type != .consumable { pendingSince[entry.product] = min(pendingSince[entry.product] ?? .max, purchase) }
                continue
            }
            // A pre-order counts from its release: before, for nothing (its product `preordered`).
            if let release = transaction.releaseDate?.millisecondsSince1970, release > purchase {
                if release > at {
                    if !cancelled, product.type != .consumable { preordered[entry.product] = min(preordered[entry.product] ?? .max, release) }
                    continue
                }
                purchase = release
                transaction.purchaseDate = Instant(millisecondsSince1970: release)
            }
            if transaction.acknowledged == false {
                warnings.append(
                    EvaluationWarning(
                        kind: .unacknowledged(
                            transactionId: name(transaction.transactionId), productId: product.id,
                            deadline: Instant(millisecondsSince1970: purchase + 3 * CivilCalendar.millisecondsPerDay))))
            }
            // A Play purchase not acknowledged covers only until Google refunds it.
            func capped(_ end: Int64) -> Int64 { transaction.acknowledged == false ? min(end, entry.cancellation ?? .max) : end }
            everBought.insert(entry.product)
            if product.group >= 0, transaction.isTrialPeriod || transaction.isIntroOfferPeriod { introUsed.insert(product.group) }
            if product.group >= 0 { boughtInGroup.insert(product.group) }
            if product.type == .consumable {
                if !transaction.isUpgraded {
                    // A refund takes back its share of the units, rounded half up (all without a share).
                    let quantity = countedQuantity(transaction.quantity)
                    var units = quantity
                    if cancelled {
                        if let share = transaction.revocationPercentage {
                            let thousandths = Int((min(max(share, 0), 100) * 1_000).rounded())
                            let refunded = min(quantity, (quantity * thousandths + 50_000) / 100_000)
                            units = quantity - refunded
                        } else {
                            units = 0
                        }
                    }
                    if product.items != nil {
                        // Each item credits per unit until it ends (revoked, or refunded in full).
                        for item in transaction.items where units > 0 {
                            guard let declared = declaredItem(product, item.sku) else { continue }
                            guard (item.endsAt?.millisecondsSince1970 ?? .max) > at else { continue }
                            for (currency, amount) in declared.credits {
                                balances[currency] += amount * Int64(units)
                                packs.append(
                                    ReferenceLedger.Pack(
                                        currency: catalog.currencyIds[currency], amount: amount * Int64(units), at: purchase, source: product.id,
                                        transaction: name(transaction.transactionId)))
                            }
                        }
                    } else {
                        for (currency, amount) in product.credits where units > 0 {
                            balances[currency] += amount * Int64(units)
                            packs.append(
                                ReferenceLedger.Pack(
                                    currency: catalog.currencyIds[currency], amount: amount * Int64(units), at: purchase, source: product.id,
                                    transaction: name(transaction.transactionId)))
                        }
                    }
                }
                continue
            }
            // A refunded subscription covered until its refund: history a group's lapse counts from.
            if cancelled, !transaction.isUpgraded, product.type == .autoRenewableSubscription, product.group >= 0,
                let expires = transaction.expiresDate?.millisecondsSince1970, let cancellation = entry.cancellation,
                min(expires, cancellation) > purchase
            {
                refundedEnds[product.group] = max(refundedEnds[product.group] ?? .min, min(expires, cancellation))
            }
            var fact = facts[entry.product]
            fact.visible += 1
            if !transaction.isUpgraded { fact.bought.append(transaction) }
            if fact.latest == nil || comesBefore(fact.latest!, transaction) {
                fact.latest = transaction
                fact.latestCancelled = cancelled
            }
            fact.trialStart = min(fact.trialStart, transaction.originalPurchaseDate?.millisecondsSince1970 ?? purchase, purchase)
            if !cancelled && !transaction.isUpgraded {
                if product.items != nil { itemTransactions[entry.product, default: []].append(transaction) }
                fact.counted.append((purchase, transaction.expiresDate?.millisecondsSince1970, Int64(countedQuantity(transaction.quantity))))
                fact.hasCounted = true
                if let topUp = transaction.topUpAfter?.millisecondsSince1970 { fact.topUpAfter = max(fact.topUpAfter, topUp) }
                if fact.latestCounted.map({ comesBefore($0, transaction) }) ?? true { fact.latestCounted = transaction }
                if product.type == .autoRenewableSubscription { countedSubscriptions.append((transaction, entry.product)) }
                switch product.type {
                case .nonConsumable:
                    // Owned from the first counted purchase in purchase order (until Google's refund,
                    // when that one is an unacknowledged Play purchase).
                    if fact.firstCounted.map({ comesBefore(transaction, $0) }) ?? true {
                        fact.firstCounted = transaction
                        fact.firstCountedEnd = capped(CoverageSpan.never)
                    }
                    fact.firstCountedPurchase = min(fact.firstCountedPurchase, purchase)
                case .nonRenewingSubscription:
                    fact.stack.append(transaction)
                case .autoRenewableSubscription:
                    if let expires = transaction.expiresDate?.millisecondsSince1970 {
                        if capped(expires) > purchase {
                            fact.spans.append(CoverageSpan(start: purchase, end: capped(expires)))
                            fact.windows.append(ReferenceLedger.Window(transaction: transaction, start: purchase, end: capped(expires)))
                        }
                        subscriptionTransactions.append((transaction, entry.product))
                    } else {
                        warnings.append(
                            EvaluationWarning(kind: .missingExpiry(transactionId: name(transaction.transactionId), productId: product.id)))
                    }
                case .consumable:
                    break
                }
            }
            // A revoked transaction deposits up to its revocation, where its deposits end.
            if cancelled, !transaction.isUpgraded, let cancellation = entry.cancellation {
                var start = purchase
                var end: Int64?
                switch product.type {
                case .autoRenewableSubscription: end = transaction.expiresDate?.millisecondsSince1970
                case .nonRenewingSubscription: end = passEnd(product, transaction, from: purchase)
                case .nonConsumable:
                    if case .trial(let days, _) = product.role {
                        start = min(purchase, transaction.originalPurchaseDate?.millisecondsSince1970 ?? purchase)
                        end = start + Int64(days) * CivilCalendar.millisecondsPerDay
                    } else {
                        end = .max
                    }
                case .consumable: end = nil
                }
                if let end, min(end, cancellation) > start {
                    let last = min(end, cancellation)
                    fact.windows.append(ReferenceLedger.Window(transaction: transaction, start: start, end: last, access: last))
                }
            }
            facts[entry.product] = fact
        }
        for id in unknownOrder {
            let suggestion = Suggestion.closest(to: id, in: products.map(\.id))
            warnings.append(EvaluationWarning(kind: .unknownProduct(productId: id, count: unknownProducts[id]!, suggestion: suggestion)))
        }

        // 3. Trials, non-consumables and passes.
        var passGroups: [Int: [(transaction: Transaction, product: Int)]] = [:]
        for index in products.indices where facts[index].hasCounted {
            let product = products[index]
            switch product.type {
            case .nonConsumable:
                if case .trial(let days, _) = product.role {
                    let start = facts[index].trialStart
                    let end = start + Int64(days) * CivilCalendar.millisecondsPerDay
                    facts[index].spans.append(CoverageSpan(start: start, end: end))
                    facts[index].windows.append(ReferenceLedger.Window(transaction: facts[index].firstCounted!, start: start, end: end, access: end))
                } else {
                    let (start, end) = (facts[index].firstCountedPurchase, facts[index].firstCountedEnd)
                    facts[index].spans.append(CoverageSpan(start: start, end: end))
                    facts[index].windows.append(ReferenceLedger.Window(transaction: facts[index].firstCounted!, start: start, end: end, access: end))
                }
            case .nonRenewingSubscription where product.passGroup >= 0:
                passGroups[product.passGroup, default: []] += facts[index].stack.map { ($0, index) }
            case .nonRenewingSubscription:
                var end = Int64.min
                for transaction in facts[index].stack.sorted(by: comesBefore) {
                    let start = max(transaction.purchaseDate.millisecondsSince1970, end)
                    end = max(Self.capped(transaction, passEnd(product, transaction, from: start)), start)
                    facts[index].spans.append(CoverageSpan(start: start, end: end))
                    facts[index].windows.append(ReferenceLedger.Window(transaction: transaction, start: start, end: end))
                }
            default:
                break
            }
        }
        for (_, purchases) in passGroups {
            var end = Int64.min
            for (transaction, index) in purchases.sorted(by: { comesBefore($0.transaction, $1.transaction) }) {
                let start = max(transaction.purchaseDate.millisecondsSince1970, end)
                end = max(Self.capped(transaction, passEnd(products[index], transaction, from: start)), start)
                facts[index].spans.append(CoverageSpan(start: start, end: end))
                facts[index].windows.append(ReferenceLedger.Window(transaction: transaction, start: start, end: end))
            }
        }

        // 4. Renewal entries: orphans; per chain, each field from the latest counted entry stating
        //    it (entries of one rank: the one whose normalized JSON sorts first), stale grace,
        //    grace, and what the chain says about its product.
        let renewals = own.flatMap(\.renewals)
        func rank(_ renewal: Renewal) -> Int64 { renewal.signedDate?.millisecondsSince1970 ?? .min }
        func counted(_ renewal: Renewal) -> Bool {
            guard rank(renewal) <= at else { return false }
            let store = chainStore[renewal.originalTransactionId] ?? .appStore
            return counts(
                store == .appStore ? renewal.appAccountToken?.lowercased() : (renewal.account ?? renewal.appAccountToken?.lowercased()), store: store)
        }
        if !renewals.isEmpty {
            let chains = Set(own.flatMap(\.transactions).map { $0.originalTransactionId ?? $0.transactionId })
            var orphans: Set<String> = []
            for renewal in renewals where !chains.contains(renewal.originalTransactionId) && rank(renewal) <= at {
                if orphans.insert(renewal.originalTransactionId).inserted {
                    warnings.append(EvaluationWarning(kind: .orphanRenewal(originalTransactionId: name(renewal.originalTransactionId))))
                }
            }
        }
        var chainStatus: [Int: (key: (Int64, Int64), chain: String)] = [:]
        var winBackByGroup: [Int: (rank: Int64, chain: String, offers: [String])] = [:]
        for chainId in Set(renewals.map(\.originalTransactionId)).sorted() {
            let chain = subscriptionTransactions.filter { ($0.transaction.originalTransactionId ?? $0.transaction.transactionId) == chainId }
            guard let latestExpiry = chain.compactMap({ $0.transaction.expiresDate?.millisecondsSince1970 }).max() else { continue }
            let entries = renewals.filter { $0.originalTransactionId == chainId && counted($0) }
            guard let latestRank = entries.map(rank).max() else { continue }
            /// Fields whose entries of the top rank disagree (a class, so the nested function's
            /// writes are plainly the loop's).
            final class Conflicts { var any = false }
            let conflicts = Conflicts()
            /// The value of one field: the latest rank stating it, the first entry of that rank by bytes.
            func field<Value: Equatable>(_ value: (Renewal) -> Value?) -> (value: Value, rank: Int64)? {
                let stating = entries.filter { value($0) != nil }
                guard let top = stating.map(rank).max() else { return nil }
                var sameRank = stating.filter { rank($0) == top }
                if sameRank.contains(where: { $0 != sameRank[0] }) {
                    sameRank = sameRank.map { ($0, Array($0.jsonOutput.compact().utf8)) }.sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
                }
                if sameRank.contains(where: { value($0)! != value(sameRank[0])! }) { conflicts.any = true }
                return (value(sameRank[0])!, top)
            }
            let named = field { $0.productId }?.value
            let willRenew = field { $0.willRenew }?.value
            let retry = field { $0.isInBillingRetry }?.value
            let grace = field { $0.gracePeriodExpiresDate }?.value
            let renewsTo = field { $0.renewsTo }?.value
            _ = field { $0.expirationIntent }
            let winBack = field { $0.winBackOffers }
            let paused = field { $0.pausedUntil }?.value
            let price = field { renewal in renewal.renewalPrice.map { Price(amount: $0, currency: renewal.currency ?? "") } }?.value
            let holders = chain.filter { $0.transaction.expiresDate?.millisecondsSince1970 == latestExpiry }
                .sorted { comesBefore($0.transaction, $1.transaction) }.map(\.product)
            let owner = holders.first { products[$0].id == named } ?? holders.last!
            let stale = grace != nil && retry == false
            if stale { warnings.append(EvaluationWarning(kind: .staleGrace(originalTransactionId: name(chainId)))) }
            if conflicts.any { warnings.append(EvaluationWarning(kind: .conflictingRenewal(originalTransactionId: name(chainId)))) }
            if let grace = grace?.millisecondsSince1970, !stale, grace > latestExpiry {
                facts[owner].spans.append(CoverageSpan(start: latestExpiry, end: grace, isGrace: true))
            } else if grace == nil, retry == true, let period = products[owner].gracePeriod {
                // A web checkout's grace period, from the catalog, while payment is retried.
                let end = ISODuration.add(
                    months: period.totalMonths, days: period.totalDays, milliseconds: period.timeMilliseconds, times: 1, to: latestExpiry)
                if end > latestExpiry { facts[owner].spans.append(CoverageSpan(start: latestExpiry, end: end, isGrace: true)) }
            }
            // One status per product: its chain with the latest expiry, then latest entry, then the least id.
            let key = (latestExpiry, latestRank)
            if let known = chainStatus[owner],
                known.key > key
                    || (known.key == key && Array(known.chain.utf8).lexicographicallyPrecedes(Array(chainId.utf8)))
            {
            } else {
                chainStatus[owner] = (key, chainId)
                facts[owner].willRenew = willRenew
                facts[owner].renewsTo = renewsTo == products[owner].id ? nil : renewsTo
                facts[owner].pausedUntil = paused
                facts[owner].retry = retry == true
                facts[owner].renewalPrice = price
            }
            if let winBack, products[owner].group >= 0 {
                let group = products[owner].group
                if let known = winBackByGroup[group],
                    known.rank > winBack.rank
                        || (known.rank == winBack.rank && Array(known.chain.utf8).lexicographicallyPrecedes(Array(chainId.utf8)))
                {
                } else {
                    winBackByGroup[group] = (winBack.rank, chainId, winBack.value)
                }
            }
        }

        // 5. Product states.
        var states = [ProductState](repeating: .notPurchased, count: products.count)
        var productUntil = [Int64](repeating: CoverageSpan.never, count: products.count)
        var startsAt = [Int64?](repeating: nil, count: products.count)
        for index in products.indices {
            var spans = facts[index].spans
            for span in spans { candidates.formUnion([span.start, span.end]) }
            let (coveringEnd, _) = CoverageSpan.locate(&spans, at: at)
            if let coveringEnd {
                let paid = spans.contains { !$0.isGrace && $0.start <= at && at < $0.end }
                states[index] = paid ? .active : .gracePeriod
                productUntil[index] = coveringEnd
            } else if facts[index].visible == 0 {
                states[index] = .notPurchased
            } else if !spans.isEmpty, spans.allSatisfy({ $0.start > at }) {
                states[index] = .scheduled
                startsAt[index] = spans.map(\.start).min()
            } else if facts[index].latestCancelled {
                states[index] = .revoked
            } else if let paused = facts[index].pausedUntil?.millisecondsSince1970, paused > at {
                states[index] = .paused
                candidates.insert(paused)
            } else if products[index].type == .autoRenewableSubscription, facts[index].retry, spans.contains(where: { $0.end <= at }) {
                states[index] = .billingRetry
            } else {
                states[index] = .expired
            }
            facts[index].spans = spans
        }
        // A pre-order not released: its product is `preordered` from then, unless something covers it.
        for (index, release) in preordered where states[index] != .active && states[index] != .gracePeriod {
            states[index] = .preordered
            productUntil[index] = CoverageSpan.never
            startsAt[index] = release
        }
        // A purchase not paid yet: its product is `pending`, unless something covers it or it is pre-ordered.
        for (index, _) in pendingSince where states[index] != .active && states[index] != .gracePeriod && preordered[index] == nil {
            states[index] = .pending
            productUntil[index] = CoverageSpan.never
            startsAt[index] = nil
        }

        // 6. Grandfather rules and grants.
        var access: [(feature: Int, source: String, span: CoverageSpan, grandfathered: Bool)] = []
        for rule in catalog.grandfatherRules {
            var start: Int64?
            // Every condition the rule states must hold; coverage starts at the original purchase,
            // from always without one.
            for receipt in own {
                let purchase = receipt.originalPurchaseDate?.millisecondsSince1970
                var holds = true
                if let before = rule.condition.originalApplicationVersionBefore {
                    if let text = receipt.originalApplicationVersion, let version = Self.versionComponents(text) {
                        holds = holds && lower(version, than: before)
                    } else {
                        holds = false
                    }
                }
                if let before = rule.condition.originalPurchaseBefore { holds = holds && purchase != nil && purchase! < before }
                if let platforms = rule.condition.originalPlatforms {
                    holds = holds && receipt.originalPlatform.map(platforms.contains) == true
                }
                if holds { start = min(start ?? .max, purchase ?? .min) }
            }
            if let start {
                for feature in rule.grants {
                    access.append((feature, "grandfathered:\(rule.id)", CoverageSpan(start: start, end: CoverageSpan.never), true))
                }
            }
        }
        if catalog.grandfatherRules.contains(where: { $0.condition.originalApplicationVersionBefore != nil }) {
            for receipt in own {
                if let text = receipt.originalApplicationVersion, Self.versionComponents(text) == nil {
                    warnings.append(EvaluationWarning(kind: .badVersion(app: receipt.app, version: text)))
                }
            }
        }
        // Copies of one grant id: when they differ, the one whose normalized JSON sorts first, with a warning.
        for (id, grant, conflicting) in Self.byId(own.flatMap(\.grants), id: \.id, json: \.jsonOutput) {
            if conflicting { warnings.append(EvaluationWarning(kind: .conflictingGrant(id: id))) }
            do {
                guard grant.start.millisecondsSince1970 <= at, (grant.revokedAt?.millisecondsSince1970 ?? .max) > at else { continue }
                for feature in grant.features {
                    guard let index = catalog.featureIndex[feature] else {
                        warnings.append(EvaluationWarning(kind: .unknownGrantFeature(grantId: grant.id, feature: feature)))
                        continue
                    }
                    access.append(
                        (
                            index, "grant:\(grant.id)",
                            CoverageSpan(start: grant.start.millisecondsSince1970, end: grant.end?.millisecondsSince1970 ?? .max), false
                        ))
                }
            }
        }
        // Advanced Commerce items: each counted transaction's item grants its SKU's features from the
        // purchase until the chain's next counted transaction (auto-renewables; else no end) and the
        // item's end, within the product's coverage.
        for (index, transactions) in itemTransactions {
            let product = products[index]
            let ordered = transactions.sorted(by: comesBefore)
            for (position, transaction) in ordered.enumerated() {
                var windowEnd = Int64.max
                if product.type == .autoRenewableSubscription {
                    let chain = transaction.originalTransactionId ?? ""
                    if let next = ordered[(position + 1)...].first(where: { ($0.originalTransactionId ?? "") == chain }) {
                        windowEnd = next.purchaseDate.millisecondsSince1970
                    }
                }
                for item in transaction.items {
                    guard let declared = declaredItem(product, item.sku) else { continue }
                    let end = min(windowEnd, item.endsAt?.millisecondsSince1970 ?? .max)
                    for span in facts[index].spans {
                        let piece = CoverageSpan(start: max(span.start, transaction.purchaseDate.millisecondsSince1970), end: min(span.end, end))
                        guard piece.end > piece.start else { continue }
                        for feature in declared.grants { access.append((feature, "\(product.id)/\(item.sku)", piece, false)) }
                    }
                }
            }
        }
        for key in unknownItems {
            warnings.append(
                EvaluationWarning(
                    kind: .unknownItem(
                        productId: key[0], sku: key[1],
                        suggestion: Suggestion.closest(to: key[1], in: catalog.compiledProducts.first { $0.id == key[0] }?.items?.map(\.sku) ?? []))))
        }
        for item in access { candidates.formUnion([item.span.start, item.span.end]) }

        // 7. Features; none once the customer rescinded consent (the earliest instant a receipt
        //    of the app says).
        var enabled = [Bool](repeating: false, count: catalog.featureIds.count)
        var featureUntil = [Int64](repeating: CoverageSpan.never, count: catalog.featureIds.count)
        let rescinded = own.compactMap { $0.consentRescinded?.millisecondsSince1970 }.min()
        if let rescinded { candidates.insert(rescinded) }
        let consentRescinded = rescinded.map { $0 <= at } ?? false
        for feature in catalog.featureIds.indices where !consentRescinded {
            var spans: [CoverageSpan] = []
            for product in catalog.granters[feature] { spans += facts[product].spans }
            for item in access where item.feature == feature && item.span.end > item.span.start { spans.append(item.span) }
            if let coveringEnd = CoverageSpan.locate(&spans, at: at).coveringEnd {
                enabled[feature] = true
                featureUntil[feature] = coveringEnd
            }
        }

        // 8. Consumptions, deduplicated by id across the app's receipts.
        for (id, consumption, conflicting) in Self.byId(own.flatMap(\.consumptions), id: \.id, json: \.jsonOutput) {
            if conflicting { warnings.append(EvaluationWarning(kind: .conflictingConsumption(id: id))) }
            do {
                guard consumption.date.millisecondsSince1970 <= at else { continue }
                guard (1...ReceiptLimits.maxConsumptionAmount).contains(consumption.amount) else {
                    warnings.append(EvaluationWarning(kind: .amountOutOfRange(consumptionId: consumption.id, amount: consumption.amount)))
                    continue
                }
                guard let currency = catalog.currencyIndex[consumption.currency] else {
                    let suggestion = Suggestion.closest(to: consumption.currency, in: catalog.currencyIds)
                    warnings.append(
                        EvaluationWarning(
                            kind: .unknownCurrency(consumptionId: consumption.id, currency: consumption.currency, suggestion: suggestion)))
                    continue
                }
                balances[currency] -= consumption.amount
                ledgerUses.append(consumption)
            }
        }
        // With allowances or unlimited currencies, each balance is what the ledger finds.
        var ledgerDetails: [String: ReferenceLedger.Answer] = [:]
        if !catalog.freeAllowances.isEmpty || catalog.products.contains(where: { $0.allowances != nil || $0.unlimited != nil }) {
            let runs = facts.map { fact -> [CoverageSpan] in
                var merged: [CoverageSpan] = []
                for span in fact.spans.sorted(by: { $0.start < $1.start }) where span.end > span.start {
                    if let last = merged.last, span.start <= last.end {
                        merged[merged.count - 1].end = max(last.end, span.end)
                    } else {
                        merged.append(CoverageSpan(start: span.start, end: span.end))
                    }
                }
                return merged
            }
            for (index, currency) in catalog.currencyIds.enumerated() {
                let answer = ReferenceLedger.answer(
                    catalog, currency: currency, windows: facts.map(\.windows), runs: runs, packs: packs, consumptions: ledgerUses, at: at,
                    rescinded: rescinded, name: name)
                balances[index] = answer.balance
                candidates.formUnion(answer.candidates)
                ledgerDetails[currency] = answer
            }
        }
        for (index, balance) in balances.enumerated() where balance < 0 {
            warnings.append(EvaluationWarning(kind: .negativeBalance(currency: catalog.currencyIds[index], balance: balance)))
        }

        // 9. Upgrade requirements, met by other apps' receipts.
        var prerequisiteMet = FeatureSet(capacity: products.count)
        for (index, product) in products.enumerated() {
            guard case .upgrade(_, let requirement) = product.role else { continue }
            if meets(requirement, receipts: receipts, at: at, catalogs: catalogs) { prerequisiteMet.insert(index) }
        }

        // 10. What win-back and promotional offers read, per group with offers.
        struct Group {
            var paid: Int64 = 0
            var paying: [(Int64, Int64)] = []
            var everPaid = false
            var covered = false
            var lastEnd: Int64?
            var lastWinBack: Int64?
            var redeemed: [String: Int64] = [:]
        }
        var groups: [Int: Group] = [:]
        // (Groups with retention rules too: the rules read paid time and redemptions.)
        for (index, product) in products.enumerated()
        where (!product.offers.isEmpty || !catalog.products[index].retention.isEmpty) && product.group >= 0 {
            groups[product.group] = Group()
        }
        for (transaction, index) in countedSubscriptions {
            let group = products[index].group
            guard var facts = groups[group] else { continue }
            let purchase = transaction.purchaseDate.millisecondsSince1970
            if !transaction.isTrialPeriod {
                facts.everPaid = true
                if let expires = transaction.expiresDate?.millisecondsSince1970, expires > purchase {
                    facts.paid += max(0, min(expires, at) - purchase)
                    facts.paying.append((purchase, expires))
                }
            }
            if transaction.offerType == .winBack { facts.lastWinBack = max(facts.lastWinBack ?? .min, purchase) }
            if let offer = transaction.offerId { facts.redeemed[offer] = max(facts.redeemed[offer] ?? .min, purchase) }
            groups[group] = facts
        }
        for (index, product) in products.enumerated() where product.group >= 0 && groups[product.group] != nil {
            for span in facts[index].spans where span.end > span.start {
                if span.start <= at && at < span.end { groups[product.group]!.covered = true }
                if span.end <= at { groups[product.group]!.lastEnd = max(groups[product.group]!.lastEnd ?? .min, span.end) }
            }
        }
        for (group, end) in refundedEnds where groups[group] != nil {
            groups[group]!.lastEnd = max(groups[group]!.lastEnd ?? .min, end)
        }
        func subscribed(_ group: Int) -> Bool {
            products.indices.contains {
                products[$0].group == group && products[$0].type == .autoRenewableSubscription
                    && [.active, .gracePeriod, .billingRetry, .paused].contains(states[$0])
            }
        }
        func nominal(_ duration: ISODuration) -> Int64 {
            (Int64(duration.years) * 365 + Int64(duration.months) * 30 + Int64(duration.weeks) * 7 + Int64(duration.days))
                * CivilCalendar.millisecondsPerDay + duration.timeMilliseconds
        }
        /// The catalog's reason for one offer, in the documented order.
        func catalogReason(_ offer: SubscriptionOffer, group: Int) -> PromotionReason {
            let facts = groups[group]!
            if let from = offer.from, at < from.millisecondsSince1970 { return .notRunning }
            if let until = offer.until, at >= until.millisecondsSince1970 { return .notRunning }
            let isSubscribed = subscribed(group)
            if offer.type == .winBack && isSubscribed { return .subscribed }
            if offer.type == .promotional && offer.subscribed == true && !isSubscribed { return .notSubscribed }
            if offer.type == .promotional && offer.subscribed == false && isSubscribed { return .subscribed }
            let lapses = offer.lapsedAtLeast != nil || offer.lapsedAtMost != nil
            if (offer.type == .winBack || offer.paidAtLeast != nil || lapses) && !facts.everPaid { return .neverPaid }
            if let needed = offer.paidAtLeast.map(nominal), facts.paid < needed { return .paidTooLittle }
            if let most = offer.paidAtMost.map(nominal), facts.paid > most { return .paidTooMuch }
            if lapses {
                let lapsed: Int64? = facts.covered ? 0 : facts.lastEnd.map { at - $0 }
                guard let lapsed else { return .neverPaid }
                if let least = offer.lapsedAtLeast.map(nominal), lapsed < least { return .lapsedTooRecently }
                if let most = offer.lapsedAtMost.map(nominal), lapsed > most { return .lapsedTooLong }
            }
            if let wait = offer.waitBetween.map(nominal),
                let last = offer.type == .winBack ? facts.lastWinBack : facts.redeemed[offer.id], at - last < wait
            {
                return .redeemedRecently
            }
            return .eligible
        }
        func promotion(_ offer: SubscriptionOffer, group: Int) -> (PromotionReason, catalog: PromotionReason) {
            let own = catalogReason(offer, group: group)
            if offer.type == .winBack, let apple = winBackByGroup[group] {
                return (apple.offers.contains(offer.id) ? .listedByApple : .notListedByApple, own)
            }
            return (own, own)
        }
        for (group, facts) in groups {
            // When offer conditions can turn with time alone.
            for product in products where product.group == group {
                for offer in product.offers {
                    if let date = offer.from?.millisecondsSince1970 { candidates.insert(date) }
                    if let date = offer.until?.millisecondsSince1970 { candidates.insert(date) }
                    // The first instant paid time reaches a threshold, found by halving.
                    func reaches(_ needed: Int64) {
                        func paid(_ t: Int64) -> Int64 { facts.paying.reduce(0) { $0 + max(0, min($1.1, t) - $1.0) } }
                        var low = at
                        var high = facts.paying.map(\.1).max() ?? at
                        if paid(high) >= needed {
                            while high - low > 1 {
                                let middle = low + (high - low) / 2
                                if paid(middle) >= needed { high = middle } else { low = middle }
                            }
                            candidates.insert(high)
                        }
                    }
                    if let needed = offer.paidAtLeast.map(nominal), facts.paid < needed { reaches(needed) }
                    if let most = offer.paidAtMost.map(nominal), facts.paid <= most { reaches(most + 1) }
                    if !facts.covered, let end = facts.lastEnd {
                        if let least = offer.lapsedAtLeast.map(nominal) { candidates.insert(end + least) }
                        if let most = offer.lapsedAtMost.map(nominal) { candidates.insert(end + most + 1) }
                    }
                    if let wait = offer.waitBetween.map(nominal),
                        let last = offer.type == .winBack ? facts.lastWinBack : facts.redeemed[offer.id]
                    {
                        candidates.insert(last + wait)
                    }
                    if offer.type == .winBack, winBackByGroup[group] != nil {
                        let (reason, own) = promotion(offer, group: group)
                        if (reason == .listedByApple) != (own == .eligible) {
                            warnings.append(
                                EvaluationWarning(kind: .winBackCriteriaDisagree(offerId: offer.id, listedByApple: reason == .listedByApple)))
                        }
                    }
                }
            }
        }

        // 11. The views, keyed by id.
        func instantOrNil(_ value: Int64) -> Instant? { value == CoverageSpan.never ? nil : Instant(millisecondsSince1970: value) }
        var result = ReferenceResult()
        result.groupFacts = groups.mapValues { ($0.paid, $0.redeemed) }
        result.consentRescinded = consentRescinded ? rescinded.map { Instant(millisecondsSince1970: $0) } : nil
        for (index, id) in catalog.featureIds.enumerated() {
            var sources: [String] = []
            if enabled[index] {
                sources = catalog.granters[index].filter { states[$0] == .active || states[$0] == .gracePeriod }.map { products[$0].id }
                sources += access.filter { $0.feature == index && $0.span.start <= at && at < $0.span.end }.map(\.source)
            }
            result.features[id] = FeatureStatus(
                id: id, enabled: enabled[index],
                until: enabled[index] ? instantOrNil(featureUntil[index]) : nil,
                sources: Array(Set(sources)).sorted())
        }
        for (index, id) in catalog.currencyIds.enumerated() { result.balances[id] = balances[index] }
        for (currency, answer) in ledgerDetails {
            if answer.unlimited { result.unlimited.insert(currency) }
            if let next = answer.nextDeposit { result.nextDeposits[currency] = Instant(millisecondsSince1970: next) }
            result.deposits[currency] = answer.deposits
        }
        result.limits = limits(catalog, facts: facts, states: states, startsAt: startsAt, at: at, rescinded: consentRescinded)
        for (index, product) in products.enumerated() where product.type != .consumable {
            let covering = states[index] == .active || states[index] == .gracePeriod
            let commitment = product.type == .autoRenewableSubscription ? facts[index].latestCounted?.commitment : nil
            result.products[product.id] = ProductStatus(
                id: product.id, type: product.type, state: states[index],
                until: covering ? instantOrNil(productUntil[index]) : nil,
                startsAt: startsAt[index].map { Instant(millisecondsSince1970: $0) },
                willRenew: product.type == .autoRenewableSubscription ? facts[index].willRenew : nil,
                renewsTo: product.type == .autoRenewableSubscription ? facts[index].renewsTo : nil, commitment: commitment,
                store: product.store,
                manage: product.type == .autoRenewableSubscription && states[index] != .notPurchased ? manage(product) : nil,
                resumesAt: states[index] == .paused ? facts[index].pausedUntil : nil,
                renewalPrice: product.type == .autoRenewableSubscription ? facts[index].renewalPrice : nil,
                offerEndsAt: product.type == .autoRenewableSubscription ? offerEnd(facts[index]) : nil)
        }
        /// The end of the offer the latest counted transaction was bought with: the earliest of the
        /// chain's unbroken run of transactions with that offer (type, id, period), plus the period.
        func offerEnd(_ fact: ProductFacts) -> Instant? {
            guard let latest = fact.latestCounted, let period = latest.offerPeriod else { return nil }
            func chain(_ transaction: Transaction) -> String { transaction.originalTransactionId ?? transaction.transactionId }
            let run = fact.bought.filter { chain($0) == chain(latest) && comesBefore($0, latest) }.sorted { comesBefore($1, $0) }
            var first = latest
            for transaction in run {
                guard transaction.offerType == latest.offerType, transaction.offerId == latest.offerId, transaction.offerPeriod == period else {
                    break
                }
                first = transaction
            }
            return period.added(to: first.purchaseDate)
        }
        /// Where a subscriber of the product's store manages it.
        func manage(_ product: CompiledProduct) -> String? {
            switch product.store {
            case .appStore: return "https://apps.apple.com/account/subscriptions"
            case .play:
                let sku = product.storeId.split(separator: ":").first.map(String.init) ?? product.storeId
                return "https://play.google.com/store/account/subscriptions?sku=\(sku)&package=\(catalog.app)"
            case .stripe, .external: return catalog.manageURLs[product.store]
            }
        }
        func isActive(_ index: Int) -> Bool { states[index] == .active }
        func grandfathered(_ feature: Int) -> Bool {
            access.contains { $0.grandfathered && $0.feature == feature && $0.span.start <= at && at < $0.span.end }
        }
        func retrying(_ group: Int) -> Bool {
            group >= 0
                && products.indices.contains {
                    products[$0].group == group && products[$0].type == .autoRenewableSubscription
                        && states[$0] == .billingRetry
                }
        }
        /// Why product `index` may not be offered, or `nil`.
        func reason(_ index: Int) -> OfferReason? {
            let product = products[index]
            if consentRescinded { return .consentRescinded }
            // Sold in some storefronts only: not elsewhere, nor when the storefront is unknown.
            if let storefronts = product.storefronts, !(storefront.map { storefronts.contains(Storefront.alpha3($0) ?? $0) } ?? false) {
                return .notInStorefront
            }
            // A subscription elsewhere (covering, billing retry, paused) granting all it grants,
            // unless this one covers or is paused itself (in billing retry here, it is not).
            if product.type == .autoRenewableSubscription, !product.grants.isEmpty,
                ![.active, .gracePeriod, .paused].contains(states[index]),
                products.indices.contains(where: { other in
                    products[other].type == .autoRenewableSubscription && products[other].store != product.store
                        && [.active, .gracePeriod, .billingRetry, .paused].contains(states[other])
                        && Set(product.grants).isSubset(of: Set(products[other].grants))
                })
            {
                return .subscribedElsewhere
            }
            if !product.available { return .retired }
            // Pre-ordered: bought, to be had at its release.
            if product.type != .consumable, states[index] == .preordered { return .owned }
            switch product.type {
            case .consumable:
                return nil
            case .nonRenewingSubscription:
                // A prepaid plan that covers is topped up only after its top-up instant.
                let covering = states[index] == .active || states[index] == .gracePeriod
                return covering && facts[index].topUpAfter > at ? .subscribed : nil
            case .autoRenewableSubscription:
                if states[index] == .active || states[index] == .gracePeriod || states[index] == .paused { return .subscribed }
                return retrying(product.group) ? .billingIssue : nil
            case .nonConsumable:
                let family: Int
                switch product.role {
                case .standard: family = index
                case .upgrade(let replaces, _): family = replaces
                case .trial(_, let paid): family = paid
                }
                let trialActive = product.trialPaidProduct != nil && isActive(index)
                let owned =
                    trialActive || isActive(family) || products[family].upgrades.contains(where: isActive)
                    || (!product.grants.isEmpty && product.grants.allSatisfy(grandfathered))
                if owned { return .owned }
                if product.trialPaidProduct != nil && everBought.contains(index) { return .trialUsed }
                if product.replacedProduct != nil && !prerequisiteMet.contains(index) { return .prerequisiteMissing }
                if product.trialPaidProduct == nil && product.replacedProduct == nil && product.upgrades.contains(where: { reason($0) == nil }) {
                    return .upgradeAvailable
                }
                return nil
            }
        }
        /// Where buying product `index` at `at` would cover until.
        func coverageIfBought(_ index: Int) -> Int64? {
            let product = products[index]
            switch product.type {
            case .consumable: return nil
            case .nonConsumable:
                if case .trial(let days, _) = product.role { return at + Int64(days) * CivilCalendar.millisecondsPerDay }
                return CoverageSpan.never
            case .nonRenewingSubscription:
                let stackers = product.passGroup >= 0 ? products.indices.filter { products[$0].passGroup == product.passGroup } : [index]
                let stack = stackers.flatMap { facts[$0].spans }.filter { $0.end > at }.map(\.end).max() ?? at
                return ISODuration.add(
                    months: product.durationMonths, days: product.durationDays, milliseconds: product.durationMilliseconds,
                    times: 1, to: max(at, stack))
            case .autoRenewableSubscription:
                guard let period = product.period else { return nil }
                return ISODuration.add(months: period.totalMonths, days: period.totalDays, milliseconds: period.timeMilliseconds, times: 1, to: at)
            }
        }
        for (index, product) in products.enumerated() {
            let reason = reason(index)
            var change: SubscriptionChange?
            var effective: ChangeTiming?
            if product.type == .autoRenewableSubscription, reason != .subscribed, let level = product.level {
                // The customer's current subscription of the group: the highest level active or in grace.
                let current = products.indices.filter {
                    $0 != index && products[$0].type == .autoRenewableSubscription && products[$0].group == product.group
                        && products[$0].level != nil && (states[$0] == .active || states[$0] == .gracePeriod)
                }.min { products[$0].level! < products[$1].level! }
                if let current, let currentLevel = products[current].level {
                    if level < currentLevel {
                        (change, effective) = (.upgrade, .immediately)
                    } else if level > currentLevel {
                        (change, effective) = (.downgrade, .nextRenewal)
                    } else {
                        let same = product.period != nil && product.period.map(nominalParts) == products[current].period.map(nominalParts)
                        (change, effective) = (.crossgrade, same ? .immediately : .nextRenewal)
                    }
                }
            }
            var intro: Bool?
            if product.type == .autoRenewableSubscription, product.introductoryOffer != nil {
                let used = product.introAudience == .newSubscribers ? boughtInGroup.contains(product.group) : introUsed.contains(product.group)
                intro = !used && !retrying(product.group)
            }
            var promotions: [Promotion]?
            if product.type == .autoRenewableSubscription, !product.offers.isEmpty {
                promotions = product.offers.map { offer in
                    let (reason, _) = promotion(offer, group: product.group)
                    return Promotion(id: offer.id, type: offer.type, eligible: reason == .eligible || reason == .listedByApple, reason: reason)
                }
            }
            let end = coverageIfBought(index)
            // Once consent is rescinded, buying turns nothing on.
            let adds = consentRescinded ? [] : product.grants.sorted().filter { !enabled[$0] }.map { catalog.featureIds[$0] }
            let extends = product.grants.sorted().filter { feature in
                guard !consentRescinded, enabled[feature], featureUntil[feature] != CoverageSpan.never, let end else { return false }
                return featureUntil[feature] < end
            }.map { catalog.featureIds[$0] }
            result.offers[product.id] = Offer(
                productId: product.id, eligible: reason == nil, reason: reason,
                introOfferEligible: intro, legal: product.legal, change: change, effective: effective,
                promotions: promotions, adds: adds, extends: extends, store: product.store)
        }
        result.warnings = warnings.map { "\($0.code): \($0.message)" }.sorted()
        candidates.remove(CoverageSpan.never)
        return (result, candidates)
    }

    /// The items of each id, in id order: the one copy, or of copies that differ the one whose
    /// normalized JSON sorts first, and whether they differ.
    /// Number limits: per declared limit, the products giving it a value that cover at `at` (each
    /// run of coverage known now is a span it gives its value in, the run holding `at` with the
    /// quantity of the counted transaction covering then, or of the latest counted one; a paused
    /// or pre-ordered product gives it from when it resumes or is released). `max` takes the
    /// largest, never below the default; `sum` adds value x quantity, the default only when none
    /// covers; unlimited wins. `until` is the first later start or end of a span at which the
    /// value is another. After consent is rescinded, the defaults.
    private static func limits(
        _ catalog: CompiledCatalog, facts: [ProductFacts], states: [ProductState], startsAt: [Int64?], at: Int64, rescinded: Bool
    ) -> [String: LimitStatus] {
        var result: [String: LimitStatus] = [:]
        for limit in catalog.limits {
            var spans: [(product: String, value: LimitValue, quantity: Int64, start: Int64, end: Int64)] = []
            for (index, product) in catalog.products.enumerated() where !rescinded {
                guard let value = product.limits?[limit.id] else { continue }
                var runs: [(start: Int64, end: Int64)] = []
                for span in facts[index].spans.sorted(by: { $0.start < $1.start }) where span.end > span.start {
                    if let last = runs.last, span.start <= last.end {
                        runs[runs.count - 1].end = max(last.end, span.end)
                    } else {
                        runs.append((span.start, span.end))
                    }
                }
                for run in runs where run.end > at {
                    var quantity: Int64 = 1
                    if run.start <= at {
                        let counted = facts[index].counted.filter { $0.purchase <= at }
                        let covering = counted.filter { product.type != .autoRenewableSubscription || ($0.expires ?? .min) > at }
                        quantity = covering.map(\.quantity).max() ?? counted.max(by: { $0.purchase < $1.purchase })?.quantity ?? 1
                    }
                    spans.append((product.key, value, quantity, max(run.start, at), run.end))
                }
                if states[index] == .paused, let resumes = facts[index].pausedUntil?.millisecondsSince1970, resumes > at {
                    spans.append((product.key, value, 1, resumes, .max))
                }
                if states[index] == .preordered, let release = startsAt[index], release > at {
                    spans.append((product.key, value, 1, release, .max))
                }
            }
            func value(at instant: Int64) -> (LimitValue, [String]) {
                let covering = spans.filter { $0.start <= instant && instant < $0.end }
                if covering.isEmpty { return (.count(limit.default), []) }
                if covering.contains(where: { $0.value == .unlimited }) {
                    return (.unlimited, covering.filter { $0.value == .unlimited }.map(\.product))
                }
                let counts = covering.map { item -> Int64 in
                    guard case .count(let count) = item.value else { return 0 }
                    return limit.combine == .sum ? count * item.quantity : count
                }
                if limit.combine == .sum { return (.count(counts.reduce(0, +)), covering.map(\.product)) }
                let best = counts.max()!
                if best < limit.default { return (.count(limit.default), []) }
                return (.count(best), zip(covering, counts).filter { $0.1 == best }.map(\.0.product))
            }
            let (now, sources) = value(at: at)
            let later = Set(spans.flatMap { [$0.start, $0.end] }).filter { $0 > at && $0 != .max }.sorted()
            let until = later.first { value(at: $0).0 != now }
            result[limit.id] = LimitStatus(
                id: limit.id, value: now, sources: Array(Set(sources)).sorted(), until: until.map { Instant(millisecondsSince1970: $0) })
        }
        return result
    }

    static func byId<Item: Equatable>(
        _ items: [Item], id: (Item) -> String, json: (Item) -> JSONOutput
    ) -> [(id: String, item: Item, conflicting: Bool)] {
        Dictionary(grouping: items, by: id).sorted { $0.key < $1.key }.map { id, copies in
            let item =
                copies.count == 1
                ? copies[0]
                : copies.map { ($0, Array(json($0).compact().utf8)) }.min { $0.1.lexicographicallyPrecedes($1.1) }!.0
            return (id, item, copies.contains { $0 != item })
        }
    }

    /// The copy of a transaction that stands for it at `at`, with copies of its rank merged, and
    /// whether copies of that rank disagree on more than cancellation and expiry.
    static func standing(_ copies: [Transaction], at: Int64) -> (Transaction, conflicting: Bool) {
        func rank(_ transaction: Transaction) -> Int64 { transaction.signedDate?.millisecondsSince1970 ?? .min }
        /// A copy without what merging decides (cancellation with its revocation fields, expiry).
        func rest(_ transaction: Transaction) -> Transaction {
            var value = transaction
            value.cancellationDate = nil
            value.revocationType = nil
            value.revocationPercentage = nil
            value.revocationReason = nil
            value.expiresDate = nil
            return value
        }
        let known = copies.filter { rank($0) <= at }
        let chosenRank = known.isEmpty ? copies.map(rank).min()! : known.map(rank).max()!
        var group = copies.filter { rank($0) == chosenRank }
        let conflicting = group.contains { rest($0) != rest(group[0]) }
        if conflicting {
            group = group.map { ($0, Array($0.jsonOutput.compact().utf8)) }.sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
        }
        var result = group[0]
        for copy in group.dropFirst() {
            if let date = copy.cancellationDate, result.cancellationDate.map({ date < $0 }) ?? true {
                result.cancellationDate = date
                result.revocationType = copy.revocationType
                result.revocationPercentage = copy.revocationPercentage
                result.revocationReason = copy.revocationReason
            }
            if let date = copy.expiresDate, result.expiresDate.map({ date > $0 }) ?? true { result.expiresDate = date }
        }
        return (result, conflicting)
    }

    /// A transaction with the facts of its purchase known by `horizon` applied: cancelled from
    /// the earliest fact, by the share taken back (units voided over units bought; refunded money,
    /// each refund id once and a running total when larger, over the most any fact says was paid;
    /// all of it without a quantity or an amount, or with no amount paid known). One revoked no
    /// later by its own data keeps its date, and the larger share.
    static func revoke(_ transaction: Transaction, by facts: Set<Revocation>, knownBy horizon: Int64) -> Transaction {
        let known = facts.filter { $0.date.millisecondsSince1970 <= horizon }
        guard !known.isEmpty else { return transaction }
        let first = facts.map(\.date).min()!
        var share: Double?
        let whole = known.contains { $0.voidedQuantity == nil && $0.amount == nil && $0.amountRefunded == nil }
        let units = known.compactMap(\.voidedQuantity).reduce(Int64(0)) { min($0 + Int64($1), Int64.max / 2) }
        var byRefund: [String: Int64] = [:]
        var anonymous: Int64 = 0
        for fact in known {
            guard let amount = fact.amount else { continue }
            if let id = fact.id { byRefund[id] = max(byRefund[id] ?? 0, amount) } else { anonymous = min(anonymous + amount, Int64.max / 4) }
        }
        let refunded = max(
            min(byRefund.values.reduce(Int64(0)) { min($0 + $1, Int64.max / 4) } + anonymous, Int64.max / 2),
            known.compactMap(\.amountRefunded).max() ?? 0)
        let paid = facts.compactMap(\.amountPaid).max()
        func part(_ a: Int64, _ b: Int64) -> Double { (Double(a) / Double(b) * 100_000).rounded(.down) / 1_000 }
        if whole {
            share = nil
        } else if units > 0 {
            let bought = Int64(countedQuantity(transaction.quantity))
            share = units >= bought ? nil : part(units, bought)
        } else if let paid, paid > 0, refunded < paid {
            share = part(refunded, paid)
        }
        var result = transaction
        if let own = transaction.cancellationDate, own <= first {
            if transaction.revocationType == .refundProrated, let percentage = transaction.revocationPercentage {
                result.revocationPercentage = share.map { max($0, percentage) }
                if share == nil { result.revocationType = .refundFull }
            }
            return result
        }
        result.cancellationDate = first
        result.revocationType = share == nil ? .refundFull : .refundProrated
        result.revocationPercentage = share
        return result
    }

    /// Purchase order: by purchase date, ties by transaction id, numerically when both are digits.
    static func comesBefore(_ a: Transaction, _ b: Transaction) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate < b.purchaseDate }
        var x = Substring(a.transactionId)
        var y = Substring(b.transactionId)
        // Ids of one other store carry its prefix (`play:9`): compare what the receipts wrote.
        for store in Store.allCases where store != .appStore {
            let prefix = store.rawValue + ":"
            if x.hasPrefix(prefix), y.hasPrefix(prefix) {
                x = x.dropFirst(prefix.count)
                y = y.dropFirst(prefix.count)
            }
        }
        if !x.isEmpty, !y.isEmpty, x.allSatisfy(\.isASCIIDigit), y.allSatisfy(\.isASCIIDigit) {
            let p = x.drop { $0 == "0" }
            let q = y.drop { $0 == "0" }
            if p.count != q.count { return p.count < q.count }
            if p != q { return p < q }
        }
        return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
    }

    private static func passEnd(_ product: CompiledProduct, _ transaction: Transaction, from start: Int64) -> Int64 {
        // N units cover N times the duration, as one calendar step.
        let quantity = countedQuantity(transaction.quantity)
        let end = ISODuration.add(
            months: product.durationMonths * quantity,
            days: product.durationDays * Int64(quantity),
            milliseconds: product.durationMilliseconds * Int64(quantity), to: start)
        return max(end, start)
    }

    /// The end of what a transaction covers: for a Play purchase not acknowledged, no later than
    /// its refund three days after its purchase.
    private static func capped(_ transaction: Transaction, _ end: Int64) -> Int64 {
        transaction.acknowledged == false ? min(end, transaction.cancellationDate?.millisecondsSince1970 ?? .max) : end
    }

    /// When the three days to acknowledge a Play purchase start: its purchase, or a pre-order's
    /// later release.
    static func acknowledgementStart(_ transaction: Transaction) -> Int64 {
        max(transaction.purchaseDate.millisecondsSince1970, transaction.releaseDate?.millisecondsSince1970 ?? .min)
    }

    /// A quantity outside 1 to the limit (only in receipts built in code) counts as the nearest.
    static func countedQuantity(_ quantity: Int) -> Int { min(max(quantity, 1), ReceiptLimits.maxQuantity) }

    private static func lower(_ a: [Int], than b: [Int]) -> Bool {
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            if x != y { return x < y }
        }
        return false
    }

    private static func nominalParts(_ duration: ISODuration) -> [Int64] {
        [Int64(duration.totalMonths), duration.totalDays, duration.timeMilliseconds]
    }

    /// Whether some receipt of the required app shows a qualifying purchase at `at`: copies of one
    /// transaction across that app's receipts count once, the earliest cancellation holding; a
    /// family-shared purchase counts only when that app's catalog makes the product shareable.
    static func meets(_ requirement: UpgradeRequirement, receipts: [Receipt], at: Int64, catalogs: [String: CompiledCatalog]) -> Bool {
        let ofApp = receipts.filter { $0.app == requirement.app }
        guard let anyOf = requirement.anyOf else {
            // Any receipt of the app, from the customer's first purchase of the app on.
            return ofApp.contains { ($0.originalPurchaseDate?.millisecondsSince1970 ?? .min) <= at }
        }
        var copies: [String: [Transaction]] = [:]
        for receipt in ofApp {
            for transaction in receipt.transactions { copies[transaction.transactionId, default: []].append(transaction) }
        }
        return copies.values.contains { group in
            let (transaction, _) = standing(group, at: at)
            if transaction.ownership == .familyShared {
                guard let catalog = catalogs[requirement.app], let index = catalog.productIndex[transaction.productId],
                    catalog.compiledProducts[index].sharesWithFamily
                else { return false }
            }
            return anyOf.contains(transaction.productId) && transaction.purchaseDate.millisecondsSince1970 <= at
                && (transaction.cancellationDate?.millisecondsSince1970 ?? .max) > at
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// The reference evaluator's answer, keyed by id.
struct ReferenceResult: Equatable {
    var features: [String: FeatureStatus] = [:]
    var balances: [String: Int64] = [:]
    /// Currencies unlimited at the instant, and the next deposit of each (a ledger's catalog).
    var unlimited: Set<String> = []
    var nextDeposits: [String: Instant] = [:]
    /// What is left of each currency's deposits (``ReferenceLedger/view(_:)``).
    var deposits: [String: [String]] = [:]
    var limits: [String: LimitStatus] = [:]
    var products: [String: ProductStatus] = [:]
    var offers: [String: Offer] = [:]
    var reevaluateAt: Instant?
    /// `code: message`, sorted.
    var warnings: [String] = []
    var consentRescinded: Instant?
    /// What retention rules read of each subscription group with offers or retention rules: time
    /// paid (trials aside) and the last redemption of each offer id. Not part of the answer (a
    /// compiled evaluation's view leaves it empty) and not compared.
    var groupFacts: [Int: (paid: Int64, redeemed: [String: Int64])] = [:]

    static func == (a: Self, b: Self) -> Bool {
        a.features == b.features && a.balances == b.balances && a.unlimited == b.unlimited && a.nextDeposits == b.nextDeposits
            && a.deposits == b.deposits && a.limits == b.limits && a.products == b.products && a.offers == b.offers
            && a.reevaluateAt == b.reevaluateAt && a.warnings == b.warnings && a.consentRescinded == b.consentRescinded
    }

    /// The same views taken from a compiled evaluation (without its `reevaluateAt`, which costs a
    /// search, when `nextChange` is false).
    init(_ result: Entitlements, nextChange: Bool = true) {
        for feature in result.features { features[feature.id] = feature }
        for balance in result.balances {
            balances[balance.currency] = balance.balance
            if balance.unlimited { unlimited.insert(balance.currency) }
            if let next = balance.nextDepositAt { nextDeposits[balance.currency] = next }
            if let left = balance.deposits {
                deposits[balance.currency] = ReferenceLedger.view(
                    left.map { ($0.source, $0.transaction, $0.endsAt?.millisecondsSince1970 ?? .max, $0.remaining) })
            }
        }
        for limit in result.limits { limits[limit.id] = limit }
        for product in result.products { products[product.id] = product }
        for offer in result.offers { offers[offer.productId] = offer }
        reevaluateAt = nextChange ? result.reevaluateAt : nil
        consentRescinded = result.consentRescinded
        warnings = result.warnings.map { "\($0.code): \($0.message)" }.sorted()
    }

    init() {}

    /// The same answer, `reevaluateAt` aside (and what offers extend, which moves with the instant).
    func sameAnswer(as other: ReferenceResult) -> Bool {
        features == other.features && balances == other.balances && unlimited == other.unlimited && nextDeposits == other.nextDeposits
            && deposits == other.deposits && limits == other.limits && products == other.products
            && offers.mapValues(\.withoutExtends) == other.offers.mapValues(\.withoutExtends) && warnings == other.warnings
            && consentRescinded == other.consentRescinded
    }
}

extension ReferenceEvaluator {
    /// A version's components as the rule reads them (EvaluationRules: whole numbers separated by
    /// dots, up to 128 of up to 18 digits, in at most 256 bytes), written the plain way: split on
    /// the dots, check each part, read it as a number.
    static func versionComponents(_ text: String) -> [Int]? {
        guard text.utf8.count <= 256 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 128 else { return nil }
        var components: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 18, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part) else { return nil }
            components.append(value)
        }
        return components
    }
}
