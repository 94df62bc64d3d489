/* rigid_study: the rigid-limit study of a case (sphere, clutter; formulation-convex §16.3).
 *
 * Runs of the convex models export chosen steps to FCLIB (run_config.export_steps); each file is
 * read back and its rigid frictional contact problem — the same M, H, f and w, with Coulomb's law
 * and Signorini's condition on phi0 + dt v_n exactly — is solved by Siconos (the peer of
 * reference/peers/siconos). Per step the gap between ccb's impulses and the rigid ones:
 *   gap_r  = |r_ccb - r_rigid|_2 / |r_rigid|_2        (contact impulses, order n, t1, t2)
 *   gap_Hr = |H (r_ccb - r_rigid)|_2 / |H r_rigid|_2  (generalized impulses: unique even where
 *                                                      redundant contacts make r not unique)
 * Lagged over the stiffness k (the compliant model's rigid limit) and over dt, SAP over dt (its
 * near-rigid regime). Without Siconos the study runs and exports, and the report says the rigid
 * solutions are missing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "fclib_io.h"
#include "siconos_peer.h"
#include "study.h"

#define RIGID_TOL 1e-8
#define RIGID_MAX_ITER 5000

static const double k_dt_factor[RIGID_NDT] = {0.25, 0.5, 1.0};

/* run order: Lagged over k (dt), Lagged over dt (k default), SAP over dt (k default) */
static int nruns(const rigid_def* d) {
    return d->nk + 2 * RIGID_NDT;
}

static void run_kind(const rigid_def* d, int i, const char** model, double* k, double* dtf) {
    if (i < d->nk) {
        *model = "lagged", *k = d->k[i], *dtf = 1.0;
    } else if (i < d->nk + RIGID_NDT) {
        *model = "lagged", *k = NAN, *dtf = k_dt_factor[i - d->nk];
    } else {
        *model = "sap", *k = NAN, *dtf = k_dt_factor[i - d->nk - RIGID_NDT];
    }
}

int rigidlim_runs(study_ctx* ctx, study_batch* b, const rigid_def* d) {
    const int n = nruns(d);
    if (study_batch_alloc(ctx, b, n) != 0) {
        return 2;
    }
    int ik = -1;
    const case_param* kp = case_find_param(ctx->cs, "k", &ik);
    if (kp == NULL) {
        return study_fail(ctx->out, CCB_E_INTERNAL, "rigid-limit: %s has no parameter k",
                          ctx->cs->name);
    }
    for (int i = 0; i < n; ++i) {
        const char* model;
        double k, dtf;
        run_kind(d, i, &model, &k, &dtf);
        const double dt = d->dt * dtf;
        const double T = d->t_export[d->nt - 1] + dt;
        char label[96];
        if (isnan(k)) {
            run_label(label, sizeof label, model, dt);
        } else {
            snprintf(label, sizeof label, "%s_k%g", model, k);
        }
        run_config* c = &b->cfg[i];
        study_config(ctx, c, "rigid-limit", label, ccb_approx_find(model), dt, T);
        /* the exported problem is the step's whole one: a lazy pair's contacts are proven
         * inactive for the compliant law (formulation-convex §8.11), not for the rigid limit
         * Siconos solves, so every contact is listed */
        c->sim.newton.lazy_pairs = 0;
        if (!isnan(k)) {
            c->params[ik] = k;
        }
        c->nexport = fclib_io_available() ? d->nt : 0; /* without FCLIB: the runs only */
        for (int j = 0; j < d->nt; ++j) {
            c->export_steps[j] = lround(d->t_export[j] / dt);
        }
        c->cost = T / dt * (double)(1 + i % 3);
    }
    b->n = n;
    return 0;
}

static double norm2(const double* x, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) {
        s += x[i] * x[i];
    }
    return sqrt(s);
}

/* y = H x (nv) */
static void h_mul(const ccb_global_problem* g, const double* x, double* y) {
    memset(y, 0, (size_t)g->nv * sizeof(double));
    for (int c = 0; c < 3 * g->nc; ++c) {
        for (int a = g->H_colptr[c]; a < g->H_colptr[c + 1]; ++a) {
            y[g->H_row[a]] += g->H_val[a] * x[c];
        }
    }
}

/* One exported step: its gaps (NAN when Siconos is absent or did not converge). */
typedef struct rigid_step {
    int nc, active; /* contacts; those with a rigid normal impulse > 0 */
    double gap_r, gap_hr, gap_hn, gap_ht, r_norm, error; /* gap_hn, gap_ht: gap_Hr of the
                                                             normal and tangential parts */
    int iterations, info;
} rigid_step;

