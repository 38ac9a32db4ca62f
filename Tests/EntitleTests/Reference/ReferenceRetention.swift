@testable import Entitle

/// The reference answer to Apple's retention request ("The retention request" in
/// `AnsweringApple.md`), written from the reference evaluator's answer at the instant, apart from
/// `RetentionReply+Decide`.
extension ReferenceEvaluator {
    /// The reason, the rule that decided and the reply; `nil` when the request is an error (a
    /// product that is not one of the app's App Store subscriptions).
    static func retention(
        _ catalog: CompiledCatalog, receipts: [Receipt], request: RetentionRequest, at instant: Instant, environments: Set<String>? = nil,
        catalogs: [String: CompiledCatalog] = [:], accounts: [String] = []
    ) -> (reason: RetentionReply.Reason, rule: String?, reply: RetentionReply.Reply?)? {
        guard
            let product = catalog.products.first(where: {
                $0.id == request.productId && $0.store == .appStore && $0.type == .autoRenewableSubscription
            })
        else { return nil }
        let at = instant.millisecondsSince1970
        let result = evaluate(catalog, receipts: receipts, at: instant, environments: environments, catalogs: catalogs, accounts: accounts)
        // The chain: a transaction of it, bought by the instant, in an App Store receipt of the app.
        let chain = Set(
            receipts.filter { $0.app == catalog.app && $0.store == .appStore }.flatMap(\.transactions).filter {
                $0.originalTransactionId == request.originalTransactionId && $0.purchaseDate.millisecondsSince1970 <= at
            }.map(\.productId))
        guard !chain.isEmpty else { return (.notTheCustomersChain, nil, nil) }
        guard result.consentRescinded == nil else { return (.consentRescinded, nil, nil) }
        guard chain.contains(where: { [.active, .gracePeriod].contains(result.products[$0]?.state) }) else { return (.notSubscribed, nil, nil) }
        let group = catalog.compiledProducts.first { $0.id == product.key }?.group ?? -1
        let facts = result.groupFacts[group]
        func nominal(_ duration: ISODuration) -> Int64 {
            (Int64(duration.years) * 365 + Int64(duration.months) * 30 + Int64(duration.weeks) * 7 + Int64(duration.days))
                * CivilCalendar.millisecondsPerDay + duration.timeMilliseconds
        }
        for rule in product.retention {
            if let locales = rule.locales {
                guard let locale = request.userLocale else { continue }
                // RFC 4647 basic filtering: the tag, or the tag and a `-` (`_` read as `-`), case aside.
                let tag = locale.lowercased().replacingOccurrences(of: "_", with: "-")
                guard locales.contains(where: { tag == $0.lowercased() || tag.hasPrefix($0.lowercased() + "-") }) else { continue }
            }
            if let needed = rule.paidAtLeast.map(nominal), (facts?.paid ?? 0) < needed { continue }
            if let wait = rule.waitBetween.map(nominal), let facts {
                let offers = product.offers.filter { offer in
                    offer.type == .promotional && (rule.promotionalOffer.map { $0 == offer.id } ?? true)
                }
                if let last = offers.compactMap({ facts.redeemed[$0.id] }).max(), at - last < wait { continue }
            }
            if let offer = rule.promotionalOffer {
                guard result.offers[product.key]?.promotions?.first(where: { $0.id == offer })?.eligible == true else { continue }
            }
            if let alternate = rule.alternateProduct, result.products[product.key]?.renewsTo == alternate { continue }
            let reply: RetentionReply.Reply? =
                if let offer = rule.promotionalOffer {
                    .promotionalOffer(offerId: offer, productId: product.id, message: rule.message)
                } else if let alternate = rule.alternateProduct {
                    .alternateProduct(productId: alternate, message: rule.message, billingPlan: rule.billingPlan)
                } else {
                    rule.message.map { .message($0) }
                }
            return (.ruleMatched, rule.id, reply)
        }
        return (.noRuleMatched, nil, nil)
    }
}
