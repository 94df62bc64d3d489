/* Unit tests of the step derivatives (lib/src/deriv.c; spec: formulation-convex §9): the
 * implicit-function-theorem derivative of one step against central finite differences of the
 * converged step (a step-size sweep; the gate of formulation-convex §9.4 is 1e-6 relative at
 * the sweep's best step), for every built-in convex approximation, every input (q0, v0, u, mu,
 * k, d, tau_d, v_s), on a ball sliding and on a ball sticking on a floor; exact zeros for an
 * inactive contact's parameters; the factorization back-ends agree; errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"
#include "test.h"

/* the applied generalized force of the ball (free body: v = (w_W, v_W), so u = (tau_W, f_W)) */
typedef struct load {
    double u[6];
} load;

static void apply_load(double t, const ccb_pose* X, const ccb_twist* V, void* user, ccb_vec3* f,
                       ccb_vec3* tau) {
    (void)t, (void)X, (void)V;
    const load* l = user;
    *tau = ccb_v3(l->u[0], l->u[1], l->u[2]);
    *f = ccb_v3(l->u[3], l->u[4], l->u[5]);
}

typedef struct scene {
    double smu, sk, sd, stau; /* material scales (both sides) */
    int second_ball;          /* 1: a second ball 2 cm above the floor (inside the margin) */
    load ld;
} scene;

static ccb_model* make_model(scene* sc) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def g = ccb_body_def_default();
    g.name = "ground";
    g.mobilizer = CCB_MOBILIZER_FIXED;
    int ig;
    ccb_model_add_body(m, &g, &ig);
    ccb_shape_def hs = ccb_shape_def_default();
    hs.material.mu = 0.6 * sc->smu;
    hs.material.tau_d = 1e-3 * sc->stau;
    ccb_model_add_shape(m, ig, &hs, NULL);
    const double r = 0.05, mass = 0.5;
    for (int b = 0; b < 1 + sc->second_ball; ++b) {
        ccb_body_def d = ccb_body_def_default();
        d.mobilizer = CCB_MOBILIZER_FREE;
        d.name = b ? "far" : "ball";
        d.mass = mass;
        d.inertia = ccb_m3_identity();
        d.inertia.m[0] = d.inertia.m[4] = d.inertia.m[8] = 0.4 * mass * r * r;
        d.pose.p = ccb_v3(0.3 * b, 0, b ? r + 0.02 : r - mass * 9.81 / 1e5);
        if (b == 0) {
            d.force = apply_load;
            d.force_user = &sc->ld;
        }
        int ib;
        ccb_model_add_body(m, &d, &ib);
        ccb_shape_def sp = ccb_shape_def_default();
        sp.type = CCB_SHAPE_SPHERE;
        sp.radius = r;
        sp.material =
            (ccb_material){1e5 * sc->sk, 2.0 * sc->sd, 1e-3 * sc->stau, 0.6 * sc->smu, 0.0};
        ccb_model_add_shape(m, ib, &sp, NULL);
    }
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    return m;
}

static ccb_sim_params sim_params(const ccb_approx* a, double vs_scale) {
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = 2e-3;
    p.vs = 1e-4 * vs_scale;
    p.approx = a;
    p.newton.eps_r = 1e-14; /* the finite differences need the step solved to round-off */
    p.newton.eps_a = 0.0;
    p.newton.max_iterations = 200;
    return p;
}

/* One step from (q0, v0) of the scene with its materials and load; q1, v1 out. */
static int step(scene* sc, const ccb_approx* a, double vs_scale, const double* q0, const double* v0,
                double* q1, double* v1) {
    ccb_model* m = make_model(sc);
    const ccb_sim_params p = sim_params(a, vs_scale);
    ccb_sim* sim = NULL;
    char msg[256];
    int ok = ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK &&
             ccb_sim_set_state(sim, 0.0, q0, v0) == CCB_OK && ccb_sim_step(sim) == CCB_OK;
    if (ok) {
        memcpy(q1, ccb_sim_q(sim), (size_t)ccb_model_nq(m) * sizeof(double));
        memcpy(v1, ccb_sim_v(sim), (size_t)ccb_model_nv(m) * sizeof(double));
    }
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    return ok;
}

enum { NQ_MAX = 14, NV_MAX = 12 };

