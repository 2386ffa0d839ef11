#ifndef GATEWAY_CNGHTTP2_SHIM_H
#define GATEWAY_CNGHTTP2_SHIM_H

// <sys/types.h> first, as in every shim (see CEvent/shim.h).
#include <sys/types.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <nghttp2/nghttp2.h>

// nghttp2's allocator for the gateway's sessions: blocks of up to 8 KiB come in fifteen size
// classes (64 bytes to 8 KiB, each about 1.5 times the one before, so that the blocks an idle
// session keeps fit: its 2,928-byte structure takes 3,072 bytes, not 4,096, and its many 80-byte
// blocks 96, not 128; Benchmarks/nghttp2-session.c lists them) and go back to a free list of
// their class when freed, per thread
// (a session is used on its loop's thread only), at most 256 blocks a class; larger blocks and
// blocks past that go to malloc and free. A session allocates and frees per stream and per
// frame (its stream, the copied name/value pairs, the outbound item, frame buffers): with the
// lists warm a stream costs nghttp2 no call into malloc. Each block has a 16-byte header (its
// class, or -1, and the size asked for), so alignment stays 16 as malloc's.
#define CNGHTTP2_CLASSES 15
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

// The capacity of class `index` (0 ..< CNGHTTP2_CLASSES).
static inline size_t cnghttp2_class_capacity(size_t index) {
    static const size_t capacities[CNGHTTP2_CLASSES] = {
        64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
    };
    return capacities[index];
}

// The smallest class that holds `size` bytes, or -1 past 8 KiB.
static inline int cnghttp2_class_of(size_t size) {
    for (int index = 0; index < CNGHTTP2_CLASSES; index++) {
        if (size <= cnghttp2_class_capacity((size_t)index)) return index;
    }
    return -1;
}

// Blocks over 8 KiB (in practice one per session: its frame buffer, 16,394 bytes, made with the
// session and kept for its life) are taken page-aligned, without a header, and listed in the
// session's arena (the allocator's user data), so that a session that idles can give their
// pages back (cnghttp2_arena_release): between frames their content is scratch, and the kernel
// hands zeroed pages back when they are touched again.
#define CNGHTTP2_ARENA_BLOCKS 8

typedef struct cnghttp2_arena {
    nghttp2_mem mem;
    void *blocks[CNGHTTP2_ARENA_BLOCKS];
    size_t capacities[CNGHTTP2_ARENA_BLOCKS];
} cnghttp2_arena;

static inline int cnghttp2_arena_find(cnghttp2_arena *arena, void *pointer) {
    if (arena == NULL || pointer == NULL) return -1;
    for (int slot = 0; slot < CNGHTTP2_ARENA_BLOCKS; slot++) {
        if (arena->blocks[slot] == pointer) return slot;
    }
    return -1;
}

static void *cnghttp2_pool_malloc(size_t size, void *user) {
    int index = cnghttp2_class_of(size);
    cnghttp2_arena *arena = (cnghttp2_arena *)user;
    if (index < 0 && arena != NULL) {
        for (int slot = 0; slot < CNGHTTP2_ARENA_BLOCKS; slot++) {
            if (arena->blocks[slot] != NULL) continue;
            size_t capacity = (size + 4095) & ~(size_t)4095;
            void *block = NULL;
            if (posix_memalign(&block, 4096, capacity) != 0) return NULL;
            arena->blocks[slot] = block;
            arena->capacities[slot] = capacity;
            return block;
        }
    }
    cnghttp2_lists *lists = cnghttp2_thread_lists();
    if (index >= 0 && lists->heads[index] != NULL) {
        cnghttp2_block *block = lists->heads[index];
        lists->heads[index] = block->next;
        lists->counts[index]--;
        size_t *header = (size_t *)((char *)block - 16);
        header[1] = size;
        return block;
    }
    size_t capacity = index >= 0 ? cnghttp2_class_capacity((size_t)index) : size;
    size_t *header = (size_t *)malloc(capacity + 16);
    if (header == NULL) return NULL;
    header[0] = index >= 0 ? (size_t)index : (size_t)-1;
    header[1] = size;
    return (char *)header + 16;
}

static void cnghttp2_pool_free(void *pointer, void *user) {
    if (pointer == NULL) return;
    cnghttp2_arena *arena = (cnghttp2_arena *)user;
    int slot = cnghttp2_arena_find(arena, pointer);
    if (slot >= 0) {
        arena->blocks[slot] = NULL;
        arena->capacities[slot] = 0;
        free(pointer);
        return;
    }
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
    size_t old_size;
    int slot = cnghttp2_arena_find((cnghttp2_arena *)user, pointer);
    if (slot >= 0) {
        old_size = ((cnghttp2_arena *)user)->capacities[slot];
        if (size <= old_size) return pointer;
    } else {
        size_t *header = (size_t *)((char *)pointer - 16);
        size_t index = header[0];
        if (index < CNGHTTP2_CLASSES && size <= cnghttp2_class_capacity(index)) {
            header[1] = size;
            return pointer;
        }
        old_size = header[1];
    }
    void *moved = cnghttp2_pool_malloc(size, user);
    if (moved == NULL) return NULL;
    memcpy(moved, pointer, old_size < size ? old_size : size);
    cnghttp2_pool_free(pointer, user);
    return moved;
}

// A session's allocator: the pool above, its large blocks listed in the arena. The caller
// passes &arena->mem to nghttp2_session_server_new3 (which copies it) and deletes the arena
// after the session.
static inline cnghttp2_arena *cnghttp2_arena_new(void) {
    cnghttp2_arena *arena = (cnghttp2_arena *)calloc(1, sizeof(cnghttp2_arena));
    if (arena == NULL) return NULL;
    arena->mem.mem_user_data = arena;
    arena->mem.malloc = cnghttp2_pool_malloc;
    arena->mem.free = cnghttp2_pool_free;
    arena->mem.calloc = cnghttp2_pool_calloc;
    arena->mem.realloc = cnghttp2_pool_realloc;
    return arena;
}

static inline void cnghttp2_arena_delete(cnghttp2_arena *arena) {
    if (arena == NULL) return;
    for (int slot = 0; slot < CNGHTTP2_ARENA_BLOCKS; slot++) free(arena->blocks[slot]);
    free(arena);
}

// Gives back the pages of the session's large blocks. Only while the session has nothing to
// send (no frame is being serialised).
static inline void cnghttp2_arena_release(cnghttp2_arena *arena) {
    if (arena == NULL) return;
    for (int slot = 0; slot < CNGHTTP2_ARENA_BLOCKS; slot++) {
        if (arena->blocks[slot] != NULL) madvise(arena->blocks[slot], arena->capacities[slot], MADV_DONTNEED);
    }
}

#endif
