/* figure: the engine of the declared paper-figure studies (fig_study, case.h). A declaration
 * names its runs (variants of the registry at the study's step, a list with labels and
 * parameter overrides, or a function of the tier), its convergence sweeps, the values each run
 * gives to the study's table, what the runs say together, and its gnuplot scripts; the engine
 * does the rest:
 *   1. the run configurations (the case's parameters with the study's overrides; the variant's
 *      solver; kappa if asked; trajectories decimated to `rows` rows);
 *   2. their execution (study_execute: parallel, costliest first, through the run cache);
 *   3. CASE/STUDY/table.csv, one row per run: variant, label, dt, status, steps, the parameters
 *      that differ from the study's, the declared columns, then the work and conditioning of the
 *      run (RUN_WORK_HEADER: Newton iterations, line search, factorizations, f evaluations,
 *      kappa, failure, wall time);
 *   4. the sweeps (errors_<tag>.csv, e_q, order and tail-ratio metrics);
 *   5. the report section: the paper's claim, the figures, the run table, the sweeps' errors;
 *   6. the declaration's finish (cross-run metrics, further tables, report lines);
 *   7. the figures (analysis/gnuplot/<script>, with datadir, out, runs, titles set). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "study.h"

#define FIG_MAX_COLS 24
#define FIG_MAX_RUNS 64

/* The declared runs as a list (variants at the study's step when no list is given). */
static int fig_runs(study_ctx* ctx, const fig_study* d, fig_run* out, char names[][32]) {
    if (d->runs) {
        if (d->nruns > FIG_MAX_RUNS) {
            study_fail(ctx->out, CCB_E_INTERNAL, "%s: %d runs listed (at most %d)", ctx->cs->name,
                       d->nruns, FIG_MAX_RUNS);
            return -1;
        }
        int n = 0;
        for (int i = 0; i < d->nruns; ++i) { /* a peer study: the engines that are here */
            const peer_variant* pv = peer_variant_named(d->runs[i].variant);
            if (pv == NULL || pv->engine->absent() == NULL) {
                out[n++] = d->runs[i];
            }
        }
        return n;
    }
    variant_def v[FIG_MAX_RUNS];
    char msg[256];
    const int n = variant_select(d->variants, NULL, v, FIG_MAX_RUNS, msg, sizeof msg);
    if (n < 0) {
        study_fail(ctx->out, CCB_E_INVALID, "%s: %s", ctx->cs->name, msg);
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

int fig_variant_index(const fig_sweep_result* sw, const char* variant) {
    for (int i = 0; i < sw->nvariants; ++i) {
        if (strcmp(sw->variant[i], variant) == 0) {
            return i;
        }
    }
    return -1;
}

/* Applies "name=value ..." to P; 0, or CCB_E_INVALID through ctx's handle. */
static int apply_set(study_ctx* ctx, const char* study, double* P, const char* set) {
    char buf[512], msg[300];
    snprintf(buf, sizeof buf, "%s", set);
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (case_set_param(ctx->cs, P, w, msg, sizeof msg) != 0) {
            return study_fail(ctx->out, CCB_E_INVALID, "%s/%s: %s", ctx->cs->name, study, msg);
        }
    }
    return 0;
}

/* 1. The configurations of the listed runs (variants at the study's step, or d->runs). */
static int fig_configure(study_ctx* ctx, const case_study* st, study_batch* b, char names[][32]) {
    const fig_study* d = st->decl;
    const case_desc* cs = ctx->cs;
    fig_run runs[FIG_MAX_RUNS];
    const int n = fig_runs(ctx, d, runs, names);
    if (n < 0) {
        return 2;
    }
    const double dt0 = d->dt > 0 ? d->dt : cs->dt_default;
    const double T = d->t_final > 0 ? d->t_final : cs->t_final_default;
    if (study_batch_alloc(ctx, b, n) != 0) {
        return 2;
    }
    for (int i = 0; i < n; ++i) {
        const fig_run* r = &runs[i];
        variant_def v;
        if (variant_find(r->variant, &v) != 0) {
            return study_fail(ctx->out, CCB_E_INVALID, "%s/%s: unknown variant '%s'", cs->name,
                              st->name, r->variant);
        }
        if (r->variant != names[i]) {
            snprintf(names[i], 32, "%.31s", r->variant);
        }
        const double dt = r->dt > 0 ? r->dt : dt0;
        char label[96];
        if (r->label) {
            snprintf(label, sizeof label, "%s", r->label);
        } else {
            run_label(label, sizeof label, r->variant, dt);
        }
        run_config* c = &b->cfg[i];
        study_config(ctx, c, st->name, label,
                     v.approx ? v.approx : ccb_approx_find(cs->approx_default), dt, T);
        variant_configure(&v, c, NAN);
        if (r->set && apply_set(ctx, st->name, c->params, r->set) != 0) {
            return 2;
        }
        c->sim.newton.compute_kappa = d->kappa;
        const long steps = lround(T / dt);
        if (d->rows > 0) { /* the declaration's own resolution (else study_config's cap) */
            c->record_every = study_file_every(ctx, (double)steps, d->rows);
        }
        c->expect_failure = r->expect_failure;
    }
    return 0;
}

/* 3. CASE/STUDY/table.csv, and the run table of the report (when the study declares columns). */
static int fig_run_table(study_ctx* ctx, const case_study* st, const study_batch* b,
                         char names[][32], const char* dir) {
    const fig_study* d = st->decl;
    char cols[FIG_MAX_COLS][64];
    const int nc = d->columns ? split_columns(d->columns, cols, FIG_MAX_COLS) : 0;
    strbuf tab = {0}, md = {0};
    for (int i = 0; i < b->n; ++i) {
        const run_record* r = &b->rec[i];
        double vals[FIG_MAX_COLS];
        for (int c = 0; c < FIG_MAX_COLS; ++c) {
            vals[c] = NAN;
        }
        if (d->row) {
            d->row(ctx, ctx->out, r, vals);
        }
        char vname[32];
        if (names[i][0]) {
            snprintf(vname, sizeof vname, "%.31s", names[i]);
        } else {
            variant_name(&r->cfg, vname, sizeof vname);
        }
        const char* status = r->status == CCB_OK ? "ok" : "failed";
        strbuf_printf(&tab, "%s,%s,%g,%s,%ld,", vname, r->cfg.label, r->cfg.sim.dt, status,
                      r->nsteps);
        run_overrides(&tab, ctx, r);
        strbuf_printf(&md, "| %s | %s |", r->cfg.label, status);
        for (int c = 0; c < nc; ++c) {
            strbuf_printf(&tab, ",%.10g", vals[c]);
            strbuf_printf(&md, " %.4g |", vals[c]);
        }
        strbuf_printf(&tab, ",");
        run_work_columns(&tab, r);
        strbuf_printf(&tab, "\n");
        strbuf_printf(&md, " %.2f | %.3g |\n", run_mean_iterations(r), r->wall_time);
    }
    strbuf header = {0};
    strbuf_printf(&header, "variant,label,dt [s],status,steps,parameters");
    for (int c = 0; c < nc; ++c) {
        strbuf_printf(&header, ",%s", cols[c]);
    }
    strbuf_printf(&header, ",%s", RUN_WORK_HEADER);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/table.csv", dir);
    const int rc = study_write_table(ctx->out, path, header.s, tab.s ? tab.s : "");
    free(header.s);
    if (rc == 0 && d->columns) {
        study_report(ctx->out, "| run | status |");
        for (int c = 0; c < nc; ++c) {
            study_report(ctx->out, " %s |", cols[c]);
        }
        study_report(ctx->out, " mean Newton it. | wall [s] |\n|---|---|");
        for (int c = 0; c < nc + 2; ++c) {
            study_report(ctx->out, "---|");
        }
        study_report(ctx->out, "\n%s\n", md.s ? md.s : "");
    }
    free(tab.s);
    free(md.s);
    return rc;
}

/* 4. A convergence sweep (fig_sweep, case.h). */
static int fig_sweep_run(study_ctx* ctx, const case_study* st, const fig_sweep* sw,
                         char names[][32], int nv, double T, const char* dir,
                         fig_sweep_result* res) {
    const fig_study* d = st->decl;
    const char* prefix = d->metric ? d->metric : st->name;
    const int ndt = sw->ndt, nrun = nv * ndt + 1;
    if (nv < 1 || nv > FIG_MAX_VARIANTS || ndt < 2 || ndt > SWEEP_MAX_DT) {
        return study_fail(ctx->out, CCB_E_INTERNAL,
                          "sweep %s: invalid size (%d variants, %d steps)", sw->tag, nv, ndt);
    }
    memset(res, 0, sizeof *res);
    res->decl = sw;
    res->nvariants = nv;
    for (int i = 0; i < nv; ++i) {
        snprintf(res->variant[i], sizeof res->variant[i], "%.31s", names[i]);
    }
    memcpy(res->P, ctx->params, sizeof res->P);
    if (sw->set && apply_set(ctx, st->name, res->P, sw->set) != 0) {
        return 2;
    }
    study_batch b;
    if (study_batch_alloc(ctx, &b, nrun) != 0) {
        return 2;
    }
    res->dt_ref = sw->dts[ndt - 1] / 10.0; /* 10x smaller than the smallest step (cases §1.4) */
    char label[96], name[64];
    snprintf(name, sizeof name, "%.40s-reference-lagged", sw->tag);
    run_label(label, sizeof label, name, res->dt_ref);
    study_config(ctx, &b.cfg[0], st->name, label, &ccb_approx_lagged, res->dt_ref, T);
    b.cfg[0].record_every = 10;
    for (int i = 0; i < nv; ++i) {
        variant_def v;
        if (variant_find(names[i], &v) != 0) {
            study_batch_free(&b);
            return study_fail(ctx->out, CCB_E_INVALID, "sweep %s: unknown variant '%s'", sw->tag,
                              names[i]);
        }
        for (int j = 0; j < ndt; ++j) {
            run_config* c = &b.cfg[1 + i * ndt + j];
            snprintf(name, sizeof name, "%.30s-%.31s", sw->tag, names[i]);
            run_label(label, sizeof label, name, sw->dts[j]);
            study_config(ctx, c, st->name, label, v.approx ? v.approx : &ccb_approx_lagged,
                         sw->dts[j], T);
            variant_configure(&v, c, NAN);
        }
    }
    for (int r = 0; r < nrun; ++r) {
        memcpy(b.cfg[r].params, res->P, sizeof b.cfg[r].params);
    }
    int rc = study_execute(ctx, st->name, b.cfg, b.rec, nrun);
    strbuf tab = {0};
    const run_record* ref = &b.rec[0];
    if (rc == 0 && d->inspect) {
        d->inspect(ctx, ctx->out, res, -1, -1, ref);
    }
    for (int i = 0; i < nv && rc == 0; ++i) {
        for (int j = 0; j < ndt; ++j) {
            const run_record* r = &b.rec[1 + i * ndt + j];
            if (r->nq > CASE_MAX_Q) {
                rc = study_fail(ctx->out, CCB_E_INTERNAL, "sweep %s: %d coordinates (at most %d)",
                                sw->tag, r->nq, CASE_MAX_Q);
                break;
            }
            double ec[CASE_MAX_Q], e = NAN;
            for (int c = 0; c < CASE_MAX_Q; ++c) {
                ec[c] = NAN;
            }
            char msg[256];
            if (r->status != CCB_OK || ref->status != CCB_OK ||
                ccb_an_rms_error(r->nsteps, sw->dts[j], r->q, ref->nsteps, res->dt_ref, ref->q,
                                 r->nq, &e, ec, msg, sizeof msg) != 0) {
                if (r->status == CCB_OK && ref->status == CCB_OK) {
                    study_log("sweep %s: %s", sw->tag, msg);
                }
                e = NAN;
            }
            res->e[i][j] = e;
            strbuf_printf(&tab, "%s,%g,%.10g", names[i], sw->dts[j], e);
            for (int c = 0; c < r->nq; ++c) {
                strbuf_printf(&tab, ",%.10g", ec[c]);
            }
            strbuf_printf(&tab, ",%s,", r->status == CCB_OK ? "ok" : "failed");
            run_work_columns(&tab, r);
            strbuf_printf(&tab, "\n");
            study_set_metricf(ctx->out, e, "%s.%s.%s.e_q.dt%g", prefix, sw->tag, names[i],
                              sw->dts[j]);
            if (d->inspect) {
                d->inspect(ctx, ctx->out, res, i, j, r);
            }
        }
        res->order[i] = NAN;
        ccb_an_order(ndt, sw->dts, res->e[i], &res->order[i], NULL, NULL);
        study_set_metricf(ctx->out, res->order[i], "%s.%s.%s.order", prefix, sw->tag, names[i]);
        study_set_metricf(ctx->out, res->e[i][ndt - 1] / res->e[i][ndt - 2], "%s.%s.%s.tail_ratio",
                          prefix, sw->tag, names[i]);
    }
    if (rc == 0) {
        strbuf header = {0};
        strbuf_printf(&header, "approx,dt [s],e_q");
        for (int c = 0; c < b.rec[1].nq; ++c) {
            strbuf_printf(&header, ",e_%s", b.rec[1].qname[c]);
        }
        strbuf_printf(&header, ",status,%s", RUN_WORK_HEADER);
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/errors_%s.csv", dir, sw->tag);
        rc = study_write_table(ctx->out, path, header.s, tab.s);
        free(header.s);
    }
    free(tab.s);
    study_batch_free(&b);
    /* the report: e_q per variant and dt, the fitted order, the tail ratio */
    if (rc == 0) {
        study_report(ctx->out,
                     "Sweep `%s`%s%s (reference: Lagged at dt = %g s; `%s/%s/errors_%s.csv`):"
                     "\n\n| variant |",
                     sw->tag, sw->set ? ", " : "", sw->set ? sw->set : "", res->dt_ref,
                     ctx->cs->name, st->name, sw->tag);
        for (int j = 0; j < ndt; ++j) {
            study_report(ctx->out, " e_q(%g) |", sw->dts[j]);
        }
        study_report(ctx->out, " order | e(%g)/e(%g) |\n|---|", sw->dts[ndt - 1], sw->dts[ndt - 2]);
        for (int j = 0; j < ndt + 2; ++j) {
            study_report(ctx->out, "---|");
        }
        study_report(ctx->out, "\n");
        for (int i = 0; i < nv; ++i) {
            study_report(ctx->out, "| %s |", names[i]);
            for (int j = 0; j < ndt; ++j) {
                study_report(ctx->out, " %.3e |", res->e[i][j]);
            }
            study_report(ctx->out, " %.3f | %.3f |\n", res->order[i],
                         res->e[i][ndt - 1] / res->e[i][ndt - 2]);
        }
        study_report(ctx->out, "\n");
    }
    return rc;
}

/* 7. A figure: analysis/gnuplot/<script> drawn to CASE/<out>.png. */
/* A figure of the declaration; its gnuplot assignments are a template of the results (a
 * placeholder names a value of the finish, e.g. "zlo={zlo|%.6f}"). 0, or CCB_E_INVALID through
 * ctx's handle if the template names nothing set. */
static int fig_draw(study_ctx* ctx, const fig_study* d, const char* dir, const char* script,
                    const char* out, const char* runs_titles, const char* vars) {
    strbuf v = {0};
    strbuf_printf(&v, "%s", runs_titles ? runs_titles : "");
    char more[512] = "";
    if (d->plot_params) {
        d->plot_params(ctx->params, more, sizeof more);
    }
    strbuf_printf(&v, "%s", more);
    char err[600];
    if (vars && study_results_render(ctx->out, vars, &v, err, sizeof err) != 0) {
        free(v.s);
        return study_fail(ctx->out, CCB_E_INVALID, "%s/%s: figure %s: %s", ctx->cs->name, out,
                          script, err);
    }
    study_plot(ctx->out, script, dir, out, v.s);
    free(v.s);
    return 0;
}

const fig_run fig_peer_runs[FIG_PEER_NRUNS] = FIG_PEER_RUN_LIST(NULL);

int fig_peer_main(const run_record* r) {
    char v[32];
    variant_name(&r->cfg, v, sizeof v);
    return strcmp(v, r->cfg.label) == 0;
}

double fig_peer_convergence(study_out* out, const study_batch* b, const char* name,
                            const double* dts, int n, double dt_ref) {
    double e[SWEEP_MAX_DT];
    n = n < SWEEP_MAX_DT ? n : SWEEP_MAX_DT;
    const double order = fig_peer_order(b, name, dts, n, dt_ref, e);
    study_row(out, "convergence");
    study_str(out, "convergence", name);
    study_nums(out, "convergence", e, (size_t)n);
    study_num(out, "convergence", order);
    study_set_metricf(out, order, "peers.%s.order", name);
    return fabs(order - 1.0);
}

void fig_peer_texts(study_out* out, const study_batch* b) {
    strbuf runs = {0};
    int mains = 0; /* runs labelled by their variant: the figure's, if there are any */
    for (int i = 0; i < b->n; ++i) {
        mains += fig_peer_main(&b->rec[i]);
    }
    for (int i = 0; i < b->n; ++i) {
        const run_record* r = &b->rec[i];
        const char* l = r->cfg.label; /* "mujoco-k", or "mujoco-k_<what>" (the grasp's) */
        if (r->status == CCB_OK && (!mains || fig_peer_main(r)) &&
            !(strncmp(l, "mujoco-k", 8) == 0 && (!l[8] || l[8] == '_'))) {
            strbuf_printf(&runs, "%s%s", runs.s ? " " : "", r->cfg.label);
        }
    }
    study_text(out, "peer_runs", runs.s ? runs.s : "");
    study_text(out, "peer_titles", runs.s ? runs.s : "");
    free(runs.s);
    static const char* const k_engines[3] = {"mujoco", "ode", "bullet"};
    for (int e = 0; e < 3; ++e) {
        for (int i = 0; i < b->n; ++i) {
            if (strncmp(b->rec[i].cfg.label, k_engines[e], strlen(k_engines[e])) == 0) {
                study_valuef(out, 1, "ran_%s", k_engines[e]);
                break;
            }
        }
    }
}

int fig_claim_holds(const peer_claim* c, double value) {
    if (isnan(value)) {
        return 0;
    }
    return strcmp(c->op, "<=") == 0   ? value <= c->bound
           : strcmp(c->op, "<") == 0  ? value < c->bound
           : strcmp(c->op, ">=") == 0 ? value >= c->bound
                                      : value > c->bound;
}

void fig_claim(study_out* out, const char* cs, const char* run, const peer_claim* c, double value) {
    char st[256]; /* the statement is one CSV field and one markdown cell */
    snprintf(st, sizeof st, "%s", c->statement);
    for (char* p = st; *p; ++p) {
        *p = *p == ',' ? ';' : *p == '|' ? '/' : *p;
    }
    study_row(out, "claims");
    study_str(out, "claims", cs);
    study_str(out, "claims", run);
    study_str(out, "claims", c->id);
    study_str(out, "claims", st);
    study_num(out, "claims", value);
    study_str(out, "claims", c->op);
    study_num(out, "claims", c->bound);
    study_str(out, "claims", fig_claim_holds(c, value) ? "PASS" : "FAIL");
    study_set_metricf(out, value, "claims.%s.%s", run, c->id);
}

int fig_peer_run(study_out* out, const char* cs, const run_record* r, const peer_claim* claims,
                 const double* values, int n, char* name, size_t name_size) {
    variant_name(&r->cfg, name, name_size);
    const int ok = r->status == CCB_OK;
    for (int c = 0; c < n; ++c) {
        fig_claim(out, cs, name, &claims[c], ok ? values[c] : NAN);
    }
    study_row(out, "runs");
    study_str(out, "runs", name);
    study_str(out, "runs", ok ? "ok" : "failed");
    return ok;
}

const run_record* fig_peer_run_at(const study_batch* b, const char* name, double dt) {
    for (int i = 0; i < b->n; ++i) {
        char v[32];
        variant_name(&b->rec[i].cfg, v, sizeof v);
        if (strcmp(v, name) == 0 && fabs(b->rec[i].cfg.sim.dt - dt) <= 1e-12 * dt) {
            return &b->rec[i];
        }
    }
    return NULL;
}

double fig_peer_order(const study_batch* b, const char* name, const double* dts, int n,
                      double dt_ref, double* e) {
    const run_record* ref = fig_peer_run_at(b, name, dt_ref);
    for (int j = 0; j < n; ++j) {
        const run_record* r = fig_peer_run_at(b, name, dts[j]);
        char msg[256];
        e[j] = NAN;
        if (r && ref && r->status == CCB_OK && ref->status == CCB_OK &&
            ccb_an_rms_error(r->nsteps, dts[j], r->q, ref->nsteps, dt_ref, ref->q, r->nq, &e[j],
                             NULL, msg, sizeof msg) != 0) {
            e[j] = NAN;
        }
    }
    double order = NAN;
    if (ccb_an_order(n, dts, e, &order, NULL, NULL) != 0) {
        order = NAN;
    }
    return order;
}

/* NULL if an engine of the peers is here, else why none is (the first engine's reason). */
static const char* no_peer(void) {
    const char* why = NULL;
    for (int id = 1; id < PEER_COUNT; ++id) {
        const char* w = peer_variant_of(id)->engine->absent();
        if (w == NULL) {
            return NULL;
        }
        why = why ? why : w;
    }
    return why;
}

static int fig_study_run(study_ctx* ctx, const case_study* st) {
    const fig_study* d = st->decl;
    const case_desc* cs = ctx->cs;
    if (d->peer && no_peer()) {
        study_report(ctx->out,
                     "### %s — %s (%s)\n\nNot run: %s (`make reproduce` installs Debian's "
                     "libmujoco-dev, libode-dev and libbullet-dev; docs/speed.md §3).\n\n",
                     st->name, st->title, st->figure, no_peer());
        study_log("%s/%s: skipped (%s)", cs->name, st->name, no_peer());
        return 0;
    }
    const int begun = study_results_begin(ctx->out, d->tables, d->report);
    char(*names)[32] = calloc(FIG_MAX_RUNS, sizeof *names);
    fig_sweep_result* sw = d->nsweeps ? calloc((size_t)d->nsweeps, sizeof *sw) : NULL;
    study_batch b = {0};
    char dir[PATH_MAX];
    int rc = names == NULL || begun != 0 || (d->nsweeps && sw == NULL)
                 ? study_fail(ctx->out, CCB_E_NOMEM, "%s/%s: out of memory", cs->name, st->name)
                 : 0;
    if (rc == 0 && study_dir(ctx->out, st->name, dir, sizeof dir) != 0) {
        rc = 2;
    }
    /* 1. configurations: computed, listed, or none (a study of sweeps or of closed forms) */
    if (rc == 0 && d->make_runs) {
        rc = d->make_runs(ctx, &b);
        if (b.n > FIG_MAX_RUNS) {
            char(*more)[32] = calloc((size_t)b.n, sizeof *more);
            free(names);
            names = more;
            rc = names ? rc
                       : study_fail(ctx->out, CCB_E_NOMEM, "%s/%s: out of memory", cs->name,
                                    st->name);
        }
    } else if (rc == 0 && (d->runs || (d->variants && d->nsweeps == 0))) {
        rc = fig_configure(ctx, st, &b, names);
    }
    /* 2. execution, 3. the table (the report's header first) */
    if (rc == 0 && b.n > 0) {
        const int jobs = ctx->jobs;
        ctx->jobs = d->serial ? 1 : jobs;
        rc = study_execute(ctx, st->name, b.cfg, b.rec, b.n);
        ctx->jobs = jobs;
    }
    if (rc == 0) {
        study_report(ctx->out, "### %s — %s (%s)\n\n", st->name, st->title, st->figure);
        if (d->script) {
            study_report(ctx->out, "![%s](%s/%s.png)\n", st->name, cs->name, st->name);
        }
        for (const fig_plot* p = d->plots; p && p->script; ++p) {
            study_report(ctx->out, "![%s](%s/%s.png)\n", p->out, cs->name, p->out);
        }
        /* a study of the suite's own ("ccb comparison") states its purpose, not a paper's claim */
        study_report(ctx->out, "%s%s: %s\n\n", d->script || d->plots ? "\n" : "",
                     strncmp(st->figure, "ccb", 3) == 0 ? "Purpose" : "Paper", d->claim);
    }
    if (rc == 0 && b.n > 0) {
        rc = fig_run_table(ctx, st, &b, names, dir);
    }
    /* 4. the sweeps, of the declared variants */
    if (rc == 0 && d->nsweeps) {
        variant_def v[FIG_MAX_VARIANTS];
        char msg[256];
        const int nv = variant_select(d->variants, NULL, v, FIG_MAX_VARIANTS, msg, sizeof msg);
        char vn[FIG_MAX_VARIANTS][32];
        for (int i = 0; i < nv; ++i) {
            snprintf(vn[i], sizeof vn[i], "%.31s", v[i].name);
        }
        const double T = d->t_final > 0 ? d->t_final : cs->t_final_default;
        if (nv < 0) {
            rc = study_fail(ctx->out, CCB_E_INVALID, "%s/%s: %s", cs->name, st->name, msg);
        }
        for (int s = 0; s < d->nsweeps && rc == 0; ++s) {
            rc = fig_sweep_run(ctx, st, &d->sweeps[s], vn, nv, T, dir, &sw[s]);
        }
    }
    if (rc == 0 && b.n > 0) {
        study_report(ctx->out, "Data: `%s/%s/table.csv`; every run under `%s/%s/`.\n\n", cs->name,
                     st->name, cs->name, st->name);
    }
    /* --emit-manifest: every run of the study is handed out by now (a declaration's runs are its
     * batch and its sweeps; its finish makes none), so the analysis of the dry records, which may
     * solve references (the box's exact solution, the coin's ODEs), is not made: it is made where
     * the results are read (--from) */
    const int analyse = ctx->emit == NULL;
    /* 5. what the runs say together, as values; the engine writes its tables (they may feed
     * the figures) and renders its report template */
    if (rc == 0 && analyse && d->finish) {
        const fig_data data = {&b, sw, d->nsweeps};
        rc = d->finish(ctx, ctx->out, &data, dir);
    }
    if (rc == 0 && analyse) {
        char what[160];
        snprintf(what, sizeof what, "%s/%s", cs->name, st->name);
        rc = study_results_finish(ctx->out, what, dir);
    }
    /* 6. the figures */
    if (rc == 0 && analyse && d->script) {
        strbuf rt = {0};
        strbuf_printf(&rt, "runs='");
        for (int i = 0; i < b.n; ++i) {
            strbuf_printf(&rt, "%s%s", i ? " " : "", b.rec[i].cfg.label);
        }
        strbuf_printf(&rt, "'; titles='");
        for (int i = 0; i < b.n; ++i) {
            strbuf_printf(&rt, "%s%s", i ? " " : "", names[i]);
        }
        strbuf_printf(&rt, "'; ");
        rc = fig_draw(ctx, d, dir, d->script, st->name, rt.s, d->plot);
        free(rt.s);
    }
    for (const fig_plot* p = d->plots; rc == 0 && analyse && p && p->script; ++p) {
        rc = fig_draw(ctx, d, dir, p->script, p->out, NULL, p->vars);
    }
    free(names);
    free(sw);
    study_batch_free(&b);
    study_results_end(ctx->out);
    return rc;
}

int case_study_run(study_ctx* ctx, const case_study* st) {
    const int record = ctx->emit == NULL; /* a dry pass writes nothing of its own */
    if (record) {
        inventory_begin(ctx->out_root, ctx->cs->name, st->name);
    }
    int rc = st->run ? st->run(ctx, ctx->out) : fig_study_run(ctx, st);
    char msg[PATH_MAX + 200];
    if (record && inventory_commit(rc == 0, msg, sizeof msg) != 0) {
        rc = study_fail(ctx->out, CCB_E_IO, "%s", msg);
    }
    return rc;
}
