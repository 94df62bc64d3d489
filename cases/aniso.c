/* Case ANISO — a block on an anisotropic plane (spec: formulation-convex §18; cases.md §12;
 * ICF Appendix B, eqs. (30)-(32)).
 *
 * A block of mass m (a free body whose single contact point is its centre of mass, so no contact
 * torque: it translates) rests on a rigid plane whose grain is the world x axis: friction mu
 * along it, mu2 across it, the tensor M = diag(mu, mu2) of the pair. Coulomb friction of maximum
 * dissipation brakes the block along -M^2 v, not -v: it slides on a curved path and stops where
 * the closed forms (18.4)-(18.5) say (reference/aniso_ref.c); pushed by a constant force F at
 * angle theta to the grain it stays at rest inside the ellipse |M^-1 F| <= m g (18.6) and
 * otherwise slides on the straight line (18.7), which leans from the force toward the grain.
 *
 * Studies:
 *   slide      every solver family sliding freely from V0 at alpha to the grain: stop position
 *              and time against (18.5), the friction's direction against -M^2 v (eq. 31), the
 *              invariant (18.4), Lagged's convergence to the closed form, and two isotropic
 *              controls that the closed form must reject (ANI-1 ... ANI-4);
 *   breakaway  a force 0.45 m g at seven angles: rest or slide as (18.6) says, the slide's
 *              direction and acceleration against (18.7), and the isotropic controls
 *              (ANI-5 ... ANI-8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "case_model.h"
#include "reference.h"
#include "runs.h"

enum {
    P_MASS,
    P_MU,
    P_MU2,
    P_V0,
    P_ALPHA,
    P_F,
    P_THETA,
    P_PSI,
    P_K,
    P_D,
    P_TAU,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_G,
    P_MARGIN,
    P_COUNT
};

static const case_param k_params[P_COUNT] = {
    /* one parameter per row */
    /* clang-format off */
    {.name = "mass", .def = 1.0, .unit = "kg", .hi = 1e4, .lo_open = 1, .meaning = "block mass m",
     .tag = "[default?]"},
    {.name = "mu", .def = 0.3, .unit = "-", .lo = 0.01, .hi = 5,
     .meaning = "friction along the grain (the pair's mu_1, world x)", .tag = "[default?]"},
    {.name = "mu2", .def = 0.6, .unit = "-", .lo = 0.01, .hi = 5,
     .meaning = "friction across the grain (the pair's mu_2, world y); mu2 = mu: isotropic",
     .tag = "[default?]"},
    {.name = "V0", .def = 1.0, .unit = "m/s", .hi = 100,
     .meaning = "initial speed of the free slide", .tag = "[default?]"},
    {.name = "alpha", .def = 45.0, .unit = "deg", .lo = 0, .hi = 90,
     .meaning = "initial velocity's angle to the grain", .tag = "[default?]", .read_if = "V0!=0"},
    {.name = "f", .unit = "-", .hi = 10,
     .meaning = "constant horizontal force F / (m g) (0: a free slide)", .tag = "[default?]"},
    {.name = "theta", .unit = "deg", .lo = 0, .hi = 90,
     .meaning = "the force's angle to the grain", .tag = "[default?]", .read_if = "f!=0"},
    {.name = "psi", .def = 30.0, .unit = "deg", .lo = -180, .hi = 180,
     .meaning = "the grain's angle to world x (the plane's frame turned about z; every angle "
                "and coordinate of the studies is in the grain's frame)",
     .tag = "[default?]"},
    {.name = "k", .def = 1e5, .unit = "N/m", .hi = 1e12, .lo_open = 1,
     .meaning = "contact stiffness (static penetration m g / k)", .tag = "[default?]"},
    {.name = "d", .def = 10.0, .unit = "s/m", .hi = 1e4,
     .meaning = "Hunt & Crossley dissipation (Lagged, Similar, TAMSI)", .tag = "[default?]"},
    {.name = "tau_d", .def = 1e-3, .unit = "s", .hi = 10, .meaning = "SAP relaxation time",
     .tag = "[default?]", .read_if = "approx=sap"},
    CASE_PARAM_VS,
    CASE_PARAM_SIGMA,
    CASE_PARAM_BETA,
    CASE_PARAM_G,
    CASE_PARAM_MARGIN,
    /* clang-format on */
};

