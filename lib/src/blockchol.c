/* blockchol — see blockchol.h.
 *
 * Notation: blocks are numbered in the elimination order k = 0 .. nb-1 (perm[k] is the block of
 * the pattern at position k, pinv its inverse). Column k of L holds the dense panel
 *     [ L_kk ; L_{i1,k} ; L_{i2,k} ; ... ],   i1 < i2 < ... the row blocks of struct(k),
 * row-major with bs[k] columns: L_kk (lower triangular) first, then each row block. struct(k) is
 * the block fill: the lower blocks of column k of P H P^T, and for every child c of k in the
 * elimination tree, struct(c) without k (George and Liu, Computer Solution of Large Sparse
 * Positive Definite Systems, 1981, formulation-convex §5; applied to the block graph).
 *
 * Factorization of column k (right-looking): L_kk L_kk^T = H'_kk (dense Cholesky), L_ik =
 * H'_ik L_kk^{-T} row by row, then for every pair i >= j of struct(k):
 * H'_ij -= L_ik L_jk^T, with H' the matrix updated by the earlier columns. */
#include "blockchol.h"

#include <cholmod.h>
#include <math.h>
#include <string.h>

#include "ccb/alloc.h"
#include "dense.h"
#include "internal.h"

struct ccb_blockchol {
    int nb, n;
    int *perm, *pinv; /* nb */
    int *bs, *off;    /* nb: block sizes and vector offsets in the elimination order */
    int* orig_off;    /* nb: vector offsets in the pattern's order (by position k) */
    int* cp;          /* nb + 1: column k's row blocks are ri[cp[k] .. cp[k+1]) */
    int* ri;          /* row blocks of every column, ascending */
    int* rrow;        /* per entry of ri: first row of that block in the panel */
    int* rows;        /* nb: rows of panel k */
    size_t* poff;     /* nb: offset of panel k in L */
    double* L;
    size_t nL;
    size_t* src_diag; /* per pattern block a: offset of its diagonal block in L */
    size_t* src_edge; /* per edge: offset of its block in L (row-major in the panel) */
    int* edge_t;      /* per edge: 1 if the panel holds the transpose of the stored upper block */
    int* map;         /* nb: row offset of a block in the current target panel */
    double* y;        /* n: solve workspace */
    const unsigned char* skip; /* the last factorization's skipped pattern blocks, or NULL */
    int cap[16];               /* capacities of the arrays above (ccb_grow) */
    double nnz_L, flops;
};

ccb_blockchol* ccb_blockchol_create(void) {
    return ccb_calloc(1, sizeof(ccb_blockchol));
}

void ccb_blockchol_destroy(ccb_blockchol* bc) {
    if (bc == NULL) {
        return;
    }
    void* arrays[] = {bc->perm,     bc->pinv,   bc->bs,   bc->off,  bc->orig_off, bc->cp,
                      bc->ri,       bc->rrow,   bc->rows, bc->poff, bc->L,        bc->src_diag,
                      bc->src_edge, bc->edge_t, bc->map,  bc->y};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) {
        ccb_free(arrays[i]);
    }
    ccb_free(bc);
}

static ccb_status nomem(char* msg, size_t n) {
    return ccb_errorf(msg, n, CCB_E_NOMEM, "out of memory in the block Cholesky analysis");
}

