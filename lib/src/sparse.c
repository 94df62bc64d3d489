/* sparse: block-sparse Newton matrix and its supernodal Cholesky factorization with CHOLMOD
 * (spec: formulation-convex §8.2).
 *
 * CHOLMOD settings: supernodal factorization (Common->supernodal = CHOLMOD_SUPERNODAL), one
 * ordering method, AMD (Amestoy, Davis, Duff 1996) with postordering. The symbolic analysis
 * (ordering, elimination tree, supernodes) is computed once per block pattern and reused by
 * every numeric factorization while the pattern stays the same (header of
 * Cholesky/cholmod_factorize.c). The numeric factorization calls cholmod_super_numeric directly
 * on S = tril(P H P^T), which we keep in permuted lower form with a value map fixed at analysis
 * time; cholmod_factorize would instead build S with a permuted transpose (a full copy and four
 * allocations) on every call. CHOLMOD reports a matrix that is not positive definite through
 * Common->status and L->minor, not through its return value; both are checked.
 * All CHOLMOD memory goes through ccb_alloc (SuiteSparse_config hooks), so it is counted. */
#include "sparse.h"

#include <assert.h>
#include <cholmod.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "blockchol.h"
#include "ccb/alloc.h"
#include "dense.h"
#include "internal.h"

struct ccb_sparse {
    ccb_blockmat bm; /* pattern and block values (upper blocks) */
    int* pos;        /* nvals: index into A->x (upper, original order), or -1 */
    int* amap;       /* A->nzmax: index of each A entry in S->x (lower, permuted) */
    int cap_amap;
    int cap_pos;
    int* up_start; /* nb + 1 */
    int* up_list;  /* nedge: upper neighbours (a) of each block b, sorted */
    int cap_up, cap_up_list;
    /* CHOLMOD */
    cholmod_common cm;
    cholmod_sparse* A; /* upper triangle of H in the original order (pattern for the analysis) */
    cholmod_sparse* S; /* tril(P H P^T), the matrix cholmod_super_numeric factors */
    cholmod_factor* L;
    cholmod_dense *B, *X, *Y, *E;
    /* dense path */
    double* Hd;
    int cap_Hd;
    ccb_sparse_backend factored; /* which factorization is current */
    int have_factor;
    int need_analysis; /* the pattern changed since the last symbolic analysis */
    long nanalyses;
    ccb_ss_pool* pool;         /* recycles CHOLMOD's per-call workspaces */
    ccb_blockchol* bc;         /* block back-end (created on first use) */
    int need_block;            /* the pattern changed since its block analysis */
    const unsigned char* skip; /* blocks the block back-end leaves out, or NULL */
    double nnz_L, flops;
};

static void install_allocator(void) {
    SuiteSparse_config.malloc_func = ccb_ss_malloc;
    SuiteSparse_config.calloc_func = ccb_ss_calloc;
    SuiteSparse_config.realloc_func = ccb_ss_realloc;
    SuiteSparse_config.free_func = ccb_ss_free;
}
static pthread_once_t g_alloc_once = PTHREAD_ONCE_INIT;

void ccb_sparse_init_suitesparse(void) {
    pthread_once(&g_alloc_once, install_allocator);
}

static void cholmod_log(int status, const char* file, int line, const char* message) {
    ccb_log(status < 0 ? CCB_LOG_ERROR : CCB_LOG_WARN, "CHOLMOD status %d (%s:%d): %s", status,
            file, line, message);
}

