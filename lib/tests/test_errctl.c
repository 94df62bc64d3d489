/* Unit tests of the error control of the convex step (formulation-convex §15): step doubling
 * without contact against the fixed scheme, the lag defect of Lagged's friction on a landing ball
 * (split from test_sim.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"
#include "model_internal.h"
#include "problem_internal.h"
#include "test.h"
#include "test_models.h"

/* A free body (mass 1, inertia diag(1, 2, 3)) under gravity g, no shapes; spinning if w != 0. */
static ccb_model* ec_body(double g, ccb_vec3 w) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_model_set_gravity(m, ccb_v3(0, 0, -g));
    ccb_body_def d = ccb_body_def_default();
    d.mobilizer = CCB_MOBILIZER_FREE;
    d.name = "body";
    d.inertia = ccb_m3_identity();
    d.inertia.m[4] = 2.0, d.inertia.m[8] = 3.0;
    d.pose = ccb_pose_translation(ccb_v3(0, 0, 1.0));
    d.twist.w = w;
    d.twist.v = ccb_v3(0.5, 0, 0.3);
    ccb_model_add_body(m, &d, NULL);
    ccb_model_finalize(m);
    return m;
}

/* extrap: ccb_sim_ec_params.extrapolate (formulation-convex §15.7) */
static ccb_sim* ec_sim_x(const ccb_model* m, double dt, int ec, double accuracy, int extrap) {
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = dt;
    p.ec.enabled = ec;
    p.ec.accuracy = accuracy;
    p.ec.extrapolate = extrap;
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    return sim;
}

/* the half steps propagated, as CENIC (formulation-convex §15.1) */
static ccb_sim* ec_sim(const ccb_model* m, double dt, int ec, double accuracy) {
    return ec_sim_x(m, dt, ec, accuracy, 0);
}

/* One error-controlled step h (accuracy 1: no rejection) of the body m, extrapolated or not; *est
 * its estimate. Returns its true local error, max over q of the distance to a reference: without
 * extrapolation 512 fixed steps of h/512 (first order: its own error ~1/512 of the step's), with
 * it 64 extrapolated steps of h/64 (second order: ~64^-2 of the step's). */
static double ec_tumble_error(const ccb_model* m, double h, int extrap, double* est) {
    ccb_sim* sim = ec_sim_x(m, h, 1, 1.0, extrap);
    CHECK(ccb_sim_step(sim) == CCB_OK, "tumble: %s", ccb_sim_last_error(sim));
    *est = ccb_sim_get_ec_work(sim).err_last;
    const int n = extrap ? 64 : 512;
    ccb_sim* ref = extrap ? ec_sim_x(m, h / n, 1, 1.0, 1) : ec_sim(m, h / n, 0, 1e-4);
    for (int i = 0; i < n; ++i) {
        ccb_sim_step(ref);
    }
    double e = 0.0;
    for (int i = 0; i < 7; ++i) {
        e = fmax(e, fabs(ccb_sim_q(sim)[i] - ccb_sim_q(ref)[i]));
    }
    ccb_sim_destroy(sim);
    ccb_sim_destroy(ref);
    return e;
}

/* Error control of the convex step (formulation-convex §15).
 * Free fall, one internal step h: the step-doubling estimate is g h^2/4 exactly (full step
 * z0 + v0 h - g h^2, two halves z0 + v0 h - 3 g h^2/4), and so is the true local error of the
 * propagated half-step solution (exact z0 + v0 h - g h^2/2) [round-off of z ~ 1: 1e-10
 * relative]. On a smooth nonlinear problem (a body tumbling torque-free about three axes) the
 * estimate is second order (halving h divides it by 4 +- 1 %; measured 4.0010) and matches the
 * true local error of the propagated solution (ratio 1 +- 2 %; measured 1.0043 and 1.0041 at
 * h = 1e-3 and 5e-4, the reference — 512 fixed steps of h/512 — being off by ~1/256 of it).
 * With an accuracy nothing is rejected at, a step of dt is two fixed steps of dt/2, bit for bit
 * (contact-free: the guesses do not matter). With local extrapolation (§15.7) the free fall is
 * exact, z and v_z [round-off of z ~ 1: 1e-12 m], and the tumbling body's local error is third
 * order (halving h divides it by 8 +- 10 %, against 64 extrapolated steps of h/64; measured
 * 8.00) and far below the estimate. The work
 * limits end the step with CCB_E_LIMIT and the state unchanged; the parameters are checked. */
