#ifndef GATEWAY_CEVENT_SHIM_H
#define GATEWAY_CEVENT_SHIM_H

// <sys/types.h> must come first: Debian's event2/event-config.h defines _GNU_SOURCE,
// and if glibc's features.h has not settled before that, a second module that includes
// system headers (zlib) sees a different fd_set and clang refuses to build.
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/dns.h>
#include <event2/http.h>
// Not event2/http_struct.h: it would make evhttp_request a complete type and change how
// Swift imports request pointers. keyvalq_struct.h is enough to walk header lists.
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/util.h>

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <zlib.h>

// hiredis 0.14 (libhiredis-dev): the async API and its libevent adapter, which attaches a
// redisAsyncContext to an event_base. The adapter's functions are static, defined in the header.
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>

// deflateInit2 and inflateInit2 are macros Swift cannot import.
static inline int cevent_deflate_init2(z_streamp strm, int level, int windowBits, int memLevel) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}

static inline int cevent_inflate_init2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
static inline long cevent_ssl_ctx_min_tls12(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

// SSL_set_tlsext_host_name is a macro over SSL_ctrl; Swift cannot import it.
static inline long cevent_ssl_set_sni(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

// accept4 is declared only under _GNU_SOURCE, which this header cannot count on.
int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
// gettid (glibc 2.30+) likewise: the kernel's id of the calling thread.
pid_t gettid(void);

// SSL_set_mode is a macro over SSL_ctrl. Partial writes let a non-blocking SSL_write
// report what it sent; a moving buffer lets a retry pass the same bytes from a new address.
static inline long cevent_ssl_set_nonblocking_writes(SSL *ssl) {
    return SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

// SSL_CTX_set_session_cache_mode is a macro over SSL_CTX_ctrl. Server sessions are resumed
// from tickets (which the client keeps), not stored in the process: OpenSSL's internal cache
// would keep every session of every idle connection (as nginx's default "none" does, the
// server still says sessions may be resumed).
static inline long cevent_ssl_ctx_sessions_not_stored(SSL_CTX *ctx) {
    return SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER | SSL_SESS_CACHE_NO_AUTO_CLEAR | SSL_SESS_CACHE_NO_INTERNAL_STORE);
}

// SSL_MODE_RELEASE_BUFFERS: the session frees its read and write buffers whenever they hold
// nothing, so an idle connection keeps only the session's state (as nginx sets it).
static inline long cevent_ssl_release_idle_buffers(SSL *ssl) {
    return SSL_set_mode(ssl, SSL_MODE_RELEASE_BUFFERS);
}

#endif
