/// Win-back and promotional offers: what their conditions read, per subscription group, and
/// whether each offer is eligible at the instant.
///
/// - An offer is eligible when it runs (`from <= at < until`) and every condition it states holds;
///   when several fail, the first in the order of ``PromotionReason``.
/// - Win-back: the customer is not subscribed in the group (no product of it active, in grace or
///   in billing retry) and has paid in it before. Promotional, `subscribed: true`: subscribed now;
///   `false`: not subscribed now.
/// - `paidAtLeast`: the time paid in the group, the sum over its counted transactions that are not
///   free trials of the time each covered up to the instant. `lapsedAtLeast`, `lapsedAtMost`: the
///   time since the group's last coverage (grace included) ended. `waitBetween`: no counted
///   purchase of the group with a win-back offer (win-back) or with this offer's id (promotional)
///   less than that long before. Durations count a day 24 hours, a week 7 days, a month 30 days, a
///   year 365 days.
/// - Apple decides win-back eligibility in the end: when the group's latest counted renewal entry
///   says which win-back offers are eligible, an offer is eligible exactly when listed; where the
///   catalog's conditions say otherwise, a `win-back-criteria-disagree` warning names the offer.
extension Evaluator {
    /// Builds the facts of every group with win-back or promotional offers.
    static func groupFacts(
        _ catalog: CompiledCatalog, entries: [Entry], receipts: [ParsedReceipt], lapses: [GroupLapse], renewals: RenewalFacts,
        at: Int64
    ) -> [GroupFacts] {
        var facts = catalog.offerGroups.map { GroupFacts(group: $0) }
        func place(_ group: Int32) -> Int? {
            var low = 0
            var high = facts.count
            while low < high {
                let middle = (low + high) / 2
                if facts[middle].group < group { low = middle + 1 } else { high = middle }
            }
            return low < facts.count && facts[low].group == group ? low : nil
        }
        // Each group's paid spans in one allocation: counted first (the counts on the stack).
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: facts.count) { paying in
            paying.initialize(repeating: 0)
            for entry in entries where entry.cancellation > at && !entry.isUpgraded {
                let rule = catalog.rules[Int(entry.product)]
                if rule.type == .autoRenewableSubscription, let index = place(rule.group) { paying[index] += 1 }
            }
            for index in facts.indices where paying[index] > 0 { facts[index].paying.reserveCapacity(Int(paying[index])) }
        }
        for entry in entries where entry.cancellation > at && !entry.isUpgraded {
            let rule = catalog.rules[Int(entry.product)]
            guard rule.type == .autoRenewableSubscription, let index = place(rule.group) else { continue }
            let record = entry.record
            if record.flags & TransactionRecord.trialPeriod == 0 {
                facts[index].everPaid = true
                if record.expires != TransactionRecord.absentDate, record.expires > record.purchase {
                    let (span, overflow) = min(record.expires, at).subtractingReportingOverflow(record.purchase)
                    if !overflow, span > 0 {
                        facts[index].paid = facts[index].paid.addingReportingOverflow(span).overflow ? .max : facts[index].paid + span
                    }
                    facts[index].paying.append((record.purchase, record.expires))
                }
            }
            if record.offerType == ParsedReceipt.code(Transaction.OfferType.winBack) {
                facts[index].lastWinBack = max(facts[index].lastWinBack, record.purchase)
            }
            if !record.offerId.isNone {
                let offer = receipts[Int(entry.receipt)].arena.withUnsafeBytes { arena in
                    catalog.offerTable.find(
                        UnsafeRawBufferPointer(
                            rebasing: arena[Int(record.offerId.start)..<Int(record.offerId.start + record.offerId.count)]))
                }
                if offer >= 0 { facts[index].redeemed.append((offer, record.purchase)) }
            }
        }
        for index in facts.indices {
            let group = Int(facts[index].group)
            if group < lapses.count {
                facts[index].covered = lapses[group].covered
                facts[index].lastEnd = lapses[group].lastEnd
            }
            facts[index].redeemed.sort { $0.offer != $1.offer ? $0.offer < $1.offer : $0.purchase > $1.purchase }
        }
        // Apple's list of eligible win-back offers: the group's latest entry that says.
        for item in renewals.winBack {
            guard let index = place(catalog.rules[Int(item.product)].group) else { continue }
            if let known = facts[index].appleWinBack {
                guard
                    item.rank > known.rank
                        || (item.rank == known.rank && Array(item.chainId.utf8).lexicographicallyPrecedes(Array(known.chain.utf8)))
                else { continue }
            }
            facts[index].appleWinBack = (item.rank, item.chainId, item.offers)
        }
        return facts
    }

    /// Whether one offer is eligible, and why, from its group's facts and whether the customer is
    /// subscribed in the group.
    static func promotion(_ offer: SubscriptionOffer, index: Int32, facts: GroupFacts, subscribed: Bool, at: Int64) -> PromotionDecision {
        var decision = PromotionDecision(paid: facts.paid, lapsed: facts.lapsed(at: at))
        decision.catalogReason = catalogReason(offer, index: index, facts: facts, subscribed: subscribed, at: at, decision: &decision)
        if offer.type == .winBack, let apple = facts.appleWinBack {
            decision.reason = apple.offers.contains(offer.id) ? .listedByApple : .notListedByApple
        } else {
            decision.reason = decision.catalogReason
        }
        return decision
    }

    private static func catalogReason(
        _ offer: SubscriptionOffer, index: Int32, facts: GroupFacts, subscribed: Bool, at: Int64, decision: inout PromotionDecision
    ) -> PromotionReason {
        if let from = offer.from, at < from.millisecondsSince1970 { return .notRunning }
        if let until = offer.until, at >= until.millisecondsSince1970 { return .notRunning }
        switch offer.type {
        case .winBack:
            if subscribed { return .subscribed }
        case .promotional:
            if offer.subscribed == true, !subscribed { return .notSubscribed }
            if offer.subscribed == false, subscribed { return .subscribed }
        }
        let lapses = offer.lapsedAtLeast != nil || offer.lapsedAtMost != nil
        if (offer.type == .winBack || offer.paidAtLeast != nil || lapses) && !facts.everPaid { return .neverPaid }
        if let needed = offer.paidAtLeast?.nominalMilliseconds {
            decision.needed = needed
            if facts.paid < needed { return .paidTooLittle }
        }
        if let most = offer.paidAtMost?.nominalMilliseconds {
            decision.allowed = most
            if facts.paid > most { return .paidTooMuch }
        }
        if lapses {
            guard let lapsed = facts.lapsed(at: at) else { return .neverPaid }
            if let least = offer.lapsedAtLeast?.nominalMilliseconds, lapsed < least { return .lapsedTooRecently }
            if let most = offer.lapsedAtMost?.nominalMilliseconds, lapsed > most { return .lapsedTooLong }
        }
        if let wait = offer.waitBetween?.nominalMilliseconds {
            let last = offer.type == .winBack ? facts.lastWinBack : facts.lastRedemption(of: index)
            decision.lastRedeemed = last == .min ? nil : last
            if last != .min, at - last < wait { return .redeemedRecently }
        }
        return .eligible
    }

    /// The instants after `at` at which an offer condition of a group could change while nothing
    /// more becomes known: an offer starting or stopping, paid time reaching a threshold, a lapse
    /// reaching or passing one, a wait ending.
    static func promotionInstants(_ catalog: CompiledCatalog, core: Core, at: Int64) -> [Int64] {
        var instants: [Int64] = []
        for facts in core.groups {
            for (index, product, offer) in catalog.offers(inGroup: facts.group) {
                _ = product
                if let from = offer.from?.millisecondsSince1970, from > at { instants.append(from) }
                if let until = offer.until?.millisecondsSince1970, until > at { instants.append(until) }
                if let needed = offer.paidAtLeast?.nominalMilliseconds, facts.paid < needed,
                    let reached = facts.paidReaches(needed, after: at)
                {
                    instants.append(reached)
                }
                // Past the most, by a millisecond: `paid == most` still holds.
                if let most = offer.paidAtMost?.nominalMilliseconds, facts.paid <= most,
                    let passed = facts.paidReaches(most &+ 1, after: at)
                {
                    instants.append(passed)
                }
                if !facts.covered, facts.lastEnd != .min {
                    if let least = offer.lapsedAtLeast?.nominalMilliseconds {
                        let (instant, overflow) = facts.lastEnd.addingReportingOverflow(least)
                        if !overflow, instant > at { instants.append(instant) }
                    }
                    if let most = offer.lapsedAtMost?.nominalMilliseconds {
                        let (instant, overflow) = facts.lastEnd.addingReportingOverflow(most &+ 1)
                        if !overflow, instant > at { instants.append(instant) }
                    }
                }
                if let wait = offer.waitBetween?.nominalMilliseconds {
                    let last = offer.type == .winBack ? facts.lastWinBack : facts.lastRedemption(of: index)
                    if last != .min {
                        let (instant, overflow) = last.addingReportingOverflow(wait)
                        if !overflow, instant > at { instants.append(instant) }
                    }
                }
            }
        }
        // Past the last instant a result can name, nothing turns.
        let last = Instant.latest.millisecondsSince1970
        return instants.filter { $0 <= last }
    }
}

