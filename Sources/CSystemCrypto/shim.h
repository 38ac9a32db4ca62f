#ifndef ENTITLE_CSYSTEMCRYPTO_SHIM_H
#define ENTITLE_CSYSTEMCRYPTO_SHIM_H

// The parts of OpenSSL 3's libcrypto that entitle's SystemCrypto trait uses on Linux: X.509
// parsing and chain verification, ECDSA signature verification, PKCS#7 signature verification,
// HMAC-SHA256 (Stripe's webhook signatures).
// Everything cryptographic is libcrypto's; these helpers only wrap macros Swift cannot import.

#include <openssl/opensslv.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#if OPENSSL_VERSION_NUMBER < 0x30000000L
#error "entitle's SystemCrypto trait needs OpenSSL 3 (libssl-dev on Debian and Ubuntu)"
#endif

/// A new empty stack of certificates (`sk_X509_new_null`).
static inline STACK_OF(X509) *entitle_certificates_new(void) { return sk_X509_new_null(); }

/// Appends a certificate to a stack without taking a reference; 0 on failure.
static inline int entitle_certificates_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}

/// Frees a stack but not the certificates in it.
static inline void entitle_certificates_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }

/// The number of certificates in a stack (0 for NULL).
static inline int entitle_certificates_count(const STACK_OF(X509) *stack) {
    return stack == NULL ? 0 : sk_X509_num(stack);
}

/// The certificate at `index` of a stack, or NULL.
static inline X509 *entitle_certificates_at(const STACK_OF(X509) *stack, int index) {
    return stack == NULL ? NULL : sk_X509_value(stack, index);
}

/// The certificates a PKCS#7 signedData carries, or NULL when it is not signedData.
static inline STACK_OF(X509) *entitle_pkcs7_certificates(PKCS7 *p7) {
    if (p7 == NULL || !PKCS7_type_is_signed(p7) || p7->d.sign == NULL) return NULL;
    return p7->d.sign->cert;
}

/// The number of signers of a PKCS#7 signedData (0 when it is not signedData).
static inline int entitle_pkcs7_signer_count(PKCS7 *p7) {
    if (p7 == NULL || !PKCS7_type_is_signed(p7) || p7->d.sign == NULL) return 0;
    return sk_PKCS7_SIGNER_INFO_num(p7->d.sign->signer_info);
}

/// A BIO that discards what is written to it.
static inline BIO *entitle_null_bio(void) { return BIO_new(BIO_s_null()); }

#endif
