/* Unit tests of model, geometry and sim: kinematics against finite differences, contact queries,
 * model validation, the steady conveyor offsets of formulation-convex §11 fact 8, resting contact
 * (fact 9), determinism and state preservation on solver failure. */
#include <stdlib.h>

#include "ccb/ccb.h"
#include "model_internal.h"
#include "problem_internal.h"
#include "test.h"

/* [round-off: a few dozen operations on O(1) quantities] */
static const double TOL_ROUND = 1e-12;

/* ---- belt + slider model of fact 8 ----------------------------------------------------------- */

static void belt_motion(double t, void* user, ccb_pose* X, ccb_twist* V) {
    const double U = *(const double*)user;
    *X = ccb_pose_translation(ccb_v3(U * t, 0, 0));
    V->w = ccb_v3(0, 0, 0);
    V->v = ccb_v3(U, 0, 0);
}

typedef struct slider_cfg {
    double m, k, d, tau, mu, U, z0;
    unsigned lock;
} slider_cfg;

static ccb_model* slider_model(slider_cfg* cfg) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def belt = ccb_body_def_default();
    belt.name = "belt";
    belt.mobilizer = CCB_MOBILIZER_PRESCRIBED;
    belt.motion = belt_motion;
    belt.motion_user = &cfg->U;
    int ib = -1, is = -1;
    CHECK(ccb_model_add_body(m, &belt, &ib) == CCB_OK, "add belt: %s", ccb_model_last_error(m));
    ccb_shape_def ground = ccb_shape_def_default();
    ground.material.mu = cfg->mu;
    CHECK(ccb_model_add_shape(m, ib, &ground, NULL) == CCB_OK, "ground");
    ccb_body_def box = ccb_body_def_default();
    box.name = "slider";
    box.mass = cfg->m;
    box.locked = cfg->lock;
    box.pose = ccb_pose_planar(0, cfg->z0, 0);
    CHECK(ccb_model_add_body(m, &box, &is) == CCB_OK, "add slider: %s", ccb_model_last_error(m));
    const ccb_vec3 pt = ccb_v3(0, 0, 0);
    ccb_shape_def mark = ccb_shape_def_default();
    mark.type = CCB_SHAPE_POINTS;
    mark.points = &pt;
    mark.npoints = 1;
    mark.material = (ccb_material){cfg->k, cfg->d, cfg->tau, cfg->mu};
    CHECK(ccb_model_add_shape(m, is, &mark, NULL) == CCB_OK, "marker");
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    return m;
}

/* Runs to steady state; returns the final height (= phi of the marker). */
static double run_steady(ccb_model* m, const ccb_approx* ap, double dt, double T, double eps_r,
                         double* vz_end) {
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = dt;
    p.approx = ap;
    p.newton.eps_r = eps_r;
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "sim_create: %s", msg);
    const long n = lround(T / dt);
    for (long i = 0; i < n; ++i) {
        if (ccb_sim_step(sim) != CCB_OK) {
            CHECK(0, "%s step %ld: %s", ap->name, i, ccb_sim_last_error(sim));
            break;
        }
    }
    const double z = ccb_sim_q(sim)[0];
    *vz_end = ccb_sim_v(sim)[0];
    ccb_sim_destroy(sim);
    return z;
}

static void test_conveyor_offsets_fact8(void) {
    /* formulation-convex §11 fact 8: m = 1, dt = 0.01, k = 1e5, d = 20, tau_d = 0.005, mu = 0.7, U
     * = 1 */
    slider_cfg cfg = {1.0, 1e5, 20.0, 0.005, 0.7, 1.0, -9.81e-5, CCB_LOCK_X | CCB_LOCK_THETA};
    ccb_model* m = slider_model(&cfg);
    const double dt = 0.01, g = 9.81, vs = 1e-4, sigma = 1e-3;
    const double Us = sqrt(cfg.U * cfg.U + vs * vs) - vs;
    const double w = 1.0 / (3.0 * cfg.m); /* slider: J = [0, 0, 1]^T (formulation-convex §4.2) */
    const double Rt = sigma * w, Rn = 1.0 / (dt * cfg.k * (dt + cfg.tau));
    const double expect[3] = {
        -cfg.m * g / cfg.k, cfg.mu * dt * Us - cfg.m * g / (cfg.k * (1 + cfg.mu * cfg.d * Us)),
        cfg.mu * (dt + cfg.tau) * cfg.U - (1 + cfg.mu * cfg.mu * Rt / Rn) * cfg.m * g / cfg.k};
    const double spec_quoted[3] = {-9.81e-5, 6.9928e-3, 1.04017e-2};
    const ccb_approx* ap[3] = {&ccb_approx_lagged, &ccb_approx_similar, &ccb_approx_sap};
    for (int i = 0; i < 3; ++i) {
        double vz;
        const double z = run_steady(m, ap[i], dt, 3.0, 1e-12, &vz);
        /* [solver: eps_r = 1e-12 on impulses ~ m g dt; the steady state is a fixed point of the
         *  discrete map reached geometrically (implicit Euler damps the vertical mode within a
         *  few steps), so after 300 steps only solver round-off remains: 1e-9 relative] */
        CHECK_REL(z, expect[i], 1e-9, 0, "steady offset = closed form of fact 8");
        /* [the spec quotes 5 significant digits] */
        CHECK_REL(z, spec_quoted[i], 5e-5, 0,
                  "steady offset = value quoted in formulation-convex §11 fact 8");
        CHECK_ABS(vz, 0.0, 1e-9, "v_n -> 0 at steady state");
    }
    ccb_model_destroy(m);
}

static void test_resting_contact_fact9(void) {
    /* a 2-dof box resting on a fixed belt: gamma_n -> m g dt, v -> 0; Lagged/Similar sink
     * m g / k, SAP sink m g / k_eff with the near-rigid cap (formulation-convex §4.3) */
    slider_cfg cfg = {1.3, 1e8, 10.0, 1e-3, 0.5, 0.0, 0.0, CCB_LOCK_THETA};
    ccb_model* m = slider_model(&cfg);
    const double dt = 0.01, g = 9.81;
    const double w = sqrt(2.0) / (3.0 * cfg.m); /* J rows t1 = x, n = z: |diag(1,0,1)/m|_F / 3 */
    const double keff = fmin(cfg.k, 4 * CCB_PI * CCB_PI / (w * dt * (dt + cfg.tau)));
    CHECK(keff < cfg.k, "the near-rigid cap is active in this test (k_eff = %g)", keff);
    const ccb_approx* ap[3] = {&ccb_approx_lagged, &ccb_approx_similar, &ccb_approx_sap};
    const double expect[3] = {-cfg.m * g / cfg.k, -cfg.m * g / cfg.k, -cfg.m * g / keff};
    for (int i = 0; i < 3; ++i) {
        ccb_sim_params p = ccb_sim_params_default();
        p.dt = dt;
        p.approx = ap[i];
        p.newton.eps_r = 1e-12;
        ccb_sim* sim = NULL;
        ccb_sim_create(m, &p, &sim, NULL, 0);
        for (int s = 0; s < 300; ++s) {
            CHECK(ccb_sim_step(sim) == CCB_OK, "step: %s", ccb_sim_last_error(sim));
        }
        const ccb_contact_result* c = ccb_sim_contact(sim, 0);
        /* [solver tolerance 1e-12 relative; steady state after 300 damped steps] */
        CHECK_REL(c->gamma[2], cfg.m * g * dt, 1e-9, 0, "gamma_n -> m g dt (fact 9)");
        CHECK_REL(ccb_sim_q(sim)[1], expect[i], 1e-9, 0, "resting sink (fact 9)");
        CHECK_ABS(ccb_sim_v(sim)[0], 0.0, 1e-9, "v_x -> 0");
        ccb_sim_destroy(sim);
    }
    ccb_model_destroy(m);
}

/* Fact 9 for the non-convex solvers: TAMSI (two-way, one-way) and implicit Euler on the
 * continuous model settle at the same rest state as Lagged, phi = -m g / k, with fn = m g.
 * The one-way variant treats the normal force explicitly (formulation-tamsi-hydro §D.2), so it
 * needs omega dt < 2 (omega = sqrt(k/m) = 877 rad/s): dt = 1e-3 for it, 1e-2 for the others. */
static void test_resting_contact_tamsi_ode(void) {
    slider_cfg cfg = {1.3, 1e6, 10.0, 1e-3, 0.5, 0.0, 0.0, CCB_LOCK_THETA};
    ccb_model* m = slider_model(&cfg);
    const double g = 9.81;
    for (int variant = 0; variant < 4; ++variant) {
        const double dt = variant == 1 ? 1e-3 : 1e-2;
        ccb_sim_params p = ccb_sim_params_default();
        p.dt = dt;
        if (variant < 2) {
            p.solver = CCB_SOLVER_TAMSI;
            p.tamsi.coupling = variant == 0 ? CCB_TAMSI_TWO_WAY : CCB_TAMSI_ONE_WAY;
        } else {
            p.solver = CCB_SOLVER_ODE;
            p.ode.newton = variant == 2 ? CCB_IE_FULL_NEWTON : CCB_IE_QUASI_NEWTON;
            p.ode.tals = 1;
        }
        ccb_sim* sim = NULL;
        char msg[256];
        CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
        for (int s = 0; s < lround(4.0 / dt); ++s) {
            const ccb_status st = ccb_sim_step(sim);
            if (st != CCB_OK) {
                CHECK(0, "variant %d step %d: %s", variant, s, ccb_sim_last_error(sim));
                break;
            }
        }
        const ccb_contact_result* c = ccb_sim_contact(sim, 0);
        CHECK(c != NULL, "variant %d: contact reported", variant);
        if (c) {
            /* [TAMSI stops at velocity updates below rho v_s = 1e-6 m/s; implicit Euler's
             *  Newton at kappa a = 5e-3 on the state but converges exactly on this linear rest
             *  problem; after 4 s of damped motion the rest state is reached to ~1e-8] */
            CHECK_REL(c->force[2], cfg.m * g, 1e-6, 0, "fn -> m g");
        }
        CHECK_REL(ccb_sim_q(sim)[1], -cfg.m * g / cfg.k, 1e-6, 0, "rest sink phi = -m g / k");
        CHECK_ABS(ccb_sim_v(sim)[0], 0.0, 1e-6, "at rest");
        ccb_sim_destroy(sim);
    }
    ccb_model_destroy(m);
}

