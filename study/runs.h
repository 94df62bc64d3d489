/* study/runs.h — the engine as a case that builds its own runs sees it (architecture §2): a
 * run's configuration and record, the variants by name, the study context and its batches
 * of runs, the helpers of the shared studies (gradient quality, error control, the rigid limit).
 * With results.h (what a study hands back) it is all of the engine a case file includes; the
 * command line's view of the engine is study.h. */
#ifndef CCB_RUNS_H
#define CCB_RUNS_H

#include "case.h"
#include "results.h"

/* ---- one run (run.c) ----------------------------------------------------------------------------
 * */

/* Peers (reference/peers/peer.h): run_config.peer is a peer variant's id (PEER_*), 0 none. */
enum { RUN_PEER_NONE = 0 };

#define RUN_MAX_EXPORT 32 /* steps exported to FCLIB per run */
typedef struct run_config {
    const case_desc* cs;
    double params[CASE_MAX_PARAMS];
    /* The library's parameters of the run, one value (architecture §3): the step dt, the
     * solver type, the convex approximation and every option the solvers' descriptors reach
     * (run_config_default: ccb_sim_params_default with ode.h = 0, the sampling interval dt).
     * The case's own settings (its sim_options), the perturbation's contact order and
     * --friction are applied on top when the run starts (run_effective_sim_params). */
    ccb_sim_params sim;
    int friction; /* -1: the case's regularization; else a ccb_friction_model for TAMSI and the
                     continuous model */
    int peer;     /* PEER_* (peer.h): the run is stepped by a peer, not by ccb */
    double t_final;
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
    /* 1: keep where each step's solver iterations went (run_record.detail; `ccb bench --peers`'
     * breakdown, docs/speed.md §4); the run is the same */
    int detail;
} run_config;
/* The run's solver and every solver's options but Newton's (the solver type, TAMSI's, the ODE
 * solver's and method's, error control, a registered solver's options block, --friction, the
 * peer) reset to their defaults, as a variant starts from them (variant_configure); or copied
 * from another configuration whose solver a study wants with its own steps and model. */
void run_config_solver_default(run_config* cfg);
void run_config_solver_copy(run_config* dst, const run_config* src);
/* The parameters a run of cfg gives its simulation (cfg's parameters already adjusted by the
 * case): cfg->sim, then the case's own options (its sim_options hook), the perturbation's
 * contact order and --friction; what meta.json's options record (run_setup). */
void run_effective_sim_params(const run_config* cfg, ccb_sim_params* sp);
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

/* The test that ended a step's solve: Newton's optimality test (MuJoCo: its scaled gradient),
 * the cost stall (MuJoCo: its scaled cost improvement), the iteration cap; none: no iteration. */
enum { RUN_STOP_NONE = -1, RUN_STOP_RESIDUAL = 0, RUN_STOP_COST = 1, RUN_STOP_CAP = 2 };
/* Where one step's iterations went (run_config.detail). */
typedef struct run_step_detail {
    int stop;          /* RUN_STOP_* */
    int stop_term;     /* ccb: the larger term of the optimality bound (ccb_stop_term); peer: -1 */
    int ls_evals;      /* line-search cost evaluations of the step */
    int line_searches; /* line searches of the step (ccb with islands: one per island and
                          iteration; MuJoCo: one per iteration) */
    int damped;        /* ccb: iterations whose step length was < 1/2 (the quadratic model held
                          only a short way along dv); peer: -1 */
    int changes_last;  /* contacts (peer: constraints) whose state changed in the last
                         iteration; -1 unknown */
    int changes;       /* the same summed over the step's iterations; -1 unknown */
    double ratio_prev; /* ccb: |D r|/bound at the test before the last (newton.h); peer: NAN */
} run_step_detail;

