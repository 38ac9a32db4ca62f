import Foundation

/// Verifies that App Store data is Apple's, for one app, before reading it as a receipt: the
/// verifying counterpart of ``AppleImport``'s `unverifiedReceipt` calls.
///
/// For App Store Server API and StoreKit 2 data (transactions, renewal info, app transactions,
/// notifications, and the signed values nested in them or listed in responses), every JWS is
/// checked as Apple's `SignedDataVerifier` checks it:
///
/// 1. the header's `alg` is `ES256` (else ``VerificationError/Code/unsupportedAlgorithm``);
/// 2. its `x5c` chain, leaf and intermediate, leads to one of `trustedRoots`: the chain is
///    anchored on the trusted root, never on the root certificate the data carries
///    (``VerificationError/Code/untrustedChain``);
/// 3. every certificate is valid at the verification instant: the payload's `signedDate`, or the
///    instant given (``VerificationError/Code/certificateExpired``);
/// 4. the leaf carries Apple's receipt-signing extension (OID 1.2.840.113635.100.6.11.1) and the
///    intermediate Apple's WWDR extension (OID 1.2.840.113635.100.6.2.1), so a certificate Apple
///    issued to a developer cannot sign (``VerificationError/Code/notApple``);
/// 5. the ES256 signature over `header.payload` verifies with the leaf's key
///    (``VerificationError/Code/badSignature``);
/// 6. the payload's `bundleId` is `app` and its `environment` one of `environments`
///    (``VerificationError/Code/wrongApp``, ``VerificationError/Code/wrongEnvironment``).
///
/// For app receipts (PKCS#7): the signer's chain to a trusted root, valid at the receipt's
/// creation date (attribute 12) or the instant given, with the same marker extensions; the
/// signature over the content; then the bundle id (attribute 2) and the receipt type
/// (attribute 0) as above.
///
/// Data Xcode signs verifies only when the caller trusts Xcode's certificate. Xcode's JWS (header
/// `kid` `Apple_Xcode_Key`) carry one self-signed certificate, "StoreKit Testing in Xcode": they
/// verify when that very certificate is among `trustedRoots` and the payload's environment is
/// `Xcode`. Xcode's app receipts are signed by the StoreKit test certificate
/// (`StoreKitTestCertificate.cer`, which Xcode exports); giving it as a trusted root verifies them.
///
/// The checks are the platform's cryptography (OpenSSL 3's libcrypto on Linux, Security.framework
/// on Apple platforms), compiled only with the package trait `SystemCrypto`. Without it every
/// method throws ``VerificationError/Code/unavailable``; ``isAvailable`` says which build this
/// is. Nothing reads the clock: without `at`, each signature is checked at the instant Apple
/// signed it.
public struct AppleSignatureVerifier: Sendable {
    /// The root certificates (DER) a chain must lead to, such as Apple's `AppleRootCA-G3.cer`
    /// (App Store JWS) and `AppleIncRootCertificate.cer` (app receipts).
    public var trustedRoots: [Data]
    /// The bundle id the signed data must be for, and the app of data that names none (renewal
    /// info alone).
    public var app: String
    /// Every bundle id the signed data may be for: ``app``, and the other apps of a service that
    /// serves several (``init(trustedRoots:apps:environments:at:unsignedPayloadInstant:trustedRootNames:)``).
    /// Signed data names its app (a notification's renewal info is read with its transaction's);
    /// renewal info alone names none and is ``app``'s.
    public var apps: Set<String>
    /// The environments accepted (`production`, `sandbox`, `xcode`, `local-testing`; Apple's
    /// spellings `Production`, `Sandbox`, ... are read as these); `nil` accepts every environment.
    public var environments: Set<String>?
    /// The instant certificates must be valid at; `nil` for each payload's `signedDate` (an app
    /// receipt's creation date).
    public var instant: Instant?
    /// The instant a payload that carries no `signedDate` (a `TEST` notification, an app receipt
    /// without a creation date) is verified at, as Apple's `SignedDataVerifier` verifies it at the
    /// current time; `nil`: such a payload is refused as `malformed`. `entitle` passes `--at`
    /// (default now); the library never reads the clock.
    public var unsignedPayloadInstant: Instant?
    /// Names for the trusted roots, in their order (the files they came from), that an
    /// `untrusted-chain` error lists as the roots tried; `nil`: it counts them.
    public var trustedRootNames: [String]?

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - trustedRoots: root certificates, DER (`.cer` files as Apple publishes them).
    ///   - app: the bundle id the data must be for.
    ///   - environments: the environments accepted; `nil` for all.
    ///   - instant: when the certificates must be valid; `nil` for when the data was signed.
    ///   - unsignedPayloadInstant: when a payload without `signedDate` is verified; `nil` refuses it.
    ///   - trustedRootNames: names for the roots (their files), for errors.
    public init(
        trustedRoots: [Data], app: String, environments: Set<String>? = nil, at instant: Instant? = nil,
        unsignedPayloadInstant: Instant? = nil, trustedRootNames: [String]? = nil
    ) {
        self.trustedRoots = trustedRoots
        self.app = app
        apps = [app]
        self.environments = environments
        self.instant = instant
        self.unsignedPayloadInstant = unsignedPayloadInstant
        self.trustedRootNames = trustedRootNames
    }

