/* Case CONVEYOR — oscillating conveyor belt (spec: cases.md §3; ICF §XI-A, Figs. 2-4).
 *
 * A box (planar body, rotation locked: 2 dof x, z) rides a rigid belt whose position is
 * x_b(t) = A sin(2 pi f t + phase). Contact: one point at the bottom-face centre (or the two bottom
 * corners), normal +z. The belt's velocity enters the contact as a bias (formulation-convex §0):
 * v_c = (v_box - v_b(t0 + dt), 0, v_z). Ideal Coulomb analysis (reference/conveyor_ref.c): stick
 * while |a_b| <= mu g, slip otherwise; with the defaults stick [0, 0.16785], slip
 * [0.16785, 0.41662], then periodic with period 1/f.
 *
 * Studies: fig3 (ICF Fig. 3, contact velocity and force at dt = 0.01 s for SAP, Similar, Lagged)
 * and fig4 (ICF Fig. 4, e_q against dt in {2e-3, 1e-2, 5e-2}, reference Lagged at 2e-4). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "case_model.h"
#include "reference.h"
#include "runs.h"

enum {
    P_MASS,
    P_SIZE,
    P_AMP,
    P_FREQ,
    P_PHASE,
    P_MU,
    P_K,
    P_D,
    P_TAU,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_G,
    P_CONTACTS,
    P_ROTATION,
    P_MARGIN,
    P_COUNT
};

static const case_param k_params[P_COUNT] = {
    /* one parameter per row */
    /* clang-format off */
    {.name = "mass", .def = 1.0, .unit = "kg", .hi = 1e4, .lo_open = 1, .meaning = "box mass m",
     .tag = "[ICF]"},
    {.name = "size", .def = 0.05, .unit = "m", .hi = 10, .lo_open = 1,
     .meaning = "box side a (I = m a^2/6)", .tag = "[ICF]"},
    {.name = "amplitude", .def = 0.2, .unit = "m", .hi = 10, .lo_open = 1,
     .meaning = "belt amplitude A", .tag = "[ICF]"},
    {.name = "frequency", .def = 1.0, .unit = "Hz", .hi = 100, .lo_open = 1,
     .meaning = "belt frequency f", .tag = "[ICF]"},
    {.name = "phase", .unit = "rad", .lo = -10, .hi = 10,
     .meaning = "belt phase: x_b = A sin(2 pi f t + phase)", .tag = "[default?]"},
    {.name = "mu", .def = 0.7, .unit = "-", .hi = 10, .meaning = "friction coefficient",
     .tag = "[ICF]"},
    {.name = "k", .def = 1e7, .unit = "N/m", .hi = 1e15, .lo_open = 1,
     .meaning = "contact stiffness", .tag = "[ICF]"},
    {.name = "d", .def = 500.0, .unit = "s/m", .hi = 1e6,
     .meaning = "Hunt & Crossley dissipation (Lagged, Similar)", .tag = "[ICF]"},
    {.name = "tau_d", .def = 1e-3, .unit = "s", .hi = 10,
     .meaning = "SAP relaxation time (Kelvin-Voigt k tau_d)", .tag = "[ICF]",
     .read_if = "approx=sap"},
    CASE_PARAM_VS,
    CASE_PARAM_SIGMA,
    CASE_PARAM_BETA,
    CASE_PARAM_G,
    {.name = "contacts", .def = 1, .unit = "-", .lo = 1, .hi = 2, .integer = 1,
     .meaning = "1: bottom-face centre, 2: the two bottom corners", .tag = "[default?]"},
    {.name = "rotation", .unit = "-", .hi = 1, .integer = 1,
     .meaning = "0: rotation locked (2 dof), 1: free (3 dof, x z theta)", .tag = "[default?]"},
    CASE_PARAM_MARGIN,
    /* clang-format on */
};

static const char* const k_notes[] = {
    "IC: the box moves with the belt, v(0) = v_b(0) = 2 pi f A cos(phase), resting at the "
    "equilibrium sink z = a/2 - m g/(nc k) with nc contact points (cases.md §3.1 [default?]); "
    "x(0) = 0.",
    "Belt phase 0 (x_b = A sin 2 pi f t) and duration T = 2 s (two belt periods) [default?].",
    "Box rotation is locked (2 dof: x, z); one contact point at the bottom-face centre; the "
    "two-corner variant is --set contacts=2, free rotation --set rotation=1 [default?].",
    "The belt velocity enters the contact bias at the end of the step, t0 + dt (velocity-level "
    "implicit); Lagged's previous-step normal velocity uses the belt at t0.",
    "Contact point on the rigid belt surface (stiffness-weighted point, rigid side wins).",
    "Delassus approximation w = |J diag(A)^-1 J^T|_F / 3 (current Drake, formulation-convex §4.2); "
    "--delassus full selects the SAP paper's J A^-1 J^T.",
    "Newton stopping: eps_r = 1e-5 (ICF §XII), eps_a = 1e-14; every step solved to tolerance.",
    "SAP near-rigid cap beta = 1 (ICF never states beta) [default?]; with dt = 0.01 the cap is "
    "active for this contact (k_eff = 4 pi^2/(w dt (dt + tau_d)) = 7.6e5 N/m < k).",
    "lagged and similar use eps_s = v_s (ICF §V, as used in ICF §XI); lagged-reg uses ICF eq. "
    "(26). "
    "Drake applies eq. (26) to Lagged and Similar by default.",
    "Stick/slip classification for events and spikes: slip iff |v_t| > 10 v_s = 1e-3 m/s.",
    "e_q: RMS over [0, T] of |(x, z) - (x, z)_ref| on the coarse grid (trapezoid), reference "
    "Lagged at dt 10x smaller than the smallest step of the sweep (cases.md §1.4).",
};

