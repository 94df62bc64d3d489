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

/* Union-find root with path halving (ccb_dense_eig_extremes). */
static int uf_root(int* parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

int ccb_dense_extremes_work(int n) {
    return n < 1 ? 1 : n * n + n + ccb_dense_eig_work(n);
}

int ccb_dense_eig_extremes(int n, double* A, double* lo, double* hi, double* scratch, int* iwork) {
    *lo = NAN;
    *hi = NAN;
    if (n < 1) {
        return 0;
    }
    /* the graph of the nonzero entries of the upper triangle; each component is rooted at its
     * smallest index (a NaN entry is nonzero and joins its two indices) */
    int* parent = iwork;
    for (int i = 0; i < n; ++i) {
        parent[i] = i;
    }
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
            if (A[(size_t)i * n + j] != 0) {
                const int a = uf_root(parent, i), b = uf_root(parent, j);
                if (a != b) {
                    parent[a > b ? a : b] = a < b ? a : b;
                }
            }
        }
    }
    int ncomp = 0;
    for (int i = 0; i < n; ++i) {
        parent[i] = uf_root(parent, i);
        ncomp += parent[i] == i;
    }
    const int lw = ccb_dense_eig_work(n);
    double* w = scratch + (size_t)n * n;
    double* work = w + n;
    if (ncomp == 1) { /* A is irreducible: the one solve of ccb_dense_eigvals */
        const int info = ccb_dense_eigvals(n, A, w, work, lw);
        if (info == 0) {
            *lo = w[0];
            *hi = w[n - 1];
        }
        return info;
    }
    /* the spectrum of a block-diagonal matrix (after a symmetric permutation) is the union of
     * its blocks' spectra (spec: formulation-convex §8.10: H is block diagonal by island) */
    int* idx = iwork + n;
    double* sub = scratch;
    double vlo = INFINITY, vhi = -INFINITY;
    for (int r = 0; r < n; ++r) {
        if (parent[r] != r) {
            continue;
        }
        int m = 0;
        for (int j = r; j < n; ++j) {
            if (parent[j] == r) {
                idx[m++] = j;
            }
        }
        for (int a = 0; a < m; ++a) {
            for (int b = 0; b < m; ++b) {
                sub[(size_t)a * m + b] = A[(size_t)idx[a] * n + idx[b]];
            }
        }
        const int info = ccb_dense_eigvals(m, sub, w, work, lw);
        if (info != 0) {
            return info;
        }
        vlo = w[0] < vlo ? w[0] : vlo;
        vhi = w[m - 1] > vhi ? w[m - 1] : vhi;
    }
    *lo = vlo;
    *hi = vhi;
    return 0;
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
