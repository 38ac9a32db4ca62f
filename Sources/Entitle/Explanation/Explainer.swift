/// Builds an ``Explanation``: evaluates once with a recorder that keeps every decision the
/// evaluator makes (``EvaluationRecorder``), then puts those decisions in words. Nothing is
/// derived again here: what counts, what covers, which snapshot stands, which renewal entry
/// decides what, why a product has its state and why an offer is made or not are the evaluator's.
///
/// One family per file: transactions and products here, renewal entries in `Explainer+Renewals`,
/// feature sources in `Explainer+Features`, offers in `Explainer+Offers`.
struct Explainer: EvaluationRecorder {
    static var records: Bool { true }

    // What the evaluation decided, as it told it.
    var ignoredReceipts: [(position: Int, environment: String)] = []
    var snapshotDecisions: [SnapshotDecision] = []
    var exclusions: [(entry: Evaluator.Entry, exclusion: TransactionExclusion)] = []
    var later: [Evaluator.Entry] = []
    var credited: [(entry: Evaluator.Entry, units: Int64, refunded: Int64)] = []
    var covered: [(entry: Evaluator.Entry, span: CoverageSpan?)] = []
    var history: [(entry: Evaluator.Entry, span: CoverageSpan)] = []
    var spending: [(receipt: Int, index: Int, currency: Int)] = []
    var groupPurchases: [(entry: Evaluator.Entry, usesIntro: Bool)] = []
    var renewalDecisions: [RenewalDecision] = []
    var states: [Int32: StateDecision] = [:]
    var grandfatherDecisions: [(rule: Int, receipt: Int, decision: GrandfatherDecision)] = []
    var grantDecisions: [(receipt: Int, index: Int, decision: GrantDecision)] = []
    var items: [(entry: Evaluator.Entry, item: Int, ends: Int64)] = []
    var rescinded: Int64?

    mutating func ignored(receipt: Int, environment: String) { ignoredReceipts.append((receipt, environment)) }
    mutating func snapshots(_ decision: SnapshotDecision) { snapshotDecisions.append(decision) }
    mutating func excluded(_ entry: Evaluator.Entry, because exclusion: TransactionExclusion) { exclusions.append((entry, exclusion)) }
    mutating func later(_ entry: Evaluator.Entry) { later.append(entry) }
    mutating func credited(_ entry: Evaluator.Entry, units: Int64, refunded: Int64) { credited.append((entry, units, refunded)) }
    mutating func spent(receipt: Int, index: Int, currency: Int) { spending.append((receipt, index, currency)) }
    mutating func boughtInGroup(_ entry: Evaluator.Entry, usesIntro: Bool) { groupPurchases.append((entry, usesIntro)) }
    mutating func covers(_ entry: Evaluator.Entry, span: CoverageSpan?) { covered.append((entry, span)) }
    mutating func refunded(_ entry: Evaluator.Entry, span: CoverageSpan) { history.append((entry, span)) }
    mutating func renewal(_ decision: RenewalDecision) { renewalDecisions.append(decision) }
    mutating func state(of product: Int32, _ decision: StateDecision) { states[product] = decision }
    mutating func grandfather(rule: Int, receipt: Int, _ decision: GrandfatherDecision) { grandfatherDecisions.append((rule, receipt, decision)) }
    mutating func grant(receipt: Int, index: Int, _ decision: GrantDecision) { grantDecisions.append((receipt, index, decision)) }
    mutating func consentRescinded(at: Int64) { rescinded = at }
    mutating func item(_ entry: Evaluator.Entry, item: Int, ends: Int64) { items.append((entry, item, ends)) }

    /// What the explanation is built from: the catalog, the result, the receipts read.
    struct Context {
        let catalog: CompiledCatalog
        let result: Entitlements
        let at: Int64
        /// The receipts the evaluation read (accepted environments), and each one's position
        /// among the receipts given.
        let receipts: [ParsedReceipt]
        let positions: [Int]
    }