/* AMD order of the block graph (CHOLMOD's cholmod_amd on its symmetric pattern). */
static ccb_status order(ccb_blockchol* bc, const ccb_blockmat* bm, cholmod_common* cm, char* msg,
                        size_t n) {
    const int nb = bm->nb;
    cholmod_sparse* G =
        cholmod_allocate_sparse((size_t)nb, (size_t)nb, (size_t)(bm->nedge > 0 ? bm->nedge : 1), 1,
                                1, 1, CHOLMOD_PATTERN, cm);
    if (G == NULL) {
        return nomem(msg, n);
    }
    /* upper triangle by columns: column b lists the a < b of its edges (edges sorted by (a, b)) */
    int* Gp = G->p;
    int* Gi = G->i;
    for (int b = 0; b <= nb; ++b) {
        Gp[b] = 0;
    }
    for (int e = 0; e < bm->nedge; ++e) {
        Gp[bm->edges[2 * e + 1] + 1]++;
    }
    for (int b = 0; b < nb; ++b) {
        Gp[b + 1] += Gp[b];
    }
    for (int b = 0; b < nb; ++b) {
        bc->map[b] = Gp[b];
    }
    for (int e = 0; e < bm->nedge; ++e) {
        Gi[bc->map[bm->edges[2 * e + 1]]++] = bm->edges[2 * e];
    }
    const int ok = cholmod_amd(G, NULL, 0, bc->perm, cm);
    cholmod_free_sparse(&G, cm);
    if (!ok) {
        return cm->status == CHOLMOD_OUT_OF_MEMORY
                   ? nomem(msg, n)
                   : ccb_errorf(msg, n, CCB_E_INTERNAL, "block Cholesky: AMD failed (%d)",
                                cm->status);
    }
    return CCB_OK;
}

#define GROW(p, i, need) ccb_grow((void**)&(p), &bc->cap[i], (need) > 0 ? (need) : 1, sizeof *(p))

static void sort_ints(int* a, int n) { /* insertion sort: the lists are short */
    for (int i = 1; i < n; ++i) {
        const int v = a[i];
        int j = i - 1;
        for (; j >= 0 && a[j] > v; --j) {
            a[j + 1] = a[j];
        }
        a[j + 1] = v;
    }
}

