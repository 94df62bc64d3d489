/* The stick-slip box's solver studies (cases/box.c; TAMSI paper §VI, cases.md §7): fig4 (the
 * Newton residual in the first slide-to-stick step with and without TALS, TAMSI Fig. 4), fig5 (work
 * against precision of implicit Euler, Fig. 5), tamsi-convex (TAMSI and the convex approximations
 * against the step) and variants (every solver at h = 10 ms and 1 ms). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box.h"

/* ---- study fig4 (TAMSI Fig. 4, BOX-2) ---------------------------------------------------------
 * */

/* First slide -> stick step of a run: |v| >= 10 v_s at step k-1 and < v_s at step k. */
static long first_restick(const run_record* r, double vs) {
    for (long k = 1; k <= r->nsteps; ++k) {
        if (fabs(r->v[(size_t)(k - 1) * r->nv]) >= 10 * vs && fabs(r->v[(size_t)k * r->nv]) < vs) {
            return k;
        }
    }
    return -1;
}

#define TRACE_MAX 30
typedef struct trace {
    double r[2][TRACE_MAX + 1]; /* [plain, TALS] residual histories */
    int n[2], conv[2];
    double t0, x0[2];
    long step;
} trace;

/* Newton traces of the first re-stick step of run r (IE at h = r->cfg.dt) for parameters P. */
static int trace_step(const double* P, const run_record* r, trace* tr, char* msg, size_t n) {
    memset(tr, 0, sizeof *tr);
    tr->step = first_restick(r, P[P_VS]);
    if (tr->step < 1) {
        snprintf(msg, n, "no slide -> stick step found");
        return -1;
    }
    const long k = tr->step - 1;
    tr->t0 = (double)k * r->cfg.sim.dt;
    tr->x0[0] = r->q[(size_t)k * r->nq];
    tr->x0[1] = r->v[(size_t)k * r->nv];
    ccb_model* model = NULL;
    void* data = NULL;
    if (box_build(P, &model, &data, msg, n) != 0) {
        return -1;
    }
    ccb_contact_ode_params cp = ccb_contact_ode_params_default();
    cp.friction = (ccb_friction_model)lround(P[P_FRICTION]);
    ccb_contact_ode* co = NULL;
    int rc = ccb_contact_ode_create(model, &cp, P[P_VS], &co, msg, n) == CCB_OK ? 0 : -1;
    for (int t = 0; t < 2 && rc == 0; ++t) {
        if (ccb_ode_ie_newton_trace(ccb_contact_ode_system(co), tr->t0, tr->x0, r->cfg.sim.dt, t, 0,
                                    TRACE_MAX, 1e-10, tr->r[t], &tr->n[t], NULL, &tr->conv[t], msg,
                                    n) != CCB_OK) {
            rc = -1;
        }
    }
    ccb_contact_ode_destroy(co);
    ccb_model_destroy(model);
    box_destroy(data);
    return rc;
}

/* fig4: IE {FN, QN} x {TALS off, on} at h = 10 ms, and FN+TALS with the cosine forcing */
static int fig4_runs(study_ctx* ctx, study_batch* b) {
    const double h = 0.01, T = ctx->cs->t_final_default;
    if (study_batch_alloc(ctx, b, 5) != 0) {
        return 2;
    }
    run_config* cfg = b->cfg;
    for (int i = 0; i < 4; ++i) {
        box_ie_config(ctx, &cfg[i], "fig4", i / 2, i % 2, 0, h, h, T);
    }
    box_ie_config(ctx, &cfg[4], "fig4", 0, 1, 0, h, h, T);
    cfg[4].params[P_PHASE] = CCB_PI / 2;
    snprintf(cfg[4].label, sizeof cfg[4].label, "ie-fn-tals_h0.01_cosine");
    snprintf(cfg[4].out_dir, sizeof cfg[4].out_dir, "%s/%s/fig4/%s", ctx->out_root, ctx->cs->name,
             cfg[4].label);
    return 0;
}

/* fig4, together: the Newton traces of the first slide -> stick step (BOX-2), TALS's effect on
 * the whole runs */
