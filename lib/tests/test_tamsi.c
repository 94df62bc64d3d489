/* Unit tests of the friction regularizations (lib/src/friction.c), TALS (tamsi_tals.c) and the
 * TAMSI solver (tamsi.c, sparse_lu.c): spec formulation-tamsi-hydro §A.3-§A.5, the TALS
 * reference table of formulation-tamsi-hydro §C.3, TAMSI against the exact solution of a
 * one-contact frictionless step, a finite-difference check of the TAMSI Jacobian (eq. 23), dense LU
 * against UMFPACK, the Newton cycling that TALS cures (paper Fig. 2/4), substep retries and failure
 * reporting. */
#include <stdlib.h>

#include "ccb/alloc.h"
#include "ccb/friction.h"
#include "ccb/tamsi.h"
#include "tamsi_internal.h"
#include "test.h"

/* Tolerances */
/* [the spec's table: alpha quoted to 7 digits (0.6339746, 0.2795365) or exact] */
static const double TOL_TABLE = 5e-8;
/* [round-off: closed forms evaluated two ways, tens of operations] */
static const double TOL_ROUND = 1e-12;
/* [central differences with step 1e-6 relative: truncation O(step^2 f''') ~ 1e-10, round-off
 *  eps/step ~ 2e-10 of the entry scale; 1e-6 leaves a wide margin] */
static const double TOL_FD = 1e-6;
/* [solver: TAMSI stops when the velocity update is below rho v_s = 1e-6 m/s; Newton converges
 *  quadratically, so the last update leaves an error far below it; relative 1e-9 of O(1) m/s] */
static const double TOL_SOLVE = 1e-9;

/* ---- friction regularizations (formulation-tamsi-hydro §A.3)
 * -------------------------------------------------------- */

static void test_friction_models(void) {
    const double mu = 0.7;
    /* closed forms at s = 0.5 and saturation */
    CHECK_ABS(ccb_friction_mu(CCB_FRICTION_LIN, mu, 0.5, NULL), mu * 0.5, TOL_ROUND, "exact");
    CHECK_ABS(ccb_friction_mu(CCB_FRICTION_TAMSI_QUAD, mu, 0.5, NULL), mu * 0.75, TOL_ROUND,
              "exact");
    CHECK_ABS(ccb_friction_mu(CCB_FRICTION_STRIBECK5, mu, 0.5, NULL), mu * 0.5, TOL_ROUND,
              "S(1/2) = 1/2 by symmetry");
    CHECK_ABS(ccb_friction_mu(CCB_FRICTION_ATAN, mu, 1.0, NULL), mu * 0.5, TOL_ROUND,
              "(2/pi) atan(1) = 1/2");
    for (int m = 0; m < 3; ++m) {
        CHECK_ABS(ccb_friction_mu((ccb_friction_model)m, mu, 1.0, NULL), mu, TOL_ROUND,
                  "saturated at s = 1");
        CHECK_ABS(ccb_friction_mu((ccb_friction_model)m, mu, 7.0, NULL), mu, 0.0, "saturated");
    }
    /* derivative vs central differences, ratio = mu~/s, monotone; away from the LIN kink */
    for (int m = 0; m < CCB_FRICTION_NMODELS; ++m) {
        for (int k = 1; k < 40; ++k) {
            const double s = 0.05 * k + 0.013;
            double d;
            const double f = ccb_friction_mu((ccb_friction_model)m, mu, s, &d);
            const double e = 1e-6;
            const double fd = (ccb_friction_mu((ccb_friction_model)m, mu, s + e, NULL) -
                               ccb_friction_mu((ccb_friction_model)m, mu, s - e, NULL)) /
                              (2 * e);
            CHECK_ABS(d, fd, TOL_FD, "central difference");
            CHECK(d >= 0, "model %d: mu~' = %g < 0 at s = %g", m, d, s);
            CHECK_REL(ccb_friction_ratio((ccb_friction_model)m, mu, s), f / s, TOL_ROUND, 1e-300,
                      "ratio = mu~/s");
        }
        /* limit at s = 0: mu~'(0) */
        double d0;
        ccb_friction_mu((ccb_friction_model)m, mu, 0.0, &d0);
        CHECK_ABS(ccb_friction_ratio((ccb_friction_model)m, mu, 0.0), d0, TOL_ROUND,
                  "ratio(0) = mu~'(0)");
    }
    /* the atan(x)/x series agrees with the library function where both are accurate */
    for (int k = 1; k <= 12; ++k) {
        const double x = 0.01 * k;
        CHECK_REL(ccb_friction_ratio(CCB_FRICTION_ATAN, 1.0, x), (2.0 / CCB_PI) * atan(x) / x,
                  1e-15, 1e-300,
                  "series through x^16/17: truncation < x^18/19 (formulation-tamsi-hydro §A.4)");
    }
    ccb_friction_model m;
    CHECK(ccb_friction_parse("quad", &m) == CCB_OK && m == CCB_FRICTION_TAMSI_QUAD, "parse");
    CHECK(ccb_friction_parse("bogus", &m) == CCB_E_INVALID, "parse rejects unknown names");
}

