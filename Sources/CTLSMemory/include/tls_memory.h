#ifndef GATEWAY_TLS_MEMORY_H
#define GATEWAY_TLS_MEMORY_H

#include <sys/types.h>
#include <stddef.h>

// OpenSSL's allocator for the whole process: blocks of up to 64 KiB in power-of-two size
// classes, kept on per-thread free lists when freed. The server sets SSL_MODE_RELEASE_BUFFERS,
// so a TLS session frees its record buffers (about 17 KiB each) whenever they are empty and
// takes them again at its next read or write: with these lists that costs no call into malloc
// and an idle connection still holds no buffer. A C target rather than a header shim because
// the lists must be one set per thread for the whole program. See tls_memory.c.

// Makes these functions OpenSSL's allocator. Only possible before OpenSSL allocates anything
// (call it first thing in main): returns 1 when installed, 0 when it was too late or the
// program is built with AddressSanitizer or ThreadSanitizer (which must see every block).
int gateway_tls_memory_install(void);

// Blocks this thread's free lists hold now, and bytes in them (tests and diagnostics).
size_t gateway_tls_memory_free_blocks(void);
size_t gateway_tls_memory_free_bytes(void);

// The functions themselves, for tests (OpenSSL's signatures).
void *gateway_tls_memory_malloc(size_t size, const char *file, int line);
void *gateway_tls_memory_realloc(void *pointer, size_t size, const char *file, int line);
void gateway_tls_memory_free(void *pointer, const char *file, int line);

#endif