static int solve_step(const char* path, rigid_step* st, char* msg, size_t n) {
    memset(st, 0, sizeof *st);
    st->gap_r = st->gap_hr = st->gap_hn = st->gap_ht = st->r_norm = st->error = NAN;
    ccb_global_problem g;
    double *v = NULL, *r = NULL;
    if (fclib_io_read(path, &g, &v, &r, msg, n) != 0) {
        return -1;
    }
    st->nc = g.nc;
    const int m = 3 * g.nc;
    int rc = 0;
    if (r == NULL) {
        snprintf(msg, n, "%.200s holds no ccb solution", path);
        rc = -1;
    } else if (peer_siconos_available() && g.nc > 0) {
        double* vs = calloc((size_t)g.nv, sizeof(double));
        double* rs = calloc((size_t)m, sizeof(double));
        double* d = calloc((size_t)m, sizeof(double));
        double* hd = calloc((size_t)g.nv, sizeof(double));
        double* hr = calloc((size_t)g.nv, sizeof(double));
        peer_siconos_result res;
        if (!vs || !rs || !d || !hd || !hr) {
            snprintf(msg, n, "out of memory");
            rc = -1;
        } else if (peer_siconos_solve(&g, RIGID_TOL, RIGID_MAX_ITER, vs, rs, &res, msg, n) != 0) {
            rc = -1;
        } else {
            st->info = res.info, st->iterations = res.iterations, st->error = res.error;
            for (int c = 0; c < m; ++c) {
                d[c] = r[c] - rs[c];
            }
            for (int i = 0; i < g.nc; ++i) {
                st->active += rs[3 * i] > 0;
            }
            h_mul(&g, d, hd);
            h_mul(&g, rs, hr);
            st->r_norm = norm2(rs, m);
            if (res.info == 0 && st->r_norm > 0) {
                const double hn = norm2(hr, g.nv);
                st->gap_r = norm2(d, m) / st->r_norm;
                st->gap_hr = norm2(hd, g.nv) / hn;
                for (int part = 0; part < 2; ++part) { /* 0: normal components, 1: tangential */
                    for (int c = 0; c < m; ++c) {
                        d[c] = ((c % 3 == 0) == (part == 0)) ? r[c] - rs[c] : 0.0;
                    }
                    h_mul(&g, d, hd);
                    *(part == 0 ? &st->gap_hn : &st->gap_ht) = norm2(hd, g.nv) / hn;
                }
            }
        }
        free(vs), free(rs), free(d), free(hd), free(hr);
    }
    free(v);
    free(r);
    ccb_global_problem_free(&g);
    return rc;
}

typedef struct rigid_job {
    const study_batch* b;
    const rigid_def* d;
    int* same;      /* per run: an earlier run with the same configuration, or -1 */
    rigid_step* st; /* nruns x nt */
    int* failed;
    char (*why)[256];
} rigid_job;

static void job(void* user, int idx) {
    rigid_job* j = user;
    const int i = idx / j->d->nt, e = idx % j->d->nt;
    const run_record* r = &j->b->rec[i];
    rigid_step* st = &j->st[idx];
    memset(st, 0, sizeof *st);
    st->gap_r = st->gap_hr = st->gap_hn = st->gap_ht = st->r_norm = st->error = NAN;
    if (r->status != CCB_OK || j->same[i] >= 0) { /* a run the study has twice: solved once */
        return;
    }
    char path[PATH_MAX + 64];
    run_export_path(&r->cfg, r->cfg.export_steps[e], path, sizeof path);
    if (solve_step(path, st, j->why[idx], sizeof j->why[idx]) != 0) {
        j->failed[idx] = 1;
    }
}