/* The borrowed views of a step (ccb_sim_problem, ccb_problem_*, ccb_sim_newton, ccb_sim_tamsi,
 * ccb_tamsi_forces) describe the step just taken: a slider (x, z) pressed into a belt moving at
 * U, one contact. v0 is the velocity before the step [exact copy], v* - v0 = dt g on z and 0 on x
 * (no damping, gravity the only force) [round-off of one multiply-add], the problem's approximation
 * and sizes are the configured ones, the solver workspace of the other solver is NULL, and
 * TAMSI's contact forces are the sim's reported forces [gamma/dt of the same numbers:
 * round-off]. */
static void test_step_views(void) {
    slider_cfg cfg = {1.0, 1e5, 0.0, 0.0, 0.5, 0.3, -1e-4, CCB_LOCK_THETA};
    ccb_model* m = slider_model(&cfg);
    const double dt = 1e-3, g = 9.81;
    for (int tamsi = 0; tamsi < 2; ++tamsi) {
        ccb_sim_params p = ccb_sim_params_default();
        p.dt = dt;
        p.approx = &ccb_approx_lagged;
        p.solver = tamsi ? CCB_SOLVER_TAMSI : CCB_SOLVER_NEWTON;
        ccb_sim* sim = NULL;
        char msg[256];
        CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
        CHECK(ccb_sim_step(sim) == CCB_OK, "first step: %s", ccb_sim_last_error(sim));
        double v_before[2];
        memcpy(v_before, ccb_sim_v(sim), sizeof v_before);
        CHECK(ccb_sim_step(sim) == CCB_OK, "second step: %s", ccb_sim_last_error(sim));
        const ccb_problem* pb = ccb_sim_problem(sim);
        CHECK(pb != NULL, "the step's problem");
        if (pb == NULL) {
            ccb_sim_destroy(sim);
            continue;
        }
        CHECK(ccb_problem_nv(pb) == 2 && ccb_problem_nc(pb) == 1 && ccb_sim_ncontacts(sim) == 1,
              "sizes: nv %d (2), nc %d (1)", ccb_problem_nv(pb), ccb_problem_nc(pb));
        CHECK(ccb_problem_approx(pb) == &ccb_approx_lagged, "the configured approximation");
        const double *v0 = ccb_problem_v0(pb), *vs = ccb_problem_vstar(pb);
        CHECK(v0[0] == v_before[0] && v0[1] == v_before[1], "v0 = the velocity before the step");
        CHECK_ABS(vs[0] - v0[0], 0.0, 0.0, "v* - v0 = 0 on x (no force but contact)");
        CHECK_REL(vs[1] - v0[1], -g * dt, 1e-12, 0, "v* - v0 = -g dt on z");
        CHECK((ccb_sim_newton(sim) != NULL) == !tamsi && (ccb_sim_tamsi(sim) != NULL) == tamsi,
              "solver %d: only its own workspace is exposed", tamsi);
        if (tamsi && ccb_sim_tamsi(sim)) {
            const double* f = ccb_tamsi_forces(ccb_sim_tamsi(sim));
            const ccb_contact_result* c = ccb_sim_contact(sim, 0);
            for (int k = 0; k < 3; ++k) {
                CHECK_REL(f[k], c->force[k], 1e-14, 1e-12, "TAMSI's force = the reported force");
            }
            CHECK(f[2] > 0, "pressed in: fn > 0 (%g)", f[2]);
        }
        ccb_sim_destroy(sim);
    }
    ccb_model_destroy(m);
}

/* Physics metrics (ccb/metrics.h, formulation-convex §14) on hand-built contact states whose
 * values are known [round-off of a few products: 1e-15], and on solved steps: SAP's impulse is
 * an exact projection on the cone [cone = 0 to round-off], Newton's momentum residual is what its
 * stopping test bounds [<= eps_r], the sliding slider of SAP glides (its gap is positive while it
 * pushes: signorini > 0, the model's known artefact), Lagged's does not. */
static void test_physics_metrics(void) {
    const double tol = 1e-15;
    struct {
        double g[3], vc[3], phi, mu;
        double sig, cone, diss, comp;
        const char* what;
    } k[] = {
        {{0.3, 0.4, 1.0}, {0, 0, 0}, 0, 0.8, 0, 0, 0, 0, "exact stick"},
        {{-0.6, 0.8, 2.0}, {0.6, -0.8, 0}, 0, 0.5, 0, 0, 0, 0, "exact slide"},
        {{1.0, 0, 1.0}, {0, 0, 0}, 0, 0.5, 0, 0.5, 0, 0, "outside the cone"},
        {{0, 0.5, 1.0}, {1, 0, 0}, 0, 0.5, 0, 0, 0.5, 0.5, "friction across the slip"},
        {{0, 0, 2.0}, {0, 0, 0}, 0.01, 0.5, 0.02, 0, 0, 0, "pushing across a gap"},
        {{0, 0, 2.0}, {0, 0, 0.1}, 0, 0.5, 0, 0, 0, 0.2, "pushing while separating"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i) {
        ccb_physics_metrics m;
        memset(&m, 0, sizeof m);
        ccb_physics_add_contact(k[i].g, k[i].vc, k[i].phi, k[i].mu, &m);
        CHECK_ABS(m.signorini, k[i].sig, tol, k[i].what);
        CHECK_ABS(m.cone, k[i].cone, tol, k[i].what);
        CHECK_ABS(m.dissipation, k[i].diss, tol, k[i].what);
        CHECK_ABS(m.complementarity, k[i].comp, tol, k[i].what);
    }
    /* the slider held in x on a belt at 1 m/s: it slides all the time (fact 8) */
    slider_cfg cfg = {1.0, 1e5, 20.0, 5e-3, 0.7, 1.0, -9.81e-5, CCB_LOCK_X | CCB_LOCK_THETA};
    ccb_model* m = slider_model(&cfg);
    const ccb_approx* aps[2] = {&ccb_approx_sap, &ccb_approx_lagged};
    double signorini[2] = {0, 0};
    for (int a = 0; a < 2; ++a) {
        ccb_sim_params p = ccb_sim_params_default();
        p.dt = 0.01;
        p.approx = aps[a];
        ccb_sim* sim = NULL;
        char msg[256];
        CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "create: %s", msg);
        ccb_physics_metrics pm;
        CHECK(ccb_sim_physics_metrics(sim, &pm) == CCB_E_INVALID, "no metrics before a step");
        for (int s = 0; s < 100; ++s) {
            CHECK(ccb_sim_step(sim) == CCB_OK, "%s step %d: %s", aps[a]->name, s,
                  ccb_sim_last_error(sim));
            CHECK(ccb_sim_physics_metrics(sim, &pm) == CCB_OK, "metrics");
            CHECK(pm.momentum <= p.newton.eps_r * (1 + 1e-9), "%s: momentum residual %g > eps_r",
                  aps[a]->name, pm.momentum);
            if (a == 0) {
                CHECK_ABS(pm.cone, 0.0, tol * 10, "SAP: the impulse is in the cone");
            }
            CHECK(pm.dissipation >= -tol, "%s: dissipation gap >= 0 (%g)", aps[a]->name,
                  pm.dissipation);
        }
        signorini[a] = pm.signorini;
        ccb_sim_destroy(sim);
    }
    CHECK(signorini[0] > 100 * signorini[1] && signorini[0] > 0,
          "SAP glides while it pushes (signorini %g), Lagged does not (%g)", signorini[0],
          signorini[1]);
    ccb_model_destroy(m);
}

/* ---- kinematics and geometry ------------------------------------------------------------------
 * */

static void test_planar_jacobian(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def d = ccb_body_def_default();
    d.name = "b";
    d.mass = 2.385;
    d.inertia.m[4] = 0.0123;
    int ib;
    ccb_model_add_body(m, &d, &ib);
    ccb_model_finalize(m);
    const ccb_body* b = &m->bodies[ib];
    for (int trial = 0; trial < 50; ++trial) {
        double q[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-3, 3)};
        const ccb_vec3 pB = ccb_v3(uniform(-0.3, 0.3), uniform(-0.3, 0.3), uniform(-0.3, 0.3));
        ccb_pose X;
        ccb_body_pose(b, 0, q, &X);
        const ccb_vec3 pW = ccb_v3_add(X.p, ccb_m3_mul_v(&X.R, pB));
        double Jp[9];
        ccb_body_point_jacobian(b, q, pW, Jp);
        for (int k = 0; k < 3; ++k) {
            const double h = 1e-6;
            double qp[3] = {q[0], q[1], q[2]}, qm[3] = {q[0], q[1], q[2]};
            qp[k] += h;
            qm[k] -= h;
            ccb_pose Xp, Xm;
            ccb_body_pose(b, 0, qp, &Xp);
            ccb_body_pose(b, 0, qm, &Xm);
            const ccb_vec3 a = ccb_v3_add(Xp.p, ccb_m3_mul_v(&Xp.R, pB));
            const ccb_vec3 c = ccb_v3_add(Xm.p, ccb_m3_mul_v(&Xm.R, pB));
            const double fd[3] = {(a.x - c.x) / (2 * h), (a.y - c.y) / (2 * h),
                                  (a.z - c.z) / (2 * h)};
            for (int r = 0; r < 3; ++r) {
                /* [central FD, h = 1e-6 on O(1) trig functions: error ~h^2 + eps/h ~ 1e-10] */
                CHECK_ABS(Jp[3 * r + k], fd[r], 1e-8, "point Jacobian = FD of the point position");
            }
        }
        /* mass matrix diag(m, m, I_yy) */
        double M[9];
        ccb_body_mass_matrix(b, q, M);
        const double Mx[9] = {2.385, 0, 0, 0, 2.385, 0, 0, 0, 0.0123};
        for (int i = 0; i < 9; ++i) {
            CHECK_ABS(M[i], Mx[i], TOL_ROUND, "planar mass matrix");
        }
    }
    ccb_model_destroy(m);
}