    /// Creates a verifier for a service of several apps: signed data is accepted for any of
    /// `apps` (read as the app it names), and data naming none is the first's.
    ///
    /// - Parameters:
    ///   - trustedRoots: root certificates, DER (`.cer` files as Apple publishes them).
    ///   - apps: the bundle ids the data may be for, at least one; the first is the app of data
    ///     naming none.
    ///   - environments: the environments accepted; `nil` for all.
    ///   - instant: when the certificates must be valid; `nil` for when the data was signed.
    ///   - unsignedPayloadInstant: when a payload without `signedDate` is verified; `nil` refuses it.
    ///   - trustedRootNames: names for the roots (their files), for errors.
    public init(
        trustedRoots: [Data], apps: [String], environments: Set<String>? = nil, at instant: Instant? = nil,
        unsignedPayloadInstant: Instant? = nil, trustedRootNames: [String]? = nil
    ) {
        self.init(
            trustedRoots: trustedRoots, app: apps.first ?? "", environments: environments, at: instant,
            unsignedPayloadInstant: unsignedPayloadInstant, trustedRootNames: trustedRootNames)
        self.apps = Set(apps.isEmpty ? [""] : apps)
    }

    /// What an `untrusted-chain` error says was tried: `tried AppleRootCA-G3.cer`.
    private var rootsTried: String {
        if let names = trustedRootNames, names.count == trustedRoots.count, !names.isEmpty {
            return "tried " + names.map { Diagnostic.excerpt($0) }.joined(separator: ", ")
        }
        return "tried \(trustedRoots.count) trusted root\(trustedRoots.count == 1 ? "" : "s") (`trustedRoots`)"
    }

    /// Whether this build verifies signatures: built with the `SystemCrypto` trait on a platform
    /// with system cryptography entitle uses. When `false`, every method throws
    /// ``VerificationError/Code/unavailable``.
    public static var isAvailable: Bool { SystemCrypto.isAvailable }

    /// Verifies every JWS in App Store Server API / StoreKit 2 data, then reads it as
    /// ``AppleImport/unverifiedReceipt(fromAppStore:name:app:)`` does.
    ///
    /// Only signed values are read: a decoded payload outside any JWS is refused
    /// (``VerificationError/Code/unsigned``), and the unsigned members of a response around the
    /// JWS (`bundleId`, `environment`) are ignored.
    ///
    /// - Parameters:
    ///   - data: the App Store data, as it came.
    ///   - name: the file name errors are located in.
    /// - Returns: the receipt, with what could not be mapped.
    /// - Throws: ``VerificationError``: the first JWS that fails, located; or, for data entitle
    ///   cannot read, code `malformed` with the receipt error as ``VerificationError/underlying``.
    public func verifiedReceipt(fromAppStore data: Data, name: String = "<receipt>") throws(VerificationError) -> ImportedReceipt {
        try verifiedReceipt(from: data, name: name, format: .appStore, app: AppOption(app: app, strict: true))
    }

