/* gradq_study: gradient quality across contact transitions (formulation-convex §9.7). A task
 * J(p) = q_i(T), the final value of one coordinate, as a function of one input p (an initial
 * velocity, or a case parameter such as mu) over a grid around its default, for every convex
 * approximation and three stiffnesses: the derivative dJ/dp by forward mode through the whole
 * run (ccb/deriv.h, step after step) against the secants of the grid's own values at several
 * scales; its variation over nearby inputs; its roughness. The question no benchmark answers:
 * which approximation's gradients of a task are informative where the motion changes contact
 * mode (impact, stick-slip). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study.h"

#define GQ_MAX_PTS 64
#define GQ_MAX_VAR 8
#define GQ_NSTIFF 3
#define GQ_NSCALE 3
static const int k_scale[GQ_NSCALE] = {1, 3, 8}; /* secant half-widths in grid intervals */

typedef struct gq_job {
    const gradq_def* def;
    run_config cfg; /* the approximation, stiffness and input value of this point */
    int material;   /* the input is every contact's mu (else the initial velocity) */
    double p;       /* the input */
    double J, dJ;   /* task and its derivative */
    int ok, kinks;  /* kinks: steps whose partials did not settle (formulation-convex §9.2) */
    char msg[160];
} gq_job;

static void gq_one(void* user, int i) {
    gq_job* job = (gq_job*)user + i;
    const gradq_def* def = job->def;
    run_restart rs;
    job->ok = 0;
    if (run_restart_open(&job->cfg, &rs) != 0) {
        snprintf(job->msg, sizeof job->msg, "the simulator could not be made");
        return;
    }
    ccb_deriv* d = NULL;
    const int nq = ccb_model_nq(rs.model), nv = ccb_model_nv(rs.model);
    double* q = calloc((size_t)(4 * nq + 4 * nv + 8), sizeof(double));
    if (q == NULL || ccb_deriv_create(&d) != CCB_OK) {
        snprintf(job->msg, sizeof job->msg, "out of memory");
        free(q);
        run_restart_close(&rs);
        return;
    }
    double *v = q + nq, *tq = v + nv, *tv = tq + nq, *nq1 = tv + nv, *nv1 = nq1 + nq;
    memcpy(q, ccb_sim_q(rs.sim), (size_t)nq * sizeof(double));
    memcpy(v, ccb_sim_v(rs.sim), (size_t)nv * sizeof(double));
    if (!job->material) { /* the input is the initial velocity v[vidx] (the model's) */
        tv[def->vidx] = 1.0;
    }
    const long N = lround(job->cfg.t_final / job->cfg.sim.dt);
    int ok = ccb_sim_set_state(rs.sim, 0.0, q, v) == CCB_OK;
    for (long k = 0; ok && k < N; ++k) {
        const double t = ccb_sim_time(rs.sim);
        ok = ccb_sim_step(rs.sim) == CCB_OK &&
             ccb_deriv_linearize(d, rs.sim, NULL, t, q, v, ccb_sim_v(rs.sim)) == CCB_OK;
        if (!ok) {
            snprintf(job->msg, sizeof job->msg, "step %ld: %s", k + 1,
                     ccb_sim_last_error(rs.sim)[0] ? ccb_sim_last_error(rs.sim)
                                                   : ccb_deriv_last_error(d));
            break;
        }
        ccb_step_dir dir = ccb_step_dir_zero();
        dir.dq0 = tq;
        dir.dv0 = tv;
        if (job->material) { /* d/d log mu of every contact */
            dir.dmu = 1.0;
        }
        ok = ccb_deriv_jvp(d, &dir, nq1, nv1) == CCB_OK;
        if (!ok) {
            snprintf(job->msg, sizeof job->msg, "step %ld: %s", k + 1, ccb_deriv_last_error(d));
            break;
        }
        job->kinks += !ccb_deriv_get_stats(d).partial_settled;
        memcpy(tq, nq1, (size_t)nq * sizeof(double));
        memcpy(tv, nv1, (size_t)nv * sizeof(double));
        memcpy(q, ccb_sim_q(rs.sim), (size_t)nq * sizeof(double));
        memcpy(v, ccb_sim_v(rs.sim), (size_t)nv * sizeof(double));
    }
    if (ok) {
        job->J = q[def->qidx];
        /* d/dp = d/d log p / p for a relative (material) direction */
        job->dJ = job->material ? tq[def->qidx] / job->p : tq[def->qidx];
        job->ok = 1;
    }
    ccb_deriv_destroy(d);
    free(q);
    run_restart_close(&rs);
}

