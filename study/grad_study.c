/* grad_study: the standard study `gradients` of every case (formulation-convex §9.5): the
 * implicit-function-theorem derivatives of steps (ccb/deriv.h) against finite differences of the
 * converged step, at checkpoints spread over the case's run, for every convex approximation that
 * applies; and the forward-mode derivative of a whole trajectory against finite differences of
 * whole trajectories. A step is "smooth along a direction" when its one-sided finite differences
 * agree (an independent test that does not read the derivative); the gate is on the smooth ones,
 * the others are counted with their reason. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "study.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define GRAD_NCHECK 6    /* checkpoints per run */
#define GRAD_NDIR 3      /* q0, v0, u */
#define GRAD_NE 6        /* finite-difference steps 1e-3 ... 1e-8 */
#define GRAD_MAX_N 2048  /* largest nq, nv the study handles */
#define GRAD_SMOOTH 1e-3 /* one-sided agreement: smooth (formulation-convex §9.5) */
#define GRAD_SETTLE 1e-6 /* Richardson differences at neighbouring steps agree: settled */
#define GRAD_FLOOR 1e-8  /* below: compared absolutely (formulation-convex §9.2) */
#define GRAD_MAX_VARIANTS 8

/* deterministic directions: SplitMix64 seeded by the case, variant and checkpoint */
static uint64_t mix(uint64_t* s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double unit_rand(uint64_t* s) {
    return 2.0 * ((double)(mix(s) >> 11) * 0x1.0p-53) - 1.0;
}
static uint64_t seed_of(const char* a, const char* b, int k) {
    uint64_t h = 1469598103934665603ULL;
    for (const char* p = a; *p; ++p) {
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    }
    for (const char* p = b; *p; ++p) {
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    }
    return h ^ (uint64_t)k * 0x9e3779b97f4a7c15ULL;
}

/* what one variant's analysis found */
typedef struct grad_res {
    int total, smooth, refused, kink, failed; /* (checkpoint, direction) pairs */
    int unsettled; /* smooth by the differences, but the derivative's partials did not settle */
    double err_max, err_med;    /* over the smooth ones */
    double sweep_max[GRAD_NE];  /* largest central-difference error per step */
    double traj_err, traj_asym; /* whole trajectory (NAN: not computed) */
    int traj_steps, traj_smooth;
    double cost; /* derivative time per direction over the step's solve time [-] (wall) */
    char note[160];
} grad_res;

static double inf_norm(const double* x, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i) {
        m = fmax(m, fabs(x[i]));
    }
    return m;
}
static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* One step of sim from (t, q, v) with the applied force u (NULL: none): out = (q1, v1). */
static int step_from(ccb_sim* sim, double t, const double* q, const double* v, const double* u,
                     int nq, int nv, double* out) {
    if (ccb_sim_set_force(sim, u) != CCB_OK || ccb_sim_set_state(sim, t, q, v) != CCB_OK ||
        ccb_sim_step(sim) != CCB_OK) {
        return 0;
    }
    memcpy(out, ccb_sim_q(sim), (size_t)nq * sizeof(double));
    memcpy(out + nq, ccb_sim_v(sim), (size_t)nv * sizeof(double));
    return 1;
}

/* Finite differences of a map x(e) at the steps e = 10^-(2+j): the central differences at e and
 * e/2 combined by Richardson, R(e) = (4 D(e/2) - D(e))/3 (truncation O(e^4)); per step the error
 * of R against the derivative `ift` (n values) relative to max(|R|, |ift|, floor) in sweep[];
 * the best of them; the smallest disagreement of the two one-sided differences at e/2, and the
 * smallest change of R between neighbouring steps (both relative): the smoothness test of
 * formulation-convex §9.5 reads these two, never the derivative. */
