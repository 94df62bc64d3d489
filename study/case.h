/* study/case.h — what a case is (docs/architecture.md §2): the descriptor types of a canonical
 * case, its parameters and the declarations of its studies, and the handling of its parameter
 * table (case_params.c). It is the engine's contract with the cases: the engine runs any
 * descriptor it is handed and knows no case by name; the cases (cases/) fill descriptors, the
 * list of them is cases/registry.h, the helpers the case files share cases/case_model.h.
 * Nothing here runs anything: the engine that runs studies is study/study.h.
 *
 * A case is a descriptor (docs/architecture.md §2): name, paper, parameter table with defaults,
 * units, valid ranges and source tags, a model builder, observables recorded per step, and named
 * studies. A study is a list of independent runs plus the analysis of their records; it writes
 * tables and figures under results/<case>/<study>/ and metrics that the gates of
 * reference/<case>.json compare. */
#ifndef CCB_CASE_H
#define CCB_CASE_H

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>

#include "analysis.h"
#include "ccb/ccb.h"
#include "extract.h"
#include "results.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
#define CASE_MAX_PARAMS 32
#define CASE_MAX_Q 16      /* position coordinates a case may have */
#define CASE_MAX_ROOT 1024 /* longest results root accepted by --out */

typedef struct case_param {
    const char* name;     /* --set name=value */
    double def;           /* default */
    const char* unit;     /* "kg", "-" */
    double lo, hi;        /* valid range */
    int lo_open, hi_open; /* 1: bound excluded */
    int integer;          /* 1: only whole numbers */
    const char* meaning;
    const char* tag; /* source tag of cases.md: "[ICF]", "[default?]", "[derived]" */
    /* NULL: every run of the case reads it. Else the runs that read it: "approx=NAME" (Newton
     * on that convex approximation; e.g. tau_d, which only SAP's constraint reads: spec
     * formulation-convex §5), "PARAM=VALUE" (another parameter of the case has that value; e.g.
     * the coin's rings, read only by the polar layout) or "PARAM!=VALUE" (it has another value;
     * e.g. the aniso case's force angle, read only when there is a force). A --set of a parameter that no run of a
     * command reads is refused (issue 44, part 3; case_param_read). */
    const char* read_if;
} case_param;

struct study_ctx;
struct study_batch;
struct run_record;

/* What a peer run (the variants mujoco, mujoco-k: reference/peers/mujoco) reports of its contacts
 * after a step, beside the state. */
typedef struct run_peer_step {
    int ncon;             /* contacts */
    double pen_mean;      /* mean penetration of the penetrating contacts [m] (0: none) */
    double pen_max;       /* largest penetration [m] */
    const double* f_body; /* total contact force on each body of the model, world frame [N]:
                             3 per body (bodies that do not move under forces: 0) */
} run_peer_step;

/* One run of a paper-figure study (figure.c). */
typedef struct fig_run {
    const char* variant;        /* registry name (study/variant.c) */
    const char* label;          /* NULL: <variant>_dt<dt> */
    const char* set;            /* parameter overrides "name=value ...", NULL: none */
    double dt;                  /* 0: the study's */
    const char* expect_failure; /* NULL, or why the run is expected to fail */
} fig_run;

/* A convergence sweep of a paper-figure study (cases.md §1.4): every variant of the study at
 * every dt of `dts` (descending) against Lagged at dt_ref = dts[ndt-1] / 10, e_q = RMS over
 * [0, T] of |q - q_ref| on the coarse grid. Runs go to CASE/STUDY/<tag>-<variant>_dt<dt>, the
 * table to errors_<tag>.csv; metrics <metric>.<tag>.<variant>.e_q.dt<dt>, .order (least squares
 * over all dts) and .tail_ratio (e at the smallest dt over e at the next). */
#define SWEEP_MAX_DT 8
typedef struct fig_sweep {
    const char* tag;
    const char* set; /* parameter overrides of this sweep "name=value ...", NULL: none */
    double dts[SWEEP_MAX_DT];
    int ndt;
} fig_sweep;

