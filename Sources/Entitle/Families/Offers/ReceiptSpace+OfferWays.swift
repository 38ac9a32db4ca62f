/// The ways of buying an auto-renewable that win-back and promotional offers tell apart, for
/// `diff --prove` and `validate --deep` (``ReceiptSpace``'s subscription ways call these in their
/// place among the others).
///
/// Offer conditions read the group's transactions whatever their product, so a product's own
/// offers stand for the group's: the rules read the group, not which product was bought.
extension ReceiptSpace {
    /// A purchase with each of the product's win-back and promotional offers under either catalog
    /// (and with a win-back offer of its group when it has none itself), then paid for just as long
    /// as each offer's `paidAtLeast` and a millisecond less, and a millisecond longer than each
    /// `paidAtMost`.
    func offerWays(sides: [Side], period: Expiry) -> [LabelledPurchase] {
        var ways: [LabelledPurchase] = []
        var paid: [Int64] = []
        for side in sides where side.product.group >= 0 {
            for offer in side.product.offers {
                if let needed = offer.paidAtLeast?.nominalMilliseconds, needed > 1, !paid.contains(needed) { paid.append(needed) }
                // Paid exactly the most holds; a millisecond more does not.
                if let most = offer.paidAtMost?.nominalMilliseconds, most < Int64.max - 1, !paid.contains(most &+ 1) { paid.append(most &+ 1) }
            }
        }
        for offer in redeemedOffers(sides) {
            let type: Transaction.OfferType = offer.type == .winBack ? .winBack : .promotional
            ways.append((Purchase(offerType: type, offerId: offer.id, expiry: period), "subscribed with \(offer.type.rawValue) offer \(offer.id)"))
        }
        for needed in paid.sorted() {
            let length = ISODuration.nominalText(needed)
            ways.append((Purchase(expiry: .milliseconds(needed)), "paid for \(length)"))
            ways.append((Purchase(expiry: .milliseconds(needed - 1)), "paid for \(length) less a millisecond"))
        }
        return ways
    }

    /// Apple's list of eligible win-back offers, empty and full. The list decides a win-back offer
    /// over the catalog's conditions; a review asks what the conditions allow, so only a comparison
    /// searches it.
    func winBackListWays(sides: [Side], period: Expiry) -> [LabelledPurchase] {
        let winBack = redeemedOffers(sides).filter { $0.type == .winBack }.map(\.id)
        guard !winBack.isEmpty, includesGrants else { return [] }
        return [
            (Purchase(expiry: period, renewal: .winBackList([])), "subscribed, Apple lists no win-back offer"),
            (Purchase(expiry: period, renewal: .winBackList(winBack)), "subscribed, Apple lists win-back offers \(winBack.joined(separator: ", "))"),
        ]
    }

    /// The offers a purchase of the product redeems in the search: its own under either catalog,
    /// and its group's first win-back offer when it has none of its own.
    private func redeemedOffers(_ sides: [Side]) -> [(type: SubscriptionOfferType, id: String)] {
        var offers: [(type: SubscriptionOfferType, id: String)] = []
        var groupWinBack: String?
        for side in sides where side.product.group >= 0 {
            for item in side.catalog.offers(inGroup: Int32(side.product.group)) where item.offer.type == .winBack {
                groupWinBack = groupWinBack ?? item.offer.id
            }
            for offer in side.product.offers where !offers.contains(where: { $0.id == offer.id && $0.type == offer.type }) {
                offers.append((offer.type, offer.id))
            }
        }
        if let groupWinBack, !offers.contains(where: { $0.type == .winBack }) { offers.append((.winBack, groupWinBack)) }
        return offers
    }
}
