/* Case ROD — sliding rod, Painleve paradox, impact without collision (spec: cases.md §5;
 * ICF §XI-C, Figs. 8-13).
 *
 * A uniform rod (planar body x, z, theta) touches the ground with its lower end at angle theta0
 * and slides with that end leading at U0. Friction (mu = 2.3 > 4/3) turns the rod into the ground:
 * in the rigid model a(theta) -> 0 at 32.57 deg and the normal force diverges at t* = 23.2 ms
 * (reference/rod_ref.c); with compliance the end jams (|v_t| < v_s for ~0.2 ms) and the rod
 * jumps. Case A: no dissipation; case B: d = 0.2 s/m (Lagged, Similar), tau_d = 4e-6 s (SAP).
 *
 * The lower end is the +x end of a capsule along the body x axis (radius 0: the end of the axis;
 * --set cap=1 rounds it with the rod's radius). With theta = angle to the ground, the end is at
 * (x + l cos(theta), z - l sin(theta)) and moves forward (+x). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "case_model.h"
#include "reference.h"
#include "runs.h"

enum {
    P_LENGTH,
    P_DIAMETER,
    P_MASS,
    P_MU,
    P_THETA0,
    P_U0,
    P_K,
    P_D,
    P_TAU,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_G,
    P_CAP,
    P_PHI0,
    P_IC_GAP,
    P_MARGIN,
    P_COUNT
};

static const case_param k_params[P_COUNT] = {
    /* one parameter per row */
    /* clang-format off */
    {.name = "length", .def = 0.5, .unit = "m", .hi = 100, .lo_open = 1,
     .meaning = "rod length L (I = m L^2/12)", .tag = "[ICF]"},
    {.name = "diameter", .def = 0.01, .unit = "m", .hi = 1, .lo_open = 1,
     .meaning = "rod diameter (end-cap radius when cap = 1)", .tag = "[ICF]"},
    {.name = "mass", .def = 0.3, .unit = "kg", .hi = 1e4, .lo_open = 1, .meaning = "rod mass",
     .tag = "[ICF]"},
    {.name = "mu", .def = 2.3, .unit = "-", .hi = 10, .lo_open = 1,
     .meaning = "friction coefficient (> 4/3: Painleve band exists)", .tag = "[ICF]"},
    {.name = "theta0", .def = 30.0, .unit = "deg", .hi = 90, .lo_open = 1, .hi_open = 1,
     .meaning = "initial angle to the ground", .tag = "[ICF]"},
    {.name = "U0", .def = 10.0, .unit = "m/s", .hi = 100, .lo_open = 1,
     .meaning = "initial horizontal speed, contact end leading", .tag = "[ICF]"},
    {.name = "k", .def = 1e7, .unit = "N/m", .hi = 1e15, .lo_open = 1,
     .meaning = "contact stiffness", .tag = "[ICF]"},
    {.name = "d", .unit = "s/m", .hi = 1e6,
     .meaning = "Hunt & Crossley dissipation (case A: 0, case B: 0.2)", .tag = "[ICF]"},
    {.name = "tau_d", .unit = "s", .hi = 10,
     .meaning = "SAP relaxation time (case A: 0, case B: 4e-6)", .tag = "[ICF]",
     .read_if = "approx=sap"},
    CASE_PARAM_VS,
    CASE_PARAM_SIGMA,
    CASE_PARAM_BETA,
    CASE_PARAM_G,
    {.name = "cap", .unit = "-", .hi = 1, .integer = 1,
     .meaning = "0: contact at the end of the rod axis; 1: rounded end cap", .tag = "[default?]"},
    {.name = "phi0", .unit = "m", .lo = -1e-3, .hi = 0.1,
     .meaning = "initial gap of the lower end (0: touching)", .tag = "[default?]"},
    {.name = "ic_gap", .def = 1, .unit = "-", .hi = 1, .integer = 1,
     .meaning = "1: add the model's zero-force gap for the initial slip to phi0; 0: phi0 literally",
     .tag = "[default?]"},
    CASE_PARAM_MARGIN,
    /* clang-format on */
};

static const char* const k_notes[] = {
    "Contact at the lower end of the rod axis (end-cap radius ignored, cases.md §5.1); "
    "--set cap=1 uses a rounded end of radius diameter/2 (capsule-half-space query).",
    "IC: theta0 = 30 deg, U0 = 10 m/s with the contact end leading, theta' = 0, z' = 0, lower end "
    "touching (cases.md §5.1 [default?]). 'Touching' is read per model: the end starts at the gap "
    "where the model's normal impulse vanishes for the initial slip U0 (ICF eq. 24): 0 for Lagged "
    "(the literal phi0 = 0), mu dt U0 for Similar, mu (dt + tau_d) U0 for SAP (ic_gap = 1). From "
    "the literal phi0 = 0 (ic_gap = 0) the gliding models push the rod off the ground at t = 0 "
    "(k mu (dt + tau_d) U0: 920 N for SAP in case B) and ICF Figs. 11-13 are not reproduced (no "
    "SAP impact within T in case B; Similar bounces instead of oscillating); the fig studies run "
    "that variant too and report it.",
    "Case A: d = 0, tau_d = 0 (defaults); case B (studies fig11-12, fig13): d = 0.2 s/m, "
    "tau_d = 4e-6 s. Duration T = 51.2 ms = 80 x 6.4e-4 s, so that every step of the ICF Fig. 13 "
    "sweep divides it (cases.md: T = 0.05 s [default?]).",
    "Jam: first step with |v_t| < v_s (1e-4 m/s) at the lower end; stiction lasts while "
    "|v_t| < v_s; lift-off: first step after the jam with f_n = 0.",
    "Pre-impact oscillation frequency: upward crossings of the window mean of f_n (average "
    "frequency of a chirp).",
    "I = m L^2/12 (the radius term 1.9e-6 kg m^2 is ignored, cases.md §5.1).",
    "e_q over (x, z, theta); reference Lagged at dt 10x smaller than the smallest step (1e-6 s).",
};

