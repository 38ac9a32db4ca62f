/// App Store renewal info (`JWSRenewalInfoDecodedPayload`) as a normalized renewal entry: the
/// fields of the table in `AppStoreMapper.swift` that start with "renewal".
extension AppStoreMapper {
    mutating func mapRenewal(_ node: JSONNode, path: String) throws(ImportFailure) {
        guard let original = node["originalTransactionId"]?.lenientString, !original.isEmpty else {
            throw ImportFailure(offset: node.offset, message: "renewal info without `originalTransactionId`", path: path)
        }
        var grace: Instant?
        if let value = node["gracePeriodExpiresDate"], !value.isNull {
            grace = try value.instant(key: "gracePeriodExpiresDate", path: path.isEmpty ? "gracePeriodExpiresDate" : path + ".gracePeriodExpiresDate")
        }
        noteDropped(node, known: Self.renewalFields)
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        var signed = notificationSignedDate
        if let value = node["signedDate"], !value.isNull { signed = try value.instant(key: "signedDate", path: join("signedDate")) }
        let product = node["productId"]?.lenientString
        let price = renewalPrice(node, path: path)
        let renewsTo = node["autoRenewProductId"]?.lenientString.flatMap { $0.isEmpty || $0 == product ? nil : $0 }
        var winBackOffers: [String]?
        if let list = node["eligibleWinBackOfferIds"], !list.isNull {
            guard let elements = list.elements else {
                throw ImportFailure(
                    offset: list.offset, message: "`eligibleWinBackOfferIds` is not an array of offer ids",
                    path: join("eligibleWinBackOfferIds"))
            }
            winBackOffers = []
            for (index, element) in elements.enumerated() {
                guard case .string(let id) = element.value, !id.isEmpty else {
                    throw ImportFailure(
                        offset: element.offset, message: "a win-back offer id is not a non-empty string",
                        path: join("eligibleWinBackOfferIds[\(index)]"))
                }
                winBackOffers?.append(id)
            }
        }
        renewals.append(
            Renewal(
                productId: product, originalTransactionId: original,
                willRenew: node["autoRenewStatus"]?.lenientBool, isInBillingRetry: node["isInBillingRetryPeriod"]?.lenientBool,
                gracePeriodExpiresDate: grace, signedDate: signed, renewsTo: renewsTo,
                expirationIntent: ExpirationIntents.map(node["expirationIntent"], path: join("expirationIntent"), warnings: &warnings),
                winBackOffers: winBackOffers, appAccountToken: try Self.accountToken(node["appAccountToken"], path: join("appAccountToken")),
                appTransactionId: node["appTransactionId"]?.lenientString.flatMap { $0.isEmpty ? nil : $0 },
                renewalPrice: price?.amount, currency: price?.currency,
                items: try advancedCommerceItems(node, renewal: true, path: path)))
    }

    /// A renewal info's `renewalPrice` (milliunits) with its `currency`; `nil`, with a warning,
    /// when one comes without the other.
    private mutating func renewalPrice(_ node: JSONNode, path: String) -> Price? {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        let rawPrice = node["renewalPrice"].flatMap { $0.isNull ? nil : $0 }
        let rawCurrency = node["currency"].flatMap { $0.isNull ? nil : $0 }
        guard rawPrice != nil || rawCurrency != nil else { return nil }
        guard let rawPrice, let rawCurrency else {
            warnings.append(
                ImportWarning(
                    path: join(rawPrice == nil ? "currency" : "renewalPrice"), message: "`renewalPrice` and `currency` go together: ignored"))
            return nil
        }
        // A price says nothing about access: one entitle cannot read is left out, not refused.
        guard let milliunits = rawPrice.lenientInteger, let amount = Price.amount(milliunits: milliunits) else {
            warnings.append(ImportWarning(path: join("renewalPrice"), message: "`renewalPrice` is not a whole number of milliunits from 0: ignored"))
            return nil
        }
        guard let currency = rawCurrency.lenientString, Price.isCurrency(currency) else {
            warnings.append(ImportWarning(path: join("currency"), message: "`currency` is not an ISO 4217 code: ignored"))
            return nil
        }
        return Price(amount: amount, currency: currency)
    }
}
