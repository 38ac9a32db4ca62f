/// `reevaluateAt`: the earliest instant after `at` at which evaluating the same data gives a
/// different answer in anything but `at` and `reevaluateAt` (features, product states and untils,
/// offers, balances, warnings).
///
/// Two things make the answer change. With what is known at `at`, coverage runs out or begins (a
/// trial ends, a subscription enters its grace period or billing retry, a queued pass starts): the
/// evaluation notes the first such instant as it goes (``Core/boundary``). (What an offer
/// `extends` changes at one instant per feature, where buying's coverage crosses the feature's
/// `until`: it is not followed.) And facts dated after `at` become known (a purchase, a
/// cancellation, a consumption, a grant, a renewal or transaction snapshot, a snapshot of a
/// required app's transaction), or an offer's condition may turn (an offer starts, paid time or
/// a lapse reaches a threshold). The transactions' facts are the engine's, here; each family says
/// which of what it reads is dated later (``RuleFamily/futureFacts(_:into:)``, in the family's
/// folder: renewal entries, consumptions, grants, other apps' purchases, offer conditions). Most
/// of those surely change the answer (a consumable's credits, a first purchase of a product); for
/// the others (buying again a product one owns) the answer is evaluated at the fact's instant and
/// compared, and from there the search goes on with what is known then. After a number of such
/// evaluations that keeps the search's cost linear in the receipts (``nextChangeBudget(items:)``)
/// the search stops at the next fact, which is early but never late.
extension Evaluator {
    /// A fact dated after the instant evaluated: when, whether it surely changes the answer, and
    /// whether it changes a balance (sure changes of balances at one instant may cancel out).
    typealias Fact = (date: Int64, sure: Bool, balance: Bool)

    /// One evaluation's inputs and its answer at `at`: what a family reads to say when its answer
    /// changes (``RuleFamily/futureFacts(_:into:)``).
    struct Moment {
        let catalog: CompiledCatalog
        let inputs: Inputs
        let at: Int64
        let options: Options
        let core: Core

        /// Adds, as facts that may change the answer, the purchases dated after the instant of the
        /// products `gives` is true of (a family whose values come from products that cover).
        func laterPurchases(of gives: (Int) -> Bool, into facts: inout [Fact]) {
            for entry in inputs.deduplicated.entries where entry.purchase > at && entry.product >= 0 {
                if gives(Int(entry.product)) { facts.append((entry.purchase, false, false)) }
            }
        }
    }

    /// Evaluations spent on facts that may not change the answer, before settling for the next
    /// one: 16, plus as many as fit in the work of one evaluation of 4,096 items (up to 256 in
    /// all), so small receipts get an exact answer and large ones cost at most 16 evaluations more
    /// than that.
    static func nextChangeBudget(items: Int) -> Int {
        min(256, 16 + 4_096 / max(1, items))
    }

    static func nextChange(_ catalog: CompiledCatalog, _ inputs: Inputs, at: Int64, options: Options, core: Core) -> Int64 {
        var facts = futureFacts(catalog, inputs, at: at, options: options, core: core)
        var boundary = core.boundary
        guard !facts.isEmpty else { return boundary }
        facts.sort { $0.date < $1.date }
        var reference: Entitlements?
        var evaluations = 0
        let receipts = inputs.receipts
        let budget = nextChangeBudget(
            items: inputs.deduplicated.entries.count
                + inputs.own.reduce(0) {
                    $0 + receipts[$1].renewals.count + receipts[$1].consumptions.count + receipts[$1].grants.count
                })
        var index = 0
        // Offer conditions that turn with time alone, as the state at an instant found to give
        // the same answer says (paid time grows at another pace once a purchase counts).
        var turning: [Int64] = []
        var turned = 0
        while index < facts.count || turned < turning.count {
            let date = min(index < facts.count ? facts[index].date : .max, turned < turning.count ? turning[turned] : .max)
            // A change with what is known now comes first; at the same instant, the facts of that
            // instant decide what the answer is then.
            if boundary < date { return boundary }
            while turned < turning.count, turning[turned] == date { turned += 1 }
            // Sure changes of balances can cancel out at one instant (credits bought as much is
            // spent, a refund as another purchase): those are sure only alone.
            var sure = false
            var balanceFacts = 0
            var sureBalance = false
            while index < facts.count, facts[index].date == date {
                if facts[index].balance {
                    balanceFacts += 1
                    sureBalance = facts[index].sure
                } else {
                    sure = sure || facts[index].sure
                }
                index += 1
            }
            sure = sure || (balanceFacts == 1 && sureBalance)
            if sure || evaluations == budget { return date }
            evaluations += 1
            var recorder = NoRecord()
            let later = evaluateCore(catalog, inputs, at: date, options: options, recorder: &recorder)
            let earlier = core
            switch compare(earlier, at: at, later, at: date, catalog: catalog) {
            case .same: break
            case .different: return date
            case .unsure:
                // Only what the offers read differs: compare the offers (and everything else) in full.
                if reference == nil {
                    reference = Entitlements(catalog: catalog, at: Instant(millisecondsSince1970: at), compared: earlier)
                }
                let answer = Entitlements(catalog: catalog, at: Instant(millisecondsSince1970: date), compared: later)
                if !answer.hasSameAnswer(as: reference!) { return date }
            }
            // Nothing changed: from here on, what is known at `date` decides.
            boundary = later.boundary
            if !later.groups.isEmpty {
                turning = (turning[turned...] + promotionInstants(catalog, core: later, at: date)).sorted()
                turned = 0
            }
        }
        return boundary
    }