typedef struct run_record {
    run_config cfg;
    long nplanned; /* steps asked for */
    long nsteps;   /* steps completed */
    int nq, nv, nobs;
    char qname[CASE_MAX_Q][64]; /* "box.x [m]": name and unit of q component i < min(nq, 8)
                                   (the convergence sweeps' error tables) */
    double* q;                  /* (nsteps + 1) x nq; row 0 = initial state */
    double* v;                  /* (nsteps + 1) x nv */
    double* obs;             /* (nsteps + 1) x nobs; row n describes step n (row 0 unused, zeros) */
    int* iters;              /* (nsteps + 1): Newton iterations of step n */
    int* ls;                 /* (nsteps + 1): line-search evaluations of step n (Newton) */
    double* kappa;           /* (nsteps + 1): kappa_2(H) of step n, -1 if not computed */
    run_step_detail* detail; /* (nsteps + 1) with cfg.detail (Newton or a peer), else NULL */
    ccb_status status;       /* CCB_OK or the failure that stopped the run */
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
int variant_find(const char* name, variant_def* out);
/* Sets cfg's solver (and approximation) to the variant's; `level` is the accuracy of an adaptive
 * variant (ignored by fixed ones; NAN: the library's default). */
void variant_configure(const variant_def* v, run_config* cfg, double level);
/* The convex approximations that apply to cs as plain fixed-step Newton variants (no options, no
 * error control): the ones ccb/deriv.h differentiates (the gradients, gradient-quality and ilqr
 * studies). Their number (<= max), or -1 with a message. */
int variant_select_differentiable(const case_desc* cs, variant_def* out, int max, char* msg,
                                  size_t n);
/* Registry name of a run's solver configuration ("lagged", "tamsi-1way", "ie-fn-ec-tals",
 * "rk3", "gsl-rk8pd"). */
void variant_name(const run_config* cfg, char* out, size_t n);

/* ---- a run's solver by name and option words (solver_opts.c) ---- */
/* The name `--solver` gives the run's solver: its type's, or its ODE method's ("ie"). */
const char* solver_cli_name(const run_config* cfg);
/* Selects `solver` (NULL: keep the run's) and applies option words "NAME=VALUE ..." (a flag: NAME)
 * through the descriptors, as a variant's are: 0, or -1 with a message. */
int solver_configure(run_config* cfg, const char* solver, const char* words, char* msg, size_t n);

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

typedef struct study_ctx {
    const case_desc* cs;
    double params[CASE_MAX_PARAMS]; /* base parameters (with --set overrides) */
    /* The simulation parameters every run of its studies starts from (study_config, before its
     * approximation and step): the case's defaults with the command's solver options (`ccb study
     * --rtol ...`: Newton's options, the Delassus estimate) and a perturbation's. */
    ccb_sim_params sim;
    char out_root[CASE_MAX_ROOT]; /* results root ("results") */
    int jobs;
    int progress;   /* progress bar on stderr */
    study_out* out; /* where its studies' results go (results.h): metrics, report, files */
    strbuf* junit;  /* NULL, or where suite_evaluate_gates appends the case's JUnit
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
    unsigned perturb; /* RUN_PERTURB_* of every run (`ccb gate --sensitivity`); 0 */
    int failures;     /* runs that ended with a solver failure */
} study_ctx;

/* The runs of a study, allocated and freed together; records start zeroed, so freeing a run
 * that never ran is a no-op. */
typedef struct study_batch {
    run_config* cfg;
    run_record* rec;
    int n;
} study_batch;
/* The code of a study whose own solve (not a run of study_execute, which records its failure in
 * the run) failed: the study counts it in ctx->failures and fails with STUDY_E_SOLVE; under a
 * perturbation (`ccb gate --sensitivity`) that is a result, which its gates judge. */
#define STUDY_E_SOLVE CCB_E_NOTCONV
/* 0, or CCB_E_NOMEM through ctx's handle (study_fail). */
int study_batch_alloc(study_ctx* ctx, study_batch* b, int n);
void study_batch_free(study_batch* b);

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
/* Calls fn(user, i) for i = 0..n-1 on ctx->jobs threads (analysis work such as reference
 * solutions; fn must only write its own outputs). */
void study_parallel_for(study_ctx* ctx, int n, void (*fn)(void* user, int i), void* user);
/* Value of observable column `col` after step k (k >= 1). */
static inline double run_obs(const run_record* r, long k, int col) {
    return r->obs[(size_t)k * (size_t)r->nobs + (size_t)col];
}
/* The record as the extractors of analysis/extract.h see it. */
static inline ccb_an_series run_series(const run_record* r) {
    ccb_an_series s;
    s.n = r->nsteps;
    s.dt = r->cfg.sim.dt;
    s.nq = r->nq, s.nv = r->nv, s.nobs = r->nobs;
    s.q = r->q, s.v = r->v, s.obs = r->obs;
    s.iters = r->iters;
    s.kappa = r->kappa;
    return s;
}
static inline double run_mean_iterations(const run_record* r) {
    return r->nsteps > 0 ? (double)r->total_iters / (double)r->nsteps : 0.0;
}

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
int gradq_run(study_ctx* ctx, study_out* out, const gradq_def* def);

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
int errctl_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir,
                  const errctl_def* d);
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
    static int prefix##_finish(study_ctx* ctx, study_out* out, const fig_data* fd,                 \
                               const char* dir) {                                                  \
        return fn##_finish(ctx, out, fd, dir, &prefix##_def);                                      \
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
int rigidlim_finish(study_ctx* ctx, study_out* out, const fig_data* fd, const char* dir,
                    const rigid_def* d);
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

/* label helpers: "lagged_dt0.01" */
void run_label(char* out, size_t n, const char* approx, double dt);

#endif
