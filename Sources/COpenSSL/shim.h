#ifndef GATEWAY_COPENSSL_SHIM_H
#define GATEWAY_COPENSSL_SHIM_H

// <sys/types.h> first, as in every shim (see CLibevent/shim.h).
#include <sys/types.h>

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
static inline long copenssl_ctx_min_tls12(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

// SSL_set_tlsext_host_name is a macro over SSL_ctrl; Swift cannot import it.
static inline long copenssl_set_sni(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

// SSL_set_mode is a macro over SSL_ctrl. Partial writes let a non-blocking SSL_write
// report what it sent; a moving buffer lets a retry pass the same bytes from a new address.
static inline long copenssl_set_nonblocking_writes(SSL *ssl) {
    return SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

// SSL_MODE_RELEASE_BUFFERS: the session frees its read and write buffers whenever they hold
// nothing, so an idle connection keeps only the session's state (as nginx sets it).
static inline long copenssl_release_idle_buffers(SSL *ssl) {
    return SSL_set_mode(ssl, SSL_MODE_RELEASE_BUFFERS);
}

// SSL_CTX_set_session_cache_mode is a macro over SSL_CTX_ctrl. Server sessions are resumed
// from tickets (which the client keeps), not stored in the process: OpenSSL's internal cache
// would keep every session of every idle connection (as nginx's default "none" does, the
// server still says sessions may be resumed).
static inline long copenssl_ctx_sessions_not_stored(SSL_CTX *ctx) {
    return SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER | SSL_SESS_CACHE_NO_AUTO_CLEAR | SSL_SESS_CACHE_NO_INTERNAL_STORE);
}

#endif