int rigidlim_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir,
                    const rigid_def* d) {
    (void)out;
    (void)dir;
    const study_batch* b = fd->b;
    const int n = nruns(d), ns = n * d->nt;
    if (!fclib_io_available()) {
        study_set_metric(ctx->out, "build.siconos", 0); /* its gates are skipped */
        study_value(ctx->out, "no_fclib", 1);
        return 0;
    }
    rigid_job j = {b,
                   d,
                   calloc((size_t)n, sizeof(int)),
                   calloc((size_t)ns, sizeof(rigid_step)),
                   calloc((size_t)ns, sizeof(int)),
                   calloc((size_t)ns, sizeof *j.why)};
    if (!j.same || !j.st || !j.failed || !j.why) {
        free(j.same), free(j.st), free(j.failed), free(j.why);
        return study_fail(ctx->out, CCB_E_NOMEM, "rigid-limit: out of memory");
    }
    for (int i = 0; i < n; ++i) {
        j.same[i] = -1;
        for (int q = 0; q < i && j.same[i] < 0; ++q) {
            if (study_same_run(&b->cfg[i], &b->cfg[q])) {
                j.same[i] = q;
            }
        }
    }
    study_parallel_for(ctx, ns, job, &j);
    for (int i = 0; i < n; ++i) {
        if (j.same[i] >= 0) {
            memcpy(&j.st[i * d->nt], &j.st[j.same[i] * d->nt], (size_t)d->nt * sizeof(rigid_step));
        }
    }
    int rc = 0, nfailed = 0;
    for (int idx = 0; idx < ns; ++idx) {
        if (j.failed[idx] && nfailed++ == 0) {
            rc = study_fail(ctx->out, CCB_E_IO, "rigid-limit: %s", j.why[idx]);
        } else if (j.failed[idx]) {
            study_log("rigid-limit: %s", j.why[idx]);
        }
    }
    const int have = peer_siconos_available();
    study_set_metric(ctx->out, "build.siconos", have); /* gates with "requires": "siconos" */
    double lk[RIGID_MAX_K], lg[RIGID_MAX_K];
    for (int i = 0; i < n; ++i) {
        const char* model;
        double k, dtf;
        run_kind(d, i, &model, &k, &dtf);
        const run_record* r = &b->rec[i];
        const double kk = isnan(k) ? d->k_default : k;
        double mean_hr = 0, mean_r = 0, mean_n = 0, mean_t = 0;
        int cnt = 0;
        for (int e = 0; e < d->nt; ++e) {
            const rigid_step* st = &j.st[i * d->nt + e];
            const double cells[] = {kk,
                                    r->cfg.sim.dt,
                                    (double)r->cfg.export_steps[e],
                                    (double)(r->cfg.export_steps[e] - 1) * r->cfg.sim.dt,
                                    st->nc,
                                    st->active,
                                    st->r_norm,
                                    st->gap_r,
                                    st->gap_hr,
                                    st->gap_hn,
                                    st->gap_ht,
                                    st->iterations,
                                    st->error,
                                    st->info};
            study_row(ctx->out, "steps");
            study_str(ctx->out, "steps", model);
            study_nums(ctx->out, "steps", cells, sizeof cells / sizeof cells[0]);
            study_set_metricf(ctx->out, st->gap_hr, "rigid-limit.%s.gap_t%g", r->cfg.label,
                              d->t_export[e]);
            if (isfinite(st->gap_hr)) {
                mean_hr += st->gap_hr, mean_r += st->gap_r, cnt++;
                mean_n += st->gap_hn, mean_t += st->gap_ht;
            }
        }
        mean_hr = cnt ? mean_hr / cnt : NAN;
        mean_r = cnt ? mean_r / cnt : NAN;
        mean_n = cnt ? mean_n / cnt : NAN;
        mean_t = cnt ? mean_t / cnt : NAN;
        const double md[] = {kk, r->cfg.sim.dt, cnt, d->nt, mean_hr, mean_n, mean_t, mean_r};
        study_row(ctx->out, "gaps");
        study_str(ctx->out, "gaps", model);
        study_nums(ctx->out, "gaps", md, sizeof md / sizeof md[0]);
        if (i < d->nk) {
            lk[i] = k, lg[i] = mean_hr;
            study_set_metricf(ctx->out, mean_hr, "rigid-limit.lagged.gap_k%g", k);
        } else {
            study_set_metricf(ctx->out, mean_hr, "rigid-limit.%s.gap_dt%g", model, r->cfg.sim.dt);
        }
    }
    ccb_an_fit fit;
    ccb_an_fit_order(d->nk, lk, lg, &fit); /* gap ~ k^p: p < 0 where the rigid limit is met */
    study_set_metric(ctx->out, "rigid-limit.lagged.gap_slope_k", fit.order);
    study_set_metric(ctx->out, "rigid-limit.lagged.gap_stiffest_over_softest",
                     lg[d->nk - 1] / lg[0]);
    study_text(ctx->out, "siconos", peer_siconos_describe());
    if (have) {
        char times[256] = "";
        for (int e = 0, at = 0; e < d->nt && at < (int)sizeof times; ++e) {
            at += snprintf(times + at, sizeof times - (size_t)at, "%s%g", e ? ", " : "",
                           d->t_export[e]);
        }
        study_text(ctx->out, "times", times);
        study_value(ctx->out, "tol", RIGID_TOL);
        study_value(ctx->out, "k_lo", d->k[0]);
        study_value(ctx->out, "k_hi", d->k[d->nk - 1]);
    } else {
        study_value(ctx->out, "no_siconos", 1);
    }
    free(j.same);
    free(j.st);
    free(j.failed);
    free(j.why);
    return rc;
}

const fig_table rigidlim_tables[] = {
    {.name = "steps",
     .file = "rigid_limit.csv",
     .header = "model,k [N/m],dt [s],step,t [s],contacts,active_rigid,rigid_impulse_norm [N s],"
               "gap_r,gap_Hr,gap_Hr_normal,gap_Hr_tangential,siconos_iterations,siconos_error,"
               "siconos_info",
     .cells = "%s|%g|%g|%d|%.6g|%d|%d|%.6e|%.6e|%.6e|%.6e|%.6e|%d|%.3e|%d"},
    {.name = "gaps",
     .md = "| model | k [N/m] | dt [s] | steps solved | of | gap_Hr | normal | tangential | gap_r "
           "|\n|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%s|%g|%g|%d|%d|%.3e"},
    {.name = NULL}};