ccb_status ccb_sparse_create(ccb_sparse** out) {
    ccb_sparse_init_suitesparse();
    ccb_sparse* sp = ccb_calloc(1, sizeof(ccb_sparse));
    if (sp == NULL || (sp->pool = ccb_ss_pool_create()) == NULL) {
        ccb_free(sp);
        return CCB_E_NOMEM;
    }
    ccb_ss_pool* prev = ccb_ss_pool_enter(sp->pool);
    const int started = cholmod_start(&sp->cm);
    ccb_ss_pool_leave(prev);
    if (!started) {
        ccb_ss_pool_destroy(sp->pool);
        ccb_free(sp);
        return CCB_E_NOMEM;
    }
    sp->cm.error_handler = cholmod_log;
    sp->cm.print = 0; /* the library never prints: errors go through the log hook */
    sp->cm.supernodal = CHOLMOD_SUPERNODAL;
    sp->cm.nmethods = 1;
    sp->cm.method[0].ordering = CHOLMOD_AMD;
    sp->cm.postorder = 1;
    sp->bm.nb = -1; /* no pattern yet */
    *out = sp;
    return CCB_OK;
}

static void free_cholmod_objects(ccb_sparse* sp) {
    cholmod_free_sparse(&sp->A, &sp->cm);
    cholmod_free_sparse(&sp->S, &sp->cm);
    cholmod_free_factor(&sp->L, &sp->cm);
    cholmod_free_dense(&sp->B, &sp->cm);
    cholmod_free_dense(&sp->X, &sp->cm);
    cholmod_free_dense(&sp->Y, &sp->cm);
    cholmod_free_dense(&sp->E, &sp->cm);
}

static void ccb_sparse_destroy_impl(ccb_sparse* sp) {
    if (sp == NULL) {
        return;
    }
    free_cholmod_objects(sp);
    cholmod_finish(&sp->cm);
    ccb_blockmat_free(&sp->bm);
    ccb_free(sp->pos);
    ccb_free(sp->amap);
    ccb_free(sp->up_start);
    ccb_free(sp->up_list);
    ccb_free(sp->Hd);
    ccb_blockchol_destroy(sp->bc);
    ccb_free(sp);
}

void ccb_sparse_destroy(ccb_sparse* sp) {
    if (sp == NULL) {
        return;
    }
    ccb_ss_pool* pool = sp->pool;
    ccb_ss_pool* prev = ccb_ss_pool_enter(pool);
    ccb_sparse_destroy_impl(sp);
    ccb_ss_pool_leave(prev);
    ccb_ss_pool_destroy(pool);
}

int ccb_sparse_n(const ccb_sparse* sp) {
    return sp->bm.n;
}
double* ccb_sparse_diag_block(ccb_sparse* sp, int a) {
    return sp->bm.vals + sp->bm.diag_off[a];
}
double* ccb_sparse_edge_block(ccb_sparse* sp, int e) {
    return sp->bm.vals + sp->bm.up_off[e];
}

int ccb_sparse_find_edge(const ccb_sparse* sp, int a, int b) {
    return ccb_blockmat_find_edge(&sp->bm, a, b);
}

void ccb_sparse_zero(ccb_sparse* sp) {
    ccb_blockmat_zero(&sp->bm);
}

void ccb_sparse_zero_edges(ccb_sparse* sp, const unsigned char* skip) {
    ccb_blockmat_zero_edges(&sp->bm, skip);
}

static ccb_status nomem(char* msg, size_t n) {
    return ccb_errorf(msg, n, CCB_E_NOMEM, "sparse: out of memory");
}

/* Maps a failed CHOLMOD call to a ccb status (out of memory is not an internal error). */
static ccb_status cholmod_failure(const ccb_sparse* sp, const char* what, char* msg, size_t n) {
    if (sp->cm.status == CHOLMOD_OUT_OF_MEMORY) {
        return ccb_errorf(msg, n, CCB_E_NOMEM, "CHOLMOD %s: out of memory", what);
    }
    return ccb_errorf(msg, n, CCB_E_INTERNAL, "CHOLMOD %s failed (status %d)", what, sp->cm.status);
}

/* S = tril(P H P^T) in CSC form with sorted rows, and amap: A position -> S position.
 * Entry (i, j) of H moves to (pinv[i], pinv[j]), pinv the inverse of L->Perm; the lower entry
 * is (max, min). Rows are sorted by inserting the entries row by row (counting sort). */