static const char* const k_obs[] = {"vt [m/s]", "vn [m/s]", "ft [N]",
                                    "fn [N]",   "phi [m]",  "stiction_tol [m/s]"};
enum { O_VT, O_VN, O_FT, O_FN, O_PHI, O_STOL, O_COUNT };

static double deg(double a) {
    return a * CCB_PI / 180.0;
}

static double cap_radius(const double* P) {
    return P[P_CAP] == 1 ? 0.5 * P[P_DIAMETER] : 0.0;
}

static int rod_build(const double* P, ccb_model** out, void** data, char* msg, size_t n) {
    const double l = 0.5 * P[P_LENGTH], th = deg(P[P_THETA0]), r = cap_radius(P);
    const double I = P[P_MASS] * P[P_LENGTH] * P[P_LENGTH] / 12.0;
    ccb_body_def ground;
    ccb_shape_def plane;
    case_ground(P[P_MU], &ground, &plane);
    ccb_body_def rod = ccb_body_def_default();
    rod.name = "rod";
    rod.mass = P[P_MASS];
    rod.inertia = ccb_m3_identity();
    rod.inertia.m[0] = rod.inertia.m[4] = rod.inertia.m[8] = I;
    /* lower end (+x end of the body axis) at height phi0: z = l sin(theta) + r + phi0 */
    rod.pose = ccb_pose_planar(0.0, l * sin(th) + r + P[P_PHI0], th);
    rod.twist = ccb_twist_planar(P[P_U0], 0.0, 0.0);
    ccb_shape_def cap = ccb_shape_def_default();
    cap.name = "rod_axis";
    cap.type = CCB_SHAPE_CAPSULE;
    cap.radius = r;
    cap.half_length = l;
    cap.material = (ccb_material){P[P_K], P[P_D], P[P_TAU], P[P_MU], 0.0};
    *data = NULL;
    return case_build_pair("rod", P[P_G], &ground, &plane, &rod, &cap, out, msg, n);
}

static void rod_sim_options(const double* P, ccb_sim_params* sp) {
    case_contact_options(sp, P[P_VS], P[P_SIGMA], P[P_BETA], P[P_MARGIN]);
}

static void rod_observe(const ccb_sim* sim, const void* data, const double* P, double* o) {
    (void)data;
    const double* q = ccb_sim_q(sim); /* x, z, theta */
    const double* v = ccb_sim_v(sim); /* vx, vz, omega */
    const double l = 0.5 * P[P_LENGTH];
    /* the lower end: v_A = v + omega y x r, r = l (cos, 0, -sin) */
    o[O_VT] = v[0] - v[2] * l * sin(q[2]);
    o[O_VN] = v[1] - v[2] * l * cos(q[2]);
    o[O_FT] = o[O_FN] = o[O_STOL] = 0.0;
    for (int i = 0; i < ccb_sim_ncontacts(sim); ++i) {
        const ccb_contact_result* c = ccb_sim_contact(sim, i);
        o[O_FT] += c->force[0];
        o[O_FN] += c->force[2];
        if (c->geometry.feature == 1) { /* lower end */
            o[O_VT] = c->vc[0];
            o[O_VN] = c->vc[2];
            o[O_STOL] = c->stiction_tol;
        }
    }
    o[O_PHI] = q[1] - l * sin(q[2]) - cap_radius(P);
}

/* A peer run: the lower end's velocities from the state (rod_observe without contacts), the
 * contact force on the rod from the peer (body 1); the stiction tolerance is ccb's (0). */
static void rod_peer_observe(const ccb_sim* sim, const void* data, const double* P,
                             const run_peer_step* c, double* o) {
    rod_observe(sim, data, P, o);
    o[O_FT] = c->f_body[3 * 1 + 0];
    o[O_FN] = c->f_body[3 * 1 + 2];
}

/* ---- analysis of one run -----------------------------------------------------------------------
 * */

typedef struct rod_facts {
    double t_jam;     /* first time with |v_t| < v_s (NAN: the impact was missed) */
    double t_unstick; /* end of that stiction interval */
    double t_liftoff; /* first time after the jam with f_n = 0 */
    double vz_liftoff, vx_liftoff, omega_liftoff, theta_liftoff;
    double fn_peak, normal_impulse; /* over the jam +- 1 ms [N], [N s] */
} rod_facts;

static rod_facts analyse(const run_record* r, const double* P) {
    const ccb_an_series s = run_series(r);
    /* the jam: first |v_t| < v_s of the lower end, the f_n impulse within +-1 ms */
    const ccb_an_jam j = ccb_an_find_jam(&s, O_VT, O_FN, P[P_VS], 1e-3);
    rod_facts f;
    f.t_jam = j.t_jam;
    f.t_unstick = j.t_unstick;
    f.t_liftoff = j.t_liftoff;
    f.fn_peak = j.fn_peak;
    f.normal_impulse = j.fn_impulse;
    f.vz_liftoff = f.vx_liftoff = f.omega_liftoff = f.theta_liftoff = NAN;
    if (j.k_liftoff >= 0) {
        const long k = j.k_liftoff;
        f.vx_liftoff = r->v[(size_t)k * r->nv];
        f.vz_liftoff = r->v[(size_t)k * r->nv + 1];
        f.omega_liftoff = r->v[(size_t)k * r->nv + 2];
        f.theta_liftoff = r->q[(size_t)k * r->nq + 2] * 180.0 / CCB_PI;
    }
    return f;
}