/* Dt = -dft/dvt of the soft-norm force (formulation-tamsi-hydro §A.5) against central differences.
 * */
static void test_friction_gradient(void) {
    for (int trial = 0; trial < 200; ++trial) {
        const ccb_friction_model m = (ccb_friction_model)(trial % CCB_FRICTION_NMODELS);
        const double vs = 1e-4, eps = 1e-6, mu = uniform(0.1, 1.5), fn = uniform(0.1, 10);
        double vt[2] = {uniform(-4, 4) * vs, uniform(-4, 4) * vs};
        if (m == CCB_FRICTION_LIN || m == CCB_FRICTION_TAMSI_QUAD || m == CCB_FRICTION_STRIBECK5) {
            const double s = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + eps * eps) / vs;
            if (fabs(s - 1.0) < 1e-3) {
                continue; /* the branch point: one-sided derivatives differ */
            }
        }
        double ft[2], Dt[4];
        ccb_friction_soft(m, mu, fn, vt, vs, eps, ft, Dt, NULL, NULL);
        for (int j = 0; j < 2; ++j) {
            const double e = 1e-6 * vs;
            double vp[2] = {vt[0], vt[1]}, vm[2] = {vt[0], vt[1]}, fp[2], fm[2];
            vp[j] += e;
            vm[j] -= e;
            ccb_friction_soft(m, mu, fn, vp, vs, eps, fp, NULL, NULL, NULL);
            ccb_friction_soft(m, mu, fn, vm, vs, eps, fm, NULL, NULL, NULL);
            const double scale = fn * mu / vs;
            for (int i = 0; i < 2; ++i) {
                CHECK_ABS(Dt[2 * i + j] / scale, -(fp[i] - fm[i]) / (2 * e) / scale, TOL_FD,
                          "central difference of the soft-norm force");
            }
        }
        CHECK_ABS(Dt[1], Dt[2], TOL_ROUND * fn * mu / vs, "Dt symmetric");
    }
}

/* Anisotropic regularized friction (formulation-convex §18.3): Dt = -dft/dvt against central
 * differences, Dt symmetric, saturation on the ellipse |M^-1 ft| = fn in the direction -M^2 vt
 * (ICF eq. 31), the continuous model's force equal to the discrete one's at eps_v = 0, and the
 * isotropic limit. */
