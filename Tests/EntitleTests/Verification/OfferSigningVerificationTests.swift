import Foundation
import Testing

@testable import Entitle

/// Signing promotional offers (issue 32): with the `SystemCrypto` trait an In-App Purchase key
/// signs a retention reply's offer; without it, the reply keeps saying what needs signing. (The
/// suite's name holds "Verification", so CI runs it under the trait too.)
@Suite("Promotional offer signing (Verification)")
struct OfferSigningVerificationTests {
    /// A P-256 key made for this test with `openssl genpkey`; it signs nothing of anyone's.
    static let key = Data(
        """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgq385Z9ELYkfUhcYl
        Eghu+d4+F19ms3coUTYd8N6J83ahRANCAASIiFjvVaL+Oxe7iRaNxMxW5X1h36DD
        H/7lDiLEP3x7K4+H7dgWWA96WIjQL3Rj9lbn/UxgFoL2vVpVrTOWgZ76
        -----END PRIVATE KEY-----
        """.utf8)

    static func reply(_ app: String = "com.example.sketch") -> RetentionReply {
        RetentionReply(
            app: app, at: Fixtures.instant("2026-03-01T12:00:00Z"), request: "req-1", rule: "stay", reason: .ruleMatched,
            reply: .promotionalOffer(offerId: "sketch.stay50", productId: "sketch.monthly", message: nil), outcomes: [])
    }

    @Test("without the trait, signing is refused with a reason and the reply still names what needs signing")
    func unavailable() {
        guard !PromotionalOfferSigner.isAvailable else { return }
        #expect(throws: PromotionalOfferSigner.SigningError.self) {
            try PromotionalOfferSigner(privateKey: Self.key, keyId: "K", issuerId: "I", bundleId: "com.example.sketch")
        }
        #expect(Self.reply().needsSigning?.offerIdentifier == "sketch.stay50")
    }

    #if SystemCrypto && canImport(CSystemCrypto)
        @Test("a signed offer is an ES256 JWS of Apple's V2 fields that the key's public half verifies")
        func signs() throws {
            let signer = try PromotionalOfferSigner(privateKey: Self.key, keyId: "ABC123", issuerId: "issuer-1", bundleId: "com.example.sketch")
            let nonce = UUID(uuidString: "5F3A3E0E-5C8B-4C4B-9C1D-1B2C3D4E5F60")!
            let signed = try Self.reply().signed(with: signer, transactionId: "2000000001", nonce: nonce)
            let jws = try #require(signed.signature)
            #expect(signed.needsSigning == nil)
            #expect(signer.verifies(jws))
            let parts = jws.split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            func json(_ part: String) throws -> [String: Any] {
                let bytes = try #require(Base64.decode(Data(part.utf8)))
                return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            }
            let header = try json(parts[0])
            #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "ABC123" && header["typ"] as? String == "JWT")
            let payload = try json(parts[1])
            #expect(payload["iss"] as? String == "issuer-1" && payload["aud"] as? String == "promotional-offer")
            #expect(payload["bid"] as? String == "com.example.sketch" && payload["nonce"] as? String == nonce.uuidString.lowercased())
            #expect(payload["productId"] as? String == "sketch.monthly" && payload["offerIdentifier"] as? String == "sketch.stay50")
            #expect(payload["transactionId"] as? String == "2000000001")
            #expect(payload["iat"] as? Int == 1_772_366_400 && payload["exp"] as? Int == 1_772_366_700)
            // Apple's body carries it; nothing of the key shows anywhere.
            let body = try #require(signed.appleJSON)
            #expect(body.contains(#""promotionalOfferSignatureV2""#) && body.contains(jws))
            #expect(!signed.json.contains("MIGHAgEA") && !"\(signer)".contains("MIGHAgEA"))
            // A signature with one byte changed, or over another payload, does not verify.
            var tampered = Array(jws.utf8)
            tampered[tampered.count - 5] = tampered[tampered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(!signer.verifies(String(decoding: tampered, as: UTF8.self)))
            #expect(!signer.verifies(parts[0] + "." + parts[0] + "." + parts[2]))
        }

        @Test("another app's key, a key that is not P-256 PEM and an empty id are refused, without quoting the key")
        func refusals() throws {
            let signer = try PromotionalOfferSigner(privateKey: Self.key, keyId: "K", issuerId: "I", bundleId: "com.example.other")
            #expect(throws: PromotionalOfferSigner.SigningError.self) { try Self.reply().signed(with: signer) }
            for bad in [Data("not a key".utf8), Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)] {
                do {
                    _ = try PromotionalOfferSigner(privateKey: bad, keyId: "K", issuerId: "I", bundleId: "b")
                    Issue.record("accepted a bad key")
                } catch {
                    #expect(!error.message.contains("AAAA") && !error.message.contains("not a key"))
                }
            }
            #expect(throws: PromotionalOfferSigner.SigningError.self) {
                try PromotionalOfferSigner(privateKey: Self.key, keyId: "", issuerId: "I", bundleId: "b")
            }
            // A message reply needs no signature: signing leaves it as it is.
            var message = Self.reply()
            message.reply = .message("m-1")
            #expect(try message.signed(with: signer) == message)
        }
    #endif
}
