/* cli/cli_internal.h — what the files of the command line share (not installed): the option
 * table and the parsed options, the helpers of options.c, the commands (cmd_*.c) that main.c
 * dispatches, and the manifest writer (manifest_out.c). */
#ifndef CCB_CLI_INTERNAL_H
#define CCB_CLI_INTERNAL_H

#include <getopt.h>
#include <setjmp.h>
#include <stdio.h>

#include "cli.h"

#define EXIT_GATE 1
#define EXIT_USAGE 2

/* Usage errors do not exit: die_usage (and every check that refuses input) writes its message
 * and jumps to the innermost trap, which the entry points set — ccb_cli_main (prints the message,
 * returns 2) and the status-returning calls of cli.h (cli_parse, ...). `--help` jumps there too,
 * with CLI_HELP (its text printed: success). */
typedef struct cli_trap {
    jmp_buf jb;
    struct cli_trap* prev;
    char msg[1024];
} cli_trap;
enum { CLI_USAGE = 1, CLI_HELP = 2 };
/* Pushes t (its jb must be set by setjmp right after) and pops it. */
void cli_trap_push(cli_trap* t);
void cli_trap_pop(cli_trap* t);
/* Jumps to the innermost trap with a message (CLI_USAGE) or after the help (CLI_HELP). */
void cli_fail(int code, const char* msg) __attribute__((noreturn));

enum {
    OPT_APPROX = 256,
    OPT_DT,
    OPT_T_FINAL,
    OPT_SET,
    OPT_OUT,
    OPT_JOBS,
    OPT_NO_FIGURES,
    OPT_RECORD_EVERY,
    OPT_REPEAT,
    OPT_SOLVER,
    OPT_FRICTION,
    OPT_VARIANT,
    OPT_VARIANTS,
    OPT_CASES,
    OPT_QUICK,
    OPT_PEERS,
    OPT_TIER,
    OPT_EMIT_MANIFEST,
    OPT_FROM,
    OPT_PHYSICS,
    OPT_EXPORT_FCLIB,
    OPT_EXPORT_STEPS,
    OPT_SENSITIVITY,
    OPT_PERTURB,
    OPT_FORMAT,
    OPT_JUNIT,
    OPT_SAVE_BASELINE,
    OPT_BASELINE,
    OPT_WITH_TRAJECTORIES,
    OPT_REPORT_ONLY,
    OPT_RTOL,
    OPT_ATOL,
    OPT_END,
    /* the options of the solvers and ODE methods: OPT_SOLVER_OPT + index in g_sopt (generated
     * from libccb's option descriptors) */
    OPT_SOLVER_OPT = 1024
};

/* The solver options: the union of the descriptor names of every registered solver and ODE
 * method, each a long option (a flag if its descriptors are flags). Built once the plugins are
 * loaded (sopt_build). */
#define SOPT_MAX 96
typedef struct sopt_entry {
    char name[32];
    int flag;
} sopt_entry;

typedef struct opts {
    const char* approx;
    double dt, t_final;
    int have_dt, have_t;
    const char* out;
    int jobs;
    int figures;
    int record_every;
    int repeat;
    const char* manifest;     /* --emit-manifest FILE (study) */
    const char* from;         /* --from ROOT (study) */
    int slurm;                /* --format slurm (with --emit-manifest): a Slurm job-array script */
    int physics;              /* --physics (run) */
    const char* export_fclib; /* --export-fclib FILE (run) */
    long export_steps[RUN_MAX_EXPORT]; /* --export-steps LIST (run) */
    int nexport;
    int tier;                  /* 0: the command's default; CASE_TIER_QUICK or CASE_TIER_FULL */
    int sensitivity;           /* --sensitivity K (gate): K round-off perturbations */
    unsigned perturb;          /* --perturb LIST (run): RUN_PERTURB_* */
    const char* junit;         /* --junit FILE (gate) */
    const char* save_baseline; /* --save-baseline DIR (gate) */
    const char* baseline;      /* --baseline DIR (gate) */
    int with_trajectories;     /* --with-trajectories (gate --save-baseline) */
    int report_only;           /* --report-only (diff, gate --baseline) */
    double rtol, atol;         /* --rtol, --atol (diff, gate --baseline); < 0: the defaults */
    int quick;                 /* --quick (compare) */
    int peers;                 /* --peers (bench) */
    const char* cases;         /* --cases LIST (compare) */
    const char* variant;       /* --variant NAME (run) */
    const char* variants;      /* --variants SPEC (bench, compare) */
    const char* solver;        /* --solver NAME: a solver or an ODE method of the registries */
    const char* friction; /* --friction NAME: the regularized friction law (not a solver option) */
    /* the solver options given (NULL: not given; "" for a flag), by index in g_sopt */
    const char* sval[SOPT_MAX];
    const char* sets[64];
    int nsets;
    const char* pos[16];
    int npos;
    unsigned char given[OPT_END - OPT_APPROX]; /* each long option given (check_applicable) */
} opts;
extern sopt_entry g_sopt[SOPT_MAX];
extern int g_nsopt;

typedef struct manifest_out {
    strbuf text;
    char exe[PATH_MAX];
    const char* root; /* the runs' results root (--out of the study) */
    run_config* seen; /* runs written so far, with the study_execute call that wrote them */
    int* seen_batch;
    int nseen, cap;
    int refused; /* a run could not be written: no manifest */
} manifest_out;

