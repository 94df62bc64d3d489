/* sparse_pool: recycling allocator behind SuiteSparse (CHOLMOD, UMFPACK).
 *
 * CHOLMOD's supernodal numeric factorization and UMFPACK's numeric factorization allocate and
 * free their workspaces on every call. Each ccb_sparse / ccb_sparse_lu object owns a pool and
 * makes it current (per thread) while it calls SuiteSparse; the SuiteSparse allocation hooks then
 * take blocks from the pool: a freed block goes to its pool's free list of its size class (powers
 * of two) and is handed out again for the next request of that class. After the first steps the
 * same sequence of requests is served entirely from the free lists, so the step loop makes no
 * heap allocation (test_sim checks it with ccb_alloc_count). Blocks outside any pool are plain
 * ccb_alloc blocks with the same header. A pool frees all its blocks when it is destroyed, after
 * its owner has released every SuiteSparse object. */
#include <stdint.h>
#include <string.h>

#include "ccb/alloc.h"
#include "sparse.h"

#define POOL_CLASSES 48 /* size classes 2^0 .. 2^47 bytes */

typedef struct block {
    struct ccb_ss_pool* owner; /* NULL: a plain block */
    struct block* next_all;    /* every block of the pool */
    struct block* next_free;   /* free list of its class */
    size_t size;               /* usable bytes */
} block;                       /* 32 bytes: the payload stays 16-byte aligned */

struct ccb_ss_pool {
    block* free[POOL_CLASSES];
    block* all;
};

static _Thread_local ccb_ss_pool* g_pool = NULL;

ccb_ss_pool* ccb_ss_pool_create(void) {
    return ccb_calloc(1, sizeof(ccb_ss_pool));
}

void ccb_ss_pool_destroy(ccb_ss_pool* p) {
    if (p == NULL) {
        return;
    }
    for (block* b = p->all; b;) {
        block* next = b->next_all;
        ccb_free(b);
        b = next;
    }
    ccb_free(p);
}

ccb_ss_pool* ccb_ss_pool_enter(ccb_ss_pool* p) {
    ccb_ss_pool* prev = g_pool;
    g_pool = p;
    return prev;
}

void ccb_ss_pool_leave(ccb_ss_pool* prev) {
    g_pool = prev;
}

static int size_class(size_t n) {
    int c = 5; /* at least 32 bytes */
    while (c < POOL_CLASSES && ((size_t)1 << c) < n) {
        ++c;
    }
    return c;
}

void* ccb_ss_malloc(size_t n) {
    ccb_ss_pool* p = g_pool;
    if (n == 0) {
        n = 1;
    }
    const int c = p ? size_class(n) : POOL_CLASSES;
    if (c < POOL_CLASSES && p->free[c]) { /* recycle */
        block* b = p->free[c];
        p->free[c] = b->next_free;
        return b + 1;
    }
    const size_t usable = c < POOL_CLASSES ? (size_t)1 << c : n;
    if (usable > SIZE_MAX - sizeof(block)) {
        return NULL;
    }
    block* b = ccb_alloc(sizeof(block) + usable);
    if (b == NULL) {
        return NULL;
    }
    b->size = usable;
    b->next_free = NULL;
    if (c < POOL_CLASSES) {
        b->owner = p;
        b->next_all = p->all;
        p->all = b;
    } else {
        b->owner = NULL;
        b->next_all = NULL;
    }
    return b + 1;
}

void ccb_ss_free(void* ptr) {
    if (ptr == NULL) {
        return;
    }
    block* b = (block*)ptr - 1;
    if (b->owner == NULL) {
        ccb_free(b);
        return;
    }
    const int c = size_class(b->size);
    b->next_free = b->owner->free[c];
    b->owner->free[c] = b;
}

void* ccb_ss_calloc(size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size) {
        return NULL;
    }
    void* ptr = ccb_ss_malloc(n * size);
    if (ptr) {
        memset(ptr, 0, n * size);
    }
    return ptr;
}

void* ccb_ss_realloc(void* ptr, size_t n) {
    if (ptr == NULL) {
        return ccb_ss_malloc(n);
    }
    block* b = (block*)ptr - 1;
    if (n <= b->size && b->owner != NULL) {
        return ptr;
    }
    void* q = ccb_ss_malloc(n);
    if (q == NULL) {
        return NULL;
    }
    memcpy(q, ptr, b->size < n ? b->size : n);
    ccb_ss_free(ptr);
    return q;
}