static void test_box_halfspace_query(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def g = ccb_body_def_default();
    g.name = "ground";
    g.mobilizer = CCB_MOBILIZER_FIXED;
    g.pose = ccb_pose_planar(0, 0, 0);
    int ig, ib;
    ccb_model_add_body(m, &g, &ig);
    ccb_shape_def hs = ccb_shape_def_default();
    hs.material.mu = 0.4;
    ccb_model_add_shape(m, ig, &hs, NULL);
    ccb_body_def d = ccb_body_def_default();
    d.name = "box";
    const double th = 0.3, z = 0.25;
    d.pose = ccb_pose_planar(0.1, z, th);
    ccb_model_add_body(m, &d, &ib);
    ccb_shape_def bx = ccb_shape_def_default();
    bx.type = CCB_SHAPE_BOX;
    bx.half_extents = ccb_v3(0.1, 0.2, 0.3);
    bx.material = (ccb_material){2e6, 5.0, 1e-3, 0.6};
    ccb_model_add_shape(m, ib, &bx, NULL);
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    double q[3], v[3];
    ccb_model_initial_state(m, q, v);
    ccb_contact_set cs = {0};
    const double margin = 0.05;
    CHECK(ccb_geometry_query(m, 0, q, margin, &cs, NULL, 0) == CCB_OK, "query");
    int expected = 0;
    for (int i = 0; i < 8; ++i) {
        const double cx = (i & 1) ? 0.1 : -0.1, cz = (i & 4) ? 0.3 : -0.3;
        const double phi = z - sin(th) * cx + cos(th) * cz; /* R_y(th) row z = (-s, 0, c) */
        if (phi < margin) {
            int found = 0;
            for (int k = 0; k < cs.n; ++k) {
                if (cs.items[k].feature == i) {
                    found = 1;
                    CHECK_ABS(cs.items[k].phi0, phi, TOL_ROUND, "corner signed distance");
                    /* rigid ground: the contact point lies on the plane */
                    CHECK_ABS(cs.items[k].p.z, 0.0, TOL_ROUND, "contact point on the rigid plane");
                    const ccb_mat3* R = &cs.items[k].R_WC;
                    CHECK(R->m[2] == 0 && R->m[5] == 0 && R->m[8] == 1, "normal +z from A to B");
                    CHECK(R->m[0] == 1 && R->m[4] == 1, "t1 = x, t2 = y");
                    CHECK(cs.items[k].body_a == ig && cs.items[k].body_b == ib, "A = ground");
                    CHECK_ABS(cs.items[k].material.k, 2e6, 0, "rigid side: k of the box");
                    CHECK_ABS(cs.items[k].material.mu, 2 * 0.4 * 0.6 / 1.0, TOL_ROUND,
                              "mu = 2 muA muB/(muA + muB)");
                }
            }
            CHECK(found, "corner %d with phi %g < margin is reported", i, phi);
            expected++;
        }
    }
    CHECK(cs.n == expected && expected > 0 && expected < 8, "contacts within the margin: %d of %d",
          cs.n, expected);
    char msg[128];
    CHECK(ccb_geometry_query(m, 0, q, -1.0, &cs, msg, sizeof msg) == CCB_E_INVALID, "bad margin");
    ccb_contact_set_free(&cs);
    ccb_model_destroy(m);
}

/* Sphere and capsule against a rigid half-space: phi = n.(p - o) - r, contact point on the plane.
 * */
static void test_sphere_capsule_query(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def g = ccb_body_def_default();
    g.name = "ground";
    g.mobilizer = CCB_MOBILIZER_FIXED;
    g.pose = ccb_pose_translation(ccb_v3(0, 0, 0.013)); /* plane z = 0.013 */
    int ig, is, ir;
    ccb_model_add_body(m, &g, &ig);
    ccb_shape_def hs = ccb_shape_def_default();
    hs.material.mu = 0.5;
    ccb_model_add_shape(m, ig, &hs, NULL);
    ccb_body_def sb = ccb_body_def_default();
    sb.name = "ball";
    sb.pose = ccb_pose_planar(0.2, 0.051, 0.4);
    ccb_model_add_body(m, &sb, &is);
    ccb_shape_def sph = ccb_shape_def_default();
    sph.type = CCB_SHAPE_SPHERE;
    sph.radius = 0.025;
    sph.material = (ccb_material){1e7, 500, 1e-3, 0.5};
    CHECK(ccb_model_add_shape(m, is, &sph, NULL) == CCB_OK, "sphere: %s", ccb_model_last_error(m));
    ccb_body_def rb = ccb_body_def_default();
    rb.name = "rod";
    const double th = 0.5235987755982988, l = 0.25, rc = 0.005;
    rb.pose = ccb_pose_planar(-0.4, 0.013 + rc + l * sin(th) + 1e-4, th);
    ccb_model_add_body(m, &rb, &ir);
    ccb_shape_def cap = ccb_shape_def_default();
    cap.type = CCB_SHAPE_CAPSULE;
    cap.radius = rc;
    cap.half_length = l;
    cap.material = (ccb_material){1e7, 0, 0, 2.3};
    CHECK(ccb_model_add_shape(m, ir, &cap, NULL) == CCB_OK, "capsule: %s", ccb_model_last_error(m));
    ccb_model_filter_pair(m, is, ir);
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    double q[6], v[6];
    ccb_model_initial_state(m, q, v);
    ccb_contact_set cs = {0};
    CHECK(ccb_geometry_query(m, 0, q, 0.1, &cs, NULL, 0) == CCB_OK, "query");
    /* sphere: one contact; capsule: only the lower end is within the margin */
    CHECK(cs.n == 2, "two contacts (got %d)", cs.n);
    for (int k = 0; k < cs.n; ++k) {
        const ccb_contact* c = &cs.items[k];
        CHECK_ABS(c->p.z, 0.013, TOL_ROUND, "contact point on the plane");
        if (c->body_b == is) {
            CHECK_ABS(c->phi0, 0.051 - 0.013 - 0.025, TOL_ROUND, "sphere phi = z - R");
            CHECK_ABS(c->p.x, 0.2, TOL_ROUND, "below the centre");
        } else {
            CHECK(c->body_b == ir && c->feature == 1, "capsule lower end is feature 1");
            CHECK_ABS(c->phi0, 1e-4, 1e-12, "capsule end phi = height - r");
            CHECK_ABS(c->p.x, -0.4 + l * cos(th), TOL_ROUND, "lower end at +x (R_y(theta))");
            CHECK_ABS(c->material.mu, 2 * 0.5 * 2.3 / 2.8, TOL_ROUND, "combined mu");
        }
    }
    ccb_contact_set_free(&cs);
    ccb_model_destroy(m);
    /* invalid radii */
    ccb_model_create(&m);
    ccb_model_add_body(m, &sb, &is);
    sph.radius = 0;
    CHECK(ccb_model_add_shape(m, is, &sph, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "radius"),
          "sphere radius 0 rejected: %s", ccb_model_last_error(m));
    cap.half_length = -1;
    CHECK(ccb_model_add_shape(m, is, &cap, NULL) == CCB_E_INVALID, "negative half length");
    ccb_model_destroy(m);
}

/* The pair check of ccb_model_finalize works on classes of shapes; against the check of every
 * shape pair (here, written out) it accepts the same models and names the same first pair. */
static int brute_first_bad_pair(const ccb_model* m, int* fi, int* fj) {
    for (int i = 0; i < m->nshapes; ++i) {
        for (int j = i + 1; j < m->nshapes; ++j) {
            const ccb_shape *si = &m->shapes[i], *sj = &m->shapes[j];
            const int bi = si->body, bj = sj->body;
            /* before finalize: moving = planar (nothing locked here), filters as added */
            const int moving_i = m->bodies[bi].def.mobilizer == CCB_MOBILIZER_PLANAR,
                      moving_j = m->bodies[bj].def.mobilizer == CCB_MOBILIZER_PLANAR;
            int filt = 0;
            for (int f = 0; f < m->nfilters; ++f) {
                const int* fp = m->filters + 2 * f;
                filt |= (fp[0] == bi && fp[1] == bj) || (fp[0] == bj && fp[1] == bi);
            }
            if (bi == bj || (!moving_i && !moving_j) || filt) {
                continue;
            }
            int a, b;
            const ccb_pair_kind kind = ccb_shape_pair_kind(m, i, j, &a, &b);
            const int rigid = isinf(si->def.material.k) && isinf(sj->def.material.k);
            if (kind != CCB_PAIR_NONE && !rigid) {
                continue;
            }
            *fi = i;
            *fj = j;
            return 1;
        }
    }
    return 0;
}