static void test_friction_anisotropic(void) {
    int nsat = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const ccb_friction_model m = (ccb_friction_model)(trial % CCB_FRICTION_NMODELS);
        const double vs = 1e-4, eps = 1e-6, mu = uniform(0.1, 1.5), fn = uniform(0.1, 10);
        const double mu2 = mu * loguniform(0.25, 4.0);
        const double amax = fmax(mu, mu2) / fmin(mu, mu2);
        double vt[2] = {uniform(-4, 4) * vs, uniform(-4, 4) * vs};
        const double u[2] = {mu / fmin(mu, mu2) * vt[0], mu2 / fmin(mu, mu2) * vt[1]};
        const double s = sqrt(u[0] * u[0] + u[1] * u[1] + eps * eps) / vs;
        if ((m == CCB_FRICTION_LIN || m == CCB_FRICTION_TAMSI_QUAD ||
             m == CCB_FRICTION_STRIBECK5) &&
            fabs(s - 1.0) < 1e-3 * amax) {
            continue; /* the branch point of the scaled slip */
        }
        double ft[2], Dt[4], t[2], mus;
        ccb_friction_soft_aniso(m, mu, mu2, fn, vt, vs, eps, ft, Dt, &mus, t);
        CHECK_REL(ft[0], -mus * fn * t[0], 1e-15, 1e-300, "ft = -mu~ fn t_out");
        for (int j = 0; j < 2; ++j) {
            const double e = 1e-6 * vs / amax;
            double vp[2] = {vt[0], vt[1]}, vm[2] = {vt[0], vt[1]}, fp[2], fm[2];
            vp[j] += e;
            vm[j] -= e;
            ccb_friction_soft_aniso(m, mu, mu2, fn, vp, vs, eps, fp, NULL, NULL, NULL);
            ccb_friction_soft_aniso(m, mu, mu2, fn, vm, vs, eps, fm, NULL, NULL, NULL);
            const double scale = fn * fmax(mu, mu2) * amax / vs;
            for (int i = 0; i < 2; ++i) {
                CHECK_ABS(Dt[2 * i + j] / scale, -(fp[i] - fm[i]) / (2 * e) / scale, 1e-6,
                          "central difference of the anisotropic force (step 1e-6 v_s/A_max: "
                          "O(h^2) truncation and eps/h round-off, both < 1e-6)");
            }
        }
        CHECK_ABS(Dt[1], Dt[2], 1e-15 * fn * fmax(mu, mu2) * amax / vs, "Dt symmetric (eq. 32)");
        /* direction of maximum dissipation: ft antiparallel to M^2 vt */
        const double m2v[2] = {mu * mu * vt[0], mu2 * mu2 * vt[1]};
        const double cosang =
            -(ft[0] * m2v[0] + ft[1] * m2v[1]) / (hypot(ft[0], ft[1]) * hypot(m2v[0], m2v[1]));
        CHECK_ABS(cosang, 1.0, 1e-12, "ft along -M^2 vt (ICF eq. 31; round-off)");
        /* the continuous model's force at eps_v = 0 */
        double fc[2], fd[2];
        ccb_friction_force(m, mu, mu2, fn, vt, vs, fc);
        ccb_friction_soft_aniso(m, mu, mu2, fn, vt, vs, 0.0, fd, NULL, NULL, NULL);
        CHECK_ABS(fc[0], fd[0], 1e-13 * fn * fmax(mu, mu2), "continuous = discrete force (x)");
        CHECK_ABS(fc[1], fd[1], 1e-13 * fn * fmax(mu, mu2), "continuous = discrete force (y)");
    }
    /* saturation far from stiction: |M^-1 ft| = fn exactly for the models that reach mu */
    for (int trial = 0; trial < 100; ++trial) {
        const double mu = uniform(0.1, 1.5), mu2 = mu * loguniform(0.25, 4.0), fn = 2.0;
        const double ang = uniform(0, 2 * CCB_PI), vt[2] = {cos(ang) * 0.1, sin(ang) * 0.1};
        double ft[2];
        ccb_friction_soft_aniso(CCB_FRICTION_LIN, mu, mu2, fn, vt, 1e-4, 0.0, ft, NULL, NULL, NULL);
        CHECK_REL(hypot(ft[0] / mu, ft[1] / mu2), fn, 1e-14, 0, "on the ellipse |M^-1 ft| = fn");
        nsat++;
    }
    CHECK(nsat == 100, "saturation samples");
    /* the isotropic limit: mu2 = 0 and mu2 = mu are ccb_friction_soft bit for bit */
    const double vt[2] = {3e-5, -7e-5};
    double f0[2], D0[4], f1[2], D1[4];
    ccb_friction_soft(CCB_FRICTION_TAMSI_QUAD, 0.7, 3.0, vt, 1e-4, 1e-6, f0, D0, NULL, NULL);
    for (int k = 0; k < 2; ++k) {
        ccb_friction_soft_aniso(CCB_FRICTION_TAMSI_QUAD, 0.7, k ? 0.7 : 0.0, 3.0, vt, 1e-4, 1e-6,
                                f1, D1, NULL, NULL);
        CHECK(memcmp(f0, f1, sizeof f0) == 0 && memcmp(D0, D1, sizeof D0) == 0,
              "isotropic limit mu2 = %g is exact", k ? 0.7 : 0.0);
    }
}

/* ---- TALS (formulation-tamsi-hydro §C.3 reference table)
 * ------------------------------------------------------------ */