static int fig4_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)ctx;
    (void)dir;
    const run_record* rec = fd->b->rec;
    int rc = 0;
    trace tr[2];
    char msg[256];
    for (int f = 0; f < 2 && rc == 0; ++f) {
        const run_record* r = &rec[f == 0 ? 1 : 4];
        if (r->status != CCB_OK || trace_step(r->cfg.params, r, &tr[f], msg, sizeof msg) != 0) {
            rc = study_fail(out, r->status != CCB_OK ? STUDY_E_SOLVE : CCB_E_INVALID,
                            "box fig4: %s", r->status != CCB_OK ? r->msg : msg);
        }
    }
    if (rc != 0) {
        return rc;
    }
    /* BOX-2 on the sine forcing: plain Newton within 20 iterations? TALS within 8? */
    int plain20 = 0, tals_it = -1;
    for (int k = 0; k < tr[0].n[0] && k <= 20; ++k) {
        plain20 |= tr[0].r[0][k] <= 1e-10;
    }
    for (int k = 0; k < tr[0].n[1]; ++k) {
        if (tr[0].r[1][k] <= 1e-10) {
            tals_it = k;
            break;
        }
    }
    study_set_metric(out, "box2.plain.converged_within_20", plain20);
    study_set_metric(out, "box2.plain.residual_after_30", tr[0].r[0][tr[0].n[0] - 1]);
    study_set_metric(out, "box2.tals.iterations", tals_it >= 0 ? tals_it : NAN);
    study_set_metric(out, "box2.tals.final_residual", tr[0].r[1][tr[0].n[1] - 1]);
    study_set_metric(out, "box2.step_start_t", tr[0].t0);
    study_set_metric(out, "box2.step_start_v", tr[0].x0[1]);
    study_set_metric(out, "box2.cosine.step_start_t", tr[1].t0);
    /* total Newton iterations over the run with and without TALS */
    const double it_fn = (double)rec[0].work.n_newton, it_fnt = (double)rec[1].work.n_newton;
    study_set_metric(out, "boxtals.fn.newton_iterations_ratio", it_fnt / it_fn);
    study_set_metric(out, "boxtals.qn.newton_iterations_ratio",
                     (double)rec[3].work.n_newton / (double)rec[2].work.n_newton);
    for (int k = 0; k <= TRACE_MAX; ++k) {
        study_row(out, "residuals");
        study_num(out, "residuals", k);
        for (int f = 0; f < 2; ++f) {
            for (int t = 0; t < 2; ++t) {
                if (k < tr[f].n[t]) {
                    study_num(out, "residuals", tr[f].r[t][k]);
                } else {
                    study_blank(out, "residuals");
                }
            }
        }
    }
    for (int i = 0; i < 4; ++i) {
        const ccb_ode_work* w = &rec[i].work;
        char variant[64];
        variant_name(&rec[i].cfg, variant, sizeof variant);
        const double cells[] = {(double)w->n_newton, (double)w->n_f,    (double)w->n_fail_newton,
                                (double)w->n_steps,  (double)w->n_tals, rec[i].wall_time};
        study_row(out, "runs");
        study_str(out, "runs", variant);
        study_str(out, "runs", rec[i].status == CCB_OK ? "ok" : "failed");
        study_nums(out, "runs", cells, sizeof cells / sizeof cells[0]);
    }
    study_value(out, "t_sine", tr[0].t0);
    study_value(out, "v_sine", tr[0].x0[1]);
    study_value(out, "plain_residual", tr[0].r[0][tr[0].n[0] - 1]);
    study_value(out, "plain_iterations", tr[0].n[0] - 1);
    study_text(out, "plain", tr[0].conv[0] ? "converged" : "cycling, not converged");
    study_value(out, "tals_iterations", tals_it);
    study_value(out, "t_cos", tr[1].t0);
    study_text(out, "cos_plain", tr[1].conv[0] ? "converged" : "does not converge");
    study_value(out, "cos_tals_iterations", tr[1].n[1] - 1);
    return 0;
}

static const fig_table k_fig4_tables[] = {
    {.name = "residuals",
     .file = "residuals.csv",
     .header = "iteration,sine_plain [-],sine_tals [-],cosine_plain [-],cosine_tals [-]",
     .cells = "%d|%.6e"},
    {.name = "runs",
     .md =
         "| variant | status | Newton iterations | f evaluations | Newton failures (halved "
         "steps) | steps | TALS-limited updates | wall [s] |\n|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%s|%d|%d|%d|%d|%d|%.4f"},
    {.name = NULL}};
static const fig_plot k_fig4_plots[] = {
    {.script = "box_fig4.gp",
     .out = "fig4",
     .vars = "t_sine={t_sine|%.2f}; t_cos={t_cos|%.2f}; title='Stick-slip box: Newton residual in "
             "the first slide-to-stick step, h = 10 ms (TAMSI Fig. 4)'"},
    {.script = NULL}};

/* ---- study fig5: work against precision (TAMSI Fig. 5, BOX-3, BOX-4) ----------------------------
 * */

static const char* const k_wp_variant[4] = {"ie-fn", "ie-fn-tals", "ie-qn", "ie-qn-tals"};

/* fig5: IE {FN, QN} x {TALS off, on}, fixed steps and error control, sampled every dw */
static int fig5_runs(study_ctx* ctx, study_batch* b) {
    const double* P = ctx->params;
    const double dw = P[P_DW], T = ctx->cs->t_final_default;
    const int nfix = 4 * NH_WP, nrun = nfix + 4 * NA_WP;
    if (study_batch_alloc(ctx, b, nrun) != 0) {
        return 2;
    }
    run_config* cfg = b->cfg;
    for (int v = 0; v < 4; ++v) {
        for (int j = 0; j < NH_WP; ++j) {
            box_ie_config(ctx, &cfg[v * NH_WP + j], "fig5", v / 2, v % 2, 0, box_h_wp[j], dw, T);
        }
        for (int j = 0; j < NA_WP; ++j) {
            box_ie_config(ctx, &cfg[nfix + v * NA_WP + j], "fig5", v / 2, v % 2, 1, box_a_wp[j], dw,
                          T);
        }
    }
    b->n = nrun;
    return 0;
}