/* The state after `warm` steps from the scene's initial state with initial velocity v_init of the
 * ball (the sliding or sticking regime the check is taken in). */
static void warm_state(scene* sc, const ccb_approx* a, const double v_init[6], int warm, double* q,
                       double* v) {
    ccb_model* m = make_model(sc);
    ccb_model_initial_state(m, q, v);
    memcpy(v, v_init, 6 * sizeof(double));
    double q1[NQ_MAX], v1[NV_MAX];
    for (int k = 0; k < warm; ++k) {
        CHECK(step(sc, a, 1.0, q, v, q1, v1), "warm-up step %d", k);
        memcpy(q, q1, sizeof q1);
        memcpy(v, v1, sizeof v1);
    }
    ccb_model_destroy(m);
}

/* kinds of direction */
enum { D_Q, D_ROT, D_V, D_U, D_MU, D_K, D_D, D_TAU, D_VS, D_COUNT };
static const char* const k_dname[D_COUNT] = {"q0", "rot", "v0",    "u",  "mu",
                                             "k",  "d",   "tau_d", "v_s"};

/* The finite difference (x(e) - x(-e))/2e of the whole converged step along direction kind `kd`
 * with the vectors dq, dv, du, at the step e; out = (dq1, dv1). */
static int fd_step(scene* base, const ccb_approx* a, int kd, const double* q0, const double* v0,
                   const double* dq, const double* dv, const double* du, double e, int nq, int nv,
                   double* out) {
    double qp[2][NQ_MAX], vp[2][NV_MAX];
    for (int s = 0; s < 2; ++s) {
        const double es = s ? -e : e;
        scene sc = *base;
        double q[NQ_MAX], v[NV_MAX], vs = 1.0;
        for (int i = 0; i < nq; ++i) {
            q[i] = q0[i] + ((kd == D_Q || kd == D_ROT) ? es * dq[i] : 0.0);
        }
        for (int i = 0; i < nv; ++i) {
            v[i] = v0[i] + (kd == D_V ? es * dv[i] : 0.0);
        }
        for (int i = 0; i < 6; ++i) {
            sc.ld.u[i] += kd == D_U ? es * du[i] : 0.0;
        }
        sc.smu *= kd == D_MU ? 1.0 + es : 1.0;
        sc.sk *= kd == D_K ? 1.0 + es : 1.0;
        sc.sd *= kd == D_D ? 1.0 + es : 1.0;
        sc.stau *= kd == D_TAU ? 1.0 + es : 1.0;
        vs *= kd == D_VS ? 1.0 + es : 1.0;
        if (!step(&sc, a, vs, q, v, qp[s], vp[s])) {
            return 0;
        }
    }
    for (int i = 0; i < nq; ++i) {
        out[i] = (qp[0][i] - qp[1][i]) / (2 * e);
    }
    for (int i = 0; i < nv; ++i) {
        out[nq + i] = (vp[0][i] - vp[1][i]) / (2 * e);
    }
    return 1;
}

/* |x - y|_inf / max(|y|_inf, floor): relative, or absolute against `floor` for derivatives that
 * are zero or at round-off level (a parameter that the regime does not read) */
static double rel_err_floor(const double* x, const double* y, int n, double floor_) {
    double num = 0.0, den = 0.0;
    for (int i = 0; i < n; ++i) {
        num = fmax(num, fabs(x[i] - y[i]));
        den = fmax(den, fabs(y[i]));
    }
    return num / fmax(den, floor_);
}

static double rel_err(const double* x, const double* y, int n) {
    return rel_err_floor(x, y, n, 1e-300);
}

/* Every direction kind on the ball of one scene state with approximation a; returns the largest
 * sweep-best relative error and prints the table rows. */