    /// Facts dated after `at`, each with whether it surely changes the answer.
    private static func futureFacts(
        _ catalog: CompiledCatalog, _ inputs: Inputs, at: Int64, options: Options, core: Core
    ) -> [Fact] {
        var facts: [Fact] = []
        let receipts = inputs.receipts
        // What each family reads that is dated later (renewal entries, consumptions, grants, other
        // apps' purchases) or turns with time alone (offer conditions).
        let moment = Moment(catalog: catalog, inputs: inputs, at: at, options: options, core: core)
        for family in RuleFamilies.all { family.futureFacts(moment, into: &facts) }
        // Transactions as they stand at `at`; a later snapshot of one is a fact of its own.
        var entries = inputs.deduplicated.entries
        if !inputs.deduplicated.snapshots.isEmpty {
            var recorder = NoRecord()
            var ignored: [EvaluationWarning] = []
            entries = resolve(catalog, inputs.deduplicated, receipts: receipts, at: at, recorder: &recorder, warnings: &ignored)
            for date in snapshotDates(inputs.deduplicated, receipts: receipts, after: at) { facts.append((date, false, false)) }
        }
        func outcomeIndex(_ product: Int32) -> Int? {
            var low = 0
            var high = core.outcomes.count
            while low < high {
                let middle = (low + high) / 2
                if core.outcomes[middle].product < product { low = middle + 1 } else { high = middle }
            }
            return low < core.outcomes.count && core.outcomes[low].product == product ? low : nil
        }
        func outcome(_ product: Int32) -> ProductOutcome? { outcomeIndex(product).map { core.outcomes[$0] } }
        func hasOutcome(_ product: Int32) -> Bool { outcome(product) != nil }
        /// A plain non-consumable covered from a purchase on, forever: another purchase changes nothing.
        func isOwnedForever(_ product: Int32) -> Bool {
            let rule = catalog.rules[Int(product)]
            guard rule.type == .nonConsumable, rule.trialDays == 0, !rule.hasItems, let outcome = outcome(product) else { return false }
            return outcome.state == .active && outcome.until == CoverageSpan.never
        }
        /// An auto-renewable transaction bought while its active product still covers, or right as
        /// the coverage ends, expiring later: from its purchase on, the product's `until` is later.
        func extendsCoverage(_ entry: Entry, _ record: TransactionRecord) -> Bool {
            guard catalog.rules[Int(entry.product)].type == .autoRenewableSubscription, record.expires != TransactionRecord.absentDate,
                entry.cancellation > entry.purchase, record.expires > entry.purchase,
                let outcome = outcome(entry.product), outcome.state == .active, outcome.until != CoverageSpan.never
            else { return false }
            return entry.purchase <= outcome.until && record.expires > outcome.until && entry.cancellation > outcome.until
        }
        /// A purchase of a product that no longer covers (expired, revoked, billing retry) that
        /// covers from its purchase on: the product is active again.
        func startsCoverage(_ entry: Entry, _ record: TransactionRecord) -> Bool {
            guard entry.cancellation > entry.purchase, let outcome = outcome(entry.product),
                outcome.state == .expired || outcome.state == .revoked || outcome.state == .billingRetry
            else { return false }
            let rule = catalog.rules[Int(entry.product)]
            switch rule.type {
            case .autoRenewableSubscription: return record.expires != TransactionRecord.absentDate && record.expires > entry.purchase
            case .nonRenewingSubscription: return rule.passGroup < 0
            case .nonConsumable: return rule.trialDays == 0 || outcome.state == .revoked
            case .consumable: return false
            }
        }
        // Only facts dated after `at` matter: without any, nothing below has work to do.
        /// A pre-order's release and a prepaid plan's top-up instant, when later than `at`
        /// (`Int64.min` when not).
        func laterTerms(_ entry: Entry) -> (release: Int64, topUp: Int64) {
            guard entry.record.terms >= 0 else { return (.min, .min) }
            let terms = receipts[Int(entry.receipt)].terms[Int(entry.record.terms)]
            return (terms.release > at ? terms.release : .min, terms.topUpAfter > at ? terms.topUpAfter : .min)
        }
        let hasFutureEntry = entries.contains {
            $0.purchase > at || ($0.cancellation > at && $0.cancellation != TransactionRecord.noCancellation)
                || (!$0.record.items.isEmpty && $0.product >= 0 && catalog.rules[Int($0.product)].hasItems)
                || ($0.record.terms >= 0 && laterTerms($0) != (.min, .min))
        }
        // Per product with an outcome (by its place in `core.outcomes`): its two earliest purchases
        // and, for trials, the start of the trial as known at `at` (the earliest original purchase
        // among its transactions). Only products with an outcome ask for either.
        var earliest: [(first: Int64, second: Int64)] = []
        var trialStart: [Int64] = []
        if hasFutureEntry {
            earliest = Array(filling: (.max, .max), count: core.outcomes.count)
            trialStart = Array(filling: .max, count: core.outcomes.count)
            for entry in entries where entry.product >= 0 {
                let record = entry.record
                guard !catalog.rules[Int(entry.product)].ignores(record), let place = outcomeIndex(entry.product) else { continue }
                let known = earliest[place]
                earliest[place] = entry.purchase < known.first ? (entry.purchase, known.first) : (known.first, min(known.second, entry.purchase))
                if catalog.rules[Int(entry.product)].trialDays > 0, entry.purchase <= at {
                    let original = record.originalPurchase == TransactionRecord.absentDate ? record.purchase : record.originalPurchase
                    trialStart[place] = min(trialStart[place], original, record.purchase)
                }
            }
        }
        /// A pass (without a pass group) bought while it covers, or as its coverage ends: it stacks
        /// on, so the product's `until` moves.
        func stacksOn(_ entry: Entry) -> Bool {
            let rule = catalog.rules[Int(entry.product)]
            guard rule.type == .nonRenewingSubscription, rule.passGroup < 0, entry.cancellation > entry.purchase,
                let outcome = outcome(entry.product), outcome.state == .active, outcome.until != CoverageSpan.never
            else { return false }
            return entry.purchase <= outcome.until
        }
        /// A trial bought again (a restore) that starts no earlier than the trial already counted:
        /// the trial's window and state stay as they are.
        func restoresTrial(_ entry: Entry, _ record: TransactionRecord) -> Bool {
            guard catalog.rules[Int(entry.product)].trialDays > 0, entry.cancellation > entry.purchase,
                let place = outcomeIndex(entry.product), core.outcomes[place].state != .revoked, trialStart[place] != .max
            else { return false }
            let start = trialStart[place]
            let original = record.originalPurchase == TransactionRecord.absentDate ? record.purchase : record.originalPurchase
            return min(original, record.purchase) >= start
        }
        let snapshots = inputs.deduplicated.snapshots
        for entry in entries where hasFutureEntry {
            let record = entry.record
            // A later snapshot of the transaction may say otherwise from its signing date on: what
            // is sure now is sure only before it.
            var resigned = Int64.max
            for copy in snapshots[Int(entry.copies.lowerBound)..<Int(entry.copies.upperBound)] where copy.rank > at {
                resigned = min(resigned, copy.rank)
            }
            // What a pre-order's dates change depends on whether it is released by then: only
            // evaluating says.
            let preorder = record.terms >= 0 && release(of: record, in: receipts[Int(entry.receipt)]) > entry.purchase
            func add(_ fact: (date: Int64, sure: Bool, balance: Bool)) {
                facts.append((fact.date, fact.sure && fact.date < resigned && !preorder, fact.balance))
            }
            let otherAccount = !accepts(record.accountToken, of: receipts[Int(entry.receipt)], accounts: options.accounts)
            // A purchase not paid yet counts for nothing: when it becomes known, only evaluating says
            // what changes (a product `pending`, or nothing while another purchase covers it).
            let pending = record.flags & TransactionRecord.pending != 0
            let counts =
                entry.product >= 0 && !entry.isUpgraded && !catalog.rules[Int(entry.product)].ignores(record) && !otherAccount && !pending
            let consumable = entry.product >= 0 && catalog.rules[Int(entry.product)].type == .consumable
            // A pre-order counts from its release, a prepaid plan's offer changes at its top-up
            // instant: evaluating there says what changes.
            let later = laterTerms(entry)
            if later.release != .min { add((later.release, false, false)) }
            if later.topUp != .min { add((later.topUp, false, false)) }
            if entry.purchase > at, preorder {
                add((entry.purchase, false, false))  // a pre-order becomes known: `preordered`, perhaps
            } else if entry.purchase > at {
                if entry.product < 0 {
                    add((entry.purchase, true, false))  // one more unknown-product transaction
                } else if otherAccount {
                    add((entry.purchase, false, false))  // perhaps a first `other-account` warning
                } else if catalog.rules[Int(entry.product)].ignores(record) {
                    add((entry.purchase, true, false))  // one more not-family-shareable warning
                } else if pending, entry.cancellation <= entry.purchase, record.flags & TransactionRecord.unacknowledged != 0 {
                    add((entry.purchase, true, false))  // cancelled before it is bought: read as bought, and warned about
                } else if counts, record.flags & TransactionRecord.unacknowledged != 0 {
                    add((entry.purchase, true, false))  // an `unacknowledged` warning from its purchase on
                } else if consumable {
                    // Credits, unless a refund at the purchase instant took every unit back.
                    // (An Advanced Commerce purchase credits what its items do, perhaps nothing.)
                    if counts && creditedUnits(record, at: entry.purchase).units > 0 {
                        add((entry.purchase, !catalog.rules[Int(entry.product)].hasItems, true))
                    }
                } else if !hasOutcome(entry.product) {
                    add((entry.purchase, true, false))  // from not-purchased to something
                } else if counts, extendsCoverage(entry, record) || startsCoverage(entry, record) || stacksOn(entry) {
                    add((entry.purchase, true, false))  // a renewal, a pass stacking on, a purchase after coverage ended
                } else if restoresTrial(entry, record) {
                    // Changes nothing; its own cancellation, if any, is a fact of its own.
                } else if !isOwnedForever(entry.product) {
                    add((entry.purchase, false, false))
                }
            }
            // An Advanced Commerce consumable's item that ends later takes its credits back then.
            if consumable, counts, catalog.rules[Int(entry.product)].hasItems {
                let receipt = receipts[Int(entry.receipt)]
                for position in record.items {
                    let ends = receipt.items[Int(position)].ends
                    if ends > at, ends > entry.purchase, ends != TransactionRecord.noCancellation, creditedUnits(record, at: ends).units > 0 {
                        add((ends, false, true))
                    }
                }
            }
            // A pending purchase is read as bought once it is cancelled: an unacknowledged one is
            // warned about from then on.
            if pending, entry.purchase <= at, entry.cancellation > at, entry.cancellation != TransactionRecord.noCancellation,
                record.flags & TransactionRecord.unacknowledged != 0, entry.product >= 0, !otherAccount,
                !catalog.rules[Int(entry.product)].ignores(record)
            {
                add((entry.cancellation, true, false))
            }
            if entry.cancellation > at, entry.cancellation != TransactionRecord.noCancellation, entry.cancellation >= entry.purchase {
                // A consumable's credits go (those a partial refund takes); anything else may or may not change.
                if consumable {
                    if counts && entry.purchase <= at && creditedUnits(record, at: entry.cancellation).refunded > 0 {
                        // (An Advanced Commerce purchase's refund takes back what its items credited, perhaps nothing.)
                        add((entry.cancellation, !catalog.rules[Int(entry.product)].hasItems, true))
                    }
                } else if entry.product >= 0 {
                    // The product's only transaction by then, refunded: the product is revoked.
                    let excluded = catalog.rules[Int(entry.product)].ignores(record) || otherAccount || pending
                    let only =
                        !excluded && entry.purchase <= at
                        && outcomeIndex(entry.product).map { earliest[$0].first == entry.purchase && earliest[$0].second > entry.cancellation }
                            ?? false
                    add((entry.cancellation, only, false))
                }
            }
        }
        return facts
    }

