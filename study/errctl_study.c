/* errctl_study: the error-control study of a case (sphere, box): the error-controlled convex step
 * (lagged-ec, formulation-convex §15) at six accuracy levels against fixed-step Lagged at the
 * same sampling interval and its halvings, both against one fine fixed-step Lagged reference.
 *
 * The error is e_q of cases.md §1.4 (RMS over the sampled run of |q - q_ref|), here against the
 * limit of the discretization itself (fixed Lagged at dt_ref), so that neither the model
 * difference of a continuous reference nor another scheme's error hides what error control does.
 * Two estimators run at every level (formulation-convex §15.5-15.7): ccb's (lagged-ec: step
 * doubling with the lag defect and local extrapolation, the default) and CENIC's (lagged-ec-cenic:
 * step doubling alone, the half steps propagated), so that the report shows what each adds.
 * Outputs: error_control.csv (one row per run), metrics error-control.*, the report's table and
 * figure (analysis/gnuplot/error_control.gp: error against the accuracy, and against Newton
 * iterations beside the fixed steps). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "study.h"

static const double k_levels[ERRCTL_NLEVEL] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8};

/* run order: the reference, the fixed ladder (dt, dt/2, ...), the levels of each estimator */
enum { EST_CCB, EST_CENIC, EST_COUNT };
static const char* const k_est_name[EST_COUNT] = {"lagged-ec", "lagged-ec-cenic"};
static int nfixed(const errctl_def* d) {
    return d->nfixed;
}

int errctl_runs(study_ctx* ctx, study_batch* b, const errctl_def* d) {
    const double T = d->t_final > 0 ? d->t_final : ctx->cs->t_final_default;
    const int n = 1 + nfixed(d) + EST_COUNT * ERRCTL_NLEVEL;
    if (study_batch_alloc(ctx, b, n) != 0) {
        return 2;
    }
    char label[96];
    int i = 0;
    snprintf(label, sizeof label, "reference-lagged_dt%g", d->dt_ref);
    study_config(ctx, &b->cfg[i], "error-control", label, &ccb_approx_lagged, d->dt_ref, T);
    b->cfg[i].record_every = (int)lround(d->dt / d->dt_ref);
    b->cfg[i++].cost = T / d->dt_ref;
    for (int k = 0; k < nfixed(d); ++k) {
        const double dt = d->dt / (double)(1 << k);
        run_label(label, sizeof label, "lagged", dt);
        study_config(ctx, &b->cfg[i], "error-control", label, &ccb_approx_lagged, dt, T);
        b->cfg[i++].cost = T / dt;
    }
    variant_def v;
    if (variant_find("lagged-ec", &v) != 0) {
        return study_fail(ctx->out, CCB_E_INTERNAL, "error-control: no variant lagged-ec");
    }
    for (int e = 0; e < EST_COUNT; ++e) {
        for (int l = 0; l < ERRCTL_NLEVEL; ++l) {
            snprintf(label, sizeof label, "%s_a%g", k_est_name[e], k_levels[l]);
            study_config(ctx, &b->cfg[i], "error-control", label, &ccb_approx_lagged, d->dt, T);
            variant_configure(&v, &b->cfg[i], k_levels[l]);
            if (e == EST_CENIC) { /* formulation-convex §15.1-15.2 only */
                b->cfg[i].sim.ec.lag_estimate = 0;
                b->cfg[i].sim.ec.extrapolate = 0;
            }
            b->cfg[i++].cost = T / d->dt * 3.0 * (double)(l + 1);
        }
    }
    b->n = n;
    return 0;
}

static double run_error(const run_record* r, const run_record* ref) {
    double e = NAN;
    char msg[128];
    if (r->status != CCB_OK || ref->status != CCB_OK ||
        ccb_an_rms_error(r->nsteps, r->cfg.sim.dt, r->q, ref->nsteps, ref->cfg.sim.dt, ref->q,
                         r->nq, &e, NULL, msg, sizeof msg) != 0) {
        return NAN;
    }
    return e;
}

/* The accuracy ladder's metrics of one estimator, error-control.NAME.*: the error at the finest
 * level over the coarsest, the fitted slope of log e against log a over the three finest levels,
 * the largest relative rise of the error when a falls by one level (negative when it always
 * falls: then the smallest fall, with its sign), and the
 * largest gain in Newton iterations of fixed steps at equal error (log-log along the ladder) */
static void ladder_metrics(study_ctx* ctx, const char* name, const double* el, const double* itl,
                           int nf, const double* ef, const double* itf, double* rise_out,
                           double* slope_out, double* gain_out) {
    study_set_metricf(ctx->out, el[ERRCTL_NLEVEL - 1] / el[0],
                      "error-control.%s.finest_over_coarsest", name);
    ccb_an_fit fit; /* over the three finest levels, where every case refines */
    ccb_an_fit_order(3, k_levels + ERRCTL_NLEVEL - 3, el + ERRCTL_NLEVEL - 3, &fit);
    study_set_metricf(ctx->out, fit.order, "error-control.%s.slope_fine", name);
    double rise = el[1] / el[0] - 1.0; /* < 0: the error falls at every level, by -rise at least */
    for (int l = 2; l < ERRCTL_NLEVEL; ++l) {
        rise = fmax(rise, el[l] / el[l - 1] - 1.0);
    }
    study_set_metricf(ctx->out, rise, "error-control.%s.largest_rise", name);
    double gmax = NAN;
    for (int l = 0; l < ERRCTL_NLEVEL; ++l) {
        const double g = ccb_an_loglog_at(nf, ef, itf, el[l]) / itl[l];
        if (isfinite(g)) {
            gmax = isnan(gmax) ? g : fmax(gmax, g);
        }
    }
    study_set_metricf(ctx->out, gmax, "error-control.%s.gain_iterations_max", name);
    *rise_out = rise, *slope_out = fit.order, *gain_out = gmax;
}

