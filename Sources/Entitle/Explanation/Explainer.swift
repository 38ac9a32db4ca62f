/// Builds an ``Explanation``: evaluates once for the answers, then walks the receipts again for
/// the facts behind them, applying the evaluator's own rules (its deduplication, chain numbering,
/// renewal facts and pass stacking are called, not copied).
///
/// One family per file: transactions and products here, renewal entries in `Explainer+Renewals`,
/// feature sources in `Explainer+Features`, offers in `Explainer+Offers`.
struct Explainer {
    let catalog: CompiledCatalog
    let result: Entitlements
    let at: Int64
    /// The receipts the evaluation read (accepted environments), and each one's position among
    /// the receipts given.
    let receipts: [ParsedReceipt]
    let positions: [Int]
    /// Indices into `receipts` of the app's own receipts.
    let own: [Int]
    let deduplicated: Evaluator.Deduplicated
    var ignored: [IgnoredReceipt] = []
    /// Per product index: its transactions' explanations, in purchase order.
    var transactions: [Int: [TransactionExplanation]] = [:]
    /// Per product index: the counted transactions' spans and the grace spans.
    var spans: [Int: [CoverageSpan]] = [:]
    /// Per product index: its renewal entries' explanations.
    var renewals: [Int: [RenewalExplanation]] = [:]
    /// Per feature id: the receipts' grants naming it.
    var grantSources: [String: [SourceExplanation]] = [:]
    /// Per required app: the counted purchases its receipts show (product, transaction id).
    var otherApps: [String: [(product: String, transaction: String)]] = [:]
    /// Per subscription group: the transaction that used its intro offer, in words.
    var introUse: [Int: String] = [:]

    static func explain(_ catalog: CompiledCatalog, receipts given: [ParsedReceipt], at requested: Instant,
                        options: Evaluator.Options) -> Explanation {
        let instant = requested.clampedToRange  // as evaluation does
        let result = Evaluator.evaluate(catalog, receipts: given, at: instant, options: options)
        var ignored: [IgnoredReceipt] = []
        var receipts: [ParsedReceipt] = []
        var positions: [Int] = []
        for (position, receipt) in given.enumerated() {
            let environment = receipt.environment ?? "production"
            if !options.accepts(receipt) {
                ignored.append(IgnoredReceipt(receipt: position, app: receipt.app,
                                              reason: "its environment `\(environment)` is not among those accepted"))
                continue
            }
            receipts.append(receipt)
            positions.append(position)
        }
        let own = receipts.indices.filter { receipts[$0].bytesEqual(receipts[$0].appRange, catalog.appBytes) }
        var explainer = Explainer(
            catalog: catalog, result: result, at: instant.millisecondsSince1970, receipts: receipts, positions: positions,
            own: own, deduplicated: Evaluator.deduplicate(catalog, receipts: receipts, own: own), ignored: ignored)
        explainer.explainTransactions()
        explainer.explainRenewals()
        explainer.explainGrants()
        let products = catalog.compiledProducts.indices
            .filter { catalog.compiledProducts[$0].type != .consumable }
            .map(explainer.product)
        let byId = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return Explanation(
            app: catalog.app, at: instant, features: catalog.featureIds.indices.map { explainer.feature($0, products: byId) },
            products: products, offers: catalog.compiledProducts.indices.map(explainer.offer), ignoredReceipts: ignored)
    }

    // MARK: Transactions

