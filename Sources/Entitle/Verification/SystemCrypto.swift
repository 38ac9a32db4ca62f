/// Which cryptography this build verifies signatures with, if any.
///
/// The checks themselves (X.509 chains and validity, ECDSA and PKCS#7 signatures) are the
/// platform's: OpenSSL 3's libcrypto on Linux (the `CSystemCrypto` system library),
/// Security.framework on Apple platforms. Both are compiled only with the `SystemCrypto` trait;
/// without it every verification fails with ``VerificationError/Code/unavailable``.
enum SystemCrypto {
    #if SystemCrypto && canImport(CSystemCrypto)
        static let isAvailable = true
        static let name = "OpenSSL (libcrypto)"
    #elseif SystemCrypto && canImport(Security)
        static let isAvailable = true
        static let name = "Security.framework"
    #else
        static let isAvailable = false
        static let name = "none"
    #endif

    /// Why this build cannot verify, in the project's error style.
    static var unavailableReason: String {
        #if SystemCrypto
            "this platform has no system cryptography entitle verifies with (OpenSSL's libcrypto or Security.framework)"
        #else
            "verifying signatures needs entitle built with the `SystemCrypto` trait"
        #endif
    }

    /// Apple's marker extension on the certificate that signs App Store data and app receipts
    /// ("Mac App Store and iTunes Store Receipt Signing").
    static let receiptSigningMarker = "1.2.840.113635.100.6.11.1"
    /// Apple's marker extension on the Worldwide Developer Relations intermediate that issues it.
    static let intermediateMarker = "1.2.840.113635.100.6.2.1"
    /// The most certificates a PKCS#7 app receipt may carry (Apple's carry 3).
    static let maxReceiptCertificates = 16
    /// The most signers a PKCS#7 app receipt may have (Apple's have 1).
    static let maxReceiptSigners = 4
}

/// What the caller asks of the certificates above the signing one.
enum MarkerPolicy {
    /// Apple's chain: the leaf and the intermediate must carry Apple's marker extensions.
    case required
    /// Xcode's single self-signed certificate: no markers.
    case none
    /// App receipts: markers unless the signing certificate is itself a trusted root (Xcode's
    /// StoreKit test certificate).
    case unlessSelfAnchored

    /// Whether a verified chain of `count` certificates (the leaf first, the trusted root last)
    /// must carry Apple's markers; throws when they are required of a chain whose leaf is itself
    /// the trusted root, which Apple's intermediate cannot have issued.
    func checksMarkers(chainLength count: Int, names: CertificateNames) throws(VerificationError) -> Bool {
        switch self {
        case .required:
            guard count >= 2 else {
                throw VerificationError(
                    code: .notApple, message: "\(names.leaf) is itself a trusted root, not a certificate Apple's intermediate issued")
            }
            return true
        case .none: return false
        case .unlessSelfAnchored: return count != 1
        }
    }
}

/// How the certificates of a verified chain are named in messages.
struct CertificateNames {
    var leaf: String
    var intermediate: String

    static let jws = CertificateNames(leaf: "the leaf certificate (`x5c[0]`)", intermediate: "the intermediate certificate (`x5c[1]`)")
    static let receipt = CertificateNames(leaf: "the receipt's signing certificate", intermediate: "the intermediate certificate")

    func name(depth: Int) -> String {
        switch depth {
        case 0: leaf
        case 1: intermediate
        default: "the root certificate"
        }
    }
}

#if !(SystemCrypto && (canImport(CSystemCrypto) || canImport(Security)))
    /// This build's stand-in for the platform's checker: creating one fails, so nothing is ever
    /// taken as verified.
    final class SignatureChecker {
        init(trustedRoots: [[UInt8]]) throws(VerificationError) {
            throw VerificationError.unavailableError
        }

        func verifyChain(_ chain: [[UInt8]], at instant: Instant, names: CertificateNames, markers: MarkerPolicy) throws(VerificationError) -> Bool {
            throw VerificationError.unavailableError
        }

        func verifyES256(leaf: [UInt8], signingInput: ArraySlice<UInt8>, signature: [UInt8]) throws(VerificationError) {
            throw VerificationError.unavailableError
        }

        func verifyPKCS7(_ der: [UInt8], at instant: Instant) throws(VerificationError) -> Bool {
            throw VerificationError.unavailableError
        }
    }
#endif

extension Instant {
    /// Whole seconds since 1970, rounded down: what certificate validity is checked at.
    var verificationSeconds: Int64 {
        let milliseconds = clampedToRange.millisecondsSince1970
        return milliseconds >= 0 ? milliseconds / 1000 : -((-milliseconds + 999) / 1000)
    }
}
