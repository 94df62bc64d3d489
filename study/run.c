/* run: one simulation of a case, recorded in memory and (optionally) to files:
 *   <dir>/trajectory.csv  t, q, v and the case's observables after every step (decimated by
 *                         record_every), header with units;
 *   <dir>/steps.csv       solver statistics of the same steps (status, iterations, residual,
 *                         ...), plus any step that failed; totals over all steps in meta.json;
 *   <dir>/times.csv       the wall times of the same steps (geometry, problem, solve and its
 *                         split): apart, so that trajectory.csv and steps.csv are bit-identical
 *                         between identical runs;
 *   <dir>/meta.json       what produced them: case, parameters, approximation, solver options,
 *                         dt, final time, library version, git revision, wall time, status.
 * All four are written atomically, meta.json last: it marks a complete set (a directory without
 * it holds no complete run; the previous run's meta.json is removed first). A step whose solve fails ends the run; the files then hold
 * the steps up to and including the failing one and meta.json says "status": "failed". A step
 * that reports success with a non-finite statistic, state or observable broke down just the
 * same: it ends the run as a failure (CCB_E_NONFINITE, the quantity named in meta.json), and
 * the files hold the steps before it. (About 820 lines: the stepper, the recorder and the four
 * writers share one run's record and its row decimation; manifest.c reads the same files back.) */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "fclib_io.h"
#include "peer.h"
#include "run_internal.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void run_effective_sim_params(const run_config* cfg, ccb_sim_params* sp) {
    *sp = cfg->sim;
    cfg->cs->sim_options(cfg->params, sp); /* may set the case's friction regularization */
    sp->contact_order = (cfg->perturb & RUN_PERTURB_CONTACTS) != 0;
    if (cfg->friction >= 0) {
        sp->tamsi.friction = sp->contact_ode.friction = (ccb_friction_model)cfg->friction;
    }
}

void run_sim_solver_part(ccb_sim_params* dst, const ccb_sim_params* src) {
    dst->solver = src->solver;
    dst->tamsi = src->tamsi;
    dst->ode = src->ode;
    memcpy(&dst->ec, &src->ec, sizeof dst->ec); /* bytes with padding: configurations compare */
    dst->solver_options = src->solver_options;  /* bytewise (study_same_run) */
}

void run_config_solver_default(run_config* cfg) {
    const ccb_sim_params d = ccb_sim_params_default();
    run_sim_solver_part(&cfg->sim, &d);
    cfg->sim.ode.h = 0.0; /* the sampling interval dt */
    cfg->friction = -1;
    cfg->peer = RUN_PEER_NONE;
}

void run_config_solver_copy(run_config* dst, const run_config* src) {
    run_sim_solver_part(&dst->sim, &src->sim);
    dst->friction = src->friction;
    dst->peer = src->peer;
}

const char* run_config_iterations_name(const run_config* cfg) {
    if (cfg->peer != RUN_PEER_NONE) {
        return "peer iterations";
    }
    const ccb_solver_type* t = cfg->sim.solver ? cfg->sim.solver : &ccb_solver_newton;
    if ((t->flags & CCB_SOLVER_ODE_METHODS) && cfg->sim.ode.method) {
        return cfg->sim.ode.method->iterations ? cfg->sim.ode.method->iterations : "iterations";
    }
    return t->iterations ? t->iterations : "iterations";
}

const char* run_config_approx_name(const run_config* cfg) {
    return cfg->peer == RUN_PEER_NONE && cfg->sim.solver != NULL &&
                   (cfg->sim.solver->flags & CCB_SOLVER_CONVEX) && cfg->sim.approx != NULL
               ? cfg->sim.approx->name
               : NULL;
}

int run_config_reads(const run_config* cfg, int i) {
    char why[256];
    return case_param_read(cfg->cs, i, run_config_approx_name(cfg), cfg->params, why, sizeof why);
}

void run_config_drop_unread(run_config* cfg) {
    for (int i = 0; i < cfg->cs->nparams; ++i) {
        if (!run_config_reads(cfg, i)) {
            cfg->params[i] = cfg->cs->params[i].def;
        }
    }
}

void run_config_default(const case_desc* cs, run_config* cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->cs = cs;
    case_default_params(cs, cfg->params);
    cfg->sim = ccb_sim_params_default();
    cfg->sim.ode.h = 0.0; /* the sampling interval dt */
    cfg->sim.approx = ccb_approx_find(cs->approx_default);
    cfg->sim.dt = cs->dt_default;
    cfg->friction = -1;
    cfg->t_final = cs->t_final_default;
    cfg->record_every = 1;
}

void run_record_free(run_record* rec) {
    free(rec->q);
    free(rec->v);
    free(rec->obs);
    free(rec->iters);
    free(rec->ls);
    free(rec->kappa);
    free(rec->detail);
    rec->detail = NULL;
    rec->q = rec->v = rec->obs = rec->kappa = NULL;
    rec->iters = rec->ls = NULL;
}

