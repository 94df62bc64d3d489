/* Case GRIPPER — a parallel-jaw gripper shaking a mug (spec: cases.md §8.1; TAMSI paper §VI-A,
 * Figs. 6-8).
 *
 * A gripper body moved vertically, z(t) = A sin(2 pi t / T), carries two fingers on prismatic
 * joints that squeeze a mug with a constant actuation force each; the fingers touch the mug
 * through pads of 8 compliant spheres. There is no gravity: the mug is held by friction alone
 * against the inertial force of the shaking, whose peak m A (2 pi / T)^2 = 2.37 N exceeds the
 * 2 mu F_grip = 2 N the two fingers can hold, so the mug slips a little near every acceleration
 * peak and sticks again (the stick-slip transitions the paper chose mu = 0.1 for).
 *
 * Model (articulated trees, formulation-convex §17): the gripper is a prescribed body (its
 * motion exactly z(t)); each finger is a one-coordinate tree hanging from it; the mug is free.
 * The mug's surface is the side of a cylinder of radius R; ccb has no cylinder shape, so it is a
 * capsule of the same radius whose straight part spans the mug's height (the caps are never
 * reached: the gate MUG-HELD keeps every pad on the straight part).
 *
 * Studies:
 *   fig7   simulated time against wall-clock time over 5 s at h = 3 ms: TAMSI, implicit Euler
 *          (full Newton) with and without TALS at fixed steps with convergence control (the
 *          paper's protocol) and with error control (ccb's extra), and the convex
 *          approximations;
 *          the paper's ratios reported, never gated; the mug held (GRIP-1);
 *   fig8   e_v T/A per generalized velocity against h/T for TAMSI, against TAMSI at a finer
 *          step, with the fitted order per DOF (GRIP-2: first order, translations and
 *          rotations). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "case_model.h"
#include "runs.h"

enum {
    P_AMP,
    P_PERIOD,
    P_GRIP,
    P_MU,
    P_VS,
    P_MUG_MASS,
    P_MUG_RADIUS,
    P_MUG_HEIGHT,
    P_COM,
    P_IXX,
    P_IZZ,
    P_FINGER_MASS,
    P_PAD_K,
    P_PAD_D,
    P_TAU,
    P_PAD_R,
    P_RING_R,
    P_NPADS,
    P_SIGMA,
    P_BETA,
    P_MARGIN,
    P_COUNT
};

static const case_param k_params[P_COUNT] = {
    /* one parameter per row */
    /* clang-format off */
    {.name = "amplitude", .def = 0.15, .unit = "m", .hi = 10, .lo_open = 1,
     .meaning = "gripper motion z = A sin(2 pi t / T): A", .tag = "[TAMSI]"},
    {.name = "period", .def = 0.5, .unit = "s", .hi = 100, .lo_open = 1,
     .meaning = "gripper motion period T", .tag = "[TAMSI]"},
    {.name = "grip", .def = 10.0, .unit = "N", .hi = 1e4,
     .meaning = "actuation force of each finger toward the mug", .tag = "[TAMSI]"},
    {.name = "mu", .def = 0.1, .unit = "-", .hi = 10, .meaning = "friction coefficient of the pads",
     .tag = "[TAMSI]"},
    {.name = "vs", .def = 1e-4, .unit = "m/s", .hi = 10, .lo_open = 1,
     .meaning = "stiction tolerance v_s", .tag = "[TAMSI]"},
    {.name = "mug_mass", .def = 0.1, .unit = "kg", .hi = 100, .lo_open = 1, .meaning = "mug mass",
     .tag = "[TAMSI]"},
    {.name = "mug_radius", .def = 0.04, .unit = "m", .hi = 1, .lo_open = 1, .meaning = "mug radius",
     .tag = "[TAMSI]"},
    {.name = "mug_height", .def = 0.1, .unit = "m", .hi = 1, .lo_open = 1,
     .meaning = "mug height (the capsule's straight part)", .tag = "[TAMSI]"},
    {.name = "com_offset", .def = 0.01, .unit = "m", .lo = -0.1, .hi = 0.1,
     .meaning = "mug centre of mass off its axis along the squeeze direction (the handle)",
     .tag = "[code]"},
    {.name = "Ixx", .def = 1.56e-4, .unit = "kg m^2", .hi = 1, .lo_open = 1,
     .meaning = "mug inertia about x and y through its COM", .tag = "[code]"},
    {.name = "Izz", .def = 1.50e-4, .unit = "kg m^2", .hi = 1, .lo_open = 1,
     .meaning = "mug inertia about its axis", .tag = "[code]"},
    {.name = "finger_mass", .def = 0.05, .unit = "kg", .hi = 100, .lo_open = 1,
     .meaning = "mass of each finger", .tag = "[code]"},
    {.name = "pad_k", .def = 1e4, .unit = "N/m", .hi = 1e12, .lo_open = 1,
     .meaning = "stiffness of each pad sphere", .tag = "[default?]"},
    {.name = "pad_d", .def = 6.3, .unit = "s/m", .hi = 1e6,
     .meaning = "Hunt & Crossley dissipation of the pads (critical damping of a finger on two pads)",
     .tag = "[default?]"},
    {.name = "tau_d", .def = 3.15e-3, .unit = "s", .hi = 10,
     .meaning = "SAP relaxation time of the pads (k tau_d = k delta0 d: the damping of pad_d)",
     .tag = "[default?]", .read_if = "approx=sap"},
    {.name = "pad_radius", .def = 0.006, .unit = "m", .hi = 0.1, .lo_open = 1,
     .meaning = "radius of each pad sphere", .tag = "[code]"},
    {.name = "ring_radius", .def = 0.014, .unit = "m", .hi = 0.1, .lo_open = 1,
     .meaning = "radius of the ring of pad spheres", .tag = "[code]"},
    {.name = "pads", .def = 8, .unit = "-", .lo = 1, .hi = 32, .integer = 1,
     .meaning = "pad spheres per finger", .tag = "[code]"},
    CASE_PARAM_SIGMA,
    CASE_PARAM_BETA,
    CASE_PARAM_MARGIN,
    /* clang-format on */
};

