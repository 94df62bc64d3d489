/* sparse_lu: the block-sparse non-symmetric matrix of TAMSI's Newton step, dr/dv = A + dt J^T G J
 * (spec: formulation-tamsi-hydro §D.3, eq. 23), and its LU factorization.
 *
 * The blocks are those of the symmetric Newton matrix (participating cliques; edge (a, b),
 * a < b, when a contact couples them), but both off-diagonal blocks of an edge are stored
 * because G is not symmetric: the upper block (a, b) is n_a x n_b and the lower block (b, a) is
 * n_b x n_a, all row-major. Factorization:
 *   dense  LU with partial pivoting of the assembled matrix (one block, or on request);
 *   UMFPACK (Davis 2004, unsymmetric multifrontal LU) on the compressed-column form with sorted
 *          rows. Its symbolic analysis (column ordering) is computed once per block pattern and
 *          reused by every numeric factorization while the pattern stays the same.
 * UMFPACK reports a singular matrix as a warning status (UMFPACK_WARNING_singular_matrix); it is
 * mapped to CCB_E_FACTOR. UMFPACK lives only here and in sparse.c's SuiteSparse set-up. */
#include <math.h>
#include <string.h>
#include <umfpack.h>

#include "ccb/alloc.h"
#include "dense.h"
#include "internal.h"
#include "sparse.h"

struct ccb_sparse_lu {
    ccb_blockmat bm; /* pattern and block values (upper and lower blocks) */
    /* compressed columns (UMFPACK) */
    int *Ap, *Ai; /* n + 1, nnz */
    double* Ax;   /* nnz */
    int* pos;     /* nvals: index into Ax of each block entry */
    int cap_n, cap_nnz, cap_pos;
    int* Wi;   /* n */
    double* W; /* 5 n */
    double* x; /* n: UMFPACK's solve may not alias b and x */
    void *symbolic, *numeric;
    double control[UMFPACK_CONTROL];
    /* dense path */
    double* Hd; /* n x n */
    int* piv;   /* n */
    int cap_Hd, cap_piv;
    int factored; /* 0 none, 1 dense, 2 UMFPACK */
    int need_analysis;
    long nanalyses;
    ccb_ss_pool* pool; /* recycles UMFPACK's per-call workspaces */
};

ccb_status ccb_sparse_lu_create(ccb_sparse_lu** out) {
    ccb_sparse_init_suitesparse();
    ccb_sparse_lu* lu = ccb_calloc(1, sizeof(ccb_sparse_lu));
    if (lu == NULL || (lu->pool = ccb_ss_pool_create()) == NULL) {
        ccb_free(lu);
        return CCB_E_NOMEM;
    }
    umfpack_di_defaults(lu->control);
    lu->control[UMFPACK_PRL] = 0;    /* never print */
    lu->control[UMFPACK_IRSTEP] = 0; /* no iterative refinement: a plain Newton direction */
    ccb_blockmat_init(&lu->bm, 1);
    *out = lu;
    return CCB_OK;
}

static void free_umfpack(ccb_sparse_lu* lu) {
    if (lu->numeric) {
        umfpack_di_free_numeric(&lu->numeric);
    }
    if (lu->symbolic) {
        umfpack_di_free_symbolic(&lu->symbolic);
    }
    lu->numeric = lu->symbolic = NULL;
}

static void ccb_sparse_lu_destroy_impl(ccb_sparse_lu* lu) {
    if (lu == NULL) {
        return;
    }
    free_umfpack(lu);
    ccb_blockmat_free(&lu->bm);
    void* const ptrs[] = {lu->Ap, lu->Ai, lu->Ax, lu->pos, lu->Wi, lu->W, lu->x, lu->Hd, lu->piv};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k) {
        ccb_free(ptrs[k]);
    }
    ccb_free(lu);
}