static const char* const k_notes[] = {
    "ICF Appendix B derives the anisotropic model and states its properties (maximum dissipation, "
    "a symmetric Jacobian, curved paths) but reports no experiment: the block, its numbers "
    "(m = 1 kg, mu = 0.3 along and mu2 = 0.6 across the grain, V0 = 1 m/s at 45 degrees, a force "
    "of 0.45 m g) and the closed forms (formulation-convex §18.5) are ccb's [default?].",
    "The block is a free body with one contact point at its centre of mass, starting at the "
    "static penetration m g / k: the normal force is m g. The contact point lies on the plane, "
    "m g / k (and SAP's and Similar's hover) above the centre, where a single point cannot "
    "resist the small torque of its friction: the block's rotational inertia is 1e6 m (1 m)^2 "
    "[default?], which holds its rotation below 1e-6 rad, so it translates as the point mass "
    "of the closed forms.",
    "The grain lies at psi = 30 degrees to world x [default?], so that the contact frame must "
    "follow it; x, y, v1, v2, f1, f2 and every angle of the studies are in the grain's frame.",
    "mu and mu2 are the pair's coefficients. The plane carries the grain (its x axis) and the "
    "block's point the isotropic max(mu, mu2); the plane's own coefficients are solved from "
    "the harmonic pair rule (formulation-convex §8.8, §18.1) so that the pair has mu and mu2.",
    "Anisotropy (formulation-convex §18.2): every approximation's isotropic law of min(mu, mu2) "
    "taken at diag(mu, mu2)/min(mu, mu2) v_t; the stiction tolerance v_s applies along the axis "
    "of least friction, smaller ones along the others.",
    "Stop: the first step with |v| < 10 v_s; position at rest: q at T = 0.5 s (the slide ends "
    "by 0.27 s). The breakaway runs last 0.3 s; a run slides if it moved more than 10 v_s T "
    "(ten times what creep at the stiction tolerance can do).",
    "No outside engine runs this case: ccb's peers are not given the grain (formulation-convex "
    "§18.4).",
};

static const char* const k_obs[] = {"x [m]",    "y [m]",         "v1 [m/s]",
                                    "v2 [m/s]", "f1 [N]",        "f2 [N]",
                                    "fn [N]",   "dir_err [rad]", "stiction_tol [m/s]"};
enum { O_X, O_Y, O_V1, O_V2, O_F1, O_F2, O_FN, O_DIR, O_STOL, O_COUNT };

#define DEG (CCB_PI / 180.0)
#define ANISO_T_FINAL 0.5 /* [s] */

typedef struct aniso_data {
    ccb_vec3 force; /* the constant applied force [N] */
} aniso_data;

static void aniso_force(double t, const ccb_pose* X, const ccb_twist* V, void* user, ccb_vec3* f,
                        ccb_vec3* tau) {
    (void)t, (void)X, (void)V;
    *f = ((const aniso_data*)user)->force;
    *tau = ccb_v3(0, 0, 0);
}

/* The plane's coefficient that gives the pair `target` against the block's b (harmonic rule
 * 2 a b/(a + b) = target, b > target/2). */
static double plane_mu(double target, double b) {
    return target * b / (2.0 * b - target);
}

static int aniso_build(const double* P, ccb_model** out, void** data, char* msg, size_t n) {
    aniso_data* d = calloc(1, sizeof *d);
    if (d == NULL) {
        snprintf(msg, n, "aniso: out of memory");
        return -1;
    }
    /* angles in the world: the grain's psi plus the angle to the grain */
    const double m = P[P_MASS], g = P[P_G], psi = P[P_PSI] * DEG;
    const double th = psi + P[P_THETA] * DEG, a = psi + P[P_ALPHA] * DEG;
    d->force = ccb_v3(P[P_F] * m * g * cos(th), P[P_F] * m * g * sin(th), 0.0);
    const double b = fmax(P[P_MU], P[P_MU2]); /* the block's point */
    ccb_body_def ground = ccb_body_def_default();
    ground.name = "ground";
    ground.mobilizer = CCB_MOBILIZER_FIXED;
    ccb_shape_def plane = ccb_shape_def_default();
    plane.name = "plane";
    plane.pose.R = ccb_m3_axis_angle(ccb_v3(0, 0, 1), psi); /* its x axis is the grain */
    plane.material = (ccb_material){INFINITY, 0.0, 0.0, plane_mu(P[P_MU], b),
                                    P[P_MU2] != P[P_MU] ? plane_mu(P[P_MU2], b) : 0.0};
    ccb_body_def blk = ccb_body_def_default();
    blk.name = "block";
    blk.mobilizer = CCB_MOBILIZER_FREE;
    blk.mass = m;
    /* rotation held off by a large inertia, 1e6 m x (1 m)^2: the contact point lies m g/k (and
     * SAP's and Similar's hover) above the centre of mass, where a single point cannot resist the
     * small torque of its friction (a real block's corners would); the closed forms are those of
     * a point mass */
    blk.inertia = ccb_m3_identity();
    blk.inertia.m[0] = blk.inertia.m[4] = blk.inertia.m[8] = 1e6 * m;
    blk.pose.p = ccb_v3(0.0, 0.0, -m * g / P[P_K]); /* static penetration: f_n = m g */
    blk.twist.v = ccb_v3(P[P_V0] * cos(a), P[P_V0] * sin(a), 0.0);
    blk.force = aniso_force;
    blk.force_user = d;
    const ccb_shape_def pt =
        case_point_at_origin("contact", (ccb_material){P[P_K], P[P_D], P[P_TAU], b, 0.0});
    *data = d;
    if (case_build_pair("aniso", g, &ground, &plane, &blk, &pt, out, msg, n) != 0) {
        free(d);
        *data = NULL;
        return -1;
    }
    return 0;
}