static void test_pair_check_classes(void) {
    const ccb_shape_type types[4] = {CCB_SHAPE_HALFSPACE, CCB_SHAPE_BOX, CCB_SHAPE_SPHERE,
                                     CCB_SHAPE_CAPSULE};
    int bad = 0, good = 0;
    for (int trial = 0; trial < 400; ++trial) {
        ccb_model* m = NULL;
        ccb_model_create(&m);
        const int nb = 2 + trial % 5;
        for (int k = 0; k < nb; ++k) {
            ccb_body_def d = ccb_body_def_default();
            char name[16];
            snprintf(name, sizeof name, "b%d", k);
            d.name = name;
            if (urand() < 0.4) {
                d.mobilizer = CCB_MOBILIZER_FIXED;
            }
            ccb_model_add_body(m, &d, NULL);
        }
        const int ns = 2 + (int)(urand() * 10);
        for (int k = 0; k < ns; ++k) {
            ccb_shape_def s = ccb_shape_def_default();
            s.type = types[(int)(urand() * 4) % 4];
            s.half_extents = ccb_v3(0.1, 0.1, 0.1);
            s.radius = 0.05;
            s.half_length = 0.1;
            s.material.k = urand() < 0.3 ? INFINITY : 1e6;
            ccb_model_add_shape(m, (int)(urand() * nb) % nb, &s, NULL);
        }
        for (int k = 0; k < 2; ++k) {
            if (urand() < 0.5) {
                ccb_model_filter_pair(m, (int)(urand() * nb) % nb, (int)(urand() * nb) % nb);
            }
        }
        /* the expected verdict, from the model before finalize (shapes and filters are set) */
        int fi = -1, fj = -1;
        const int expect_bad = brute_first_bad_pair(m, &fi, &fj);
        const ccb_status st = ccb_model_finalize(m);
        if (expect_bad) {
            bad++;
            const char* e = ccb_model_last_error(m);
            CHECK(st == CCB_E_INVALID && strstr(e, m->shapes[fi].name) &&
                      strstr(e, m->shapes[fj].name),
                  "trial %d: first bad pair %s/%s expected, got: %s", trial, m->shapes[fi].name,
                  m->shapes[fj].name, st == CCB_OK ? "(accepted)" : e);
        } else {
            good++;
            CHECK(st == CCB_OK, "trial %d: accepted by the pairwise check, rejected: %s", trial,
                  ccb_model_last_error(m));
        }
        ccb_model_destroy(m);
    }
    CHECK(bad > 50 && good > 50, "both verdicts exercised (%d rejected, %d accepted)", bad, good);
}

static void test_model_validation(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def d = ccb_body_def_default();
    d.name = "box";
    d.mass = -1.5;
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "'box'") && strstr(ccb_model_last_error(m), "mass"),
          "negative mass: %s", ccb_model_last_error(m));
    d.mass = 1;
    d.inertia.m[4] = NAN;
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID, "NaN inertia: %s",
          ccb_model_last_error(m));
    d = ccb_body_def_default();
    d.name = "box";
    d.locked = CCB_LOCK_THETA;
    d.twist = ccb_twist_planar(0, 0, 1.0);
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "theta"),
          "locked coordinate with velocity: %s", ccb_model_last_error(m));
    d.twist = ccb_twist_planar(0, 0, 0);
    d.name = "bad name!";
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID, "invalid name");
    d.name = "box";
    int a, b;
    CHECK(ccb_model_add_body(m, &d, &a) == CCB_OK, "valid body");
    CHECK(ccb_model_add_body(m, &d, NULL) == CCB_E_INVALID, "duplicate name");
    d.name = "box2";
    ccb_model_add_body(m, &d, &b);
    ccb_body_def pr = ccb_body_def_default();
    pr.name = "belt";
    pr.mobilizer = CCB_MOBILIZER_PRESCRIBED;
    CHECK(ccb_model_add_body(m, &pr, NULL) == CCB_E_INVALID, "prescribed without motion");
    ccb_shape_def s = ccb_shape_def_default();
    s.type = CCB_SHAPE_BOX;
    s.half_extents = ccb_v3(0.1, 0.1, 0.1);
    s.material.k = 1e6;
    s.material.mu = -0.1;
    CHECK(ccb_model_add_shape(m, a, &s, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "mu"),
          "negative mu: %s", ccb_model_last_error(m));
    s.material.mu = 0.5;
    s.half_extents.y = 0;
    CHECK(ccb_model_add_shape(m, a, &s, NULL) == CCB_E_INVALID, "zero box extent");
    s.half_extents.y = 0.1;
    CHECK(ccb_model_add_shape(m, 7, &s, NULL) == CCB_E_INVALID, "bad body index");
    ccb_model_add_shape(m, a, &s, NULL);
    ccb_model_add_shape(m, b, &s, NULL);
    CHECK(ccb_model_finalize(m) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "no contact query"),
          "box vs box without a query: %s", ccb_model_last_error(m));
    ccb_model_destroy(m);
    /* filtered pair finalizes; two rigid shapes do not */
    ccb_model_create(&m);
    d.name = "p";
    ccb_model_add_body(m, &d, &a);
    d.name = "q";
    ccb_model_add_body(m, &d, &b);
    ccb_model_add_shape(m, a, &s, NULL);
    ccb_model_add_shape(m, b, &s, NULL);
    ccb_model_filter_pair(m, b, a);
    CHECK(ccb_model_finalize(m) == CCB_OK, "filtered pair: %s", ccb_model_last_error(m));
    ccb_model_destroy(m);
    ccb_model_create(&m);
    d.name = "p";
    ccb_model_add_body(m, &d, &a);
    ccb_shape_def h = ccb_shape_def_default();
    ccb_model_add_shape(m, a, &h, NULL);
    d.name = "g";
    d.mobilizer = CCB_MOBILIZER_FIXED;
    ccb_model_add_body(m, &d, &b);
    s.material.k = INFINITY;
    ccb_model_add_shape(m, b, &s, NULL);
    CHECK(ccb_model_finalize(m) == CCB_E_INVALID && strstr(ccb_model_last_error(m), "rigid"),
          "two rigid shapes: %s", ccb_model_last_error(m));
    ccb_model_destroy(m);
}

/* ---- determinism and failure ------------------------------------------------------------------
 * */

static void test_determinism_and_failure(void) {
    slider_cfg cfg = {1.0, 1e7, 500.0, 1e-3, 0.7, 1.2566, -9.81e-7, CCB_LOCK_THETA};
    ccb_model* m = slider_model(&cfg);
    double qf[2][2], vf[2][2];
    for (int run = 0; run < 2; ++run) {
        ccb_sim_params p = ccb_sim_params_default();
        p.dt = 0.01;
        p.approx = &ccb_approx_similar;
        ccb_sim* sim = NULL;
        ccb_sim_create(m, &p, &sim, NULL, 0);
        for (int s = 0; s < 100; ++s) {
            ccb_sim_step(sim);
        }
        memcpy(qf[run], ccb_sim_q(sim), sizeof qf[run]);
        memcpy(vf[run], ccb_sim_v(sim), sizeof vf[run]);
        ccb_sim_destroy(sim);
    }
    CHECK(memcmp(qf[0], qf[1], sizeof qf[0]) == 0 && memcmp(vf[0], vf[1], sizeof vf[0]) == 0,
          "same inputs give bit-identical states [exact]");
    /* a solver failure leaves the state untouched and is reported */
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = 0.01;
    p.approx = &ccb_approx_lagged;
    p.newton.max_iterations = 1;
    p.newton.eps_r = 1e-14;
    ccb_sim* sim = NULL;
    ccb_sim_create(m, &p, &sim, NULL, 0);
    const double v0[2] = {3.0, -1.0}, q0[2] = {0.0, -1e-4};
    ccb_sim_set_state(sim, 0.5, q0, v0);
    const ccb_status s = ccb_sim_step(sim);
    CHECK(s == CCB_E_NOTCONV, "step reports non-convergence (status %d)", (int)s);
    const ccb_step_stats* st = ccb_sim_step_stats(sim);
    CHECK(st->status == CCB_E_NOTCONV, "stats carry the status");
    CHECK(st->counter[CCB_CNT_ITERATIONS] == 1 && isnan(st->counter[CCB_CNT_F_EVALS]) &&
              isnan(st->counter[CCB_CNT_SUBSTEPS]),
          "the Newton rows filled (iterations %g: the cap), the rows of other solvers NAN",
          st->counter[CCB_CNT_ITERATIONS]);
    CHECK(memcmp(ccb_sim_q(sim), q0, sizeof q0) == 0 &&
              memcmp(ccb_sim_v(sim), v0, sizeof v0) == 0 && ccb_sim_time(sim) == 0.5,
          "state bit-identical after a failed step [exact]");
    CHECK(strstr(ccb_sim_last_error(sim), "t = 0.5") != NULL, "message names the time: %s",
          ccb_sim_last_error(sim));
    ccb_sim_destroy(sim);
    /* invalid simulation parameters */
    p = ccb_sim_params_default();
    p.dt = -0.01;
    char msg[256] = "";
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_E_INVALID && sim == NULL &&
              strstr(msg, "dt"),
          "negative dt: %s", msg);
    ccb_model_destroy(m);
}

/* A model with a floor half-space of friction mu (not finalized). */
static ccb_model* floor_model(double mu) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def g = ccb_body_def_default();
    g.name = "ground";
    g.mobilizer = CCB_MOBILIZER_FIXED;
    int ig;
    ccb_model_add_body(m, &g, &ig);
    ccb_shape_def hs = ccb_shape_def_default();
    hs.material.mu = mu;
    ccb_model_add_shape(m, ig, &hs, NULL);
    return m;
}