/* Dominant frequency of f_n over [0, t1]. */
static double fn_frequency(const run_record* r, double t1) {
    const long n = (long)lround(t1 / r->cfg.sim.dt);
    double f = NAN;
    if (n + 1 > r->nsteps ||
        ccb_an_crossing_frequency(r->obs + O_FN, 1, n + 1, r->nobs, r->cfg.sim.dt, &f) != 0) {
        return NAN;
    }
    return f;
}

/* Mean |v_t| over [0, t1]. */
static double mean_slip(const run_record* r, double t1) {
    const ccb_an_series s = run_series(r);
    return ccb_an_mean_abs(&s, O_VT, t1);
}

static const ccb_approx* const k_models[3] = {&ccb_approx_sap, &ccb_approx_similar,
                                              &ccb_approx_lagged};

/* Initial gap of the lower end at which the model's normal impulse vanishes for the initial slip
 * U0 (formulation-convex §11 fact 8, ICF eq. 24): Lagged 0, Similar mu dt U0, SAP mu (dt + tau_d)
 * U0. Starting there ("touching" in the model's own sense) avoids a t = 0 push of k mu (dt + tau_d)
 * U0 that the gliding models would otherwise apply to a rod placed at phi0 = 0 (920 N for SAP in
 * case B). */
static double gliding_gap(const ccb_approx* ap, double dt, const double* P) {
    if (ap == &ccb_approx_similar) {
        return P[P_MU] * dt * P[P_U0];
    }
    if (ap == &ccb_approx_sap) {
        return P[P_MU] * (dt + P[P_TAU]) * P[P_U0];
    }
    return 0.0;
}

static void rod_adjust(const ccb_approx* ap, double dt, double* P) {
    if (P[P_IC_GAP] == 1) {
        P[P_PHI0] += gliding_gap(ap, dt, P);
    }
}

/* parameters of case A (as given) or case B (d = 0.2 s/m, tau_d = 4e-6 s) */
static void case_params(const study_ctx* ctx, int case_b, double* P) {
    memcpy(P, ctx->params, CASE_MAX_PARAMS * sizeof(double));
    if (case_b) {
        P[P_D] = 0.2;
        P[P_TAU] = 4e-6;
    }
}

/* ---- studies fig9-10 and fig11-12 (reference runs at dt = 1e-7)
 * ----------------------------------- */

#define REF_DT 1e-7
#define REF_RECORD_EVERY 50 /* trajectory.csv every 5 us: 10^4 rows per run */

static int reference_finish(study_ctx* ctx, study_out* out, const study_batch* b, int case_b) {
    const char* cname = case_b ? "caseB" : "caseA";
    double P[CASE_MAX_PARAMS];
    case_params(ctx, case_b, P);
    const run_record* rec = b->rec;
    rod_facts f[3];
    double freq12[3], freq5[3];
    for (int i = 0; i < 3; ++i) {
        const char* name = k_models[i]->name;
        f[i] = analyse(&rec[i], P);
        freq12[i] = fn_frequency(&rec[i], 12e-3);
        freq5[i] = fn_frequency(&rec[i], 5e-3);
        const double sps = (double)rec[i].nsteps / fmax(rec[i].wall_time, 1e-12);
        study_set_metricf(out, f[i].t_jam, "%s.%s.t_jam", cname, name);
        study_set_metricf(out, f[i].t_unstick - f[i].t_jam, "%s.%s.stiction_duration", cname, name);
        study_set_metricf(out, f[i].vz_liftoff, "%s.%s.vz_liftoff", cname, name);
        study_set_metricf(out, f[i].t_liftoff, "%s.%s.t_liftoff", cname, name);
        study_set_metricf(out, freq12[i], "%s.%s.fn_frequency_0_12ms", cname, name);
        study_set_metricf(out, freq5[i], "%s.%s.fn_frequency_0_5ms", cname, name);
        study_set_metricf(out, mean_slip(&rec[i], 5e-3), "%s.%s.mean_slip_0_5ms", cname, name);
        study_set_metricf(out, sps, "%s.%s.steps_per_wall_second", cname, name);
        const double sum[] = {f[i].t_jam,
                              f[i].t_unstick,
                              f[i].t_liftoff,
                              f[i].vx_liftoff,
                              f[i].vz_liftoff,
                              f[i].omega_liftoff,
                              f[i].theta_liftoff,
                              f[i].fn_peak,
                              f[i].normal_impulse,
                              freq12[i],
                              freq5[i],
                              run_mean_iterations(&rec[i]),
                              rec[i].wall_time,
                              sps};
        study_row(out, "summary");
        study_str(out, "summary", name);
        study_str(out, "summary", rec[i].status == CCB_OK ? "ok" : "failed");
        study_nums(out, "summary", sum, sizeof sum / sizeof sum[0]);
        const double md[] = {1e3 * f[i].t_jam,
                             1e3 * (f[i].t_unstick - f[i].t_jam),
                             1e3 * f[i].t_liftoff,
                             f[i].vz_liftoff,
                             f[i].fn_peak,
                             f[i].normal_impulse,
                             freq12[i],
                             freq5[i],
                             run_mean_iterations(&rec[i]),
                             rec[i].wall_time,
                             sps};
        study_row(out, "models");
        study_str(out, "models", name);
        study_nums(out, "models", md, sizeof md / sizeof md[0]);
    }
    if (case_b) {
        /* ROD-2, Similar with dissipation: frequency raised by sqrt(1 + mu d |v_t|) (k_eff) */
        const double factor = sqrt(1.0 + P[P_MU] * P[P_D] * mean_slip(&rec[1], 5e-3));
        study_set_metric(out, "caseB.similar.fn_frequency_over_prediction",
                         freq5[1] / (factor * freq5[2]));
        study_set_metric(out, "caseB.similar.keff_frequency_factor", factor);
        /* impact-time shifts (ICF §XI-C): Similar earlier, SAP later than Lagged */
        study_set_metric(out, "caseB.lagged_minus_similar_t_jam", f[2].t_jam - f[1].t_jam);
        study_set_metric(out, "caseB.sap_minus_lagged_t_jam", f[0].t_jam - f[2].t_jam);
    } else {
        double spread = 0;
        for (int i = 0; i < 2; ++i) {
            spread = fmax(spread, fabs(f[i].t_jam - f[2].t_jam));
        }
        study_set_metric(out, "caseA.t_jam_spread_vs_lagged", spread);
    }
    for (int i = 0; i < 2; ++i) {
        const rod_facts lit = analyse(&rec[3 + i], P);
        char name[64];
        snprintf(name, sizeof name, "%s-phi0zero", k_models[i]->name);
        study_set_metricf(out, lit.t_jam, "%s.%s.phi0zero.t_jam", cname, k_models[i]->name);
        const double sum[] = {lit.t_jam,         lit.t_unstick,  lit.t_liftoff,
                              lit.vx_liftoff,    lit.vz_liftoff, lit.omega_liftoff,
                              lit.theta_liftoff, lit.fn_peak,    lit.normal_impulse};
        study_row(out, "summary");
        study_str(out, "summary", name);
        study_str(out, "summary", rec[3 + i].status == CCB_OK ? "ok" : "failed");
        study_nums(out, "summary", sum, sizeof sum / sizeof sum[0]);
        study_blank(out, "summary"); /* no force frequencies of these runs */
        study_blank(out, "summary");
        study_num(out, "summary", run_mean_iterations(&rec[3 + i]));
        study_num(out, "summary", rec[3 + i].wall_time);
        study_blank(out, "summary");
        /* the kick at t = 0: the peak f_n in the first 20 steps */
        double kick = 0;
        for (long k = 1; k <= 20 && k <= rec[3 + i].nsteps; ++k) {
            kick = fmax(kick, run_obs(&rec[3 + i], k, O_FN));
        }
        study_valuef(out, kick, "%s.kick", k_models[i]->name);
        study_valuef(out, 1e3 * lit.t_jam, "%s.jam_ms", k_models[i]->name);
    }
    /* the figures' window: 1 ms either side of Lagged's jam */
    const double tj = isnan(f[2].t_jam) ? 0.026 : f[2].t_jam;
    study_value(out, "zlo", tj - 1e-3);
    study_value(out, "zhi", tj + 1e-3);
    return 0;
}

