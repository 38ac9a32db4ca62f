/// Applies a compiled catalog to parsed receipts at an instant.
///
/// The rules are written once, in prose, in `Sources/Entitle/Entitle.docc/EvaluationRules.md`
/// ("How evaluation decides"); this code applies them and does not restate them. `evaluateCore`
/// runs the rule families in order, one family per file: receipts of environments not accepted
/// are dropped here, copies of a transaction merge in `Evaluator+Transactions`, renewal entries in
/// `+Renewals`, pass groups in `+Passes`, each product's coverage and state in `+Products`,
/// grandfather rules and grants in `+Access`, features in `+Features`, balances in `+Balances`,
/// and `reevaluateAt` in `+NextChange`. Work is proportional to the receipts, not the catalog:
/// only products that have transactions are looked at, and everything else is answered from the
/// catalog when the result is read.
enum Evaluator {
    /// A transaction after deduplication, with its product resolved.
    struct Entry {
        var product: Int32
        var receipt: Int32
        var index: Int32
        var purchase: Int64
        var cancellation: Int64
    }

    /// What the caller says about the evaluation beyond receipts and instant.
    struct Options {
        /// Receipt environments to accept, as ``Evaluator/environment(_:)`` names them; `nil`
        /// accepts all.
        var environments: Set<String>?
        /// The portfolio's catalogs by app, for upgrade prerequisites met by family sharing.
        var catalogs: [String: CompiledCatalog] = [:]

        init(environments: Set<String>?, catalogs: [String: CompiledCatalog] = [:]) {
            self.environments = environments.map { Set($0.map { Evaluator.environment($0) }) }
            self.catalogs = catalogs
        }

        static let all = Options(environments: nil)

        /// Whether a receipt's environment is accepted.
        func accepts(_ receipt: ParsedReceipt) -> Bool {
            environments?.contains(Evaluator.environment(receipt.environment)) ?? true
        }
    }

    /// An environment as evaluation compares it: Apple's raw values (`Production`, `Sandbox`,
    /// `Xcode`, `LocalTesting`) and the normalized names (`production`, `sandbox`, `xcode`,
    /// `local-testing`) are the same; a receipt without one is `production`.
    static func environment(_ raw: String?) -> String {
        guard let raw else { return "production" }
        let lower = raw.lowercased()
        return lower == "localtesting" ? "local-testing" : lower
    }

    /// The answer at one instant, before it becomes a result, with the earliest instant after it
    /// at which the answer changes while nothing more becomes known.
    struct Core {
        var outcomes: [ProductOutcome] = []
        var features: [FeatureOutcome] = []
        var access: [AccessSpan] = []
        var balances: [Int64] = []
        var introUsed: [Int32] = []
        var prerequisites = UpgradePrerequisites.none
        var warnings: [EvaluationWarning] = []
        /// The next change with what is known at the instant; `Int64.max` when none.
        var boundary = Int64.max
    }

    static func evaluate(
        _ catalog: CompiledCatalog, receipts allReceipts: [ParsedReceipt], at given: Instant, options: Options = .all
    ) -> Entitlements {
        // An instant built in code past years 0001-9999 is evaluated at the nearer end: nothing
        // changes beyond them, and the result's `at` stays writable as RFC 3339.
        let instant = given.clampedToRange
        let at = instant.millisecondsSince1970
        var ignored: [EvaluationWarning] = []
        var receipts = allReceipts
        if let accepted = options.environments {
            ignored += unknownEnvironments(accepted, receipts: allReceipts)
            receipts = allReceipts.filter { receipt in
                if options.accepts(receipt) { return true }
                ignored.append(EvaluationWarning(kind: .environmentIgnored(app: receipt.app, environment: receipt.environment ?? "production")))
                return false
            }
        }
        var own: [Int] = []
        var others: [Int] = []
        for (index, receipt) in receipts.enumerated() {
            if receipt.bytesEqual(receipt.appRange, catalog.appBytes) { own.append(index) } else { others.append(index) }
        }
        if !others.isEmpty { ignored += unrelatedReceipts(catalog, receipts: receipts, others: others, options: options) }
        let entries = deduplicate(catalog, receipts: receipts, own: own)
        var core = evaluateCore(catalog, receipts: receipts, own: own, others: others, entries: entries, at: at, options: options)
        let next = nextChange(catalog, receipts: receipts, own: own, others: others, entries: entries, at: at,
                              options: options, core: core)
        // Warnings that do not depend on the instant come first.
        core.warnings = ignored + entries.warnings + core.warnings
        return Entitlements(catalog: catalog, at: instant, core: core,
                            reevaluateAt: next == .max ? nil : Instant(millisecondsSince1970: next))
    }

    /// The environments entitle knows, as ``environment(_:)`` names them.
    static let knownEnvironments = ["production", "sandbox", "xcode", "local-testing"]