void ccb_sparse_lu_destroy(ccb_sparse_lu* lu) {
    if (lu == NULL) {
        return;
    }
    ccb_ss_pool* pool = lu->pool;
    ccb_ss_pool* prev = ccb_ss_pool_enter(pool);
    ccb_sparse_lu_destroy_impl(lu);
    ccb_ss_pool_leave(prev);
    ccb_ss_pool_destroy(pool);
}

int ccb_sparse_lu_n(const ccb_sparse_lu* lu) {
    return lu->bm.n;
}
double* ccb_sparse_lu_diag_block(ccb_sparse_lu* lu, int a) {
    return ccb_blockmat_diag(&lu->bm, a);
}
double* ccb_sparse_lu_edge_block(ccb_sparse_lu* lu, int e, int lower) {
    return ccb_blockmat_edge(&lu->bm, e, lower);
}
long ccb_sparse_lu_analyses(const ccb_sparse_lu* lu) {
    return lu->nanalyses;
}

int ccb_sparse_lu_find_edge(const ccb_sparse_lu* lu, int a, int b) {
    return ccb_blockmat_find_edge(&lu->bm, a, b);
}

void ccb_sparse_lu_zero(ccb_sparse_lu* lu) {
    ccb_blockmat_zero(&lu->bm);
}

static ccb_status nomem(char* msg, size_t n) {
    return ccb_errorf(msg, n, CCB_E_NOMEM, "sparse LU: out of memory");
}

/* Compressed columns of the full block pattern, rows sorted, and the value map `pos`. */
static ccb_status build_columns(ccb_sparse_lu* lu, char* msg, size_t msgn) {
    const int nb = lu->bm.nb, n = lu->bm.n;
    /* neighbours of every block (both directions), sorted ascending with the block itself */
    int* deg = ccb_calloc((size_t)nb + 1, sizeof(int));
    int* nbr = ccb_alloc((size_t)(2 * lu->bm.nedge + nb + 1) * sizeof(int));
    if (deg == NULL || nbr == NULL) {
        ccb_free(deg);
        ccb_free(nbr);
        return nomem(msg, msgn);
    }
    for (int e = 0; e < lu->bm.nedge; ++e) {
        deg[lu->bm.edges[2 * e] + 1]++;
        deg[lu->bm.edges[2 * e + 1] + 1]++;
    }
    for (int b = 0; b < nb; ++b) {
        deg[b + 1] += deg[b] + 1; /* + the block itself */
    }
    size_t nnz = 0;
    for (int b = 0; b < nb; ++b) {
        /* column block b: rows of every block a in its neighbourhood; the edge list is sorted
         * by (a, b), so scanning it in order lists lower neighbours a < b ascending, then the
         * block itself, then upper neighbours c > b ascending */
        int k = deg[b];
        for (int e = 0; e < lu->bm.nedge; ++e) {
            if (lu->bm.edges[2 * e + 1] == b) {
                nbr[k++] = lu->bm.edges[2 * e];
            }
        }
        nbr[k++] = b;
        for (int e = 0; e < lu->bm.nedge; ++e) {
            if (lu->bm.edges[2 * e] == b) {
                nbr[k++] = lu->bm.edges[2 * e + 1];
            }
        }
        CCB_ASSERT(k == deg[b + 1]);
        for (int u = deg[b]; u < deg[b + 1]; ++u) {
            nnz += (size_t)lu->bm.bs[nbr[u]] * (size_t)lu->bm.bs[b];
        }
    }
    void** const zi[] = {(void**)&lu->Ai, (void**)&lu->Ax};
    const size_t zsz[] = {sizeof(int), sizeof(double)};
    if (nnz > (size_t)1 << 30 || ccb_grow_many(zi, zsz, 2, &lu->cap_nnz, nnz > 0 ? (int)nnz : 1)) {
        ccb_free(deg);
        ccb_free(nbr);
        return nomem(msg, msgn);
    }
    int q = 0;
    for (int b = 0; b < nb; ++b) {
        const int nbb = lu->bm.bs[b];
        for (int c = 0; c < nbb; ++c) {
            lu->Ap[lu->bm.boff[b] + c] = q;
            for (int u = deg[b]; u < deg[b + 1]; ++u) {
                const int a = nbr[u], na = lu->bm.bs[a];
                for (int r = 0; r < na; ++r) {
                    lu->Ai[q] = lu->bm.boff[a] + r;
                    size_t at;
                    if (a == b) {
                        at = lu->bm.diag_off[b] + (size_t)r * nbb + c;
                    } else if (a < b) { /* upper block (a, b): n_a x n_b */
                        at = lu->bm.up_off[ccb_sparse_lu_find_edge(lu, a, b)] + (size_t)r * nbb + c;
                    } else { /* lower block (a, b), a > b: stored as edge (b, a) lower, n_a x n_b */
                        at = lu->bm.lo_off[ccb_sparse_lu_find_edge(lu, b, a)] + (size_t)r * nbb + c;
                    }
                    lu->pos[at] = q++;
                }
            }
        }
    }
    lu->Ap[n] = q;
    ccb_free(deg);
    ccb_free(nbr);
    return CCB_OK;
}