/* Adds a free sphere (r = 5 cm, 0.5 kg) centred at height z with velocity v and material mat. */
static void add_ball(ccb_model* m, const char* name, double z, ccb_vec3 v, ccb_material mat) {
    ccb_body_def d = ccb_body_def_default();
    d.mobilizer = CCB_MOBILIZER_FREE;
    d.name = name;
    d.mass = 0.5;
    d.inertia = ccb_m3_identity();
    d.inertia.m[0] = d.inertia.m[4] = d.inertia.m[8] = 0.4 * 0.5 * 0.05 * 0.05;
    d.pose.p = ccb_v3(0, 0, z);
    d.twist.v = v;
    int ib;
    ccb_model_add_body(m, &d, &ib);
    ccb_shape_def sp = ccb_shape_def_default();
    sp.type = CCB_SHAPE_SPHERE;
    sp.radius = 0.05;
    sp.material = mat;
    ccb_model_add_shape(m, ib, &sp, NULL);
}

/* n free spheres (r = 5 cm, 0.5 kg) stacked on a floor half-space, touching. */
static ccb_model* sphere_stack(int n) {
    ccb_model* m = floor_model(0.5);
    for (int i = 0; i < n; ++i) {
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        add_ball(m, name, 0.05 + 0.1 * i, ccb_v3(0, 0, 0), (ccb_material){1e6, 10, 1e-3, 0.5});
    }
    ccb_model_finalize(m);
    return m;
}

/* No allocation in the step loop once the workspaces have grown (STYLE §4): one clique, so the
 * default linear solver uses the dense kernel and CHOLMOD is not called. [exact: 0] */
static void test_no_allocation_in_step_loop(void) {
    slider_cfg cfg = {1.0, 1e7, 500.0, 1e-3, 0.7, 1.2566, -9.81e-7, CCB_LOCK_THETA};
    ccb_model* m = slider_model(&cfg);
    for (int a = 0; a < ccb_approx_count(); ++a) {
        ccb_sim_params p = ccb_sim_params_default();
        p.approx = ccb_approx_get(a);
        p.newton.compute_kappa = 1;
        ccb_sim* sim = NULL;
        ccb_sim_create(m, &p, &sim, NULL, 0);
        check_steps_without_allocation(sim, 20, 200, p.approx->name);
        ccb_sim_destroy(sim);
    }
    /* several cliques: a stack of free spheres on the floor (CHOLMOD, UMFPACK; their per-call
     * workspaces come from the recycling pool) */
    {
        ccb_model* ms = sphere_stack(4);
        for (int v = 0; v <= ccb_approx_count(); ++v) { /* every approximation, then TAMSI */
            ccb_sim_params p = ccb_sim_params_default();
            p.dt = 2e-3;
            p.margin = 0.05; /* only neighbours pair up: a fixed contact graph */
            if (v < ccb_approx_count()) {
                p.approx = ccb_approx_get(v);
            } else {
                p.solver = CCB_SOLVER_TAMSI;
            }
            ccb_sim* sim = NULL;
            ccb_sim_create(ms, &p, &sim, NULL, 0);
            char what[48];
            snprintf(what, sizeof what, "stack, variant %d", v);
            check_steps_without_allocation(sim, 50, 200, what);
            ccb_sim_destroy(sim);
        }
        ccb_model_destroy(ms);
    }
    for (int solver = 1; solver <= 2; ++solver) { /* TAMSI (dense LU), implicit Euler */
        ccb_sim_params p = ccb_sim_params_default();
        p.solver = ccb_solver_get(solver);
        p.ode.tals = 1;
        ccb_sim* sim = NULL;
        ccb_sim_create(m, &p, &sim, NULL, 0);
        check_steps_without_allocation(sim, 20, 200, ccb_solver_name(ccb_solver_get(solver)));
        ccb_sim_destroy(sim);
    }
    ccb_model_destroy(m);
}

/* ---- free bodies (issue 5) ------------------------------------------------------------------- */

static ccb_mat3 random_rot(void) {
    double R[9];
    random_rotation(R);
    ccb_mat3 M;
    memcpy(M.m, R, sizeof R);
    return M;
}

static void test_free_body_kinematics(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def d = ccb_body_def_default();
    d.name = "b";
    d.mobilizer = CCB_MOBILIZER_FREE;
    d.mass = 1.7;
    d.inertia = ccb_m3_identity();
    d.inertia.m[0] = 0.02, d.inertia.m[4] = 0.03, d.inertia.m[8] = 0.045;
    d.inertia.m[1] = d.inertia.m[3] = 0.004;
    d.pose.R = random_rot();
    d.pose.p = ccb_v3(0.1, -0.2, 0.3);
    d.twist.w = ccb_v3(1, -2, 0.5);
    d.twist.v = ccb_v3(0.3, 0.1, -0.4);
    int ib;
    CHECK(ccb_model_add_body(m, &d, &ib) == CCB_OK, "add: %s", ccb_model_last_error(m));
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize");
    CHECK(ccb_model_nq(m) == 7 && ccb_model_nv(m) == 6, "nq 7, nv 6");
    CHECK(strcmp(ccb_model_q_name(m, 3), "b.qw") == 0 &&
              strcmp(ccb_model_v_name(m, 0), "b.wx") == 0,
          "coordinate names");
    double q[7], v[6];
    ccb_model_initial_state(m, q, v);
    const ccb_body* b = &m->bodies[ib];
    ccb_pose X;
    ccb_body_pose(b, 0, q, &X);
    for (int i = 0; i < 9; ++i) {
        CHECK_ABS(X.R.m[i], d.pose.R.m[i], TOL_ROUND, "quaternion round trip of the initial pose");
    }
    for (int trial = 0; trial < 50; ++trial) {
        ccb_mat3 R = random_rot();
        double qq[7] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
        ccb_quat_from_m3(&R, qq + 3);
        double vv[6];
        for (int k = 0; k < 6; ++k) {
            vv[k] = uniform(-2, 2);
        }
        /* point Jacobian against the derivative of the point position along qdot = N(q) v */
        const ccb_vec3 pB = ccb_v3(uniform(-0.3, 0.3), uniform(-0.3, 0.3), uniform(-0.3, 0.3));
        ccb_body_pose(b, 0, qq, &X);
        const ccb_vec3 pW = ccb_v3_add(X.p, ccb_m3_mul_v(&X.R, pB));
        double Jp[18], qd[7];
        ccb_body_point_jacobian(b, qq, pW, Jp);
        ccb_body_qdot(b, qq, vv, qd);
        const double h = 1e-6;
        double qp[7], qm[7];
        for (int k = 0; k < 7; ++k) {
            qp[k] = qq[k] + h * qd[k];
            qm[k] = qq[k] - h * qd[k];
        }
        ccb_pose Xp, Xm;
        ccb_body_pose(b, 0, qp, &Xp);
        ccb_body_pose(b, 0, qm, &Xm);
        const ccb_vec3 a = ccb_v3_add(Xp.p, ccb_m3_mul_v(&Xp.R, pB));
        const ccb_vec3 c = ccb_v3_add(Xm.p, ccb_m3_mul_v(&Xm.R, pB));
        const double fd[3] = {(a.x - c.x) / (2 * h), (a.y - c.y) / (2 * h), (a.z - c.z) / (2 * h)};
        for (int r = 0; r < 3; ++r) {
            double jv = 0;
            for (int k = 0; k < 6; ++k) {
                jv += Jp[6 * r + k] * vv[k];
            }
            /* [central FD along qdot, h = 1e-6: error ~h^2 |v|^3 + eps/h ~ 1e-9] */
            CHECK_ABS(jv, fd[r], 1e-7, "free point Jacobian = d/dt of the point position");
        }
        /* mass matrix diag(R I R^T, m I) */
        double M[36];
        ccb_body_mass_matrix(b, qq, M);
        const ccb_mat3 RT = ccb_m3_transpose(&X.R);
        const ccb_mat3 t1 = ccb_m3_mul(&X.R, &d.inertia);
        const ccb_mat3 IW = ccb_m3_mul(&t1, &RT);
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                CHECK_ABS(M[6 * i + j], IW.m[3 * i + j], TOL_ROUND, "rotational block R I R^T");
                CHECK_ABS(M[6 * (i + 3) + j + 3], i == j ? d.mass : 0.0, TOL_ROUND, "m I");
                CHECK_ABS(M[6 * i + j + 3], 0.0, 0.0, "no coupling about the COM");
            }
        }
        /* a step keeps the quaternion unit */
        double qn[7];
        ccb_body_integrate(b, qq, vv, 0.05, qn);
        const double nq = sqrt(qn[3] * qn[3] + qn[4] * qn[4] + qn[5] * qn[5] + qn[6] * qn[6]);
        CHECK_ABS(nq, 1.0, 4e-16, "renormalized quaternion [round-off: one ulp]");
    }
    /* invalid free bodies */
    ccb_body_def bad = d;
    bad.name = "bad1";
    bad.inertia.m[0] = -1;
    CHECK(ccb_model_add_body(m, &bad, NULL) != CCB_OK, "indefinite inertia rejected");
    ccb_model_destroy(m);
    ccb_model_create(&m);
    bad = d;
    bad.name = "bad2";
    bad.pose.R.m[0] = 2.0;
    CHECK(ccb_model_add_body(m, &bad, NULL) == CCB_E_INVALID &&
              strstr(ccb_model_last_error(m), "rotation") != NULL,
          "non-rotation rejected: %s", ccb_model_last_error(m));
    ccb_model_destroy(m);
}

/* Torque-free tumbling (no gravity, no contact): linear momentum is exact; the explicit
 * gyroscopic term makes angular momentum drift at first order in dt. */