    static func explain(
        _ catalog: CompiledCatalog, receipts given: [ParsedReceipt], at requested: Instant,
        options: Evaluator.Options
    ) -> Explanation {
        var explainer = Explainer()
        let result = Evaluator.evaluate(catalog, receipts: given, at: requested, options: options, recorder: &explainer)
        // The receipts evaluation read are the ones it did not ignore, in the order given, as it
        // read them (a Play subscription cut where its replacement starts).
        let ignored = Set(explainer.ignoredReceipts.map(\.position))
        let positions = given.indices.filter { !ignored.contains($0) }
        let context = Context(
            catalog: catalog, result: result, at: result.at.millisecondsSince1970,
            receipts: result.answer.evaluatedReceipts ?? positions.map { given[$0] }, positions: positions)
        let products = catalog.compiledProducts.indices.filter { catalog.compiledProducts[$0].type != .consumable }
            .map { explainer.product($0, context) }
        let byId = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let offerContext = Entitlements.OfferContext(result)
        var explanation = Explanation(
            app: catalog.app, at: result.at,
            features: catalog.featureIds.indices.map { explainer.feature($0, products: byId, context) },
            products: products,
            offers: catalog.compiledProducts.indices.map { explainer.offer($0, context, offers: offerContext) },
            balances: catalog.currencyIds.indices.map { explainer.balance($0, context) },
            ignoredReceipts: explainer.ignoredReceipts.map { item in
                IgnoredReceipt(
                    receipt: item.position, app: given[item.position].app,
                    reason: "its environment `\(item.environment)` is not among those accepted")
            }, consentRescinded: explainer.rescinded.map { Instant(millisecondsSince1970: $0) })
        explanation.limits = result.limitExplanations
        return explanation
    }

    // MARK: Transactions

    /// Every transaction of product `index` as the evaluation decided it, and the other copies
    /// of each, in purchase order.
    func transactions(of index: Int, _ context: Context) -> [TransactionExplanation] {
        let product = Int32(index)
        var items: [(entry: Evaluator.Entry, explanation: TransactionExplanation)] = []
        let rule = context.catalog.rules[index]
        for item in covered where item.entry.product == product {
            var explanation = transaction(item.entry, context)
            explanation.counted = true
            explanation.covers = item.span.map(Self.span)
            if let span = item.span {
                explanation.reason = "counts: covers \(Self.text(span))"
                if rule.trialDays > 0 { explanation.reason += " (\(rule.trialDays) days from the earliest original purchase)" }
            } else if rule.type == .nonConsumable {
                explanation.reason = "counts; the product was owned already"
            } else {
                explanation.reason = "counts, but covers nothing (it expires at or before its purchase)"
            }
            items.append((item.entry, explanation))
        }
        for item in credited where item.entry.product == product {
            var explanation = transaction(item.entry, context)
            explanation.counted = true
            explanation.units = item.units
            explanation.reason =
                item.refunded == 0
                ? "counts: \(item.units) unit\(item.units == 1 ? " credits" : "s credit")"
                : "\(Self.revocation(item.entry.record, units: (item.refunded, item.units + item.refunded))): "
                    + "\(item.units) unit\(item.units == 1 ? " still credits" : "s still credit")"
            items.append((item.entry, explanation))
        }
        for item in exclusions where item.entry.product == product {
            var explanation = transaction(item.entry, context)
            explanation.counted = false
            switch item.exclusion {
            case .unknownProduct:
                continue
            case .notFamilyShareable:
                explanation.exclusion = .notFamilyShareable
                explanation.reason = "family-shared, and the product is not familyShareable"
            case .otherAccount:
                explanation.exclusion = .otherAccount
                let token = context.receipts[Int(item.entry.receipt)].text(item.entry.record.accountToken) ?? ""
                explanation.reason = "for account \(token), not the one evaluated"
            case .cancelled:
                explanation.exclusion = .cancelled
                explanation.reason = "cancelled \(Self.text(item.entry.cancellation))"
                if item.entry.record.flags & TransactionRecord.unacknowledged != 0,
                    item.entry.cancellation
                        == item.entry.record.acknowledgementDeadline(
                            release: Evaluator.release(of: item.entry.record, in: context.receipts[Int(item.entry.receipt)]))
                {
                    explanation.reason += ": not acknowledged within three days, so Google Play refunded it"
                    items.append((item.entry, explanation))
                    continue
                }
                if item.entry.record.revocationType != 0 || item.entry.record.revocationPercentage >= 0 {
                    explanation.reason += ": " + Self.revocation(item.entry.record, units: nil)
                }
            case .upgraded:
                explanation.exclusion = .upgraded
                explanation.reason =
                    rule.type == .autoRenewableSubscription
                    ? "isUpgraded: replaced by a purchase of a higher subscription"
                    : "isUpgraded: the App Store marks it as replaced by an upgrade, so it grants nothing"
            case .noExpiry:
                explanation.exclusion = .noExpiry
                explanation.reason = "an auto-renewable transaction without expiresDate covers nothing"
            case .pending:
                explanation.exclusion = .pending
                explanation.reason = "pending: bought, not paid yet; it grants nothing until paid"
            case .preordered:
                explanation.exclusion = .preordered
                let release = Evaluator.release(of: item.entry.record, in: context.receipts[Int(item.entry.receipt)])
                explanation.reason = "pre-ordered: it grants from the release, \(Self.text(release))"
            }
            items.append((item.entry, explanation))
        }
        for entry in later where entry.product == product {
            var explanation = transaction(entry, context)
            explanation.exclusion = .purchasedLater
            explanation.reason = "purchased \(Self.text(entry.purchase)), after the instant"
            items.append((entry, explanation))
        }
        items.sort { Evaluator.precedes($0.entry, $1.entry, receipts: context.receipts) }
        // The other copies of each transaction, right after it.
        var result: [TransactionExplanation] = []
        for item in items {
            result.append(item.explanation)
            guard !item.entry.copies.isEmpty,
                let decision = snapshotDecisions.first(where: { $0.standing == (item.entry.receipt, item.entry.index) })
            else { continue }
            if decision.conflicting { result[result.count - 1].reason += "; its copies of the same rank disagree (conflicting-transaction)" }
            for copy in decision.others {
                let receipt = context.receipts[Int(copy.receipt)]
                let record = receipt.transactions[Int(copy.index)]
                var explanation = TransactionExplanation(
                    transactionId: receipt.text(record.transactionId) ?? "", receipt: context.positions[Int(copy.receipt)],
                    purchaseDate: Instant(millisecondsSince1970: record.purchase), expiresDate: Self.instant(record.expires),
                    cancellationDate: Self.instant(record.cancellation), signedDate: Self.instant(record.signed),
                    counted: false, exclusion: nil, covers: nil, reason: "")
                let standing = context.positions[Int(item.entry.receipt)]
                switch copy.role {
                case .merged(let cancellation, let expiry):
                    explanation.exclusion = .duplicate
                    explanation.reason = "a copy signed as the one in receipt \(standing), merged with it"
                    if cancellation { explanation.reason += "; its cancellation, the earliest, holds" }
                    if expiry { explanation.reason += "; its expiry, the latest, holds" }
                case .superseded(let by):
                    explanation.exclusion = .superseded
                    explanation.reason =
                        "an earlier snapshot: the one in receipt \(standing)"
                        + (by == Int64.min ? "" : ", signed \(Self.text(by)),") + " stands for it"
                case .signedLater(let signed):
                    explanation.exclusion = .signedLater
                    explanation.reason = "a snapshot signed \(Self.text(signed)), after the instant: not known yet"
                }
                result.append(explanation)
            }
        }
        return result
    }