typedef int (*grad_map)(void* user, double e, double* out);
static int fd_compare(grad_map f, void* user, const double* x0, const double* ift, int n,
                      double* best, double* asym, double* cauchy, double* sweep) {
    static _Thread_local double xp[2][2 * GRAD_MAX_N + 16], xm[2][2 * GRAD_MAX_N + 16];
    static _Thread_local double R[2][2 * GRAD_MAX_N + 16];
    *best = INFINITY, *asym = INFINITY, *cauchy = INFINITY;
    const double scale = fmax(inf_norm(ift, n), GRAD_FLOOR);
    int ok = 0, have_prev = 0;
    for (int j = 0; j < GRAD_NE; ++j) {
        const double e = pow(10.0, -(3 + j));
        sweep[j] = NAN;
        if (!f(user, e, xp[0]) || !f(user, -e, xm[0]) || !f(user, 0.5 * e, xp[1]) ||
            !f(user, -0.5 * e, xm[1])) {
            have_prev = 0;
            continue;
        }
        double* Rj = R[j & 1];
        const double* Rp = R[(j + 1) & 1];
        double ec = 0.0, ea = 0.0, dmax = 0.0, dc = 0.0;
        for (int i = 0; i < n; ++i) {
            const double D1 = (xp[0][i] - xm[0][i]) / (2.0 * e);
            const double D2 = (xp[1][i] - xm[1][i]) / e;
            const double dp = (xp[1][i] - x0[i]) / (0.5 * e), dm = (x0[i] - xm[1][i]) / (0.5 * e);
            Rj[i] = (4.0 * D2 - D1) / 3.0;
            ec = fmax(ec, fabs(Rj[i] - ift[i]));
            ea = fmax(ea, fabs(dp - dm));
            dmax = fmax(dmax, fabs(Rj[i]));
            if (have_prev) {
                dc = fmax(dc, fabs(Rj[i] - Rp[i]));
            }
        }
        const double den = fmax(fmax(dmax, scale), GRAD_FLOOR);
        sweep[j] = ec / den;
        *best = fmin(*best, ec / den);
        *asym = fmin(*asym, ea / den);
        if (have_prev) {
            *cauchy = fmin(*cauchy, dc / den);
        }
        have_prev = 1;
        ok = 1;
    }
    return ok;
}

/* perturbed one-step map of a checkpoint */
typedef struct step_map {
    ccb_sim* sim;
    double t;
    const double *q, *v, *dq, *dv, *du;
    int nq, nv;
    double qw[GRAD_MAX_N], vw[GRAD_MAX_N], uw[GRAD_MAX_N];
} step_map;
static int step_map_eval(void* user, double e, double* out) {
    step_map* m = user;
    for (int i = 0; i < m->nq; ++i) {
        m->qw[i] = m->q[i] + (m->dq ? e * m->dq[i] : 0.0);
    }
    for (int i = 0; i < m->nv; ++i) {
        m->vw[i] = m->v[i] + (m->dv ? e * m->dv[i] : 0.0);
        m->uw[i] = m->du ? e * m->du[i] : 0.0;
    }
    return step_from(m->sim, m->t, m->qw, m->vw, m->du ? m->uw : NULL, m->nq, m->nv, out);
}

/* perturbed whole-trajectory map: `steps` steps from (q0, v0 + e dv) */
typedef struct traj_map {
    ccb_sim* sim;
    const double *q, *v, *dv;
    int nq, nv;
    long steps;
    double vw[GRAD_MAX_N];
} traj_map;
static int traj_map_eval(void* user, double e, double* out) {
    traj_map* m = user;
    for (int i = 0; i < m->nv; ++i) {
        m->vw[i] = m->v[i] + e * m->dv[i];
    }
    if (ccb_sim_set_force(m->sim, NULL) != CCB_OK ||
        ccb_sim_set_state(m->sim, 0.0, m->q, m->vw) != CCB_OK) {
        return 0;
    }
    for (long k = 0; k < m->steps; ++k) {
        if (ccb_sim_step(m->sim) != CCB_OK) {
            return 0;
        }
    }
    memcpy(out, ccb_sim_q(m->sim), (size_t)m->nq * sizeof(double));
    memcpy(out + m->nq, ccb_sim_v(m->sim), (size_t)m->nv * sizeof(double));
    return 1;
}

/* The derivative of `steps` steps from (q0, v0) along dv0 by forward mode (ccb_deriv_jvp step
 * after step, formulation-convex §9.1); x0 the final state, out its derivative. */
