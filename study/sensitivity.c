/* sensitivity: how much of a gate's verdict is round-off (`ccb gate --sensitivity K`;
 * cases.md §10). The studies of a tier run again under perturbations that change nothing but the
 * round-off: another linear-solver back-end or elimination order, the contact list reversed, the
 * initial state moved by one ulp. Per gate:
 *
 *   nominal m0     the gate's value in the ordinary run;
 *   spread  s      max over the perturbations of |m_p - m0| (0 when every run gives m0 exactly);
 *   margin  M      the distance of m0 from its bound on the side it lies (bound - m0 for <=, <;
 *                  m0 - bound for >=, >; min(m0 - lo, hi - m0) for "in"; negative when m0
 *                  fails, as an expected failure does), so |M| is how far the verdict is from
 *                  flipping;
 *   verdict        "flips" if a perturbed run changes PASS/FAIL (or an expected failure's XFAIL
 *                  into XPASS or XDRIFT); "fragile" if |M| < 3 s; "robust" otherwise ("exact"
 *                  when s = 0).
 *
 * A fragile or flipping gate is not a verdict: its bound sits inside the round-off scatter of the
 * quantity it judges. The console lists them, ROOT/CASE/sensitivity.csv has every gate and
 * ROOT/sensitivity.md the tables. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "study.h"

/* The perturbations, in the order --sensitivity K takes the first K. */
typedef struct perturbation {
    const char* name;  /* directory under ROOT/sensitivity/ */
    const char* what;  /* one line for the console and the report */
    int linear_solver; /* ccb_linear_solver, or -1: unchanged */
    int pattern_near;  /* 0/1, or -1: unchanged */
    unsigned perturb;  /* RUN_PERTURB_* */
} perturbation;
static const perturbation k_perturbations[SUITE_NPERTURB] = {
    {"cholmod", "CHOLMOD's supernodal Cholesky for every Newton system (another elimination order)",
     CCB_LINSOLVE_CHOLMOD, -1, 0},
    {"contacts-reversed", "the contacts of every step in reversed order", -1, -1,
     RUN_PERTURB_CONTACTS},
    {"ulp", "every initial generalized position one ulp up", -1, -1, RUN_PERTURB_ULP},
    {"pattern-all", "the Hessian's block pattern of every contact (another AMD order)", -1, 0, 0},
    {"dense", "the dense Cholesky of the assembled Hessian", CCB_LINSOLVE_DENSE, -1, 0},
    {"block", "the block Cholesky also for one clique", CCB_LINSOLVE_BLOCK, -1, 0},
};

const char* suite_perturbation_name(int p) {
    return k_perturbations[p].name;
}
const char* suite_perturbation_what(int p) {
    return k_perturbations[p].what;
}

void suite_perturbation_apply(study_ctx* ctx, int p) {
    const perturbation* k = &k_perturbations[p];
    if (k->linear_solver >= 0) {
        ctx->sim.newton.linear_solver = (ccb_linear_solver)k->linear_solver;
    }
    if (k->pattern_near >= 0) {
        ctx->sim.newton.pattern_near = k->pattern_near;
    }
    ctx->perturb = k->perturb;
}

struct suite_sensitivity {
    int k, ng;
    ccb_gate_result* g0; /* [ng] the nominal evaluation */
    double* m;           /* [k][ng] the perturbed values */
    int* outcome;        /* [k][ng] the perturbed results (outcome()) */
};

/* 0 skip, 1 PASS, 2 FAIL, 3 XFAIL, 4 XPASS, 5 XDRIFT, 6 missing */
static int outcome(const ccb_gate_result* g) {
    if (!g->evaluated) {
        return 0;
    }
    if (isnan(g->measured)) {
        return 6;
    }
    if (g->expect_fail) {
        return g->pass ? 4 : g->drifted ? 5 : 3;
    }
    return g->pass ? 1 : 2;
}

