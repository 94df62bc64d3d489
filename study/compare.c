/* compare: the tables and figures of `ccb compare` — every chosen variant on every chosen case
 * through the standard sweep (std.c), side by side:
 *   OUT/compare.csv   one row per case and variant: the errors over the case's ladder, the
 *                     observed order with its 95 % interval, mean and max Newton iterations per
 *                     step, mean kappa_2(H), failed runs, wall time per step;
 *   OUT/compare.md    the same, one table per case, the best value of each column in bold;
 *   OUT/compare_<metric>.png/.svg   one figure per metric (error at the finest step, order,
 *                     iterations, kappa, wall time per step) over cases and variants;
 *   OUT/<case>/compare/runs.csv     every run (the tidy table of the standard studies). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "study.h"

/* The metrics of the table: value of summary s; lower is better unless `higher`. */
typedef struct cmp_metric {
    const char* name;  /* compare_<name>.png */
    const char* label; /* column / axis */
    int higher;        /* 1: the largest value is best */
    int logscale;
} cmp_metric;
static const cmp_metric k_metrics[5] = {
    {"error", "error at the finest step", 0, 1},
    {"order", "observed order", 1, 0},
    {"iterations", "mean Newton iterations per step", 0, 0},
    {"kappa", "mean kappa_2(H)", 0, 1},
    {"wall", "wall time per step [s]", 0, 1},
};

static double metric_of(const std_summary* s, int m) {
    switch (m) {
    case 0: return s->npts > 0 ? s->error[s->npts - 1] : NAN;
    case 1: return s->adaptive ? NAN : s->fit.order;
    case 2: return s->iters_mean;
    case 3: return s->kappa_mean;
    default: return s->wall_per_step;
    }
}

/* best[k] over the rows of one case for column k; NAN if no finite value */
static double best_of(const double* v, int n, int higher) {
    double b = NAN;
    for (int i = 0; i < n; ++i) {
        if (isfinite(v[i]) && (isnan(b) || (higher ? v[i] > b : v[i] < b))) {
            b = v[i];
        }
    }
    return b;
}

static void md_value(strbuf* md, double v, double best, const char* fmt) {
    char buf[48];
    if (!isfinite(v)) { /* not applicable (kappa of a non-Newton solver, an explicit method's
                           iterations, the order of an adaptive variant) */
        strbuf_printf(md, " — |");
        return;
    }
    snprintf(buf, sizeof buf, fmt, v);
    if (isfinite(v) && v == best) {
        strbuf_printf(md, " **%s** |", buf);
    } else {
        strbuf_printf(md, " %s |", buf);
    }
}

/* ",value" with fmt, or "," where the value is not finite. */
static void csv_field(strbuf* b, const char* fmt, double v) {
    strbuf_printf(b, ",");
    if (isfinite(v)) {
        strbuf_printf(b, fmt, v);
    }
}

static int write_text(const char* out, const char* name, const char* text, char* msg, size_t n) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", out, name);
    return write_file(path, text ? text : "", text ? strlen(text) : 0, msg, n) != 0 ? CCB_E_IO : 0;
}

/* About 210 lines: compare.csv, compare.md and the per-metric tables come from one pass over the
 * summaries, grouped by case, with the best value of each column marked; splitting it would
 * pass the same running state to four writers. */