static double check_regime(const ccb_approx* a, const char* regime, const double v_init[6],
                           int warm) {
    scene sc = {1, 1, 1, 1, 0, {{0}}};
    double q0[NQ_MAX], v0[NV_MAX];
    warm_state(&sc, a, v_init, warm, q0, v0);
    ccb_model* m = make_model(&sc);
    const int nq = ccb_model_nq(m), nv = ccb_model_nv(m);
    ccb_sim_params p = sim_params(a, 1.0);
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    CHECK(ccb_sim_set_state(sim, 0.0, q0, v0) == CCB_OK && ccb_sim_step(sim) == CCB_OK,
          "%s %s: step: %s", a->name, regime, ccb_sim_last_error(sim));
    for (int c = 0; c < ccb_sim_ncontacts(sim); ++c) {
        const ccb_contact_result* cr = ccb_sim_contact(sim, c);
        printf("# %s %s: contact %d phi0 %.3e vc (%.3e %.3e %.3e) gamma (%.3e %.3e %.3e) vs %.1e\n",
               a->name, regime, c, cr->geometry.phi0, cr->vc[0], cr->vc[1], cr->vc[2], cr->gamma[0],
               cr->gamma[1], cr->gamma[2], cr->stiction_tol);
    }
    ccb_deriv* d = NULL;
    CHECK(ccb_deriv_create(&d) == CCB_OK, "deriv_create");
    CHECK(ccb_deriv_linearize(d, sim, NULL, 0.0, q0, v0, ccb_sim_v(sim)) == CCB_OK, "linearize: %s",
          ccb_deriv_last_error(d));
    /* directions: random, with the quaternion part tangent to the unit sphere */
    double dq[NQ_MAX] = {0}, dv[NV_MAX], du[6];
    for (int i = 0; i < 3; ++i) {
        dq[i] = uniform(-1, 1);
    }
    double drot[NQ_MAX] = {0};
    const double w[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
    const double* qq = q0 + 3; /* d quat = 1/2 (0, w) (x) quat */
    drot[3] = 0.5 * (-w[0] * qq[1] - w[1] * qq[2] - w[2] * qq[3]);
    drot[4] = 0.5 * (w[0] * qq[0] + w[1] * qq[3] - w[2] * qq[2]);
    drot[5] = 0.5 * (-w[0] * qq[3] + w[1] * qq[0] + w[2] * qq[1]);
    drot[6] = 0.5 * (w[0] * qq[2] - w[1] * qq[1] + w[2] * qq[0]);
    for (int i = 0; i < nv; ++i) {
        dv[i] = uniform(-1, 1);
    }
    for (int i = 0; i < 6; ++i) {
        du[i] = uniform(-1, 1);
    }
    double worst = 0.0;
    for (int kd = 0; kd < D_COUNT; ++kd) {
        ccb_step_dir dir = ccb_step_dir_zero();
        dir.dq0 = kd == D_Q ? dq : kd == D_ROT ? drot : NULL;
        dir.dv0 = kd == D_V ? dv : NULL;
        dir.du = kd == D_U ? du : NULL;
        dir.dmu = kd == D_MU, dir.dk = kd == D_K, dir.dd = kd == D_D, dir.dtau_d = kd == D_TAU;
        dir.dvs = kd == D_VS;
        double x[NQ_MAX + NV_MAX];
        CHECK(ccb_deriv_jvp(d, &dir, x, x + nq) == CCB_OK, "jvp %s: %s", k_dname[kd],
              ccb_deriv_last_error(d));
        double best = INFINITY, best_e = 0;
        char sweep[256] = "";
        for (int j = 2; j <= 9; ++j) {
            const double e = pow(10.0, -j);
            double fd[NQ_MAX + NV_MAX];
            if (!fd_step(&sc, a, kd, q0, v0, kd == D_ROT ? drot : dq, dv, du, e, nq, nv, fd)) {
                continue;
            }
            /* per unit relative change of a parameter or unit of q0, v0, u: a derivative below
             * 1e-2 is compared absolutely, to 1e-8: the round-off of the residual's difference,
             * eps |A v| / h_rel ~ 2.2e-16 * 1 N s / 1e-7, times 3 for Richardson's combination
             * and ~2 for H^-1 (~ 1/m), is 1.3e-8 (formulation-convex §9.2) */
            const double err = rel_err_floor(x, fd, nq + nv, 1e-2);
            snprintf(sweep + strlen(sweep), sizeof sweep - strlen(sweep), " %.1e", err);
            if (err < best) {
                best = err, best_e = e;
            }
        }
        double mag = 0.0;
        for (int i = 0; i < nq + nv; ++i) {
            mag = fmax(mag, fabs(x[i]));
        }
        printf("%-10s %-8s %-6s |dx| %.3e  best %.2e at h %.0e  sweep(1e-2..1e-9):%s\n", a->name,
               regime, k_dname[kd], mag, best, best_e, sweep);
        /* formulation-convex §9.4: 1e-6 relative at the sweep's best step on a smooth step */
        CHECK(best <= 1e-6, "%s %s d/d%s: IFT vs finite differences %.3e > 1e-6", a->name, regime,
              k_dname[kd], best);
        worst = fmax(worst, best);
    }
    ccb_deriv_destroy(d);
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    return worst;
}

static void test_fd_agreement(void) {
    /* sliding: the first step from rest penetration at 1.5 m/s of slip (later steps of SAP and
     * Similar lift the ball off: their mu |v_t| gliding, formulation-convex §4.7, §6) */
    const double sliding[6] = {0, 0, 0, 1.5, 0.3, 0};
    const double rolling[6] = {0, 4, 1, 0.4, -0.1, 0}; /* rolls without slip after 10 steps */
    const double resting[6] = {0, 0, 0, 0, 0, 0};
    printf("approx     regime   input  |derivative|  best relative error vs FD of the step\n");
    for (int k = 0; k < 4; ++k) {
        const ccb_approx* a = ccb_approx_get(k);
        check_regime(a, "sliding", sliding, 0);
        check_regime(a, "rolling", rolling, 10);
        check_regime(a, "resting", resting, 10);
    }
}

/* An inactive contact (a ball 2 cm above the floor, inside the margin): its own mu and k move
 * nothing, exactly; the active contact's do. */
static void test_exact_zeros(void) {
    scene sc = {1, 1, 1, 1, 1, {{0}}};
    ccb_model* m = make_model(&sc);
    const int nq = ccb_model_nq(m), nv = ccb_model_nv(m);
    double q0[NQ_MAX], v0[NV_MAX];
    ccb_model_initial_state(m, q0, v0);
    for (int k = 0; k < 4; ++k) {
        const ccb_approx* a = ccb_approx_get(k);
        ccb_sim_params p = sim_params(a, 1.0);
        ccb_sim* sim = NULL;
        char msg[256];
        CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
        CHECK(ccb_sim_set_state(sim, 0.0, q0, v0) == CCB_OK && ccb_sim_step(sim) == CCB_OK, "step");
        CHECK(ccb_sim_ncontacts(sim) == 2, "%s: two contacts, got %d", a->name,
              ccb_sim_ncontacts(sim));
        ccb_deriv* d = NULL;
        ccb_deriv_create(&d);
        CHECK(ccb_deriv_linearize(d, sim, NULL, 0.0, q0, v0, ccb_sim_v(sim)) == CCB_OK, "lin: %s",
              ccb_deriv_last_error(d));
        for (int c = 0; c < 2; ++c) {
            const int far = ccb_sim_contact(sim, c)->geometry.phi0 > 0;
            ccb_step_dir dir = ccb_step_dir_zero();
            dir.contact = c;
            dir.dmu = dir.dk = dir.dd = dir.dtau_d = 1.0;
            double x[NQ_MAX + NV_MAX];
            CHECK(ccb_deriv_jvp(d, &dir, x, x + nq) == CCB_OK, "jvp: %s", ccb_deriv_last_error(d));
            double mag = 0.0;
            for (int i = 0; i < nq + nv; ++i) {
                mag = fmax(mag, fabs(x[i]));
            }
            if (far) { /* exact: gamma = 0 in a neighbourhood, for every parameter */
                CHECK(mag == 0.0, "%s: the inactive contact's parameters move the step by %g",
                      a->name, mag);
            } else {
                CHECK(mag > 1e-3, "%s: the active contact's parameters move nothing (%g)", a->name,
                      mag);
            }
        }
        ccb_deriv_destroy(d);
        ccb_sim_destroy(sim);
    }
    ccb_model_destroy(m);
}

/* The three factorizations of H give the same derivative (to round-off: 1e-12 relative, the
 * conditioning of this H is ~1e4 at most) */
static void test_backends(void) {
    scene sc = {1, 1, 1, 1, 1, {{0}}};
    ccb_model* m = make_model(&sc);
    const int nq = ccb_model_nq(m), nv = ccb_model_nv(m);
    double q0[NQ_MAX], v0[NV_MAX];
    ccb_model_initial_state(m, q0, v0);
    v0[3] = 0.3;
    ccb_sim_params p = sim_params(&ccb_approx_sap, 1.0);
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    CHECK(ccb_sim_set_state(sim, 0.0, q0, v0) == CCB_OK && ccb_sim_step(sim) == CCB_OK, "step");
    double dv[NV_MAX];
    for (int i = 0; i < nv; ++i) {
        dv[i] = uniform(-1, 1);
    }
    double ref[NQ_MAX + NV_MAX];
    const int solvers[3] = {CCB_LINSOLVE_DENSE, CCB_LINSOLVE_CHOLMOD, CCB_LINSOLVE_BLOCK};
    for (int k = 0; k < 3; ++k) {
        ccb_deriv* d = NULL;
        ccb_deriv_create(&d);
        ccb_deriv_params dp = ccb_deriv_params_default();
        dp.linear_solver = solvers[k];
        CHECK(ccb_deriv_linearize(d, sim, &dp, 0.0, q0, v0, ccb_sim_v(sim)) == CCB_OK, "lin: %s",
              ccb_deriv_last_error(d));
        ccb_step_dir dir = ccb_step_dir_zero();
        dir.dv0 = dv;
        dir.dmu = 0.5;
        double x[NQ_MAX + NV_MAX];
        CHECK(ccb_deriv_jvp(d, &dir, x, x + nq) == CCB_OK, "jvp: %s", ccb_deriv_last_error(d));
        if (k == 0) {
            memcpy(ref, x, sizeof x);
        } else {
            CHECK(rel_err(x, ref, nq + nv) <= 1e-12, "back-end %d differs from dense by %g",
                  solvers[k], rel_err(x, ref, nq + nv));
        }
        ccb_deriv_destroy(d);
    }
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
}

static void test_errors(void) {
    scene sc = {1, 1, 1, 1, 0, {{0}}};
    ccb_model* m = make_model(&sc);
    double q0[NQ_MAX], v0[NV_MAX];
    ccb_model_initial_state(m, q0, v0);
    ccb_deriv* d = NULL;
    ccb_deriv_create(&d);
    ccb_step_dir dir = ccb_step_dir_zero();
    double x[NV_MAX];
    CHECK(ccb_deriv_jvp(d, &dir, NULL, x) == CCB_E_INVALID, "jvp before linearize");
    ccb_sim_params p = sim_params(&ccb_approx_lagged, 1.0);
    ccb_sim_params_set_solver(&p, CCB_SOLVER_TAMSI, NULL);
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    CHECK(ccb_deriv_linearize(d, sim, NULL, 0.0, q0, v0, v0) == CCB_E_INVALID &&
              strstr(ccb_deriv_last_error(d), "tamsi") != NULL,
          "TAMSI refused: %s", ccb_deriv_last_error(d));
    ccb_sim_destroy(sim);
    p = sim_params(&ccb_approx_lagged, 1.0);
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    ccb_deriv_params dp = ccb_deriv_params_default();
    dp.h_rel = 0.5;
    CHECK(ccb_deriv_linearize(d, sim, &dp, 0.0, q0, v0, v0) == CCB_E_INVALID, "h_rel 0.5 refused");
    double bad[NV_MAX];
    memcpy(bad, v0, sizeof bad);
    bad[0] = NAN;
    CHECK(ccb_deriv_linearize(d, sim, NULL, 0.0, q0, v0, bad) == CCB_E_NONFINITE, "NaN v1");
    CHECK(ccb_deriv_linearize(d, sim, NULL, 0.0, q0, v0, v0) == CCB_OK, "lin: %s",
          ccb_deriv_last_error(d));
    dir.contact = 7;
    CHECK(ccb_deriv_jvp(d, &dir, NULL, x) == CCB_E_INVALID, "contact 7 refused");
    dir = ccb_step_dir_zero();
    dir.dmu = NAN;
    CHECK(ccb_deriv_jvp(d, &dir, NULL, x) == CCB_E_NONFINITE, "NaN direction refused");
    /* a direction that moves the ball out of the margin within the difference step */
    double dq[NQ_MAX] = {0};
    dq[2] = 1.0;
    ccb_deriv_params big = ccb_deriv_params_default();
    big.h_rel = 1e-2;
    q0[2] = 0.05 + CCB_DEFAULT_MARGIN - 0.5e-2; /* 5 mm inside the margin */
    CHECK(ccb_deriv_linearize(d, sim, &big, 0.0, q0, v0, v0) == CCB_OK, "lin");
    dir = ccb_step_dir_zero();
    dir.dq0 = dq;
    CHECK(ccb_deriv_jvp(d, &dir, NULL, x) == CCB_E_INVALID &&
              strstr(ccb_deriv_last_error(d), "not differentiable") != NULL,
          "contact set change reported: %s", ccb_deriv_last_error(d));
    ccb_sim_destroy(sim);
    ccb_deriv_destroy(d);
    ccb_model_destroy(m);
}

/* ccb_sim_set_force adds the same generalized force as a body's force callback (to round-off: the
 * sums are taken in another order), the derivative's linearization sees it (the residual at the
 * step's solution stays at round-off), and the ODE solver refuses it. */
static void test_set_force(void) {
    scene sc = {1, 1, 1, 1, 0, {{0.01, -0.02, 0.005, 0.3, -0.2, 0.1}}};
    ccb_model* m = make_model(&sc);
    const int nq = ccb_model_nq(m), nv = ccb_model_nv(m);
    double q0[NQ_MAX], v0[NV_MAX], q1[NQ_MAX], v1[NV_MAX];
    ccb_model_initial_state(m, q0, v0);
    v0[3] = 0.5;
    CHECK(step(&sc, &ccb_approx_sap, 1.0, q0, v0, q1, v1), "step with the callback");
    scene bare = sc;
    memset(&bare.ld, 0, sizeof bare.ld);
    ccb_model* m0 = make_model(&bare);
    ccb_sim_params p = sim_params(&ccb_approx_sap, 1.0);
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m0, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    CHECK(ccb_sim_set_force(sim, sc.ld.u) == CCB_OK && ccb_sim_force(sim) != NULL, "set_force");
    CHECK(ccb_sim_set_state(sim, 0.0, q0, v0) == CCB_OK && ccb_sim_step(sim) == CCB_OK, "step");
    /* 1e-12 relative: the same sums in another order, through a solve of condition ~1e3 */
    CHECK(rel_err(ccb_sim_v(sim), v1, nv) <= 1e-12, "set_force vs callback: %g",
          rel_err(ccb_sim_v(sim), v1, nv));
    CHECK(rel_err(ccb_sim_q(sim), q1, nq) <= 1e-12, "set_force vs callback (q): %g",
          rel_err(ccb_sim_q(sim), q1, nq));
    ccb_deriv* d = NULL;
    ccb_deriv_create(&d);
    CHECK(ccb_deriv_linearize(d, sim, NULL, 0.0, q0, v0, ccb_sim_v(sim)) == CCB_OK, "lin: %s",
          ccb_deriv_last_error(d));
    const ccb_deriv_stats st = ccb_deriv_get_stats(d);
    CHECK(st.residual <= 1e-12 * st.scale, "the linearization sees u: residual %g of %g",
          st.residual, st.scale);
    double bad[NV_MAX];
    memcpy(bad, sc.ld.u, 6 * sizeof(double));
    bad[2] = INFINITY;
    CHECK(ccb_sim_set_force(sim, bad) == CCB_E_NONFINITE, "non-finite u refused");
    CHECK(ccb_sim_set_force(sim, NULL) == CCB_OK && ccb_sim_force(sim) == NULL, "u removed");
    ccb_sim_destroy(sim);
    ccb_sim_params po = sim_params(&ccb_approx_sap, 1.0);
    ccb_sim_params_set_solver(&po, CCB_SOLVER_ODE, NULL);
    CHECK(ccb_sim_create(m0, &po, &sim, msg, sizeof msg) == CCB_OK, "create ode: %s", msg);
    CHECK(ccb_sim_set_force(sim, sc.ld.u) == CCB_E_INVALID, "the ODE solver refuses u");
    ccb_sim_destroy(sim);
    ccb_deriv_destroy(d);
    ccb_model_destroy(m0);
    ccb_model_destroy(m);
}

int main(void) {
    RUN(test_set_force);
    RUN(test_errors);
    RUN(test_exact_zeros);
    RUN(test_backends);
    RUN(test_fd_agreement);
    return TEST_SUMMARY();
}
