// LD_PRELOAD allocation counter for Benchmarks/counts.sh: counts calls of malloc, calloc,
// realloc, posix_memalign, aligned_alloc and memalign in the whole process (glibc's own
// __libc_* functions do the work), and writes the total to standard error on SIGUSR2
// ("allocations: N"). Build:
//   cc -O2 -shared -fPIC -o malloc-count.so Benchmarks/malloc-count.c
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_ulong count;

static void report(int signal) {
    (void)signal;
    char line[64];
    int length = snprintf(line, sizeof line, "allocations: %lu\n", atomic_load(&count));
    if (length > 0) write(2, line, (size_t)length);
}

__attribute__((constructor)) static void setup(void) { signal(SIGUSR2, report); }

static inline void counted(void) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); }

void *malloc(size_t size) { counted(); return __libc_malloc(size); }
void *calloc(size_t number, size_t size) { counted(); return __libc_calloc(number, size); }
void *realloc(void *pointer, size_t size) { counted(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    counted();
    void *memory = __libc_memalign(alignment, size);
    if (!memory) return ENOMEM;
    *out = memory;
    return 0;
}
void free(void *pointer) { __libc_free(pointer); }
