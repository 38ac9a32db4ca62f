import Foundation

extension Explanation {
    /// Every feature, one line each, with the source that decides it and why.
    public var text: String {
        var lines = ["features"]
        let width = features.map(\.id.count).max() ?? 0
        let stateWidth = features.map { Self.state($0).count }.max() ?? 0
        for feature in features {
            var line = "  " + Self.pad(feature.id, width) + "  " + Self.pad(Self.state(feature), stateWidth)
            if let id = feature.decidedBy, let source = feature.sources.first(where: { $0.id == id }) {
                line += "  \(id): \(source.reason)"
            } else {
                line += "  " + (feature.sources.isEmpty ? "nothing can grant it" : "no source ever covered it")
            }
            lines.append(line)
        }
        if !balances.isEmpty {
            lines += ["", "balances"]
            let currencyWidth = balances.map(\.currency.count).max() ?? 0
            let balanceWidth = balances.map { String($0.balance).count }.max() ?? 0
            for balance in balances {
                // A purchase of several Advanced Commerce SKUs is under each of their sources: counted once.
                let counted = Set(balance.sources.flatMap { $0.transactions.filter(\.counted).map(\.transactionId) }).count
                let source =
                    balance.sources.isEmpty
                    ? "nothing in the catalog credits it"
                    : counted == 0
                        ? "no purchase counts"
                        : "\(counted) purchase\(counted == 1 ? "" : "s") of "
                            + balance.sources.filter { $0.transactions.contains(where: \.counted) }.map(\.name).joined(separator: ", ")
                lines.append(
                    "  " + Self.pad(balance.currency, currencyWidth) + "  "
                        + String(repeating: " ", count: balanceWidth - String(balance.balance).count) + "\(balance.balance)  " + source)
            }
        }
        return page(lines)
    }

    /// One currency: its balance, then each consumable crediting it with its transactions.
    public func text(balance currency: String) -> String? {
        guard let balance = balance(currency) else { return nil }
        var lines = ["balance \(balance.currency): \(balance.balance)"]
        if balance.sources.isEmpty { lines.append("  no product in the catalog credits it") }
        for source in balance.sources {
            lines.append("  \(source.name)  \(source.perUnit) per unit")
            if source.transactions.isEmpty { lines.append("      no transaction of this product") }
            let width = source.transactions.map(\.transactionId.count).max() ?? 0
            for transaction in source.transactions {
                lines.append(
                    "      " + Self.pad(transaction.transactionId, width)
                        + "  receipt \(transaction.receipt)  bought \(transaction.purchaseDate.rfc3339)  " + transaction.reason)
            }
        }
        if !balance.spent.isEmpty {
            let total = balance.spent.reduce(Int64(0)) { $0.addingReportingOverflow($1.amount).partialValue }
            lines.append("  spent \(total) in \(balance.spent.count) consumption\(balance.spent.count == 1 ? "" : "s")")
            let width = balance.spent.map(\.id.count).max() ?? 0
            for spending in balance.spent.prefix(1_000) {
                lines.append("      " + Self.pad(spending.id, width) + "  receipt \(spending.receipt)  \(spending.date.rfc3339)  \(spending.amount)")
            }
            if balance.spent.count > 1_000 { lines.append("      and \(balance.spent.count - 1_000) more") }
        }
        return page(lines)
    }

    /// One feature: its state, then every source that can grant it, down to each transaction.
    public func text(feature id: String) -> String? {
        guard let feature = feature(id) else { return nil }
        var title = "feature \(feature.id): \(Self.state(feature))"
        if let id = feature.decidedBy, let source = feature.sources.first(where: { $0.id == id }) {
            if feature.enabled {
                title += " (from \(id))"
            } else if let ended = source.ended {
                title += " (last covered by \(id) until \(ended.rfc3339))"
            }
        }
        var lines = [title]
        if feature.sources.isEmpty { lines.append("  nothing in the catalog or the receipts can grant it") }
        let width = feature.sources.map(\.id.count).max() ?? 0
        let stateWidth = feature.sources.map(\.state.count).max() ?? 0
        for source in feature.sources {
            lines.append("  " + Self.pad(source.id, width) + "  " + Self.pad(source.state, stateWidth) + "  " + source.reason)
            if source.kind == .product, let product = product(source.id) {
                lines += Self.details(product, indent: "      ")
            }
        }
        return page(lines)
    }

    /// One product: its state and why, its coverage, transactions and renewal entries.
    public func text(product id: String) -> String? {
        guard let product = product(id) else { return nil }
        var line = "product \(product.id): \(product.state.rawValue)"
        if let until = product.until { line += " until \(until.rfc3339)" }
        if let startsAt = product.startsAt { line += " from \(startsAt.rfc3339)" }
        if let willRenew = product.willRenew { line += willRenew ? ", renews" : ", will not renew" }
        if let renewsTo = product.renewsTo { line += " (to \(renewsTo))" }
        return page([line, "  " + product.reason] + Self.details(product, indent: "  "))
    }