static void test_tals_table(void) {
    const ccb_tals_params p = ccb_tals_params_default();
    const struct {
        double v[2], dv[2], alpha;
        ccb_tals_case which;
    } rows[] = {
        {{0, 0}, {0, 0}, 1.0, CCB_TALS_SMALL_UPDATE},
        {{0, 0}, {1e-3, 0}, 0.05, CCB_TALS_FROM_ZERO},
        {{1e-3, 0}, {-1e-3, 0}, 0.95, CCB_TALS_TO_ZERO},
        {{1e-3, 0}, {-2e-3, 0}, 0.475, CCB_TALS_CROSSING},
        {{1e-3, 0}, {-1.5e-3, 0}, 0.63333333333333333, CCB_TALS_CROSSING},
        {{1e-3, 5e-5}, {-2e-3, 0}, 0.5, CCB_TALS_CROSSING},
        {{1e-3, 0}, {-1e-3, 1e-3}, 0.6339746, CCB_TALS_ANGLE},
        {{1e-3, 0}, {-3e-3, 1e-3}, 0.2795365, CCB_TALS_ANGLE},
        {{1e-3, 0}, {0, 1e-3}, 1.0, CCB_TALS_ANGLE_FREE},
        {{5e-5, 0}, {1e-3, 0}, 1.0, CCB_TALS_INSIDE},
        {{2e-4, 0}, {-2.5e-4, 0}, 1.0, CCB_TALS_INSIDE},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k) {
        ccb_tals_case w;
        const double a = ccb_tals_alpha(&p, rows[k].v, rows[k].dv, &w);
        CHECK_ABS(a, rows[k].alpha, TOL_TABLE, "formulation-tamsi-hydro §C.3 table");
        CHECK(w == rows[k].which, "row %zu: case %d, expected %d", k, (int)w, (int)rows[k].which);
    }
    /* the exact angle case: sqrt(3)/(1 + sqrt(3)) */
    const double v[2] = {1e-3, 0}, dv[2] = {-1e-3, 1e-3};
    CHECK_ABS(ccb_tals_alpha(&p, v, dv, NULL), sqrt(3.0) / (1.0 + sqrt(3.0)), 1e-12,
              "closed form of the 60 degree limit");
    /* alpha always in (0, 1] on random inputs; the limited update turns by <= theta_max */
    for (int t = 0; t < 20000; ++t) {
        const double s = loguniform(1e-6, 1e-1);
        const double vv[2] = {uniform(-1, 1) * s, uniform(-1, 1) * s};
        const double d[2] = {uniform(-1, 1) * loguniform(1e-7, 1e-1),
                             uniform(-1, 1) * loguniform(1e-7, 1e-1)};
        ccb_tals_case w;
        const double a = ccb_tals_alpha(&p, vv, d, &w);
        CHECK(w != CCB_TALS_FAILED && a > 0 && a <= 1.0,
              "alpha = %g out of (0, 1] (case %d) for v = (%g, %g), dv = (%g, %g)", a, (int)w,
              vv[0], vv[1], d[0], d[1]);
        if (w == CCB_TALS_ANGLE) {
            const double v1[2] = {vv[0] + a * d[0], vv[1] + a * d[1]};
            const double c =
                (vv[0] * v1[0] + vv[1] * v1[1]) / (hypot(vv[0], vv[1]) * hypot(v1[0], v1[1]));
            CHECK_ABS(c, cos(p.theta_max), 1e-9,
                      "limited turn equals theta_max (round-off of "
                      "the squared-cosine quadratic)");
        }
    }
}

/* ---- TAMSI ------------------------------------------------------------------------------------
 * */

typedef struct pm {
    double m, A[9], J[9], vstar[3], v0[3], b[3];
    ccb_contact_input in;
    ccb_problem_params prm;
    ccb_step_context step;
} pm;

static ccb_status set_pm(ccb_problem* pb, const pm* p) {
    const int nv = 3;
    ccb_raw_contact rc;
    rc.clique[0] = 0;
    rc.clique[1] = -1;
    rc.J[0] = p->J;
    rc.J[1] = NULL;
    memcpy(rc.b, p->b, sizeof rc.b);
    rc.in = p->in;
    return ccb_problem_set_raw(pb, &ccb_approx_lagged, &p->prm, &p->step, 1, &nv, p->A, p->vstar,
                               p->v0, 1, &rc);
}

/* A point mass with one frictionless Hunt & Crossley contact has the closed-form TAMSI step:
 * with J a rotation, vc = vc* + (h/m) f, so m (vn - vn*) = h (1 - d vn)(fn0 - h k vn), the
 * smaller root of  h^2 d k vn^2 - (m + h^2 k + h d fn0) vn + (m vn* + h fn0) = 0. */
