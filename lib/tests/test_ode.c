/* Unit tests of the ODE integrators (lib/src/ode*.c): RK3 order 3 and implicit Euler order 1 on
 * smooth problems, exact work counts of full Newton, quasi-Newton Jacobian reuse, error control
 * (both estimators), the GSL reference, convergence control and TALS on the stick-slip box
 * (spec formulation-tamsi-hydro §B, §C.4, §E; cases.md §7.2), the continuous contact model
 * against the box's closed form, and error reporting. */
#include <stdlib.h>

#include "ccb/alloc.h"
#include "ccb/ccb.h"
#include "ccb/ode.h"
#include "test.h"

/* Tolerances */
/* [convergence order: at these steps the next term of the error expansion is below 5% of the
 *  leading one (measured ratios 1.00-1.02 and 3.00-3.02), so +-0.1 is a safe band] */
static const double TOL_ORDER = 0.1;
/* [round-off: the same arithmetic in two orders, ~20 operations on O(1) values] */
static const double TOL_ROUND = 1e-12;

/* ---- a damped oscillator: x'' + c x' + k x = 0, exact solution in closed form ---------------- */

typedef struct osc {
    double c, k;
} osc;

static ccb_status osc_f(void* user, double t, const double* x, double* xd) {
    (void)t;
    const osc* o = user;
    xd[0] = x[1];
    xd[1] = -o->c * x[1] - o->k * x[0];
    return CCB_OK;
}

/* x(0) = 1, x'(0) = 0 */
static void osc_exact(const osc* o, double t, double x[2]) {
    const double a = 0.5 * o->c, w = sqrt(o->k - a * a);
    const double e = exp(-a * t);
    x[0] = e * (cos(w * t) + (a / w) * sin(w * t));
    x[1] = e * (-(a * a / w + w) * sin(w * t));
}