    /// A transaction's explanation, its facts filled from its record (the merged one).
    private func transaction(_ entry: Evaluator.Entry, _ context: Context) -> TransactionExplanation {
        let receipt = context.receipts[Int(entry.receipt)]
        return TransactionExplanation(
            transactionId: receipt.text(entry.record.transactionId) ?? "", receipt: context.positions[Int(entry.receipt)],
            purchaseDate: Instant(millisecondsSince1970: entry.purchase), expiresDate: Self.instant(entry.expires),
            cancellationDate: Self.instant(entry.cancellation), signedDate: Self.instant(entry.record.signed),
            counted: false, exclusion: nil, covers: nil, reason: "")
    }

    /// A revocation in words: "refunded in part (33.333%: 1 of 3 units)", "family sharing revoked".
    static func revocation(_ record: TransactionRecord, units: (refunded: Int64, of: Int64)?) -> String {
        let type: Transaction.RevocationType? = ParsedReceipt.value(record.revocationType)
        if type == .familyRevoke { return "family sharing revoked" }
        guard record.revocationPercentage >= 0 else { return "refunded in full" }
        let percentage = Transaction.percentageText(record.revocationPercentage) + "%"
        if record.revocationPercentage >= TransactionRecord.wholePercentage { return "refunded in full (\(percentage))" }
        guard let units else { return "refunded in part (\(percentage))" }
        return "refunded in part (\(percentage): \(units.refunded) of \(units.of) unit\(units.of == 1 ? "" : "s"))"
    }

    // MARK: Balances

