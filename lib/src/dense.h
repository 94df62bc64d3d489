/* Small dense linear algebra (row-major, n x n), for clique blocks and the dense reference
 * path of the Newton solver. Not installed. */
#ifndef CCB_DENSE_H
#define CCB_DENSE_H

/* In-place Cholesky A = L L^T (lower triangle of A overwritten by L, upper left untouched).
 * Returns 0 on success, or k+1 if the leading minor of order k+1 is not positive definite. */
int ccb_dense_cholesky(int n, double* A);
/* Solves L L^T x = b in place (x = b on entry), L from ccb_dense_cholesky. */
void ccb_dense_chol_solve(int n, const double* L, double* x);
/* In-place LU factorization with partial (row) pivoting, P A = L U (unit lower L below the
 * diagonal, U on and above it), piv[n] the row swapped into position k. Returns 0, or k+1 if
 * the pivot of column k is zero or not finite (A is singular to working precision). */
int ccb_dense_lu(int n, double* A, int* piv);
/* Solves A x = b in place (x = b on entry) with the factors of ccb_dense_lu. */
void ccb_dense_lu_solve(int n, const double* LU, const int* piv, double* x);
/* Eigenvalues (ascending) of the symmetric matrix A (upper triangle used; A is destroyed) with
 * LAPACK dsyev; work[lwork], lwork >= ccb_dense_eig_work(n). Returns LAPACK's info (0 = ok). */
int ccb_dense_eigvals(int n, double* A, double* w, double* work, int lwork);
/* Workspace size (doubles) for ccb_dense_eigvals. */
int ccb_dense_eig_work(int n);

/* The smallest and largest eigenvalues of the symmetric A (upper triangle used; A is
 * destroyed): A splits by the connected components of the graph of its nonzero off-diagonal
 * entries into diagonal blocks (a symmetric permutation) whose spectra make up A's, and each
 * block is solved alone by ccb_dense_eigvals; an irreducible A is one solve of A itself.
 * scratch[ccb_dense_extremes_work(n)], iwork[2 n]. Returns LAPACK's info (0 = ok; *lo and
 * *hi are NaN for n < 1). */
int ccb_dense_eig_extremes(int n, double* A, double* lo, double* hi, double* scratch, int* iwork);
/* Workspace size (doubles) for ccb_dense_eig_extremes. */
int ccb_dense_extremes_work(int n);

/* Writes the rows x cols row-major block B into the n x n row-major matrix H at (r0, c0), or
 * its transpose (cols x rows) when transpose is set. */
void ccb_dense_put_block(double* H, int n, int r0, int c0, const double* B, int rows, int cols,
                         int transpose);

#endif
