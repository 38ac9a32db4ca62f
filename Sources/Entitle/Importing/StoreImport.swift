import Foundation

/// Reads the data of stores other than Apple's into normalized receipts: Stripe's objects (a web
/// checkout) and Google Play's purchase resources, **as given**.
///
/// Neither carries a signature entitle checks: Stripe's objects are as trustworthy as the way
/// they were fetched (Stripe's API over TLS, or a webhook whose `Stripe-Signature` the service
/// verified), Play's as the Android Publisher API call that returned them. Every entry point
/// says "unverified" in its name for that reason. ``AppleImport/unverifiedReceipt(from:name:format:app:)``
/// reads these formats too, recognizing them from the content.
public enum StoreImport {
    /// The line `entitle` prints on standard error when it reads a store's data as given.
    public static func notice(for format: ReceiptFormat) -> String {
        switch format {
        case .verifyReceipt, .appStore, .pkcs7: AppleImport.notice
        case .stripe:
            "entitle: note: Stripe data is read as given; trust it as far as it came from Stripe's API or a verified webhook"
        case .play:
            "entitle: note: Google Play data is read as given; trust it as far as it came from the Android Publisher API"
        }
    }

    /// Reads Stripe's objects (see ``ReceiptFormat/stripe``) as one receipt of store `stripe`.
    ///
    /// - Parameters:
    ///   - data: Subscriptions, Checkout Sessions (with `line_items`), Charges, Refunds, Invoices,
    ///     Events around them, lists of them, or an array of any of these, as JSON bytes.
    ///   - name: the file name errors are located in.
    ///   - app: the app the purchases are for: Stripe's objects name none, so it is required.
    public static func unverifiedReceipt(fromStripe data: Data, name: String = "<receipt>", app: String) throws(ReceiptError)
        -> ImportedReceipt
    {
        try stripe(data, root: nil, name: name, app: AppOption(app: app, strict: true))
    }

    /// Reads Google Play's purchases (see ``ReceiptFormat/play``) as one receipt of store `play`.
    ///
    /// - Parameters:
    ///   - data: SubscriptionPurchaseV2, ProductPurchaseV2 or ProductPurchase resources, records
    ///     of them (with `packageName`, `purchaseToken` and `eventTimeMillis`), voided purchases,
    ///     or an array of any of these, as JSON bytes.
    ///   - name: the file name errors are located in.
    ///   - app: the package of data that names none; data naming another package is an error.
    ///   - token: the purchase token of a resource read alone (Play's resources do not carry
    ///     theirs); a record's own `purchaseToken` wins.
    public static func unverifiedReceipt(
        fromPlay data: Data, name: String = "<receipt>", app: String? = nil, token: String? = nil
    ) throws(ReceiptError) -> ImportedReceipt {
        try play(data, root: nil, name: name, app: AppOption(app: app, strict: true), token: token)
    }

    static func stripe(_ data: Data, root parsed: JSONNode?, name: String, app option: AppOption) throws(ReceiptError) -> ImportedReceipt {
        let root: JSONNode
        if let parsed { root = parsed } else { root = try AppleImport.parseJSON(data, name: name) }
        var mapper = StripeMapper()
        let app: String
        do throws(ImportFailure) {
            try mapper.map(root)
            guard let resolved = option.app ?? option.byProducts?(Array(Set(mapper.transactions.map(\.productId))).sorted()) else {
                throw ImportFailure(
                    offset: 0, message: "Stripe's objects name no app", help: "give the app the purchases are for (`--app`)")
            }
            app = resolved
        } catch {
            throw AppleImport.locate(error, data: data, name: name)
        }
        return try finished(
            Receipt(
                app: app, transactions: Transaction.mergingCopies(mapper.transactions), renewals: mapper.renewals, store: .stripe,
                revocations: mapper.revocations),
            format: .stripe, warnings: mapper.warnings, name: name)
    }

    package static func play(
        _ data: Data, root parsed: JSONNode?, name: String, app option: AppOption, token: String? = nil
    ) throws(ReceiptError) -> ImportedReceipt {
        let root: JSONNode
        if let parsed { root = parsed } else { root = try AppleImport.parseJSON(data, name: name) }
        var mapper = PlayMapper()
        let app: String
        do throws(ImportFailure) {
            try mapper.map(root, token: token.flatMap { $0.isEmpty ? nil : $0 })
            app = try option.resolve(
                apps: mapper.apps, path: "packageName", missing: "the data names no app (no `packageName`)",
                help: "Play's resources name no package: give the app (`--app`), or records with `packageName`")
        } catch {
            throw AppleImport.locate(error, data: data, name: name)
        }
        return try finished(
            Receipt(
                app: app, transactions: Transaction.mergingCopies(mapper.transactions), renewals: mapper.renewals,
                environment: mapper.environment, store: .play, revocations: mapper.revocations),
            format: .play, warnings: mapper.warnings, name: name, notifications: mapper.notifications, toFetch: mapper.toFetch)
    }

    private static func finished(
        _ receipt: Receipt, format: ReceiptFormat, warnings: [ImportWarning], name: String, notifications: [NotificationInfo] = [],
        toFetch: [PurchaseToFetch] = []
    ) throws(ReceiptError) -> ImportedReceipt {
        var warnings = warnings
        if receipt.transactions.isEmpty, receipt.renewals.isEmpty, receipt.revocations.isEmpty, notifications.isEmpty {
            warnings.append(ImportWarning(path: "", message: "the data carries no purchase"))
        }
        return try AppleImport.checked(
            ImportedReceipt(receipt: receipt, format: format, warnings: warnings, notifications: notifications, toFetch: toFetch), name: name)
    }
}
