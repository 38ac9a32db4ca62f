@testable import Entitle

/// The reference evaluator: the rules applied in the most direct way, over `Receipt` values, with
/// no attention to speed. The compiled evaluator is checked against it on generated catalogs and
/// receipts.
///
/// The rules, in the order the code applies them:
/// - Only what was known at `at` counts: transactions purchased after `at` are ignored, and a
///   cancellation counts only when dated at or before `at`. Consumptions after `at` are ignored.
/// - Copies of one `transactionId` (within or across the app's receipts) count once; the earliest
///   cancellation among the copies holds.
/// - A family-shared transaction counts only for a family-shareable product; an upgraded
///   transaction (`isUpgraded`) grants nothing.
/// - Coverage per product: a non-consumable from its first purchase on; a trial for its N days from
///   the earliest original purchase of its transactions; non-renewing purchases stack in purchase
///   order; an auto-renewable transaction covers `[purchaseDate, expiresDate)`, extended to a
///   renewal's `gracePeriodExpiresDate`.
/// - A feature is on when a granting product covers `at`; its `until` is the end of the unbroken
///   union of its granting products' coverage.
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
        var latestPurchase = Int64.min
        var latestTransactionId = ""
        var latestCancelled = false
        var hasCounted = false
        var firstCountedPurchase = Int64.max
        var trialStart = Int64.max
        var spans: [CoverageSpan] = []
        var stack: [(purchase: Int64, quantity: Int, id: String)] = []
    }

    static func evaluate(_ catalog: CompiledCatalog, receipts: [Receipt], at instant: Instant) -> ReferenceResult {
        let at = instant.millisecondsSince1970
        let products = catalog.compiledProducts
        var warnings: [EvaluationWarning] = []

        // 1. Deduplicate the app's transactions, resolving each product once.
        var merged: [Merged] = []
        var byTransactionId: [String: Int] = [:]
        var unknownProducts: [String: Int] = [:]
        var unknownOrder: [String] = []
        for receipt in receipts where receipt.app == catalog.app {
            merged.reserveCapacity(merged.count + receipt.transactions.count)
            for transaction in receipt.transactions {
                if let existing = byTransactionId[transaction.transactionId] {
                    if let cancel = transaction.cancellationDate?.millisecondsSince1970 {
                        merged[existing].cancellation = min(merged[existing].cancellation ?? .max, cancel)
                    }
                    if merged[existing].transaction.productId != transaction.productId {
                        warnings.append(EvaluationWarning(kind: .conflictingTransaction(transactionId: transaction.transactionId)))
                    }
                    continue
                }
                byTransactionId[transaction.transactionId] = merged.count
                merged.append(Merged(
                    transaction: transaction, product: catalog.productIndex[transaction.productId] ?? -1,
                    cancellation: transaction.cancellationDate?.millisecondsSince1970))
            }
        }

        // 2. Gather what each product's transactions say.
        var facts = [ProductFacts](repeating: ProductFacts(), count: products.count)
        var balances = [Int64](repeating: 0, count: catalog.currencyIds.count)
        var everBought = FeatureSet(capacity: products.count)
        var introUsed = FeatureSet(capacity: catalog.groups.count)
        for entry in merged {
            let transaction = entry.transaction
            let purchase = transaction.purchaseDate.millisecondsSince1970
            guard purchase <= at else { continue }
            guard entry.product >= 0 else {
                if unknownProducts[transaction.productId] == nil { unknownOrder.append(transaction.productId) }
                unknownProducts[transaction.productId, default: 0] += 1
                continue
            }
            let product = products[entry.product]
            if transaction.ownership == .familyShared && !product.familyShareable {
                warnings.append(EvaluationWarning(kind: .notFamilyShareable(
                    transactionId: transaction.transactionId, productId: product.id)))
                continue
            }
            let cancelled = entry.cancellation.map { $0 <= at } ?? false
            everBought.insert(entry.product)
            if product.group >= 0, transaction.isTrialPeriod || transaction.isIntroOfferPeriod {
                introUsed.insert(product.group)
            }
            var fact = facts[entry.product]
            fact.visible += 1
            if purchase > fact.latestPurchase
                || (purchase == fact.latestPurchase && transaction.transactionId > fact.latestTransactionId) {
                fact.latestPurchase = purchase
                fact.latestTransactionId = transaction.transactionId
                fact.latestCancelled = cancelled
            }
            let start = min(transaction.originalPurchaseDate?.millisecondsSince1970 ?? purchase, purchase)
            fact.trialStart = min(fact.trialStart, start)
            if !cancelled && !transaction.isUpgraded {
                fact.hasCounted = true
                switch product.type {
                case .nonConsumable:
                    fact.firstCountedPurchase = min(fact.firstCountedPurchase, purchase)
                case .nonRenewingSubscription:
                    fact.stack.append((purchase, transaction.quantity, transaction.transactionId))
                case .autoRenewableSubscription:
                    if let expires = transaction.expiresDate?.millisecondsSince1970 {
                        if expires > purchase { fact.spans.append(CoverageSpan(start: purchase, end: expires)) }
                    } else {
                        warnings.append(EvaluationWarning(kind: .missingExpiry(
                            transactionId: transaction.transactionId, productId: product.id)))
                    }
                case .consumable:
                    for (currency, amount) in product.credits {
                        balances[currency] += amount * Int64(transaction.quantity)
                    }
                }
            }
            facts[entry.product] = fact
        }
        for id in unknownOrder {
            warnings.append(EvaluationWarning(kind: .unknownProduct(productId: id, count: unknownProducts[id]!)))
        }

        // 3. Coverage spans of non-consumables, trials and stacked non-renewing subscriptions.
        for index in products.indices where facts[index].hasCounted {
            let product = products[index]
            switch product.type {
            case .nonConsumable:
                if case .trial(let days, _) = product.role {
                    let start = facts[index].trialStart
                    facts[index].spans.append(CoverageSpan(
                        start: start, end: start + Int64(days) * CivilCalendar.millisecondsPerDay))
                } else {
                    facts[index].spans.append(CoverageSpan(start: facts[index].firstCountedPurchase, end: CoverageSpan.never))
                }
            case .nonRenewingSubscription:
                var stack = facts[index].stack
                stack.sort { $0.purchase != $1.purchase ? $0.purchase < $1.purchase : $0.id < $1.id }
                var end = Int64.min
                for purchase in stack {
                    let start = max(purchase.purchase, end)
                    // N units cover N times the duration, as one calendar step.
                    end = ISODuration.add(months: product.durationMonths * purchase.quantity,
                                          days: product.durationDays * Int64(purchase.quantity),
                                          milliseconds: product.durationMilliseconds * Int64(purchase.quantity), to: start)
                    facts[index].spans.append(CoverageSpan(start: start, end: end))
                }
            default:
                break
            }
        }

        // 4. Renewal entries whose chain has no transaction are warned about, once per chain.
        let chains = Set(receipts.filter { $0.app == catalog.app }.flatMap(\.transactions).map { $0.originalTransactionId ?? $0.transactionId })
        var orphans: Set<String> = []
        for receipt in receipts where receipt.app == catalog.app {
            for renewal in receipt.renewals where !chains.contains(renewal.originalTransactionId) {
                if orphans.insert(renewal.originalTransactionId).inserted {
                    warnings.append(EvaluationWarning(kind: .orphanRenewal(originalTransactionId: renewal.originalTransactionId)))
                }
            }
        }

        // 5. Grace periods extend a subscription chain from its latest expiry.
        for receipt in receipts where receipt.app == catalog.app {
            for renewal in receipt.renewals {
                guard let grace = renewal.gracePeriodExpiresDate?.millisecondsSince1970 else { continue }
                var latest: (expires: Int64, product: Int)?
                for entry in merged where entry.product >= 0 {
                    let transaction = entry.transaction
                    guard (transaction.originalTransactionId ?? transaction.transactionId) == renewal.originalTransactionId,
                          products[entry.product].type == .autoRenewableSubscription,
                          transaction.purchaseDate.millisecondsSince1970 <= at,
                          !(entry.cancellation.map { $0 <= at } ?? false),
                          !transaction.isUpgraded,
                          !(transaction.ownership == .familyShared && !products[entry.product].familyShareable),
                          let expires = transaction.expiresDate?.millisecondsSince1970
                    else { continue }
                    if expires > (latest?.expires ?? .min) { latest = (expires, entry.product) }
                }
                if let latest, grace > latest.expires {
                    facts[latest.product].spans.append(CoverageSpan(start: latest.expires, end: grace, isGrace: true))
                }
            }
        }

        // 6. Product states.
        var states = [ProductState](repeating: .notPurchased, count: products.count)
        var productUntil = [Int64](repeating: CoverageSpan.never, count: products.count)
        for index in products.indices {
            var spans = facts[index].spans
            let (coveringEnd, _) = CoverageSpan.locate(&spans, at: at)
            if let coveringEnd {
                let paid = spans.contains { !$0.isGrace && $0.start <= at && at < $0.end }
                states[index] = paid ? .active : .gracePeriod
                productUntil[index] = coveringEnd
            } else if facts[index].visible == 0 {
                states[index] = .notPurchased
            } else {
                states[index] = facts[index].latestCancelled ? .revoked : .expired
            }
            facts[index].spans = spans
        }

        // 7. Features, and when the answer next changes.
        var enabled = [Bool](repeating: false, count: catalog.featureIds.count)
        var featureUntil = [Int64](repeating: CoverageSpan.never, count: catalog.featureIds.count)
        var reevaluate = Int64.max
        var spans: [CoverageSpan] = []
        for feature in catalog.featureIds.indices {
            spans.removeAll(keepingCapacity: true)
            for product in catalog.granters[feature] { spans += facts[product].spans }
            let (coveringEnd, nextStart) = CoverageSpan.locate(&spans, at: at)
            if let coveringEnd {
                enabled[feature] = true
                featureUntil[feature] = coveringEnd
                reevaluate = min(reevaluate, coveringEnd)
            } else if let nextStart {
                reevaluate = min(reevaluate, nextStart)
            }
        }

        // 8. Consumptions, deduplicated by id across the app's receipts.
        var consumed: [String: Consumption] = [:]
        for receipt in receipts where receipt.app == catalog.app {
            for consumption in receipt.consumptions {
                if let first = consumed[consumption.id] {
                    if first != consumption {
                        warnings.append(EvaluationWarning(kind: .conflictingConsumption(id: consumption.id)))
                    }
                    continue
                }
                consumed[consumption.id] = consumption
                guard consumption.date.millisecondsSince1970 <= at else { continue }
                guard let currency = catalog.currencyIndex[consumption.currency] else {
                    warnings.append(EvaluationWarning(kind: .unknownCurrency(
                        consumptionId: consumption.id, currency: consumption.currency)))
                    continue
                }
                balances[currency] -= consumption.amount
            }
        }
        for (index, balance) in balances.enumerated() where balance < 0 {
            warnings.append(EvaluationWarning(kind: .negativeBalance(currency: catalog.currencyIds[index], balance: balance)))
        }

        // 9. Upgrade requirements, met by other apps' receipts.
        var prerequisiteMet = FeatureSet(capacity: products.count)
        for (index, product) in products.enumerated() {
            guard case .upgrade(_, let requirement) = product.role else { continue }
            if meets(requirement, receipts: receipts, at: at) { prerequisiteMet.insert(index) }
        }

        // 10. The views, keyed by id.
        func instantOrNil(_ value: Int64) -> Instant? { value == CoverageSpan.never ? nil : Instant(millisecondsSince1970: value) }
        var result = ReferenceResult()
        for (index, id) in catalog.featureIds.enumerated() {
            let sources = enabled[index]
                ? catalog.granters[index].filter { states[$0] == .active || states[$0] == .gracePeriod }.map { products[$0].id }.sorted()
                : []
            result.features[id] = FeatureStatus(id: id, enabled: enabled[index],
                                                until: enabled[index] ? instantOrNil(featureUntil[index]) : nil, sources: sources)
        }
        for (index, id) in catalog.currencyIds.enumerated() { result.balances[id] = balances[index] }
        for (index, product) in products.enumerated() where product.type != .consumable {
            let covering = states[index] == .active || states[index] == .gracePeriod
            result.products[product.id] = ProductStatus(id: product.id, type: product.type, state: states[index],
                                                        until: covering ? instantOrNil(productUntil[index]) : nil)
        }
        func isActive(_ index: Int) -> Bool { states[index] == .active }
        for (index, product) in products.enumerated() {
            var reason: OfferReason?
            if !product.available {
                reason = .retired
            } else if product.type == .autoRenewableSubscription {
                reason = states[index] == .active || states[index] == .gracePeriod ? .subscribed : nil
            } else if product.type == .nonConsumable {
                let family: Int
                switch product.role {
                case .standard: family = index
                case .upgrade(let replaces, _): family = replaces
                case .trial(_, let paid): family = paid
                }
                let trialActive = product.trialPaidProduct != nil && isActive(index)
                let owned = trialActive || isActive(family) || products[family].upgrades.contains(where: isActive)
                if owned {
                    reason = .owned
                } else if product.trialPaidProduct != nil && everBought.contains(index) {
                    reason = .trialUsed
                } else if product.replacedProduct != nil && !prerequisiteMet.contains(index) {
                    reason = .prerequisiteMissing
                } else if product.trialPaidProduct == nil && product.replacedProduct == nil
                            && product.upgrades.contains(where: { products[$0].available && prerequisiteMet.contains($0) }) {
                    reason = .upgradeAvailable
                }
            }
            var intro: Bool?
            if product.type == .autoRenewableSubscription, product.introOffer != nil { intro = !introUsed.contains(product.group) }
            result.offers[product.id] = Offer(productId: product.id, eligible: reason == nil, reason: reason,
                                              introOfferEligible: intro, legal: product.legal)
        }
        result.reevaluateAt = reevaluate == .max ? nil : Instant(millisecondsSince1970: reevaluate)
        result.warningCodes = warnings.map(\.code).sorted()
        return result
    }

    /// Whether some receipt of the required app shows a qualifying purchase at `at`: copies of one
    /// transaction across that app's receipts count once, the earliest cancellation holding.
    static func meets(_ requirement: UpgradeRequirement, receipts: [Receipt], at: Int64) -> Bool {
        let ofApp = receipts.filter { $0.app == requirement.app }
        guard !ofApp.isEmpty else { return false }
        guard let anyOf = requirement.anyOf else { return true }
        var first: [String: Transaction] = [:]
        var order: [String] = []
        var cancellation: [String: Int64] = [:]
        for receipt in ofApp {
            for transaction in receipt.transactions {
                if first[transaction.transactionId] == nil {
                    first[transaction.transactionId] = transaction
                    order.append(transaction.transactionId)
                }
                if let cancelled = transaction.cancellationDate?.millisecondsSince1970 {
                    cancellation[transaction.transactionId] = min(cancellation[transaction.transactionId] ?? .max, cancelled)
                }
            }
        }
        return order.contains { id in
            let transaction = first[id]!
            return anyOf.contains(transaction.productId) && transaction.purchaseDate.millisecondsSince1970 <= at
                && (cancellation[id] ?? .max) > at
        }
    }
}

/// The reference evaluator's answer, keyed by id.
struct ReferenceResult: Equatable {
    var features: [String: FeatureStatus] = [:]
    var balances: [String: Int64] = [:]
    var products: [String: ProductStatus] = [:]
    var offers: [String: Offer] = [:]
    var reevaluateAt: Instant?
    var warningCodes: [String] = []

    /// The same views taken from a compiled evaluation.
    init(_ result: Entitlements) {
        for feature in result.features { features[feature.id] = feature }
        for balance in result.balances { balances[balance.currency] = balance.balance }
        for product in result.products { products[product.id] = product }
        for offer in result.offers { offers[offer.productId] = offer }
        reevaluateAt = result.reevaluateAt
        warningCodes = result.warnings.map(\.code).sorted()
    }

    init() {}
}