static int traj_forward(ccb_sim* sim, ccb_deriv* d, const double* q0, const double* v0,
                        const double* dv0, long steps, int nq, int nv, double* x0, double* out,
                        long* kink_step, char* why, size_t nwhy) {
    *kink_step = -1;
    double q[GRAD_MAX_N], v[GRAD_MAX_N], tq[GRAD_MAX_N], tv[GRAD_MAX_N];
    memcpy(q, q0, (size_t)nq * sizeof(double));
    memcpy(v, v0, (size_t)nv * sizeof(double));
    memset(tq, 0, sizeof tq);
    memcpy(tv, dv0, (size_t)nv * sizeof(double));
    if (ccb_sim_set_force(sim, NULL) != CCB_OK || ccb_sim_set_state(sim, 0.0, q, v) != CCB_OK) {
        return 0;
    }
    for (long k = 0; k < steps; ++k) {
        const double t = ccb_sim_time(sim);
        if (ccb_sim_step(sim) != CCB_OK) {
            snprintf(why, nwhy, "step %ld: %s", k + 1, ccb_sim_last_error(sim));
            return 0;
        }
        if (ccb_deriv_linearize(d, sim, NULL, t, q, v, ccb_sim_v(sim)) != CCB_OK) {
            snprintf(why, nwhy, "step %ld: %s", k + 1, ccb_deriv_last_error(d));
            return 0;
        }
        ccb_step_dir dir = ccb_step_dir_zero();
        dir.dq0 = tq;
        dir.dv0 = tv;
        double nq1[GRAD_MAX_N], nv1[GRAD_MAX_N];
        if (ccb_deriv_jvp(d, &dir, nq1, nv1) != CCB_OK) {
            snprintf(why, nwhy, "step %ld: %s", k + 1, ccb_deriv_last_error(d));
            return 0;
        }
        if (*kink_step < 0 && !ccb_deriv_get_stats(d).partial_settled) {
            *kink_step = k + 1; /* a contact's law bends within the difference step */
        }
        memcpy(tq, nq1, (size_t)nq * sizeof(double));
        memcpy(tv, nv1, (size_t)nv * sizeof(double));
        memcpy(q, ccb_sim_q(sim), (size_t)nq * sizeof(double));
        memcpy(v, ccb_sim_v(sim), (size_t)nv * sizeof(double));
    }
    memcpy(x0, q, (size_t)nq * sizeof(double));
    memcpy(x0 + nq, v, (size_t)nv * sizeof(double));
    memcpy(out, tq, (size_t)nq * sizeof(double));
    memcpy(out + nq, tv, (size_t)nv * sizeof(double));
    return 1;
}

/* The analysis of one variant's run (thread-safe: its own simulator and workspace). */
typedef struct grad_job {
    study_ctx* ctx;
    const run_record* rec;
    long traj_steps;
    grad_res res;
} grad_job;

