import Entitle
import Foundation

/// `--verify --root FILE ...`: how `normalize`, `check`, `explain` and `check --customers`
/// verify Apple's signatures before reading receipts (``AppleSignatureVerifier``).
///
/// Every receipt must then be signed Apple data that verifies against one of the roots; one that
/// fails (or carries no signature: a normalized receipt, a verifyReceipt response) is an error
/// located like any other, never evaluated. Each signature is checked at the instant Apple signed
/// it (`--at` is the evaluation instant, not this one); a payload that carries no `signedDate` (a
/// `TEST` notification) at `--at`, default now, as Apple's library checks it. A build without the `SystemCrypto` trait
/// refuses `--verify` as misuse, saying how to build with it.
struct VerifyOption: Sendable {
    /// `--verify`.
    static let verify: Option<Bool> = .flag(
        "--verify",
        help: """
            verify Apple's signatures first (JWS chains to a trusted root, validity when signed, Apple's certificates, the
            signature; PKCS#7 app receipts likewise): data that fails, or carries no signature, is an error. Needs entitle
            built with `swift build --traits SystemCrypto`
            """)
    /// `--root FILE ...`.
    static let root: Option<String> = .path(
        "--root", valueName: "FILE", kind: .repeatable,
        help: """
            a trusted root certificate (DER), such as Apple's AppleRootCA-G3.cer (JWS) or AppleIncRootCertificate.cer (app
            receipts); repeat for more
            """)

    /// What this adds to a command's synopsis.
    static let synopsis: SynopsisItem = .together(verify.spec, root.spec)

    /// The roots, read; the app and environments are not checked here (a customer's receipts
    /// may be several apps', and `--environment` filters at evaluation).
    let verifier: AppleSignatureVerifier

    /// The option of a scanned command line, or `nil` without `--verify`.
    ///
    /// - Throws: ``UsageError`` for `--verify` in a build without the trait, or with a root that
    ///   cannot be read (the synopsis has already refused one without the other).
    /// - Parameter unsignedAt: the instant a payload without `signedDate` (a `TEST` notification)
    ///   is verified at, as Apple's library verifies it at the current time: the command's `--at`,
    ///   else now.
    static func parse(_ arguments: ParsedArguments, unsignedAt: Instant) throws(UsageError) -> VerifyOption? {
        let roots = try arguments.values(root)
        // `--verify` and `--root` go together (the synopsis, `Subcommand.checkSynopses`).
        guard arguments.contains(verify) else { return nil }
        guard AppleSignatureVerifier.isAvailable else {
            throw UsageError(
                message: "\(verify.quoted) needs entitle built with the `SystemCrypto` trait: `swift build --traits SystemCrypto` "
                    + "(libcrypto of OpenSSL 3 on Linux: `apt-get install libssl-dev`)")
        }
        guard !roots.isEmpty else {
            throw UsageError(message: "\(verify.quoted) needs at least one `\(root.name) FILE`, a trusted root certificate (DER)")
        }
        var certificates: [Data] = []
        for path in roots {
            guard path != "-" else { throw UsageError(message: "\(root.quoted) reads a certificate file, not standard input") }
            do {
                certificates.append(try ReceiptFiles.read(path, what: "root certificate", standardInput: { [] }))
            } catch {
                throw UsageError(message: "`\(root.name) \(path)`: \(error.message)")
            }
        }
        return VerifyOption(
            verifier: AppleSignatureVerifier(
                trustedRoots: certificates, app: "", unsignedPayloadInstant: unsignedAt,
                trustedRootNames: roots.map { URL(fileURLWithPath: $0).lastPathComponent }))
    }

    /// Verifies and reads the receipt `data`.
    ///
    /// - Parameter app: the app of data that names none, and, when strict, the app the data must be.
    /// - Throws: ``ReceiptError``: code `verification-failed` with the verification code leading
    ///   the message, or the importer's error for data that is not a receipt.
    func receipt(_ data: Data, name: String, format: ReceiptFormat? = nil, root: JSONNode? = nil, app: AppOption) throws(ReceiptError)
        -> ImportedReceipt
    {
        do {
            return try verifier.verifiedReceipt(from: data, name: name, format: format, root: root, app: app)
        } catch {
            throw error.receiptError
        }
    }
}
