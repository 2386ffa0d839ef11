#include "tls_memory.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

// Size classes 32 B << index, index 0..11 (32 B to 64 KiB). Each block has a 16-byte header
// (its class, or `unpooled` for a block larger than the largest class) so that alignment stays
// malloc's 16 and free needs no size.
enum { classes = 12, header_bytes = 16 };
static const size_t unpooled = (size_t)-1;

// How many freed blocks of a class a thread keeps: many small ones (OpenSSL's per-record and
// per-handshake structures), a few large ones (record buffers: a loop has few sessions reading
// or writing at one moment, and the buffers go back between records).
static unsigned list_limit(int index) {
    size_t size = (size_t)32 << index;
    if (size <= 4096) return 256;
    if (size <= 16384) return 16;
    return 4;
}

typedef struct free_block {
    struct free_block *next;
} free_block;

typedef struct {
    free_block *heads[classes];
    unsigned counts[classes];
    // Set by the thread-exit destructor: later frees on this thread (OpenSSL's own thread-exit
    // clean-up may run after it) go straight to free().
    int closed;
    int registered;
} thread_lists;

static __thread thread_lists lists;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void release_lists(void *unused) {
    (void)unused;
    for (int index = 0; index < classes; index++) {
        free_block *block = lists.heads[index];
        while (block != NULL) {
            free_block *next = block->next;
            free((char *)block - header_bytes);
            block = next;
        }
        lists.heads[index] = NULL;
        lists.counts[index] = 0;
    }
    lists.closed = 1;
}

static void make_exit_key(void) { pthread_key_create(&exit_key, release_lists); }

// The thread's lists, registered for release at thread exit the first time a block is kept.
static thread_lists *this_thread(void) {
    if (!lists.registered) {
        lists.registered = 1;
        pthread_once(&exit_key_once, make_exit_key);
        // Any non-NULL value makes the destructor run.
        pthread_setspecific(exit_key, &lists);
    }
    return &lists;
}

static int class_of(size_t size) {
    size_t limit = 32;
    for (int index = 0; index < classes; index++, limit <<= 1) {
        if (size <= limit) return index;
    }
    return -1;
}

void *gateway_tls_memory_malloc(size_t size, const char *file, int line) {
    (void)file; (void)line;
    // As OpenSSL's own allocator: nothing for nothing.
    if (size == 0) return NULL;
    int index = class_of(size);
    if (index >= 0 && !lists.closed && lists.heads[index] != NULL) {
        free_block *block = lists.heads[index];
        lists.heads[index] = block->next;
        lists.counts[index]--;
        return block;
    }
    if (index < 0 && size > SIZE_MAX - header_bytes) return NULL;
    size_t capacity = index >= 0 ? ((size_t)32 << index) : size;
    size_t *header = malloc(capacity + header_bytes);
    if (header == NULL) return NULL;
    header[0] = index >= 0 ? (size_t)index : unpooled;
    return (char *)header + header_bytes;
}

void gateway_tls_memory_free(void *pointer, const char *file, int line) {
    (void)file; (void)line;
    if (pointer == NULL) return;
    size_t *header = (size_t *)((char *)pointer - header_bytes);
    size_t index = header[0];
    if (index == unpooled || lists.closed) {
        free(header);
        return;
    }
    thread_lists *own = this_thread();
    if (own->counts[index] >= list_limit((int)index)) {
        free(header);
        return;
    }
    free_block *block = pointer;
    block->next = own->heads[index];
    own->heads[index] = block;
    own->counts[index]++;
}

void *gateway_tls_memory_realloc(void *pointer, size_t size, const char *file, int line) {
    if (pointer == NULL) return gateway_tls_memory_malloc(size, file, line);
    if (size == 0) {
        gateway_tls_memory_free(pointer, file, line);
        return NULL;
    }
    size_t *header = (size_t *)((char *)pointer - header_bytes);
    size_t index = header[0];
    if (index == unpooled) {
        // Stays unpooled even when it shrinks: its header says so.
        if (size > SIZE_MAX - header_bytes) return NULL;
        size_t *moved = realloc(header, size + header_bytes);
        return moved == NULL ? NULL : (char *)moved + header_bytes;
    }
    size_t capacity = (size_t)32 << index;
    if (size <= capacity) return pointer;
    void *moved = gateway_tls_memory_malloc(size, file, line);
    if (moved == NULL) return NULL;
    memcpy(moved, pointer, capacity);
    gateway_tls_memory_free(pointer, file, line);
    return moved;
}

// Under AddressSanitizer or ThreadSanitizer OpenSSL keeps malloc, so that the sanitizer sees
// every block it takes and gives back (a recycled block would hide a use after free, and
// ThreadSanitizer would not see the hand-over of a block through OpenSSL's uninstrumented code).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GATEWAY_TLS_MEMORY_SANITIZED 1
#endif
#endif

int gateway_tls_memory_install(void) {
#ifdef GATEWAY_TLS_MEMORY_SANITIZED
    return 0;
#else
    return CRYPTO_set_mem_functions(gateway_tls_memory_malloc, gateway_tls_memory_realloc, gateway_tls_memory_free);
#endif
}

size_t gateway_tls_memory_free_blocks(void) {
    size_t total = 0;
    for (int index = 0; index < classes; index++) total += lists.counts[index];
    return total;
}

size_t gateway_tls_memory_free_bytes(void) {
    size_t total = 0;
    for (int index = 0; index < classes; index++) total += (size_t)lists.counts[index] * ((size_t)32 << index);
    return total;
}
