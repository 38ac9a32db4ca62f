import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

private typealias T = Fixtures

/// Stripe's webhook signatures (``StripeWebhook``): the `Stripe-Signature` header checked against
/// the endpoint secret, every way a header can be wrong, the timestamp's tolerance both ways, a
/// rolled secret, and the secret kept out of every error. The expected signatures were computed
/// with OpenSSL, not with entitle:
///
///     printf '1772323200.' | cat - payload | openssl dgst -sha256 -hmac whsec_test_secret
///
/// and, when `openssl` is on the machine, one more is computed by it while the test runs.
@Suite("Stripe webhook verification")
struct StripeWebhookVerificationTests {
    static let secret = "whsec_test_secret"
    static let rolled = "whsec_rolled"
    static let payload = Data(#"{"id":"evt_1","object":"event"}"#.utf8)
    static let t: Int64 = 1_772_323_200
    /// HMAC-SHA256 of `1772323200.` + payload under each secret (OpenSSL).
    static let signed = "bce20333535890d3c54df51ee0f92605db013511554cddb0a9827297257fe1b7"
    static let signedRolled = "fedda51a1a920a7402fb71f70ded783140559a5e9f9c38549bcbfe2aa096c900"
    static let at = Instant(millisecondsSince1970: t * 1_000)

    static func failure(
        _ header: String, payload: Data = payload, secret: String = secret, at: Instant = at, tolerance: Int64 = 300
    ) -> VerificationError? {
        do {
            try StripeWebhook.verify(payload: payload, signature: header, secret: secret, at: at, tolerance: tolerance)
            return nil
        } catch {
            #expect(!error.description.contains(secret) && !(error.help ?? "").contains(secret), "the secret leaks: \(error)")
            return error
        }
    }

    @Test("every way a header can be wrong is `malformed`, said plainly, before any cryptography")
    func malformedHeaders() {
        let v1 = "v1=\(Self.signed)"
        let cases: [(String, String)] = [
            ("", "the header is empty"),
            ("   ", "the header is empty"),
            (v1, "the header has no timestamp (`t=`)"),
            ("t=\(Self.t),t=\(Self.t),\(v1)", "the header has 2 timestamps (`t=`)"),
            ("t=abc,\(v1)", "the timestamp `t=abc` is not Unix seconds"),
            ("t=-5,\(v1)", "the timestamp `t=-5` is not Unix seconds"),
            ("t=99999999999999999999,\(v1)", "is not Unix seconds"),
            ("t=,\(v1)", "is not Unix seconds"),
            ("t=\(Self.t)", "the header has no `v1` signature"),
            ("t=\(Self.t),v0=\(Self.signed)", "the header has no `v1` signature"),
            ("t=\(Self.t),v1=\(Self.signed.dropLast())", "a `v1` signature is not 64 hex digits"),
            ("t=\(Self.t),v1=\(Self.signed.dropLast())z", "a `v1` signature is not 64 hex digits"),
            ("t=\(Self.t),v1=", "a `v1` signature is not 64 hex digits"),
            ("t=\(Self.t),\(v1),garbage", "part 3 (`garbage`) is not `key=value`"),
            ("t=\(Self.t),,\(v1)", "part 2 (``) is not `key=value`"),
            ("t=\(Self.t),=x,\(v1)", "is not `key=value`"),
            ("t=\(Self.t)," + String(repeating: "v0=1,", count: 2_000) + v1, "more than 8192"),
        ]
        for (header, message) in cases {
            let error = Self.failure(header)
            #expect(error?.code == .malformed, "\(header.prefix(80)): \(String(describing: error))")
            #expect(error?.message.contains(message) == true, "\(header.prefix(80)): \(String(describing: error?.message))")
        }
        #expect(Self.failure("t=\(Self.t),\(v1)", secret: "")?.message == "the endpoint secret is empty")
        #expect(Self.failure("t=\(Self.t),\(v1)", tolerance: -1)?.message == "the tolerance is negative (-1 s)")
    }

    @Test("a timestamp further than the tolerance from the instant given, either way, is `outside-tolerance`")
    func tolerance() {
        let header = "t=\(Self.t),v1=\(Self.signed)"
        for offset: Int64 in [-301_000, 300_999 + 1, 86_400_000, -86_400_000] {
            let error = Self.failure(header, at: Instant(millisecondsSince1970: Self.t * 1_000 + offset))
            #expect(error?.code == .outsideTolerance && error?.path == "t", "\(offset): \(String(describing: error))")
            #expect(error?.message.hasPrefix("the signature's timestamp `t=1772323200` (2026-03-01T00:00:00Z) is more than 300 s from") == true)
        }
        #expect(Self.failure(header, at: .latest)?.code == .outsideTolerance)
        #expect(Self.failure("t=9223372036854775807,v1=\(Self.signed)")?.code == .outsideTolerance, "a timestamp past any instant")
        #expect(Self.failure(header, at: Instant(millisecondsSince1970: Self.t * 1_000 + 10_000), tolerance: 5)?.code == .outsideTolerance)
    }

    #if SystemCrypto
        @Test("a header signing the payload verifies at the edges of the tolerance; a rolled secret verifies with either")
        func verifies() throws {
            let header = "t=\(Self.t),v1=\(Self.signed)"
            for offset: Int64 in [0, 300_000, -300_000, 300_999] {
                #expect(Self.failure(header, at: Instant(millisecondsSince1970: Self.t * 1_000 + offset)) == nil, "\(offset)")
            }
            // Hex in capitals, other schemes, spaces around parts: read as Stripe writes them and more.
            #expect(Self.failure("t=\(Self.t), v0=\(Self.signedRolled), v1=\(Self.signed.uppercased())") == nil)
            // A rolled secret: Stripe signs with both, and either secret verifies.
            let both = "t=\(Self.t),v1=\(Self.signedRolled),v1=\(Self.signed)"
            #expect(Self.failure(both) == nil)
            #expect(Self.failure(both, secret: Self.rolled) == nil)
        }

        @Test("another secret, a changed byte of the payload or of `t`: `bad-signature`, and the secret never shows")
        func refused() {
            let header = "t=\(Self.t),v1=\(Self.signed)"
            var altered = [UInt8](Self.payload)
            altered[altered.count - 2] ^= 1
            for error in [
                Self.failure(header, secret: "whsec_other"), Self.failure(header, payload: Data(altered)),
                Self.failure("t=\(Self.t + 1),v1=\(Self.signed)"), Self.failure("t=\(Self.t),v1=\(Self.signedRolled)"),
                Self.failure(header, payload: Self.payload + Data("\n".utf8)),
            ] {
                #expect(error?.code == .badSignature, "\(String(describing: error))")
            }
            #expect(Self.failure(header, secret: "whsec_other")?.message == "the `v1` signature does not match the payload under the endpoint secret")
            #expect(
                Self.failure("t=\(Self.t),v1=\(Self.signedRolled),v1=\(Self.signedRolled)")?.message
                    == "none of the 2 `v1` signatures matches the payload under the endpoint secret")
        }