/* The peer's options for a run configuration. */
peer_options run_peer_options(const run_config* cfg) {
    const peer_variant* pv = peer_variant_of(cfg->peer);
    const peer_options none = {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_DEFAULT};
    return pv ? pv->options : none;
}

/* A step of the run: by ccb's solver, or by the peer (whose state the sim then holds, for the
 * case's observables). */
typedef struct stepper {
    ccb_sim* sim;
    const peer_engine* engine;
    void* peer;        /* NULL: ccb steps */
    ccb_step_stats st; /* the peer's step */
    peer_step_info info;
    double *q, *v; /* the peer's state in ccb's coordinates */
    char msg[256];
} stepper;

/* Progress of a long run (cfg->progress, `ccb run`): after 2 s of stepping, a line on stderr —
 * rewritten in place every second on a terminal, a new line every 10 s otherwise (logs) — with
 * the simulated time, the steps, the elapsed wall time and an estimate of what is left. */
typedef struct progress {
    int on, tty, shown;
    double t_start, next;
} progress;

static void progress_start(progress* p, int on) {
    p->on = on;
    p->tty = on && isatty(STDERR_FILENO);
    p->shown = 0;
    p->t_start = now();
    p->next = 2.0;
}

static void progress_step(progress* p, const run_config* cfg, long k, long N, double t) {
    if (!p->on) {
        return;
    }
    const double el = now() - p->t_start;
    if (el < p->next) {
        return;
    }
    const double left = k < N ? el * (double)(N - k) / (double)k : 0.0;
    fprintf(stderr,
            "%sccb: %s: t = %.6g of %.6g s, step %ld of %ld (%.0f %%), %.0f s elapsed, "
            "about %.0f s left%s",
            p->tty ? "\r" : "", cfg->label, t, cfg->t_final, k, N, 100.0 * (double)k / (double)N,
            el, left, p->tty ? "   " : "\n");
    fflush(stderr);
    p->shown = 1;
    p->next = el + (p->tty ? 1.0 : 10.0);
}

static void progress_end(progress* p) {
    if (p->on && p->tty && p->shown) {
        fputc('\n', stderr);
    }
}

/* Where the step's iterations went (run_config.detail): the peer's step information, or the
 * statistics of Newton's last solve (of another solver: nothing is known). */
static void step_detail(const stepper* sp, const ccb_step_stats* st, run_step_detail* d) {
    d->stop = RUN_STOP_NONE;
    d->stop_term = -1;
    d->ls_evals = d->line_searches = 0;
    d->damped = -1;
    d->changes_last = d->changes = -1;
    d->ratio_prev = NAN;
    if (sp->peer != NULL) {
        d->stop = sp->info.stop;
        d->ls_evals = sp->info.ls_evals;
        d->line_searches = sp->info.iterations;
        d->changes_last = sp->info.iterations > 0 ? sp->info.changes_last : -1;
        d->changes = sp->info.iterations > 0 ? sp->info.changes : -1;
        return;
    }
    const ccb_newton* nw = ccb_sim_newton(sp->sim);
    if (st->solver != CCB_SOLVER_NEWTON || nw == NULL) {
        return;
    }
    const ccb_newton_stats ns = ccb_newton_get_stats(nw);
    d->stop = ns.status != CCB_OK  ? RUN_STOP_CAP
              : ns.iterations == 0 ? RUN_STOP_NONE
              : ns.by_cost         ? RUN_STOP_COST
                                   : RUN_STOP_RESIDUAL;
    d->stop_term = ns.stop_term;
    d->ls_evals = ns.ls_evals;
    d->line_searches = ns.island_iterations;
    int nh = 0;
    const ccb_newton_iter* h = ccb_newton_history(nw, &nh);
    d->damped = 0;
    for (int i = 0; i < nh; ++i) {
        d->damped += h[i].alpha < 0.5;
    }
    d->changes_last = ns.iterations > 0 ? ns.state_changes_last : -1;
    d->changes = ns.iterations > 0 ? ns.state_changes : -1;
    d->ratio_prev = ns.ratio_prev;
}

static ccb_status stepper_step(stepper* sp, double* wall, const ccb_step_stats** st) {
    if (sp->peer == NULL) {
        const double tic = now();
        const ccb_status s = ccb_sim_step(sp->sim);
        *wall = now() - tic;
        *st = ccb_sim_step_stats(sp->sim);
        return s;
    }
    ccb_step_stats* ps = &sp->st;
    for (int c = 0; c < CCB_CNT_COUNT; ++c) {
        ps->counter[c] = NAN; /* the rows of ccb's solvers do not apply */
    }
    ps->solver = CCB_SOLVER_NEWTON;
    ps->time_geometry = ps->time_problem = 0.0;
    const double tic = now();
    const int rc = sp->engine->step(sp->peer, &sp->info, 1, sp->msg, sizeof sp->msg);
    *wall = now() - tic;
    ps->time_solve = *wall;
    ps->counter[CCB_CNT_ITERATIONS] = sp->info.iterations;
    ps->ncontacts = sp->info.ncon;
    ps->status = CCB_OK;
    *st = ps;
    if (rc == 0) {
        sp->engine->state(sp->peer, sp->q, sp->v);
        if (ccb_sim_set_state(sp->sim, sp->engine->time(sp->peer), sp->q, sp->v) == CCB_OK) {
            return CCB_OK;
        }
        snprintf(sp->msg, sizeof sp->msg, "%s", ccb_sim_last_error(sp->sim));
    }
    ps->status = CCB_E_NONFINITE;
    return CCB_E_NONFINITE;
}

