/// Offers in an explanation: the decision offers made (``OfferDecision``) and the fact behind its
/// rule, in words, with the transactions the evaluation recorded.
extension Explainer {
    func offer(_ index: Int, _ context: Context, offers: Entitlements.OfferContext) -> OfferExplanation {
        let catalog = context.catalog
        let product = catalog.compiledProducts[index]
        let decision = context.result.offerDecision(index, context: offers)
        var because = fact(decision, index, context)
        if let eligible = decision.introOfferEligible,
            let intro = introOffer(eligible: eligible, product, context, offers: offers, billingIssue: decision.reason == .billingIssue)
        {
            because += "; " + intro
        }
        return OfferExplanation(
            productId: product.id, eligible: decision.reason == nil, reason: decision.reason,
            introOfferEligible: decision.introOfferEligible, change: decision.change?.0, effective: decision.change?.1,
            because: because,
            promotions: decision.promotions.map { items in
                items.map { item in
                    PromotionExplanation(
                        id: item.offer.id, type: item.offer.type, eligible: item.decision.eligible,
                        reason: item.decision.reason, because: promotion(item.offer, item.decision, group: product.group, context))
                }
            },
            adds: decision.adds.map { catalog.featureIds[Int($0)] }, extends: decision.extends.map { catalog.featureIds[Int($0)] })
    }

    private func fact(_ decision: OfferDecision, _ index: Int, _ context: Context) -> String {
        let catalog = context.catalog
        let product = catalog.compiledProducts[index]
        let result = context.result
        switch decision.fact {
        case .consentRescinded(let instant):
            return "the customer rescinded consent for the app at \(Self.text(instant)) (Apple's RESCIND_CONSENT)"
        case .notInStorefront(let storefront):
            let list = (product.storefronts ?? []).joined(separator: ", ")
            return storefront.map { "sold in \(list) only; the customer's storefront is \($0)" }
                ?? "sold in \(list) only, and the evaluation names no storefront (`--storefront`)"
        case .subscribedElsewhere(let other):
            let elsewhere = catalog.compiledProducts[other]
            return "subscribed to \(elsewhere.id) in \(elsewhere.store.phrase) (\(result.state(of: other).rawValue)), "
                + "which grants all this one would"
        case .retired:
            return "`available` is false in the catalog: honored for its buyers, never offered"
        case .ownedThroughGrandfathering:
            let rules = catalog.grandfatherRules.filter { rule in product.grants.contains { rule.grants.contains($0) } }
            return "grandfather rules cover everything it grants (\(rules.map(\.source).joined(separator: ", ")))"
        case .owned(let by):
            if by == index, case .trial = product.role { return "the trial is running: \(activeFact(by, context))" }
            return "\(catalog.compiledProducts[by].id) is active: \(activeFact(by, context))"
        case .preordered(let release):
            return "pre-ordered: it is the customer's from its release, \(Self.text(release))"
        case .topUpLater(let after):
            let status = result.product(product.id)
            return "a prepaid plan held" + (status?.until.map { " until \($0.rfc3339)" } ?? "")
                + "; \(product.store.phrase) allows a top-up only after \(Self.text(after))"
        case .trialUsed:
            let first = transactions(of: index, context).first { $0.exclusion != .purchasedLater }
            return "the trial was taken" + (first.map { " on \($0.purchaseDate.rfc3339) (transaction \($0.transactionId))" } ?? "")
        case .subscribed(let state):
            let status = result.product(product.id)
            return "subscribed: \(state.rawValue)" + (status?.until.map { " until \($0.rfc3339)" } ?? "")
        case .billingIssue(let retrying):
            let product = catalog.compiledProducts[retrying]
            return "\(product.id) is in billing retry: \(product.store.phrase) still counts the customer as subscribed; "
                + "send them to fix their payment method"
        case .prerequisiteMissing(let requirement):
            return "needs " + describe(requirement) + "; " + prerequisiteFacts(requirement, context)
        case .upgradeAvailable(let upgrades):
            return "offer the upgrade instead: "
                + upgrades.map { upgrade -> String in
                    guard case .upgrade(_, let requirement) = catalog.compiledProducts[upgrade].role else { return "" }
                    return "\(catalog.compiledProducts[upgrade].id) (\(prerequisiteFacts(requirement, context)))"
                }.joined(separator: ", ")
        case .eligible:
            switch product.type {
            case .consumable:
                return "consumables may always be bought again"
            case .nonRenewingSubscription:
                let status = result.product(product.id)
                if status?.state == .active, let until = status?.until {
                    return "passes may always be bought; a new one starts \(until.rfc3339), when the current one ends"
                }
                return "passes may always be bought"
            case .autoRenewableSubscription:
                guard let (change, effective) = decision.change else { return "not subscribed in this group" }
                let current = result.currentSubscription(inGroupOf: index).map { catalog.compiledProducts[$0] }
                return "subscribed to \(current?.id ?? "another product") (level \(current?.level.map(String.init) ?? "?")); "
                    + "this one (level \(product.level.map(String.init) ?? "?")) is a \(change.rawValue), "
                    + (effective == .immediately ? "effective immediately" : "effective at the next renewal")
            case .nonConsumable:
                if case .upgrade(_, let requirement) = product.role { return "qualifies: " + prerequisiteFacts(requirement, context) }
                return "not owned"
            }
        }
    }

