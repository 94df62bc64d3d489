/* study/study.h — the engine (docs/architecture.md §2), as the command line sees it: running a
 * configuration (run.c) and reading runs back (manifest.c), the registry of named variants
 * (variant.c) and a run's solver through the option descriptors (solver_opts.c), studies and
 * their run cache (study.c), declared figure studies (figure.c), the standard studies (std.c)
 * and `ccb compare` (compare.c), the suite of a tier with its gates, sensitivity and report
 * (suite.c, sensitivity.c), and the regression view (diff*.c). A case file does not include it:
 * it reads results.h (what a study hands back) and runs.h (what a study that builds its own runs
 * needs), and this header adds the rest of the engine to both. It reads the case descriptors
 * of study/case.h and nothing of the cases or the command line (CI/check_layers.pl). */
#ifndef CCB_STUDY_H
#define CCB_STUDY_H

#include "output.h"
#include "results_engine.h"
#include "runs.h"

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
 * <root>/<case>/compare/ and fills up to max summaries, their number in *count: 0, or non-zero
 * with the message in ctx's handle (study_error). */
int std_compare_case(struct study_ctx* ctx, std_summary* out, int max, int* count);
/* Writes OUT/compare.csv, compare.md, compare_<metric>.csv and (figures) the figures of n
 * summaries grouped by case (compare.c); a figure gnuplot could not draw is said (study_log) and
 * counted in *figfail. 0, or non-zero with a message in err. */
int compare_write(const char* out, const std_summary* s, int n, int quick, int figures,
                  int* figfail, char* err, size_t nerr);

/* ---- the variant registry (variant.c; runs.h has variant_def) ---- */
int variant_count(void);
/* Entry i (approximations first); 0, or -1 out of range. */
int variant_get(int i, variant_def* out);
int variant_applies(const variant_def* v, const case_desc* cs);
/* 1 if the variant's option words set the flag or switch `name` on. */
int variant_option_on(const variant_def* v, const char* name);
/* 1 if the variant's solver reports no iterations (an explicit ODE method). */
int variant_explicit(const variant_def* v);
/* The variants named by spec — comma-separated names and sets (convex, paper, all) — that apply
 * to cs (every one if cs is NULL), in registry order, without duplicates. Returns their number
 * (<= max), or -1 with a message for an unknown name. */
int variant_select(const char* spec, const case_desc* cs, variant_def* out, int max, char* msg,
                   size_t n);

/* ---- solver options (solver_opts.c): a run's solver through libccb's option descriptors ---- */
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
/* Resets every solver setting that the run's solver does not read through a descriptor to the
 * defaults (for comparing two configurations that should run the same). */
void run_config_solver_normalize(run_config* cfg);
/* The solver part of dst (solver type, TAMSI's, the ODE solver's and method's, error control, a
 * registered solver's options block) set to src's: what variants and normalization replace. */
void run_sim_solver_part(ccb_sim_params* dst, const ccb_sim_params* src);

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

/* ---- studies (study.c; runs.h has study_ctx) ---- */
int study_ctx_init(study_ctx* ctx, const case_desc* cs, const char* out_root);
void study_ctx_free(study_ctx* ctx);
/* Executes n runs with ctx->jobs threads. Returns 0, or non-zero on an error (its message in
 * ctx's handle: study_error). A run's solver failure is no error: the run records it, study_log
 * says it, ctx->failures counts it. A run whose configuration equals one
 * already executed for this case (every field but out_dir, label, cost and expect_failure; runs
 * are deterministic) is not run again: it gets a copy of that record and of its files. */
int study_execute(study_ctx* ctx, const char* study, run_config* cfgs, run_record* recs, int n);
/* 1 if two configurations make the same run (the run cache's test). */
int study_same_run(const run_config* a, const run_config* b);
/* The directory of a study's run relative to ctx->out_root (a run without files:
 * <case>/<study>/<label>). 0, or -1 if it lies outside out_root or is too long. */
int study_run_rel(const study_ctx* ctx, const char* study, const run_config* cfg, char* rel,
                  size_t n);
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
 * every case. 0, or non-zero through its handle, as a case_study's run. */
int grad_study_run(study_ctx* ctx, study_out* out);