static void test_error_control(void) {
    const double g = 9.81;
    ccb_model* m = ec_body(g, ccb_v3(0, 0, 0));
    for (int k = 0; k < 2; ++k) {
        const double h = k ? 5e-3 : 1e-2;
        for (int x = 0; x < 2; ++x) {
            ccb_sim* sim = ec_sim_x(m, h, 1, 1.0, x);
            const double z0 = ccb_sim_q(sim)[2], vz0 = ccb_sim_v(sim)[5];
            CHECK(ccb_sim_step(sim) == CCB_OK, "free fall: %s", ccb_sim_last_error(sim));
            const ccb_sim_ec_work w = ccb_sim_get_ec_work(sim);
            CHECK(w.n_steps == 1 && w.n_reject == 0 && w.n_solves == 3, "one step, three solves");
            CHECK_REL(w.err_last, g * h * h / 4, 1e-10, 0, "estimate g h^2/4 [round-off]");
            const double z_exact = z0 + vz0 * h - 0.5 * g * h * h;
            if (x) {
                CHECK(fabs(ccb_sim_q(sim)[2] - z_exact) <= 1e-12 &&
                          fabs(ccb_sim_v(sim)[5] - (vz0 - g * h)) <= 1e-12,
                      "extrapolated free fall exact: z off by %g, v_z by %g",
                      ccb_sim_q(sim)[2] - z_exact, ccb_sim_v(sim)[5] - (vz0 - g * h));
            } else {
                CHECK_REL(fabs(ccb_sim_q(sim)[2] - z_exact), g * h * h / 4, 1e-10, 0,
                          "true local error g h^2/4 [round-off]");
            }
            ccb_sim_destroy(sim);
        }
    }
    /* a -> infinity: one interval of dt is two fixed steps of dt/2 */
    ccb_sim *a = ec_sim(m, 1e-2, 1, 0.5), *b = ec_sim(m, 5e-3, 0, 1e-4);
    for (int k = 0; k < 10; ++k) {
        ccb_sim_step(a);
        ccb_sim_step(b);
        ccb_sim_step(b);
    }
    CHECK(memcmp(ccb_sim_q(a), ccb_sim_q(b), 7 * sizeof(double)) == 0 &&
              memcmp(ccb_sim_v(a), ccb_sim_v(b), 6 * sizeof(double)) == 0,
          "error control without rejections = fixed steps of dt/2, bit for bit");
    CHECK(ccb_sim_time(a) == ccb_sim_time(b) && ccb_sim_time(a) == 0.1, "time on the grid");
    ccb_sim_destroy(a);
    ccb_sim_destroy(b);
    ccb_model_destroy(m);

    /* tumbling: estimate against the true local error of the propagated solution */
    m = ec_body(0.0, ccb_v3(0.3, 1.0, 0.2)); /* torque-free: the rotation alone */
    double est[2], tru[2];
    for (int k = 0; k < 2; ++k) {
        tru[k] = ec_tumble_error(m, k ? 5e-4 : 1e-3, 0, &est[k]);
    }
    CHECK_REL(est[0] / est[1], 4.0, 0.01, 0, "estimate second order [h^2: ratio 4]");
    CHECK_REL(est[0] / tru[0], 1.0, 0.02, 0, "estimate = true local error [leading order]");
    CHECK_REL(est[1] / tru[1], 1.0, 0.02, 0, "estimate = true local error at h/2");
    /* the same steps extrapolated: a third-order local error */
    double trx[2], unused;
    for (int k = 0; k < 2; ++k) {
        trx[k] = ec_tumble_error(m, k ? 5e-4 : 1e-3, 1, &unused);
    }
    CHECK_REL(trx[0] / trx[1], 8.0, 0.1, 0, "extrapolated local error third order [ratio 8]");
    CHECK(trx[0] < 0.1 * est[0], "extrapolated local error %g far below the estimate %g", trx[0],
          est[0]);

    /* work limits and parameters */
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = 1e-2;
    p.ec.enabled = 1;
    p.ec.accuracy = 1e-12;
    p.ec.max_solves = 3;
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    double q0[7];
    memcpy(q0, ccb_sim_q(sim), sizeof q0);
    CHECK(ccb_sim_step(sim) == CCB_E_LIMIT && strstr(ccb_sim_last_error(sim), "max_solves"),
          "solve limit: %s", ccb_sim_last_error(sim));
    CHECK(memcmp(q0, ccb_sim_q(sim), sizeof q0) == 0 && ccb_sim_time(sim) == 0.0,
          "a failed interval leaves the state");
    ccb_sim_destroy(sim);
    p.ec.max_solves = 1000000;
    p.ec.h_min = 2.5e-3;
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    CHECK(ccb_sim_step(sim) == CCB_E_LIMIT && strstr(ccb_sim_last_error(sim), "h_min"),
          "step limit: %s", ccb_sim_last_error(sim));
    ccb_sim_destroy(sim);
    p.ec.h_min = 1e-9;
    p.solver = CCB_SOLVER_TAMSI;
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "does not apply to the tamsi solver"),
          "error control with TAMSI: %s", msg);
    p.solver = CCB_SOLVER_NEWTON;
    p.ec.accuracy = 0.0;
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_E_INVALID && strstr(msg, "accuracy"),
          "accuracy 0: %s", msg);
    ccb_model_destroy(m);
}

/* A ball (sphere_stack's) released with its lowest point `gap` above the floor at velocity
 * (vx, 0, vz); the ball's stiffness k [N/m], dissipation diss [s/m], friction mu. */