    /// The transaction that made a product active, in words.
    private func activeFact(_ index: Int, _ context: Context) -> String {
        let counted = transactions(of: index, context).filter(\.counted)
        guard let last = counted.last else { return context.result.product(context.catalog.compiledProducts[index].id)?.state.rawValue ?? "active" }
        return "transaction \(last.transactionId), bought \(last.purchaseDate.rfc3339)"
    }

    private func describe(_ requirement: UpgradeRequirement) -> String {
        guard let anyOf = requirement.anyOf else { return "any purchase in \(requirement.app)" }
        return "a purchase of \(anyOf.sorted().joined(separator: " or ")) in \(requirement.app)"
    }

    /// What the receipts of the required app show at the instant, as the evaluation found it.
    private func prerequisiteFacts(_ requirement: UpgradeRequirement, _ context: Context) -> String {
        let prerequisites = context.result.prerequisites
        guard prerequisites.hasReceipts(of: requirement.app) else { return "no receipt of \(requirement.app) was given" }
        guard requirement.anyOf != nil else {
            guard let first = prerequisites.firstPurchase(of: requirement.app) else {
                return "the receipts of \(requirement.app) show a first purchase of the app after the instant"
            }
            // The receipt that qualifies, as the evaluation chose it: the earliest original purchase of the app.
            return "receipt \(context.positions[first.receipt]) of \(requirement.app) counts"
                + (first.instant == Int64.min ? " (it has no originalPurchaseDate)" : ", the app first bought \(Self.text(first.instant))")
        }
        let found = prerequisites.qualifying(requirement).prefix(3)
        return found.isEmpty
            ? "the receipts of \(requirement.app) show no such purchase at the instant"
            : "the receipts of \(requirement.app) show "
                + found.map {
                    "\($0.product) (transaction \($0.witness.transaction) in receipt \(context.positions[$0.witness.receipt]))"
                }.joined(separator: ", ")
    }