static void aniso_destroy(void* data) {
    free(data);
}

static void aniso_sim_options(const double* P, ccb_sim_params* sp) {
    case_contact_options(sp, P[P_VS], P[P_SIGMA], P[P_BETA], P[P_MARGIN]);
}

/* The angle between the friction force f and -M^2 v (ICF eq. 31) [rad]; 0 without slip. */
static double direction_error(const double f[2], const double v[2], double mu1, double mu2) {
    const double w[2] = {-mu1 * mu1 * v[0], -mu2 * mu2 * v[1]};
    const double cr = f[0] * w[1] - f[1] * w[0], dot = f[0] * w[0] + f[1] * w[1];
    return (w[0] == 0 && w[1] == 0) || (f[0] == 0 && f[1] == 0) ? 0.0 : atan2(fabs(cr), dot);
}

static void aniso_observe(const ccb_sim* sim, const void* data, const double* P, double* o) {
    (void)data;
    const double* q = ccb_sim_q(sim); /* x, y, z, quaternion */
    const double* v = ccb_sim_v(sim); /* w_W, v_W */
    memset(o, 0, O_COUNT * sizeof *o);
    /* position and velocity in the grain's frame (world turned by psi about z) */
    const double cp = cos(P[P_PSI] * DEG), sp = sin(P[P_PSI] * DEG);
    o[O_X] = cp * q[0] + sp * q[1];
    o[O_Y] = -sp * q[0] + cp * q[1];
    o[O_V1] = cp * v[3] + sp * v[4];
    o[O_V2] = -sp * v[3] + cp * v[4];
    if (ccb_sim_ncontacts(sim) >
        0) { /* the contact's frame is the grain's (formulation-convex §18.1) */
        const ccb_contact_result* c = ccb_sim_contact(sim, 0);
        o[O_F1] = c->force[0];
        o[O_F2] = c->force[1];
        o[O_FN] = c->force[2];
        o[O_STOL] = c->stiction_tol;
        const double mu2 =
            c->geometry.material.mu2 > 0 ? c->geometry.material.mu2 : c->geometry.material.mu;
        /* slip of the contact at the end of the step, only where it slides (100 v_s) */
        if (hypot(c->vc[0], c->vc[1]) > 100 * P[P_VS]) {
            o[O_DIR] = direction_error(c->force, c->vc, c->geometry.material.mu, mu2);
        }
    }
}

/* ---- analysis of one run ------------------------------------------------------------------- */

static ccb_ref_aniso ref_params(const double* P) {
    const ccb_ref_aniso r = {P[P_MU], P[P_MU2], P[P_G]};
    return r;
}

typedef struct slide_facts {
    double t_stop;     /* first step with |v| < 10 v_s [s] (NAN: never) */
    double X[2];       /* position at the end [m] */
    double dir_max;    /* largest friction direction error while sliding [rad] */
    double inv_drift;  /* largest |ln(|v1| |v2|^-r) - ln C| while |v| >= V0/4 */
    double stop_err;   /* |X - X*| [m] */
    double t_err;      /* |t_stop - T*| [s] */
    double exact_X[2]; /* (18.5) */
    double exact_T;    /* (18.5) */
} slide_facts;

/* Pe: the parameters of the closed form (the run's own, or the anisotropic plane's for the
 * isotropic controls) */
