import Foundation

extension Receipt {
    /// The receipt as normalized receipt JSON (schemas/receipt.schema.json), the form
    /// `entitle normalize` prints; absent optional fields are left out.
    public var json: String { jsonOutput.rendered() + "\n" }

    /// The receipt as a JSON value, for ``json`` and `Codable`.
    package var jsonOutput: JSONOutput {
        func instant(_ value: Instant) -> JSONOutput { .string(value.rfc3339) }
        var members: [(String, JSONOutput)] = [("app", .string(app))]
        if store != .appStore { members.append(("store", .string(store.rawValue))) }
        if let environment { members.append(("environment", .string(environment))) }
        if let originalApplicationVersion { members.append(("originalApplicationVersion", .string(originalApplicationVersion))) }
        if let originalPurchaseDate { members.append(("originalPurchaseDate", instant(originalPurchaseDate))) }
        if let appTransactionId { members.append(("appTransactionId", .string(appTransactionId))) }
        if let originalPlatform { members.append(("originalPlatform", .string(originalPlatform.rawValue))) }
        if let preorderDate { members.append(("preorderDate", instant(preorderDate))) }
        if let consentRescinded { members.append(("consentRescinded", instant(consentRescinded))) }
        members.append(("transactions", .array(transactions.map(\.jsonOutput))))
        members.append(("renewals", .array(renewals.map(\.jsonOutput))))
        members.append(("consumptions", .array(consumptions.map(\.jsonOutput))))
        if !grants.isEmpty {
            members.append(("grants", .array(grants.map(\.jsonOutput))))
        }
        if !revocations.isEmpty {
            members.append(("revocations", .array(revocations.map(\.jsonOutput))))
        }
        return JSONOutput.object(members)
    }
}

extension Revocation {
    /// The revocation as in a normalized receipt; absent optional fields are left out.
    package var jsonOutput: JSONOutput {
        var fields: [(String, JSONOutput)] = [("transactionId", .string(transactionId)), ("date", .string(date.rfc3339))]
        if let voidedQuantity { fields.append(("voidedQuantity", .integer(Int64(voidedQuantity)))) }
        if let amount { fields.append(("amount", .integer(amount))) }
        if let amountRefunded { fields.append(("amountRefunded", .integer(amountRefunded))) }
        if let amountPaid { fields.append(("amountPaid", .integer(amountPaid))) }
        if let id { fields.append(("id", .string(id))) }
        return .object(fields)
    }
}

extension Transaction {
    /// The transaction as in a normalized receipt; absent optional fields are left out.
    package var jsonOutput: JSONOutput {
        func instant(_ value: Instant) -> JSONOutput { .string(value.rfc3339) }
        var fields: [(String, JSONOutput)] = [("productId", .string(productId)), ("transactionId", .string(transactionId))]
        if let originalTransactionId { fields.append(("originalTransactionId", .string(originalTransactionId))) }
        fields.append(("purchaseDate", instant(purchaseDate)))
        if let originalPurchaseDate { fields.append(("originalPurchaseDate", instant(originalPurchaseDate))) }
        if let expiresDate { fields.append(("expiresDate", instant(expiresDate))) }
        if let cancellationDate { fields.append(("cancellationDate", instant(cancellationDate))) }
        if quantity != 1 { fields.append(("quantity", .integer(Int64(quantity)))) }
        if isTrialPeriod { fields.append(("isTrialPeriod", .bool(true))) }
        if isIntroOfferPeriod { fields.append(("isIntroOfferPeriod", .bool(true))) }
        if isUpgraded { fields.append(("isUpgraded", .bool(true))) }
        if ownership != .purchased { fields.append(("ownership", .string(ownership.rawValue))) }
        if let offerType { fields.append(("offerType", .string(offerType.rawValue))) }
        if let offerId { fields.append(("offerId", .string(offerId))) }
        if let revocationReason { fields.append(("revocationReason", .string(revocationReason.rawValue))) }
        if let signedDate { fields.append(("signedDate", instant(signedDate))) }
        if let revocationType { fields.append(("revocationType", .string(revocationType.rawValue))) }
        if let revocationPercentage {
            fields.append(("revocationPercentage", .number(Self.percentageText(ParsedReceipt.thousandths(revocationPercentage)))))
        }
        if let appAccountToken { fields.append(("appAccountToken", .string(appAccountToken))) }
        if let billingPlan { fields.append(("billingPlan", .string(billingPlan.rawValue))) }
        if pending { fields.append(("pending", .bool(true))) }
        if let acknowledged { fields.append(("acknowledged", .bool(acknowledged))) }
        if let account { fields.append(("account", .string(account))) }
        if let storefront { fields.append(("storefront", .string(storefront))) }
        if let appTransactionId { fields.append(("appTransactionId", .string(appTransactionId))) }
        if let offerPeriod { fields.append(("offerPeriod", .string(offerPeriod.description))) }
        if let offerDiscountType { fields.append(("offerDiscountType", .string(offerDiscountType.rawValue))) }
        if let commitment {
            fields.append(
                (
                    "commitment",
                    .object([
                        ("period", .integer(Int64(commitment.period))), ("periods", .integer(Int64(commitment.periods))),
                        ("endsAt", instant(commitment.endsAt)),
                    ])
                ))
        }
        if !items.isEmpty { fields.append(("items", .array(items.map(\.jsonOutput)))) }
        if let linkedPurchaseToken { fields.append(("linkedPurchaseToken", .string(linkedPurchaseToken))) }
        if let purchaseOptionId { fields.append(("purchaseOptionId", .string(purchaseOptionId))) }
        if let releaseDate { fields.append(("releaseDate", instant(releaseDate))) }
        if let topUpAfter { fields.append(("topUpAfter", instant(topUpAfter))) }
        return .object(fields)
    }