static const char* const k_obs[] = {
    "belt.x [m]", "belt.v [m/s]", "vt [m/s]",      "vn [m/s]",           "ft [N]",
    "fn [N]",     "phi [m]",      "phi_glide [m]", "stiction_tol [m/s]",
};
enum { O_BELT_X, O_BELT_V, O_VT, O_VN, O_FT, O_FN, O_PHI, O_GLIDE, O_STOL, O_COUNT };

typedef struct conveyor_data {
    double A, w, phase;
} conveyor_data;

static void belt_motion(double t, void* user, ccb_pose* X, ccb_twist* V) {
    const conveyor_data* c = user;
    const double s = sin(c->w * t + c->phase), co = cos(c->w * t + c->phase);
    *X = ccb_pose_translation(ccb_v3(c->A * s, 0, 0));
    V->w = ccb_v3(0, 0, 0);
    V->v = ccb_v3(c->A * c->w * co, 0, 0);
}

static int conveyor_build(const double* P, ccb_model** out, void** data, char* msg, size_t n) {
    conveyor_data* cd = calloc(1, sizeof *cd);
    if (cd == NULL) {
        snprintf(msg, n, "out of memory");
        return -1;
    }
    cd->A = P[P_AMP];
    cd->w = 2 * CCB_PI * P[P_FREQ];
    cd->phase = P[P_PHASE];
    const double mass = P[P_MASS], a = P[P_SIZE];
    ccb_body_def belt = ccb_body_def_default();
    belt.name = "belt";
    belt.mobilizer = CCB_MOBILIZER_PRESCRIBED;
    belt.motion = belt_motion;
    belt.motion_user = cd;
    ccb_body_def box = ccb_body_def_default();
    box.name = "box";
    box.mass = mass;
    box.inertia = ccb_m3_identity();
    box.inertia.m[0] = box.inertia.m[4] = box.inertia.m[8] = mass * a * a / 6.0;
    box.locked = P[P_ROTATION] == 1 ? 0u : CCB_LOCK_THETA;
    /* equilibrium sink: each of the nc contact points carries m g / nc */
    box.pose = ccb_pose_planar(0.0, 0.5 * a - mass * P[P_G] / (P[P_CONTACTS] * P[P_K]), 0.0);
    box.twist = ccb_twist_planar(cd->A * cd->w * cos(cd->phase), 0.0, 0.0);
    ccb_shape_def surface = ccb_shape_def_default(); /* rigid half-space z <= 0 */
    surface.name = "belt_surface";
    surface.material = (ccb_material){INFINITY, 0.0, 0.0, P[P_MU], 0.0};
    const ccb_vec3 pts[2] = {ccb_v3(-0.5 * a, 0, -0.5 * a), ccb_v3(0.5 * a, 0, -0.5 * a)};
    const ccb_vec3 centre = ccb_v3(0, 0, -0.5 * a);
    ccb_shape_def bottom = ccb_shape_def_default();
    bottom.name = "box_bottom";
    bottom.type = CCB_SHAPE_POINTS;
    bottom.points = P[P_CONTACTS] == 2 ? pts : &centre;
    bottom.npoints = (int)P[P_CONTACTS];
    bottom.material = (ccb_material){P[P_K], P[P_D], P[P_TAU], P[P_MU], 0.0};
    if (case_build_pair("conveyor", P[P_G], &belt, &surface, &box, &bottom, out, msg, n) != 0) {
        free(cd);
        return -1;
    }
    *data = cd;
    return 0;
}

static void conveyor_destroy(void* data) {
    free(data);
}

static void conveyor_sim_options(const double* P, ccb_sim_params* sp) {
    case_contact_options(sp, P[P_VS], P[P_SIGMA], P[P_BETA], P[P_MARGIN]);
}

/* Closed-form steady gliding height of the bottom face at slip speed |v_t| (formulation-convex §11
 * fact 8, ICF Table I, eq. (24)), with W = m g / nc the load per contact:
 *   Lagged  -W/k (no gliding);
 *   Similar mu dt |v_t|_s - W/(k (1 + mu d |v_t|_s));
 *   SAP     mu (dt + tau_d)|v_t| - W dt (dt + tau_d) R_n (1 + mu_tilde^2)   (sliding region,
 *           gamma_n = W dt; R_n includes the near-rigid cap). */
