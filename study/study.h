/* study/study.h — the engine (docs/architecture.md §2): one run (run.c), the registry of named
 * variants (variant.c) and a run's solver through the option descriptors (solver_opts.c),
 * studies and their batches (study.c), declared figure studies (figure.c), the standard studies
 * (std.c) and `ccb compare` (compare.c), manifests and results from elsewhere (manifest.c), the
 * suite of a tier with its gates and report (suite.c, sensitivity.c), the special studies
 * (errctl_study.c, rigid_study.c) and the file utilities (util.c). It reads the case
 * descriptors of cases/case.h and nothing of the command line. */
#ifndef CCB_STUDY_H
#define CCB_STUDY_H

#include "case.h"

/* One variant of one case in `ccb compare`: its errors over the ladder (dt, or accuracy levels
 * for adaptive variants), fitted order, per-step iterations and kappa pooled over its runs,
 * failed runs, wall time per step. */
typedef struct std_summary {
    char case_name[32], variant[32];
    const char* error_name; /* the case's metric, e.g. "e_q" */
    const char* error_unit;
    int adaptive;
    int npts;
    double x[STD_MAX_DT], error[STD_MAX_DT];
    ccb_an_fit fit;
    double iters_mean, iters_max, kappa_mean, wall_per_step;
    int failures;
    double phys_max[5]; /* the largest physics metrics over the variant's runs (RUN_PHYS_*) */
} std_summary;
/* Runs the standard sweep of ctx's case (variants ctx->variants, tier ctx->tier) into
 * <root>/<case>/compare/ and fills up to max summaries. Returns their number, or -2 on an
 * input/output error (message on stderr). */
int std_compare_case(struct study_ctx* ctx, std_summary* out, int max);
/* Writes OUT/compare.csv, compare.md, compare_<metric>.csv and (figures) the figures of n
 * summaries grouped by case (compare.c). 0, or 2 with a message on stderr. */
int compare_write(const char* out, const std_summary* s, int n, int quick, int figures);

/* ---- one run (run.c) ----------------------------------------------------------------------------
 * */

/* Which solver a run uses and its options (docs/architecture.md §4.5, variants are data). */
typedef struct solver_cfg {
    ccb_solver solver;       /* a solver type of the registry (default newton) */
    ccb_tamsi_params tamsi;  /* TAMSI options (v_s comes from the case) */
    ccb_ode_params ode;      /* ODE integrator options; ode.h = 0: the sampling interval dt */
    ccb_sim_ec_params ec;    /* newton: error control of the convex step (variant "lagged-ec") */
    int friction;            /* -1: the case's regularization; else a ccb_friction_model for TAMSI
                               and the continuous model */
    int peer;                /* RUN_PEER_*: the run is stepped by a peer, not by ccb */
    double ext[CCB_SIM_EXT]; /* the options of a registered solver (ccb_sim_params.ext) */
} solver_cfg;
/* Peers (reference/peers): MuJoCo with the time-constant stiffness mapping, and with ccb's k used
 * literally (speed §3). */
enum { RUN_PEER_NONE = 0, RUN_PEER_MUJOCO = 1, RUN_PEER_MUJOCO_K = 2 };
void solver_cfg_default(solver_cfg* s);

#define RUN_MAX_EXPORT 32 /* steps exported to FCLIB per run */
typedef struct run_config {
    const case_desc* cs;
    double params[CASE_MAX_PARAMS];
    solver_cfg solver;
    const ccb_approx* approx; /* newton: the convex approximation */
    double dt, t_final;
    ccb_newton_params newton;
    ccb_delassus delassus;
    int record_every;           /* write every n-th step to trajectory.csv (arrays keep all) */
    const char* expect_failure; /* non-NULL: a study runs this configuration to show that the
                                   solver fails, for this reason; its failure is reported but
                                   not counted as a suite failure */
    char out_dir[PATH_MAX];     /* "" = no files */
    char label[96];
    double cost;  /* expected relative run time: study_execute starts the costliest runs first
                    so that parallel jobs end together (0 for all: in order) */
    int progress; /* 1: report the progress of a long run on stderr (`ccb run`; run.c) */
    int physics;  /* 1: write the physics metrics of every step to physics.csv (`ccb run
                     --physics`; formulation-convex §14) */
    /* FCLIB export (`ccb run --export-fclib FILE --export-steps LIST`; formulation-convex §16):
     * the step problems of the steps export_steps[0..nexport-1] (1-based, ascending) with ccb's
     * solution, one file each; file: NULL for <out_dir>/step<k>.fclib.hdf5 (studies) */
    const char* export_fclib;
    long export_steps[RUN_MAX_EXPORT];
    int nexport;
    /* Round-off-equivalent perturbations of the run (`ccb gate --sensitivity`, cases.md §10):
     * RUN_PERTURB_* bits; 0 for every ordinary run. A perturbed run is another run (the cache
     * and --from tell them apart) and its meta.json names the perturbation. */
    unsigned perturb;
} run_config;
/* The library's parameters of a run's solver (run.c): the defaults with the run's solver, its
 * approximation and every option the descriptors reach (newton, delassus, tamsi, ode, ec, ext);
 * and back. The case's own settings (cs->sim_options) are not applied. */
void run_config_sim_params(const run_config* cfg, ccb_sim_params* sp);
/* The parameters a run of cfg gives its simulation (cfg's parameters already adjusted by the
 * case): run_config_sim_params, then the case's own options (its sim_options hook), the
 * perturbation's contact order and --friction; what meta.json's options record (run_setup). */