ccb_status ccb_blockchol_analyze(ccb_blockchol* bc, const ccb_blockmat* bm, void* common, char* msg,
                                 size_t n) {
    const int nb = bm->nb, ne = bm->nedge;
    bc->nb = nb;
    bc->n = bm->n;
    if (GROW(bc->perm, 0, nb) || GROW(bc->pinv, 1, nb) || GROW(bc->bs, 2, nb) ||
        GROW(bc->off, 3, nb) || GROW(bc->orig_off, 4, nb) || GROW(bc->cp, 5, nb + 1) ||
        GROW(bc->rows, 8, nb) || GROW(bc->poff, 9, nb) || GROW(bc->src_diag, 11, nb) ||
        GROW(bc->src_edge, 12, ne) || GROW(bc->edge_t, 13, ne) || GROW(bc->map, 14, nb) ||
        GROW(bc->y, 15, bm->n)) {
        return nomem(msg, n);
    }
    ccb_status s = order(bc, bm, common, msg, n);
    if (s != CCB_OK) {
        return s;
    }
    for (int k = 0; k < nb; ++k) {
        bc->pinv[bc->perm[k]] = k;
    }
    for (int k = 0, o = 0; k < nb; ++k) {
        bc->bs[k] = bm->bs[bc->perm[k]];
        bc->off[k] = o;
        bc->orig_off[k] = bm->boff[bc->perm[k]];
        o += bc->bs[k];
    }
    /* lower adjacency of P H P^T by column (counting sort), into scratch */
    int* scratch = ccb_alloc((size_t)(4 * nb + 2 + 2 * ne + 1) * sizeof(int));
    if (scratch == NULL) {
        return nomem(msg, n);
    }
    int* ap = scratch;       /* nb + 1 */
    int* ai = ap + nb + 1;   /* ne */
    int* head = ai + ne + 1; /* nb: first child in the elimination tree */
    int* next = head + nb;   /* nb: next sibling */
    int* mark = next + nb;   /* nb + ne... only nb used */
    for (int k = 0; k <= nb; ++k) {
        ap[k] = 0;
    }
    for (int e = 0; e < ne; ++e) {
        const int p = bc->pinv[bm->edges[2 * e]], q = bc->pinv[bm->edges[2 * e + 1]];
        ap[(p < q ? p : q) + 1]++;
    }
    for (int k = 0; k < nb; ++k) {
        ap[k + 1] += ap[k];
        head[k] = next[k] = mark[k] = -1;
    }
    for (int k = 0; k < nb; ++k) {
        bc->map[k] = ap[k];
    }
    for (int e = 0; e < ne; ++e) {
        const int p = bc->pinv[bm->edges[2 * e]], q = bc->pinv[bm->edges[2 * e + 1]];
        ai[bc->map[p < q ? p : q]++] = p < q ? q : p;
    }
    /* block fill: struct(k) = lower(k) + (struct(c) - {k} for the children c of k) */
    int nri = 0;
    bc->cp[0] = 0;
    for (int k = 0; k < nb && s == CCB_OK; ++k) {
        int cnt = 0;
        /* worst case: every later block */
        if (GROW(bc->ri, 6, nri + (nb - k))) {
            s = nomem(msg, n);
            break;
        }
        int* out = bc->ri + nri;
        for (int q = ap[k]; q < ap[k + 1]; ++q) {
            if (mark[ai[q]] != k) {
                mark[ai[q]] = k;
                out[cnt++] = ai[q];
            }
        }
        for (int c = head[k]; c >= 0; c = next[c]) {
            for (int q = bc->cp[c]; q < bc->cp[c + 1]; ++q) {
                const int i = bc->ri[q];
                if (i != k && mark[i] != k) {
                    mark[i] = k;
                    out[cnt++] = i;
                }
            }
        }
        sort_ints(out, cnt);
        nri += cnt;
        bc->cp[k + 1] = nri;
        if (cnt > 0) { /* parent: the first row block */
            next[k] = head[out[0]];
            head[out[0]] = k;
        }
    }
    ccb_free(scratch);
    if (s != CCB_OK) {
        return s;
    }
    /* panels */
    if (GROW(bc->rrow, 7, nri)) {
        return nomem(msg, n);
    }
    size_t total = 0;
    double nnz = 0, flops = 0;
    for (int k = 0; k < nb; ++k) {
        const int c = bc->bs[k];
        int r = c;
        for (int q = bc->cp[k]; q < bc->cp[k + 1]; ++q) {
            bc->rrow[q] = r;
            r += bc->bs[bc->ri[q]];
        }
        bc->rows[k] = r;
        bc->poff[k] = total;
        total += (size_t)r * (size_t)c;
        const double below = r - c;
        nnz += 0.5 * c * (c + 1) + below * c;
        /* diagonal c^3/3, panel solve below c^2, Schur update below^2 c */
        flops += c * c * c / 3.0 + below * c * c + below * below * c;
    }
    if (total > (size_t)0x7fffffff) {
        return ccb_errorf(msg, n, CCB_E_NOMEM, "block Cholesky: factor too large");
    }
    int capL = bc->cap[10];
    if (ccb_grow((void**)&bc->L, &capL, (int)(total > 0 ? total : 1), sizeof(double))) {
        return nomem(msg, n);
    }
    bc->cap[10] = capL;
    bc->nL = total;
    bc->nnz_L = nnz;
    bc->flops = flops;
    /* where each stored block of the pattern goes */
    for (int a = 0; a < nb; ++a) {
        bc->src_diag[a] = bc->poff[bc->pinv[a]];
    }
    for (int e = 0; e < ne; ++e) {
        const int p = bc->pinv[bm->edges[2 * e]], q = bc->pinv[bm->edges[2 * e + 1]];
        const int col = p < q ? p : q, row = p < q ? q : p;
        int at = -1;
        for (int t = bc->cp[col]; t < bc->cp[col + 1]; ++t) {
            if (bc->ri[t] == row) {
                at = bc->rrow[t];
            }
        }
        CCB_ASSERT(at >= 0);
        bc->src_edge[e] = bc->poff[col] + (size_t)at * (size_t)bc->bs[col];
        /* the stored block is (a, b) = n_a x n_b; the panel row block is n_row x n_col: the
         * transpose when a lands in the column */
        bc->edge_t[e] = p < q;
    }
    return CCB_OK;
}

/* Dot products of rows of length C, summed in pairs: a fixed order, independent partial sums. */
static inline double dot3(const double* a, const double* b) {
    return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2];
}
static inline double dot6(const double* a, const double* b) {
    return ((a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])) +
           (a[4] * b[4] + a[5] * b[5]);
}
static inline double dotn(const double* a, const double* b, int c) {
    double v = 0;
    for (int t = 0; t < c; ++t) {
        v += a[t] * b[t];
    }
    return v;
}