    /// Currency `index`: its balance, and every consumable crediting it with its transactions.
    func balance(_ index: Int, _ context: Context) -> BalanceExplanation {
        let currency = context.catalog.currencyIds[index]
        var sources: [BalanceExplanation.CreditSource] = []
        for (product, compiled) in context.catalog.compiledProducts.enumerated() where compiled.type == .consumable {
            guard let credit = compiled.credits.first(where: { $0.currency == index }) else { continue }
            sources.append(.init(productId: compiled.id, perUnit: credit.amount, transactions: transactions(of: product, context)))
        }
        // An Advanced Commerce consumable credits through its SKUs: one source per SKU, with the
        // purchases whose item of it credits at the instant.
        for (position, (product, item, _)) in context.catalog.itemList.enumerated() {
            guard let credit = item.credits.first(where: { $0.currency == index }) else { continue }
            let crediting = Set(
                items.filter { $0.item == position && $0.ends > context.at }.compactMap {
                    context.receipts[Int($0.entry.receipt)].text($0.entry.record.transactionId)
                })
            let purchases = transactions(of: Int(product), context).filter { crediting.contains($0.transactionId) }
            sources.append(
                .init(productId: context.catalog.compiledProducts[Int(product)].id, sku: item.sku, perUnit: credit.amount, transactions: purchases))
        }
        let spent = spending.filter { $0.currency == index }.map { item in
            let receipt = context.receipts[item.receipt]
            let consumption = receipt.consumptions[item.index]
            return BalanceExplanation.Spending(
                id: receipt.text(consumption.id) ?? "", receipt: context.positions[item.receipt],
                date: Instant(millisecondsSince1970: consumption.date), amount: consumption.amount)
        }
        return BalanceExplanation(currency: currency, balance: context.result.balance(of: currency) ?? 0, sources: sources, spent: spent)
    }

    // MARK: Products

    func product(_ index: Int, _ context: Context) -> ProductExplanation {
        let product = context.catalog.compiledProducts[index]
        let status = context.result.product(product.id) ?? ProductStatus(id: product.id, type: product.type, state: .notPurchased)
        let transactions = transactions(of: index, context)
        let renewals = renewals(of: index, context)
        var spans = covered.filter { $0.entry.product == Int32(index) }.compactMap(\.span)
        for decision in renewalDecisions where decision.product == Int32(index) {
            if case .counted(_, let grace?, _) = decision.verdict { spans.append(grace) }
        }
        let refunded = history.filter { $0.entry.product == Int32(index) }.map(\.span)
        return ProductExplanation(
            id: product.id, type: product.type, state: status.state, until: status.until, startsAt: status.startsAt,
            willRenew: status.willRenew, renewsTo: status.renewsTo, commitment: status.commitment,
            billingRetrySince: { if case .billingRetry(let ended)? = states[Int32(index)] { Self.instant(ended) } else { nil } }(),
            reason: reason(index, transactions: transactions, context), coverage: coverage(spans, refunded: refunded),
            transactions: transactions, renewals: renewals)
    }

