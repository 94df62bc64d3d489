/* blockchol: Cholesky factorization H = P^T L L^T P of the block-sparse SPD Newton matrix on its
 * own block structure (spec: formulation-convex §8.2), the `block` back-end of sparse.c.
 *
 * The unknowns come in cliques of a few velocities (6 for a free body, 3 for a planar one), and
 * H is a pattern of dense blocks (blockmat.h). This back-end orders the blocks (AMD on the block
 * graph, through CHOLMOD's cholmod_amd), computes the block fill of L once per pattern (the
 * elimination tree of the block graph), and factors with dense block kernels: each block column
 * of L is one dense panel, its diagonal block factored in place, the blocks below it solved
 * against it, and the Schur update applied to the later columns it reaches (right-looking). No
 * scalar sparse matrix is built and no BLAS call is made, so a small matrix pays no per-call
 * overhead. Internal to the library. */
#ifndef CCB_BLOCKCHOL_H
#define CCB_BLOCKCHOL_H

#include <stddef.h>

#include "blockmat.h"
#include "ccb/status.h"

typedef struct ccb_blockchol ccb_blockchol;

/* An empty factorization (no pattern); NULL if out of memory. */
ccb_blockchol* ccb_blockchol_create(void);
void ccb_blockchol_destroy(ccb_blockchol* bc); /* accepts NULL */
/* Ordering and block fill of the pattern of bm (its values are not read); cm is the caller's
 * cholmod_common (void* to keep CHOLMOD out of this header). CCB_E_NOMEM, CCB_E_INTERNAL. */
ccb_status ccb_blockchol_analyze(ccb_blockchol* bc, const ccb_blockmat* bm, void* cm, char* msg,
                                 size_t msg_size);
/* Numeric factorization of the values of bm (the analyzed pattern). CCB_E_FACTOR naming the
 * failing column if H is not positive definite. skip (NULL: none) marks pattern blocks left
 * out: their columns are neither factored nor used, which is exact when no block left in is
 * connected to one left out (a union of connected components of the block graph: no fill
 * crosses them); the solve then gives exact zeros there. */
ccb_status ccb_blockchol_factor(ccb_blockchol* bc, const ccb_blockmat* bm,
                                const unsigned char* skip, char* msg, size_t msg_size);
/* x = H^{-1} b with the last factorization (x and b may alias); zero on the skipped blocks. */
void ccb_blockchol_solve(ccb_blockchol* bc, const double* b, double* x);
/* Entries of L (its dense blocks, lower triangles of the diagonal ones) and the flops of one
 * factorization. */
void ccb_blockchol_stats(const ccb_blockchol* bc, double* nnz_L, double* flops);

#endif
