/* figure: the engine of the declared paper-figure studies (fig_study, case.h). A declaration
 * names its runs (variants of the registry at the study's step, or a list with labels and
 * parameter overrides), the values each run gives to the study's table, what the runs say
 * together, and its gnuplot script; the engine does the rest:
 *   1. the run configurations (the case's parameters with the study's overrides; the variant's
 *      solver; kappa if asked; trajectories decimated to `rows` rows);
 *   2. their execution (study_execute: parallel, costliest first, through the run cache);
 *   3. CASE/STUDY/table.csv: variant, label, dt, status, steps, the declared columns, mean and
 *      max Newton iterations, wall time — one row per run;
 *   4. the report section: the paper's claim, the figure, the table;
 *   5. the declaration's finish (cross-run metrics, further tables, report lines);
 *   6. the figure (analysis/gnuplot/<script>, with datadir, out, runs, titles set). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

#define FIG_MAX_COLS 24
#define FIG_MAX_RUNS 64

/* The declared runs as a list (variants at the study's step when no list is given). */
static int fig_runs(const case_desc* cs, const fig_study* d, fig_run* out, char names[][32]) {
    if (d->runs) {
        for (int i = 0; i < d->nruns && i < FIG_MAX_RUNS; ++i) {
            out[i] = d->runs[i];
        }
        return d->nruns <= FIG_MAX_RUNS ? d->nruns : -1;
    }
    variant_def v[FIG_MAX_RUNS];
    char msg[256];
    const int n = variant_select(d->variants, NULL, v, FIG_MAX_RUNS, msg, sizeof msg);
    if (n < 0) {
        fprintf(stderr, "ccb: %s: %s\n", cs->name, msg);
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        snprintf(names[i], 32, "%.31s", v[i].name);
        memset(&out[i], 0, sizeof out[i]);
        out[i].variant = names[i];
    }
    return n;
}

/* Splits "a [x],b,c" into at most max column names. */
static int split_columns(const char* cols, char out[][64], int max) {
    int n = 0;
    const char* p = cols;
    while (p && *p && n < max) {
        const char* e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(out[n++], 64, "%.*s", (int)len, p);
        p = e ? e + 1 : NULL;
    }
    return n;
}

