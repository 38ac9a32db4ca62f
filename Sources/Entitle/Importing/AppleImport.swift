import Foundation

/// Reads Apple's receipt formats into normalized receipts, **without verifying any signature**.
///
/// Verifying Apple's signatures needs cryptography, and entitle ships without packages. A receipt
/// that parses is not thereby genuine: a service should verify signed data first (Apple's
/// app-store-server-library does this for JWS and receipts) and hand entitle the verified
/// payloads. Every entry point says "unverified" in its name for that reason.
public enum AppleImport {
    /// The one line `entitle` prints on standard error whenever it reads Apple data.
    public static let notice = "entitle: note: Apple data is read without verifying its signature; verify it before trusting the result"

    /// What a receipt file holds.
    public enum Source: Equatable, Sendable {
        case normalized
        case apple(AppleFormat)
    }

    /// Reads a verifyReceipt response or a v1 server notification.
    ///
    /// - Throws: ``ReceiptError`` with the location of the problem; a non-zero `status` is an
    ///   error naming the status and Apple's meaning of it.
    ///
    /// - Parameter app: the bundle id to use when the data names none (a lone transaction or
    ///   renewal-info object, as copied out of a response).
    public static func unverifiedReceipt(
        fromVerifyReceipt data: Data, name: String = "<receipt>", app: String? = nil
    ) throws(ReceiptError) -> ImportedReceipt {
        try verifyReceipt(data, root: nil, name: name, app: app)
    }

    private static func verifyReceipt(_ data: Data, root parsed: JSONNode?, name: String, app: String?) throws(ReceiptError) -> ImportedReceipt {
        let root: JSONNode
        if let parsed { root = parsed } else { root = try parseJSON(data, name: name) }
        var warnings: [ImportWarning] = []
        do {
            let receipt = try VerifyReceiptMapper.map(root, app: app, warnings: &warnings)
            return ImportedReceipt(receipt: receipt, format: .verifyReceipt, warnings: warnings)
        } catch {
            throw locate(error, data: data, name: name)
        }
    }

    /// Reads App Store Server API / StoreKit 2 data: decoded payloads, compact JWS strings (alone,
    /// in arrays or in JSON), transaction-history, subscription-status and notification bodies.
    ///
    /// - Parameter app: the bundle id to use when the data names none (renewal info alone).
    public static func unverifiedReceipt(fromAppStore data: Data, name: String = "<receipt>", app: String? = nil) throws(ReceiptError) -> ImportedReceipt {
        try appStore(data, root: nil, name: name, app: app)
    }

    private static func appStore(_ data: Data, root parsed: JSONNode?, name: String, app: String?) throws(ReceiptError) -> ImportedReceipt {
        let root: JSONNode
        if let parsed {
            root = parsed
        } else {
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if CompactJWS.looksLike(text) {
                root = JSONNode(offset: 0, value: .string(text))
            } else {
                root = try parseJSON(data, name: name)
            }
        }
        var mapper = AppStoreMapper()
        do {
            try mapper.map(root, path: "")
        } catch {
            throw locate(error, data: data, name: name)
        }
        let apps = app.map { [$0] } ?? mapper.apps
        guard apps.count == 1 else {
            throw ReceiptError(
                code: .badValue,
                message: apps.isEmpty ? "the data names no app (no `bundleId`)" : "the data is for several apps: \(CatalogChecker.list(apps))",
                location: SourceLocation(file: name, line: 1, column: 1),
                help: apps.isEmpty ? "renewal info carries no bundle id: give the app (`--app`)" : "normalize each app's data separately")
        }
        let receipt = Receipt(app: apps[0], transactions: Transaction.mergingCopies(mapper.transactions), renewals: mapper.renewals,
                              environment: mapper.environment, originalApplicationVersion: mapper.originalApplicationVersion)
        var warnings = mapper.warnings
        if receipt.transactions.isEmpty, receipt.renewals.isEmpty, receipt.originalApplicationVersion == nil,
           !warnings.contains(where: { $0.message.hasSuffix("carries no transaction") }) {
            warnings.append(ImportWarning(path: "", message: "the data carries no transaction or renewal info"))
        }
        return ImportedReceipt(receipt: receipt, format: .appStore, warnings: warnings)
    }

