import Foundation

#if SystemCrypto && canImport(CSystemCrypto)
    import CSystemCrypto
#endif

/// Signs promotional offers with the developer's In-App Purchase key, as Apple's Retention
/// Messaging API and StoreKit take them: a `promotionalOfferSignatureV2`, an ES256 compact JWS
/// whose header names the key (`kid`) and whose payload holds `iss` (the issuer id), `iat` and
/// `exp` (five minutes later), `aud` (`promotional-offer`), `bid` (the bundle id), `nonce`,
/// `productId`, `offerIdentifier` and, when given, `transactionId`.
///
/// Signing uses the system's libcrypto, so it needs entitle built with the `SystemCrypto` trait
/// on Linux; elsewhere ``init(privateKey:keyId:issuerId:bundleId:)`` throws and a reply keeps
/// saying what it needs signed (``RetentionReply/needsSigning``). The key is read once; it never
/// appears in an error, a description or any output.
public final class PromotionalOfferSigner: Sendable {
    /// What went wrong, never quoting the key.
    public struct SigningError: Error, Hashable, Sendable, CustomStringConvertible {
        /// In one line.
        public var message: String
        public var description: String { message }
    }

    /// Whether this build can sign (the `SystemCrypto` trait, on Linux).
    public static var isAvailable: Bool {
        #if SystemCrypto && canImport(CSystemCrypto)
            true
        #else
            false
        #endif
    }

    /// The key's id in App Store Connect (the JWS header's `kid`).
    public let keyId: String
    /// The issuer id of the team's keys (`iss`).
    public let issuerId: String
    /// The app's bundle id (`bid`).
    public let bundleId: String
    #if SystemCrypto && canImport(CSystemCrypto)
        /// `EVP_PKEY *`, a P-256 private key, freed with the signer.
        nonisolated(unsafe) private let key: OpaquePointer
    #endif