    /// Explains every transaction of the app's receipts whose product the catalog defines.
    mutating func explainTransactions() {
        let entries = deduplicated.entries
        // Which copy counts for each transaction id: the deduplicated entry's.
        var kept: [String: Int] = [:]
        var keptRecords: Set<[Int32]> = []
        for (position, entry) in entries.enumerated() {
            let receipt = receipts[Int(entry.receipt)]
            kept[receipt.text(receipt.transactions[Int(entry.index)].transactionId) ?? ""] = position
            keptRecords.insert([entry.receipt, entry.index])
        }
        // Entries known at the instant that the evaluator keeps for products (the spans' input).
        let order = entries.indices.sorted { Evaluator.precedes(entries[$0], entries[$1], receipts: receipts) }
        var known: [Evaluator.Entry] = []
        for position in order {
            let entry = entries[position]
            guard entry.product >= 0, entry.purchase <= at, !excludedAsFamilyShared(entry) else { continue }
            known.append(entry)
        }
        gatherOfferFacts(known: known)
        var passSpans: [Int32: [(product: Int32, span: CoverageSpan)]] = [:]
        for item in Evaluator.passGroupSpans(catalog, receipts: receipts, entries: known, at: at) {
            passSpans[item.product, default: []].append(item)
        }
        var byProduct: [Int32: [Evaluator.Entry]] = [:]
        for entry in known { byProduct[entry.product, default: []].append(entry) }
        var covers: [[Int32]: CoverageSpan] = [:]
        for (product, known) in byProduct {
            for (entry, span) in coverage(of: Int(product), known: known, passSpans: passSpans[product] ?? []) {
                covers[[entry.receipt, entry.index]] = span
                spans[Int(product), default: []].append(span)
            }
        }
        // The copies that do not count, by the position of the entry that stands for them.
        var copies: [Int: [(receipt: Int, index: Int)]] = [:]
        for receiptIndex in own {
            for (index, record) in receipts[receiptIndex].transactions.enumerated()
            where !keptRecords.contains([Int32(receiptIndex), Int32(index)]) {
                if let position = kept[receipts[receiptIndex].text(record.transactionId) ?? ""] {
                    copies[position, default: []].append((receiptIndex, index))
                }
            }
        }
        for position in order {
            let entry = entries[position]
            guard entry.product >= 0 else { continue }
            transactions[Int(entry.product), default: []].append(explainTransaction(entry, covers: covers[[entry.receipt, entry.index]]))
            // Copies of this transaction, right after it.
            for (receiptIndex, index) in copies[position] ?? [] {
                let record = receipts[receiptIndex].transactions[index]
                transactions[Int(entry.product), default: []].append(TransactionExplanation(
                    transactionId: receipts[receiptIndex].text(record.transactionId) ?? "", receipt: positions[receiptIndex],
                    purchaseDate: Instant(millisecondsSince1970: record.purchase), expiresDate: Self.instant(record.expires),
                    cancellationDate: Self.instant(record.cancellation), counted: false, exclusion: .duplicate, covers: nil,
                    reason: "a copy of the same transaction in receipt \(positions[Int(entry.receipt)]), which stands for both"))
            }
        }
    }

    private func excludedAsFamilyShared(_ entry: Evaluator.Entry) -> Bool {
        let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
        return record.flags & TransactionRecord.familyShared != 0 && !catalog.rules[Int(entry.product)].familyShareable
    }

    /// The span each counted transaction of a product covers, by the evaluator's rules.
    private func coverage(
        of product: Int, known: [Evaluator.Entry], passSpans: [(product: Int32, span: CoverageSpan)]
    ) -> [(Evaluator.Entry, CoverageSpan)] {
        let rule = catalog.rules[product]
        let counting = known.filter {
            $0.cancellation > at && receipts[Int($0.receipt)].transactions[Int($0.index)].flags & TransactionRecord.upgraded == 0
        }
        switch rule.type {
        case .consumable:
            return []
        case .nonConsumable:
            if rule.trialDays > 0 {
                guard !counting.isEmpty else { return [] }
                var start = Int64.max
                for entry in known {
                    let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
                    let original = record.originalPurchase == TransactionRecord.absentDate ? record.purchase : record.originalPurchase
                    start = min(start, original, record.purchase)
                }
                let (end, overflow) = start.addingReportingOverflow(Int64(rule.trialDays) * CivilCalendar.millisecondsPerDay)
                let span = CoverageSpan(start: start, end: overflow ? Instant.latest.millisecondsSince1970
                                                                  : min(end, Instant.latest.millisecondsSince1970))
                return counting.map { ($0, span) }
            }
            return counting.first.map { [($0, CoverageSpan(start: $0.purchase, end: CoverageSpan.never))] } ?? []
        case .nonRenewingSubscription:
            if rule.passGroup >= 0 {
                return Array(zip(counting, passSpans.map(\.span)))
            }
            var end = Int64.min
            return counting.map { entry in
                let start = max(entry.purchase, end)
                end = max(Evaluator.passEnd(rule, receipts, entry, from: start), start)
                return (entry, CoverageSpan(start: start, end: end))
            }
        case .autoRenewableSubscription:
            return counting.compactMap { entry in
                let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
                guard record.expires != TransactionRecord.absentDate, record.expires > entry.purchase else { return nil }
                return (entry, CoverageSpan(start: entry.purchase, end: record.expires))
            }
        }
    }

