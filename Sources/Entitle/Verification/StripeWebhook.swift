import Foundation

/// Stripe's webhook signatures: the `Stripe-Signature` header a webhook request carries, checked
/// against the endpoint's secret before the Event is read.
///
/// Stripe signs each delivery with HMAC-SHA256 of `<t>.<payload>` under the endpoint's signing
/// secret (`whsec_...`) and sends `Stripe-Signature: t=<Unix seconds>,v1=<hex>[,v1=<hex>...]`
/// (other schemes, such as `v0`, are ignored). A delivery is accepted when:
/// - the header has exactly one `t` and at least one `v1`;
/// - some `v1` equals the HMAC of the payload's exact bytes (compared in constant time), so an
///   endpoint rolling its secret, which Stripe signs with both, verifies with either;
/// - `t` is within `tolerance` seconds of the instant given, before or after it (the clock is
///   never read: a service passes its own now), so a delivery recorded and replayed later fails.
///
/// The HMAC is the system's (libcrypto, CommonCrypto), as every signature entitle checks: built
/// without the `SystemCrypto` trait, every verification fails with
/// ``VerificationError/Code/unavailable``. The secret never appears in an error.
///
/// ```swift
/// let receipt = try StripeWebhook.verifiedReceipt(
///     payload: body, signature: request.headers["Stripe-Signature"], secret: secret, at: .now, app: "com.example.app")
/// ```
public enum StripeWebhook {
    /// Stripe's own libraries' tolerance: five minutes.
    public static let defaultTolerance: Int64 = 300
    /// The longest header read; Stripe's are under 300 bytes (a few more with a rolled secret).
    public static let maxHeaderBytes = 8_192

    /// Checks a delivery's `Stripe-Signature` header.
    ///
    /// - Parameters:
    ///   - payload: the request body, byte for byte as it came (not re-encoded JSON).
    ///   - header: the `Stripe-Signature` header's value.
    ///   - secret: the endpoint's signing secret (`whsec_...`), as Stripe shows it.
    ///   - at: the instant to check the timestamp against (a service's now).
    ///   - tolerance: how many seconds the header's `t` may be from `at`, either way (0 or more).
    /// - Throws: ``VerificationError``: `malformed` for a header that cannot be read, `bad-signature`
    ///   when no `v1` matches, `outside-tolerance` for a timestamp too far from `at`, `unavailable`
    ///   in a build without the trait.
    public static func verify(
        payload: Data, signature header: String, secret: String, at: Instant, tolerance: Int64 = defaultTolerance
    ) throws(VerificationError) {
        let parsed = try parse(header)
        guard tolerance >= 0 else {
            throw VerificationError(code: .malformed, message: "the tolerance is negative (\(tolerance) s)", help: "give 0 seconds or more")
        }
        guard !secret.isEmpty else {
            throw VerificationError(
                code: .malformed, message: "the endpoint secret is empty",
                help: "give the endpoint's signing secret, as Stripe's Dashboard shows it (`whsec_...`)")
        }
        let now = at.millisecondsSince1970 / 1_000
        let (difference, overflow) = now.subtractingReportingOverflow(parsed.timestamp)
        if overflow || difference.magnitude > UInt64(tolerance) {
            let when = Instant(millisecondsSince1970: parsed.timestamp.multipliedReportingOverflow(by: 1_000).partialValue)
            throw VerificationError(
                code: .outsideTolerance,
                message: "the signature's timestamp `t=\(parsed.timestamp)`"
                    + (when.isInRange && !overflow ? " (\(when.rfc3339))" : "")
                    + " is more than \(tolerance) s from \(at.rfc3339)",
                path: "t",
                help:
                    "a delivery is verified when it arrives; one replayed later is refused (give the instant it was received, or a larger tolerance)")
        }
        guard SystemCrypto.isAvailable else { throw VerificationError.unavailableError }
        let signed = Array(parsed.timestampText.utf8) + [UInt8(ascii: ".")] + [UInt8](payload)
        guard let expected = SystemCrypto.hmacSHA256(key: Array(secret.utf8), message: signed) else {
            throw VerificationError(code: .unavailable, message: "the system's cryptography did not compute the HMAC")
        }
        // Every candidate is compared, each in constant time: which one matched says nothing.
        var matched = false
        for candidate in parsed.signatures where SystemCrypto.constantTimeEqual(candidate, expected) { matched = true }
        guard matched else {
            throw VerificationError(
                code: .badSignature,
                message: parsed.signatures.count == 1
                    ? "the `v1` signature does not match the payload under the endpoint secret"
                    : "none of the \(parsed.signatures.count) `v1` signatures matches the payload under the endpoint secret",
                path: "v1",
                help: "check the endpoint's secret (each endpoint has its own), and pass the body byte for byte as it came, not re-encoded")
        }
    }

