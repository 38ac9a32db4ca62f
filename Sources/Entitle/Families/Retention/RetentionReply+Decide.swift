extension Portfolio {
    /// The answer to Apple's retention request for one of `app`'s subscribers, at an instant: the
    /// first of the requested product's retention rules whose conditions hold and whose reply is
    /// possible ([Answering Apple's server](doc:AnsweringApple)).
    ///
    /// - Parameters:
    ///   - app: the app.
    ///   - request: Apple's request (``RetentionRequest/init(json:name:)`` reads it).
    ///   - receipts: the customer's receipts.
    ///   - at: the instant to answer for.
    ///   - options: the environments (a request from another is an error), accounts and
    ///     storefront, as evaluation takes them.
    /// - Throws: ``RetentionRequestError`` when the portfolio has no catalog for `app`, the request
    ///   names a product that is not one of its App Store subscriptions, or comes from an
    ///   environment not accepted.
    public func retentionReply(
        app: String, request: RetentionRequest, receipts: [some ReceiptConvertible], at: Instant, options: EvaluationOptions = .all
    ) throws(RetentionRequestError) -> RetentionReply {
        let (catalog, evaluatorOptions) = try evaluating(app, options: options) {
            RetentionRequestError(message: $0.problem, help: $0.help)
        }
        let parsed = receipts.parsed
        let result = Evaluator.evaluate(catalog, receipts: parsed, at: at, options: evaluatorOptions)
        return try RetentionReply(
            catalog: catalog, result: result, receipts: parsed, request: request, environments: evaluatorOptions.environments)
    }
}

extension RetentionReply {
    /// Decides from the evaluation of the instant: the chain's coverage, the group's facts (time
    /// paid, the last redemptions) and the offers' decisions are the evaluator's.
    init(
        catalog: CompiledCatalog, result: Entitlements, receipts: [ParsedReceipt], request: RetentionRequest, environments: Set<String>?
    ) throws(RetentionRequestError) {
        let subscriptions = catalog.products.filter { $0.store == .appStore && $0.type == .autoRenewableSubscription }
        guard let product = subscriptions.first(where: { $0.id == request.productId }) else {
            throw RetentionRequestError(
                message: "the request names `\(Diagnostic.excerpt(request.productId))`, which is not an App Store subscription of \(catalog.app)",
                help: Suggestion.help(for: request.productId, in: subscriptions.map(\.id)))
        }
        if let environment = request.environment, let environments, !environments.contains(environment) {
            throw RetentionRequestError(
                message: "the request comes from the `\(environment)` environment, which the evaluation does not accept",
                help: "accepted: \(environments.sorted().joined(separator: ", "))")
        }
        let at = result.at
        self.init(app: catalog.app, at: at, request: request.requestIdentifier, rule: nil, reason: .noRuleMatched, reply: nil, outcomes: [])

        // The chain: the customer's transactions of it, bought by the instant.
        var chainProducts = Set<String>()
        // Read from the records, not converted into `Receipt` values: this is on the answer's path.
        for receipt in receipts where receipt.app == catalog.app && receipt.store == .appStore {
            for record in receipt.transactions
            where record.purchase <= at.millisecondsSince1970 && receipt.bytesEqual(record.originalTransactionId, request.originalTransactionId) {
                if let product = receipt.text(record.productId) { chainProducts.insert(product) }
            }
        }
        guard !chainProducts.isEmpty else {
            reason = .notTheCustomersChain
            return
        }
        // Once the customer rescinded consent for the app, nothing is offered: no reply.
        guard result.consentRescinded == nil else {
            reason = .consentRescinded
            return
        }
        guard chainProducts.contains(where: { result.product($0)?.state.covers == true }) else {
            reason = .notSubscribed
            return
        }
        let index = catalog.compiledProducts.firstIndex { $0.id == product.key }
        let group = index.map { catalog.rules[$0].group } ?? -1
        let facts = result.groups.first { $0.group == group }
        let groupName = product.group.map { "`\($0)`" } ?? "the group"
        let promotions = result.offer(for: product.key)?.promotions ?? []
        for rule in product.retention {
            let because: String? = Self.failing(
                rule, product: product, request: request, facts: facts, catalog: catalog, productIndex: index, promotions: promotions,
                renewsTo: result.product(product.key)?.renewsTo, at: at.millisecondsSince1970, groupName: groupName)
            outcomes.append(Outcome(rule: rule.id, matched: because == nil, because: because ?? "every condition holds"))
            guard because == nil else { continue }
            self.rule = rule.id
            reason = .ruleMatched
            if let offer = rule.promotionalOffer {
                reply = .promotionalOffer(offerId: offer, productId: product.id, message: rule.message)
            } else if let alternate = rule.alternateProduct {
                reply = .alternateProduct(productId: alternate, message: rule.message, billingPlan: rule.billingPlan)
            } else if let message = rule.message {
                reply = .message(message)
            }
            return
        }
    }

    /// Why `rule` does not decide, in one line; `nil` when it does.
    private static func failing(
        _ rule: RetentionRule, product: CatalogProduct, request: RetentionRequest, facts: GroupFacts?, catalog: CompiledCatalog,
        productIndex: Int?, promotions: [Promotion], renewsTo: String?, at: Int64, groupName: String
    ) -> String? {
        func days(_ milliseconds: Int64) -> String {
            let whole = milliseconds / CivilCalendar.millisecondsPerDay
            return whole == 1 ? "1 day" : milliseconds < CivilCalendar.millisecondsPerDay ? "less than a day" : "\(whole) days"
        }
        if let locales = rule.locales {
            guard let locale = request.userLocale else { return "the request names no locale; the rule is for \(locales.joined(separator: ", "))" }
            guard locales.contains(where: { LanguageTag.matches($0, locale) }) else {
                return "the customer's locale `\(locale)` is not among \(locales.joined(separator: ", "))"
            }
        }
        if let needed = rule.paidAtLeast?.nominalMilliseconds {
            let paid = facts?.paid ?? 0
            if paid < needed { return "paid \(days(paid)) in \(groupName), needs \(days(needed))" }
        }
        if let wait = rule.waitBetween?.nominalMilliseconds, let facts, let productIndex {
            // The rule's offer, else any promotional offer of the product.
            let offers = catalog.offerList.indices.filter { index in
                let item = catalog.offerList[index]
                guard item.product == productIndex, item.offer.type == .promotional else { return false }
                return rule.promotionalOffer.map { $0 == item.offer.id } ?? true
            }
            let last = offers.map { facts.lastRedemption(of: Int32($0)) }.max() ?? .min
            if last != .min, at - last < wait {
                return "a promotional offer was redeemed \(Instant(millisecondsSince1970: last).rfc3339), less than \(rule.waitBetween!) before"
            }
        }
        if let offer = rule.promotionalOffer {
            guard let promotion = promotions.first(where: { $0.id == offer }) else { return "promotional offer `\(offer)` is not decided" }
            if !promotion.eligible { return "promotional offer `\(offer)` is not eligible now (\(promotion.reason.rawValue))" }
        }
        if let alternate = rule.alternateProduct, renewsTo == alternate {
            return "the subscription renews to `\(alternate)` already"
        }
        return nil
    }
}
