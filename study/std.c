/* std: the three standard studies of every case — convergence, conditioning, work-precision —
 * and the sweep behind them and behind `ccb compare` (docs/architecture.md §2).
 *
 * One sweep: every variant of the registry that applies to the case (or those of --variants),
 * the fixed-step ones at each dt of the case's ladder, the adaptive ones at each of their
 * accuracy levels at the case's dt; plus the reference runs the case's error metric needs. Every
 * run records kappa_2(H) (Newton variants). The case supplies only its error metric, reference
 * and ladders (case_std). From the runs one tidy table, runs.csv (one row per run), and the
 * analyses of analysis/:
 *   convergence     error against dt per fixed-step variant, least-squares order with its 95 %
 *                   interval (ccb_an_fit_order);
 *   conditioning    per-step Newton iterations, line-search evaluations and kappa_2(H): means and
 *                   maxima against dt, and their log-log slopes;
 *   work-precision  error against work (Newton iterations, factorizations, f evaluations, wall
 *                   time), every variant; the wall time at a common error.
 * The three studies run the same configurations, so within one ccb invocation the run cache of
 * study.c executes them once. (About 810 lines: the three studies and `ccb compare` read one
 * sweep's private run table; apart they would export it.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "study.h"

#define STD_MAX_VARIANTS 48

static const char* const k_kind_study[3] = {"convergence", "conditioning", "work-precision"};

/* The sweep of one case: configurations, records, and what each run is. */
typedef struct sweep_run {
    int variant;  /* index into vs */
    double x;     /* dt (fixed) or accuracy level (adaptive) */
    int is_ref;   /* a reference run */
    int ref;      /* index of this run's reference run, -1 for none */
    double error; /* against the reference; NAN if failed */
    ccb_an_steps st;
} sweep_run;

typedef struct sweep {
    const case_desc* cs;
    const case_std* sd;
    variant_def vs[STD_MAX_VARIANTS];
    int nv;
    study_batch b;
    sweep_run* run;
    double P[CASE_MAX_PARAMS];
    double T;
    const double* dts;
    int ndt;
    int quick;
    char spec[256]; /* the variant selection it ran */
} sweep;

/* The accuracy levels of an adaptive variant in this tier. */
static const double* levels_of(const sweep* s, const variant_def* v, int* n) {
    if (s->quick && v->levels_quick) {
        *n = v->nlevels_quick;
        return v->levels_quick;
    }
    *n = s->quick && v->nlevels > 2 ? 2 : v->nlevels;
    return v->levels;
}
static int nlevels(const sweep* s, const variant_def* v) {
    int n;
    levels_of(s, v, &n);
    return n;
}

/* One configuration: the variant at step dt (level for adaptive variants). */
static void sweep_config(study_ctx* ctx, sweep* s, const char* study, int i, const variant_def* v,
                         double dt, double level, int is_ref) {
    run_config* c = &s->b.cfg[i];
    char label[96];
    if (is_ref) {
        snprintf(label, sizeof label, "reference-%s_dt%g", v->name, dt);
    } else if (v->kind == VARIANT_ADAPTIVE) {
        snprintf(label, sizeof label, "%s_a%g", v->name, level);
    } else {
        run_label(label, sizeof label, v->name, dt);
    }
    study_config(ctx, c, study, label,
                 v->approx ? v->approx : ccb_approx_find(s->cs->approx_default), dt, s->T);
    memcpy(c->params, s->P, sizeof c->params);
    variant_configure(v, c, level);
    c->sim.newton.compute_kappa = !is_ref; /* the conditioning data; trajectories are unchanged */
    /* a variant that fails on a case is a result of the comparison (runs.csv, status), not a
     * failure of the suite */
    c->expect_failure = "standard study: a variant's failure is data";
    const long steps = lround(s->T / dt);
    c->record_every = study_file_every(ctx, (double)steps, 200);
    /* costliest first: steps, times ~5 for the solvers that are not a convex approximation */
    c->cost = (double)steps * (v->approx ? 1.0 : 5.0);
}

static sweep_run mk_run(int variant, double x, int is_ref, int ref) {
    sweep_run r;
    memset(&r, 0, sizeof r);
    r.variant = variant;
    r.x = x;
    r.is_ref = is_ref;
    r.ref = ref;
    r.error = NAN;
    return r;
}

