/// Stripe's objects, as a web checkout leaves them (Stripe's API and webhooks), read into a
/// normalized receipt of store `stripe`: Subscriptions, Checkout Sessions, Charges, Refunds,
/// Invoices, Events around any of them, and lists of them.
///
/// - A Subscription's current period is a transaction `<subscription id>:<period start>` of its
///   chain, the subscription id, for the item's price's product (the Stripe Product id), from the
///   period's start to its end (the item's `current_period_*`; the object's before API version
///   2025-03-31). `trialing` is a free trial; `past_due` (billing retry, in the catalog's grace
///   period while it lasts) and `unpaid` (billing retry, no grace) have an unpaid current period:
///   coverage ends at its start; `paused` pauses until `pause_collection.resumes_at`;
///   `incomplete` is pending; `incomplete_expired` grants nothing; `canceled` ends at `ended_at`;
///   `cancel_at_period_end` is `willRenew: false`. `metadata.account` is the account.
/// - A paid Invoice of a subscription is a transaction for its line's period (the invoice id, of
///   the subscription's chain): a service keeping `invoice.paid` events has the whole history.
/// - A Checkout Session in `payment` mode, paid, is a purchase of each line item's product
///   (`line_items` expanded) at its `created`, named by its payment intent; `client_reference_id`
///   is the account. A Refund, or a Charge's refunds, are kept as facts (``Revocation``) about
///   the purchase sharing its payment intent, refunded at the Refund's `created` (an Event's, for
///   a `charge.refunded` event), in part when the amount paid is known and not reached: evaluation
///   applies them wherever that purchase is read.
/// - Objects in an Event are snapshots signed at the Event's `created`; bare objects carry no
///   `signedDate`. Timestamps are Unix seconds from 1970 to year 9999.
/// - A status or object type entitle does not know is a warning or an error, never a guess.
struct StripeMapper {
    var transactions: [Transaction] = []
    var renewals: [Renewal] = []
    var warnings: [ImportWarning] = []
    /// One-time purchases by payment intent, with the Session's total (to refund a share of it).
    private var purchases: [String: (indices: [Int], total: Int64?)] = [:]
    /// Charges by id, with their payment intent and amount: a Refund names its charge.
    private var charges: [String: (intent: String?, amount: Int64)] = [:]
    /// Refunds, kept as facts once everything is read.
    private var refunds: [Refund] = []
    /// The refunds, as facts about the purchases they take back.
    var revocations: [Revocation] = []
    /// The accounts Checkout Sessions in subscription mode name, by subscription.
    private var subscriptionAccounts: [String: String] = [:]
    /// The subscriptions Checkout Sessions started, with where: one read without its Subscription
    /// or a paid Invoice bought nothing the data shows.
    private var sessionSubscriptions: [(id: String, path: String)] = []

    private struct Refund {
        /// The refund's id (`re_...`), so one refund read twice (alone and in its Charge) counts once.
        var id: String?
        /// A Charge's `amount_refunded`: everything refunded so far, not one refund.
        var cumulative = false
        var intent: String?
        var charge: String?
        var amount: Int64
        var date: Instant
        var offset: Int
        var path: String
    }

    /// The `object` values entitle reads, and those it knows but skips.
    static let readTypes: Set<String> = ["subscription", "checkout.session", "charge", "refund", "invoice", "event", "list"]
    static let skippedTypes: Set<String> = ["customer", "price", "product", "plan", "subscription_item", "payment_intent", "invoiceitem"]

    /// Whether a parsed JSON value looks like Stripe's: an object whose `object` names one of its
    /// types, or an array of them.
    static func recognizes(_ root: JSONNode) -> Bool {
        switch root.value {
        case .array(let elements): return !elements.isEmpty && elements.allSatisfy(recognizes)
        case .object:
            guard case .string(let type)? = root["object"]?.value else { return false }
            return readTypes.contains(type) || skippedTypes.contains(type)
        default: return false
        }
    }

