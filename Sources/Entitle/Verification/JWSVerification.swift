import Foundation

/// The checks Apple's `SignedDataVerifier` makes on one compact JWS, for one verifying import of
/// App Store data. The App Store mapper calls ``check(_:payload:offset:path:)`` on every JWS
/// before reading its payload (a notification's nested `signedTransactionInfo` and
/// `signedRenewalInfo` included), and ``requireSigned(_:offset:path:)`` on every purchase it
/// would read from outside a JWS.
///
/// In order: the header's `alg` is `ES256`; its `x5c` chain (leaf, intermediate, root) leads to
/// a trusted root, anchored on the trusted root (`x5c[2]` is never used), every certificate valid
/// at the verification instant, with Apple's marker extensions on the leaf and the intermediate;
/// the signature over `header.payload` verifies with the leaf's key; then the payload's
/// `bundleId` and `environment` are the expected ones. A one-certificate `x5c` is Xcode's: it
/// verifies only when that certificate is itself trusted and the payload's environment is
/// `Xcode`.
final class JWSVerification {
    private let checker: SignatureChecker
    /// The apps the data may be for; `nil` accepts the app the signed data names.
    private let apps: Set<String>?
    /// The normalized environments accepted; `nil` accepts all.
    private let environments: Set<String>?
    private let instant: Instant?
    /// The instant a payload without `signedDate` is verified at; `nil` refuses it.
    private let unsigned: Instant?
    /// The first failure, kept for the import to report with its location.
    private(set) var failure: VerificationError?
    /// Chains already verified in this import, by certificates and instant: a transaction history
    /// carries one chain for hundreds of transactions signed at one instant.
    private var verifiedChains: [ChainKey: Result<Bool, VerificationError>] = [:]
    private static let maxCachedChains = 64

    private struct ChainKey: Hashable {
        var certificates: [String]
        var seconds: Int64
    }

    /// The most certificates an `x5c` header may hold before any is decoded.
    static let maxChainLength = 3

    init(checker: SignatureChecker, apps: Set<String>?, environments: Set<String>?, at instant: Instant?, unsigned: Instant? = nil) {
        self.checker = checker
        self.apps = apps
        self.environments = environments
        self.instant = instant
        self.unsigned = unsigned
    }

    /// Verifies the JWS `text` whose decoded payload is `payload`, before anything reads the payload.
    ///
    /// - Throws: ``ImportFailure`` at `offset` and `path`, the verification error kept in ``failure``.
    func check(_ text: String, payload: Data, offset: Int, path: String) throws(ImportFailure) {
        do throws(VerificationError) {
            try verify(text, payload: payload)
        } catch {
            throw fail(error, offset: offset, path: path)
        }
    }

    /// Refuses a purchase read from outside any JWS, which nothing signed.
    func requireSigned(_ signed: Bool, offset: Int, path: String) throws(ImportFailure) {
        guard !signed else { return }
        throw fail(
            VerificationError(
                code: .unsigned, message: "a decoded payload outside any JWS carries no signature to verify",
                help: "give the signed data as Apple sends it: the compact JWS, or the response that holds it"),
            offset: offset, path: path)
    }

    private func fail(_ error: VerificationError, offset: Int, path: String) -> ImportFailure {
        if failure == nil { failure = error }
        return ImportFailure(offset: offset, message: "\(error.code): \(error.message)", path: path, help: error.help)
    }

