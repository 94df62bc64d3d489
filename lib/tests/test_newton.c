/* Unit tests of the Newton solver (lib/src/newton.c, sparse.c, problem.c raw path):
 * formulation-convex §11 facts 5, 6, 7, 14, 15, 16, 17, the CHOLMOD path against the dense
 * reference, symbolic-analysis reuse, failure reporting and allocation-failure injection. */
#include <stdlib.h>

#include "ccb/alloc.h"
#include "ccb/newton.h"
#include "test.h"

/* Tolerances */
/* [solver: eps_r = 1e-12 times kappa(H) <= 2e3 for these point masses (G <= 1/R_t = sqrt(3) m /
 *  sigma), so the solution is accurate to ~2e-9 relative; 1e-8 gives a 5x margin] */
static const double TOL_SOLVER = 1e-8;
static const double TIGHT_EPS_R = 1e-12;
/* [round-off: closed forms evaluated two ways, ~100 operations] */
static const double TOL_ROUND = 1e-12;

/* Built-ins by name where a closed form is specific; generic properties over the registry. */
static const ccb_approx* const APPROX[4] = {&ccb_approx_sap, &ccb_approx_similar,
                                            &ccb_approx_lagged, &ccb_approx_lagged_reg};
#define REGISTRY(i) ccb_approx_get((i) % ccb_approx_count())

typedef struct pm {
    double m, J[9], A[9], b[3], vstar[3], v0[3];
    ccb_contact_input in;
    ccb_problem_params prm;
    ccb_step_context step;
} pm;

/* A point mass (A = m I) with one contact whose Jacobian is a rotation (formulation-convex §11
 * notation). */
static pm random_point_mass(double vscale) {
    pm p;
    memset(&p, 0, sizeof p);
    p.m = loguniform(0.1, 10.0);
    random_rotation(p.J);
    memset(p.A, 0, sizeof p.A);
    p.A[0] = p.A[4] = p.A[8] = p.m;
    p.prm = ccb_problem_params_default();
    p.step = (ccb_step_context){0.0, loguniform(1e-3, 2e-2), 1e-4};
    p.in.k = loguniform(1e4, 1e7);
    p.in.d = loguniform(1e-1, 1e2);
    p.in.tau_d = loguniform(1e-4, 1e-2);
    p.in.mu = uniform(0.2, 1.5);
    p.in.phi0 = uniform(-3, 1) * 9.81 * p.m / p.in.k;
    p.in.vn0 = uniform(-0.1, 0.1);
    p.in.w = 0;
    for (int i = 0; i < 3; ++i) {
        p.b[i] = uniform(-1, 1) * vscale;
        p.v0[i] = uniform(-1, 1) * vscale;
        p.vstar[i] = p.v0[i] + uniform(-1, 1) * vscale;
    }
    return p;
}

static ccb_status set_pm(ccb_problem* pb, const ccb_approx* ap, const pm* p) {
    const int nv = 3;
    ccb_raw_contact rc;
    rc.clique[0] = 0;
    rc.clique[1] = -1;
    rc.J[0] = p->J;
    rc.J[1] = NULL;
    memcpy(rc.b, p->b, sizeof rc.b);
    rc.in = p->in;
    return ccb_problem_set_raw(pb, ap, &p->prm, &p->step, 1, &nv, p->A, p->vstar, p->v0, 1, &rc);
}

/* Problem + solver workspace used by every test. */
typedef struct fixture {
    ccb_problem* pb;
    ccb_newton* nw;
} fixture;

static fixture fixture_make(void) {
    fixture f = {NULL, NULL};
    CHECK(ccb_problem_create(&f.pb) == CCB_OK && ccb_newton_create(&f.nw) == CCB_OK, "create");
    return f;
}

static void fixture_free(fixture* f) {
    ccb_newton_destroy(f->nw);
    ccb_problem_destroy(f->pb);
}

/* Contact frame = coordinates (J = I) and no bias. */
static void pm_identity(pm* p) {
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(p->J, I, sizeof I);
    memset(p->b, 0, sizeof p->b);
}

/* SAP closed form of fact 5: gamma = P_{F,R'}(y*), R' = R + I/m, v = v* + J^T gamma / m. */
static int sap_closed_form(const ccb_constraint* c, const pm* p, double v[3], double g[3]) {
    const double Rt = c->Rt + 1.0 / p->m, Rn = c->Rn + 1.0 / p->m, mu = c->mu;
    double u[3];
    for (int r = 0; r < 3; ++r) {
        u[r] = p->b[r];
        for (int j = 0; j < 3; ++j) {
            u[r] += p->J[3 * r + j] * p->vstar[j];
        }
    }
    const double y0 = -u[0] / Rt, y1 = -u[1] / Rt, yn = -(u[2] - c->vn_hat) / Rn;
    const double yr = hypot(y0, y1);
    const double mut2 = mu * mu * Rt / Rn, muh = mu * Rt / Rn;
    int region;
    if (yr <= mu * yn) {
        g[0] = y0, g[1] = y1, g[2] = yn;
        region = 0;
    } else if (yn > -muh * yr) {
        const double gn = (yn + muh * yr) / (1 + mut2);
        g[0] = mu * gn * y0 / yr, g[1] = mu * gn * y1 / yr, g[2] = gn;
        region = 1;
    } else {
        g[0] = g[1] = g[2] = 0;
        region = 2;
    }
    for (int j = 0; j < 3; ++j) {
        v[j] = p->vstar[j] + (p->J[j] * g[0] + p->J[3 + j] * g[1] + p->J[6 + j] * g[2]) / p->m;
    }
    return region;
}

/* A random point mass at rest (v0 = 0, the guess), pressed into its contact (phi0 = -1.5 mg/k,
 * J = I) and pushed sideways by `push` times the friction bound (v_t* = push mu g dt). */