static const char* const k_notes[] = {
    "The gripper's motion is prescribed, z(t) = A sin(2 pi t / T) exactly (the paper drives a "
    "1.089 kg body with the matching harmonic force); its acceleration enters the fingers' "
    "dynamics through their joints (formulation-convex §17.4). Initial state: mug and fingers "
    "moving with the gripper, v_z(0) = 2 pi A / T, the fingers at their static squeeze.",
    "Mug: the side of a cylinder of radius 4 cm and height 10 cm, modelled as a capsule whose "
    "straight part spans the height (ccb has no cylinder; the pads never reach the caps). Mass "
    "100 g [TAMSI], inertia and centre-of-mass offset 1 cm toward the handle from Drake's mug "
    "[code]; the offset makes the rotations move.",
    "Fingers: 50 g each [code: 1.089 kg gripper minus its 0.989 kg body], on prismatic joints "
    "along the squeeze direction x, each pushed toward the mug with the grip force (10 N); each "
    "pad is a ring of 8 spheres (radius 6 mm, ring radius 14 mm) in the finger's y-z plane, "
    "centred on the mug's mid-height. Against the cylinder only the two spheres of a ring on "
    "its y = 0 line touch; the other six are speculative contacts 1-2 mm away.",
    "Pad stiffness k = 1e4 N/m per sphere [default?, cases.md §8.1]. SAP's relaxation time "
    "tau_d = 3.15e-3 s gives its linear dissipation k tau_d the linearized Hunt & Crossley "
    "damping k delta0 d of the others at the static squeeze delta0 = 0.5 mm [default?]; with "
    "tau_d = 0 SAP's finger mode is undamped and its error against the Lagged reference grows "
    "as dt shrinks. The mug is rigid (k = infinity): the pair's stiffness is the pad's.",
    "Pad dissipation d = 6.3 s/m, not cases.md's d = 0 [default?, changed]: a finger (50 g) on "
    "its two loaded pads (2 x 1e4 N/m, each compressed by grip/(2k) = 0.5 mm) is a 100 Hz "
    "oscillator, and Hunt & Crossley's linearized damping 2 k delta0 d equals its critical "
    "damping 2 sqrt(2 k m_f) at d = 6.3 s/m (Drake, whose example the paper ran, sets point-"
    "contact dissipation for critical damping from its penetration allowance). With d = 0 the "
    "undamped mode is not resolved by h >= 1e-4 s and TAMSI's fitted orders over h = 1e-3, "
    "3e-4, 1e-4 s fall to 0.70 (mug v_z, w_y) and 0.15 (fingers) instead of 1.00 (quick tier); "
    "--set pad_d=0 reproduces that.",
    "Mug held (GRIP-1): the mug's position along the shaking axis relative to the gripper stays "
    "within the pads' travel on the straight part of the mug, |dz| < H/2 - ring radius - pad "
    "radius = 30 mm, and both fingers touch it at the end.",
    "TAMSI runs with up to 100 iterations per (sub)step here (a run's --max-iterations "
    "overrides it): Drake's 20 fail at h = 1e-3 and 3e-4 s (at t = 0.058 s, where TALS limits "
    "the update to alpha = 0.014 and 20 substeps do not help) and 100 converge; the tolerance "
    "is unchanged.",
    "Durations are whole numbers of every step: 5.1 s at h = 3 ms (fig7, the paper's 5 s), 0.6 s "
    "(fig8 quick tier and the standard studies; 1.2 s in the full tier).",
    "e_v (fig8): per generalized velocity, the RMS over [0, t_final] of v - v_ref on the run's "
    "grid, times T/A; the reference is TAMSI at a finer step (quick tier 1e-5 s, full tier "
    "1e-6 s) instead of the paper's 1e-7 s, which would take hours.",
};

static const char* const k_obs[] = {"dz [m]",   "vz_rel [m/s]", "fn_left [N]",   "fn_right [N]",
                                    "ft_z [N]", "touching [-]", "mug_wy [rad/s]"};
enum { O_DZ, O_VZ, O_FNL, O_FNR, O_FTZ, O_TOUCH, O_WY, O_COUNT };

/* coordinates (formulation-convex §17.2: tree by tree): the fingers' joints, then the mug */
enum { Q_FL, Q_FR, Q_MX };
enum { V_FL, V_FR, V_MWX, V_MWY, V_MWZ, V_MVX, V_MVY, V_MVZ, V_COUNT };

typedef struct grip_data {
    double A, w;        /* amplitude, angular frequency */
    double grip;        /* actuation of each finger */
    int finger[2], mug; /* bodies */
} grip_data;