static int evaluate(study_ctx* ctx, ccb_gate_result* g, int* ng) {
    char path[PATH_MAX], msg[600];
    suite_gate_file(ctx->cs, path, sizeof path);
    if (ccb_gates_evaluate(path, ctx->tier, study_get_metric, ctx->out, g, SUITE_MAX_GATES, ng, msg,
                           sizeof msg) != 0) {
        return study_fail(ctx->out, CCB_E_INVALID, "%s", msg);
    }
    return 0;
}

suite_sensitivity* suite_sensitivity_begin(study_ctx* ctx, int k) {
    suite_sensitivity* sv = calloc(1, sizeof *sv);
    if (sv != NULL) {
        sv->k = k;
        sv->g0 = calloc(SUITE_MAX_GATES, sizeof *sv->g0);
        sv->m = calloc((size_t)k * SUITE_MAX_GATES, sizeof *sv->m);
        sv->outcome = calloc((size_t)k * SUITE_MAX_GATES, sizeof *sv->outcome);
    }
    if (sv == NULL || !sv->g0 || !sv->m || !sv->outcome) {
        study_fail(ctx->out, CCB_E_NOMEM, "--sensitivity: out of memory");
        suite_sensitivity_free(sv);
        return NULL;
    }
    if (evaluate(ctx, sv->g0, &sv->ng) != 0) {
        suite_sensitivity_free(sv);
        return NULL;
    }
    return sv;
}

int suite_sensitivity_add(suite_sensitivity* sv, study_ctx* pc, int p) {
    ccb_gate_result* g = calloc(SUITE_MAX_GATES, sizeof *g);
    int ng = 0;
    const int rc =
        g == NULL ? study_fail(pc->out, CCB_E_NOMEM, "--sensitivity: out of memory")
        : evaluate(pc, g, &ng) != 0 ? CCB_E_INVALID
        : ng != sv->ng
            ? study_fail(pc->out, CCB_E_INTERNAL,
                         "--sensitivity: %d gates under perturbation %d, %d without", ng, p, sv->ng)
            : 0;
    if (rc != 0) {
        free(g);
        return rc;
    }
    for (int i = 0; i < ng; ++i) {
        sv->m[(size_t)p * SUITE_MAX_GATES + (size_t)i] = g[i].measured;
        sv->outcome[(size_t)p * SUITE_MAX_GATES + (size_t)i] = outcome(&g[i]);
    }
    free(g);
    return 0;
}

/* The margin of value m to gate g's bound (see the head of this file). */
static double margin(const ccb_gate_result* g, double m) {
    if (strcmp(g->op, "in") == 0) {
        return fmin(m - g->lo, g->hi - m);
    }
    return g->op[0] == '<' ? g->lo - m : m - g->lo;
}