static double tumble_drift(double dt) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_model_set_gravity(m, ccb_v3(0, 0, 0));
    ccb_body_def d = ccb_body_def_default();
    d.mobilizer = CCB_MOBILIZER_FREE;
    d.name = "top";
    d.inertia = ccb_m3_identity();
    d.inertia.m[0] = 1.0, d.inertia.m[4] = 2.0, d.inertia.m[8] = 3.0;
    d.twist.w = ccb_v3(0.3, 1.0, 0.2);
    d.twist.v = ccb_v3(0.5, 0, 0);
    ccb_model_add_body(m, &d, NULL);
    ccb_model_finalize(m);
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = dt;
    ccb_sim* sim = NULL;
    ccb_sim_create(m, &p, &sim, NULL, 0);
    const long n = lround(1.0 / dt);
    for (long k = 0; k < n; ++k) {
        ccb_sim_step(sim);
    }
    const double* v = ccb_sim_v(sim);
    const double* q = ccb_sim_q(sim);
    CHECK_ABS(v[3], 0.5, 0.0, "linear momentum exact [exact: no force]");
    CHECK_ABS(q[0], 0.5, 1e-12, "x = v t [round-off of n additions]");
    ccb_pose X;
    ccb_model_body_pose(m, 0, 0, q, &X);
    const ccb_mat3 RT = ccb_m3_transpose(&X.R);
    const ccb_vec3 wB = ccb_m3_tmul_v(&X.R, ccb_v3(v[0], v[1], v[2]));
    const ccb_vec3 LB = ccb_m3_mul_v(&d.inertia, wB);
    (void)RT;
    const ccb_vec3 L = ccb_m3_mul_v(&X.R, LB);
    const ccb_vec3 L0 = ccb_v3(0.3, 2.0, 0.6);
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    return ccb_v3_norm(ccb_v3_sub(L, L0)) / ccb_v3_norm(L0);
}

static void test_free_body_tumbling(void) {
    const double e1 = tumble_drift(1e-3), e2 = tumble_drift(5e-4);
    /* [first-order explicit gyroscopic term: the drift halves with dt (ratio 2 +- 10 %)] */
    CHECK_ABS(e1 / e2, 2.0, 0.2, "angular momentum drift is first order in dt");
    CHECK(e1 < 1e-2, "drift after 1 s at dt = 1e-3: %g", e1);
}

/* Twelve spinning spheres (r = 0.05 m, 0.5 kg, k = 1e5 N/m) in two layers above a half-space,
 * close enough to hit the ground and each other within 0.15 s at dt = 2e-3 s. */
static ccb_model* sphere_pile(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def gd = ccb_body_def_default();
    gd.name = "ground";
    gd.mobilizer = CCB_MOBILIZER_FIXED;
    int ig;
    ccb_model_add_body(m, &gd, &ig);
    ccb_shape_def hs = ccb_shape_def_default();
    hs.material = (ccb_material){INFINITY, 0, 0, 0.6};
    ccb_model_add_shape(m, ig, &hs, NULL);
    for (int k = 0; k < 12; ++k) {
        ccb_body_def bd = ccb_body_def_default();
        char name[16];
        snprintf(name, sizeof name, "s%d", k);
        bd.name = name;
        bd.mobilizer = CCB_MOBILIZER_FREE;
        bd.mass = 0.5;
        bd.inertia = (ccb_mat3){{2e-3, 0, 0, 0, 2e-3, 0, 0, 0, 2e-3}};
        bd.pose = ccb_pose_translation(
            ccb_v3(0.09 * (k % 3) + 0.01 * (k % 2), 0.09 * ((k / 3) % 2), 0.06 + 0.1 * (k / 6)));
        bd.twist.w = ccb_v3(0.3 * (k % 4), -0.2, 0.1);
        int ib;
        ccb_model_add_body(m, &bd, &ib);
        ccb_shape_def sp = ccb_shape_def_default();
        sp.type = CCB_SHAPE_SPHERE;
        sp.radius = 0.05;
        sp.material = (ccb_material){1e5, 2.0, 1e-3, 0.6};
        ccb_model_add_shape(m, ib, &sp, NULL);
    }
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    return m;
}

/* Deferred contacts (problem.c) and far contacts (newton.c): a pile of spheres falling on a
 * half-space and on each other, stepped with every contact complete and evaluated
 * (newton.evaluate_all = 1) and with the defaults, gives bit for bit the same states and impulses,
 * for every built-in approximation; contacts deferred at the build are completed on the way. Both
 * factor the same block pattern (pattern_near = 0): the default pattern of the near contacts
 * changes the ordering, hence the round-off (test_newton: test_far_contacts compares it). */
static void test_deferred_contacts(void) {
    const ccb_approx* ap[4] = {&ccb_approx_sap, &ccb_approx_similar, &ccb_approx_lagged,
                               &ccb_approx_lagged_reg};
    int deferred = 0, completed = 0;
    for (int a = 0; a < 4; ++a) {
        ccb_model* m = sphere_pile();

        ccb_sim* sim[2] = {NULL, NULL};
        for (int e = 0; e < 2; ++e) {
            ccb_sim_params p = ccb_sim_params_default();
            p.dt = 2e-3;
            p.approx = ap[a];
            p.margin = 0.1;
            p.newton.evaluate_all = e;
            p.newton.pattern_near = 0;
            char msg[256];
            CHECK(ccb_sim_create(m, &p, &sim[e], msg, sizeof msg) == CCB_OK, "sim: %s", msg);
        }
        const int nq = ccb_model_nq(m), nv = ccb_model_nv(m);
        for (int step = 0; step < 150; ++step) {
            CHECK(ccb_sim_step(sim[0]) == CCB_OK && ccb_sim_step(sim[1]) == CCB_OK, "%s: step %d",
                  ap[a]->name, step);
            const ccb_problem* pb = ccb_sim_problem(sim[0]);
            for (int i = 0; i < pb->nc; ++i) {
                deferred += pb->contacts[i].deferred;
                completed += !pb->contacts[i].deferred && pb->contacts[i].radius > 0;
            }
            CHECK(memcmp(ccb_sim_q(sim[0]), ccb_sim_q(sim[1]), (size_t)nq * sizeof(double)) == 0 &&
                      memcmp(ccb_sim_v(sim[0]), ccb_sim_v(sim[1]), (size_t)nv * sizeof(double)) ==
                          0,
                  "%s: step %d: the same state bit for bit", ap[a]->name, step);
            CHECK(ccb_sim_ncontacts(sim[0]) == ccb_sim_ncontacts(sim[1]), "same contacts");
            for (int i = 0; i < ccb_sim_ncontacts(sim[0]); ++i) {
                const ccb_contact_result *c0 = ccb_sim_contact(sim[0], i),
                                         *c1 = ccb_sim_contact(sim[1], i);
                int same = 1;
                for (int r = 0; r < 3; ++r) {
                    same &= c0->gamma[r] == c1->gamma[r];
                    /* [round-off: v_c of a contact left out is J v + b or the point velocity,
                     *  a few products of O(1) numbers] */
                    same &= c0->vc[r] == c1->vc[r] ||
                            fabs(c0->vc[r] - c1->vc[r]) <= 1e-12 * (1 + fabs(c1->vc[r]));
                }
                CHECK(same, "%s: step %d contact %d: same impulse and velocity", ap[a]->name, step,
                      i);
            }
        }
        ccb_sim_destroy(sim[0]);
        ccb_sim_destroy(sim[1]);
        ccb_model_destroy(m);
    }
    CHECK(deferred > 1000 && completed > 20, "contacts deferred %d, completed on the way %d",
          deferred, completed);
}

/* contact_order = 1 (the sensitivity runs of `ccb gate --sensitivity`, cases.md §10): the same
 * contacts in reversed order, so the same physics with other round-off. On the sphere pile over
 * 20 steps (impacts settled, every contact an O(1) impulse) the two states agree to the solver's
 * tolerance, not bit for bit (the reversal must change something, or it perturbs nothing), and
 * contact i of one run is contact n-1-i of the other. Out-of-range values are refused. */
static void test_contact_order(void) {
    ccb_model* m = sphere_pile();
    ccb_sim* sim[2] = {NULL, NULL};
    for (int e = 0; e < 2; ++e) {
        ccb_sim_params p = ccb_sim_params_default();
        p.dt = 2e-3;
        p.margin = 0.1;
        p.contact_order = e;
        p.newton.eps_r = 1e-12; /* the states then differ by round-off only */
        char msg[256];
        CHECK(ccb_sim_create(m, &p, &sim[e], msg, sizeof msg) == CCB_OK, "sim: %s", msg);
    }
    const int nv = ccb_model_nv(m);
    int differ = 0;
    double worst = 0;
    for (int step = 0; step < 20; ++step) {
        CHECK(ccb_sim_step(sim[0]) == CCB_OK && ccb_sim_step(sim[1]) == CCB_OK, "step %d", step);
        const int nc = ccb_sim_ncontacts(sim[0]);
        CHECK(nc == ccb_sim_ncontacts(sim[1]) && nc > 10, "step %d: %d contacts in both", step, nc);
        for (int i = 0; i < nc; ++i) {
            const ccb_contact_result *c0 = ccb_sim_contact(sim[0], i),
                                     *c1 = ccb_sim_contact(sim[1], nc - 1 - i);
            CHECK(c0->geometry.shape_a == c1->geometry.shape_a &&
                      c0->geometry.shape_b == c1->geometry.shape_b &&
                      /* [round-off: the states differ by ~eps_r, see below] */
                      fabs(c0->geometry.phi0 - c1->geometry.phi0) <= 1e-10,
                  "step %d: contact %d is contact %d reversed", step, i, nc - 1 - i);
        }
        for (int i = 0; i < nv; ++i) {
            const double a = ccb_sim_v(sim[0])[i], b = ccb_sim_v(sim[1])[i];
            differ |= a != b;
            worst = fmax(worst, fabs(a - b));
        }
    }
    /* [solver: eps_r = 1e-12 on O(1) velocities, times a conditioning of the pile of ~1e3] */
    CHECK(worst <= 1e-8, "reversed contacts: largest velocity difference %.3g <= 1e-8", worst);
    CHECK(differ, "reversed contacts change the round-off (else the perturbation is void)");
    ccb_sim_params p = ccb_sim_params_default();
    p.contact_order = 2;
    char msg[256] = "";
    CHECK(ccb_sim_params_check(&p, msg, sizeof msg) == CCB_E_INVALID &&
              strstr(msg, "contact_order"),
          "contact_order = 2 refused: '%s'", msg);
    ccb_sim_destroy(sim[0]);
    ccb_sim_destroy(sim[1]);
    ccb_model_destroy(m);
}