static pm pressed_point_mass(double push) {
    pm p = random_point_mass(0.0);
    pm_identity(&p);
    memset(p.v0, 0, sizeof p.v0);
    p.vstar[0] = push * p.in.mu * 9.81 * p.step.dt;
    p.vstar[1] = 0;
    p.vstar[2] = -9.81 * p.step.dt;
    p.in.phi0 = -1.5 * 9.81 * p.m / p.in.k;
    return p;
}

static double vnorm(const double* x, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) {
        s += x[i] * x[i];
    }
    return sqrt(s);
}

static void test_sap_point_mass_closed_form(void) {
    fixture f = fixture_make();
    ccb_problem* pb = f.pb;
    ccb_newton* nw = f.nw;
    ccb_newton_params np = ccb_newton_params_default();
    np.eps_r = TIGHT_EPS_R;
    int hits[3] = {0, 0, 0};
    for (int trial = 0; trial < 3000 && (hits[0] < 10 || hits[1] < 10 || hits[2] < 10); ++trial) {
        pm p = random_point_mass(uniform(0.01, 1.0));
        CHECK(set_pm(pb, &ccb_approx_sap, &p) == CCB_OK, "set_raw: %s", ccb_problem_last_error(pb));
        const ccb_constraint* c = ccb_problem_constraint(pb, 0);
        CHECK_REL(ccb_problem_contact_input(pb, 0)->w, 1.0 / (sqrt(3.0) * p.m), TOL_ROUND, 0,
                  "w = 1/(sqrt(3) m) for a point mass (formulation-convex §4.2)");
        double vx[3], gx[3];
        const int region = sap_closed_form(c, &p, vx, gx);
        if (hits[region] >= 10) {
            continue;
        }
        hits[region]++;
        double v[3];
        ccb_newton_stats st;
        const ccb_status s = ccb_newton_solve(nw, pb, &np, NULL, v, &st);
        CHECK(s == CCB_OK, "solve: %s", ccb_newton_last_error(nw));
        const double scale = vnorm(p.vstar, 3) + vnorm(p.b, 3) + 1e-3;
        for (int j = 0; j < 3; ++j) {
            CHECK_ABS(v[j], vx[j], TOL_SOLVER * scale, "Newton = SAP closed form (fact 5)");
        }
        const double* g = ccb_newton_impulses(nw);
        for (int j = 0; j < 3; ++j) {
            CHECK_ABS(g[j], gx[j], TOL_SOLVER * scale * p.m, "impulse = closed form (fact 5)");
        }
    }
    CHECK(hits[0] >= 10 && hits[1] >= 10 && hits[2] >= 10,
          "all three SAP regions exercised (stiction %d, sliding %d, separation %d)", hits[0],
          hits[1], hits[2]);
    fixture_free(&f);
}

/* Fact 6: Lagged point mass decouples into a scalar normal and a scalar tangential equation. */
static double bisect(double (*f)(double, const void*), const void* ctx, double lo, double hi) {
    for (int i = 0; i < 400 && hi - lo > 0; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi) {
            break;
        }
        if (f(mid, ctx) > 0) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return 0.5 * (lo + hi);
}

typedef struct lag_ctx {
    const ccb_constraint* c;
    double m, vstar, sstar;
} lag_ctx;

static double normal_eq(double v, const void* p) {
    const lag_ctx* x = p;
    double n;
    ccb_hc_eval(x->c, v, &n, NULL);
    return x->m * (v - x->vstar) - n; /* increasing in v */
}

static double tangent_eq(double s, const void* p) {
    const lag_ctx* x = p;
    const double e = x->c->eps_s;
    return x->m * (s - x->sstar) + x->c->mu * x->c->gn0 * s / sqrt(s * s + e * e);
}

static void test_lagged_decoupling(void) {
    fixture f = fixture_make();
    ccb_problem* pb = f.pb;
    ccb_newton* nw = f.nw;
    ccb_newton_params np = ccb_newton_params_default();
    np.eps_r = TIGHT_EPS_R;
    for (int trial = 0; trial < 60; ++trial) {
        pm p = random_point_mass(uniform(0.01, 1.0));
        pm_identity(&p);                     /* contact frame = coordinates */
        p.in.phi0 = -fabs(p.in.phi0) - 1e-7; /* gamma_n0 > 0 */
        const ccb_approx* ap = trial % 2 ? &ccb_approx_lagged : &ccb_approx_lagged_reg;
        CHECK(set_pm(pb, ap, &p) == CCB_OK, "set_raw");
        const ccb_constraint* c = ccb_problem_constraint(pb, 0);
        double v[3];
        CHECK(ccb_newton_solve(nw, pb, &np, NULL, v, NULL) == CCB_OK, "solve: %s",
              ccb_newton_last_error(nw));
        lag_ctx x = {c, p.m, p.vstar[2], hypot(p.vstar[0], p.vstar[1])};
        const double vn = bisect(normal_eq, &x, -1e3, 1e3);
        const double s = bisect(tangent_eq, &x, 0.0, x.sstar);
        const double lambda = x.sstar > 0 ? s / x.sstar : 1.0;
        const double scale = vnorm(p.vstar, 3) + 1e-3;
        CHECK_ABS(v[2], vn, TOL_SOLVER * scale, "Lagged normal: m (v_n - v_n*) = n(v_n) (fact 6)");
        CHECK_ABS(v[0], lambda * p.vstar[0], TOL_SOLVER * scale, "Lagged v_t = lambda v_t*");
        CHECK_ABS(v[1], lambda * p.vstar[1], TOL_SOLVER * scale, "Lagged v_t = lambda v_t*");
        CHECK(lambda > 0 && lambda <= 1, "lambda in (0, 1] (got %g)", lambda);
    }
    fixture_free(&f);
}

