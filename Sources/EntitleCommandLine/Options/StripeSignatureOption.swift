import Entitle
import Foundation

/// `--stripe-secret FILE --stripe-signature HEADER`: how `normalize` and `check` verify a Stripe
/// webhook delivery before reading it (``StripeWebhook``).
///
/// The receipt file read as Stripe's data must be the delivery's body, byte for byte, and the
/// header must sign it under the endpoint secret the file holds, with a timestamp within 300 s of
/// `--at` (default now); otherwise the file is an error located like any other, never read. The
/// secret is read from a file, so it stays out of the shell's history and the process list, and it
/// never appears in output. A build without the `SystemCrypto` trait refuses the options as misuse.
struct StripeSignatureOption: Sendable {
    /// `--stripe-secret FILE`.
    static let secret: Option<String> = .path(
        "--stripe-secret", valueName: "FILE",
        help: "a file holding the webhook endpoint's signing secret (`whsec_...`); with --stripe-signature, Stripe's data must verify")
    /// `--stripe-signature HEADER`.
    static let signature: Option<String> = .text(
        "--stripe-signature", valueName: "HEADER",
        help: """
            the delivery's `Stripe-Signature` header (t=...,v1=...): the Stripe file must be the body it signs, signed at
            most 300 s from the instant the command reads at (now unless given). Needs entitle built with `swift build
            --traits SystemCrypto`
            """)

    /// What this adds to a command's synopsis.
    static let synopsis: SynopsisItem = .together(secret.spec, signature.spec)

    let header: String
    let secretText: String
    let at: Instant

    /// The option of a scanned command line, or `nil` without it.
    ///
    /// - Throws: ``UsageError`` in a build without the trait, or for a secret file that cannot
    ///   be read or is empty.
    static func parse(_ arguments: ParsedArguments, at: Instant) throws(UsageError) -> StripeSignatureOption? {
        guard let header = try arguments.value(signature), let path = try arguments.value(secret) else { return nil }
        guard AppleSignatureVerifier.isAvailable else {
            throw UsageError(
                message: "\(signature.quoted) needs entitle built with the `SystemCrypto` trait: `swift build --traits SystemCrypto` "
                    + "(libcrypto of OpenSSL 3 on Linux: `apt-get install libssl-dev`)")
        }
        guard path != "-" else { throw UsageError(message: "\(secret.quoted) reads a file, not standard input") }
        let bytes: Data
        do {
            bytes = try ReceiptFiles.read(path, what: "secret", standardInput: { [] })
        } catch {
            throw UsageError(message: "`\(secret.name) \(path)`: the file cannot be read")
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw UsageError(message: "`\(secret.name) \(path)`: the file holds no secret") }
        return StripeSignatureOption(header: header, secretText: text, at: at)
    }

    /// Checks that `data` is the body the header signs.
    ///
    /// - Throws: ``ReceiptError``: code `verification-failed` with the verification code leading
    ///   the message, located at the start of the file.
    func check(_ data: Data, name: String) throws(ReceiptError) {
        do {
            try StripeWebhook.verify(payload: data, signature: header, secret: secretText, at: at)
        } catch {
            var located = error
            located.location = located.location ?? SourceLocation(file: name, line: 1, column: 1)
            throw located.receiptError
        }
    }
}
