/// Offers in an explanation: the evaluator's decision (``Entitlements/offers``) and the fact behind
/// the rule that made it.
extension Explainer {
    func offer(_ index: Int) -> OfferExplanation {
        let product = catalog.compiledProducts[index]
        let offer = result.offer(for: product.id)
            ?? Offer(productId: product.id, eligible: true, reason: nil, introOfferEligible: nil, legal: product.legal)
        var because = offer.reason.map { fact(for: $0, index) } ?? eligibleFact(index, offer)
        if offer.introOfferEligible == false, let used = introOfferUse(group: product.group) {
            because += "; intro offer used: \(used)"
        }
        return OfferExplanation(productId: product.id, eligible: offer.eligible, reason: offer.reason,
                                introOfferEligible: offer.introOfferEligible, change: offer.change, effective: offer.effective,
                                because: because)
    }

    private func fact(for reason: OfferReason, _ index: Int) -> String {
        let product = catalog.compiledProducts[index]
        switch reason {
        case .retired:
            return "`available` is false in the catalog: honored for its buyers, never offered"
        case .owned:
            let grandfathered = result.grandfatheredFeatures
            if !product.grants.isEmpty, product.grants.allSatisfy({ grandfathered.contains(Int32($0)) }) {
                let rules = catalog.grandfatherRules.filter { rule in product.grants.contains { rule.grants.contains($0) } }
                return "grandfather rules cover everything it grants (\(rules.map { "grandfathered:\($0.id)" }.joined(separator: ", ")))"
            }
            var family = index
            switch product.role {
            case .standard: break
            case .upgrade(let replaces, _): family = replaces
            case .trial(_, let paid):
                if result.state(of: index) == .active { return "the trial is running: \(activeFact(index))" }
                family = paid
            }
            for candidate in [family] + catalog.compiledProducts[family].upgrades where result.state(of: candidate) == .active {
                return "\(catalog.compiledProducts[candidate].id) is active: \(activeFact(candidate))"
            }
            return "the customer owns it"
        case .trialUsed:
            let first = transactions[index]?.first { $0.exclusion != .purchasedLater }
            return "the trial was taken" + (first.map { " on \($0.purchaseDate.rfc3339) (transaction \($0.transactionId))" } ?? "")
        case .subscribed:
            let status = result.product(product.id)
            return "subscribed: \(status?.state.rawValue ?? "active")" + (status?.until.map { " until \($0.rfc3339)" } ?? "")
        case .prerequisiteMissing:
            guard case .upgrade(_, let requirement) = product.role else { return "its prerequisite is missing" }
            return "needs " + describe(requirement) + "; " + prerequisiteFacts(requirement)
        case .upgradeAvailable:
            let upgrades = product.upgrades.filter { upgrade in
                guard catalog.compiledProducts[upgrade].available,
                      case .upgrade(_, let requirement) = catalog.compiledProducts[upgrade].role else { return false }
                return result.prerequisites.meets(requirement)
            }
            return "offer the upgrade instead: " + upgrades.map { upgrade -> String in
                guard case .upgrade(_, let requirement) = catalog.compiledProducts[upgrade].role else { return "" }
                return "\(catalog.compiledProducts[upgrade].id) (\(prerequisiteFacts(requirement)))"
            }.joined(separator: ", ")
        }
    }

    private func eligibleFact(_ index: Int, _ offer: Offer) -> String {
        let product = catalog.compiledProducts[index]
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
            guard let change = offer.change else { return "not subscribed in this group" }
            let current = result.productOutcomes.first { outcome in
                let other = catalog.compiledProducts[Int(outcome.product)]
                return Int(outcome.product) != index && other.group == product.group
                    && (outcome.state == .active || outcome.state == .gracePeriod)
            }
            let from = current.map { catalog.compiledProducts[Int($0.product)] }
            return "subscribed to \(from?.id ?? "another product") (level \(from?.level.map(String.init) ?? "?")); "
                + "this one (level \(product.level.map(String.init) ?? "?")) is a \(change.rawValue), "
                + (offer.effective == .immediately ? "effective immediately" : "effective at the next renewal")
        case .nonConsumable:
            if case .upgrade(_, let requirement) = product.role { return "qualifies: " + prerequisiteFacts(requirement) }
            return "not owned"
        }
    }

    /// The counted fact that made a product active, in words.
    private func activeFact(_ index: Int) -> String {
        let counted = (transactions[index] ?? []).filter(\.counted)
        guard let last = counted.last else { return result.product(catalog.compiledProducts[index].id)?.state.rawValue ?? "active" }
        return "transaction \(last.transactionId), bought \(last.purchaseDate.rfc3339)"
    }

    private func describe(_ requirement: UpgradeRequirement) -> String {
        guard let anyOf = requirement.anyOf else { return "any purchase in \(requirement.app)" }
        return "a purchase of \(anyOf.sorted().joined(separator: " or ")) in \(requirement.app)"
    }

    /// What the given receipts of the required app show, in words.
    private func prerequisiteFacts(_ requirement: UpgradeRequirement) -> String {
        guard let purchases = otherApps[requirement.app] else { return "no receipt of \(requirement.app) was given" }
        let found = purchases.filter { requirement.anyOf?.contains($0.product) ?? true }.prefix(3)
        return found.isEmpty
            ? "the receipts of \(requirement.app) show no such purchase at the instant"
            : "the receipts of \(requirement.app) show " + found.map { "\($0.product) (transaction \($0.transaction))" }.joined(separator: ", ")
    }

    /// The transaction that used up a group's intro offer, in words.
    private func introOfferUse(group: Int) -> String? { introUse[group] }

    /// Notes, once, what other apps' receipts show (for prerequisites) and which transaction first
    /// used each group's intro offer.
    mutating func gatherOfferFacts(known: [Evaluator.Entry]) {
        for app in catalog.requiredApps {
            for receipt in receipts where receipt.app == app {
                var purchases = otherApps[app] ?? []
                for record in receipt.transactions where record.purchase <= at && record.cancellation > at {
                    purchases.append((receipt.text(record.productId) ?? "", receipt.text(record.transactionId) ?? ""))
                }
                otherApps[app] = purchases
            }
        }
        for entry in known {
            let group = catalog.rules[Int(entry.product)].group
            let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
            guard group >= 0, introUse[Int(group)] == nil,
                  record.flags & (TransactionRecord.trialPeriod | TransactionRecord.introOfferPeriod) != 0 else { continue }
            introUse[Int(group)] = "transaction \(receipts[Int(entry.receipt)].text(record.transactionId) ?? "") of "
                + catalog.compiledProducts[Int(entry.product)].id
                + " (\(record.flags & TransactionRecord.trialPeriod != 0 ? "isTrialPeriod" : "isIntroOfferPeriod"))"
        }
    }
}
