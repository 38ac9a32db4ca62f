/// Finds which extensions an X.509 certificate carries, by walking its DER to the
/// `extensions` of its `TBSCertificate`: parsing only, to tell the platform's cryptography which
/// certificates to check and whether Apple's marker extensions are there. Security.framework has
/// no portable call for an extension by OID; OpenSSL's `X509_get_ext_by_OBJ` is used on Linux and
/// the tests check that both agree.
///
/// Reads with ``BERReader``: every length is checked and nesting is bounded, so a crafted
/// certificate costs no more than reading it once.
enum CertificateExtensions {
    /// The dotted OIDs of the certificate's extensions, in order; `nil` when `der` is not a
    /// certificate's DER as far as this walk reads it.
    static func identifiers(in der: [UInt8]) -> [String]? {
        do throws(BERReader.Failure) {
            var outer = BERReader(der[...])
            let certificate = try outer.next(tag: 0x30, "a certificate SEQUENCE")
            guard outer.isAtEnd else { return nil }
            var fields = BERReader(certificate.content, depth: 1)
            let tbs = try fields.next(tag: 0x30, "a TBSCertificate SEQUENCE")
            var tbsFields = BERReader(tbs.content, depth: 2)
            while !tbsFields.isAtEnd {
                let field = try tbsFields.next()
                // extensions [3] EXPLICIT Extensions
                guard field.tag == 0xA3 else { continue }
                var explicit = BERReader(field.content, depth: 3)
                let list = try explicit.next(tag: 0x30, "an Extensions SEQUENCE")
                var extensions = BERReader(list.content, depth: 4)
                var identifiers: [String] = []
                while !extensions.isAtEnd {
                    let item = try extensions.next(tag: 0x30, "an Extension SEQUENCE")
                    var parts = BERReader(item.content, depth: 5)
                    identifiers.append(try BERReader.objectIdentifier(try parts.next(tag: 0x06, "an extension id")))
                }
                return identifiers
            }
            return []
        } catch {
            return nil
        }
    }

    /// Whether the DER certificate carries the extension `identifier` (dotted).
    static func contains(_ identifier: String, in der: [UInt8]) -> Bool {
        identifiers(in: der)?.contains(identifier) ?? false
    }
}

/// ECDSA signatures as JWS write them (`r || s`, fixed width) and as X9.62 and most libraries
/// take them (DER `SEQUENCE { INTEGER r, INTEGER s }`): an encoding, no arithmetic.
enum ECDSASignatureEncoding {
    /// The DER form of a 64-byte ES256 signature; `nil` for another length.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            // A leading bit of 1 would make the INTEGER negative: a zero byte first.
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }
}
