/* blockmat: the block pattern and dense block storage of the Newton matrices, shared by every
 * factorization back-end (sparse.c: Cholesky with CHOLMOD or dense; sparse_lu.c: LU with UMFPACK
 * or dense). Internal to the library.
 *
 * Blocks are the participating cliques (spec: formulation-convex §8.2); block (a, b), a < b,
 * exists iff some contact couples cliques a and b (an edge). Diagonal blocks are n_a x n_a, the
 * upper block of an edge n_a x n_b, all row-major. A symmetric matrix stores the upper block
 * only; a non-symmetric one (TAMSI, formulation-tamsi-hydro §D.3) also the lower block (b, a),
 * n_b x n_a. */
#ifndef CCB_BLOCKMAT_H
#define CCB_BLOCKMAT_H

#include <stddef.h>

#include "ccb/status.h"

typedef struct ccb_blockmat {
    int nb, nedge, n;        /* blocks (-1: no pattern yet), edges, total size */
    int lower;               /* 1: an edge also stores its lower block */
    int *bs, *boff;          /* nb: block sizes and offsets in the vector */
    int* edges;              /* 2 nedge: sorted unique (a, b), a < b */
    size_t* diag_off;        /* nb: offset of each diagonal block in vals */
    size_t *up_off, *lo_off; /* nedge: offsets of the upper (and lower) block of each edge */
    double* vals;
    size_t nvals;
    int cap_nb, cap_edge, cap_vals;
} ccb_blockmat;

/* An empty matrix (no pattern); lower: 1 to store both off-diagonal blocks of an edge. */
void ccb_blockmat_init(ccb_blockmat* m, int lower);
void ccb_blockmat_free(ccb_blockmat* m);
/* 1 if the pattern is the current one. */
int ccb_blockmat_same(const ccb_blockmat* m, int nb, const int* bs, int nedge, const int* edges);
/* Sets the pattern and the storage (values undefined). CCB_E_NOMEM leaves no pattern (nb -1). */
ccb_status ccb_blockmat_set(ccb_blockmat* m, int nb, const int* bs, int nedge, const int* edges);
static inline double* ccb_blockmat_diag(ccb_blockmat* m, int a) {
    return m->vals + m->diag_off[a];
}
/* Block of edge e: lower = 0 the upper block (a, b), lower = 1 the lower block (b, a). */
static inline double* ccb_blockmat_edge(ccb_blockmat* m, int e, int lower) {
    return m->vals + (lower ? m->lo_off[e] : m->up_off[e]);
}
/* Index of the edge (a, b), a < b, or -1. */
int ccb_blockmat_find_edge(const ccb_blockmat* m, int a, int b);
void ccb_blockmat_zero(ccb_blockmat* m);
/* Zeroes the edge blocks (both stored halves), leaving out those whose first block skip marks
 * (skip NULL: every edge); the diagonal blocks are left as they are. */
void ccb_blockmat_zero_edges(ccb_blockmat* m, const unsigned char* skip);
/* Full dense copy (n x n, row-major); a symmetric matrix gets its lower blocks mirrored. */
void ccb_blockmat_to_dense(const ccb_blockmat* m, double* H);

#endif