static slide_facts analyse_slide(const run_record* r, const double* Pe) {
    const double* P = r->cfg.params;
    slide_facts f;
    memset(&f, 0, sizeof f);
    const double a = P[P_ALPHA] * DEG, V = P[P_V0];
    const ccb_ref_aniso rp = ref_params(Pe);
    ccb_ref_aniso_slide ex;
    char msg[256];
    if (ccb_ref_aniso_slide_solve(&rp, V * cos(a), V * sin(a), &ex, msg, sizeof msg) != 0) {
        ex.T = ex.X1 = ex.X2 = ex.lnC = NAN;
        ex.r = 1.0;
    }
    f.exact_X[0] = ex.X1;
    f.exact_X[1] = ex.X2;
    f.exact_T = ex.T;
    f.t_stop = NAN;
    const long N = r->nsteps;
    for (long k = 1; k <= N; ++k) {
        const double v1 = run_obs(r, k, O_V1), v2 = run_obs(r, k, O_V2), s = hypot(v1, v2);
        if (isnan(f.t_stop) && s < 10 * P[P_VS]) {
            f.t_stop = (double)k * r->cfg.sim.dt;
        }
        f.dir_max = fmax(f.dir_max, run_obs(r, k, O_DIR));
        if (s >= 0.25 * V && v1 != 0 && v2 != 0) {
            f.inv_drift = fmax(f.inv_drift, fabs(log(fabs(v1)) - ex.r * log(fabs(v2)) - ex.lnC));
        }
    }
    f.X[0] = run_obs(r, N, O_X);
    f.X[1] = run_obs(r, N, O_Y);
    f.stop_err = hypot(f.X[0] - ex.X1, f.X[1] - ex.X2);
    f.t_err = fabs(f.t_stop - ex.T);
    return f;
}

/* ---- study slide ----------------------------------------------------------------------------- */

/* Lagged at three steps for its order; the isotropic controls (the block on planes of mu = 0.3
 * and of mu = 0.6 in every direction) against the anisotropic closed form. */
#define SLIDE_RUN(v) {.variant = v, .label = v},
static const fig_run k_slide_runs[] = {
    SLIDE_RUN("sap") SLIDE_RUN("similar") SLIDE_RUN("lagged") SLIDE_RUN("lagged-reg")
        SLIDE_RUN("tamsi")
            SLIDE_RUN("ie-qn-ec"){.variant = "lagged", .label = "lagged_dt0.004", .dt = 4e-3},
    {.variant = "lagged", .label = "lagged_dt0.002", .dt = 2e-3},
    {.variant = "lagged", .label = "iso-low", .set = "mu2=0.3"},
    {.variant = "lagged", .label = "iso-high", .set = "mu=0.6"},
};
#define SLIDE_NDT 3
static const char* const k_slide_order_runs[SLIDE_NDT] = {"lagged_dt0.004", "lagged_dt0.002",
                                                          "lagged"};

/* 1 if r is an isotropic control (its closed form is the anisotropic plane's: ctx->params) */
static int is_control(const run_record* r) {
    return strncmp(r->cfg.label, "iso", 3) == 0;
}

static void slide_row(study_ctx* ctx, study_out* out, const run_record* r, double* v) {
    const slide_facts f = analyse_slide(r, is_control(r) ? ctx->params : r->cfg.params);
    const double* P = r->cfg.params;
    const double tol = P[P_V0] * r->cfg.sim.dt; /* ANI-1: one step's travel at V0 */
    const double row[9] = {f.t_stop,     f.exact_T,        f.X[0],    f.X[1],     f.exact_X[0],
                           f.exact_X[1], f.stop_err / tol, f.dir_max, f.inv_drift};
    memcpy(v, row, sizeof row);
    const char* l = r->cfg.label;
    if (r->status != CCB_OK) {
        study_set_metricf(out, NAN, "slide.%s.stop_err_over_Vdt", l);
        return;
    }
    study_set_metricf(out, f.stop_err / tol, "slide.%s.stop_err_over_Vdt", l);
    study_set_metricf(out, f.stop_err, "slide.%s.stop_err", l);
    /* ANI-2: the stop event within 2 dt (first-order localization) plus the detection's own
     * delay, the time to brake from 10 v_s at the least deceleration g mu_min */
    const double tb = 2 * r->cfg.sim.dt + 10 * P[P_VS] / (P[P_G] * fmin(P[P_MU], P[P_MU2]));
    study_set_metricf(out, f.t_err / tb, "slide.%s.stop_time_err_over_bound", l);
    study_set_metricf(out, f.dir_max, "slide.%s.direction_err_max", l);
    study_set_metricf(out, f.inv_drift, "slide.%s.invariant_drift", l);
}

static const run_record* run_labelled(const study_batch* b, const char* label) {
    for (int i = 0; i < b->n; ++i) {
        if (strcmp(b->rec[i].cfg.label, label) == 0) {
            return &b->rec[i];
        }
    }
    return NULL;
}