/* fig5, together: e_v of every run, BOX-3 slopes, BOX-4 work at e_v = 1e-3 */
static int fig5_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    const double* P = ctx->params;
    const double dw = P[P_DW], T = ctx->cs->t_final_default;
    const int nfix = 4 * NH_WP, nrun = nfix + 4 * NA_WP;
    const run_record* rec = fd->b->rec;
    wjob* jobs = calloc((size_t)nrun, sizeof *jobs);
    if (jobs == NULL) {
        return study_fail(out, CCB_E_NOMEM, "box: out of memory");
    }
    (void)dir;
    box_windowed_errors(ctx, rec, nrun, dw, jobs);
    double efix[4][NH_WP], wfix[4][NH_WP], eec[4][NA_WP], wec[4][NA_WP];
    for (int i = 0; i < nrun; ++i) {
        const int ec = i >= nfix, v = ec ? (i - nfix) / NA_WP : i / NH_WP,
                  j = ec ? (i - nfix) % NA_WP : i % NH_WP;
        const ccb_ode_work* w = &rec[i].work;
        const double e = jobs[i].rms, work = rec[i].status == CCB_OK ? (double)w->n_f : NAN;
        if (ec) {
            eec[v][j] = e;
            wec[v][j] = work;
        } else {
            efix[v][j] = e;
            wfix[v][j] = work;
        }
        const double cells[] = {ec ? box_a_wp[j] : box_h_wp[j],
                                e,
                                jobs[i].raw,
                                work,
                                (double)w->n_f_jacobian,
                                (double)w->n_f_errest,
                                (double)w->n_newton,
                                (double)w->n_jacobian,
                                (double)w->n_factor,
                                (double)w->n_steps,
                                (double)w->n_fail_newton,
                                (double)w->n_reject_error,
                                w->h_min,
                                w->h_max,
                                rec[i].wall_time};
        study_row(out, "wp");
        study_str(out, "wp", k_wp_variant[v]);
        study_str(out, "wp", ec ? "error-control" : "fixed");
        study_nums(out, "wp", cells, sizeof cells / sizeof cells[0]);
        study_str(out, "wp", rec[i].status == CCB_OK ? "ok" : "failed");
        study_set_metricf(out, e, "wp.%s.%s.e_v.%s%g", k_wp_variant[v], ec ? "ec" : "fixed",
                          ec ? "a" : "h", ec ? box_a_wp[j] : box_h_wp[j]);
    }
    /* BOX-3: IE-FN fixed step, e_v at h = 1e-3 and the slope over h in [1e-4, 1e-2] */
    {
        double hs[NH_WP], es[NH_WP];
        int n = 0;
        for (int j = 0; j < NH_WP; ++j) {
            if (box_h_wp[j] <= 1e-2 * (1 + 1e-12)) {
                hs[n] = box_h_wp[j];
                es[n++] = efix[0][j];
            }
            if (fabs(box_h_wp[j] - 1e-3) < 1e-15) {
                study_set_metric(out, "box3.fn.e_v_h1e-3", efix[0][j]);
                study_set_metric(out, "box3.fn.e_v_raw_h1e-3", jobs[j].raw);
            }
        }
        for (int v = 0; v < 4; ++v) {
            double slope = NAN;
            for (int j = 0, m = 0; j < NH_WP; ++j) {
                if (box_h_wp[j] <= 1e-2 * (1 + 1e-12)) {
                    es[m++] = efix[v][j];
                }
            }
            ccb_an_order(n, hs, es, &slope, NULL, NULL);
            study_set_metricf(out, slope, "box3.%s.slope", k_wp_variant[v]);
        }
    }
    /* BOX-4: work at e_v = 1e-3 with TALS over without, FN and QN (fixed and error control) */
    double w13[4][2];
    for (int v = 0; v < 4; ++v) {
        w13[v][0] = ccb_an_loglog_at(NH_WP, efix[v], wfix[v], 1e-3);
        w13[v][1] = ccb_an_loglog_at(NA_WP, eec[v], wec[v], 1e-3);
        study_set_metricf(out, w13[v][0], "box4.%s.fixed.work_at_e1e-3", k_wp_variant[v]);
        study_set_metricf(out, w13[v][1], "box4.%s.ec.work_at_e1e-3", k_wp_variant[v]);
    }
    study_set_metric(out, "box4.fn.fixed.tals_work_ratio", w13[1][0] / w13[0][0]);
    study_set_metric(out, "box4.qn.fixed.tals_work_ratio", w13[3][0] / w13[2][0]);
    study_set_metric(out, "box4.fn.ec.tals_work_ratio", w13[1][1] / w13[0][1]);
    study_set_metric(out, "box4.qn.ec.tals_work_ratio", w13[3][1] / w13[2][1]);
    for (int v = 0; v < 4; ++v) {
        double slope = NAN;
        char key[96];
        snprintf(key, sizeof key, "box3.%s.slope", k_wp_variant[v]);
        study_get_metric(out, key, &slope);
        const double cells[] = {efix[v][0], efix[v][4], efix[v][NH_WP - 1], slope};
        study_row(out, "summary");
        study_str(out, "summary", k_wp_variant[v]);
        study_nums(out, "summary", cells, sizeof cells / sizeof cells[0]);
        for (int m = 0; m < 2; ++m) { /* no crossing of e_v = 1e-3: n/a */
            if (isfinite(w13[v][m])) {
                study_num(out, "summary", w13[v][m]);
            } else {
                study_str(out, "summary", "n/a");
            }
        }
    }
    study_value(out, "windows", lround(T / dw));
    study_value(out, "dw", dw);
    study_value(out, "h_ref", box_windowed_h_ref(ctx));
    study_value(out, "vs", P[P_VS]);
    free(jobs);
    return 0;
}

