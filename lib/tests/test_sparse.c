/* unit.sparse: the Cholesky back-ends of the block-sparse Newton matrix (sparse.c, blockchol.c)
 * agree on random block patterns: cliques of 1, 2, 3 and 6 unknowns, chains, stars, random graphs
 * and disconnected groups, from 1 to 80 blocks; a matrix that is not positive definite is reported
 * by each of them as CCB_E_FACTOR; a changed pattern is analysed again; the block back-end leaves
 * out skipped components exactly. The extreme eigenvalues behind kappa(H) (dense.c) split H by its
 * connected components and equal the known spectrum of a permuted block-diagonal matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"
#include "sparse.h"
#include "test.h"

/* Diagonally dominant by a factor 2 (cond <= ~3 in the infinity norm): backward-stable Cholesky
 * solves agree to a few n eps; n <= 480 -> 480 * 2.2e-16 * 3 ~ 3e-13. */
#define TOL_SOLVE 1e-12

enum { MAXB = 80, MAXE = 800 };

typedef struct pattern {
    int nb, ne, n;
    int bs[MAXB];
    int edges[2 * MAXE];
} pattern;

static int cmp_edge(const void* a, const void* b) {
    const int* x = a;
    const int* y = b;
    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* kind 0: chain, 1: star, 2: random graph, 3: two disconnected random groups */
static void make_pattern(pattern* p, int nb, int kind) {
    p->nb = nb;
    p->n = 0;
    for (int a = 0; a < nb; ++a) {
        /* cliques of a planar body (3), a free body (6), and planar bodies with locked
         * coordinates (2, 1: the block kernel's general-width path) */
        const double r = urand();
        p->bs[a] = r < 0.4 ? 3 : r < 0.8 ? 6 : r < 0.9 ? 2 : 1;
        p->n += p->bs[a];
    }
    int ne = 0;
    for (int a = 0; a < nb; ++a) {
        for (int b = a + 1; b < nb && ne < MAXE; ++b) {
            int on = 0;
            switch (kind) {
            case 0: on = b == a + 1; break;
            case 1: on = a == 0; break;
            case 2: on = urand() < 4.0 / nb; break;
            default: on = (a < nb / 2) == (b < nb / 2) && urand() < 6.0 / nb; break;
            }
            if (on) {
                p->edges[2 * ne] = a;
                p->edges[2 * ne + 1] = b;
                ne++;
            }
        }
    }
    qsort(p->edges, (size_t)ne, 2 * sizeof(int), cmp_edge);
    p->ne = ne;
}

/* Random values: off-diagonal entries in [-1, 1], diagonal 2 x (sum of |row|) + 1; shift < 0
 * makes the first diagonal entry of block `bad` negative (not positive definite). */
static void fill(ccb_sparse* sp, const pattern* p, int bad) {
    ccb_sparse_zero(sp);
    double* rowsum = calloc((size_t)p->n, sizeof(double));
    int off[MAXB];
    for (int a = 0, o = 0; a < p->nb; ++a) {
        off[a] = o;
        o += p->bs[a];
    }
    for (int e = 0; e < p->ne; ++e) {
        const int a = p->edges[2 * e], b = p->edges[2 * e + 1];
        double* B = ccb_sparse_edge_block(sp, ccb_sparse_find_edge(sp, a, b));
        for (int i = 0; i < p->bs[a]; ++i) {
            for (int j = 0; j < p->bs[b]; ++j) {
                const double v = 2 * urand() - 1;
                B[i * p->bs[b] + j] = v;
                rowsum[off[a] + i] += fabs(v);
                rowsum[off[b] + j] += fabs(v);
            }
        }
    }
    for (int a = 0; a < p->nb; ++a) {
        const int c = p->bs[a];
        double* D = ccb_sparse_diag_block(sp, a);
        for (int i = 0; i < c; ++i) { /* symmetric: both triangles written */
            for (int j = i + 1; j < c; ++j) {
                const double v = 2 * urand() - 1;
                D[i * c + j] = D[j * c + i] = v;
                rowsum[off[a] + i] += fabs(v);
                rowsum[off[a] + j] += fabs(v);
            }
        }
        for (int i = 0; i < c; ++i) {
            D[i * c + i] = 2 * rowsum[off[a] + i] + 1;
        }
        if (a == bad) {
            D[0] = -1.0;
        }
    }
    free(rowsum);
}

static void test_backends_agree(void) {
    ccb_sparse* sp = NULL;
    CHECK(ccb_sparse_create(&sp) == CCB_OK, "create");
    static pattern p;
    char msg[256];
    const int sizes[] = {1, 2, 5, 20, 80};
    int cases = 0;
    for (int s = 0; s < 5; ++s) {
        for (int kind = 0; kind < 4; ++kind) {
            for (int trial = 0; trial < 3; ++trial) {
                make_pattern(&p, sizes[s], kind);
                CHECK(ccb_sparse_set_pattern(sp, p.nb, p.bs, p.ne, p.edges, msg, sizeof msg) ==
                          CCB_OK,
                      "pattern: %s", msg);
                fill(sp, &p, -1);
                double *b = malloc((size_t)p.n * sizeof(double)),
                       *x[3] = {malloc((size_t)p.n * sizeof(double)),
                                malloc((size_t)p.n * sizeof(double)),
                                malloc((size_t)p.n * sizeof(double))};
                for (int i = 0; i < p.n; ++i) {
                    b[i] = 2 * urand() - 1;
                }
                const ccb_sparse_backend be[3] = {CCB_SPARSE_DENSE, CCB_SPARSE_CHOLMOD,
                                                  CCB_SPARSE_BLOCK};
                for (int k = 0; k < 3; ++k) {
                    CHECK(ccb_sparse_factor(sp, be[k], msg, sizeof msg) == CCB_OK, "factor %d: %s",
                          k, msg);
                    CHECK(ccb_sparse_solve(sp, b, x[k], msg, sizeof msg) == CCB_OK, "solve");
                }
                double xmax = 0;
                for (int i = 0; i < p.n; ++i) {
                    xmax = fmax(xmax, fabs(x[0][i]));
                }
                for (int i = 0; i < p.n; ++i) {
                    CHECK_ABS(x[1][i], x[0][i], TOL_SOLVE * xmax, "CHOLMOD against dense");
                    CHECK_ABS(x[2][i], x[0][i], TOL_SOLVE * xmax, "block against dense");
                }
                /* in place (x aliases b) and repeatable bit for bit */
                memcpy(x[1], b, (size_t)p.n * sizeof(double));
                CHECK(ccb_sparse_solve(sp, x[1], x[1], msg, sizeof msg) == CCB_OK, "solve");
                CHECK(memcmp(x[1], x[2], (size_t)p.n * sizeof(double)) == 0,
                      "block solve in place equals the out-of-place one");
                /* not positive definite: every back-end says so */
                fill(sp, &p, p.nb - 1);
                for (int k = 0; k < 3; ++k) {
                    const ccb_status st = ccb_sparse_factor(sp, be[k], msg, sizeof msg);
                    CHECK(st == CCB_E_FACTOR, "indefinite matrix, back-end %d: status %d", k,
                          (int)st);
                }
                free(b);
                free(x[0]), free(x[1]), free(x[2]);
                cases++;
            }
        }
    }
    CHECK(cases == 60, "60 patterns");
    ccb_sparse_destroy(sp);
}

/* The block back-end's skipped components (ccb_sparse_set_skip; Newton's frozen islands): on two
 * disconnected groups of blocks, leaving the second out gives, on the first, the unknowns of the
 * whole factorization bit for bit (no fill crosses the groups, so the first group's columns are
 * computed from the same numbers in the same order) and exact zeros on the second, also with NaN
 * in every block of the second (none is read: the factorization clears and fills only the kept
 * group's panels, and Newton clears only its edge blocks, ccb_sparse_zero_edges); a second group
 * that is not positive definite is then never factored. [exact] */
static void test_skip_components(void) {
    ccb_sparse* sp = NULL;
    CHECK(ccb_sparse_create(&sp) == CCB_OK, "create");
    static pattern p;
    char msg[256];
    static unsigned char skip[MAXB];
    for (int trial = 0; trial < 6; ++trial) {
        make_pattern(&p, trial < 3 ? 20 : 80, 3);
        CHECK(ccb_sparse_set_pattern(sp, p.nb, p.bs, p.ne, p.edges, msg, sizeof msg) == CCB_OK,
              "pattern: %s", msg);
        fill(sp, &p, -1);
        double *b = malloc((size_t)p.n * sizeof(double)),
               *x0 = malloc((size_t)p.n * sizeof(double)),
               *x1 = malloc((size_t)p.n * sizeof(double));
        for (int i = 0; i < p.n; ++i) {
            b[i] = 2 * urand() - 1;
        }
        ccb_sparse_set_skip(sp, NULL);
        CHECK(ccb_sparse_factor(sp, CCB_SPARSE_BLOCK, msg, sizeof msg) == CCB_OK &&
                  ccb_sparse_solve(sp, b, x0, msg, sizeof msg) == CCB_OK,
              "whole: %s", msg);
        int n1 = 0; /* unknowns of the first group (blocks a < nb / 2) */
        for (int a = 0; a < p.nb; ++a) {
            skip[a] = a >= p.nb / 2;
            n1 += skip[a] ? 0 : p.bs[a];
        }
        ccb_sparse_set_skip(sp, skip);
        CHECK(ccb_sparse_factor(sp, CCB_SPARSE_BLOCK, msg, sizeof msg) == CCB_OK &&
                  ccb_sparse_solve(sp, b, x1, msg, sizeof msg) == CCB_OK,
              "skipped: %s", msg);
        CHECK(memcmp(x0, x1, (size_t)n1 * sizeof(double)) == 0,
              "trial %d: the kept group bit for bit", trial);
        int zeros = 1;
        for (int i = n1; i < p.n; ++i) {
            zeros = zeros && x1[i] == 0.0;
        }
        CHECK(zeros, "trial %d: zeros on the skipped group", trial);
        /* the skipped group's blocks are not read at all: NaN in every one of them (and in its
         * panels of L, left from the factorization before) changes nothing, bit for bit */
        for (int a = 0; a < p.nb; ++a) {
            if (skip[a]) {
                double* D = ccb_sparse_diag_block(sp, a);
                for (int i = 0; i < p.bs[a] * p.bs[a]; ++i) {
                    D[i] = NAN;
                }
            }
        }
        for (int e = 0; e < p.ne; ++e) {
            const int a = p.edges[2 * e], b2 = p.edges[2 * e + 1];
            if (skip[a]) {
                double* B = ccb_sparse_edge_block(sp, ccb_sparse_find_edge(sp, a, b2));
                for (int i = 0; i < p.bs[a] * p.bs[b2]; ++i) {
                    B[i] = NAN;
                }
            }
        }
        CHECK(ccb_sparse_factor(sp, CCB_SPARSE_BLOCK, msg, sizeof msg) == CCB_OK &&
                  ccb_sparse_solve(sp, b, x1, msg, sizeof msg) == CCB_OK,
              "skipped, NaN there: %s", msg);
        zeros = 1;
        for (int i = n1; i < p.n; ++i) {
            zeros = zeros && x1[i] == 0.0;
        }
        CHECK(memcmp(x0, x1, (size_t)n1 * sizeof(double)) == 0 && zeros,
              "trial %d: NaN in the skipped blocks: the kept group bit for bit, zeros on the other",
              trial);
        /* ccb_sparse_zero_edges with the skip clears the kept group's edge blocks only, and no
         * diagonal block */
        ccb_sparse_zero_edges(sp, skip);
        int cleared = 1, kept = 1;
        for (int e = 0; e < p.ne; ++e) {
            const int a = p.edges[2 * e], b2 = p.edges[2 * e + 1];
            const double* B = ccb_sparse_edge_block(sp, ccb_sparse_find_edge(sp, a, b2));
            for (int i = 0; i < p.bs[a] * p.bs[b2]; ++i) {
                cleared = cleared && (skip[a] || B[i] == 0.0);
                kept = kept && (!skip[a] || isnan(B[i]));
            }
        }
        for (int a = 0; a < p.nb; ++a) {
            kept = kept && (skip[a] ? isnan(ccb_sparse_diag_block(sp, a)[0])
                                    : ccb_sparse_diag_block(sp, a)[0] > 0);
        }
        CHECK(cleared && kept,
              "trial %d: zero_edges: kept group's edges cleared %d, the rest "
              "and every diagonal block untouched %d",
              trial, cleared, kept);
        fill(sp, &p, p.nb - 1); /* the last block (second group) not positive definite */
        CHECK(ccb_sparse_factor(sp, CCB_SPARSE_BLOCK, msg, sizeof msg) == CCB_OK,
              "trial %d: a skipped group is not factored: %s", trial, msg);
        ccb_sparse_set_skip(sp, NULL);
        CHECK(ccb_sparse_factor(sp, CCB_SPARSE_BLOCK, msg, sizeof msg) == CCB_E_FACTOR,
              "trial %d: and is, once not skipped", trial);
        free(b), free(x0), free(x1);
    }
    ccb_sparse_destroy(sp);
}

/* The log hook (ccb/status.h): CHOLMOD's report of an indefinite matrix reaches it, and nothing
 * does once it is removed. */
static int g_logs = 0;
static char g_last[256];
static void capture(ccb_log_level level, const char* message, void* user) {
    (void)level;
    (*(int*)user)++;
    snprintf(g_last, sizeof g_last, "%s", message);
}

static void test_log_hook(void) {
    ccb_sparse* sp = NULL;
    CHECK(ccb_sparse_create(&sp) == CCB_OK, "create");
    static pattern p;
    char msg[256];
    make_pattern(&p, 5, 0);
    CHECK(ccb_sparse_set_pattern(sp, p.nb, p.bs, p.ne, p.edges, msg, sizeof msg) == CCB_OK,
          "pattern");
    fill(sp, &p, 2);
    ccb_set_log_fn(capture, &g_logs);
    CHECK(ccb_sparse_factor(sp, CCB_SPARSE_CHOLMOD, msg, sizeof msg) == CCB_E_FACTOR, "indefinite");
    CHECK(g_logs >= 1 && strstr(g_last, "CHOLMOD") != NULL, "the hook saw CHOLMOD (%d: %s)", g_logs,
          g_last);
    const int seen = g_logs;
    ccb_set_log_fn(NULL, NULL);
    CHECK(ccb_sparse_factor(sp, CCB_SPARSE_CHOLMOD, msg, sizeof msg) == CCB_E_FACTOR,
          "indefinite again");
    CHECK(g_logs == seen, "no call after the hook is removed");
    ccb_sparse_destroy(sp);
}

/* ccb_dense_eig_extremes (kappa(H), formulation-convex §8.9-§8.10): a block-diagonal matrix
 * with known spectra, its rows and columns scattered by a random permutation, gives the smallest
 * and largest of all blocks' eigenvalues; an irreducible matrix gives exactly what one dsyev of
 * it gives. */
static void test_eig_extremes(void) {
    enum { N = 40 };
    static double A[N * N], B[N * N], w[N], scratch[2 * N * N + 4 * N];
    static int iw[2 * N];
    CHECK(ccb_dense_extremes_work(N) <= (int)(sizeof scratch / sizeof scratch[0]), "workspace");
    for (int trial = 0; trial < 40; ++trial) {
        /* blocks of 1 to 7 unknowns, each Q diag(lambda) Q^T with Q a Householder reflection
         * and lambda log-uniform in [1e-3, 1e3] */
        int perm[N];
        for (int i = 0; i < N; ++i) {
            perm[i] = i;
        }
        for (int i = N - 1; i > 0; --i) {
            const int j = (int)(urand() * (i + 1)), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        memset(A, 0, sizeof A);
        double lmin = INFINITY, lmax = -INFINITY, norm = 0;
        int nblocks = 0;
        for (int b0 = 0; b0 < N; ++nblocks) {
            const int m = b0 + 7 <= N ? 1 + (int)(urand() * 7) : N - b0;
            double v[7], vv = 0, lam[7];
            for (int a = 0; a < m; ++a) {
                v[a] = uniform(-1, 1);
                vv += v[a] * v[a];
                lam[a] = loguniform(1e-3, 1e3);
                lmin = fmin(lmin, lam[a]);
                lmax = fmax(lmax, lam[a]);
            }
            for (int a = 0; a < m; ++a) {
                for (int c = 0; c < m; ++c) {
                    double s = 0; /* (Q diag(lam) Q)_ac, Q = I - 2 v v^T / (v^T v) */
                    for (int k = 0; k < m; ++k) {
                        const double qa = (a == k) - 2 * v[a] * v[k] / vv;
                        const double qc = (c == k) - 2 * v[c] * v[k] / vv;
                        s += qa * lam[k] * qc;
                    }
                    A[perm[b0 + a] * N + perm[b0 + c]] = s;
                }
            }
            b0 += m;
        }
        norm = lmax;
        memcpy(B, A, sizeof A);
        double lo, hi;
        CHECK(ccb_dense_eig_extremes(N, B, &lo, &hi, scratch, iw) == 0, "trial %d: info", trial);
        /* [Weyl: dsyev is backward stable, |d lambda| <= c N eps |A|_2 per block; c N = 64 N] */
        const double tol = 64.0 * N * 2.22e-16 * norm;
        CHECK(fabs(lo - lmin) <= tol && fabs(hi - lmax) <= tol,
              "trial %d (%d blocks): extremes %.17g %.17g, spectrum's %.17g %.17g (tol %.1e)",
              trial, nblocks, lo, hi, lmin, lmax, tol);
        /* one coupling entry between two blocks' unknowns joins them: then the whole matrix,
         * made irreducible by a chain through all unknowns, is one solve, bit for bit */
        for (int i = 0; i + 1 < N; ++i) {
            A[i * N + i + 1] += 1e-3;
            A[(i + 1) * N + i] += 1e-3;
        }
        memcpy(B, A, sizeof A);
        CHECK(ccb_dense_eig_extremes(N, B, &lo, &hi, scratch, iw) == 0, "chain: info");
        memcpy(B, A, sizeof A);
        CHECK(ccb_dense_eigvals(N, B, w, scratch, ccb_dense_eig_work(N)) == 0, "chain: dsyev");
        CHECK(lo == w[0] && hi == w[N - 1],
              "trial %d: irreducible: %.17g %.17g vs one dsyev %.17g %.17g", trial, lo, hi, w[0],
              w[N - 1]);
    }
    double lo = 0, hi = 0;
    CHECK(ccb_dense_eig_extremes(0, A, &lo, &hi, scratch, iw) == 0 && isnan(lo) && isnan(hi),
          "n = 0: NaN extremes");
}

int main(void) {
    g_test_name = "unit.sparse";
    test_backends_agree();
    test_skip_components();
    test_log_hook();
    test_eig_extremes();
    return TEST_SUMMARY();
}