static const fig_table k_reference_tables[] = {
    {.name = "summary",
     .file = "summary.csv",
     .header = "approx,status,t_jam [s],t_unstick [s],t_liftoff [s],vx_liftoff [m/s],"
               "vz_liftoff [m/s],omega_liftoff [rad/s],theta_liftoff [deg],"
               "fn_peak_near_jam [N],normal_impulse_near_jam [N s],"
               "fn_frequency_0_12ms [Hz],fn_frequency_0_5ms [Hz],"
               "mean_newton_iterations,wall_time [s],steps_per_wall_second [1/s]",
     .cells = "%s|%s|%.7f|%.7f|%.7f|%.5f|%.5f|%.5f|%.4f|%.2f|%.5f|%.2f|%.2f|%.4f|%.4f|%.0f"},
    {.name = "models",
     .md = "| model | jam [ms] | stiction [ms] | lift-off [ms] | v_z lift-off [m/s] | peak f_n "
           "[N] | impulse +-1 ms [N s] | f_n freq. 0-12 ms [Hz] | 0-5 ms [Hz] | mean Newton it. "
           "| wall [s] | steps/s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%.3f|%.3f|%.3f|%.2f|%.0f|%.4f|%.0f|%.0f|%.2f|%.2f|%.2e"},
    {.name = NULL}};

/* the report after the table of each reference study (case A: Figs. 9-10, case B: 11-12) */
#define REFERENCE_REPORT(figs, study)                                                              \
    "Initial condition (Figs. " figs "): every model starts with the lower end at the gap where "  \
    "its normal impulse vanishes for the initial slip: 0 for Lagged, mu dt U0 for Similar, mu "    \
    "(dt "                                                                                         \
    "+ tau_d) U0 for SAP (ICF eq. 24).\n\n{table:models}\nFrom the literal phi0 = 0 instead, the " \
    "gliding models push the rod up at t = 0 (peak f_n in the first 20 steps: SAP "                \
    "{sap.kick|%.0f} "                                                                             \
    "N, Similar {similar.kick|%.0f} N); jam at {sap.jam_ms|%.3f} ms (SAP) and "                    \
    "{similar.jam_ms|%.3f} ms (Similar) (NaN: no jam within T). These runs are in `rod/" study     \
    "/*-phi0zero_dt1e-07`.\n\n"

/* the contact forces and velocities 1 ms either side of Lagged's jam (ICF Figs. 9-12) */
#define REFERENCE_PLOT(OUT, KIND, KINDS, WHAT, FIG)                                                \
    {                                                                                              \
        .script = "contact_zoom.gp", .out = OUT,                                                   \
        .vars = "runs='sap_dt1e-07 similar_dt1e-07 lagged_dt1e-07'; titles='SAP Similar Lagged'; " \
                "kind='" KIND "'; zlo={zlo|%.6f}; zhi={zhi|%.6f}; title='Sliding rod, " WHAT       \
                ", contact " KINDS ", dt = 1e-07 s (ICF Fig. " FIG ")'"                            \
    }