/* T (ni x cj, row stride cj) -= Li Lj^T, Li ni x c and Lj cj x c row-major; the lower triangle
 * only when T is a diagonal block. The cliques of these problems have 3 (planar) or 6 (free)
 * velocities: their row length gets an unrolled dot product. */
static void schur(double* T, const double* Li, const double* Lj, int ni, int cj, int c, int diag) {
    for (int r = 0; r < ni; ++r) {
        const int smax = diag ? r + 1 : cj;
        const double* a = Li + (size_t)r * c;
        double* t = T + (size_t)r * cj;
        if (c == 6) {
            for (int s2 = 0; s2 < smax; ++s2) {
                t[s2] -= dot6(a, Lj + 6 * s2);
            }
        } else if (c == 3) {
            for (int s2 = 0; s2 < smax; ++s2) {
                t[s2] -= dot3(a, Lj + 3 * s2);
            }
        } else {
            for (int s2 = 0; s2 < smax; ++s2) {
                t[s2] -= dotn(a, Lj + (size_t)s2 * c, c);
            }
        }
    }
}

ccb_status ccb_blockchol_factor(ccb_blockchol* bc, const ccb_blockmat* bm,
                                const unsigned char* skip, char* msg, size_t n) {
    const int nb = bc->nb;
    bc->skip = skip;
    double* L = bc->L;
    /* a skipped component's panels are neither read nor written below, nor by the solve (every
     * pattern edge, and so every fill, joins two blocks of one component): only the others are
     * cleared and filled */
    if (skip == NULL) {
        memset(L, 0, bc->nL * sizeof(double));
    } else {
        for (int k = 0; k < nb; ++k) {
            if (!skip[bc->perm[k]]) {
                memset(L + bc->poff[k], 0,
                       (size_t)bc->rows[k] * (size_t)bc->bs[k] * sizeof(double));
            }
        }
    }
    /* scatter H: diagonal blocks (the stored upper triangle, mirrored) and edge blocks */
    for (int a = 0; a < nb; ++a) {
        if (skip != NULL && skip[a]) {
            continue;
        }
        const int c = bm->bs[a];
        const double* D = bm->vals + bm->diag_off[a];
        double* P = L + bc->src_diag[a];
        for (int i = 0; i < c; ++i) {
            for (int j = 0; j <= i; ++j) {
                P[i * c + j] = D[j * c + i]; /* lower (i, j) = upper (j, i) */
            }
        }
    }
    for (int e = 0; e < bm->nedge; ++e) {
        const int a = bm->edges[2 * e], b = bm->edges[2 * e + 1];
        if (skip != NULL && skip[a]) {
            continue;
        }
        const int na = bm->bs[a], nbb = bm->bs[b];
        const double* B = bm->vals + bm->up_off[e]; /* n_a x n_b */
        double* P = L + bc->src_edge[e];
        if (bc->edge_t[e]) { /* a is the column: the panel block is B^T (n_b x n_a) */
            for (int i = 0; i < nbb; ++i) {
                for (int j = 0; j < na; ++j) {
                    P[i * na + j] = B[j * nbb + i];
                }
            }
        } else { /* b is the column: the panel block is B (n_a x n_b) */
            memcpy(P, B, (size_t)na * (size_t)nbb * sizeof(double));
        }
    }
    for (int k = 0; k < nb; ++k) {
        const int c = bc->bs[k], R = bc->rows[k];
        double* P = L + bc->poff[k];
        if (skip != NULL && skip[bc->perm[k]]) { /* its component is left out (header) */
            continue;
        }
        /* dense Cholesky of the diagonal block (lower, in place) */
        const int bad = ccb_dense_cholesky(c, P);
        if (bad) {
            return ccb_errorf(msg, n, CCB_E_FACTOR,
                              "Newton matrix H is not positive definite (block Cholesky: unknown "
                              "%d of block %d of %d in the AMD order)",
                              bad - 1, k, nb);
        }
        /* the blocks below: each row x solves x L_kk^T = h (forward substitution) */
        for (int r = c; r < R; ++r) {
            double* x = P + (size_t)r * c;
            for (int j = 0; j < c; ++j) {
                double v = x[j];
                for (int t = 0; t < j; ++t) {
                    v -= x[t] * P[j * c + t];
                }
                x[j] = v / P[j * c + j];
            }
        }
        /* Schur update of the later columns: H'_ij -= L_ik L_jk^T, i >= j in struct(k) */
        for (int m = bc->cp[k]; m < bc->cp[k + 1]; ++m) {
            const int j = bc->ri[m], cj = bc->bs[j];
            const double* Lj = P + (size_t)bc->rrow[m] * c;
            double* T = L + bc->poff[j];
            bc->map[j] = 0;
            for (int q = bc->cp[j]; q < bc->cp[j + 1]; ++q) {
                bc->map[bc->ri[q]] = bc->rrow[q];
            }
            for (int p = m; p < bc->cp[k + 1]; ++p) {
                const int i = bc->ri[p], ni = bc->bs[i];
                const double* Li = P + (size_t)bc->rrow[p] * c;
                double* Tij = T + (size_t)bc->map[i] * cj;
                schur(Tij, Li, Lj, ni, cj, c, p == m);
            }
        }
    }
    return CCB_OK;
}