static const fig_table k_fig5_tables[] = {
    {.name = "wp",
     .file = "work_precision.csv",
     .header =
         "variant,mode,h_or_a,e_v [m/s],e_v_raw [m/s],work_f_evaluations,f_evaluations_jacobian,"
         "f_evaluations_error_estimate,newton_iterations,jacobians,factorizations,steps,"
         "newton_failures,error_rejections,h_min [s],h_max [s],wall_time [s],status",
     .cells = "%s|%s|%g|%.6e|%.6e|%.0f|%d|%d|%d|%d|%d|%d|%d|%d|%.6g|%.6g|%.6g|%s"},
    {.name = "summary",
     .md =
         "| variant | e_v, h = 25 ms | e_v, 1 ms | e_v, 0.1 ms | slope (h <= 10 ms) | work at e_v "
         "= 1e-3 (fixed) | (error control) |\n|---|---|---|---|---|---|---|\n",
     .cells = "%s|%.3e|%.3e|%.3e|%.3f|%.4g"},
    {.name = NULL}};
static const fig_plot k_fig5_plots[] = {
    {.script = "box_fig5.gp",
     .out = "fig5",
     .vars = "vs={vs}; title='Stick-slip box: work against precision, implicit Euler (TAMSI Fig. "
             "5)'"},
    {.script = NULL}};

/* ---- study tals-range: the first-order range with and without TALS (TAMSI Fig. 5's claim) ----
 * TAMSI §IV-A: "TALS improves performance by extending the range in which the first order
 * behavior is valid, up to a factor of 10 (FN) or 3 (QN)". First-order behaviour in a
 * work-precision plot is e_v W = K constant (fixed steps: e_v ~ h, work W ~ 1/h). Rule, fixed
 * before the runs: K is e_v W at the finest step; a step h is in the first-order range when every
 * step h' <= h of the ladder has e_v W <= 2 K (within a factor of 2 of the first-order line); the
 * range is the largest such h (a lower bound when it is the ladder's top). The ladder reaches
 * 100 ms, so e_v takes windows of 100 ms (the paper's 25 ms admit no step above 25 ms). */
#define NH_RANGE 14
static const double k_h_range[NH_RANGE] = {0.1,   0.05,  0.025,  0.02,  0.0125, 0.01,   0.00625,
                                           0.005, 0.004, 0.0025, 0.002, 0.001,  0.0005, 0.00025};
#define RANGE_DW 0.1

static int range_runs(study_ctx* ctx, study_batch* b) {
    const double T = ctx->cs->t_final_default;
    if (study_batch_alloc(ctx, b, 4 * NH_RANGE) != 0) {
        return 2;
    }
    for (int v = 0; v < 4; ++v) {
        for (int j = 0; j < NH_RANGE; ++j) {
            box_ie_config(ctx, &b->cfg[v * NH_RANGE + j], "tals-range", v / 2, v % 2, 0,
                          k_h_range[j], RANGE_DW, T);
        }
    }
    b->n = 4 * NH_RANGE;
    return 0;
}

/* The range of one variant: the largest h whose finer steps all lie within `band` x of e W = K
 * (the rule's band is 2; 1.5 and 3 are reported to show how much the verdict leans on it). */
static double first_order_range(const double* e, const double* w, double band, double* K) {
    *K = e[NH_RANGE - 1] * w[NH_RANGE - 1];
    double h = NAN;
    for (int j = NH_RANGE - 1; j >= 0; --j) {
        if (!(e[j] * w[j] <= band * *K)) {
            break;
        }
        h = k_h_range[j];
    }
    return h;
}

static int range_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    const int n = 4 * NH_RANGE;
    wjob* jobs = calloc((size_t)n, sizeof *jobs);
    if (jobs == NULL) {
        return study_fail(out, CCB_E_NOMEM, "box: out of memory");
    }
    box_windowed_errors(ctx, fd->b->rec, n, RANGE_DW, jobs);
    double e[4][NH_RANGE], w[4][NH_RANGE], hmax[4], K[4], hband[2][4];
    for (int v = 0; v < 4; ++v) {
        for (int j = 0; j < NH_RANGE; ++j) {
            const run_record* r = &fd->b->rec[v * NH_RANGE + j];
            e[v][j] = jobs[v * NH_RANGE + j].rms;
            w[v][j] = r->status == CCB_OK ? (double)r->work.n_f : NAN;
        }
        hmax[v] = first_order_range(e[v], w[v], 2.0, &K[v]);
        study_set_metricf(out, hmax[v], "range.%s.h_first_order", k_wp_variant[v]);
        study_set_metricf(out, K[v], "range.%s.K", k_wp_variant[v]);
        for (int k = 0; k < 2; ++k) {
            double Kb;
            hband[k][v] = first_order_range(e[v], w[v], k ? 3.0 : 1.5, &Kb);
        }
        for (int j = 0; j < NH_RANGE; ++j) {
            const run_record* r = &fd->b->rec[v * NH_RANGE + j];
            study_row(out, "ladder");
            study_str(out, "ladder", k_wp_variant[v]);
            const double cells[] = {k_h_range[j],
                                    e[v][j],
                                    w[v][j],
                                    e[v][j] * w[v][j],
                                    e[v][j] * w[v][j] / K[v],
                                    (double)r->work.n_fail_newton};
            study_nums(out, "ladder", cells, sizeof cells / sizeof cells[0]);
        }
    }
    free(jobs);
    const double paper[2] = {10.0, 3.0};
    for (int m = 0; m < 2; ++m) { /* FN, QN */
        const double ratio = hmax[2 * m + 1] / hmax[2 * m];
        const char* name = m ? "qn" : "fn";
        study_set_metricf(out, ratio, "range.%s.tals_ratio", name);
        study_row(out, "range");
        study_str(out, "range", m ? "quasi-Newton (QN)" : "full Newton (FN)");
        const double r15 = hband[0][2 * m + 1] / hband[0][2 * m],
                     r3 = hband[1][2 * m + 1] / hband[1][2 * m];
        study_set_metricf(out, r15, "range.%s.tals_ratio_band1.5", name);
        study_set_metricf(out, r3, "range.%s.tals_ratio_band3", name);
        const double cells[] = {hmax[2 * m], hmax[2 * m + 1], ratio, r15, r3, paper[m]};
        study_nums(out, "range", cells, 6);
        study_str(out, "range",
                  hmax[2 * m + 1] == k_h_range[0] ? "at least (the ladder's top)" : "");
    }
    study_value(out, "dw_ms", 1e3 * RANGE_DW);
    study_value(out, "h_top_ms", 1e3 * k_h_range[0]);
    (void)ctx;
    return 0;
}