static const fig_plot k_fig9_plots[] = {
    REFERENCE_PLOT("fig9", "force", "forces", "no dissipation", "9"),
    REFERENCE_PLOT("fig10", "velocity", "velocities", "no dissipation", "10"),
    {.script = NULL}};
static const fig_plot k_fig11_plots[] = {
    REFERENCE_PLOT("fig11", "force", "forces", "d = 0.2 s/m, tau_d = 4e-6 s", "11"),
    REFERENCE_PLOT("fig12", "velocity", "velocities", "d = 0.2 s/m, tau_d = 4e-6 s", "12"),
    {.script = NULL}};

static int fig9_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    return reference_finish(ctx, out, fd->b, 0);
}

static int fig11_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    return reference_finish(ctx, out, fd->b, 1);
}

/* Runs 0-2: SAP, Similar, Lagged starting at their own zero-force gap (the studies' initial
 * condition); runs 3-4: SAP and Similar from the literal phi0 = 0, reported for comparison.
 * Trajectories every 5 us (10^4 rows per run). */
#define REF_RUNS(set)                                                                              \
    {                                                                                              \
        {"sap", NULL, set " ic_gap=1", 0, NULL}, {"similar", NULL, set " ic_gap=1", 0, NULL},      \
            {"lagged", NULL, set " ic_gap=1", 0, NULL},                                            \
            {"sap", "sap-phi0zero_dt1e-07", set " ic_gap=0", 0, NULL},                             \
            {"similar", "similar-phi0zero_dt1e-07", set " ic_gap=0", 0, NULL},                     \
    }
static const fig_run k_fig9_runs[5] = REF_RUNS("");
static const fig_run k_fig11_runs[5] = REF_RUNS("d=0.2 tau_d=4e-6");

static const fig_study k_fig9 = {
    .claim = "all three models agree (same compliance without dissipation); pre-impact force "
             "oscillations from the ground compliance; the end is pushed into the ground until "
             "v_t -> 0, stiction for about 0.2 ms, then the rod jumps.",
    .dt = REF_DT,
    .runs = k_fig9_runs,
    .nruns = 5,
    .rows = 10240,
    .finish = fig9_finish,
    .tables = k_reference_tables,
    .report = REFERENCE_REPORT("9-10", "fig9-10"),
    .plots = k_fig9_plots,
};

static const fig_study k_fig11 = {
    .claim = "dissipation barely moves Lagged's impact; Similar impacts earlier and SAP later; "
             "Similar's pre-impact oscillation is faster (k_eff = k (1 + mu d |v_t|)).",
    .dt = REF_DT,
    .runs = k_fig11_runs,
    .nruns = 5,
    .rows = 10240,
    .finish = fig11_finish,
    .tables = k_reference_tables,
    .report = REFERENCE_REPORT("11-12", "fig11-12"),
    .plots = k_fig11_plots,
};

/* ---- study convergence (ICF Fig. 13)
 * ------------------------------------------------------------- */

/* ROD-3: every run with dt <= 1.6e-4 jams and lifts off before 0.04 s */
static void fig13_inspect(study_ctx* ctx, study_out* out, const fig_sweep_result* sw, int variant,
                          int idt, const run_record* rec) {
    (void)ctx;
    if (variant < 0 || rec->status != CCB_OK) {
        return;
    }
    (void)idt;
    const rod_facts f = analyse(rec, sw->P);
    if (rec->cfg.sim.dt <= 1.6e-4 * (1 + 1e-12)) {
        const int ok = !isnan(f.t_jam) && !isnan(f.t_liftoff) && f.t_liftoff < 0.04;
        double m = 1;
        if (study_get_metric(out, "rod3.all_jam_and_liftoff", &m) != 0 || !ok) {
            study_set_metric(out, "rod3.all_jam_and_liftoff", ok && m == 1 ? 1.0 : 0.0);
        }
    }
    study_set_metricf(out, f.t_jam, "convergence.%s.%s.t_jam.dt%g", sw->decl->tag,
                      sw->variant[variant], rec->cfg.sim.dt);
}

/* Lagged missing the impact at large steps (ICF §XI-C: dt > 1e-3): a scan of both cases, each
 * run a whole number of steps covering the case duration */
#define NSCAN 12
static const double k_scan[NSCAN] = {2e-3,    1.6e-3, 1.28e-3, 1e-3,    8e-4, 6.4e-4,
                                     5.12e-4, 4e-4,   3.2e-4,  2.56e-4, 2e-4, 1.6e-4};

static int fig13_scan(study_ctx* ctx, study_batch* b) {
    if (study_batch_alloc(ctx, b, 2 * NSCAN) != 0) {
        return 2;
    }
    for (int c = 0; c < 2; ++c) {
        double P[CASE_MAX_PARAMS];
        case_params(ctx, c, P);
        for (int j = 0; j < NSCAN; ++j) {
            char label[96], name[48];
            snprintf(name, sizeof name, "scan%s-lagged", c ? "B" : "A");
            run_label(label, sizeof label, name, k_scan[j]);
            const double Tj = ceil(ctx->cs->t_final_default / k_scan[j] - 1e-9) * k_scan[j];
            study_config(ctx, &b->cfg[NSCAN * c + j], "fig13", label, &ccb_approx_lagged, k_scan[j],
                         Tj);
            memcpy(b->cfg[NSCAN * c + j].params, P, sizeof P);
        }
    }
    return 0;
}