/* Sphere-sphere and box-sphere queries against closed forms. */
static void test_sphere_box_queries(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def wall = ccb_body_def_default();
    wall.name = "wall";
    wall.mobilizer = CCB_MOBILIZER_FIXED;
    wall.pose = ccb_pose_translation(ccb_v3(0, 0, 0));
    wall.pose.R = ccb_m3_axis_angle(ccb_v3(0, 0, 1), 0.3);
    int iw, i1, i2;
    ccb_model_add_body(m, &wall, &iw);
    ccb_shape_def box = ccb_shape_def_default();
    box.type = CCB_SHAPE_BOX;
    box.half_extents = ccb_v3(0.1, 0.2, 0.3);
    ccb_model_add_shape(m, iw, &box, NULL);
    ccb_body_def ball = ccb_body_def_default();
    ball.mobilizer = CCB_MOBILIZER_FREE;
    ball.name = "b1";
    ccb_model_add_body(m, &ball, &i1);
    ball.name = "b2";
    ccb_model_add_body(m, &ball, &i2);
    ccb_shape_def sph = ccb_shape_def_default();
    sph.type = CCB_SHAPE_SPHERE;
    sph.radius = 0.05;
    sph.material = (ccb_material){1e6, 0, 0, 0.5};
    ccb_model_add_shape(m, i1, &sph, NULL);
    sph.radius = 0.02;
    sph.material.k = 3e6;
    ccb_model_add_shape(m, i2, &sph, NULL);
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    double q[14], v[12];
    ccb_model_initial_state(m, q, v);
    const ccb_mat3 R = wall.pose.R;
    /* b1 outside the +x face of the box, 3 cm away; b2 far away, 4 cm from b1 (surface) */
    const ccb_vec3 c1 = ccb_m3_mul_v(&R, ccb_v3(0.1 + 0.05 + 0.03, 0.05, -0.1));
    const ccb_vec3 c2 = ccb_v3_add(c1, ccb_v3(0, 0, 0.05 + 0.02 + 0.04));
    q[0] = c1.x, q[1] = c1.y, q[2] = c1.z;
    q[7] = c2.x, q[8] = c2.y, q[9] = c2.z;
    ccb_contact_set cs = {0};
    CHECK(ccb_geometry_query(m, 0, q, 0.05, &cs, NULL, 0) == CCB_OK && cs.n == 2,
          "two contacts (%d)", cs.n);
    for (int i = 0; i < cs.n; ++i) {
        const ccb_contact* c = &cs.items[i];
        const ccb_vec3 n = ccb_m3_col(&c->R_WC, 2);
        if (c->body_a == iw) { /* box face */
            CHECK_ABS(c->phi0, 0.03, TOL_ROUND, "box-sphere distance");
            const ccb_vec3 nx = ccb_m3_col(&R, 0);
            CHECK_ABS(ccb_v3_dot(n, nx), 1.0, TOL_ROUND, "normal = face normal, box to sphere");
            CHECK(c->body_b == i1, "sphere is B");
            /* rigid box: the contact point is on the box face */
            const ccb_vec3 pl = ccb_m3_tmul_v(&R, c->p);
            CHECK_ABS(pl.x, 0.1, TOL_ROUND, "contact point on the rigid face");
        } else {
            CHECK(c->body_a == i1 && c->body_b == i2, "sphere pair, lower shape index is A");
            CHECK_ABS(c->phi0, 0.04, TOL_ROUND, "sphere-sphere distance");
            CHECK_ABS(n.z, 1.0, TOL_ROUND, "normal from A to B");
            /* weights kA/(kA + kB) = 1/4: C = p_B + (p_A - p_B)/4 */
            CHECK_ABS(c->p.z, c2.z - 0.02 - 0.25 * 0.04, TOL_ROUND, "stiffness-weighted point");
        }
    }
    /* sphere centre inside the box, nearest face -y; and outside near an edge */
    const ccb_vec3 in = ccb_m3_mul_v(&R, ccb_v3(0.02, -0.18, 0.1));
    q[0] = in.x, q[1] = in.y, q[2] = in.z;
    q[9] = 10;
    CHECK(ccb_geometry_query(m, 0, q, 0.1, &cs, NULL, 0) == CCB_OK && cs.n == 1, "one contact");
    CHECK_ABS(cs.items[0].phi0, -(0.2 - 0.18) - 0.05, TOL_ROUND, "inside: depth to the -y face");
    CHECK_ABS(ccb_v3_dot(ccb_m3_col(&cs.items[0].R_WC, 2), ccb_m3_col(&R, 1)), -1.0, TOL_ROUND,
              "inside: normal out of the -y face");
    const ccb_vec3 edge = ccb_m3_mul_v(&R, ccb_v3(0.1 + 0.03, 0.2 + 0.04, 0.0));
    q[0] = edge.x, q[1] = edge.y, q[2] = edge.z;
    CHECK(ccb_geometry_query(m, 0, q, 0.1, &cs, NULL, 0) == CCB_OK && cs.n == 1, "edge");
    CHECK_ABS(cs.items[0].phi0, 0.05 - 0.05, TOL_ROUND, "edge distance 5 cm minus the radius");
    ccb_contact_set_free(&cs);
    ccb_model_destroy(m);
}

/* The broad phase finds exactly the pairs an all-pairs test finds: random clouds of free
 * bodies carrying 1-3 spheres each, a fixed box and a floor half-space. */
static void test_broad_phase_complete(void) {
    for (int trial = 0; trial < 20; ++trial) {
        ccb_model* m = NULL;
        ccb_model_create(&m);
        ccb_body_def g = ccb_body_def_default();
        g.name = "ground";
        g.mobilizer = CCB_MOBILIZER_FIXED;
        int ig;
        ccb_model_add_body(m, &g, &ig);
        ccb_shape_def hs = ccb_shape_def_default();
        ccb_model_add_shape(m, ig, &hs, NULL);
        ccb_shape_def bx = ccb_shape_def_default();
        bx.type = CCB_SHAPE_BOX;
        bx.half_extents = ccb_v3(0.05, 0.5, 0.3);
        bx.pose = ccb_pose_translation(ccb_v3(0.45, 0, 0.3));
        ccb_model_add_shape(m, ig, &bx, NULL);
        const int nb = 30 + trial * 5;
        ccb_vec3 centre[400];
        double rad[400];
        int body_of[400], ns = 0;
        for (int i = 0; i < nb; ++i) {
            ccb_body_def d = ccb_body_def_default();
            d.mobilizer = CCB_MOBILIZER_FREE;
            char name[16];
            snprintf(name, sizeof name, "o%d", i);
            d.name = name;
            d.pose.p = ccb_v3(uniform(-0.4, 0.4), uniform(-0.4, 0.4), uniform(0, 0.6));
            d.pose.R = random_rot();
            int ib;
            ccb_model_add_body(m, &d, &ib);
            const int k = 1 + (int)(urand() * 3);
            for (int s = 0; s < k; ++s) {
                ccb_shape_def sp = ccb_shape_def_default();
                sp.type = CCB_SHAPE_SPHERE;
                sp.radius = uniform(0.01, 0.05);
                sp.pose = ccb_pose_translation(
                    ccb_v3(uniform(-0.05, 0.05), uniform(-0.05, 0.05), uniform(-0.05, 0.05)));
                sp.material.k = 1e6;
                ccb_model_add_shape(m, ib, &sp, NULL);
                centre[ns] = ccb_v3_add(d.pose.p, ccb_m3_mul_v(&d.pose.R, sp.pose.p));
                rad[ns] = sp.radius;
                body_of[ns++] = ib;
            }
        }
        CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
        double* q = calloc((size_t)ccb_model_nq(m), sizeof(double));
        double* v = calloc((size_t)ccb_model_nv(m), sizeof(double));
        ccb_model_initial_state(m, q, v);
        const double margin = uniform(0.0, 0.1);
        ccb_contact_set cs = {0};
        CHECK(ccb_geometry_query(m, 0, q, margin, &cs, NULL, 0) == CCB_OK, "query");
        /* all-pairs count: sphere-sphere, sphere-floor, sphere-box */
        int expected = 0;
        for (int i = 0; i < ns; ++i) {
            expected += centre[i].z - rad[i] < margin;
            const ccb_vec3 cl = ccb_v3_sub(centre[i], ccb_v3(0.45, 0, 0.3));
            const double h[3] = {0.05, 0.5, 0.3}, c[3] = {cl.x, cl.y, cl.z};
            double d2 = 0, in = 1;
            for (int a = 0; a < 3; ++a) {
                const double e = fabs(c[a]) - h[a];
                d2 += e > 0 ? e * e : 0;
                in = in && e <= 0;
            }
            expected += in || sqrt(d2) - rad[i] < margin;
            for (int j = i + 1; j < ns; ++j) {
                if (body_of[i] != body_of[j]) {
                    expected +=
                        ccb_v3_norm(ccb_v3_sub(centre[i], centre[j])) - rad[i] - rad[j] < margin;
                }
            }
        }
        CHECK(cs.n == expected, "trial %d: broad phase found %d contacts, all pairs %d", trial,
              cs.n, expected);
        /* a second query (re-sorted order) gives the same contacts in the same order */
        ccb_contact* first = malloc((size_t)cs.n * sizeof(ccb_contact));
        memcpy(first, cs.items, (size_t)cs.n * sizeof(ccb_contact));
        const int n1 = cs.n;
        int same = ccb_geometry_query(m, 0, q, margin, &cs, NULL, 0) == CCB_OK && cs.n == n1;
        for (int i = 0; same && i < n1; ++i) { /* field by field: the struct has padding */
            const ccb_contact *x = &first[i], *y = &cs.items[i];
            same = x->shape_a == y->shape_a && x->shape_b == y->shape_b &&
                   x->feature == y->feature && x->phi0 == y->phi0 &&
                   memcmp(&x->p, &y->p, sizeof x->p) == 0 &&
                   memcmp(&x->R_WC, &y->R_WC, sizeof x->R_WC) == 0;
        }
        CHECK(same, "repeat query bit-identical [exact]");
        free(first);
        free(q);
        free(v);
        ccb_contact_set_free(&cs);
        ccb_model_destroy(m);
    }
}

