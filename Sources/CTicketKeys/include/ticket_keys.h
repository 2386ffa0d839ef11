#ifndef GATEWAY_TICKET_KEYS_H
#define GATEWAY_TICKET_KEYS_H

#include <sys/types.h>
#include <stddef.h>
#include <openssl/ssl.h>

// TLS session ticket keys for a server context, in the 80-byte form nginx's
// ssl_session_ticket_key reads: a 16-byte key name, a 32-byte HMAC-SHA256 key and a 32-byte
// AES-256-CBC key. The first key seals new tickets; every key opens them; a ticket opened with
// another than the first is renewed. A C target rather than a header shim because the keys'
// ex data index must be one variable for the whole program.

// Gives `ctx` a copy of `count` keys, 80 bytes each, at `bytes`, and the ticket callback that
// uses them. The copy is wiped and freed with the context (OpenSSL keeps a context alive while
// any SSL made from it lives). Returns 1, or 0 when out of memory or OpenSSL refuses.
// Thread-safe.
int gateway_ctx_set_ticket_keys(SSL_CTX *ctx, const unsigned char *bytes, size_t count);

#endif