    mutating func map(_ root: JSONNode) throws(ImportFailure) {
        try map(root, path: "", signed: nil, depth: 0)
        try keepRefunds()
        for index in transactions.indices where transactions[index].account == nil {
            if let chain = transactions[index].originalTransactionId, let account = subscriptionAccounts[chain] {
                transactions[index].account = account
            }
        }
        for index in renewals.indices where renewals[index].account == nil {
            renewals[index].account = subscriptionAccounts[renewals[index].originalTransactionId]
        }
        let chains = Set(transactions.compactMap(\.originalTransactionId))
        for (subscription, path) in sessionSubscriptions where !chains.contains(subscription) {
            warnings.append(
                ImportWarning(
                    path: path,
                    message:
                        "the Checkout Session started Subscription `\(Diagnostic.excerpt(subscription))`, which is not in the data: read it, or its paid Invoices"
                ))
        }
    }

    private mutating func map(_ node: JSONNode, path: String, signed: Instant?, depth: Int) throws(ImportFailure) {
        guard depth < 8 else { throw ImportFailure(offset: node.offset, message: "Stripe data nested too deeply", path: path) }
        if let elements = node.elements {
            for (index, element) in elements.enumerated() { try map(element, path: "\(path)[\(index)]", signed: signed, depth: depth + 1) }
            return
        }
        guard node.isObject, case .string(let type)? = node["object"]?.value else {
            throw ImportFailure(offset: node.offset, message: "expected a Stripe object (with `object`)", path: path)
        }
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        switch type {
        case "list":
            guard let data = node["data"]?.elements else {
                throw ImportFailure(offset: node.offset, message: "a Stripe list without `data`", path: path)
            }
            for (index, element) in data.enumerated() { try map(element, path: join("data[\(index)]"), signed: signed, depth: depth + 1) }
        case "event":
            let created = try Self.instant(node, "created", path: path, required: true)!
            guard let object = node["data"]?["object"] else {
                throw ImportFailure(offset: node.offset, message: "a Stripe Event without `data.object`", path: path)
            }
            try map(object, path: join("data.object"), signed: created, depth: depth + 1)
        case "subscription": try subscription(node, path: path, signed: signed)
        case "checkout.session": try session(node, path: path, signed: signed)
        case "charge": try charge(node, path: path, signed: signed)
        case "refund": try refund(node, path: path, signed: signed)
        case "invoice": try invoice(node, path: path, signed: signed)
        default:
            if Self.skippedTypes.contains(type) {
                warnings.append(ImportWarning(path: path, message: "a Stripe `\(type)` holds no purchase and was skipped"))
                return
            }
            throw ImportFailure(
                offset: node["object"]!.offset, message: "a Stripe object of type `\(Diagnostic.excerpt(type))`, which entitle does not read",
                path: join("object"),
                help: "entitle reads Subscriptions, Checkout Sessions, Charges, Refunds, Invoices, Events around them, and lists of them")
        }
    }

    // MARK: Subscriptions and invoices