/* together: Lagged's orders (stop position and invariant), the exact path for the figure */
static int slide_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    const double* P = ctx->params;
    double dts[SLIDE_NDT], es[SLIDE_NDT], ei[SLIDE_NDT];
    for (int j = 0; j < SLIDE_NDT; ++j) {
        const run_record* r = run_labelled(fd->b, k_slide_order_runs[j]);
        dts[j] = r ? r->cfg.sim.dt : NAN;
        es[j] = ei[j] = NAN;
        if (r && r->status == CCB_OK) {
            const slide_facts f = analyse_slide(r, r->cfg.params);
            es[j] = f.stop_err;
            ei[j] = f.inv_drift;
        }
        study_row(out, "order");
        study_num(out, "order", dts[j]);
        study_num(out, "order", es[j]);
        study_num(out, "order", ei[j]);
    }
    double o_stop = NAN, o_inv = NAN;
    ccb_an_order(SLIDE_NDT, dts, es, &o_stop, NULL, NULL);
    ccb_an_order(SLIDE_NDT, dts, ei, &o_inv, NULL, NULL);
    study_set_metric(out, "slide.lagged.stop_err_order", o_stop);
    study_set_metric(out, "slide.lagged.invariant_drift_order", o_inv);
    study_value(out, "o_stop", o_stop);
    study_value(out, "o_inv", o_inv);
    /* the exact path: 200 points of (18.5) from the start to rest */
    const double a = P[P_ALPHA] * DEG, V = P[P_V0];
    const ccb_ref_aniso rp = ref_params(P);
    ccb_ref_aniso_slide ex;
    char msg[256];
    if (ccb_ref_aniso_slide_solve(&rp, V * cos(a), V * sin(a), &ex, msg, sizeof msg) != 0) {
        return study_fail(out, CCB_E_INVALID, "aniso: %s", msg);
    }
    for (int k = 0; k <= 200; ++k) {
        double t, x[2], w[2];
        if (ccb_ref_aniso_slide_point(&rp, V * cos(a), V * sin(a), 1.0 - k / 200.0, &t, x, w, msg,
                                      sizeof msg) != 0) {
            return study_fail(out, CCB_E_INVALID, "aniso: %s", msg);
        }
        const double row[5] = {t, x[0], x[1], w[0], w[1]};
        study_row(out, "path");
        study_nums(out, "path", row, 5);
    }
    /* the isotropic paths from the same start: straight lines */
    study_value(out, "T", ex.T);
    study_value(out, "X1", ex.X1);
    study_value(out, "X2", ex.X2);
    study_value(out, "r", ex.r);
    study_value(out, "straight_X1", V * V * cos(a) / (2 * P[P_G] * P[P_MU]));
    study_value(out, "mu", P[P_MU]);
    study_value(out, "mu2", P[P_MU2]);
    study_value(out, "V0", V);
    study_value(out, "alpha", P[P_ALPHA]);
    return 0;
}

static const fig_table k_slide_tables[] = {
    {.name = "order",
     .file = "order.csv",
     .header = "dt [s],stop_err [m],invariant_drift [-]",
     .md = "| dt [s] | \\|X - X*\\| at rest [m] | invariant drift while \\|v\\| >= V0/4 |\n"
           "|---|---|---|\n",
     .cells = "%g|%.4g|%.4g"},
    {.name = "path",
     .file = "path.csv",
     .header = "t [s],x1 [m],x2 [m],v1 [m/s],v2 [m/s]",
     .cells = "%.9g|%.9g|%.9g|%.9g|%.9g"},
    {.name = NULL}};

static const fig_plot k_slide_plots[] = {
    {.script = "aniso_slide.gp",
     .out = "slide",
     .vars = "runs='sap similar lagged lagged-reg tamsi ie-qn-ec iso-low iso-high'; "
             "title='Block on an anisotropic plane (mu = {mu} along, {mu2} across the grain): "
             "free slide from {V0} m/s at {alpha} deg'"},
    {.script = NULL}};

static const fig_study k_slide = {
    .claim = "ICF Appendix B: with a friction tensor M, Coulomb friction of maximum dissipation "
             "is -gamma_n M t(M v_t) (eq. 31), so a block sliding freely is braked along "
             "-M^2 v, not -v, and follows a curved path toward the grain; every convex "
             "approximation admits it (eq. 32). Each solver's stop point and time against the "
             "closed form (18.5), the friction's direction against eq. 31, Lagged's first-order "
             "convergence to the closed form, and two isotropic planes that must miss it.",
    .runs = k_slide_runs,
    .nruns = (int)(sizeof k_slide_runs / sizeof k_slide_runs[0]),
    .columns = "t_stop [s],T_exact [s],X1 [m],X2 [m],X1_exact [m],X2_exact [m],"
               "stop_err_over_V0dt [-],direction_err_max [rad],invariant_drift [-]",
    .row = slide_row,
    .finish = slide_finish,
    .tables = k_slide_tables,
    .report = "Closed form (formulation-convex §18.5): the block stops after {T|%.5f} s at "
              "({X1|%.5f}, {X2|%.5f}) m; the invariant |v1| |v2|^-r with r = mu^2/mu2^2 = "
              "{r|%.4g}. An isotropic plane of mu would stop it on the initial line, at x1 = "
              "{straight_X1|%.5f} m.\n\nLagged at dt = 4, 2, 1 ms, against the closed form "
              "(observed orders {o_stop|%.3f} for the stop point, {o_inv|%.3f} for the "
              "invariant):\n\n{table:order}\n",
    .plots = k_slide_plots,
};

