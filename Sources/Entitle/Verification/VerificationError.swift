/// Why signed App Store data was not accepted as Apple's: a stable code, a message, and where
/// in the data the failing signature is.
///
/// A struct with a code rather than an enum, so new kinds of failure do not break callers that
/// switch on it (as swift-certificates' `CertificateError` does).
public struct VerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the kind of failure, for services and tests to match on.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as printed: `bad-signature`, `untrusted-chain`, ...
        public var rawValue: String

        /// Creates a code from its printed form.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code as printed.
        public var description: String { rawValue }

        /// The signature does not match the signed bytes under the leaf certificate's key (an
        /// altered payload or signature, or a signature of the wrong length or key type).
        public static let badSignature = Self(rawValue: "bad-signature")
        /// The certificates do not lead to a root the caller trusts (a certificate that is not
        /// signed by its issuer included), or a trusted root cannot be read.
        public static let untrustedChain = Self(rawValue: "untrusted-chain")
        /// A certificate of the chain is not valid at the verification instant (expired or not yet valid).
        public static let certificateExpired = Self(rawValue: "certificate-expired")
        /// The chain lacks Apple's marker extensions: OID 1.2.840.113635.100.6.11.1 on the leaf
        /// (receipt signing), 1.2.840.113635.100.6.2.1 on the intermediate (WWDR).
        public static let notApple = Self(rawValue: "not-apple")
        /// The signed data is another app's (its `bundleId`, or the app receipt's bundle id).
        public static let wrongApp = Self(rawValue: "wrong-app")
        /// The signed data is of an environment the caller does not accept.
        public static let wrongEnvironment = Self(rawValue: "wrong-environment")
        /// The JWS header's `alg` is not `ES256` (`HS256`, `none`, ...).
        public static let unsupportedAlgorithm = Self(rawValue: "unsupported-algorithm")
        /// The data cannot be read as signed data: no `x5c` header, a certificate that is not DER,
        /// a chain of the wrong length, no signing date to verify at, or data that is not a
        /// receipt entitle reads (see ``VerificationError/underlying``).
        public static let malformed = Self(rawValue: "malformed")
        /// The data carries no signature to verify: a verifyReceipt response, a decoded payload
        /// outside any JWS, or a normalized receipt.
        public static let unsigned = Self(rawValue: "unsigned")
        /// A signature's timestamp is further from the verification instant than the tolerance
        /// allows (a Stripe webhook delivery replayed later, or a clock far off).
        public static let outsideTolerance = Self(rawValue: "outside-tolerance")
        /// This build of entitle cannot verify signatures: it was built without the
        /// `SystemCrypto` trait, or the platform has no system cryptography entitle uses.
        public static let unavailable = Self(rawValue: "unavailable")
    }

    /// The kind of failure.
    public var code: Code
    /// Lowercase, no trailing period, facts in backticks.
    public var message: String
    /// Where the failing data is in the file (the JWS, for App Store data); `nil` when the
    /// failure concerns no place in the data (verification is unavailable).
    public var location: SourceLocation?
    /// The JSON path of the failing JWS in App Store data, such as `signedTransactions[2]` or
    /// `signedPayload (payload).data.signedTransactionInfo`; empty for the whole file.
    public var path: String
    /// Advice, printed on its own `help:` line.
    public var help: String?
    /// For ``Code/malformed`` failures of data that is not a receipt entitle can read (before or
    /// after its signatures verified): the receipt error the importer reported, located.
    public var underlying: ReceiptError?

    /// Creates a verification error.
    public init(
        code: Code, message: String, location: SourceLocation? = nil, path: String = "", help: String? = nil,
        underlying: ReceiptError? = nil
    ) {
        self.code = code
        self.message = Diagnostic.bounded(message)
        self.location = location
        self.path = Diagnostic.bounded(path)
        self.help = help.map(Diagnostic.bounded)
        self.underlying = underlying
    }

    /// The failure as a receipt error, to report like any other problem of a receipt file:
    /// ``underlying`` when there is one, otherwise code `verification-failed` with the
    /// verification code leading the message (`untrusted-chain: ...`).
    public var receiptError: ReceiptError {
        if let underlying { return underlying }
        return ReceiptError(code: .verificationFailed, message: "\(code): \(message)", location: location, path: path, help: help)
    }

    /// `file:line:column: error: path: code: message`, then `  help: ...`: the receipt error's form.
    public var description: String { receiptError.description }

    /// The error for a build that cannot verify: no `SystemCrypto` trait, or no system
    /// cryptography on this platform.
    static var unavailableError: VerificationError {
        VerificationError(
            code: .unavailable,
            message: SystemCrypto.unavailableReason,
            help: "build entitle with the `SystemCrypto` trait: `swift build --traits SystemCrypto`, or "
                + "`.package(path: ..., traits: [\"SystemCrypto\"])` in a package that depends on it")
    }
}