void ccb_blockchol_solve(ccb_blockchol* bc, const double* b, double* x) {
    const int nb = bc->nb;
    double* y = bc->y;
    for (int k = 0; k < nb; ++k) {
        memcpy(y + bc->off[k], b + bc->orig_off[k], (size_t)bc->bs[k] * sizeof(double));
    }
    /* L y = P b */
    for (int k = 0; k < nb; ++k) {
        const int c = bc->bs[k];
        const double* P = bc->L + bc->poff[k];
        double* yk = y + bc->off[k];
        if (bc->skip != NULL && bc->skip[bc->perm[k]]) {
            memset(yk, 0, (size_t)c * sizeof(double));
            continue;
        }
        for (int j = 0; j < c; ++j) {
            double v = yk[j];
            for (int t = 0; t < j; ++t) {
                v -= P[j * c + t] * yk[t];
            }
            yk[j] = v / P[j * c + j];
        }
        for (int q = bc->cp[k]; q < bc->cp[k + 1]; ++q) {
            const int i = bc->ri[q];
            const double* Li = P + (size_t)bc->rrow[q] * c;
            double* yi = y + bc->off[i];
            for (int r = 0; r < bc->bs[i]; ++r) {
                double v = 0;
                for (int t = 0; t < c; ++t) {
                    v += Li[r * c + t] * yk[t];
                }
                yi[r] -= v;
            }
        }
    }
    /* L^T x = y */
    for (int k = nb - 1; k >= 0; --k) {
        const int c = bc->bs[k];
        const double* P = bc->L + bc->poff[k];
        double* yk = y + bc->off[k];
        if (bc->skip != NULL && bc->skip[bc->perm[k]]) {
            continue; /* zero from the forward pass */
        }
        for (int q = bc->cp[k]; q < bc->cp[k + 1]; ++q) {
            const int i = bc->ri[q];
            const double* Li = P + (size_t)bc->rrow[q] * c;
            const double* yi = y + bc->off[i];
            for (int r = 0; r < bc->bs[i]; ++r) {
                for (int t = 0; t < c; ++t) {
                    yk[t] -= Li[r * c + t] * yi[r];
                }
            }
        }
        for (int j = c - 1; j >= 0; --j) {
            double v = yk[j];
            for (int t = j + 1; t < c; ++t) {
                v -= P[t * c + j] * yk[t];
            }
            yk[j] = v / P[j * c + j];
        }
    }
    for (int k = 0; k < nb; ++k) {
        memcpy(x + bc->orig_off[k], y + bc->off[k], (size_t)bc->bs[k] * sizeof(double));
    }
}

void ccb_blockchol_stats(const ccb_blockchol* bc, double* nnz_L, double* flops) {
    *nnz_L = bc->nnz_L;
    *flops = bc->flops;
}
