/* The stick-slip box's peers study (cases.md §7; issue 48): ccb's convex approximations and the
 * outside engines (reference/peers/peer.h) on the box pushed by f = F sin(2 pi t), against the exact
 * Coulomb solution (reference/box_ref.c), at the case's step (1 ms) over 2 s.
 *
 * The normal direction is free (normal = 1): the paper's box holds it at the static penetration,
 * which an engine cannot be told (its normal force comes from its own contact model, not from a
 * locked coordinate), so every run, ccb's too, bears the weight with its normal contact of
 * stiffness k, as SAP and Similar need (the tamsi-convex study). The claims restate BOX-1a (the
 * creep in stiction), BOX-1b (the event times) and BOX-1c (the event count) on one run; their
 * rules were fixed before any peer ran: the events are the crossings of |v| = 10 v_s (the
 * conveyor's slip rule: above any creep of ccb's regularized stiction, so that a creeping run
 * cannot add events), found the same way on the run and on the exact solution, within 2 dt (the
 * conveyor's CONV-2 rule: one step to detect a transition, one to make it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box.h"

/* |v| = EVENT_FACTOR v_s is a slip (the conveyor's SLIP_FACTOR) */
#define EVENT_FACTOR 10.0
/* the exact solution's samples per step of the run, for its crossings */
#define EXACT_PER_STEP 100
#define MAX_CROSSINGS 64

void box_peer_observe(const ccb_sim* sim, const void* data, const double* P, const run_peer_step* c,
                      double* o) {
    box_observe(sim, data, P, o);        /* f and v_exact (sim has no contacts) */
    const double* f = c->f_body + 3 * 1; /* body 1: the box */
    o[O_FT] = f[0];
    o[O_FN] = f[2];
    o[O_SLIP] = ccb_sim_v(sim)[0]; /* its contact point is its origin, and it does not turn */
    o[O_STOL] = 0.0;
}

typedef struct peers_facts {
    int non, noff, non_ex, noff_ex; /* crossings of |v| = 10 v_s: the run's, the exact solution's */
    double event_err;               /* largest |t - t_exact| over them (NAN: the counts differ) */
    double count_diff;              /* |non - non_ex| + |noff - noff_ex| */
    double creep;  /* largest |v| while the exact solution sticks, 2 dt away from its events */
    double fn_dev; /* largest |f_n - W| / W */
    double x_err;  /* largest |x - x_exact| over the steps */
    double v_rms;  /* RMS over the steps of v - v_exact */
} peers_facts;

/* 1 if t is within `gap` of an event of ev, or inside a slide. */
static int near_slide(const ccb_ref_box_events* ev, double t, double gap) {
    for (int k = 0; k < ev->n; ++k) {
        if (t > ev->t_on[k] - gap && t < ev->t_off[k] + gap) {
            return 1;
        }
    }
    return 0;
}

static double largest_gap(const double* a, const double* b, int n) {
    double e = 0;
    for (int i = 0; i < n; ++i) {
        e = fmax(e, fabs(a[i] - b[i]));
    }
    return e;
}

