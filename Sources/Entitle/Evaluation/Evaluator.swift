/// Applies a compiled catalog to parsed receipts at an instant.
///
/// The rules are written once, in prose, in `Sources/Entitle/Entitle.docc/EvaluationRules.md`
/// ("How evaluation decides"); this code applies them and does not restate them. An
/// ``Evaluation`` value (`evaluateCore` makes one) runs the rule families in order, each step a
/// method of it in the family's file, the pure helpers static here. The engine's steps are in this
/// folder: receipts of environments not accepted are dropped here, copies of a transaction are
/// found in `Evaluator+Transactions` and resolved as snapshots in `+Snapshots`, each product's
/// coverage and state in `+Products`, features in `+Features`, `reevaluateAt` in `+NextChange`,
/// and entries are ordered in `+Orderings`. The families' steps are in their folders under
/// `Families/`: renewal entries and accounts in `+Renewals`, pass groups in `+Passes`, grandfather
/// rules and grants in `+Access`, balances in `+Balances`, Advanced Commerce items in `+Items`, and
/// what offer conditions read in `+Promotions`. Work
/// is proportional to the receipts, not the catalog: only products that have transactions are
/// looked at, and everything else is answered from the catalog when the result is read.
///
/// Every step that decides something tells the evaluation's ``EvaluationRecorder``: an
/// explanation is the evaluator's own decisions, told as they are made.
enum Evaluator {
    /// What the caller says about the evaluation beyond receipts and instant.
    struct Options {
        /// Receipt environments to accept, as ``Evaluator/environment(_:)`` names them; `nil`
        /// accepts all.
        var environments: Set<String>?
        /// The portfolio's catalogs by app, for upgrade prerequisites met by family sharing.
        var catalogs: [String: CompiledCatalog] = [:]
        /// The customer's accounts: transactions and renewal entries naming none of them count for
        /// nothing. Empty: every account counts.
        var accounts: [Account]

        /// The customer's storefront now (ISO 3166-1 alpha-3), for products that list where they
        /// are sold; `nil`: unknown, so those are not offered.
        var storefront: String?

        init(environments: Set<String>?, catalogs: [String: CompiledCatalog] = [:], accounts: [String] = [], storefront: String? = nil) {
            self.storefront = storefront.flatMap(Storefront.alpha3)
            self.environments = environments.map { Set($0.map { Evaluator.environment($0) }) }
            self.catalogs = catalogs
            self.accounts = accounts.map(Account.init)
        }

        static let all = Options(environments: nil)

        /// An account evaluated, as each store's receipts are compared with it.
        struct Account: Sendable {
            /// As given: another store's `account` must be these bytes.
            var exact: [UInt8]
            /// Lowercase when it is a UUID: an App Store `appAccountToken` must be these bytes, and
            /// another store's account that is a UUID may differ from it in case; `nil` else.
            var uuid: [UInt8]?

            init(_ text: String) {
                exact = Array(text.utf8)
                uuid = AccountToken.canonical(text).map { Array($0.utf8) }
            }

            /// Whether an item's account, `token` in `receipt`, is this one.
            @inline(__always)
            func names(_ token: TextRange, of receipt: ParsedReceipt) -> Bool {
                // An App Store token is a UUID, lowercase: only an account that is one can be it.
                if receipt.store == .appStore {
                    guard let uuid else { return false }
                    return uuid.withUnsafeBufferPointer { receipt.bytesEqual(token, $0) }
                }
                // Another store's account as written; two UUIDs compare without case.
                if exact.withUnsafeBufferPointer({ receipt.bytesEqual(token, $0) }) { return true }
                guard let uuid, token.count == 36, let text = receipt.text(token), let other = AccountToken.canonical(text) else {
                    return false
                }
                return Array(other.utf8) == uuid
            }
        }

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
        /// Per currency, for a catalog with allowances or unlimited currencies: what is left and
        /// when it ends (empty otherwise).
        var ledger: [Ledger.Answer] = []
        var introUsed: [Int32] = []
        /// Groups with any transaction known at the instant, for intro offers to new subscribers
        /// only (empty unless the catalog has one).
        var boughtInGroups: [Int32] = []
        var prerequisites = UpgradePrerequisites.none
        var warnings: [EvaluationWarning] = []
        /// What the offer conditions of groups with win-back or promotional offers read.
        var groups: [GroupFacts] = []
        /// The coverage spans outcomes index.
        var spans: [CoverageSpan] = []
        /// The next change with what is known at the instant; `Int64.max` when none.
        var boundary = Int64.max
        /// The customer's storefront (alpha-3), as the options gave it: what offers read.
        var storefront: String?
        /// When the customer rescinded consent for the app, if at or before the instant: no
        /// feature is on and nothing is offered.
        var consentRescinded: Int64?
    }

