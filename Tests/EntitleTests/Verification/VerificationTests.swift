import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// Signature verification (``AppleSignatureVerifier``, `--verify`), on Apple's real signed data
/// and the App Store Server Library's test chain in ../shared/fixtures. Without the
/// `SystemCrypto` trait, only the tests that the build says so run.
@Suite("Verification")
struct VerificationTests {
    static let fixtures = Fixtures.sharedFixtures

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(path))
    }

    static func text(_ path: String) throws -> String {
        try String(decoding: data(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func path(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

    /// The folders of the fixtures most tests here read: TPInAppReceipt's receipts and
    /// certificates, the App Store Server Library's test chain and signed data, and data Apple
    /// really signed.
    static let tikhop = "receipts-pkcs7/tikhop-TPInAppReceipt/"
    static let serverLibrary = "storekit2/apple-app-store-server-library-swift/"
    static let realSigned = "storekit2/real-apple-signed/"

    static let appleRootG3 = "certs/apple-real/AppleRootCA-G3.cer"
    static let appleRootCA = tikhop + "AppleIncRootCertificate.cer"
    static let storeKitTest = tikhop + "StoreKitTestCertificate.cer"
    static let testCA = serverLibrary + "certs/testCA.der"
    static let mock = serverLibrary + "mock_signed_data/"
    static let realTransaction = realSigned + "mingos-app_store_server_api/sandbox-consumable-signedTransaction.jws"
    static let realNotification = realSigned + "imdhemy-appstore-iap/test-notification-signed-payload.json"
    static let xcodeTransaction = serverLibrary + "xcode/xcode-signed-transaction"

    static func verifier(_ roots: [String], app: String, environments: Set<String>? = nil, at: String? = nil) throws -> AppleSignatureVerifier {
        AppleSignatureVerifier(trustedRoots: try roots.map(data), app: app, environments: environments, at: at.map(Fixtures.instant))
    }

    /// The error a verification throws, or `nil` when it verifies.
    static func failure(_ body: () throws -> ImportedReceipt) -> VerificationError? {
        do {
            _ = try body()
            return nil
        } catch let error as VerificationError {
            return error
        } catch {
            Issue.record(error, "not a verification error")
            return nil
        }
    }

    /// A compact JWS with its header replaced (payload and signature kept).
    static func withHeader(_ jws: String, _ change: (inout [String: Any]) -> Void) throws -> String {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var header = try JSONSerialization.jsonObject(with: base64URLDecode(parts[0])) as! [String: Any]
        change(&header)
        let encoded = try JSONSerialization.data(withJSONObject: header)
        return [base64URLEncode(encoded), parts[1], parts[2]].joined(separator: ".")
    }

    static func base64URLDecode(_ text: String) -> Data {
        var text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)!
    }

    static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The certificates of a JWS header's `x5c`, DER.
    static func chain(_ jws: String) throws -> [Data] {
        let header = try JSONSerialization.jsonObject(with: base64URLDecode(String(jws.split(separator: ".")[0]))) as! [String: Any]
        return (header["x5c"] as! [String]).map { Data(base64Encoded: $0)! }
    }

    /// `jws` with the character at `offset` of part `part` (0 header, 1 payload, 2 signature)
    /// replaced by another base64url character.
    static func flipped(_ jws: String, part: Int, offset: Int) -> String {
        var parts = jws.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) }
        let index = min(offset, parts[part].count - 2)
        parts[part][index] = parts[part][index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
    }

    @Test("the build says whether it verifies: only with the SystemCrypto trait")
    func availability() {
        #if SystemCrypto
            #expect(AppleSignatureVerifier.isAvailable)
        #else
            #expect(!AppleSignatureVerifier.isAvailable)
        #endif
    }

    #if !SystemCrypto
        @Test("without the trait, every verification fails with `unavailable`, naming the trait and the command")
        func unavailableWithoutTrait() throws {
            let verifier = AppleSignatureVerifier(trustedRoots: [], app: "com.example")
            let error = Self.failure { try verifier.verifiedReceipt(from: Data("x.y.z".utf8)) }
            #expect(error?.code == .unavailable)
            #expect(error?.message == "verifying signatures needs entitle built with the `SystemCrypto` trait")
            #expect(error?.help?.contains("swift build --traits SystemCrypto") == true)
            #expect(error?.receiptError.code == .verificationFailed)
            #expect(error?.description.hasPrefix("error: unavailable: verifying signatures needs") == true)
        }

        @Test("without the trait, `--verify` says how to build with it and exits 2")
        func verifyOptionWithoutTrait() {
            for command in [
                ["normalize", "x.json"], ["check", "--catalog", "products", "--receipt", "x.json"],
                ["explain", "--catalog", "products", "--receipt", "x.json"],
                ["check", "--catalog", "products", "--customers", "corpus"],
            ] {
                let output = CLITests.run(command + ["--verify", "--root", "root.cer"])
                #expect(output.exitCode == 2, "\(command)")
                #expect(
                    output.standardError.contains("`--verify` needs entitle built with the `SystemCrypto` trait"),
                    "\(command): \(output.standardError)")
                #expect(output.standardError.contains("swift build --traits SystemCrypto"), "\(command)")
            }
        }
    #endif
}