static const fig_table k_range_tables[] = {
    {.name = "ladder",
     .file = "ladder.csv",
     .header = "variant,h [s],e_v [m/s],work_f_evaluations,e_v_times_work,over_finest,"
               "newton_failures",
     .cells = "%s|%g|%.6e|%.0f|%.6g|%.6g|%.0f"},
    {.name = "range",
     .file = "range.csv",
     .header = "newton,h_first_order_without_tals [s],h_first_order_with_tals [s],ratio,"
               "ratio_band1.5,ratio_band3,paper_ratio,note",
     .md = "| Newton | largest first-order step, no TALS [s] | with TALS [s] | ratio | ratio, "
           "band 1.5x | band 3x | TAMSI paper | |\n|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%g|%g|%.3g|%.3g|%.3g|%g|%s"},
    {.name = NULL}};

static const fig_plot k_range_plots[] = {
    {.script = "box_tals_range.gp",
     .out = "tals-range",
     .vars = "title='Stick-slip box: first-order range of implicit Euler with and without TALS "
             "(e_v over {dw_ms} ms windows)'"},
    {.script = NULL}};

const fig_study box_tals_range = {
    .claim = "TAMSI §IV-A (Fig. 5): TALS extends the range of steps in which implicit Euler "
             "behaves at first order (e_v W constant in the work-precision plot) by up to 10x "
             "for full Newton and 3x for quasi-Newton. Measured on fixed steps of 0.25 ms to "
             "100 ms: the largest step whose finer steps all keep e_v W within 2x of its value "
             "at the finest step.",
    .make_runs = range_runs,
    .finish = range_finish,
    .tables = k_range_tables,
    .report = "The first-order range (e_v over windows of {dw_ms} ms, so that steps up to "
              "{h_top_ms} ms have samples):\n\n{table:range}\n",
    .plots = k_range_plots,
};

/* ---- study tamsi-convex: TAMSI and the convex approximations -----------------------------------
 * */

#define NH_CONV 7
static const double k_h_conv[NH_CONV] = {1.25e-2, 5e-3, 2.5e-3, 1e-3, 5e-4, 2.5e-4, 1e-4};
#define NM_CONV 5
static const char* const k_conv_models[NM_CONV] = {"tamsi", "sap", "similar", "lagged",
                                                   "lagged-reg"};

static void discrete_config(study_ctx* ctx, run_config* cfg, const char* study, const char* model,
                            double h, double T) {
    char label[96];
    run_label(label, sizeof label, model, h);
    const ccb_approx* ap = ccb_approx_find(model);
    study_config(ctx, cfg, study, label, ap ? ap : &ccb_approx_lagged, h, T);
    if (ap == NULL) { /* "tamsi", "tamsi-1way", "tamsi-notals": the registry's variants */
        variant_def v;
        if (variant_find(model, &v) == 0) {
            variant_configure(&v, cfg, NAN);
        }
    }
    const long every = lround(1e-3 / h); /* trajectory files at <= 1 ms resolution */
    cfg->record_every = every > 1 ? (int)every : 1;
}

/* tamsi-convex: TAMSI and the convex approximations on the box with the normal free */
static int tamsi_convex_runs(study_ctx* ctx, study_batch* b) {
    const double T = ctx->cs->t_final_default;
    const int nrun = NM_CONV * NH_CONV;
    if (study_batch_alloc(ctx, b, nrun) != 0) {
        return 2;
    }
    run_config* cfg = b->cfg;
    for (int i = 0; i < NM_CONV; ++i) {
        for (int j = 0; j < NH_CONV; ++j) {
            run_config* c = &cfg[i * NH_CONV + j];
            discrete_config(ctx, c, "tamsi-convex", k_conv_models[i], k_h_conv[j], T);
            c->params[P_NORMAL] = 1; /* SAP and Similar need the normal direction (see notes) */
        }
    }
    b->n = nrun;
    return 0;
}