    private func explainTransaction(_ entry: Evaluator.Entry, covers: CoverageSpan?) -> TransactionExplanation {
        let receipt = receipts[Int(entry.receipt)]
        let record = receipt.transactions[Int(entry.index)]
        let rule = catalog.rules[Int(entry.product)]
        var explanation = TransactionExplanation(
            transactionId: receipt.text(record.transactionId) ?? "", receipt: positions[Int(entry.receipt)],
            purchaseDate: Instant(millisecondsSince1970: entry.purchase), expiresDate: Self.instant(record.expires),
            cancellationDate: Self.instant(entry.cancellation), counted: false, exclusion: nil,
            covers: covers.map(Self.span), reason: "")
        if entry.purchase > at {
            explanation.exclusion = .purchasedLater
            explanation.reason = "purchased \(Self.text(entry.purchase)), after the instant"
        } else if excludedAsFamilyShared(entry) {
            explanation.exclusion = .notFamilyShareable
            explanation.reason = "family-shared, and the product is not familyShareable"
        } else if entry.cancellation <= at {
            explanation.exclusion = .cancelled
            explanation.reason = "cancelled \(Self.text(entry.cancellation))"
        } else if record.flags & TransactionRecord.upgraded != 0 {
            explanation.exclusion = .upgraded
            explanation.reason = rule.type == .autoRenewableSubscription
                ? "isUpgraded: replaced by a purchase of a higher subscription"
                : "isUpgraded: the App Store marks it as replaced by an upgrade, so it grants nothing"
        } else if rule.type == .autoRenewableSubscription, record.expires == TransactionRecord.absentDate {
            explanation.exclusion = .noExpiry
            explanation.reason = "an auto-renewable transaction without expiresDate covers nothing"
        } else {
            explanation.counted = true
            if let covers {
                explanation.reason = "counts: covers \(Self.text(covers))"
                if rule.trialDays > 0 { explanation.reason += " (\(rule.trialDays) days from the earliest original purchase)" }
            } else if rule.type == .nonConsumable {
                explanation.reason = "counts; the product was owned already"
            } else {
                explanation.reason = "counts, but covers nothing (it expires at or before its purchase)"
            }
        }
        return explanation
    }

    // MARK: Products

    func product(_ index: Int) -> ProductExplanation {
        let product = catalog.compiledProducts[index]
        let status = result.product(product.id) ?? ProductStatus(id: product.id, type: product.type, state: .notPurchased)
        let coverage = Self.merged(spans[index] ?? [])
        let transactions = self.transactions[index] ?? []
        return ProductExplanation(
            id: product.id, type: product.type, state: status.state, until: status.until, startsAt: status.startsAt,
            willRenew: status.willRenew, renewsTo: status.renewsTo,
            reason: reason(for: status, coverage: coverage, transactions: transactions, renewals: renewals[index] ?? []),
            coverage: coverage.map(Self.span), transactions: transactions, renewals: renewals[index] ?? [])
    }