static ccb_model* ec_ball(double gap, double vx, double vz, double k, double diss, double mu) {
    ccb_model* m = floor_model(mu);
    add_ball(m, "ball", 0.05 + gap, ccb_v3(vx, 0, vz), (ccb_material){k, diss, 1e-3, mu, 0.0});
    ccb_model_finalize(m);
    return m;
}

/* One error-controlled interval of dt (accuracy 1: a single attempt) of the ball with the lag
 * defect on or off; returns the estimate e. */
static double ec_ball_estimate(const ccb_model* m, const ccb_approx* approx, double dt, int lag) {
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = dt;
    p.approx = approx;
    p.ec.enabled = 1;
    p.ec.accuracy = 1.0;
    p.ec.lag_estimate = lag;
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    CHECK(ccb_sim_step(sim) == CCB_OK, "step: %s", ccb_sim_last_error(sim));
    const ccb_sim_ec_work w = ccb_sim_get_ec_work(sim);
    CHECK(w.n_steps == 1 && w.n_solves == 3, "one internal step");
    ccb_sim_destroy(sim);
    return w.err_last;
}

/* The lag defect of the error estimate (formulation-convex §15.6), on a ball sliding at 1 m/s
 * that touches the floor (gap 0) at 0.5 m/s, with the sphere case's contact (k = 1e7 N/m,
 * d = 500 s/m: the impact is over within the step) and mu = 10, so that the defect dominates
 * (it is proportional to mu; at mu = 0.5 it is 0.15 e_doubling here). With the defect the estimate is
 * max(e_doubling, dt w mu |gamma_n - gamma_n0| |t_s|) of the full step, the second term computed
 * here from a fixed step of dt (the same solve: contacts, start and guess) through the public
 * problem accessors [round-off: 1e-9 relative]; on this step the defect dominates (checked
 * > 1.5 e_doubling, measured 2.05; gamma_n0 = 0 at phi0 = 0, so Lagged transmits no friction while the step absorbs
 * m 0.5 m/s). Where nothing lags it adds nothing [exact: the same estimate]: the ball in flight.
 * SAP and Similar refuse error control (their models change with the step). */
static void test_error_control_lag(void) {
    const double dt = 1e-4;
    ccb_model* m = ec_ball(0.0, 1.0, -0.5, 1e7, 500.0, 10.0);
    const double e0 = ec_ball_estimate(m, &ccb_approx_lagged, dt, 0);
    const double e1 = ec_ball_estimate(m, &ccb_approx_lagged, dt, 1);
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = dt;
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
    CHECK(ccb_sim_step(sim) == CCB_OK, "step: %s", ccb_sim_last_error(sim));
    CHECK(ccb_sim_ncontacts(sim) == 1, "one contact");
    const ccb_contact_result* r = ccb_sim_contact(sim, 0);
    const ccb_constraint* c = ccb_problem_constraint(ccb_sim_problem(sim), 0);
    const ccb_contact_input* in = ccb_problem_contact_input(ccb_sim_problem(sim), 0);
    const double vt = hypot(r->vc[0], r->vc[1]);
    const double defect =
        dt * in->w * c->mu * fabs(r->gamma[2] - c->gn0) * vt / sqrt(vt * vt + c->eps_s * c->eps_s);
    CHECK(defect > 1.5 * e0, "the defect %g dominates e_doubling %g", defect, e0);
    CHECK_REL(e1, defect, 1e-9, 0, "estimate with the lag defect = the defect");
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    /* nothing lags: in flight; SAP */
    m = ec_ball(0.5, 1.0, -0.5, 1e7, 500.0, 10.0);
    CHECK(ec_ball_estimate(m, &ccb_approx_lagged, dt, 1) ==
              ec_ball_estimate(m, &ccb_approx_lagged, dt, 0),
          "in flight: the defect adds nothing");
    ccb_model_destroy(m);
    /* SAP and Similar: error control is not offered (their models change with the step,
     * formulation-convex §15): refused at creation, naming the approximation */
    m = ec_ball(0.0, 1.0, -0.5, 1e7, 500.0, 10.0);
    const ccb_approx* no_ec[2] = {&ccb_approx_sap, &ccb_approx_similar};
    for (int i = 0; i < 2; ++i) {
        ccb_sim_params q = ccb_sim_params_default();
        q.dt = dt;
        q.approx = no_ec[i];
        q.ec.enabled = 1;
        sim = NULL;
        CHECK(ccb_sim_create(m, &q, &sim, msg, sizeof msg) == CCB_E_INVALID && sim == NULL &&
                  strstr(msg, "not offered") && strstr(msg, no_ec[i]->name),
              "error control with %s refused: %s", no_ec[i]->name, msg);
    }
    ccb_model_destroy(m);
}

int main(void) {
    RUN(test_error_control);
    RUN(test_error_control_lag);
    return TEST_SUMMARY();
}