    enum Sameness { case same, different, unsure }

    /// Whether two answers of one evaluation at two instants read the same, from their cores: what
    /// shows directly (features, balances, product states, warnings, the rules and grants covering
    /// each instant) decides `different`; when all that agrees and what only offers read (intro
    /// offers used, other apps' purchases) agrees too, `same`; else `unsure`, and the caller compares
    /// the offers themselves. With win-back or promotional offers, `different` comes only from what
    /// shows directly, and `same` also needs each offer's decision to give the same reason. Costs
    /// nothing that grows with the catalog.
    static func compare(_ a: Core, at atA: Int64, _ b: Core, at atB: Int64, catalog: CompiledCatalog) -> Sameness {
        guard a.consentRescinded == b.consentRescinded else { return .different }
        // Offers read the groups' facts only through each win-back and promotional offer's
        // decision: where every decision gives the same reason, the rest compares as it does
        // without them; else the offers compare in full.
        if !a.groups.isEmpty || !b.groups.isEmpty {
            if answersDiffer(a, atA, b, atB, catalog: catalog) { return .different }
            guard a.groups.count == b.groups.count,
                zip(a.groups, b.groups).allSatisfy({ $0.group == $1.group && $0.decisions.map(\.reason) == $1.decisions.map(\.reason) })
            else { return .unsure }
            return compareFacts(a, at: atA, b, at: atB, catalog: catalog) == .same ? .same : .unsure
        }
        return compareFacts(a, at: atA, b, at: atB, catalog: catalog)
    }