static ccb_status ccb_sparse_lu_set_pattern_impl(ccb_sparse_lu* lu, int nb, const int* bs,
                                                 int nedge, const int* edges, char* msg,
                                                 size_t msgn) {
    if (ccb_blockmat_same(&lu->bm, nb, bs, nedge, edges)) {
        return CCB_OK;
    }
    free_umfpack(lu);
    lu->factored = 0;
    if (ccb_blockmat_set(&lu->bm, nb, bs, nedge, edges) != CCB_OK) {
        return nomem(msg, msgn);
    }
    const int n = lu->bm.n;
    const size_t nvals = lu->bm.nvals;
    lu->bm.nb = -1; /* until the storage below exists */
    int cap_pos = lu->cap_pos;
    if (ccb_grow((void**)&lu->pos, &cap_pos, nvals > 0 ? (int)nvals : 1, sizeof(int))) {
        return nomem(msg, msgn);
    }
    lu->cap_pos = cap_pos;
    void** const ni[] = {(void**)&lu->Ap, (void**)&lu->Wi, (void**)&lu->piv};
    const size_t nsz[] = {sizeof(int), sizeof(int), sizeof(int)};
    void** const di[] = {(void**)&lu->W, (void**)&lu->x};
    const size_t dsz[] = {5 * sizeof(double), sizeof(double)};
    int cap2 = lu->cap_n;
    if (ccb_grow_many(ni, nsz, 3, &lu->cap_n, n + 1) || ccb_grow_many(di, dsz, 2, &cap2, n + 1) ||
        (size_t)n * n > (size_t)1 << 30 ||
        ccb_grow((void**)&lu->Hd, &lu->cap_Hd, n > 0 ? n * n : 1, sizeof(double))) {
        return nomem(msg, msgn);
    }
    lu->bm.nb = nb;
    lu->need_analysis = 1;
    return CCB_OK;
}

ccb_status ccb_sparse_lu_set_pattern(ccb_sparse_lu* lu, int nb, const int* bs, int nedge,
                                     const int* edges, char* msg, size_t msgn) {
    ccb_ss_pool* prev = ccb_ss_pool_enter(lu->pool);
    const ccb_status s = ccb_sparse_lu_set_pattern_impl(lu, nb, bs, nedge, edges, msg, msgn);
    ccb_ss_pool_leave(prev);
    return s;
}

void ccb_sparse_lu_to_dense(const ccb_sparse_lu* lu, double* H) {
    ccb_blockmat_to_dense(&lu->bm, H);
}