/* fig13, together: ROD-5 (Lagged's slope over the three smallest steps), ROD-4 (the scan) */
static int fig13_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)ctx;
    for (int c = 0; c < 2; ++c) {
        const fig_sweep_result* sw = &fd->sw[c];
        double slope = NAN;
        ccb_an_order(3, sw->decl->dts + 1, sw->e[fig_variant_index(sw, "lagged")] + 1, &slope, NULL,
                     NULL);
        study_set_metricf(out, slope, "rod5.%s.lagged.order_3_smallest", sw->decl->tag);
    }
    (void)dir;
    double largest_catch[2] = {0, 0};
    for (int c = 0; c < 2; ++c) {
        for (int j = 0; j < NSCAN; ++j) {
            const rod_facts f = analyse(&fd->b->rec[NSCAN * c + j], fd->sw[c].P);
            const int caught = !isnan(f.t_jam);
            if (caught && k_scan[j] > largest_catch[c]) {
                largest_catch[c] = k_scan[j];
            }
            study_row(out, "scan");
            study_str(out, "scan", c ? "caseB" : "caseA");
            const double cells[] = {k_scan[j], caught, f.t_jam, f.t_liftoff};
            study_nums(out, "scan", cells, sizeof cells / sizeof cells[0]);
            if (j == 0) {
                study_set_metricf(out, caught ? 1.0 : 0.0, "rod4.%s.lagged_catches_at_2e-3",
                                  c ? "caseB" : "caseA");
            }
        }
    }
    study_set_metric(out, "rod4.caseA.largest_dt_lagged_catches", largest_catch[0]);
    study_set_metric(out, "rod4.caseB.largest_dt_lagged_catches", largest_catch[1]);
    return 0;
}

static const fig_table k_fig13_tables[] = {{.name = "scan",
                                            .file = "lagged_miss_scan.csv",
                                            .header = "case,dt [s],jams,t_jam [s],t_liftoff [s]",
                                            .cells = "%s|%g|%d|%.6f"},
                                           {.name = NULL}};

static const fig_sweep k_fig13_sweeps[] = {
    {.tag = "caseA", .dts = {6.4e-4, 1.6e-4, 4e-5, 1e-5}, .ndt = 4},
    {.tag = "caseB", .set = "d=0.2 tau_d=4e-6", .dts = {6.4e-4, 1.6e-4, 4e-5, 1e-5}, .ndt = 4}};

#define FIG13_PLOT(c, what, side)                                                                  \
    {                                                                                              \
        "convergence.gp", "fig13_" c,                                                              \
            "tags='" c                                                                             \
            "'; tagtitles='sweep'; models='sap similar lagged'; titles='SAP Similar Lagged'; "     \
            "guide_model='lagged'; guide_dt=4e-05; ylabel='e_q [m, rad]'; "                        \
            "title='Sliding rod, convergence, " what " (ICF Fig. 13 " side ")'"                    \
    }
static const fig_plot k_fig13_plots[] = {
    FIG13_PLOT("caseA", "no dissipation", "left"),
    FIG13_PLOT("caseB", "d = 0.2 s/m, tau_d = 4e-6 s", "right"),
    {.script = NULL}};

static const fig_study k_fig13 = {
    .claim = "without dissipation SAP and Similar coincide; Lagged has the largest error at the "
             "largest step and misses the impact for dt > 1e-3 s, first order for smaller steps; "
             "with dissipation the curves separate as impact times shift. The table lists the "
             "Lagged miss scan's runs.",
    .variants = "sap,similar,lagged",
    .make_runs = fig13_scan,
    .sweeps = k_fig13_sweeps,
    .nsweeps = 2,
    .metric = "convergence", /* the gates' names (reference/rod.json) */
    .inspect = fig13_inspect,
    .finish = fig13_finish,
    .tables = k_fig13_tables,
    .report = "Lagged catches the impact (reaches |v_t| < v_s) up to dt = "
              "{rod4.caseA.largest_dt_lagged_catches} s (case A) and "
              "{rod4.caseB.largest_dt_lagged_catches} s (case B) in the scan from 2e-3 s down to "
              "1.6e-4 s (`rod/fig13/lagged_miss_scan.csv`).\n\n",
    .plots = k_fig13_plots,
};

/* ---- study rigid (cases.md §5.2)
 * ------------------------------------------------------------------- */

static int rigid_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)fd, (void)dir;
    const double* P = ctx->params;
    const double l = 0.5 * P[P_LENGTH];
    const ccb_ref_rod p = {l, P[P_MASS], P[P_MASS] * P[P_LENGTH] * P[P_LENGTH] / 12.0, P[P_MU],
                           P[P_G]};
    double lo = NAN, hi = NAN;
    const int band = ccb_ref_rod_band(&p, &lo, &hi) == 0;
    ccb_ref_rod_rigid r;
    memset(&r, 0, sizeof r); /* read for the table even when the solve fails */
    char msg[256];
    const int ok =
        ccb_ref_rod_rigid_solve(&p, deg(P[P_THETA0]), P[P_U0], 20e-3, &r, msg, sizeof msg) == 0;
    if (!ok) {
        study_log("rod rigid analysis: %s", msg);
    }
    study_set_metric(out, "rigid.a_theta0", ccb_ref_rod_a(&p, deg(P[P_THETA0])));
    study_set_metric(out, "rigid.band_lo_deg", band ? lo * 180 / CCB_PI : NAN);
    study_set_metric(out, "rigid.band_hi_deg", band ? hi * 180 / CCB_PI : NAN);
    study_set_metric(out, "rigid.t_singular", ok ? r.t_singular : NAN);
    /* a value that does not exist for these parameters (no band, no singularity) is an empty
     * field, never "nan" */
    study_row(out, "rigid");
    study_num(out, "rigid", ccb_ref_rod_a(&p, deg(P[P_THETA0])));
    if (band) {
        study_num(out, "rigid", lo * 180 / CCB_PI);
        study_num(out, "rigid", hi * 180 / CCB_PI);
    } else {
        study_blank(out, "rigid");
        study_blank(out, "rigid");
    }
    const double sing[] = {
        r.t_singular, r.theta_singular * 180 / CCB_PI, r.N0, r.N_at, r.U0_min, r.end_slide_speed,
        r.reached};
    for (size_t c = 0; c < sizeof sing / sizeof sing[0]; ++c) {
        if (ok) {
            study_num(out, "rigid", sing[c]);
        } else if (c + 1 < sizeof sing / sizeof sing[0]) {
            study_blank(out, "rigid");
        } else {
            study_num(out, "rigid", 0); /* singularity_reached */
        }
    }
    study_value(out, "theta0", P[P_THETA0]);
    study_value(out, "a", ccb_ref_rod_a(&p, deg(P[P_THETA0])));
    study_value(out, "mu", P[P_MU]);
    if (!ok) {
        study_text(out, "no_singularity",
                   band ? "the rod slides from outside the Painleve band"
                        : "there is no Painleve band");
        return 0;
    }
    study_value(out, "lo", lo * 180 / CCB_PI);
    study_value(out, "hi", hi * 180 / CCB_PI);
    study_value(out, "N0", r.N0);
    study_value(out, "N_at", r.N_at);
    study_value(out, "t_ms", 1e3 * r.t_singular);
    study_value(out, "theta", r.theta_singular * 180 / CCB_PI);
    study_value(out, "U0_min", r.U0_min);
    return 0;
}