/* What the engine hands to a declaration's finish: the runs, and the results of the sweeps. */
#define FIG_MAX_VARIANTS 16
typedef struct fig_sweep_result {
    const fig_sweep* decl;
    double P[CASE_MAX_PARAMS]; /* the sweep's parameters */
    int nvariants;
    char variant[FIG_MAX_VARIANTS][32];
    double dt_ref;
    double e[FIG_MAX_VARIANTS][SWEEP_MAX_DT];
    double order[FIG_MAX_VARIANTS];
} fig_sweep_result;
typedef struct fig_data {
    const struct study_batch* b; /* the study's runs, in the order of its list */
    const fig_sweep_result* sw;  /* the sweeps' results, in declaration order */
    int nsw;
} fig_data;

/* The runs of a case's `peers` study (figure.c): SAP, Similar, Lagged and every peer variant
 * (reference/peers/peer.h) at the case's step, labelled by their variant names; a peer whose
 * engine this build lacks, or whose library does not open, is left out. */
#define FIG_PEER_NRUNS 12
extern const fig_run fig_peer_runs[FIG_PEER_NRUNS];
/* X(variant, a) for each variant of that list, in its order (a: passed through), for a list of
 * one's own (the grasp's: each variant at two frequencies); FIG_PEER_RUN_LIST(set): the list
 * with parameter overrides `set` on every run (the box's: its normal direction free), as an
 * initializer. */
/* clang-format off */
#define FIG_PEER_VARIANTS(X, a)                                                                    \
    X("sap", a) X("similar", a) X("lagged", a) X("mujoco", a) X("mujoco-k", a)                    \
    X("mujoco-pgs", a) X("mujoco-cg", a) X("mujoco-pyramidal", a) X("ode-worldstep", a)           \
    X("ode-quickstep", a) X("bullet", a) X("bullet-mlcp-dantzig", a)
/* clang-format on */
#define FIG_PEER_RUN(v, s) {.variant = v, .label = v, .set = s},
#define FIG_PEER_RUN_LIST(s)                                                                       \
    { FIG_PEER_VARIANTS(FIG_PEER_RUN, s) }

/* The physics claims of a case's `peers` study, evaluated on each of its runs (issue 48): one row
 * per run and claim in the study's table "claims" (FIG_CLAIMS_TABLE, its file claims.csv), with
 * the measured value, the bound and the verdict. The verdict is information: an outside engine
 * that fails a claim is a finding, not a failed gate; `ccb reproduce` gathers every case's
 * claims into one table across engines (engines.md). A claim restates a gate of the case (its
 * metric on one run, its bound): the bound was the paper's before any peer ran. */
typedef struct peer_claim {
    const char* id;        /* the gate it restates, e.g. "SPH-1" */
    const char* statement; /* the physics, one line */
    const char* op;        /* "<=", "<", ">=", ">" */
    double bound;
} peer_claim;
/* One row: the claim on run `run` (variant name) of case `cs`, measured `value` (NaN: the run
 * failed or the quantity is undefined: FAIL). */
void fig_claim(study_out* out, const char* cs, const char* run, const peer_claim* c, double value);
/* One run of a peers study: its claims (claims[c] measured values[c]; NaN for all if the run
 * failed) and the start of its row in the table "runs": its variant name (into name) and "ok" or
 * "failed". 1 if the run finished (the caller adds its cells), else 0 (the caller may add what
 * it says of a failure). */
int fig_peer_run(study_out* out, const char* cs, const struct run_record* r,
                 const peer_claim* claims, const double* values, int n, char* name,
                 size_t name_size);
/* The run of variant `name` at step dt in b, or NULL. */
const struct run_record* fig_peer_run_at(const struct study_batch* b, const char* name, double dt);
/* A variant's own convergence in a peers study (a restated order gate): e[j], the e_q of its run
 * at dts[j] against its run at dt_ref (ccb_an_rms_error; NAN where a run failed or is missing),
 * and the observed order over them (ccb_an_order; NAN: fewer than two errors). */
double fig_peer_order(const struct study_batch* b, const char* name, const double* dts, int n,
                      double dt_ref, double* e);
/* 1 if r is labelled by its variant's name: a variant's run at the study's step, where the study
 * also has runs at other steps (a restated order gate's, labelled <variant>_dt<dt>). */
int fig_peer_main(const struct run_record* r);
/* A restated order gate on a variant (fig_peer_order): its row in the study's table
 * "convergence" (the variant, e at each of the n <= SWEEP_MAX_DT steps, the order) and the metric
 * peers.<name>.order; returns abs(order - 1), the claim's value. */