/* ---- the suite (suite.c): a case's studies of a tier, its gates, the report -------------------
 * Errors as everywhere in study/ (output.h): 0, or non-zero with the message in ctx's handle
 * (study_error) or in the caller's (msg, n). */
#define SUITE_MAX_GATES 256 /* gates per gate file */
/* reference/CASE.json under the source tree */
void suite_gate_file(const case_desc* cs, char* path, size_t n);
/* A metric source with no metrics (to validate a gate file before anything runs). */
int suite_no_metric(void* u, const char* name, double* v);
/* Runs the studies of ctx's tier: the case's quick studies, or every study. 0, or the first
 * failing study's code: STUDY_E_SOLVE (runs.h) when a study's own solve failed, another
 * otherwise. */
int suite_run_studies(study_ctx* ctx);
/* 1 if the study belongs to ctx's tier (the full tier: every study; quick: cs->quick_studies). */
int suite_study_in_tier(const study_ctx* ctx, const case_study* st);
/* Evaluates the case's gates of ctx's tier on its metrics: prints one line per gate, writes
 * CASE/gates.csv and the report's gate table, the number of failed gates in *failed. 0, or
 * non-zero (the gate file is invalid, gates.csv cannot be written). */
int suite_evaluate_gates(study_ctx* ctx, int* failed);
/* Round-off sensitivity of the gates (sensitivity.c; `ccb gate --sensitivity K`;
 * cases.md §10): the studies of a tier rerun under each of the first K perturbations, and per gate the
 * spread of its value against its margin to the bound. */
#define SUITE_NPERTURB 6
typedef struct suite_sensitivity suite_sensitivity;
const char* suite_perturbation_name(int p); /* "cholmod", "contacts-reversed", ... */
const char* suite_perturbation_what(int p);
/* Sets ctx's solver options and run perturbation to perturbation p. */
void suite_perturbation_apply(study_ctx* ctx, int p);
/* The nominal gates of ctx (its studies have run); NULL on an error (its message in ctx's
 * handle). */
suite_sensitivity* suite_sensitivity_begin(study_ctx* ctx, int k);
/* The gates of perturbation p, whose studies have run in pc. 0, or non-zero (message in pc's
 * handle). */
int suite_sensitivity_add(suite_sensitivity* sv, study_ctx* pc, int p);
/* Writes ctx's CASE/sensitivity.csv and appends its table to md; prints the gates that are not
 * a verdict, their number in *nfragile. 0, or non-zero (message in ctx's handle). */
int suite_sensitivity_finish(suite_sensitivity* sv, const study_ctx* ctx, strbuf* md,
                             int* nfragile);
void suite_sensitivity_head(strbuf* md, int k);
void suite_sensitivity_free(suite_sensitivity* sv);
/* The report ROOT/README.md: its head, a case's section, and the atomic write (0, or
 * non-zero with a message in msg). */
void suite_report_head(strbuf* r);
void suite_report_case(strbuf* r, const study_ctx* ctx);
int suite_report_write(const char* root, const char* text, char* msg, size_t n);
/* The table across engines (issue 48): every case's peers/claims.csv under root (the peers
 * studies' claims per run) gathered into ROOT/engines.csv (their rows) and ROOT/engines.md (per
 * case: claim x run, the measured value and its verdict; then run x case: claims held), with a
 * section in the report r. Cases without the file are left out; none: nothing is written. 0, or
 * -1 with a message (a file that does not read or parse, or a write that fails). */
int suite_engines_write(const char* root, const char* const* cases, int ncases, strbuf* r,
                        char* msg, size_t n);
/* The case's section alone, as <out_root>/<case>/report.md (atomic): what `ccb gate` leaves
 * beside the tier's data, so that a tier's report can be read and compared without `ccb
 * reproduce`. Its wall-time columns are the only parts that differ between two runs. 0, or
 * non-zero (message in ctx's handle). */
int suite_report_case_write(const study_ctx* ctx);

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
 * and a summary on standard output. 0, or a ccb_status with the message in msg. */
int suite_diff(const char* a, const char* b, const char* out, const suite_diff_opts* o,
               suite_diff_summary* sum, char* msg, size_t nmsg);
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

#endif
