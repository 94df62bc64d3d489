/* sparse: the block-sparse SPD Newton matrix H = A + J^T G J and its factorization
 * (spec: formulation-convex §8.2), and the non-symmetric matrix of TAMSI and its LU. Internal to
 * the library; CHOLMOD and UMFPACK live only here.
 *
 * The block pattern and the dense row-major blocks are a ccb_blockmat (blockmat.h) under every
 * back-end; the Cholesky back-end scatters them into CHOLMOD's upper-triangular CSC matrix
 * through a map computed with the pattern, the LU back-end into UMFPACK's compressed columns. */
#ifndef CCB_SPARSE_H
#define CCB_SPARSE_H

#include <stddef.h>

#include "blockmat.h"
#include "ccb/status.h"

typedef struct ccb_sparse ccb_sparse;

/* Factorization back-ends of the SPD matrix (ccb_linear_solver maps onto these). */
typedef enum ccb_sparse_backend {
    CCB_SPARSE_AUTO = 0,    /* dense for one block, BLOCK otherwise */
    CCB_SPARSE_CHOLMOD = 1, /* supernodal Cholesky, AMD ordering */
    CCB_SPARSE_DENSE = 2,   /* LAPACK-style dense Cholesky of the assembled matrix */
    CCB_SPARSE_BLOCK = 3    /* Cholesky on the block structure, AMD on the block graph
                               (blockchol.h) */
} ccb_sparse_backend;

ccb_status ccb_sparse_create(ccb_sparse** sp);
void ccb_sparse_destroy(ccb_sparse* sp);

/* Sets the block pattern: nb blocks of sizes bs[nb], nedge edges given as sorted unique pairs
 * (a, b), a < b. A changed pattern invalidates CHOLMOD's symbolic analysis (AMD ordering,
 * supernodal structure), which the next CHOLMOD factorization redoes; an unchanged pattern keeps
 * it. */
ccb_status ccb_sparse_set_pattern(ccb_sparse* sp, int nb, const int* bs, int nedge,
                                  const int* edges, char* msg, size_t msg_size);
/* Number of symbolic analyses performed so far. */
long ccb_sparse_analyses(const ccb_sparse* sp);
/* Total size n = sum of block sizes. */
int ccb_sparse_n(const ccb_sparse* sp);
/* Dense storage of diagonal block a / edge block e (valid until the next set_pattern). */
double* ccb_sparse_diag_block(ccb_sparse* sp, int a);
double* ccb_sparse_edge_block(ccb_sparse* sp, int e);
/* Index of the edge (a, b), a < b, or -1. */
int ccb_sparse_find_edge(const ccb_sparse* sp, int a, int b);
/* Sets all block values to zero. */
void ccb_sparse_zero(ccb_sparse* sp);
/* Sets the edge blocks to zero, leaving out those of the blocks skip marks (NULL: every one):
 * the caller overwrites every diagonal block, and passes a skip only when the factorization is
 * the block back-end's with that skip (ccb_sparse_set_skip), which reads none of those blocks. */
void ccb_sparse_zero_edges(ccb_sparse* sp, const unsigned char* skip);
/* Numeric factorization with the chosen back-end (AUTO: dense for one block, BLOCK otherwise).
 * CCB_E_FACTOR (naming the failing column) if H is not positive definite, CCB_E_NOMEM,
 * CCB_E_INTERNAL on other CHOLMOD failures. */
ccb_status ccb_sparse_factor(ccb_sparse* sp, ccb_sparse_backend solver, char* msg, size_t msg_size);
/* Blocks the next factorizations of the block back-end leave out (ccb_blockchol_factor: a union
 * of connected components of the pattern; the solve gives zeros there), or NULL for none; the
 * other back-ends factor everything. The array is borrowed until the next call. */