static void test_tamsi_frictionless_exact(void) {
    ccb_problem* pb = NULL;
    ccb_tamsi* ws = NULL;
    CHECK(ccb_problem_create(&pb) == CCB_OK && ccb_tamsi_create(&ws) == CCB_OK, "create");
    for (int trial = 0; trial < 200; ++trial) {
        pm p;
        memset(&p, 0, sizeof p);
        p.m = loguniform(0.1, 10);
        memset(p.A, 0, sizeof p.A);
        p.A[0] = p.A[4] = p.A[8] = p.m;
        random_rotation(p.J);
        memset(p.b, 0, sizeof p.b);
        p.prm = ccb_problem_params_default();
        const double h = loguniform(1e-4, 1e-2);
        p.step = (ccb_step_context){0.0, h, 1e-4};
        p.in.k = loguniform(1e3, 1e6);
        p.in.d = trial % 2 ? loguniform(1e-2, 10) : 0.0;
        p.in.tau_d = 0;
        p.in.mu = 0;
        p.in.phi0 = -loguniform(1e-5, 1e-2);
        p.in.vn0 = 0;
        p.in.w = 0;
        p.in.mu2 = 0;
        /* v* with an approaching normal velocity */
        double vcs[3] = {uniform(-1, 1), uniform(-1, 1), -loguniform(1e-3, 1)};
        for (int j = 0; j < 3; ++j) { /* v* = J^T vc* */
            p.vstar[j] = p.J[j] * vcs[0] + p.J[3 + j] * vcs[1] + p.J[6 + j] * vcs[2];
            p.v0[j] = p.vstar[j];
        }
        CHECK(set_pm(pb, &p) == CCB_OK, "set_raw: %s", ccb_problem_last_error(pb));
        ccb_tamsi_params tp = ccb_tamsi_params_default();
        tp.max_iterations = 50;
        double v[3];
        ccb_tamsi_stats st;
        const ccb_status s = ccb_tamsi_solve(ws, pb, &tp, NULL, v, &st);
        CHECK(s == CCB_OK, "trial %d: %s", trial, ccb_tamsi_last_error(ws));
        const double fn0 = -p.in.k * p.in.phi0, k = p.in.k, d = p.in.d, m = p.m;
        double vn;
        if (d > 0) {
            const double a = h * h * d * k, b = -(m + h * h * k + h * d * fn0),
                         c = m * vcs[2] + h * fn0;
            vn = 2 * c / (-b + sqrt(b * b - 4 * a * c));
        } else {
            vn = (m * vcs[2] + h * fn0) / (m + h * h * k);
        }
        double vc[3];
        ccb_problem_contact_velocity(pb, 0, v, vc);
        CHECK_ABS(vc[2], vn, TOL_SOLVE * fmax(1.0, fabs(vn)), "closed-form normal velocity");
        CHECK_ABS(vc[0], vcs[0], TOL_SOLVE, "frictionless: tangential velocity unchanged");
        CHECK_ABS(vc[1], vcs[1], TOL_SOLVE, "frictionless: tangential velocity unchanged");
        CHECK(st.substeps == 1 && st.iterations >= 1, "one attempt, >= 1 iteration");
    }
    ccb_tamsi_destroy(ws);
    ccb_problem_destroy(pb);
}

/* Three point masses, six contacts (each mass on the ground and on its neighbours). */
typedef struct multi {
    double A[27], vstar[9], v0[9], J[6][2][9];
    int nv[3];
    ccb_raw_contact rc[6];
    ccb_problem_params prm;
    ccb_step_context step;
} multi;

