extension CompiledCatalog {
    /// The reply to Apple's consumption request about one of the app's transactions, at an
    /// instant.
    ///
    /// - Parameters:
    ///   - transactionId: the transaction the request is about (its signed transaction's).
    ///   - receipts: the customer's receipts.
    ///   - at: the instant to reply for (a service passes the time it answers).
    ///   - consented: whether the customer consented to sharing the data; without it there is no body.
    ///   - undelivered: why the service says the purchase was not delivered, used when it was
    ///     not; `nil` says `UNDELIVERED_OTHER`.
    ///   - options: the environments, accounts and storefront, as evaluation takes them.
    /// - Throws: ``ConsumptionReplyError`` when the customer has no such transaction of the app
    ///   at `at`.
    public func consumptionReply(
        transactionId: String, receipts: [some ReceiptConvertible], at: Instant, consented: Bool,
        undelivered: ConsumptionReply.Undelivered? = nil, options: EvaluationOptions = .all
    ) throws(ConsumptionReplyError) -> ConsumptionReply {
        let parsed = receipts.parsed
        let explanation = Explainer.explain(self, receipts: parsed, at: at, options: options.evaluatorOptions())
        return try ConsumptionReply(
            catalog: self, explanation: explanation, receipts: parsed, transactionId: transactionId, consented: consented,
            undelivered: undelivered)
    }
}

extension Portfolio {
    /// The reply to Apple's consumption request about one of `app`'s transactions, at an instant
    /// (see ``CompiledCatalog/consumptionReply(transactionId:receipts:at:consented:undelivered:options:)``).
    ///
    /// - Throws: ``ConsumptionReplyError`` when the portfolio has no catalog for `app`, or the
    ///   customer has no such transaction of the app at `at`.
    public func consumptionReply(
        app: String, transactionId: String, receipts: [some ReceiptConvertible], at: Instant, consented: Bool,
        undelivered: ConsumptionReply.Undelivered? = nil, options: EvaluationOptions = .all
    ) throws(ConsumptionReplyError) -> ConsumptionReply {
        let (catalog, options) = try evaluating(app, options: options) {
            ConsumptionReplyError(message: $0.problem, help: $0.help)
        }
        let parsed = receipts.parsed
        let explanation = Explainer.explain(catalog, receipts: parsed, at: at, options: options)
        return try ConsumptionReply(
            catalog: catalog, explanation: explanation, receipts: parsed, transactionId: transactionId, consented: consented,
            undelivered: undelivered)
    }
}

extension ConsumptionReply {
    /// The reply from the explanation of the instant.
    init(
        catalog: CompiledCatalog, explanation: Explanation, receipts: [ParsedReceipt], transactionId: String, consented: Bool,
        undelivered: Undelivered?
    ) throws(ConsumptionReplyError) {
        let found = try Self.find(transactionId, in: explanation, catalog: catalog, receipts: receipts)
        let (product, transaction) = (found.product, found.transaction)
        guard product.store == .appStore || product.store == .play else {
            throw ConsumptionReplyError(
                message: "`\(transactionId)` is a purchase of \(product.store.phrase), which asks no consumption question",
                help:
                    "the App Store's consumption request and Google Play's refund review are answered; \(product.store.phrase) refunds without asking"
            )
        }
        // Delivered: it counted at the instant. An upgraded period was delivered until the upgrade.
        let delivered = transaction.counted || transaction.exclusion == .upgraded
        var percentage = 0
        var consumption: String
        var charges: [Charge] = []
        var usage: [Usage] = []
        if !delivered {
            consumption = "not delivered: \(transaction.reason)"
        } else {
            switch product.type {
            case .consumable:
                // Only Google's review lists the consumptions charged to the purchase.
                (percentage, consumption, charges, usage) = Self.consumed(
                    transaction, of: product, in: explanation, listingUsage: product.store == .play)
            case .autoRenewableSubscription, .nonRenewingSubscription:
                let span =
                    product.type == .autoRenewableSubscription
                    ? transaction.expiresDate.map { (transaction.purchaseDate, $0) }
                    : transaction.covers.flatMap { span in span.end.map { (span.start, $0) } }
                if let (start, end) = span {
                    percentage = Self.elapsed(from: start, to: end, at: explanation.at)
                    consumption = "its period \(start.rfc3339) to \(end.rfc3339), \(Self.percent(percentage)) elapsed"
                } else {
                    percentage = Self.whole
                    consumption = "delivered, with no period left to use"
                }
            case .nonConsumable:
                percentage = Self.whole
                consumption = "a non-consumable, delivered: wholly consumed"
            }
        }
        let body = Body(
            customerConsented: true, sampleContentProvided: Self.sampleContent(product, in: explanation, catalog: catalog, receipts: receipts),
            deliveryStatus: delivered ? .delivered : (undelivered ?? .other).status, consumptionPercentage: percentage,
            refundPreference: product.refundPreference?.preference(consumed: percentage))
        // Google's refund review asks for no consent: a Play purchase always gets its body.
        let answered = consented || product.store == .play
        self.init(
            app: catalog.app, at: explanation.at, transactionId: transactionId, productId: product.key,
            reason: !answered ? .noConsent : delivered ? .delivered : .notDelivered, body: answered ? body : nil,
            consumption: consumption, charges: charges, store: product.store, usage: usage,
            account: product.store == .play ? Self.account(of: transaction, receipts: receipts) : nil)
    }

