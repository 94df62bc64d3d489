/* errctl_study: the error-control study of a case (sphere, box): the error-controlled convex step
 * (lagged-ec, formulation-convex §15) at six accuracy levels against fixed-step Lagged at the
 * same sampling interval and its halvings, both against one fine fixed-step Lagged reference.
 *
 * The error is e_q of cases.md §1.4 (RMS over the sampled run of |q - q_ref|), here against the
 * limit of the discretization itself (fixed Lagged at dt_ref), so that neither the model
 * difference of a continuous reference nor another scheme's error hides what error control does.
 * Outputs: error_control.csv (one row per run), metrics error-control.*, the report's table and
 * figure (analysis/gnuplot/error_control.gp: error against the accuracy, and against Newton
 * iterations beside the fixed steps). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "case.h"

static const double k_levels[ERRCTL_NLEVEL] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8};

/* run order: the reference, the fixed ladder (dt, dt/2, ...), the levels */
static int nfixed(const errctl_def* d) {
    return d->nfixed;
}

int errctl_runs(study_ctx* ctx, study_batch* b, const errctl_def* d) {
    const double T = d->t_final > 0 ? d->t_final : ctx->cs->t_final_default;
    const int n = 1 + nfixed(d) + ERRCTL_NLEVEL;
    if (study_batch_alloc(b, n) != 0) {
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
        fprintf(stderr, "ccb: error-control: no variant lagged-ec\n");
        return 2;
    }
    for (int l = 0; l < ERRCTL_NLEVEL; ++l) {
        snprintf(label, sizeof label, "lagged-ec_a%g", k_levels[l]);
        study_config(ctx, &b->cfg[i], "error-control", label, &ccb_approx_lagged, d->dt, T);
        variant_configure(&v, &b->cfg[i], k_levels[l]);
        b->cfg[i++].cost = T / d->dt * 3.0 * (double)(l + 1);
    }
    b->n = n;
    return 0;
}

static double run_error(const run_record* r, const run_record* ref) {
    double e = NAN;
    char msg[128];
    if (r->status != CCB_OK || ref->status != CCB_OK ||
        ccb_an_rms_error(r->nsteps, r->cfg.dt, r->q, ref->nsteps, ref->cfg.dt, ref->q, r->nq, &e,
                         NULL, msg, sizeof msg) != 0) {
        return NAN;
    }
    return e;
}