static void gripper_motion(double t, void* user, ccb_pose* X, ccb_twist* V) {
    const grip_data* d = user;
    X->p = ccb_v3(0, 0, d->A * sin(d->w * t));
    X->R = ccb_m3_identity();
    V->w = ccb_v3(0, 0, 0);
    V->v = ccb_v3(0, 0, d->A * d->w * cos(d->w * t));
}
static void gripper_accel(double t, void* user, ccb_vec3* alpha, ccb_vec3* a) {
    const grip_data* d = user;
    *alpha = ccb_v3(0, 0, 0);
    *a = ccb_v3(0, 0, -d->A * d->w * d->w * sin(d->w * t));
}
static double finger_actuation(double t, double q, double v, void* user) {
    (void)t, (void)q, (void)v;
    return ((const grip_data*)user)->grip;
}

static int gripper_build(const double* P, ccb_model** out, void** data, char* msg, size_t n) {
    const double R = P[P_MUG_RADIUS], rp = P[P_PAD_R], rho = P[P_RING_R];
    if (!(rho + rp < 0.5 * P[P_MUG_HEIGHT])) {
        snprintf(msg, n,
                 "gripper: the pad ring (radius %g m + pad %g m) must fit on the mug's "
                 "half height %g m",
                 rho, rp, 0.5 * P[P_MUG_HEIGHT]);
        return -1;
    }
    grip_data* d = calloc(1, sizeof *d);
    ccb_model* m = NULL;
    if (d == NULL || ccb_model_create(&m) != CCB_OK) {
        free(d);
        snprintf(msg, n, "gripper: out of memory");
        return -1;
    }
    d->A = P[P_AMP];
    d->w = 2 * CCB_PI / P[P_PERIOD];
    d->grip = P[P_GRIP];
    ccb_model_set_gravity(m, ccb_v3(0, 0, 0));
    ccb_status s = CCB_OK;
    ccb_body_def g = ccb_body_def_default();
    g.name = "gripper";
    g.mobilizer = CCB_MOBILIZER_PRESCRIBED;
    g.motion = gripper_motion;
    g.accel = gripper_accel;
    g.motion_user = d;
    int ig = -1;
    s = ccb_model_add_body(m, &g, &ig);
    /* the two touching pads (y = 0, z = +-rho) just touch at q = 0; the static squeeze of two
     * pads, grip / (2 k), is the initial joint position */
    const double x0 = R + rp, q0 = P[P_GRIP] / (2.0 * P[P_PAD_K]);
    const ccb_material pad = {P[P_PAD_K], P[P_PAD_D], P[P_TAU], P[P_MU], 0.0};
    const int npads = (int)lround(P[P_NPADS]);
    for (int f = 0; f < 2 && s == CCB_OK; ++f) {
        const double side = f == 0 ? -1.0 : 1.0; /* left finger at -x, pushing +x */
        const ccb_body_def fd =
            case_finger(f == 0 ? "finger_l" : "finger_r", P[P_FINGER_MASS], ccb_v3(0.02, 0.02, 0.1),
                        ig, ccb_v3(side * x0, 0, 0), ccb_v3(-side, 0, 0), q0, finger_actuation, d);
        s = ccb_model_add_body(m, &fd, &d->finger[f]);
        for (int k = 0; k < npads && s == CCB_OK; ++k) {
            const double th = 2 * CCB_PI * k / npads;
            const ccb_shape_def sp =
                case_sphere_at(NULL, ccb_v3(0, rho * sin(th), rho * cos(th)), rp, pad);
            s = ccb_model_add_shape(m, d->finger[f], &sp, NULL);
        }
    }
    if (s == CCB_OK) {
        ccb_body_def mug = ccb_body_def_default();
        mug.name = "mug";
        mug.mobilizer = CCB_MOBILIZER_FREE;
        mug.mass = P[P_MUG_MASS];
        mug.inertia = ccb_m3_identity();
        mug.inertia.m[0] = mug.inertia.m[4] = P[P_IXX];
        mug.inertia.m[8] = P[P_IZZ];
        mug.pose = ccb_pose_translation(ccb_v3(P[P_COM], 0, 0));
        mug.twist.v = ccb_v3(0, 0, d->A * d->w);
        s = ccb_model_add_body(m, &mug, &d->mug);
    }
    if (s == CCB_OK) {
        const ccb_shape_def side =
            case_side_capsule("mug_side", R, P[P_MUG_HEIGHT], ccb_v3(-P[P_COM], 0, 0), P[P_MU]);
        s = ccb_model_add_shape(m, d->mug, &side, NULL);
    }
    if (s == CCB_OK) {
        s = ccb_model_filter_pair(m, d->finger[0], d->finger[1]);
    }
    return case_finish_model(m, s, "gripper", d, out, data, msg, n);
}

static void gripper_destroy(void* data) {
    free(data);
}

/* TAMSI's iterations per (sub)step on this case when the run keeps the library's default */
#define GRIPPER_TAMSI_ITERATIONS 100

static void gripper_sim_options(const double* P, ccb_sim_params* sp) {
    case_contact_options(sp, P[P_VS], P[P_SIGMA], P[P_BETA], P[P_MARGIN]);
    if (sp->tamsi.max_iterations == ccb_tamsi_params_default().max_iterations) {
        sp->tamsi.max_iterations = GRIPPER_TAMSI_ITERATIONS; /* case notes */
    }
}