static void analyse(void* user, int idx) {
    grad_job* job = (grad_job*)user + idx;
    const run_record* rec = job->rec;
    grad_res* R = &job->res;
    memset(R, 0, sizeof *R);
    R->err_max = R->err_med = R->traj_err = R->traj_asym = NAN;
    for (int j = 0; j < GRAD_NE; ++j) {
        R->sweep_max[j] = NAN;
    }
    const int nq = rec->nq, nv = rec->nv;
    if (nq > GRAD_MAX_N || nv > GRAD_MAX_N || rec->nsteps < 2) {
        snprintf(R->note, sizeof R->note, "not analysed (%d positions, %ld steps)", nq,
                 rec->nsteps);
        return;
    }
    /* the step solved to round-off: the finite differences need it (formulation-convex §9.3) */
    run_config cfg = rec->cfg;
    cfg.sim.newton.eps_r = 1e-12;
    cfg.sim.newton.eps_a = 1e-15;
    cfg.sim.newton.max_iterations = 1000;
    cfg.out_dir[0] = '\0';
    run_restart rs;
    if (run_restart_open(&cfg, &rs) != 0) {
        snprintf(R->note, sizeof R->note, "the restart simulator could not be made");
        return;
    }
    ccb_deriv* d = NULL;
    if (ccb_deriv_create(&d) != CCB_OK) {
        run_restart_close(&rs);
        snprintf(R->note, sizeof R->note, "out of memory");
        return;
    }
    const ccb_model* m = ccb_sim_model(rs.sim);
    double errs[GRAD_NCHECK * GRAD_NDIR];
    int nerr = 0;
    double t_jvp = 0.0, t_step = 0.0;
    int n_jvp = 0;
    char vname[32];
    variant_name(&rec->cfg, vname, sizeof vname);
    for (int j = 0; j < GRAD_NCHECK; ++j) {
        const long row = (long)((j + 0.5) * (double)rec->nsteps / GRAD_NCHECK);
        const double t = (double)row * rec->cfg.sim.dt;
        const double* q = rec->q + (size_t)row * (size_t)nq;
        const double* v = rec->v + (size_t)row * (size_t)nv;
        double x0[2 * GRAD_MAX_N];
        const double tic = now();
        if (!step_from(rs.sim, t, q, v, NULL, nq, nv, x0)) {
            R->failed += GRAD_NDIR, R->total += GRAD_NDIR;
            continue;
        }
        t_step += now() - tic;
        if (ccb_deriv_linearize(d, rs.sim, NULL, t, q, v, x0 + nq) != CCB_OK) {
            R->failed += GRAD_NDIR, R->total += GRAD_NDIR;
            continue;
        }
        uint64_t s = seed_of(job->ctx->cs->name, vname, j);
        double xi[GRAD_MAX_N], dq[GRAD_MAX_N], dv[GRAD_MAX_N], du[GRAD_MAX_N];
        for (int i = 0; i < nv; ++i) {
            xi[i] = unit_rand(&s);
            dv[i] = unit_rand(&s);
            du[i] = unit_rand(&s);
        }
        ccb_model_qdot(m, q, xi, dq); /* a position direction tangent to the quaternions */
        for (int k = 0; k < GRAD_NDIR; ++k) {
            R->total++;
            ccb_step_dir dir = ccb_step_dir_zero();
            dir.dq0 = k == 0 ? dq : NULL;
            dir.dv0 = k == 1 ? dv : NULL;
            dir.du = k == 2 ? du : NULL;
            double x[2 * GRAD_MAX_N];
            const double t0 = now();
            const ccb_status st = ccb_deriv_jvp(d, &dir, x, x + nq);
            t_jvp += now() - t0;
            n_jvp++;
            if (st != CCB_OK) {
                R->refused++; /* the contact set changes within the difference step */
                continue;
            }
            step_map sm = {rs.sim, t, q, v, dir.dq0, dir.dv0, dir.du, nq, nv, {0}, {0}, {0}};
            double best, asym, cauchy, sweep[GRAD_NE];
            if (!fd_compare(step_map_eval, &sm, x0, x, nq + nv, &best, &asym, &cauchy, sweep)) {
                R->failed++;
                continue;
            }
            /* one-sided differences disagree, or the differences do not settle between two
             * steps, or the residual's partials do not: a kink, or a bend sharper than the
             * smallest step (formulation-convex §9.5) */
            if (asym > GRAD_SMOOTH || cauchy > GRAD_SETTLE) {
                R->kink++;
                continue;
            }
            if (!ccb_deriv_get_stats(d).partial_settled) { /* the derivative cannot vouch */
                R->unsettled++;
                continue;
            }
            R->smooth++;
            errs[nerr++] = best;
            for (int e = 0; e < GRAD_NE; ++e) {
                if (isfinite(sweep[e]) && !(sweep[e] <= R->sweep_max[e])) {
                    R->sweep_max[e] = sweep[e];
                }
            }
        }
    }
    if (nerr > 0) {
        qsort(errs, (size_t)nerr, sizeof(double), cmp_double);
        R->err_max = errs[nerr - 1];
        R->err_med = errs[nerr / 2];
    }
    /* the gate speaks for the derivative only when most pairs were judged: fewer than half smooth
     * (a regression that leaves them unsettled, or a case whose checkpoints all sit on kinks)
     * makes the largest error NaN, which fails (issue 45: a floor on the smooth pairs) */
    if (2 * R->smooth < R->total) {
        R->err_max = NAN;
    }
    R->cost = n_jvp > 0 && t_step > 0 ? (t_jvp / n_jvp) / (t_step / GRAD_NCHECK) : NAN;
    /* the whole trajectory from the initial state along a v0 direction */
    const long H = job->traj_steps < rec->nsteps ? job->traj_steps : rec->nsteps;
    R->traj_steps = (int)H;
    uint64_t s = seed_of(job->ctx->cs->name, vname, 1000);
    double dv0[GRAD_MAX_N], x0[2 * GRAD_MAX_N], x[2 * GRAD_MAX_N];
    for (int i = 0; i < nv; ++i) {
        dv0[i] = unit_rand(&s);
    }
    long kink = -1;
    char why[128] = "";
    if (traj_forward(rs.sim, d, rec->q, rec->v, dv0, H, nq, nv, x0, x, &kink, why, sizeof why)) {
        traj_map tm = {rs.sim, rec->q, rec->v, dv0, nq, nv, H, {0}};
        double best, asym, cauchy, sweep[GRAD_NE];
        if (fd_compare(traj_map_eval, &tm, x0, x, nq + nv, &best, &asym, &cauchy, sweep)) {
            R->traj_err = best;
            R->traj_asym = asym;
            R->traj_smooth = asym <= GRAD_SMOOTH && cauchy <= GRAD_SETTLE && kink < 0;
            if (kink >= 0) {
                snprintf(R->note, sizeof R->note,
                         "trajectory: a contact law bends within the difference step at step %ld "
                         "(an impact or a stick-slip boundary)",
                         kink);
            }
        }
    } else {
        snprintf(R->note, sizeof R->note, "trajectory: %s", why);
    }
    ccb_deriv_destroy(d);
    run_restart_close(&rs);
}

