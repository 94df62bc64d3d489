/* dense: Cholesky for small SPD blocks, LU with partial pivoting for TAMSI's non-symmetric
 * Jacobian (spec: formulation-tamsi-hydro §D.3), symmetric eigenvalues through LAPACK dsyev. */
#include "dense.h"

#include <math.h>
#include <stddef.h>

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

int ccb_dense_lu(int n, double* A, int* piv) {
    for (int k = 0; k < n; ++k) {
        int p = k;
        double amax = fabs(A[k * n + k]);
        for (int i = k + 1; i < n; ++i) {
            if (fabs(A[i * n + k]) > amax) {
                amax = fabs(A[i * n + k]);
                p = i;
            }
        }
        piv[k] = p;
        if (!(amax > 0) || !isfinite(amax)) {
            return k + 1;
        }
        if (p != k) {
            for (int j = 0; j < n; ++j) {
                const double t = A[k * n + j];
                A[k * n + j] = A[p * n + j];
                A[p * n + j] = t;
            }
        }
        const double d = A[k * n + k];
        for (int i = k + 1; i < n; ++i) {
            const double l = A[i * n + k] / d;
            A[i * n + k] = l;
            for (int j = k + 1; j < n; ++j) {
                A[i * n + j] -= l * A[k * n + j];
            }
        }
    }
    return 0;
}

void ccb_dense_lu_solve(int n, const double* LU, const int* piv, double* x) {
    for (int k = 0; k < n; ++k) { /* P b */
        if (piv[k] != k) {
            const double t = x[k];
            x[k] = x[piv[k]];
            x[piv[k]] = t;
        }
    }
    for (int i = 0; i < n; ++i) { /* L y = P b */
        double s = x[i];
        for (int k = 0; k < i; ++k) {
            s -= LU[i * n + k] * x[k];
        }
        x[i] = s;
    }
    for (int i = n - 1; i >= 0; --i) { /* U x = y */
        double s = x[i];
        for (int k = i + 1; k < n; ++k) {
            s -= LU[i * n + k] * x[k];
        }
        x[i] = s / LU[i * n + i];
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

void ccb_dense_put_block(double* H, int n, int r0, int c0, const double* B, int rows, int cols,
                         int transpose) {
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            if (transpose) {
                H[(size_t)(r0 + c) * n + c0 + r] = B[r * cols + c];
            } else {
                H[(size_t)(r0 + r) * n + c0 + c] = B[r * cols + c];
            }
        }
    }
}