static void gripper_observe(const ccb_sim* sim, const void* data, const double* P, double* o) {
    const grip_data* d = data;
    const double t = ccb_sim_time(sim);
    const double* q = ccb_sim_q(sim);
    const double* v = ccb_sim_v(sim);
    (void)P;
    o[O_DZ] = q[Q_MX + 2] - d->A * sin(d->w * t);
    o[O_VZ] = v[V_MVZ] - d->A * d->w * cos(d->w * t);
    o[O_WY] = v[V_MWY];
    o[O_FNL] = o[O_FNR] = o[O_FTZ] = o[O_TOUCH] = 0.0;
    for (int i = 0; i < ccb_sim_ncontacts(sim); ++i) {
        const ccb_contact_result* c = ccb_sim_contact(sim, i);
        const ccb_contact* g = &c->geometry;
        if (!(c->force[2] > 0)) {
            continue;
        }
        o[O_TOUCH] += 1;
        const int finger = g->body_a == d->mug ? g->body_b : g->body_a;
        o[finger == d->finger[0] ? O_FNL : O_FNR] += c->force[2];
        /* force on body B in the world frame: R_WC f_C; on the mug */
        const double* R = g->R_WC.m;
        const double fz = R[6] * c->force[0] + R[7] * c->force[1] + R[8] * c->force[2];
        o[O_FTZ] += g->body_b == d->mug ? fz : -fz;
    }
}

/* A peer run: the mug's motion from the state; the normal forces from the contact force on each
 * finger along its axis (the left finger pushes +x, the right -x); ft_z the contact force on the
 * mug along z; touching: the contacts of the step (the engine's, whatever their force). */
static void gripper_peer_observe(const ccb_sim* sim, const void* data, const double* P,
                                 const run_peer_step* c, double* o) {
    const grip_data* d = data;
    gripper_observe(sim, data, P, o); /* dz, vz, wy (sim has no contacts) */
    o[O_FNL] = -c->f_body[3 * d->finger[0]];
    o[O_FNR] = c->f_body[3 * d->finger[1]];
    o[O_FTZ] = c->f_body[3 * d->mug + 2];
    o[O_TOUCH] = c->ncon;
}

/* ---- the mug held (GRIP-1) ------------------------------------------------------------------- */

/* largest |dz| over the run and the touching pads at its end */
static void held_metrics(const run_record* r, double* dz_max, double* touching_end) {
    double m = 0;
    for (long k = 1; k <= r->nsteps; ++k) {
        m = fmax(m, fabs(run_obs(r, k, O_DZ))); /* dz(0) = 0 */
    }
    *dz_max = r->nsteps > 0 ? m : NAN;
    *touching_end = r->nsteps > 0 ? run_obs(r, r->nsteps, O_TOUCH) : NAN;
}

/* ---- study fig7: simulated time against wall-clock time (TAMSI Fig. 7) ------------------------- */

/* TAMSI and the convex approximations over 5.1 s. Implicit Euler with full Newton as the paper
 * runs it (TAMSI §III: "All of our fixed-step integrators use convergence control"): a fixed step
 * h = 3 ms with convergence control (formulation-tamsi-hydro §B.5), in two forms: ccb's (a failed
 * step redone as two halves that finish it) and Drake's of the paper's time (fixed-control=drake:
 * the implicit trapezoid solved beside every step, a failed step halved and the next tried at the
 * full h) — with TALS over the whole 5.1 s (1.02 s in the quick tier) and without TALS over 1.02 s
 * (full tier only: it halves down to ~1.5e-6 s, 25 s (ccb's) and ~100 s (Drake's) of wall time).
 * Beside it, ccb's earlier reading of Fig. 7: error control at a = 0.1, with TALS over 1.02 s (0.51
 * s quick) and without over 1.02 s (full tier; ~300k steps for 5 s here). */
typedef struct fig7_run {
    const char* variant;
    double t_full, t_quick; /* simulated time [s]; 0: not in that tier */
    int drake;              /* fixed-control=drake (label VARIANT-drake) */
} fig7_run;
static const fig7_run k_fig7_runs[] = {
    {"tamsi", 5.1, 5.1, 0},       {"lagged", 5.1, 5.1, 0},      {"similar", 5.1, 5.1, 0},
    {"sap", 5.1, 5.1, 0},         {"ie-fn-tals", 5.1, 1.02, 0}, {"ie-fn", 1.02, 0, 0},
    {"ie-fn-tals", 5.1, 1.02, 1}, {"ie-fn", 1.02, 0, 1},        {"ie-fn-ec-tals", 1.02, 0.51, 0},
    {"ie-fn-ec", 1.02, 0, 0},
};
enum { FIG7_NV = (int)(sizeof k_fig7_runs / sizeof k_fig7_runs[0]) };

static int fig7_runs(study_ctx* ctx, study_batch* b) {
    const int quick = ctx->tier != CASE_TIER_FULL;
    int n = 0;
    for (int i = 0; i < FIG7_NV; ++i) {
        n += (quick ? k_fig7_runs[i].t_quick : k_fig7_runs[i].t_full) > 0;
    }
    if (study_batch_alloc(ctx, b, n) != 0) {
        return 2;
    }
    for (int i = 0, j = 0; i < FIG7_NV; ++i) {
        const double T = quick ? k_fig7_runs[i].t_quick : k_fig7_runs[i].t_full;
        if (T > 0) {
            variant_def v;
            variant_find(k_fig7_runs[i].variant, &v);
            char label[64];
            snprintf(label, sizeof label, "%s%s", v.name, k_fig7_runs[i].drake ? "-drake" : "");
            study_config(ctx, &b->cfg[j], "fig7", label, &ccb_approx_lagged, 3e-3, T);
            variant_configure(&v, &b->cfg[j], NAN);
            b->cfg[j].record_every = 1; /* the figure sums times.csv row by row: every step */
            if (k_fig7_runs[i].drake) {
                b->cfg[j].sim.ode.fixed = CCB_IE_FIXED_DRAKE;
            }
            ++j;
        }
    }
    return 0;
}

