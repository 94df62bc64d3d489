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
    /* pattern */
    int nb, nedge, n;
    int *bs, *boff; /* nb */
    int* edges;     /* 2 nedge, sorted (a, b), a < b */
    int cap_nb, cap_edge;
    /* values */
    double* vals;
    size_t* diag_off;        /* nb */
    size_t *up_off, *lo_off; /* nedge */
    size_t nvals;
    int cap_vals;
    /* compressed columns (UMFPACK) */
    int *Ap, *Ai; /* n + 1, nnz */
    double* Ax;   /* nnz */
    int* pos;     /* nvals: index into Ax of each block entry */
    int cap_n, cap_nnz;
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
    lu->nb = -1;
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
    void* const ptrs[] = {lu->bs,     lu->boff, lu->edges, lu->vals, lu->diag_off, lu->up_off,
                          lu->lo_off, lu->Ap,   lu->Ai,    lu->Ax,   lu->pos,      lu->Wi,
                          lu->W,      lu->x,    lu->Hd,    lu->piv};
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
    return lu->n;
}
double* ccb_sparse_lu_diag_block(ccb_sparse_lu* lu, int a) {
    return lu->vals + lu->diag_off[a];
}
double* ccb_sparse_lu_edge_block(ccb_sparse_lu* lu, int e, int lower) {
    return lu->vals + (lower ? lu->lo_off[e] : lu->up_off[e]);
}
long ccb_sparse_lu_analyses(const ccb_sparse_lu* lu) {
    return lu->nanalyses;
}

int ccb_sparse_lu_find_edge(const ccb_sparse_lu* lu, int a, int b) {
    return ccb_edge_find(lu->edges, lu->nedge, a, b);
}

void ccb_sparse_lu_zero(ccb_sparse_lu* lu) {
    memset(lu->vals, 0, lu->nvals * sizeof(double));
}

static ccb_status nomem(char* msg, size_t n) {
    return ccb_errorf(msg, n, CCB_E_NOMEM, "sparse LU: out of memory");
}

