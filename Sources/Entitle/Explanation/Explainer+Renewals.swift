/// Renewal entries in an explanation: whether each counts, what it says, and the grace it gives,
/// attached to the product holding its chain's latest expiry (the evaluator's rule).
extension Explainer {
    mutating func explainRenewals() {
        let chains = deduplicated.chains
        guard !chains.chainOfItem.isEmpty else { return }
        // Each chain's latest expiry among its counted transactions, and the products holding it.
        var latest: [Int: (expires: Int64, products: [Int32])] = [:]
        for entry in deduplicated.entries where entry.product >= 0 && entry.purchase <= at && entry.cancellation > at {
            guard catalog.rules[Int(entry.product)].type == .autoRenewableSubscription else { continue }
            let record = receipts[Int(entry.receipt)].transactions[Int(entry.index)]
            guard record.flags & TransactionRecord.upgraded == 0, record.expires != TransactionRecord.absentDate,
                  !(record.flags & TransactionRecord.familyShared != 0 && !catalog.rules[Int(entry.product)].familyShareable)
            else { continue }
            let chain = chains.chain(ofTransaction: entry.index, in: entry.receipt)
            let current = latest[chain] ?? (Int64.min, [])
            if record.expires > current.expires {
                latest[chain] = (record.expires, [entry.product])
            } else if record.expires == current.expires, !current.products.contains(entry.product) {
                latest[chain] = (current.expires, current.products + [entry.product])
            }
        }
        // The entry that decides each chain's willRenew: the latest counted, by signing date then order.
        var deciding: [Int: (signed: Int64, receipt: Int, index: Int)] = [:]
        for receiptIndex in own {
            for (index, renewal) in receipts[receiptIndex].renewals.enumerated() where renewal.signed <= at {
                let chain = chains.chain(ofRenewal: index, in: receiptIndex)
                guard latest[chain] != nil else { continue }
                if let current = deciding[chain], renewal.signed < current.signed { continue }
                deciding[chain] = (renewal.signed, receiptIndex, index)
            }
        }
        for receiptIndex in own {
            let receipt = receipts[receiptIndex]
            for (index, renewal) in receipt.renewals.enumerated() {
                let chain = chains.chain(ofRenewal: index, in: receiptIndex)
                let chainId = receipt.text(renewal.originalTransactionId) ?? ""
                var product = catalog.productTable.index(of: receipt, renewal.productId)
                if let holders = latest[chain]?.products {
                    product = holders.first { receipt.bytesEqual(renewal.productId, catalog.compiledProducts[Int($0)].id) } ?? holders[0]
                }
                guard product >= 0 else { continue }
                var explanation = RenewalExplanation(
                    originalTransactionId: chainId, receipt: positions[receiptIndex], signedDate: Self.instant(renewal.signed),
                    counted: false, grace: nil, reason: "")
                if renewal.signed > at {
                    explanation.reason = "signed \(Self.text(renewal.signed)), after the instant: not known yet"
                } else if chain >= chains.transactionCount {
                    explanation.reason = "no transaction of the app's receipts belongs to chain \(chainId)"
                } else if let (expires, _) = latest[chain] {
                    explanation.counted = true
                    explanation.reason = says(renewal, in: receipt)
                    if let decider = deciding[chain], decider.receipt == receiptIndex, decider.index == index {
                        explanation.reason += " (the chain's latest entry: it decides willRenew)"
                    }
                    if renewal.graceExpires != TransactionRecord.absentDate {
                        if renewal.isInBillingRetry == 0 {
                            explanation.reason += "; isInBillingRetry false: its gracePeriodExpiresDate "
                                + "\(Self.text(renewal.graceExpires)) is stale, ignored"
                        } else if renewal.graceExpires > expires {
                            let grace = CoverageSpan(start: expires, end: renewal.graceExpires, isGrace: true)
                            explanation.grace = Self.span(grace)
                            spans[Int(product), default: []].append(grace)
                            explanation.reason += "; grace \(Self.text(grace))"
                        } else {
                            explanation.reason += "; its grace period ends before the chain's latest expiry"
                        }
                    }
                } else {
                    explanation.reason = "no transaction of chain \(chainId) counts at the instant"
                }
                renewals[Int(product), default: []].append(explanation)
            }
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
        return parts.isEmpty ? "counts" : "says: " + parts.joined(separator: ", ")
    }
}

extension ByteKeyTable {
    /// The index of the key spelled by a receipt's text, or -1.
    func index(of receipt: ParsedReceipt, _ range: TextRange) -> Int32 {
        guard !range.isNone else { return -1 }
        return receipt.arena.withUnsafeBytes { arena in
            find(UnsafeRawBufferPointer(rebasing: arena[Int(range.start)..<Int(range.start + range.count)]))
        }
    }
}
