/// The ways each product can be bought that the rules tell apart, under either catalog.
///
/// - Every product: plainly; refunded (an hour after the purchase); family-shared, when either
///   catalog makes it family-shareable (otherwise a family-shared transaction counts for nothing,
///   the same as none, which is searched).
/// - Consumables and passes: also two units; consumables also two units with half refunded.
/// - Auto-renewables: a period of each `duration` the catalogs give (one month when none does);
///   in a free trial and at an intro price (for the intro offer's duration); upgraded; with each
///   of its win-back and promotional offers (and a win-back offer of its group when it has none);
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
        _ id: String, element: Int, sides: [(catalog: CompiledCatalog, product: CompiledProduct, index: Int)], shareable: Bool
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
        // The product's own offers under either catalog, and a win-back offer of its group when it
        // has none itself (group facts count any product's redemptions, so one product's stand for
        // the group's: the rules read the group, not which product was bought).
        var mates: [String] = []
        var offers: [(type: SubscriptionOfferType, id: String)] = []
        var groupWinBack: String?
        var paid: [Int64] = []
        for side in sides where side.product.group >= 0 {
            let catalog = side.catalog
            for product in catalog.compiledProducts where product.group == side.product.group {
                if product.id != id, !mates.contains(product.id) { mates.append(product.id) }
            }
            for item in catalog.offers(inGroup: Int32(side.product.group)) where item.offer.type == .winBack {
                groupWinBack = groupWinBack ?? item.offer.id
            }
            for offer in side.product.offers {
                if !offers.contains(where: { $0.id == offer.id && $0.type == offer.type }) { offers.append((offer.type, offer.id)) }
                if let needed = offer.paidAtLeast?.nominalMilliseconds, needed > 1, !paid.contains(needed) { paid.append(needed) }
                // Paid exactly the most holds; a millisecond more does not.
                if let most = offer.paidAtMost?.nominalMilliseconds, most < Int64.max - 1, !paid.contains(most &+ 1) { paid.append(most &+ 1) }
            }
        }
        if let groupWinBack, !offers.contains(where: { $0.type == .winBack }) { offers.append((.winBack, groupWinBack)) }
        for offer in offers {
            let type: Transaction.OfferType = offer.type == .winBack ? .winBack : .promotional
            add(Purchase(offerType: type, offerId: offer.id, expiry: period), "subscribed with \(offer.type.rawValue) offer \(offer.id)")
        }
        for needed in paid.sorted() {
            let length = ISODuration.nominalText(needed)
            add(Purchase(expiry: .milliseconds(needed)), "paid for \(length)")
            add(Purchase(expiry: .milliseconds(needed - 1)), "paid for \(length) less a millisecond")
        }
        add(Purchase(expiry: period, renewal: .autoRenewOff), "subscribed, auto-renew off")
        add(Purchase(expiry: period, renewal: .grace), "subscribed, then in billing retry with a grace period of 16 days")
        add(Purchase(expiry: period, renewal: .billingRetry), "subscribed, then in billing retry")
        // Evaluation reports the product a chain renews to, and reads nothing of it: one stands for all.
        if let mate = mates.first { add(Purchase(expiry: period, renewal: .renewsTo(mate)), "subscribed, renewing to \(mate)") }
        // Apple's list decides a win-back offer over the catalog's conditions; a review asks what
        // the conditions allow, so only a comparison searches the list.
        let winBack = offers.filter { $0.type == .winBack }.map(\.id)
        if !winBack.isEmpty, includesGrants {
            add(Purchase(expiry: period, renewal: .winBackList([])), "subscribed, Apple lists no win-back offer")
            add(
                Purchase(expiry: period, renewal: .winBackList(winBack)), "subscribed, Apple lists win-back offers \(winBack.joined(separator: ", "))"
            )
        }
    }

    /// The periods the catalogs give an auto-renewable (one month when none does).
    private func subscriptionPeriods(_ sides: [(catalog: CompiledCatalog, product: CompiledProduct, index: Int)]) -> [ISODuration] {
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