static int find_variant(const sweep* s, const char* name) {
    for (int i = 0; i < s->nv; ++i) {
        if (strcmp(s->vs[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

static void error_job(void* user, int i) {
    sweep* s = user;
    sweep_run* r = &s->run[i];
    const run_record* rec = &s->b.rec[i];
    ccb_an_step_stats(rec->nsteps, rec->iters, rec->ls, rec->kappa, &r->st);
    r->error = NAN;
    if (r->is_ref || rec->status != CCB_OK) {
        return;
    }
    const run_record* ref = r->ref >= 0 ? &s->b.rec[r->ref] : NULL;
    if (r->ref >= 0 && ref->status != CCB_OK) {
        return;
    }
    r->error = s->sd->error(rec, ref, rec->cfg.params);
}

/* Builds and runs the sweep of ctx's case; 0, or non-zero through ctx's handle (study_fail). */
static int sweep_run_all(study_ctx* ctx, sweep* s, const char* study) {
    const case_desc* cs = ctx->cs;
    const case_std* sd = cs->std;
    memset(s, 0, sizeof *s);
    s->cs = cs;
    s->sd = sd;
    s->quick = ctx->tier == CASE_TIER_QUICK;
    snprintf(s->spec, sizeof s->spec, "%s", ctx->variants ? ctx->variants : "all");
    memcpy(s->P, ctx->params, sizeof s->P);
    if (sd->params) {
        sd->params(s->P, s->quick);
    }
    s->T = sd->t_final > 0 ? sd->t_final : cs->t_final_default;
    if (s->quick && sd->t_final_quick > 0) {
        s->T = sd->t_final_quick;
    }
    s->dts = s->quick && sd->ndt_quick > 0 ? sd->dts_quick : sd->dts;
    s->ndt = s->quick && sd->ndt_quick > 0 ? sd->ndt_quick : sd->ndt;
    char msg[300];
    s->nv = variant_select(ctx->variants ? ctx->variants : "all", cs, s->vs, STD_MAX_VARIANTS, msg,
                           sizeof msg);
    if (s->nv < 0) {
        return study_fail(ctx->out, CCB_E_INVALID, "%s", msg);
    }
    if (s->nv == 0) {
        return study_fail(ctx->out, CCB_E_INVALID, "%s: no variant of '%s' applies", cs->name,
                          ctx->variants ? ctx->variants : "all");
    }
    /* the reference variant may be outside the selection: add it (its runs are references) */
    int ref_var = -1;
    const int need_ref_run = sd->ref == STD_REF_RUN || sd->ref == STD_REF_SELF;
    if (need_ref_run) {
        ref_var = find_variant(s, sd->ref_variant);
        if (ref_var < 0) {
            if (s->nv == STD_MAX_VARIANTS || variant_find(sd->ref_variant, &s->vs[s->nv]) != 0) {
                return study_fail(ctx->out, CCB_E_INTERNAL, "%s: unknown reference variant '%s'",
                                  cs->name, sd->ref_variant);
            }
            ref_var = s->nv; /* not a swept variant: only its reference run */
        }
    }
    const double dt_ref = s->dts[s->ndt - 1] / sd->ref_ratio;
    /* count the runs */
    int n = 0;
    for (int v = 0; v < s->nv; ++v) {
        const variant_def* vd = &s->vs[v];
        n += vd->kind == VARIANT_ADAPTIVE ? nlevels(s, vd) : s->ndt;
        n += sd->ref == STD_REF_SELF && vd->kind == VARIANT_FIXED;
    }
    n += sd->ref == STD_REF_RUN || (sd->ref == STD_REF_SELF && ref_var == s->nv);
    if (study_batch_alloc(ctx, &s->b, n) != 0) {
        return 2;
    }
    s->run = calloc((size_t)n, sizeof *s->run);
    if (s->run == NULL) {
        return study_fail(ctx->out, CCB_E_NOMEM, "%s: out of memory", cs->name);
    }
    /* the shared reference run first, then per variant: its reference (self), its points */
    int i = 0, shared_ref = -1;
    if (sd->ref == STD_REF_RUN || (sd->ref == STD_REF_SELF && ref_var == s->nv)) {
        sweep_config(ctx, s, study, i, &s->vs[ref_var], dt_ref, NAN, 1);
        s->run[i] = mk_run(ref_var, dt_ref, 1, -1);
        shared_ref = i++;
    }
    for (int v = 0; v < s->nv; ++v) {
        const variant_def* vd = &s->vs[v];
        int ref = sd->ref == STD_REF_RUN ? shared_ref : -1;
        if (sd->ref == STD_REF_SELF) {
            if (vd->kind == VARIANT_FIXED) {
                sweep_config(ctx, s, study, i, vd, dt_ref, NAN, 1);
                s->run[i] = mk_run(v, dt_ref, 1, -1);
                if (v == ref_var) {
                    shared_ref = i;
                }
                ref = i++;
            } else {
                ref = -2; /* resolved below: ref_variant's own reference run */
            }
        }
        const int np = vd->kind == VARIANT_ADAPTIVE ? nlevels(s, vd) : s->ndt;
        for (int j = 0; j < np; ++j) {
            const int ad = vd->kind == VARIANT_ADAPTIVE;
            int nl;
            const double x = ad ? levels_of(s, vd, &nl)[j] : s->dts[j];
            const double dt_ad = sd->dt_adaptive > 0 ? sd->dt_adaptive : cs->dt_default;
            sweep_config(ctx, s, study, i, vd, ad ? dt_ad : x, ad ? x : NAN, 0);
            s->run[i] = mk_run(v, x, 0, ref);
            i++;
        }
    }
    for (int k = 0; k < n; ++k) {
        if (s->run[k].ref == -2) {
            s->run[k].ref = shared_ref;
        }
    }
    int rc = study_execute(ctx, study, s->b.cfg, s->b.rec, n);
    if (rc != 0) {
        return rc;
    }
    study_parallel_for(ctx, n, error_job, s);
    return 0;
}

static void sweep_free(sweep* s) {
    study_batch_free(&s->b);
    free(s->run);
    s->run = NULL;
}

/* Work of a run: factorizations of the solver's linear systems (ccb_sim_factor_counts) and
 * evaluations of f (the continuous-model integrators; NAN for the others). */
static double run_factorizations(const run_record* r) {
    return (double)r->factorizations;
}
static double run_fevals(const run_record* r) {
    return r->work.n_f > 0 ? (double)r->work.n_f : NAN;
}

/* runs.csv: one row per run (the tidy table of the study). */
static int write_runs(study_ctx* ctx, const sweep* s, const char* dir) {
    strbuf t = {0};
    for (int i = 0; i < s->b.n; ++i) {
        const sweep_run* r = &s->run[i];
        const run_record* rec = &s->b.rec[i];
        const variant_def* v = &s->vs[r->variant];
        const int ad = v->kind == VARIANT_ADAPTIVE && !r->is_ref;
        strbuf_printf(&t,
                      "%s,%s,%g,%g,%s,%ld,%.6e,%.4f,%.0f,%.4f,%.0f,%.6e,%.6e,%ld,%.0f,%.0f,"
                      "%.6g,%.6e\n",
                      v->name,
                      r->is_ref ? "reference"
                      : ad      ? "adaptive"
                                : "fixed",
                      rec->cfg.sim.dt, ad ? r->x : NAN, rec->status == CCB_OK ? "ok" : "failed",
                      rec->nsteps, r->error, r->st.iters_mean, r->st.iters_max, r->st.ls_mean,
                      r->st.ls_max, r->st.kappa_mean, r->st.kappa_max, rec->total_iters,
                      run_factorizations(rec), run_fevals(rec), rec->wall_time,
                      rec->nsteps > 0 ? rec->wall_time / (double)rec->nsteps : NAN);
    }
    char path[PATH_MAX + 32], header[512];
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    snprintf(header, sizeof header,
             "variant,kind,dt [s],level,status,steps,%s [%s],iterations_mean,iterations_max,"
             "line_search_mean,line_search_max,kappa_mean,kappa_max,newton_iterations_total,"
             "factorizations,f_evaluations,wall [s],wall_per_step [s]",
             s->sd->error_name, s->sd->error_unit);
    const int rc = study_write_table(ctx->out, path, header, t.s ? t.s : "");
    free(t.s);
    (void)ctx;
    return rc;
}

/* The runs of variant v (no references), in ladder order. */
static int variant_points(const sweep* s, int v, int* idx, int max) {
    int n = 0;
    for (int i = 0; i < s->b.n && n < max; ++i) {
        if (s->run[i].variant == v && !s->run[i].is_ref) {
            idx[n++] = i;
        }
    }
    return n;
}

/* "lagged sap ..." of the swept variants of a kind (-1: every kind). */
static void variant_words(const sweep* s, int kind, strbuf* out) {
    for (int v = 0; v < s->nv; ++v) {
        if (kind < 0 || (int)s->vs[v].kind == kind) {
            strbuf_printf(out, "%s%s", out->n ? " " : "", s->vs[v].name);
        }
    }
}

/* The work columns of runs.csv (17 wall, 14 Newton iterations, 15 factorizations, 16 f
 * evaluations) that have a point on a log-log plot: a run (not a reference) with a positive
 * error and positive work. The clutter's variants, for one, evaluate no f. */
static void work_columns(const sweep* s, char* out, size_t n) {
    static const int col[4] = {17, 14, 15, 16};
    int off = 0;
    out[0] = '\0';
    for (int c = 0; c < 4; ++c) {
        int any = 0;
        for (int i = 0; i < s->b.n && !any; ++i) {
            const run_record* rec = &s->b.rec[i];
            const double w = c == 0   ? rec->wall_time
                             : c == 1 ? (double)rec->total_iters
                             : c == 2 ? run_factorizations(rec)
                                      : run_fevals(rec);
            any = !s->run[i].is_ref && s->run[i].error > 0 && w > 0;
        }
        if (any && off >= 0 && (size_t)off < n) {
            off += snprintf(out + off, n - (size_t)off, "%s%d", off ? " " : "", col[c]);
        }
    }
}

static void plot(study_ctx* ctx, const sweep* s, const char* script, const char* dir,
                 const char* study, int kind, const char* title) {
    strbuf vars = {0}, names = {0};
    variant_words(s, kind, &names);
    char xc[32];
    work_columns(s, xc, sizeof xc);
    strbuf_printf(&vars, "variants='%s'; ylabel='%s [%s]'; title='%s: %s'; xc='%s'",
                  names.s ? names.s : "", s->sd->error_name, s->sd->error_unit, ctx->cs->name,
                  title, xc);
    study_plot(ctx->out, script, dir, study, vars.s);
    free(vars.s);
    free(names.s);
}

static void report_head(study_ctx* ctx, const sweep* s, const char* study, const char* what) {
    study_report(ctx->out,
                 "### %s — %s\n\n![%s](%s/%s.png)\n\n%s: %s %s Every variant of the registry "
                 "that applies to the case (`ccb list`); T = %g s; data: `%s/%s/runs.csv` (one "
                 "row per run; the runs under `%s/standard/`, shared by the three standard "
                 "studies).%s\n\n",
                 study, what, study, ctx->cs->name, study, s->sd->error_name, s->sd->error_what,
                 s->sd->ref == STD_REF_RUN    ? "(reference run in runs.csv)."
                 : s->sd->ref == STD_REF_SELF ? "(each variant against itself at the finest step)."
                                              : "",
                 s->T, ctx->cs->name, study, ctx->cs->name,
                 s->quick ? " **Quick tier**: the shorter ladder of `ccb compare --quick`." : "");
}

static int std_convergence(study_ctx* ctx, sweep* s, const char* dir) {
    strbuf tab = {0}, md = {0};
    study_report(ctx->out, "| variant |");
    for (int j = 0; j < s->ndt; ++j) {
        study_report(ctx->out, " %s(%g) |", s->sd->error_name, s->dts[j]);
    }
    study_report(ctx->out, " order (95 %% CI) | points |\n|---|");
    for (int j = 0; j <= s->ndt + 1; ++j) {
        study_report(ctx->out, "---|");
    }
    study_report(ctx->out, "\n");
    for (int v = 0; v < s->nv; ++v) {
        if (s->vs[v].kind != VARIANT_FIXED) {
            continue;
        }
        int idx[STD_MAX_DT];
        const int n = variant_points(s, v, idx, STD_MAX_DT);
        double x[STD_MAX_DT], e[STD_MAX_DT];
        strbuf_printf(&md, "| %s |", s->vs[v].name);
        for (int j = 0; j < n; ++j) {
            x[j] = s->run[idx[j]].x;
            e[j] = s->run[idx[j]].error;
            strbuf_printf(&md, " %.3e |", e[j]);
            study_set_metricf(ctx->out, e[j], "std.convergence.%s.error.dt%g", s->vs[v].name, x[j]);
        }
        ccb_an_fit f;
        ccb_an_fit_order(n, x, e, &f);
        study_set_metricf(ctx->out, f.order, "std.convergence.%s.order", s->vs[v].name);
        study_set_metricf(ctx->out, f.ci95, "std.convergence.%s.order_ci95", s->vs[v].name);
        strbuf_printf(&tab, "%s,%d,%.6f,%.6f,%.6f\n", s->vs[v].name, f.n, f.order, f.ci95, f.r2);
        if (isnan(f.ci95)) {
            strbuf_printf(&md, " %.3f | %d |\n", f.order, f.n);
        } else {
            strbuf_printf(&md, " %.3f ± %.3f | %d |\n", f.order, f.ci95, f.n);
        }
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/orders.csv", dir);
    int rc =
        study_write_table(ctx->out, path, "variant,points,order,order_ci95,r2", tab.s ? tab.s : "");
    study_report(ctx->out,
                 "%s\nFailed runs and the points they leave out show as nan; an order "
                 "is fitted over the points that remain.\n\n",
                 md.s ? md.s : "");
    free(tab.s);
    free(md.s);
    return rc;
}

static int std_conditioning(study_ctx* ctx, sweep* s, const char* dir) {
    strbuf tab = {0}, md = {0};
    for (int v = 0; v < s->nv; ++v) {
        if (s->vs[v].kind != VARIANT_FIXED) {
            continue;
        }
        int idx[STD_MAX_DT];
        const int n = variant_points(s, v, idx, STD_MAX_DT);
        double x[STD_MAX_DT], it[STD_MAX_DT], kap[STD_MAX_DT], itmax = 0, kmax = NAN;
        strbuf_printf(&md, "| %s |", s->vs[v].name);
        for (int j = 0; j < n; ++j) {
            const sweep_run* r = &s->run[idx[j]];
            const int ok = s->b.rec[idx[j]].status == CCB_OK;
            x[j] = r->x;
            it[j] = ok ? r->st.iters_mean : NAN;
            kap[j] = ok ? r->st.kappa_mean : NAN;
            itmax = fmax(itmax, r->st.iters_max);
            kmax = isnan(kmax) ? r->st.kappa_max : fmax(kmax, r->st.kappa_max);
            strbuf_printf(&md, " %.2f / %.0f / %.3g |", r->st.iters_mean, r->st.iters_max,
                          r->st.kappa_mean);
            study_set_metricf(ctx->out, it[j], "std.conditioning.%s.iterations_mean.dt%g",
                              s->vs[v].name, x[j]);
            study_set_metricf(ctx->out, kap[j], "std.conditioning.%s.kappa_mean.dt%g",
                              s->vs[v].name, x[j]);
        }
        ccb_an_fit fi, fk;
        ccb_an_fit_order(n, x, it, &fi);
        ccb_an_fit_order(n, x, kap, &fk);
        study_set_metricf(ctx->out, fi.order, "std.conditioning.%s.iterations_slope",
                          s->vs[v].name);
        study_set_metricf(ctx->out, fk.order, "std.conditioning.%s.kappa_slope", s->vs[v].name);
        study_set_metricf(ctx->out, itmax, "std.conditioning.%s.iterations_max", s->vs[v].name);
        strbuf_printf(&tab, "%s,%.6f,%.6f,%.0f,%.6e\n", s->vs[v].name, fi.order, fk.order, itmax,
                      kmax);
        strbuf_printf(&md, " %.3f | %.3f |\n", fi.order, fk.order);
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/slopes.csv", dir);
    int rc = study_write_table(ctx->out, path,
                               "variant,iterations_mean_slope,kappa_mean_slope,iterations_max,"
                               "kappa_max",
                               tab.s ? tab.s : "");
    study_report(ctx->out,
                 "Per step: mean / max Newton iterations (the integrator's for the "
                 "continuous-model variants) / mean kappa_2(H) (Newton variants; nan for the "
                 "others), then the log-log slopes of the mean iterations and the mean kappa "
                 "against dt.\n\n| variant |");
    for (int j = 0; j < s->ndt; ++j) {
        study_report(ctx->out, " dt = %g |", s->dts[j]);
    }
    study_report(ctx->out, " iterations slope | kappa slope |\n|---|");
    for (int j = 0; j <= s->ndt + 1; ++j) {
        study_report(ctx->out, "---|");
    }
    study_report(ctx->out,
                 "\n%s\nLine-search evaluations per step (mean and max) are in runs.csv.\n\n",
                 md.s ? md.s : "");
    free(tab.s);
    free(md.s);
    return rc;
}

/* Error control against fixed steps (formulation-convex §15.5): for every error-controlled
 * convex variant ("lagged-ec") whose fixed-step twin ("lagged") is in the sweep, each accuracy
 * level's error, wall time and Newton iterations, and the twin's at the same error by log-log
 * interpolation along its dt ladder (nan outside it). gain = twin / EC: > 1 where error control
 * reaches that error with less work. ec_vs_fixed.csv, the report's table and the metrics
 * std.work-precision.<variant>.gain_iterations_{min,max}. */
static int std_ec_vs_fixed(study_ctx* ctx, const sweep* s, const char* dir) {
    strbuf tab = {0}, md = {0};
    for (int v = 0; v < s->nv; ++v) {
        const variant_def* ve = &s->vs[v];
        const size_t ln = strlen(ve->name);
        if (ve->approx == NULL || !variant_option_on(ve, "error-control") || ln < 3) {
            continue;
        }
        const int f = find_variant(s, ve->approx->name);
        if (f < 0) {
            continue;
        }
        int ie[STD_MAX_DT], jf[STD_MAX_DT];
        const int ne = variant_points(s, v, ie, STD_MAX_DT);
        const int nf = variant_points(s, f, jf, STD_MAX_DT);
        double ef[STD_MAX_DT], wf[STD_MAX_DT], itf[STD_MAX_DT];
        for (int j = 0; j < nf; ++j) {
            const run_record* r = &s->b.rec[jf[j]];
            ef[j] = s->run[jf[j]].error;
            wf[j] = r->wall_time;
            itf[j] = (double)r->total_iters;
        }
        double gmin = NAN, gmax = NAN;
        for (int j = 0; j < ne; ++j) {
            const run_record* r = &s->b.rec[ie[j]];
            const double e = s->run[ie[j]].error, it = (double)r->total_iters;
            int ex;
            const double w_f = ccb_an_loglog_at_or_beyond(nf, ef, wf, e, &ex);
            const double it_f = ccb_an_loglog_at_or_beyond(nf, ef, itf, e, &ex);
            const double g_it = it_f / it, g_w = w_f / r->wall_time;
            if (isfinite(g_it)) {
                gmin = isnan(gmin) ? g_it : fmin(gmin, g_it);
                gmax = isnan(gmax) ? g_it : fmax(gmax, g_it);
            }
            strbuf_printf(&tab, "%s,%s,%g,%.6e,%ld,%.6g,%.6g,%.6g,%.6g,%.4g,%.4g,%d\n", ve->name,
                          s->vs[f].name, s->run[ie[j]].x, e, r->work.n_steps, it, r->wall_time,
                          it_f, w_f, g_it, g_w, ex);
            const char* verdict = !isfinite(g_it) ? "beyond the fixed ladder (> 10x)"
                                  : g_it > 1.0    ? (ex ? "error control cheaper (extrapolated)"
                                                        : "error control cheaper")
                                  : ex            ? "fixed steps cheaper (extrapolated)"
                                                  : "fixed steps cheaper";
            strbuf_printf(&md, "| %s | %g | %.3e | %ld | %.4g | %.4g | %.3g | %s |\n", ve->name,
                          s->run[ie[j]].x, e, r->work.n_steps, it, it_f, g_it, verdict);
        }
        study_set_metricf(ctx->out, gmin, "std.work-precision.%s.gain_iterations_min", ve->name);
        study_set_metricf(ctx->out, gmax, "std.work-precision.%s.gain_iterations_max", ve->name);
    }
    if (tab.s == NULL) {
        return 0;
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/ec_vs_fixed.csv", dir);
    const int rc = study_write_table(
        ctx->out, path,
        "variant,fixed_twin,accuracy,error,internal_steps,newton_iterations,wall [s],"
        "twin_newton_iterations_at_error,twin_wall_at_error [s],gain_iterations,gain_wall,"
        "extrapolated",
        tab.s);
    study_report(ctx->out,
                 "Error control against fixed steps (formulation-convex §15.5): each "
                 "accuracy level of an error-controlled variant against its fixed-step twin at "
                 "the same error (log-log interpolation along the twin's dt ladder, extended along "
                 "its end segment up to 10x beyond it: marked extrapolated). gain = twin's Newton "
                 "iterations / the error-controlled run's (> 1: "
                 "error control reaches that error with less work); wall times in "
                 "ec_vs_fixed.csv.\n\n| variant | accuracy | error | internal steps | Newton "
                 "iterations | twin's at that error | gain | verdict |\n"
                 "|---|---|---|---|---|---|---|---|\n%s\n",
                 md.s);
    free(tab.s);
    free(md.s);
    return rc;
}

static int std_work_precision(study_ctx* ctx, sweep* s, const char* dir) {
    /* the common error: the largest of the variants' smallest errors, which every variant whose
     * runs reach below it passes through */
    double target = NAN;
    double best[STD_MAX_VARIANTS];
    for (int v = 0; v < s->nv; ++v) {
        int idx[STD_MAX_DT];
        const int n = variant_points(s, v, idx, STD_MAX_DT);
        best[v] = NAN;
        for (int j = 0; j < n; ++j) {
            const double e = s->run[idx[j]].error;
            if (isfinite(e) && e > 0 && !(best[v] <= e)) {
                best[v] = e;
            }
        }
        if (isfinite(best[v]) && !(target >= best[v])) {
            target = best[v];
        }
    }
    study_set_metric(ctx->out, "std.work-precision.target_error", target);
    strbuf tab = {0}, md = {0};
    for (int v = 0; v < s->nv; ++v) {
        int idx[STD_MAX_DT];
        const int n = variant_points(s, v, idx, STD_MAX_DT);
        double e[STD_MAX_DT], wall[STD_MAX_DT], newt[STD_MAX_DT];
        double wall_best = NAN;
        for (int j = 0; j < n; ++j) {
            const run_record* rec = &s->b.rec[idx[j]];
            e[j] = s->run[idx[j]].error;
            wall[j] = rec->wall_time;
            newt[j] = (double)rec->total_iters;
            if (e[j] == best[v]) {
                wall_best = wall[j];
            }
        }
        const double w_at = ccb_an_loglog_at(n, e, wall, target);
        const double it_at = ccb_an_loglog_at(n, e, newt, target);
        study_set_metricf(ctx->out, w_at, "std.work-precision.%s.wall_at_target", s->vs[v].name);
        study_set_metricf(ctx->out, best[v], "std.work-precision.%s.best_error", s->vs[v].name);
        strbuf_printf(&tab, "%s,%s,%.6e,%.6g,%.6g,%.6g\n", s->vs[v].name,
                      s->vs[v].kind == VARIANT_ADAPTIVE ? "adaptive" : "fixed", best[v], wall_best,
                      w_at, it_at);
        strbuf_printf(&md, "| %s | %s | %.3e | %.4g | %.4g | %.4g |\n", s->vs[v].name,
                      s->vs[v].kind == VARIANT_ADAPTIVE ? "adaptive (accuracy levels)" : "fixed",
                      best[v], wall_best, w_at, it_at);
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/work_precision.csv", dir);
    char header[256];
    snprintf(header, sizeof header,
             "variant,kind,best_error,wall_at_best [s],wall_at_target [s],"
             "newton_iterations_at_target");
    int rc = study_write_table(ctx->out, path, header, tab.s ? tab.s : "");
    study_report(ctx->out,
                 "Target error %.3e %s (the largest of the variants' smallest errors); work at "
                 "the target by log-log interpolation along each variant's runs (nan: the runs do "
                 "not reach it). The figure also shows factorizations and f evaluations.\n\n"
                 "| variant | kind | smallest error | its wall [s] | wall at target [s] | Newton "
                 "iterations at target |\n|---|---|---|---|---|---|\n%s\n",
                 target, s->sd->error_unit, md.s ? md.s : "");
    free(tab.s);
    free(md.s);
    return rc != 0 ? rc : std_ec_vs_fixed(ctx, s, dir);
}

static void sweep_destroy(void* p) {
    sweep* s = p;
    if (s) {
        sweep_free(s);
        free(s);
    }
}

/* The standard sweep of ctx (tier, variants): run once into <root>/<case>/standard/ and kept in
 * ctx for the other two standard studies. NULL on error (its message in ctx's handle). */
static sweep* standard_sweep(study_ctx* ctx) {
    sweep* s = ctx->std_sweep;
    const char* spec = ctx->variants ? ctx->variants : "all";
    if (s && s->quick == (ctx->tier == CASE_TIER_QUICK) && strcmp(s->spec, spec) == 0) {
        return s;
    }
    if (ctx->std_sweep && ctx->std_sweep_free) {
        ctx->std_sweep_free(ctx->std_sweep);
        ctx->std_sweep = NULL;
    }
    s = calloc(1, sizeof *s);
    if (s == NULL) {
        study_fail(ctx->out, CCB_E_NOMEM, "%s: out of memory", ctx->cs->name);
        return NULL;
    }
    if (sweep_run_all(ctx, s, "standard") != 0) {
        sweep_destroy(s);
        return NULL;
    }
    ctx->std_sweep = s;
    ctx->std_sweep_free = sweep_destroy;
    return s;
}

static int std_study(study_ctx* ctx, int kind) {
    const char* study = k_kind_study[kind];
    if (ctx->cs->std == NULL) {
        return study_fail(ctx->out, CCB_E_INVALID, "%s has no standard studies", ctx->cs->name);
    }
    sweep* s = standard_sweep(ctx);
    char dir[PATH_MAX];
    int rc = s ? 0 : 2;
    if (rc == 0 && study_dir(ctx->out, study, dir, sizeof dir) != 0) {
        rc = 2;
    }
    if (rc == 0) {
        rc = write_runs(ctx, s, dir);
    }
    static const char* const what[3] = {
        "error against dt, observed order per variant",
        "Newton iterations and kappa_2(H) per step against dt",
        "error against work (Newton iterations, factorizations, f evaluations, wall time)"};
    static const char* const script[3] = {"std_convergence.gp", "std_conditioning.gp",
                                          "std_work_precision.gp"};
    if (rc == 0) {
        report_head(ctx, s, study, what[kind]);
        rc = kind == 0   ? std_convergence(ctx, s, dir)
             : kind == 1 ? std_conditioning(ctx, s, dir)
                         : std_work_precision(ctx, s, dir);
    }
    if (rc == 0) {
        plot(ctx, s, script[kind], dir, study, kind == 2 ? -1 : VARIANT_FIXED, what[kind]);
    }
    return rc;
}

static int run_convergence(study_ctx* ctx, study_out* out) {
    (void)out;
    return std_study(ctx, 0);
}
static int run_conditioning(study_ctx* ctx, study_out* out) {
    (void)out;
    return std_study(ctx, 1);
}
static int run_work_precision(study_ctx* ctx, study_out* out) {
    (void)out;
    return std_study(ctx, 2);
}

static const case_study k_std[4] = {
    {.name = "convergence",
     .title = "error against dt, observed order with its 95 % interval, every variant",
     .figure = "standard",
     .run = run_convergence},
    {.name = "conditioning",
     .title = "Newton iterations, line search and kappa_2(H) per step against dt",
     .figure = "standard",
     .run = run_conditioning},
    {.name = "work-precision",
     .title = "error against iterations, factorizations, f evaluations and wall time",
     .figure = "standard",
     .run = run_work_precision},
    {.name = "gradients",
     .title = "step derivatives (implicit function theorem) against finite differences",
     .figure = "standard",
     .run = grad_study_run}};

int case_nstudies(const case_desc* cs) {
    return (cs->std ? 4 : 0) + cs->nstudies;
}

/* The three standard studies, the case's own, then the fourth standard study, gradients: it
 * reuses the runs of the others (and the run cache's provenance stays with the studies that
 * made them first). */

const case_study* case_study_at(const case_desc* cs, int i) {
    const int ns = cs->std ? 3 : 0;
    if (i < 0 || i >= case_nstudies(cs)) {
        return NULL;
    }
    return i < ns ? &k_std[i] : i < ns + cs->nstudies ? &cs->studies[i - ns] : &k_std[3];
}

const case_study* case_find_study(const case_desc* cs, const char* name) {
    for (int i = 0; i < case_nstudies(cs); ++i) {
        if (strcmp(case_study_at(cs, i)->name, name) == 0) {
            return case_study_at(cs, i);
        }
    }
    return NULL;
}

/* ---- ccb compare -------------------------------------------------------------------------------- */

int std_compare_case(study_ctx* ctx, std_summary* out, int max, int* count) {
    *count = 0;
    if (ctx->cs->std == NULL) {
        return 0;
    }
    sweep* s = calloc(1, sizeof *s);
    if (s == NULL) {
        return study_fail(ctx->out, CCB_E_NOMEM, "%s: out of memory", ctx->cs->name);
    }
    int rc = sweep_run_all(ctx, s, "compare");
    char dir[PATH_MAX];
    if (rc == 0 && study_dir(ctx->out, "compare", dir, sizeof dir) != 0) {
        rc = 2;
    }
    if (rc == 0) {
        rc = write_runs(ctx, s, dir);
    }
    int n = 0;
    for (int v = 0; rc == 0 && v < s->nv && n < max; ++v) {
        int idx[STD_MAX_DT];
        const int np = variant_points(s, v, idx, STD_MAX_DT);
        if (np == 0) {
            continue; /* the reference variant only */
        }
        std_summary* o = &out[n++];
        memset(o, 0, sizeof *o);
        snprintf(o->case_name, sizeof o->case_name, "%s", ctx->cs->name);
        snprintf(o->variant, sizeof o->variant, "%s", s->vs[v].name);
        o->adaptive = s->vs[v].kind == VARIANT_ADAPTIVE;
        o->npts = np;
        long steps = 0, nk = 0;
        double iters = 0, wall = 0, ksum = 0;
        o->iters_max = 0;
        for (int k = 0; k < 5; ++k) {
            o->phys_max[k] = NAN;
        }
        for (int j = 0; j < np; ++j) {
            const sweep_run* r = &s->run[idx[j]];
            const run_record* rec = &s->b.rec[idx[j]];
            o->x[j] = r->x;
            o->error[j] = r->error;
            o->failures += rec->status != CCB_OK;
            steps += rec->nsteps;
            iters += (double)rec->total_iters;
            wall += rec->wall_time;
            o->iters_max = fmax(o->iters_max, r->st.iters_max);
            for (int k = 0; k < 5; ++k) { /* fmax ignores a NaN */
                o->phys_max[k] = fmax(o->phys_max[k], rec->phys_max[k]);
            }
            if (r->st.nkappa > 0) {
                ksum += r->st.kappa_mean * (double)r->st.nkappa;
                nk += r->st.nkappa;
            }
        }
        ccb_an_fit_order(np, o->x, o->error, &o->fit);
        /* explicit methods (RK3, GSL) have no iterations: not applicable, not zero */
        const int explicit_method = variant_explicit(&s->vs[v]);
        o->iters_mean = steps > 0 && !explicit_method ? iters / (double)steps : NAN;
        if (explicit_method) {
            o->iters_max = NAN;
        }
        o->kappa_mean = nk > 0 ? ksum / (double)nk : NAN;
        o->wall_per_step = steps > 0 ? wall / (double)steps : NAN;
        o->error_unit = ctx->cs->std->error_unit;
        o->error_name = ctx->cs->std->error_name;
    }
    sweep_free(s);
    free(s);
    *count = rc == 0 ? n : 0;
    return rc;
}
