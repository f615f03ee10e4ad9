#ifndef DOCBM_CCRYPTO_SHIM_H
#define DOCBM_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto: SHA-256 and CRYPTO_memcmp. The low-level SHA256_Init/Update/Final
 * run the CPU's SHA instructions where present and allocate nothing (the EVP interface
 * that replaces them fetches an implementation and allocates a context on every use).
 * OpenSSL 3.0 marks them deprecated; they are kept for this. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/crypto.h>
#include <openssl/sha.h>
#endif