    private func reason(_ index: Int, transactions: [TransactionExplanation], _ context: Context) -> String {
        guard let decision = states[Int32(index)] else {
            if transactions.isEmpty { return "no transaction of this product" }
            return "no transaction counts (\(Self.exclusions(transactions)))"
        }
        var text: String
        switch decision {
        case .active(let end, let run):
            // The run's transactions with their spans: the one covering the instant, then those
            // stacked after it (passes bought ahead).
            var spans: [Int64: CoverageSpan] = [:]
            for item in covered where item.entry.product == Int32(index) {
                if let span = item.span { spans[Int64(item.entry.receipt) << 32 | Int64(item.entry.index)] = span }
            }
            let items = run.compactMap { entry in spans[Int64(entry.receipt) << 32 | Int64(entry.index)].map { (entry, $0) } }
            let now = items.filter { $0.1.start <= context.at }.max { $0.1.end < $1.1.end }?.0
            let next = items.filter { $0.1.start > context.at }.sorted { $0.1.start < $1.1.start }.map(\.0)
            text = "covered " + (end == CoverageSpan.never ? "with no end" : "until \(Self.text(end))")
            if let now { text += " by transaction \(context.receipts[Int(now.receipt)].text(now.record.transactionId) ?? "")" }
            let ids = next.map { context.receipts[Int($0.receipt)].text($0.record.transactionId) ?? "" }
            if !ids.isEmpty { text += ", then " + ids.prefix(5).joined(separator: ", ") + (ids.count > 5 ? " and \(ids.count - 5) more" : "") }
        case .gracePeriod(let end):
            let grace = renewalDecisions.first { decision in
                guard decision.product == Int32(index), case .counted(_, let span?, _) = decision.verdict else { return false }
                return span.start <= context.at
            }
            text = "paid coverage ended; grace period until \(Self.text(end))"
            if let grace {
                let receipt = context.receipts[grace.receipt]
                text += " from the renewal entry of chain \(receipt.text(receipt.renewals[grace.index].originalTransactionId) ?? "")"
            }
        case .billingRetry(let ended):
            text =
                "coverage ended \(Self.text(ended)); the chain's renewal entries say \(context.catalog.compiledProducts[index].store.phrase) is retrying billing"
        case .paused(let until):
            text = "paused until \(Self.text(until)): no access until it resumes, as the chain's renewal entries say"
        case .pending(let since):
            text = "bought \(Self.text(since)), not paid yet (pending): it grants nothing until it is"
        case .preordered(let release):
            text = "pre-ordered: released \(Self.text(release)); it grants nothing until then, and is not offered again"
        case .scheduled(let start):
            text = "queued behind other passes of its group: starts \(Self.text(start))"
        case .revoked(let entry):
            text =
                "its latest transaction \(context.receipts[Int(entry.receipt)].text(entry.record.transactionId) ?? "") was cancelled \(Self.text(entry.cancellation))"
            if entry.record.revocationType != 0 || entry.record.revocationPercentage >= 0 {
                text += " (\(Self.revocation(entry.record, units: nil)))"
            }
        case .expired(let ended):
            if let ended {
                text = "coverage ended \(Self.text(ended))"
            } else {
                // Nothing ever covered it: say what kept each transaction from counting.
                let reasons = Self.exclusions(transactions)
                text = reasons.isEmpty ? "no transaction covers anything" : "no transaction covers anything (\(reasons))"
            }
        }
        if let commitment = context.result.product(context.catalog.compiledProducts[index].id)?.commitment {
            text += "; billed monthly, period \(commitment.period) of \(commitment.periods) of a commitment ending \(commitment.endsAt.rfc3339)"
        }
        return text
    }

    // MARK: Helpers

    /// What kept transactions from counting, each kind once, sorted: `cancelled, upgraded`.
    static func exclusions(_ transactions: [TransactionExplanation]) -> String {
        Set(transactions.compactMap(\.exclusion?.rawValue)).sorted().joined(separator: ", ")
    }

    /// Sorted spans with overlapping or touching spans of one kind merged.
    static func merged(_ spans: [CoverageSpan]) -> [CoverageSpan] {
        var result: [CoverageSpan] = []
        for span in spans.filter({ $0.end > $0.start }).sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
            if let last = result.last, last.isGrace == span.isGrace, span.start <= last.end {
                result[result.count - 1].end = max(last.end, span.end)
            } else {
                result.append(span)
            }
        }
        return result
    }

    static func span(_ span: CoverageSpan) -> ExplainedSpan {
        ExplainedSpan(start: Instant(millisecondsSince1970: span.start), end: instant(span.end), grace: span.isGrace)
    }

    /// A product's coverage: what covers, merged by kind, and what refunded transactions had
    /// covered, merged among themselves and marked, in order of start.
    private func coverage(_ spans: [CoverageSpan], refunded: [CoverageSpan]) -> [ExplainedSpan] {
        var result = Self.merged(spans).map(Self.span)
        guard !refunded.isEmpty else { return result }
        for span in Self.merged(refunded) {
            var explained = Self.span(span)
            explained.refunded = true
            result.append(explained)
        }
        return result.sorted { ($0.start, $0.refunded ? 1 : 0) < ($1.start, $1.refunded ? 1 : 0) }
    }

    /// An instant, `nil` for the absent and never markers.
    static func instant(_ milliseconds: Int64) -> Instant? {
        milliseconds == Int64.min || milliseconds == Int64.max ? nil : Instant(millisecondsSince1970: milliseconds)
    }

    static func text(_ milliseconds: Int64) -> String {
        instant(milliseconds)?.rfc3339 ?? (milliseconds == Int64.max ? "never" : "always")
    }

    static func text(_ span: CoverageSpan) -> String {
        "[\(text(span.start)), \(span.end == CoverageSpan.never ? "no end" : text(span.end)))"
    }
}
