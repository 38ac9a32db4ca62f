import Foundation

/// Reads Apple's receipt formats into normalized receipts, **without verifying any signature**.
///
/// A receipt that parses is not thereby genuine. ``AppleSignatureVerifier`` verifies signed data
/// first (JWS and app receipts, with the platform's cryptography: the package trait
/// `SystemCrypto`) and then reads it as these do. Every entry point here says "unverified" in its
/// name for that reason.
public enum AppleImport {
    /// The one line `entitle` prints on standard error whenever it reads Apple data.
    public static let notice = "entitle: note: Apple data is read without verifying its signature; verify it before trusting the result (`--verify`)"

    /// What a receipt file holds.
    ///
    /// Closed: a receipt file is normalized or imported; new formats are ``ReceiptFormat`` values.
    public enum Source: Equatable, Sendable {
        /// A normalized receipt (JSON with `app`).
        case normalized
        /// One of the stores' formats.
        case imported(ReceiptFormat)

        /// One of Apple's formats (an ``imported(_:)`` source).
        public static func apple(_ format: ReceiptFormat) -> Source { .imported(format) }
    }

    /// Reads a verifyReceipt response or a v1 server notification.
    ///
    /// - Parameters:
    ///   - data: the response or notification, as JSON bytes.
    ///   - name: the file name errors are located in.
    ///   - app: the bundle id of data that names none (a lone transaction or renewal-info object,
    ///     as copied out of a response). Data that names another app is an error: a receipt of
    ///     one app never counts for another.
    /// - Throws: ``ReceiptError`` with the location of the problem; a non-zero `status` is an
    ///   error naming the status and Apple's meaning of it.
    public static func unverifiedReceipt(
        fromVerifyReceipt data: Data, name: String = "<receipt>", app: String? = nil
    ) throws(ReceiptError) -> ImportedReceipt {
        try verifyReceipt(data, root: nil, name: name, app: AppOption(app: app, strict: true))
    }

    private static func verifyReceipt(_ data: Data, root parsed: JSONNode?, name: String, app: AppOption) throws(ReceiptError) -> ImportedReceipt {
        let root: JSONNode
        if let parsed { root = parsed } else { root = try parseJSON(data, name: name) }
        var warnings: [ImportWarning] = []
        let receipt: Receipt
        do throws(ImportFailure) {
            receipt = try VerifyReceiptMapper.map(root, app: app, warnings: &warnings)
        } catch {
            throw locate(error, data: data, name: name)
        }
        return try checked(ImportedReceipt(receipt: receipt, format: .verifyReceipt, warnings: warnings), name: name)
    }

    /// Reads App Store Server API / StoreKit 2 data: decoded payloads, compact JWS strings (alone,
    /// in arrays or in JSON), transaction-history, subscription-status and notification bodies.
    ///
    /// - Parameters:
    ///   - data: the payloads, JWS strings or bodies, as JSON bytes or a bare compact JWS.
    ///   - name: the file name errors are located in.
    ///   - app: the bundle id of data that names none (renewal info alone). Data that names
    ///     another app is an error.
    public static func unverifiedReceipt(fromAppStore data: Data, name: String = "<receipt>", app: String? = nil) throws(ReceiptError)
        -> ImportedReceipt
    {
        try appStore(data, root: nil, name: name, app: AppOption(app: app, strict: true))
    }

