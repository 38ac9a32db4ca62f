#if SystemCrypto && canImport(CSystemCrypto)
    import CSystemCrypto
    import Foundation

    /// OpenSSL 3's libcrypto, for one verification call: the trusted roots parsed once into an
    /// `X509_STORE`, then chains, ES256 signatures and PKCS#7 signatures checked against it.
    ///
    /// Nothing cryptographic happens in Swift: certificates are parsed by `d2i_X509`, chains and
    /// validity checked by `X509_verify_cert` at a fixed instant (`X509_VERIFY_PARAM_set_time`),
    /// extensions found by `X509_get_ext_by_OBJ`, signatures checked by `EVP_DigestVerify` and
    /// `PKCS7_verify`. Every object is freed on every path; OpenSSL's error queue (per thread) is
    /// cleared after each call, so a failure leaves nothing behind.
    final class SignatureChecker {
        /// `X509_STORE *`, holding a reference to each trusted root.
        private let store: OpaquePointer
        /// `ASN1_OBJECT *` of Apple's two marker extensions.
        private let leafMarker: OpaquePointer
        private let intermediateMarker: OpaquePointer

        init(trustedRoots: [[UInt8]]) throws(VerificationError) {
            defer { ERR_clear_error() }
            guard !trustedRoots.isEmpty else {
                throw VerificationError(
                    code: .untrustedChain, message: "no trusted root certificate was given",
                    help: "give Apple's root certificates (DER), such as `AppleRootCA-G3.cer` from apple.com/certificateauthority")
            }
            guard let store = X509_STORE_new() else { throw Self.outOfMemory }
            guard let leafMarker = OBJ_txt2obj(SystemCrypto.receiptSigningMarker, 1),
                let intermediateMarker = OBJ_txt2obj(SystemCrypto.intermediateMarker, 1)
            else {
                X509_STORE_free(store)
                throw Self.outOfMemory
            }
            self.store = store
            self.leafMarker = leafMarker
            self.intermediateMarker = intermediateMarker
            for (index, der) in trustedRoots.enumerated() {
                guard let root = Self.certificate(der) else {
                    throw VerificationError(
                        code: .untrustedChain,
                        message: "trusted root \(index + 1) of \(trustedRoots.count) is not a DER X.509 certificate")
                }
                defer { X509_free(root) }
                // Adding the same root twice is harmless (OpenSSL keeps one).
                _ = X509_STORE_add_cert(store, root)
            }
        }

        deinit {
            X509_STORE_free(store)
            ASN1_OBJECT_free(leafMarker)
            ASN1_OBJECT_free(intermediateMarker)
        }

        private static let outOfMemory = VerificationError(code: .malformed, message: "OpenSSL could not allocate memory")

        /// A certificate from exactly `der` (trailing bytes refused), or `nil`.
        private static func certificate(_ der: [UInt8]) -> OpaquePointer? {
            guard !der.isEmpty, der.count <= Int(Int32.max) else { return nil }
            return der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                guard let base = buffer.baseAddress else { return nil }
                var cursor: UnsafePointer<UInt8>? = base
                guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
                guard cursor == base + buffer.count else {
                    X509_free(certificate)
                    return nil
                }
                return certificate
            }
        }

        /// Verifies `chain` (the signing certificate first, then the intermediates to use) up to one
        /// of the trusted roots, every certificate valid at `instant`, and Apple's marker extensions
        /// as `markers` says.
        ///
        /// The chain is anchored on the trusted roots: OpenSSL finds each issuer by name and checks
        /// its signature with the issuer's key, so a root the data carries itself is never used.
        ///
        /// - Returns: whether the signing certificate is itself a trusted root (a chain of one).
        func verifyChain(_ chain: [[UInt8]], at instant: Instant, names: CertificateNames, markers: MarkerPolicy) throws(VerificationError) -> Bool {
            defer { ERR_clear_error() }
            var certificates: [OpaquePointer] = []
            defer { for certificate in certificates { X509_free(certificate) } }
            for (index, der) in chain.enumerated() {
                guard let certificate = Self.certificate(der) else {
                    throw VerificationError(code: .malformed, message: "\(names.name(depth: index)) is not a DER X.509 certificate")
                }
                certificates.append(certificate)
            }
            guard let leaf = certificates.first else { throw VerificationError(code: .malformed, message: "no certificate to verify") }
            guard let untrusted = entitle_certificates_new() else { throw Self.outOfMemory }
            defer { entitle_certificates_free(untrusted) }
            for certificate in certificates.dropFirst() where entitle_certificates_push(untrusted, certificate) == 0 { throw Self.outOfMemory }
            return try verify(leaf, untrusted: untrusted, at: instant, names: names, markers: markers)
        }

        /// `X509_verify_cert` of `leaf` with `untrusted` intermediates against the store at `instant`,
        /// then the marker extensions on the verified chain.
        private func verify(
            _ leaf: OpaquePointer, untrusted: OpaquePointer?, at instant: Instant, names: CertificateNames,
            markers: MarkerPolicy
        ) throws(VerificationError) -> Bool {
            guard let context = X509_STORE_CTX_new() else { throw Self.outOfMemory }
            defer { X509_STORE_CTX_free(context) }
            guard X509_STORE_CTX_init(context, store, leaf, untrusted) == 1 else { throw Self.outOfMemory }
            X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(context), time_t(instant.verificationSeconds))
            if X509_verify_cert(context) != 1 {
                let error = X509_STORE_CTX_get_error(context)
                let depth = Int(X509_STORE_CTX_get_error_depth(context))
                let reason = String(cString: X509_verify_cert_error_string(Int(error)))
                let name = names.name(depth: depth)
                switch error {
                case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
                    let current = X509_STORE_CTX_get_current_cert(context)
                    let expired = error == X509_V_ERR_CERT_HAS_EXPIRED
                    let bound = current.flatMap { Self.instant(expired ? X509_get0_notAfter($0) : X509_get0_notBefore($0)) }
                    let when =
                        bound.map { expired ? "expired at \($0)" : "is valid only from \($0)" } ?? (expired ? "has expired" : "is not yet valid")
                    throw VerificationError(
                        code: .certificateExpired,
                        message: "\(name) \(when), \(expired ? "before" : "after") the verification instant \(instant)",
                        help: "signed data is verified at its `signedDate` (an app receipt at its creation date) unless an instant is given")
                default:
                    throw VerificationError(code: .untrustedChain, message: "\(name) does not lead to a trusted root: \(reason)")
                }
            }
            let verified = X509_STORE_CTX_get0_chain(context)
            let count = Int(entitle_certificates_count(verified))
            let anchoredLeaf = count == 1
            let checkMarkers = try markers.checksMarkers(chainLength: count, names: names)
            if checkMarkers {
                guard X509_get_ext_by_OBJ(entitle_certificates_at(verified, 0), leafMarker, -1) >= 0 else {
                    throw VerificationError(
                        code: .notApple, message: "\(names.leaf) lacks Apple's receipt-signing extension (OID \(SystemCrypto.receiptSigningMarker))")
                }
                guard count >= 2, X509_get_ext_by_OBJ(entitle_certificates_at(verified, 1), intermediateMarker, -1) >= 0 else {
                    throw VerificationError(
                        code: .notApple,
                        message: "\(names.intermediate) lacks Apple's WWDR intermediate extension (OID \(SystemCrypto.intermediateMarker))")
                }
            }
            return anchoredLeaf
        }

        /// The dotted OIDs of a DER certificate's extensions as OpenSSL reads them, for the tests
        /// that check ``CertificateExtensions`` (the Apple-platform path) against OpenSSL.
        static func extensionIdentifiers(_ der: [UInt8]) -> [String]? {
            defer { ERR_clear_error() }
            guard let certificate = certificate(der) else { return nil }
            defer { X509_free(certificate) }
            var identifiers: [String] = []
            for index in 0..<X509_get_ext_count(certificate) {
                guard let object = X509_EXTENSION_get_object(X509_get_ext(certificate, index)) else { return nil }
                var text = [CChar](repeating: 0, count: 128)
                let length = OBJ_obj2txt(&text, Int32(text.count), object, 1)
                guard length > 0, Int(length) < text.count else { return nil }
                identifiers.append(String(decoding: text.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            return identifiers
        }

        /// An `ASN1_TIME` as an instant, when it is within years 0001-9999.
        private static func instant(_ time: UnsafePointer<ASN1_TIME>?) -> Instant? {
            guard let time else { return nil }
            var parts = tm()
            guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
            let seconds = Int64(timegm(&parts))
            return Instant(checkedMilliseconds: seconds.multipliedReportingOverflow(by: 1000).partialValue)
        }

        /// Checks an ES256 JWS signature (`r || s`, 32 bytes each) over `signingInput` with the
        /// P-256 key of the DER certificate `leaf`.
        func verifyES256(leaf der: [UInt8], signingInput: ArraySlice<UInt8>, signature: [UInt8]) throws(VerificationError) {
            defer { ERR_clear_error() }
            guard signature.count == 64 else {
                throw VerificationError(code: .badSignature, message: "an ES256 signature is 64 bytes (`r` and `s`), this one is \(signature.count)")
            }
            guard let leaf = Self.certificate(der) else {
                throw VerificationError(code: .malformed, message: "the leaf certificate (`x5c[0]`) is not a DER X.509 certificate")
            }
            defer { X509_free(leaf) }
            guard let key = X509_get0_pubkey(leaf), EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, Self.groupName(key) == "prime256v1" else {
                throw VerificationError(code: .badSignature, message: "the leaf certificate's key is not a P-256 key, which ES256 needs")
            }
            let derSignature = try Self.derSignature(signature)
            guard let context = EVP_MD_CTX_new() else { throw Self.outOfMemory }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else {
                throw VerificationError(code: .badSignature, message: "OpenSSL cannot verify with the leaf certificate's key")
            }
            let result = derSignature.withUnsafeBufferPointer { signature in
                signingInput.withUnsafeBufferPointer { input in
                    EVP_DigestVerify(context, signature.baseAddress, signature.count, input.baseAddress, input.count)
                }
            }
            guard result == 1 else {
                throw VerificationError(code: .badSignature, message: "the ES256 signature does not match the JWS header and payload")
            }
        }

        /// The curve of an EC key (`prime256v1` for P-256).
        private static func groupName(_ key: OpaquePointer) -> String? {
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1, length < name.count else { return nil }
            return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        /// A JWS signature (`r || s`) in the DER form OpenSSL verifies, converted by OpenSSL's
        /// `ECDSA_SIG`.
        static func derSignature(_ raw: [UInt8]) throws(VerificationError) -> [UInt8] {
            guard let signature = ECDSA_SIG_new() else { throw outOfMemory }
            defer { ECDSA_SIG_free(signature) }
            let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
            let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
            guard let r, let s else {
                BN_free(r)
                BN_free(s)
                throw outOfMemory
            }
            guard ECDSA_SIG_set0(signature, r, s) == 1 else {
                BN_free(r)
                BN_free(s)
                throw outOfMemory
            }
            let length = i2d_ECDSA_SIG(signature, nil)
            guard length > 0, length < 256 else { throw outOfMemory }
            var der = [UInt8](repeating: 0, count: Int(length))
            let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
                return i2d_ECDSA_SIG(signature, &cursor)
            }
            guard written == length else { throw outOfMemory }
            return der
        }

        /// Verifies a PKCS#7 app receipt: its signer's certificate chain up to a trusted root, valid
        /// at `instant` (the receipt's creation date), with Apple's marker extensions unless the
        /// signer is itself a trusted root (Xcode); then the signature over the content.
        ///
        /// - Returns: whether the signing certificate is itself a trusted root (Xcode's StoreKit
        ///   test certificate).
        func verifyPKCS7(_ der: [UInt8], at instant: Instant) throws(VerificationError) -> Bool {
            defer { ERR_clear_error() }
            guard !der.isEmpty, der.count <= Int(Int32.max) else {
                throw VerificationError(code: .malformed, message: "the app receipt is empty or too large for OpenSSL")
            }
            let parsed: UnsafeMutablePointer<PKCS7>? = der.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_PKCS7(nil, &cursor, buffer.count)
            }
            guard let receipt = parsed else {
                throw VerificationError(code: .malformed, message: "OpenSSL cannot read the app receipt as PKCS#7")
            }
            defer { PKCS7_free(receipt) }
            let carried = entitle_pkcs7_certificates(receipt)
            let signerCount = Int(entitle_pkcs7_signer_count(receipt))
            guard (1...SystemCrypto.maxReceiptSigners).contains(signerCount) else {
                throw VerificationError(code: .malformed, message: "the app receipt has \(signerCount) signers; Apple's have 1")
            }
            let certificateCount = Int(entitle_certificates_count(carried))
            guard certificateCount <= SystemCrypto.maxReceiptCertificates else {
                throw VerificationError(
                    code: .malformed,
                    message: "the app receipt carries \(certificateCount) certificates, more than \(SystemCrypto.maxReceiptCertificates)")
            }
            guard let signers = PKCS7_get0_signers(receipt, nil, 0) else {
                throw VerificationError(code: .malformed, message: "the app receipt does not carry its signer's certificate")
            }
            defer { entitle_certificates_free(signers) }
            var anchoredLeaf = false
            for index in 0..<Int(entitle_certificates_count(signers)) {
                guard let signer = entitle_certificates_at(signers, Int32(index)) else { continue }
                if try verify(signer, untrusted: carried, at: instant, names: .receipt, markers: .unlessSelfAnchored) { anchoredLeaf = true }
            }
            guard let sink = entitle_null_bio() else { throw Self.outOfMemory }
            defer { BIO_free(sink) }
            // The chains were verified above, at the receipt's date; here only the signature.
            guard PKCS7_verify(receipt, nil, store, nil, sink, PKCS7_NOVERIFY) == 1 else {
                throw VerificationError(code: .badSignature, message: "the app receipt's signature does not match its content")
            }
            return anchoredLeaf
        }
    }
#endif