/// What a subscription group's offer conditions read at an instant.
struct GroupFacts: Sendable {
    var group: Int32
    /// Time paid in the group by the instant, free trials aside, in milliseconds.
    var paid: Int64 = 0
    /// The paid transactions' spans, for when paid time reaches a threshold.
    var paying: [(purchase: Int64, expires: Int64)] = []
    /// Whether a counted transaction of the group is not a free trial.
    var everPaid = false
    /// Whether some coverage of the group holds the instant (grace included).
    var covered = false
    /// The end of the group's last coverage that ended by the instant; `Int64.min` when none.
    var lastEnd = Int64.min
    /// The latest counted purchase with a win-back offer; `Int64.min` when none.
    var lastWinBack = Int64.min
    /// Counted purchases with one of the catalog's offers: (offer index, purchase), by offer then
    /// latest first.
    var redeemed: [(offer: Int32, purchase: Int64)] = []
    /// Apple's eligible win-back offers, from the group's latest renewal entry that says.
    var appleWinBack: (rank: Int64, chain: String, offers: [String])?
    /// The decision on each offer of the group, in the order of `CompiledCatalog.groupOffers`
    /// (and of `offers(inGroup:)`).
    var decisions: [PromotionDecision] = []

    /// Decides each offer of the group, once per evaluation (``Evaluator/promotion(_:index:facts:subscribed:at:)``).
    mutating func decide(_ catalog: CompiledCatalog, subscribed: Bool, at: Int64) {
        let facts = self
        decisions = catalog.groupOffers[Int(group)].map { index in
            Evaluator.promotion(catalog.offerList[Int(index)].offer, index: index, facts: facts, subscribed: subscribed, at: at)
        }
    }