/* Fact 7: frictionless, undamped: SAP = Lagged = Similar. */
static void test_frictionless_equivalence(void) {
    fixture f = fixture_make();
    ccb_problem* pb = f.pb;
    ccb_newton* nw = f.nw;
    ccb_newton_params np = ccb_newton_params_default();
    np.eps_r = TIGHT_EPS_R;
    for (int trial = 0; trial < 40; ++trial) {
        pm p = random_point_mass(uniform(0.01, 1.0));
        p.in.mu = 0, p.in.d = 0, p.in.tau_d = 0;
        p.prm.approx.beta = 0;
        double v[3][3], g[3][3], cost[3];
        for (int a = 0; a < 3; ++a) {
            CHECK(set_pm(pb, APPROX[a], &p) == CCB_OK, "set_raw");
            ccb_newton_stats st;
            CHECK(ccb_newton_solve(nw, pb, &np, NULL, v[a], &st) == CCB_OK, "solve");
            memcpy(g[a], ccb_newton_impulses(nw), sizeof g[a]);
            cost[a] = st.cost;
            const double* vc = ccb_newton_contact_velocities(nw);
            const double gap = -(p.in.phi0 + p.step.dt * vc[2]);
            CHECK_ABS(g[a][2], p.step.dt * p.in.k * (gap > 0 ? gap : 0),
                      TOL_SOLVER * p.m * (vnorm(p.vstar, 3) + vnorm(p.b, 3)),
                      "gamma_n = dt k (-(phi0 + dt v_n))_+ (fact 7)");
        }
        const double scale = vnorm(p.vstar, 3) + vnorm(p.b, 3);
        for (int a = 1; a < 3; ++a) {
            for (int j = 0; j < 3; ++j) {
                CHECK_ABS(v[a][j], v[0][j], TOL_SOLVER * scale, "same v for SAP/Similar/Lagged");
                CHECK_ABS(g[a][j], g[0][j], TOL_SOLVER * scale * p.m, "same gamma");
            }
            /* ccb's l_n is the spec's -N shifted by N(vhat) = -1/2 k phi0^2 in the active
             * region, so the costs agree exactly instead of differing by 1/2 k phi0^2 */
            CHECK_REL(cost[a], cost[0], 1e-7, 1e-12, "same cost (ccb normalization of l_n)");
        }
    }
    /* Similar = Lagged normal impulse when v_t = 0 */
    for (int trial = 0; trial < 20; ++trial) {
        pm p = random_point_mass(0.3);
        pm_identity(&p);
        p.vstar[0] = p.vstar[1] = p.v0[0] = p.v0[1] = 0;
        double v[2][3];
        const ccb_approx* ap2[2] = {&ccb_approx_similar, &ccb_approx_lagged};
        for (int a = 0; a < 2; ++a) {
            set_pm(pb, ap2[a], &p);
            CHECK(ccb_newton_solve(nw, pb, &np, NULL, v[a], NULL) == CCB_OK, "solve");
        }
        CHECK_ABS(v[0][2], v[1][2], TOL_SOLVER * (vnorm(p.vstar, 3) + vnorm(p.b, 3) + 1e-3),
                  "Similar = Lagged when v_t = 0 (fact 7)");
    }
    fixture_free(&f);
}

/* Fact 14: separation; fact 15: one iteration in a quadratic region. */
static void test_separation_and_quadratic(void) {
    fixture f = fixture_make();
    ccb_problem* pb = f.pb;
    ccb_newton* nw = f.nw;
    ccb_newton_params np = ccb_newton_params_default();
    for (int a = 0; a < ccb_approx_count(); ++a) {
        pm p = random_point_mass(0.1);
        pm_identity(&p);
        p.in.phi0 = 1e-3;
        p.vstar[2] = 0.5; /* separating fast */
        set_pm(pb, REGISTRY(a), &p);
        double v[3];
        ccb_newton_stats st;
        CHECK(ccb_newton_solve(nw, pb, &np, p.vstar, v, &st) == CCB_OK, "solve");
        CHECK(st.iterations == 0, "%s: separation from v* needs 0 iterations (got %d)",
              REGISTRY(a)->name, st.iterations);
        for (int j = 0; j < 3; ++j) {
            CHECK(v[j] == p.vstar[j], "separation: v = v* exactly");
            CHECK(ccb_newton_impulses(nw)[j] == 0.0, "separation: gamma = 0");
        }
    }
    /* SAP at rest, pressed (phi0 = -1.5 mg/k) and pushed sideways by less than the friction
     * bound (|v_t*| = 0.1 mu g dt): the guess v0 = 0 and the solution are both in stiction, so
     * the cost is quadratic on the segment between them */
    for (int trial = 0; trial < 20; ++trial) {
        pm p = pressed_point_mass(0.1);
        set_pm(pb, &ccb_approx_sap, &p);
        ccb_newton_stats st;
        CHECK(ccb_newton_solve(nw, pb, &np, NULL, NULL, &st) == CCB_OK, "solve");
        int nh = 0;
        const ccb_newton_iter* h = ccb_newton_history(nw, &nh);
        CHECK(st.iterations == 1 && nh == 1, "quadratic region: 1 iteration (got %d)",
              st.iterations);
        if (nh >= 1) {
            CHECK_ABS(h[0].alpha, 1.0, 1e-8, "exact line search returns alpha = 1 (fact 15)");
        }
    }
    fixture_free(&f);
}

/* A random multi-clique problem: 3 cliques of 3 dofs with SPD blocks, 6 contacts, two of them
 * coupling two cliques. */
typedef struct multi {
    int nv[3];
    double A[27], vstar[9], v0[9], J[12][9];
    ccb_raw_contact rc[6];
    ccb_problem_params prm;
    ccb_step_context step;
} multi;