static double glide_height(const ccb_sim* sim, const double* P, double vt) {
    const ccb_sim_params* sp = ccb_sim_params_get(sim);
    const ccb_problem* pb = ccb_sim_problem(sim);
    const double dt = sp->dt, mu = P[P_MU], k = P[P_K], nc = P[P_CONTACTS];
    const double W = P[P_MASS] * P[P_G] / nc; /* load per contact */
    const double s = fabs(vt);
    if (sp->approx == &ccb_approx_sap) {
        const ccb_constraint* c = ccb_problem_constraint(pb, 0);
        if (c == NULL) {
            return 0.0;
        }
        return mu * (dt + P[P_TAU]) * s - W * dt * (dt + P[P_TAU]) * c->Rn * (1 + c->mu_tilde2);
    }
    if (sp->approx == &ccb_approx_similar) {
        const double e = P[P_VS];
        const double ss = s * s / (sqrt(s * s + e * e) + e);
        return mu * dt * ss - W / (k * (1 + mu * P[P_D] * ss));
    }
    return -W / k;
}

static void conveyor_observe(const ccb_sim* sim, const void* data, const double* P, double* o) {
    const conveyor_data* cd = data;
    const double t = ccb_sim_time(sim);
    const double* q = ccb_sim_q(sim);
    const double* v = ccb_sim_v(sim);
    const double s = sin(cd->w * t + cd->phase), co = cos(cd->w * t + cd->phase);
    o[O_BELT_X] = cd->A * s;
    o[O_BELT_V] = cd->A * cd->w * co;
    /* contact velocity (end of step, frame C: t1 = +x, n = +z) averaged over the contacts;
     * without contacts, the box centre relative to the belt */
    o[O_VT] = v[0] - o[O_BELT_V];
    o[O_VN] = v[1];
    o[O_FT] = o[O_FN] = 0.0;
    o[O_STOL] = 0.0;
    const int nc = ccb_sim_ncontacts(sim);
    double vt = 0, vn = 0;
    for (int i = 0; i < nc; ++i) {
        const ccb_contact_result* c = ccb_sim_contact(sim, i);
        o[O_FT] += c->force[0];
        o[O_FN] += c->force[2];
        vt += c->vc[0] / nc;
        vn += c->vc[2] / nc;
        if (i == 0) {
            o[O_STOL] = c->stiction_tol;
        }
    }
    if (nc > 0) {
        o[O_VT] = vt;
        o[O_VN] = vn;
    }
    o[O_PHI] = q[1] - 0.5 * P[P_SIZE]; /* bottom-face centre (rotation locked: the whole face) */
    o[O_GLIDE] = glide_height(sim, P, o[O_VT]);
}

/* A peer run (MuJoCo): the same observables from the state, the contact force on the box from
 * the peer; the stiction tolerance and the closed-form gliding height are ccb's (0). */
static void conveyor_peer_observe(const ccb_sim* sim, const void* data, const double* P,
                                  const run_peer_step* c, double* o) {
    conveyor_observe(sim, data, P, o);   /* no contacts in sim: v_t, v_n of the box relative to
                                          the belt (rotation locked: the bottom face's) */
    const double* f = c->f_body + 3 * 1; /* body 1: the box */
    o[O_FT] = f[0];
    o[O_FN] = f[2];
    o[O_GLIDE] = 0.0;
    o[O_STOL] = 0.0;
}

/* ---- helpers shared by the studies -------------------------------------------------------------
 * */

#define SLIP_FACTOR 10.0 /* slip iff |v_t| > 10 v_s (notes) */

/* ---- study fig3 (ICF Fig. 3) -------------------------------------------------------------------
 * */

/* What one run of fig3 shows (ICF §XI-A), against the ideal Coulomb events of
 * reference/conveyor_ref.c: slip iff |v_t| > 10 v_s. */
typedef struct fig3_facts {
    double fn_dev, fn_max, z_dev;  /* CONV-1, CONV-5c */
    double onset, restick;         /* first transitions [s] (CONV-2) */
    double onset_err, restick_err; /* against the Coulomb events */
    double spike_min, excess_min;  /* CONV-5: f_n/mg at re-stick, and over its bound */
    int nspike;
    double glide_dev; /* CONV-3 */
    long nglide;
    int ntr;
    ccb_an_transition tr[256];
    int have_ref;
    ccb_ref_events ev;
} fig3_facts;