static const fig_table k_rigid_tables[] = {
    {.name = "rigid",
     .file = "rigid.csv",
     .header = "a_theta0,band_lo [deg],band_hi [deg],t_singular [s],theta_singular [deg],N0 [N],"
               "N_20ms [N],U0_min [m/s],end_slide_speed_at_cutoff [m/s],singularity_reached",
     .cells = "%.10f|%.6f|%.6f|%.8f|%.4f|%.4f|%.4f|%.4f|%.4f|%d"},
    {.name = NULL}};

static const fig_study k_rigid = {
    .claim = "the rigid rod sliding at theta0 meets Painleve's paradox: a(theta) < 0 in a band of "
             "angles, and N diverges in finite time (no runs: closed forms of reference/).",
    .finish = rigid_finish,
    .tables = k_rigid_tables,
    .report =
        "{?no_singularity}a({theta0|%.0f} deg) = {a|%.4f} for mu = {mu|%.2f}: "
        "{text:no_singularity}; no rigid singularity to report (`rod/rigid/rigid.csv` leaves "
        "its columns empty).\n\n{/}{?t_ms}a({theta0|%.0f} deg) = {a|%.4f}; Painleve band (a "
        "< 0) for mu = {mu|%.2f}: {lo|%.3f} deg to {hi|%.3f} deg. Rigid sliding from "
        "{theta0|%.0f} deg at rest in rotation: N(0) = {N0|%.2f} N, N(20 ms) = {N_at|%.1f} N, "
        "a(theta) -> 0 and N diverges at t* = {t_ms|%.3f} ms (theta = {theta|%.3f} deg); the "
        "end still slides there iff U0 > {U0_min|%.2f} m/s. theta' and the end speed diverge "
        "logarithmically at t*, so their values at the singularity depend on the cutoff "
        "(`rod/rigid/rigid.csv`, a <= 1e-10).\n\n{/}",
};

/* ---- standard studies (std.c): e_q against Lagged at dt / 10 (ICF Fig. 13 protocol, case A)
 * ---------------------------- */
static const case_std k_std = {
    .error_name = "e_q",
    .error_unit = "m and rad",
    .error_what =
        "RMS over [0, T] of |q - q_ref| on the run's grid (cases.md §1.4), q_ref: Lagged at the "
        "smallest dt / 10; case A (d = 0, tau_d = 0).",
    .error = std_error_q,
    .ref = STD_REF_RUN,
    .ref_variant = "lagged",
    .ref_ratio = 10.0,
    .dts = {6.4e-4, 1.6e-4, 4e-5},
    .ndt = 3,
    .dts_quick = {6.4e-4, 1.6e-4},
    .ndt_quick = 2,
    .dt_adaptive =
        1.6e-4 /* adaptive variants: dt_default (1e-7, the figures') is off the reference grid */};

/* ---- study peers (the outside engines beside the convex models) ------------------------------ */

/* The rod's claim on every run of the peers study (case.h, peer_claim): ROD-3 restated on one run
 * of case A at the case's dt (1e-5 s <= 1.6e-4 s, where ROD-3 applies), with its bound. */
static const peer_claim k_rod_claims[] = {
    {"ROD-3",
     "the lower end jams (abs(v_t) < v_s) and the rod lifts off before 0.04 s: impact "
     "without collision instead of Painleve's blow-up (1: both)",
     ">=", 1},
};

static void peers_row(study_ctx* ctx, study_out* out, const run_record* r, double* v) {
    (void)out;
    const rod_facts f = analyse(r, ctx->params);
    const double row[5] = {f.t_jam, f.t_unstick, f.t_liftoff, f.vz_liftoff, f.fn_peak};
    memcpy(v, row, sizeof row);
}