static void random_multi(multi* M, double vscale) {
    M->prm = ccb_problem_params_default();
    M->step = (ccb_step_context){0.0, loguniform(1e-3, 2e-2), 1e-4};
    for (int c = 0; c < 3; ++c) {
        M->nv[c] = 3;
        double B[9];
        for (int i = 0; i < 9; ++i) {
            B[i] = uniform(-1, 1);
        }
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                double s = (i == j) ? 0.5 : 0.0;
                for (int k = 0; k < 3; ++k) {
                    s += B[3 * i + k] * B[3 * j + k];
                }
                M->A[9 * c + 3 * i + j] = s;
            }
        }
    }
    for (int i = 0; i < 9; ++i) {
        M->v0[i] = uniform(-1, 1) * vscale;
        M->vstar[i] = M->v0[i] + uniform(-1, 1) * vscale;
    }
    const int cl[6][2] = {{0, -1}, {1, -1}, {2, -1}, {0, 1}, {2, 1}, {0, -1}};
    for (int i = 0; i < 6; ++i) {
        ccb_raw_contact* r = &M->rc[i];
        r->clique[0] = cl[i][0];
        r->clique[1] = cl[i][1];
        for (int k = 0; k < 2; ++k) {
            random_rotation(M->J[2 * i + k]);
            r->J[k] = M->J[2 * i + k];
        }
        for (int j = 0; j < 3; ++j) {
            r->b[j] = uniform(-1, 1) * vscale;
        }
        r->in.k = loguniform(1e3, 1e6);
        r->in.d = loguniform(1e-1, 1e2);
        r->in.tau_d = loguniform(1e-4, 1e-2);
        r->in.mu = uniform(0.1, 1.5);
        r->in.phi0 = uniform(-1e-2, 1e-3);
        r->in.vn0 = uniform(-0.5, 0.5);
        r->in.w = 0;
        r->in.mu2 = 0; /* isotropic */
    }
}

static ccb_status set_multi(ccb_problem* pb, const ccb_approx* ap, const multi* M) {
    return ccb_problem_set_raw(pb, ap, &M->prm, &M->step, 3, M->nv, M->A, M->vstar, M->v0, 6,
                               M->rc);
}

/* Facts 16 and 17, and CHOLMOD against the dense path. */
static void test_descent_convergence_and_backends(void) {
    fixture f = fixture_make();
    ccb_problem* pb = f.pb;
    ccb_newton* nw = f.nw;
    ccb_newton* nd = NULL;
    ccb_newton_create(&nd);
    for (int trial = 0; trial < 40; ++trial) {
        multi M;
        random_multi(&M, uniform(0.05, 2.0));
        const ccb_approx* ap = REGISTRY(trial);
        CHECK(set_multi(pb, ap, &M) == CCB_OK, "set_raw: %s", ccb_problem_last_error(pb));
        ccb_newton_params np = ccb_newton_params_default();
        np.eps_r = TIGHT_EPS_R;
        /* watch every iterate (fact 16) */
        CHECK(ccb_newton_init(nw, pb, &np, NULL) == CCB_OK, "init");
        double prev = ccb_newton_get_stats(nw).cost;
        ccb_status s;
        while ((s = ccb_newton_test(nw)) == CCB_CONTINUE) {
            CHECK(ccb_newton_iterate(nw) == CCB_OK, "%s: iterate: %s", ap->name,
                  ccb_newton_last_error(nw));
            int nh;
            const ccb_newton_iter* h = ccb_newton_history(nw, &nh);
            CHECK(h[nh - 1].slope < 0, "descent direction l'(0) < 0 (fact 16)");
            const double cost = ccb_newton_get_stats(nw).cost;
            const double slop = 1000 * 2.2e-16 * fmax(1.0, 0.5 * (fabs(cost) + fabs(prev)));
            CHECK(cost <= prev + slop, "%s: monotone cost (fact 16): %.17g > %.17g", ap->name, cost,
                  prev);
            prev = cost;
        }
        CHECK(s == CCB_OK, "%s: converged (%s)", ap->name, ccb_newton_last_error(nw));
        /* fact 17: independent momentum balance at exit */
        const ccb_newton_stats st = ccb_newton_get_stats(nw);
        CHECK(st.residual <= st.tolerance || st.by_cost, "stopping criterion holds at exit");
        const double* v = ccb_newton_velocities(nw);
        const double* g = ccb_newton_impulses(nw);
        double r[9] = {0}, p[9] = {0}, j[9] = {0};
        for (int c = 0; c < 3; ++c) {
            for (int a = 0; a < 3; ++a) {
                for (int b = 0; b < 3; ++b) {
                    r[3 * c + a] += M.A[9 * c + 3 * a + b] * (v[3 * c + b] - M.vstar[3 * c + b]);
                    /* default scale: momentum change of the step, A (v - v0) */
                    p[3 * c + a] += M.A[9 * c + 3 * a + b] * (v[3 * c + b] - M.v0[3 * c + b]);
                }
            }
        }
        for (int i = 0; i < 6; ++i) {
            for (int k = 0; k < 2 && M.rc[i].clique[k] >= 0; ++k) {
                const int c = M.rc[i].clique[k];
                for (int a = 0; a < 3; ++a) {
                    for (int row = 0; row < 3; ++row) {
                        j[3 * c + a] += M.rc[i].J[k][3 * row + a] * g[3 * i + row];
                    }
                }
            }
        }
        double nr = 0, npp = 0, nj = 0;
        for (int k = 0; k < 9; ++k) {
            const double d = 1.0 / sqrt(M.A[9 * (k / 3) + 4 * (k % 3)]);
            nr += pow(d * (r[k] - j[k]), 2);
            npp += pow(d * p[k], 2);
            nj += pow(d * j[k], 2);
        }
        const double tol = np.eps_a + np.eps_r * fmax(sqrt(npp), sqrt(nj));
        CHECK(sqrt(nr) <= tol * (1 + 1e-6) + 1e-15 || st.by_cost,
              "momentum balance A(v - v*) = J^T gamma to the tolerance (fact 17): %g > %g",
              sqrt(nr), tol);
        /* dense reference path gives the same solution */
        ccb_newton_params npd = np;
        npd.linear_solver = CCB_LINSOLVE_DENSE;
        double vd[9];
        CHECK(ccb_newton_solve(nd, pb, &npd, NULL, vd, NULL) == CCB_OK, "dense solve");
        for (int k = 0; k < 9; ++k) {
            CHECK_ABS(v[k], vd[k], TOL_SOLVER * (vnorm(M.vstar, 9) + 1.0),
                      "CHOLMOD and dense Cholesky agree");
        }
        /* and the block back-end */
        npd.linear_solver = CCB_LINSOLVE_BLOCK;
        CHECK(ccb_newton_solve(nd, pb, &npd, NULL, vd, NULL) == CCB_OK, "block solve");
        for (int k = 0; k < 9; ++k) {
            CHECK_ABS(v[k], vd[k], TOL_SOLVER * (vnorm(M.vstar, 9) + 1.0),
                      "CHOLMOD and block Cholesky agree");
        }
    }
    ccb_newton_destroy(nd);
    fixture_free(&f);
}