    /// The account the transaction names (Play's and Stripe's `account`), from the receipt it is in.
    private static func account(of transaction: TransactionExplanation, receipts: [ParsedReceipt]) -> String? {
        guard receipts.indices.contains(transaction.receipt) else { return nil }
        let receipt = receipts[transaction.receipt]
        for record in receipt.transactions where receipt.text(record.transactionId) == transaction.transactionId {
            if receipt.store != .appStore, let account = receipt.text(record.accountToken) { return account }
        }
        return nil
    }

    /// 100%, in Apple's thousandths of a percent.
    static let whole = 100_000

    /// The product and the explanation of the transaction: the copy that counts, else the one that
    /// stands for it.
    private static func find(
        _ id: String, in explanation: Explanation, catalog: CompiledCatalog, receipts: [ParsedReceipt]
    ) throws(ConsumptionReplyError) -> (product: CatalogProduct, transaction: TransactionExplanation) {
        var candidates: [(product: String, transaction: TransactionExplanation)] = []
        for product in explanation.products {
            for transaction in product.transactions where transaction.transactionId == id { candidates.append((product.id, transaction)) }
        }
        for balance in explanation.balances {
            for source in balance.sources {
                for transaction in source.transactions where transaction.transactionId == id { candidates.append((source.productId, transaction)) }
            }
        }
        let copies: Set<TransactionExplanation.Exclusion> = [.duplicate, .superseded, .signedLater]
        guard
            let chosen = candidates.first(where: { $0.transaction.counted })
                ?? candidates.first(where: { !($0.transaction.exclusion.map(copies.contains) ?? false) })
                ?? candidates.first,
            let product = catalog.products.first(where: { $0.key == chosen.product })
        else {
            // A transaction of a product the catalog does not declare, or none at all: told the
            // same whatever the order of the receipts (the products and ids sorted).
            var ids = Set<String>()
            var products = Set<String>()
            for receipt in receipts where receipt.app == catalog.app {
                for record in receipt.transactions {
                    guard let transaction = receipt.text(record.transactionId) else { continue }
                    if transaction == id, let product = receipt.text(record.productId) { products.insert(product) }
                    ids.insert(transaction)
                }
            }
            if !products.isEmpty {
                throw ConsumptionReplyError(
                    message:
                        "transaction `\(id)` is of \(CatalogChecker.list(products.sorted())), which the catalog of \(catalog.app) does not declare")
            }
            let known = Array(ids.sorted().prefix(10_000))
            throw ConsumptionReplyError(
                message: "the customer has no transaction `\(Diagnostic.excerpt(id))` of \(catalog.app)",
                help: Suggestion.help(for: id, in: known) ?? (known.isEmpty ? "the receipts hold no transaction of the app" : nil))
        }
        if chosen.transaction.exclusion == .purchasedLater {
            throw ConsumptionReplyError(
                message: "transaction `\(id)` was bought at \(chosen.transaction.purchaseDate.rfc3339), after \(explanation.at.rfc3339)",
                help: "reply at an instant after the purchase (`--at`)")
        }
        return (product, chosen.transaction)
    }

