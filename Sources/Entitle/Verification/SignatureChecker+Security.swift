#if SystemCrypto && !canImport(CSystemCrypto) && canImport(Security)
    import Foundation
    import Security

    // Compiled and tested only on Apple platforms (CI runs on Linux, where OpenSSL is used instead):
    // see README "Trust". Every check is Security.framework's: `SecTrust` for chains and validity at a
    // fixed date, anchored on the caller's roots only; `SecKeyVerifySignature` for ES256; macOS's
    // `CMSDecoder` for PKCS#7 signatures. The marker extensions and the ES256 signature's DER form
    // come from `CertificateExtensions` and `ECDSASignatureEncoding`, which the Linux tests check
    // against OpenSSL.

    /// Security.framework, for one verification call: the trusted roots, parsed once.
    final class SignatureChecker {
        private let roots: [SecCertificate]

        init(trustedRoots: [[UInt8]]) throws(VerificationError) {
            guard !trustedRoots.isEmpty else {
                throw VerificationError(
                    code: .untrustedChain, message: "no trusted root certificate was given",
                    help: "give Apple's root certificates (DER), such as `AppleRootCA-G3.cer` from apple.com/certificateauthority")
            }
            var roots: [SecCertificate] = []
            for (index, der) in trustedRoots.enumerated() {
                guard let root = Self.certificate(der) else {
                    throw VerificationError(
                        code: .untrustedChain,
                        message: "trusted root \(index + 1) of \(trustedRoots.count) is not a DER X.509 certificate")
                }
                roots.append(root)
            }
            self.roots = roots
        }

        private static func certificate(_ der: [UInt8]) -> SecCertificate? {
            guard !der.isEmpty else { return nil }
            return SecCertificateCreateWithData(nil, Data(der) as CFData)
        }

        private static let tooOld = VerificationError(
            code: .unavailable, message: "verifying signatures with Security.framework needs macOS 12, iOS 15, tvOS 15 or watchOS 8")

        /// Verifies `chain` (the signing certificate first, then the intermediates) up to one of the
        /// trusted roots only, every certificate valid at `instant`, with Apple's marker extensions as
        /// `markers` says.
        ///
        /// - Returns: whether the signing certificate is itself a trusted root (a chain of one).
        func verifyChain(_ chain: [[UInt8]], at instant: Instant, names: CertificateNames, markers: MarkerPolicy) throws(VerificationError) -> Bool {
            var certificates: [SecCertificate] = []
            for (index, der) in chain.enumerated() {
                guard let certificate = Self.certificate(der) else {
                    throw VerificationError(code: .malformed, message: "\(names.name(depth: index)) is not a DER X.509 certificate")
                }
                certificates.append(certificate)
            }
            return try verify(certificates, at: instant, names: names, markers: markers)
        }

        /// `SecTrust` of `certificates` (leaf first) anchored on the roots alone, at `instant`, then
        /// the marker extensions on the chain it built.
        private func verify(
            _ certificates: [SecCertificate], at instant: Instant, names: CertificateNames,
            markers: MarkerPolicy
        ) throws(VerificationError) -> Bool {
            guard #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) else { throw Self.tooOld }
            guard !certificates.isEmpty else { throw VerificationError(code: .malformed, message: "no certificate to verify") }
            var created: SecTrust?
            guard SecTrustCreateWithCertificates(certificates as CFArray, SecPolicyCreateBasicX509(), &created) == errSecSuccess,
                let trust = created,
                SecTrustSetAnchorCertificates(trust, roots as CFArray) == errSecSuccess,
                SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess,
                SecTrustSetNetworkFetchAllowed(trust, false) == errSecSuccess,
                SecTrustSetVerifyDate(trust, instant.date as CFDate) == errSecSuccess
            else {
                throw VerificationError(code: .malformed, message: "Security.framework cannot evaluate the certificates")
            }
            var failure: CFError?
            if !SecTrustEvaluateWithError(trust, &failure) {
                let code = failure.map { CFErrorGetCode($0) } ?? 0
                let reason = failure.map { CFErrorCopyDescription($0) as String } ?? "not trusted"
                if code == Int(errSecCertificateExpired) || code == Int(errSecCertificateNotValidYet) {
                    throw VerificationError(
                        code: .certificateExpired,
                        message: "a certificate of the chain is not valid at the verification instant \(instant): \(reason)",
                        help: "signed data is verified at its `signedDate` (an app receipt at its creation date) unless an instant is given")
                }
                throw VerificationError(code: .untrustedChain, message: "\(names.leaf) does not lead to a trusted root: \(reason)")
            }
            let verified = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            guard !verified.isEmpty else {
                throw VerificationError(code: .untrustedChain, message: "\(names.leaf) does not lead to a trusted root: the platform gave no chain")
            }
            let anchoredLeaf = verified.count == 1
            let checkMarkers = try markers.checksMarkers(chainLength: verified.count, names: names)
            if checkMarkers {
                let leaf = [UInt8](SecCertificateCopyData(verified[0]) as Data)
                guard CertificateExtensions.contains(SystemCrypto.receiptSigningMarker, in: leaf) else {
                    throw VerificationError(
                        code: .notApple, message: "\(names.leaf) lacks Apple's receipt-signing extension (OID \(SystemCrypto.receiptSigningMarker))")
                }
                let intermediate = verified.count >= 2 ? [UInt8](SecCertificateCopyData(verified[1]) as Data) : []
                guard CertificateExtensions.contains(SystemCrypto.intermediateMarker, in: intermediate) else {
                    throw VerificationError(
                        code: .notApple,
                        message: "\(names.intermediate) lacks Apple's WWDR intermediate extension (OID \(SystemCrypto.intermediateMarker))")
                }
            }
            return anchoredLeaf
        }

        /// Checks an ES256 JWS signature (`r || s`) over `signingInput` with the P-256 key of the
        /// DER certificate `leaf`.
        func verifyES256(leaf der: [UInt8], signingInput: ArraySlice<UInt8>, signature: [UInt8]) throws(VerificationError) {
            guard #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) else { throw Self.tooOld }
            guard let derSignature = ECDSASignatureEncoding.der(fromRaw: signature) else {
                throw VerificationError(code: .badSignature, message: "an ES256 signature is 64 bytes (`r` and `s`), this one is \(signature.count)")
            }
            guard let leaf = Self.certificate(der) else {
                throw VerificationError(code: .malformed, message: "the leaf certificate (`x5c[0]`) is not a DER X.509 certificate")
            }
            guard let key = SecCertificateCopyKey(leaf),
                let attributes = SecKeyCopyAttributes(key) as? [CFString: Any],
                (attributes[kSecAttrKeyType] as? String) == (kSecAttrKeyTypeECSECPrimeRandom as String),
                (attributes[kSecAttrKeySizeInBits] as? Int) == 256
            else {
                throw VerificationError(code: .badSignature, message: "the leaf certificate's key is not a P-256 key, which ES256 needs")
            }
            var failure: Unmanaged<CFError>?
            let verified = SecKeyVerifySignature(
                key, .ecdsaSignatureMessageX962SHA256, Data(signingInput) as CFData,
                Data(derSignature) as CFData, &failure)
            failure?.release()
            guard verified else {
                throw VerificationError(code: .badSignature, message: "the ES256 signature does not match the JWS header and payload")
            }
        }

        /// Verifies a PKCS#7 app receipt: the signature over its content (macOS's `CMSDecoder`),
        /// then each signer's chain as ``verifyChain(_:at:names:markers:)`` does.
        ///
        /// - Returns: whether the signing certificate is itself a trusted root (Xcode's).
        func verifyPKCS7(_ der: [UInt8], at instant: Instant) throws(VerificationError) -> Bool {
            #if os(macOS)
                var created: CMSDecoder?
                guard CMSDecoderCreate(&created) == errSecSuccess, let decoder = created else {
                    throw VerificationError(code: .malformed, message: "Security.framework cannot read PKCS#7")
                }
                let read = der.withUnsafeBytes { bytes -> Bool in
                    guard let base = bytes.baseAddress else { return false }
                    return CMSDecoderUpdateMessage(decoder, base, bytes.count) == errSecSuccess && CMSDecoderFinalizeMessage(decoder) == errSecSuccess
                }
                guard read else { throw VerificationError(code: .malformed, message: "Security.framework cannot read the app receipt as PKCS#7") }
                var signerCount = 0
                guard CMSDecoderGetNumSigners(decoder, &signerCount) == errSecSuccess, (1...SystemCrypto.maxReceiptSigners).contains(signerCount)
                else {
                    throw VerificationError(code: .malformed, message: "the app receipt has \(signerCount) signers; Apple's have 1")
                }
                var carriedArray: CFArray?
                _ = CMSDecoderCopyAllCerts(decoder, &carriedArray)
                let carried = (carriedArray as? [SecCertificate]) ?? []
                guard carried.count <= SystemCrypto.maxReceiptCertificates else {
                    throw VerificationError(
                        code: .malformed,
                        message: "the app receipt carries \(carried.count) certificates, more than \(SystemCrypto.maxReceiptCertificates)")
                }
                var anchoredLeaf = false
                for index in 0..<signerCount {
                    var status = CMSSignerStatus.unsigned
                    // Trust is not evaluated here (evaluateSecTrust false): the status is the signature's.
                    guard CMSDecoderCopySignerStatus(decoder, index, SecPolicyCreateBasicX509(), false, &status, nil, nil) == errSecSuccess else {
                        throw VerificationError(code: .malformed, message: "Security.framework cannot check the app receipt's signer \(index + 1)")
                    }
                    guard status == .valid else {
                        throw VerificationError(code: .badSignature, message: "the app receipt's signature does not match its content")
                    }
                    var signer: SecCertificate?
                    guard CMSDecoderCopySignerCert(decoder, index, &signer) == errSecSuccess, let signer else {
                        throw VerificationError(code: .malformed, message: "the app receipt does not carry its signer's certificate")
                    }
                    let intermediates = carried.filter { !CFEqual($0, signer) }
                    if try verify([signer] + intermediates, at: instant, names: .receipt, markers: .unlessSelfAnchored) { anchoredLeaf = true }
                }
                return anchoredLeaf
            #else
                throw VerificationError(
                    code: .unavailable,
                    message: "verifying PKCS#7 app receipts needs macOS's CMS (or OpenSSL on Linux); this platform has neither")
            #endif
        }
    }
#endif
