/* ccb/alloc.h — the one allocation path of the library.
 *
 * All library memory goes through ccb_alloc/ccb_realloc/ccb_free so that tests can inject
 * failures (CHOLMOD Tcov/t_memory.c style) and count live bytes (Box2D b2GetByteCount). The
 * counters are process-wide and updated atomically, so they stay exact when studies run
 * several simulations in parallel threads. */
#ifndef CCB_ALLOC_H
#define CCB_ALLOC_H

#include "ccb/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns NULL for size 0 or when allocation fails (or an injected failure fires). */
CCB_API void* ccb_alloc(size_t size);
/* Zero-initialized array of n elements of `size` bytes; NULL on overflow or failure. */
CCB_API void* ccb_calloc(size_t n, size_t size);
/* Like realloc; on failure returns NULL and leaves `p` untouched. ccb_realloc(NULL, n) allocates. */
CCB_API void* ccb_realloc(void* p, size_t size);
/* Accepts NULL. */
CCB_API void ccb_free(void* p);

/* Bytes currently allocated through ccb_alloc and not freed. */
CCB_API size_t ccb_alloc_live_bytes(void);
/* Number of successful allocations (ccb_alloc/calloc, and realloc that moves or grows) so far. */
CCB_API long ccb_alloc_count(void);
/* Test hook: the n-th allocation from now (n >= 1) and all later ones fail until reset with
 * n = 0. Not for production use. */
CCB_API void ccb_alloc_fail_after(long n);

#ifdef __cplusplus
}
#endif
#endif
