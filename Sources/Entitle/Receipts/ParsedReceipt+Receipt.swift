extension ParsedReceipt {
    /// Builds the parsed form of a receipt value. Instants outside years 0001-9999 (possible only
    /// in values built in code) are read as the nearer end of that range, so every instant of an
    /// answer can be written as RFC 3339.
    public init(_ receipt: Receipt) {
        self.init(Fields(receipt))
    }

    /// A percentage as thousandths, within 0 to 100 (a value built in code may be anything).
    static func thousandths(_ percentage: Double) -> Int32 {
        guard percentage.isFinite else { return percentage > 0 ? TransactionRecord.wholePercentage : 0 }
        return Int32((min(max(percentage, 0), 100) * 1_000).rounded())
    }

    /// One transaction record as a value.
    func transaction(_ record: TransactionRecord) -> Transaction {
        Transaction(
            productId: text(record.productId)!, transactionId: text(record.transactionId)!,
            originalTransactionId: text(record.originalTransactionId),
            purchaseDate: Instant(millisecondsSince1970: record.purchase),
            originalPurchaseDate: Self.instant(record.originalPurchase, absent: TransactionRecord.absentDate),
            expiresDate: Self.instant(record.expires, absent: TransactionRecord.absentDate),
            cancellationDate: Self.instant(record.cancellation, absent: TransactionRecord.noCancellation),
            quantity: Int(record.quantity),
            isTrialPeriod: record.flags & TransactionRecord.trialPeriod != 0,
            isIntroOfferPeriod: record.flags & TransactionRecord.introOfferPeriod != 0,
            isUpgraded: record.flags & TransactionRecord.upgraded != 0,
            ownership: record.flags & TransactionRecord.familyShared != 0 ? .familyShared : .purchased,
            offerType: Self.value(record.offerType), offerId: text(record.offerId),
            revocationReason: Self.value(record.revocationReason),
            signedDate: Self.instant(record.signed, absent: TransactionRecord.absentDate),
            revocationType: Self.value(record.revocationType),
            revocationPercentage: record.revocationPercentage < 0 ? nil : Double(record.revocationPercentage) / 1_000,
            appAccountToken: store == .appStore ? text(record.accountToken) : nil, billingPlan: Self.value(record.billingPlan),
            commitment: record.commitment < 0
                ? nil
                : {
                    let commitment = commitments[Int(record.commitment)]
                    return Transaction.Commitment(
                        period: Int(commitment.period), periods: Int(commitment.periods),
                        endsAt: Instant(millisecondsSince1970: commitment.ends))
                }(),
            pending: record.flags & TransactionRecord.pending != 0,
            acknowledged: record.flags & TransactionRecord.unacknowledged != 0 ? false : nil,
            account: store == .appStore ? nil : text(record.accountToken), storefront: text(record.storefront),
            appTransactionId: text(record.appTransactionId),
            offerPeriod: record.offerPeriod < 0 ? nil : offerPeriods[Int(record.offerPeriod)],
            offerDiscountType: Self.value(record.offerDiscountType), items: items(record.items),
            linkedPurchaseToken: text(record.linkedToken), purchaseOptionId: purchaseOption(record),
            releaseDate: record.terms < 0 ? nil : Self.instant(terms[Int(record.terms)].release, absent: TransactionRecord.absentDate),
            topUpAfter: record.terms < 0 ? nil : Self.instant(terms[Int(record.terms)].topUpAfter, absent: TransactionRecord.absentDate))
    }

    /// A transaction's purchase option: what follows its product id and `:` in ``PurchaseTermsRecord/optionProduct``.
    func purchaseOption(_ record: TransactionRecord) -> String? {
        guard record.terms >= 0 else { return nil }
        let combined = terms[Int(record.terms)].optionProduct
        guard !combined.isNone else { return nil }
        let skip = record.productId.count + 1
        return text(TextRange(start: combined.start + skip, count: combined.count - skip))
    }

    /// One renewal record as a value.
    func renewal(_ record: RenewalRecord) -> Renewal {
        func bool(_ value: UInt8) -> Bool? { value == 2 ? nil : value == 1 }
        return Renewal(
            productId: text(record.productId), originalTransactionId: text(record.originalTransactionId)!,
            willRenew: bool(record.willRenew), isInBillingRetry: bool(record.isInBillingRetry),
            gracePeriodExpiresDate: Self.instant(record.graceExpires, absent: TransactionRecord.absentDate),
            signedDate: Self.instant(record.signed, absent: TransactionRecord.absentDate),
            renewsTo: text(record.renewsTo), expirationIntent: Self.value(record.expirationIntent),
            winBackOffers: record.winBackOffers.map { range in offerIds[Int(range.lowerBound)..<Int(range.upperBound)].map { text($0)! } },
            appAccountToken: store == .appStore ? text(record.accountToken) : nil,
            pausedUntil: Self.instant(record.pausedUntil, absent: TransactionRecord.absentDate),
            account: store == .appStore ? nil : text(record.accountToken), appTransactionId: text(record.appTransactionId),
            renewalPrice: text(record.renewalPrice), currency: text(record.currency), items: items(record.items))
    }

    /// One consumption record as a value.
    func consumption(_ record: ConsumptionRecord) -> Consumption {
        Consumption(
            id: text(record.id)!, currency: text(record.currency)!, amount: record.amount,
            date: Instant(millisecondsSince1970: record.date))
    }

    /// One grant record as a value.
    func grant(_ record: GrantRecord) -> Grant {
        Grant(
            id: text(record.id)!, features: grantFeatures[Int(record.features.lowerBound)..<Int(record.features.upperBound)].map { text($0)! },
            start: Instant(millisecondsSince1970: record.start), end: Self.instant(record.end, absent: .max),
            revokedAt: Self.instant(record.revoked, absent: .max))
    }

    private static func instant(_ value: Int64, absent: Int64) -> Instant? {
        value == absent ? nil : Instant(millisecondsSince1970: value)
    }

    /// The receipt as a value with strings and instants.
    public var receipt: Receipt {
        Receipt(
            app: app, transactions: transactions.map(transaction), renewals: renewals.map(renewal),
            consumptions: consumptions.map(consumption), environment: environment,
            originalApplicationVersion: originalApplicationVersion,
            originalPurchaseDate: Self.instant(originalPurchase, absent: TransactionRecord.absentDate),
            grants: grants.map(grant), store: store, appTransactionId: appTransactionId, originalPlatform: originalPlatform,
            preorderDate: Self.instant(preorder, absent: TransactionRecord.absentDate),
            consentRescinded: Self.instant(consentRescinded, absent: TransactionRecord.noCancellation), revocations: revocations)
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
    func hash(_ range: TextRange) -> UInt64 { Self.hash(range, in: arena) }

    /// The hash of the text at `range` of `arena`, as ``ByteKeyTable`` computes it.
    static func hash(_ range: TextRange, in arena: [UInt8]) -> UInt64 {
        arena.withUnsafeBytes { raw in
            ByteKeyTable.hash(UnsafeRawBufferPointer(rebasing: raw[Int(range.start)..<Int(range.start + range.count)]))
        }
    }
}

extension ParsedReceipt.Fields {
    /// The fields of a receipt value (see ``ParsedReceipt/init(_:)``).
    init(_ receipt: Receipt) {
        self.init()
        arena.reserveCapacity(receipt.app.utf8.count + receipt.transactions.count * 48)
        appRange = store(receipt.app)
        store = receipt.store
        environment = receipt.environment
        originalApplicationVersion = receipt.originalApplicationVersion
        originalPurchase = receipt.originalPurchaseDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate
        appTransactionId = receipt.appTransactionId
        originalPlatform = receipt.originalPlatform
        preorder = receipt.preorderDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate
        consentRescinded = receipt.consentRescinded?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.noCancellation
        revocations = receipt.revocations
        transactions.reserveCapacity(receipt.transactions.count)
        for transaction in receipt.transactions { append(transaction) }
        for renewal in receipt.renewals { append(renewal) }
        for grant in receipt.grants {
            let id = store(grant.id)
            let first = Int32(grantFeatures.count)
            for feature in grant.features { grantFeatures.append(store(feature)) }
            grants.append(
                GrantRecord(
                    id: id, idHash: hash(id), features: first..<Int32(grantFeatures.count),
                    start: grant.start.clampedToRange.millisecondsSince1970, end: grant.end?.clampedToRange.millisecondsSince1970 ?? .max,
                    revoked: grant.revokedAt?.clampedToRange.millisecondsSince1970 ?? .max))
        }
        for consumption in receipt.consumptions {
            let id = store(consumption.id)
            consumptions.append(
                ConsumptionRecord(
                    id: id, idHash: hash(id), currency: store(consumption.currency),
                    amount: consumption.amount, date: consumption.date.clampedToRange.millisecondsSince1970))
        }
    }

    /// Appends a transaction value as a record.
    mutating func append(_ transaction: Transaction) {
        let id = store(transaction.transactionId)
        var flags: UInt8 = 0
        if transaction.isTrialPeriod { flags |= TransactionRecord.trialPeriod }
        if transaction.isIntroOfferPeriod { flags |= TransactionRecord.introOfferPeriod }
        if transaction.isUpgraded { flags |= TransactionRecord.upgraded }
        if transaction.ownership == .familyShared { flags |= TransactionRecord.familyShared }
        if transaction.pending { flags |= TransactionRecord.pending }
        if transaction.acknowledged == false { flags |= TransactionRecord.unacknowledged }
        var record = TransactionRecord(
            productId: store(transaction.productId), transactionId: id, transactionIdHash: hash(id),
            originalTransactionId: transaction.originalTransactionId.map { store($0) } ?? .none,
            purchase: transaction.purchaseDate.clampedToRange.millisecondsSince1970,
            originalPurchase: transaction.originalPurchaseDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate,
            expires: transaction.expiresDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate,
            cancellation: transaction.cancellationDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.noCancellation,
            quantity: Int32(clamping: transaction.quantity), flags: flags,
            offerType: ParsedReceipt.code(transaction.offerType), revocationReason: ParsedReceipt.code(transaction.revocationReason),
            offerId: transaction.offerId.map { store($0) } ?? .none)
        record.signed = transaction.signedDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate
        record.revocationType = ParsedReceipt.code(transaction.revocationType)
        record.billingPlan = ParsedReceipt.code(transaction.billingPlan)
        record.revocationPercentage = transaction.revocationPercentage.map(ParsedReceipt.thousandths) ?? -1
        record.accountToken = account(appAccountToken: transaction.appAccountToken, account: transaction.account)
        record.storefront = transaction.storefront.map { store($0) } ?? .none
        record.appTransactionId = transaction.appTransactionId.map { store($0) } ?? .none
        record.offerDiscountType = ParsedReceipt.code(transaction.offerDiscountType)
        if let period = transaction.offerPeriod {
            record.offerPeriod = Int32(offerPeriods.count)
            offerPeriods.append(period)
        }
        if let commitment = transaction.commitment {
            record.commitment = Int32(commitments.count)
            commitments.append(
                CommitmentRecord(
                    period: Int32(clamping: commitment.period), periods: Int32(clamping: commitment.periods),
                    ends: commitment.endsAt.clampedToRange.millisecondsSince1970))
        }
        record.items = append(items: transaction.items)
        if let token = transaction.linkedPurchaseToken {
            record.linkedToken = store(token)
            hasLinks = true
        }
        if transaction.purchaseOptionId != nil || transaction.releaseDate != nil || transaction.topUpAfter != nil {
            var terms = PurchaseTermsRecord()
            if let option = transaction.purchaseOptionId { terms.optionProduct = store(transaction.productId + ":" + option) }
            terms.release = transaction.releaseDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate
            terms.topUpAfter = transaction.topUpAfter?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate
            record.terms = Int32(self.terms.count)
            self.terms.append(terms)
        }
        transactions.append(record)
    }

    /// The account a transaction or renewal entry names, as evaluation compares it: an App Store
    /// token lowercase; another store's account as written (its `appAccountToken`, lowercase,
    /// when it has no `account`).
    private mutating func account(appAccountToken: String?, account: String?) -> TextRange {
        if store == .appStore { return appAccountToken.map { self.store($0.lowercased()) } ?? .none }
        return account.map { self.store($0) } ?? appAccountToken.map { self.store($0.lowercased()) } ?? .none
    }

    /// Appends a renewal value as a record.
    mutating func append(_ renewal: Renewal) {
        var record = RenewalRecord(
            productId: renewal.productId.map { store($0) } ?? .none,
            originalTransactionId: store(renewal.originalTransactionId),
            willRenew: renewal.willRenew.map { $0 ? 1 : 0 } ?? 2,
            isInBillingRetry: renewal.isInBillingRetry.map { $0 ? 1 : 0 } ?? 2,
            graceExpires: renewal.gracePeriodExpiresDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate,
            signed: renewal.signedDate?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate,
            renewsTo: renewal.renewsTo.map { store($0) } ?? .none,
            expirationIntent: ParsedReceipt.code(renewal.expirationIntent))
        record.accountToken = account(appAccountToken: renewal.appAccountToken, account: renewal.account)
        record.pausedUntil = renewal.pausedUntil?.clampedToRange.millisecondsSince1970 ?? TransactionRecord.absentDate
        record.appTransactionId = renewal.appTransactionId.map { store($0) } ?? .none
        record.renewalPrice = renewal.renewalPrice.map { store($0) } ?? .none
        record.currency = renewal.currency.map { store($0) } ?? .none
        if let offers = renewal.winBackOffers {
            let first = Int32(offerIds.count)
            for offer in offers { offerIds.append(store(offer)) }
            record.winBackOffers = first..<Int32(offerIds.count)
        }
        record.items = append(items: renewal.items)
        renewals.append(record)
    }
}