static double osc_error(ccb_ode_params p, const osc* o, double T, ccb_ode_work* work) {
    const ccb_ode_system sys = {2, osc_f, NULL, 0, 0, (void*)o};
    ccb_ode* ode = NULL;
    char msg[256];
    CHECK(ccb_ode_create(&sys, &p, &ode, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    const double x0[2] = {1.0, 0.0};
    ccb_ode_set_state(ode, 0.0, x0);
    const ccb_status s = ccb_ode_advance(ode, T);
    CHECK(s == CCB_OK, "advance: %s", ccb_ode_last_error(ode));
    CHECK(ccb_ode_time(ode) == T, "lands exactly on t_end");
    double xe[2];
    osc_exact(o, T, xe);
    const double* x = ccb_ode_state(ode);
    if (work) {
        *work = *ccb_ode_get_work(ode);
    }
    const double e = fmax(fabs(x[0] - xe[0]), fabs(x[1] - xe[1]));
    ccb_ode_destroy(ode);
    return e;
}

static void test_rk3_order(void) {
    const osc o = {0.5, 4.0};
    ccb_ode_params p = ccb_ode_params_default();
    p.method = CCB_ODE_RK3;
    double e[3];
    for (int i = 0; i < 3; ++i) {
        p.h = 0.02 / (double)(1 << i);
        e[i] = osc_error(p, &o, 2.0, NULL);
    }
    for (int i = 0; i < 2; ++i) {
        CHECK_ABS(log2(e[i] / e[i + 1]), 3.0, TOL_ORDER, "RK3 is third order");
    }
}

static void test_ie_order_and_counts(void) {
    const osc o = {0.5, 4.0};
    for (int qn = 0; qn < 2; ++qn) {
        ccb_ode_params p = ccb_ode_params_default();
        p.newton = qn ? CCB_IE_QUASI_NEWTON : CCB_IE_FULL_NEWTON;
        double e[3];
        ccb_ode_work w[3];
        for (int i = 0; i < 3; ++i) {
            p.h = 2e-3 / (double)(1 << i);
            e[i] = osc_error(p, &o, 2.0, &w[i]);
        }
        for (int i = 0; i < 2; ++i) {
            CHECK_ABS(log2(e[i] / e[i + 1]), 1.0, TOL_ORDER, "implicit Euler is first order");
        }
        const long steps = 1000;
        CHECK(w[0].n_steps == steps, "fixed step 2e-3 over 2 s: %ld steps", w[0].n_steps);
        if (!qn) {
            /* linear f: Newton is exact in one iteration; the next update is zero up to
             * round-off, so 2 (sometimes 3) iterations per step. Each iteration makes one
             * residual call and a 2-column Jacobian whose base is that residual: 3 calls of f,
             * 2 of them for the Jacobian, and one factorization (exact relations) */
            CHECK(w[0].n_newton >= 2 * steps && w[0].n_newton <= 3 * steps,
                  "FN iterations: %ld for %ld steps", w[0].n_newton, steps);
            CHECK(w[0].n_f == 3 * w[0].n_newton, "FN calls of f: %ld (exact count)", w[0].n_f);
            CHECK(w[0].n_f_jacobian == 2 * w[0].n_newton, "FN Jacobian calls: %ld",
                  w[0].n_f_jacobian);
            CHECK(w[0].n_factor == w[0].n_newton && w[0].n_jacobian == w[0].n_newton,
                  "FN: one Jacobian and factorization per iteration (%ld, %ld)", w[0].n_factor,
                  w[0].n_jacobian);
        } else {
            /* the Jacobian of a linear f never changes: one evaluation, one factorization */
            CHECK(w[0].n_jacobian == 1 && w[0].n_factor == 1,
                  "QN reuses J and A (J %ld, factorizations %ld)", w[0].n_jacobian, w[0].n_factor);
        }
    }
}

static void test_ie_error_control(void) {
    const osc o = {0.5, 4.0};
    for (int est = 0; est < 2; ++est) {
        ccb_ode_params p = ccb_ode_params_default();
        p.error_control = 1;
        p.estimator = (ccb_ie_estimator)est;
        p.h = 0.1;
        double prev = INFINITY;
        long prev_steps = 0;
        for (int i = 0; i < 4; ++i) {
            p.accuracy = 1e-2 / pow(10.0, i);
            ccb_ode_work w;
            const double e = osc_error(p, &o, 2.0, &w);
            CHECK(e < prev, "error decreases with a (estimator %d, a = %g: %g vs %g)", est,
                  p.accuracy, e, prev);
            CHECK(w.n_steps > prev_steps, "steps grow as a tightens");
            /* [the local error estimate is O(h^2) and the step keeps it near a, so h ~ sqrt(a)
             *  and the first-order global error ~ C sqrt(a); measured C = 1.9-2.7, bound 4] */
            CHECK(e < 4.0 * sqrt(p.accuracy), "global error %g within 4 sqrt(a) (a = %g)", e,
                  p.accuracy);
            if (isfinite(prev)) {
                CHECK_ABS(log10(prev / e), 0.5, TOL_ORDER,
                          "error ~ sqrt(a): half a decade per decade of a");
            }
            CHECK(w.n_f_errest > 0, "estimator evaluations counted");
            CHECK(w.h_max <= p.h * (1 + 1e-15), "steps never exceed h_max");
            prev = e;
            prev_steps = w.n_steps;
        }
    }
}

/* Error control sampled at intervals equal to h_max: the last step of an interval may be
 * stretched a hair beyond h_max to land on t_end; it must still be accepted on its error
 * (regression: it was rejected forever). */
static void test_ie_error_control_sampled(void) {
    const osc o = {0.5, 4.0};
    const ccb_ode_system sys = {2, osc_f, NULL, 0, 0, (void*)&o};
    ccb_ode_params p = ccb_ode_params_default();
    p.error_control = 1;
    p.h = 0.01;
    p.accuracy = 1e-3;
    ccb_ode* ode = NULL;
    char msg[256];
    CHECK(ccb_ode_create(&sys, &p, &ode, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    const double x0[2] = {1.0, 0.0};
    ccb_ode_set_state(ode, 0.0, x0);
    for (int k = 1; k <= 200; ++k) {
        CHECK(ccb_ode_advance(ode, 0.01 * k) == CCB_OK, "advance: %s", ccb_ode_last_error(ode));
    }
    const ccb_ode_work* w = ccb_ode_get_work(ode);
    CHECK(w->n_reject_error < w->n_steps, "rejections %ld < steps %ld", w->n_reject_error,
          w->n_steps);
    ccb_ode_destroy(ode);
}

static void test_gsl_reference(void) {
    const osc o = {0.5, 4.0};
    for (int m = 0; m < 4; ++m) {
        ccb_ode_params p = ccb_ode_params_default();
        p.method = CCB_ODE_GSL;
        p.gsl_method = (ccb_ode_gsl_method)m;
        p.gsl_atol = p.gsl_rtol = 1e-12;
        p.h = 1e-3;
        ccb_ode_work w;
        const double e = osc_error(p, &o, 2.0, &w);
        /* [tolerance 1e-12 per step, ~1e3 steps and error growth e^(0.25 t): 1e-8 is loose] */
        CHECK(e < 1e-8, "GSL %s error %g", ccb_ode_gsl_method_name(p.gsl_method), e);
        CHECK(w.n_f > 0 && w.n_steps > 0, "GSL work counted (%ld calls, %ld steps)", w.n_f,
              w.n_steps);
    }
}

/* ---- the stick-slip box of cases.md §7 as a closed-form ODE -----------------------------------
 * */

typedef struct box {
    double m, W, mu, vs, amp;
    ccb_ode_slip slip;
} box;

static ccb_status box_f(void* user, double t, const double* x, double* xd) {
    box* b = user;
    const double s = fabs(x[1]) / b->vs;
    xd[0] = x[1];
    xd[1] = (b->amp * sin(2.0 * CCB_PI * t) -
             b->W * ccb_friction_ratio(CCB_FRICTION_LIN, b->mu, s) * x[1] / b->vs) /
            b->m;
    return CCB_OK;
}

static ccb_status box_slip(void* user, double t, const double* x, const ccb_ode_slip** out,
                           int* n) {
    (void)t;
    box* b = user;
    b->slip.key = 0;
    b->slip.vt[0] = x[1];
    b->slip.vt[1] = 0.0;
    *out = &b->slip;
    *n = 1;
    return CCB_OK;
}

static box box_make(void) {
    box b = {0.33, 0.33 * 9.8, 1.0, 1e-4, 4.0, {0, {0, 0}}};
    return b;
}

/* The box from rest to t_end at a fixed h = 10 ms with TALS or not and the given convergence
 * control: its work, and its state at t_end into x (may be NULL). */
static ccb_ode_work box_fixed_run(int tals, ccb_ie_fixed fixed, double t_end, double x[2]) {
    box b = box_make();
    const ccb_ode_system sys = {2, box_f, box_slip, b.vs, 1e-2, &b};
    ccb_ode_params p = ccb_ode_params_default();
    p.h = 0.01;
    p.tals = tals;
    p.fixed = fixed;
    ccb_ode* ode = NULL;
    char msg[256];
    CHECK(ccb_ode_create(&sys, &p, &ode, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    const double x0[2] = {0, 0};
    ccb_ode_set_state(ode, 0.0, x0);
    CHECK(ccb_ode_advance(ode, t_end) == CCB_OK, "advance: %s", ccb_ode_last_error(ode));
    CHECK(ccb_ode_time(ode) == t_end, "lands on t_end");
    const ccb_ode_work w = *ccb_ode_get_work(ode);
    if (x) {
        memcpy(x, ccb_ode_state(ode), 2 * sizeof(double));
    }
    ccb_ode_destroy(ode);
    return w;
}

/* cases.md §7.2: from v = 0.05808 m/s at t = 0.44 s, h = 10 ms, plain Newton cycles; TALS
 * converges within 8 iterations to |r| <= 1e-10 (gate BOX-2). */
static void test_box_newton_trace(void) {
    box b = box_make();
    const ccb_ode_system sys = {2, box_f, box_slip, b.vs, 1e-2, &b};
    /* the state at 0.44 s from a converged fixed-step run (TALS does not change a converged
     * solve's answer) */
    double xs[2];
    box_fixed_run(1, CCB_IE_FIXED_HALVES, 0.44, xs);
    /* [cases.md §7.2 quotes v(0.44) = 0.05808 m/s to 4 digits] */
    CHECK_ABS(xs[1], 0.05808, 5e-6, "cases.md §7.2 state at t = 0.44 s");
    char msg[256];
    double r[32];
    int n, conv;
    CHECK(ccb_ode_ie_newton_trace(&sys, 0.44, xs, 0.01, 0, 0, 30, 1e-10, r, &n, NULL, &conv, msg,
                                  sizeof msg) == CCB_OK,
          "trace: %s", msg);
    CHECK(!conv && n == 31, "plain Newton does not converge in 30 iterations (n = %d)", n);
    CHECK(r[n - 1] > 1e-3, "the residual stays large while cycling (%g)", r[n - 1]);
    double xe[2];
    CHECK(ccb_ode_ie_newton_trace(&sys, 0.44, xs, 0.01, 1, 0, 30, 1e-10, r, &n, xe, &conv, msg,
                                  sizeof msg) == CCB_OK,
          "trace: %s", msg);
    CHECK(conv && n - 1 <= 8, "TALS converges within 8 iterations (%d)", n - 1);
    CHECK(fabs(xe[1]) < b.vs, "ends in the stiction band (v = %g)", xe[1]);
}

/* A fixed-step run at h = 10 ms: without TALS Newton fails at transitions and the convergence
 * control halves steps; with TALS fewer failures and fewer iterations. */
static void test_box_convergence_control(void) {
    ccb_ode_work w[2];
    for (int tals = 0; tals < 2; ++tals) {
        w[tals] = box_fixed_run(tals, CCB_IE_FIXED_HALVES, 2.0, NULL);
    }
    CHECK(w[0].n_fail_newton > 0, "plain Newton fails at some transitions (%ld)",
          w[0].n_fail_newton);
    CHECK(w[1].n_newton < w[0].n_newton, "TALS saves iterations (%ld vs %ld)", w[1].n_newton,
          w[0].n_newton);
    CHECK(w[1].n_tals > 0, "TALS limited some updates");
}

/* Drake's fixed-step control (fixed = drake, formulation-tamsi-hydro §B.5). On the linear
 * oscillator Newton never fails, so the implicit Euler states are those of the default control up
 * to round-off (its steps are h exactly, the default's those of the grid t0 + k h), and the trapezoid beside every step shows in the error-estimate evaluations only. On the
 * box without TALS Newton fails at transitions: the run still lands on t_end, no step exceeds h,
 * and it evaluates f more than the default (the trapezoid must converge too). */
static void test_drake_fixed(void) {
    const osc o = {0.4, 9.0};
    ccb_ode_work w[2];
    double e[2];
    for (int m = 0; m < 2; ++m) {
        ccb_ode_params p = ccb_ode_params_default();
        p.h = 0.01;
        p.fixed = m ? CCB_IE_FIXED_DRAKE : CCB_IE_FIXED_HALVES;
        e[m] = osc_error(p, &o, 1.0, &w[m]);
    }
    CHECK(fabs(e[0] - e[1]) <= TOL_ROUND && w[0].n_steps == w[1].n_steps,
          "oscillator: the same states (errors %.17g, %.17g; steps of h exactly vs of the grid)",
          e[0], e[1]);
    CHECK(w[0].n_f_errest == 0 && w[1].n_f_errest > 0 && w[1].n_fail_newton == 0,
          "oscillator: the trapezoid only in drake mode (%ld evaluations), no failure",
          w[1].n_f_errest);
    for (int m = 0; m < 2; ++m) {
        w[m] = box_fixed_run(0, m ? CCB_IE_FIXED_DRAKE : CCB_IE_FIXED_HALVES, 2.0, NULL);
    }
    CHECK(w[0].n_fail_newton > 0 && w[1].n_fail_newton > 0 &&
              w[1].h_max <= 0.01 * (1 + TOL_ROUND) && w[1].n_f > w[0].n_f,
          "box: drake h_max %g, failures %ld vs %ld, evaluations %ld vs %ld", w[1].h_max,
          w[1].n_fail_newton, w[0].n_fail_newton, w[1].n_f, w[0].n_f);
    ccb_ode_params bad = ccb_ode_params_default();
    bad.fixed = (ccb_ie_fixed)2;
    char msg[256];
    CHECK(ccb_ode_params_check(&bad, msg, sizeof msg) == CCB_E_INVALID, "unknown control refused");
}

/* ---- error reporting ------------------------------------------------------------------------- */

static ccb_status bad_f(void* user, double t, const double* x, double* xd) {
    (void)user;
    (void)x;
    xd[0] = t > 0.5 ? NAN : 1.0;
    return CCB_OK;
}

static ccb_status failing_f(void* user, double t, const double* x, double* xd) {
    (void)user;
    (void)x;
    xd[0] = 0.0;
    return t > 0.25 ? CCB_E_INVALID : CCB_OK;
}

static void test_errors(void) {
    char msg[256];
    ccb_ode* ode = NULL;
    const ccb_ode_system nan_sys = {1, bad_f, NULL, 0, 0, NULL};
    ccb_ode_params p = ccb_ode_params_default();
    p.tals = 1;
    CHECK(ccb_ode_create(&nan_sys, &p, &ode, msg, sizeof msg) == CCB_E_INVALID && ode == NULL,
          "TALS without a slip callback is rejected");
    p = ccb_ode_params_default();
    p.accuracy = 2.0;
    CHECK(ccb_ode_create(&nan_sys, &p, &ode, msg, sizeof msg) == CCB_E_INVALID,
          "accuracy > 0.5 rejected");
    CHECK(strstr(msg, "accuracy") != NULL, "message names the field: %s", msg);
    for (int m = 0; m < 3; ++m) {
        p = ccb_ode_params_default();
        p.method = ccb_ode_method_get(m);
        p.h = 0.01;
        CHECK(ccb_ode_create(&nan_sys, &p, &ode, msg, sizeof msg) == CCB_OK, "create");
        const double x0[1] = {0};
        ccb_ode_set_state(ode, 0.0, x0);
        CHECK(ccb_ode_advance(ode, -1.0) == CCB_E_INVALID, "t_end < t rejected");
        const ccb_status s = ccb_ode_advance(ode, 1.0);
        CHECK(s != CCB_OK, "method %d: NaN derivative reported (status %d)", m, (int)s);
        CHECK(ccb_ode_time(ode) <= 0.5 + 0.01 && isfinite(ccb_ode_state(ode)[0]),
              "state left at the last good step (t = %g)", ccb_ode_time(ode));
        CHECK(strlen(ccb_ode_last_error(ode)) > 0, "message: %s", ccb_ode_last_error(ode));
        ccb_ode_destroy(ode);
        const ccb_ode_system fail_sys = {1, failing_f, NULL, 0, 0, NULL};
        CHECK(ccb_ode_create(&fail_sys, &p, &ode, msg, sizeof msg) == CCB_OK, "create");
        ccb_ode_set_state(ode, 0.0, x0);
        CHECK(ccb_ode_advance(ode, 1.0) == CCB_E_INVALID, "f's failure passed on (method %d)", m);
        ccb_ode_destroy(ode);
    }
}

/* ---- work limits: a run that cannot make progress ends with a message ------------------------ */

/* x' = -1e30 sign(x): Newton on implicit Euler cycles across x = 0 at any step, explicit and
 * adaptive methods chatter on a step that shrinks without end. */
static ccb_status sign_f(void* user, double t, const double* x, double* xd) {
    (void)user;
    (void)t;
    xd[0] = x[0] > 0 ? -1e30 : 1e30;
    return CCB_OK;
}

static void test_work_limits(void) {
    char msg[256];
    const ccb_ode_system sys = {1, sign_f, NULL, 0, 0, NULL};
    const double x0[1] = {1.0};
    /* IE fixed step (halving) and error control stop at h_min; GSL at its hmin; RK3 (a fixed
     * step, nothing to shrink) and a tight evaluation budget stop at max_f_evals */
    const struct {
        ccb_ode_method method;
        int ec;
        long max_f;
        const char* word;
    } k[] = {{CCB_ODE_IE, 0, 2000000, "h_min"},
             {CCB_ODE_IE, 1, 2000000, "h_min"},
             {CCB_ODE_GSL, 0, 2000000, "GSL"},
             {CCB_ODE_RK3, 0, 1000, "work limit"},
             {CCB_ODE_IE, 0, 1000, "work limit"}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i) {
        ccb_ode_params p = ccb_ode_params_default();
        p.method = k[i].method;
        p.error_control = k[i].ec;
        p.h = 1e-3;
        p.max_f_evals = k[i].max_f;
        ccb_ode* ode = NULL;
        /* the last case: a smooth oscillator that IE integrates fine, at 1e7 steps of 1e-6 s */
        const osc o = {0.5, 4.0};
        const ccb_ode_system smooth = {2, osc_f, NULL, 0, 0, (void*)&o};
        const int last = i + 1 == sizeof k / sizeof k[0];
        if (last) {
            p.h = 1e-6;
            p.h_min = 1e-9;
        }
        CHECK(ccb_ode_create(last ? &smooth : &sys, &p, &ode, msg, sizeof msg) == CCB_OK,
              "create: %s", msg);
        const double xs[2] = {1.0, 0.0};
        ccb_ode_set_state(ode, 0.0, last ? xs : x0);
        const ccb_status st = ccb_ode_advance(ode, 10.0); /* 1e4 steps of h for RK3 */
        CHECK(st == CCB_E_LIMIT, "case %zu: status %d, expected CCB_E_LIMIT", i, (int)st);
        CHECK(strstr(ccb_ode_last_error(ode), k[i].word) != NULL, "case %zu: message: %s", i,
              ccb_ode_last_error(ode));
        /* bounded work [exact: the budget of one advance, plus the evaluations of the attempt
         * under way (IE: a Jacobian column and its base)] */
        CHECK(ccb_ode_get_work(ode)->n_f <= k[i].max_f + 4, "case %zu: %ld evaluations", i,
              ccb_ode_get_work(ode)->n_f);
        ccb_ode_destroy(ode);
    }
    ccb_ode_params p = ccb_ode_params_default();
    p.h_min = 2 * p.h;
    ccb_ode* ode = NULL;
    CHECK(ccb_ode_create(&sys, &p, &ode, msg, sizeof msg) == CCB_E_INVALID, "h_min > h rejected");
    p = ccb_ode_params_default();
    p.max_f_evals = 0;
    CHECK(ccb_ode_create(&sys, &p, &ode, msg, sizeof msg) == CCB_E_INVALID,
          "max_f_evals = 0 rejected");
}

/* ---- the continuous contact model: the box as a ccb_model --------------------------------- */

static void box_force(double t, const ccb_pose* X, const ccb_twist* V, void* user, ccb_vec3* f,
                      ccb_vec3* tau) {
    (void)X;
    (void)V;
    (void)user;
    *f = ccb_v3(4.0 * sin(2.0 * CCB_PI * t), 0, 0);
    *tau = ccb_v3(0, 0, 0);
}

static void test_contact_ode_box(void) {
    box b = box_make();
    ccb_model* m = NULL;
    CHECK(ccb_model_create(&m) == CCB_OK, "model");
    ccb_model_set_gravity(m, ccb_v3(0, 0, -9.8));
    ccb_shape_def ground = ccb_shape_def_default();
    ground.material.mu = 1.0;
    const double k = 1e5;
    ccb_body_def bd = ccb_body_def_default();
    bd.name = "box";
    bd.mass = b.m;
    bd.locked = CCB_LOCK_Z | CCB_LOCK_THETA;
    bd.pose = ccb_pose_planar(0, -b.W / k, 0);
    bd.force = box_force;
    const ccb_vec3 pt = ccb_v3(0, 0, 0);
    ccb_shape_def sd = ccb_shape_def_default();
    sd.type = CCB_SHAPE_POINTS;
    sd.points = &pt;
    sd.npoints = 1;
    sd.material.k = k;
    sd.material.mu = 1.0;
    ccb_body_def gd = ccb_body_def_default();
    gd.name = "ground";
    gd.mobilizer = CCB_MOBILIZER_FIXED;
    int ig, ib;
    CHECK(ccb_model_add_body(m, &gd, &ig) == CCB_OK &&
              ccb_model_add_shape(m, ig, &ground, NULL) == CCB_OK,
          "ground");
    CHECK(ccb_model_add_body(m, &bd, &ib) == CCB_OK &&
              ccb_model_add_shape(m, ib, &sd, NULL) == CCB_OK,
          "box: %s", ccb_model_last_error(m));
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    ccb_contact_ode_params cp = ccb_contact_ode_params_default();
    cp.friction = CCB_FRICTION_LIN;
    ccb_contact_ode* co = NULL;
    char msg[256];
    CHECK(ccb_contact_ode_create(m, &cp, 1e-4, &co, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    const ccb_ode_system* sys = ccb_contact_ode_system(co);
    CHECK(sys->nx == 2, "x = (x, vx)");
    for (int i = 0; i < 500; ++i) {
        const double t = uniform(0, 2),
                     x[2] = {uniform(-0.1, 0.1), uniform(-1, 1) * loguniform(1e-6, 1)};
        double xd[2], xr[2];
        CHECK(sys->f(sys->user, t, x, xd) == CCB_OK, "f: %s", ccb_contact_ode_last_error(co));
        box_f(&b, t, x, xr);
        CHECK_ABS(xd[0], xr[0], 0.0, "q' = v");
        CHECK_ABS(xd[1], xr[1], TOL_ROUND * 20.0, "model-based f equals the closed form");
    }
    int nc;
    const double *vc, *f;
    const double x[2] = {0, 0.2};
    CHECK(ccb_contact_ode_contacts(co, 0.1, x, 0.0, &nc, NULL, &vc, &f) == CCB_OK && nc == 1,
          "one contact");
    CHECK_REL(f[2], b.W, 1e-15, 1.0, "fn = k (W/k) = W up to one rounding");
    CHECK_REL(fabs(vc[0]), 0.2, 1e-15, 1.0, "slip speed");
    ccb_contact_ode_destroy(co);
    ccb_model_destroy(m);
}

/* ---- TALS and the Newton convergence test (formulation-tamsi-hydro §C.4, H-B2): a falling,
 * sliding sphere ------- */

/* The sphere of cases.md §4.1 (R = 2.5 cm, m = 0.5 kg, released at z = 5 cm sliding at U0 = 2 m/s,
 * mu = 0.5, k = 1e7 N/m, d = 500 s/m, v_s = 1e-4 m/s) on the continuous model, implicit Euler FN
 * with and without TALS at h = 10 ms (the case's variants ie-fn and ie-fn-tals). A TALS-limited
 * update alpha dx with a tiny alpha once passed the Hairer test far from the root: the step was
 * accepted with the sphere at 8.3 m/s, four times its speed, from a solution that was not one. The
 * tests now read the whole update dx; both runs must end rolling at 5/7 U0 and agree. */
static void test_sphere_ie_tals(void) {
    const double R = 0.025, m = 0.5, U0 = 2.0, T = 0.3, h = 0.01;
    ccb_model* model = NULL;
    CHECK(ccb_model_create(&model) == CCB_OK, "model");
    ccb_model_set_gravity(model, ccb_v3(0, 0, -9.81));
    ccb_body_def gd = ccb_body_def_default();
    gd.name = "ground";
    gd.mobilizer = CCB_MOBILIZER_FIXED;
    ccb_shape_def floor = ccb_shape_def_default();
    floor.material = (ccb_material){INFINITY, 0.0, 0.0, 0.5, 0.0};
    ccb_body_def ball = ccb_body_def_default();
    ball.name = "sphere";
    ball.mass = m;
    ball.inertia = ccb_m3_identity();
    ball.inertia.m[0] = ball.inertia.m[4] = ball.inertia.m[8] = 0.4 * m * R * R;
    ball.pose = ccb_pose_planar(0.0, 0.05, 0.0);
    ball.twist = ccb_twist_planar(U0, 0.0, 0.0);
    ccb_shape_def sph = ccb_shape_def_default();
    sph.type = CCB_SHAPE_SPHERE;
    sph.radius = R;
    sph.material = (ccb_material){1e7, 500.0, 1e-3, 0.5, 0.0};
    int ig, ib;
    CHECK(ccb_model_add_body(model, &gd, &ig) == CCB_OK &&
              ccb_model_add_shape(model, ig, &floor, NULL) == CCB_OK &&
              ccb_model_add_body(model, &ball, &ib) == CCB_OK &&
              ccb_model_add_shape(model, ib, &sph, NULL) == CCB_OK &&
              ccb_model_finalize(model) == CCB_OK,
          "sphere model: %s", ccb_model_last_error(model));
    double u[2];
    long limited = 0;
    for (int tals = 0; tals < 2; ++tals) {
        ccb_sim_params p = ccb_sim_params_default();
        p.dt = h;
        p.solver = CCB_SOLVER_ODE;
        p.vs = 1e-4;
        p.ode.method = CCB_ODE_IE;
        p.ode.newton = CCB_IE_FULL_NEWTON;
        p.ode.tals = tals;
        ccb_sim* sim = NULL;
        char msg[256];
        CHECK(ccb_sim_create(model, &p, &sim, msg, sizeof msg) == CCB_OK, "sim: %s", msg);
        for (long k = 0; k < lround(T / h); ++k) {
            CHECK(ccb_sim_step(sim) == CCB_OK, "step %ld: %s", k, ccb_sim_last_error(sim));
        }
        u[tals] = ccb_sim_v(sim)[0];
        if (tals) {
            limited = ccb_sim_ode_work(sim).n_tals;
        }
        ccb_sim_destroy(sim);
    }
    CHECK(limited > 0, "TALS limited some updates (%ld)", limited);
    /* [rolling without slip from 2 U0/(7 mu g) = 0.12 s on: u = 5/7 U0 up to the regularization
     *  (v_s = 1e-4 of 1.43 m/s) and the compliance (u = omega (R + phi), phi/R ~ 2e-5); measured
     *  |u/(5/7 U0) - 1| = 1.7e-5 for both; 1e-3 leaves room and fails the 8.3 m/s of the bug] */
    CHECK_REL(u[0], 5.0 / 7.0 * U0, 1e-3, 0.0, "ie-fn rolls at 5/7 U0");
    CHECK_REL(u[1], 5.0 / 7.0 * U0, 1e-3, 0.0, "ie-fn-tals rolls at 5/7 U0");
    ccb_model_destroy(model);
}

int main(void) {
    RUN(test_rk3_order);
    RUN(test_work_limits);
    RUN(test_ie_order_and_counts);
    RUN(test_ie_error_control);
    RUN(test_ie_error_control_sampled);
    RUN(test_gsl_reference);
    RUN(test_box_newton_trace);
    RUN(test_box_convergence_control);
    RUN(test_drake_fixed);
    RUN(test_errors);
    RUN(test_contact_ode_box);
    RUN(test_sphere_ie_tals);
    return TEST_SUMMARY();
}
