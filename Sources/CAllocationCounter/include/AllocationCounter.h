#ifndef ENTITLE_ALLOCATION_COUNTER_H
#define ENTITLE_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Whether allocations can be counted on this platform (glibc only).
int entitle_allocation_counter_available(void);
/// Starts or stops counting allocations (counting is off at start).
void entitle_allocation_counting(int enabled);
/// Allocations counted so far, and the bytes they asked for.
uint64_t entitle_allocation_count(void);
uint64_t entitle_allocation_bytes(void);

#endif