int suite_sensitivity_finish(suite_sensitivity* sv, const study_ctx* ctx, strbuf* md,
                             int* nfragile) {
    *nfragile = 0;
    const case_desc* cs = ctx->cs;
    strbuf csv = {0};
    int fragile = 0, evaluated = 0, worst = -1;
    double worst_ratio = INFINITY;
    strbuf_printf(
        md,
        "\n## %s (%s tier)\n\n| gate | metric | bound | nominal | min | max | spread "
        "| margin | margin / spread | verdict |\n|---|---|---|---|---|---|---|---|---|---|\n",
        cs->name, case_tier_name(ctx->tier));
    for (int i = 0; i < sv->ng; ++i) {
        const ccb_gate_result* g = &sv->g0[i];
        const int o0 = outcome(g);
        if (o0 == 0) {
            continue;
        }
        evaluated++;
        const double m0 = g->measured;
        double lo = m0, hi = m0, spread = 0;
        int flips = 0, missing = isnan(m0);
        for (int p = 0; p < sv->k; ++p) {
            const double m = sv->m[(size_t)p * SUITE_MAX_GATES + (size_t)i];
            const int op = sv->outcome[(size_t)p * SUITE_MAX_GATES + (size_t)i];
            missing |= isnan(m);
            flips |= op != o0;
            if (!isnan(m) && !isnan(m0)) {
                lo = fmin(lo, m);
                hi = fmax(hi, m);
                spread = fmax(spread, fabs(m - m0));
            }
        }
        const double mg = isnan(m0) ? NAN : margin(g, m0);
        const double ratio = spread > 0 ? fabs(mg) / spread : INFINITY;
        const char* verdict = missing       ? "missing"
                              : flips       ? "flips"
                              : ratio < 3.0 ? "fragile"
                              : spread == 0 ? "exact"
                                            : "robust";
        const int bad = missing || flips || ratio < 3.0;
        fragile += bad;
        if (!missing && (worst < 0 || ratio < worst_ratio)) {
            worst = i;
            worst_ratio = ratio;
        }
        char bound[96], r[32];
        ccb_gate_bound(g, bound, sizeof bound);
        snprintf(r, sizeof r, isinf(ratio) ? "inf" : "%.3g", ratio);
        strbuf_printf(&csv, "%s,%s,\"%s\",%.17g,%.17g,%.17g,%.17g,%.17g,%s,%s\n", g->id, g->metric,
                      bound, m0, lo, hi, spread, mg, r, verdict);
        strbuf_printf(md, "| %s | `%s` | %s | %.6g | %.6g | %.6g | %.3g | %.3g | %s | %s%s%s |\n",
                      g->id, g->metric, bound, m0, lo, hi, spread, mg, r, bad ? "**" : "", verdict,
                      bad ? "**" : "");
        if (bad) {
            printf("%-18s %-8s %-50s nominal %.6g, range [%.6g, %.6g], margin %.3g, spread %.3g\n",
                   g->id, verdict, g->metric, m0, lo, hi, mg, spread);
        }
    }
    strbuf_printf(md, "\n%d gates evaluated, %d not a verdict (fragile, flips or missing)",
                  evaluated, fragile);
    if (worst >= 0) {
        strbuf_printf(md, "; smallest margin / spread: %s (%.3g)", sv->g0[worst].id, worst_ratio);
    }
    strbuf_printf(md, ".\n");
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s/sensitivity.csv", ctx->out_root, cs->name);
    int rc = study_write_table(
        ctx->out, path,
        "gate,metric,bound,nominal,min,max,spread,margin,margin_over_spread,verdict", csv.s);
    free(csv.s);
    if (rc == 0 && md->failed) {
        rc = study_fail(ctx->out, CCB_E_NOMEM, "--sensitivity: out of memory");
    }
    if (rc != 0) {
        return rc;
    }
    printf("%s: %d gates, %d not a verdict under %d perturbation(s)\n", cs->name, evaluated,
           fragile, sv->k);
    *nfragile = fragile;
    return 0;
}

void suite_sensitivity_head(strbuf* md, int k) {
    strbuf_printf(md,
                  "Generated by `ccb gate --sensitivity %d` with libccb %s, git revision %s. "
                  "Every study of the tier ran again under each perturbation below; per gate, "
                  "the spread is the largest change of its value, the margin the distance of "
                  "the nominal value from its bound (negative: on the failing side, as for an "
                  "expected failure). A gate is a verdict when its margin is at least 3x its "
                  "spread and no perturbation changes its result (cases.md §10).\n\n"
                  "Perturbations:\n\n",
                  k, ccb_version(), ccb_revision());
    for (int p = 0; p < k; ++p) {
        strbuf_printf(md, "%d. `%s`: %s\n", p + 1, k_perturbations[p].name,
                      k_perturbations[p].what);
    }
}

void suite_sensitivity_free(suite_sensitivity* sv) {
    if (sv) {
        free(sv->g0);
        free(sv->m);
        free(sv->outcome);
        free(sv);
    }
}
