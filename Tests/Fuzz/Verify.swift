// The `verify` target: signed Apple data (compact JWS, App Store responses holding JWS, PKCS#7
// app receipts) through the verifying path, `AppleSignatureVerifier`. fuzz.sh compiles it with
// `-D SystemCrypto` and libcrypto when pkg-config finds libcrypto; without them every
// verification reports `unavailable` and only that path runs (fuzz.sh says so).
//
// A mutated input almost never carries a valid signature, so besides the whole verification the
// target hands the input's certificates and PKCS#7 bytes to the platform checker directly: the
// chain check (`d2i_X509`, `X509_verify_cert`) and the PKCS#7 check (`d2i_PKCS7`, `PKCS7_verify`)
// see mutated certificates and envelopes, not only mutated signatures.

import Foundation

/// The roots of the fixtures (`ENTITLE_FUZZ_FIXTURES`, set by fuzz.sh): Apple's two roots, the
/// App Store Server Library's test root and Xcode's StoreKit test certificate. Missing files
/// are left out (every chain is then untrusted, which is a path too). Kept as byte arrays: a
/// global `Data` keeps its storage behind a tagged pointer, which LeakSanitizer reports as leaked.
let verificationRoots: [[UInt8]] = {
    let fixtures = ProcessInfo.processInfo.environment["ENTITLE_FUZZ_FIXTURES"] ?? "../shared/fixtures"
    return [
        "certs/apple-real/AppleRootCA-G3.cer",
        "receipts-pkcs7/tikhop-TPInAppReceipt/AppleIncRootCertificate.cer",
        "receipts-pkcs7/tikhop-TPInAppReceipt/StoreKitTestCertificate.cer",
        "storekit2/apple-app-store-server-library-swift/certs/testCA.der",
    ].compactMap { (try? Data(contentsOf: URL(fileURLWithPath: fixtures).appendingPathComponent($0))).map { [UInt8]($0) } }
}()

/// Verifiers at the instant each payload was signed, and at a fixed instant with the
/// environments restricted (the `wrong-environment` path).
func verifiers() -> [AppleSignatureVerifier] {
    let roots = verificationRoots.map { Data($0) }
    return [
        AppleSignatureVerifier(trustedRoots: roots, app: ""),
        AppleSignatureVerifier(trustedRoots: roots, app: "", environments: ["production"], at: ms("2024-01-01T00:00:00Z")),
    ]
}

func fuzzVerify(_ data: Data) {
    for verifier in verifiers() {
        let verified: ImportedReceipt
        do {
            verified = try verifier.verifiedReceipt(from: data, name: "fuzz", format: nil, app: AppOption(app: nil, strict: false))
        } catch {
            consume(error.description)
            consume(error.receiptError.description)
            continue
        }
        // Invariant: what verifies also reads unverified, to the same receipt (for data that is
        // one JWS or one app receipt: around a response, unsigned members are read only unverified).
        if let format = AppleImport.detect(data), case .imported(let apple) = format, apple == .pkcs7 || CompactJWS.looksLike(data) {
            do {
                let unverified = try AppleImport.unverifiedReceipt(from: data, name: "fuzz", format: apple, app: AppOption.none)
                guard unverified.receipt == verified.receipt else {
                    fatalError("invariant: the verified and the unverified reading of one signed value differ")
                }
            } catch {
                fatalError("invariant: data that verifies is refused unverified: \(error)")
            }
        }
        evaluateAgainstProducts(ParsedReceipt(verified.receipt), receipt: verified.receipt)
        checkRoundTrip(verified.receipt, what: "verified ImportedReceipt.receipt")
    }
    fuzzChecker(data)
    fuzzStripeSignature(data)
}

/// A Stripe-Signature header: the input's first line is the header, the rest the payload. Any
/// header is refused or accepted, never a trap; the secret never shows in what is said.
func fuzzStripeSignature(_ data: Data) {
    let newline = data.firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
    let header = String(decoding: data[data.startIndex..<newline], as: UTF8.self)
    let payload = newline < data.endIndex ? Data(data[(newline + 1)...]) : Data()
    let secret = "whsec_fuzz_secret"
    for tolerance: Int64 in [0, 300, Int64.max] {
        do {
            try StripeWebhook.verify(
                payload: payload, signature: header, secret: secret, at: Instant(millisecondsSince1970: 1_772_323_200_000), tolerance: tolerance)
        } catch {
            guard !error.description.contains(secret) else { fatalError("invariant: the Stripe secret appears in an error") }
            consume(error.description)
        }
    }
}

/// The platform checker on the input's own certificates and envelope, whatever its signature.
func fuzzChecker(_ data: Data) {
    guard let checker = try? SignatureChecker(trustedRoots: verificationRoots) else { return }
    let instants = [ms("2023-06-01T00:00:00Z"), ms("2025-02-10T00:00:00Z")]
    if CompactJWS.looksLike(data), let jws = try? SignedJWS(String(decoding: data, as: UTF8.self)) {
        for instant in instants {
            for markers in [MarkerPolicy.required, .none] {
                do {
                    consume("\(try checker.verifyChain(Array(jws.certificates.prefix(2)), at: instant, names: .jws, markers: markers))")
                } catch {
                    consume(error.message)
                }
            }
        }
        do {
            try checker.verifyES256(leaf: jws.certificates[0], signingInput: jws.signingInput, signature: jws.signature)
        } catch {
            consume(error.message)
        }
    }
    if let der = AppReceiptMapper.der(data) {
        for instant in instants {
            do {
                consume("\(try checker.verifyPKCS7(der, at: instant))")
            } catch {
                consume(error.message)
            }
        }
    }
}