void ccb_sparse_set_skip(ccb_sparse* sp, const unsigned char* skip);
/* x = H^{-1} b with the last factorization (x and b may alias). */
ccb_status ccb_sparse_solve(ccb_sparse* sp, const double* b, double* x, char* msg, size_t msg_size);
/* Full dense symmetric copy of H (n x n row-major) into H. */
void ccb_sparse_to_dense(const ccb_sparse* sp, double* H);
/* Statistics of the last factorization: nonzeros of L and flop count (CHOLMOD's estimate from
 * the analysis; the dense path reports n(n+1)/2 and n^3/3). */
void ccb_sparse_factor_stats(const ccb_sparse* sp, double* nnz_L, double* flops);

/* Installs ccb's allocation hooks in SuiteSparse (CHOLMOD, UMFPACK) once per process. */
void ccb_sparse_init_suitesparse(void);

/* ---- recycling pools behind SuiteSparse (sparse_pool.c) ------------------------------------ */
typedef struct ccb_ss_pool ccb_ss_pool;
ccb_ss_pool* ccb_ss_pool_create(void);       /* NULL if out of memory */
void ccb_ss_pool_destroy(ccb_ss_pool* pool); /* frees every block; accepts NULL */
/* Makes pool the calling thread's current pool (returns the previous one); SuiteSparse
 * allocations are then served from it. */
ccb_ss_pool* ccb_ss_pool_enter(ccb_ss_pool* pool);
void ccb_ss_pool_leave(ccb_ss_pool* previous);
/* The SuiteSparse hooks. */
void* ccb_ss_malloc(size_t n);
void* ccb_ss_calloc(size_t n, size_t size);
void* ccb_ss_realloc(void* p, size_t n);
void ccb_ss_free(void* p);

/* ---- LU of the non-symmetric block matrix of TAMSI (sparse_lu.c) ------------------------- */

/* Same block pattern as above (nb blocks, edges (a, b) with a < b), but both off-diagonal blocks
 * of an edge are stored: upper (a, b) n_a x n_b and lower (b, a) n_b x n_a, row-major. */
typedef struct ccb_sparse_lu ccb_sparse_lu;

ccb_status ccb_sparse_lu_create(ccb_sparse_lu** lu);
void ccb_sparse_lu_destroy(ccb_sparse_lu* lu);
/* Sets the pattern; an unchanged pattern keeps UMFPACK's symbolic analysis. */
ccb_status ccb_sparse_lu_set_pattern(ccb_sparse_lu* lu, int nb, const int* bs, int nedge,
                                     const int* edges, char* msg, size_t msg_size);
int ccb_sparse_lu_n(const ccb_sparse_lu* lu);
double* ccb_sparse_lu_diag_block(ccb_sparse_lu* lu, int a);
/* Block of edge e: lower = 0 the upper block (a, b), lower = 1 the lower block (b, a). */
double* ccb_sparse_lu_edge_block(ccb_sparse_lu* lu, int e, int lower);
int ccb_sparse_lu_find_edge(const ccb_sparse_lu* lu, int a, int b);
void ccb_sparse_lu_zero(ccb_sparse_lu* lu);
/* Factors with UMFPACK (use_umfpack = 1) or dense LU with partial pivoting (0). CCB_E_FACTOR for
 * a singular matrix, CCB_E_NOMEM, CCB_E_INTERNAL. */
ccb_status ccb_sparse_lu_factor(ccb_sparse_lu* lu, int use_umfpack, char* msg, size_t msg_size);
/* x = H^{-1} b with the last factorization (x and b may alias). */
ccb_status ccb_sparse_lu_solve(ccb_sparse_lu* lu, const double* b, double* x, char* msg,
                               size_t msg_size);
/* Full dense copy (n x n, row-major). */
void ccb_sparse_lu_to_dense(const ccb_sparse_lu* lu, double* H);
/* UMFPACK symbolic analyses so far. */
long ccb_sparse_lu_analyses(const ccb_sparse_lu* lu);

#endif