int errctl_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir,
                  const errctl_def* d) {
    (void)out;
    (void)dir;
    const study_batch* b = fd->b;
    const run_record* ref = &b->rec[0];
    const int nf = nfixed(d);
    double ef[ERRCTL_MAX_FIXED], itf[ERRCTL_MAX_FIXED];
    double el[EST_COUNT][ERRCTL_NLEVEL], itl[EST_COUNT][ERRCTL_NLEVEL];
    for (int i = 1; i < b->n; ++i) {
        const run_record* r = &b->rec[i];
        const int fixed = i <= nf;
        const int est = fixed ? -1 : (i - 1 - nf) / ERRCTL_NLEVEL;
        const int lev = fixed ? -1 : (i - 1 - nf) % ERRCTL_NLEVEL;
        const char* name = fixed ? "lagged" : k_est_name[est];
        const double e = run_error(r, ref), it = (double)r->total_iters;
        if (fixed) {
            ef[i - 1] = e, itf[i - 1] = it;
        } else {
            el[est][lev] = e, itl[est][lev] = it;
        }
        const double a = fixed ? NAN : k_levels[lev];
        const double steps = fixed ? (double)r->nsteps : (double)r->work.n_steps;
        const double rejections = fixed ? 0.0 : (double)r->work.n_reject_error;
        const double runs[] = {
            r->cfg.sim.dt, a, e, steps, rejections, fixed ? 0.0 : (double)r->work.n_fail_newton, it,
            r->wall_time};
        study_row(ctx->out, "runs");
        study_str(ctx->out, "runs", name);
        study_nums(ctx->out, "runs", runs, sizeof runs / sizeof runs[0]);
        const double md[] = {r->cfg.sim.dt, a, e, steps, rejections, it};
        study_row(ctx->out, "summary");
        study_str(ctx->out, "summary", name);
        study_nums(ctx->out, "summary", md, sizeof md / sizeof md[0]);
        if (fixed) {
            study_set_metricf(ctx->out, e, "error-control.lagged.e_dt%g", r->cfg.sim.dt);
        } else {
            study_set_metricf(ctx->out, e, "error-control.%s.e_a%g", name, a);
            study_set_metricf(ctx->out, (double)r->work.n_steps, "error-control.%s.steps_a%g", name,
                              a);
        }
    }
    double rise[EST_COUNT], slope[EST_COUNT], gain[EST_COUNT];
    for (int e = 0; e < EST_COUNT; ++e) {
        ladder_metrics(ctx, k_est_name[e], el[e], itl[e], nf, ef, itf, &rise[e], &slope[e],
                       &gain[e]);
        study_row(ctx->out, "levels");
        study_str(ctx->out, "levels", k_est_name[e]);
        study_nums(ctx->out, "levels", el[e], ERRCTL_NLEVEL);
        const double ends[] = {el[e][ERRCTL_NLEVEL - 1] / el[e][0], slope[e], rise[e], gain[e]};
        study_nums(ctx->out, "levels", ends, sizeof ends / sizeof ends[0]);
    }
    /* what ccb's estimator buys over CENIC's at each level: the ratio of their errors */
    for (int l = 0; l < ERRCTL_NLEVEL; ++l) {
        study_set_metricf(ctx->out, el[EST_CCB][l] / el[EST_CENIC][l],
                          "error-control.lagged-ec.over_cenic_a%g", k_levels[l]);
    }
    /* CENIC's at the coarsest level, where no step is rejected on these cases: two half steps of
     * dt, i.e. the fixed run at dt/2 (the second of the ladder) up to the Newton solves'
     * tolerance (formulation-convex §15.2) */
    study_set_metric(ctx->out, "error-control.lagged-ec-cenic.coarsest_over_fixed_half",
                     el[EST_CENIC][0] / ef[1]);
    study_value(ctx->out, "dt_ref", d->dt_ref);
    study_value(ctx->out, "dt", d->dt);
    return 0;
}

const fig_table errctl_tables[] = {
    {.name = "runs",
     .file = "error_control.csv",
     .header = "variant,dt [s],accuracy,e_q,steps,error_rejections,newton_failures,"
               "newton_iterations,wall [s]",
     .cells = "%s|%g|%g|%.6e|%d|%d|%d|%.0f|%.6g"},
    {.name = "summary",
     .md = "| run | dt [s] | accuracy | e_q | steps | rejections | Newton iterations "
           "|\n|---|---|---|---|---|---|---|\n",
     .cells = "%s|%g|%g|%.3e|%d|%d|%.0f",
     .md_nonfinite = "—"},
    {.name = "levels",
     .md =
         "| estimator | e_q, a = 1e-3 | 1e-4 | 1e-5 | 1e-6 | 1e-7 | 1e-8 | finest/coarsest | slope "
         "(three finest) | largest rise | largest gain in Newton iterations "
         "|\n|---|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%.3e|%.3e|%.3e|%.3e|%.3e|%.3e|%.3g|%.3f|%.3g|%.3g"},
    {.name = NULL}};