static void random_multi(multi* M, double h) {
    for (int c = 0; c < 3; ++c) {
        M->nv[c] = 3;
        const double m = loguniform(0.2, 5);
        for (int k = 0; k < 9; ++k) {
            M->A[9 * c + k] = (k % 4 == 0) ? m : 0.0;
        }
    }
    for (int j = 0; j < 9; ++j) {
        M->v0[j] = uniform(-1, 1) * 1e-2;
        M->vstar[j] = M->v0[j] + uniform(-1, 1) * 1e-2;
    }
    M->prm = ccb_problem_params_default();
    M->step = (ccb_step_context){0.0, h, 1e-4};
    const int pairs[6][2] = {{0, -1}, {1, -1}, {2, -1}, {0, 1}, {1, 2}, {2, 0}};
    for (int i = 0; i < 6; ++i) {
        ccb_raw_contact* rc = &M->rc[i];
        memset(rc, 0, sizeof *rc);
        rc->clique[0] = pairs[i][0];
        rc->clique[1] = pairs[i][1];
        random_rotation(M->J[i][0]);
        rc->J[0] = M->J[i][0];
        if (pairs[i][1] >= 0) {
            random_rotation(M->J[i][1]);
            for (int k = 0; k < 9; ++k) {
                M->J[i][1][k] = -M->J[i][1][k];
            }
            rc->J[1] = M->J[i][1];
        }
        for (int r = 0; r < 3; ++r) {
            rc->b[r] = uniform(-1, 1) * 1e-3;
        }
        rc->in.k = loguniform(1e3, 1e5);
        rc->in.d = loguniform(1e-2, 1);
        rc->in.mu = uniform(0.2, 1.2);
        rc->in.phi0 = -loguniform(1e-5, 1e-3);
        rc->in.vn0 = uniform(-1, 1) * 1e-3;
    }
}

/* dr/dv of eq. 23 against central differences of the residual, every friction model, both
 * couplings (the one-way Jacobian omits the normal terms, which are also absent from its r). */
static void test_tamsi_jacobian_fd(void) {
    ccb_problem* pb = NULL;
    ccb_tamsi* ws = NULL;
    CHECK(ccb_problem_create(&pb) == CCB_OK && ccb_tamsi_create(&ws) == CCB_OK, "create");
    for (int trial = 0; trial < 40; ++trial) {
        multi M;
        random_multi(&M, loguniform(1e-3, 1e-2));
        M.step.vs = 1e-2; /* slip velocities of the random state are O(1e-2): both branches */
        CHECK(ccb_problem_set_raw(pb, &ccb_approx_lagged, &M.prm, &M.step, 3, M.nv, M.A, M.vstar,
                                  M.v0, 6, M.rc) == CCB_OK,
              "set_raw: %s", ccb_problem_last_error(pb));
        const double vs = M.step.vs;
        ccb_tamsi_params tp = ccb_tamsi_params_default();
        tp.friction = (ccb_friction_model)(trial % CCB_FRICTION_NMODELS);
        tp.coupling = trial % 5 == 4 ? CCB_TAMSI_ONE_WAY : CCB_TAMSI_TWO_WAY;
        double v[9], r0[9], J[81], rp[9], rm[9], Jtmp[81];
        for (int j = 0; j < 9; ++j) {
            v[j] = M.v0[j] + uniform(-1, 1) * 1e-2;
        }
        CHECK(ccb_tamsi_eval(ws, pb, &tp, v, r0, J) == CCB_OK, "eval");
        int kink = 0; /* skip states within 1e-3 of a branch point of mu~ */
        for (int i = 0; i < 6; ++i) {
            double vc[3];
            ccb_problem_contact_velocity(pb, i, v, vc);
            const double s = sqrt(vc[0] * vc[0] + vc[1] * vc[1] + 1e-8 * vs * vs) / vs;
            kink |= fabs(s - 1.0) < 1e-3;
        }
        if (kink) {
            continue;
        }
        double scale = 0;
        for (int k = 0; k < 81; ++k) {
            scale = fmax(scale, fabs(J[k]));
        }
        for (int j = 0; j < 9; ++j) {
            const double e = 1e-6 * 1e-2;
            double vp[9], vm[9];
            memcpy(vp, v, sizeof v);
            memcpy(vm, v, sizeof v);
            vp[j] += e;
            vm[j] -= e;
            ccb_tamsi_eval(ws, pb, &tp, vp, rp, Jtmp);
            ccb_tamsi_eval(ws, pb, &tp, vm, rm, Jtmp);
            for (int i = 0; i < 9; ++i) {
                CHECK_ABS(J[9 * i + j] / scale, (rp[i] - rm[i]) / (2 * e) / scale, TOL_FD,
                          "central difference of r (eq. 21) vs eq. 23");
            }
        }
    }
    ccb_tamsi_destroy(ws);
    ccb_problem_destroy(pb);
}