    /// ``compare(_:at:_:at:catalog:)`` of what is not a win-back or promotional offer's.
    private static func compareFacts(_ a: Core, at atA: Int64, _ b: Core, at atB: Int64, catalog: CompiledCatalog) -> Sameness {
        guard a.balances == b.balances, a.ledger == b.ledger, a.features == b.features, a.outcomes.count == b.outcomes.count else {
            return .different
        }
        for (x, y) in zip(a.outcomes, b.outcomes) where !x.readsTheSame(as: y) { return .different }
        if a.warnings != b.warnings {
            guard a.warnings.count == b.warnings.count,
                a.warnings.map(\.description).sorted() == b.warnings.map(\.description).sorted()
            else { return .different }
        }
        // Once consent is rescinded, what rules and grants cover turns nothing on.
        if a.consentRescinded == nil, !a.access.isEmpty || !b.access.isEmpty {
            // Each source once: several purchases may list one SKU, each with a span of its own.
            func covering(_ access: [AccessSpan], _ instant: Int64) -> [String] {
                Set(access.filter { $0.span.start <= instant && instant < $0.span.end }.map { "\($0.feature) \($0.source)" }).sorted()
            }
            if covering(a.access, atA) != covering(b.access, atB) { return .different }
        }
        let shown = { (groups: [Int32]) in
            groups.filter { catalog.groupHasIntroOffer.indices.contains(Int($0)) && catalog.groupHasIntroOffer[Int($0)] }
        }
        if a.introUsed != b.introUsed, shown(a.introUsed) != shown(b.introUsed) { return .different }
        if a.boughtInGroups != b.boughtInGroups { return .different }
        // A prepaid plan's offer reads whether its top-up instant has passed.
        if zip(a.outcomes, b.outcomes).contains(where: { ($0.topUpAfter > atA) != ($1.topUpAfter > atB) }) { return .unsure }
        // Number limits read quantities and coverage yet to come, which outcomes do not compare.
        if !catalog.limitRules.isEmpty {
            let earlier = Entitlements(catalog: catalog, at: Instant(millisecondsSince1970: atA), compared: a)
            let later = Entitlements(catalog: catalog, at: Instant(millisecondsSince1970: atB), compared: b)
            if earlier.limits != later.limits { return .different }
        }
        return a.prerequisites == b.prerequisites && a.features == b.features ? .same : .unsure
    }

    /// Whether what shows directly (features, balances, states, warnings) differs.
    private static func answersDiffer(_ a: Core, _ atA: Int64, _ b: Core, _ atB: Int64, catalog: CompiledCatalog) -> Bool {
        guard a.balances == b.balances, a.ledger == b.ledger, a.features == b.features, a.outcomes.count == b.outcomes.count else { return true }
        for (x, y) in zip(a.outcomes, b.outcomes) where !x.readsTheSame(as: y) { return true }
        return a.warnings != b.warnings && a.warnings.sorted() != b.warnings.sorted()
    }
}