double fig_peer_convergence(study_out* out, const struct study_batch* b, const char* name,
                            const double* dts, int n, double dt_ref);
/* The table of fig_peer_convergence with three steps (their texts a, b, c, in seconds). */
#define FIG_PEER_CONVERGENCE_TABLE(a, b, c)                                                        \
    {                                                                                              \
        .name = "convergence", .file = "convergence.csv",                                          \
        .header = "run,e_q dt=" a " [m],e_q dt=" b " [m],e_q dt=" c " [m],order",                  \
        .md = "| run | e_q at " a " s | at " b " s | at " c " s | observed order |\n"              \
              "|---|---|---|---|---|\n",                                                           \
        .cells = "%s|%.3g|%.3g|%.3g|%.3f"                                                          \
    }
/* The texts "peer_runs" and "peer_titles" for a peers study's figure: the labels of b's runs
 * that finished (its fig_peer_main runs, if it has any), without mujoco-k's (whose blow-up would
 * set the axes' scales); and a value
 * "ran_<engine>" (ran_mujoco, ran_ode, ran_bullet) for each engine with a run in b, for the
 * report's {?ran_ode}...{/} paragraphs. */
void fig_peer_texts(study_out* out, const struct study_batch* b);
/* 1 if value satisfies the claim (NaN never does). */
int fig_claim_holds(const peer_claim* c, double value);
#define FIG_CLAIMS_TABLE                                                                           \
    {                                                                                              \
        .name = "claims", .file = "claims.csv",                                                    \
        .header = "case,run,claim,statement,value,op,bound,verdict",                               \
        .cells = "%s|%s|%s|%s|%.6g|%s|%.6g|%s",                                                    \
        .md = "| case | run | claim | statement | measured | | bound | verdict |\n"                \
              "|---|---|---|---|---|---|---|---|\n",                                               \
        .md_cells = "%s|%s|%s|%s|%.4g|%s|%.4g|%s"                                                  \
    }

/* Index of a variant in a sweep's results (-1: not there). */
int fig_variant_index(const fig_sweep_result* sw, const char* variant);

/* A figure of a declaration: analysis/gnuplot/<script>, drawn to CASE/<out>.png with datadir
 * (the study's directory) and out set, then `vars`, a template of the study's results
 * (study/result.c: "zlo={zlo|%.6f}" quotes a value of the finish). */
typedef struct fig_plot {
    const char* script;
    const char* out;
    const char* vars;
} fig_plot;

/* A paper-figure study as a declaration: its runs, what each run contributes to the study's
 * table and metrics, what the runs say together, its figures. The engine (figure.c) makes the
 * run list, executes it (in parallel, through the run cache), writes CASE/STUDY/table.csv (one
 * row per run), runs the sweeps, writes the report section and draws the figures. */
typedef struct fig_study {
    const char* claim;    /* the paper's claim (the study's purpose where the figure is the
                               suite's own, "ccb ..."): the report section's first paragraph */
    double dt, t_final;   /* 0: the case's */
    const char* variants; /* the runs: every variant named here at dt (comma-separated) ... */
    const fig_run* runs;  /* ... or this list ... */
    int nruns;
    /* ... or runs computed from the tier and the parameters: allocates b (study_batch_alloc)
     * and fills its configurations (study_config). 0, or non-zero through out (study_fail). */
    int (*make_runs)(struct study_ctx* ctx, struct study_batch* b);
    int kappa;           /* record kappa_2(H) per step (listed runs) */
    int serial;          /* one run at a time (the study's point is wall time) */
    int peer;            /* runs peer variants (mujoco): skipped, with a line in the report,
                               in a build without MuJoCo */
    int rows;            /* rows of a listed run's files (0: study_config's cap, STUDY_FILE_ROWS) */
    const char* columns; /* names (with units) of the values row() gives, comma-separated;
                               NULL: the report has no run table (finish writes its own) */
    /* Per run, in order: its values for the table (columns), its metrics. */
    void (*row)(struct study_ctx* ctx, study_out* out, const struct run_record* r, double* values);
    /* Convergence sweeps of `variants` (metric names start with `metric`; NULL: the study's
     * name); inspect (may be NULL) sees each sweep run (variant -1: the reference). */
    const fig_sweep* sweeps;
    int nsweeps;
    const char* metric;
    void (*inspect)(struct study_ctx* ctx, study_out* out, const fig_sweep_result* sw, int variant,
                    int idt, const struct run_record* r);
    /* After the rows and sweeps: what the runs say together, as values (study/result.c):
     * metrics, the values and texts the report quotes and the rows of `tables`. 0, or non-zero
     * through out (study_fail: the message the command prints; STUDY_E_SOLVE when a solve of
     * the finish's own failed). */
    int (*finish)(struct study_ctx* ctx, study_out* out, const fig_data* d, const char* dir);
    const fig_table* tables; /* the results' tables (NULL-name terminated list, or NULL) */
    /* The report after the finish: a template whose placeholders name values, metrics, texts
     * and tables (study/result.c); NULL: none */
    const char* report;
    const char* script; /* analysis/gnuplot/<script> (NULL: no figure); the engine sets datadir,
                           out (CASE/STUDY), runs (the labels) and titles (the variants) */
    const char* plot;   /* further gnuplot assignments, e.g. "title='...'" */
    /* NULL, or appends assignments that depend on the parameters (e.g. "mg=9.81; ") */
    void (*plot_params)(const double* P, char* out, size_t n);
    const fig_plot* plots; /* further figures (NULL-script terminated list, or NULL) */
} fig_study;