    /// The receipts an evaluation reads, found once for all the instants it looks at.
    struct Inputs {
        var receipts: [ParsedReceipt]
        /// Indices of the evaluated app's receipts, and of other apps' (upgrade prerequisites).
        var own: [Int]
        var others: [Int]
        var deduplicated: Deduplicated
        /// Warnings that do not depend on the instant.
        var warnings: [EvaluationWarning]
        /// The earliest instant one of the app's receipts says the customer rescinded consent;
        /// `Int64.max` when none does.
        var consentRescinded = Int64.max
    }

    static func evaluate(
        _ catalog: CompiledCatalog, receipts: [ParsedReceipt], at given: Instant, options: Options = .all
    ) -> Entitlements {
        var recorder = NoRecord()
        return evaluate(catalog, receipts: receipts, at: given, options: options, recorder: &recorder)
    }

    static func evaluate<R: EvaluationRecorder>(
        _ catalog: CompiledCatalog, receipts allReceipts: [ParsedReceipt], at given: Instant, options: Options,
        recorder: inout R
    ) -> Entitlements {
        // An instant built in code past years 0001-9999 is evaluated at the nearer end: nothing
        // changes beyond them, and the result's `at` stays writable as RFC 3339.
        let inputs = self.inputs(catalog, receipts: allReceipts, options: options, recorder: &recorder)
        return evaluate(catalog, inputs, at: given, options: options, recorder: &recorder)
    }

    /// The answer at `given` from receipts found once (``inputs(_:receipts:options:recorder:)``): what
    /// ``evaluate(_:receipts:at:options:)`` returns, for callers that evaluate one customer at many
    /// instants (the search of `Proving`).
    static func evaluate<R: EvaluationRecorder>(
        _ catalog: CompiledCatalog, _ inputs: consuming Inputs, at given: Instant, options: Options, recorder: inout R
    ) -> Entitlements {
        let instant = given.clampedToRange
        let at = instant.millisecondsSince1970
        let core = evaluateCore(catalog, inputs, at: at, options: options, recorder: &recorder)
        // `reevaluateAt` and the warnings' order are worked out when first read.
        return Entitlements(
            at: instant,
            answer: Answer(catalog: catalog, core: core, search: Answer.Search(inputs: inputs, at: at, options: options)))
    }

