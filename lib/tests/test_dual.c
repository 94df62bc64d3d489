/* unit.dual: the step problem in impulse space (ccb/dual.h) against the same quantities computed
 * here from the problem's global form with a dense inverse of A (another implementation):
 * W_ii = J_i A^{-1} J_i^T, the velocity update v += A^{-1} J_i^T dgamma and the contact
 * velocities; the block problem's solution is stationary; bad arguments are refused. The scene:
 * two free balls, one resting on the floor and one on it (two contacts, 12 velocities, two
 * cliques, the second contact coupling them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"
#include "test.h"
#include "test_models.h"

/* Round-off of a dense Gauss-Jordan inverse of a 6 x 6 SPD block with condition ~1e3 and of the
 * sums that follow, against ccb's block Cholesky: 1e-12 relative (measured ~1e-15). */
static const double k_tol_algebra = 1e-12;
/* ccb_dual_setup adds 1e-10 max_k W_kk to W_ii's diagonal (ccb/dual.h): the comparison of W_ii
 * allows that much beside the round-off. */
static const double k_compliance = 1e-10;
/* The block problem's stationarity W (W^{-1} (y - y~) - gamma(y)) against the velocities: its
 * own stopping test is 1e-13 of them; 1e-10 leaves room for the residual's own round-off. */
static const double k_tol_block = 1e-10;

/* the H column of row k (ccb order t1, t2, n) of contact i (global order n, t1, t2) */
static int hcol(int i, int k) {
    return 3 * i + (k == 2 ? 0 : k + 1);
}

/* Dense inverse of the n x n matrix a (row-major) by Gauss-Jordan with partial pivoting. */
static int invert(double* a, double* inv, int n) {
    for (int i = 0; i < n * n; ++i) {
        inv[i] = i % (n + 1) == 0 ? 1.0 : 0.0;
    }
    for (int c = 0; c < n; ++c) {
        int pr = c;
        for (int r = c + 1; r < n; ++r) {
            pr = fabs(a[r * n + c]) > fabs(a[pr * n + c]) ? r : pr;
        }
        if (a[pr * n + c] == 0) {
            return -1;
        }
        for (int k = 0; k < n; ++k) {
            double t = a[c * n + k];
            a[c * n + k] = a[pr * n + k], a[pr * n + k] = t;
            t = inv[c * n + k];
            inv[c * n + k] = inv[pr * n + k], inv[pr * n + k] = t;
        }
        const double d = a[c * n + c];
        for (int k = 0; k < n; ++k) {
            a[c * n + k] /= d, inv[c * n + k] /= d;
        }
        for (int r = 0; r < n; ++r) {
            if (r != c && a[r * n + c] != 0) {
                const double f = a[r * n + c];
                for (int k = 0; k < n; ++k) {
                    a[r * n + k] -= f * a[c * n + k], inv[r * n + k] -= f * inv[c * n + k];
                }
            }
        }
    }
    return 0;
}