static ccb_status ccb_sparse_lu_factor_impl(ccb_sparse_lu* lu, int use_umfpack, char* msg,
                                            size_t msgn) {
    lu->factored = 0;
    const int n = lu->bm.n;
    if (!use_umfpack) {
        ccb_sparse_lu_to_dense(lu, lu->Hd);
        const int bad = ccb_dense_lu(n, lu->Hd, lu->piv);
        if (bad) {
            return ccb_errorf(msg, msgn, CCB_E_FACTOR,
                              "LU: the Newton matrix is singular (zero pivot in column %d of %d)",
                              bad - 1, n);
        }
        lu->factored = 1;
        return CCB_OK;
    }
    if (lu->need_analysis) {
        free_umfpack(lu);
        ccb_status s = build_columns(lu, msg, msgn);
        if (s != CCB_OK) {
            return s;
        }
    }
    for (size_t k = 0; k < lu->bm.nvals; ++k) {
        lu->Ax[lu->pos[k]] = lu->bm.vals[k];
    }
    double info[UMFPACK_INFO];
    if (lu->need_analysis) {
        const int st =
            umfpack_di_symbolic(n, n, lu->Ap, lu->Ai, lu->Ax, &lu->symbolic, lu->control, info);
        if (st != UMFPACK_OK) {
            lu->symbolic = NULL;
            return ccb_errorf(msg, msgn,
                              st == UMFPACK_ERROR_out_of_memory ? CCB_E_NOMEM : CCB_E_INTERNAL,
                              "UMFPACK symbolic analysis failed (status %d)", st);
        }
        lu->need_analysis = 0;
        lu->nanalyses++;
    }
    if (lu->numeric) {
        umfpack_di_free_numeric(&lu->numeric);
        lu->numeric = NULL;
    }
    const int st =
        umfpack_di_numeric(lu->Ap, lu->Ai, lu->Ax, lu->symbolic, &lu->numeric, lu->control, info);
    if (st == UMFPACK_WARNING_singular_matrix) {
        return ccb_errorf(msg, msgn, CCB_E_FACTOR,
                          "UMFPACK: the Newton matrix (%d x %d) is singular", n, n);
    }
    if (st != UMFPACK_OK) {
        return ccb_errorf(msg, msgn,
                          st == UMFPACK_ERROR_out_of_memory ? CCB_E_NOMEM : CCB_E_INTERNAL,
                          "UMFPACK numeric factorization failed (status %d)", st);
    }
    lu->factored = 2;
    return CCB_OK;
}

ccb_status ccb_sparse_lu_factor(ccb_sparse_lu* lu, int use_umfpack, char* msg, size_t msgn) {
    ccb_ss_pool* prev = ccb_ss_pool_enter(lu->pool);
    const ccb_status s = ccb_sparse_lu_factor_impl(lu, use_umfpack, msg, msgn);
    ccb_ss_pool_leave(prev);
    return s;
}

static ccb_status ccb_sparse_lu_solve_impl(ccb_sparse_lu* lu, const double* b, double* x, char* msg,
                                           size_t msgn) {
    const int n = lu->bm.n;
    if (lu->factored == 1) {
        if (x != b) {
            memcpy(x, b, (size_t)n * sizeof(double));
        }
        ccb_dense_lu_solve(n, lu->Hd, lu->piv, x);
        return CCB_OK;
    }
    if (lu->factored != 2) {
        return ccb_errorf(msg, msgn, CCB_E_INTERNAL, "LU solve without a factorization");
    }
    double info[UMFPACK_INFO];
    const int st = umfpack_di_wsolve(UMFPACK_A, lu->Ap, lu->Ai, lu->Ax, lu->x, b, lu->numeric,
                                     lu->control, info, lu->Wi, lu->W);
    if (st != UMFPACK_OK) {
        return ccb_errorf(msg, msgn, CCB_E_FACTOR, "UMFPACK solve failed (status %d)", st);
    }
    memcpy(x, lu->x, (size_t)n * sizeof(double));
    return CCB_OK;
}

ccb_status ccb_sparse_lu_solve(ccb_sparse_lu* lu, const double* b, double* x, char* msg,
                               size_t msgn) {
    ccb_ss_pool* prev = ccb_ss_pool_enter(lu->pool);
    const ccb_status s = ccb_sparse_lu_solve_impl(lu, b, x, msg, msgn);
    ccb_ss_pool_leave(prev);
    return s;
}