    /// The accepted receipts, split into the app's own and others', and its transactions found
    /// once.
    static func inputs<R: EvaluationRecorder>(
        _ catalog: CompiledCatalog, receipts allReceipts: [ParsedReceipt], options: Options, recorder: inout R
    ) -> Inputs {
        var warnings: [EvaluationWarning] = []
        var receipts = allReceipts
        if options.environments != nil {
            receipts = []
            for (position, receipt) in allReceipts.enumerated() {
                if options.accepts(receipt) {
                    receipts.append(receipt)
                } else {
                    let environment = receipt.environment ?? "production"
                    warnings.append(EvaluationWarning(kind: .environmentIgnored(app: receipt.app, environment: environment)))
                    recorder.ignored(receipt: position, environment: environment)
                }
            }
        }
        var own: [Int] = []
        var others: [Int] = []
        for (index, receipt) in receipts.enumerated() {
            if receipt.bytesEqual(receipt.appRange, catalog.appBytes) { own.append(index) } else { others.append(index) }
        }
        // A Play subscription replacing another, whichever receipt each is in.
        receipts = SubscriptionLinks.applied(receipts, own: own)
        // Refunds and voids reported apart from their purchases, whichever receipt each is in.
        let revoked = RevocationFacts.applied(receipts, own: own)
        receipts = revoked.receipts
        warnings += revoked.warnings
        if !others.isEmpty { warnings += unrelatedReceipts(catalog, receipts: receipts, others: others, options: options) }
        let deduplicated = deduplicate(catalog, receipts: receipts, own: own)
        var inputs = Inputs(
            receipts: receipts, own: own, others: others, deduplicated: deduplicated,
            warnings: warnings + deduplicated.warnings)
        for index in own { inputs.consentRescinded = min(inputs.consentRescinded, receipts[index].consentRescinded) }
        return inputs
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

    /// When a pre-order's product is released (``Transaction/releaseDate``); `Int64.min` for any
    /// other purchase.
    @inline(__always)
    static func release(of record: TransactionRecord, in receipt: ParsedReceipt) -> Int64 {
        record.terms < 0 ? TransactionRecord.absentDate : receipt.terms[Int(record.terms)].release
    }

    /// The units of a consumable purchase that credit at `at`, and those refunded: all of them
    /// until a refund, then those the refund's percentage leaves (none without a percentage),
    /// rounding the refunded units half up.
    @inline(__always)
    static func creditedUnits(_ record: TransactionRecord, at: Int64) -> (units: Int64, refunded: Int64) {
        let quantity = record.countedQuantity
        guard record.cancellation <= at else { return (quantity, 0) }
        guard record.revocationPercentage >= 0 else { return (0, quantity) }
        let percentage = Int64(min(record.revocationPercentage, TransactionRecord.wholePercentage))
        let refunded = min(
            quantity, (quantity * percentage + Int64(TransactionRecord.wholePercentage) / 2) / Int64(TransactionRecord.wholePercentage))
        return (quantity - refunded, refunded)
    }

}

extension Evaluation {
    /// Products whose only purchases known are pre-orders not released yet, `preordered`, or not
    /// paid yet, `pending` (the others were found with their transactions, `product(entries:...)`).
    private mutating func addPending(
        _ pending: [Int32: Int64], preordered: [Int32: Int64], to outcomes: inout [ProductOutcome], spans: Int
    ) {
        for (product, release) in preordered {
            var outcome = ProductOutcome(product: product, state: .preordered, until: CoverageSpan.never, spans: Int32(spans)..<Int32(spans))
            outcome.startsAt = release
            outcomes.append(outcome)
            if R.records { recorder.state(of: product, .preordered(release: release)) }
        }
        for (product, since) in pending where preordered[product] == nil {
            outcomes.append(ProductOutcome(product: product, state: .pending, until: CoverageSpan.never, spans: Int32(spans)..<Int32(spans)))
            if R.records { recorder.state(of: product, .pending(since: since)) }
        }
        outcomes.sort { $0.product < $1.product }
    }