typedef struct case_study {
    const char* name; /* `ccb study CASE NAME` */
    const char* title;
    const char* figure;    /* paper figure it reproduces, e.g. "ICF Fig. 3" */
    const fig_study* decl; /* a case's study is a declaration: figure.c runs it */
    /* a study that is code (the standard three, std.c; the cases' own): 0, or non-zero through
     * out (study_fail; STUDY_E_SOLVE when a solve of its own failed) */
    int (*run)(struct study_ctx* ctx, study_out* out);
    /* 1: the study reads none of the case's parameters (its models are its own): `ccb study`
     * refuses every --set before anything is created */
    int reads_no_params;
    /* NULL, or refuses parameters the study cannot run with (0 ok, else -1 and msg), called by
     * `ccb study` on the parameters with every --set before anything is created */
    int (*check)(const double* params, char* msg, size_t n);
} case_study;

/* What a case supplies to the three standard studies (std.c): convergence, conditioning and
 * work-precision come from one sweep of every applicable variant over the case's dt ladder (the
 * adaptive variants over their accuracy levels at the case's dt), all against one error metric. */
#define STD_MAX_DT 8
typedef enum std_ref {
    STD_REF_RUN = 0,  /* a reference run of ref_variant at the smallest dt / ref_ratio */
    STD_REF_SELF = 1, /* each fixed-step variant against itself at the smallest dt / ref_ratio
                         (the adaptive ones against ref_variant's reference run) */
    STD_REF_NONE = 2  /* the error function needs no reference run (closed form, own reference) */
} std_ref;
struct run_record;
typedef struct case_std {
    const char* error_name; /* "e_q" */
    const char* error_unit; /* "m" */
    const char* error_what; /* one sentence for the report: the norm and its reference */
    /* The error of run r against ref (NULL for STD_REF_NONE); P: the run's parameters. NAN if it
     * cannot be computed. Must be thread-safe (runs are analysed in parallel). */
    double (*error)(const struct run_record* r, const struct run_record* ref, const double* P);
    std_ref ref;
    const char* ref_variant; /* STD_REF_RUN, STD_REF_SELF (adaptive variants) */
    double ref_ratio;        /* dt_ref = smallest dt / ref_ratio (cases.md §1.4: 10) */
    double t_final;          /* 0: the case's */
    double t_final_quick;    /* 0: t_final */
    double dts[STD_MAX_DT];  /* the dt ladder, descending */
    int ndt;
    double dts_quick[STD_MAX_DT]; /* the quick tier's (ccb compare --quick) */
    int ndt_quick;
    /* NULL, or sets the parameters of the standard studies (quick: for ccb compare --quick) */
    void (*params)(double* P, int quick);
    /* the sampling interval of the adaptive variants (their largest step); 0: the case's
     * dt_default (it must be a multiple of the reference run's dt) */
    double dt_adaptive;
} case_std;
/* The standard error of the cases with a reference run: e_q, the RMS over the run of |q - q_ref|
 * on the run's grid (cases.md §1.4; analysis ccb_an_rms_error). */