#define RUN_OPTS                                                                                   \
    "variant approx dt t-final set out record-every physics export-fclib export-steps perturb "    \
    "solver friction SOLVER"
#define STUDY_NEWTON_OPTS "rtol max-iterations stop-scale kappa delassus linear-solver pattern"

extern const char* const k_run_help;

/* The command's report of an error (docs/architecture.md §7): the message, once, as "ccb: TEXT"
 * on stderr (study_log); returns EXIT_USAGE for `return cli_error(...)`. cli_study_error: the
 * failure a study context's handle holds (study_error). */
int cli_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_study_error(const study_ctx* ctx);
void die_usage(const char* fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
double parse_num(const char* opt, const char* s);
int parse_int(const char* opt, const char* s, int lo, int hi);
unsigned parse_perturb(const char* val);
int sopt_find(const char* name);
int sopt_add(const char* owner, const ccb_option_desc* d, int n, char* msg, size_t msgn);
int sopt_build(char* msg, size_t n);
void sopt_ensure(void);
int in_words(const char* list, const char* word);
int edit_distance(const char* a, const char* b);
void suggest(const char* name, const char* allowed, char* out, size_t n);
int allowed_option(const char* allowed, const char* name);
const char* long_name(int val);
void parse_steps(const char* val, opts* o);
void check_path(const char* opt, const char* val);
void parse_opts(int argc, char** argv, int first, const char* allowed, opts* o, const char* help);
const case_desc* need_case(const char* name);
const ccb_approx* need_approx(const char* name);
void apply_sets(const case_desc* cs, double* params, const opts* o);
int need_enum(const char* opt, ccb_enum e, const char* val);
void validate_enum(const char* opt, ccb_enum e, const char* val);
void solvers_with(unsigned flag, char* out, size_t n);
void apply_solver_options(const opts* o, run_config* cfg, int strict);
void check_applicable(const opts* o, const run_config* cfg);
/* Which of the solver options (and --friction, and the --set parameters) given in o the runs of
 * a command read, and which of them keep the user's value: option_use_note for each run (after
 * its options were applied), then option_use_check refuses an option no run reads, or that
 * every run reading it overrides ("no WHAT reads it"). Issue 44, part 3. */
typedef struct option_use {
    const opts* o;
    unsigned char read[SOPT_MAX], kept[SOPT_MAX];
    int friction_read;
    /* the --set parameters (case_param_read): read by a run, kept by one, why not read */
    unsigned char set_read[64], set_kept[64];
    char set_why[64][256];
} option_use;
/* `ccb run`: a --set parameter that the run does not read (its read_if) is refused. */
void check_sets_read(const opts* o, const run_config* cfg);
void option_use_note(option_use* u, const run_config* cfg);
void option_use_check(const option_use* u, const char* what);
void print_solver_help(const char* allowed);
void setup_ctx(study_ctx* ctx, const case_desc* cs, const opts* o, const char* out);
int cmd_list(int argc, char** argv);
int cmd_info(int argc, char** argv);
void print_option(const ccb_option_desc* d);
int info_solver(const char* name);
void run_config_from_opts(const opts* o, run_config* cfg);
int cmd_run(int argc, char** argv);
void manifest_normalize(run_config* c);
void emit_option(void* user, const ccb_option_desc* d, const char* text, int is_default);
void shell_word(strbuf* b, const char* s);
void plugin_words(strbuf* b);
int emit_run(void* user, const study_ctx* ctx, const char* study, const run_config* cfg,
             const char* rel);
int manifest_begin(manifest_out* mo, const char* root, char* tmp, size_t n);
int manifest_collect(study_ctx* ctx, const case_study* st, manifest_out* mo, const char* tmp);
void slurm_script(strbuf* b, const char* lines, int n, const char* what);
int manifest_write(const manifest_out* mo, const opts* o, const char* what, int argc, char** argv);
void manifest_free(manifest_out* mo);
int study_emit_manifest(study_ctx* ctx, const case_study* st, const opts* o, const char* root,
                        int argc, char** argv);
int cmd_study(int argc, char** argv);
int cmd_gate(int argc, char** argv);
int cmd_reproduce(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_diff(int argc, char** argv);
void diff_opts_from(const opts* o, suite_diff_opts* d);
int cmp_double(const void* a, const void* b);
void describe_line(const char* key, const char* value, void* user);
int bench_peers(const case_desc* cs, const run_config* cfg, const char* variant, int repeat);
int cmd_bench(int argc, char** argv);
void load_plugins(int* argc, char** argv);
int dispatch(int argc, char** argv);
void on_signal(int sig);
void install_signal_handlers(void);
/* Blocks the signals ccb handles (SIGINT, SIGTERM, SIGHUP) until cli_restore_signals: for what
 * must not be cut in two (a fork and the note of its child, a baseline's rename). */
void cli_block_signals(void);
void cli_restore_signals(void);
/* The processes this one started for parts of its work (`ccb reproduce`'s cases): on_signal
 * passes the signal on to them and waits for them (each removes its own unfinished files) before
 * this process dies. A child forgets its siblings with cli_workers_clear. */
void cli_worker_add(int pid);
void cli_worker_forget(int pid);
void cli_workers_clear(void);
int ccb_cli_main(int argc, char** argv);

/* manifest_out.c: removes the tree at path (symbolic links not followed) */
void remove_tree(const char* path);

#endif