/* ---- study breakaway --------------------------------------------------------------------------- */

#define BRK_F 0.45
#define BRK_T 0.3
#define BRK_RUN(v, th) {.variant = v, .label = v "_th" #th, .set = "V0=0 f=0.45 theta=" #th},
#define BRK_VARIANT(v)                                                                             \
    BRK_RUN(v, 0)                                                                                  \
    BRK_RUN(v, 20) BRK_RUN(v, 40) BRK_RUN(v, 55) BRK_RUN(v, 65) BRK_RUN(v, 80) BRK_RUN(v, 90)
static const fig_run k_brk_runs[] = {
    BRK_VARIANT("sap") BRK_VARIANT("similar") BRK_VARIANT("lagged") BRK_VARIANT("tamsi")
    /* the isotropic controls where (18.6) separates them from the anisotropic plane */
    {.variant = "lagged", .label = "iso-low_th65", .set = "V0=0 f=0.45 theta=65 mu2=0.3"},
    {.variant = "lagged", .label = "iso-high_th55", .set = "V0=0 f=0.45 theta=55 mu=0.6"},
};
#define BRK_NVAR 4
static const char* const k_brk_variants[BRK_NVAR] = {"sap", "similar", "lagged", "tamsi"};

typedef struct brk_facts {
    int slides, exact_slides;
    double phi, exact_phi, dir_bound; /* [rad] */
    double accel_ratio, accel_bound;  /* slope over [T/2, T] / lambda - 1, and its bound */
    double dist;                      /* |X| [m] */
} brk_facts;

static brk_facts analyse_brk(const run_record* r) {
    const double* P = r->cfg.params;
    brk_facts f;
    memset(&f, 0, sizeof f);
    const ccb_ref_aniso rp = ref_params(P);
    ccb_ref_aniso_push ex;
    char msg[256];
    if (ccb_ref_aniso_push_solve(&rp, P[P_F], P[P_THETA] * DEG, &ex, msg, sizeof msg) != 0) {
        ex.slides = -1;
        ex.phi = ex.lambda = NAN;
    }
    const long N = r->nsteps;
    const double T = (double)N * r->cfg.sim.dt, X1 = run_obs(r, N, O_X), X2 = run_obs(r, N, O_Y);
    f.dist = hypot(X1, X2);
    f.slides = f.dist > 10 * P[P_VS] * T; /* beyond what creep at v_s can do */
    f.exact_slides = ex.slides;
    f.phi = atan2(X2, X1);
    f.exact_phi = ex.phi;
    /* ANI-6: creep at v_s in any direction over the run moves the end point by v_s T */
    f.dir_bound = atan(P[P_VS] * T / fmax(f.dist, 1e-300));
    /* ANI-7: the acceleration from the velocity's slope over [T/2, T] along the slide (the
     * onset, where the regularized friction is below saturation, adds a constant velocity and
     * drops out); implicit Euler is exact for a constant acceleration. Bound: the soft norm's
     * friction deficit g mu_max eps^2/(2 v^2) at the window's slowest speed v = lambda T/2 over
     * lambda, doubled (eps <= v_s, formulation-convex §18.2), plus 10 eps_r for a difference of two
     * velocities solved to the relative tolerance eps_r = 1e-5 */
    const long h = N / 2;
    const double u[2] = {cos(ex.phi), sin(ex.phi)};
    const double vN = run_obs(r, N, O_V1) * u[0] + run_obs(r, N, O_V2) * u[1];
    const double vh = run_obs(r, h, O_V1) * u[0] + run_obs(r, h, O_V2) * u[1];
    const double th = (double)(N - h) * r->cfg.sim.dt;
    f.accel_ratio = ex.lambda > 0 ? (vN - vh) / (th * ex.lambda) - 1.0 : NAN;
    const double vlow = ex.lambda * (double)h * r->cfg.sim.dt;
    f.accel_bound = ex.lambda > 0 ? P[P_G] * fmax(P[P_MU], P[P_MU2]) * P[P_VS] * P[P_VS] /
                                            (ex.lambda * vlow * vlow) +
                                        1e-4
                                  : NAN;
    return f;
}