int compare_write(const char* out, const std_summary* s, int n, int quick, int figures,
                  int* figfail, char* err, size_t nerr) {
    strbuf csv = {0}, md = {0};
    *figfail = 0;
    strbuf_printf(&csv, "case,variant,kind");
    for (int j = 0; j < STD_MAX_DT; ++j) {
        strbuf_printf(&csv, ",x%d,e%d", j + 1, j + 1);
    }
    strbuf_printf(&csv, ",order,order_ci95,iterations_mean,iterations_max,kappa_mean,failures,"
                        "wall_per_step [s],error_metric,max_momentum_residual,"
                        "max_signorini [N s m],max_cone_violation [N s],max_dissipation_gap [J],"
                        "max_complementarity [J]\n");
    strbuf_printf(
        &md,
        "# ccb compare%s\n\nEvery variant on every case through the standard sweep "
        "(`ccb study CASE convergence`): the error of the case's metric at each step of "
        "its ladder (adaptive variants: at each accuracy level), the observed order with "
        "its 95 %% interval, Newton iterations per step pooled over the runs, mean "
        "kappa_2(H) (Newton variants), failed runs, wall time per step, and the "
        "largest per-step physics metrics of its runs (docs/formulation-convex.md §14: "
        "relative momentum residual, Signorini, friction cone, maximum dissipation, "
        "complementarity with De Saxcé's correction). The best "
        "value of each column is in bold (smallest; largest order); — marks a value that does "
        "not apply (kappa without Newton, iterations of an explicit method, the order "
        "of an adaptive variant) or a failed run. Runs: "
        "`CASE/compare/runs.csv`.\n\n",
        quick ? " --quick (the quick tier's ladders)" : "");
    for (int a = 0; a < n;) {
        int b = a;
        while (b < n && strcmp(s[b].case_name, s[a].case_name) == 0) {
            ++b;
        }
        /* the case's table: fixed-step ladder from its first fixed variant */
        const std_summary* lad = NULL;
        for (int i = a; i < b && !lad; ++i) {
            lad = s[i].adaptive ? NULL : &s[i];
        }
        const int nx = lad ? lad->npts : 0;
        strbuf_printf(&md, "## %s (%s [%s])\n\n| variant |", s[a].case_name, s[a].error_name,
                      s[a].error_unit);
        for (int j = 0; j < nx; ++j) {
            strbuf_printf(&md, " dt = %g |", lad->x[j]);
        }
        strbuf_printf(&md, " order | mean it. | max it. | mean kappa | failed | wall/step [us] |"
                           " momentum | Signorini [N s m] | cone [N s] | dissipation [J] |"
                           " complementarity [J] |\n|---|");
        for (int j = 0; j < nx + 11; ++j) {
            strbuf_printf(&md, "---|");
        }
        strbuf_printf(&md, "\n");
        double col[64];
        double best_e[STD_MAX_DT], best_m[6], best_p[5];
        for (int m = 0; m < 5; ++m) { /* the physics metrics: smallest is best */
            int k = 0;
            for (int i = a; i < b && k < 64; ++i) {
                col[k++] = s[i].phys_max[m];
            }
            best_p[m] = best_of(col, k, 0);
        }
        for (int j = 0; j < nx; ++j) {
            int k = 0;
            for (int i = a; i < b && k < 64; ++i) {
                col[k++] = s[i].adaptive ? NAN : s[i].error[j];
            }
            best_e[j] = best_of(col, k, 0);
        }
        for (int m = 1; m < 5; ++m) {
            int k = 0;
            for (int i = a; i < b && k < 64; ++i) {
                col[k++] = metric_of(&s[i], m);
            }
            best_m[m] = best_of(col, k, k_metrics[m].higher);
        }
        {
            int k = 0;
            for (int i = a; i < b && k < 64; ++i) {
                col[k++] = s[i].iters_max;
            }
            best_m[0] = best_of(col, k, 0);
        }
        {
            int k = 0;
            for (int i = a; i < b && k < 64; ++i) {
                col[k++] = s[i].failures;
            }
            best_m[5] = best_of(col, k, 0);
        }
        for (int i = a; i < b; ++i) {
            const std_summary* r = &s[i];
            strbuf_printf(&csv, "%s,%s,%s", r->case_name, r->variant,
                          r->adaptive ? "adaptive" : "fixed");
            for (int j = 0; j < STD_MAX_DT; ++j) {
                if (j < r->npts) {
                    strbuf_printf(&csv, ",%g", r->x[j]);
                    csv_field(&csv, "%.6e", r->error[j]);
                } else {
                    strbuf_printf(&csv, ",,");
                }
            }
            /* a value that does not exist (the order interval of a two-point ladder, kappa of
             * a solver without one) is an empty field, never the text nan */
            csv_field(&csv, "%.6f", metric_of(r, 1));
            csv_field(&csv, "%.6f", r->fit.ci95);
            csv_field(&csv, "%.4f", r->iters_mean);
            csv_field(&csv, "%.0f", r->iters_max);
            csv_field(&csv, "%.6e", r->kappa_mean);
            strbuf_printf(&csv, ",%d", r->failures);
            csv_field(&csv, "%.6e", r->wall_per_step);
            strbuf_printf(&csv, ",%s", r->error_name);
            for (int k = 0; k < 5; ++k) { /* formulation-convex §14; empty where n/a */
                strbuf_printf(&csv, ",");
                if (isfinite(r->phys_max[k])) {
                    strbuf_printf(&csv, "%.6e", r->phys_max[k]);
                }
            }
            strbuf_printf(&csv, "\n");
            if (r->adaptive) { /* its accuracy levels and errors in the name cell */
                strbuf_printf(&md, "| %s (levels", r->variant);
                for (int j = 0; j < r->npts; ++j) {
                    strbuf_printf(&md, "%s %g: %.2e", j ? ";" : "", r->x[j], r->error[j]);
                }
                strbuf_printf(&md, ") |");
                for (int j = 0; j < nx; ++j) {
                    strbuf_printf(&md, " — |");
                }
            } else {
                strbuf_printf(&md, "| %s |", r->variant);
                for (int j = 0; j < nx; ++j) {
                    md_value(&md, j < r->npts ? r->error[j] : NAN, best_e[j], "%.3e");
                }
            }
            if (!r->adaptive && isfinite(r->fit.ci95)) {
                char ord[48];
                snprintf(ord, sizeof ord, "%.2f ± %.2f", r->fit.order, r->fit.ci95);
                strbuf_printf(&md, r->fit.order == best_m[1] ? " **%s** |" : " %s |", ord);
            } else {
                md_value(&md, metric_of(r, 1), best_m[1], "%.2f");
            }
            md_value(&md, r->iters_mean, best_m[2], "%.2f");
            md_value(&md, r->iters_max, best_m[0], "%.0f");
            md_value(&md, r->kappa_mean, best_m[3], "%.3g");
            md_value(&md, r->failures, best_m[5], "%.0f");
            md_value(&md, 1e6 * r->wall_per_step, 1e6 * best_m[4], "%.3g");
            for (int m = 0; m < 5; ++m) {
                md_value(&md, r->phys_max[m], best_p[m], "%.2g");
            }
            strbuf_printf(&md, "\n");
        }
        strbuf_printf(&md, "\n");
        a = b;
    }
    int rc = write_text(out, "compare.csv", csv.s, err, nerr);
    /* one figure per metric: a matrix of cases x variants (gnuplot histogram) */
    for (int m = 0; m < 5 && rc == 0; ++m) {
        strbuf dat = {0};
        char vnames[64][32];
        int nvn = 0;
        for (int i = 0; i < n; ++i) {
            int seen = 0;
            for (int k = 0; k < nvn; ++k) {
                seen |= strcmp(vnames[k], s[i].variant) == 0;
            }
            if (!seen && nvn < 64) {
                snprintf(vnames[nvn++], sizeof vnames[0], "%s", s[i].variant);
            }
        }
        strbuf_printf(&dat, "case");
        for (int k = 0; k < nvn; ++k) {
            strbuf_printf(&dat, ",%s", vnames[k]);
        }
        strbuf_printf(&dat, "\n");
        int plottable = 0; /* values the figure can draw (finite; > 0 on a log scale) */
        for (int a = 0; a < n;) {
            int b = a;
            while (b < n && strcmp(s[b].case_name, s[a].case_name) == 0) {
                ++b;
            }
            strbuf_printf(&dat, "%s", s[a].case_name);
            for (int k = 0; k < nvn; ++k) {
                double v = NAN;
                for (int i = a; i < b; ++i) {
                    if (strcmp(s[i].variant, vnames[k]) == 0) {
                        v = metric_of(&s[i], m);
                    }
                }
                strbuf_printf(&dat, isfinite(v) ? ",%.6e" : ",NaN", v);
                plottable += isfinite(v) && (!k_metrics[m].logscale || v > 0);
            }
            strbuf_printf(&dat, "\n");
            a = b;
        }
        char name[64];
        snprintf(name, sizeof name, "compare_%s.csv", k_metrics[m].name);
        rc = write_text(out, name, dat.s, err, nerr);
        free(dat.s);
        if (rc == 0 && figures && plottable == 0) { /* e.g. explicit methods: no iterations */
            strbuf_printf(&md, "(%s: no variant has a value to draw)\n\n", k_metrics[m].label);
        } else if (rc == 0 && figures) {
            char script[PATH_MAX], base[PATH_MAX + 80], vars[512], msg[600];
            snprintf(script, sizeof script, "%s/analysis/gnuplot/compare.gp", ccb_source_dir());
            snprintf(base, sizeof base, "%s/compare_%s", out, k_metrics[m].name);
            snprintf(vars, sizeof vars, "file='%s'; nvar=%d; ylabel='%s'; logy=%d", name, nvn,
                     k_metrics[m].label, k_metrics[m].logscale);
            if (ccb_an_plot(script, out, base, vars, msg, sizeof msg) != 0) {
                study_log("figure compare_%s: %s", k_metrics[m].name, msg);
                ++*figfail; /* an output that was asked for and not made */
            } else {
                for (int k = 0; k < 2; ++k) { /* compare's outputs (inventory.c) */
                    char f[PATH_MAX + 90];
                    snprintf(f, sizeof f, "%s.%s", base, k ? "svg" : "png");
                    inventory_note_file(f);
                }
            }
            strbuf_printf(&md, "![%s](compare_%s.png)\n\n", k_metrics[m].label, k_metrics[m].name);
        }
    }
    if (rc == 0) {
        rc = write_text(out, "compare.md", md.s, err, nerr);
    }
    free(csv.s);
    free(md.s);
    return rc;
}