/* 1 (with the statistic's name in why) if a counter of the step is neither NAN (does not apply)
 * nor finite. */
static int nonfinite_stats(const ccb_step_stats* st, char* why, size_t n) {
    for (int c = 0; c < CCB_CNT_COUNT; ++c) {
        const double x = st->counter[c];
        if (!isnan(x) && !isfinite(x)) {
            snprintf(why, n, "the solver's %s is %g after the step",
                     ccb_counter_name((ccb_counter)c), x);
            return 1;
        }
    }
    for (int c = 0; c < CCB_CNT_COUNT; ++c) { /* a NaN where the solver reports the row */
        if (isnan(st->counter[c]) && c == CCB_CNT_RESIDUAL && st->solver->solve != NULL &&
            !isnan(st->counter[CCB_CNT_TOLERANCE])) {
            snprintf(why, n, "the solver's %s is NaN after the step",
                     ccb_counter_name((ccb_counter)c));
            return 1;
        }
    }
    return 0;
}

/* 1 (naming the first such column in why) if the state or an observable is not finite. */
static int nonfinite_state(const ccb_model* m, const case_desc* cs, const double* q,
                           const double* v, const double* o, char* why, size_t n) {
    for (int i = 0; i < ccb_model_nq(m); ++i) {
        if (!isfinite(q[i])) {
            snprintf(why, n, "%s is %g", ccb_model_q_name(m, i), q[i]);
            return 1;
        }
    }
    for (int i = 0; i < ccb_model_nv(m); ++i) {
        if (!isfinite(v[i])) {
            snprintf(why, n, "%s is %g", ccb_model_v_name(m, i), v[i]);
            return 1;
        }
    }
    for (int i = 0; i < cs->nobs; ++i) {
        if (!isfinite(o[i])) {
            snprintf(why, n, "observable %s is %g", cs->obs_names[i], o[i]);
            return 1;
        }
    }
    return 0;
}

/* The files of an earlier run in dir go before this run writes: meta.json first (the commit
 * marker: without it the directory holds no complete run), then its data, physics.csv and its
 * FCLIB exports (step<k>.fclib.hdf5), which this run may not write again. The directory then
 * holds only what the new run writes. 0, or 2 with a message. */
static int clear_run_dir(const char* dir, char* msg, size_t n) {
    static const char* const k_files[] = {"meta.json", "trajectory.csv", "steps.csv", "times.csv",
                                          "physics.csv"};
    char path[PATH_MAX + 320];
    for (size_t i = 0; i < sizeof k_files / sizeof k_files[0]; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, k_files[i]);
        if (ccb_writer_check_target(path, msg, n) != CCB_OK) { /* only what a run made */
            return 2;
        }
        if (unlink(path) != 0 && errno != ENOENT) {
            snprintf(msg, n, "cannot replace '%s': %s", path, strerror(errno));
            return 2;
        }
    }
    DIR* d = opendir(dir);
    if (d == NULL) {
        snprintf(msg, n, "cannot read the directory '%s': %s", dir, strerror(errno));
        return 2;
    }
    int rc = 0;
    for (struct dirent* e; rc == 0 && (e = readdir(d)) != NULL;) {
        long k = 0;
        int end = 0;
        if (sscanf(e->d_name, "step%ld.fclib.hdf5%n", &k, &end) == 1 && e->d_name[end] == '\0') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (ccb_writer_check_target(path, msg, n) != CCB_OK) {
                rc = 2;
            } else if (unlink(path) != 0 && errno != ENOENT) {
                snprintf(msg, n, "cannot replace '%s': %s", path, strerror(errno));
                rc = 2;
            }
        }
    }
    closedir(d);
    return rc;
}