    /// The signature first (it needs nothing but the leaf's key), so an altered payload is a
    /// `bad-signature` whatever it became; then the payload's claims, the chain at the instant
    /// they give, and the app and environment.
    private func verify(_ text: String, payload: Data) throws(VerificationError) {
        let jws = try SignedJWS(text)
        guard jws.certificates.count == 3 || jws.certificates.count == 1 else {
            throw VerificationError(
                code: .malformed,
                message: "`x5c` holds \(jws.certificates.count) certificates; Apple's chain has 3 (leaf, intermediate, root), Xcode's 1")
        }
        try checker.verifyES256(leaf: jws.certificates[0], signingInput: jws.signingInput, signature: jws.signature)
        guard let root = try? JSONDocument.parse(payload, limits: .init(maxBytes: 1 << 20, maxDepth: 32)).root else {
            throw VerificationError(code: .malformed, message: "the JWS payload is not JSON")
        }
        let claims = try SignedClaims(root)
        guard let at = instant ?? claims.signedDate ?? unsigned else {
            throw VerificationError(
                code: .malformed, message: "the payload has no `signedDate` to verify the certificates at",
                help: "give the verification instant (`at:`, or `unsignedPayloadInstant:` for payloads without one)")
        }
        let environment = claims.environment.map(AppleEnvironment.normalized) ?? "production"
        let chain: [[UInt8]]
        let markers: MarkerPolicy
        if jws.certificates.count == 3 {
            // The root comes from the caller, never from the data: `x5c[2]` is left out.
            chain = Array(jws.certificates.prefix(2))
            markers = .required
        } else {
            guard environment == "xcode" else {
                throw VerificationError(
                    code: .notApple,
                    message:
                        "`x5c` holds one certificate, as Xcode signs, but the payload's environment is `\(Diagnostic.excerpt(claims.environment ?? "Production"))`"
                )
            }
            chain = jws.certificates
            markers = .none
        }
        let key = ChainKey(certificates: jws.encodedCertificates, seconds: at.verificationSeconds)
        let verified: Result<Bool, VerificationError>
        if let cached = verifiedChains[key] {
            verified = cached
        } else {
            do throws(VerificationError) {
                verified = .success(try checker.verifyChain(chain, at: at, names: .jws, markers: markers))
            } catch {
                verified = .failure(error)
            }
            if verifiedChains.count >= Self.maxCachedChains { verifiedChains.removeAll(keepingCapacity: true) }
            verifiedChains[key] = verified
        }
        _ = try verified.get()
        if let apps, let named = claims.bundleId, !apps.contains(named) {
            throw VerificationError(
                code: .wrongApp, message: "the signed data is for app `\(Diagnostic.excerpt(named))`, not \(CatalogChecker.list(apps.sorted()))")
        }
        if let environments, !environments.contains(environment) {
            throw VerificationError(
                code: .wrongEnvironment,
                message: "the signed data is of environment `\(Diagnostic.excerpt(claims.environment ?? "Production"))`, "
                    + "not \(CatalogChecker.list(environments.sorted()))")
        }
    }
}

/// A compact JWS taken apart for verification: its header's `alg` and `x5c`, the bytes it signs
/// and its signature. Every count and length is checked before anything is decoded.
struct SignedJWS {
    /// The largest header read, as for unverified reading (README: Limits).
    static let maxHeaderBytes = 1 << 20

    /// The DER certificates of `x5c`, leaf first.
    var certificates: [[UInt8]]
    /// `x5c` as written (base64), to recognize a chain seen before.
    var encodedCertificates: [String]
    /// `header.payload`, the ASCII bytes the signature covers.
    var signingInput: ArraySlice<UInt8>
    var signature: [UInt8]

