/* dense: Cholesky for small SPD blocks; symmetric eigenvalues through LAPACK dsyev. */
#include "dense.h"

#include <math.h>

int ccb_dense_cholesky(int n, double* A) {
    for (int j = 0; j < n; ++j) {
        double d = A[j * n + j];
        for (int k = 0; k < j; ++k) {
            d -= A[j * n + k] * A[j * n + k];
        }
        if (!(d > 0) || !isfinite(d)) {
            return j + 1;
        }
        d = sqrt(d);
        A[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = A[i * n + j];
            for (int k = 0; k < j; ++k) {
                s -= A[i * n + k] * A[j * n + k];
            }
            A[i * n + j] = s / d;
        }
    }
    return 0;
}

void ccb_dense_chol_solve(int n, const double* L, double* x) {
    for (int i = 0; i < n; ++i) { /* L y = b */
        double s = x[i];
        for (int k = 0; k < i; ++k) {
            s -= L[i * n + k] * x[k];
        }
        x[i] = s / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) { /* L^T x = y */
        double s = x[i];
        for (int k = i + 1; k < n; ++k) {
            s -= L[k * n + i] * x[k];
        }
        x[i] = s / L[i * n + i];
    }
}

/* LAPACK (Fortran ABI) */
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
            double* work, const int* lwork, int* info);

int ccb_dense_eig_work(int n) {
    return n < 1 ? 1 : 3 * n;
}

int ccb_dense_eigvals(int n, double* A, double* w, double* work, int lwork) {
    int info = 0;
    /* Row-major upper triangle = column-major lower triangle: pass uplo 'L'. */
    dsyev_("N", "L", &n, A, &n, w, work, &lwork, &info);
    return info;
}