static void brk_row(study_ctx* ctx, study_out* out, const run_record* r, double* v) {
    (void)ctx, (void)out;
    const brk_facts f = analyse_brk(r);
    const double* P = r->cfg.params;
    const double row[9] = {
        P[P_THETA],  (double)f.exact_slides, (double)f.slides, f.dist,       f.exact_phi / DEG,
        f.phi / DEG, f.dir_bound / DEG,      f.accel_ratio,    f.accel_bound};
    memcpy(v, row, sizeof row);
}

static int brk_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    const double* P = ctx->params;
    for (int k = 0; k < BRK_NVAR; ++k) {
        int wrong = 0, nslide = 0;
        double dir_worst = 0, acc_worst = 0;
        for (int i = 0; i < fd->b->n; ++i) {
            const run_record* r = &fd->b->rec[i];
            char name[32];
            variant_name(&r->cfg, name, sizeof name);
            if (strcmp(name, k_brk_variants[k]) != 0 || is_control(r)) {
                continue;
            }
            if (r->status != CCB_OK) {
                wrong = -1000; /* a failed run fails the gate (NaN below) */
                continue;
            }
            const brk_facts f = analyse_brk(r);
            wrong += f.slides != f.exact_slides;
            if (f.slides && f.exact_slides) {
                nslide++;
                dir_worst = fmax(dir_worst, fabs(f.phi - f.exact_phi) / f.dir_bound);
                acc_worst = fmax(acc_worst, fabs(f.accel_ratio) / f.accel_bound);
            }
        }
        const char* v = k_brk_variants[k];
        study_set_metricf(out, wrong < 0 ? NAN : wrong, "breakaway.%s.misclassified", v);
        study_set_metricf(out, nslide > 0 ? dir_worst : NAN,
                          "breakaway.%s.direction_err_over_bound", v);
        study_set_metricf(out, nslide > 0 ? acc_worst : NAN, "breakaway.%s.accel_err_over_bound",
                          v);
    }
    /* the controls: each contradicts the anisotropic verdict at its angle */
    int contradict = 0;
    for (int i = 0; i < fd->b->n; ++i) {
        const run_record* r = &fd->b->rec[i];
        if (!is_control(r) || r->status != CCB_OK) {
            continue;
        }
        double Pa[CASE_MAX_PARAMS];
        memcpy(Pa, r->cfg.params, sizeof Pa);
        Pa[P_MU] = P[P_MU], Pa[P_MU2] = P[P_MU2]; /* the anisotropic plane's verdict */
        const ccb_ref_aniso ra = ref_params(Pa);
        ccb_ref_aniso_push ex;
        char msg[256];
        const brk_facts f = analyse_brk(r);
        if (ccb_ref_aniso_push_solve(&ra, Pa[P_F], Pa[P_THETA] * DEG, &ex, msg, sizeof msg) == 0) {
            contradict += f.slides != ex.slides;
        }
    }
    study_set_metric(out, "breakaway.controls_contradicting", contradict);
    /* the closed-form curve of the figure: slide direction against the force's angle */
    const ccb_ref_aniso rp = ref_params(P);
    for (int k = 0; k <= 90; ++k) {
        ccb_ref_aniso_push ex;
        char msg[256];
        if (ccb_ref_aniso_push_solve(&rp, BRK_F, k * DEG, &ex, msg, sizeof msg) != 0) {
            return study_fail(out, CCB_E_INVALID, "aniso: %s", msg);
        }
        const double row[4] = {(double)k, ex.slides, ex.slides ? ex.phi / DEG : NAN, ex.lambda};
        study_row(out, "curve");
        study_nums(out, "curve", row, 4);
    }
    /* the critical angle of (18.6): (f cos/mu)^2 + (f sin/mu2)^2 = 1 */
    const double c2 = (1.0 / (BRK_F * BRK_F) - 1.0 / (P[P_MU2] * P[P_MU2])) /
                      (1.0 / (P[P_MU] * P[P_MU]) - 1.0 / (P[P_MU2] * P[P_MU2]));
    study_value(out, "theta_c", c2 >= 0 && c2 <= 1 ? acos(sqrt(c2)) / DEG : NAN);
    return 0;
}

static const fig_table k_brk_tables[] = {{.name = "curve",
                                          .file = "curve.csv",
                                          .header = "theta [deg],slides,phi [deg],lambda [m/s^2]",
                                          .cells = "%g|%g|%.9g|%.9g"},
                                         {.name = NULL}};

static const fig_plot k_brk_plots[] = {
    {.script = "aniso_breakaway.gp",
     .out = "breakaway",
     .vars =
         "variants='sap similar lagged tamsi'; "
         "theta_c={theta_c|%.4f}; title='Anisotropic plane, force 0.45 m g: slide direction (at "
         "rest beyond the dashed line)'"},
    {.script = NULL}};

