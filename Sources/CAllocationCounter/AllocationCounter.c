// Counts heap allocations for the benchmark's memory figures, with no dependency: on glibc the
// executable's own malloc family interposes the C library's and forwards to its __libc_ entry
// points. Counting is off unless the benchmark turns it on around a measured loop. Elsewhere the
// functions report that counting is unavailable.
#include "AllocationCounter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_int counting;
static atomic_uint_fast64_t allocations;
static atomic_uint_fast64_t allocated_bytes;

static inline void note(size_t size) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&allocated_bytes, size, memory_order_relaxed);
    }
}

void *malloc(size_t size) { note(size); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { note(count * size); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { note(size); return __libc_realloc(pointer, size); }
void free(void *pointer) { __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { note(size); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { note(size); return __libc_memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    note(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

int entitle_allocation_counter_available(void) { return 1; }
void entitle_allocation_counting(int enabled) { atomic_store(&counting, enabled); }
uint64_t entitle_allocation_count(void) { return atomic_load(&allocations); }
uint64_t entitle_allocation_bytes(void) { return atomic_load(&allocated_bytes); }
#else
int entitle_allocation_counter_available(void) { return 0; }
void entitle_allocation_counting(int enabled) { (void)enabled; }
uint64_t entitle_allocation_count(void) { return 0; }
uint64_t entitle_allocation_bytes(void) { return 0; }
#endif