        @Test("a signature OpenSSL computes now, of a payload made now, verifies")
        func independentlyComputed() throws {
            let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
            try #require(openssl != nil, "openssl is not on this machine")
            let payload = Data("{\"id\":\"evt_\(UUID().uuidString)\",\"object\":\"event\"}".utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl!)
            process.arguments = ["dgst", "-sha256", "-hmac", Self.secret]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data("\(Self.t).".utf8) + payload)
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let hex = try #require(text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(Self.failure("t=\(Self.t),v1=\(hex)", payload: payload) == nil, "\(text)")
        }

        /// An Event around a paid Checkout Session for three packs of coins, and its header.
        static let event = Data(
            #"{"id":"evt_1","object":"event","type":"checkout.session.completed","created":1772323200,"data":{"object":{"id":"cs_1","object":"checkout.session","mode":"payment","status":"complete","payment_status":"paid","client_reference_id":"acct-1","payment_intent":"pi_1","amount_total":1500,"created":1772323200,"line_items":{"object":"list","data":[{"id":"li_1","object":"item","quantity":3,"price":{"id":"price_c","object":"price","product":"prod_Coins"}}]}}}}"#
                .utf8)
        static let eventHeader = "t=1772323200,v1=c94490be1db62a6f2dfafea5d02e737f343f07ed4a228a67cf092af846998639"

        @Test("a verified delivery is read as Stripe's data; one that does not verify is never read")
        func verifiedReceipt() throws {
            let imported = try StripeWebhook.verifiedReceipt(
                payload: Self.event, signature: Self.eventHeader, secret: Self.secret, at: Self.at, app: "com.ex.multi")
            #expect(imported.receipt.transactions.map(\.productId) == ["prod_Coins"] && imported.receipt.store == .stripe)
            let refused = #expect(throws: VerificationError.self) {
                try StripeWebhook.verifiedReceipt(
                    payload: Self.event, signature: Self.eventHeader, secret: Self.rolled, at: Self.at, app: "com.ex.multi")
            }
            #expect(refused?.code == .badSignature)
        }

        @Test("`normalize` and `check` with --stripe-secret and --stripe-signature verify the delivery first")
        func commandLine() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("entitle-stripe-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let body = folder.appendingPathComponent("delivery.json")
            try Self.event.write(to: body)
            let secretFile = folder.appendingPathComponent("secret")
            try Data((Self.secret + "\n").utf8).write(to: secretFile)
            let options = ["--stripe-secret", secretFile.path, "--stripe-signature", Self.eventHeader]
            // normalize reads now: the delivery of March 2026 is outside the tolerance.
            let stale = CLITests.run(["normalize", "--app", "com.ex.multi"] + options + [body.path])
            #expect(stale.exitCode == 1 && stale.standardError.contains("outside-tolerance"), "\(stale.standardError)")
            #expect(!stale.standardError.contains(Self.secret) && !stale.standardOutput.contains(Self.secret))
            let catalog = folder.appendingPathComponent("catalog.json")
            try Data(StoreImportTests.catalogJSON.utf8).write(to: catalog)
            let checked = CLITests.run(
                ["check", "--catalog", catalog.path, "--receipt", body.path, "--at", "2026-03-01T00:04:00Z", "--format", "json"] + options)
            #expect(checked.exitCode == 0, "\(checked.standardError)")
            #expect(checked.standardOutput.contains("\"coins\""), "\(checked.standardOutput)")
            #expect(!checked.standardError.contains("not verified"), "a verified delivery gets no unverified notice: \(checked.standardError)")
            let wrong = folder.appendingPathComponent("wrong")
            try Data("whsec_other".utf8).write(to: wrong)
            let refused = CLITests.run(
                [
                    "check", "--catalog", catalog.path, "--receipt", body.path, "--at", "2026-03-01T00:04:00Z", "--stripe-secret", wrong.path,
                    "--stripe-signature", Self.eventHeader,
                ])
            #expect(refused.exitCode == 1 && refused.standardError.contains("bad-signature"), "\(refused.standardError)")
            #expect(refused.standardError.contains("delivery.json:1:1"), "located at the file: \(refused.standardError)")
            // The options verify Stripe's data: without any, they are misuse.
            let normalized = folder.appendingPathComponent("normalized.json")
            try Data(#"{"app": "com.ex.multi", "transactions": []}"#.utf8).write(to: normalized)
            let none = CLITests.run(["check", "--catalog", catalog.path, "--receipt", normalized.path, "--at", "2026-03-01T00:04:00Z"] + options)
            #expect(none.exitCode == 2 && none.standardError.contains("no receipt is Stripe's"), "\(none.standardError)")
            let onlyOne = CLITests.run(["normalize", "--stripe-signature", Self.eventHeader, body.path])
            #expect(onlyOne.exitCode == 2, "the two go together: \(onlyOne.standardError)")
        }
    #else
        @Test("without the trait, a well-formed header fails as `unavailable`, and the options say how to build with it")
        func unavailable() {
            #expect(Self.failure("t=\(Self.t),v1=\(Self.signed)")?.code == .unavailable)
            let output = CLITests.run(["normalize", "--stripe-secret", "secret", "--stripe-signature", "t=1,v1=00", "x.json"])
            #expect(
                output.exitCode == 2 && output.standardError.contains("needs entitle built with the `SystemCrypto` trait"), "\(output.standardError)")
        }
    #endif
}