static void fig7_row(study_ctx* ctx, study_out* out, const run_record* r, double* val) {
    (void)ctx;
    double dz, touch;
    held_metrics(r, &dz, &touch);
    const double T = r->cfg.t_final;
    val[0] = r->wall_time;
    val[1] = r->status == CCB_OK && r->wall_time > 0 ? T / r->wall_time : NAN; /* rate */
    val[2] = dz;
    val[3] = touch;
    val[4] = (double)r->nsteps;
    study_set_metricf(out, r->wall_time / T, "fig7.%s.wall_per_sim_s", r->cfg.label);
    study_set_metricf(out, dz, "fig7.%s.dz_max", r->cfg.label);
    study_set_metricf(out, touch, "fig7.%s.touching_end", r->cfg.label);
    study_set_metricf(out, r->status == CCB_OK ? 1.0 : 0.0, "fig7.%s.completed", r->cfg.label);
}

/* The paper's ratio of a run (TAMSI Fig. 7, §VI-A), or NAN. */
static double fig7_paper_ratio(const char* label) {
    return strncmp(label, "ie-fn-tals", 10) == 0 && strstr(label, "-ec") == NULL ? 25.0
           : strcmp(label, "ie-fn") == 0 || strcmp(label, "ie-fn-drake") == 0    ? 55.0
                                                                                 : NAN;
}

static int fig7_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)ctx;
    (void)dir;
    const run_record* tamsi = &fd->b->rec[0];
    const double rate0 = tamsi->wall_time / tamsi->cfg.t_final;
    for (int i = 0; i < fd->b->n; ++i) {
        const run_record* r = &fd->b->rec[i];
        const double ratio = r->wall_time / r->cfg.t_final / rate0;
        const int ode = (r->cfg.sim.solver->flags & CCB_SOLVER_ODE_METHODS) != 0;
        const double paper = fig7_paper_ratio(r->cfg.label);
        study_row(out, "runs");
        study_str(out, "runs", r->cfg.label);
        study_str(out, "runs",
                  !ode                           ? "fixed step"
                  : r->cfg.sim.ode.error_control ? "error control a = 0.1 (ccb's extra)"
                  : r->cfg.sim.ode.fixed == CCB_IE_FIXED_DRAKE
                      ? "fixed step, convergence control as Drake's (paper)"
                      : "fixed step, convergence control as ccb's halves (paper)");
        const double cells[] = {r->cfg.t_final, r->wall_time, r->cfg.t_final / r->wall_time, ratio};
        study_nums(out, "runs", cells, sizeof cells / sizeof cells[0]);
        if (isnan(paper)) {
            study_str(out, "runs", "—");
        } else {
            study_num(out, "runs", paper);
        }
        study_num(out, "runs", (double)(ode ? r->work.n_steps : r->nsteps));
        study_num(out, "runs", ode ? (double)r->work.n_fail_newton : NAN);
        study_num(out, "runs", ode ? (double)r->work.n_f / r->cfg.t_final : NAN);
        study_set_metricf(out, ratio, "fig7.%s.wall_ratio_to_tamsi", r->cfg.label);
        if (ode) { /* the work per simulated second: deterministic, unlike the wall time */
            study_set_metricf(out, (double)r->work.n_f / r->cfg.t_final, "fig7.%s.f_per_sim_s",
                              r->cfg.label);
        }
    }
    /* TALS's saving under each convergence control: f evaluations per simulated second without
     * TALS over those with it (the paper's wall-time ratio 55/25 = 2.2 is one of work: the same
     * integrator, machine and model) */
    static const char* const ctl[2] = {"", "-drake"};
    for (int c = 0; c < 2; ++c) {
        double f[2] = {NAN, NAN}; /* 0: without TALS, 1: with */
        for (int i = 0; i < fd->b->n; ++i) {
            const run_record* r = &fd->b->rec[i];
            for (int t = 0; t < 2; ++t) {
                char want[64];
                snprintf(want, sizeof want, "%s%s", t ? "ie-fn-tals" : "ie-fn", ctl[c]);
                if (strcmp(r->cfg.label, want) == 0 && r->status == CCB_OK) {
                    f[t] = (double)r->work.n_f / r->cfg.t_final;
                }
            }
        }
        if (!isnan(f[0]) && !isnan(f[1])) {
            study_set_metricf(out, f[0] / f[1], "fig7.tals_work_ratio%s", c ? ".drake" : ".halves");
            study_valuef(out, f[0] / f[1], "work_ratio%s", c ? "_drake" : "_halves");
        }
    }
    double dz, touch;
    held_metrics(tamsi, &dz, &touch);
    study_value(out, "dz_mm", 1e3 * dz);
    study_value(out, "T", tamsi->cfg.t_final);
    study_value(out, "touching", touch);
    return 0;
}

static const fig_table k_fig7_tables[] = {
    {.name = "runs",
     .md = "| run | protocol | simulated [s] | wall [s] | real-time factor | ratio to TAMSI | the "
           "paper's ratio | steps taken | Newton failures | f evaluations per simulated s "
           "|\n|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%s|%g|%.3f|%.1f|%.2f|%gx|%d|%.0f|%.4g"},
    {.name = NULL}};