int run_config_check(const run_config* cfg, long* nsteps, char* msg, size_t msgn) {
    if (!(isfinite(cfg->sim.dt) && cfg->sim.dt > 0) ||
        !(isfinite(cfg->t_final) && cfg->t_final > 0)) {
        snprintf(msg, msgn, "dt and t_final must be finite and > 0 (got %g, %g)", cfg->sim.dt,
                 cfg->t_final);
        return 2;
    }
    const double steps = cfg->t_final / cfg->sim.dt;
    const long N = lround(steps);
    if (N < 1 || fabs(steps - (double)N) > 1e-9 * steps || N > 200000000L) {
        snprintf(msg, msgn,
                 "t_final = %g must be a whole number (1 .. 2e8) of steps dt = %g (got %.6g steps)",
                 cfg->t_final, cfg->sim.dt, steps);
        return 2;
    }
    if (cfg->record_every < 1) {
        snprintf(msg, msgn, "record_every must be >= 1");
        return 2;
    }
    if (cfg->nexport < 0 || cfg->nexport > RUN_MAX_EXPORT) {
        snprintf(msg, msgn, "at most %d steps can be exported", RUN_MAX_EXPORT);
        return 2;
    }
    if (cfg->nexport > 0) {
        if (!fclib_io_available()) {
            snprintf(msg, msgn, "--export-fclib: %s", fclib_io_absent());
            return 2;
        }
        if (cfg->peer != RUN_PEER_NONE || cfg->sim.solver->solve == NULL || cfg->sim.ec.enabled) {
            snprintf(msg, msgn,
                     "--export-fclib applies to fixed-step newton and tamsi runs "
                     "(their steps solve one step problem; formulation-convex §16)");
            return 2;
        }
        for (int i = 0; i < cfg->nexport; ++i) {
            const long k = cfg->export_steps[i];
            if (k < 1 || k > N || (i > 0 && k <= cfg->export_steps[i - 1])) {
                snprintf(msg, msgn,
                         "--export-steps: step %ld is not in 1 .. %ld (the run's steps) or not "
                         "after the previous one",
                         k, N);
                return 2;
            }
        }
        if (cfg->export_fclib == NULL && cfg->out_dir[0] == '\0') {
            snprintf(msg, msgn, "--export-steps needs --export-fclib FILE or an output directory");
            return 2;
        }
    }
    if (nsteps) {
        *nsteps = N;
    }
    return 0;
}

void run_export_path(const run_config* cfg, long k, char* out, size_t n) {
    if (cfg->export_fclib == NULL) {
        snprintf(out, n, "%s/step%ld.fclib.hdf5", cfg->out_dir, k);
        return;
    }
    if (cfg->nexport == 1) {
        snprintf(out, n, "%s", cfg->export_fclib);
        return;
    }
    const char* slash = strrchr(cfg->export_fclib, '/');
    const char* dot = strrchr(slash ? slash : cfg->export_fclib, '.');
    if (dot == NULL || dot == (slash ? slash + 1 : cfg->export_fclib)) {
        snprintf(out, n, "%s_%ld", cfg->export_fclib, k);
    } else {
        snprintf(out, n, "%.*s_%ld%s", (int)(dot - cfg->export_fclib), cfg->export_fclib, k, dot);
    }
}

/* Step k's problem and ccb's solution to FCLIB (formulation-convex §16). 0, or 2 with a message
 * (an output error: the run is not a solver failure). */
static int export_step(const run_config* cfg, const ccb_sim* sim, long k, char* msg, size_t n) {
    ccb_global_problem g;
    if (ccb_problem_to_global(ccb_sim_problem(sim), &g) != CCB_OK) {
        snprintf(msg, n, "%s: step %ld: cannot form the global problem (out of memory)", cfg->label,
                 k);
        return 2;
    }
    double* gamma = malloc((size_t)(3 * g.nc + 1) * sizeof(double));
    int rc = 2;
    char path[PATH_MAX + 64], title[160], desc[400], why[512];
    if (gamma == NULL || ccb_sim_problem_impulses(sim, gamma) != CCB_OK) {
        snprintf(msg, n, "%s: step %ld: no impulses to export", cfg->label, k);
    } else {
        char variant[64];
        variant_name(cfg, variant, sizeof variant);
        run_export_path(cfg, k, path, sizeof path);
        snprintf(title, sizeof title, "ccb %s step %ld (%s, dt = %g s)", cfg->cs->name, k, variant,
                 cfg->sim.dt);
        snprintf(desc, sizeof desc,
                 "the frozen step problem of ccb (velocity level, symplectic Euler) at t = %.17g "
                 "s as a rigid global frictional contact problem; the stored solution is ccb's "
                 "(%s), the compliant model it solves",
                 (double)(k - 1) * cfg->sim.dt, variant);
        if (fclib_io_write(path, &g, ccb_sim_v(sim), gamma, title, desc, why, sizeof why) != 0) {
            snprintf(msg, n, "%s: step %ld: %s", cfg->label, k, why);
        } else {
            rc = 0;
        }
    }
    free(gamma);
    ccb_global_problem_free(&g);
    return rc;
}

/* The effective parameters of a run (the case may adapt some to the model and step) into
 * rec->cfg, its model and its simulator, and the record's arrays for the planned steps with the
 * initial state in row 0: what run_execute steps, run_load and run_dry (manifest.c) fill. 0, or 2
 * with a message (*model and *sim may then be set: the caller frees them). */
const char* const run_phys_name[5] = {"momentum_residual", "signorini", "cone_violation",
                                      "dissipation_gap", "complementarity"};