    /// The share of a consumable's purchase spent: what was spent of each currency it credits is
    /// charged to the purchases crediting that currency in the order bought (first bought, first
    /// spent; ties by transaction id), and this purchase's part is its share of what it credits.
    private static func consumed(
        _ transaction: TransactionExplanation, of product: CatalogProduct, in explanation: Explanation, listingUsage: Bool
    ) -> (Int, String, [Charge], [Usage]) {
        var credited: Int64 = 0
        var charged: Int64 = 0
        var charges: [Charge] = []
        var usage: [Usage] = []
        // The currencies it credits: its own, or its Advanced Commerce SKUs'.
        let credits = product.credits + (product.items ?? []).flatMap(\.credits)
        for balance in explanation.balances where credits.contains(where: { $0.currency == balance.currency }) {
            var purchases: [(date: Instant, id: String, credit: Int64)] = []
            for source in balance.sources {
                for purchase in source.transactions where purchase.counted {
                    purchases.append((purchase.purchaseDate, purchase.transactionId, saturating(purchase.units ?? 0, times: source.perUnit)))
                }
            }
            purchases.sort { ($0.date, $0.id) < ($1.date, $1.id) }
            var left = balance.spent.reduce(Int64(0)) { saturating($0, plus: $1.amount) }
            // Spent in time order (ties by id), each credit of the purchases in the order bought:
            // the consumptions whose credits came from this purchase are its usage.
            let spent = listingUsage ? balance.spent.sorted(by: Self.spentFirst) : []
            var start: Int64 = 0
            var own: [(start: Int64, end: Int64)] = []
            for purchase in purchases {
                let end = saturating(start, plus: purchase.credit)
                if purchase.id == transaction.transactionId, end > start { own.append((start, end)) }
                start = end
            }
            var from: Int64 = 0
            for spending in spent {
                let to = saturating(from, plus: spending.amount)
                if own.contains(where: { from < $0.end && to > $0.start }) {
                    usage.append(Usage(id: spending.id, date: spending.date, currency: balance.currency, amount: spending.amount))
                }
                from = to
            }
            for purchase in purchases {
                let part = min(purchase.credit, max(left, 0))
                left -= part
                charges.append(
                    Charge(
                        currency: balance.currency, transactionId: purchase.id, purchaseDate: purchase.date, credited: purchase.credit, charged: part)
                )
                if purchase.id == transaction.transactionId {
                    credited = saturating(credited, plus: purchase.credit)
                    charged = saturating(charged, plus: part)
                }
            }
        }
        let percentage = credited > 0 ? thousandths(charged, of: credited) : 0
        var seen = Set<String>()
        let currencies = credits.map(\.currency).filter { seen.insert($0).inserted }.joined(separator: ", ")
        usage.sort { $0.date != $1.date ? $0.date < $1.date : $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        return (
            percentage, "\(charged) of \(credited) \(currencies) it credits spent (\(percent(percentage))), purchases charged in the order bought",
            charges, usage
        )
    }

    /// Consumptions in the order they are charged: by date, then id bytes.
    private static func spentFirst(_ a: BalanceExplanation.Spending, _ b: BalanceExplanation.Spending) -> Bool {
        a.date != b.date ? a.date < b.date : a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }

    /// The share of `start..<end` elapsed at `at`, from 0 to 100%.
    private static func elapsed(from start: Instant, to end: Instant, at: Instant) -> Int {
        let (from, to, now) = (start.millisecondsSince1970, end.millisecondsSince1970, at.millisecondsSince1970)
        guard to > from else { return whole }
        if now <= from { return 0 }
        if now >= to { return whole }
        // Both differences are positive and fit: `from < now < to`, and `to - from` would overflow
        // only for instants outside years 0001-9999, which instants are not.
        let (length, overflow) = to.subtractingReportingOverflow(from)
        guard !overflow else { return whole }
        return thousandths(now - from, of: length)
    }

    /// `part / whole` in thousandths of a percent, rounded down (`0 <= part <= whole`, `whole > 0`).
    private static func thousandths(_ part: Int64, of total: Int64) -> Int {
        let product = Int64(whole).multipliedFullWidth(by: part)
        let (quotient, _) = total.dividingFullWidth(product)
        return Int(min(max(quotient, 0), Int64(whole)))
    }

    private static func saturating(_ a: Int64, plus b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    private static func saturating(_ a: Int64, times b: Int64) -> Int64 {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? ((a < 0) != (b < 0) ? .min : .max) : product
    }

    static func percent(_ thousandths: Int) -> String { Transaction.percentageText(Int32(clamping: thousandths)) + "%" }

    /// Whether the customer could try the content first: the product says so, or the customer had
    /// a free trial or introductory offer in the product's group, or a trial of the product.
    private static func sampleContent(
        _ product: CatalogProduct, in explanation: Explanation, catalog: CompiledCatalog, receipts: [ParsedReceipt]
    ) -> Bool {
        if product.sampleContent { return true }
        // Bought by the instant, for this customer: what a customer "had".
        let notHad: Set<TransactionExplanation.Exclusion> = [.purchasedLater, .otherAccount, .signedLater, .pending, .preordered]
        func had(_ transaction: TransactionExplanation) -> Bool { transaction.exclusion.map { !notHad.contains($0) } ?? true }
        let trials = Set(catalog.products.filter { $0.trialOf == product.id && $0.store == product.store }.map(\.key))
        if explanation.products.contains(where: { trials.contains($0.id) && $0.transactions.contains(where: had) }) { return true }
        guard product.type == .autoRenewableSubscription, let group = product.group else { return false }
        let members = Set(catalog.products.filter { $0.type == .autoRenewableSubscription && $0.group == group }.map(\.key))
        var inGroup: Set<String> = []
        for item in explanation.products where members.contains(item.id) {
            for transaction in item.transactions where had(transaction) { inGroup.insert(transaction.transactionId) }
        }
        guard !inGroup.isEmpty else { return false }
        let introductory = ParsedReceipt.code(Transaction.OfferType.introductory)
        for receipt in receipts where receipt.app == catalog.app {
            for record in receipt.transactions {
                let offered = record.flags & (TransactionRecord.trialPeriod | TransactionRecord.introOfferPeriod) != 0
                if offered || record.offerType == introductory, let id = receipt.text(record.transactionId), inGroup.contains(id) { return true }
            }
        }
        return false
    }
}