static int fig_study_run(study_ctx* ctx, const case_study* st) {
    const fig_study* d = st->decl;
    const case_desc* cs = ctx->cs;
    fig_run runs[FIG_MAX_RUNS];
    char names[FIG_MAX_RUNS][32];
    const int n = fig_runs(cs, d, runs, names);
    if (n <= 0) {
        return 2;
    }
    const double dt0 = d->dt > 0 ? d->dt : cs->dt_default;
    const double T = d->t_final > 0 ? d->t_final : cs->t_final_default;
    study_batch b;
    if (study_batch_alloc(&b, n) != 0) {
        return 2;
    }
    /* 1. configurations */
    for (int i = 0; i < n; ++i) {
        const fig_run* r = &runs[i];
        variant_def v;
        if (variant_find(r->variant, &v) != 0) {
            fprintf(stderr, "ccb: %s/%s: unknown variant '%s'\n", cs->name, st->name, r->variant);
            study_batch_free(&b);
            return 2;
        }
        const double dt = r->dt > 0 ? r->dt : dt0;
        char label[96];
        if (r->label) {
            snprintf(label, sizeof label, "%s", r->label);
        } else {
            run_label(label, sizeof label, r->variant, dt);
        }
        run_config* c = &b.cfg[i];
        study_config(ctx, c, st->name, label,
                     v.approx ? v.approx : ccb_approx_find(cs->approx_default), dt, T);
        variant_configure(&v, c, NAN);
        char msg[300];
        if (r->set) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", r->set);
            for (char *save = NULL, *w = strtok_r(buf, " ", &save); w;
                 w = strtok_r(NULL, " ", &save)) {
                if (case_set_param(cs, c->params, w, msg, sizeof msg) != 0) {
                    fprintf(stderr, "ccb: %s/%s: %s\n", cs->name, st->name, msg);
                    study_batch_free(&b);
                    return 2;
                }
            }
        }
        c->newton.compute_kappa = d->kappa;
        const long steps = lround(T / dt);
        c->record_every = d->rows > 0 && steps >= d->rows ? (int)(steps / d->rows) : 1;
        c->expect_failure = r->expect_failure;
    }
    /* 2. execution */
    int rc = study_execute(ctx, st->name, b.cfg, b.rec, n);
    char dir[PATH_MAX];
    if (rc == 0 && study_dir(ctx, st->name, dir, sizeof dir) != 0) {
        rc = 2;
    }
    /* 3. the table */
    char cols[FIG_MAX_COLS][64];
    const int nc = d->columns ? split_columns(d->columns, cols, FIG_MAX_COLS) : 0;
    strbuf tab = {0}, md = {0};
    for (int i = 0; rc == 0 && i < n; ++i) {
        const run_record* r = &b.rec[i];
        double vals[FIG_MAX_COLS];
        for (int c = 0; c < FIG_MAX_COLS; ++c) {
            vals[c] = NAN;
        }
        if (d->row) {
            d->row(ctx, r, vals);
        }
        const char* status = r->status == CCB_OK ? "ok" : "failed";
        strbuf_printf(&tab, "%s,%s,%g,%s,%ld", runs[i].variant, r->cfg.label, r->cfg.dt, status,
                      r->nsteps);
        strbuf_printf(&md, "| %s | %s |", r->cfg.label, status);
        for (int c = 0; c < nc; ++c) {
            strbuf_printf(&tab, ",%.10g", vals[c]);
            strbuf_printf(&md, " %.4g |", vals[c]);
        }
        strbuf_printf(&tab, ",%.4f,%d,%.6g\n", run_mean_iterations(r), r->max_iters,
                      r->wall_time);
        strbuf_printf(&md, " %.2f | %.3g |\n", run_mean_iterations(r), r->wall_time);
    }
    if (rc == 0) {
        strbuf header = {0};
        strbuf_printf(&header, "variant,label,dt [s],status,steps");
        for (int c = 0; c < nc; ++c) {
            strbuf_printf(&header, ",%s", cols[c]);
        }
        strbuf_printf(&header, ",mean_newton_iterations,max_newton_iterations,wall_time [s]");
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/table.csv", dir);
        rc = study_write_table(path, header.s, tab.s ? tab.s : "");
        free(header.s);
    }
    /* 4. the report section (finish may add lines) */
    if (rc == 0) {
        study_report(ctx, "### %s — %s (%s)\n\n", st->name, st->title, st->figure);
        if (d->script) {
            study_report(ctx, "![%s](%s/%s.png)\n\n", st->name, cs->name, st->name);
        }
        study_report(ctx, "Paper: %s\n\n| run | status |", d->claim);
        for (int c = 0; c < nc; ++c) {
            study_report(ctx, " %s |", cols[c]);
        }
        study_report(ctx, " mean Newton it. | wall [s] |\n|---|---|");
        for (int c = 0; c < nc + 2; ++c) {
            study_report(ctx, "---|");
        }
        study_report(ctx, "\n%s\nData: `%s/%s/table.csv`; every run under `%s/%s/`.\n\n",
                     md.s ? md.s : "", cs->name, st->name, cs->name, st->name);
    }
    /* 5. what the runs say together (its tables may feed the figure) */
    if (rc == 0 && d->finish) {
        rc = d->finish(ctx, &b, dir);
    }
    /* 6. the figure */
    if (rc == 0 && d->script) {
        strbuf vars = {0};
        strbuf_printf(&vars, "datadir='%s'; out='%s/%s/%s'; runs='", dir, ctx->out_root,
                      cs->name, st->name);
        for (int i = 0; i < n; ++i) {
            strbuf_printf(&vars, "%s%s", i ? " " : "", b.rec[i].cfg.label);
        }
        strbuf_printf(&vars, "'; titles='");
        for (int i = 0; i < n; ++i) {
            strbuf_printf(&vars, "%s%s", i ? " " : "", runs[i].variant);
        }
        char more[512] = "";
        if (d->plot_params) {
            d->plot_params(ctx->params, more, sizeof more);
        }
        strbuf_printf(&vars, "'; %s%s", more, d->plot ? d->plot : "");
        study_plot(ctx, d->script, vars.s);
        free(vars.s);
    }
    free(tab.s);
    free(md.s);
    study_batch_free(&b);
    return rc;
}

int case_study_run(study_ctx* ctx, const case_study* st) {
    return st->run ? st->run(ctx) : fig_study_run(ctx, st);
}
