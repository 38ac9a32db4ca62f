/// The ways each product can be bought that the rules tell apart, under either catalog.
///
/// - Every product: plainly; refunded (an hour after the purchase); family-shared, when either
///   catalog makes it family-shareable (otherwise a family-shared transaction counts for nothing,
///   the same as none, which is searched).
/// - Consumables and passes: also two units; consumables also two units with half refunded.
/// - Auto-renewables: a period of each `duration` the catalogs give (one month when none does);
///   in a free trial and at an intro price (for the intro offer's duration); upgraded; with each
///   of its win-back and promotional offers (and a win-back offer of its group when it has none;
///   the offers' ways are their family's, `Families/Offers/ReceiptSpace+OfferWays.swift`);
///   paid for just as long as each of its offers' `paidAtLeast` and a millisecond less; and with a
///   renewal entry: auto-renew off, billing retry with a grace period and without, renewing to
///   another product of the group, and (in a comparison) Apple's list of eligible win-back
///   offers, empty and full. Offer conditions read the group's transactions whatever their
///   product, so a product's own offers stand for the group's; a chain's `renewsTo` is reported,
///   not read, so one other product stands for all. (`isUpgraded` is searched on
///   auto-renewables only: Apple sets it on nothing else.)
/// - Products of other stores (a receipt of their store each): also bought and not paid yet
///   (pending); on Play, never acknowledged; subscriptions also paused for 16 days at the expiry,
///   and not at an intro price nor upgraded: paid time is read by offers only, which another
///   store's group has none of, and `isUpgraded` is Apple's. A Stripe or external subscription in billing retry without a grace date gets the catalog's
///   `gracePeriod`, as evaluation gives it.
/// - Another app's receipt an upgrade requires: a purchase of each qualifying product (plain,
///   refunded, family-shared), or, for an upgrade that any receipt of the app qualifies for, a
///   receipt without a purchase.
extension ReceiptSpace {
    /// An hour: when a refunded transaction is refunded, after its purchase.
    static let refundDelay: Int64 = 3_600_000
    /// Sixteen days: how long a grace period runs past a subscription's expiry.
    static let gracePeriod: Int64 = 16 * 86_400_000
    /// A day: how long a service grant lasts.
    static let grantLength: Int64 = 86_400_000

    /// A product as one of the compared catalogs defines it.
    typealias Side = (catalog: CompiledCatalog, product: CompiledProduct, index: Int)
    /// A way of buying, and how a witness names it.
    typealias LabelledPurchase = (purchase: Purchase, label: String)

    mutating func addWays(product id: String) {
        let element = self.element(.product(id))
        let sides = self.sides(of: id)
        let shareable = sides.contains { $0.product.sharesWithFamily }
        var types: [ProductType] = []
        for side in sides where !types.contains(side.product.type) { types.append(side.product.type) }
        func add(_ purchase: Purchase, _ label: String) { addAtom(element: element, way: .purchase(purchase), label: label) }
        // What other stores have and the App Store has not: a purchase not paid yet, Play's
        // unacknowledged purchases, and (for subscriptions) a pause.
        let store = Store.split(key: id).store
        if store != .appStore {
            let expiry: Expiry? = types.contains(.autoRenewableSubscription) ? .period(subscriptionPeriods(sides)[0]) : nil
            add(Purchase(expiry: expiry, pending: true), "bought, not paid yet (pending)")
            if store == .play { add(Purchase(expiry: expiry, unacknowledged: true), "bought, never acknowledged") }
            if expiry != nil { add(Purchase(expiry: expiry, renewal: .paused), "subscribed, then paused for 16 days") }
        }
        for type in types {
            if type != .autoRenewableSubscription { add(Purchase(), "bought") }
            switch type {
            case .consumable, .nonRenewingSubscription:
                add(Purchase(quantity: 2), "2 units bought")
                add(Purchase(refund: .full), "bought, refunded an hour later")
                if type == .consumable { add(Purchase(quantity: 2, refund: .half), "2 units bought, half refunded an hour later") }
                if shareable { add(Purchase(familyShared: true), "family-shared") }
            case .nonConsumable:
                add(Purchase(refund: .full), "bought, refunded an hour later")
                if shareable { add(Purchase(familyShared: true), "family-shared") }
            case .autoRenewableSubscription:
                addSubscriptionWays(id, element: element, sides: sides, shareable: shareable)
            }
        }
    }