/* Planar joint damping (spec formulation-convex §1.1: A = M + dt D, v* from the implicit
 * damping): a free planar body with damping d_x, d_z, d_theta and no contact, gravity along z.
 * Each coordinate follows m v' = f - d v by implicit Euler, so v_{n+1} = (m v_n + dt f) /
 * (m + dt d) exactly; after 200 steps the three velocities match that recursion to round-off
 * [1e-12 relative: a few hundred operations of O(1) values]. Breaking D in A or in v* changes
 * them at O(dt d / m) = 0.02 per step. */
static void test_planar_damping(void) {
    ccb_model* m = NULL;
    ccb_model_create(&m);
    ccb_body_def bd = ccb_body_def_default();
    bd.name = "slider";
    bd.mass = 2.0;
    bd.inertia = ccb_m3_identity();
    bd.inertia.m[4] = 0.5;
    bd.pose = ccb_pose_planar(0.0, 1.0, 0.2);
    bd.twist = ccb_twist_planar(1.5, -0.3, 4.0);
    bd.damping[0] = 4.0;  /* N s/m */
    bd.damping[1] = 10.0; /* N s/m */
    bd.damping[2] = 0.7;  /* N m s/rad */
    int ib;
    CHECK(ccb_model_add_body(m, &bd, &ib) == CCB_OK, "body");
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize: %s", ccb_model_last_error(m));
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = 1e-2;
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "sim: %s", msg);
    const double g = -ccb_model_gravity(m).z;
    const double mass[3] = {2.0, 2.0, 0.5}, d[3] = {4.0, 10.0, 0.7}, f[3] = {0, -2.0 * g, 0};
    double v[3] = {1.5, -0.3, 4.0};
    for (int k = 0; k < 200; ++k) {
        CHECK(ccb_sim_step(sim) == CCB_OK, "step %d: %s", k, ccb_sim_last_error(sim));
        for (int c = 0; c < 3; ++c) {
            v[c] = (mass[c] * v[c] + p.dt * f[c]) / (mass[c] + p.dt * d[c]);
        }
    }
    const double* vs = ccb_sim_v(sim);
    for (int c = 0; c < 3; ++c) {
        CHECK_REL(vs[c], v[c], 1e-12, 1e-15, "damped velocity (one coordinate of x, z, theta)");
    }
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
}

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
    add_ball(m, "ball", 0.05 + gap, ccb_v3(vx, 0, vz), (ccb_material){k, diss, 1e-3, mu});
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

/* The step problem in FCLIB's global form (ccb_problem_to_global, formulation-convex §16), on a
 * pile of spheres (sphere_pile) after 60 steps (contacts with the ground and between spheres, deferred ones
 * among them): M is A (symmetric, f = A v* [round-off of one product]); u = H^T v + w is the
 * contacts' velocity J v + b in the order (n, t1, t2) with phi0/dt added to the normal
 * [round-off: 1e-12 m/s]; and the step's Newton solution balances momentum in that form,
 * |M v - H r - f| <= 1e-5 |f| (the momentum residual that the Newton test bounds by eps_r,
 * formulation-convex §8.5; measured 3e-9 relative). */
static void test_global_problem(void) {
    ccb_model* m = sphere_pile();
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = 2e-3;
    p.margin = 0.05;
    ccb_sim* sim = NULL;
    char msg[256];
    CHECK(ccb_sim_create(m, &p, &sim, msg, sizeof msg) == CCB_OK, "sim: %s", msg);
    for (int s = 0; s < 60; ++s) {
        CHECK(ccb_sim_step(sim) == CCB_OK, "step %d: %s", s, ccb_sim_last_error(sim));
    }
    const ccb_problem* pb = ccb_sim_problem(sim);
    ccb_global_problem g;
    CHECK(ccb_problem_to_global(pb, &g) == CCB_OK, "to_global");
    const int nv = g.nv, nc = g.nc;
    int two_block = 0;
    for (int i = 0; i < nc; ++i) {
        two_block += pb->contacts[i].nblk == 2;
    }
    CHECK(nc >= 6 && two_block >= 1, "contacts %d, between spheres %d", nc, two_block);
    CHECK(g.M_colptr[nv] == 36 * 12 && g.dt == 2e-3, "M: 12 blocks of 6 x 6");
    double* Mv = calloc((size_t)nv, sizeof(double));
    double* Hr = calloc((size_t)nv, sizeof(double));
    double* r = calloc(3 * (size_t)nc, sizeof(double));
    double* u = calloc(3 * (size_t)nc, sizeof(double));
    const double* vs = ccb_problem_vstar(pb);
    const double* v = ccb_sim_v(sim); /* the step's solution */
    double fnorm = 0, asym = 0;
    for (int j = 0; j < nv; ++j) {
        for (int a = g.M_colptr[j]; a < g.M_colptr[j + 1]; ++a) {
            Mv[g.M_row[a]] += g.M_val[a] * vs[j];
            for (int b = g.M_colptr[g.M_row[a]]; b < g.M_colptr[g.M_row[a] + 1]; ++b) {
                if (g.M_row[b] == j) {
                    asym = fmax(asym, fabs(g.M_val[b] - g.M_val[a]));
                }
            }
        }
    }
    for (int j = 0; j < nv; ++j) {
        CHECK_REL(Mv[j], g.f[j], 1e-14, 1e-14, "f = A v* [round-off]");
        fnorm = fmax(fnorm, fabs(g.f[j]));
    }
    CHECK(asym == 0.0, "M symmetric (exactly: A's blocks are)");
    /* u = H^T v + w against J v + b */
    for (int c = 0; c < 3 * nc; ++c) {
        u[c] = g.w[c];
        for (int a = g.H_colptr[c]; a < g.H_colptr[c + 1]; ++a) {
            u[c] += g.H_val[a] * v[g.H_row[a]];
        }
    }
    for (int i = 0; i < nc; ++i) {
        double vc[3];
        ccb_problem_contact_velocity(pb, i, v, vc);
        const double phi = ccb_problem_contact_input(pb, i)->phi0;
        /* [round-off of sums of terms up to ~1 m/s (and phi0/dt ~ 10 m/s): 1e-12 absolute] */
        CHECK_REL(u[3 * i] - phi / g.dt, vc[2], 1e-12, 10.0, "u_n = v_n + phi0/dt");
        CHECK_REL(u[3 * i + 1], vc[0], 1e-12, 1.0, "u_t1 = v_t1");
        CHECK_REL(u[3 * i + 2], vc[1], 1e-12, 1.0, "u_t2 = v_t2");
    }
    /* momentum balance of the solution: M v - H r - f */
    double gamma[3 * 64];
    CHECK(nc <= 64, "room");
    CHECK(ccb_sim_problem_impulses(sim, gamma) == CCB_OK, "the step's impulses");
    ccb_global_from_ccb_order(nc, gamma, r);
    double back[3 * 64];
    ccb_global_to_ccb_order(nc, r, back);
    CHECK(memcmp(back, gamma, 3 * (size_t)nc * sizeof(double)) == 0, "order round trip");
    memset(Mv, 0, (size_t)nv * sizeof(double));
    for (int j = 0; j < nv; ++j) {
        for (int a = g.M_colptr[j]; a < g.M_colptr[j + 1]; ++a) {
            Mv[g.M_row[a]] += g.M_val[a] * v[j];
        }
    }
    for (int c = 0; c < 3 * nc; ++c) {
        for (int a = g.H_colptr[c]; a < g.H_colptr[c + 1]; ++a) {
            Hr[g.H_row[a]] += g.H_val[a] * r[c];
        }
    }
    double res = 0;
    for (int j = 0; j < nv; ++j) {
        res = fmax(res, fabs(Mv[j] - Hr[j] - g.f[j]));
    }
    CHECK(res <= 1e-5 * fnorm, "momentum balance |M v - H r - f| = %g (|f| %g)", res, fnorm);
    free(Mv);
    free(Hr);
    free(r);
    free(u);
    ccb_global_problem_free(&g);
    ccb_global_problem_free(&g); /* twice: empty */
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
}

int main(void) {
    RUN(test_no_allocation_in_step_loop);
    RUN(test_planar_jacobian);
    RUN(test_box_halfspace_query);
    RUN(test_sphere_capsule_query);
    RUN(test_model_validation);
    RUN(test_pair_check_classes);
    RUN(test_conveyor_offsets_fact8);
    RUN(test_resting_contact_fact9);
    RUN(test_resting_contact_tamsi_ode);
    RUN(test_determinism_and_failure);
    RUN(test_free_body_kinematics);
    RUN(test_free_body_tumbling);
    RUN(test_sphere_box_queries);
    RUN(test_deferred_contacts);
    RUN(test_contact_order);
    RUN(test_planar_damping);
    RUN(test_step_views);
    RUN(test_physics_metrics);
    RUN(test_error_control);
    RUN(test_error_control_lag);
    RUN(test_global_problem);
    RUN(test_broad_phase_complete);
    return TEST_SUMMARY();
}