void run_effective_sim_params(const run_config* cfg, ccb_sim_params* sp);
void run_config_take_sim_params(run_config* cfg, const ccb_sim_params* sp);
enum {
    RUN_PERTURB_CONTACTS = 1u, /* the contacts of every step in reversed order */
    RUN_PERTURB_ULP = 2u       /* every initial generalized position moved by one ulp up */
};
/* Member k >= 1 of an ensemble of perturbed initial states (the chaotic clutter's ensemble
 * gates): every initial generalized position moved by one ulp, up or down by a hash of (position,
 * k), so that the members are distinct piles (bits 8 and up of run_config.perturb). */
#define RUN_PERTURB_MEMBER(k) ((unsigned)(k) << 8)
#define RUN_PERTURB_MEMBER_OF(p) ((unsigned)(p) >> 8)
/* The file of exported step k: file itself for a single step, else file with "_<k>" before its
 * extension; <out_dir>/step<k>.fclib.hdf5 without a file. */
void run_export_path(const run_config* cfg, long k, char* out, size_t n);

typedef struct run_record {
    run_config cfg;
    long nplanned; /* steps asked for */
    long nsteps;   /* steps completed */
    int nq, nv, nobs;
    char qname[CASE_MAX_Q][64]; /* "box.x [m]": name and unit of q component i < min(nq, 8)
                                   (the convergence sweeps' error tables) */
    double* q;                  /* (nsteps + 1) x nq; row 0 = initial state */
    double* v;                  /* (nsteps + 1) x nv */
    double* obs;       /* (nsteps + 1) x nobs; row n describes step n (row 0 unused, zeros) */
    int* iters;        /* (nsteps + 1): Newton iterations of step n */
    int* ls;           /* (nsteps + 1): line-search evaluations of step n (Newton) */
    double* kappa;     /* (nsteps + 1): kappa_2(H) of step n, -1 if not computed */
    ccb_status status; /* CCB_OK or the failure that stopped the run */
    char msg[512];
    long fail_step;   /* step that failed (1-based), 0 if none */
    double wall_time; /* stepping loop [s] */
    long total_iters, total_ls;
    int max_iters;
    long analyses, factorizations;
    long substeps;        /* TAMSI: steps that needed substeps */
    long ncontacts_total; /* contacts summed over the steps */
    int ncontacts_max;
    long lazy_retries, lazy_retried_steps; /* lazy pairs (formulation-convex §8.11): solves
                                            * repeated, and the steps that repeated one */
    /* wall-time split summed over the steps [s] */
    double t_geometry, t_problem, t_solve, t_assemble, t_factor, t_linesearch, t_eval, t_kappa;
    ccb_ode_work work; /* ODE: work of the whole run (formulation-tamsi-hydro §B.8) */
    /* physics metrics (ccb/metrics.h, formulation-convex §14): the largest over the steps of
     * momentum, signorini, cone, dissipation, complementarity (RUN_PHYS_*); NaN where they do
     * not apply (momentum of the continuous model; a peer run) */
    double phys_max[5];
} run_record;
enum { RUN_PHYS_MOMENTUM, RUN_PHYS_SIGNORINI, RUN_PHYS_CONE, RUN_PHYS_DISSIPATION, RUN_PHYS_COMP };
/* Their names in meta.json ("physics.max.NAME"). */
extern const char* const run_phys_name[5];

/* ---- variants (variant.c)
 * ------------------------------------------------------------------------ The registry of named
 * solver variants: the convex approximations of libccb's registry (read at every call, so
 * registered ones join), TAMSI with its options, implicit Euler (FN/QN x fixed/ error control x
 * TALS), RK3 and the GSL reference. */
/* named sets; "all" is every variant of ccb (the peers only by name or as the set "peers") */
enum { VSET_CONVEX = 1u, VSET_PAPER = 2u, VSET_PEER = 4u };
typedef enum variant_kind {
    VARIANT_FIXED = 0,   /* a fixed step: studies sweep dt */
    VARIANT_ADAPTIVE = 1 /* error control: studies sweep its accuracy level at the case's dt */
} variant_kind;
/* A variant is a named set of (solver type, option values): a solver of libccb's registry (or
 * an ODE method, which selects the ODE solver) and options in the words of its descriptors
 * ("coupling=one-way tals=on"), or a convex approximation solved by Newton, or a peer. */
typedef struct variant_def {
    char name[32];     /* "lagged", "tamsi-1way", "ie-qn-ec-tals", "gsl-rk8pd" */
    const char* title; /* one line */
    unsigned sets;     /* VSET_* bits */
    variant_kind kind;
    int opt_in; /* 1: only on the cases that list it (case_desc.variants); 0: on every case but
                   those that decline it (case_desc.no_variants) */
    const ccb_approx* approx; /* Newton on this approximation (solver NULL) */
    const char* solver;       /* a solver or ODE method name of the registries; NULL: newton */
    const char* options;      /* NAME=VALUE words (a flag: NAME); NULL: none */
    const char* level;        /* ADAPTIVE: the option a study's accuracy level sets */
    int peer;                 /* RUN_PEER_*: a peer steps the run (the case's peer_observe) */
    const double* levels;     /* ADAPTIVE: accuracy levels of the standard studies */
    int nlevels;
    const double* levels_quick; /* those of the quick tier; NULL: the first two of levels */
    int nlevels_quick;
} variant_def;
int variant_count(void);
/* Entry i (approximations first); 0, or -1 out of range. */
int variant_get(int i, variant_def* out);
int variant_find(const char* name, variant_def* out);
int variant_applies(const variant_def* v, const case_desc* cs);
/* Sets cfg's solver (and approximation) to the variant's; `level` is the accuracy of an adaptive
 * variant (ignored by fixed ones; NAN: the library's default). */