    init(_ text: String) throws(VerificationError) {
        let bytes = Array(text.utf8)
        let parts: (header: Range<Int>, signingInput: Range<Int>, signature: Range<Int>)? = bytes.withUnsafeBytes { raw in
            guard let (header, payload, signature) = CompactJWS.split(raw), let base = raw.baseAddress else { return nil }
            func range(_ part: UnsafeRawBufferPointer) -> Range<Int> {
                let start = part.baseAddress.map { $0 - base } ?? 0
                return start..<(start + part.count)
            }
            return (range(header), range(header).lowerBound..<range(payload).upperBound, range(signature))
        }
        guard let parts else { throw VerificationError(code: .malformed, message: "not a compact JWS (three base64url parts joined by dots)") }
        // A header is at most 1 MiB of JSON: its base64url is not decoded past that.
        guard parts.header.count <= SignedJWS.maxHeaderBytes / 3 * 4 + 4 else {
            throw VerificationError(code: .malformed, message: "the JWS header is over \(SignedJWS.maxHeaderBytes) bytes")
        }
        guard let headerBytes = bytes[parts.header].withUnsafeBytes({ Base64.decode($0) }),
            let header = try? JSONDocument.parse(Data(headerBytes), limits: .init(maxBytes: SignedJWS.maxHeaderBytes, maxDepth: 16)).root
        else {
            throw VerificationError(code: .malformed, message: "the JWS header is not base64url of a JSON object")
        }
        guard case .string(let algorithm)? = header["alg"]?.value else {
            throw VerificationError(code: .unsupportedAlgorithm, message: "the JWS header names no `alg`; Apple signs with `ES256`")
        }
        guard algorithm == "ES256" else {
            throw VerificationError(
                code: .unsupportedAlgorithm,
                message: "the JWS header's `alg` is `\(Diagnostic.excerpt(algorithm))`; Apple signs with `ES256`")
        }
        guard let chain = header["x5c"] else {
            throw VerificationError(code: .malformed, message: "the JWS header has no `x5c` certificate chain to verify")
        }
        guard let elements = chain.elements, !elements.isEmpty else {
            throw VerificationError(code: .malformed, message: "the JWS header's `x5c` is not a list of certificates")
        }
        guard elements.count <= JWSVerification.maxChainLength else {
            throw VerificationError(
                code: .malformed,
                message: "`x5c` holds \(elements.count) certificates; Apple's chain has 3 (leaf, intermediate, root), Xcode's 1")
        }
        var certificates: [[UInt8]] = []
        var encoded: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text)? = Optional(element.value), let der = Base64.decode(Data(text.utf8)), !der.isEmpty else {
                throw VerificationError(code: .malformed, message: "`x5c[\(index)]` is not a base64 certificate")
            }
            certificates.append(der)
            encoded.append(text)
        }
        guard let signature = bytes[parts.signature].withUnsafeBytes({ Base64.decode($0) }) else {
            throw VerificationError(code: .malformed, message: "the JWS signature is not base64url")
        }
        self.certificates = certificates
        self.encodedCertificates = encoded
        self.signingInput = bytes[parts.signingInput]
        self.signature = signature
    }
}

/// What a signed payload says about itself: the app, the environment and when Apple signed it.
///
/// A notification says it in `data` (or `summary`, or `externalPurchaseToken`, whose environment
/// is read from its id); an app transaction names its environment `receiptType` when it has no
/// `environment`, and the instant it was made `receiptCreationDate` when it has no `signedDate`.
struct SignedClaims {
    var bundleId: String?
    var environment: String?
    var signedDate: Instant?

    init(_ payload: JSONNode) throws(VerificationError) {
        guard payload.isObject else { throw VerificationError(code: .malformed, message: "the JWS payload is not a JSON object") }
        var source = payload
        if payload["notificationType"] != nil {
            if let data = payload["data"], data.isObject {
                source = data
            } else if let summary = payload["summary"], summary.isObject {
                source = summary
            } else if let token = payload["externalPurchaseToken"], token.isObject {
                source = token
                let id = token["externalPurchaseId"]?.lenientString ?? ""
                environment = id.hasPrefix("SANDBOX") ? "Sandbox" : "Production"
            }
        }
        bundleId = source["bundleId"]?.lenientString
        environment = source["environment"]?.lenientString ?? source["receiptType"]?.lenientString ?? environment
        // An app transaction says when Apple made it in `receiptCreationDate`.
        for key in ["signedDate", "receiptCreationDate"] {
            guard let value = payload[key], !value.isNull else { continue }
            guard let milliseconds = value.milliseconds, let instant = Instant(checkedMilliseconds: milliseconds) else {
                throw VerificationError(code: .malformed, message: "the payload's `\(key)` is not milliseconds within years 0001-9999")
            }
            signedDate = instant
            break
        }
    }
}

extension AppleEnvironment {
    /// Apple's or entitle's spelling of an environment, normalized (`Sandbox` and
    /// `ProductionSandbox` are `sandbox`); an unknown one lowercased.
    static func normalized(_ raw: String) -> String {
        var ignored: [ImportWarning] = []
        let normalized = normalize(raw, path: "", warnings: &ignored)
        return ignored.isEmpty ? normalized : raw.lowercased()
    }
}
