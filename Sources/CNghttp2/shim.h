#ifndef GATEWAY_CNGHTTP2_SHIM_H
#define GATEWAY_CNGHTTP2_SHIM_H

// <sys/types.h> first, as in every shim (see CLibevent/shim.h).
#include <sys/types.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

// nghttp2's allocator for the gateway's sessions: blocks of up to 8 KiB come in eight size
// classes (64 bytes to 8 KiB) and go back to a free list of their class when freed, per thread
// (a session is used on its loop's thread only), at most 256 blocks a class; larger blocks and
// blocks past that go to malloc and free. A session allocates and frees per stream and per
// frame (its stream, the copied name/value pairs, the outbound item, frame buffers): with the
// lists warm a stream costs nghttp2 no call into malloc. Each block has a 16-byte header (its
// class, or -1, and the size asked for), so alignment stays 16 as malloc's.
#define CNGHTTP2_CLASSES 8
#define CNGHTTP2_LIST_LIMIT 256

typedef struct cnghttp2_block {
    struct cnghttp2_block *next;
} cnghttp2_block;

// The state lives in functions: Swift's importer emits a header's functions (with their
// static locals) but not its static globals.
typedef struct cnghttp2_lists {
    cnghttp2_block *heads[CNGHTTP2_CLASSES];
    unsigned counts[CNGHTTP2_CLASSES];
} cnghttp2_lists;

static inline cnghttp2_lists *cnghttp2_thread_lists(void) {
    static __thread cnghttp2_lists lists;
    return &lists;
}

static inline int cnghttp2_class_of(size_t size) {
    size_t limit = 64;
    for (int index = 0; index < CNGHTTP2_CLASSES; index++, limit <<= 1) {
        if (size <= limit) return index;
    }
    return -1;
}

static void *cnghttp2_pool_malloc(size_t size, void *user) {
    (void)user;
    int index = cnghttp2_class_of(size);
    cnghttp2_lists *lists = cnghttp2_thread_lists();
    if (index >= 0 && lists->heads[index] != NULL) {
        cnghttp2_block *block = lists->heads[index];
        lists->heads[index] = block->next;
        lists->counts[index]--;
        size_t *header = (size_t *)((char *)block - 16);
        header[1] = size;
        return block;
    }
    size_t capacity = index >= 0 ? ((size_t)64 << index) : size;
    size_t *header = (size_t *)malloc(capacity + 16);
    if (header == NULL) return NULL;
    header[0] = index >= 0 ? (size_t)index : (size_t)-1;
    header[1] = size;
    return (char *)header + 16;
}

static void cnghttp2_pool_free(void *pointer, void *user) {
    (void)user;
    if (pointer == NULL) return;
    size_t *header = (size_t *)((char *)pointer - 16);
    size_t index = header[0];
    cnghttp2_lists *lists = cnghttp2_thread_lists();
    if (index >= CNGHTTP2_CLASSES || lists->counts[index] >= CNGHTTP2_LIST_LIMIT) {
        free(header);
        return;
    }
    cnghttp2_block *block = (cnghttp2_block *)pointer;
    block->next = lists->heads[index];
    lists->heads[index] = block;
    lists->counts[index]++;
}

static void *cnghttp2_pool_calloc(size_t count, size_t size, void *user) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *pointer = cnghttp2_pool_malloc(count * size, user);
    if (pointer != NULL) memset(pointer, 0, count * size);
    return pointer;
}

static void *cnghttp2_pool_realloc(void *pointer, size_t size, void *user) {
    if (pointer == NULL) return cnghttp2_pool_malloc(size, user);
    size_t *header = (size_t *)((char *)pointer - 16);
    size_t index = header[0];
    if (index < CNGHTTP2_CLASSES && size <= ((size_t)64 << index)) {
        header[1] = size;
        return pointer;
    }
    void *moved = cnghttp2_pool_malloc(size, user);
    if (moved == NULL) return NULL;
    memcpy(moved, pointer, header[1] < size ? header[1] : size);
    cnghttp2_pool_free(pointer, user);
    return moved;
}

// The pool as nghttp2_session_server_new3 takes it (nghttp2 copies the struct).
static inline nghttp2_mem *cnghttp2_pooled_mem(void) {
    static nghttp2_mem pool = {NULL, cnghttp2_pool_malloc, cnghttp2_pool_free, cnghttp2_pool_calloc, cnghttp2_pool_realloc};
    return &pool;
}

#endif