static ccb_status build_permuted(ccb_sparse* sp, char* msg, size_t msgn) {
    const int n = sp->bm.n;
    const int* Ap = sp->A->p;
    const int* Ai = sp->A->i;
    const int* Perm = sp->L->Perm;
    const int nnz = Ap[n];
    int* scratch = ccb_alloc((size_t)(3 * n + 2 + 3 * nnz) * sizeof(int));
    if (scratch == NULL ||
        ccb_grow((void**)&sp->amap, &sp->cap_amap, nnz > 0 ? nnz : 1, sizeof(int))) {
        ccb_free(scratch);
        return nomem(msg, msgn);
    }
    int* pinv = scratch;          /* n */
    int* colptr = pinv + n;       /* n + 1: column starts of S */
    int* rowptr = colptr + n + 1; /* n + 1: entries grouped by S row */
    int* srow = rowptr + n + 1;   /* nnz: S row of A entry q */
    int* scol = srow + nnz;       /* nnz: S column of A entry q */
    int* byrow = scol + nnz;      /* nnz: A entries in S-row order */
    for (int k = 0; k < n; ++k) {
        pinv[Perm[k]] = k;
    }
    for (int k = 0; k <= n; ++k) {
        colptr[k] = rowptr[k] = 0;
    }
    for (int j = 0; j < n; ++j) {
        for (int q = Ap[j]; q < Ap[j + 1]; ++q) {
            const int a = pinv[Ai[q]], b = pinv[j];
            srow[q] = a > b ? a : b;
            scol[q] = a > b ? b : a;
            colptr[scol[q] + 1]++;
            rowptr[srow[q] + 1]++;
        }
    }
    for (int k = 0; k < n; ++k) {
        colptr[k + 1] += colptr[k];
        rowptr[k + 1] += rowptr[k];
    }
    int* fill = pinv; /* pinv is no longer needed: reuse it as a cursor */
    for (int k = 0; k < n; ++k) {
        fill[k] = rowptr[k];
    }
    for (int q = 0; q < nnz; ++q) {
        byrow[fill[srow[q]]++] = q;
    }
    sp->S = cholmod_allocate_sparse((size_t)n, (size_t)n, (size_t)(nnz > 0 ? nnz : 1), 1, 1, -1,
                                    CHOLMOD_REAL, &sp->cm);
    if (sp->S == NULL) {
        ccb_free(scratch);
        return cholmod_failure(sp, "allocation", msg, msgn);
    }
    int* Sp = sp->S->p;
    int* Si = sp->S->i;
    for (int k = 0; k <= n; ++k) {
        Sp[k] = colptr[k];
    }
    for (int k = 0; k < n; ++k) {
        fill[k] = Sp[k];
    }
    for (int t = 0; t < nnz; ++t) { /* rows ascending within every column */
        const int q = byrow[t];
        const int at = fill[scol[q]]++;
        Si[at] = srow[q];
        sp->amap[q] = at;
    }
    ccb_free(scratch);
    return CCB_OK;
}