    /// One warning per accepted environment that entitle does not know and no receipt names: a
    /// typo (`prod`) would otherwise ignore every receipt in silence.
    static func unknownEnvironments(_ accepted: Set<String>, receipts: [ParsedReceipt]) -> [EvaluationWarning] {
        // The usual case (`production`) costs a look at each name, nothing more.
        guard accepted.contains(where: { !knownEnvironments.contains($0) }) else { return [] }
        let named = Set(receipts.map { environment($0.environment) })
        return accepted.filter { !knownEnvironments.contains($0) && !named.contains($0) }.sorted().map { name in
            EvaluationWarning(kind: .unknownEnvironment(
                name: name, suggestion: Suggestion.closest(to: name, in: knownEnvironments) ?? knownEnvironments.first { $0.hasPrefix(name) }))
        }
    }

    /// One warning per app of `others` that neither has a catalog in the portfolio nor is required
    /// by an upgrade of `catalog`: its receipts count for nothing, probably a misspelt app id.
    static func unrelatedReceipts(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], others: [Int], options: Options
    ) -> [EvaluationWarning] {
        var warned: Set<String> = []
        var warnings: [EvaluationWarning] = []
        for index in others {
            let app = receipts[index].app
            guard options.catalogs[app] == nil, !catalog.requiredApps.contains(app), warned.insert(app).inserted else { continue }
            let known = [catalog.app] + catalog.requiredApps + options.catalogs.keys.sorted()
            warnings.append(EvaluationWarning(kind: .unrelatedReceipt(app: app, suggestion: Suggestion.closest(to: app, in: known))))
        }
        return warnings
    }

    /// The answer at `at` from deduplicated entries.
    static func evaluateCore(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], own: [Int], others: [Int], entries deduplicated: Deduplicated,
        at: Int64, options: Options
    ) -> Core {
        let rules = catalog.rules
        var core = Core()
        var entries = deduplicated.entries
        if !deduplicated.chains.orphans.isEmpty { core.warnings = orphanWarnings(deduplicated.chains, at: at) }

        // 1. Keep what is known at `at`; credit consumables; note intro offers used.
        var balances = [Int64](filling: 0, count: catalog.currencyIds.count)
        var overflowed: [Int32] = []
        var introUsed = GroupSet()
        var unknown: [(receipt: Int32, range: TextRange)] = []
        var kept = 0
        for position in entries.indices {
            let entry = entries[position]
            guard entry.purchase <= at else { continue }
            let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
            guard entry.product >= 0 else {
                unknown.append((entry.receipt, record.productId))
                continue
            }
            let rule = rules[Int(entry.product)]
            if record.flags & TransactionRecord.familyShared != 0 && !rule.familyShareable {
                let receipt = receipts[Int(entry.receipt)]
                core.warnings.append(EvaluationWarning(kind: .notFamilyShareable(
                    transactionId: receipt.text(record.transactionId)!, productId: catalog.compiledProducts[Int(entry.product)].id)))
                continue
            }
            if rule.group >= 0, record.flags & (TransactionRecord.trialPeriod | TransactionRecord.introOfferPeriod) != 0 {
                introUsed.insert(rule.group)
            }
            if rule.type == .consumable {
                // An upgraded transaction grants nothing, credits included.
                if entry.cancellation > at, record.flags & TransactionRecord.upgraded == 0 {
                    for index in rule.credits {
                        let credit = catalog.ruleCredits[Int(index)]
                        let (amount, o1) = credit.amount.multipliedReportingOverflow(by: record.countedQuantity)
                        Balance.add(o1 ? .max : amount, to: &balances, Int(credit.currency), overflowed: &overflowed)
                    }
                }
                continue
            }
            entries[kept] = entry
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        if !unknown.isEmpty { core.warnings += unknownProductWarnings(unknown, receipts: receipts) }

        // 2. Renewal entries: grace, billing retry, what each chain renews to.
        let renewals = renewalFacts(catalog, receipts: receipts, own: own, chains: deduplicated.chains, entries: entries, at: at,
                                    warnings: &core.warnings)

        // 3. Passes of one group stack across their products.
        let passes = passGroupSpans(catalog, receipts: receipts, entries: entries, at: at)

        // 4. Coverage and state of each product with transactions, grouped by product.
        if entries.count > 1 {
            entries.sort { a, b in
                if a.product != b.product { return a.product < b.product }
                return precedes(a, b, receipts: receipts)
            }
        }
        var spans: [CoverageSpan] = []
        spans.reserveCapacity(entries.count + renewals.grace.count)
        var graceCursor = 0, passCursor = 0
        var groupStart = 0
        while groupStart < entries.count {
            var groupEnd = groupStart + 1
            while groupEnd < entries.count, entries[groupEnd].product == entries[groupStart].product { groupEnd += 1 }
            core.outcomes.append(evaluateProduct(
                catalog, entries: entries[groupStart..<groupEnd], receipts: receipts, renewals: renewals,
                graceCursor: &graceCursor, passes: passes, passCursor: &passCursor, at: at,
                spans: &spans, boundary: &core.boundary, warnings: &core.warnings))
            groupStart = groupEnd
        }

        // 5. Grandfather rules and grants.
        core.access = accessSpans(catalog, receipts: receipts, own: own, at: at, boundary: &core.boundary, warnings: &core.warnings)

        // 6. Features: the union of their sources' spans.
        core.features = evaluateFeatures(catalog, outcomes: core.outcomes, spans: spans, access: core.access, at: at,
                                         boundary: &core.boundary)

        // 7. Consumptions, deduplicated by id across the app's receipts.
        spend(catalog, receipts: receipts, own: own, at: at, balances: &balances, overflowed: &overflowed, warnings: &core.warnings)
        for (index, balance) in balances.enumerated() where balance < 0 {
            core.warnings.append(EvaluationWarning(kind: .negativeBalance(currency: catalog.currencyIds[index], balance: balance)))
        }
        if overflowed.count > 1 { overflowed = Array(Set(overflowed)).sorted() }
        for currency in overflowed {
            core.warnings.append(EvaluationWarning(kind: .balanceOutOfRange(
                currency: catalog.currencyIds[Int(currency)], balance: balances[Int(currency)])))
        }
        core.balances = balances
        core.introUsed = introUsed.members
        core.prerequisites = UpgradePrerequisites(catalog, receipts: others.map { receipts[$0] }, at: at, catalogs: options.catalogs)
        return core
    }

    // MARK: Orderings

    /// Purchase order: by purchase date, ties by transaction id, numerically when both are digits.
    @inline(__always)
    static func precedes(_ a: Entry, _ b: Entry, receipts: [ParsedReceipt]) -> Bool {
        if a.purchase != b.purchase { return a.purchase < b.purchase }
        let left = receipts[Int(a.receipt)], right = receipts[Int(b.receipt)]
        return left.transactionIdPrecedes(left.transactions[Int(a.index)].transactionId,
                                          right, right.transactions[Int(b.index)].transactionId)
    }
}

