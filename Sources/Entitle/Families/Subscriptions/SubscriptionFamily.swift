/// Subscription groups and levels, renewals, grace periods and billing retry: the groups' rules
/// (`CatalogChecker+Groups`), renewal entries (`Evaluator+Renewals`) and their words
/// (`Explainer+Renewals`).
enum SubscriptionFamily: RuleFamily {
    static let name = "Subscription groups and renewals"
    static let folder = "Subscriptions"
    static let keys: [CatalogKey] = [.group, .level, .gracePeriod]
    static let codes: [DiagnosticCode] = [.groupRule]
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker) {
        checker.checkGroups(catalog)
    }
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact]) {
        let (receipts, at) = (moment.inputs.receipts, moment.at)
        // Renewal entries signed later, but those that repeat what their chain says at `at`.
        for (number, range) in moment.inputs.deduplicated.renewals.chains {
            let slice = moment.inputs.deduplicated.renewals.entries[Int(range.lowerBound)..<Int(range.upperBound)]
            guard let last = slice.last, last.rank > at else { continue }
            let resolved =
                number < moment.inputs.deduplicated.chains.transactionCount
                ? Evaluator.resolveRenewal(slice, receipts: receipts, at: at, accounts: moment.options.accounts, recorder: Evaluator.NoRecord.self)
                : nil
            for copy in slice where copy.rank > at {
                if let resolved, Evaluator.repeats(copy, of: resolved, receipts: receipts, accounts: moment.options.accounts) { continue }
                facts.append((copy.rank, false, false))
            }
        }
    }
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String? {
        // A pass's group decides what its purchases stack with.
        key == .group && new.type == .nonRenewingSubscription ? "existing passes stack differently" : nil
    }
}

extension Evaluator {
    /// Whether a renewal entry repeats what its chain says at `at` (a service storing the same
    /// renewal info each time it asks): every field it states is the chain's value already, and
    /// it names one of the accounts evaluated, so from its signing date on nothing changes.
    fileprivate static func repeats(_ copy: Snapshot, of resolved: ResolvedRenewal, receipts: [ParsedReceipt], accounts: [Options.Account]) -> Bool {
        // A chain whose entries disagree at `at` is warned about until a later entry stands alone.
        guard resolved.latestRank != nil, !resolved.conflicting else { return false }
        let receipt = receipts[Int(copy.receipt)]
        let record = receipt.renewals[Int(copy.index)]
        // Another account's entry changes no field, but its warning starts at its signing.
        guard accepts(record.accountToken, of: receipt, accounts: accounts) else { return false }
        func sameText(_ range: TextRange, _ known: (receipt: Int32, range: TextRange)?) -> Bool {
            range.isNone || (known.map { receipts[Int($0.receipt)].bytesEqual($0.range, receipt, range) } ?? false)
        }
        guard sameText(record.productId, resolved.productId), sameText(record.renewsTo, resolved.renewsTo),
            record.willRenew == 2 || record.willRenew == resolved.willRenew,
            record.isInBillingRetry == 2 || record.isInBillingRetry == resolved.isInBillingRetry,
            record.graceExpires == TransactionRecord.absentDate || record.graceExpires == resolved.graceExpires,
            record.expirationIntent == 0 || record.expirationIntent == resolved.expirationIntent,
            record.pausedUntil == TransactionRecord.absentDate || record.pausedUntil == resolved.pausedUntil,
            record.renewalPrice.isNone
                || (resolved.renewalPrice.map {
                    receipts[Int($0.receipt)].bytesEqual($0.amount, receipt, record.renewalPrice)
                        && receipts[Int($0.receipt)].bytesEqual($0.currency, receipt, record.currency)
                } ?? false)
        else { return false }
        guard let range = record.winBackOffers else { return true }
        guard let known = resolved.winBackOffers else { return false }
        let other = receipts[Int(known.receipt)]
        return known.range.count == range.count
            && zip(known.range, range).allSatisfy { a, b in
                other.bytesEqual(other.offerIds[Int(a)], receipt, receipt.offerIds[Int(b)])
            }
    }
}