    /// Verifies an app receipt (PKCS#7, DER or base64), then reads it as
    /// ``AppleImport/unverifiedReceipt(fromPKCS7:name:app:)`` does.
    ///
    /// - Parameters:
    ///   - data: the app receipt, DER or base64.
    ///   - name: the file name errors are located in.
    /// - Returns: the receipt, with what could not be mapped.
    /// - Throws: ``VerificationError``; for data that is not an app receipt, code `malformed`
    ///   with the receipt error as ``VerificationError/underlying``.
    public func verifiedReceipt(fromPKCS7 data: Data, name: String = "<receipt>") throws(VerificationError) -> ImportedReceipt {
        try verifiedReceipt(from: data, name: name, format: .pkcs7, app: AppOption(app: app, strict: true))
    }

    /// Verifies signed Apple data of either signed format, recognized from its content unless
    /// `format` is given, then reads it.
    ///
    /// A verifyReceipt response carries no signature (Apple's server answered it over TLS): it
    /// fails with ``VerificationError/Code/unsigned``; verify the app receipt it was made from.
    ///
    /// - Parameters:
    ///   - data: the signed data, as it came.
    ///   - name: the file name errors are located in.
    ///   - format: the format, when it should not be recognized from the content.
    /// - Returns: the receipt, with what could not be mapped.
    /// - Throws: ``VerificationError``.
    public func verifiedReceipt(from data: Data, name: String = "<receipt>", format: ReceiptFormat? = nil) throws(VerificationError)
        -> ImportedReceipt
    {
        try verifiedReceipt(from: data, name: name, format: format, app: AppOption(app: app, strict: true))
    }

    /// ``verifiedReceipt(from:name:format:)`` with the app option's strictness chosen: `entitle
    /// check --verify` accepts the app the signed data names (a customer's receipts may be several
    /// apps'), and uses the option only for data that names none.
    package func verifiedReceipt(
        from data: Data, name: String, format: ReceiptFormat?, root given: JSONNode? = nil, app option: AppOption
    ) throws(VerificationError) -> ImportedReceipt {
        let start = SourceLocation(file: name, line: 1, column: 1)
        func located(_ error: VerificationError) -> VerificationError {
            var error = error
            if error.location == nil { error.location = start }
            return error
        }
        guard SystemCrypto.isAvailable else { throw VerificationError.unavailableError }
        var chosen = format
        // The tree ``AppleImport/detect(_:root:)`` built already, when the caller recognized the data.
        var root = given
        if chosen == nil {
            switch AppleImport.detect(data, root: &root) {
            case .imported(let detected)?: chosen = detected
            case .normalized?:
                throw located(
                    VerificationError(
                        code: .unsigned, message: "a normalized receipt carries no signature to verify",
                        help: "give Apple's signed data: a JWS, App Store Server API data or a PKCS#7 app receipt"))
            case nil:
                throw VerificationError(
                    code: .malformed, message: "unrecognized receipt format", location: start,
                    underlying: AppleImport.unrecognized(name))
            }
        }
        let roots = trustedRoots.map { [UInt8]($0) }
        let accepted = environments.map { Set($0.map(AppleEnvironment.normalized)) }
        // The apps the signed data may be for: this verifier's (its ``app`` and the others it
        // serves), or the option's alone; a service of several apps reads each as the app it names.
        let expected: Set<String>? = option.strict ? option.app.map { $0 == app ? apps : [$0] } : nil
        let option = (expected?.count ?? 0) > 1 ? AppOption(app: option.app, strict: false) : option
        do throws(VerificationError) {
            switch chosen! {
            case .verifyReceipt:
                throw VerificationError(
                    code: .unsigned, message: "a verifyReceipt response carries no signature to verify",
                    help: "verify the app receipt (PKCS#7) instead: Apple's server answered this one over TLS")
            case .appStore:
                let verification = JWSVerification(
                    checker: try SignatureChecker(trustedRoots: roots), apps: expected,
                    environments: accepted, at: instant, unsigned: unsignedPayloadInstant)
                do {
                    return try AppleImport.appStore(data, root: root, name: name, app: option, verification: verification)
                } catch {
                    guard let failure = verification.failure else {
                        throw VerificationError(
                            code: .malformed, message: error.message, location: error.location, path: error.path,
                            help: error.help, underlying: error)
                    }
                    throw VerificationError(
                        code: failure.code, message: failure.message, location: error.location, path: error.path,
                        help: failure.help)
                }
            case .pkcs7:
                return try verifiedPKCS7(data, name: name, roots: roots, expected: expected, environments: accepted)
            case .stripe, .play:
                throw VerificationError(
                    code: .unsigned, message: "\(chosen!.phrase) carries no signature entitle verifies",
                    help: "read it without `--verify`: it is as trustworthy as the API call or verified webhook it came from")
            }
        } catch {
            var error = error
            // Which roots were tried, not only why the chain does not lead to one of them.
            if error.code == .untrustedChain, error.help == nil, !trustedRoots.isEmpty { error.help = rootsTried }
            throw located(error)
        }
    }