/* The UMFPACK path and the dense LU path give the same step; both satisfy r = 0. */
static void test_tamsi_umfpack_vs_dense(void) {
    ccb_problem* pb = NULL;
    ccb_tamsi* ws = NULL;
    CHECK(ccb_problem_create(&pb) == CCB_OK && ccb_tamsi_create(&ws) == CCB_OK, "create");
    long an0 = 0;
    for (int trial = 0; trial < 30; ++trial) {
        multi M;
        random_multi(&M, 1e-3);
        CHECK(ccb_problem_set_raw(pb, &ccb_approx_lagged, &M.prm, &M.step, 3, M.nv, M.A, M.vstar,
                                  M.v0, 6, M.rc) == CCB_OK,
              "set_raw");
        ccb_tamsi_params tp = ccb_tamsi_params_default();
        tp.max_iterations = 100;
        double vd[9], vu[9];
        tp.linear_solver = CCB_TAMSI_LU_DENSE;
        const ccb_status sd = ccb_tamsi_solve(ws, pb, &tp, NULL, vd, NULL);
        tp.linear_solver = CCB_TAMSI_LU_UMFPACK;
        const ccb_status su = ccb_tamsi_solve(ws, pb, &tp, NULL, vu, NULL);
        CHECK(sd == CCB_OK && su == CCB_OK, "trial %d: dense %d, umfpack %d: %s", trial, (int)sd,
              (int)su, ccb_tamsi_last_error(ws));
        for (int j = 0; j < 9; ++j) {
            CHECK_ABS(vu[j], vd[j], TOL_SOLVE,
                      "UMFPACK vs dense LU: same Newton iterates up to "
                      "round-off");
        }
        if (trial == 0) {
            ccb_tamsi_counters(ws, &an0, NULL);
        }
    }
    long an = 0, fac = 0;
    ccb_tamsi_counters(ws, &an, &fac);
    CHECK(an == an0, "UMFPACK symbolic analysis reused for an unchanged pattern (%ld vs %ld)", an,
          an0);
    CHECK(fac > 0, "factorizations counted");
    ccb_tamsi_destroy(ws);
    ccb_problem_destroy(pb);
}

/* The stick-slip box's slide-to-stick step (cases.md §7.2): a 1-dof mass m = 0.33 kg sliding at
 * v0 = 0.05808 m/s, h = 10 ms, force 4 sin(2 pi 0.45) N, LIN friction with W = m 9.8, mu = 1.
 * Without TALS Newton cycles across the stiction band (paper Fig. 2); with TALS it converges. */
static void box_problem(ccb_problem* pb) {
    const double m = 0.33, g = 9.8, h = 0.01, v0 = 0.05808;
    double A[9] = {m, 0, 0, 0, m, 0, 0, 0, m};
    const double f = 4.0 * sin(2.0 * CCB_PI * 0.45); /* the force at the end of the step, as in
                                                        implicit Euler */
    double vstar[3] = {v0 + h * f / m, 0, 0}, vv0[3] = {v0, 0, 0};
    const double J[9] = {1, 0, 0, 0, 1, 0, 0, 0, 0.0};
    ccb_raw_contact rc;
    memset(&rc, 0, sizeof rc);
    rc.clique[0] = 0;
    rc.clique[1] = -1;
    rc.J[0] = J;
    rc.in.k = 1e5;
    rc.in.mu = 1.0;
    rc.in.phi0 = -m * g / rc.in.k; /* fn = W with the normal row zero (z locked) */
    const ccb_problem_params prm = ccb_problem_params_default();
    const ccb_step_context step = {0.0, h, 1e-4};
    const int nv = 3;
    CHECK(ccb_problem_set_raw(pb, &ccb_approx_lagged, &prm, &step, 1, &nv, A, vstar, vv0, 1, &rc) ==
              CCB_OK,
          "set_raw: %s", ccb_problem_last_error(pb));
}

