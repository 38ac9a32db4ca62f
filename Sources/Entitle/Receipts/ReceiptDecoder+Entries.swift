/// Transactions and renewal entries of a normalized receipt: each member read into its record,
/// checked as it is read (the receipt's own members and the smaller records are in
/// `ReceiptDecoder.swift` and `+Records`).
extension ReceiptDecoder {
    static func decodeTransaction(
        _ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, index: Int, predictions: inout Predictions
    ) throws -> TransactionRecord {
        // Paths are built only when an error is thrown: building them eagerly cost most of decoding.
        func path(_ field: String = "") -> String { "transactions[\(index)]\(field)" }
        var record = TransactionRecord(
            productId: .none, transactionId: .none, transactionIdHash: 0, originalTransactionId: .none,
            purchase: TransactionRecord.absentDate, originalPurchase: TransactionRecord.absentDate,
            expires: TransactionRecord.absentDate, cancellation: TransactionRecord.noCancellation,
            quantity: 1, flags: 0)
        let start = try expectObject(&reader, path: path())
        var seen = KeySet()
        var terms = PurchaseTermsRecord()
        var option = TextRange.none
        try reader.readObject(keys: transactionTable, prediction: &predictions.transaction) { reader, index, key in
            if let index { try seen.insert(index, key) }
            switch index {
            case 0:
                record.productId = try text(repeating: &predictions.productId, &reader, into: &receipt) {
                    try nonEmptyText(&$0, into: &$1, path: path(".productId"))
                }
            case 1:
                (record.transactionId, record.transactionIdHash) = try id(&reader, into: &receipt, path: path(".transactionId"))
            case 2:
                record.originalTransactionId = try text(repeating: &predictions.originalTransactionId, &reader, into: &receipt) {
                    try optionalText(&$0, into: &$1, path: path(".originalTransactionId"))
                }
            case 3:
                record.purchase = try instant(&reader, path: path(".purchaseDate"))
            case 4:
                record.originalPurchase = try optionalInstant(&reader, path: path(".originalPurchaseDate")) ?? TransactionRecord.absentDate
            case 5:
                record.expires = try optionalInstant(&reader, path: path(".expiresDate")) ?? TransactionRecord.absentDate
            case 6:
                record.cancellation = try optionalInstant(&reader, path: path(".cancellationDate")) ?? TransactionRecord.noCancellation
            case 7:
                let offset = try reader.peekOffset()
                if try !readNull(&reader) {
                    let value = try integer(&reader, path: path(".quantity"))
                    guard value >= 1, value <= ReceiptLimits.maxQuantity else {
                        throw Failure(
                            offset: offset, message: "quantity must be from 1 to \(ReceiptLimits.maxQuantity), found \(value)",
                            code: .badValue, path: path(".quantity"))
                    }
                    record.quantity = Int32(value)
                }
            case 8:
                if try optionalBool(&reader, path: path(".isTrialPeriod")) == true { record.flags |= TransactionRecord.trialPeriod }
            case 9:
                if try optionalBool(&reader, path: path(".isIntroOfferPeriod")) == true { record.flags |= TransactionRecord.introOfferPeriod }
            case 10:
                if try optionalBool(&reader, path: path(".isUpgraded")) == true { record.flags |= TransactionRecord.upgraded }
            case 11:
                let token = try stringToken(&reader, path: path(".ownership"))
                if token == "family-shared" {
                    record.flags |= TransactionRecord.familyShared
                } else if !(token == "purchased") {
                    throw unknownName(
                        token.string, of: Transaction.Ownership.allCases.map(\.rawValue), what: "ownership", at: token.offset,
                        path: path(".ownership"))
                }
            case 12:
                record.offerType = try optionalEnum(&reader, Transaction.OfferType.self, what: "offer type", path: path(".offerType"))
            case 13:
                record.offerId = try optionalText(&reader, into: &receipt, path: path(".offerId"))
            case 14:
                record.revocationReason = try optionalEnum(
                    &reader, Transaction.RevocationReason.self, what: "revocation reason", path: path(".revocationReason"))
            case 15:
                record.signed = try optionalInstant(&reader, path: path(".signedDate")) ?? TransactionRecord.absentDate
            case 16:
                record.revocationType = try optionalEnum(
                    &reader, Transaction.RevocationType.self, what: "revocation type", path: path(".revocationType"))
            case 17:
                record.revocationPercentage = try percentage(&reader, path: path(".revocationPercentage"))
            case 18:
                try predictions.storeKeys.note(\.appAccountToken, &reader, path: path(".appAccountToken"))
                record.accountToken = try accountToken(&reader, into: &receipt, path: path(".appAccountToken"))
            case 19:
                record.billingPlan = try optionalEnum(&reader, Transaction.BillingPlan.self, what: "billing plan", path: path(".billingPlan"))
            case 20:
                if try !readNull(&reader) {
                    record.commitment = Int32(receipt.commitments.count)
                    receipt.commitments.append(try decodeCommitment(&reader, path: path(".commitment")))
                }
            case 21:
                if try optionalBool(&reader, path: path(".pending")) == true { record.flags |= TransactionRecord.pending }
            case 22:
                try predictions.storeKeys.note(\.acknowledged, &reader, path: path(".acknowledged"), nullCounts: true)
                if try optionalBool(&reader, path: path(".acknowledged")) == false { record.flags |= TransactionRecord.unacknowledged }
            case 23:
                try predictions.storeKeys.note(\.account, &reader, path: path(".account"))
                record.accountToken = try account(&reader, into: &receipt, path: path(".account"))
            case 24:
                record.storefront = try storefront(&reader, into: &receipt, path: path(".storefront"))
            case 25:
                record.appTransactionId = try optionalNonEmptyText(&reader, into: &receipt, path: path(".appTransactionId"))
            case 26:
                if try !readNull(&reader) {
                    let token = try stringToken(&reader, path: path(".offerPeriod"))
                    guard let period = ISODuration(token.string), period.isPositive, period.isWithinLimit else {
                        throw Failure(
                            offset: token.offset, message: "`\(Diagnostic.excerpt(token.string))` is not an offer period", code: .badValue,
                            path: path(".offerPeriod"),
                            help: "an ISO 8601 duration longer than zero and at most P100Y, as Apple writes it: `P1M`, `P1Y`")
                    }
                    record.offerPeriod = Int32(receipt.offerPeriods.count)
                    receipt.offerPeriods.append(period)
                }
            case 27:
                record.offerDiscountType = try optionalEnum(
                    &reader, Transaction.OfferDiscountType.self, what: "offer discount type", path: path(".offerDiscountType"))
            case 28:
                record.items = try decodeItems(&reader, into: &receipt, renewal: false, path: path(".items"))
            case 29:
                try predictions.storeKeys.note(\.linkedPurchaseToken, &reader, path: path(".linkedPurchaseToken"))
                record.linkedToken = try optionalNonEmptyText(&reader, into: &receipt, path: path(".linkedPurchaseToken"))
                if !record.linkedToken.isNone { receipt.hasLinks = true }
            case 30:
                try predictions.storeKeys.note(\.purchaseOptionId, &reader, path: path(".purchaseOptionId"))
                option = try optionalNonEmptyText(&reader, into: &receipt, path: path(".purchaseOptionId"))
            case 31:
                terms.release = try optionalInstant(&reader, path: path(".releaseDate")) ?? TransactionRecord.absentDate
            case 32:
                try predictions.storeKeys.note(\.topUpAfter, &reader, path: path(".topUpAfter"))
                terms.topUpAfter = try optionalInstant(&reader, path: path(".topUpAfter")) ?? TransactionRecord.absentDate
            default:
                throw unknownKey(key, in: .transaction, path: path())
            }
        }
        guard !record.productId.isNone else { throw missing("productId", in: "transaction", at: start, path: path()) }
        guard !record.transactionId.isNone else { throw missing("transactionId", in: "transaction", at: start, path: path()) }
        guard record.purchase != TransactionRecord.absentDate else {
            throw missing("purchaseDate", in: "transaction", at: start, path: path())
        }
        if !option.isNone || terms.release != TransactionRecord.absentDate || terms.topUpAfter != TransactionRecord.absentDate {
            if !option.isNone {
                // The catalog product a purchase option names, tried first: `<productId>:<option>`.
                let product = receipt.arena[Int(record.productId.start)..<Int(record.productId.start + record.productId.count)]
                let name = receipt.arena[Int(option.start)..<Int(option.start + option.count)]
                let begin = receipt.arena.count
                receipt.arena.append(contentsOf: product)
                receipt.arena.append(UInt8(ascii: ":"))
                receipt.arena.append(contentsOf: name)
                terms.optionProduct = TextRange(start: Int32(begin), count: Int32(receipt.arena.count - begin))
            }
            record.terms = Int32(receipt.terms.count)
            receipt.terms.append(terms)
        }
        return record
    }