/* 0, or -1 with a message (the exact solution could not be solved, or no memory). */
static int peers_analyse(const double* P, const run_record* r, peers_facts* f, char* msg,
                         size_t n) {
    memset(f, 0, sizeof *f);
    const double dt = r->cfg.sim.dt, T = (double)r->nsteps * dt, W = P[P_MASS] * P[P_G];
    const double theta = EVENT_FACTOR * P[P_VS];
    const ccb_ref_box p = box_ref_params(P);
    ccb_ref_box_events ev;
    if (ccb_ref_box_solve(&p, T, &ev, msg, n) != 0) {
        return -1;
    }
    const long ns = r->nsteps * EXACT_PER_STEP;
    double* v = malloc(((size_t)r->nsteps + 1) * sizeof(double));
    double* vx = malloc(((size_t)ns + 1) * sizeof(double));
    if (v == NULL || vx == NULL) {
        free(v), free(vx);
        snprintf(msg, n, "box peers: out of memory");
        return -1;
    }
    for (long k = 0; k <= ns; ++k) {
        ccb_ref_box_exact(&p, &ev, (double)k * (dt / EXACT_PER_STEP), NULL, &vx[k]);
    }
    for (long k = 0; k <= r->nsteps; ++k) {
        v[k] = r->v[(size_t)k * r->nv];
    }
    double on[MAX_CROSSINGS], off[MAX_CROSSINGS], on_ex[MAX_CROSSINGS], off_ex[MAX_CROSSINGS];
    ccb_an_threshold_crossings(v, r->nsteps + 1, dt, theta, on, off, MAX_CROSSINGS, &f->non,
                               &f->noff);
    ccb_an_threshold_crossings(vx, ns + 1, dt / EXACT_PER_STEP, theta, on_ex, off_ex, MAX_CROSSINGS,
                               &f->non_ex, &f->noff_ex);
    f->count_diff = abs(f->non - f->non_ex) + abs(f->noff - f->noff_ex);
    f->event_err = f->count_diff > 0
                       ? NAN
                       : fmax(largest_gap(on, on_ex, f->non), largest_gap(off, off_ex, f->noff));
    for (long k = 1; k <= r->nsteps; ++k) {
        const double t = (double)k * dt;
        if (!near_slide(&ev, t, 2 * dt)) {
            f->creep = fmax(f->creep, fabs(v[k]));
        }
        f->fn_dev = fmax(f->fn_dev, fabs(run_obs(r, k, O_FN) - W) / W);
        double x_ex;
        ccb_ref_box_exact(&p, &ev, t, &x_ex, NULL);
        f->x_err = fmax(f->x_err, fabs(r->q[(size_t)k * r->nq] - x_ex));
    }
    f->v_rms = box_rms_vs_exact(r);
    free(v);
    free(vx);
    return 0;
}

static void peers_row(study_ctx* ctx, study_out* out, const run_record* r, double* values) {
    peers_facts f;
    char msg[256], name[32];
    if (peers_analyse(ctx->params, r, &f, msg, sizeof msg) != 0) {
        for (int i = 0; i < 7; ++i) {
            values[i] = NAN;
        }
        return;
    }
    variant_name(&r->cfg, name, sizeof name);
    const double row[7] = {
        f.event_err, f.count_diff, f.creep, f.fn_dev, f.x_err, f.v_rms, (double)(f.non + f.noff)};
    memcpy(values, row, sizeof row);
    study_set_metricf(out, f.event_err, "peers.%s.event_err_max", name);
    study_set_metricf(out, f.creep, "peers.%s.creep_max", name);
    study_set_metricf(out, f.fn_dev, "peers.%s.fn_dev_rel", name);
    study_set_metricf(out, f.x_err, "peers.%s.x_err_max", name);
    study_set_metricf(out, f.v_rms, "peers.%s.v_rms_vs_exact", name);
}

static const peer_claim k_box_claims[] = {
    {"BOX-1a",
     "no creep in stiction: largest abs(v) / v_s while the exact solution sticks (2 dt away from "
     "its events)",
     "<=", 1.1},
    {"BOX-1b",
     "slip onsets and re-sticks at the exact Coulomb times: largest abs(t - t_exact) / (2 dt) "
     "over the crossings of abs(v) = 10 v_s",
     "<=", 1.0},
    {"BOX-1c",
     "every exact event and no other: abs(onsets - exact) + abs(re-sticks - exact) over [0 T]",
     "<=", 0.0},
};

static int peers_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    const double* P = ctx->params;
    fig_peer_texts(out, fd->b);
    study_value(out, "W", P[P_MASS] * P[P_G]);
    study_value(out, "sink", P[P_MASS] * P[P_G] / P[P_K]);
    study_value(out, "theta", EVENT_FACTOR * P[P_VS]);
    for (int i = 0; i < fd->b->n; ++i) {
        const run_record* r = &fd->b->rec[i];
        char name[32], msg[256];
        peers_facts f;
        if (r->status == CCB_OK && peers_analyse(P, r, &f, msg, sizeof msg) != 0) {
            return study_fail(out, CCB_E_INVALID, "box peers: %s", msg);
        }
        const double dt = r->cfg.sim.dt;
        const double v[3] = {f.creep / P[P_VS], f.event_err / (2 * dt), f.count_diff};
        if (fig_peer_run(out, ctx->cs->name, r, k_box_claims, v, 3, name, sizeof name)) {
            const double cells[] = {f.non,   f.non_ex, f.noff,  f.noff_ex, f.event_err,
                                    f.creep, f.fn_dev, f.x_err, f.v_rms};
            study_nums(out, "runs", cells, sizeof cells / sizeof cells[0]);
        }
    }
    return 0;
}