static void fig3_analyse(const double* P, const run_record* r, fig3_facts* f) {
    const double dt = r->cfg.sim.dt, T = r->cfg.t_final;
    const ccb_ref_conveyor ref = {P[P_AMP], P[P_FREQ], P[P_PHASE], P[P_MU], P[P_G]};
    char msg[256];
    f->have_ref = ccb_ref_conveyor_events(&ref, T, &f->ev, msg, sizeof msg) == 0 && f->ev.n > 0;
    const double mg = P[P_MASS] * P[P_G];
    const double z_eq = 0.5 * P[P_SIZE] - mg / (P[P_CONTACTS] * P[P_K]);
    const ccb_an_series ser = run_series(r);
    /* CONV-1: normal force and height (meaningful for Lagged) */
    f->fn_dev = f->z_dev = f->fn_max = 0;
    for (long k = 1; k <= r->nsteps; ++k) {
        f->fn_dev = fmax(f->fn_dev, fabs(run_obs(r, k, O_FN) - mg) / mg);
        f->fn_max = fmax(f->fn_max, run_obs(r, k, O_FN) / mg);
        f->z_dev = fmax(f->z_dev, fabs(r->q[(size_t)k * r->nq + 1] - z_eq));
    }
    /* transitions (slip iff |v_t| > 10 v_s); index k = first step of the new phase */
    f->ntr = 0;
    double* vt = malloc((size_t)(r->nsteps + 1) * sizeof(double));
    if (vt != NULL && r->nsteps > 0) {
        for (long k = 0; k <= r->nsteps; ++k) {
            vt[k] = k == 0 ? 0.0 : run_obs(r, k, O_VT);
        }
        f->ntr = ccb_an_transitions(r->nsteps + 1, vt, 1, SLIP_FACTOR * P[P_VS], f->tr, 256);
        if (f->ntr > 256) {
            f->ntr = 256;
        }
    }
    free(vt);
    f->onset = f->restick = NAN;
    f->spike_min = f->excess_min = INFINITY;
    f->nspike = 0;
    int nslip = 0, nstick = 0;
    const double tau_m = r->cfg.sim.approx == &ccb_approx_sap ? P[P_TAU] : 0.0;
    for (int j = 0; j < f->ntr; ++j) {
        const double t = (double)f->tr[j].index * dt;
        const int idx = f->tr[j].to_slip ? nslip : nstick;
        if (f->tr[j].to_slip) {
            if (nslip == 0) {
                f->onset = t;
            }
            nslip++;
            continue;
        }
        if (nstick == 0) {
            f->restick = t;
        }
        nstick++;
        /* CONV-5: f_n spike within +-2 steps of the slip -> stick transition */
        const double peak = ccb_an_peak_near(&ser, O_FN, f->tr[j].index, 2) / mg;
        f->spike_min = fmin(f->spike_min, peak);
        /* kinematic bound of the spike: arresting the steady gliding descent
         * v_n = -mu (dt + tau_d) |a_rel| within one step adds m mu (dt + tau_d) |a_rel| / dt to
         * f_n (a_rel from the Coulomb reference) */
        if (f->have_ref && idx < f->ev.n) {
            const double bound = P[P_MU] * (dt + tau_m) * f->ev.rel_accel_end[idx] / (P[P_G] * dt);
            f->excess_min = fmin(f->excess_min, (peak - 1.0) / bound);
        }
        f->nspike++;
    }
    /* CONV-3: gliding height against its closed form while |v_t| > 0.02 m/s */
    f->glide_dev =
        ccb_an_max_rel_dev(&ser, O_PHI, O_GLIDE, O_VT, 0.02, P[P_MU] * (dt + tau_m), &f->nglide);
    f->onset_err = f->have_ref ? fabs(f->onset - f->ev.slip_start[0]) : NAN;
    f->restick_err = f->have_ref ? fabs(f->restick - f->ev.slip_end[0]) : NAN;
}

/* fig3, per run: its row and the CONV metrics of its model */
static void fig3_row(study_ctx* ctx, study_out* out, const run_record* r, double* v) {
    fig3_facts f;
    fig3_analyse(ctx->params, r, &f);
    const char* name = r->cfg.sim.approx->name;
    /* the physics metrics (formulation-convex §14) of the three models: CONV-6 */
    for (int k = 0; k < 5; ++k) {
        study_set_metricf(out, r->phys_max[k], "fig3.%s.physics.%s", name, run_phys_name[k]);
    }
    study_set_metricf(out, f.fn_dev, "fig3.%s.fn_dev_rel_max", name);
    study_set_metricf(out, f.z_dev, "fig3.%s.z_dev_max", name);
    study_set_metricf(out, f.fn_max, "fig3.%s.fn_max_rel", name);
    study_set_metricf(out, f.onset, "fig3.%s.onset_t", name);
    study_set_metricf(out, f.restick, "fig3.%s.restick_t", name);
    study_set_metricf(out, f.onset_err, "fig3.%s.onset_err", name);
    study_set_metricf(out, f.restick_err, "fig3.%s.restick_err", name);
    study_set_metricf(out, f.nspike > 0 ? f.spike_min : NAN, "fig3.%s.spike_min_rel", name);
    study_set_metricf(out, f.nspike > 0 && isfinite(f.excess_min) ? f.excess_min : NAN,
                      "fig3.%s.spike_excess_over_kinematic_min", name);
    study_set_metricf(out, f.glide_dev, "fig3.%s.glide_dev_rel", name);
    study_set_metricf(out, r->status == CCB_OK ? 0 : 1, "fig3.%s.failures", name);
    const double row[8] = {
        f.fn_dev,   f.fn_max, f.z_dev, f.onset, f.restick, f.nspike, f.nspike ? f.spike_min : NAN,
        f.glide_dev};
    memcpy(v, row, sizeof row);
}