    /// The time since the group's last coverage ended: 0 while covered, `nil` when it never was.
    func lapsed(at: Int64) -> Int64? {
        if covered { return 0 }
        guard lastEnd != .min else { return nil }
        return at - lastEnd
    }

    /// The latest counted purchase with offer `index`; `Int64.min` when none.
    func lastRedemption(of index: Int32) -> Int64 {
        redeemed.first { $0.offer == index }?.purchase ?? .min
    }

    /// The first instant after `at` at which paid time reaches `needed`, with what is known.
    func paidReaches(_ needed: Int64, after at: Int64) -> Int64? {
        // Paid time grows by the number of paid spans holding each instant.
        var events: [(instant: Int64, step: Int64)] = []
        for span in paying where span.expires > at {
            events.append((max(span.purchase, at), 1))
            events.append((span.expires, -1))
        }
        events.sort { $0.instant < $1.instant }
        var total = paid
        var rate: Int64 = 0
        var time = at
        for event in events {
            if rate > 0 {
                let gained = (event.instant - time).multipliedReportingOverflow(by: rate)
                if !gained.overflow, total + gained.partialValue >= needed {
                    let missing = needed - total
                    return time + (missing + rate - 1) / rate
                }
                total += gained.overflow ? 0 : gained.partialValue
            }
            time = event.instant
            rate += event.step
        }
        return nil
    }
}

extension GroupFacts: Equatable {
    static func == (a: GroupFacts, b: GroupFacts) -> Bool {
        a.group == b.group && a.paid == b.paid && a.everPaid == b.everPaid && a.covered == b.covered && a.lastEnd == b.lastEnd
            && a.lastWinBack == b.lastWinBack && a.redeemed.elementsEqual(b.redeemed, by: { $0 == $1 })
            && a.appleWinBack?.offers == b.appleWinBack?.offers
    }
}

/// Whether one win-back or promotional offer is eligible, with the figures behind it.
struct PromotionDecision: Sendable, Equatable {
    /// The reason given: the catalog's, or Apple's list for a win-back offer when it says.
    var reason = PromotionReason.eligible
    /// What the catalog's conditions say.
    var catalogReason = PromotionReason.eligible
    /// Time paid in the group, and what the offer needs.
    var paid: Int64
    var needed: Int64?
    /// The most time paid the offer allows.
    var allowed: Int64?
    /// Time since the group's last coverage ended.
    var lapsed: Int64?
    /// The last redemption `waitBetween` counts from.
    var lastRedeemed: Int64?

    var eligible: Bool { reason == .eligible || reason == .listedByApple }
    /// Whether Apple's list and the catalog's conditions disagree.
    var disagrees: Bool { (reason == .listedByApple || reason == .notListedByApple) && eligible != (catalogReason == .eligible) }
}

/// Why a win-back or promotional offer may or may not be offered, in the order conditions are
/// checked: the first that fails is given.
@nonexhaustive
public enum PromotionReason: String, Hashable, Sendable, CaseIterable, Codable {
    /// Every condition holds.
    case eligible
    /// The offer does not run at the instant (`from`, `until`).
    case notRunning = "not-running"
    /// The customer is subscribed in the group, and the offer is for those who are not.
    case subscribed
    /// The customer is not subscribed in the group, and the offer is for those who are.
    case notSubscribed = "not-subscribed"
    /// The customer never paid in the group (free trials aside).
    case neverPaid = "never-paid"
    /// The customer paid less time in the group than `paidAtLeast`.
    case paidTooLittle = "paid-too-little"
    /// The customer paid more time in the group than `paidAtMost`.
    case paidTooMuch = "paid-too-much"
    /// The group's coverage ended less than `lapsedAtLeast` ago.
    case lapsedTooRecently = "lapsed-too-recently"
    /// The group's coverage ended more than `lapsedAtMost` ago.
    case lapsedTooLong = "lapsed-too-long"
    /// A win-back offer (or this promotional offer) was redeemed less than `waitBetween` ago.
    case redeemedRecently = "redeemed-recently"
    /// Apple lists the win-back offer as eligible (`eligibleWinBackOfferIds`).
    case listedByApple = "listed-by-apple"
    /// Apple's list of eligible win-back offers leaves it out.
    case notListedByApple = "not-listed-by-apple"
}
