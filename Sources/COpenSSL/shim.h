#ifndef GATEWAY_COPENSSL_SHIM_H
#define GATEWAY_COPENSSL_SHIM_H

// <sys/types.h> first, as in every shim (see CEvent/shim.h).
#include <sys/types.h>

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/rand.h>

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

// SSL_CTX_set_read_ahead is a macro over SSL_CTX_ctrl. Read-ahead lets a session read as many
// bytes as the socket holds into its buffer: one read(2) per record instead of two (the 5-byte
// header, then the rest), as nginx sets it. Callers must then ask SSL_has_pending, not
// SSL_pending, whether the session holds bytes (SSL_pending counts only a decrypted record).
static inline long copenssl_ctx_read_ahead(SSL_CTX *ctx) {
    return SSL_CTX_set_read_ahead(ctx, 1);
}

// SSL_CTX_set_session_cache_mode is a macro over SSL_CTX_ctrl. Server sessions are resumed
// from tickets (which the client keeps), not stored in the process: OpenSSL's internal cache
// would keep every session of every idle connection (as nginx's default "none" does, the
// server still says sessions may be resumed).
static inline long copenssl_ctx_sessions_not_stored(SSL_CTX *ctx) {
    return SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER | SSL_SESS_CACHE_NO_AUTO_CLEAR | SSL_SESS_CACHE_NO_INTERNAL_STORE);
}

// ALPN on a server context: the server's preference among what the client offers, h2 first
// when the server speaks HTTP/2, then http/1.1; no ALPN in the answer when nothing matches
// (the connection goes on as HTTP/1.1). `arg` is non-NULL when h2 is offered.
static const unsigned char copenssl_alpn_h2_http11[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
static const unsigned char copenssl_alpn_http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

static int copenssl_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    const unsigned char *server = arg ? copenssl_alpn_h2_http11 : copenssl_alpn_http11;
    unsigned int server_length = arg ? sizeof(copenssl_alpn_h2_http11) : sizeof(copenssl_alpn_http11);
    if (SSL_select_next_proto((unsigned char **)out, outlen, server, server_length, in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    return SSL_TLSEXT_ERR_OK;
}

static inline void copenssl_ctx_select_alpn(SSL_CTX *ctx, int offers_h2) {
    SSL_CTX_set_alpn_select_cb(ctx, copenssl_alpn_select, offers_h2 ? (void *)1 : NULL);
}

// Whether ALPN chose h2 on this connection.
static inline int copenssl_alpn_is_h2(const SSL *ssl) {
    const unsigned char *data = NULL;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl, &data, &length);
    return length == 2 && data[0] == 'h' && data[1] == '2';
}

#endif