static void test_tamsi_tals_box(void) {
    ccb_problem* pb = NULL;
    ccb_tamsi* ws = NULL;
    CHECK(ccb_problem_create(&pb) == CCB_OK && ccb_tamsi_create(&ws) == CCB_OK, "create");
    box_problem(pb);
    ccb_tamsi_params tp = ccb_tamsi_params_default();
    tp.friction = CCB_FRICTION_LIN;
    tp.max_substeps = 1;
    tp.tals = 0;
    tp.max_iterations = 20;
    ccb_tamsi_stats st;
    double v[3];
    CHECK(ccb_tamsi_solve(ws, pb, &tp, NULL, v, &st) == CCB_E_NOTCONV,
          "plain Newton cycles (cases.md §7.2)");
    int n = 0;
    const ccb_tamsi_iter* hist = ccb_tamsi_history(ws, &n);
    CHECK(n == 20 && hist != NULL, "history kept after failure (%d iterations)", n);
    CHECK(strlen(ccb_tamsi_last_error(ws)) > 0, "failure message");
    tp.tals = 1;
    CHECK(ccb_tamsi_solve(ws, pb, &tp, NULL, v, &st) == CCB_OK, "TALS converges: %s",
          ccb_tamsi_last_error(ws));
    CHECK(st.iterations <= 8, "TALS converges within 8 iterations (%d)", st.iterations);
    CHECK(fabs(v[0]) < 1e-4, "ends in stiction: |v| = %g < v_s", fabs(v[0]));
    /* substeps rescue the plain Newton iteration? Not guaranteed; they must at least either
     * succeed or report the retries. */
    tp.tals = 0;
    tp.max_substeps = 20;
    const ccb_status s = ccb_tamsi_solve(ws, pb, &tp, NULL, v, &st);
    CHECK(s == CCB_OK ? st.substeps > 1 : strstr(ccb_tamsi_last_error(ws), "substeps") != NULL,
          "substeps: status %d, %d substeps: %s", (int)s, st.substeps, ccb_tamsi_last_error(ws));
    ccb_tamsi_destroy(ws);
    ccb_problem_destroy(pb);
}

/* Bad parameters are reported; an allocation failure leaves a usable workspace. */
static void test_tamsi_errors(void) {
    ccb_problem* pb = NULL;
    ccb_tamsi* ws = NULL;
    CHECK(ccb_problem_create(&pb) == CCB_OK && ccb_tamsi_create(&ws) == CCB_OK, "create");
    box_problem(pb);
    ccb_tamsi_params tp = ccb_tamsi_params_default();
    tp.rho = 2;
    CHECK(ccb_tamsi_solve(ws, pb, &tp, NULL, NULL, NULL) == CCB_E_INVALID, "rho > 1 rejected");
    CHECK(strstr(ccb_tamsi_last_error(ws), "rho") != NULL, "message names rho: %s",
          ccb_tamsi_last_error(ws));
    tp = ccb_tamsi_params_default();
    tp.max_iterations = 0;
    CHECK(ccb_tamsi_solve(ws, pb, &tp, NULL, NULL, NULL) == CCB_E_INVALID, "max_iterations 0");
    tp = ccb_tamsi_params_default();
    double guess[3] = {NAN, 0, 0};
    CHECK(ccb_tamsi_solve(ws, pb, &tp, guess, NULL, NULL) == CCB_E_NONFINITE, "NaN guess");
    CHECK(ccb_tamsi_solve(ws, NULL, &tp, NULL, NULL, NULL) == CCB_E_INVALID, "NULL problem");
    /* allocation failures in a fresh workspace: never a crash, always NOMEM or OK */
    for (int k = 0; k < 12; ++k) {
        ccb_tamsi* w2 = NULL;
        ccb_alloc_fail_after(k);
        const ccb_status sc = ccb_tamsi_create(&w2);
        ccb_status s = sc;
        if (sc == CCB_OK) {
            s = ccb_tamsi_solve(w2, pb, &tp, NULL, NULL, NULL);
        }
        ccb_alloc_fail_after(-1);
        CHECK(s == CCB_OK || s == CCB_E_NOMEM, "allocation failure %d: status %d", k, (int)s);
        if (w2) {
            CHECK(ccb_tamsi_solve(w2, pb, &tp, NULL, NULL, NULL) == CCB_OK,
                  "usable after a failed allocation: %s", ccb_tamsi_last_error(w2));
        }
        ccb_tamsi_destroy(w2);
    }
    ccb_tamsi_destroy(ws);
    ccb_problem_destroy(pb);
}

int main(void) {
    RUN(test_friction_models);
    RUN(test_friction_gradient);
    RUN(test_friction_anisotropic);
    RUN(test_tals_table);
    RUN(test_tamsi_frictionless_exact);
    RUN(test_tamsi_jacobian_fd);
    RUN(test_tamsi_umfpack_vs_dense);
    RUN(test_tamsi_tals_box);
    RUN(test_tamsi_errors);
    return TEST_SUMMARY();
}