/* fig3, together: the event times of every run beside the Coulomb ones (events.csv) */
static int fig3_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    const study_batch* b = fd->b;
    (void)dir;
    fig3_facts f;
    for (int i = 0; i < b->n; ++i) {
        fig3_analyse(ctx->params, &b->rec[i], &f);
        int nslip = 0, nstick = 0;
        for (int j = 0; j < f.ntr; ++j) {
            const double t = (double)f.tr[j].index * b->rec[i].cfg.sim.dt;
            const int idx = f.tr[j].to_slip ? nslip++ : nstick++;
            const double tref = !f.have_ref || idx >= f.ev.n ? NAN
                                : f.tr[j].to_slip            ? f.ev.slip_start[idx]
                                                             : f.ev.slip_end[idx];
            study_row(out, "events");
            study_str(out, "events", b->cfg[i].sim.approx->name);
            study_str(out, "events", f.tr[j].to_slip ? "stick->slip" : "slip->stick");
            study_num(out, "events", idx + 1);
            study_num(out, "events", t);
            study_num(out, "events", tref);
        }
    }
    if (f.have_ref) {
        study_value(out, "ref.slip", f.ev.slip_start[0]);
        study_value(out, "ref.restick", f.ev.slip_end[0]);
        study_value(out, "ref.slip_speed", f.ev.slip_speed_max[0]);
    }
    return 0;
}

static const fig_table k_fig3_tables[] = {
    {.name = "events",
     .file = "events.csv",
     .header = "approx,transition,number,t_model [s],t_coulomb [s]",
     .cells = "%s|%s|%d|%.6f"},
    {.name = NULL}};

static void fig3_plot(const double* P, char* out, size_t n) {
    snprintf(out, n, "mg=%.17g; ", P[P_MASS] * P[P_G]);
}

static const fig_study k_fig3 = {
    .claim = "repeated stick/slip; Lagged keeps v_n = 0 and f_n = mg; SAP and Similar glide "
             "(v_n != 0) during slip, show f_n transients while the slip speed changes and f_n "
             "spikes at slip -> stick.",
    .dt = 0.01,
    .t_final = 2.0,
    .variants = "sap,similar,lagged",
    .columns = "max_abs_fn_minus_mg_over_mg,max_fn_over_mg,max_abs_z_minus_zeq [m],"
               "first_slip_onset [s],first_restick [s],slip_to_stick_transitions,"
               "min_spike_fn_over_mg,max_glide_dev_over_offset",
    .row = fig3_row,
    .finish = fig3_finish,
    .tables = k_fig3_tables,
    .report = "{?ref.slip}Ideal Coulomb reference (reference/conveyor_ref.c): first slip "
              "{ref.slip|%.5f} s, first re-stick {ref.restick|%.5f} s, largest slip speed "
              "{ref.slip_speed|%.4f} m/s. Model event times are in "
              "`conveyor/fig3/events.csv`.\n\n{/}",
    .script = "contact_grid.gp",
    .plot = "title='Conveyor belt, contact velocity and force, dt = 0.01 s (ICF Fig. 3)'",
    .plot_params = fig3_plot,
};

/* ---- study fig4 (ICF Fig. 4) --------------------------------------------------------------------
 * */

/* the paper's sweep (reference Lagged 2e-4 s), and an extended one where SAP's plateau shows */
static const fig_sweep k_fig4_sweeps[] = {
    {.tag = "paper", .dts = {5e-2, 1e-2, 2e-3}, .ndt = 3},
    {.tag = "extended", .dts = {1e-3, 4e-4, 2e-4, 1e-4}, .ndt = 4}};

/* fig4, together: Similar above Lagged at every step of the paper's sweep (ICF Fig. 4), SAP's
 * ratio e(2e-3)/e(1e-2) of CONV-4, the orders and tail ratios of both sweeps (orders.csv) */
static int fig4_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)ctx;
    const fig_sweep_result *paper = &fd->sw[0], *ext = &fd->sw[1];
    const int sap = fig_variant_index(paper, "sap"), sim = fig_variant_index(paper, "similar"),
              lag = fig_variant_index(paper, "lagged");
    double ratio_min = INFINITY;
    for (int j = 0; j < paper->decl->ndt; ++j) {
        ratio_min = fmin(ratio_min, paper->e[sim][j] / paper->e[lag][j]);
    }
    study_set_metric(out, "convergence.paper.similar_over_lagged_min", ratio_min);
    study_set_metric(out, "convergence.paper.sap.ratio_2e-3_over_1e-2",
                     paper->e[sap][2] / paper->e[sap][1]);
    (void)dir;
    for (int i = 0; i < paper->nvariants; ++i) {
        const fig_sweep_result* sw[2] = {paper, ext};
        for (int k = 0; k < 2; ++k) {
            const int nd = sw[k]->decl->ndt;
            study_row(out, "orders");
            study_str(out, "orders", sw[k]->variant[i]);
            study_str(out, "orders", sw[k]->decl->tag);
            study_num(out, "orders", sw[k]->order[i]);
            study_num(out, "orders", sw[k]->e[i][nd - 1] / sw[k]->e[i][nd - 2]);
        }
    }
    return 0;
}