/// A product with transactions, after evaluation.
struct ProductOutcome: Sendable, Equatable {
    var product: Int32
    var state: ProductState
    /// End of the covering span, `CoverageSpan.never` when it never ends or does not cover.
    var until: Int64
    /// Its coverage runs that end after the instant, in the evaluation's span buffer.
    var spans: Range<Int32>
    /// For a scheduled pass, the start of its first queued purchase; else `Int64.min`.
    var startsAt: Int64 = .min
    /// From the chain's latest renewal entry: 0 false, 1 true, 2 unknown.
    var willRenew: UInt8 = 2
    /// The product it renews to, when that is another product.
    var renewsTo: String?
}

extension ProductOutcome {
    /// Whether the two give the same product status (what a result shows of an outcome).
    func readsTheSame(as other: ProductOutcome) -> Bool {
        guard product == other.product, state == other.state, willRenew == other.willRenew, renewsTo == other.renewsTo else { return false }
        if (state == .active || state == .gracePeriod) && until != other.until { return false }
        return state != .scheduled || startsAt == other.startsAt
    }
}

/// An enabled feature and the end of its unbroken coverage.
struct FeatureOutcome: Sendable, Equatable {
    var feature: Int32
    var until: Int64
}

extension TransactionRecord {
    /// The id of the subscription chain: the original transaction's, else its own.
    var chainId: TextRange { originalTransactionId.isNone ? transactionId : originalTransactionId }
}

extension ParsedReceipt {
    /// Byte-wise ordering of two ranges, for deterministic tie-breaks.
    func lexicographicallyPrecedes(_ range: TextRange, _ other: ParsedReceipt, _ otherRange: TextRange) -> Bool {
        arena[Int(range.start)..<Int(range.start + range.count)]
            .lexicographicallyPrecedes(other.arena[Int(otherRange.start)..<Int(otherRange.start + otherRange.count)])
    }

    /// Transaction ids in order: numerically when both are digits (`9` before `10`), else byte-wise.
    func transactionIdPrecedes(_ range: TextRange, _ other: ParsedReceipt, _ otherRange: TextRange) -> Bool {
        let left = arena[Int(range.start)..<Int(range.start + range.count)]
        let right = other.arena[Int(otherRange.start)..<Int(otherRange.start + otherRange.count)]
        func isDigits(_ bytes: ArraySlice<UInt8>) -> Bool { !bytes.isEmpty && bytes.allSatisfy { $0 &- UInt8(ascii: "0") < 10 } }
        if isDigits(left), isDigits(right) {
            let a = left.drop { $0 == UInt8(ascii: "0") }, b = right.drop { $0 == UInt8(ascii: "0") }
            if a.count != b.count { return a.count < b.count }
            if !a.elementsEqual(b) { return a.lexicographicallyPrecedes(b) }
            // The same number written differently (`07`, `7`): the bytes decide.
        }
        return left.lexicographicallyPrecedes(right)
    }
}
