import Entitle
import Foundation

/// Tells receipts as a story when they can be told as one: the inverse of ``Story``, for the
/// witnesses of `diff --prove --witnesses`, which a product manager reads more easily as "bought
/// the day pass on 31 January, refunded an hour later" than as transactions.
///
/// Each purchase becomes a `buy` or `subscribe` (with its intro offer or offer, and its chain's
/// renewal entry: auto-renew off, billing retry, grace), a cancellation a `refund` of its product,
/// a service grant a `grant`, a consumption a `consume`, another app's purchase a `buy` with its
/// `app`. What a story cannot say (a receipt's original application version or purchase date, an
/// environment, a pending or unacknowledged purchase, a pause, an upgraded period, a renewal to
/// another product, Apple's list of win-back offers, a signed copy) leaves the receipts as they are.
/// A story is kept only when the receipts it writes give the same answer as the witness's under
/// both catalogs, at the witness's instant.
enum StoryTeller {
    /// The story of `receipts`, or `nil` when they cannot be told as one that answers the same.
    static func story(of receipts: [Receipt], app: String, at: Instant, portfolios: [Portfolio]) -> JSONOutput? {
        guard let story = events(of: receipts, app: app), let told = portfolios.last.flatMap({ tell(story, app: app, portfolio: $0) })
        else { return nil }
        for portfolio in portfolios {
            guard let original = try? portfolio.evaluate(app: app, receipts: receipts, at: at),
                let again = try? portfolio.evaluate(app: app, receipts: told, at: at),
                original.json == again.json
            else { return nil }
        }
        return story
    }

    /// The receipts a story writes, read back as a test file reads it.
    private static func tell(_ story: JSONOutput, app: String, portfolio: Portfolio) -> [Receipt]? {
        let data = Data(story.rendered().utf8)
        var reader = JSONShapeReader(file: "story", data: data)
        guard let document = JSONDocument.parse(data, limits: .catalog, lines: reader.lines, name: { $0 }, report: { _, _, _, _ in })
        else { return nil }
        return Story.receipts(document.root, path: "story", app: app, portfolio: portfolio, reader: &reader)
    }

    /// The events of `receipts`, in time order; `nil` when something cannot be said.
    private static func events(of receipts: [Receipt], app: String) -> JSONOutput? {
        var events: [(at: Instant, order: Int, event: [(String, JSONOutput)])] = []
        func add(_ at: Instant, _ members: [(String, JSONOutput)]) {
            events.append((at, events.count, [("at", .string(at.rfc3339))] + members))
        }
        for receipt in receipts {
            guard receipt.environment == nil, receipt.originalApplicationVersion == nil, receipt.originalPurchaseDate == nil,
                receipt.originalPlatform == nil, receipt.appTransactionId == nil, receipt.preorderDate == nil, receipt.consentRescinded == nil
            else { return nil }
            var place: [(String, JSONOutput)] = []
            if receipt.app != app { place.append(("app", .string(receipt.app))) }
            if receipt.store != .appStore { place.append(("store", .string(receipt.store.rawValue))) }
            for transaction in receipt.transactions {
                guard transaction.signedDate == nil, !transaction.pending, transaction.acknowledged != false, !transaction.isUpgraded,
                    transaction.account == nil, transaction.appAccountToken == nil, transaction.commitment == nil
                else { return nil }
                let shared: [(String, JSONOutput)] = transaction.ownership == .familyShared ? [("familyShared", .bool(true))] : []
                if transaction.expiresDate == nil {
                    let quantity: [(String, JSONOutput)] = transaction.quantity > 1 ? [("quantity", .integer(Int64(transaction.quantity)))] : []
                    add(transaction.purchaseDate, [("buy", .string(transaction.productId))] + quantity + shared + place)
                } else {
                    var members: [(String, JSONOutput)] = [("subscribe", .string(transaction.productId))]
                    if transaction.isTrialPeriod || transaction.isIntroOfferPeriod { members.append(("introOffer", .bool(true))) }
                    if let offer = transaction.offerId { members.append(("offer", .string(offer))) }
                    let chain = transaction.originalTransactionId ?? transaction.transactionId
                    for renewal in receipt.renewals where renewal.originalTransactionId == chain {
                        guard renewal.renewsTo == nil, renewal.winBackOffers == nil, renewal.pausedUntil == nil, renewal.signedDate == nil,
                            renewal.productId == nil || renewal.productId == transaction.productId
                        else { return nil }
                        if renewal.willRenew == false { members.append(("willRenew", .bool(false))) }
                        if let graceEnd = renewal.gracePeriodExpiresDate, let expires = transaction.expiresDate {
                            let milliseconds = graceEnd.millisecondsSince1970 - expires.millisecondsSince1970
                            guard milliseconds > 0, milliseconds % 86_400_000 == 0 else { return nil }
                            members.append(("grace", .string("P\(milliseconds / 86_400_000)D")))
                        } else if renewal.isInBillingRetry == true {
                            members.append(("billingRetry", .bool(true)))
                        }
                    }
                    add(transaction.purchaseDate, members + shared + place)
                }
                if let cancelled = transaction.cancellationDate {
                    var refund: [(String, JSONOutput)] = [("refund", .string(transaction.productId))]
                    if let percentage = transaction.revocationPercentage, percentage < 100 {
                        refund.append(("percentage", .number(String(percentage))))
                    }
                    add(cancelled, refund + place)
                }
            }
            for grant in receipt.grants {
                guard grant.revokedAt == nil, receipt.app == app else { return nil }
                var members: [(String, JSONOutput)] = [("grant", .array(grant.features.map(JSONOutput.string)))]
                if let end = grant.end { members.append(("until", .string(end.rfc3339))) }
                add(grant.start, members)
            }
            for consumption in receipt.consumptions {
                guard receipt.app == app else { return nil }
                add(consumption.date, [("consume", .object([(consumption.currency, .integer(consumption.amount))]))])
            }
        }
        guard !events.isEmpty else { return nil }
        events.sort { ($0.at, $0.order) < ($1.at, $1.order) }
        return .array(events.map { .object($0.event) })
    }
}