void variant_configure(const variant_def* v, run_config* cfg, double level);
/* 1 if the variant's option words set the flag or switch `name` on. */
int variant_option_on(const variant_def* v, const char* name);
/* 1 if the variant's solver reports no iterations (an explicit ODE method). */
int variant_explicit(const variant_def* v);
/* The variants named by spec — comma-separated names and sets (convex, paper, all) — that apply
 * to cs (every one if cs is NULL), in registry order, without duplicates. Returns their number
 * (<= max), or -1 with a message for an unknown name. */
int variant_select(const char* spec, const case_desc* cs, variant_def* out, int max, char* msg,
                   size_t n);
/* The convex approximations that apply to cs as plain fixed-step Newton variants (no options, no
 * error control): the ones ccb/deriv.h differentiates (the gradients, gradient-quality and ilqr
 * studies). Their number (<= max), or -1 with a message. */
int variant_select_differentiable(const case_desc* cs, variant_def* out, int max, char* msg,
                                  size_t n);
/* Registry name of a run's solver configuration ("lagged", "tamsi-1way", "ie-fn-ec-tals",
 * "rk3", "gsl-rk8pd"). */
void variant_name(const run_config* cfg, char* out, size_t n);

/* ---- solver options (solver_opts.c): a run's solver through libccb's option descriptors ---- */
/* The name `--solver` gives the run's solver: its type's, or its ODE method's ("ie"). */
const char* solver_cli_name(const run_config* cfg);
/* The names --solver accepts, ", "-separated. */
void solver_cli_names(char* out, size_t n);
/* Selects the solver or ODE method `name` with the defaults of its descriptors: 0, or -1 with a
 * message listing the names. */
int solver_select(run_config* cfg, const char* name, char* msg, size_t n);
/* Sets the option `name` of the run's solver (or its ODE method) from text (NULL: a flag): 0;
 * 1 if neither has it (msg names the solvers that do); -1 for a value it refuses (msg). */
int solver_set_option(run_config* cfg, const char* name, const char* text, char* msg, size_t n);
/* 0 if the option `name` is read as configured (its `requires` flag on), else -1 with a message. */
int solver_option_requires(const run_config* cfg, const char* name, char* msg, size_t n);
/* 0 if some solver's descriptor `name` accepts the text, else -1 with its message. */
int solver_option_validate(const char* name, const char* text, char* msg, size_t n);
/* The k names joined into out (truncated to n): sep between them, last before the last one
 * ("a, b and c" with ", " and " and "; " a b c" with sep " " and a leading sep when lead). */
void names_join(const char* const* names, int k, const char* sep, const char* last, int lead,
                char* out, size_t n);
/* The solvers and ODE methods that have option `name`: "newton, tamsi and ie". */
void solver_option_where(const char* name, char* out, size_t n);
/* Calls fn for each descriptor of the run's solver and its ODE method with the value as text and
 * whether it is the descriptor's default. */
typedef void (*solver_option_fn)(void* user, const ccb_option_desc* d, const char* text,
                                 int is_default);
void solver_options_each(const run_config* cfg, solver_option_fn fn, void* user);
/* Selects `solver` (NULL: keep the run's) and applies option words "NAME=VALUE ..." (a flag: NAME)
 * through the descriptors, as a variant's are: 0, or -1 with a message. */
int solver_configure(run_config* cfg, const char* solver, const char* words, char* msg, size_t n);
/* Resets every solver setting that the run's solver does not read through a descriptor to the
 * defaults (for comparing two configurations that should run the same). */
void solver_cfg_normalize(run_config* cfg);

/* Checks what can be checked before anything is written: dt, t_final (a whole number of steps),
 * record_every. 0, or 2 with a message. */
int run_config_check(const run_config* cfg, long* nsteps, char* msg, size_t n);
/* Runs the configuration. Returns 0 if the run was carried out (its solver status is in
 * rec->status; a failed step ends the run and is recorded as such), or 2 for invalid input or an
 * output error, with a message. */
int run_execute(const run_config* cfg, run_record* rec, char* msg, size_t n);
/* The run's effective parameters (into rec->cfg), model and simulator before its first step:
 * run_execute's setup. 0, or 2 with a message; the caller destroys what was made. */
int run_setup(const run_config* cfg, run_record* rec, ccb_model** model, void** data, ccb_sim** sim,
              char* msg, size_t n);
/* A simulator of a configuration to be restarted from given states (std_local_error, the
 * clutter's fixed pile): run_setup's record, model, case data and simulator, without a run. */
typedef struct run_restart {
    run_record rec; /* rec.cfg: the effective configuration */
    ccb_model* model;
    void* data;
    ccb_sim* sim;
} run_restart;
/* 0, or 2 (with nothing left to release) */
int run_restart_open(const run_config* cfg, run_restart* r);
void run_restart_close(run_restart* r);
/* The format of a run directory (meta.json "format_version"; guide §7); 2: the wall
 * times moved from steps.csv to times.csv. */
#define RUN_FORMAT_VERSION 2
/* A finished run directory (trajectory.csv, steps.csv and meta.json recorded at every step) read
 * back into the record run_execute would have made for cfg (manifest.c; `ccb study --from`).
 * The directory is untrusted input and is read as strictly as a parser of one: meta.json must
 * have this format_version and describe cfg (case, variant, dt, t_final and every parameter,
 * bit for bit); its status, step counts and failure agree with each other and with cfg's steps;
 * trajectory.csv has one row of finite numbers per completed step at the step's time; steps.csv
 * one row per step in order (and the failing step's); every count is a whole number in range;
 * no symbolic link is followed and only regular files are read. 0, or 2 with a message naming
 * the file and line. */