/* Far contacts at the edge of the test (newton.c): one velocity (A = m, J = the normal), so the
 * bound h on how far an iterate can move a contact's velocity is attained exactly, |J dv| = h.
 * The particle would fall at v* = -1 m/s onto a contact whose inactive radius r about v0 = 0 is a
 * fraction phi0/dt in (0.5, 1) of that first step: the first Newton step crosses it, so the
 * contact must be promoted then (h >= r) and the solve equal the one that evaluates every contact
 * [exact: bit for bit], with the contact active at the solution. A test that waited for h >= 2 r
 * would step through the contact (the mutant far-contact of CI/mutate.sh). */
static void test_far_contact_edge(void) {
    fixture f = fixture_make();
    ccb_newton* na = NULL;
    ccb_newton_create(&na);
    const double fr[3] = {0.55, 0.7, 0.9};
    int tested = 0;
    for (int a = 0; a < ccb_approx_count(); ++a) {
        const ccb_approx* ap = ccb_approx_get(a);
        for (int c = 0; c < 3; ++c) {
            const ccb_problem_params prm = ccb_problem_params_default();
            const ccb_step_context step = {0.0, 1e-2, 1e-4};
            const int nv = 1;
            const double A = 2.0, vstar = -1.0, v0 = 0.0, J[3] = {0, 0, 1};
            ccb_raw_contact rc;
            memset(&rc, 0, sizeof rc);
            rc.clique[0] = 0;
            rc.clique[1] = -1;
            rc.J[0] = J;
            rc.in = (ccb_contact_input){1e6, 0.0, 0.0, 0.5, fr[c] * step.dt, 0.0, 0.0, 0.0};
            CHECK(ccb_problem_set_raw(f.pb, ap, &prm, &step, 1, &nv, &A, &vstar, &v0, 1, &rc) ==
                      CCB_OK,
                  "set_raw: %s", ccb_problem_last_error(f.pb));
            double vc0[3];
            ccb_problem_contact_velocity(f.pb, 0, &v0, vc0);
            const double r = ap->inactive_radius
                                 ? ap->inactive_radius(ccb_problem_constraint(f.pb, 0), vc0)
                                 : -1;
            if (!(r > 0.5 && r < 1.0)) {
                continue; /* this law's radius is not in (h/2, h) here */
            }
            ++tested;
            ccb_newton_params np = ccb_newton_params_default(), npa = np;
            npa.evaluate_all = 1;
            double v, va;
            ccb_newton_stats st, sta;
            CHECK(ccb_newton_solve(f.nw, f.pb, &np, NULL, &v, &st) == CCB_OK, "solve");
            CHECK(ccb_newton_solve(na, f.pb, &npa, NULL, &va, &sta) == CCB_OK, "solve, all");
            CHECK(v == va && st.iterations == sta.iterations && st.cost == sta.cost,
                  "%s, phi0 = %g dt (radius %g of the first step 1): v = %.17g against %.17g "
                  "evaluating every contact",
                  ap->name, fr[c], r, v, va);
            CHECK(ccb_newton_impulses(f.nw)[2] > 0, "%s: the contact is active at the solution",
                  ap->name);
        }
    }
    CHECK(tested >= 3, "the edge was tested (%d cases)", tested);
    ccb_newton_destroy(na);
    fixture_free(&f);
}

/* Far contacts (newton.c): leaving out contacts that provably stay inactive gives bit for bit
 * the solve that evaluates every contact at every iterate (same iterates, impulses, cost and
 * history), and contacts that start far and end active are promoted on the way. */