/* tamsi-convex, together: e_v against h and the fitted orders */
static int tamsi_convex_finish(study_ctx* ctx, study_out* out, const fig_data* fd,
                               const char* dir) {
    (void)dir;
    const double* P = ctx->params;
    const double dw = P[P_DW];
    const int nrun = NM_CONV * NH_CONV;
    const run_record* rec = fd->b->rec;
    wjob* jobs = calloc((size_t)nrun, sizeof *jobs);
    if (jobs == NULL) {
        return study_fail(out, CCB_E_NOMEM, "box: out of memory");
    }
    box_windowed_errors(ctx, rec, nrun, dw, jobs);
    for (int i = 0; i < NM_CONV; ++i) {
        double e[NH_CONV];
        for (int j = 0; j < NH_CONV; ++j) {
            const run_record* r = &rec[i * NH_CONV + j];
            e[j] = jobs[i * NH_CONV + j].rms;
            const double cells[] = {k_h_conv[j],
                                    e[j],
                                    jobs[i * NH_CONV + j].raw,
                                    box_rms_vs_exact(r),
                                    run_mean_iterations(r),
                                    r->max_iters,
                                    r->wall_time};
            study_row(out, "errors");
            study_str(out, "errors", k_conv_models[i]);
            study_nums(out, "errors", cells, sizeof cells / sizeof cells[0]);
            study_str(out, "errors", r->status == CCB_OK ? "ok" : "failed");
            study_set_metricf(out, e[j], "conv.%s.e_v.h%g", k_conv_models[i], k_h_conv[j]);
        }
        double order = NAN;
        ccb_an_order(NH_CONV, k_h_conv, e, &order, NULL, NULL);
        study_set_metricf(out, order, "conv.%s.order", k_conv_models[i]);
        double oc = NAN; /* h in [1 ms, 12.5 ms]: above the O(v_s) model-difference floor */
        ccb_an_order(4, k_h_conv, e, &oc, NULL, NULL);
        study_set_metricf(out, oc, "conv.%s.order_coarse", k_conv_models[i]);
        /* the report's columns: h = 12.5, 1 and 0.1 ms */
        const double h_of[3] = {k_h_conv[0], 1e-3, 1e-4};
        study_row(out, "orders");
        study_str(out, "orders", k_conv_models[i]);
        for (int c = 0; c < 3; ++c) {
            double ec = NAN;
            char key[96];
            snprintf(key, sizeof key, "conv.%s.e_v.h%g", k_conv_models[i], h_of[c]);
            study_get_metric(out, key, &ec);
            study_num(out, "orders", ec);
        }
        study_num(out, "orders", order);
        study_num(out, "orders", oc);
    }
    study_value(out, "dw", dw);
    free(jobs);
    return 0;
}

static const fig_table k_tamsi_convex_tables[] = {
    {.name = "errors",
     .file = "errors_box.csv",
     .header = "approx,h [s],e_v [m/s],e_v_raw [m/s],rms_v_minus_coulomb [m/s],"
               "mean_newton_iterations,max_newton_iterations,wall_time [s],status",
     .cells = "%s|%g|%.6e|%.6e|%.6e|%.4f|%d|%.6g|%s"},
    {.name = "orders",
     .md = "| model | e_v(12.5 ms) | e_v(1 ms) | e_v(0.1 ms) | observed order | order, h >= 1 ms "
           "|\n|---|---|---|---|---|---|\n",
     .cells = "%s|%.3e|%.3e|%.3e|%.3f|%.3f"},
    {.name = NULL}};
static const fig_plot k_tamsi_convex_plots[] = {
    {.script = "convergence.gp",
     .out = "tamsi-convex",
     .vars = "tags='box'; tagtitles='dw=25ms'; models='tamsi sap similar lagged lagged-reg'; "
             "titles='TAMSI SAP Similar Lagged Lagged-reg'; guide_model='tamsi'; guide_dt=0.001; "
             "xlabel='h [s]'; ylabel='e_v [m/s]'; title='Stick-slip box (compliant normal): "
             "windowed error e_v against the step, TAMSI and the convex approximations'"},
    {.script = NULL}};

/* ---- study variants: every solver at h = 10 ms and 1 ms ----------------------------------------
 * */

#define NV_DISCRETE 7
static const char* const k_var_discrete[NV_DISCRETE] = {
    "sap", "similar", "lagged", "lagged-reg", "tamsi", "tamsi-1way", "tamsi-notals"};