int run_load(const run_config* cfg, const char* dir, run_record* rec, char* msg, size_t n);
/* A regular file opened for reading without following a symbolic link (its last component):
 * the descriptor, or -1 with a message. */
int run_file_open_regular(const char* path, char* msg, size_t n);
/* The record of a run that did not happen (`--emit-manifest`): a failure at its first step with
 * the initial state and zeroed arrays of the planned size, so that a study's analysis treats it
 * like any failed run. 0, or 2 with a message. */
int run_dry(const run_config* cfg, run_record* rec, char* msg, size_t n);
void run_record_free(run_record* rec);
void run_config_default(const case_desc* cs, run_config* cfg);
/* The convex approximation a run's solver is Newton on (NULL: another solver, or a peer). */
const char* run_config_approx_name(const run_config* cfg);
/* What the run's iteration counter counts, in its solver's words ("Newton iterations", "sweeps";
 * an ODE method's own; "iterations" where the solver names none, "peer iterations"). */
const char* run_config_iterations_name(const run_config* cfg);
/* 1 if the run reads its case's parameter i (case_param_read: tau_d only under SAP, ...). */
int run_config_reads(const run_config* cfg, int i);
/* Every parameter the run does not read back to its default: what a manifest line writes and
 * --from compares (a study may change one for all its runs, e.g. the rod's case B tau_d). */
void run_config_drop_unread(run_config* cfg);

/* Growable text (tables, the report). Zero-initialize; free(buf.s) when done. On allocation
 * failure the text is truncated and `failed` is set. */