/* Builds the CHOLMOD upper-triangular CSC structure, the value map and the symbolic factor. */
static ccb_status analyze(ccb_sparse* sp, char* msg, size_t msgn) {
    free_cholmod_objects(sp);
    sp->have_factor = 0;
    const int nb = sp->bm.nb, n = sp->bm.n;
    /* upper neighbours of every block, sorted by construction (edges sorted by (a, b)) */
    for (int b = 0; b <= nb; ++b) {
        sp->up_start[b] = 0;
    }
    for (int e = 0; e < sp->bm.nedge; ++e) {
        sp->up_start[sp->bm.edges[2 * e + 1] + 1]++;
    }
    for (int b = 0; b < nb; ++b) {
        sp->up_start[b + 1] += sp->up_start[b];
    }
    int* fill = sp->pos; /* temporary cursor storage: reuse the head of pos (nvals >= nb) */
    for (int b = 0; b < nb; ++b) {
        fill[b] = sp->up_start[b];
    }
    for (int e = 0; e < sp->bm.nedge; ++e) {
        const int b = sp->bm.edges[2 * e + 1];
        sp->up_list[fill[b]++] = sp->bm.edges[2 * e];
    }
    size_t nnz = 0;
    for (int b = 0; b < nb; ++b) {
        size_t rows = 0;
        for (int k = sp->up_start[b]; k < sp->up_start[b + 1]; ++k) {
            rows += (size_t)sp->bm.bs[sp->up_list[k]];
        }
        nnz += (size_t)sp->bm.bs[b] * rows + (size_t)sp->bm.bs[b] * (sp->bm.bs[b] + 1) / 2;
    }
    sp->A = cholmod_allocate_sparse((size_t)n, (size_t)n, nnz, 1, 1, 1, CHOLMOD_REAL, &sp->cm);
    sp->B = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &sp->cm);
    if (sp->A == NULL || sp->B == NULL) {
        return nomem(msg, msgn);
    }
    int* Ap = sp->A->p;
    int* Ai = sp->A->i;
    for (size_t k = 0; k < sp->bm.nvals; ++k) {
        sp->pos[k] = -1;
    }
    int k = 0;
    for (int b = 0; b < nb; ++b) {
        const int nbb = sp->bm.bs[b];
        for (int c = 0; c < nbb; ++c) {
            Ap[sp->bm.boff[b] + c] = k;
            for (int u = sp->up_start[b]; u < sp->up_start[b + 1]; ++u) {
                const int a = sp->up_list[u];
                const int e = ccb_sparse_find_edge(sp, a, b);
                for (int r = 0; r < sp->bm.bs[a]; ++r) {
                    Ai[k] = sp->bm.boff[a] + r;
                    sp->pos[sp->bm.up_off[e] + (size_t)r * nbb + c] = k++;
                }
            }
            for (int r = 0; r <= c; ++r) {
                Ai[k] = sp->bm.boff[b] + r;
                sp->pos[sp->bm.diag_off[b] + (size_t)r * nbb + c] = k++;
            }
        }
    }
    Ap[n] = k;
    CCB_ASSERT((size_t)k == nnz);
    sp->L = cholmod_analyze(sp->A, &sp->cm);
    if (sp->L == NULL || sp->cm.status < 0) {
        return cholmod_failure(sp, "analysis", msg, msgn);
    }
    sp->nnz_L = sp->cm.lnz;
    sp->flops = sp->cm.fl;
    return build_permuted(sp, msg, msgn);
}

long ccb_sparse_analyses(const ccb_sparse* sp) {
    return sp->nanalyses;
}

static ccb_status ccb_sparse_set_pattern_impl(ccb_sparse* sp, int nb, const int* bs, int nedge,
                                              const int* edges, char* msg, size_t msgn) {
    if (ccb_blockmat_same(&sp->bm, nb, bs, nedge, edges)) {
        return CCB_OK;
    }
    sp->have_factor = 0;
    if (ccb_blockmat_set(&sp->bm, nb, bs, nedge, edges) != CCB_OK) {
        return nomem(msg, msgn);
    }
    /* the CHOLMOD map (pos: nvals, and its head as nb cursors) and the upper neighbour lists */
    const size_t nv = sp->bm.nvals > (size_t)nb ? sp->bm.nvals : (size_t)(nb > 0 ? nb : 1);
    if (ccb_grow((void**)&sp->pos, &sp->cap_pos, (int)nv, sizeof(int)) ||
        ccb_grow((void**)&sp->up_start, &sp->cap_up, nb + 1, sizeof(int)) ||
        ccb_grow((void**)&sp->up_list, &sp->cap_up_list, nedge > 0 ? nedge : 1, sizeof(int))) {
        sp->bm.nb = -1;
        return nomem(msg, msgn);
    }
    sp->need_analysis = 1;
    sp->need_block = 1;
    sp->have_factor = 0;
    return CCB_OK;
}