static const fig_table k_peers_tables[] = {
    {.name = "runs",
     .md = "| run | status | slip onsets | exact | re-sticks | exact | largest event error [s] | "
           "largest \\|v\\| in stiction [m/s] | largest \\|f_n - W\\| / W | largest \\|x - "
           "x_exact\\| [m] | RMS of v - v_exact [m/s] |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%s|%d|%d|%d|%d|%.3g|%.3g|%.3g|%.3g|%.3g"},
    FIG_CLAIMS_TABLE,
    {.name = NULL}};

static const fig_plot k_peers_plots[] = {
    {.script = "box_peers.gp",
     .out = "peers",
     .vars = "runs='{text:peer_runs}'; titles='{text:peer_titles}'; W={W|%.17g}; "
             "title='Stick-slip box: the convex models and the engines of this build, dt = 1 ms, "
             "normal direction free'"},
    {.script = NULL}};

static const fig_run k_runs[FIG_PEER_NRUNS] = FIG_PEER_RUN_LIST("normal=1");

const fig_study box_peers = {
    .claim = "ccb's convex models beside the outside engines on the box pushed by F sin(2 pi t): "
             "its stick-slip events and its creep in stiction against the exact Coulomb "
             "solution, with the normal direction free.",
    .peer = 1,
    .runs = k_runs,
    .nruns = FIG_PEER_NRUNS,
    .columns = "event_err_max [s],event_count_diff,creep_max [m/s],fn_dev_rel [-],"
               "x_err_max [m],v_rms_vs_exact [m/s],events",
    .row = peers_row,
    .finish = peers_finish,
    .tables = k_peers_tables,
    .report =
        "The normal direction is free (normal = 1): every run bears the weight W = {W|%.4g} N "
        "with its own normal contact (static penetration W/k = {sink|%.3g} m). Events are "
        "the crossings of |v| = {theta|%.3g} m/s (10 v_s), on the run and on the exact "
        "solution alike.\n\n{table:runs}\n"
        "SAP's friction lifts the box while it slides (its normal force leaves W: gliding, ICF "
        "Table I); its stiction barely creeps (SAP regularizes friction by R_t = sigma w, "
        "formulation-convex §4.3). Lagged keeps f_n = W, but its smoothed friction (t_s = v_t / "
        "sqrt(v_t^2 + v_s^2), formulation-convex §5) creeps at v_s r / sqrt(1 - r^2) under a "
        "load r = |f| / (mu W): several v_s just before each onset, so its velocity crosses "
        "10 v_s early. Similar creeps as much and glides as SAP does. {?ran_mujoco}MuJoCo's "
        "convex soft contact lifts a sliding box as SAP does, and with no contact margin the "
        "box leaves the plane and lands again (normal-force spikes of tens of W); its soft "
        "friction creeps in stiction; with pyramidal cones it starts to slide well before the "
        "push reaches mu W. mujoco-k uses ccb's k literally (docs/speed.md §3). {/}{?ran_ode}"
        "ODE's contact is a spring-damper whose friction bound is mu times the normal force of "
        "the same step: its box keeps f_n = W, does not creep, and its events are within a "
        "fraction of a step. {/}{?ran_bullet}Bullet's sequential impulses do the same; its "
        "MLCP solver does not take the contact's stiffness: the box starts at the static "
        "penetration W/k, is pushed out in one step (a spike of f_n) and slides for a moment "
        "in its first steps, an event that the exact solution does not have. {/}\n\n"
        "The claims: each restates a gate of the case on one run, with the gate's bound (a "
        "peer's FAIL is a finding about the engine, not a failed gate; `engines.md` gathers "
        "every case's).\n\n{table:claims}\n",
    .plots = k_peers_plots,
};