    /// App Store data read as a receipt; with `verification`, every JWS is verified before its
    /// payload is read (see ``AppleSignatureVerifier``).
    static func appStore(
        _ data: Data, root parsed: JSONNode?, name: String, app option: AppOption, verification: JWSVerification? = nil
    ) throws(ReceiptError) -> ImportedReceipt {
        let root: JSONNode
        if let parsed {
            root = parsed
        } else if CompactJWS.looksLike(data) {
            root = JSONNode(offset: 0, value: .string(String(decoding: data, as: UTF8.self)))
        } else if CompactJWS.resembles(data), let problem = data.withUnsafeBytes({ CompactJWS.problem($0) }) {
            throw ReceiptError(
                code: .malformedJSON, message: "a compact JWS that is damaged: \(problem)", location: SourceLocation(file: name, line: 1, column: 1),
                help: "Apple's signed data is `header.payload.signature`, each part base64url: give it whole, as Apple sent it")
        } else {
            root = try parseJSON(data, name: name)
        }
        var mapper = AppStoreMapper()
        mapper.verification = verification
        let app: String
        do throws(ImportFailure) {
            try mapper.map(root, path: "")
            app = try option.resolve(
                apps: mapper.apps, path: "bundleId", missing: "the data names no app (no `bundleId`)",
                help: "renewal info carries no bundle id: give the app (`--app`)")
        } catch {
            throw locate(error, data: data, name: name)
        }
        let receipt = Receipt(
            app: app, transactions: Transaction.mergingCopies(mapper.transactions), renewals: mapper.renewals,
            environment: mapper.environment, originalApplicationVersion: mapper.originalApplicationVersion,
            originalPurchaseDate: mapper.originalPurchaseDate, appTransactionId: mapper.appTransactionId,
            originalPlatform: mapper.originalPlatform, preorderDate: mapper.preorderDate, consentRescinded: mapper.consentRescinded)
        var warnings = mapper.warnings
        if let note = ImportWarning.dropped(mapper.dropped) { warnings.append(note) }
        if receipt.transactions.isEmpty, receipt.renewals.isEmpty, receipt.originalApplicationVersion == nil,
            receipt.appTransactionId == nil, receipt.consentRescinded == nil,
            !warnings.contains(where: { $0.message.hasSuffix("carries no transaction") })
        {
            warnings.append(ImportWarning(path: "", message: "the data carries no transaction or renewal info"))
        }
        return try checked(
            ImportedReceipt(receipt: receipt, format: .appStore, warnings: warnings, notifications: mapper.notifications), name: name)
    }

    /// Reads an app receipt: PKCS#7 `signedData`, as DER bytes or base64 text.
    ///
    /// - Parameters:
    ///   - data: the receipt's bytes: DER, or base64 text of DER.
    ///   - name: the file name errors are located in.
    ///   - app: when given, the receipt must be this app's (its bundle id attribute).
    public static func unverifiedReceipt(fromPKCS7 data: Data, name: String = "<receipt>", app: String? = nil) throws(ReceiptError) -> ImportedReceipt
    {
        try pkcs7(data, name: name, app: AppOption(app: app, strict: true))
    }

    private static func pkcs7(_ data: Data, name: String, app option: AppOption) throws(ReceiptError) -> ImportedReceipt {
        let start = SourceLocation(file: name, line: 1, column: 1)
        guard data.count <= ReceiptDecoder.maxBytes else {
            throw ReceiptError(
                code: .limitExceeded, message: "receipt is \(data.count) bytes, over the limit of \(ReceiptDecoder.maxBytes) bytes",
                location: start)
        }
        guard let der = AppReceiptMapper.der(data) else {
            throw ReceiptError(code: .malformedJSON, message: "not a PKCS#7 app receipt: neither DER nor base64 of DER", location: start)
        }
        var warnings: [ImportWarning] = []
        var receipt: Receipt
        do {
            receipt = try AppReceiptMapper.map(der, warnings: &warnings)
        } catch {
            throw ReceiptError(code: .malformedJSON, message: "\(error.message) (at byte \(error.offset) of the DER data)", location: start)
        }
        do {
            receipt.app = try option.resolve(named: receipt.app, at: 0, path: "attribute 2") ?? receipt.app
        } catch {
            throw ReceiptError(code: .badValue, message: error.message, location: start, path: error.path, help: error.help)
        }
        return try checked(ImportedReceipt(receipt: receipt, format: .pkcs7, warnings: warnings), name: name)
    }