static const fig_table k_fig4_tables[] = {
    {.name = "orders",
     .file = "orders.csv",
     .header = "approx,sweep,observed_order,tail_ratio_e_smallest_over_e_next",
     .cells = "%s|%s|%.6f"},
    {.name = NULL}};

static const fig_plot k_fig4_plots[] = {
    {.script = "convergence.gp",
     .out = "fig4",
     .vars = "tags='paper extended'; tagtitles='paper extended'; models='sap similar lagged'; "
             "titles='SAP Similar Lagged'; guide_model='lagged'; guide_dt=0.01; "
             "title='Conveyor belt, convergence of the box trajectory (ICF Fig. 4)'"},
    {.script = NULL}};

static const fig_study k_fig4 = {
    .claim = "Lagged and Similar first order, Similar above Lagged; SAP plateaus at the smallest "
             "step (its gliding offset mu tau_d |v_t| does not vanish). Filled symbols: the "
             "paper's sweep (reference Lagged 2e-4 s); open symbols: an extended sweep down to "
             "1e-4 s (reference Lagged 1e-5 s) that shows where SAP's plateau appears with the "
             "parameters of cases.md §3.1.",
    .variants = "sap,similar,lagged",
    .sweeps = k_fig4_sweeps,
    .nsweeps = 2,
    .metric = "convergence", /* the gates' names (reference/conveyor.json) */
    .finish = fig4_finish,
    .tables = k_fig4_tables,
    .report = "(e_q in metres.)\n\n",
    .plots = k_fig4_plots,
};

/* ---- standard studies (std.c): e_q against Lagged at dt / 10 (ICF Fig. 4 protocol)
 * ---------------------------- */
static const case_std k_std = {
    .error_name = "e_q",
    .error_unit = "m",
    .error_what =
        "RMS over [0, T] of |q - q_ref| on the run's grid (cases.md §1.4), q_ref: Lagged at the "
        "smallest dt / 10.",
    .error = std_error_q,
    .ref = STD_REF_RUN,
    .ref_variant = "lagged",
    .ref_ratio = 10.0,
    .dts = {5e-2, 1e-2, 2e-3},
    .ndt = 3,
    .dts_quick = {5e-2, 1e-2},
    .ndt_quick = 2};

/* ---- study peers (MuJoCo beside the convex models) --------------------------------------------
 * */

/* What the bottom face does while the box slips and while it sticks (|v_t| > 10 v_s: slip). */
typedef struct peers_facts {
    long nslip, nstick, nfree;      /* steps of each phase; steps without a normal force */
    double vn_slip, vn_stick;       /* max |v_n| */
    double phi_slip_max, pen_stick; /* highest bottom while slipping; mean -phi while sticking */
} peers_facts;

static peers_facts peers_analyse(const double* P, const run_record* r) {
    peers_facts f = {0, 0, 0, 0, 0, -INFINITY, 0};
    for (long k = 1; k <= r->nsteps; ++k) {
        const double vn = fabs(run_obs(r, k, O_VN)), phi = run_obs(r, k, O_PHI);
        f.nfree += run_obs(r, k, O_FN) <= 0;
        if (fabs(run_obs(r, k, O_VT)) > SLIP_FACTOR * P[P_VS]) {
            f.nslip++;
            f.vn_slip = fmax(f.vn_slip, vn);
            f.phi_slip_max = fmax(f.phi_slip_max, phi);
        } else {
            f.nstick++;
            f.vn_stick = fmax(f.vn_stick, vn);
            f.pen_stick += -phi;
        }
    }
    f.pen_stick = f.nstick ? f.pen_stick / (double)f.nstick : NAN;
    f.phi_slip_max = f.nslip ? f.phi_slip_max : NAN;
    return f;
}

static void peers_row(study_ctx* ctx, study_out* out, const run_record* r, double* v) {
    const double* P = ctx->params;
    const peers_facts f = peers_analyse(P, r);
    fig3_facts e;
    fig3_analyse(P, r, &e);
    char name[32];
    variant_name(&r->cfg, name, sizeof name);
    const double row[10] = {e.onset,   e.onset_err, e.restick,      e.restick_err, (double)f.nslip,
                            f.vn_slip, f.vn_stick,  f.phi_slip_max, f.pen_stick,   (double)f.nfree};
    memcpy(v, row, sizeof row);
    if (!fig_peer_main(r)) { /* CONV-4a's runs: in the table, their metrics in the finish's */
        return;
    }
    study_set_metricf(out, e.onset_err, "peers.%s.onset_err", name);
    study_set_metricf(out, e.restick_err, "peers.%s.restick_err", name);
    study_set_metricf(out, f.vn_slip, "peers.%s.vn_slip_max", name);
    study_set_metricf(out, f.vn_stick, "peers.%s.vn_stick_max", name);
    study_set_metricf(out, f.phi_slip_max, "peers.%s.phi_slip_max", name);
    study_set_metricf(out, f.pen_stick, "peers.%s.penetration_stick_mean", name);
    study_set_metricf(out, (double)f.nfree, "peers.%s.steps_without_normal_force", name);
}