/* Applies "name=value ..." to params: 0, or -1. */
static int case_apply_set(const case_desc* cs, double* params, const char* set) {
    char buf[256], msg[160];
    snprintf(buf, sizeof buf, "%s", set);
    char* save = NULL;
    for (char* tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (case_set_param(cs, params, tok, msg, sizeof msg) != 0) {
            return -1;
        }
    }
    return 0;
}

static double median(double* x, int n) {
    for (int i = 1; i < n; ++i) { /* insertion sort: n <= GQ_MAX_PTS */
        const double t = x[i];
        int j = i - 1;
        for (; j >= 0 && x[j] > t; --j) {
            x[j + 1] = x[j];
        }
        x[j + 1] = t;
    }
    return n > 0 ? (n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2])) : NAN;
}

/* About 190 lines on purpose: the study's protocol in the order of its report — the grid of
 * inputs, every approximation and stiffness, the forward-mode gradients against the secants at
 * three scales, their statistics, the tables and the figure — over one set of runs that every
 * part reads. */
int gradq_run(study_ctx* ctx, study_out* out, const gradq_def* def) {
    (void)out;
    const case_desc* cs = ctx->cs;
    if (ctx->emit) { /* no runs to hand out: the whole study is in-process analysis, made where
                        its results are read (--from) */
        return 0;
    }
    variant_def use[GQ_MAX_VAR];
    char msg[256];
    const int nvar = variant_select_differentiable(cs, use, GQ_MAX_VAR, msg, sizeof msg);
    if (nvar < 0) {
        return study_fail(out, CCB_E_INVALID, "gradient-quality: %s", msg);
    }
    int pidx = -1, kidx = -1;
    if (!case_find_param(cs, def->param, &pidx)) {
        return study_fail(out, CCB_E_INTERNAL, "gradient-quality: %s has no parameter %s", cs->name,
                          def->param);
    }
    if (!case_find_param(cs, def->stiffness, &kidx)) {
        return study_fail(out, CCB_E_INTERNAL, "gradient-quality: %s has no parameter %s", cs->name,
                          def->stiffness);
    }
    const int np = def->npts;
    const double T = def->t_final > 0 ? def->t_final : cs->t_final_default;
    const int njobs = nvar * GQ_NSTIFF * np;
    gq_job* jobs = calloc((size_t)njobs, sizeof *jobs);
    if (jobs == NULL || np > GQ_MAX_PTS || np < 2 * k_scale[GQ_NSCALE - 1] + 1) {
        free(jobs);
        return study_fail(out, jobs ? CCB_E_INTERNAL : CCB_E_NOMEM, "gradient-quality: %s",
                          jobs ? "a bad grid" : "out of memory");
    }
    const double p0 = ctx->params[pidx];
    for (int a = 0; a < nvar; ++a) {
        for (int s = 0; s < GQ_NSTIFF; ++s) {
            for (int i = 0; i < np; ++i) {
                gq_job* j = &jobs[(a * GQ_NSTIFF + s) * np + i];
                j->def = def;
                j->material = def->material;
                j->p = p0 * (def->lo + (def->hi - def->lo) * i / (np - 1));
                study_config(ctx, &j->cfg, "gradient-quality", use[a].name, use[a].approx,
                             cs->dt_default, T);
                variant_configure(&use[a], &j->cfg, NAN);
                j->cfg.out_dir[0] = '\0';
                if (def->set && case_apply_set(cs, j->cfg.params, def->set) != 0) {
                    free(jobs);
                    return study_fail(out, CCB_E_INTERNAL, "gradient-quality: bad overrides '%s'",
                                      def->set);
                }
                j->cfg.params[kidx] = ctx->params[kidx] * def->stiff_scale[s];
                j->cfg.params[pidx] = j->p;
            }
        }
    }
    study_parallel_for(ctx, njobs, gq_one, jobs);
    char dir[PATH_MAX];
    if (study_dir(ctx->out, "gradient-quality", dir, sizeof dir) != 0) {
        free(jobs);
        return 2;
    }
    strbuf pts = {0}, tab = {0}, md = {0}, names = {0};
    int failed = 0;
    for (int a = 0; a < nvar; ++a) {
        strbuf_printf(&names, "%s%s", a ? " " : "", use[a].name);
        for (int s = 0; s < GQ_NSTIFF; ++s) {
            gq_job* g = &jobs[(a * GQ_NSTIFF + s) * np];
            double sec[GQ_NSCALE][GQ_MAX_PTS];
            int all_ok = 1, kinks = 0;
            for (int i = 0; i < np; ++i) {
                all_ok = all_ok && g[i].ok;
                kinks += g[i].kinks > 0;
            }
            failed += !all_ok;
            double mism[GQ_NSCALE], mean = 0.0, m2 = 0.0, tv = 0.0, smean = 0.0, s2 = 0.0,
                                    mabs = 0.0;
            const int m_big = k_scale[GQ_NSCALE - 1];
            int n_in = 0;
            for (int c = 0; c < GQ_NSCALE; ++c) {
                const int m = k_scale[c];
                double e[GQ_MAX_PTS];
                int ne = 0;
                for (int i = 0; i < np; ++i) {
                    sec[c][i] = NAN;
                    if (i - m >= 0 && i + m < np) {
                        sec[c][i] = (g[i + m].J - g[i - m].J) / (g[i + m].p - g[i - m].p);
                    }
                    if (i >= m_big && i + m_big < np && isfinite(sec[c][i])) {
                        e[ne++] = fabs(g[i].dJ - sec[c][i]);
                    }
                }
                mism[c] = median(e, ne);
            }
            for (int i = m_big; i + m_big < np; ++i, ++n_in) {
                mean += g[i].dJ;
                m2 += g[i].dJ * g[i].dJ;
                smean += sec[GQ_NSCALE - 1][i];
                s2 += sec[GQ_NSCALE - 1][i] * sec[GQ_NSCALE - 1][i];
                mabs += fabs(g[i].dJ - sec[GQ_NSCALE - 1][i]);
                if (i > m_big) {
                    tv += fabs(g[i].dJ - g[i - 1].dJ);
                }
            }
            mean /= n_in, smean /= n_in, mabs /= n_in;
            const double sd = sqrt(fmax(0.0, m2 / n_in - mean * mean));
            const double ssd = sqrt(fmax(0.0, s2 / n_in - smean * smean));
            /* the task's smoothed slope: the RMS of the coarse secant over the inner points */
            const double scale = fmax(sqrt(s2 / n_in), 1e-300);
            const double bias = (mean - smean) / scale;
            mabs /= scale;
            const double k = ctx->params[kidx] * def->stiff_scale[s];
            for (int c = 0; c < GQ_NSCALE; ++c) {
                mism[c] /= scale;
            }
            /* metrics at the case's stiffness (s == 1) */
            if (s == 1) {
                study_set_metricf(ctx->out, all_ok ? mism[0] : NAN,
                                  "gradient-quality.%s.mismatch_fine", use[a].name);
                study_set_metricf(ctx->out, all_ok ? mism[GQ_NSCALE - 1] : NAN,
                                  "gradient-quality.%s.mismatch_coarse", use[a].name);
                study_set_metricf(ctx->out, all_ok ? sd / scale : NAN, "gradient-quality.%s.spread",
                                  use[a].name);
                study_set_metricf(ctx->out, all_ok ? bias : NAN, "gradient-quality.%s.bias",
                                  use[a].name);
            }
            strbuf_printf(&tab, "%s,%.6g,%d,%d,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e\n",
                          use[a].name, k, all_ok, kinks, smean, mean, bias, sd / scale, ssd / scale,
                          tv / (scale * (n_in - 1)), mism[0], mism[1], mism[2], mabs);
            strbuf_printf(&md,
                          "| %s | %.3g | %d | %.4g | %.4g | %+.3g | %.3g | %.3g | %.3g | %.3g | "
                          "%.3g | %.3g | %.3g |\n",
                          use[a].name, k, kinks, smean, mean, bias, sd / scale, ssd / scale,
                          tv / (scale * (n_in - 1)), mism[0], mism[1], mism[2], mabs);
            for (int i = 0; i < np; ++i) {
                strbuf_printf(&pts, "%s,%.6g,%.9g,%.9e,%.9e,%.9e,%.9e,%d\n", use[a].name, k, g[i].p,
                              g[i].J, g[i].dJ, sec[0][i], sec[GQ_NSCALE - 1][i], g[i].kinks);
            }
        }
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/points.csv", dir);
    int rc = study_write_table(
        out, path, "variant,k,p,J,dJ_ift,secant_fine,secant_coarse,kink_steps", pts.s ? pts.s : "");
    snprintf(path, sizeof path, "%s/quality.csv", dir);
    if (rc == 0) {
        rc = study_write_table(out, path,
                               "variant,k,ok,points_with_kinks,secant_mean,ift_mean,bias,"
                               "ift_spread,secant_spread,ift_roughness,mismatch_fine,mismatch_mid,"
                               "mismatch_coarse,mismatch_coarse_mean",
                               tab.s ? tab.s : "");
    }
    if (rc == 0) {
        const double dp = p0 * (def->hi - def->lo) / (np - 1);
        study_report(
            ctx->out,
            "### gradient-quality — %s\n\n![gradient-quality](%s/gradient-quality.png)\n\n"
            "Task J = %s at T = %g s as a function of %s over [%g, %g] x its default %g (%d "
            "points, spacing %.3g) for every convex approximation and %s x {%g, %g, %g}%s%s "
            "(formulation-convex §9.7). dJ/dp by forward mode through the whole run (ccb/deriv.h) "
            "against the secants of the grid's values over 2, 6 and 16 intervals (fine, mid, "
            "coarse). All numbers relative to the coarse secant's RMS over the inner points: bias "
            "= mean gradient - mean coarse secant; mismatch = median |dJ/dp - secant| (and the "
            "mean against the coarse one, which the few points where J jumps dominate); spread = "
            "standard deviation over the inner points (how much the gradient changes between "
            "nearby inputs; the coarse secant's beside it); roughness = mean |change| between "
            "neighbouring points. points with kinks: inputs whose run had a step whose partials "
            "did not settle (a contact law at a kink: the gradient there is one-sided). Data: "
            "`%s/gradient-quality/quality.csv`, `points.csv`.\n\n"
            "| approximation | %s | points with kinks | coarse secant mean | gradient mean | bias "
            "| "
            "gradient spread | secant spread | roughness | mismatch fine | mid | coarse | coarse, "
            "mean |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n%s\n",
            def->what, cs->name, def->task, T, def->input, def->lo, def->hi, p0, np, dp,
            def->stiffness, def->stiff_scale[0], def->stiff_scale[1], def->stiff_scale[2],
            def->set ? ", with " : "", def->set ? def->set : "", cs->name, def->stiffness,
            md.s ? md.s : "");
        char vars[512];
        snprintf(vars, sizeof vars,
                 "variants='%s'; k0=%.6g; xlabel='%s'; ylabel='%s'; title='%s: gradient of %s'",
                 names.s ? names.s : "", ctx->params[kidx], def->input, def->task, cs->name,
                 def->task);
        study_plot(ctx->out, "gradient_quality.gp", dir, "gradient-quality", vars);
    }
    free(pts.s);
    free(tab.s);
    free(md.s);
    free(names.s);
    free(jobs);
    return rc != 0 ? rc : failed ? 1 : 0;
}
