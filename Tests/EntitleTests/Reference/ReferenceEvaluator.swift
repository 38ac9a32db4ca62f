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
        var hasCounted = false
        var trialStart = Int64.max
        var spans: [CoverageSpan] = []
        var stack: [Transaction] = []
        var willRenew: Bool?
        var renewsTo: String?
        var retry = false
        /// The chain the status comes from: latest expiry, then latest entry (signing date, place).
        var statusKey: (expires: Int64, signed: Int64, position: Int) = (.min, .min, -1)
    }

    /// Evaluates, with `reevaluateAt` found by brute force.
    static func evaluate(
        _ catalog: CompiledCatalog, receipts: [Receipt], at instant: Instant, environments: Set<String>? = nil,
        catalogs: [String: CompiledCatalog] = [:]
    ) -> ReferenceResult {
        let at = instant.millisecondsSince1970
        var (result, candidates) = answer(catalog, receipts: receipts, at: at, environments: environments, catalogs: catalogs)
        // Try every instant where something could change, in order, until the answer differs.
        var tried: Set<Int64> = []
        while let next = candidates.filter({ $0 > at && !tried.contains($0) }).min() {
            tried.insert(next)
            let (later, more) = answer(catalog, receipts: receipts, at: next, environments: environments, catalogs: catalogs)
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
        answer(catalog, receipts: receipts, at: instant.millisecondsSince1970, environments: environments, catalogs: [:]).1
    }

    /// The answer at `at`, and every instant at which something in it could change: each date in
    /// the data and each start and end of coverage computed.
    private static func answer(
        _ catalog: CompiledCatalog, receipts allReceipts: [Receipt], at: Int64, environments: Set<String>?,
        catalogs: [String: CompiledCatalog]
    ) -> (ReferenceResult, Set<Int64>) {
        let products = catalog.compiledProducts
        var warnings: [EvaluationWarning] = []
        var candidates: Set<Int64> = []

        // 0. Environments. An accepted one entitle does not know and no receipt names: a warning.
        var receipts: [Receipt] = []
        if let environments {
            let known = ["production", "sandbox", "xcode", "local-testing"]
            func canonical(_ text: String) -> String { text.lowercased() == "localtesting" ? "local-testing" : text.lowercased() }
            let named = Set(allReceipts.map { canonical($0.environment ?? "production") })
            for name in Set(environments.map(canonical)).sorted() where !known.contains(name) && !named.contains(name) {
                warnings.append(EvaluationWarning(kind: .unknownEnvironment(
                    name: name, suggestion: Suggestion.closest(to: name, in: known) ?? known.first { $0.hasPrefix(name) })))
            }
        }
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
        let own = receipts.filter { $0.app == catalog.app }
        // Receipts of an app with no catalog in the portfolio that no upgrade requires count for
        // nothing: one warning per such app.
        var unrelated: Set<String> = []
        for receipt in receipts where receipt.app != catalog.app && catalogs[receipt.app] == nil
            && !catalog.requiredApps.contains(receipt.app) && unrelated.insert(receipt.app).inserted {
            let known = [catalog.app] + catalog.requiredApps + catalogs.keys.sorted()
            warnings.append(EvaluationWarning(kind: .unrelatedReceipt(app: receipt.app, suggestion: Suggestion.closest(to: receipt.app, in: known))))
        }
        for receipt in receipts {
            for transaction in receipt.transactions {
                candidates.insert(transaction.purchaseDate.millisecondsSince1970)
                if let date = transaction.cancellationDate { candidates.insert(date.millisecondsSince1970) }
            }
            for consumption in receipt.consumptions { candidates.insert(consumption.date.millisecondsSince1970) }
            for renewal in receipt.renewals { if let date = renewal.signedDate { candidates.insert(date.millisecondsSince1970) } }
            for grant in receipt.grants {
                candidates.insert(grant.start.millisecondsSince1970)
                if let date = grant.end { candidates.insert(date.millisecondsSince1970) }
                if let date = grant.revokedAt { candidates.insert(date.millisecondsSince1970) }
            }
            if let date = receipt.originalPurchaseDate { candidates.insert(date.millisecondsSince1970) }
        }

        // 1. Deduplicate the app's transactions, resolving each product once.
        var merged: [Merged] = []
        var byTransactionId: [String: Int] = [:]
        for receipt in own {
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
                if !(1...ReceiptLimits.maxQuantity).contains(transaction.quantity) {
                    warnings.append(EvaluationWarning(kind: .quantityOutOfRange(transactionId: transaction.transactionId, quantity: transaction.quantity)))
                }
                merged.append(Merged(
                    transaction: transaction, product: catalog.productIndex[transaction.productId] ?? -1,
                    cancellation: transaction.cancellationDate?.millisecondsSince1970))
            }
        }

        // 2. What each product's transactions say.
        var facts = [ProductFacts](repeating: ProductFacts(), count: products.count)
        var balances = [Int64](repeating: 0, count: catalog.currencyIds.count)
        var everBought = FeatureSet(capacity: products.count)
        var introUsed = FeatureSet(capacity: catalog.groups.count)
        var unknownProducts: [String: Int] = [:]
        var unknownOrder: [String] = []
        var subscriptionTransactions: [(transaction: Transaction, product: Int)] = []
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
                warnings.append(EvaluationWarning(kind: .notFamilyShareable(transactionId: transaction.transactionId, productId: product.id)))
                continue
            }
            let cancelled = entry.cancellation.map { $0 <= at } ?? false
            everBought.insert(entry.product)
            if product.group >= 0, transaction.isTrialPeriod || transaction.isIntroOfferPeriod { introUsed.insert(product.group) }
            if product.type == .consumable {
                if !cancelled && !transaction.isUpgraded {
                    for (currency, amount) in product.credits { balances[currency] += amount * Int64(countedQuantity(transaction.quantity)) }
                }
                continue
            }
            var fact = facts[entry.product]
            fact.visible += 1
            if fact.latest == nil || comesBefore(fact.latest!, transaction) {
                fact.latest = transaction
                fact.latestCancelled = cancelled
            }
            fact.trialStart = min(fact.trialStart, transaction.originalPurchaseDate?.millisecondsSince1970 ?? purchase, purchase)
            if !cancelled && !transaction.isUpgraded {
                fact.hasCounted = true
                switch product.type {
                case .nonConsumable:
                    fact.firstCountedPurchase = min(fact.firstCountedPurchase, purchase)
                case .nonRenewingSubscription:
                    fact.stack.append(transaction)
                case .autoRenewableSubscription:
                    if let expires = transaction.expiresDate?.millisecondsSince1970 {
                        if expires > purchase { fact.spans.append(CoverageSpan(start: purchase, end: expires)) }
                        subscriptionTransactions.append((transaction, entry.product))
                    } else {
                        warnings.append(EvaluationWarning(kind: .missingExpiry(transactionId: transaction.transactionId, productId: product.id)))
                    }
                case .consumable:
                    break
                }
            }
            facts[entry.product] = fact
        }
        for id in unknownOrder { warnings.append(EvaluationWarning(kind: .unknownProduct(productId: id, count: unknownProducts[id]!))) }

        // 3. Trials, non-consumables and passes.
        var passGroups: [Int: [(transaction: Transaction, product: Int)]] = [:]
        for index in products.indices where facts[index].hasCounted {
            let product = products[index]
            switch product.type {
            case .nonConsumable:
                if case .trial(let days, _) = product.role {
                    let start = facts[index].trialStart
                    facts[index].spans.append(CoverageSpan(start: start, end: start + Int64(days) * CivilCalendar.millisecondsPerDay))
                } else {
                    facts[index].spans.append(CoverageSpan(start: facts[index].firstCountedPurchase, end: CoverageSpan.never))
                }
            case .nonRenewingSubscription where product.passGroup >= 0:
                passGroups[product.passGroup, default: []] += facts[index].stack.map { ($0, index) }
            case .nonRenewingSubscription:
                var end = Int64.min
                for transaction in facts[index].stack.sorted(by: comesBefore) {
                    let start = max(transaction.purchaseDate.millisecondsSince1970, end)
                    end = passEnd(product, transaction, from: start)
                    facts[index].spans.append(CoverageSpan(start: start, end: end))
                }
            default:
                break
            }
        }
        for (_, purchases) in passGroups {
            var end = Int64.min
            for (transaction, index) in purchases.sorted(by: { comesBefore($0.transaction, $1.transaction) }) {
                let start = max(transaction.purchaseDate.millisecondsSince1970, end)
                end = passEnd(products[index], transaction, from: start)
                facts[index].spans.append(CoverageSpan(start: start, end: end))
            }
        }

        // 4. Renewal entries: orphans, stale grace, grace, and what each chain's latest entry says.
        // Only entries signed by `at` count, orphans included.
        let renewals = own.flatMap(\.renewals)
        func counted(_ renewal: Renewal) -> Bool { (renewal.signedDate?.millisecondsSince1970 ?? .min) <= at }
        if !renewals.isEmpty {
            let chains = Set(own.flatMap(\.transactions).map { $0.originalTransactionId ?? $0.transactionId })
            var orphans: Set<String> = []
            for renewal in renewals where !chains.contains(renewal.originalTransactionId) && counted(renewal) {
                if orphans.insert(renewal.originalTransactionId).inserted {
                    warnings.append(EvaluationWarning(kind: .orphanRenewal(originalTransactionId: renewal.originalTransactionId)))
                }
            }
        }
        /// The product a chain's entry speaks of: among the products holding the chain's latest
        /// expiry, the one the entry names, else the one bought last (purchase order).
        func owner(of chain: [(transaction: Transaction, product: Int)], named: String?) -> (owner: Int, latestExpiry: Int64)? {
            guard let latestExpiry = chain.compactMap({ $0.transaction.expiresDate?.millisecondsSince1970 }).max() else { return nil }
            let holders = chain.filter { $0.transaction.expiresDate?.millisecondsSince1970 == latestExpiry }
                .sorted { comesBefore($0.transaction, $1.transaction) }.map(\.product)
            return (holders.first { products[$0].id == named } ?? holders.last!, latestExpiry)
        }
        var latestEntry: [String: (renewal: Renewal, position: Int)] = [:]
        // The latest entry that says whether billing is being retried (an entry may leave it out).
        var latestRetry: [String: Renewal] = [:]
        var chainOrder: [String] = []
        for (position, renewal) in renewals.enumerated() where counted(renewal) {
            let stale = renewal.gracePeriodExpiresDate != nil && renewal.isInBillingRetry == false
            if stale { warnings.append(EvaluationWarning(kind: .staleGrace(originalTransactionId: renewal.originalTransactionId))) }
            let chain = subscriptionTransactions.filter { ($0.transaction.originalTransactionId ?? $0.transaction.transactionId) == renewal.originalTransactionId }
            guard let (owner, latestExpiry) = owner(of: chain, named: renewal.productId) else { continue }
            if let grace = renewal.gracePeriodExpiresDate?.millisecondsSince1970, !stale, grace > latestExpiry {
                facts[owner].spans.append(CoverageSpan(start: latestExpiry, end: grace, isGrace: true))
            }
            if let current = latestEntry[renewal.originalTransactionId] {
                if (renewal.signedDate?.millisecondsSince1970 ?? .min) >= (current.renewal.signedDate?.millisecondsSince1970 ?? .min) {
                    latestEntry[renewal.originalTransactionId] = (renewal, position)
                }
            } else {
                latestEntry[renewal.originalTransactionId] = (renewal, position)
                chainOrder.append(renewal.originalTransactionId)
            }
            if renewal.isInBillingRetry != nil,
               (latestRetry[renewal.originalTransactionId]?.signedDate?.millisecondsSince1970 ?? .min) <= (renewal.signedDate?.millisecondsSince1970 ?? .min) {
                latestRetry[renewal.originalTransactionId] = renewal
            }
        }
        for chainId in chainOrder {
            let (renewal, position) = latestEntry[chainId]!
            let chain = subscriptionTransactions.filter { ($0.transaction.originalTransactionId ?? $0.transaction.transactionId) == chainId }
            let (owner, latestExpiry) = owner(of: chain, named: renewal.productId)!
            let key = (latestExpiry, renewal.signedDate?.millisecondsSince1970 ?? .min, position)
            guard key > facts[owner].statusKey else { continue }
            facts[owner].statusKey = key
            facts[owner].willRenew = renewal.willRenew
            facts[owner].renewsTo = renewal.renewsTo == products[owner].id ? nil : renewal.renewsTo
            facts[owner].retry = latestRetry[chainId]?.isInBillingRetry == true
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
            } else if products[index].type == .autoRenewableSubscription, facts[index].retry, spans.contains(where: { $0.end <= at }) {
                states[index] = .billingRetry
            } else {
                states[index] = .expired
            }
            facts[index].spans = spans
        }

        // 6. Grandfather rules and grants.
        var access: [(feature: Int, source: String, span: CoverageSpan, grandfathered: Bool)] = []
        for rule in catalog.grandfatherRules {
            var start: Int64?
            for receipt in own {
                let purchase = receipt.originalPurchaseDate?.millisecondsSince1970
                switch rule.condition {
                case .originalApplicationVersionBefore(let before):
                    guard let text = receipt.originalApplicationVersion, let version = CatalogChecker.versionComponents(text),
                          lower(version, than: before) else { continue }
                    start = min(start ?? .max, purchase ?? .min)
                case .originalPurchaseBefore(let before):
                    guard let purchase, purchase < before else { continue }
                    start = min(start ?? .max, purchase)
                }
            }
            if let start {
                for feature in rule.grants { access.append((feature, "grandfathered:\(rule.id)", CoverageSpan(start: start, end: CoverageSpan.never), true)) }
            }
        }
        if catalog.grandfatherRules.contains(where: { if case .originalApplicationVersionBefore = $0.condition { true } else { false } }) {
            for receipt in own {
                if let text = receipt.originalApplicationVersion, CatalogChecker.versionComponents(text) == nil {
                    warnings.append(EvaluationWarning(kind: .badVersion(app: receipt.app, version: text)))
                }
            }
        }
        var firstGrant: [String: Grant] = [:]
        for receipt in own {
            for grant in receipt.grants {
                if let first = firstGrant[grant.id] {
                    if first != grant { warnings.append(EvaluationWarning(kind: .conflictingGrant(id: grant.id))) }
                    continue
                }
                firstGrant[grant.id] = grant
                guard grant.start.millisecondsSince1970 <= at, (grant.revokedAt?.millisecondsSince1970 ?? .max) > at else { continue }
                for feature in grant.features {
                    guard let index = catalog.featureIndex[feature] else {
                        warnings.append(EvaluationWarning(kind: .unknownGrantFeature(grantId: grant.id, feature: feature)))
                        continue
                    }
                    access.append((index, "grant:\(grant.id)",
                                   CoverageSpan(start: grant.start.millisecondsSince1970, end: grant.end?.millisecondsSince1970 ?? .max), false))
                }
            }
        }
        for item in access { candidates.formUnion([item.span.start, item.span.end]) }

        // 7. Features.
        var enabled = [Bool](repeating: false, count: catalog.featureIds.count)
        var featureUntil = [Int64](repeating: CoverageSpan.never, count: catalog.featureIds.count)
        for feature in catalog.featureIds.indices {
            var spans: [CoverageSpan] = []
            for product in catalog.granters[feature] { spans += facts[product].spans }
            for item in access where item.feature == feature && item.span.end > item.span.start { spans.append(item.span) }
            if let coveringEnd = CoverageSpan.locate(&spans, at: at).coveringEnd {
                enabled[feature] = true
                featureUntil[feature] = coveringEnd
            }
        }

        // 8. Consumptions, deduplicated by id across the app's receipts.
        var consumed: [String: Consumption] = [:]
        for receipt in own {
            for consumption in receipt.consumptions {
                if let first = consumed[consumption.id] {
                    if first != consumption { warnings.append(EvaluationWarning(kind: .conflictingConsumption(id: consumption.id))) }
                    continue
                }
                consumed[consumption.id] = consumption
                guard consumption.date.millisecondsSince1970 <= at else { continue }
                guard (1...ReceiptLimits.maxConsumptionAmount).contains(consumption.amount) else {
                    warnings.append(EvaluationWarning(kind: .amountOutOfRange(consumptionId: consumption.id, amount: consumption.amount)))
                    continue
                }
                guard let currency = catalog.currencyIndex[consumption.currency] else {
                    warnings.append(EvaluationWarning(kind: .unknownCurrency(consumptionId: consumption.id, currency: consumption.currency)))
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
            if meets(requirement, receipts: receipts, at: at, catalogs: catalogs) { prerequisiteMet.insert(index) }
        }

        // 10. The views, keyed by id.
        func instantOrNil(_ value: Int64) -> Instant? { value == CoverageSpan.never ? nil : Instant(millisecondsSince1970: value) }
        var result = ReferenceResult()
        for (index, id) in catalog.featureIds.enumerated() {
            var sources: [String] = []
            if enabled[index] {
                sources = catalog.granters[index].filter { states[$0] == .active || states[$0] == .gracePeriod }.map { products[$0].id }
                sources += access.filter { $0.feature == index && $0.span.start <= at && at < $0.span.end }.map(\.source)
            }
            result.features[id] = FeatureStatus(id: id, enabled: enabled[index],
                                                until: enabled[index] ? instantOrNil(featureUntil[index]) : nil,
                                                sources: Array(Set(sources)).sorted())
        }
        for (index, id) in catalog.currencyIds.enumerated() { result.balances[id] = balances[index] }
        for (index, product) in products.enumerated() where product.type != .consumable {
            let covering = states[index] == .active || states[index] == .gracePeriod
            result.products[product.id] = ProductStatus(
                id: product.id, type: product.type, state: states[index],
                until: covering ? instantOrNil(productUntil[index]) : nil,
                startsAt: startsAt[index].map { Instant(millisecondsSince1970: $0) },
                willRenew: product.type == .autoRenewableSubscription ? facts[index].willRenew : nil,
                renewsTo: product.type == .autoRenewableSubscription ? facts[index].renewsTo : nil)
        }
        func isActive(_ index: Int) -> Bool { states[index] == .active }
        func grandfathered(_ feature: Int) -> Bool {
            access.contains { $0.grandfathered && $0.feature == feature && $0.span.start <= at && at < $0.span.end }
        }
        for (index, product) in products.enumerated() {
            var reason: OfferReason?
            var change: SubscriptionChange?
            var effective: ChangeTiming?
            if !product.available {
                reason = .retired
            } else if product.type == .autoRenewableSubscription {
                if states[index] == .active || states[index] == .gracePeriod {
                    reason = .subscribed
                } else if let level = product.level {
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
                            let same = product.period != nil && product.period.map(nominal) == products[current].period.map(nominal)
                            (change, effective) = (.crossgrade, same ? .immediately : .nextRenewal)
                        }
                    }
                }
            } else if product.type == .nonConsumable {
                let family: Int
                switch product.role {
                case .standard: family = index
                case .upgrade(let replaces, _): family = replaces
                case .trial(_, let paid): family = paid
                }
                let trialActive = product.trialPaidProduct != nil && isActive(index)
                let owned = trialActive || isActive(family) || products[family].upgrades.contains(where: isActive)
                    || (!product.grants.isEmpty && product.grants.allSatisfy(grandfathered))
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
                                              introOfferEligible: intro, legal: product.legal, change: change, effective: effective)
        }
        result.warnings = warnings.map { "\($0.code): \($0.message)" }.sorted()
        candidates.remove(CoverageSpan.never)
        return (result, candidates)
    }

    /// Purchase order: by purchase date, ties by transaction id, numerically when both are digits.
    static func comesBefore(_ a: Transaction, _ b: Transaction) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate < b.purchaseDate }
        let x = a.transactionId, y = b.transactionId
        if !x.isEmpty, !y.isEmpty, x.allSatisfy(\.isASCIIDigit), y.allSatisfy(\.isASCIIDigit) {
            let p = x.drop { $0 == "0" }, q = y.drop { $0 == "0" }
            if p.count != q.count { return p.count < q.count }
            if p != q { return p < q }
        }
        return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
    }

    private static func passEnd(_ product: CompiledProduct, _ transaction: Transaction, from start: Int64) -> Int64 {
        // N units cover N times the duration, as one calendar step.
        let quantity = countedQuantity(transaction.quantity)
        let end = ISODuration.add(months: product.durationMonths * quantity,
                                  days: product.durationDays * Int64(quantity),
                                  milliseconds: product.durationMilliseconds * Int64(quantity), to: start)
        return max(end, start)
    }

    /// A quantity outside 1 to the limit (only in receipts built in code) counts as the nearest.
    static func countedQuantity(_ quantity: Int) -> Int { min(max(quantity, 1), ReceiptLimits.maxQuantity) }

    private static func lower(_ a: [Int], than b: [Int]) -> Bool {
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0, y = index < b.count ? b[index] : 0
            if x != y { return x < y }
        }
        return false
    }

    private static func nominal(_ duration: ISODuration) -> [Int64] {
        [Int64(duration.totalMonths), duration.totalDays, duration.timeMilliseconds]
    }

    /// Whether some receipt of the required app shows a qualifying purchase at `at`: copies of one
    /// transaction across that app's receipts count once, the earliest cancellation holding; a
    /// family-shared purchase counts only when that app's catalog makes the product shareable.
    static func meets(_ requirement: UpgradeRequirement, receipts: [Receipt], at: Int64, catalogs: [String: CompiledCatalog]) -> Bool {
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
            if transaction.ownership == .familyShared {
                guard let catalog = catalogs[requirement.app], let index = catalog.productIndex[transaction.productId],
                      catalog.compiledProducts[index].familyShareable else { return false }
            }
            return anyOf.contains(transaction.productId) && transaction.purchaseDate.millisecondsSince1970 <= at
                && (cancellation[id] ?? .max) > at
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
    var products: [String: ProductStatus] = [:]
    var offers: [String: Offer] = [:]
    var reevaluateAt: Instant?
    /// `code: message`, sorted.
    var warnings: [String] = []

    /// The same views taken from a compiled evaluation.
    init(_ result: Entitlements) {
        for feature in result.features { features[feature.id] = feature }
        for balance in result.balances { balances[balance.currency] = balance.balance }
        for product in result.products { products[product.id] = product }
        for offer in result.offers { offers[offer.productId] = offer }
        reevaluateAt = result.reevaluateAt
        warnings = result.warnings.map { "\($0.code): \($0.message)" }.sorted()
    }

    init() {}

    /// The same answer, `reevaluateAt` aside.
    func sameAnswer(as other: ReferenceResult) -> Bool {
        features == other.features && balances == other.balances && products == other.products && offers == other.offers
            && warnings == other.warnings
    }
}