    /// Thousandths of a percent as the shortest decimal: `33333` is `33.333`, `50000` is `50`.
    package static func percentageText(_ thousandths: Int32) -> String { Price.decimal(thousandths: Int64(thousandths)) }
}

extension Renewal {
    /// The renewal entry as in a normalized receipt; absent optional fields are left out.
    package var jsonOutput: JSONOutput {
        var fields: [(String, JSONOutput)] = []
        if let productId { fields.append(("productId", .string(productId))) }
        fields.append(("originalTransactionId", .string(originalTransactionId)))
        if let willRenew { fields.append(("willRenew", .bool(willRenew))) }
        if let isInBillingRetry { fields.append(("isInBillingRetry", .bool(isInBillingRetry))) }
        if let gracePeriodExpiresDate { fields.append(("gracePeriodExpiresDate", .string(gracePeriodExpiresDate.rfc3339))) }
        if let signedDate { fields.append(("signedDate", .string(signedDate.rfc3339))) }
        if let renewsTo { fields.append(("renewsTo", .string(renewsTo))) }
        if let expirationIntent { fields.append(("expirationIntent", .string(expirationIntent.rawValue))) }
        if let winBackOffers { fields.append(("winBackOffers", .array(winBackOffers.map(JSONOutput.string)))) }
        if let appAccountToken { fields.append(("appAccountToken", .string(appAccountToken))) }
        if let pausedUntil { fields.append(("pausedUntil", .string(pausedUntil.rfc3339))) }
        if let account { fields.append(("account", .string(account))) }
        if let appTransactionId { fields.append(("appTransactionId", .string(appTransactionId))) }
        if let renewalPrice { fields.append(("renewalPrice", .string(renewalPrice))) }
        if let currency { fields.append(("currency", .string(currency))) }
        if !items.isEmpty { fields.append(("items", .array(items.map(\.jsonOutput)))) }
        return .object(fields)
    }
}

extension Transaction.Item {
    /// The item as in a normalized receipt; absent optional fields are left out.
    package var jsonOutput: JSONOutput {
        var fields: [(String, JSONOutput)] = [("sku", .string(sku)), ("price", .string(price))]
        if let revocationDate { fields.append(("revocationDate", .string(revocationDate.rfc3339))) }
        if !refunds.isEmpty {
            fields.append(
                (
                    "refunds",
                    .array(
                        refunds.map { refund in
                            .object([
                                ("amount", .string(refund.amount)), ("date", .string(refund.date.rfc3339)), ("type", .string(refund.type.rawValue)),
                            ])
                        })
                ))
        }
        return .object(fields)
    }
}

extension Consumption {
    /// The consumption as in a normalized receipt.
    package var jsonOutput: JSONOutput {
        .object([("id", .string(id)), ("currency", .string(currency)), ("amount", .integer(amount)), ("date", .string(date.rfc3339))])
    }
}

extension Grant {
    /// The grant as in a normalized receipt; absent optional fields are left out.
    package var jsonOutput: JSONOutput {
        var fields: [(String, JSONOutput)] = [
            ("id", .string(id)), ("features", .array(features.map(JSONOutput.string))), ("start", .string(start.rfc3339)),
        ]
        if let end { fields.append(("end", .string(end.rfc3339))) }
        if let revokedAt { fields.append(("revokedAt", .string(revokedAt.rfc3339))) }
        return .object(fields)
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
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }

    /// Writes the object ``json`` holds.
    public func encode(to encoder: any Encoder) throws { try jsonOutput.encode(to: encoder) }
}