static const fig_study k_fig7 = {
    .claim = "TAMSI at h = 3 ms simulates 5 s in 123 ms (40x real time, i7-6900K); implicit "
             "Euler with full Newton at fixed steps with convergence control (the paper's "
             "fixed-step protocol) is 25x slower than TAMSI with TALS and 55x without; the mug "
             "is not dropped.",
    .make_runs = fig7_runs,
    .serial = 1,
    .columns = "wall [s],sim_over_wall [-],dz_max [m],touching_end [-],steps [-]",
    .row = fig7_row,
    .finish = fig7_finish,
    .tables = k_fig7_tables,
    .report = "Wall-clock time per simulated second over TAMSI's (hardware-dependent, reported, "
              "never gated). The paper's protocol is implicit Euler with full Newton at a fixed "
              "step h = 3 ms with convergence control, in two forms: ccb's (`ie-fn-tals`, `ie-fn`: "
              "a failed step redone as two halves that finish it) and Drake's of the paper's time "
              "(`-drake`: the implicit trapezoid solved beside every step, as Drake computed its "
              "error estimate in fixed-step mode too, a failed step halved and the next one tried "
              "at the full h); the error-controlled runs (`-ec`, a = 0.1) are ccb's extra reading "
              "of the same figure, not the paper's protocol:\n\n{table:runs}\n"
              "{?work_ratio_drake}TALS's saving in work, f evaluations per simulated second "
              "without TALS over those with it: {work_ratio_halves|%.4g}x with ccb's convergence "
              "control, {work_ratio_drake|%.4g}x with Drake's; the paper's 55x and 25x make 2.2x "
              "(GRIP-7a: at least that; GRIP-7b: the paper's size, an expected failure).\n\n{/}"
              "TAMSI at h = 3 ms keeps "
              "the mug: largest |dz| {dz_mm|%.3g} mm over {T} s (the pads leave the mug's side at "
              "30 mm), {touching} pads touching at the end (GRIP-1).\n\n",
    .script = "gripper_fig7.gp",
    .plot = "title='Gripper shaking a mug: simulated against wall-clock time, h = 3 ms (TAMSI "
            "Fig. 7)'",
};

/* ---- study fig8: e_v T/A per DOF against h/T for TAMSI (TAMSI Fig. 8) ---------------------- */

#define FIG8_NH 4
static const double k_fig8_h[FIG8_NH] = {3e-3, 1e-3, 3e-4, 1e-4};
static const char* const k_dof_name[V_COUNT] = {"finger_l.vs", "finger_r.vs", "mug.wx", "mug.wy",
                                                "mug.wz",      "mug.vx",      "mug.vy", "mug.vz"};

static double fig8_href(const study_ctx* ctx) {
    return ctx->tier == CASE_TIER_FULL ? 1e-6 : 1e-5;
}
static double fig8_tfinal(const study_ctx* ctx) {
    return ctx->tier == CASE_TIER_FULL ? 1.2 : 0.6; /* whole steps of every h */
}

static void tamsi_config(study_ctx* ctx, run_config* cfg, double h, double T, const char* label) {
    variant_def v;
    variant_find("tamsi", &v);
    study_config(ctx, cfg, "fig8", label, &ccb_approx_lagged, h, T);
    variant_configure(&v, cfg, NAN);
    const long every = lround(1e-3 / h); /* trajectory files at <= 1 ms resolution */
    cfg->record_every = every > 1 ? (int)every : 1;
}

static int fig8_runs(study_ctx* ctx, study_batch* b) {
    if (study_batch_alloc(ctx, b, FIG8_NH + 1) != 0) {
        return 2;
    }
    const double T = fig8_tfinal(ctx);
    for (int i = 0; i < FIG8_NH; ++i) {
        char label[64];
        snprintf(label, sizeof label, "tamsi_h%g", k_fig8_h[i]);
        tamsi_config(ctx, &b->cfg[i], k_fig8_h[i], T, label);
    }
    tamsi_config(ctx, &b->cfg[FIG8_NH], fig8_href(ctx), T, "reference");
    b->cfg[FIG8_NH].cost = 100;
    return 0;
}

static int fig8_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    const run_record* ref = &fd->b->rec[FIG8_NH];
    const double scale = ctx->params[P_PERIOD] / ctx->params[P_AMP];
    double e[V_COUNT][FIG8_NH], x[FIG8_NH];
    (void)dir;
    for (int i = 0; i < FIG8_NH; ++i) {
        const run_record* r = &fd->b->rec[i];
        double ec[V_COUNT], etot = NAN;
        char msg[128];
        x[i] = k_fig8_h[i] / ctx->params[P_PERIOD];
        if (r->status != CCB_OK || ref->status != CCB_OK || r->nv != V_COUNT ||
            ccb_an_rms_error(r->nsteps, r->cfg.sim.dt, r->v, ref->nsteps, ref->cfg.sim.dt, ref->v,
                             r->nv, &etot, ec, msg, sizeof msg) != 0) {
            for (int k = 0; k < V_COUNT; ++k) {
                ec[k] = NAN;
            }
        }
        study_row(out, "errors");
        study_num(out, "errors", k_fig8_h[i]);
        study_num(out, "errors", x[i]);
        for (int k = 0; k < V_COUNT; ++k) {
            e[k][i] = ec[k] * scale;
            study_num(out, "errors", e[k][i]);
        }
    }
    /* order per DOF over the gate's steps h in {1e-3, 3e-4, 1e-4} (cases.md §8.1) */
    study_value(out, "h_ref", ref->cfg.sim.dt);
    study_value(out, "T", ref->cfg.t_final);
    for (int k = 0; k < V_COUNT; ++k) {
        double order = NAN;
        ccb_an_order(3, x + 1, e[k] + 1, &order, NULL, NULL);
        study_set_metricf(out, order, "fig8.%s.order", k_dof_name[k]);
        study_set_metricf(out, e[k][FIG8_NH - 1], "fig8.%s.e_v_TA.h1e-4", k_dof_name[k]);
        study_row(out, "orders");
        study_str(out, "orders", k_dof_name[k]);
        study_num(out, "orders", e[k][0]);
        study_num(out, "orders", e[k][FIG8_NH - 1]);
        study_num(out, "orders", order);
    }
    /* the DOFs the model's mirror symmetry in y leaves at rest (w_x, w_z, v_y): round-off only */
    double unexcited = 0;
    for (int i = 0; i < FIG8_NH; ++i) {
        unexcited = fmax(unexcited, fmax(e[V_MWX][i], fmax(e[V_MWZ][i], e[V_MVY][i])));
    }
    study_set_metric(out, "fig8.unexcited.e_v_TA_max", unexcited);
    return 0;
}