/* The conveyor's claims on every run of the peers study (case.h, peer_claim): CONV-1a, CONV-1b,
 * CONV-2a, CONV-2b and CONV-5c restated on one run at the case's defaults (dt = 0.01 s), with the
 * gates' bounds. */
static const peer_claim k_conveyor_claims[] = {
    {"CONV-1a",
     "normal force m g throughout (the belt moves horizontally): max abs(f_n - m g) / m g",
     "<=", 1e-6},
    {"CONV-1b", "no gliding: max abs(z - z_eq) of the box [m]", "<=", 1e-9},
    {"CONV-2a", "stick to slip at the ideal Coulomb time: abs(t - t_ref) [s] within 2 dt",
     "<=", 0.02},
    {"CONV-2b", "slip to stick at the ideal Coulomb time: abs(t - t_ref) [s] within 2 dt",
     "<=", 0.02},
    {"CONV-5c", "no normal-force spike at re-stick: max f_n / m g", "<=", 1.01},
    {"CONV-4a",
     "first order in dt: abs(observed order - 1) of e_q over dt in {5e-2 1e-2 2e-3} against the "
     "same variant at 2e-4 s",
     "<=", 0.2},
};

/* CONV-4a restated on each variant: its own convergence (the engine's scheme against itself at
 * a fine step; the gate measures ccb's Lagged against Lagged), the gate's steps and its interval
 * [0.8, 1.2] as abs(order - 1) <= 0.2 */
#define PEERS_NDT 3
static const double k_peers_dts[PEERS_NDT] = {5e-2, 1e-2, 2e-3};
#define PEERS_DT_REF 2e-4
#define CONV_PEER_RUNS(v, a)                                                                       \
    {.variant = v, .label = v}, {.variant = v, .label = v "_dt0.05", .dt = 5e-2},                  \
        {.variant = v, .label = v "_dt0.002", .dt = 2e-3},                                         \
        {.variant = v, .label = v "_dt0.0002", .dt = PEERS_DT_REF},
static const fig_run k_peer_runs[] = {FIG_PEER_VARIANTS(CONV_PEER_RUNS, 0)};

/* The claims' values of a run that finished. */
static void conveyor_claims(const double* P, const run_record* r, double v[5]) {
    fig3_facts e;
    fig3_analyse(P, r, &e);
    const double c[5] = {e.fn_dev, e.z_dev, e.onset_err, e.restick_err, e.fn_max};
    memcpy(v, c, sizeof c);
}

static int peers_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    const double* P = ctx->params;
    study_value(out, "sink", P[P_MASS] * P[P_G] / (P[P_CONTACTS] * P[P_K]));
    study_value(out, "slip_factor", SLIP_FACTOR);
    fig_peer_texts(out, fd->b);
    for (int i = 0; i < fd->b->n; ++i) {
        const run_record* r = &fd->b->rec[i];
        if (!fig_peer_main(r)) {
            continue;
        }
        char name[32];
        double v[6] = {0};
        variant_name(&r->cfg, name, sizeof name);
        if (r->status == CCB_OK) {
            conveyor_claims(P, r, v);
        }
        v[5] = fig_peer_convergence(out, fd->b, name, k_peers_dts, PEERS_NDT, PEERS_DT_REF);
        if (!fig_peer_run(out, ctx->cs->name, r, k_conveyor_claims, v, 6, name, sizeof name)) {
            continue;
        }
        const peers_facts f = peers_analyse(P, r);
        study_num(out, "runs", f.vn_slip);
        study_num(out, "runs", f.phi_slip_max);
        if (f.nstick > 0) {
            study_num(out, "runs", f.vn_stick);
            study_num(out, "runs", f.pen_stick);
        } else { /* it never sticks (|v_t| > 10 v_s at every step) */
            study_str(out, "runs", "never sticks");
            study_blank(out, "runs");
        }
        study_num(out, "runs", (double)f.nfree);
        study_num(out, "runs", (double)r->nsteps);
    }
    return 0;
}

static const fig_table k_peers_tables[] = {
    {.name = "runs",
     .md = "| run | status | slipping: largest \\|v_n\\| [m/s] | slipping: highest bottom above "
           "the belt [m] | sticking: largest \\|v_n\\| [m/s] | sticking: mean penetration [m] | "
           "steps without a normal force | steps |\n|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%s|%.3g|%.3g|%.3g|%.3g|%d"},
    FIG_PEER_CONVERGENCE_TABLE("5e-2", "1e-2", "2e-3"),
    FIG_CLAIMS_TABLE,
    {.name = NULL}};