static void test_far_contacts(void) {
    fixture f = fixture_make();
    ccb_newton *na = NULL, *nn = NULL;
    ccb_newton_create(&na);
    ccb_newton_create(&nn);
    int far_total = 0, promoted = 0;
    for (int trial = 0; trial < 200; ++trial) {
        multi M;
        random_multi(&M, uniform(0.05, 2.0));
        for (int i = 0; i < 6; ++i) { /* apart by up to a few steps of motion */
            if (urand() < 0.6) {
                M.rc[i].in.phi0 = uniform(0.0, 3.0) * M.step.dt;
            }
        }
        const ccb_approx* ap = REGISTRY(trial);
        CHECK(set_multi(f.pb, ap, &M) == CCB_OK, "set_raw: %s", ccb_problem_last_error(f.pb));
        ccb_newton_params np = ccb_newton_params_default();
        np.pattern_near = 0; /* the same block pattern in both: bit-identical factorizations */
        ccb_newton_params npa = np;
        npa.evaluate_all = 1;
        double v[9], va[9];
        ccb_newton_stats st, sta;
        CHECK(ccb_newton_solve(f.nw, f.pb, &np, NULL, v, &st) == CCB_OK, "solve");
        CHECK(ccb_newton_solve(na, f.pb, &npa, NULL, va, &sta) == CCB_OK, "solve, all");
        CHECK(sta.nc_far == 0, "evaluate_all leaves no contact out");
        far_total += st.nc_far;
        CHECK(memcmp(v, va, sizeof v) == 0 && st.iterations == sta.iterations &&
                  st.ls_evals == sta.ls_evals && st.cost == sta.cost && st.residual == sta.residual,
              "%s: far contacts change nothing (iterations %d/%d, cost %.17g/%.17g)", ap->name,
              st.iterations, sta.iterations, st.cost, sta.cost);
        const double* g = ccb_newton_impulses(f.nw);
        const double* ga = ccb_newton_impulses(na);
        for (int k = 0; k < 18; ++k) {
            CHECK(g[k] == ga[k], "%s: same impulses", ap->name);
        }
        /* the default pattern (near contacts only) factors the same matrix in another order */
        const ccb_newton_params npn = ccb_newton_params_default();
        double vn[9];
        CHECK(npn.pattern_near == 1, "pattern_near is the default");
        CHECK(ccb_newton_solve(nn, f.pb, &npn, NULL, vn, NULL) == CCB_OK, "solve, near pattern");
        for (int k = 0; k < 9; ++k) {
            CHECK_ABS(vn[k], v[k], TOL_SOLVER * (vnorm(M.vstar, 9) + 1.0),
                      "the near-contact pattern gives the same solution");
        }
        /* contact velocities: bit for bit, except contacts still far at exit (no impulse), whose
         * v_c = J v + b differs from the incremental update by round-off
         * [round-off: a few products of O(1) entries, 1e-12 relative] */
        const double* vc = ccb_newton_contact_velocities(f.nw);
        const double* vca = ccb_newton_contact_velocities(na);
        for (int k = 0; k < 18; ++k) {
            const int free_ = g[k - k % 3] == 0 && g[k - k % 3 + 1] == 0 && g[k - k % 3 + 2] == 0;
            CHECK(vc[k] == vca[k] || (free_ && fabs(vc[k] - vca[k]) <= 1e-12 * (fabs(vca[k]) + 1)),
                  "%s: contact velocity %d: %.17g vs %.17g", ap->name, k / 3, vc[k], vca[k]);
        }
        for (int i = 0; i < 6;
             ++i) { /* far at the start (radius > 0 at J v0 + b), active at the end */
            double vc0[3];
            ccb_problem_contact_velocity(f.pb, i, M.v0, vc0);
            const double r = ap->inactive_radius
                                 ? ap->inactive_radius(ccb_problem_constraint(f.pb, i), vc0)
                                 : -1;
            promoted += r > 0 && (g[3 * i] != 0 || g[3 * i + 1] != 0 || g[3 * i + 2] != 0);
        }
    }
    CHECK(far_total > 50, "far contacts exercised: %d", far_total);
    CHECK(promoted > 10, "far contacts promoted during a solve: %d", promoted);
    ccb_newton_destroy(na);
    ccb_newton_destroy(nn);
    fixture_free(&f);
}

static void test_pattern_reuse_and_kappa(void) {
    fixture f = fixture_make();
    ccb_problem* pb = f.pb;
    ccb_newton* nw = f.nw;
    multi M;
    random_multi(&M, 0.5);
    ccb_newton_params np = ccb_newton_params_default();
    set_multi(pb, &ccb_approx_lagged, &M);
    ccb_newton_stats st1, st2;
    ccb_newton_solve(nw, pb, &np, NULL, NULL, &st1);
    ccb_newton_solve(nw, pb, &np, NULL, NULL, &st2);
    long an = 0, fa = 0;
    ccb_newton_counters(nw, &an, &fa);
    CHECK(an == 1 && st1.analyzed == 1 && st2.analyzed == 0,
          "symbolic analysis reused for an unchanged pattern (analyses %ld)", an);
    CHECK(fa == st1.iterations + st2.iterations, "one factorization per iteration");
    M.rc[4].clique[1] = 0; /* contact 4 now couples cliques 2 and 0: new pattern */
    set_multi(pb, &ccb_approx_lagged, &M);
    ccb_newton_solve(nw, pb, &np, NULL, NULL, &st1);
    ccb_newton_counters(nw, &an, NULL);
    CHECK(an == 2 && st1.analyzed == 1, "a changed pattern is analysed again (%ld)", an);
    /* kappa of a point mass in SAP stiction: eigenvalues m + 1/R_t (twice), m + 1/R_n */
    pm p = random_point_mass(0.0);
    memset(p.b, 0, sizeof p.b);
    memset(p.v0, 0, sizeof p.v0);
    memset(p.vstar, 0, sizeof p.vstar);
    p.in.phi0 = -1e-6;
    set_pm(pb, &ccb_approx_sap, &p);
    np.compute_kappa = 1;
    ccb_newton_stats st;
    CHECK(ccb_newton_solve(nw, pb, &np, NULL, NULL, &st) == CCB_OK, "solve");
    const ccb_constraint* c = ccb_problem_constraint(pb, 0);
    const double e1 = p.m + 1 / c->Rt, e2 = p.m + 1 / c->Rn;
    CHECK_REL(st.kappa, fmax(e1, e2) / fmin(e1, e2), 1e-10, 0,
              "kappa_2(H) = lambda_max/lambda_min (formulation-convex §8.9), LAPACK round-off");
    fixture_free(&f);
}