    /// Reads any of the stores' formats (Apple's three, Stripe's and Play's), recognizing it from
    /// the content unless `format` is given.
    ///
    /// - Parameters:
    ///   - data: the file's bytes, in any of the formats.
    ///   - name: the file name errors are located in.
    ///   - format: the format to read, when it is known; `nil` recognizes it from the content.
    ///   - app: the bundle id of data that names none; data naming another app is an error.
    public static func unverifiedReceipt(
        from data: Data, name: String = "<receipt>", format: ReceiptFormat? = nil, app: String? = nil
    ) throws(ReceiptError) -> ImportedReceipt {
        try unverifiedReceipt(from: data, name: name, format: format, app: AppOption(app: app, strict: true))
    }

    /// ``unverifiedReceipt(from:name:format:app:)`` with the app option's strictness chosen:
    /// `entitle check --app` only fills in data that names no app, since the other receipts a
    /// customer holds may be other apps' (for upgrade pricing).
    package static func unverifiedReceipt(
        from data: Data, name: String, format: ReceiptFormat?, root given: JSONNode? = nil, app: AppOption
    ) throws(ReceiptError) -> ImportedReceipt {
        var chosen = format
        // The tree ``detect(_:root:)`` built already, when the caller recognized the data.
        var root = given
        if chosen == nil {
            guard case .imported(let detected)? = detect(data, root: &root) else { throw unrecognized(name) }
            chosen = detected
        }
        switch chosen! {
        case .verifyReceipt: return try verifyReceipt(data, root: root, name: name, app: app)
        case .appStore: return try appStore(data, root: root, name: name, app: app)
        case .pkcs7: return try pkcs7(data, name: name, app: app)
        case .stripe: return try StoreImport.stripe(data, root: root, name: name, app: app)
        case .play: return try StoreImport.play(data, root: root, name: name, app: app)
        }
    }

    /// The imported receipt when it keeps ``ReceiptLimits``, so that whatever `normalize` prints,
    /// `check` reads.
    static func checked(_ imported: ImportedReceipt, name: String) throws(ReceiptError) -> ImportedReceipt {
        if let (path, message) = imported.receipt.limitViolation {
            throw ReceiptError(
                code: .limitExceeded, message: "the normalized receipt would break a limit: \(message)",
                location: SourceLocation(file: name, line: 1, column: 1), path: path,
                help: "see ReceiptLimits (README: Limits)")
        }
        return imported
    }

    /// Recognizes what a receipt file holds, or `nil` when it is none of the known formats.
    public static func detect(_ data: Data) -> Source? {
        var root: JSONNode?
        return detect(data, root: &root)
    }