/* the CSV columns follow k_dof_name */
static const fig_table k_fig8_tables[] = {
    {.name = "errors",
     .file = "errors.csv",
     .header = "h [s],h_over_T [-],finger_l.vs [-],finger_r.vs [-],mug.wx [-],mug.wy [-],"
               "mug.wz [-],mug.vx [-],mug.vy [-],mug.vz [-]",
     .cells = "%.6g|%.6g|%.9g"},
    {.name = "orders",
     .md = "| DOF | e_v T/A at h = 3e-3 | at 1e-4 | order |\n|---|---|---|---|\n",
     .cells = "%s|%.3g|%.3g|%.3f"},
    {.name = NULL}};

static const fig_study k_fig8 = {
    .claim = "TAMSI converges at first order in h for both the translational and the rotational "
             "generalized velocities (e_v T/A against h/T, reference TAMSI at h = 1e-7 s).",
    .make_runs = fig8_runs,
    .finish = fig8_finish,
    .tables = k_fig8_tables,
    .report = "e_v T/A per generalized velocity against TAMSI at h = {h_ref} s over {T} s; order "
              "fitted over h = 1e-3, 3e-4, 1e-4 s:\n\n{table:orders}\nw_x, w_z and v_y, which the "
              "model's mirror symmetry in y leaves at rest, differ from the reference by at most "
              "{fig8.unexcited.e_v_TA_max|%.3g} (round-off).\n\n",
    .script = "gripper_fig8.gp",
    .plot = "title='Gripper: velocity errors of TAMSI per DOF against the step (TAMSI Fig. 8)'",
};

/* ---- standard studies: e_v T/A over every generalized velocity against Lagged at dt / 10 ---- */

static double gripper_std_error(const run_record* r, const run_record* ref, const double* P) {
    double e = NAN;
    char msg[128];
    if (ref == NULL ||
        ccb_an_rms_error(r->nsteps, r->cfg.sim.dt, r->v, ref->nsteps, ref->cfg.sim.dt, ref->v,
                         r->nv, &e, NULL, msg, sizeof msg) != 0) {
        return NAN;
    }
    return e * P[P_PERIOD] / P[P_AMP];
}

static const case_std k_std = {
    .error_name = "e_v_TA",
    .error_unit = "-",
    .error_what =
        "RMS over [0, T] of |v - v_ref| over every generalized velocity, times T/A (TAMSI Fig. 8's "
        "normalization); v_ref: Lagged at the smallest dt / 10.",
    .error = gripper_std_error,
    .ref = STD_REF_RUN,
    .ref_variant = "lagged",
    .ref_ratio = 10.0,
    .t_final = 0.6,
    .t_final_quick = 0.6,
    .dts = {3e-3, 1e-3, 3e-4, 1e-4},
    .ndt = 4,
    .dts_quick = {3e-3, 1e-3},
    .ndt_quick = 2};

/* ---- study peers (the convex models and the outside engines) --------------------------------- */

/* per run: the mug held (GRIP-1a's dz, GRIP-1b's grip at the end) */
static void peers_facts(const run_record* r, double* dz_max, double* fn_min_end) {
    double touching;
    held_metrics(r, dz_max, &touching);
    *fn_min_end =
        r->nsteps > 0 ? fmin(run_obs(r, r->nsteps, O_FNL), run_obs(r, r->nsteps, O_FNR)) : NAN;
}

static void peers_row(study_ctx* ctx, study_out* out, const run_record* r, double* v) {
    (void)ctx;
    char name[32];
    variant_name(&r->cfg, name, sizeof name);
    peers_facts(r, &v[0], &v[1]);
    v[2] = r->nsteps > 0 ? run_obs(r, r->nsteps, O_TOUCH) : NAN;
    study_set_metricf(out, v[0], "peers.%s.dz_max", name);
    study_set_metricf(out, v[1], "peers.%s.fn_min_end", name);
}

/* GRIP-1a, 1b and 1c restated on one run of the case's defaults (h = 3 ms, 5.1 s, fig7's), with
 * the gates' bounds; 1b's "pads touching with a positive normal force, at least one of each
 * ring" as the smaller finger's normal force at the end (a peer reports forces per body) */
