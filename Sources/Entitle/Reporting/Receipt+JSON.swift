extension Receipt {
    /// The receipt as normalized receipt JSON (schemas/receipt.schema.json), the form
    /// `entitle normalize` prints; absent optional fields are left out.
    public var json: String { jsonOutput.rendered() + "\n" }

    /// The receipt as a JSON value, for ``json`` and `Codable`.
    package var jsonOutput: JSONOutput {
        func instant(_ value: Instant) -> JSONOutput { .string(value.rfc3339) }
        var members: [(String, JSONOutput)] = [("app", .string(app))]
        if let environment { members.append(("environment", .string(environment))) }
        if let originalApplicationVersion { members.append(("originalApplicationVersion", .string(originalApplicationVersion))) }
        if let originalPurchaseDate { members.append(("originalPurchaseDate", instant(originalPurchaseDate))) }
        members.append(("transactions", .array(transactions.map { transaction in
            var fields: [(String, JSONOutput)] = [
                ("productId", .string(transaction.productId)), ("transactionId", .string(transaction.transactionId)),
            ]
            if let original = transaction.originalTransactionId { fields.append(("originalTransactionId", .string(original))) }
            fields.append(("purchaseDate", instant(transaction.purchaseDate)))
            if let date = transaction.originalPurchaseDate { fields.append(("originalPurchaseDate", instant(date))) }
            if let date = transaction.expiresDate { fields.append(("expiresDate", instant(date))) }
            if let date = transaction.cancellationDate { fields.append(("cancellationDate", instant(date))) }
            if transaction.quantity != 1 { fields.append(("quantity", .integer(Int64(transaction.quantity)))) }
            if transaction.isTrialPeriod { fields.append(("isTrialPeriod", .bool(true))) }
            if transaction.isIntroOfferPeriod { fields.append(("isIntroOfferPeriod", .bool(true))) }
            if transaction.isUpgraded { fields.append(("isUpgraded", .bool(true))) }
            if transaction.ownership != .purchased { fields.append(("ownership", .string(transaction.ownership.rawValue))) }
            if let offerType = transaction.offerType { fields.append(("offerType", .string(offerType.rawValue))) }
            if let offerId = transaction.offerId { fields.append(("offerId", .string(offerId))) }
            if let reason = transaction.revocationReason { fields.append(("revocationReason", .string(reason.rawValue))) }
            return .object(fields)
        })))
        members.append(("renewals", .array(renewals.map { renewal in
            var fields: [(String, JSONOutput)] = []
            if let product = renewal.productId { fields.append(("productId", .string(product))) }
            fields.append(("originalTransactionId", .string(renewal.originalTransactionId)))
            if let flag = renewal.willRenew { fields.append(("willRenew", .bool(flag))) }
            if let flag = renewal.isInBillingRetry { fields.append(("isInBillingRetry", .bool(flag))) }
            if let date = renewal.gracePeriodExpiresDate { fields.append(("gracePeriodExpiresDate", instant(date))) }
            if let date = renewal.signedDate { fields.append(("signedDate", instant(date))) }
            if let product = renewal.renewsTo { fields.append(("renewsTo", .string(product))) }
            if let intent = renewal.expirationIntent { fields.append(("expirationIntent", .string(intent.rawValue))) }
            return .object(fields)
        })))
        members.append(("consumptions", .array(consumptions.map { consumption in
            .object([("id", .string(consumption.id)), ("currency", .string(consumption.currency)),
                     ("amount", .integer(consumption.amount)), ("date", instant(consumption.date))])
        })))
        if !grants.isEmpty {
            members.append(("grants", .array(grants.map { grant in
                var fields: [(String, JSONOutput)] = [
                    ("id", .string(grant.id)), ("features", .array(grant.features.map(JSONOutput.string))),
                    ("start", instant(grant.start)),
                ]
                if let end = grant.end { fields.append(("end", instant(end))) }
                if let revoked = grant.revokedAt { fields.append(("revokedAt", instant(revoked))) }
                return .object(fields)
            })))
        }
        return JSONOutput.object(members)
    }
}

/// Receipts are `Codable` as normalized receipt JSON, so a service can keep them (a ledger of
/// consumptions, say) inside its own `Codable` types. Decoding runs the normalized decoder on the
/// value: the same checks, limits and messages as ``ParsedReceipt/init(json:name:)``.
extension Receipt: Codable {
    /// Reads a normalized receipt; a value the decoder refuses throws `DecodingError.dataCorrupted`
    /// whose description is the ``ReceiptError``'s.
    public init(from decoder: any Decoder) throws {
        let value = try JSONOutput(from: decoder)
        do {
            self = try ReceiptDecoder.decode(Data(value.compact().utf8), name: "<decoded>")
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }

    /// Writes the object ``json`` holds.
    public func encode(to encoder: any Encoder) throws { try jsonOutput.encode(to: encoder) }
}

import Foundation