/* The largest physics metrics (ccb/metrics.h) over the steps so far; NaN where they do not
 * apply. 0, or CCB_E_NOMEM. */
static ccb_status update_physics(ccb_sim* sim, run_record* rec, long k, ccb_writer* w) {
    ccb_physics_metrics pm;
    const ccb_status s = ccb_sim_physics_metrics(sim, &pm);
    if (s != CCB_OK) {
        return s;
    }
    const double v[5] = {pm.momentum, pm.signorini, pm.cone, pm.dissipation, pm.complementarity};
    if (w != NULL) { /* `ccb run --physics`: every step; an empty field where n/a */
        ccb_status ws = ccb_writer_printf(w, "%ld", k);
        for (int i = 0; i < 5 && ws == CCB_OK; ++i) {
            ws = isfinite(v[i]) ? ccb_writer_printf(w, ",%.17g", v[i]) : ccb_writer_printf(w, ",");
        }
        if (ws != CCB_OK || ccb_writer_printf(w, "\n") != CCB_OK) {
            return CCB_E_IO;
        }
    }
    for (int i = 0; i < 5; ++i) {
        rec->phys_max[i] = k == 1 || isnan(rec->phys_max[i]) ? v[i] : fmax(rec->phys_max[i], v[i]);
    }
    return CCB_OK;
}

int run_setup(const run_config* cfg, run_record* rec, ccb_model** model, void** data, ccb_sim** sim,
              char* msg, size_t msgn) {
    rec->cfg = *cfg;
    const case_desc* cs = cfg->cs;
    if (cs->adjust) {
        cs->adjust(cfg->sim.approx, cfg->sim.dt, rec->cfg.params);
    }
    cfg = &rec->cfg;
    if (cs->build(cfg->params, model, data, msg, msgn) != 0) {
        return 2;
    }
    ccb_sim_params sp;
    run_effective_sim_params(cfg, &sp);
    long N = 0;
    if (run_config_check(cfg, &N, msg, msgn) != 0 ||
        ccb_sim_create(*model, &sp, sim, msg, msgn) != CCB_OK) {
        return 2;
    }
    const int nq = ccb_model_nq(*model), nv = ccb_model_nv(*model), no = cfg->cs->nobs;
    const unsigned member = RUN_PERTURB_MEMBER_OF(cfg->perturb);
    if ((cfg->perturb & RUN_PERTURB_ULP) || member > 0) { /* the initial positions, one ulp */
        double* q0 = malloc((size_t)(nq > 0 ? nq : 1) * sizeof(double));
        if (q0 == NULL) {
            snprintf(msg, msgn, "out of memory");
            return 2;
        }
        for (int i = 0; i < nq; ++i) {
            q0[i] = ccb_sim_q(*sim)[i];
            if (cfg->perturb & RUN_PERTURB_ULP) {
                q0[i] = nextafter(q0[i], INFINITY);
            }
            if (member > 0) { /* up or down by a hash of (i, member): distinct members */
                unsigned h = (unsigned)i * 0x9E3779B1u + member * 0x85EBCA77u; /* murmur3's */
                h ^= h >> 16;                                                  /* finalizer */
                h *= 0x85EBCA6Bu;
                h ^= h >> 13;
                h *= 0xC2B2AE35u;
                h ^= h >> 16;
                q0[i] = nextafter(q0[i], (h & 1u) ? INFINITY : -INFINITY);
            }
        }
        const ccb_status s = ccb_sim_set_state(*sim, ccb_sim_time(*sim), q0, ccb_sim_v(*sim));
        free(q0);
        if (s != CCB_OK) {
            snprintf(msg, msgn, "perturbed initial state: %s", ccb_sim_last_error(*sim));
            return 2;
        }
    }
    for (int i = 0; i < nq && i < CASE_MAX_Q; ++i) {
        snprintf(rec->qname[i], sizeof rec->qname[i], "%s [%s]", ccb_model_q_name(*model, i),
                 ccb_model_q_unit(*model, i));
    }
    rec->nplanned = N;
    rec->nq = nq;
    rec->nv = nv;
    rec->nobs = no;
    const size_t rows = (size_t)N + 1;
    rec->q = calloc(rows * (size_t)(nq > 0 ? nq : 1), sizeof(double));
    rec->v = calloc(rows * (size_t)(nv > 0 ? nv : 1), sizeof(double));
    rec->obs = calloc(rows * (size_t)(no > 0 ? no : 1), sizeof(double));
    rec->iters = calloc(rows, sizeof(int));
    rec->ls = calloc(rows, sizeof(int));
    rec->kappa = calloc(rows, sizeof(double));
    rec->detail = NULL; /* only Newton's statistics or a peer's say where iterations went */
    const int detail =
        rec->cfg.detail && (rec->cfg.peer != RUN_PEER_NONE || ccb_sim_newton(*sim) != NULL);
    if (detail) {
        rec->detail = calloc(rows, sizeof(run_step_detail));
    }
    if (!rec->q || !rec->v || !rec->obs || !rec->iters || !rec->ls || !rec->kappa ||
        (detail && !rec->detail)) {
        snprintf(msg, msgn, "out of memory for %ld steps", N);
        return 2;
    }
    memcpy(rec->q, ccb_sim_q(*sim), (size_t)nq * sizeof(double));
    memcpy(rec->v, ccb_sim_v(*sim), (size_t)nv * sizeof(double));
    rec->kappa[0] = -1;
    for (int i = 0; i < 5; ++i) {
        rec->phys_max[i] = NAN;
    }
    return 0;
}