    /// ``detect(_:)``, also handing back the JSON tree it built for Apple data so it is not parsed
    /// twice. A normalized receipt is recognized from its top-level member names alone, without a tree.
    package static func detect(_ data: Data, root: inout JSONNode?) -> Source? {
        guard let first = data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) else { return nil }
        if first == UInt8(ascii: "{"), let keys = topLevelKeys(data) {
            if keys.contains("app") { return .normalized }
        } else if first == UInt8(ascii: "{") {
            // Malformed JSON: let the normalized decoder say where.
            return .normalized
        }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") {
            guard let parsed = try? JSONDocument.parse(data, limits: jsonLimits).root else {
                // Too deep or too large to read as a tree: still say whose data it looks like, so
                // its reader reports the limit instead of "unrecognized".
                let keys = first == UInt8(ascii: "{") ? topLevelKeys(data) ?? [] : []
                // Stripe's objects name their type; Play's resources their kind.
                if keys.contains("object") { return .imported(.stripe) }
                if keys.contains("kind") || keys.contains("purchaseToken") { return .imported(.play) }
                if keys.contains(where: verifyReceiptKeys.contains) { return .apple(.verifyReceipt) }
                if keys.contains(where: appStoreKeys.contains) { return .apple(.appStore) }
                return nil
            }
            root = parsed
            // Stripe's and Play's first: their objects may have a `status`, as verifyReceipt's do.
            if StripeMapper.recognizes(parsed) { return .imported(.stripe) }
            if PlayMapper.recognizes(parsed) { return .imported(.play) }
            if VerifyReceiptMapper.recognizes(parsed) { return .apple(.verifyReceipt) }
            if AppStoreMapper.recognizes(parsed) { return .apple(.appStore) }
            return nil
        }
        // A JWS cut short or damaged is still Apple's: its reader says what is wrong with it.
        if CompactJWS.looksLike(data) || CompactJWS.resembles(data) {
            return .apple(.appStore)
        }
        if AppReceiptMapper.der(data) != nil { return .apple(.pkcs7) }
        return nil
    }

    /// Top-level member names that only verifyReceipt responses, or only App Store data, have.
    private static let verifyReceiptKeys: Set<String> = ["status", "receipt", "latest_receipt_info", "pending_renewal_info"]
    private static let appStoreKeys: Set<String> = [
        "signedPayload", "signedTransactionInfo", "signedRenewalInfo", "signedTransactions", "signedAppTransactionInfo", "notificationHistory",
    ]

    /// The member names of a top-level JSON object, read without building values; `nil` when the
    /// text is not one well-formed object. Nesting deeper than any format allows is still read
    /// here (up to 1,024 levels), so the format's own reader can say it is too deep.
    private static func topLevelKeys(_ data: Data) -> [String]? {
        guard data.count <= ReceiptDecoder.maxBytes else { return nil }
        return data.withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw, maxDepth: 1_024)
            var keys: [String] = []
            do {
                try reader.readObject { reader, key in
                    keys.append(key.string)
                    try reader.skipValue()
                }
                try reader.finish()
            } catch {
                return nil
            }
            return keys
        }
    }

    /// The error for content that is none of the known formats; `choose` says how the caller
    /// names a format (the library's `format:`, the command line's `--from`).
    package static func unrecognized(_ name: String, choose: String = "pass its `format:`") -> ReceiptError {
        ReceiptError(
            code: .malformedJSON, message: "unrecognized receipt format",
            location: SourceLocation(file: name, line: 1, column: 1),
            help: "tried a normalized receipt (JSON with `app`), a verifyReceipt response, App Store Server API or "
                + "StoreKit 2 data (JSON or a compact JWS), a PKCS#7 app receipt (DER or base64), Stripe objects and "
                + "Google Play purchases; \(choose)")
    }

    static let jsonLimits = JSONDocument.Limits(maxBytes: ReceiptDecoder.maxBytes, maxDepth: 64)

    static func parseJSON(_ data: Data, name: String) throws(ReceiptError) -> JSONNode {
        try parseDocument(data, name: name, limits: jsonLimits).root
    }

    /// A located tree of JSON read from an Apple file; malformed JSON is a located
    /// `malformed-json` error.
    static func parseDocument(_ data: Data, name: String, limits: JSONDocument.Limits) throws(ReceiptError) -> JSONDocument {
        do {
            return try JSONDocument.parse(data, limits: limits)
        } catch let error as JSONSyntaxError {
            let (line, column) = LineTable(data).location(of: error.offset)
            throw ReceiptError(
                code: .malformedJSON, message: error.message,
                location: SourceLocation(file: name, line: line, column: column), help: error.help)
        } catch {
            throw ReceiptError(code: .malformedJSON, message: "\(error)", location: SourceLocation(file: name, line: 1, column: 1))
        }
    }

    static func locate(_ failure: ImportFailure, data: Data, name: String) -> ReceiptError {
        let (line, column) = LineTable(data).location(of: failure.offset)
        return ReceiptError(
            code: .badValue, message: failure.message,
            location: SourceLocation(file: name, line: line, column: column), path: failure.path, help: failure.help)
    }
}