#if SystemCrypto
    @Suite("Verification with the SystemCrypto trait", .enabled(if: Fixtures.sharedFixturesAvailable, "needs the shared App Store fixtures"))
    struct VerificationTraitTests {
        typealias V = VerificationTests

        // MARK: Apple's real signed data

        @Test("Apple's two real signed JWS verify against Apple Root CA G3 at their signedDate")
        func realAppleJWS() throws {
            let transaction = try V.verifier([V.appleRootG3], app: "com.goodheartapp", environments: ["sandbox"])
            let imported = try transaction.verifiedReceipt(fromAppStore: V.data(V.realTransaction))
            #expect(imported.receipt.app == "com.goodheartapp")
            #expect(imported.receipt.transactions.map(\.transactionId) == ["2000000847061981"])
            #expect(imported.receipt.environment == "sandbox")
            let notification = try V.verifier([V.appleRootG3], app: "com.Abilities", environments: ["Sandbox"])
            let test = try notification.verifiedReceipt(from: V.data(V.realNotification))
            #expect(test.receipt.app == "com.Abilities")
        }

        @Test("Apple's real signed JWS fail with `certificate-expired` on 2026-11-24: their leaves expired")
        func realAppleJWSExpired() throws {
            for (path, app) in [(V.realTransaction, "com.goodheartapp"), (V.realNotification, "com.Abilities")] {
                let verifier = try V.verifier([V.appleRootG3], app: app, at: "2026-11-24T00:00:00Z")
                let error = V.failure { try verifier.verifiedReceipt(fromAppStore: V.data(path), name: path) }
                #expect(error?.code == .certificateExpired, "\(path): \(String(describing: error))")
                #expect(error?.message.hasPrefix("the leaf certificate (`x5c[0]`) expired at 20") == true, "\(String(describing: error))")
                #expect(error?.message.hasSuffix("before the verification instant 2026-11-24T00:00:00Z") == true)
                #expect(error?.location?.file == path)
            }
        }

        @Test("a chain to a root the caller did not give fails with `untrusted-chain`")
        func untrustedRoot() throws {
            let verifier = try V.verifier([V.testCA], app: "com.goodheartapp")
            let error = V.failure { try verifier.verifiedReceipt(fromAppStore: V.data(V.realTransaction)) }
            #expect(error?.code == .untrustedChain, "\(String(describing: error))")
            // The error says which roots were tried: their names when given, else how many.
            #expect(error?.help == "tried 1 trusted root (`trustedRoots`)", "\(String(describing: error))")
            var named = verifier
            named.trustedRootNames = ["testCA.der"]
            #expect(V.failure { try named.verifiedReceipt(fromAppStore: V.data(V.realTransaction)) }?.help == "tried testCA.der")
            let none = AppleSignatureVerifier(trustedRoots: [], app: "com.goodheartapp")
            #expect(V.failure { try none.verifiedReceipt(fromAppStore: V.data(V.realTransaction)) }?.code == .untrustedChain)
            let garbage = AppleSignatureVerifier(trustedRoots: [Data("not a certificate".utf8)], app: "com.goodheartapp")
            let unreadable = V.failure { try garbage.verifiedReceipt(fromAppStore: V.data(V.realTransaction)) }
            #expect(unreadable?.code == .untrustedChain)
            #expect(unreadable?.message == "trusted root 1 of 1 is not a DER X.509 certificate")
        }

        // MARK: The App Store Server Library's test chain

        @Test(
            "the library's signed transaction, renewal info and test notification verify against testCA.der",
            arguments: ["transactionInfo", "renewalInfo", "testNotification"])
        func libraryTestChain(name: String) throws {
            let verifier = try V.verifier([V.testCA], app: "com.example", environments: ["sandbox"])
            let imported = try verifier.verifiedReceipt(fromAppStore: V.data(V.mock + name), name: name)
            #expect(imported.receipt.app == "com.example")
        }

        @Test("a verifier of several apps reads each signed payload as the app it names; renewal info alone is the first app's")
        func severalApps() throws {
            let roots = [try V.data(V.testCA)]
            let at = Instant(rfc3339: "2023-06-01T00:00:00Z")
            let both = AppleSignatureVerifier(trustedRoots: roots, apps: ["com.example", "com.example.wrong"], at: at)
            #expect(both.apps == ["com.example", "com.example.wrong"] && both.app == "com.example")
            #expect(try both.verifiedReceipt(fromAppStore: V.data(V.mock + "wrongBundleId")).receipt.app == "com.example.wrong")
            #expect(try both.verifiedReceipt(fromAppStore: V.data(V.mock + "transactionInfo")).receipt.app == "com.example")
            #expect(try both.verifiedReceipt(fromAppStore: V.data(V.mock + "renewalInfo")).receipt.app == "com.example")
            let others = AppleSignatureVerifier(trustedRoots: roots, apps: ["com.example.a", "com.example.b"], at: at)
            let wrong = V.failure { try others.verifiedReceipt(fromAppStore: V.data(V.mock + "transactionInfo")) }
            #expect(wrong?.code == .wrongApp)
            #expect(wrong?.message == "the signed data is for app `com.example`, not `com.example.a` or `com.example.b`", "\(wrong?.message ?? "")")
        }

        @Test("`wrongBundleId` fails with `wrong-app`, `missingX5CHeaderClaim` with `malformed`")
        func libraryNegativeCases() throws {
            // These two notifications carry no `signedDate`: the instant is given.
            let verifier = try V.verifier([V.testCA], app: "com.example", at: "2023-06-01T00:00:00Z")
            let wrong = V.failure { try verifier.verifiedReceipt(fromAppStore: V.data(V.mock + "wrongBundleId")) }
            #expect(wrong?.code == .wrongApp)
            #expect(wrong?.message == "the signed data is for app `com.example.wrong`, not `com.example`")
            let missing = V.failure { try verifier.verifiedReceipt(fromAppStore: V.data(V.mock + "missingX5CHeaderClaim")) }
            #expect(missing?.code == .malformed)
            #expect(missing?.message == "the JWS header has no `x5c` certificate chain to verify")
            #expect(missing?.underlying == nil)
            // Without an instant, a payload without `signedDate` cannot be verified.
            let noInstant = try V.verifier([V.testCA], app: "com.example")
            let undated = V.failure { try noInstant.verifiedReceipt(fromAppStore: V.data(V.mock + "wrongBundleId")) }
            #expect(undated?.code == .malformed)
            #expect(undated?.message == "the payload has no `signedDate` to verify the certificates at")
            // With an instant for payloads without one (Apple's library uses the current time), the
            // signature and chain verify and the bundle id decides: `wrong-app`.
            var fallback = noInstant
            fallback.unsignedPayloadInstant = Instant(rfc3339: "2023-06-01T00:00:00Z")
            #expect(V.failure { try fallback.verifiedReceipt(fromAppStore: V.data(V.mock + "wrongBundleId")) }?.code == .wrongApp)
            // The command line verifies them at `--at`, default now.
            let normalize = CLITests.run([
                "normalize", "--verify", "--root", V.path(V.testCA), "--app", "com.example", V.path(V.mock + "wrongBundleId"),
            ])
            #expect(normalize.exitCode == 1)
            #expect(
                normalize.standardError.contains("error: wrong-app: the signed data is for app `com.example.wrong`, not `com.example`"),
                "\(normalize.standardError)")
            let untrusted = CLITests.run(["normalize", "--verify", "--root", V.path(V.appleRootG3), V.path(V.mock + "transactionInfo")])
            #expect(untrusted.standardError.contains("help: tried AppleRootCA-G3.cer"), "\(untrusted.standardError)")
        }

        @Test("data of an environment the caller does not accept fails with `wrong-environment`")
        func wrongEnvironment() throws {
            let verifier = try V.verifier([V.testCA], app: "com.example", environments: ["production"])
            let error = V.failure { try verifier.verifiedReceipt(fromAppStore: V.data(V.mock + "transactionInfo")) }
            #expect(error?.code == .wrongEnvironment)
            #expect(error?.message == "the signed data is of environment `Sandbox`, not `production`")
        }

        @Test(
            "one flipped character in the header, payload or signature fails with `bad-signature`",
            arguments: [(0, 5), (1, 3), (1, 40), (1, 1_000), (2, 10), (2, 60)])
        func flippedByte(part: Int, offset: Int) throws {
            let verifier = try V.verifier([V.testCA], app: "com.example")
            let original = try V.text(V.mock + "transactionInfo")
            let jws = V.flipped(original, part: part, offset: offset)
            #expect(jws != original)
            let error = V.failure { try verifier.verifiedReceipt(fromAppStore: Data(jws.utf8)) }
            // A flipped header character may also break its JSON or base64: never accepted either way.
            if part == 0 {
                #expect(error != nil)
            } else {
                #expect(error?.code == .badSignature, "\(String(describing: error))")
            }
        }

        @Test("an `alg` other than ES256 fails with `unsupported-algorithm`", arguments: ["HS256", "none", "RS256", "ES384"])
        func unsupportedAlgorithm(algorithm: String) throws {
            let verifier = try V.verifier([V.testCA], app: "com.example")
            let jws = try V.withHeader(try V.text(V.mock + "transactionInfo")) { $0["alg"] = algorithm }
            let error = V.failure { try verifier.verifiedReceipt(fromAppStore: Data(jws.utf8)) }
            #expect(error?.code == .unsupportedAlgorithm)
            #expect(error?.message == "the JWS header's `alg` is `\(algorithm)`; Apple signs with `ES256`")
            let noAlgorithm = try V.withHeader(try V.text(V.mock + "transactionInfo")) { $0["alg"] = nil }
            #expect(V.failure { try verifier.verifiedReceipt(fromAppStore: Data(noAlgorithm.utf8)) }?.code == .unsupportedAlgorithm)
        }

        @Test("the chain is anchored on the trusted root's key, not on the root certificate the data carries (FIELDS.md §3.1)")
        func anchoredOnTrustedRoot() throws {
            let jws = try V.text(V.mock + "transactionInfo")
            let carried = try V.chain(jws)[2]
            // `transactionInfo` carries another self-signed copy of the test root (same key and subject).
            #expect(carried != (try V.data(V.testCA)))
            _ = try V.verifier([V.testCA], app: "com.example").verifiedReceipt(fromAppStore: Data(jws.utf8))
            // The root in the data is not trusted for being there.
            let apple = try V.verifier([V.appleRootG3], app: "com.example")
            #expect(V.failure { try apple.verifiedReceipt(fromAppStore: Data(jws.utf8)) }?.code == .untrustedChain)
        }

        @Test("a leaf without Apple's receipt-signing extension fails with `not-apple`, as does a trusted leaf")
        func notApple() throws {
            let certificates = try V.chain(try V.text(V.realTransaction)).map { [UInt8]($0) }
            let checker = try SignatureChecker(trustedRoots: [[UInt8](try V.data(V.appleRootG3))])
            let at = Fixtures.instant("2025-02-10T00:00:00Z")
            #expect(try !checker.verifyChain(Array(certificates.prefix(2)), at: at, names: .jws, markers: .required))
            // Apple's WWDR intermediate as the leaf: it chains to Apple's root but signs no receipts
            // (a developer's certificate, which WWDR also issues, would be refused the same way).
            #expect {
                _ = try checker.verifyChain([certificates[1]], at: at, names: .jws, markers: .required)
            } throws: { error in
                (error as? VerificationError)?.code == .notApple
                    && (error as? VerificationError)?.message
                        == "the leaf certificate (`x5c[0]`) lacks Apple's receipt-signing extension (OID 1.2.840.113635.100.6.11.1)"
            }
            // A leaf that is itself a trusted root is not Apple's chain either.
            let selfTrusted = try SignatureChecker(trustedRoots: [certificates[2]])
            #expect { _ = try selfTrusted.verifyChain([certificates[2]], at: at, names: .jws, markers: .required) } throws: {
                ($0 as? VerificationError)?.code == .notApple
            }
            #expect(try selfTrusted.verifyChain([certificates[2]], at: at, names: .jws, markers: .none))
        }

        @Test("the DER walk the Apple-platform path uses finds the same extensions as OpenSSL, and Apple's markers where they are")
        func extensionsAgreeWithOpenSSL() throws {
            var certificates: [(String, [UInt8])] = []
            for path in [V.realTransaction, V.mock + "transactionInfo", V.mock + "renewalInfo", V.xcodeTransaction] {
                for (index, certificate) in try V.chain(try V.text(path)).enumerated() {
                    certificates.append(("\(path) x5c[\(index)]", [UInt8](certificate)))
                }
            }
            for path in [
                V.appleRootG3, V.appleRootCA, V.storeKitTest, V.testCA, "certs/apple-real/AppleWWDRCAG6.cer",
                "certs/apple-real/Prod-ECC-Receipt-Signing-2025-leaf.der",
            ] {
                certificates.append((path, [UInt8](try V.data(path))))
            }
            for (name, der) in certificates {
                let walked = CertificateExtensions.identifiers(in: der)
                #expect(walked != nil, "\(name)")
                #expect(walked == SignatureChecker.extensionIdentifiers(der), "\(name)")
            }
            let leaf = [UInt8](try V.data("certs/apple-real/Prod-ECC-Receipt-Signing-2025-leaf.der"))
            #expect(CertificateExtensions.contains(SystemCrypto.receiptSigningMarker, in: leaf))
            #expect(CertificateExtensions.contains(SystemCrypto.intermediateMarker, in: [UInt8](try V.data("certs/apple-real/AppleWWDRCAG6.cer"))))
            #expect(!CertificateExtensions.contains(SystemCrypto.receiptSigningMarker, in: [UInt8](try V.data(V.appleRootG3))))
            for garbage in [[], [0x30], Array(leaf.prefix(leaf.count / 2)), leaf + [0]] as [[UInt8]] {
                #expect(CertificateExtensions.identifiers(in: garbage) == nil)
            }
        }

        @Test("the ES256 signature's DER form the Apple-platform path builds is OpenSSL's")
        func signatureEncodingAgreesWithOpenSSL() throws {
            var generator = SystemRandomNumberGenerator()
            var cases: [[UInt8]] = [
                [UInt8](repeating: 0, count: 64), [UInt8](repeating: 0xFF, count: 64),
                [UInt8](repeating: 0, count: 31) + [1] + [0x80] + [UInt8](repeating: 0, count: 31),
            ]
            for _ in 0..<200 {
                var raw = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
                // Leading zeros and high bits, the cases DER writes differently.
                if Bool.random(using: &generator) {
                    raw[0] = 0
                    raw[1] = UInt8.random(in: 0...0x7F, using: &generator)
                }
                if Bool.random(using: &generator) { raw[32] |= 0x80 }
                cases.append(raw)
            }
            for raw in cases {
                #expect(ECDSASignatureEncoding.der(fromRaw: raw) == (try SignatureChecker.derSignature(raw)), "\(raw)")
            }
            #expect(ECDSASignatureEncoding.der(fromRaw: [UInt8](repeating: 1, count: 63)) == nil)
        }

        @Test("the instant given replaces signedDate: before the test chain was issued it is `certificate-expired`")
        func instantGiven() throws {
            let early = try V.verifier([V.testCA], app: "com.example", at: "2022-01-01T00:00:00Z")
            let error = V.failure { try early.verifiedReceipt(fromAppStore: V.data(V.mock + "transactionInfo")) }
            #expect(error?.code == .certificateExpired)
            #expect(error?.message.contains("is valid only from 2023-") == true, "\(String(describing: error))")
            let within = try V.verifier([V.testCA], app: "com.example", at: "2030-01-01T00:00:00Z")
            _ = try within.verifiedReceipt(fromAppStore: V.data(V.mock + "transactionInfo"))
        }

        // MARK: Responses and notifications holding signed values

        @Test("every JWS of a response is verified, and a failing one is located by its path")
        func responsesAndNesting() throws {
            let verifier = try V.verifier([V.testCA], app: "com.example")
            let good = try V.text(V.mock + "transactionInfo")
            let bad = V.flipped(good, part: 2, offset: 20)
            let history = #"{"bundleId": "com.example", "environment": "Sandbox", "signedTransactions": ["\#(good)", "\#(good)"]}"#
            #expect(try verifier.verifiedReceipt(fromAppStore: Data(history.utf8)).receipt.app == "com.example")
            let tampered = "{\"signedTransactions\": [\"\(good)\",\n \"\(bad)\"]}"
            let error = V.failure { try verifier.verifiedReceipt(fromAppStore: Data(tampered.utf8), name: "history.json") }
            #expect(error?.code == .badSignature)
            #expect(error?.path == "signedTransactions[1]")
            #expect(error?.location == SourceLocation(file: "history.json", line: 2, column: 2))
            #expect(error?.receiptError.description.hasPrefix("history.json:2:2: error: signedTransactions[1]: bad-signature: ") == true)
            // A renewal info with its transaction in a status response.
            let renewal = try V.text(V.mock + "renewalInfo")
            let status =
                #"{"data": [{"subscriptionGroupIdentifier": "g", "lastTransactions": [{"originalTransactionId": "1", "status": 1, "signedTransactionInfo": "\#(good)", "signedRenewalInfo": "\#(renewal)"}]}]}"#
            _ = try verifier.verifiedReceipt(fromAppStore: Data(status.utf8))
        }

        @Test("unsigned data fails with `unsigned`: a decoded payload, a verifyReceipt response, a normalized receipt")
        func unsignedData() throws {
            let verifier = try V.verifier([V.testCA], app: "com.example")
            let decoded = try V.data(V.serverLibrary + "models/signedTransaction.json")
            #expect(V.failure { try verifier.verifiedReceipt(fromAppStore: decoded) }?.code == .unsigned)
            // A decoded transaction beside a signed one is refused too: it would count unsigned.
            let good = try V.text(V.mock + "transactionInfo")
            let mixed = #"[ "\#(good)", {"transactionId": "9", "productId": "p", "purchaseDate": 1672956154000, "bundleId": "com.example"} ]"#
            let error = V.failure { try verifier.verifiedReceipt(fromAppStore: Data(mixed.utf8)) }
            #expect(error?.code == .unsigned)
            #expect(error?.path == "[1]")
            let response = try V.data("verifyreceipt/levibostian-dollabill-apple/subscription_renewed.json")
            #expect(V.failure { try verifier.verifiedReceipt(from: response) }?.code == .unsigned)
            let normalized = try Data(contentsOf: URL(fileURLWithPath: CLITests.receipt("diagrams-trial.json")))
            #expect(V.failure { try verifier.verifiedReceipt(from: normalized) }?.code == .unsigned)
            // Data that is no receipt: `malformed`, with the importer's located error.
            let junk = V.failure { try verifier.verifiedReceipt(from: Data("{\"app\": ".utf8)) }
            #expect(junk?.code == .unsigned || junk?.code == .malformed)
            let notData = V.failure { try verifier.verifiedReceipt(from: Data([0x01, 0x02])) }
            #expect(notData?.code == .malformed)
            #expect(notData?.underlying?.message == "unrecognized receipt format")
        }

        // MARK: Xcode

        @Test("Xcode's JWS verify only when its own certificate is trusted; Xcode's receipt certificate does not do")
        func xcodeJWS() throws {
            let jws = try V.text(V.xcodeTransaction)
            let app = "com.example.naturelab.backyardbirds.example"
            let own = AppleSignatureVerifier(trustedRoots: try V.chain(jws), app: app, environments: ["xcode"])
            let imported = try own.verifiedReceipt(fromAppStore: Data(jws.utf8))
            #expect(imported.receipt.environment == "xcode")
            for name in ["xcode-signed-renewal-info", "xcode-signed-app-transaction"] {
                _ = try own.verifiedReceipt(fromAppStore: V.data(V.serverLibrary + "xcode/" + name))
            }
            let receiptCertificate = try V.verifier([V.storeKitTest], app: app)
            #expect(V.failure { try receiptCertificate.verifiedReceipt(fromAppStore: Data(jws.utf8)) }?.code == .untrustedChain)
            let apple = try V.verifier([V.appleRootG3], app: app)
            #expect(V.failure { try apple.verifiedReceipt(fromAppStore: Data(jws.utf8)) }?.code == .untrustedChain)
            let production = AppleSignatureVerifier(trustedRoots: try V.chain(jws), app: app, environments: ["production"])
            #expect(V.failure { try production.verifiedReceipt(fromAppStore: Data(jws.utf8)) }?.code == .wrongEnvironment)
        }

        // MARK: App receipts

        static let appleReceipts = [
            "tikhop-TPInAppReceipt/receipt-production", "tikhop-TPInAppReceipt/receipt-sandbox-g5", "tikhop-TPInAppReceipt/receipt-sandbox-legacy",
            "revenuecat-purchases-ios/base64encoded_sandboxReceipt.txt", "levibostian-dollabill-apple/bought_consumable.latest_receipt.b64",
            "levibostian-dollabill-apple/exclude_old_transactions.latest_receipt.b64",
            "levibostian-dollabill-apple/subscription_renewed.latest_receipt.b64",
        ]
        static let xcodeReceipts = [
            "tikhop-TPInAppReceipt/receipt-xcode", "tikhop-TPInAppReceipt/receipt-xcode-with-purchases",
            "apple-app-store-server-library-swift/xcode-app-receipt-empty", "apple-app-store-server-library-swift/xcode-app-receipt-with-transaction",
        ]

        static func receipt(_ name: String) throws -> Data { try V.data("receipts-pkcs7/" + name) }
        static func app(of name: String) throws -> String { try AppleImport.unverifiedReceipt(fromPKCS7: receipt(name)).receipt.app }

        @Test(
            "every production and sandbox app receipt of the fixtures verifies against Apple Root CA at its creation date", arguments: appleReceipts)
        func appleReceipt(name: String) throws {
            let verifier = try V.verifier([V.appleRootCA], app: try Self.app(of: name), environments: ["production", "sandbox"])
            let imported = try verifier.verifiedReceipt(fromPKCS7: Self.receipt(name))
            #expect(imported.receipt == (try AppleImport.unverifiedReceipt(fromPKCS7: Self.receipt(name)).receipt))
            // Against Xcode's certificate, or now that the signing certificates expired: refused.
            let xcode = try V.verifier([V.storeKitTest], app: try Self.app(of: name))
            #expect(V.failure { try xcode.verifiedReceipt(fromPKCS7: Self.receipt(name)) }?.code == .untrustedChain)
            let later = try V.verifier([V.appleRootCA], app: try Self.app(of: name), at: "2036-01-01T00:00:00Z")
            #expect(V.failure { try later.verifiedReceipt(fromPKCS7: Self.receipt(name)) }?.code == .certificateExpired)
            let other = try V.verifier([V.appleRootCA], app: "com.example.other")
            #expect(V.failure { try other.verifiedReceipt(fromPKCS7: Self.receipt(name)) }?.code == .wrongApp)
            let xcodeOnly = try V.verifier([V.appleRootCA], app: try Self.app(of: name), environments: ["xcode"])
            #expect(V.failure { try xcodeOnly.verifiedReceipt(fromPKCS7: Self.receipt(name)) }?.code == .wrongEnvironment)
        }

        @Test("every Xcode app receipt of the fixtures verifies against the StoreKit test certificate only", arguments: xcodeReceipts)
        func xcodeReceipt(name: String) throws {
            let verifier = try V.verifier([V.storeKitTest], app: try Self.app(of: name), environments: ["xcode"])
            _ = try verifier.verifiedReceipt(from: Self.receipt(name))
            let apple = try V.verifier([V.appleRootCA], app: try Self.app(of: name))
            #expect(V.failure { try apple.verifiedReceipt(fromPKCS7: Self.receipt(name)) }?.code == .untrustedChain)
        }

        @Test("a changed byte in an app receipt's content fails with `bad-signature`")
        func tamperedReceipt() throws {
            let name = "tikhop-TPInAppReceipt/receipt-production"
            let app = try Self.app(of: name)
            var der = AppReceiptMapper.der(try Self.receipt(name))!
            // The bundle id's bytes, inside the signed content.
            let needle = Array(app.utf8)
            let index = try #require((0...(der.count - needle.count)).first { der[$0..<($0 + needle.count)].elementsEqual(needle) })
            der[index + needle.count - 1] ^= 0x01
            let verifier = try V.verifier([V.appleRootCA], app: app)
            let error = V.failure { try verifier.verifiedReceipt(fromPKCS7: Data(der)) }
            #expect(error?.code == .badSignature, "\(String(describing: error))")
        }

        // MARK: Hostile input

        @Test("garbage, truncated and oversized certificates and chains fail quickly, without a crash")
        func hostileChains() throws {
            let verifier = try V.verifier([V.testCA], app: "com.example")
            let original = try V.text(V.mock + "transactionInfo")
            let certificates = try V.chain(original)
            let cases: [(String, Any)] = [
                (
                    "truncated",
                    [certificates[0].prefix(100).base64EncodedString(), certificates[1].base64EncodedString(), certificates[2].base64EncodedString()]
                ),
                ("garbage", [Data(repeating: 0x30, count: 5_000).base64EncodedString(), certificates[1].base64EncodedString(), ""]),
                ("not base64", ["%%%", "%%%", "%%%"]),
                ("numbers", [1, 2, 3]),
                ("not a list", "MIIB"),
                ("empty", [String]()),
                ("huge", Array(repeating: certificates[0].base64EncodedString(), count: 2_000)),
                ("many", Array(repeating: "", count: 200_000)),
                ("four", Array(repeating: certificates[0].base64EncodedString(), count: 4)),
                (
                    "deep",
                    [
                        Data([UInt8](repeating: 0x30, count: 1) + [0x84, 0x00, 0x10, 0x00, 0x00] + [UInt8](repeating: 0x30, count: 8_000))
                            .base64EncodedString()
                    ]
                ),
                ("nested", [Data((0..<4_000).flatMap { _ in [0x30, 0x80] as [UInt8] }).base64EncodedString(), "", ""]),
            ]
            let clock = ContinuousClock()
            for (name, chain) in cases {
                let jws = try V.withHeader(original) { $0["x5c"] = chain }
                let started = clock.now
                let error = V.failure { try verifier.verifiedReceipt(fromAppStore: Data(jws.utf8)) }
                #expect(error != nil, "\(name)")
                #expect([.malformed, .badSignature].contains(error?.code), "\(name): \(String(describing: error))")
                #expect(clock.now - started < .seconds(2), "\(name)")
            }
            // Straight to the checker: a truncated certificate is `malformed`, and a truncated root is refused up front.
            let checker = try SignatureChecker(trustedRoots: [[UInt8](certificates[0])])
            #expect { _ = try checker.verifyChain([[UInt8](certificates[0].prefix(200))], at: .earliest, names: .jws, markers: .required) } throws: {
                ($0 as? VerificationError)?.code == .malformed
            }
            #expect { _ = try SignatureChecker(trustedRoots: [[UInt8](certificates[0].dropLast())]) } throws: {
                ($0 as? VerificationError)?.code == .untrustedChain
            }
        }

        @Test("hostile app receipts (garbage, truncated, many certificates) fail without a crash")
        func hostileReceipts() throws {
            let verifier = try V.verifier([V.appleRootCA], app: "org.getpure.pure-iphone", at: "2024-02-23T18:00:00Z")
            let der = AppReceiptMapper.der(try Self.receipt("tikhop-TPInAppReceipt/receipt-production"))!
            for length in [0, 1, 2, 10, 100, der.count / 2, der.count - 1] {
                let error = V.failure { try verifier.verifiedReceipt(fromPKCS7: Data(der.prefix(length))) }
                #expect(error != nil, "\(length)")
            }
            let checker = try SignatureChecker(trustedRoots: [[UInt8](try V.data(V.appleRootCA))])
            for garbage in [[UInt8](repeating: 0x30, count: 1_000), [0x30, 0x80] + [UInt8](repeating: 0, count: 10), Array(der.prefix(300))] {
                #expect(throws: VerificationError.self) { _ = try checker.verifyPKCS7(garbage, at: .earliest) }
            }
        }

        @Test("a transaction history of many JWS verifies in linear time: the chain once, each signature once")
        func manySignatures() throws {
            let verifier = try V.verifier([V.testCA], app: "com.example")
            let good = try V.text(V.mock + "transactionInfo")
            let history = "{\"signedTransactions\": [" + Array(repeating: "\"\(good)\"", count: 500).joined(separator: ",") + "]}"
            let clock = ContinuousClock()
            let started = clock.now
            _ = try verifier.verifiedReceipt(fromAppStore: Data(history.utf8))
            #expect(clock.now - started < .seconds(10))
        }

        // MARK: The command line

        static let xcodeReceipt = V.path(V.tikhop + "receipt-xcode-with-purchases")

        @Test("check, explain and normalize --verify read data that verifies, and say nothing about unverified data")
        func commandLineVerifies() throws {
            let root = V.path(V.storeKitTest)
            let check = CLITests.run([
                "check", "--catalog", CLITests.products, "--receipt", Self.xcodeReceipt, "--verify", "--root", root,
                "--at", "2023-10-20T00:00:00Z",
            ])
            #expect(check.exitCode == 0, "\(check.standardError)")
            #expect(check.standardOutput.contains("pass.premium"))
            #expect(!check.standardError.contains(AppleImport.notice))
            let explain = CLITests.run([
                "explain", "--catalog", CLITests.products, "--receipt", Self.xcodeReceipt, "--verify", "--root", root,
                "--at", "2023-10-20T00:00:00Z",
            ])
            #expect(explain.exitCode == 0, "\(explain.standardError)")
            let normalize = CLITests.run(["normalize", "--verify", "--root", root, Self.xcodeReceipt])
            #expect(normalize.exitCode == 0, "\(normalize.standardError)")
            #expect(normalize.standardOutput.contains("\"app\": \"com.example.naturelab.backyardbirds.example\""))
        }

        @Test("a receipt that fails verification is an error located like any other, never evaluated")
        func commandLineRefuses() throws {
            let root = V.path(V.appleRootG3)
            let check = CLITests.run([
                "check", "--catalog", CLITests.products, "--receipt", Self.xcodeReceipt, "--verify", "--root", root,
                "--at", "2023-10-20T00:00:00Z", "--format", "json",
            ])
            #expect(check.exitCode == 1)
            #expect(check.standardError.contains("\(Self.xcodeReceipt):1:1: error: untrusted-chain: "), "\(check.standardError)")
            #expect(check.standardOutput.contains("\"code\": \"verification-failed\""))
            let normalize = CLITests.run(["normalize", "--verify", "--root", root, V.path(V.xcodeTransaction)])
            #expect(normalize.exitCode == 1)
            #expect(normalize.standardOutput.isEmpty)
            #expect(normalize.standardError.contains("error: untrusted-chain: "), "\(normalize.standardError)")
            // normalize --app names the app the signed data must be for; check --app only the app to evaluate.
            let storeKit = V.path(V.storeKitTest)
            let wrongApp = CLITests.run(["normalize", "--verify", "--root", storeKit, "--app", "com.example.other", Self.xcodeReceipt])
            #expect(wrongApp.exitCode == 1)
            #expect(
                wrongApp.standardError.contains(
                    "error: wrong-app: the receipt is for app `com.example.naturelab.backyardbirds.example`, not `com.example.other`"),
                "\(wrongApp.standardError)")
            let otherApp = CLITests.run([
                "check", "--catalog", CLITests.products, "--app", "com.example.diagrams", "--receipt", Self.xcodeReceipt,
                "--verify", "--root", storeKit, "--at", "2023-10-20T00:00:00Z",
            ])
            #expect(otherApp.exitCode == 0, "\(otherApp.standardError)")
            // A normalized receipt carries no signature.
            let unsigned = CLITests.run([
                "check", "--catalog", CLITests.products, "--receipt", CLITests.receipt("diagrams-trial.json"),
                "--verify", "--root", root,
            ])
            #expect(unsigned.exitCode == 1)
            #expect(
                unsigned.standardError.contains("error: unsigned: a normalized receipt carries no signature to verify"), "\(unsigned.standardError)")
        }

        @Test("--verify needs a --root, --root needs --verify, and a root must be a readable file")
        func commandLineMisuse() throws {
            let noRoot = CLITests.run(["normalize", "--verify", Self.xcodeReceipt])
            #expect(noRoot.exitCode == 2)
            #expect(
                noRoot.standardError.contains("`--verify` and `--root` go together: give `--root` too, or neither"), "\(noRoot.standardError)")
            let noVerify = CLITests.run(["normalize", "--root", V.path(V.appleRootG3), Self.xcodeReceipt])
            #expect(noVerify.exitCode == 2)
            #expect(
                noVerify.standardError.contains("`--verify` and `--root` go together: give `--verify` too, or neither"),
                "\(noVerify.standardError)")
            let missing = CLITests.run(["normalize", "--verify", "--root", "/nonexistent.cer", Self.xcodeReceipt])
            #expect(missing.exitCode == 2)
            #expect(missing.standardError.contains("/nonexistent.cer"), "\(missing.standardError)")
        }

        @Test("in a customer corpus, a customer whose receipt fails verification is unreadable with the error")
        func batchCheck() throws {
            try Fixtures.withTemporaryDirectory("entitle-verify") { directory in
                try FileManager.default.copyItem(atPath: Self.xcodeReceipt, toPath: directory.appendingPathComponent("good.pkcs7").path)
                try FileManager.default.copyItem(
                    atPath: V.path(V.tikhop + "receipt-production"),
                    toPath: directory.appendingPathComponent("other.pkcs7").path)
                let output = CLITests.run([
                    "check", "--catalog", CLITests.products, "--customers", directory.path, "--verify",
                    "--root", V.path(V.storeKitTest), "--at", "2023-10-20T00:00:00Z",
                ])
                #expect(output.exitCode == 1)
                let lines = output.standardOutput.split(separator: "\n").map(String.init)
                #expect(lines.count == 2)
                #expect(lines[0].hasPrefix("{\"customer\":\"good\",\"app\":"), "\(lines)")
                #expect(lines[1].hasPrefix("{\"customer\":\"other\",\"errors\":[{"), "\(lines)")
                #expect(lines[1].contains("\"code\":\"verification-failed\""))
                #expect(lines[1].contains("untrusted-chain"))
            }
        }
    }
#endif
