/// Renewal entries in an explanation: whether each counts, which of its chain's fields it
/// decides, the grace it gives, as the evaluation decided them.
extension Explainer {
    func renewals(of index: Int, _ context: Context) -> [RenewalExplanation] {
        renewalDecisions.filter { $0.product == Int32(index) }.map { decision in
            let receipt = context.receipts[decision.receipt]
            let renewal = receipt.renewals[decision.index]
            let chain = receipt.text(renewal.originalTransactionId) ?? ""
            var explanation = RenewalExplanation(
                originalTransactionId: chain, receipt: context.positions[decision.receipt], signedDate: Self.instant(renewal.signed),
                counted: false, grace: nil, reason: "")
            switch decision.verdict {
            case .signedLater:
                explanation.reason = "signed \(Self.text(renewal.signed)), after the instant: not known yet"
            case .otherAccount:
                explanation.reason = "for account \(receipt.text(renewal.accountToken) ?? ""), not the one evaluated"
            case .orphan:
                explanation.reason = "no transaction of the app's receipts belongs to chain \(chain)"
            case .chainNotCounted:
                explanation.reason = "no transaction of chain \(chain) counts at the instant"
            case .counted(let decides, let grace, let stale):
                explanation.counted = true
                explanation.reason = says(renewal, in: receipt)
                if !decides.isEmpty {
                    explanation.reason += " (the chain's latest entry stating it: it decides \(decides.joined(separator: ", ")))"
                } else {
                    explanation.reason += " (later entries state all it says)"
                }
                if stale {
                    explanation.reason += "; isInBillingRetry false: its gracePeriodExpiresDate \(Self.text(renewal.graceExpires)) is stale, ignored"
                } else if let grace {
                    explanation.grace = Self.span(grace)
                    explanation.reason += "; grace \(Self.text(grace))"
                }
            }
            return explanation
        }
    }

    /// What a renewal entry says, in words.
    private func says(_ renewal: RenewalRecord, in receipt: ParsedReceipt) -> String {
        var parts: [String] = []
        switch renewal.willRenew {
        case 1: parts.append("will renew" + (receipt.text(renewal.renewsTo).map { " to \($0)" } ?? ""))
        case 0: parts.append("will not renew")
        default: break
        }
        if renewal.isInBillingRetry == 1 { parts.append("billing being retried") }
        if renewal.isInBillingRetry == 0 { parts.append("billing not being retried") }
        if let offers = renewal.winBackOffers {
            let ids = offers.map { receipt.text(receipt.offerIds[Int($0)]) ?? "" }
            parts.append(ids.isEmpty ? "no win-back offer eligible" : "win-back offers eligible: " + ids.joined(separator: ", "))
        }
        return parts.isEmpty ? "counts" : "says: " + parts.joined(separator: ", ")
    }
}