    private mutating func addSubscriptionWays(
        _ id: String, element: Int, sides: [Side], shareable: Bool
    ) {
        func add(_ purchase: Purchase, _ label: String) { addAtom(element: element, way: .purchase(purchase), label: label) }
        let periods = subscriptionPeriods(sides)
        let period = Expiry.period(periods[0])
        for each in periods { add(Purchase(expiry: .period(each)), "subscribed for \(each)") }
        var intro: ISODuration?
        for side in sides { intro = intro ?? side.catalog.products[side.index].introOffer?.duration }
        let introExpiry = intro.map(Expiry.period) ?? period
        add(Purchase(trialPeriod: true, expiry: introExpiry), "subscribed in a free trial")
        // Paid time (which a free trial is not and an intro price is) is read by offers only, and
        // `isUpgraded` is Apple's: another store's group has neither.
        if Store.split(key: id).store == .appStore {
            add(Purchase(introPeriod: true, expiry: introExpiry), "subscribed at an intro price")
            add(Purchase(upgraded: true, expiry: period), "subscribed, upgraded")
        }
        add(Purchase(refund: .full, expiry: period), "subscribed, refunded an hour later")
        if shareable { add(Purchase(familyShared: true, expiry: period), "family-shared") }
        for way in offerWays(sides: sides, period: period) { add(way.purchase, way.label) }
        add(Purchase(expiry: period, renewal: .autoRenewOff), "subscribed, auto-renew off")
        add(Purchase(expiry: period, renewal: .grace), "subscribed, then in billing retry with a grace period of 16 days")
        add(Purchase(expiry: period, renewal: .billingRetry), "subscribed, then in billing retry")
        // Evaluation reports the product a chain renews to, and reads nothing of it: one stands for all.
        var mate: String?
        for side in sides where side.product.group >= 0 && mate == nil {
            mate = side.catalog.compiledProducts.first { $0.group == side.product.group && $0.id != id }?.id
        }
        if let mate { add(Purchase(expiry: period, renewal: .renewsTo(mate)), "subscribed, renewing to \(mate)") }
        for way in winBackListWays(sides: sides, period: period) { add(way.purchase, way.label) }
    }

    /// The periods the catalogs give an auto-renewable (one month when none does).
    private func subscriptionPeriods(_ sides: [Side]) -> [ISODuration] {
        var periods: [ISODuration] = []
        for side in sides where side.product.type == .autoRenewableSubscription {
            if let period = side.product.period, !periods.contains(period) { periods.append(period) }
        }
        return periods.isEmpty ? [ISODuration("P1M")!] : periods
    }

    /// The receipts of another app that upgrades of either catalog read.
    mutating func addPrerequisiteWays(app required: String) {
        let element = self.element(.prerequisite(app: required))
        var products: [String] = []
        var anyReceipt = false
        for catalog in present {
            for product in catalog.compiledProducts {
                guard case .upgrade(_, let requirement) = product.role, requirement.app == required else { continue }
                if let anyOf = requirement.anyOf {
                    for id in anyOf.sorted() where !products.contains(id) { products.append(id) }
                } else {
                    anyReceipt = true
                }
            }
        }
        if anyReceipt { addAtom(element: element, way: .prerequisite(product: nil, Purchase()), label: "first bought") }
        for product in products {
            addAtom(element: element, way: .prerequisite(product: product, Purchase()), label: "\(product) bought")
            addAtom(
                element: element, way: .prerequisite(product: product, Purchase(refund: .full)), label: "\(product) bought, refunded an hour later")
            addAtom(element: element, way: .prerequisite(product: product, Purchase(familyShared: true)), label: "\(product) family-shared")
        }
    }
}

extension ISODuration {
    /// A duration of a whole number of fixed-length units as offers count it: `P90D`, `PT36H`.
    static func nominalText(_ milliseconds: Int64) -> String {
        let day = CivilCalendar.millisecondsPerDay
        if milliseconds % day == 0 { return "P\(milliseconds / day)D" }
        if milliseconds % 1_000 == 0 { return "PT\(milliseconds / 1_000)S" }
        return "PT\(Double(milliseconds) / 1_000)S"
    }
}