    static func decodeRenewal(
        _ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, index: Int, predictions: inout Predictions
    ) throws -> RenewalRecord {
        func path(_ field: String = "") -> String { "renewals[\(index)]\(field)" }
        var record = RenewalRecord(
            productId: .none, originalTransactionId: .none, willRenew: 2, isInBillingRetry: 2,
            graceExpires: TransactionRecord.absentDate)
        let start = try expectObject(&reader, path: path())
        var seen = KeySet()
        try reader.readObject(keys: renewalTable, prediction: &predictions.renewal) { reader, index, key in
            if let index { try seen.insert(index, key) }
            switch index {
            case 0:
                record.productId = try optionalText(&reader, into: &receipt, path: path(".productId"))
            case 1:
                record.originalTransactionId = try nonEmptyText(&reader, into: &receipt, path: path(".originalTransactionId"))
            case 2:
                record.willRenew = try optionalBool(&reader, path: path(".willRenew")).map { $0 ? 1 : 0 } ?? 2
            case 3:
                record.isInBillingRetry = try optionalBool(&reader, path: path(".isInBillingRetry")).map { $0 ? 1 : 0 } ?? 2
            case 4:
                record.graceExpires = try optionalInstant(&reader, path: path(".gracePeriodExpiresDate")) ?? TransactionRecord.absentDate
            case 5:
                record.signed = try optionalInstant(&reader, path: path(".signedDate")) ?? TransactionRecord.absentDate
            case 6:
                record.renewsTo = try optionalText(&reader, into: &receipt, path: path(".renewsTo"))
            case 7:
                record.expirationIntent = try optionalEnum(
                    &reader, Renewal.ExpirationIntent.self, what: "expiration intent", path: path(".expirationIntent"))
            case 8:
                if try !readNull(&reader) {
                    let first = Int32(receipt.offerIds.count)
                    try readList(
                        &reader, limit: ReceiptLimits.maxWinBackOffers, of: "win-back offers", in: "renewal entry", path: path(".winBackOffers")
                    ) {
                        reader, position in
                        receipt.offerIds.append(try nonEmptyText(&reader, into: &receipt, path: path(".winBackOffers[\(position)]")))
                    }
                    record.winBackOffers = first..<Int32(receipt.offerIds.count)
                }
            case 9:
                try predictions.storeKeys.note(\.appAccountToken, &reader, path: path(".appAccountToken"))
                record.accountToken = try accountToken(&reader, into: &receipt, path: path(".appAccountToken"))
            case 10:
                record.pausedUntil = try optionalInstant(&reader, path: path(".pausedUntil")) ?? TransactionRecord.absentDate
            case 11:
                try predictions.storeKeys.note(\.account, &reader, path: path(".account"))
                record.accountToken = try account(&reader, into: &receipt, path: path(".account"))
            case 12:
                record.appTransactionId = try optionalNonEmptyText(&reader, into: &receipt, path: path(".appTransactionId"))
            case 13:
                record.renewalPrice = try checkedText(
                    &reader, into: &receipt, path: path(".renewalPrice"), stored: { Price.isAmount($0) ? $0 : nil },
                    problem: {
                        (
                            "`\(Diagnostic.excerpt($0))` is not an amount",
                            "a decimal string with at most three decimals, as Apple's milliunits give: `9.99`"
                        )
                    })
            case 14:
                record.currency = try checkedText(
                    &reader, into: &receipt, path: path(".currency"), stored: { Price.isCurrency($0) ? $0 : nil },
                    problem: { ("`\(Diagnostic.excerpt($0))` is not a currency", "three capital letters, ISO 4217: `EUR`, `USD`") })
            case 15:
                record.items = try decodeItems(&reader, into: &receipt, renewal: true, path: path(".items"))
            default:
                throw unknownKey(key, in: .renewal, path: path())
            }
        }
        guard !record.originalTransactionId.isNone else {
            throw missing("originalTransactionId", in: "renewal", at: start, path: path())
        }
        if record.renewalPrice.isNone != record.currency.isNone {
            throw missing(
                record.currency.isNone ? "currency" : "renewalPrice", in: "renewal with a `\(record.currency.isNone ? "renewalPrice" : "currency")`",
                at: start, path: path())
        }
        return record
    }
}