static void test_failures(void) {
    fixture f = fixture_make();
    ccb_problem* pb = f.pb;
    ccb_newton* nw = f.nw;
    multi M;
    random_multi(&M, 1.0);
    ccb_newton_params np = ccb_newton_params_default();
    np.max_iterations = 1;
    np.eps_r = 1e-14;
    set_multi(pb, &ccb_approx_similar, &M);
    ccb_newton_stats st;
    const ccb_status s = ccb_newton_solve(nw, pb, &np, NULL, NULL, &st);
    CHECK(s == CCB_E_NOTCONV && st.status == CCB_E_NOTCONV && st.iterations == 1,
          "max_iterations reached => CCB_E_NOTCONV, never success (status %d)", (int)s);
    CHECK(strstr(ccb_newton_last_error(nw), "did not converge") != NULL, "message: %s",
          ccb_newton_last_error(nw));
    /* invalid parameters */
    np = ccb_newton_params_default();
    np.eps_r = -1;
    CHECK(ccb_newton_solve(nw, pb, &np, NULL, NULL, NULL) == CCB_E_INVALID &&
              strstr(ccb_newton_last_error(nw), "eps_r"),
          "negative eps_r rejected: %s", ccb_newton_last_error(nw));
    /* non-SPD, non-symmetric, non-finite, bad contact, zero Jacobian */
    const int nv = 2;
    const double Abad[4] = {1, 2, 2, 1}, Aasym[4] = {1, 0.5, 0.4, 1}, Aok[4] = {2, 0, 0, 2};
    const double vs[2] = {0, 0}, vnan[2] = {NAN, 0};
    const double J[6] = {1, 0, 0, 1, 0, 0}, J0[6] = {0};
    ccb_raw_contact rc = {{0, -1}, {J, NULL}, {0, 0, 0}, {1e5, 0, 0, 0.5, -1e-4, 0, 0, 0.0}};
    const ccb_problem_params prm = ccb_problem_params_default();
    ccb_step_context step = {0.0, 0.01, 1e-4};
    CHECK(ccb_problem_set_raw(pb, &ccb_approx_sap, &prm, &step, 1, &nv, Abad, vs, vs, 1, &rc) ==
                  CCB_E_FACTOR &&
              strstr(ccb_problem_last_error(pb), "clique 0"),
          "non-SPD A: %s", ccb_problem_last_error(pb));
    CHECK(ccb_problem_set_raw(pb, &ccb_approx_sap, &prm, &step, 1, &nv, Aasym, vs, vs, 1, &rc) ==
              CCB_E_INVALID,
          "non-symmetric A: %s", ccb_problem_last_error(pb));
    CHECK(ccb_problem_set_raw(pb, &ccb_approx_sap, &prm, &step, 1, &nv, Aok, vnan, vs, 1, &rc) ==
              CCB_E_NONFINITE,
          "NaN v*: %s", ccb_problem_last_error(pb));
    rc.in.k = -1;
    CHECK(ccb_problem_set_raw(pb, &ccb_approx_sap, &prm, &step, 1, &nv, Aok, vs, vs, 1, &rc) ==
                  CCB_E_INVALID &&
              strstr(ccb_problem_last_error(pb), "contact 0"),
          "negative k: %s", ccb_problem_last_error(pb));
    rc.in.k = 1e5;
    rc.J[0] = J0;
    CHECK(ccb_problem_set_raw(pb, &ccb_approx_sap, &prm, &step, 1, &nv, Aok, vs, vs, 1, &rc) ==
              CCB_E_INVALID,
          "zero Jacobian: %s", ccb_problem_last_error(pb));
    step.dt = 0;
    rc.J[0] = J;
    CHECK(ccb_problem_set_raw(pb, &ccb_approx_sap, &prm, &step, 1, &nv, Aok, vs, vs, 1, &rc) ==
                  CCB_E_INVALID &&
              strstr(ccb_problem_last_error(pb), "dt"),
          "dt = 0: %s", ccb_problem_last_error(pb));
    step = (ccb_step_context){0.0, 0.01, NAN};
    CHECK(ccb_problem_set_raw(pb, &ccb_approx_sap, &prm, &step, 1, &nv, Aok, vs, vs, 1, &rc) ==
                  CCB_E_INVALID &&
              strstr(ccb_problem_last_error(pb), "vs"),
          "v_s = NaN: %s", ccb_problem_last_error(pb));
    CHECK(ccb_problem_set_raw(pb, &ccb_approx_sap, &prm, NULL, 1, &nv, Aok, vs, vs, 1, &rc) ==
              CCB_E_INVALID,
          "no step context: %s", ccb_problem_last_error(pb));
    fixture_free(&f);
}

/* The line search ends once its bracket is a few ulps wide, even when the step and residual
 * tolerances are below round-off (formulation-convex §8.4; at extreme stiffness alpha_tol = 1e-8
 * alpha_0 can be smaller than one ulp of the root): with ls_ftol = ls_alpha_rtol = 1e-300 only that
 * test can stop it, and it must do so well inside ls_max_evals (bisection from [0, 1.5] reaches one
 * ulp of alpha in ~55 halvings). */
static void test_line_search_machine_precision(void) {
    fixture f = fixture_make();
    for (int trial = 0; trial < 12; ++trial) {
        multi M;
        random_multi(&M, uniform(0.05, 2.0));
        const ccb_approx* ap = REGISTRY(trial);
        CHECK(set_multi(f.pb, ap, &M) == CCB_OK, "set_raw: %s", ccb_problem_last_error(f.pb));
        ccb_newton_params np = ccb_newton_params_default();
        np.ls_ftol = 1e-300;
        np.ls_alpha_rtol = 1e-300;
        np.ls_max_evals = 100;
        const ccb_status s = ccb_newton_solve(f.nw, f.pb, &np, NULL, NULL, NULL);
        CHECK(s == CCB_OK, "%s: converged with round-off line-search tolerances: %s", ap->name,
              ccb_newton_last_error(f.nw));
        int nh;
        const ccb_newton_iter* h = ccb_newton_history(f.nw, &nh);
        int most = 0;
        for (int i = 0; i < nh; ++i) {
            most = h[i].ls_evals > most ? h[i].ls_evals : most;
        }
        CHECK(most <= 70, "%s: at most 70 line-search evaluations per iteration (%d)", ap->name,
              most);
    }
    fixture_free(&f);
}