    /// The answer at `at`: the rule families in order, each step a method of this value.
    mutating func run() -> Core {
        let rules = catalog.rules
        let receipts = inputs.receipts
        var outcomes: [ProductOutcome] = []
        if !inputs.deduplicated.chains.orphans.isEmpty { warnings = Evaluator.orphanWarnings(inputs.deduplicated.chains, at: at) }
        var entries = Evaluator.resolve(catalog, inputs.deduplicated, receipts: receipts, at: at, recorder: &recorder, warnings: &warnings)

        // 1. Keep what is known at `at` and counts for this account; credit consumables; note
        //    intro offers used.
        var balances = [Int64](filling: 0, count: catalog.currencyIds.count)
        var overflowed: [Int32] = []
        var introUsed = GroupSet()
        var boughtIn = GroupSet()
        let notesGroupsBought = catalog.introForNewSubscribers
        var unknown: [(receipt: Int32, range: TextRange)] = []
        var otherAccounts: Set<String> = []
        // Products with a purchase not paid yet, and when it was bought.
        var pending: [(product: Int32, since: Int64)] = []
        // SKUs of Advanced Commerce products that their product does not declare.
        var unknownItems: Set<UnknownItem> = []
        var kept = 0
        // Products with a pre-order not released yet, and the earliest such release of each.
        var preordered: [Int32: Int64] = [:]
        for position in entries.indices {
            var entry = entries[position]
            let record = entry.record
            guard entry.purchase <= at else {
                if R.records { recorder.later(entry) }
                continue
            }
            guard entry.product >= 0 else {
                unknown.append((entry.receipt, record.productId))
                if R.records { recorder.excluded(entry, because: .unknownProduct) }
                continue
            }
            // Without accounts every transaction counts: the receipt is not looked at.
            guard options.accounts.isEmpty || Evaluator.accepts(record.accountToken, of: receipts[Int(entry.receipt)], accounts: options.accounts)
            else {
                otherAccounts.insert(receipts[Int(entry.receipt)].text(record.accountToken)!)
                if R.records { recorder.excluded(entry, because: .otherAccount) }
                continue
            }
            let rule = rules[Int(entry.product)]
            if rule.ignores(record) {
                warnings.append(
                    EvaluationWarning(
                        kind: .notFamilyShareable(
                            transactionId: receipts[Int(entry.receipt)].text(record.transactionId)!,
                            productId: catalog.compiledProducts[Int(entry.product)].id)))
                if R.records { recorder.excluded(entry, because: .notFamilyShareable) }
                continue
            }
            // Bought but not paid yet: it counts for nothing, and its product is `pending`.
            if record.flags & TransactionRecord.pending != 0, entry.cancellation > at {
                // (A consumable has no state: its pending purchase only credits nothing yet.)
                if rule.type != .consumable { pending.append((entry.product, entry.purchase)) }
                if R.records { recorder.excluded(entry, because: .pending) }
                continue
            }
            // A pre-order grants from its release: before it, it counts for nothing and its
            // product is `preordered`; after it, it is a purchase made then.
            let release = Evaluator.release(of: record, in: receipts[Int(entry.receipt)])
            var moved = false
            if release > entry.purchase {
                guard release <= at else {
                    if entry.cancellation > at, rule.type != .consumable {
                        preordered[entry.product] = min(preordered[entry.product] ?? .max, release)
                    }
                    if R.records { recorder.excluded(entry, because: entry.cancellation > at ? .preordered : .cancelled) }
                    continue
                }
                entry.record.purchase = release
                moved = true
            }
            if record.flags & TransactionRecord.unacknowledged != 0 {
                warnings.append(
                    EvaluationWarning(
                        kind: .unacknowledged(
                            transactionId: receipts[Int(entry.receipt)].text(record.transactionId)!,
                            productId: catalog.compiledProducts[Int(entry.product)].id,
                            deadline: Instant(millisecondsSince1970: record.acknowledgementDeadline(release: release)).clampedToRange)))
            }
            if rule.group >= 0 {
                let usesIntro = record.flags & (TransactionRecord.trialPeriod | TransactionRecord.introOfferPeriod) != 0
                if usesIntro { introUsed.insert(rule.group) }
                if notesGroupsBought, catalog.groupIntroForNewSubscribers[Int(rule.group)] { boughtIn.insert(rule.group) }
                if R.records { recorder.boughtInGroup(entry, usesIntro: usesIntro) }
            }
            if rule.type == .consumable {
                // An upgraded transaction grants nothing, credits included; a refund takes back
                // its share of the units (all of them without a percentage).
                let (units, refunded) = Evaluator.creditedUnits(record, at: at)
                if R.records {
                    if entry.isUpgraded {
                        recorder.excluded(entry, because: .upgraded)
                    } else if units == 0 {
                        recorder.excluded(entry, because: .cancelled)
                    } else {
                        recorder.credited(entry, units: units, refunded: refunded)
                    }
                }
                guard !entry.isUpgraded, units > 0 else { continue }
                if rule.hasItems {
                    creditItems(entry, units: units, balances: &balances, overflowed: &overflowed, unknown: &unknownItems)
                    continue
                }
                for index in rule.credits {
                    let credit = catalog.ruleCredits[Int(index)]
                    let (amount, o1) = credit.amount.multipliedReportingOverflow(by: units)
                    addCredits(entry, o1 ? .max : amount, to: Int(credit.currency), balances: &balances, overflowed: &overflowed)
                }
                continue
            }
            if kept != position || moved { entries[kept] = entry }
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        if !unknown.isEmpty { warnings += Evaluator.unknownProductWarnings(unknown, receipts: receipts) }
        noteOtherAccountRenewals(&otherAccounts)
        for account in otherAccounts { warnings.append(EvaluationWarning(kind: .otherAccount(account: account))) }

        // 2. Renewal entries: grace, billing retry, what each chain renews to.
        let renewals = renewalFacts(entries: entries)

        // 3. Passes of one group stack across their products.
        let passes = Evaluator.passGroupSpans(catalog, receipts: receipts, entries: entries, at: at)

        // 4. Coverage and state of each product with transactions, grouped by product.
        if entries.count > 1 { Evaluator.sortByProduct(&entries, receipts: receipts) }
        var spans: [CoverageSpan] = []
        spans.reserveCapacity(entries.count + renewals.grace.count)
        var graceCursor = 0
        var passCursor = 0
        var groupStart = 0
        outcomes.reserveCapacity(min(entries.count, catalog.compiledProducts.count))
        // What Advanced Commerce items grant, within their products' coverage.
        var itemSpans: [AccessSpan] = []
        var lapses = [GroupLapse](filling: GroupLapse(), count: catalog.offerGroups.isEmpty ? 0 : catalog.groups.count)
        // Products with a purchase not paid yet: the earliest such purchase of each.
        var pendingSince: [Int32: Int64] = [:]
        for item in pending { pendingSince[item.product] = min(pendingSince[item.product] ?? .max, item.since) }
        while groupStart < entries.count {
            var groupEnd = groupStart + 1
            while groupEnd < entries.count, entries[groupEnd].product == entries[groupStart].product { groupEnd += 1 }
            let productIndex = entries[groupStart].product
            let outcome = product(
                entries: entries[groupStart..<groupEnd], renewals: renewals, graceCursor: &graceCursor, passes: passes,
                passCursor: &passCursor, spans: &spans, lapses: &lapses,
                pendingSince: pendingSince.isEmpty ? nil : pendingSince.removeValue(forKey: productIndex),
                releasedAt: preordered.isEmpty ? nil : preordered.removeValue(forKey: productIndex))
            outcomes.append(outcome)
            if rules[Int(productIndex)].hasItems {
                itemAccess(
                    entries: entries[groupStart..<groupEnd], runs: spans[Int(outcome.spans.lowerBound)..<Int(outcome.spans.upperBound)],
                    into: &itemSpans, unknown: &unknownItems)
            }
            groupStart = groupEnd
        }

        if !pendingSince.isEmpty || !preordered.isEmpty {
            addPending(pendingSince, preordered: preordered, to: &outcomes, spans: spans.count)
        }

        if !unknownItems.isEmpty { warnings += Self.unknownItemWarnings(unknownItems, catalog: catalog) }

        // 5. Grandfather rules, grants and Advanced Commerce items.
        let before = boundary
        let access = accessSpans(items: Self.mergedItemSpans(itemSpans))

        // 6. Features: the union of their sources' spans; none once the customer rescinded
        //    consent for the app (whose instant, when later, is a change).
        var features = features(outcomes: outcomes, spans: spans, access: access)
        var consentRescinded: Int64?
        if inputs.consentRescinded <= at {
            consentRescinded = inputs.consentRescinded
            features = []
            // What features would do no longer changes anything.
            boundary = before
            if R.records { recorder.consentRescinded(at: inputs.consentRescinded) }
        } else if inputs.consentRescinded != .max {
            boundary = min(boundary, inputs.consentRescinded)
        }

        // 7. Consumptions, inputs.deduplicated by id across the app's receipts; with allowances or
        //    unlimited currencies, charged by the ledger.
        var ledger: [Ledger.Answer] = []
        if catalog.allowanceRules.isEmpty {
            spend(balances: &balances, overflowed: &overflowed)
        } else {
            ledger = runLedger(balances: &balances, overflowed: &overflowed)
        }
        for (index, balance) in balances.enumerated() where balance < 0 {
            warnings.append(EvaluationWarning(kind: .negativeBalance(currency: catalog.currencyIds[index], balance: balance)))
        }
        if overflowed.count > 1 { overflowed = Array(Set(overflowed)).sorted() }
        for currency in overflowed {
            warnings.append(
                EvaluationWarning(
                    kind: .balanceOutOfRange(
                        currency: catalog.currencyIds[Int(currency)], balance: balances[Int(currency)])))
        }
        let prerequisites = UpgradePrerequisites(
            catalog, receipts: inputs.others.map { receipts[$0] }, indices: inputs.others, at: at,
            catalogs: options.catalogs)

        // 8. Win-back and promotional offers of the groups that have them, decided once: the
        //    result's offers read these decisions. Where Apple's list of eligible win-back offers
        //    and the catalog's conditions disagree, a warning.
        var groups: [GroupFacts] = []
        if !catalog.offerGroups.isEmpty {
            groups = Evaluator.groupFacts(catalog, entries: entries, receipts: receipts, lapses: lapses, renewals: renewals, at: at)
            for position in groups.indices {
                let group = groups[position].group
                let subscribed = outcomes.contains { outcome in
                    catalog.rules[Int(outcome.product)].group == group && outcome.state.keepsSubscription
                }
                groups[position].decide(catalog, subscribed: subscribed, at: at)
                for (offer, decision) in zip(catalog.groupOffers[Int(group)], groups[position].decisions) where decision.disagrees {
                    warnings.append(
                        EvaluationWarning(
                            kind: .winBackCriteriaDisagree(
                                offerId: catalog.offerList[Int(offer)].offer.id, listedByApple: decision.reason == .listedByApple)))
                }
            }
        }
        return Core(
            outcomes: outcomes, features: features, access: access, balances: balances, ledger: ledger, introUsed: introUsed.members,
            boughtInGroups: boughtIn.members,
            prerequisites: prerequisites, warnings: warnings, groups: groups, spans: spans, boundary: boundary,
            storefront: options.storefront, consentRescinded: consentRescinded)
    }
}