    private mutating func subscription(_ node: JSONNode, path: String, signed: Instant?) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        let id = try Self.string(node, "id", path: path)
        let status = try Self.string(node, "status", path: path)
        guard let items = node["items"]?["data"]?.elements, !items.isEmpty else {
            throw ImportFailure(offset: node.offset, message: "a Subscription without `items.data`", path: path)
        }
        let account = node["metadata"]?["account"]?.lenientString
        let renews = !(node["cancel_at_period_end"]?.lenientBool ?? false)
        for (index, item) in items.enumerated() {
            let itemPath = join("items.data[\(index)]")
            let product = try Self.product(of: item, path: itemPath)
            // The item's period (API 2025-03-31 on), else the subscription's.
            var start = try Self.instant(item, "current_period_start", path: itemPath)
            if start == nil { start = try Self.instant(node, "current_period_start", path: path) }
            var periodEnd = try Self.instant(item, "current_period_end", path: itemPath)
            if periodEnd == nil { periodEnd = try Self.instant(node, "current_period_end", path: path) }
            guard let start, var end = periodEnd else {
                throw ImportFailure(
                    offset: item.offset, message: "a Subscription item without `current_period_start` and `current_period_end`", path: itemPath)
            }
            guard start <= end else {
                throw ImportFailure(
                    offset: item.offset, message: "the current period ends (\(end.rfc3339)) before it starts (\(start.rfc3339))", path: itemPath)
            }
            let chain = items.count > 1 ? "\(id):\(item["id"]?.lenientString ?? String(index))" : id
            // `<chain>:<period start>`, as a paid Invoice of the period names it too.
            var transaction = Transaction(
                productId: product, transactionId: Self.periodId(chain, start), originalTransactionId: chain,
                purchaseDate: start, signedDate: signed, account: account)
            transaction.quantity = try quantity(item, path: itemPath)
            var renewal = Renewal(productId: product, originalTransactionId: chain, willRenew: renews, signedDate: signed, account: account)
            switch status {
            case "active":
                break
            case "trialing":
                transaction.isTrialPeriod = true
                transaction.offerType = .introductory
            case "past_due":
                // Stripe moved to the next period before charging it: that period is unpaid.
                end = start
                renewal.isInBillingRetry = true
            case "unpaid":
                end = start
                renewal.isInBillingRetry = true
                renewal.gracePeriodExpiresDate = start
            case "paused":
                end = start
                renewal.pausedUntil =
                    try Self.instant(node["pause_collection"] ?? node, "resumes_at", path: join("pause_collection")) ?? Instant.latest
            case "incomplete":
                transaction.pending = true
            case "incomplete_expired":
                warnings.append(
                    ImportWarning(path: join("status"), message: "`incomplete_expired`: the first payment never succeeded; nothing was bought"))
                continue
            case "canceled":
                if let ended = try Self.instant(node, "ended_at", path: path), ended < end { end = max(ended, start) }
                renewal.willRenew = false
            default:
                warnings.append(
                    ImportWarning(path: join("status"), message: "unknown Subscription status `\(Diagnostic.excerpt(status))`, nothing read"))
                continue
            }
            transaction.expiresDate = end
            transactions.append(transaction)
            renewals.append(renewal)
        }
    }

    private mutating func invoice(_ node: JSONNode, path: String, signed: Instant?) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        let id = try Self.string(node, "id", path: path)
        let paid = node["status"]?.lenientString == "paid" || node["paid"]?.lenientBool == true
        guard paid else {
            warnings.append(ImportWarning(path: join("status"), message: "an Invoice not paid changes nothing"))
            return
        }
        let lines = node["lines"]?["data"]?.elements ?? []
        let invoiceSubscription =
            node["parent"]?["subscription_details"]?["subscription"]?.lenientString ?? node["subscription"]?.lenientString
        let account = node["parent"]?["subscription_details"]?["metadata"]?["account"]?.lenientString
        var read = 0
        for (index, line) in lines.enumerated() {
            let linePath = join("lines.data[\(index)]")
            guard
                let subscription = line["parent"]?["subscription_item_details"]?["subscription"]?.lenientString
                    ?? line["subscription"]?.lenientString ?? invoiceSubscription
            else { continue }
            guard let period = line["period"] else {
                throw ImportFailure(offset: line.offset, message: "an Invoice line without `period`", path: linePath)
            }
            let product = try Self.product(of: line, path: linePath)
            let start = try Self.instant(period, "start", path: linePath + ".period", required: true)!
            let end = try Self.instant(period, "end", path: linePath + ".period", required: true)!
            guard start <= end else {
                throw ImportFailure(
                    offset: period.offset, message: "the period ends (\(end.rfc3339)) before it starts (\(start.rfc3339))", path: linePath + ".period"
                )
            }
            var transaction = Transaction(
                productId: product, transactionId: lines.count > 1 ? "\(id):\(index)" : id, originalTransactionId: subscription,
                purchaseDate: start, expiresDate: end, signedDate: signed, account: account)
            transaction.quantity = try quantity(line, path: linePath)
            transactions.append(transaction)
            read += 1
        }
        if read == 0 { warnings.append(ImportWarning(path: path, message: "an Invoice with no subscription line changes nothing")) }
    }

    // MARK: One-time purchases and refunds

    private mutating func session(_ node: JSONNode, path: String, signed: Instant?) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        let id = try Self.string(node, "id", path: path)
        let mode = node["mode"]?.lenientString ?? "payment"
        let account = node["client_reference_id"]?.lenientString
        guard mode == "payment" else {
            if mode == "subscription", let subscription = Self.id(node["subscription"]) {
                if let account { subscriptionAccounts[subscription] = account }
                sessionSubscriptions.append((subscription, join("mode")))
            } else {
                warnings.append(
                    ImportWarning(path: join("mode"), message: "a Checkout Session in `\(Diagnostic.excerpt(mode))` mode buys nothing"))
            }
            return
        }
        let paymentStatus = node["payment_status"]?.lenientString ?? "unpaid"
        let status = node["status"]?.lenientString ?? "complete"
        guard status == "complete" else {
            warnings.append(
                ImportWarning(path: join("status"), message: "a Checkout Session not complete (`\(Diagnostic.excerpt(status))`) buys nothing"))
            return
        }
        guard let lines = node["line_items"]?["data"]?.elements else {
            throw ImportFailure(
                offset: node.offset, message: "a Checkout Session without `line_items`", path: path,
                help: "retrieve it with `expand[]=line_items`, as a webhook handler does, so its products are known")
        }
        let created = try Self.instant(node, "created", path: path, required: true)!
        let intent = Self.id(node["payment_intent"])
        var indices: [Int] = []
        for (index, line) in lines.enumerated() {
            let linePath = join("line_items.data[\(index)]")
            var purchase = Transaction(
                productId: try Self.product(of: line, path: linePath),
                transactionId: (intent ?? id) + (lines.count > 1 ? ":\(index)" : ""), purchaseDate: created, signedDate: signed,
                account: account)
            purchase.quantity = try quantity(line, path: linePath)
            // Paid later (a bank transfer): bought, not paid yet.
            if paymentStatus == "unpaid" { purchase.pending = true }
            indices.append(transactions.count)
            transactions.append(purchase)
        }
        if let intent {
            purchases[intent, default: ([], nil)].indices += indices
            if let total = node["amount_total"]?.lenientInteger { purchases[intent]!.total = total }
        }
    }

    private mutating func charge(_ node: JSONNode, path: String, signed: Instant?) throws(ImportFailure) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        let id = try Self.string(node, "id", path: path)
        let intent = Self.id(node["payment_intent"])
        charges[id] = (intent, max(0, node["amount"]?.lenientInteger ?? 0))
        let refunded = max(0, node["amount_refunded"]?.lenientInteger ?? 0)
        guard refunded > 0 else { return }
        // Its refunds, each dated, when the Charge lists them; else one refund of the amount
        // refunded, dated by the `charge.refunded` Event around it.
        let listed = node["refunds"]?["data"]?.elements ?? []
        if !listed.isEmpty {
            for (index, refund) in listed.enumerated() {
                try self.refund(refund, path: join("refunds.data[\(index)]"), signed: nil, charge: id, intent: intent)
            }
            return
        }
        guard let signed else {
            throw ImportFailure(
                offset: node.offset, message: "a refunded Charge without its refunds' dates", path: path,
                help: "give the Refunds, or the `charge.refunded` Event, which date the refund")
        }
        refunds.append(
            Refund(id: nil, cumulative: true, intent: intent, charge: id, amount: refunded, date: signed, offset: node.offset, path: path))
    }

    private mutating func refund(
        _ node: JSONNode, path: String, signed: Instant?, charge: String? = nil, intent: String? = nil
    ) throws(ImportFailure) {
        let status = node["status"]?.lenientString ?? "succeeded"
        guard status == "succeeded" else {
            warnings.append(ImportWarning(path: path, message: "a Refund `\(Diagnostic.excerpt(status))` takes nothing back yet"))
            return
        }
        let created = try Self.instant(node, "created", path: path, required: signed == nil)
        refunds.append(
            Refund(
                id: Self.id(node["id"]), intent: Self.id(node["payment_intent"]) ?? intent, charge: Self.id(node["charge"]) ?? charge,
                amount: max(0, node["amount"]?.lenientInteger ?? 0), date: created ?? signed!, offset: node.offset, path: path))
    }

    /// Each refund as a fact about the purchases its payment intent paid for (``Revocation``),
    /// with what the payment charged when the data says (its Charge's `amount`, else its Checkout
    /// Session's `amount_total`): evaluation applies it to those purchases wherever they are read
    /// (``RevocationFacts``), so a refund may come before or after its purchase, or in another
    /// file. One refund read twice (alone and in its Charge) is one fact.
    private mutating func keepRefunds() throws(ImportFailure) {
        var byId: [String: Int] = [:]
        var firstPath: [String: String] = [:]
        for refund in refunds {
            // Its payment intent; a Refund of a Charge the data does not hold names only the Charge.
            guard let intent = refund.intent ?? refund.charge.flatMap({ charges[$0]?.intent }) ?? refund.charge else {
                throw ImportFailure(
                    offset: refund.offset, message: "a refund that names neither its payment intent nor its Charge", path: refund.path,
                    help: "give the Refund with its `payment_intent`, or together with its Charge")
            }
            let paid = (refund.charge.flatMap { charges[$0]?.amount } ?? purchases[intent]?.total).map {
                min(max($0, 0), ReceiptLimits.maxRefundAmount)
            }
            let amount = min(refund.amount, ReceiptLimits.maxRefundAmount)
            var fact = Revocation(
                transactionId: intent, date: refund.date, amount: refund.cumulative ? nil : amount,
                amountRefunded: refund.cumulative ? amount : nil, amountPaid: paid, id: refund.cumulative ? nil : refund.id)
            if firstPath[intent] == nil { firstPath[intent] = refund.path }
            if let id = fact.id, let index = byId[id] {
                let kept = revocations[index]
                fact.amountPaid = [kept.amountPaid, fact.amountPaid].compactMap { $0 }.max()
                fact.amount = max(kept.amount ?? 0, amount)
                fact.date = min(kept.date, fact.date)
                revocations[index] = fact
                continue
            }
            if let id = fact.id { byId[id] = revocations.count }
            revocations.append(fact)
        }
        var byIntent: [String: Set<Revocation>] = [:]
        for fact in revocations { byIntent[fact.transactionId, default: []].insert(fact) }
        for intent in byIntent.keys.sorted() {
            guard let tally = RevocationFacts.slices(byIntent[intent]!).last?.tally, let path = firstPath[intent] else { continue }
            if let paid = tally.paid, tally.refunded > paid {
                warnings.append(
                    ImportWarning(
                        path: path,
                        message:
                            "the refunds of payment `\(Diagnostic.excerpt(intent))` add up to \(tally.refunded), more than the \(paid) paid: read as a full refund"
                    ))
            } else if tally.paid == nil {
                warnings.append(
                    ImportWarning(
                        path: path,
                        message:
                            "what payment `\(Diagnostic.excerpt(intent))` charged is not in the data: its refunds take back the whole purchase; read them with the Charge or the Checkout Session to count a partial refund in part"
                    ))
            }
        }
    }

    // MARK: Values

    /// A line's or item's `quantity`: 1 when absent; a whole number 1 to
    /// ``ReceiptLimits/maxQuantity``, else a located error. Stripe allows a subscription item of
    /// quantity 0 (a seat plan with no seats yet): read as 1, with a warning, since the
    /// subscription itself is paid for.
    private mutating func quantity(_ node: JSONNode, path: String) throws(ImportFailure) -> Int {
        guard let value = node["quantity"], !value.isNull else { return 1 }
        let place = path.isEmpty ? "quantity" : "\(path).quantity"
        guard let quantity = value.lenientInteger else {
            throw ImportFailure(offset: value.offset, message: "`quantity` is not a whole number", path: place)
        }
        if quantity == 0 {
            warnings.append(ImportWarning(path: place, message: "quantity 0 is read as 1: the subscription itself is paid for"))
            return 1
        }
        guard (1...Int64(ReceiptLimits.maxQuantity)).contains(quantity) else {
            throw ImportFailure(
                offset: value.offset, message: "quantity \(quantity) is outside 1 to \(ReceiptLimits.maxQuantity)", path: place,
                help: "a purchase's quantity is read as a receipt's: at most \(ReceiptLimits.maxQuantity) units")
        }
        return Int(quantity)
    }

    /// A subscription period's transaction id: `<subscription>:<period start in Unix seconds>`.
    private static func periodId(_ chain: String, _ start: Instant) -> String {
        "\(chain):\(start.millisecondsSince1970 / 1_000)"
    }

    /// A product id from a line or item: its price's product (a string or an expanded object), or
    /// the pricing details' of newer invoices.
    private static func product(of node: JSONNode, path: String) throws(ImportFailure) -> String {
        if let product = id(node["price"]?["product"]) ?? id(node["pricing"]?["price_details"]?["product"]) ?? id(node["plan"]?["product"]) {
            return product
        }
        throw ImportFailure(
            offset: node.offset, message: "no product: expected `price.product`", path: path,
            help: "the catalog names a Stripe product by its Product id, `prod_...`")
    }

    /// An id: a string, or an expanded object's `id`.
    private static func id(_ node: JSONNode?) -> String? {
        guard let node else { return nil }
        if case .string(let text) = node.value { return text.isEmpty ? nil : text }
        if case .string(let text)? = node["id"]?.value { return text.isEmpty ? nil : text }
        return nil
    }

    private static func string(_ node: JSONNode, _ key: String, path: String) throws(ImportFailure) -> String {
        guard case .string(let text)? = node[key]?.value, !text.isEmpty else {
            throw ImportFailure(offset: node.offset, message: "missing `\(key)`", path: path)
        }
        return text
    }

    /// A Unix timestamp in seconds; `nil` when absent or `null` (an error when `required`).
    private static func instant(_ node: JSONNode, _ key: String, path: String, required: Bool = false) throws(ImportFailure) -> Instant? {
        let memberPath = path.isEmpty ? key : "\(path).\(key)"
        guard let value = node[key], !value.isNull else {
            if required { throw ImportFailure(offset: node.offset, message: "missing `\(key)`", path: path) }
            return nil
        }
        guard let seconds = value.lenientInteger else {
            throw ImportFailure(offset: value.offset, message: "`\(key)` is not a Unix timestamp in seconds", path: memberPath)
        }
        guard seconds >= 0 else {
            throw ImportFailure(
                offset: value.offset, message: "`\(key)` \(seconds) is negative", path: memberPath,
                help: "Stripe's timestamps are Unix seconds since 1970")
        }
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        guard !overflow, let instant = Instant(checkedMilliseconds: milliseconds) else {
            throw ImportFailure(
                offset: value.offset, message: "`\(key)` \(seconds) is outside years 0001-9999", path: memberPath,
                help: "Stripe's timestamps are Unix seconds")
        }
        return instant
    }
}