    /// Verifies a delivery, then reads its Event as Stripe's data
    /// (``StoreImport/unverifiedReceipt(fromStripe:name:app:)``).
    ///
    /// - Throws: ``VerificationError``; for a verified payload entitle cannot read, code
    ///   `malformed` with the receipt error as ``VerificationError/underlying``.
    public static func verifiedReceipt(
        payload: Data, signature header: String, secret: String, at: Instant, tolerance: Int64 = defaultTolerance,
        name: String = "<webhook>", app: String
    ) throws(VerificationError) -> ImportedReceipt {
        try verify(payload: payload, signature: header, secret: secret, at: at, tolerance: tolerance)
        do {
            return try StoreImport.unverifiedReceipt(fromStripe: payload, name: name, app: app)
        } catch {
            throw VerificationError(
                code: .malformed, message: "the verified payload is not Stripe data entitle reads: \(error.message)",
                location: error.location, path: error.path, help: error.help, underlying: error)
        }
    }

    /// A header's parts: its one timestamp (as written, since that text is what was signed) and
    /// its `v1` signatures.
    private struct Header {
        var timestamp: Int64
        var timestampText: String
        var signatures: [[UInt8]]
    }

    private static func parse(_ header: String) throws(VerificationError) -> Header {
        func malformed(_ message: String, path: String = "") -> VerificationError {
            VerificationError(
                code: .malformed, message: message, path: path,
                help: "Stripe's header reads `t=<Unix seconds>,v1=<64 hex digits>`; pass the `Stripe-Signature` header's value as it came")
        }
        guard header.utf8.count <= maxHeaderBytes else {
            throw malformed("the header is \(header.utf8.count) bytes, more than \(maxHeaderBytes)")
        }
        guard !header.trimmingCharacters(in: .whitespaces).isEmpty else { throw malformed("the header is empty") }
        var timestamps: [String] = []
        var signatures: [[UInt8]] = []
        for (index, part) in header.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard let equals = item.firstIndex(of: "="), equals != item.startIndex else {
                throw malformed("part \(index + 1) (`\(Diagnostic.excerpt(item))`) is not `key=value`")
            }
            let key = item[..<equals]
            let value = String(item[item.index(after: equals)...])
            switch key {
            case "t": timestamps.append(value)
            case "v1":
                guard let bytes = hex(value), bytes.count == 32 else {
                    throw malformed("a `v1` signature is not 64 hex digits (HMAC-SHA256)", path: "v1")
                }
                signatures.append(bytes)
            default: continue  // `v0` (test mode's older scheme) and schemes to come.
            }
        }
        guard timestamps.count == 1, let text = timestamps.first else {
            throw malformed(
                timestamps.isEmpty ? "the header has no timestamp (`t=`)" : "the header has \(timestamps.count) timestamps (`t=`)", path: "t")
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let timestamp = Int64(text) else {
            throw malformed("the timestamp `t=\(Diagnostic.excerpt(text))` is not Unix seconds", path: "t")
        }
        guard !signatures.isEmpty else { throw malformed("the header has no `v1` signature", path: "v1") }
        return Header(timestamp: timestamp, timestampText: text, signatures: signatures)
    }

    /// Hex digits (either case) as bytes; `nil` for anything else or an odd count.
    private static func hex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