static const fig_plot k_peers_plots[] = {
    {.script = "contact_grid.gp",
     .out = "peers",
     .vars = "runs='{text:peer_runs}'; titles='{text:peer_titles}'; "
             "title='Conveyor: the convex models and the engines of this build, dt = 0.01 s'"},
    {.script = NULL}};

static const fig_study k_peers = {
    .claim =
        "ccb's convex models beside the outside engines on the same scene: the normal velocity and "
        "the penetration of the box while it slips and while it sticks (SAP's and "
        "Similar's gliding, Lagged's none, MuJoCo's), and the slip events against ideal "
        "Coulomb friction.",
    .peer = 1,
    .runs = k_peer_runs,
    .nruns = (int)(sizeof k_peer_runs / sizeof k_peer_runs[0]),
    .columns = "onset_t [s],onset_err [s],restick_t [s],restick_err [s],slip_steps,"
               "vn_slip_max [m/s],vn_stick_max [m/s],phi_slip_max [m],penetration_stick_mean [m],"
               "steps_without_normal_force",
    .row = peers_row,
    .finish = peers_finish,
    .tables = k_peers_tables,
    .report =
        "Static penetration of a point contact m g / (n k) = {sink|%.3g} m; slip means "
        "|v_t| > {slip_factor} v_s.\n\n{table:runs}\nSAP and Similar glide: while "
        "slipping the box rises on the belt by mu (dt + tau_d) |v_t| (ICF Table I), Lagged "
        "does not. {?ran_mujoco}MuJoCo has no speculative contact: a box that leaves the belt "
        "falls one whole step before its contact is found again, so it hops (steps without a "
        "normal force) instead of gliding, and its normal force spikes where it lands. mujoco-k "
        "uses ccb's k literally (docs/speed.md §3). {/}{?ran_ode}ODE's contact is a "
        "spring-damper whose normal force does not depend on the slip: like Lagged, its box "
        "neither glides nor hops. {/}{?ran_bullet}So is Bullet's with its sequential impulses; "
        "its MLCP solver does not take the contact's stiffness and damping (the box sits at "
        "zero penetration), and its box hops. {/}\n\n"
        "Convergence (CONV-4a on each variant): e_q, the RMS over [0, T] of the coordinates' "
        "distance to the same variant at dt = 2e-4 s, and the order fitted over the three "
        "steps:\n\n{table:convergence}\n"
        "The claims: each restates a gate of the case on one run (CONV-4a: on a variant's four "
        "runs), with the gate's bound (a peer's FAIL is a finding about the engine, not a "
        "failed gate; `engines.md` gathers every case's).\n\n{table:claims}\n",
    .plots = k_peers_plots,
};

static const case_study k_studies[] = {
    {.name = "fig3",
     .title = "contact velocity and force at dt = 0.01 s: SAP, Similar, Lagged",
     .figure = "ICF Fig. 3",
     .decl = &k_fig3},
    {.name = "fig4",
     .title = "e_q against dt in {2e-3, 1e-2, 5e-2} (reference Lagged 2e-4) and an extended sweep "
              "to 1e-4",
     .figure = "ICF Fig. 4",
     .decl = &k_fig4},
    {.name = "peers",
     .title = "SAP, Similar, Lagged and the outside engines (MuJoCo, ODE, Bullet): normal velocity "
              "and penetration in slip and stick",
     .figure = "ccb peer comparison",
     .decl = &k_peers}};

static const char* const k_quick[] = {"fig3", "fig4", "gradients", NULL};

const case_desc case_conveyor = {
    .name = "conveyor",
    /* implicit Euler on the continuous model (its cost is bounded here: one body) */
    .variants = "ie-fn ie-fn-tals ie-qn ie-qn-tals",
    .title = "Oscillating conveyor belt: box on a belt x_b = A sin(2 pi f t), stick-slip",
    .paper =
        "Castro, Han, Masterjohn, Irrotational Contact Fields, arXiv 2312.03908, §XI-A, Figs. 2-4",
    .params = k_params,
    .nparams = P_COUNT,
    .notes = k_notes,
    .nnotes = (int)(sizeof k_notes / sizeof k_notes[0]),
    .dt_default = 0.01,
    .t_final_default = 2.0,
    .approx_default = "lagged",
    .build = conveyor_build,
    .destroy = conveyor_destroy,
    .sim_options = conveyor_sim_options,
    .nobs = O_COUNT,
    .obs_names = k_obs,
    .observe = conveyor_observe,
    .studies = k_studies,
    .nstudies = (int)(sizeof k_studies / sizeof k_studies[0]),
    .quick_studies = k_quick, /* bench: every approximation, TAMSI and implicit Euler */
    .std = &k_std,
    .peer_observe = conveyor_peer_observe,
    .peer_note = "ft, fn: the total contact force on the box; phi_glide and stiction_tol have no "
                 "counterpart "
                 "(0)"};