typedef struct strbuf {
    char* s;
    size_t n, cap;
    int failed;
} strbuf;
void strbuf_printf(strbuf* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(strbuf* b, const char* fmt, va_list ap);

/* ---- studies (study.c)
 * --------------------------------------------------------------------------- */

/* Gate tiers (`ccb gate --tier`, guide §8): the quick tier runs the case's quick studies at
 * their smallest settings that still test each claim (`make test`); the full tier runs every study
 * at the papers' settings (`make test-full`, `make reproduce`, `ccb study`). The values equal the
 * gate files' CCB_GATE_QUICK and CCB_GATE_FULL. A study that is the same in both tiers ignores
 * the tier; one that is smaller in the quick tier says so in its report and its quick gates carry
 * their own bound and basis. */
enum { CASE_TIER_QUICK = 1, CASE_TIER_FULL = 2 };
/* "quick" or "full". */
const char* case_tier_name(int tier);
typedef struct metric {
    char name[96];
    double value;
} metric;

typedef struct study_ctx {
    const case_desc* cs;
    double params[CASE_MAX_PARAMS]; /* base parameters (with --set overrides) */
    ccb_newton_params newton;
    ccb_delassus delassus;
    char out_root[CASE_MAX_ROOT]; /* results root ("results") */
    int jobs;
    int figures;  /* draw figures with gnuplot */
    int progress; /* progress bar on stderr */
    metric* metrics;
    int nmetrics, cap_metrics;
    strbuf report; /* markdown appended by studies for results/README.md */
    strbuf* junit; /* NULL, or where suite_evaluate_gates appends the case's JUnit
                                <testsuite> (`ccb gate --junit`) */
    struct ccb_junit_counts* junit_counts; /* its counts, summed over the cases */
    int tier;                /* CASE_TIER_QUICK or CASE_TIER_FULL: the settings a study runs at */
    const char* variants;    /* the standard studies' variants (names and sets); NULL: all */
    struct run_cache* cache; /* finished runs of this case, reused by identical configurations
                                (study.c) */
    void* std_sweep;         /* the standard studies' sweep, shared by the three (std.c) */
    void (*std_sweep_free)(void*); /* its destructor */
    int reused;                    /* runs served from the cache */
    /* Studies outside the process (manifest.c). emit != NULL: study_execute hands every run
     * that would execute to emit (its directory relative to out_root in `rel`) instead of
     * running it, and the study's analysis sees runs that did not happen (cli/manifest_out.c
     * discards it).
     * from_root non-empty: every such run is read from <from_root>/<rel> (run_load). */
    int (*emit)(void* user, const struct study_ctx* ctx, const char* study, const run_config* cfg,
                const char* rel);
    void* emit_user;
    int batch; /* study_execute calls so far (emit: a run is new unless an earlier call had it) */
    char from_root[CASE_MAX_ROOT];
    unsigned perturb;              /* RUN_PERTURB_* of every run (`ccb gate --sensitivity`); 0 */
    struct study_results* results; /* the results of the declaration being run (result.c) */
    int failures;                  /* runs that ended with a solver failure */
    int warnings;                  /* e.g. figures that could not be drawn */
} study_ctx;

/* The runs of a study, allocated and freed together; records start zeroed, so freeing a run
 * that never ran is a no-op. */
typedef struct study_batch {
    run_config* cfg;
    run_record* rec;
    int n;
} study_batch;
/* Returns 0, or -1 with a message on stderr. */
int study_batch_alloc(study_batch* b, int n);
void study_batch_free(study_batch* b);

int study_ctx_init(study_ctx* ctx, const case_desc* cs, const char* out_root);
void study_ctx_free(study_ctx* ctx);
/* A study run's files (trajectory.csv, steps.csv, times.csv) keep at most about this many rows:
 * every k-th step, k = steps / STUDY_FILE_ROWS (meta.json: record_every; the report says so).
 * The analysis reads every step from the run's record in memory, never from these files, so
 * only what a reader of the files sees changes; a study that draws or sums a file's every row
 * sets record_every itself after study_config (the rod's close-ups, the coin's curves, the
 * error-control references). `ccb run` and the runs of a manifest (`--from`) keep every step. */
#define STUDY_FILE_ROWS 500
/* record_every for a run of `steps` steps whose files keep at most `rows` rows, and at most the
 * case's file_rows when it has one. */
int study_file_every(const study_ctx* ctx, double steps, int rows);
/* A run configuration from the study's base parameters, named `label`, writing into
 * <out_root>/<case>/<study>/<label>/, its files decimated to about STUDY_FILE_ROWS rows. */
void study_config(study_ctx* ctx, run_config* cfg, const char* study, const char* label,
                  const ccb_approx* approx, double dt, double t_final);
/* Executes n runs with ctx->jobs threads. Returns 0, or 2 on an input/output error (message on
 * stderr). Solver failures are counted in ctx->failures. A run whose configuration equals one
 * already executed for this case (every field but out_dir, label, cost and expect_failure; runs
 * are deterministic) is not run again: it gets a copy of that record and of its files. */
int study_execute(study_ctx* ctx, const char* study, run_config* cfgs, run_record* recs, int n);
/* 1 if two configurations make the same run (the run cache's test). */
int study_same_run(const run_config* a, const run_config* b);
/* The directory of a study's run relative to ctx->out_root (a run without files:
 * <case>/<study>/<label>). 0, or -1 if it lies outside out_root or is too long. */
int study_run_rel(const study_ctx* ctx, const char* study, const run_config* cfg, char* rel,
                  size_t n);
/* Calls fn(user, i) for i = 0..n-1 on ctx->jobs threads (analysis work such as reference
 * solutions; fn must only write its own outputs). */
void study_parallel_for(study_ctx* ctx, int n, void (*fn)(void* user, int i), void* user);
void study_set_metric(study_ctx* ctx, const char* name, double value);
/* study_set_metric with a printf-style name, e.g. ("fig3.%s.order", model). */
void study_set_metricf(study_ctx* ctx, double value, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
int study_get_metric(void* ctx, const char* name, double* value);
void study_report(study_ctx* ctx, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* Value of observable column `col` after step k (k >= 1). */
static inline double run_obs(const run_record* r, long k, int col) {
    return r->obs[(size_t)k * (size_t)r->nobs + (size_t)col];
}
/* The record as the extractors of analysis/extract.h see it. */
static inline ccb_an_series run_series(const run_record* r) {
    ccb_an_series s;
    s.n = r->nsteps;
    s.dt = r->cfg.dt;
    s.nq = r->nq, s.nv = r->nv, s.nobs = r->nobs;
    s.q = r->q, s.v = r->v, s.obs = r->obs;
    s.iters = r->iters;
    s.kappa = r->kappa;
    return s;
}
static inline double run_mean_iterations(const run_record* r) {
    return r->nsteps > 0 ? (double)r->total_iters / (double)r->nsteps : 0.0;
}
/* The physics, work and conditioning columns of a run in every study table (study.c): the largest
 * per-step physics metrics (formulation-convex §14), mean and max Newton
 * iterations, mean and max line-search evaluations per step, factorizations, f evaluations
 * (continuous-model integrators; empty for the others), mean and max kappa_2(H) (empty unless
 * recorded), failed (0/1), wall time. */
#define RUN_WORK_HEADER                                                                            \
    "max_momentum_residual,max_signorini [N s m],max_cone_violation [N s],"                        \
    "max_dissipation_gap [J],max_complementarity [J],"                                             \
    "mean_newton_iterations,max_newton_iterations,mean_line_search,max_line_search,"               \
    "factorizations,f_evaluations,mean_kappa,max_kappa,failed,wall_time [s]"
void run_work_columns(strbuf* b, const run_record* r);
/* The parameters of run r that differ from the study's base parameters: "name=value;..." with 12
 * significant digits (meta.json has them exactly); the empty string for none. */
void run_overrides(strbuf* b, const study_ctx* ctx, const run_record* r);

/* ---- the gradients study (grad_study.c; formulation-convex §9.5): the fourth standard study of
 * every case. 0, 1 or 2 as a case_study's run. */
int grad_study_run(study_ctx* ctx);

/* ---- gradient quality (gradq_study.c; formulation-convex §9.7): a task J = q[qidx](T) against
 * one input p, a case parameter: every contact's mu (material 1: a relative material direction
 * of the derivative) or the initial value of velocity coordinate vidx (material 0), over
 * [lo, hi] x its value in npts points, for every convex approximation and the case's stiffness
 * parameter times stiff_scale[0..2]; 0, 1 or 2 as a case_study's run. */
typedef struct gradq_def {
    const char* what;  /* the report's title */
    const char* task;  /* "x(T) [m]" */
    const char* input; /* "U0 [m/s]" */
    const char* param; /* the case parameter that is the input */
    int material;      /* 1: it is every contact's mu; 0: the initial velocity v[vidx] */
    int vidx;
    int qidx;              /* the task's coordinate */
    const char* stiffness; /* the case parameter swept ("k") */
    double stiff_scale[3];
    double lo, hi;
    int npts;
    double t_final;  /* 0: the case's */
    const char* set; /* parameter overrides "name=value ..." of every run, or NULL */
} gradq_def;
int gradq_run(study_ctx* ctx, const gradq_def* def);

/* ---- the error-control study (errctl_study.c; formulation-convex §15) -------------------------
 * lagged-ec at accuracies 1e-3 ... 1e-8 and fixed-step Lagged at dt, dt/2, ... (nfixed runs),
 * against fixed Lagged at dt_ref (dt a multiple of it). A case's study wraps these two with its
 * definition. */
#define ERRCTL_NLEVEL 6
#define ERRCTL_MAX_FIXED 8
typedef struct errctl_def {
    double dt;      /* sampling interval = largest internal step [s] */
    double dt_ref;  /* the reference's step [s] */
    double t_final; /* 0: the case's */
    int nfixed;     /* fixed-step runs, <= ERRCTL_MAX_FIXED */
} errctl_def;
int errctl_runs(study_ctx* ctx, study_batch* b, const errctl_def* d);
int errctl_finish(study_ctx* ctx, const fig_data* fd, const char* dir, const errctl_def* d);
#define ERRCTL_CLAIM                                                                               \
    "ccb: error control of the convex step (step doubling on q with the lag defect and local "     \
    "extrapolation; CENIC's step doubling alone beside it) at accuracies 1e-3 ... 1e-8 against "   \
    "fixed-step Lagged; the error must fall as the accuracy is tightened, and the work it takes "  \
    "is compared with fixed steps at equal error."
/* The tables and the report of the error-control study (a declaration's .tables and .report) */
extern const fig_table errctl_tables[];
#define ERRCTL_REPORT                                                                               \
    "e_q against fixed-step Lagged at dt = {dt_ref} s (the discretization's own limit). Both "      \
    "error-controlled runs sample every {dt} s, their largest step; steps are accepted internal "   \
    "steps. lagged-ec is ccb's estimator (step doubling, the lag defect of Lagged's friction, "     \
    "local extrapolation: formulation-convex §15.6-15.7), lagged-ec-cenic CENIC's (step doubling " \
    "alone, the half steps propagated).\n\n{table:summary}\nPer estimator: e_q at each accuracy, "  \
    "finest over coarsest, the slope of log e_q against log a over the three finest levels, the "   \
    "largest relative rise between neighbouring levels (negative: the error falls at every "        \
    "level) and the largest gain in Newton iterations over fixed steps at equal error (nan: no "    \
    "level inside the fixed ladder's errors).\n\n{table:levels}\n"
/* The hooks of a case's study (fig_study has no user data): prefix##_runs and prefix##_finish
 * call fn##_runs and fn##_finish with the definition prefix##_def. */
#define STUDY_HOOKS(prefix, fn, def_type, ...)                                                     \
    static const def_type prefix##_def = __VA_ARGS__;                                              \
    static int prefix##_runs(study_ctx* ctx, study_batch* b) {                                     \
        return fn##_runs(ctx, b, &prefix##_def);                                                   \
    }                                                                                              \
    static int prefix##_finish(study_ctx* ctx, const fig_data* fd, const char* dir) {              \
        return fn##_finish(ctx, fd, dir, &prefix##_def);                                           \
    }

/* ---- the rigid-limit study (rigid_study.c; formulation-convex §16.3) ---------------------------
 * Lagged over the stiffnesses k[0..nk-1] at dt, Lagged and SAP at dt/4, dt/2, dt (the case's k),
 * each exporting the steps at the times t_export[0..nt-1] to FCLIB; the rigid problem of each
 * step solved by Siconos and compared with ccb's impulses. */
#define RIGID_MAX_K 8
#define RIGID_NDT 3
typedef struct rigid_def {
    double dt;
    double k[RIGID_MAX_K];
    int nk;
    double k_default; /* the case's k (the dt runs) */
    double t_export[RUN_MAX_EXPORT];
    int nt;
} rigid_def;
int rigidlim_runs(study_ctx* ctx, study_batch* b, const rigid_def* d);
int rigidlim_finish(study_ctx* ctx, const fig_data* fd, const char* dir, const rigid_def* d);
#define RIGID_CLAIM                                                                                \
    "ccb: the convex models against the rigid Coulomb problem of the same step (exported to "      \
    "FCLIB, solved by Siconos): Lagged approaches it as k grows, SAP in its near-rigid regime; "   \
    "the gap of the impulses against k and dt."

/* The tables and the report of the rigid-limit study (a declaration's .tables and .report) */
extern const fig_table rigidlim_tables[];
#define RIGIDLIM_REPORT                                                                            \
    "{?no_fclib}This ccb was built without FCLIB (libfclib-dev): the runs were made but no step "  \
    "was exported or solved rigidly.\n\n{/}{?no_siconos}Siconos is not in this build "             \
    "({text:siconos}): the steps were exported (FCLIB files in the runs' directories) but not "    \
    "solved rigidly.\n\n{/}{?times}Rigid solutions: {text:siconos}, tolerance {tol}. Mean gaps "   \
    "over the exported steps (t = {text:times} s); gap_Hr = |H (r_ccb - r_rigid)| / |H r_rigid| "  \
    "(generalized impulses), its normal and tangential parts, gap_r the contact impulses (not "    \
    "unique where contacts are redundant); a step the rigid solver did not converge on is not "    \
    "counted.\n\n{table:gaps}\nLagged: gap_Hr ~ k^{rigid-limit.lagged.gap_slope_k|%.2f} over k = " \
    "{k_lo} ... {k_hi} (stiffest/softest {rigid-limit.lagged.gap_stiffest_over_softest|%.3g})."    \
    "\n\n{/}"

/* Writes `body` under `header` to path atomically; 0, or 2 with a message on stderr. */
int study_write_table(const char* path, const char* header, const char* body);

/* ---- the suite (suite.c): a case's studies of a tier, its gates, the report -------------------
 * */
#define SUITE_MAX_GATES 256 /* gates per gate file */
/* reference/CASE.json under the source tree */
void suite_gate_file(const case_desc* cs, char* path, size_t n);
/* A metric source with no metrics (to validate a gate file before anything runs). */
int suite_no_metric(void* u, const char* name, double* v);
/* Runs the studies of ctx's tier: the case's quick studies, or every study. 0, 1 or 2. */
int suite_run_studies(study_ctx* ctx);
/* 1 if the study belongs to ctx's tier (the full tier: every study; quick: cs->quick_studies). */
int suite_study_in_tier(const study_ctx* ctx, const case_study* st);
/* Evaluates the case's gates of ctx's tier on its metrics: prints one line per gate, writes
 * CASE/gates.csv and the report's gate table. The number of failed gates, or -1 on an error. */
int suite_evaluate_gates(study_ctx* ctx);
/* Round-off sensitivity of the gates (sensitivity.c; `ccb gate --sensitivity K`;
 * cases.md §10): the studies of a tier rerun under each of the first K perturbations, and per gate the
 * spread of its value against its margin to the bound. */
#define SUITE_NPERTURB 6
typedef struct suite_sensitivity suite_sensitivity;
const char* suite_perturbation_name(int p); /* "cholmod", "contacts-reversed", ... */
const char* suite_perturbation_what(int p);
/* Sets ctx's solver options and run perturbation to perturbation p. */
void suite_perturbation_apply(study_ctx* ctx, int p);
/* The nominal gates of ctx (its studies have run); NULL on an error (message on stderr). */
suite_sensitivity* suite_sensitivity_begin(study_ctx* ctx, int k);
/* The gates of perturbation p, whose studies have run in pc. 0, or -1 on an error. */
int suite_sensitivity_add(suite_sensitivity* sv, study_ctx* pc, int p);
/* Writes ctx's CASE/sensitivity.csv and appends its table to md; prints the gates that are not
 * a verdict. Their number, or -1 on an output error. */
int suite_sensitivity_finish(suite_sensitivity* sv, const study_ctx* ctx, strbuf* md);
void suite_sensitivity_head(strbuf* md, int k);
void suite_sensitivity_free(suite_sensitivity* sv);
/* The report ROOT/README.md: its head, a case's section, and the atomic write (0 or 2). */
void suite_report_head(strbuf* r);
void suite_report_case(strbuf* r, const study_ctx* ctx);
int suite_report_write(const char* root, const char* text);
/* The case's section alone, as <out_root>/<case>/report.md (atomic): what `ccb gate` leaves
 * beside the tier's data, so that a tier's report can be read and compared without `ccb
 * reproduce`. Its wall-time columns are the only parts that differ between two runs. 0 or 2. */
int suite_report_case_write(const study_ctx* ctx);

/* ---- a declaration's results as values (result.c; docs/architecture.md §2) ----------------
 * What a finish (or a row callback) of a fig_study hands the engine: named values and texts for
 * the report template, and the rows of the declared tables. The engine renders them after the
 * finish: the tables with a file to CSV, then the template into the report. A row of an
 * undeclared table, or a template placeholder that names nothing, fails the study with a
 * message. */
typedef struct study_results study_results;
study_results* study_results_begin(study_ctx* ctx, const fig_study* decl); /* NULL: no memory */
void study_results_free(study_results* r);
/* Writes the tables with a file into dir and appends the rendered template to ctx->report:
 * 0, or 2 with a message on stderr. */
int study_results_finish(study_ctx* ctx, const char* study, const char* dir);
/* The rendering, for the engine and the unit test: the template into out; one table's rows as
 * CSV. 0, or -1 with the reason in err. */
int study_results_render(const study_results* r, const char* tmpl, strbuf* out, char* err,
                         size_t n);
int study_results_table_csv(const study_results* r, const char* name, strbuf* out, char* err,
                            size_t n);
void study_value(study_ctx* ctx, const char* name, double v);
void study_valuef(study_ctx* ctx, double v, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
void study_text(study_ctx* ctx, const char* name, const char* text);
void study_row(study_ctx* ctx, const char* table); /* starts a row */
void study_num(study_ctx* ctx, const char* table, double v);
void study_nums(study_ctx* ctx, const char* table, const double* v, size_t n); /* n cells */
void study_str(study_ctx* ctx, const char* table, const char* s);
void study_blank(study_ctx* ctx, const char* table); /* an empty cell */
void study_table_header(study_ctx* ctx, const char* table, const char* header);
/* the markdown header lines of a table whose columns the run decides (e.g. one per step) */
void study_table_md(study_ctx* ctx, const char* table, const char* md);
int study_table_rows(study_ctx* ctx, const char* table);

/* Directory <out_root>/<case>/<sub> (created). */
int study_dir(study_ctx* ctx, const char* sub, char* path, size_t n);
/* Draws <out_root>/<case>/<name>.png and .svg with analysis/gnuplot/<script>, reading datadir;
 * `vars` are constant gnuplot assignments (names, titles, numbers: ccb_an_gp_check_vars) — no
 * path: datadir and the output are quoted by ccb_an_plot, which also replaces the figures
 * atomically. A failure is reported on stderr and counted in ctx->warnings. No-op if figures are
 * off. */
void study_plot(study_ctx* ctx, const char* script, const char* datadir, const char* name,
                const char* vars);
/* util.c: where the data (reference/, analysis/gnuplot/) are: CCB_SOURCE_DIR, else an installed
 * program's share/ccb beside its bin/, else the source tree it was built from; a directory
 * and its parents (0, or -1 with a message if it cannot be created or written). */
const char* ccb_source_dir(void);
/* The command line of this process (ccb_cli_main records it; "" before), for meta.json. */
void ccb_set_command_line(int argc, char** argv);
const char* ccb_command_line(void);
int mkdir_p(const char* path, char* msg, size_t n);
/* An advisory lock (flock) on a directory: a second writer is told and waits. The descriptor
 * (close it to release), or -1 with a message. */
int lock_dir(const char* dir, char* msg, size_t n);
/* The same on a command's output tree, held until the process ends (its forks share it); a tree
 * this process holds already is not locked twice. 0, or -1 with a message. */
int lock_tree(const char* dir, char* msg, size_t n);
/* The trees OUT/CASE of the cases a command writes (created, then locked in name order, so
 * that two commands never wait for each other in a cycle): ccb study and ccb gate lock these, so
 * that the gates of two cases run side by side into one --out; ccb reproduce locks them and its
 * root. 0, or -1 with a message. */
int lock_case_trees(const char* out, const char* const* names, int n, char* msg, size_t nmsg);
/* The command's output tree (its --out, set when parsed): a directory mkdir_p meets below it
 * that is a symbolic link is refused (the root itself may be one: the user named it). */
void mkdir_tree_root(const char* root);
/* inventory.c: a study's outputs recorded in OUT/CASE/STUDY/.ccb-results, so that a rerun into
 * the same --out removes what it no longer writes (a figure not drawn, a run of a label gone)
 * and nothing else. case_study_run begins and commits; write_file, the runs and study_plot note
 * (thread-safe; paths outside OUT/CASE are not the study's and are ignored). commit: ok = the
 * study succeeded (else nothing is removed and old and new are kept listed); 0, or -1 with a
 * message. */
void inventory_begin(const char* out_root, const char* cs, const char* study);
/* The same for outputs directly in dir (ccb compare's tables and figures): DIR/.ccb-results. */
void inventory_begin_dir(const char* dir);
void inventory_note_file(const char* path);
void inventory_note_run(const char* dir);
int inventory_commit(int ok, char* msg, size_t n);
/* Removes the directories mkdir_p created in this process that are still empty, deepest first
 * (async-signal-safe: rmdir only; the signal handler of the command line). */
void remove_created_dirs(void);
/* The file `path` replaced atomically by len bytes of text (ccb_writer: a temporary file, fsync,
 * rename; on any failure the old file stays and no temporary file is left). 0, or -1 with a
 * message. Every whole-file result of the command line is written through here. */
int write_file(const char* path, const char* text, size_t len, char* msg, size_t n);
/* The whole text of a regular file of at most max bytes (NUL-terminated; the caller frees it), or
 * NULL with a message naming the path: a FIFO, device or directory is refused without waiting on
 * it, a symbolic link unless follow, a file with a NUL byte (no text). */
char* read_regular_text(const char* path, size_t max, int follow, char* msg, size_t n);

/* ---- the regression view (study/diff.c; docs/cases.md §15) ---- */

/* Significance of a change (the header of study/diff.c): beyond nsigma x the round-off spread
 * where one was measured, else beyond max(rtol |value|, atol). */
typedef struct suite_diff_opts {
    double rtol, atol, nsigma;
    int figures;             /* overlay figures of the moved files in OUT/figures/ */
    const char* const* only; /* nonly > 0: only the files under these top-level directories
                                (the cases a `ccb gate --baseline` ran) */
    int nonly;
} suite_diff_opts;
#define SUITE_DIFF_RTOL 1e-6
#define SUITE_DIFF_ATOL 1e-12
#define SUITE_DIFF_NSIGMA 3.0
typedef struct suite_diff_summary {
    int compared, one_side, figures;
    int significant, verdicts;
} suite_diff_summary;
/* Compares the result trees a (before) and b (after): OUT/diff.csv, OUT/diff.md, the overlays
 * and a summary on standard output. 0, or 2 on an error (message on stderr). */
int suite_diff(const char* a, const char* b, const char* out, const suite_diff_opts* o,
               suite_diff_summary* sum);
/* The comparison of one file without trees (the fuzz target fuzz/fuzz_diff.c): texts ta and tb
 * as the file rel of A and B (its kind from its name, as suite_diff pairs files), no spreads;
 * the report's texts rendered and dropped. *rows, *significant: the differences and the
 * significant ones; *values: those of values (verdicts, gates, cells, trajectories). 0, or 2
 * when out of memory. */
int suite_diff_texts(const char* rel, const char* ta, const char* tb, const suite_diff_opts* o,
                     long* rows, long* significant, long* values);
/* Copies the tables of the result tree root (gates, sensitivity, study tables; the run files
 * trajectory.csv, steps.csv and physics.csv only if trajectories) into a new baseline dir with
 * its baseline.json; dir is replaced whole, never left half-written. *files and *bytes receive
 * its size. 0, or -1 with a message. */
int suite_baseline_save(const char* root, const char* dir, int trajectories, int* files,
                        long long* bytes, char* msg, size_t n);
/* After a perturbation's studies of case cs under pert_root (ROOT/sensitivity/P): writes
 * pert_root/cs.nominal.csv, the digest of every table and run file of root/cs as they are now,
 * so that `ccb diff` uses that perturbation's copies as spreads only while the results are these
 * (issue 44, H6). 0, or -1 with a message. */
int suite_sensitivity_bind(const char* root, const char* cs, const char* pert_root, char* msg,
                           size_t n);
/* Before anything runs: 0 if `ccb gate --out root [--save-baseline dir] [--baseline compare]`
 * may go ahead: compare (may be NULL) and root do not contain each other; dir (may be NULL) and
 * root neither, compare is dir or lies apart from it, and dir does not exist or is a baseline ccb
 * saved (its baseline.json) holding only the files it saved. -1 with a message otherwise: ccb
 * replaces only what it created, and a tree is never compared with itself. */
int suite_baseline_check(const char* root, const char* dir, const char* compare, char* msg,
                         size_t n);

/* label helpers: "lagged_dt0.01" */
void run_label(char* out, size_t n, const char* approx, double dt);

#endif
