import Entitle
import Foundation

/// The baseline a service would write without entitle: plain `Codable` structs decoded by
/// Foundation's `JSONDecoder` with the `.iso8601` date strategy, then handed to the same compiled
/// evaluator.
public struct BaselineReceipt: Codable, Sendable {
    public struct Transaction: Codable, Sendable {
        var productId: String
        var transactionId: String
        var originalTransactionId: String?
        var purchaseDate: Date
        var originalPurchaseDate: Date?
        var expiresDate: Date?
        var cancellationDate: Date?
        var quantity: Int?
        var isTrialPeriod: Bool?
        var isIntroOfferPeriod: Bool?
        var isUpgraded: Bool?
        var ownership: String?
    }

    public struct Renewal: Codable, Sendable {
        var productId: String?
        var originalTransactionId: String
        var willRenew: Bool?
        var isInBillingRetry: Bool?
        var gracePeriodExpiresDate: Date?
    }

    public struct Consumption: Codable, Sendable {
        var id: String
        var currency: String
        var amount: Int64
        var date: Date
    }

    var app: String
    var transactions: [Transaction]?
    var renewals: [Renewal]?
    var consumptions: [Consumption]?

    /// A decoder set up as the baseline uses it.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// The same data as entitle's receipt value.
    public var receipt: Receipt {
        Receipt(
            app: app,
            transactions: (transactions ?? []).map {
                Entitle.Transaction(
                    productId: $0.productId, transactionId: $0.transactionId, originalTransactionId: $0.originalTransactionId,
                    purchaseDate: Instant($0.purchaseDate), originalPurchaseDate: $0.originalPurchaseDate.map(Instant.init),
                    expiresDate: $0.expiresDate.map(Instant.init), cancellationDate: $0.cancellationDate.map(Instant.init),
                    quantity: $0.quantity ?? 1, isTrialPeriod: $0.isTrialPeriod ?? false,
                    isIntroOfferPeriod: $0.isIntroOfferPeriod ?? false, isUpgraded: $0.isUpgraded ?? false,
                    ownership: $0.ownership == "family-shared" ? .familyShared : .purchased)
            },
            renewals: (renewals ?? []).map {
                Entitle.Renewal(
                    productId: $0.productId, originalTransactionId: $0.originalTransactionId, willRenew: $0.willRenew,
                    isInBillingRetry: $0.isInBillingRetry, gracePeriodExpiresDate: $0.gracePeriodExpiresDate.map(Instant.init))
            },
            consumptions: (consumptions ?? []).map {
                Entitle.Consumption(id: $0.id, currency: $0.currency, amount: $0.amount, date: Instant($0.date))
            })
    }
}