int run_restart_open(const run_config* cfg, run_restart* r) {
    memset(r, 0, sizeof *r);
    char msg[256];
    if (run_setup(cfg, &r->rec, &r->model, &r->data, &r->sim, msg, sizeof msg) != 0) {
        run_restart_close(r);
        return 2;
    }
    return 0;
}

void run_restart_close(run_restart* r) {
    ccb_sim_destroy(r->sim);
    ccb_model_destroy(r->model);
    if (r->rec.cfg.cs && r->rec.cfg.cs->destroy) {
        r->rec.cfg.cs->destroy(r->data);
    }
    run_record_free(&r->rec);
    memset(r, 0, sizeof *r);
}

/* One function of about 260 lines on purpose: the stepping loop, its records, the progress line,
 * the physics metrics and the commit of every writer share one cleanup path, so that a failed
 * or interrupted run leaves nothing half-written (guide §7). */
int run_execute(const run_config* cfg, run_record* rec, char* msg, size_t msgn) {
    memset(rec, 0, sizeof *rec);
    rec->cfg = *cfg;
    const case_desc* cs = cfg->cs;
    ccb_model* model = NULL;
    void* data = NULL;
    ccb_sim* sim = NULL;
    int rc = 2;
    ccb_writer *wt = NULL, *ws = NULL, *wtm = NULL, *wph = NULL;
    int lockfd = -1; /* the run directory's lock, held until meta.json is written */
    stepper stp;
    memset(&stp, 0, sizeof stp);
    const int setup = run_setup(cfg, rec, &model, &data, &sim, msg, msgn);
    cfg = &rec->cfg;
    if (setup != 0) {
        goto done;
    }
    stp.sim = sim;
    const long N = rec->nplanned;
    const int nq = rec->nq, nv = rec->nv, no = rec->nobs;
    if (cfg->peer != RUN_PEER_NONE) {
        const peer_options po = run_peer_options(cfg);
        if (cs->peer_observe == NULL) {
            snprintf(msg, msgn, "case %s has no observables for a peer run", cs->name);
            goto done;
        }
        stp.q = calloc((size_t)nq + 1, sizeof(double));
        stp.v = calloc((size_t)nv + 1, sizeof(double));
        if (stp.q == NULL || stp.v == NULL) {
            snprintf(msg, msgn, "out of memory");
            goto done;
        }
        const peer_variant* pv = peer_variant_of(cfg->peer);
        stp.engine = pv->engine;
        if (stp.engine->open(model, cfg->sim.dt, &po, &stp.peer, msg, msgn) != 0) {
            goto done;
        }
    }
    const int files = cfg->out_dir[0] != '\0';
    const int ncol = 1 + nq + nv + no;
    double* row = calloc((size_t)ncol, sizeof(double));
    if (row == NULL) {
        snprintf(msg, msgn, "out of memory");
        goto done;
    }
    if (files) {
        char path[PATH_MAX + 32];
        if (mkdir_p(cfg->out_dir, msg, msgn) != 0 ||
            (lockfd = lock_dir(cfg->out_dir, msg, msgn)) < 0 ||
            clear_run_dir(cfg->out_dir, msg, msgn) != 0) {
            free(row);
            goto done;
        }
        snprintf(path, sizeof path, "%s/trajectory.csv", cfg->out_dir);
        if (ccb_writer_open(path, &wt, msg, msgn) != CCB_OK) {
            free(row);
            goto done;
        }
        snprintf(path, sizeof path, "%s/steps.csv", cfg->out_dir);
        if (ccb_writer_open(path, &ws, msg, msgn) != CCB_OK) {
            free(row);
            goto done;
        }
        snprintf(path, sizeof path, "%s/times.csv", cfg->out_dir);
        if (ccb_writer_open(path, &wtm, msg, msgn) != CCB_OK) {
            free(row);
            goto done;
        }
        snprintf(path, sizeof path, "%s/physics.csv", cfg->out_dir);
        if (cfg->physics && (ccb_writer_open(path, &wph, msg, msgn) != CCB_OK ||
                             ccb_writer_printf(wph, "step,%s,%s [N s m],%s [N s],%s [J],%s [J]\n",
                                               run_phys_name[0], run_phys_name[1], run_phys_name[2],
                                               run_phys_name[3], run_phys_name[4]) != CCB_OK)) {
            free(row);
            goto done;
        }
        char(*names)[160] = calloc((size_t)ncol, sizeof *names);
        const char** ptr = calloc((size_t)ncol, sizeof(char*));
        if (!names || !ptr) {
            free(names), free(ptr), free(row);
            snprintf(msg, msgn, "out of memory");
            goto done;
        }
        snprintf(names[0], 160, "t [s]");
        for (int i = 0; i < nq; ++i) {
            snprintf(names[1 + i], 160, "%s [%s]", ccb_model_q_name(model, i),
                     ccb_model_q_unit(model, i));
        }
        for (int i = 0; i < nv; ++i) {
            snprintf(names[1 + nq + i], 160, "%s [%s]", ccb_model_v_name(model, i),
                     ccb_model_v_unit(model, i));
        }
        for (int i = 0; i < no; ++i) {
            snprintf(names[1 + nq + nv + i], 160, "%s", cs->obs_names[i]);
        }
        for (int i = 0; i < ncol; ++i) {
            ptr[i] = names[i];
        }
        ccb_csv_header(wt, ncol, ptr);
        ccb_steps_header(ws);
        ccb_times_header(wtm);
        free(names);
        free(ptr);
    }
    rec->status = CCB_OK;
    progress prog;
    progress_start(&prog, cfg->progress);
    int nexp = 0; /* exported steps so far */
    for (long k = 1; k <= N; ++k) {
        const double t0 = ccb_sim_time(sim);
        double wall = 0;
        const ccb_step_stats* st = NULL;
        const ccb_status s = stepper_step(&stp, &wall, &st);
        rec->wall_time += wall;
        const double* cnt = st->counter; /* NAN: the row does not apply to the solver */
        rec->iters[k] = isnan(cnt[CCB_CNT_ITERATIONS]) ? 0 : (int)cnt[CCB_CNT_ITERATIONS];
        rec->ls[k] = isnan(cnt[CCB_CNT_LS_EVALS]) ? 0 : (int)cnt[CCB_CNT_LS_EVALS];
        rec->kappa[k] = isnan(cnt[CCB_CNT_KAPPA]) ? -1 : cnt[CCB_CNT_KAPPA];
        if (rec->detail) {
            step_detail(&stp, st, rec->detail + k);
        }
        rec->total_iters += rec->iters[k];
        rec->total_ls += rec->ls[k];
        rec->substeps += cnt[CCB_CNT_SUBSTEPS] > 1;
        rec->ncontacts_total += st->ncontacts;
        rec->lazy_retries += st->lazy_retries;
        rec->lazy_retried_steps += st->lazy_retries > 0;
        if (st->ncontacts > rec->ncontacts_max) {
            rec->ncontacts_max = st->ncontacts;
        }
        rec->t_geometry += st->time_geometry;
        rec->t_problem += st->time_problem;
        rec->t_solve += st->time_solve;
        rec->t_assemble += isnan(cnt[CCB_CNT_TIME_ASSEMBLE]) ? 0 : cnt[CCB_CNT_TIME_ASSEMBLE];
        rec->t_factor += isnan(cnt[CCB_CNT_TIME_FACTOR]) ? 0 : cnt[CCB_CNT_TIME_FACTOR];
        rec->t_linesearch += isnan(cnt[CCB_CNT_TIME_LINESEARCH]) ? 0 : cnt[CCB_CNT_TIME_LINESEARCH];
        rec->t_eval += isnan(cnt[CCB_CNT_TIME_EVAL]) ? 0 : cnt[CCB_CNT_TIME_EVAL];
        rec->t_kappa += isnan(cnt[CCB_CNT_TIME_KAPPA]) ? 0 : cnt[CCB_CNT_TIME_KAPPA];
        if (rec->iters[k] > rec->max_iters) {
            rec->max_iters = rec->iters[k];
        }
        /* a step that "succeeded" with a non-finite statistic, state or observable broke down:
         * it is recorded as the run's failure (exit 1, meta.json "failed"), not as bad input */
        ccb_status sf = s;
        char why[200] = "";
        const int bad_stats = nonfinite_stats(st, why, sizeof why);
        if (sf == CCB_OK && bad_stats) {
            sf = CCB_E_NONFINITE;
        }
        double* o = rec->obs + (size_t)k * no;
        if (sf == CCB_OK) {
            if (stp.peer) {
                const run_peer_step ps = {stp.info.ncon, stp.info.pen_mean, stp.info.pen_max,
                                          stp.info.f_body};
                cs->peer_observe(sim, data, cfg->params, &ps, o);
            } else {
                cs->observe(sim, data, cfg->params, o);
            }
            if (nonfinite_state(model, cs, ccb_sim_q(sim), ccb_sim_v(sim), o, why, sizeof why)) {
                sf = CCB_E_NONFINITE;
            }
        }
        const int keep = k % cfg->record_every == 0 || k == N || sf != CCB_OK;
        if (files && keep && !bad_stats && !(sf == CCB_E_NONFINITE && s == CCB_OK)) {
            const ccb_status ws_s = ccb_steps_row(ws, k, t0, st);
            if (ws_s != CCB_OK) {
                snprintf(msg, msgn, "%s: cannot write steps.csv at step %ld", cfg->label, k);
                free(row);
                goto done;
            }
            if (ccb_times_row(wtm, k, st) != CCB_OK) {
                snprintf(msg, msgn, "%s: cannot write times.csv at step %ld", cfg->label, k);
                free(row);
                goto done;
            }
        }
        if (sf == CCB_E_NOMEM) { /* the machine's failure, not the solver's: an error (exit 2),
                                     never recorded as a run that failed */
            snprintf(msg, msgn, "%s: out of memory at step %ld (%s)", cfg->label, k,
                     stp.peer ? stp.msg : ccb_sim_last_error(sim));
            free(row);
            goto done;
        }
        if (sf != CCB_OK) {
            rec->status = sf;
            rec->fail_step = k;
            if (s != CCB_OK) {
                snprintf(rec->msg, sizeof rec->msg, "%s",
                         stp.peer ? stp.msg : ccb_sim_last_error(sim));
            } else {
                snprintf(rec->msg, sizeof rec->msg, "t = %g: %s", ccb_sim_time(sim), why);
            }
            break;
        }
        rec->nsteps = k;
        if (nexp < cfg->nexport && cfg->export_steps[nexp] == k) {
            if (export_step(cfg, sim, k, msg, msgn) != 0) {
                free(row);
                goto done;
            }
            nexp++;
        }
        const ccb_status ps = stp.peer == NULL ? update_physics(sim, rec, k, wph) : CCB_OK;
        if (ps != CCB_OK) {
            snprintf(msg, msgn, "%s: %s at step %ld", cfg->label,
                     ps == CCB_E_NOMEM ? "out of memory for the physics metrics"
                                       : "cannot write physics.csv",
                     k);
            free(row);
            goto done;
        }
        progress_step(&prog, cfg, k, N, ccb_sim_time(sim));
        memcpy(rec->q + (size_t)k * nq, ccb_sim_q(sim), (size_t)nq * sizeof(double));
        memcpy(rec->v + (size_t)k * nv, ccb_sim_v(sim), (size_t)nv * sizeof(double));
        if (files && (k % cfg->record_every == 0 || k == N)) {
            row[0] = ccb_sim_time(sim);
            memcpy(row + 1, ccb_sim_q(sim), (size_t)nq * sizeof(double));
            memcpy(row + 1 + nq, ccb_sim_v(sim), (size_t)nv * sizeof(double));
            memcpy(row + 1 + nq + nv, o, (size_t)no * sizeof(double));
            if (ccb_csv_row(wt, ncol, row) != CCB_OK) { /* finite (checked): a write error */
                snprintf(msg, msgn, "%s: cannot write trajectory.csv at step %ld", cfg->label, k);
                free(row);
                goto done;
            }
        }
    }
    free(row);
    progress_end(&prog);
    ccb_sim_factor_counts(sim, &rec->analyses, &rec->factorizations);
    rec->work = ccb_sim_ode_work(sim);
    if (cfg->sim.ec.enabled) { /* the convex step's error control: its steps in the same slots */
        const ccb_sim_ec_work ew = ccb_sim_get_ec_work(sim);
        rec->work.n_steps = ew.n_steps;
        rec->work.n_reject_error = ew.n_reject;
        rec->work.n_fail_newton = ew.n_fail;
        rec->work.h_min = ew.h_min;
        rec->work.h_max = ew.h_max;
    }
    if (files) {
        /* the set in order, meta.json last (its commit marker; the old one went when the run
         * started): each writer ends exactly once — committed while all before it were, aborted
         * after the first failure (a failed commit frees its writer and removes its file) */
        ccb_writer* set[4] = {wt, ws, wtm, wph};
        wt = ws = wtm = wph = NULL;
        int ok = 1;
        for (int i = 0; i < 4; ++i) {
            if (set[i] == NULL) {
                continue;
            }
            if (ok) {
                ok = ccb_writer_commit(set[i], msg, msgn) == CCB_OK;
            } else {
                ccb_writer_abort(set[i]);
            }
        }
        if (!ok || run_write_meta(cfg, rec, model, sim, msg, msgn) != 0) {
            goto done;
        }
    }
    rc = 0;
done:
    if (lockfd >= 0) {
        close(lockfd);
    }
    if (stp.engine) {
        stp.engine->close(stp.peer);
    }
    free(stp.q);
    free(stp.v);
    ccb_writer_abort(wt);
    ccb_writer_abort(ws);
    ccb_writer_abort(wtm);
    ccb_writer_abort(wph);
    ccb_sim_destroy(sim);
    ccb_model_destroy(model);
    if (cs->destroy) {
        cs->destroy(data);
    }
    if (rc != 0) {
        run_record_free(rec);
    }
    return rc;
}