    /// Why a subscription's intro offer is eligible or not, from the group's transactions the
    /// evaluation recorded: the first in purchase order that used the offer up (one with a trial or
    /// intro offer period; for an offer to new subscribers, any).
    private func introOffer(
        eligible: Bool, _ product: CompiledProduct, _ context: Context, offers: Entitlements.OfferContext, billingIssue: Bool
    ) -> String? {
        let group = Int32(product.group)
        let name = product.group >= 0 ? "`\(context.catalog.groups[product.group])`" : "its group"
        let forNew = product.introAudience == .newSubscribers
        let first = groupPurchases.filter { item in
            context.catalog.rules[Int(item.entry.product)].group == group && (forNew || item.usesIntro)
        }.min { Evaluator.precedes($0.entry, $1.entry, receipts: context.receipts) }
        if eligible {
            return forNew
                ? "intro offer eligible: never bought in \(name) (the offer is for new subscribers)"
                : "intro offer eligible: no trial or intro offer in \(name) before"
        }
        if let first {
            let entry = first.entry
            let transaction =
                "transaction \(context.receipts[Int(entry.receipt)].text(entry.record.transactionId) ?? "") of "
                + context.catalog.compiledProducts[Int(entry.product)].id
            if forNew { return "intro offer is for new subscribers: \(transaction) was bought in \(name)" }
            return
                "intro offer used: \(transaction) (\(entry.record.flags & TransactionRecord.trialPeriod != 0 ? "isTrialPeriod" : "isIntroOfferPeriod"))"
        }
        // Billing retry in the group: the offer's own reason says so already.
        if billingIssue { return nil }
        return "intro offer not eligible while billing is retried in the group"
    }

    /// A win-back or promotional offer's deciding fact, with its figures.
    private func promotion(_ offer: SubscriptionOffer, _ decision: PromotionDecision, group: Int, _ context: Context) -> String {
        let name = group >= 0 ? "`\(context.catalog.groups[group])`" : "its group"
        func days(_ milliseconds: Int64) -> String {
            let whole = milliseconds / CivilCalendar.millisecondsPerDay
            return whole == 1 ? "1 day" : milliseconds < CivilCalendar.millisecondsPerDay ? "less than a day" : "\(whole) days"
        }
        func facts(_ reason: PromotionReason) -> String {
            switch reason {
            case .eligible:
                var parts = ["every condition holds"]
                if let needed = decision.needed { parts.append("paid \(days(decision.paid)) in \(name), needs \(days(needed))") }
                if offer.lapsedAtLeast != nil || offer.lapsedAtMost != nil, let lapsed = decision.lapsed {
                    parts.append("lapsed \(days(lapsed)) ago")
                }
                return parts.joined(separator: ": ")
            case .notRunning:
                return "runs "
                    + [offer.from.map { "from \($0.rfc3339)" }, offer.until.map { "until \($0.rfc3339)" }].compactMap { $0 }
                    .joined(separator: " ")
            case .subscribed: return "subscribed in \(name) now"
            case .notSubscribed: return "not subscribed in \(name) now"
            case .neverPaid: return "never paid in \(name)"
            case .paidTooLittle: return "paid \(days(decision.paid)) in \(name), needs \(days(decision.needed ?? 0))"
            case .paidTooMuch: return "paid \(days(decision.paid)) in \(name), at most \(days(decision.allowed ?? 0))"
            case .lapsedTooRecently:
                return "lapsed \(days(decision.lapsed ?? 0)) ago in \(name), needs \(days(offer.lapsedAtLeast?.nominalMilliseconds ?? 0))"
            case .lapsedTooLong:
                return "lapsed \(days(decision.lapsed ?? 0)) ago in \(name), at most \(days(offer.lapsedAtMost?.nominalMilliseconds ?? 0))"
            case .redeemedRecently:
                let last = decision.lastRedeemed.map(Self.text) ?? "recently"
                return "redeemed \(last), waits \(days(offer.waitBetween?.nominalMilliseconds ?? 0)) between"
            case .listedByApple: return "Apple lists it among the eligible win-back offers"
            case .notListedByApple: return "Apple's list of eligible win-back offers leaves it out"
            }
        }
        var text = facts(decision.reason)
        if decision.disagrees {
            text +=
                "; the catalog's conditions say " + (decision.catalogReason == .eligible ? "eligible" : decision.catalogReason.rawValue)
                + " (" + facts(decision.catalogReason) + ")"
        }
        return text
    }
}