/* Compressed columns of the full block pattern, rows sorted, and the value map `pos`. */
static ccb_status build_columns(ccb_sparse_lu* lu, char* msg, size_t msgn) {
    const int nb = lu->nb, n = lu->n;
    /* neighbours of every block (both directions), sorted ascending with the block itself */
    int* deg = ccb_calloc((size_t)nb + 1, sizeof(int));
    int* nbr = ccb_alloc((size_t)(2 * lu->nedge + nb + 1) * sizeof(int));
    if (deg == NULL || nbr == NULL) {
        ccb_free(deg);
        ccb_free(nbr);
        return nomem(msg, msgn);
    }
    for (int e = 0; e < lu->nedge; ++e) {
        deg[lu->edges[2 * e] + 1]++;
        deg[lu->edges[2 * e + 1] + 1]++;
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
        for (int e = 0; e < lu->nedge; ++e) {
            if (lu->edges[2 * e + 1] == b) {
                nbr[k++] = lu->edges[2 * e];
            }
        }
        nbr[k++] = b;
        for (int e = 0; e < lu->nedge; ++e) {
            if (lu->edges[2 * e] == b) {
                nbr[k++] = lu->edges[2 * e + 1];
            }
        }
        CCB_ASSERT(k == deg[b + 1]);
        for (int u = deg[b]; u < deg[b + 1]; ++u) {
            nnz += (size_t)lu->bs[nbr[u]] * (size_t)lu->bs[b];
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
        const int nbb = lu->bs[b];
        for (int c = 0; c < nbb; ++c) {
            lu->Ap[lu->boff[b] + c] = q;
            for (int u = deg[b]; u < deg[b + 1]; ++u) {
                const int a = nbr[u], na = lu->bs[a];
                for (int r = 0; r < na; ++r) {
                    lu->Ai[q] = lu->boff[a] + r;
                    size_t at;
                    if (a == b) {
                        at = lu->diag_off[b] + (size_t)r * nbb + c;
                    } else if (a < b) { /* upper block (a, b): n_a x n_b */
                        at = lu->up_off[ccb_sparse_lu_find_edge(lu, a, b)] + (size_t)r * nbb + c;
                    } else { /* lower block (a, b), a > b: stored as edge (b, a) lower, n_a x n_b */
                        at = lu->lo_off[ccb_sparse_lu_find_edge(lu, b, a)] + (size_t)r * nbb + c;
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
    if (lu->nb == nb && lu->nedge == nedge &&
        (nb == 0 || memcmp(lu->bs, bs, (size_t)nb * sizeof(int)) == 0) &&
        (nedge == 0 || memcmp(lu->edges, edges, 2 * (size_t)nedge * sizeof(int)) == 0)) {
        return CCB_OK;
    }
    free_umfpack(lu);
    lu->factored = 0;
    void** const bi[] = {(void**)&lu->bs, (void**)&lu->boff, (void**)&lu->diag_off};
    const size_t bsz[] = {sizeof(int), sizeof(int), sizeof(size_t)};
    void** const ei[] = {(void**)&lu->edges, (void**)&lu->up_off, (void**)&lu->lo_off};
    const size_t esz[] = {2 * sizeof(int), sizeof(size_t), sizeof(size_t)};
    if (ccb_grow_many(bi, bsz, 3, &lu->cap_nb, nb > 0 ? nb : 1) ||
        ccb_grow_many(ei, esz, 3, &lu->cap_edge, nedge > 0 ? nedge : 1)) {
        lu->nb = -1;
        return nomem(msg, msgn);
    }
    int n = 0;
    size_t nvals = 0;
    for (int a = 0; a < nb; ++a) {
        lu->bs[a] = bs[a];
        lu->boff[a] = n;
        lu->diag_off[a] = nvals;
        n += bs[a];
        nvals += (size_t)bs[a] * bs[a];
    }
    for (int e = 0; e < nedge; ++e) {
        lu->edges[2 * e] = edges[2 * e];
        lu->edges[2 * e + 1] = edges[2 * e + 1];
        const size_t m = (size_t)bs[edges[2 * e]] * bs[edges[2 * e + 1]];
        lu->up_off[e] = nvals;
        lu->lo_off[e] = nvals + m;
        nvals += 2 * m;
    }
    lu->nb = -1; /* until the storage below exists */
    int cap_pos = lu->cap_vals;
    if (nvals > (size_t)1 << 30 ||
        ccb_grow((void**)&lu->vals, &lu->cap_vals, nvals > 0 ? (int)nvals : 1, sizeof(double)) ||
        ccb_grow((void**)&lu->pos, &cap_pos, nvals > 0 ? (int)nvals : 1, sizeof(int))) {
        return nomem(msg, msgn);
    }
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
    lu->nb = nb;
    lu->nedge = nedge;
    lu->n = n;
    lu->nvals = nvals;
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
    const int n = lu->n;
    memset(H, 0, (size_t)n * n * sizeof(double));
    for (int a = 0; a < lu->nb; ++a) {
        ccb_dense_put_block(H, n, lu->boff[a], lu->boff[a], lu->vals + lu->diag_off[a], lu->bs[a],
                            lu->bs[a], 0);
    }
    for (int e = 0; e < lu->nedge; ++e) { /* upper (a, b), n_a x n_b; lower (b, a), n_b x n_a */
        const int a = lu->edges[2 * e], b = lu->edges[2 * e + 1];
        ccb_dense_put_block(H, n, lu->boff[a], lu->boff[b], lu->vals + lu->up_off[e], lu->bs[a],
                            lu->bs[b], 0);
        ccb_dense_put_block(H, n, lu->boff[b], lu->boff[a], lu->vals + lu->lo_off[e], lu->bs[b],
                            lu->bs[a], 0);
    }
}

static ccb_status ccb_sparse_lu_factor_impl(ccb_sparse_lu* lu, int use_umfpack, char* msg,
                                            size_t msgn) {
    lu->factored = 0;
    const int n = lu->n;
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
    for (size_t k = 0; k < lu->nvals; ++k) {
        lu->Ax[lu->pos[k]] = lu->vals[k];
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
    const int n = lu->n;
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