static const peer_claim k_gripper_claims[] = {
    {"GRIP-1a", "the mug held on the pads' straight side: largest abs(z_mug - z_gripper) [m]",
     "<=", 0.03},
    {"GRIP-1b", "held between both fingers at the end: the smaller finger normal force [N]", ">",
     0.0},
    {"GRIP-1c", "the run completed [-]", ">=", 1.0},
};

static int peers_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    fig_peer_texts(out, fd->b);
    study_value(out, "grip", ctx->params[P_GRIP]);
    for (int i = 0; i < fd->b->n; ++i) {
        const run_record* r = &fd->b->rec[i];
        char name[32];
        double dz = NAN, fn = NAN;
        if (r->status == CCB_OK) {
            peers_facts(r, &dz, &fn);
        }
        const double v[3] = {dz, fn, 1.0};
        if (fig_peer_run(out, ctx->cs->name, r, k_gripper_claims, v, 3, name, sizeof name)) {
            const double cells[] = {1e3 * dz, fn, run_obs(r, r->nsteps, O_TOUCH)};
            study_nums(out, "runs", cells, 3);
        }
    }
    return 0;
}

static const fig_table k_peers_tables[] = {
    {.name = "runs",
     .md = "| run | status | largest \\|dz\\| [mm] | smaller finger force at the end [N] | "
           "contacts at the end |\n|---|---|---|---|---|\n",
     .cells = "%s|%s|%.3g|%.4g|%d"},
    FIG_CLAIMS_TABLE,
    {.name = NULL}};

static const fig_plot k_peers_plots[] = {
    {.script = "peers_series.gp",
     .out = "peers",
     .vars =
         "runs='{text:peer_runs}'; titles='{text:peer_titles}'; col1='dz [m]'; "
         "col2='fn_left [N]'; bound=0.03; boundname='GRIP-1a'; "
         "title='Gripper: the mug on the convex models and the engines of this build, h = 3 ms'"},
    {.script = NULL}};

static const fig_study k_peers = {
    .claim = "ccb's convex models beside the outside engines on the same gripper: whether the "
             "shaken mug stays held by friction alone (GRIP-1), the fingers on prismatic joints "
             "pushed with the grip force.",
    .peer = 1,
    .runs = fig_peer_runs,
    .nruns = FIG_PEER_NRUNS,
    .columns = "dz_max [m],fn_min_end [N],touching_end [-]",
    .row = peers_row,
    .finish = peers_finish,
    .tables = k_peers_tables,
    .report =
        "Grip {grip} N per finger; the peak inertial force exceeds what friction holds, so the "
        "mug slips near every acceleration peak and sticks again.\n\n{table:runs}\n"
        "{?ran_mujoco}MuJoCo's fingers are slides nested in the gripper's body (its joint damping "
        "implicit, as ccb's). {/}{?ran_ode}ODE's are slider joints to the gripper, a kinematic "
        "body. {/}{?ran_bullet}Bullet's are btSliderConstraints to the gripper, a kinematic body; "
        "its MLCP solver does not take the pads' stiffness (rigid pads). {/}\n\n"
        "The claims: each restates a gate of the case on one run, with the gate's bound (a "
        "peer's FAIL is a finding about the engine, not a failed gate; `engines.md` gathers "
        "every case's).\n\n{table:claims}\n",
    .plots = k_peers_plots,
};

static const case_study k_studies[] = {
    {.name = "fig7",
     .title = "simulated against wall-clock time over 5 s at h = 3 ms; the mug held",
     .figure = "TAMSI Fig. 7",
     .decl = &k_fig7},
    {.name = "fig8",
     .title = "e_v T/A per DOF against h/T for TAMSI, fitted order per DOF",
     .figure = "TAMSI Fig. 8",
     .decl = &k_fig8},
    {.name = "peers",
     .title = "SAP, Similar, Lagged and the outside engines (MuJoCo, ODE, Bullet): the mug held",
     .figure = "ccb peer comparison",
     .decl = &k_peers}};

static const char* const k_quick[] = {"fig7", "fig8", "gradients", NULL};

const case_desc case_gripper = {
    .name = "gripper",
    /* TAMSI Fig. 7's error-controlled implicit Euler (the fixed-step runs are fig7's own) */
    .variants = "ie-fn-ec-tals",
    .title = "Parallel-jaw gripper shaking a mug: stick-slip of a friction grasp",
    .paper =
        "Castro, Qu, Kuppuswamy, Alspach, Sherman, A Transition-Aware Method for the Simulation of "
        "Compliant Contact with Regularized Friction, RA-L 2020, §VI-A, Figs. 6-8",
    .params = k_params,
    .nparams = P_COUNT,
    .notes = k_notes,
    .nnotes = (int)(sizeof k_notes / sizeof k_notes[0]),
    .dt_default = 3e-3,
    .t_final_default = 5.1,
    .approx_default = "lagged",
    .build = gripper_build,
    .destroy = gripper_destroy,
    .sim_options = gripper_sim_options,
    .nobs = O_COUNT,
    .obs_names = k_obs,
    .observe = gripper_observe,
    .studies = k_studies,
    .nstudies = (int)(sizeof k_studies / sizeof k_studies[0]),
    .quick_studies = k_quick,
    .std = &k_std,
    .peer_observe = gripper_peer_observe,
    .peer_note = "fn_left, fn_right: the contact force on each finger along its axis; ft_z: the "
                 "contact force on the mug along z; touching: the engine's contacts of the step"};