ccb_status ccb_sparse_set_pattern(ccb_sparse* sp, int nb, const int* bs, int nedge,
                                  const int* edges, char* msg, size_t msgn) {
    ccb_ss_pool* prev = ccb_ss_pool_enter(sp->pool);
    const ccb_status s = ccb_sparse_set_pattern_impl(sp, nb, bs, nedge, edges, msg, msgn);
    ccb_ss_pool_leave(prev);
    return s;
}

void ccb_sparse_to_dense(const ccb_sparse* sp, double* H) {
    ccb_blockmat_to_dense(&sp->bm, H);
}

static ccb_status ccb_sparse_factor_impl(ccb_sparse* sp, ccb_sparse_backend solver, char* msg,
                                         size_t msgn) {
    sp->have_factor = 0;
    if (sp->bm.nb < 0) {
        return ccb_errorf(msg, msgn, CCB_E_INTERNAL, "sparse: factor before set_pattern");
    }
    const int n = sp->bm.n;
    if (solver == CCB_SPARSE_AUTO) {
        solver = sp->bm.nb == 1 ? CCB_SPARSE_DENSE : CCB_SPARSE_BLOCK;
    }
    if (solver == CCB_SPARSE_DENSE) {
        if (ccb_grow((void**)&sp->Hd, &sp->cap_Hd, n * n > 0 ? n * n : 1, sizeof(double))) {
            return nomem(msg, msgn);
        }
        ccb_sparse_to_dense(sp, sp->Hd);
        const int bad = ccb_dense_cholesky(n, sp->Hd);
        if (bad) {
            return ccb_errorf(msg, msgn, CCB_E_FACTOR,
                              "Newton matrix H is not positive definite (dense Cholesky failed "
                              "at column %d of %d)",
                              bad - 1, n);
        }
        sp->factored = CCB_SPARSE_DENSE;
        sp->have_factor = 1;
        return CCB_OK;
    }
    if (solver == CCB_SPARSE_BLOCK) {
        if (sp->bc == NULL && (sp->bc = ccb_blockchol_create()) == NULL) {
            return nomem(msg, msgn);
        }
        if (sp->need_block) {
            const ccb_status s = ccb_blockchol_analyze(sp->bc, &sp->bm, &sp->cm, msg, msgn);
            if (s != CCB_OK) {
                return s;
            }
            sp->need_block = 0;
            sp->nanalyses++;
        }
        const ccb_status s = ccb_blockchol_factor(sp->bc, &sp->bm, sp->skip, msg, msgn);
        if (s != CCB_OK) {
            return s;
        }
        sp->factored = CCB_SPARSE_BLOCK;
        sp->have_factor = 1;
        return CCB_OK;
    }
    if (sp->need_analysis) {
        const ccb_status s = analyze(sp, msg, msgn);
        if (s != CCB_OK) {
            return s; /* need_analysis stays set: the next call tries again */
        }
        sp->need_analysis = 0;
        sp->nanalyses++;
    }
    double* x = sp->S->x;
    for (size_t k = 0; k < sp->bm.nvals; ++k) {
        if (sp->pos[k] >= 0) {
            x[sp->amap[sp->pos[k]]] = sp->bm.vals[k];
        }
    }
    double beta[2] = {0.0, 0.0};
    sp->cm.status = CHOLMOD_OK;
    const int ok = cholmod_super_numeric(sp->S, NULL, beta, sp->L, &sp->cm);
    if (sp->cm.status == CHOLMOD_NOT_POSDEF || (ok && sp->L->minor < sp->L->n)) {
        return ccb_errorf(msg, msgn, CCB_E_FACTOR,
                          "Newton matrix H is not positive definite (CHOLMOD: minor at column "
                          "%d of %d in the AMD ordering)",
                          (int)sp->L->minor, n);
    }
    if (!ok || sp->cm.status < 0) {
        return cholmod_failure(sp, "factorization", msg, msgn);
    }
    sp->factored = CCB_SPARSE_CHOLMOD;
    sp->have_factor = 1;
    return CCB_OK;
}