/* Every allocation may fail: no crash, NOMEM reported, nothing leaks (CHOLMOD included). */
static void test_allocation_failures(void) {
    multi M;
    random_multi(&M, 0.5);
    int first_success = -1;
    for (long k = 1; k <= 400; ++k) {
        const size_t live0 = ccb_alloc_live_bytes();
        ccb_alloc_fail_after(k);
        ccb_problem* pb = NULL;
        ccb_newton* nw = NULL;
        ccb_status s = ccb_problem_create(&pb);
        if (s == CCB_OK) {
            s = ccb_newton_create(&nw);
        }
        if (s == CCB_OK) {
            s = set_multi(pb, &ccb_approx_sap, &M);
        }
        if (s == CCB_OK) {
            ccb_newton_params np = ccb_newton_params_default();
            np.compute_kappa = 1;
            s = ccb_newton_solve(nw, pb, &np, NULL, NULL, NULL);
        }
        ccb_newton_destroy(nw);
        ccb_problem_destroy(pb);
        ccb_alloc_fail_after(0);
        CHECK(s == CCB_OK || s == CCB_E_NOMEM, "allocation failure %ld: status %d", k, (int)s);
        CHECK(ccb_alloc_live_bytes() == live0, "allocation failure %ld leaked %zu bytes", k,
              ccb_alloc_live_bytes() - live0);
        if (s == CCB_OK) {
            first_success = (int)k;
            break;
        }
    }
    CHECK(first_success > 5, "the solve needs several allocations and eventually succeeds (%d)",
          first_success);
}

/* The statistics of where the iterations go (ccb_newton_stats.stop_term, ratio_prev,
 * state_changes*; `ccb bench --peers`' breakdown): a point mass pressed at rest (guess v0 = 0:
 * stick) and pushed sideways far past the friction bound (|v_t*| = 10 mu g dt: the solution
 * slips), by each approximation. The contact's class changed between the guess and the solution,
 * so at least one change is counted; the test before the last one failed, so its ratio exceeds 1;
 * the bound's term is the larger of |D p| and |D j| recomputed here; counting does not change
 * the solve (bit-identical velocities) and reads -1 when off. */
static void test_iteration_breakdown(void) {
    fixture f = fixture_make();
    ccb_newton_params np = ccb_newton_params_default();
    CHECK(np.count_states == 0, "counting states is a diagnosis: off by default");
    np.count_states = 1;
    np.eps_a = 0; /* the bound is a relative term */
    for (int trial = 0; trial < 4 * ccb_approx_count(); ++trial) {
        const ccb_approx* ap = REGISTRY(trial);
        pm p = pressed_point_mass(10);
        p.in.vn0 = 0;
        CHECK(set_pm(f.pb, ap, &p) == CCB_OK, "set");
        double v[3], v_off[3];
        ccb_newton_stats st, off;
        CHECK(ccb_newton_solve(f.nw, f.pb, &np, NULL, v, &st) == CCB_OK, "%s: solve", ap->name);
        const double *vc = ccb_newton_contact_velocities(f.nw), *g = ccb_newton_impulses(f.nw);
        const double vs = p.step.vs;
        CHECK(g[2] > 0 && hypot(vc[0], vc[1]) > vs, "%s: the solution slips (|v_t| = %g, vs %g)",
              ap->name, hypot(vc[0], vc[1]), vs);
        CHECK(st.iterations >= 1 && st.state_changes >= 1 && st.state_changes_last >= 0 &&
                  st.state_changes_last <= st.state_changes,
              "%s: stick -> slip counted (%d changes, %d in the last of %d iterations)", ap->name,
              st.state_changes, st.state_changes_last, st.iterations);
        CHECK(st.by_cost || st.ratio_prev > 1.0,
              "%s: the iterate before the last failed its test (|Dr|/bound %g)", ap->name,
              st.ratio_prev);
        /* |D p| and |D j| at the solution, D = m^-1/2, p = A (v - v0), j = J^T gamma */
        double pp = 0, jj = 0;
        for (int r = 0; r < 3; ++r) {
            pp += p.m * v[r] * p.m * v[r] / p.m;
            jj += g[r] * g[r] / p.m;
        }
        const int term = pp > jj ? CCB_STOP_TERM_MOMENTUM : CCB_STOP_TERM_IMPULSE;
        CHECK(st.by_cost || fabs(pp - jj) < 1e-6 * (pp + jj) || st.stop_term == term,
              "%s: the bound's term %d, expected %d (|Dp|^2 %g, |Dj|^2 %g)", ap->name, st.stop_term,
              term, pp, jj);
        ccb_newton_params np_off = np;
        np_off.count_states = 0;
        CHECK(ccb_newton_solve(f.nw, f.pb, &np_off, NULL, v_off, &off) == CCB_OK, "solve");
        CHECK(memcmp(v, v_off, sizeof v) == 0 && off.iterations == st.iterations,
              "%s: counting states leaves the solve bit-identical", ap->name);
        CHECK(off.state_changes == -1 && off.state_changes_last == -1, "not counted: -1");
        /* from the solution itself: no iteration, nothing changed, no ratio */
        CHECK(ccb_newton_solve(f.nw, f.pb, &np_off, v, NULL, &off) == CCB_OK, "resolve");
        np_off.eps_a = 1e300; /* the absolute floor sets the bound */
        CHECK(ccb_newton_solve(f.nw, f.pb, &np_off, v, NULL, &st) == CCB_OK, "resolve");
        CHECK(st.iterations == 0 && st.ratio_prev == 0 && st.stop_term == CCB_STOP_TERM_ABSOLUTE,
              "%s: converged at the guess: %d iterations, ratio %g, term %d", ap->name,
              st.iterations, st.ratio_prev, st.stop_term);
    }
    fixture_free(&f);
}

int main(void) {
    RUN(test_sap_point_mass_closed_form);
    RUN(test_lagged_decoupling);
    RUN(test_frictionless_equivalence);
    RUN(test_separation_and_quadratic);
    RUN(test_descent_convergence_and_backends);
    RUN(test_far_contacts);
    RUN(test_far_contact_edge);
    RUN(test_pattern_reuse_and_kappa);
    RUN(test_failures);
    RUN(test_line_search_machine_precision);
    RUN(test_iteration_breakdown);
    RUN(test_allocation_failures);
    return TEST_SUMMARY();
}