int errctl_finish(study_ctx* ctx, const fig_data* fd, const char* dir, const errctl_def* d) {
    const study_batch* b = fd->b;
    const run_record* ref = &b->rec[0];
    const int nf = nfixed(d);
    double ef[ERRCTL_MAX_FIXED], itf[ERRCTL_MAX_FIXED], el[ERRCTL_NLEVEL], itl[ERRCTL_NLEVEL];
    strbuf tab = {0}, md = {0};
    for (int i = 1; i < b->n; ++i) {
        const run_record* r = &b->rec[i];
        const int fixed = i <= nf;
        const double e = run_error(r, ref), it = (double)r->total_iters;
        if (fixed) {
            ef[i - 1] = e, itf[i - 1] = it;
        } else {
            el[i - 1 - nf] = e, itl[i - 1 - nf] = it;
        }
        const double a = fixed ? NAN : k_levels[i - 1 - nf];
        const long steps = fixed ? r->nsteps : r->work.n_steps;
        strbuf_printf(&tab, "%s,%g,%g,%.6e,%ld,%ld,%ld,%.0f,%.6g\n", fixed ? "lagged" : "lagged-ec",
                      r->cfg.dt, a, e, steps, fixed ? 0L : r->work.n_reject_error,
                      fixed ? 0L : r->work.n_fail_newton, it, r->wall_time);
        char acc[32] = "—";
        if (!fixed) {
            snprintf(acc, sizeof acc, "%g", a);
        }
        strbuf_printf(&md, "| %s | %g | %s | %.3e | %ld | %ld | %.0f |\n",
                      fixed ? "lagged" : "lagged-ec", r->cfg.dt, acc, e, steps,
                      fixed ? 0L : r->work.n_reject_error, it);
        if (fixed) {
            study_set_metricf(ctx, e, "error-control.lagged.e_dt%g", r->cfg.dt);
        } else {
            study_set_metricf(ctx, e, "error-control.lagged-ec.e_a%g", a);
            study_set_metricf(ctx, (double)r->work.n_steps, "error-control.lagged-ec.steps_a%g", a);
        }
    }
    /* what error control does with a: the error at the finest level over the coarsest, the fitted
     * slope of log e against log a (local error a per step of a first-order scheme: h ~ a^(1/2)
     * and e ~ N a ~ a^(1/2); formulation-convex §15.5), and the largest rise of the error when a
     * falls by one level (0 when it always falls) */
    study_set_metric(ctx, "error-control.lagged-ec.finest_over_coarsest",
                     el[ERRCTL_NLEVEL - 1] / el[0]);
    ccb_an_fit fit; /* over the three finest levels, where every case refines */
    ccb_an_fit_order(3, k_levels + ERRCTL_NLEVEL - 3, el + ERRCTL_NLEVEL - 3, &fit);
    study_set_metric(ctx, "error-control.lagged-ec.slope_fine", fit.order);
    /* at the coarsest level no step is rejected on these cases: two half steps of dt, i.e. the
     * fixed run at dt/2 (the second of the ladder) up to the Newton solves' tolerance */
    study_set_metric(ctx, "error-control.lagged-ec.coarsest_over_fixed_half", el[0] / ef[1]);
    double rise = 0.0;
    for (int l = 1; l < ERRCTL_NLEVEL; ++l) {
        rise = fmax(rise, el[l] / el[l - 1] - 1.0);
    }
    study_set_metric(ctx, "error-control.lagged-ec.largest_rise", rise);
    /* equal error: fixed steps' Newton iterations at each level's error (log-log along the
     * ladder), over error control's */
    double gmax = NAN;
    for (int l = 0; l < ERRCTL_NLEVEL; ++l) {
        const double g = ccb_an_loglog_at(nf, ef, itf, el[l]) / itl[l];
        if (isfinite(g)) {
            gmax = isnan(gmax) ? g : fmax(gmax, g);
        }
    }
    study_set_metric(ctx, "error-control.lagged-ec.gain_iterations_max", gmax);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/error_control.csv", dir);
    int rc = study_write_table(path,
                               "variant,dt [s],accuracy,e_q,steps,error_rejections,"
                               "newton_failures,newton_iterations,wall [s]",
                               tab.s ? tab.s : "");
    study_report(
        ctx,
        "e_q against fixed-step Lagged at dt = %g s (the discretization's own limit). "
        "lagged-ec samples every %g s, its largest step; steps are its accepted internal "
        "steps.\n\n| run | dt [s] | accuracy | e_q | steps | rejections | Newton iterations "
        "|\n|---|---|---|---|---|---|---|\n%s\nlagged-ec at a = 1e-3 ... 1e-8: e_q = ",
        d->dt_ref, d->dt, md.s ? md.s : "");
    for (int l = 0; l < ERRCTL_NLEVEL; ++l) {
        study_report(ctx, "%s%.3e", l ? ", " : "", el[l]);
    }
    study_report(ctx,
                 "; finest/coarsest %.3g, slope of log e_q against log a over the three finest "
                 "levels %.3f (1/2 if the global error is the sum of the local ones), largest rise "
                 "between neighbouring levels %.3g; largest gain in "
                 "Newton iterations over fixed steps at equal error %.3g (nan: no level inside the "
                 "fixed ladder's errors).\n\n",
                 el[ERRCTL_NLEVEL - 1] / el[0], fit.order, rise, gmax);
    free(tab.s);
    free(md.s);
    return rc;
}
