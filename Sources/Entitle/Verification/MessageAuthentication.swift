#if SystemCrypto && canImport(CSystemCrypto)
    import CSystemCrypto
#elseif SystemCrypto && canImport(CommonCrypto)
    import CommonCrypto
#endif

extension SystemCrypto {
    /// HMAC-SHA256 of `message` under `key`, computed by the system's cryptography (libcrypto's
    /// `HMAC`, CommonCrypto's `CCHmac`); `nil` in a build without it.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        #if SystemCrypto && canImport(CSystemCrypto)
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            let done = key.withUnsafeBytes { key in
                message.withUnsafeBufferPointer { message in
                    digest.withUnsafeMutableBufferPointer { digest in
                        HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, digest.baseAddress, &length)
                    }
                }
            }
            ERR_clear_error()
            guard done != nil, length == 32 else { return nil }
            return Array(digest.prefix(32))
        #elseif SystemCrypto && canImport(CommonCrypto)
            var digest = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
            key.withUnsafeBytes { key in
                message.withUnsafeBytes { message in
                    CCHmac(CCHmacAlgorithm(kCCHmacAlgSHA256), key.baseAddress, key.count, message.baseAddress, message.count, &digest)
                }
            }
            return digest
        #else
            return nil
        #endif
    }

    /// Whether two byte strings are equal, in time that depends only on their lengths: a
    /// signature compared this way tells an attacker nothing about how much of it matched.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