    /// Reads an In-App Purchase key: the `.p8` file App Store Connect gives (PKCS#8 PEM, a P-256
    /// key).
    ///
    /// - Throws: ``SigningError`` when the build cannot sign, the file is not such a key, or an id
    ///   is empty; its message never holds the key.
    public init(privateKey pem: Data, keyId: String, issuerId: String, bundleId: String) throws(SigningError) {
        for (name, value) in [("key id", keyId), ("issuer id", issuerId), ("bundle id", bundleId)] where value.isEmpty {
            throw SigningError(message: "the \(name) must not be empty")
        }
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        #if SystemCrypto && canImport(CSystemCrypto)
            guard let der = Self.pemBody(pem) else {
                throw SigningError(
                    message: "the signing key is not a PEM private key (`-----BEGIN PRIVATE KEY-----`), as App Store Connect's .p8 file is")
            }
            defer { ERR_clear_error() }
            let key = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                guard let parsed = d2i_AutoPrivateKey(nil, &cursor, buffer.count) else { return nil }
                guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                    EVP_PKEY_free(parsed)
                    return nil
                }
                return parsed
            }
            guard let key else { throw SigningError(message: "the signing key is not a PKCS#8 private key") }
            guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256 else {
                EVP_PKEY_free(key)
                throw SigningError(message: "the signing key is not a P-256 key, which an In-App Purchase key is")
            }
            self.key = key
        #else
            throw SigningError(message: "signing promotional offers needs entitle built with the `SystemCrypto` trait on Linux")
        #endif
    }

    deinit {
        #if SystemCrypto && canImport(CSystemCrypto)
            EVP_PKEY_free(key)
        #endif
    }

    /// A `promotionalOfferSignatureV2` for one offer of one product.
    ///
    /// - Parameters:
    ///   - productId: the subscription's product id.
    ///   - offerIdentifier: the promotional offer's id in App Store Connect.
    ///   - at: the signing instant (`iat`); it expires five minutes later.
    ///   - nonce: a one-time UUID (a new random one by default).
    ///   - transactionId: a transaction of the customer's, when the signature is for one customer.
    public func signatureV2(
        productId: String, offerIdentifier: String, transactionId: String? = nil, at: Instant, nonce: UUID = UUID()
    ) throws(SigningError) -> String {
        let issued = at.verificationSeconds
        var claims: [(String, JSONOutput)] = [
            ("iss", .string(issuerId)), ("iat", .integer(issued)), ("exp", .integer(issued + 300)), ("aud", .string("promotional-offer")),
            ("bid", .string(bundleId)), ("nonce", .string(nonce.uuidString.lowercased())), ("productId", .string(productId)),
            ("offerIdentifier", .string(offerIdentifier)),
        ]
        if let transactionId { claims.append(("transactionId", .string(transactionId))) }
        let header = JSONOutput.object([("alg", .string("ES256")), ("kid", .string(keyId)), ("typ", .string("JWT"))])
        let signingInput = Self.base64url(Data(header.compact().utf8)) + "." + Self.base64url(Data(JSONOutput.object(claims).compact().utf8))
        return signingInput + "." + Self.base64url(Data(try sign(Array(signingInput.utf8))))
    }

    /// The ES256 signature of `input`: `r || s`, 32 bytes each.
    private func sign(_ input: [UInt8]) throws(SigningError) -> [UInt8] {
        #if SystemCrypto && canImport(CSystemCrypto)
            defer { ERR_clear_error() }
            let failed = SigningError(message: "OpenSSL could not sign with the signing key")
            guard let context = EVP_MD_CTX_new() else { throw failed }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw failed }
            var length = 0
            guard input.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1, length > 0, length < 256
            else { throw failed }
            var der = [UInt8](repeating: 0, count: length)
            let signed = der.withUnsafeMutableBufferPointer { out in
                input.withUnsafeBufferPointer { EVP_DigestSign(context, out.baseAddress, &length, $0.baseAddress, $0.count) }
            }
            guard signed == 1 else { throw failed }
            // DER `ECDSA-Sig-Value` to JOSE's fixed-width `r || s`.
            let signature = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_ECDSA_SIG(nil, &cursor, length)
            }
            guard let signature else { throw failed }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var raw = [UInt8](repeating: 0, count: 64)
            let written = raw.withUnsafeMutableBufferPointer { buffer in
                (BN_bn2binpad(r, buffer.baseAddress, 32), BN_bn2binpad(s, buffer.baseAddress! + 32, 32))
            }
            guard written == (32, 32) else { throw failed }
            return raw
        #else
            throw SigningError(message: "signing promotional offers needs entitle built with the `SystemCrypto` trait on Linux")
        #endif
    }

    #if SystemCrypto && canImport(CSystemCrypto)
        /// Whether `jws` is signed by this signer's key (its public half), checked as entitle checks
        /// Apple's JWS signatures: the tests' way to hold the signing to the verifying.
        func verifies(_ jws: String) -> Bool {
            defer { ERR_clear_error() }
            let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let raw = Base64.decode(Data(parts[2].utf8)), raw.count == 64,
                let der = try? SignatureChecker.derSignature(raw), let context = EVP_MD_CTX_new()
            else { return false }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
            let input = Array("\(parts[0]).\(parts[1])".utf8)
            return der.withUnsafeBufferPointer { signature in
                input.withUnsafeBufferPointer { EVP_DigestVerify(context, signature.baseAddress, signature.count, $0.baseAddress, $0.count) }
            } == 1
        }

        /// The DER bytes of a PEM private key (`PRIVATE KEY` or `EC PRIVATE KEY`), or `nil`.
        private static func pemBody(_ pem: Data) -> [UInt8]? {
            guard pem.count <= 16_384, let text = String(data: pem, encoding: .utf8) else { return nil }
            let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let begin = lines.firstIndex(where: { $0 == "-----BEGIN PRIVATE KEY-----" || $0 == "-----BEGIN EC PRIVATE KEY-----" }),
                let end = lines[begin...].firstIndex(where: { $0.hasPrefix("-----END ") }), end > begin + 1
            else { return nil }
            guard let der = Data(base64Encoded: lines[(begin + 1)..<end].joined()), !der.isEmpty else { return nil }
            return Array(der)
        }
    #endif

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