    /// Reads an app receipt without trusting it, verifies its signature at its creation date,
    /// then checks its app and environment.
    private func verifiedPKCS7(
        _ data: Data, name: String, roots: [[UInt8]], expected: Set<String>?, environments: Set<String>?
    ) throws(VerificationError) -> ImportedReceipt {
        let start = SourceLocation(file: name, line: 1, column: 1)
        func unreadable(_ error: ReceiptError) -> VerificationError {
            VerificationError(
                code: .malformed, message: error.message, location: error.location, path: error.path, help: error.help,
                underlying: error)
        }
        guard data.count <= ReceiptDecoder.maxBytes else {
            throw unreadable(
                ReceiptError(
                    code: .limitExceeded, message: "receipt is \(data.count) bytes, over the limit of \(ReceiptDecoder.maxBytes) bytes",
                    location: start))
        }
        guard let der = AppReceiptMapper.der(data) else {
            throw unreadable(ReceiptError(code: .malformedJSON, message: "not a PKCS#7 app receipt: neither DER nor base64 of DER", location: start))
        }
        var warnings: [ImportWarning] = []
        var creationDate: Instant?
        var receipt: Receipt
        do {
            receipt = try AppReceiptMapper.map(der, warnings: &warnings, creationDate: &creationDate)
        } catch {
            throw unreadable(
                ReceiptError(code: .malformedJSON, message: "\(error.message) (at byte \(error.offset) of the DER data)", location: start))
        }
        guard let at = instant ?? creationDate ?? unsignedPayloadInstant else {
            throw VerificationError(
                code: .malformed, message: "the app receipt has no creation date (attribute 12) to verify the certificates at",
                help: "give the verification instant (`at:` or `unsignedPayloadInstant:`)")
        }
        let checker = try SignatureChecker(trustedRoots: roots)
        let signedByAnchor = try checker.verifyPKCS7(der, at: at)
        let environment = receipt.environment ?? "production"
        if signedByAnchor, environment != "xcode" {
            throw VerificationError(
                code: .notApple,
                message: "the receipt is signed by a trusted root itself, as Xcode signs, but its type is `\(environment)`")
        }
        if let expected, !expected.contains(receipt.app) {
            throw VerificationError(
                code: .wrongApp,
                message: "the receipt is for app `\(Diagnostic.excerpt(receipt.app))`, not \(CatalogChecker.list(expected.sorted()))")
        }
        if let environments, !environments.contains(environment) {
            throw VerificationError(
                code: .wrongEnvironment,
                message: "the receipt is of environment `\(Diagnostic.excerpt(environment))`, not \(CatalogChecker.list(environments.sorted()))")
        }
        do {
            return try AppleImport.checked(ImportedReceipt(receipt: receipt, format: .pkcs7, warnings: warnings), name: name)
        } catch {
            throw unreadable(error)
        }
    }
}