    /// Reads an app receipt: PKCS#7 `signedData`, as DER bytes or base64 text.
    public static func unverifiedReceipt(fromPKCS7 data: Data, name: String = "<receipt>") throws(ReceiptError) -> ImportedReceipt {
        guard data.count <= ReceiptDecoder.maxBytes else {
            throw ReceiptError(code: .malformedJSON, message: "receipt is \(data.count) bytes, over the limit",
                               location: SourceLocation(file: name, line: 1, column: 1))
        }
        guard let der = AppReceiptMapper.der(data) else {
            throw ReceiptError(code: .malformedJSON, message: "not a PKCS#7 app receipt: neither DER nor base64 of DER",
                               location: SourceLocation(file: name, line: 1, column: 1))
        }
        var warnings: [ImportWarning] = []
        do {
            let receipt = try AppReceiptMapper.map(der, warnings: &warnings)
            return ImportedReceipt(receipt: receipt, format: .pkcs7, warnings: warnings)
        } catch {
            throw ReceiptError(code: .malformedJSON, message: "\(error.message) (at byte \(error.offset) of the DER data)",
                               location: SourceLocation(file: name, line: 1, column: 1))
        }
    }

    /// Reads any of the three formats, recognizing it from the content unless `format` is given.
    public static func unverifiedReceipt(
        from data: Data, name: String = "<receipt>", format: AppleFormat? = nil, app: String? = nil
    ) throws(ReceiptError) -> ImportedReceipt {
        var chosen = format
        var root: JSONNode?
        if chosen == nil {
            guard case .apple(let detected)? = detect(data, root: &root) else { throw unrecognized(name) }
            chosen = detected
        }
        switch chosen! {
        case .verifyReceipt: return try verifyReceipt(data, root: root, name: name, app: app)
        case .appStore: return try appStore(data, root: root, name: name, app: app)
        case .pkcs7: return try unverifiedReceipt(fromPKCS7: data, name: name)
        }
    }

    /// Recognizes what a receipt file holds, or `nil` when it is none of the known formats.
    public static func detect(_ data: Data) -> Source? {
        var root: JSONNode?
        return detect(data, root: &root)
    }

    /// ``detect(_:)``, also handing back the JSON tree it built for Apple data so it is not parsed
    /// twice. A normalized receipt is recognized from its top-level member names alone, without a tree.
    static func detect(_ data: Data, root: inout JSONNode?) -> Source? {
        guard let first = data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) else { return nil }
        if first == UInt8(ascii: "{"), let keys = topLevelKeys(data) {
            if keys.contains("app") { return .normalized }
        } else if first == UInt8(ascii: "{") {
            // Malformed JSON: let the normalized decoder say where.
            return .normalized
        }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") {
            guard let parsed = try? JSONDocument.parse(data, limits: jsonLimits).root else { return nil }
            root = parsed
            if VerifyReceiptMapper.recognizes(parsed) { return .apple(.verifyReceipt) }
            if AppStoreMapper.recognizes(parsed) { return .apple(.appStore) }
            return nil
        }
        let text = String(decoding: data.prefix(64 << 10), as: UTF8.self)
        if CompactJWS.looksLike(text) { return .apple(.appStore) }
        if AppReceiptMapper.der(data) != nil { return .apple(.pkcs7) }
        return nil
    }

    /// The member names of a top-level JSON object, read without building values; `nil` when the
    /// text is not one well-formed object.
    private static func topLevelKeys(_ data: Data) -> [String]? {
        guard data.count <= ReceiptDecoder.maxBytes else { return nil }
        return data.withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw, maxDepth: jsonLimits.maxDepth)
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

    /// The error for content that is none of the known formats.
    static func unrecognized(_ name: String) -> ReceiptError {
        ReceiptError(
            code: .malformedJSON, message: "unrecognized receipt format",
            location: SourceLocation(file: name, line: 1, column: 1),
            help: "tried a normalized receipt (JSON with `app`), a verifyReceipt response, App Store Server API or "
                + "StoreKit 2 data (JSON or a compact JWS), and a PKCS#7 app receipt (DER or base64); name one with `--from`")
    }

    static let jsonLimits = JSONDocument.Limits(maxBytes: ReceiptDecoder.maxBytes, maxDepth: 64)

    private static func parseJSON(_ data: Data, name: String) throws(ReceiptError) -> JSONNode {
        do {
            return try JSONDocument.parse(data, limits: jsonLimits).root
        } catch let error as JSONSyntaxError {
            let (line, column) = LineTable(data).location(of: error.offset)
            throw ReceiptError(code: .malformedJSON, message: error.message,
                               location: SourceLocation(file: name, line: line, column: column))
        } catch {
            throw ReceiptError(code: .malformedJSON, message: "\(error)", location: SourceLocation(file: name, line: 1, column: 1))
        }
    }

    private static func locate(_ failure: ImportFailure, data: Data, name: String) -> ReceiptError {
        let (line, column) = LineTable(data).location(of: failure.offset)
        return ReceiptError(code: .badValue, message: failure.message,
                            location: SourceLocation(file: name, line: line, column: column), path: failure.path, help: failure.help)
    }
}
