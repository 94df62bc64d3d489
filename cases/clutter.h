/* cases/clutter.h — what the files of the clutter case share (not installed;
 * docs/architecture.md §2): its parameters and observables, the four models, the run helpers and
 * the declarations of the studies defined in clutter_pile.c (fig15-16, fig17) and
 * clutter_stiffness.c (fig18-19). clutter.c holds the model, the other studies and the case's
 * descriptor. */
#ifndef CCB_CASE_CLUTTER_H
#define CCB_CASE_CLUTTER_H

#include "analysis.h"
#include "case_model.h"
#include "runs.h"

enum {
    P_K,
    P_D,
    P_TAU,
    P_MU,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_G,
    P_MARGIN,
    P_SIDE,
    P_LEVELS,
    P_SPIN,
    P_MAXIT,
    P_COUNT
};

enum { O_NC, O_TOUCH, O_PEN, O_SPEED, O_SLIP, O_OUT, O_KE, O_STMIN, O_STMEAN, O_STMAX, O_COUNT };

#define NMODEL 4
extern const ccb_approx* const clutter_models[NMODEL];

/* A run of `model` at dt with kappa(H) per step, its files at the case's file_rows. */
void clutter_config(study_ctx* ctx, run_config* cfg, const char* study, const char* label,
                    const ccb_approx* ap, double dt, int kappa);

/* Windows over time of a run (analysis/extract.h). */
typedef ccb_an_window window_means;
window_means clutter_means(const run_record* r, double t0, double t1, int col);
double clutter_obs_max(const run_record* r, double t0, double t1, int col);
double clutter_obs_median(const run_record* r, double t0, double t1, int col);

/* A figure of the clutter (analysis/gnuplot/clutter_FIG.gp) of the four models. */
/* The first sentence of the reports of the studies of ICF's clutter figures (clutter_config). */
#define CLUTTER_ONE_SOLVE                                                                          \
    "Every step is one Newton solve of the whole scene (`--islands off`; ccb's default solves "    \
    "each island alone, formulation-convex §8.10), since the paper counts that solve's "          \
    "iterations. "
#define CLUTTER_PLOT(FIG, EXTRA, TITLE)                                                            \
    {                                                                                              \
        .script = "clutter_" FIG ".gp", .out = FIG,                                                \
        .vars = "models='sap lagged lagged-reg similar'; titles='SAP Lagged Lagged-reg "           \
                "Similar'; " EXTRA " title='" TITLE "'"                                            \
    }

/* The ensembles of the chaotic pile (clutter_pile.c): the figures' run and FIG15_NENS - 1 more
 * initial states, each position one ulp up or down; the quick tier reads the first
 * FIG15_NENS_QUICK of them. The rule for the quick size, set from the spreads measured before the
 * quick verdicts were read: the smallest odd n >= 3 for which every quick gate on an ensemble mean
 * keeps its bound at least 4 standard errors (the larger standard deviation of one pile's value:
 * over the full ensemble, or over the 35 piles of `ccb gate clutter --sensitivity`, divided by
 * sqrt(n)) from the full ensemble's mean, every gate on a median having all FIG15_NENS members on
 * its passing side. CLU-4f (mean 0.833, SD 0.029) has 10 standard errors at n = 3. CLU-3b (0.880,
 * SD 0.054 over the ensemble, 0.09 over the 35 piles) would need n >= 9: it is gated in the full
 * tier only (docs/cases.md §6.4). */
#define FIG15_NENS 10
#define FIG15_NENS_QUICK 3
/* The ensemble's size in ctx's tier */
int clutter_nens(const study_ctx* ctx);
/* The ensemble statistics (analysis.h) of the first n members */
ccb_an_ensemble clutter_ens_of(const double* x, int n);
/* The metrics NAME.mean, .sem, .median, .ens_min, .ens_max of an ensemble quantity, and its row
 * in the table (ENSEMBLE_TABLE) */
void clutter_ens_set(study_out* out, const char* name, const double* x, int n, const char* table);
#define ENSEMBLE_TABLE(NAME)                                                                       \
    {                                                                                              \
        .name = NAME,                                                                              \
        .md = "| quantity | figures' run | mean | s.e. | median | min | max "                      \
              "|\n|---|---|---|---|---|---|---|\n",                                                \
        .cells = "`%s`|%.4g|%.4g|%.2g|%.4g|%.4g|%.4g"                                              \
    }

/* The study newton-trace (clutter_step.c) */
int clutter_newton_trace_run(study_ctx* ctx, study_out* out);
int clutter_newton_trace_check(const double* P, char* msg, size_t n);

extern const fig_study clutter_fig15, clutter_fig17, clutter_fig18;

#endif