    private func reason(
        for status: ProductStatus, coverage: [CoverageSpan], transactions: [TransactionExplanation], renewals: [RenewalExplanation]
    ) -> String {
        let covering = coverage.first { $0.start <= at && at < $0.end }
        let ended = coverage.filter { $0.end <= at }.map(\.end).max()
        switch status.state {
        case .notPurchased:
            if transactions.isEmpty { return "no transaction of this product" }
            return "no transaction counts (\(Self.exclusions(transactions)))"
        case .active:
            // The transactions of the run covering `at`: the one covering it now, then those
            // stacked after it (passes bought ahead).
            let run = transactions.filter { transaction in
                guard transaction.counted, let covers = transaction.covers, let covering else { return false }
                let end = covers.end?.millisecondsSince1970 ?? CoverageSpan.never
                return covers.start.millisecondsSince1970 >= covering.start && end <= covering.end && end > at
            }
            let now = run.filter { $0.covers!.start.millisecondsSince1970 <= at }
                .max { ($0.covers?.end?.millisecondsSince1970 ?? .max) < ($1.covers?.end?.millisecondsSince1970 ?? .max) }
            let next = run.filter { $0.covers!.start.millisecondsSince1970 > at }
                .sorted { $0.covers!.start.millisecondsSince1970 < $1.covers!.start.millisecondsSince1970 }
            let end = covering.map { $0.end == CoverageSpan.never ? "with no end" : "until \(Self.text($0.end))" } ?? ""
            var text = "covered \(end)" + (now.map { " by transaction \($0.transactionId)" } ?? "")
            if !next.isEmpty {
                text += ", then " + next.prefix(5).map(\.transactionId).joined(separator: ", ")
                    + (next.count > 5 ? " and \(next.count - 5) more" : "")
            }
            return text
        case .gracePeriod:
            let grace = renewals.first { $0.grace.map { $0.start.millisecondsSince1970 <= at } ?? false }
            return "paid coverage ended; grace period" + (covering.map { " until \(Self.text($0.end))" } ?? "")
                + (grace.map { " from the renewal entry of chain \($0.originalTransactionId)" } ?? "")
        case .billingRetry:
            return "coverage ended" + (ended.map { " \(Self.text($0))" } ?? "")
                + "; the latest renewal entry says the App Store is retrying billing"
        case .scheduled:
            return "queued behind other passes of its group: starts \(status.startsAt.map(\.rfc3339) ?? "later")"
        case .revoked:
            let last = transactions.last { $0.exclusion == .cancelled }
            return "its latest transaction" + (last.map { " \($0.transactionId) was cancelled \($0.cancellationDate.map(\.rfc3339) ?? "")" }
                                                ?? " was cancelled")
        case .expired:
            guard let ended else {
                // Nothing ever covered it: say what kept each transaction from counting.
                let reasons = Self.exclusions(transactions)
                return reasons.isEmpty ? "no transaction covers anything" : "no transaction covers anything (\(reasons))"
            }
            return "coverage ended \(Self.text(ended))"
        }
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

extension CompiledCatalog {
    /// Explains what a customer has at an instant and why: every feature's sources, every
    /// product's transactions and renewal entries, every offer's deciding fact.
    ///
    /// Evaluates the receipts again (an explanation costs more than an evaluation; evaluation pays
    /// nothing for it). The answers are those of ``evaluate(_:at:environments:)-([ParsedReceipt],_,_)``.
    public func explain(_ receipts: [ParsedReceipt], at: Instant, environments: Set<String>? = nil) -> Explanation {
        Explainer.explain(self, receipts: receipts, at: at, options: .init(environments: environments))
    }

    /// Explains receipt values (a service's ledger, receipts built in code) at an instant.
    public func explain(_ receipts: [Receipt], at: Instant, environments: Set<String>? = nil) -> Explanation {
        explain(receipts.map(ParsedReceipt.init), at: at, environments: environments)
    }
}

extension Portfolio {
    /// Explains what a customer has in one app of the portfolio at an instant, and why.
    ///
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func explain(
        app: String, receipts: [ParsedReceipt], at: Instant, environments: Set<String>? = nil
    ) throws(PortfolioError) -> Explanation {
        guard let catalog = catalog(for: app) else { throw PortfolioError(missingApp: app, known: apps) }
        return Explainer.explain(catalog, receipts: receipts, at: at,
                                 options: .init(environments: environments, catalogs: catalogsByApp))
    }

    /// Explains receipt values for one app of the portfolio.
    ///
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func explain(
        app: String, receipts: [Receipt], at: Instant, environments: Set<String>? = nil
    ) throws(PortfolioError) -> Explanation {
        try explain(app: app, receipts: receipts.map(ParsedReceipt.init), at: at, environments: environments)
    }
}