int grad_study_run(study_ctx* ctx, study_out* out) {
    const case_desc* cs = ctx->cs;
    const int quick = ctx->tier == CASE_TIER_QUICK;
    variant_def use[GRAD_MAX_VARIANTS];
    char msg[256];
    const int nv = variant_select_differentiable(cs, use, GRAD_MAX_VARIANTS, msg, sizeof msg);
    if (nv < 0) {
        return study_fail(out, CCB_E_INVALID, "gradients: %s", msg);
    }
    const case_std* sd = cs->std;
    double T = sd && quick && sd->t_final_quick > 0 ? sd->t_final_quick
               : sd && sd->t_final > 0              ? sd->t_final
                                                    : cs->t_final_default;
    const double dt = cs->dt_default;
    study_batch b;
    if (nv == 0) {
        return study_fail(out, CCB_E_INVALID, "gradients: no convex approximation applies");
    }
    if (study_batch_alloc(ctx, &b, nv) != 0) {
        return CCB_E_NOMEM;
    }
    for (int i = 0; i < nv; ++i) {
        study_config(ctx, &b.cfg[i], "gradients", use[i].name, use[i].approx, dt, T);
        variant_configure(&use[i], &b.cfg[i], NAN);
    }
    int rc = study_execute(ctx, "gradients", b.cfg, b.rec, nv);
    grad_job jobs[GRAD_MAX_VARIANTS];
    for (int i = 0; rc == 0 && i < nv; ++i) {
        jobs[i].ctx = ctx;
        jobs[i].rec = &b.rec[i];
        jobs[i].traj_steps = quick ? 40 : 200;
    }
    if (rc == 0) {
        study_parallel_for(ctx, nv, analyse, jobs);
    }
    char dir[PATH_MAX];
    if (rc == 0 && study_dir(ctx->out, "gradients", dir, sizeof dir) != 0) {
        rc = 2;
    }
    strbuf tab = {0}, md = {0}, sw = {0}, names = {0};
    for (int i = 0; rc == 0 && i < nv; ++i) {
        const grad_res* R = &jobs[i].res;
        const char* v = use[i].name;
        study_set_metricf(ctx->out, R->err_max, "gradients.%s.step_err_max", v);
        study_set_metricf(ctx->out, R->err_med, "gradients.%s.step_err_median", v);
        study_set_metricf(ctx->out, (double)R->smooth, "gradients.%s.smooth", v);
        study_set_metricf(ctx->out, (double)R->total, "gradients.%s.checked", v);
        study_set_metricf(ctx->out, (double)R->kink, "gradients.%s.kink", v);
        study_set_metricf(ctx->out, (double)R->unsettled, "gradients.%s.unsettled", v);
        study_set_metricf(ctx->out, (double)R->refused, "gradients.%s.contact_set_changes", v);
        study_set_metricf(ctx->out, (double)R->failed, "gradients.%s.failed", v);
        study_set_metricf(ctx->out, R->traj_err, "gradients.%s.traj_err", v);
        study_set_metricf(ctx->out, (double)R->traj_smooth, "gradients.%s.traj_smooth", v);
        strbuf_printf(&tab, "%s,%d,%d,%d,%d,%d,%d,%.6e,%.6e,%d,%d,%.6e,%.6e,%.4g\n", v, R->total,
                      R->smooth, R->kink, R->unsettled, R->refused, R->failed, R->err_max,
                      R->err_med, R->traj_steps, R->traj_smooth, R->traj_err, R->traj_asym,
                      R->cost);
        strbuf_printf(
            &md,
            "| %s | %d | %d | %d | %d | %d | %d | %.2e | %.2e | %d | %s | %.2e | %.3g | %s |\n", v,
            R->total, R->smooth, R->kink, R->unsettled, R->refused, R->failed, R->err_max,
            R->err_med, R->traj_steps,
            isnan(R->traj_err) ? "n/a"
            : R->traj_smooth   ? "yes"
                               : "no",
            R->traj_err, R->cost, R->note[0] ? R->note : "");
        strbuf_printf(&names, "%s%s", i ? " " : "", v);
        for (int e = 0; e < GRAD_NE; ++e) {
            strbuf_printf(&sw, "%s,%.0e,%.6e\n", v, pow(10.0, -(3 + e)), R->sweep_max[e]);
        }
    }
    if (rc == 0) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/gradients.csv", dir);
        rc = study_write_table(ctx->out, path,
                               "variant,checked,smooth,kink,unsettled,contact_set_changes,failed,"
                               "step_err_max,step_err_median,traj_steps,traj_smooth,traj_err,"
                               "traj_one_sided_gap,wall_cost_per_direction_over_step",
                               tab.s ? tab.s : "");
        snprintf(path, sizeof path, "%s/sweep.csv", dir);
        if (rc == 0) {
            rc = study_write_table(ctx->out, path, "variant,fd_step,err_max_smooth",
                                   sw.s ? sw.s : "");
        }
    }
    if (rc == 0) {
        study_report(
            ctx->out,
            "### gradients — step derivatives against finite differences\n\n"
            "![gradients](%s/gradients.png)\n\n"
            "The implicit-function-theorem derivative of a step (ccb/deriv.h; "
            "formulation-convex §9) along random directions in q0 (tangent to the quaternions), v0 "
            "and an applied "
            "generalized force u, at %d checkpoints spread over a run of T = %g s at dt = %g s, "
            "against finite differences of the step solved to round-off (central differences at "
            "h and h/2 combined by Richardson, h = 1e-3 ... 1e-8, the best kept; the figure shows "
            "the largest error per h). A (checkpoint, direction) is smooth when its one-sided "
            "differences agree to %.0e and its differences settle to 1e-6 between neighbouring "
            "h (tests that do not read the derivative); at a kink (impact, stick-slip or cone "
            "boundary) they do not. unsettled: smooth by the differences, but the derivative's "
            "own partials did not settle to 1e-9 (formulation-convex §9.2: a contact law bends "
            "within every difference step), so the derivative does not vouch for itself; a "
            "direction whose difference step changes the contact set is refused by the "
            "derivative. The gate (1e-6 relative) is on the smooth ones, and fails (NaN) when "
            "fewer "
            "than half of the pairs are smooth. The whole trajectory: "
            "forward mode over the first steps along a v0 direction against finite differences of "
            "whole trajectories; smooth when the differences are and no step's partials were "
            "unsettled. wall cost: the derivative per direction over the step's solve (wall time, "
            "not "
            "gated). Data: `%s/gradients/gradients.csv`, `sweep.csv`.\n\n"
            "| variant | checked | smooth | kink | unsettled | contact set changes | failed | "
            "largest error (smooth) | median | trajectory steps | trajectory smooth | trajectory "
            "error | wall cost | note "
            "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n%s\n",
            cs->name, GRAD_NCHECK, T, dt, GRAD_SMOOTH, cs->name, md.s ? md.s : "");
        char vars[512];
        snprintf(vars, sizeof vars,
                 "variants='%s'; title='%s: step derivative against finite "
                 "differences'",
                 names.s ? names.s : "", cs->name);
        study_plot(ctx->out, "std_gradients.gp", dir, "gradients", vars);
    }
    free(tab.s);
    free(md.s);
    free(sw.s);
    free(names.s);
    study_batch_free(&b);
    return rc;
}