double std_error_q(const struct run_record* r, const struct run_record* ref, const double* P);
/* The local error of restarted intervals (issue 24: a chaotic case's error that measures the
 * method, not the divergence of two trajectories): from the reference's state at every multiple
 * k H of H inside the reference run, the run's configuration (variant, dt) integrates one
 * interval H, and e_loc = (mean over k of |q(k H + H) - q_ref(k H + H)|^2)^(1/2) [m and -]. H must
 * be a whole number of steps of both runs. A first-order method's e_loc falls as dt: the sum of
 * H/dt local errors of O(dt^2). NAN for failed runs, peer runs or a step that fails. */
double std_local_error(const struct run_record* r, const struct run_record* ref, double H);

typedef struct case_desc {
    const char* name;
    const char* title;
    const char* paper;
    const case_param* params;
    int nparams;
    const char* const* notes; /* documented choices ([default?] items), shown by `ccb info` */
    int nnotes;
    double dt_default, t_final_default;
    /* at most this many rows in a study run's files (0: the study's own cap, STUDY_FILE_ROWS by
     * default): for a case whose rows are wide (the clutter's 531 numbers) */
    int file_rows;
    const char* approx_default;
    /* Builds the model from parameter values; *data is case-private (motion functions etc.). */
    int (*build)(const double* params, ccb_model** model, void** data, char* msg, size_t n);
    void (*destroy)(void* data);
    /* Optional: parameters that depend on the approximation and step, applied to the run's copy
     * before the model is built (e.g. the rod's initial gap); NULL for none. */
    void (*adjust)(const ccb_approx* approx, double dt, double* params);
    /* Solver-level options that are case parameters (v_s, sigma, beta, margin). */
    void (*sim_options)(const double* params, ccb_sim_params* sp);
    /* Observables recorded after each step (names carry units). */
    int nobs;
    const char* const* obs_names;
    void (*observe)(const ccb_sim* sim, const void* data, const double* params, double* out);
    const case_study* studies;
    int nstudies;
    const char* const* quick_studies; /* studies of the quick tier (make test), NULL-ended; the
                                         full tier runs every study */
    const char* bench_approx; /* `ccb bench CASE` default: this approximation only (NULL: every
                                 approximation, TAMSI and implicit Euler) */
    const case_std* std;      /* the standard studies' error metric and ladders */
    /* Optional: the observables of a peer run, from the state (sim holds it, without contacts:
     * its contact list is empty) and the peer's contact summary. NULL: the peer variants do not
     * apply to the case. Observables without a counterpart in the peer are 0 and named by
     * peer_note. */
    void (*peer_observe)(const ccb_sim* sim, const void* data, const double* P,
                         const run_peer_step* c, double* out);
    const char* peer_note;
    /* The variants (study/variant.c) beyond those that apply to every case: the opt-in ones this
     * case takes (space-separated names; NULL: none) — e.g. the continuous-model integrators,
     * which apply where their cost is bounded — and the every-case ones it does not take, with
     * the reason (`ccb info CASE` prints it). The engine holds no list of cases. */
    const char* variants;
    const char* no_variants;
    const char* no_variants_why;
} case_desc;

/* The studies of a case: the three standard ones (convergence, conditioning, work-precision),
 * then the case's own. */
int case_nstudies(const case_desc* cs);
/* Runs a study of the case: its function, or the engine for a declared one (figure.c). */
int case_study_run(struct study_ctx* ctx, const case_study* st);
const case_study* case_study_at(const case_desc* cs, int i);
const case_study* case_find_study(const case_desc* cs, const char* name);

/* ---- parameters (case_params.c): a case's parameter table read and written ---- */
const case_param* case_find_param(const case_desc* cs, const char* name, int* index);
/* Parses "name=value" into params (validating name, number and range). 0, or -1 with message. */
int case_set_param(const case_desc* cs, double* params, const char* assignment, char* msg,
                   size_t n);
void case_default_params(const case_desc* cs, double* params);
/* 1 if a run with these parameters and this convex approximation (NULL: its solver is not Newton
 * on one) reads parameter i of cs (its read_if); else 0 with the condition, e.g. "read only by
 * the runs with approx=sap", in why. */
int case_param_read(const case_desc* cs, int i, const char* approx, const double* params, char* why,
                    size_t n);

#endif
