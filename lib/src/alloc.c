/* alloc: the single allocation path, with live-byte accounting and failure injection.
 * Each block carries a 16-byte header holding its size (keeps max_align_t alignment). */
#include "ccb/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 16

static atomic_size_t g_live = 0;
static atomic_long g_count = 0;
static atomic_long g_fail_after = 0; /* 0: never fail */

/* The countdown is one atomic compare-and-swap, so concurrent allocations (study threads) each
 * take one step of it: the k-th allocation fails, whichever thread makes it. */
static int injected_failure(void) {
    long n = atomic_load(&g_fail_after);
    for (;;) {
        if (n <= 0) {
            return 0;
        }
        if (n == 1) {
            return 1; /* stays at 1: every later allocation fails too, until reset */
        }
        if (atomic_compare_exchange_weak(&g_fail_after, &n, n - 1)) {
            return 0;
        }
    }
}

void* ccb_alloc(size_t size) {
    if (size == 0 || size > SIZE_MAX - HEADER || injected_failure()) {
        return NULL;
    }
    unsigned char* p = malloc(size + HEADER);
    if (p == NULL) {
        return NULL;
    }
    memcpy(p, &size, sizeof size);
    atomic_fetch_add(&g_live, size);
    atomic_fetch_add(&g_count, 1);
    return p + HEADER;
}

void* ccb_calloc(size_t n, size_t size) {
    if (n == 0 || size == 0 || n > SIZE_MAX / size) {
        return NULL;
    }
    void* p = ccb_alloc(n * size);
    if (p != NULL) {
        memset(p, 0, n * size);
    }
    return p;
}

void* ccb_realloc(void* p, size_t size) {
    if (p == NULL) {
        return ccb_alloc(size);
    }
    if (size == 0 || size > SIZE_MAX - HEADER || injected_failure()) {
        return NULL;
    }
    unsigned char* base = (unsigned char*)p - HEADER;
    size_t old;
    memcpy(&old, base, sizeof old);
    unsigned char* q = realloc(base, size + HEADER);
    if (q == NULL) {
        return NULL;
    }
    memcpy(q, &size, sizeof size);
    atomic_fetch_sub(&g_live, old);
    atomic_fetch_add(&g_live, size);
    atomic_fetch_add(&g_count, 1);
    return q + HEADER;
}

void ccb_free(void* p) {
    if (p == NULL) {
        return;
    }
    unsigned char* base = (unsigned char*)p - HEADER;
    size_t size;
    memcpy(&size, base, sizeof size);
    atomic_fetch_sub(&g_live, size);
    free(base);
}

size_t ccb_alloc_live_bytes(void) {
    return atomic_load(&g_live);
}

long ccb_alloc_count(void) {
    return atomic_load(&g_count);
}

void ccb_alloc_fail_after(long n) {
    atomic_store(&g_fail_after, n < 0 ? 0 : n);
}