static int peers_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    fig_peer_texts(out, fd->b);
    for (int i = 0; i < fd->b->n; ++i) {
        const run_record* r = &fd->b->rec[i];
        char name[32];
        const int ok = r->status == CCB_OK;
        const rod_facts f = ok ? analyse(r, ctx->params) : (rod_facts){0};
        const double held = ok && !isnan(f.t_jam) && !isnan(f.t_liftoff) && f.t_liftoff < 0.04;
        if (!fig_peer_run(out, ctx->cs->name, r, k_rod_claims, &held, 1, name, sizeof name)) {
            continue;
        }
        /* what a solver that stops the slip within one step shows instead of |v_t| < v_s: the
         * smallest |v_t|, the largest f_n and when the end first leaves the ground after it */
        double vt_min = INFINITY, fn_max = 0, t_fn = NAN, t_off = NAN;
        for (long k = 1; k <= r->nsteps; ++k) {
            const double fn = run_obs(r, k, O_FN);
            vt_min = fmin(vt_min, fabs(run_obs(r, k, O_VT)));
            if (fn > fn_max) {
                fn_max = fn;
                t_fn = (double)k * r->cfg.sim.dt;
                t_off = NAN;
            }
            if (isnan(t_off) && !isnan(t_fn) && fn <= 0) {
                t_off = (double)k * r->cfg.sim.dt;
            }
        }
        const double cells[] = {f.t_jam, f.t_liftoff, f.vz_liftoff, f.fn_peak,
                                vt_min,  fn_max,      t_fn,         t_off};
        study_str(out, "runs", "ok");
        study_nums(out, "runs", cells, sizeof cells / sizeof cells[0]);
    }
    return 0;
}

static const fig_table k_peers_tables[] = {
    {.name = "runs",
     .md =
         "| run | status | jam [s] | lift-off [s] | v_z at lift-off [m/s] | largest f_n at the jam "
         "[N] | smallest \\|v_t\\| [m/s] | largest f_n [N] | at [s] | then first f_n = 0 [s] "
         "|\n|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%s|%.5f|%.5f|%.3g|%.4g|%.3g|%.4g|%.5f|%.5f",
     .md_nonfinite = "—"},
    FIG_CLAIMS_TABLE,
    {.name = NULL}};

static const fig_plot k_peers_plots[] = {
    {.script = "contact_grid.gp",
     .out = "peers",
     .vars = "runs='{text:peer_runs}'; titles='{text:peer_titles}'; xmax = 0.04; "
             "title='Rod, case A: the convex models and the engines of this build, dt = 1e-5 s'"},
    {.script = NULL}};

static const fig_study k_peers = {
    .claim = "ccb's convex models beside the outside engines on the same rod (its axis as two "
             "end points): does the lower end jam and the rod lift off, as ICF's compliant "
             "models do, instead of Painleve's rigid blow-up?",
    .peer = 1,
    .runs = fig_peer_runs,
    .nruns = FIG_PEER_NRUNS,
    .columns = "t_jam [s],t_unstick [s],t_liftoff [s],vz_liftoff [m/s],fn_peak [N]",
    .row = peers_row,
    .finish = peers_finish,
    .tables = k_peers_tables,
    .report = "{table:runs}\nThe jam is the first step with |v_t| < v_s at the lower end (v_s, "
              "ccb's stiction tolerance, is the case's parameter); a solver that stops the slip "
              "within one step shows it as a sign change of v_t under a large f_n, then the "
              "lift-off (the last four columns). The engines see the rod's axis (a capsule of "
              "radius 0) as a 1 mm sphere at each end, touching the end from above at the start "
              "(docs/speed.md §3).\n\n"
              "The claims: each restates a gate of the case on one run, with the gate's bound (a "
              "peer's FAIL is a finding about the engine, not a failed gate; `engines.md` "
              "gathers every case's).\n\n{table:claims}\n",
    .plots = k_peers_plots,
};

static const case_study k_studies[] = {
    {.name = "rigid",
     .title = "classical rigid analysis: a(theta), Painleve band, blow-up time",
     .figure = "cases.md §5.2",
     .decl = &k_rigid},
    {.name = "fig9-10",
     .title = "case A (no dissipation), dt = 1e-7: forces and velocities, close-up at the jam",
     .figure = "ICF Figs. 9-10",
     .decl = &k_fig9},
    {.name = "fig11-12",
     .title = "case B (d = 0.2, tau_d = 4e-6), dt = 1e-7: forces and velocities",
     .figure = "ICF Figs. 11-12",
     .decl = &k_fig11},
    {.name = "fig13",
     .title =
         "e_q against dt in {6.4e-4, 1.6e-4, 4e-5, 1e-5}, both cases; Lagged miss scan to 2e-3",
     .figure = "ICF Fig. 13",
     .decl = &k_fig13},
    {.name = "peers",
     .title = "SAP, Similar, Lagged and the outside engines (MuJoCo, ODE, Bullet): jam and "
              "lift-off",
     .figure = "ccb peer comparison",
     .decl = &k_peers}};

static const char* const k_quick[] = {"rigid", "fig9-10", "fig11-12", "fig13", "gradients", NULL};

const case_desc case_rod = {
    .name = "rod",
    /* implicit Euler on the continuous model (one body) */
    .variants = "ie-fn ie-fn-tals ie-qn ie-qn-tals",
    .title = "Sliding rod: Painleve paradox, impact without collision (jam and jump)",
    .paper =
        "Castro, Han, Masterjohn, Irrotational Contact Fields, arXiv 2312.03908, §XI-C, Figs. 8-13",
    .params = k_params,
    .nparams = P_COUNT,
    .notes = k_notes,
    .nnotes = (int)(sizeof k_notes / sizeof k_notes[0]),
    .dt_default = 1e-5,
    .t_final_default = 0.0512,
    .approx_default = "lagged",
    .build = rod_build,
    .adjust = rod_adjust,
    .sim_options = rod_sim_options,
    .nobs = O_COUNT,
    .obs_names = k_obs,
    .observe = rod_observe,
    .studies = k_studies,
    .nstudies = (int)(sizeof k_studies / sizeof k_studies[0]),
    .quick_studies = k_quick, /* bench: every approximation, TAMSI and implicit Euler */
    .std = &k_std,
    .peer_observe = rod_peer_observe,
    .peer_note = "f_t, f_n: the peer's contact force on the rod; stiction_tol: 0"};