static void test_against_dense(void) {
    ccb_model* m = floor_model(0.5);
    const ccb_material mat = {1e6, 10, 1e-3, 0.5, 0.0};
    add_ball(m, "low", 0.0499, ccb_v3(0.1, 0, 0), mat);
    add_ball(m, "high", 0.1497, ccb_v3(-0.2, 0.05, 0), mat);
    char msg[256];
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize");
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = 1e-3;
    ccb_sim* sim = NULL;
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    CHECK(ccb_sim_step(sim) == CCB_OK, "step: %s", ccb_sim_last_error(sim));
    const ccb_problem* pb = ccb_sim_problem(sim);
    const int nv = ccb_problem_nv(pb), nc = ccb_problem_nc(pb);
    /* the two touching pairs and the speculative one (the high ball and the floor, 10 cm margin) */
    CHECK(nv == 12 && nc >= 2 && nc <= 8, "12 velocities, 2 to 8 contacts (%d, %d)", nv, nc);
    int pressing = -1; /* a contact that penetrates: its block problem carries a normal impulse */
    for (int i = 0; i < nc && pressing < 0; ++i) {
        pressing = ccb_problem_contact_input(pb, i)->phi0 < 0 ? i : -1;
    }
    CHECK(pressing >= 0, "a penetrating contact");

    ccb_dual* d = NULL;
    CHECK(ccb_dual_create(&d) == CCB_OK, "create");
    CHECK(ccb_dual_setup(d, pb, msg, sizeof msg) == CCB_OK, "setup: %s", msg);
    CHECK(ccb_dual_nv(d) == nv && ccb_dual_nc(d) == nc, "sizes");

    /* the other implementation: A dense and inverted, J from H */
    ccb_global_problem g;
    memset(&g, 0, sizeof g);
    CHECK(ccb_problem_to_global(pb, &g) == CCB_OK, "global form");
    double *A = calloc((size_t)(nv * nv), sizeof(double)),
           *Ai = calloc((size_t)(nv * nv), sizeof(double));
    double* J = calloc((size_t)(3 * nc * nv), sizeof(double)); /* row 3 i + k (ccb order) */
    for (int c = 0; c < nv; ++c) {
        for (int e = g.M_colptr[c]; e < g.M_colptr[c + 1]; ++e) {
            A[g.M_row[e] * nv + c] = g.M_val[e];
        }
    }
    for (int i = 0; i < nc; ++i) {
        for (int k = 0; k < 3; ++k) {
            const int col = hcol(i, k);
            for (int e = g.H_colptr[col]; e < g.H_colptr[col + 1]; ++e) {
                J[(3 * i + k) * nv + g.H_row[e]] = g.H_val[e];
            }
        }
    }
    CHECK(invert(A, Ai, nv) == 0, "A is invertible");
    /* X = A^{-1} J^T (nv x 3 nc) */
    double* X = calloc((size_t)(3 * nc * nv), sizeof(double));
    for (int r = 0; r < nv; ++r) {
        for (int q = 0; q < 3 * nc; ++q) {
            double s = 0;
            for (int k = 0; k < nv; ++k) {
                s += Ai[r * nv + k] * J[q * nv + k];
            }
            X[r * 3 * nc + q] = s;
        }
    }
    for (int i = 0; i < nc; ++i) {
        const double* W = ccb_dual_delassus(d, i);
        double wmax = 0;
        double Wd[9];
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) {
                double s = 0;
                for (int k = 0; k < nv; ++k) {
                    s += J[(3 * i + a) * nv + k] * X[k * 3 * nc + 3 * i + b];
                }
                Wd[3 * a + b] = s;
                wmax = fmax(wmax, fabs(s));
            }
        }
        for (int a = 0; a < 9; ++a) {
            const double extra = a % 4 == 0 ? k_compliance * wmax : 0.0;
            CHECK_ABS(W[a], Wd[a] + extra, k_tol_algebra * wmax + 1e-12 * extra,
                      "W_ii = J_i A^-1 J_i^T (+ the documented compliance on the diagonal)");
        }
    }
    /* the velocity update and the contact velocities: v = v* + A^{-1} J_1^T dg moves every
     * contact velocity by J A^{-1} J_1^T dg */
    const double dg[3] = {0.003, -0.002, 0.01};
    double* v = calloc((size_t)nv, sizeof(double));
    memcpy(v, ccb_problem_vstar(pb), (size_t)nv * sizeof(double));
    double y0[8][3], y1[8][3], vmax = 0;
    for (int i = 0; i < nc; ++i) {
        ccb_dual_contact_velocity(d, i, v, y0[i]);
        double ref[3];
        CHECK(ccb_problem_contact_velocity(pb, i, v, ref) == CCB_OK, "problem's v_c");
        for (int k = 0; k < 3; ++k) {
            vmax = fmax(vmax, fabs(ref[k]));
            CHECK_ABS(y0[i][k], ref[k], k_tol_algebra * (fabs(ref[k]) + 1),
                      "y_i = J_i v + b_i is the problem's contact velocity");
        }
    }
    ccb_dual_add_impulse(d, 1, dg, v);
    for (int i = 0; i < nc; ++i) {
        ccb_dual_contact_velocity(d, i, v, y1[i]);
        for (int k = 0; k < 3; ++k) {
            double want = 0, scale = 0;
            for (int b = 0; b < 3; ++b) {
                double s = 0;
                for (int r = 0; r < nv; ++r) {
                    s += J[(3 * i + k) * nv + r] * X[r * 3 * nc + 3 + b];
                }
                want += s * dg[b];
                scale += fabs(s * dg[b]);
            }
            CHECK_ABS(y1[i][k] - y0[i][k], want, k_tol_algebra * (scale + vmax) + 1e-15,
                      "each contact moves by J_i A^-1 J_1^T dgamma");
        }
    }
    /* the block problem of the pressing contact, pushed further in: stationary at its solution */
    const ccb_approx* ap = ccb_problem_approx(pb);
    const ccb_constraint* c = ccb_problem_constraint(pb, pressing);
    const double* W = ccb_dual_delassus(d, pressing);
    const double* yp = y0[pressing];
    double yt[3] = {yp[0] - 0.01, yp[1] + 0.02, yp[2] - 0.05}, y[3], gam[3];
    memcpy(y, yp, sizeof y);
    CHECK(ccb_dual_block_solve(ap, c, W, yt, y, gam) == 0, "block problem solved");
    /* W^{-1} (y - yt) = gamma(y)  <=>  (y - yt) - W gamma = 0 */
    double mag = 0;
    for (int k = 0; k < 3; ++k) {
        mag = fmax(mag, fmax(fabs(y[k]), fabs(yt[k])));
    }
    for (int k = 0; k < 3; ++k) {
        const double res =
            (y[k] - yt[k]) - (W[3 * k] * gam[0] + W[3 * k + 1] * gam[1] + W[3 * k + 2] * gam[2]);
        CHECK_ABS(res, 0.0, k_tol_block * mag, "stationarity of the block problem");
    }
    CHECK(gam[2] > 0, "a pressing contact carries a normal impulse (%g)", gam[2]);

    /* bad arguments: refused with a message, nothing crashes */
    CHECK(ccb_dual_create(NULL) == CCB_E_INVALID, "create(NULL)");
    CHECK(ccb_dual_setup(NULL, pb, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "NULL"),
          "setup of no workspace: %s", msg);
    CHECK(ccb_dual_setup(d, NULL, msg, sizeof msg) == CCB_E_INVALID, "setup of no problem");
    ccb_dual_destroy(NULL);
    free(A), free(Ai), free(J), free(X), free(v);
    ccb_global_problem_free(&g);
    ccb_dual_destroy(d);
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
}

int main(void) {
    RUN(test_against_dense);
    return TEST_SUMMARY();
}