/* variants: every solver and approximation at h = 10 ms and 1 ms */
static int variants_runs(study_ctx* ctx, study_batch* b) {
    const double T = ctx->cs->t_final_default;
    const double hs[2] = {1e-2, 1e-3};
    enum { N_IE = 9, N_FREE = 2, N_EXTRA = 3 };
    const int per_h = NV_DISCRETE + N_FREE + N_IE, nrun = 2 * per_h + N_EXTRA;
    if (study_batch_alloc(ctx, b, nrun) != 0) {
        return 2;
    }
    run_config* cfg = b->cfg;
    int n = 0;
    for (int k = 0; k < 2; ++k) {
        for (int i = 0; i < NV_DISCRETE; ++i) {
            discrete_config(ctx, &cfg[n], "variants", k_var_discrete[i], hs[k], T);
            if (strcmp(k_var_discrete[i], "tamsi-notals") == 0 && k == 0) {
                cfg[n].expect_failure = "TAMSI without TALS cycles across the stiction band at "
                                        "the slide-to-stick step (paper Fig. 2), even with 20 "
                                        "substeps";
            }
            n++;
        }
        for (int i = 0; i < N_FREE; ++i) { /* SAP and Similar with the normal direction free */
            discrete_config(ctx, &cfg[n], "variants", k_var_discrete[i], hs[k], T);
            cfg[n].params[P_NORMAL] = 1;
            const size_t l = strlen(cfg[n].label);
            snprintf(cfg[n].label + l, sizeof cfg[n].label - l, "_normal-free");
            snprintf(cfg[n].out_dir, sizeof cfg[n].out_dir, "%s/%s/variants/%s", ctx->out_root,
                     ctx->cs->name, cfg[n].label);
            n++;
        }
        for (int v = 0; v < 4; ++v) { /* fixed step h */
            box_ie_config(ctx, &cfg[n++], "variants", v / 2, v % 2, 0, hs[k], hs[k], T);
        }
        /* quasi Newton with Drake's default accuracy 0.1 as the Newton tolerance (see notes) */
        box_ie_config(ctx, &cfg[n], "variants", 1, 0, 0, hs[k], hs[k], T);
        cfg[n].sim.ode.accuracy = 0.1;
        snprintf(cfg[n].label, sizeof cfg[n].label, "ie-qn-a0.1_h%g", hs[k]);
        snprintf(cfg[n].out_dir, sizeof cfg[n].out_dir, "%s/%s/variants/%s", ctx->out_root,
                 ctx->cs->name, cfg[n].label);
        n++;
        for (int v = 0; v < 4; ++v) { /* error control a = 1e-3, largest step h */
            box_ie_config(ctx, &cfg[n], "variants", v / 2, v % 2, 1, 1e-3, hs[k], T);
            char label[sizeof cfg[n].label + 32];
            snprintf(label, sizeof label, "%s_hmax%g", cfg[n].label, hs[k]);
            snprintf(cfg[n].label, sizeof cfg[n].label, "%.80s", label);
            snprintf(cfg[n].out_dir, sizeof cfg[n].out_dir, "%s/%s/variants/%s", ctx->out_root,
                     ctx->cs->name, label);
            n++;
        }
    }
    /* RK3 at 10 ms (beyond its stability limit in stiction: it chatters, bounded by the
     * saturated friction), RK3 at a stable 1e-5 s sampled every 1 ms, GSL rk8pd every 1 ms */
    const double rk3_h[2] = {1e-2, 1e-5};
    for (int k = 0; k < 2; ++k) {
        char label[96];
        snprintf(label, sizeof label, "rk3_h%g", rk3_h[k]);
        study_config(ctx, &cfg[n], "variants", label, &ccb_approx_lagged, k ? 1e-3 : 1e-2, T);
        char words[64], msg[256];
        snprintf(words, sizeof words, "h=%.17g", rk3_h[k]);
        if (solver_configure(&cfg[n], "rk3", words, msg, sizeof msg) != 0) {
            return study_fail(ctx->out, CCB_E_INTERNAL, "box variants: %s", msg);
        }
        n++;
    }
    study_config(ctx, &cfg[n], "variants", "gsl-rk8pd_tol1e-8", &ccb_approx_lagged, 1e-3, T);
    char msg[256];
    if (solver_configure(&cfg[n], "gsl", "gsl-tol=1e-8", msg, sizeof msg) != 0) {
        return study_fail(ctx->out, CCB_E_INTERNAL, "box variants: %s", msg);
    }
    n++;
    b->n = n;
    return 0;
}

/* variants, together: e_v, the error against Coulomb and the work of every run */
static int variants_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir) {
    (void)dir;
    const double dw = 0.05;
    const int n = fd->b->n;
    const run_record* rec = fd->b->rec;
    wjob* jobs = calloc((size_t)n, sizeof *jobs);
    if (jobs == NULL) {
        return study_fail(out, CCB_E_NOMEM, "box: out of memory");
    }
    box_windowed_errors(ctx, rec, n, dw, jobs);
    for (int i = 0; i < n; ++i) {
        const run_record* r = &rec[i];
        const int ode = (r->cfg.sim.solver->flags & CCB_SOLVER_ODE_METHODS) != 0;
        const char* method = solver_cli_name(&r->cfg);
        char variant[64];
        variant_name(&r->cfg, variant, sizeof variant);
        if (ode && strcmp(method, "ie") == 0) {
            const size_t l = strlen(variant);
            snprintf(variant + l, sizeof variant - l, " (a = %g)", r->cfg.sim.ode.accuracy);
        }
        if (lround(r->cfg.params[P_NORMAL])) {
            const size_t l = strlen(variant);
            snprintf(variant + l, sizeof variant - l, " (normal free)");
        }
        const double h = !ode                           ? r->cfg.sim.dt
                         : strcmp(method, "gsl") == 0   ? NAN
                         : r->cfg.sim.ode.error_control ? r->cfg.sim.dt
                         : r->cfg.sim.ode.h > 0         ? r->cfg.sim.ode.h
                                                        : r->cfg.sim.dt;
        const double steps = ode ? (double)r->work.n_steps : (double)r->nsteps;
        const char* status = r->status == CCB_OK     ? "ok"
                             : r->cfg.expect_failure ? "failed (expected)"
                                                     : "failed";
        const double fe = ode ? (double)r->work.n_f : NAN;
        const double tab[] = {jobs[i].rms,
                              jobs[i].raw,
                              box_rms_vs_exact(r),
                              fe,
                              (double)r->total_iters,
                              steps,
                              r->wall_time,
                              steps > 0 ? r->wall_time / steps : NAN};
        study_row(out, "variants");
        study_str(out, "variants", variant);
        study_str(out, "variants", ccb_solver_name(r->cfg.sim.solver));
        study_num(out, "variants", h);
        study_str(out, "variants", status);
        study_nums(out, "variants", tab, sizeof tab / sizeof tab[0]);
        study_row(out, "summary");
        study_str(out, "summary", variant);
        if (isnan(h)) {
            study_str(out, "summary", "adaptive");
        } else {
            study_num(out, "summary", h);
        }
        study_str(out, "summary", status);
        const double md[] = {jobs[i].rms, box_rms_vs_exact(r), fe, (double)r->total_iters,
                             r->wall_time};
        study_nums(out, "summary", md, sizeof md / sizeof md[0]);
    }
    free(jobs);
    return 0;
}