static const fig_study k_breakaway = {
    .claim = "ICF Appendix B, the elliptic cone: a force F at angle theta to the grain leaves the "
             "block at rest iff |M^-1 F| <= m g (18.6), and otherwise slides it on the straight "
             "line (18.7), which leans from the force toward the grain. Each solver at seven "
             "angles against the closed form, and two isotropic planes that must contradict it.",
    .t_final = BRK_T,
    .runs = k_brk_runs,
    .nruns = (int)(sizeof k_brk_runs / sizeof k_brk_runs[0]),
    .columns = "theta [deg],slides_exact,slides,distance [m],phi_exact [deg],phi [deg],"
               "phi_bound [deg],accel_err [-],accel_bound [-]",
    .row = brk_row,
    .finish = brk_finish,
    .tables = k_brk_tables,
    .report = "A force of 0.45 m g slides the block for angles below theta_c = "
              "{theta_c|%.2f} deg (18.6) and leaves it at rest above.\n\n",
    .plots = k_brk_plots,
};

/* ---- standard studies (std.c): e_q against Lagged at dt / 10 --------------------------------- */
static const case_std k_std = {
    .error_name = "e_q",
    .error_unit = "m",
    .error_what = "RMS over [0, T] of |q - q_ref| on the run's grid (cases.md §1.4), q_ref: "
                  "Lagged at the smallest dt / 10.",
    .error = std_error_q,
    .ref = STD_REF_RUN,
    .ref_variant = "lagged",
    .ref_ratio = 10.0,
    .dts = {4e-3, 2e-3, 1e-3, 5e-4},
    .ndt = 4,
    .dts_quick = {4e-3, 2e-3},
    .ndt_quick = 2};

/* The slide's closed form is the free slide: refuse a force or a block at rest up front. */
static int slide_check(const double* P, char* msg, size_t n) {
    if (!(P[P_V0] > 0) || P[P_F] != 0) {
        snprintf(msg, n,
                 "the slide study compares a free slide with its closed form: it needs V0 > 0 "
                 "and f = 0 (got V0 = %g m/s, f = %g); the breakaway study pushes the block",
                 P[P_V0], P[P_F]);
        return -1;
    }
    const double a = P[P_ALPHA] * DEG;
    const ccb_ref_aniso rp = ref_params(P);
    ccb_ref_aniso_slide ex;
    if (ccb_ref_aniso_slide_solve(&rp, P[P_V0] * cos(a), P[P_V0] * sin(a), &ex, msg, n) != 0) {
        return -1;
    }
    if (!(ex.T <= 0.8 * ANISO_T_FINAL)) {
        snprintf(msg, n,
                 "the slide lasts %.4g s by (18.5), longer than 80 %% of the study's %g s run: "
                 "lower V0 or raise mu, mu2 or g",
                 ex.T, ANISO_T_FINAL);
        return -1;
    }
    return 0;
}

static const case_study k_studies[] = {
    {.name = "slide",
     .title = "free slide at 45 degrees to the grain: stop point and time, friction direction, "
              "invariant, against the closed form; isotropic controls",
     .figure = "ICF Appendix B (eqs. 30-32)",
     .decl = &k_slide,
     .check = slide_check},
    {.name = "breakaway",
     .title = "a force of 0.45 m g at 0 ... 90 degrees: rest or slide, slide direction and "
              "acceleration against the closed form; isotropic controls",
     .figure = "ICF Appendix B (the elliptic cone)",
     .decl = &k_breakaway}};

static const char* const k_quick[] = {"convergence", "slide", "breakaway", "gradients", NULL};

const case_desc case_aniso = {
    .name = "aniso",
    .variants = "ie-fn ie-qn ie-fn-ec ie-qn-ec",
    .title = "Block on an anisotropic plane: curved slide and elliptic breakaway",
    .paper = "Castro, Han, Masterjohn, Irrotational Contact Fields, arXiv 2312.03908, Appendix B",
    .params = k_params,
    .nparams = P_COUNT,
    .notes = k_notes,
    .nnotes = (int)(sizeof k_notes / sizeof k_notes[0]),
    .dt_default = 1e-3,
    .t_final_default = ANISO_T_FINAL,
    .approx_default = "lagged",
    .build = aniso_build,
    .destroy = aniso_destroy,
    .sim_options = aniso_sim_options,
    .nobs = O_COUNT,
    .obs_names = k_obs,
    .observe = aniso_observe,
    .studies = k_studies,
    .nstudies = (int)(sizeof k_studies / sizeof k_studies[0]),
    .quick_studies = k_quick,
    .std = &k_std,
    .no_variants = NULL,
};