void ccb_sparse_set_skip(ccb_sparse* sp, const unsigned char* skip) {
    sp->skip = skip;
}

ccb_status ccb_sparse_factor(ccb_sparse* sp, ccb_sparse_backend solver, char* msg, size_t msgn) {
    ccb_ss_pool* prev = ccb_ss_pool_enter(sp->pool);
    const ccb_status s = ccb_sparse_factor_impl(sp, solver, msg, msgn);
    ccb_ss_pool_leave(prev);
    return s;
}

static ccb_status ccb_sparse_solve_impl(ccb_sparse* sp, const double* b, double* x, char* msg,
                                        size_t msgn) {
    const int n = sp->bm.n;
    if (!sp->have_factor) {
        return ccb_errorf(msg, msgn, CCB_E_INTERNAL, "sparse: solve without a factorization");
    }
    if (sp->factored == CCB_SPARSE_DENSE) {
        if (x != b) {
            memcpy(x, b, (size_t)n * sizeof(double));
        }
        ccb_dense_chol_solve(n, sp->Hd, x);
        return CCB_OK;
    }
    if (sp->factored == CCB_SPARSE_BLOCK) {
        ccb_blockchol_solve(sp->bc, b, x);
        return CCB_OK;
    }
    /* CHOLMOD 3.0's cholmod_solve2 does not check its own workspace allocations (a failed one
     * is dereferenced): give it X, Y and E in exactly the shapes it asks for (n x 1, n x 1 and
     * 1 x maxesize for one right-hand side), allocated here where a failure is reported. */
    const size_t un = (size_t)n;
    if (!cholmod_ensure_dense(&sp->X, un, 1, un, CHOLMOD_REAL, &sp->cm) ||
        !cholmod_ensure_dense(&sp->Y, un, 1, un, CHOLMOD_REAL, &sp->cm) ||
        !cholmod_ensure_dense(&sp->E, 1, sp->L->maxesize, 1, CHOLMOD_REAL, &sp->cm)) {
        return cholmod_failure(sp, "solve workspace", msg, msgn);
    }
#ifndef NDEBUG
    const void* ws_before[3] = {sp->X->x, sp->Y->x, sp->E->x};
#endif
    memcpy(sp->B->x, b, (size_t)n * sizeof(double));
    if (!cholmod_solve2(CHOLMOD_A, sp->L, sp->B, NULL, &sp->X, NULL, &sp->Y, &sp->E, &sp->cm)) {
        return cholmod_failure(sp, "solve", msg, msgn);
    }
    assert(sp->X->x == ws_before[0] && sp->Y->x == ws_before[1] && sp->E->x == ws_before[2]);
    memcpy(x, sp->X->x, (size_t)n * sizeof(double));
    return CCB_OK;
}

ccb_status ccb_sparse_solve(ccb_sparse* sp, const double* b, double* x, char* msg, size_t msgn) {
    ccb_ss_pool* prev = ccb_ss_pool_enter(sp->pool);
    const ccb_status s = ccb_sparse_solve_impl(sp, b, x, msg, msgn);
    ccb_ss_pool_leave(prev);
    return s;
}

void ccb_sparse_factor_stats(const ccb_sparse* sp, double* nnz_L, double* flops) {
    const double n = sp->bm.n;
    if (sp->have_factor && sp->factored == CCB_SPARSE_DENSE) {
        *nnz_L = n * (n + 1) / 2;
        *flops = n * n * n / 3;
        return;
    }
    if (sp->have_factor && sp->factored == CCB_SPARSE_BLOCK) {
        ccb_blockchol_stats(sp->bc, nnz_L, flops);
        return;
    }
    *nnz_L = sp->nnz_L;
    *flops = sp->flops;
}