static const fig_table k_variants_tables[] = {
    {.name = "variants",
     .file = "variants.csv",
     .header = "variant,solver,h [s],status,e_v_dw50ms [m/s],e_v_raw_dw50ms [m/s],"
               "rms_v_minus_coulomb [m/s],f_evaluations,newton_iterations,steps,wall_time [s],"
               "wall_time_per_step [s]",
     .cells = "%s|%s|%g|%s|%.6e|%.6e|%.6e|%.0f|%d|%.0f|%.6g|%.6g"},
    {.name = "summary",
     .md = "| variant | h [s] | status | e_v (50 ms) | rms v - v_Coulomb | f evals | Newton it. | "
           "wall [s] |\n|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%g|%s|%.3e|%.3e|%.0f|%d|%.4f",
     .md_nonfinite = "n/a"},
    {.name = NULL}};

const fig_study box_fig4 = {
    .claim = "without TALS, Newton cycles across the stiction band in the slide -> stick step; "
             "TALS converges in a few iterations.",
    .make_runs = fig4_runs,
    .finish = fig4_finish,
    .tables = k_fig4_tables,
    .report =
        "Implicit Euler, full Newton, r(x) = x - x0 - h f(t1, x), |r|_2 per iteration from the "
        "converged state at t = {t_sine|%.2f} s (v = {v_sine|%.5f} m/s; cases.md §7.2 quotes "
        "0.05808 m/s at 0.44 s). Without TALS: |r| = {plain_residual|%.3g} after "
        "{plain_iterations|%d} iterations ({text:plain}); with TALS: |r| <= 1e-10 after "
        "{tals_iterations|%d} iterations. Cosine variant (phase pi/2): step from t = "
        "{t_cos|%.2f} s, plain {text:cos_plain}, TALS {cos_tals_iterations|%d} "
        "iterations.\n\nWhole runs at h = 10 ms (2 s): Newton iterations with TALS / "
        "without = {boxtals.fn.newton_iterations_ratio|%.3f} (FN), "
        "{boxtals.qn.newton_iterations_ratio|%.3f} (QN).\n\n{table:runs}\n",
    .plots = k_fig4_plots,
};

const fig_study box_fig5 = {
    .claim = "first order for e_v <~ v_s; without TALS the curves depart from first order above "
             "v_s; TALS extends the first-order range up to 10x (FN) and 3x (QN).",
    .make_runs = fig5_runs,
    .finish = fig5_finish,
    .tables = k_fig5_tables,
    .report = "Localized error e_v = (mean over {windows|%d} windows of {dw} s of (v - "
              "v_ref)^2)^(1/2), v_ref by RK3 (h = {h_ref} s) restarted from the test state at each "
              "window; work = every call of f, finite-difference Jacobian columns and "
              "error-estimate calls included. Paper: first order for e_v <~ v_s; without TALS the "
              "curves depart from first order above v_s; TALS extends the first-order range up to "
              "10x (FN) and 3x (QN).\n\n{table:summary}\nAll runs: "
              "`box/fig5/work_precision.csv`.\n\n",
    .plots = k_fig5_plots,
};

const fig_study box_tamsi_convex = {
    .claim = "TAMSI and the convex approximations converge on the same box.",
    .make_runs = tamsi_convex_runs,
    .finish = tamsi_convex_finish,
    .tables = k_tamsi_convex_tables,
    .report = "e_v with the work-precision protocol (windows of {dw} s, RK3 reference of the "
              "regularized model restarted from the test state), on the box with a free, "
              "compliant normal direction (normal = 1): SAP and Similar make friction lift the box "
              "(gliding, mu dt |v_t|), and with the normal locked their cone projection instead "
              "raises fn above W (3.8 N at h = 1 ms, measured) so the box hardly slides (variants "
              "table). TAMSI uses the paper's linear regularization; the convex approximations "
              "their own (Lagged/Similar: v_s; SAP: sigma w), so their e_v also contains the model "
              "difference in stiction, O(v_s).\n\n{table:orders}\n",
    .plots = k_tamsi_convex_plots,
};

const fig_study box_variants = {
    .claim = "every solver of the suite on the paper's box.",
    .make_runs = variants_runs,
    .finish = variants_finish,
    .tables = k_variants_tables,
    .report = "The paper's box (normal locked, fn = W) for every solver, plus SAP and Similar with "
              "the normal direction free (normal = 1; see convergence). e_v over windows of 50 ms "
              "(both steps divide it; RK3 reference restarted from the test state), RMS of v - "
              "v_Coulomb over the steps, f evaluations (continuous-model integrators), Newton "
              "iterations (all implicit solvers), stepping wall time. Error-controlled implicit "
              "Euler uses a = 1e-3 with the largest step h; RK3 runs at a stable step (and once at "
              "10 ms, where it chatters in stiction); GSL rk8pd at tolerance 1e-8. TAMSI without "
              "TALS fails at 10 ms (expected: the paper's Fig. 2 cycling).\n\n{table:summary}\n"
              "All columns: `box/variants/variants.csv`.\n\n",
};