    /// One offer: the decision and the fact behind it.
    public func text(offer productId: String) -> String? {
        guard let offer = offer(productId) else { return nil }
        var line = "offer \(offer.productId): " + (offer.eligible ? "offer" : "do not offer (\(offer.reason?.rawValue ?? ""))")
        if let change = offer.change {
            line += ", \(change.rawValue) (\(offer.effective == .immediately ? "immediately" : "at the next renewal"))"
        }
        if let intro = offer.introOfferEligible { line += ", " + Offer.introPhrase(eligible: intro, reason: offer.reason) }
        var lines = [line, "  " + offer.because]
        if !offer.adds.isEmpty { lines.append("  buying it adds " + offer.adds.joined(separator: ", ")) }
        if !offer.extends.isEmpty { lines.append("  buying it extends " + offer.extends.joined(separator: ", ")) }
        for promotion in offer.promotions ?? [] {
            lines.append(
                "  \(promotion.type.rawValue) \(promotion.id): " + (promotion.eligible ? "offer" : "do not offer")
                    + " (\(promotion.reason.rawValue)): \(promotion.because)")
        }
        return page(lines)
    }

    /// A text output: the app and the instant, `lines`, then the receipts ignored.
    func page(_ lines: [String]) -> String {
        (["\(app) at \(at.rfc3339)", ""] + consentLines + lines + ignoredLines).textOutput
    }

    private var consentLines: [String] {
        guard let consentRescinded else { return [] }
        return [
            "consent rescinded at \(consentRescinded.rfc3339) (Apple's RESCIND_CONSENT): no feature is on and nothing is offered; "
                + "purchases and balances stand", "",
        ]
    }

    private var ignoredLines: [String] {
        ignoredReceipts.isEmpty ? [] : [""] + ignoredReceipts.map { "receipt \($0.receipt) (\($0.app)) ignored: \($0.reason)" }
    }

    private static func state(_ feature: FeatureExplanation) -> String {
        feature.enabled ? "on " + (feature.until.map { "until \($0.rfc3339)" } ?? "with no end") : "off"
    }

    /// A product's coverage, transactions and renewal entries, indented.
    private static func details(_ product: ProductExplanation, indent: String) -> [String] {
        var lines: [String] = []
        if !product.coverage.isEmpty {
            lines.append(indent + "coverage")
            for span in product.coverage {
                lines.append(
                    indent + "  [\(span.start.rfc3339), \(span.end?.rfc3339 ?? "no end"))" + (span.grace ? " grace" : "")
                        + (span.refunded ? " refunded" : ""))
            }
        }
        if !product.transactions.isEmpty {
            lines.append(indent + "transactions")
            let width = product.transactions.map(\.transactionId.count).max() ?? 0
            for transaction in product.transactions {
                lines.append(
                    indent + "  " + pad(transaction.transactionId, width)
                        + "  receipt \(transaction.receipt)  bought \(transaction.purchaseDate.rfc3339)  " + transaction.reason)
            }
        }
        if !product.renewals.isEmpty {
            lines.append(indent + "renewal entries")
            for renewal in product.renewals {
                lines.append(
                    indent + "  chain \(renewal.originalTransactionId)  receipt \(renewal.receipt)"
                        + (renewal.signedDate.map { "  signed \($0.rfc3339)" } ?? "") + "  " + renewal.reason)
            }
        }
        return lines
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// The explanation as one line of JSON (the Codable form, keys sorted).
    public var json: String { Self.encode(self) }

    /// Encodes a part of an explanation as one line of JSON, keys sorted.
    static func encode<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// One feature, product, offer or balance of the explanation as JSON: `{"app", "at",
    /// "feature": {...}, "products": [...]}` (a feature comes with its source products), `{"app",
    /// "at", "product"}`, `{"app", "at", "offer"}` or `{"app", "at", "balance"}`; `nil` when the id
    /// is not in the catalog.
    public func json(
        feature id: String? = nil, product productId: String? = nil, offer offerId: String? = nil, balance currency: String? = nil
    ) -> String? {
        struct Selected: Encodable {
            var app: String
            var at: Instant
            var feature: FeatureExplanation?
            var product: ProductExplanation?
            var offer: OfferExplanation?
            var balance: BalanceExplanation?
            /// For a feature, the products among its sources, down to each transaction.
            var products: [ProductExplanation]?
            var ignoredReceipts: [IgnoredReceipt]
            var consentRescinded: Instant?
        }
        var selected = Selected(app: app, at: at, ignoredReceipts: ignoredReceipts, consentRescinded: consentRescinded)
        if let id {
            guard let feature = feature(id) else { return nil }
            selected.feature = feature
            selected.products = feature.sources.filter { $0.kind == .product }.compactMap { product($0.id) }
        }
        if let productId {
            guard let product = product(productId) else { return nil }
            selected.product = product
        }
        if let offerId {
            guard let offer = offer(offerId) else { return nil }
            selected.offer = offer
        }
        if let currency {
            guard let balance = balance(currency) else { return nil }
            selected.balance = balance
        }
        return Self.encode(selected)
    }
}
