/// One part of an answer as a proof compares it, read from a result through its public views.
///
/// Compared: a feature's `enabled` and `until`; a balance; a product's state, `until`,
/// `startsAt`, `willRenew`, `renewsTo` and commitment (not its type: that is the catalog's, and
/// `entitle diff` lists it); an offer's eligibility, reason, intro offer, level change and when
/// it takes effect (not its legal text, nor `adds` and `extends`, which follow from the features);
/// a win-back or promotional offer's eligibility and reason.
enum ItemValue: Hashable, Sendable {
    case feature(enabled: Bool, until: Int64?)
    case balance(Int64)
    case limit(LimitValue)
    case product(ProductStatus)
    case offer(eligible: Bool, reason: OfferReason?, intro: Bool?, change: SubscriptionChange?, effective: ChangeTiming?)
    case promotion(eligible: Bool, reason: PromotionReason)

    /// The value of `item` in the reader's result; `nil` when the result's catalog does not have it.
    static func read(_ item: ProofItem, in reader: inout ResultReader) -> ItemValue? {
        let result = reader.result
        switch item.kind {
        case .feature:
            return result.coverage(of: item.id).map { .feature(enabled: $0.enabled, until: $0.until?.millisecondsSince1970) }
        case .balance:
            return result.balance(of: item.id).map(ItemValue.balance)
        case .limit:
            return result.limit(item.id).map { .limit($0.value) }
        case .product:
            guard var status = result.product(item.id) else { return nil }
            status.type = .nonConsumable
            return .product(status)
        case .offer:
            return reader.decision(of: item.id).map {
                .offer(
                    eligible: $0.reason == nil, reason: $0.reason, intro: $0.introOfferEligible, change: $0.change?.0,
                    effective: $0.change?.1)
            }
        case .promotion:
            guard let product = item.product,
                let promotion = reader.decision(of: product)?.promotions?.first(where: { $0.offer.id == item.id })
            else { return nil }
            return .promotion(eligible: promotion.decision.eligible, reason: promotion.decision.reason)
        }
    }

    /// Which way the answer moved from `old` to `new`, or `nil` when it did not; a side without
    /// the item reads as a feature off, a zero balance, a product never bought.
    static func direction(_ kind: ProofItem.Kind, old: ItemValue?, new: ItemValue?) -> ProofVerdict? {
        guard old != new else { return nil }
        switch kind {
        case .feature:
            let before = old?.isOn ?? false
            let after = new?.isOn ?? false
            if before != after { return after ? .more : .less }
            return old == nil || new == nil ? nil : .changed
        case .balance:
            let before = old?.amount ?? 0
            let after = new?.amount ?? 0
            return before == after ? nil : after > before ? .more : .less
        case .limit:
            let before = old?.limitValue ?? .count(0)
            let after = new?.limitValue ?? .count(0)
            return before == after ? nil : after > before ? .more : .less
        case .product:
            let before = old?.covers ?? false
            let after = new?.covers ?? false
            if before != after { return after ? .more : .less }
            let neverBought = { (value: ItemValue?) in value == nil || value?.state == .notPurchased }
            return neverBought(old) && neverBought(new) ? nil : .changed
        case .offer, .promotion:
            guard let old, let new else { return nil }
            let before = old.isEligible
            let after = new.isEligible
            if before != after { return after ? .more : .less }
            return .changed
        }
    }

    /// Whether a move in `direction` of an item of `kind` takes something from the customer: a
    /// feature turned off, a lower balance.
    static func isLoss(_ kind: ProofItem.Kind, _ direction: ProofVerdict) -> Bool {
        direction == .less && (kind == .feature || kind == .balance || kind == .limit)
    }

    private var isOn: Bool { if case .feature(let enabled, _) = self { enabled } else { false } }
    private var amount: Int64 { if case .balance(let value) = self { value } else { 0 } }
    private var limitValue: LimitValue? { if case .limit(let value) = self { value } else { nil } }
    private var state: ProductState? { if case .product(let status) = self { status.state } else { nil } }
    private var covers: Bool { state?.covers ?? false }
    private var isEligible: Bool {
        switch self {
        case .offer(let eligible, _, _, _, _), .promotion(let eligible, _): eligible
        case .feature, .balance, .limit, .product: false
        }
    }

    /// The value as `check` words it: `on until 2026-03-01T00:00:00Z`, `off`, `13`, `active until
    /// ...`, `offer`, `do not offer (owned)`.
    var text: String {
        func until(_ value: Int64?) -> String { value.map { "until \(Instant(millisecondsSince1970: $0).rfc3339)" } ?? "with no end" }
        switch self {
        case .feature(let enabled, let end):
            return enabled ? "on \(until(end))" : "off"
        case .balance(let value):
            return String(value)
        case .limit(let value):
            return value.description
        case .product(let status):
            var text = status.state.rawValue
            if status.state.covers { text += " " + until(status.until?.millisecondsSince1970) }
            if let startsAt = status.startsAt { text += " from \(startsAt.rfc3339)" }
            if let renewsTo = status.renewsTo {
                text += ", renews to \(renewsTo)"
            } else if let willRenew = status.willRenew {
                text += willRenew ? ", renews" : ", does not renew"
            }
            if let commitment = status.commitment { text += ", period \(commitment.period) of \(commitment.periods)" }
            return text
        case .offer(let eligible, let reason, let intro, let change, let effective):
            var text = eligible ? "offer" : "do not offer (\(reason?.rawValue ?? ""))"
            if let change { text += ", \(change.rawValue) \(effective?.rawValue ?? "")" }
            if let intro { text += ", " + Offer.introPhrase(eligible: intro, reason: reason) }
            return text
        case .promotion(let eligible, let reason):
            return eligible ? "offer (\(reason.rawValue))" : "do not offer (\(reason.rawValue))"
        }
    }

    /// How `text` reads for a side without the item.
    static func text(_ value: ItemValue?) -> String { value?.text ?? "(not in the catalog)" }
}
