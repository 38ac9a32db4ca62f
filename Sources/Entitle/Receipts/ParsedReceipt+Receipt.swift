extension ParsedReceipt {
    /// Builds the parsed form of a receipt value. Instants outside years 0001-9999 (possible only
    /// in values built in code) are read as the nearer end of that range, so every instant of an
    /// answer can be written as RFC 3339.
    public init(_ receipt: Receipt) {
        self.init()
        arena.reserveCapacity(receipt.app.utf8.count + receipt.transactions.count * 48)
        appRange = store(receipt.app)
        environment = receipt.environment
        originalApplicationVersion = receipt.originalApplicationVersion
        originalPurchase = receipt.originalPurchaseDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate
        transactions.reserveCapacity(receipt.transactions.count)
        for transaction in receipt.transactions {
            let id = store(transaction.transactionId)
            var flags: UInt8 = 0
            if transaction.isTrialPeriod { flags |= TransactionRecord.trialPeriod }
            if transaction.isIntroOfferPeriod { flags |= TransactionRecord.introOfferPeriod }
            if transaction.isUpgraded { flags |= TransactionRecord.upgraded }
            if transaction.ownership == .familyShared { flags |= TransactionRecord.familyShared }
            transactions.append(TransactionRecord(
                productId: store(transaction.productId), transactionId: id, transactionIdHash: hash(id),
                originalTransactionId: transaction.originalTransactionId.map { store($0) } ?? .none,
                purchase: transaction.purchaseDate.clampedToRange.millisecondsSince1970,
                originalPurchase: transaction.originalPurchaseDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate,
                expires: transaction.expiresDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate,
                cancellation: transaction.cancellationDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.noCancellation,
                quantity: Int32(clamping: transaction.quantity), flags: flags,
                offerType: Self.code(transaction.offerType), revocationReason: Self.code(transaction.revocationReason),
                offerId: transaction.offerId.map { store($0) } ?? .none))
        }
        for renewal in receipt.renewals {
            renewals.append(RenewalRecord(
                productId: renewal.productId.map { store($0) } ?? .none,
                originalTransactionId: store(renewal.originalTransactionId),
                willRenew: renewal.willRenew.map { $0 ? 1 : 0 } ?? 2,
                isInBillingRetry: renewal.isInBillingRetry.map { $0 ? 1 : 0 } ?? 2,
                graceExpires: renewal.gracePeriodExpiresDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate,
                signed: renewal.signedDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate,
                renewsTo: renewal.renewsTo.map { store($0) } ?? .none,
                expirationIntent: Self.code(renewal.expirationIntent)))
        }
        for grant in receipt.grants {
            let id = store(grant.id)
            let first = Int32(grantFeatures.count)
            for feature in grant.features { grantFeatures.append(store(feature)) }
            grants.append(GrantRecord(
                id: id, idHash: hash(id), features: first..<Int32(grantFeatures.count),
                start: grant.start.clampedToRange.millisecondsSince1970, end: grant.end?.clampedToRange.millisecondsSince1970 ?? .max,
                revoked: grant.revokedAt?.clampedToRange.millisecondsSince1970 ?? .max))
        }
        for consumption in receipt.consumptions {
            let id = store(consumption.id)
            consumptions.append(ConsumptionRecord(
                id: id, idHash: hash(id), currency: store(consumption.currency),
                amount: consumption.amount, date: consumption.date.clampedToRange.millisecondsSince1970))
        }
    }

    /// The receipt as a value with strings and instants.
    public var receipt: Receipt {
        func instant(_ value: Int64, absent: Int64) -> Instant? {
            value == absent ? nil : Instant(millisecondsSince1970: value)
        }
        func bool(_ value: UInt8) -> Bool? { value == 2 ? nil : value == 1 }
        return Receipt(
            app: app,
            transactions: transactions.map { record in
                Transaction(
                    productId: text(record.productId)!, transactionId: text(record.transactionId)!,
                    originalTransactionId: text(record.originalTransactionId),
                    purchaseDate: Instant(millisecondsSince1970: record.purchase),
                    originalPurchaseDate: instant(record.originalPurchase, absent: TransactionRecord.absentDate),
                    expiresDate: instant(record.expires, absent: TransactionRecord.absentDate),
                    cancellationDate: instant(record.cancellation, absent: TransactionRecord.noCancellation),
                    quantity: Int(record.quantity),
                    isTrialPeriod: record.flags & TransactionRecord.trialPeriod != 0,
                    isIntroOfferPeriod: record.flags & TransactionRecord.introOfferPeriod != 0,
                    isUpgraded: record.flags & TransactionRecord.upgraded != 0,
                    ownership: record.flags & TransactionRecord.familyShared != 0 ? .familyShared : .purchased,
                    offerType: Self.value(record.offerType), offerId: text(record.offerId),
                    revocationReason: Self.value(record.revocationReason))
            },
            renewals: renewals.map { record in
                Renewal(productId: text(record.productId), originalTransactionId: text(record.originalTransactionId)!,
                        willRenew: bool(record.willRenew), isInBillingRetry: bool(record.isInBillingRetry),
                        gracePeriodExpiresDate: instant(record.graceExpires, absent: TransactionRecord.absentDate),
                        signedDate: instant(record.signed, absent: TransactionRecord.absentDate),
                        renewsTo: text(record.renewsTo), expirationIntent: Self.value(record.expirationIntent))
            },
            consumptions: consumptions.map { record in
                Consumption(id: text(record.id)!, currency: text(record.currency)!, amount: record.amount,
                            date: Instant(millisecondsSince1970: record.date))
            },
            environment: environment, originalApplicationVersion: originalApplicationVersion,
            originalPurchaseDate: instant(originalPurchase, absent: TransactionRecord.absentDate),
            grants: grants.map { record in
                Grant(id: text(record.id)!, features: grantFeatures[Int(record.features.lowerBound)..<Int(record.features.upperBound)].map { text($0)! },
                      start: Instant(millisecondsSince1970: record.start), end: instant(record.end, absent: .max),
                      revokedAt: instant(record.revoked, absent: .max))
            })
    }

    /// An optional enumeration value as a small code: its index plus one, 0 for `nil`.
    static func code<E: CaseIterable & Equatable>(_ value: E?) -> UInt8 {
        guard let value, let index = E.allCases.firstIndex(of: value) else { return 0 }
        return UInt8(E.allCases.distance(from: E.allCases.startIndex, to: index) + 1)
    }

    /// The value of a code from ``code(_:)``.
    static func value<E: CaseIterable>(_ code: UInt8) -> E? {
        guard code > 0, Int(code) <= E.allCases.count else { return nil }
        return E.allCases[E.allCases.index(E.allCases.startIndex, offsetBy: Int(code) - 1)]
    }

    /// The hash of a stored range, as the decoder computes it.
    func hash(_ range: TextRange) -> UInt64 {
        arena.withUnsafeBytes { raw in
            ByteKeyTable.hash(UnsafeRawBufferPointer(rebasing: raw[Int(range.start)..<Int(range.start + range.count)]))
        }
    }
}
