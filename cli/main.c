/* ccb — command-line program of the ccb benchmark and validation suite.
 *
 *   ccb list | info CASE | run CASE [...] | study CASE STUDY [...] | gate [CASE...] [...]
 *   ccb reproduce [...] | bench [CASE] [...]
 *
 * Data go to files and stdout, progress and diagnostics to stderr (a progress bar when stderr is a
 * terminal). Exit codes: 0 success, 1 a gate or a solver failed, 2 usage or input error. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* POSIX 2008 with nftw(3) and realpath(3) */
#endif
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fclib_io.h"
#include "gates.h"
#include "mujoco_peer.h"
#include "siconos_peer.h"

#define EXIT_GATE 1
#define EXIT_USAGE 2

static void die_usage(const char* fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("ccb: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n(see ccb --help)\n", stderr);
    va_end(ap);
    exit(EXIT_USAGE);
}

static const char* k_usage =
    "ccb — benchmark and validation suite for velocity-level frictional-contact solvers\n"
    "\n"
    "usage: ccb [--plugin FILE.so ...] COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  list                      the canonical cases, their studies, the solver variants\n"
    "  info CASE                 parameters (defaults, units, ranges, sources), studies, gates,\n"
    "                            and the documented modelling choices of a case\n"
    "  run CASE [options]        one simulation; writes trajectory.csv, steps.csv, times.csv,\n"
    "                            meta.json\n"
    "  study CASE STUDY          one study (runs, tables, figure) under results/CASE/STUDY\n"
    "  gate [CASE...]            run the studies of a gate tier and check reference/CASE.json\n"
    "  reproduce                 every study, figure and gate; writes results/README.md\n"
    "  compare                   variants side by side on the cases: compare.csv, .md, figures\n"
    "  bench [CASE]              wall time of the stepping loop per variant\n"
    "\n"
    "--plugin FILE.so (repeatable; also CCB_PLUGIN_PATH, colon-separated files or directories)\n"
    "loads a module that registers approximations, solvers or ODE methods: its variants then\n"
    "take part in every command (docs/architecture.md §5; plugins/pgs is one).\n"
    "\n"
    "`ccb COMMAND --help` lists the options of a command. Exit codes: 0 success, 1 a gate or a\n"
    "solver failed, 2 usage or input error.\n";

/* ---- option parsing ------------------------------------------------------------------------ */

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
static sopt_entry g_sopt[SOPT_MAX];
static int g_nsopt = -1;

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
    int tier;             /* 0: the command's default; CASE_TIER_QUICK or CASE_TIER_FULL */
    int sensitivity;      /* --sensitivity K (gate): K round-off perturbations */
    unsigned perturb;     /* --perturb LIST (run): RUN_PERTURB_* */
    int quick;            /* --quick (compare) */
    int peers;            /* --peers (bench) */
    const char* cases;    /* --cases LIST (compare) */
    const char* variant;  /* --variant NAME (run) */
    const char* variants; /* --variants SPEC (bench, compare) */
    const char* solver;   /* --solver NAME: a solver or an ODE method of the registries */
    const char* friction; /* --friction NAME: the regularized friction law (not a solver option) */
    /* the solver options given (NULL: not given; "" for a flag), by index in g_sopt */
    const char* sval[SOPT_MAX];
    const char* sets[64];
    int nsets;
    const char* pos[16];
    int npos;
    unsigned char given[OPT_END - OPT_APPROX]; /* each long option given (check_applicable) */
} opts;

static double parse_num(const char* opt, const char* s) {
    char* end = NULL;
    const double v = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || !isfinite(v)) {
        die_usage("%s expects a finite number (got '%s')", opt, s);
    }
    return v;
}

static int parse_int(const char* opt, const char* s, int lo, int hi) {
    char* end = NULL;
    const long v = strtol(s, &end, 10);
    if (s[0] == '\0' || *end != '\0' || v < lo || v > hi) {
        die_usage("%s expects a whole number in [%d, %d] (got '%s')", opt, lo, hi, s);
    }
    return (int)v;
}

/* --perturb LIST: comma-separated contacts, ulp, member=K (K in 1..10000): RUN_PERTURB_* bits. */
static unsigned parse_perturb(const char* val) {
    unsigned p = 0;
    const char* s = val;
    while (*s) {
        const size_t n = strcspn(s, ",");
        if (n == 8 && strncmp(s, "contacts", 8) == 0) {
            p |= RUN_PERTURB_CONTACTS;
        } else if (n == 3 && strncmp(s, "ulp", 3) == 0) {
            p |= RUN_PERTURB_ULP;
        } else if (n > 7 && n < 13 && strncmp(s, "member=", 7) == 0) {
            char k[8];
            memcpy(k, s + 7, n - 7);
            k[n - 7] = '\0';
            p = (p & 0xffu) | RUN_PERTURB_MEMBER(parse_int("--perturb member=", k, 1, 10000));
        } else {
            die_usage("--perturb expects contacts, ulp or member=K, separated by commas (got "
                      "'%s')",
                      val);
        }
        s += n;
        if (*s == ',' && *++s == '\0') {
            die_usage("--perturb: a trailing comma in '%s'", val);
        }
    }
    return p;
}

/* Every long option of every command (getopt_long(3)); each command accepts the subset named by
 * its `allowed` list. Flags take no value ("--kappa=0" is an error, not "on"). */
static const struct option k_fixed[] = {
    {"help", no_argument, NULL, 'h'},
    {"approx", required_argument, NULL, OPT_APPROX},
    {"dt", required_argument, NULL, OPT_DT},
    {"t-final", required_argument, NULL, OPT_T_FINAL},
    {"set", required_argument, NULL, OPT_SET},
    {"out", required_argument, NULL, OPT_OUT},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"no-figures", no_argument, NULL, OPT_NO_FIGURES},
    {"record-every", required_argument, NULL, OPT_RECORD_EVERY},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"solver", required_argument, NULL, OPT_SOLVER},
    {"friction", required_argument, NULL, OPT_FRICTION},
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"variants", required_argument, NULL, OPT_VARIANTS},
    {"cases", required_argument, NULL, OPT_CASES},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"peers", no_argument, NULL, OPT_PEERS},
    {"tier", required_argument, NULL, OPT_TIER},
    {"emit-manifest", required_argument, NULL, OPT_EMIT_MANIFEST},
    {"from", required_argument, NULL, OPT_FROM},
    {"physics", no_argument, NULL, OPT_PHYSICS},
    {"export-fclib", required_argument, NULL, OPT_EXPORT_FCLIB},
    {"export-steps", required_argument, NULL, OPT_EXPORT_STEPS},
    {"sensitivity", required_argument, NULL, OPT_SENSITIVITY},
    {"perturb", required_argument, NULL, OPT_PERTURB},
    {"format", required_argument, NULL, OPT_FORMAT},
};
#define NFIXED ((int)(sizeof k_fixed / sizeof k_fixed[0]))
/* k_fixed, then the solver options of g_sopt, then the terminator */
static struct option k_long[NFIXED + SOPT_MAX + 1];

static int sopt_find(const char* name) {
    for (int i = 0; i < g_nsopt; ++i) {
        if (strcmp(g_sopt[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

/* Adds the descriptors of one type to g_sopt; 0, or -1 with a message for a name that is a fixed
 * option or a flag in one type and takes a value in another. */
static int sopt_add(const char* owner, const ccb_option_desc* d, int n, char* msg, size_t msgn) {
    for (int i = 0; i < n; ++i) {
        const int flag = d[i].type == CCB_OPT_FLAG;
        for (int f = 0; f < NFIXED; ++f) {
            if (strcmp(k_fixed[f].name, d[i].name) == 0) {
                snprintf(msg, msgn, "%s: option --%s is a command-line option of ccb itself", owner,
                         d[i].name);
                return -1;
            }
        }
        const int k = sopt_find(d[i].name);
        if (k >= 0 && g_sopt[k].flag != flag) {
            snprintf(msg, msgn, "%s: option --%s is a %s here and %s elsewhere", owner, d[i].name,
                     flag ? "flag" : "valued option", flag ? "takes a value" : "a flag");
            return -1;
        }
        if (k < 0) {
            if (g_nsopt == SOPT_MAX) {
                snprintf(msg, msgn, "%s: more than %d solver options in all", owner, SOPT_MAX);
                return -1;
            }
            snprintf(g_sopt[g_nsopt].name, sizeof g_sopt[g_nsopt].name, "%s", d[i].name);
            g_sopt[g_nsopt++].flag = flag;
        }
    }
    return 0;
}

/* Builds g_sopt and k_long from the registries (again after a plugin registered types). */
static int sopt_build(char* msg, size_t n) {
    g_nsopt = 0;
    for (int i = 0; i < ccb_solver_count(); ++i) {
        const ccb_solver_type* t = ccb_solver_get(i);
        if (sopt_add(t->name, t->options, t->noptions, msg, n) != 0) {
            return -1;
        }
    }
    for (int i = 0; i < ccb_ode_method_count(); ++i) {
        ccb_ode_method m = ccb_ode_method_get(i);
        if (sopt_add(m->name, m->options, m->noptions, msg, n) != 0) {
            return -1;
        }
    }
    memcpy(k_long, k_fixed, sizeof k_fixed);
    for (int i = 0; i < g_nsopt; ++i) {
        k_long[NFIXED + i] =
            (struct option){g_sopt[i].name, g_sopt[i].flag ? no_argument : required_argument, NULL,
                            OPT_SOLVER_OPT + i};
    }
    k_long[NFIXED + g_nsopt] = (struct option){NULL, 0, NULL, 0};
    return 0;
}

static void sopt_ensure(void) {
    if (g_nsopt < 0) {
        char msg[256];
        if (sopt_build(msg, sizeof msg) != 0) {
            fprintf(stderr, "ccb: %s\n", msg);
            exit(EXIT_USAGE);
        }
    }
}

/* "SOLVER" in an allowed list: every solver option. */
static int allowed_option(const char* allowed, const char* name);
static void print_solver_help(const char* allowed);

/* Word match of `word` in the space-separated list `list`. */
static int in_words(const char* list, const char* word) {
    const size_t n = strlen(word);
    for (const char* p = strstr(list, word); p && n > 0; p = strstr(p + 1, word)) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) {
            return 1;
        }
    }
    return 0;
}

/* Edit distance (insertions, deletions, substitutions; names are short). */
static int edit_distance(const char* a, const char* b) {
    const size_t na = strlen(a), nb = strlen(b);
    if (na > 63 || nb > 63) {
        return 99;
    }
    int d[64][64];
    for (size_t i = 0; i <= na; ++i) {
        d[i][0] = (int)i;
    }
    for (size_t j = 0; j <= nb; ++j) {
        d[0][j] = (int)j;
    }
    for (size_t i = 1; i <= na; ++i) {
        for (size_t j = 1; j <= nb; ++j) {
            const int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            const int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    }
    return d[na][nb];
}

/* " (did you mean --NAME?)" for the accepted option nearest to `name`, or "". */
static void suggest(const char* name, const char* allowed, char* out, size_t n) {
    int best = 99;
    const char* hit = NULL;
    for (const struct option* l = k_long; l->name; ++l) {
        if (!allowed_option(allowed, l->name) && strcmp(l->name, "help") != 0) {
            continue;
        }
        const int dist = edit_distance(name, l->name);
        if (dist < best) {
            best = dist;
            hit = l->name;
        }
    }
    const int len = (int)strlen(name);
    if (hit && best <= (len > 6 ? len / 3 : 2)) {
        snprintf(out, n, " (did you mean --%s?)", hit);
    } else {
        out[0] = '\0';
    }
}

static int allowed_option(const char* allowed, const char* name) {
    return in_words(allowed, name) || (sopt_find(name) >= 0 && in_words(allowed, "SOLVER"));
}

static const char* long_name(int val) {
    for (const struct option* l = k_long; l->name; ++l) {
        if (l->val == val) {
            return l->name;
        }
    }
    return "?";
}

static void validate_enum(const char* opt, ccb_enum e, const char* val);

/* allowed: the option names accepted by the command, e.g. "approx dt t-final set out". Every
 * option given is validated here, whether or not it applies to the configuration chosen. */
/* --export-steps LIST: comma-separated positive step numbers, ascending (the run checks them
 * against its length). */
static void parse_steps(const char* val, opts* o) {
    o->nexport = 0;
    const char* p = val;
    if (*p == '\0') {
        die_usage("--export-steps expects positive step numbers separated by commas (got an "
                  "empty list)");
    }
    while (*p) {
        char* end = NULL;
        errno = 0;
        const long k = strtol(p, &end, 10);
        if (end == p || errno != 0 || k < 1 || (*end != ',' && *end != '\0')) {
            die_usage("--export-steps expects positive step numbers separated by commas (got "
                      "'%s')",
                      val);
        }
        if (o->nexport == RUN_MAX_EXPORT) {
            die_usage("--export-steps: at most %d steps", RUN_MAX_EXPORT);
        }
        if (o->nexport > 0 && k <= o->export_steps[o->nexport - 1]) {
            die_usage("--export-steps: steps must be ascending (got '%s')", val);
        }
        o->export_steps[o->nexport++] = k;
        p = *end == ',' ? end + 1 : end;
        if (*end == ',' && *p == '\0') {
            die_usage("--export-steps: a trailing comma in '%s'", val);
        }
    }
}

/* A path option: 1 to CASE_MAX_ROOT - 1 characters, no control character (a newline would split
 * a manifest line). Quotes, spaces, $ and the like are data: every path reaches gnuplot through
 * ccb_an_gp_quote and a manifest through shell_quote, never as code. */
static void check_path(const char* opt, const char* val) {
    if (val[0] == '\0' || strlen(val) >= CASE_MAX_ROOT) {
        die_usage("--%s expects a path of 1 to %d characters (got %zu)", opt, CASE_MAX_ROOT - 1,
                  strlen(val));
    }
    for (const char* ch = val; *ch; ++ch) {
        if ((unsigned char)*ch < 0x20 || *ch == 0x7f) {
            die_usage("--%s: the path has a control character (byte %d at offset %ld)", opt,
                      (unsigned char)*ch, (long)(ch - val));
        }
    }
}

static void parse_opts(int argc, char** argv, int first, const char* allowed, opts* o,
                       const char* help) {
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->figures = 1;
    o->record_every = 1;
    o->repeat = 5;
    /* getopt_long sees argv[first - 1] (the command) as the program name and permutes the rest:
     * positional arguments may stand anywhere; "--" ends the options */
    char** av = argv + first - 1;
    const int ac = argc - first + 1;
    opterr = 0;
    optind = 0; /* GNU: 0 reinitializes getopt completely (a second parse, the fuzzer) */
    sopt_ensure();
    for (;;) {
        const int prev = optind;
        const int c = getopt_long(ac, av, ":h", k_long, NULL);
        if (c == -1) {
            break;
        }
        const char* arg = av[prev < ac ? prev : ac - 1]; /* the word that held the option */
        if (c == '?' || c == ':') {
            const char* word = av[optind - 1 < ac ? optind - 1 : ac - 1];
            if (c == ':') {
                die_usage("option %s needs a value", word);
            }
            if (optopt >= OPT_APPROX) { /* a flag given a value */
                die_usage("option --%s takes no value (got '%s')", long_name(optopt), word);
            }
            if (optopt != 0) { /* a short option */
                die_usage("unknown option '-%c': ccb's options are long (--name VALUE or "
                          "--name=VALUE; `ccb %s --help`)",
                          optopt, av[0]);
            }
            char name[64], hint[96];
            const char* eq = strchr(word + 2, '=');
            snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - word - 2) : 60, word + 2);
            if (name[0] == '\0') {
                die_usage("option '%s' has no name", word);
            }
            char cand[256] = "";
            int ncand = 0;
            for (const struct option* l = k_long; l->name; ++l) { /* prefixes of several */
                if (strncmp(l->name, name, strlen(name)) == 0) {
                    const size_t len = strlen(cand);
                    snprintf(cand + len, sizeof cand - len, "%s--%s", ncand++ ? ", " : "", l->name);
                }
            }
            if (ncand > 1) {
                die_usage("ambiguous option '%s' (%s)", word, cand);
            }
            suggest(name, allowed, hint, sizeof hint);
            die_usage("unknown option '%s'%s", word, hint);
        }
        if (c == 'h') {
            fputs(help, stdout);
            if (in_words(allowed, "SOLVER") || in_words(allowed, "rtol")) {
                print_solver_help(allowed);
            }
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "ccb: cannot write to standard output: %s\n", strerror(errno));
                exit(EXIT_USAGE);
            }
            exit(0);
        }
        const char* name = long_name(c);
        if (!allowed_option(allowed, name)) {
            die_usage("option --%s does not apply to `ccb %s` (`ccb %s --help` lists its "
                      "options)",
                      name, av[0], av[0]);
        }
        (void)arg;
        const char* val = optarg;
        if (c >= OPT_APPROX && c < OPT_END) {
            o->given[c - OPT_APPROX] = 1;
        }
        switch (c) {
        case OPT_APPROX: o->approx = val; break;
        case OPT_DT:
            o->dt = parse_num("--dt", val);
            o->have_dt = 1;
            break;
        case OPT_T_FINAL:
            o->t_final = parse_num("--t-final", val);
            o->have_t = 1;
            break;
        case OPT_SET:
            if (o->nsets >= 64) {
                die_usage("too many --set options");
            }
            o->sets[o->nsets++] = val;
            break;
        case OPT_OUT:
            check_path("out", val);
            o->out = val;
            break;
        case OPT_JOBS: o->jobs = parse_int("--jobs", val, 1, 64); break;
        case OPT_NO_FIGURES: o->figures = 0; break;
        case OPT_RECORD_EVERY:
            o->record_every = parse_int("--record-every", val, 1, 1000000000);
            break;
        case OPT_REPEAT: o->repeat = parse_int("--repeat", val, 1, 1000); break;
        case OPT_SOLVER: {
            run_config probe;
            memset(&probe, 0, sizeof probe);
            char msg[512];
            if (solver_select(&probe, val, msg, sizeof msg) != 0) {
                die_usage("%s", msg);
            }
            o->solver = val;
            break;
        }
        case OPT_FRICTION:
            validate_enum("--friction", CCB_ENUM_FRICTION, val);
            o->friction = val;
            break;
        case OPT_VARIANT: o->variant = val; break;
        case OPT_VARIANTS: o->variants = val; break;
        case OPT_CASES: o->cases = val; break;
        case OPT_QUICK: o->quick = 1; break;
        case OPT_PEERS: o->peers = 1; break;
        case OPT_TIER:
            if (strcmp(val, "quick") != 0 && strcmp(val, "full") != 0) {
                die_usage("--tier expects quick or full (got '%s')", val);
            }
            o->tier = strcmp(val, "quick") == 0 ? CASE_TIER_QUICK : CASE_TIER_FULL;
            break;
        case OPT_PHYSICS: o->physics = 1; break;
        case OPT_FORMAT:
            if (strcmp(val, "lines") != 0 && strcmp(val, "slurm") != 0) {
                die_usage("--format expects lines or slurm (got '%s')", val);
            }
            o->slurm = strcmp(val, "slurm") == 0;
            break;
        case OPT_PERTURB: o->perturb = parse_perturb(val); break;
        case OPT_SENSITIVITY:
            o->sensitivity = parse_int("--sensitivity", val, 1, SUITE_NPERTURB);
            break;
        case OPT_EXPORT_FCLIB:
            if (val[0] == '\0') {
                die_usage("--export-fclib needs a file name");
            }
            o->export_fclib = val;
            break;
        case OPT_EXPORT_STEPS: parse_steps(val, o); break;
        case OPT_EMIT_MANIFEST:
        case OPT_FROM:
            check_path(c == OPT_FROM ? "from" : "emit-manifest", val);
            *(c == OPT_FROM ? &o->from : &o->manifest) = val;
            break;
        default:
            if (c >= OPT_SOLVER_OPT && c < OPT_SOLVER_OPT + g_nsopt) {
                const sopt_entry* e = &g_sopt[c - OPT_SOLVER_OPT];
                char msg[512];
                if (!e->flag && solver_option_validate(e->name, val, msg, sizeof msg) != 0) {
                    die_usage("%s", msg);
                }
                o->sval[c - OPT_SOLVER_OPT] = e->flag ? "" : val;
                break;
            }
            die_usage("unknown option '%s'", arg);
        }
    }
    for (int i = optind; i < ac; ++i) { /* the positional arguments, in order */
        if (o->npos >= 16) {
            die_usage("too many arguments");
        }
        o->pos[o->npos++] = av[i];
    }
}

static const case_desc* need_case(const char* name) {
    const case_desc* cs = case_find(name);
    if (cs == NULL) {
        fprintf(stderr, "ccb: unknown case '%s'; known cases:", name);
        for (int i = 0; i < case_count(); ++i) {
            fprintf(stderr, " %s", case_get(i)->name);
        }
        fputc('\n', stderr);
        exit(EXIT_USAGE);
    }
    return cs;
}

static const ccb_approx* need_approx(const char* name) {
    const ccb_approx* ap = ccb_approx_find(name);
    if (ap == NULL) {
        fprintf(stderr, "ccb: unknown approximation '%s'; known:", name);
        for (int i = 0; i < ccb_approx_count(); ++i) {
            fprintf(stderr, " %s", ccb_approx_get(i)->name);
        }
        fputc('\n', stderr);
        exit(EXIT_USAGE);
    }
    return ap;
}

static void apply_sets(const case_desc* cs, double* params, const opts* o) {
    for (int i = 0; i < o->nsets; ++i) {
        char msg[512];
        if (case_set_param(cs, params, o->sets[i], msg, sizeof msg) != 0) {
            fprintf(stderr, "ccb: %s\n", msg);
            exit(EXIT_USAGE);
        }
    }
}

/* The value of an enumerated option by the library's name table (ccb/names.h), or a usage error
 * listing the names. */
static int need_enum(const char* opt, ccb_enum e, const char* val) {
    int v = 0;
    if (ccb_enum_value(e, val, &v) != CCB_OK) {
        char list[256];
        ccb_enum_list(e, ", ", list, sizeof list);
        die_usage("%s expects one of %s (got '%s')", opt, list, val);
    }
    return v;
}

static void validate_enum(const char* opt, ccb_enum e, const char* val) {
    (void)need_enum(opt, e, val);
}

/* The solvers (and, for the ODE solver, its methods) whose type has `flag`: "tamsi, ie, rk3 and
 * gsl", for messages. */
static void solvers_with(unsigned flag, char* out, size_t n) {
    const char* names[64];
    int k = 0;
    for (int i = 0; i < ccb_solver_count() && k < 60; ++i) {
        const ccb_solver_type* t = ccb_solver_get(i);
        if (!(t->flags & flag)) {
            continue;
        }
        if (!(t->flags & CCB_SOLVER_ODE_METHODS)) {
            names[k++] = t->name;
            continue;
        }
        for (int j = 0; j < ccb_ode_method_count() && k < 60; ++j) {
            names[k++] = ccb_ode_method_get(j)->name;
        }
    }
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < k && at < n; ++i) {
        at += (size_t)snprintf(out + at, n - at, "%s%s",
                               i == 0       ? ""
                               : i + 1 == k ? " and "
                                            : ", ",
                               names[i]);
    }
}

/* Applies the solver options given to cfg, whose solver is already chosen, in the order of
 * g_sopt. strict (`ccb run`, a manifest line): an option that the run's solver does not read, or
 * reads only with a flag that is off, is an error naming the solvers that read it (issue 13,
 * class 3); otherwise (bench, compare) each applies where it applies. */
static void apply_solver_options(const opts* o, run_config* cfg, int strict) {
    char msg[512];
    const solver_cfg* sc = &cfg->solver;
    for (int i = 0; i < g_nsopt; ++i) {
        if (o->sval[i] == NULL) {
            continue;
        }
        if (sc->peer != RUN_PEER_NONE) {
            if (strict) {
                die_usage("--%s is an option of ccb's solvers; this run (a peer) would ignore it",
                          g_sopt[i].name);
            }
            continue;
        }
        const int rc = solver_set_option(cfg, g_sopt[i].name, g_sopt[i].flag ? NULL : o->sval[i],
                                         msg, sizeof msg);
        if (rc < 0 || (rc > 0 && strict)) {
            die_usage("%s", msg);
        }
    }
    for (int i = 0; strict && i < g_nsopt; ++i) { /* an option read only with a flag off */
        if (o->sval[i] && solver_option_requires(cfg, g_sopt[i].name, msg, sizeof msg) != 0) {
            die_usage("%s", msg);
        }
    }
    if (o->friction && sc->peer == RUN_PEER_NONE) {
        if (sc->solver->flags & CCB_SOLVER_REGULARIZED) {
            cfg->solver.friction = need_enum("--friction", CCB_ENUM_FRICTION, o->friction);
        } else if (strict) {
            char where[256];
            solvers_with(CCB_SOLVER_REGULARIZED, where, sizeof where);
            die_usage("--friction applies to --solver %s only; this run (%s) would ignore it",
                      where, solver_cli_name(cfg));
        }
    }
    if (sc->peer == RUN_PEER_NONE) { /* the solver's own parameters, by the library */
        ccb_sim_params sp;
        run_config_sim_params(cfg, &sp);
        if (ccb_sim_params_check(&sp, msg, sizeof msg) != CCB_OK) {
            die_usage("%s", msg);
        }
    }
}

/* `ccb run` has one solver: an option of the command that its solver would not read is refused
 * instead of silently ignored (the solver options: apply_solver_options). */
static void check_applicable(const opts* o, const run_config* cfg) {
    const solver_cfg* sc = &cfg->solver;
    const int peer = sc->peer != RUN_PEER_NONE;
    const unsigned flags = peer ? 0u : sc->solver->flags;
    char name[64], where[256];
    variant_name(cfg, name, sizeof name);
    if (o->given[OPT_APPROX - OPT_APPROX] && !(flags & CCB_SOLVER_CONVEX)) {
        solvers_with(CCB_SOLVER_CONVEX, where, sizeof where);
        die_usage("--approx applies to --solver %s (the convex approximations) only; this run "
                  "(%s) would ignore it",
                  where, name);
    }
    if (o->given[OPT_PHYSICS - OPT_APPROX] && peer) {
        die_usage("--physics applies to ccb's solvers (not a peer); this run (%s) would ignore it",
                  name);
    }
    const int frozen_fixed = !peer && sc->solver->solve != NULL && !sc->ec.enabled;
    if ((o->given[OPT_EXPORT_FCLIB - OPT_APPROX] || o->given[OPT_EXPORT_STEPS - OPT_APPROX]) &&
        !frozen_fixed) {
        die_usage("--export-fclib and --export-steps apply to fixed-step solvers of the step "
                  "problem (newton, tamsi, a registered frozen-step solver) only; this run (%s) "
                  "would ignore them",
                  name);
    }
    if (o->friction && peer) {
        die_usage("--friction applies to ccb's solvers (not a peer); this run (%s) would ignore "
                  "it",
                  name);
    }
}

/* The solver options a command accepts, from the descriptors (for --help). */
static void print_solver_help(const char* allowed) {
    printf("\nsolver options (from the option descriptors of the solvers and ODE methods; `ccb "
           "info --solvers` lists them with their ranges):\n");
    for (int i = 0; i < g_nsopt; ++i) {
        if (!allowed_option(allowed, g_sopt[i].name)) {
            continue;
        }
        char value[128] = "";
        for (int t = 0; t < ccb_solver_count() + ccb_ode_method_count() && !value[0]; ++t) {
            int dummy = 0;
            const ccb_option_desc* d = t < ccb_solver_count()
                                           ? ccb_solver_option(ccb_solver_get(t), g_sopt[i].name)
                                           : NULL;
            ccb_ode_method m =
                t >= ccb_solver_count() ? ccb_ode_method_get(t - ccb_solver_count()) : NULL;
            for (int j = 0; m && j < m->noptions && d == NULL; ++j) {
                d = strcmp(m->options[j].name, g_sopt[i].name) == 0 ? &m->options[j] : NULL;
            }
            (void)dummy;
            if (d == NULL || d->type == CCB_OPT_FLAG) {
                continue;
            }
            const char* const* names = d->type == CCB_OPT_ENUM ? d->values : NULL;
            size_t at = 0;
            for (int k = 0; names && names[k] && at < sizeof value; ++k) {
                at += (size_t)snprintf(value + at, sizeof value - at, "%s%s", k ? "|" : " ",
                                       names[k]);
            }
            if (d->type != CCB_OPT_ENUM) {
                snprintf(value, sizeof value, "%s",
                         d->type == CCB_OPT_SWITCH ? " on|off"
                         : d->type == CCB_OPT_INT  ? " N"
                                                   : " X");
            }
        }
        printf("  --%s%s\n", g_sopt[i].name, value);
        for (int t = 0; t < ccb_solver_count() + ccb_ode_method_count(); ++t) {
            const int is_solver = t < ccb_solver_count();
            const ccb_option_desc* opts_t =
                is_solver ? ccb_solver_get(t)->options
                          : ccb_ode_method_get(t - ccb_solver_count())->options;
            const int nt = is_solver ? ccb_solver_get(t)->noptions
                                     : ccb_ode_method_get(t - ccb_solver_count())->noptions;
            const char* owner = is_solver ? ccb_solver_get(t)->name
                                          : ccb_ode_method_get(t - ccb_solver_count())->name;
            for (int j = 0; j < nt; ++j) {
                const ccb_option_desc* d = &opts_t[j];
                if (strcmp(d->name, g_sopt[i].name) != 0) {
                    continue;
                }
                char def[64];
                ccb_option_format_default(d, def, sizeof def);
                printf("        %s: %s (default %s%s%s%s%s)\n", owner, d->doc, def,
                       d->unit[0] ? " " : "", d->unit, d->requires ? "; with --" : "",
                       d->requires ? d->requires : "");
            }
        }
    }
}

/* ---- list / info -------------------------------------------------------------------------------
 * */

static int cmd_list(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "", &o,
               "usage: ccb list\n\nLists the cases and their studies, the solver variants (with "
               "their sets and the cases they apply to) and the approximations.\n");
    if (o.npos) {
        die_usage("list takes no arguments");
    }
    for (int i = 0; i < case_count(); ++i) {
        const case_desc* cs = case_get(i);
        printf("%-12s %s\n", cs->name, cs->title);
        for (int s = 0; s < case_nstudies(cs); ++s) {
            const case_study* st = case_study_at(cs, s);
            printf("    study %-16s %s (%s)\n", st->name, st->title, st->figure);
        }
    }
    printf("\nvariants (ccb run --variant NAME; sets for --variants: convex, paper, peers, all =\n"
           "every variant but the peers):\n");
    for (int i = 0; i < variant_count(); ++i) {
        variant_def v;
        variant_get(i, &v);
        char sets[32];
        snprintf(sets, sizeof sets, "%s%s%s%s", v.sets & VSET_CONVEX ? "convex" : "",
                 (v.sets & VSET_CONVEX) && (v.sets & VSET_PAPER) ? "," : "",
                 v.sets & VSET_PAPER ? "paper" : "", v.sets & VSET_PEER ? "peers" : "");
        char cases[128] = "";
        size_t len = 0;
        int all = 1;
        for (int c = 0; c < case_count(); ++c) { /* the cases it applies to */
            if (variant_applies(&v, case_get(c))) {
                len += (size_t)snprintf(cases + len, sizeof cases - len, "%s%s", len ? " " : "",
                                        case_get(c)->name);
                len = len < sizeof cases ? len : sizeof cases - 1;
            } else {
                all = 0;
            }
        }
        printf("  %-14s %-8s %-13s %-32s %s\n", v.name,
               v.kind == VARIANT_ADAPTIVE ? "adaptive" : "fixed", sets[0] ? sets : "-",
               all ? "every case" : cases, v.title);
    }
    printf("\napproximations:");
    for (int i = 0; i < ccb_approx_count(); ++i) {
        printf(" %s", ccb_approx_get(i)->name);
    }
    printf("\nsolvers (ccb info SOLVER):");
    for (int i = 0; i < ccb_solver_count(); ++i) {
        printf(" %s", ccb_solver_get(i)->name);
    }
    printf("\nODE methods (--solver METHOD):");
    for (int i = 0; i < ccb_ode_method_count(); ++i) {
        printf(" %s", ccb_ode_method_get(i)->name);
    }
    printf("\n");
    return 0;
}

static int info_solver(const char* name);

static int cmd_info(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "", &o,
               "usage: ccb info CASE|SOLVER\n\nPrints the case's parameters (default, unit, valid "
               "range, source tag), observables, studies, gates and documented modelling choices;\n"
               "or a solver's or ODE method's options (from its option descriptors) and the "
               "choices it documents.\n");
    if (o.npos != 1) {
        die_usage("info needs exactly one CASE or SOLVER");
    }
    if (case_find(o.pos[0]) == NULL && info_solver(o.pos[0]) == 0) {
        return 0;
    }
    const case_desc* cs = need_case(o.pos[0]);
    printf("%s — %s\n%s\n\n", cs->name, cs->title, cs->paper);
    printf("parameters (--set name=value):\n");
    printf("  %-10s %-10s %-7s %-22s %-12s %s\n", "name", "default", "unit", "valid range",
           "source", "meaning");
    for (int i = 0; i < cs->nparams; ++i) {
        const case_param* p = &cs->params[i];
        char range[64];
        snprintf(range, sizeof range, "%s%g, %g%s%s", p->lo_open ? "(" : "[", p->lo, p->hi,
                 p->hi_open ? ")" : "]", p->integer ? " int" : "");
        printf("  %-10s %-10g %-7s %-22s %-12s %s\n", p->name, p->def, p->unit, range, p->tag,
               p->meaning);
    }
    printf("\nrun defaults: approximation %s, dt = %g s, t_final = %g s\n", cs->approx_default,
           cs->dt_default, cs->t_final_default);
    printf("approximations (--approx):");
    for (int i = 0; i < ccb_approx_count(); ++i) {
        printf(" %s", ccb_approx_get(i)->name);
    }
    printf("\nvariants that apply (studies, ccb compare):");
    for (int i = 0; i < variant_count(); ++i) {
        variant_def v;
        variant_get(i, &v);
        if (variant_applies(&v, cs)) {
            printf(" %s", v.name);
        }
    }
    printf("\n\nobservables (trajectory.csv columns after t, q, v):");
    for (int i = 0; i < cs->nobs; ++i) {
        printf("%s %s", i ? "," : "", cs->obs_names[i]);
    }
    printf("\n\nstudies:\n");
    for (int s = 0; s < case_nstudies(cs); ++s) {
        const case_study* st = case_study_at(cs, s);
        printf("  %-16s %s (%s)\n", st->name, st->title, st->figure);
    }
    char path[PATH_MAX];
    suite_gate_file(cs, path, sizeof path);
    ccb_gate_result* g = calloc(SUITE_MAX_GATES, sizeof *g);
    int ng = 0;
    char msg[512] = "out of memory";
    if (g && ccb_gates_evaluate(path, 0, suite_no_metric, NULL, g, SUITE_MAX_GATES, &ng, msg,
                                sizeof msg) == 0) {
        printf("\ngates (%s; tier: quick = make test, full = the papers' settings, both):\n", path);
        for (int i = 0; i < ng; ++i) {
            char bound[96];
            ccb_gate_bound(&g[i], bound, sizeof bound);
            printf("  %-18s %-5s %s %s — %s\n", g[i].id, ccb_gate_tier_name(g[i].tiers),
                   g[i].metric, bound, g[i].description);
        }
    } else {
        printf("\ngates: %s\n", msg);
    }
    free(g);
    printf("\nmodelling choices ([default?] items of cases.md and solver defaults):\n");
    for (int i = 0; i < cs->nnotes; ++i) {
        printf("  - %s\n", cs->notes[i]);
    }
    printf("\nsolvers (--solver; `ccb info SOLVER` lists the options and choices of one):\n");
    for (int i = 0; i < ccb_solver_count(); ++i) {
        const ccb_solver_type* t = ccb_solver_get(i);
        printf("  %-8s %s (%s)\n", t->name, t->title, t->reference ? t->reference : "");
    }
    for (int i = 0; i < ccb_ode_method_count(); ++i) {
        ccb_ode_method m = ccb_ode_method_get(i);
        printf("  %-8s ODE method: %s (%s)\n", m->name, m->title, m->reference ? m->reference : "");
    }
    return 0;
}

/* One option descriptor as a line of `ccb info SOLVER`. */
static void print_option(const ccb_option_desc* d) {
    char def[64], range[96] = "";
    ccb_option_format_default(d, def, sizeof def);
    if (d->type == CCB_OPT_REAL || d->type == CCB_OPT_INT) {
        snprintf(range, sizeof range, "%s%g, %g]%s", d->min_open ? "(" : "[", d->min, d->max,
                 d->type == CCB_OPT_INT ? " int" : "");
    } else if (d->type == CCB_OPT_ENUM) {
        size_t at = 0;
        for (int k = 0; d->values[k] && at < sizeof range; ++k) {
            at +=
                (size_t)snprintf(range + at, sizeof range - at, "%s%s", k ? "|" : "", d->values[k]);
        }
    } else {
        snprintf(range, sizeof range, "%s", d->type == CCB_OPT_FLAG ? "flag" : "on|off");
    }
    printf("  --%-15s %-10s %-6s %-24s %s%s%s%s\n", d->name, def, d->unit, range, d->doc,
           d->requires ? " (with --" : "", d->requires ? d->requires : "", d->requires ? ")" : "");
}

/* `ccb info SOLVER`: a solver or ODE method, its option descriptors and its documented choices. */
static int info_solver(const char* name) {
    const ccb_solver_type* t = ccb_solver_find(name);
    ccb_ode_method m = t ? NULL : ccb_ode_method_find(name);
    if (t == NULL && m == NULL) {
        return -1;
    }
    printf("%s — %s %s\n%s\n", name, m ? "ODE method:" : "solver:", m ? m->title : t->title,
           m ? m->reference : t->reference);
    printf("\noptions (name, default, unit, range, meaning):\n");
    const ccb_option_desc* d = m ? m->options : t->options;
    const int nd = m ? m->noptions : t->noptions;
    for (int i = 0; i < nd; ++i) {
        print_option(&d[i]);
    }
    if (m || (t->flags & CCB_SOLVER_ODE_METHODS)) {
        const ccb_solver_type* ode = NULL;
        for (int i = 0; i < ccb_solver_count(); ++i) {
            ode = (ccb_solver_get(i)->flags & CCB_SOLVER_ODE_METHODS) ? ccb_solver_get(i) : ode;
        }
        if (m && ode) {
            printf("  and those of the %s solver that runs it:\n", ode->name);
            for (int i = 0; i < ode->noptions; ++i) {
                print_option(&ode->options[i]);
            }
        }
    }
    if (nd == 0) {
        printf("  (none)\n");
    }
    const unsigned fl = m ? 0u : t->flags;
    printf("\nreads: %s%s%s\n",
           (fl & CCB_SOLVER_CONVEX) ? "--approx (a convex approximation) " : "",
           (fl & CCB_SOLVER_REGULARIZED) || m ? "--friction (the regularized friction law) " : "",
           (fl & CCB_SOLVER_ERROR_CONTROL) ? "error control of the convex step" : "");
    const char* notes = m ? m->notes : t->notes;
    if (notes) {
        printf("\nchoices the papers or the spec leave open, and the defaults taken:\n  %s\n",
               notes);
    }
    return 0;
}

/* ---- run ---------------------------------------------------------------------------------------
 * */

static const char* k_run_help =
    "usage: ccb run CASE [options]\n"
    "\n"
    "  --variant NAME         a named variant of `ccb list` (solver and options in one word;\n"
    "                         the options below refine it)\n"
    "  --approx NAME          a convex approximation of `ccb list` (default: the case's)\n"
    "  --dt S                 time step [s] (default: the case's)\n"
    "  --t-final S            duration [s], a whole number of steps (default: the case's)\n"
    "  --set NAME=VALUE       override a case parameter (repeatable; see ccb info CASE)\n"
    "  --out DIR              output directory (default results/CASE/runs/VARIANT_dtDT)\n"
    "  --solver NAME          a solver of `ccb info --solvers` (default newton: the convex\n"
    "                         approximation of --approx), or an ODE method (ie, rk3, gsl, ...),\n"
    "                         which integrates the continuous model sampled every dt\n"
    "  --friction lin|quad|stribeck5|atan   regularized friction of the solvers whose model it\n"
    "                         is (TAMSI, the ODE methods; default: the case's, else quad for\n"
    "                         TAMSI and stribeck5 for the continuous model)\n"
    "  --record-every N       write every N-th step (default 1)\n"
    "  --physics              also write physics.csv: the physics metrics of every step\n"
    "                         (docs/formulation-convex.md §14)\n"
    "  --export-fclib FILE --export-steps LIST   FCLIB problems of the listed steps (README)\n"
    "  --perturb LIST         round-off perturbations (docs/cases.md §10): contacts (the contacts "
    "of\n"
    "                         every step reversed), ulp (every initial position one ulp up),\n"
    "                         member=K (ensemble member K: every initial position one ulp up or\n"
    "                         down); comma-separated\n"
    "\n"
    "Writes trajectory.csv (header with units), steps.csv (solver statistics per step),\n"
    "times.csv (wall times per step) and meta.json, atomically. Exit 1 if a step's solve\n"
    "fails (the run stops there; meta.json says \"failed\").\n";

#define RUN_OPTS                                                                                   \
    "variant approx dt t-final set out record-every physics export-fclib export-steps perturb "    \
    "solver friction SOLVER"

/* The configuration `ccb run` builds from its options (also the check of a manifest's lines). */
static void run_config_from_opts(const opts* o, run_config* cfg) {
    if (o->npos != 1) {
        die_usage("run needs exactly one CASE");
    }
    const case_desc* cs = need_case(o->pos[0]);
    run_config_default(cs, cfg);
    apply_sets(cs, cfg->params, o);
    if (o->variant) {
        if (o->approx || o->solver) {
            die_usage("--variant names the whole solver configuration; it takes no --approx or "
                      "--solver");
        }
        variant_def v;
        if (variant_find(o->variant, &v) != 0) {
            die_usage("unknown variant '%s' (ccb list shows them)", o->variant);
        }
        variant_configure(&v, cfg, NAN);
    }
    if (o->approx) {
        cfg->approx = need_approx(o->approx);
    }
    if (o->solver) {
        char msg[512];
        if (solver_select(cfg, o->solver, msg, sizeof msg) != 0) {
            die_usage("%s", msg);
        }
    }
    if (o->have_dt) {
        cfg->dt = o->dt;
    }
    if (o->have_t) {
        cfg->t_final = o->t_final;
    }
    if (!(cfg->dt > 0)) {
        die_usage("--dt must be > 0 (got %g)", cfg->dt);
    }
    if (!(cfg->t_final > 0)) {
        die_usage("--t-final must be > 0 (got %g)", cfg->t_final);
    }
    apply_solver_options(o, cfg, 1);
    check_applicable(o, cfg);
    cfg->record_every = o->record_every;
    if (o->export_fclib != NULL && o->nexport == 0) {
        die_usage("--export-fclib FILE needs --export-steps LIST");
    }
    cfg->export_fclib = o->export_fclib; /* NULL: OUT/step<k>.fclib.hdf5 */
    cfg->nexport = o->nexport;
    memcpy(cfg->export_steps, o->export_steps, sizeof cfg->export_steps);
    cfg->perturb = o->perturb;
}

static int cmd_run(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, RUN_OPTS, &o, k_run_help);
    run_config cfg;
    run_config_from_opts(&o, &cfg);
    const case_desc* cs = cfg.cs;
    cfg.progress = 1;
    cfg.physics = o.physics;
    char variant[64];
    variant_name(&cfg, variant, sizeof variant);
    run_label(cfg.label, sizeof cfg.label, variant, cfg.dt);
    if (o.out) {
        snprintf(cfg.out_dir, sizeof cfg.out_dir, "%s", o.out);
    } else {
        snprintf(cfg.out_dir, sizeof cfg.out_dir, "results/%s/runs/%s", cs->name, cfg.label);
    }
    char msg[1024];
    if (run_config_check(&cfg, NULL, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        return EXIT_USAGE;
    }
    const int existed = access(cfg.out_dir, F_OK) == 0;
    if (mkdir_p(cfg.out_dir, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        return EXIT_USAGE;
    }
    run_record rec;
    if (run_execute(&cfg, &rec, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        if (!existed) {
            rmdir(cfg.out_dir); /* only succeeds if nothing was written */
        }
        return EXIT_USAGE;
    }
    /* the iterations of every step attempted: the completed ones and a failing one (its
     * iterations are in the totals and the maximum) */
    const long attempted = rec.nsteps + (rec.status != CCB_OK && rec.fail_step > rec.nsteps);
    printf("%s %s dt=%g t_final=%g: %ld/%ld steps, status %s, Newton iterations mean %.3f max %d "
           "over %ld step%s attempted, stepping wall time %.4f s\noutput: %s\n",
           cs->name, variant, cfg.dt, cfg.t_final, rec.nsteps, rec.nplanned,
           rec.status == CCB_OK ? "ok" : "FAILED",
           attempted ? (double)rec.total_iters / (double)attempted : 0.0, rec.max_iters, attempted,
           attempted == 1 ? "" : "s", rec.wall_time, cfg.out_dir);
    const int failed = rec.status != CCB_OK;
    if (failed) {
        fprintf(stderr, "ccb: solver failure at step %ld: %s\n", rec.fail_step, rec.msg);
    }
    run_record_free(&rec);
    return failed ? EXIT_GATE : 0;
}

/* ---- study / gate / reproduce ------------------------------------------------------------------
 * */

/* The options of the Newton solver that `ccb study` applies to every convex run of the study:
 * its linear algebra, stopping test and records (descriptors of ccb_solver_newton). */
#define STUDY_NEWTON_OPTS "rtol max-iterations stop-scale kappa delassus linear-solver pattern"

static void setup_ctx(study_ctx* ctx, const case_desc* cs, const opts* o, const char* out) {
    if (study_ctx_init(ctx, cs, out) != 0) {
        die_usage("--out path is longer than %d characters", CASE_MAX_ROOT - 1);
    }
    apply_sets(cs, ctx->params, o);
    /* the Newton options of the study's runs (STUDY_NEWTON_OPTS: those in ccb_newton_params and
     * the Delassus estimate) through the Newton solver's descriptors */
    run_config tmp;
    run_config_default(cs, &tmp);
    tmp.newton = ctx->newton;
    tmp.delassus = ctx->delassus;
    apply_solver_options(o, &tmp, 1);
    ctx->newton = tmp.newton;
    ctx->delassus = tmp.delassus;
    ctx->jobs = o->jobs;
    ctx->figures = o->figures;
    ctx->progress = isatty(2);
    ctx->tier = o->tier ? o->tier : CASE_TIER_FULL;
}

static const char* k_study_help =
    "usage: ccb study CASE STUDY [options]\n"
    "\n"
    "  --out ROOT        results root (default results); writes ROOT/CASE/STUDY/...\n"
    "  --jobs N          runs in parallel (default 1; each run is single-threaded)\n"
    "  --tier quick|full the study's settings: the papers' (full, default) or the smaller ones\n"
    "                    of the quick gate tier (make test)\n"
    "  --set NAME=VALUE  override a case parameter (repeatable)\n"
    "  --rtol X, --max-iterations N, --stop-scale step|momentum, --kappa,\n"
    "  --delassus diag|full,\n"
    "  --linear-solver auto|block|cholmod|dense, --pattern near|all   as for ccb run\n"
    "  --no-figures      skip gnuplot\n"
    "  --emit-manifest FILE   run nothing: write each run of the study as one `ccb run ...\n"
    "                    --out ROOT/CASE/STUDY/RUN` line to FILE (for GNU parallel or a Slurm\n"
    "                    array; README \"Studies on a cluster\")\n"
    "  --format lines|slurm   the manifest: one command per line (default; GNU parallel runs\n"
    "                    it: parallel < FILE) or a Slurm job-array script (sbatch FILE)\n"
    "  --from ROOT       run nothing: read the study's runs from ROOT (made by the manifest's\n"
    "                    lines) and analyse them; the outputs go to --out (default ROOT)\n";

/* ---- manifests: a study's runs as `ccb run` command lines (issue 14) --------------------------
 * Each run the study would execute becomes one line (the executable's absolute path, `run`,
 * the case, the solver and its options, dt, t_final, every parameter that differs from the
 * case's default with %.17g, --record-every 1 so that `--from` can read every step, and --out
 * ROOT/<the run's path>). Every line is parsed back with `ccb run`'s own code and must give the
 * study's configuration, or the manifest is refused: a line never runs something else. */
typedef struct manifest_out {
    strbuf text;
    char exe[PATH_MAX];
    const char* root; /* the runs' results root (--out of the study) */
    run_config* seen; /* runs written so far, with the study_execute call that wrote them */
    int* seen_batch;
    int nseen, cap;
    int refused; /* a run could not be written: no manifest */
} manifest_out;

/* A run configuration without what its solver does not read, for comparing two of them. */
static void manifest_normalize(run_config* c) {
    if (c->solver.peer != RUN_PEER_NONE) {
        c->newton = ccb_newton_params_default();
        c->delassus = CCB_DELASSUS_DIAG_INVERSE;
        const solver_cfg keep = c->solver;
        solver_cfg_default(&c->solver);
        c->solver.peer = keep.peer;
    } else {
        solver_cfg_normalize(c);
    }
    c->record_every = 1;
}

/* Appends `--NAME VALUE` for each option of the run's solver off its default (a flag: `--NAME`). */
typedef struct emit_args {
    char (*store)[CASE_MAX_ROOT + PATH_MAX];
    const char** av;
    int* ac;
    int max;
} emit_args;
static void emit_option(void* user, const ccb_option_desc* d, const char* text, int is_default) {
    emit_args* e = user;
    if (is_default || *e->ac + 2 > e->max) {
        return;
    }
    snprintf(e->store[*e->ac], sizeof e->store[0], "--%s", d->name);
    e->av[*e->ac] = e->store[*e->ac];
    ++*e->ac;
    if (d->type != CCB_OPT_FLAG) {
        snprintf(e->store[*e->ac], sizeof e->store[0], "%s", text);
        e->av[*e->ac] = e->store[*e->ac];
        ++*e->ac;
    }
}

static void shell_word(strbuf* b, const char* s) {
    if (s[0] != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                  "0123456789_./=:+-,@%") == strlen(s)) {
        strbuf_printf(b, "%s", s);
        return;
    }
    strbuf_printf(b, "'");
    for (const char* p = s; *p; ++p) {
        strbuf_printf(b, *p == '\'' ? "'\\''" : "%c", *p);
    }
    strbuf_printf(b, "'");
}

/* " --plugin 'PATH'" for each plugin loaded, for command lines that must run the same code. */
static void plugin_words(strbuf* b) {
    for (int i = 0; i < plugin_count(); ++i) {
        strbuf_printf(b, " --plugin ");
        shell_word(b, plugin_path(i));
    }
}

static int emit_run(void* user, const study_ctx* ctx, const char* study, const run_config* cfg,
                    const char* rel) {
    manifest_out* mo = user;
    for (int j = 0; j < mo->nseen; ++j) { /* served from an earlier call's run, as in memory */
        if (mo->seen_batch[j] < ctx->batch && study_same_run(&mo->seen[j], cfg)) {
            return 0;
        }
    }
    if (mo->nseen == mo->cap) {
        const int cap = mo->cap ? 2 * mo->cap : 64;
        run_config* s = realloc(mo->seen, (size_t)cap * sizeof *s);
        int* sb = s ? realloc(mo->seen_batch, (size_t)cap * sizeof *sb) : NULL;
        if (s) {
            mo->seen = s;
        }
        if (sb == NULL) {
            fprintf(stderr, "ccb: out of memory\n");
            mo->refused = 1;
            return 2;
        }
        mo->seen_batch = sb;
        mo->cap = cap;
    }
    mo->seen[mo->nseen] = *cfg;
    mo->seen_batch[mo->nseen++] = ctx->batch;

    const case_desc* cs = cfg->cs;
    run_config def;
    run_config_default(cs, &def);
    char store[128][CASE_MAX_ROOT + PATH_MAX];
    const char* av[130];
    int ac = 0;
#define ARG(...) (snprintf(store[ac], sizeof store[ac], __VA_ARGS__), av[ac] = store[ac], ac++)
    ARG("ccb");
    ARG("run");
    ARG("%s", cs->name);
    const solver_cfg* sc = &cfg->solver;
    if (sc->peer != RUN_PEER_NONE) {
        ARG("--variant");
        ARG("%s", sc->peer == RUN_PEER_MUJOCO ? "mujoco" : "mujoco-k");
    } else {
        if (cfg->approx != def.approx) {
            ARG("--approx");
            ARG("%s", cfg->approx->name);
        }
        if (sc->solver != CCB_SOLVER_NEWTON) {
            ARG("--solver");
            ARG("%s", solver_cli_name(cfg));
        }
        emit_args ea = {store, av, &ac, 110};
        solver_options_each(cfg, emit_option, &ea);
        if (sc->friction >= 0) {
            ARG("--friction");
            ARG("%s", ccb_enum_name(CCB_ENUM_FRICTION, sc->friction));
        }
    }
    ARG("--dt");
    ARG("%.17g", cfg->dt);
    ARG("--t-final");
    ARG("%.17g", cfg->t_final);
    for (int i = 0; i < cs->nparams && ac < 124; ++i) {
        if (memcmp(&cfg->params[i], &def.params[i], sizeof(double)) != 0) {
            ARG("--set");
            ARG("%s=%.17g", cs->params[i].name, cfg->params[i]);
        }
    }
    if (cfg->nexport > 0) { /* the study's FCLIB steps, into the run's directory */
        char list[RUN_MAX_EXPORT * 21] = "";
        size_t at = 0;
        for (int i = 0; i < cfg->nexport && at < sizeof list; ++i) {
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%ld", i ? "," : "",
                                   cfg->export_steps[i]);
        }
        ARG("--export-steps");
        ARG("%s", list);
    }
    if (cfg->perturb) { /* a sensitivity run or an ensemble member */
        char list[64];
        const unsigned mb = RUN_PERTURB_MEMBER_OF(cfg->perturb);
        snprintf(list, sizeof list, "%s%s%s",
                 (cfg->perturb & RUN_PERTURB_CONTACTS) ? "contacts," : "",
                 (cfg->perturb & RUN_PERTURB_ULP) ? "ulp," : "", "");
        if (mb > 0) {
            const size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "member=%u,", mb);
        }
        list[strlen(list) - 1] = '\0'; /* the last comma */
        ARG("--perturb");
        ARG("%s", list);
    }
    ARG("--record-every");
    ARG("1");
    if (strlen(mo->root) + 1 + strlen(rel) >= CASE_MAX_ROOT) { /* `ccb run --out` would refuse */
        fprintf(stderr,
                "ccb: --out '%.60s...' (%zu characters) is too long for a manifest: its run "
                "%s/%s needs a directory of %zu characters and `ccb run --out` takes at most %d; "
                "use a root of at most %zu characters; no manifest written\n",
                mo->root, strlen(mo->root), study, cfg->label, strlen(mo->root) + 1 + strlen(rel),
                CASE_MAX_ROOT - 1, (size_t)CASE_MAX_ROOT - 2 - strlen(rel));
        mo->refused = 1;
        return 2;
    }
    ARG("--out");
    ARG("%s/%s", mo->root, rel);
#undef ARG
    /* the line, parsed back by `ccb run`'s code, must be this run */
    opts o;
    char* parse_av[130]; /* getopt_long permutes its argv: the printed line stays as built */
    memcpy(parse_av, av, (size_t)ac * sizeof av[0]);
    parse_opts(ac, parse_av, 2, RUN_OPTS, &o, k_run_help);
    run_config back, want = *cfg;
    run_config_from_opts(&o, &back);
    manifest_normalize(&want);
    manifest_normalize(&back);
    if (!study_same_run(&want, &back)) {
        fprintf(stderr,
                "ccb: %s/%s/%s: this run cannot be written as a `ccb run` command line (a "
                "setting of the study has no option); no manifest written\n",
                cs->name, study, cfg->label);
        mo->refused = 1;
        return 2;
    }
    shell_word(&mo->text, mo->exe);
    plugin_words(&mo->text);
    for (int i = 1; i < ac; ++i) {
        strbuf_printf(&mo->text, " ");
        shell_word(&mo->text, av[i]);
    }
    strbuf_printf(&mo->text, "\n");
    return 0;
}

static int rm_entry(const char* path, const struct stat* sb, int flag, struct FTW* ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

/* An empty manifest of runs under root, by this executable, and a temporary directory in $TMPDIR
 * (else /tmp) for the analysis of runs that were not made. 0, or 2 with a message on stderr. */
static int manifest_begin(manifest_out* mo, const char* root, char* tmp, size_t n) {
    memset(mo, 0, sizeof *mo);
    mo->root = root;
    if (realpath("/proc/self/exe", mo->exe) == NULL) {
        snprintf(mo->exe, sizeof mo->exe, "ccb");
    }
    const char* td = getenv("TMPDIR");
    td = td && td[0] && strlen(td) < n - 64 ? td : "/tmp";
    snprintf(tmp, n, "%s/ccb-manifest-XXXXXX", td);
    if (mkdtemp(tmp) == NULL) {
        fprintf(stderr, "ccb: cannot create a temporary directory: %s\n", strerror(errno));
        return EXIT_USAGE;
    }
    return 0;
}

/* The runs of one study into mo: the study runs without running anything (ctx->emit), its
 * analysis under tmp. The analysis sees runs that did not happen; a study whose analysis needs
 * their results stops with an error after asking for all of its runs (its runs come in batches
 * fixed by the configuration): the manifest is complete, and --from says so if it ever is not.
 * 0, or EXIT_USAGE (a run that cannot be written, or a study that failed before asking for any
 * run). */
static int manifest_collect(study_ctx* ctx, const case_study* st, manifest_out* mo,
                            const char* tmp) {
    snprintf(ctx->out_root, sizeof ctx->out_root, "%s", tmp);
    ctx->emit = emit_run;
    ctx->emit_user = mo;
    ctx->figures = 0;
    ctx->progress = 0;
    const int before = mo->nseen;
    const int rc = case_study_run(ctx, st);
    if (mo->refused) {
        return EXIT_USAGE;
    }
    if (rc != 0 && mo->nseen > before) {
        fprintf(stderr,
                "ccb: %s/%s: its analysis needs the runs' results (the message above); the "
                "manifest holds every run it asked for\n",
                ctx->cs->name, st->name);
    }
    if (rc != 0 && mo->nseen == before) {
        fprintf(stderr, "ccb: %s/%s failed before asking for any run; no manifest written\n",
                ctx->cs->name, st->name);
        return EXIT_USAGE;
    }
    return 0;
}

/* The manifest's lines as a Slurm job-array script (`--format slurm`; README "Studies on a
 * cluster"): array task i of COUNT runs the lines i+1, i+1+COUNT, ... (so any --array given to
 * sbatch works, up to one task per line), each through bash as GNU parallel would; a line that
 * exits 1 is a run whose solver failed (recorded as failed in its meta.json: a result), one that
 * exits otherwise fails the task. */
static void slurm_script(strbuf* b, const char* lines, int n, const char* what) {
    strbuf_printf(b,
                  "#!/bin/bash\n"
                  "# %s: %d `ccb run` lines as a Slurm job array (ccb --emit-manifest --format "
                  "slurm).\n"
                  "# Submit: sbatch THIS_FILE (one array task per line, at most 1000), or "
                  "sbatch --array=0-K THIS_FILE\n"
                  "# for K+1 tasks that share the lines (any contiguous range A-B works). "
                  "Then read the results\n"
                  "# back with the --from command ccb printed.\n"
                  "#SBATCH --job-name=ccb\n"
                  "#SBATCH --array=0-%d\n"
                  "#SBATCH --ntasks=1\n"
                  "#SBATCH --cpus-per-task=1\n"
                  "set -u\n"
                  ": \"${SLURM_ARRAY_TASK_ID:?run this file with sbatch (a job array)}\"\n"
                  "count=${SLURM_ARRAY_TASK_COUNT:-1}\n"
                  "task=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}))\n"
                  "n=0\n"
                  "status=0\n"
                  "while IFS= read -r line; do\n"
                  "  if [ $((n %% count)) -eq \"$task\" ]; then\n"
                  "    bash -c \"$line\" </dev/null\n"
                  "    rc=$?\n"
                  "    if [ \"$rc\" -gt 1 ]; then\n"
                  "      echo \"ccb: line $((n + 1)) exited $rc: $line\" >&2\n"
                  "      status=2\n"
                  "    fi\n"
                  "  fi\n"
                  "  n=$((n + 1))\n"
                  "done <<'CCB_MANIFEST_LINES'\n"
                  "%s"
                  "CCB_MANIFEST_LINES\n"
                  "exit \"$status\"\n",
                  what, n,
                  (n < 1      ? 1
                   : n < 1000 ? n
                              : 1000) -
                      1,
                  lines ? lines : "");
}

/* Writes mo's runs to `file` (lines, or a Slurm script) and prints the follow-up command: this
 * command line with --from ROOT for its --emit-manifest and --out (and --format), every word
 * quoted for a shell. 0, or EXIT_USAGE. */
static int manifest_write(const manifest_out* mo, const opts* o, const char* what, int argc,
                          char** argv) {
    int lines = 0;
    for (const char* p = mo->text.s ? mo->text.s : ""; *p; ++p) {
        lines += *p == '\n';
    }
    strbuf script = {0};
    const char* text = mo->text.s ? mo->text.s : "";
    size_t len = mo->text.n;
    if (o->slurm) {
        slurm_script(&script, text, lines, what);
        if (script.failed || script.s == NULL) {
            fprintf(stderr, "ccb: out of memory\n");
            free(script.s);
            return EXIT_USAGE;
        }
        text = script.s;
        len = script.n;
    }
    char msg[600];
    const int wrc = write_file(o->manifest, text, len, msg, sizeof msg);
    free(script.s);
    if (wrc != 0) {
        fprintf(stderr, "ccb: cannot write the manifest '%s': %s\n", o->manifest, msg);
        return EXIT_USAGE;
    }
    if (lines == 0) {
        printf("%s runs nothing (it computes its result directly); empty manifest written to "
               "%s\n",
               what, o->manifest);
        return 0;
    }
    strbuf follow = {0};
    strbuf_printf(&follow, "ccb");
    plugin_words(&follow);
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (strcmp(a, "--emit-manifest") == 0 || strcmp(a, "--out") == 0 ||
            strcmp(a, "--format") == 0) {
            ++i;
            continue;
        }
        if (strncmp(a, "--emit-manifest=", 16) == 0 || strncmp(a, "--out=", 6) == 0 ||
            strncmp(a, "--format=", 9) == 0) {
            continue;
        }
        strbuf_printf(&follow, " ");
        shell_word(&follow, a);
    }
    strbuf_printf(&follow, " --from ");
    shell_word(&follow, mo->root);
    printf("%s: %d runs written to %s, %s; when they have run:\n  %s\n", what, lines, o->manifest,
           o->slurm ? "a Slurm job array (sbatch FILE)" : "one `ccb run` per line",
           follow.s ? follow.s : "");
    free(follow.s);
    return 0;
}

static void manifest_free(manifest_out* mo) {
    free(mo->text.s);
    free(mo->seen);
    free(mo->seen_batch);
}

/* `ccb study ... --emit-manifest FILE`: the study's runs, one line each (or a Slurm script). */
static int study_emit_manifest(study_ctx* ctx, const case_study* st, const opts* o,
                               const char* root, int argc, char** argv) {
    manifest_out mo;
    char tmp[CASE_MAX_ROOT];
    if (manifest_begin(&mo, root, tmp, sizeof tmp) != 0) {
        return EXIT_USAGE;
    }
    int rc = manifest_collect(ctx, st, &mo, tmp);
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (rc == 0) {
        char what[160];
        snprintf(what, sizeof what, "%s/%s", ctx->cs->name, st->name);
        rc = manifest_write(&mo, o, what, argc, argv);
    }
    manifest_free(&mo);
    return rc;
}

static int cmd_study(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2,
               "out jobs tier set no-figures emit-manifest from format " STUDY_NEWTON_OPTS, &o,
               k_study_help);
    if (o.npos != 2) {
        die_usage("study needs CASE and STUDY");
    }
    if (o.given[OPT_FORMAT - OPT_APPROX] && !o.manifest) {
        die_usage("--format is the format of --emit-manifest FILE");
    }
    if (o.manifest && o.from) {
        die_usage("--emit-manifest writes the runs down, --from reads them back: one at a time");
    }
    struct stat sf;
    if (o.from && (stat(o.from, &sf) != 0 || !S_ISDIR(sf.st_mode))) {
        die_usage("--from: '%s' is not a directory", o.from);
    }
    const case_desc* cs = need_case(o.pos[0]);
    const case_study* st = case_find_study(cs, o.pos[1]);
    if (st == NULL) {
        fprintf(stderr, "ccb: unknown study '%s' of case %s; known:", o.pos[1], cs->name);
        for (int s = 0; s < case_nstudies(cs); ++s) {
            fprintf(stderr, " %s", case_study_at(cs, s)->name);
        }
        fputc('\n', stderr);
        return EXIT_USAGE;
    }
    const char* out = o.out ? o.out : o.from ? o.from : "results";
    char msg[600];
    study_ctx ctx;
    setup_ctx(&ctx, cs, &o, out); /* validates every option before anything is created */
    if (o.manifest) {
        const int rc = study_emit_manifest(&ctx, st, &o, out, argc, argv);
        study_ctx_free(&ctx);
        return rc;
    }
    if (o.from) {
        snprintf(ctx.from_root, sizeof ctx.from_root, "%s", o.from);
    }
    struct stat so;
    const int out_existed = stat(out, &so) == 0;
    if (mkdir_p(out, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        study_ctx_free(&ctx);
        return EXIT_USAGE;
    }
    const int rc = case_study_run(&ctx, st);
    if (rc != 0 && o.from && !out_existed) { /* refused input creates nothing: the tree this
                                               * command made for it goes */
        nftw(out, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    if (rc == 0) {
        printf("%s/%s: written under %s/%s/%s\n", cs->name, st->name, out, cs->name, st->name);
        for (int i = 0; i < ctx.nmetrics; ++i) {
            printf("  %-48s %.6g\n", ctx.metrics[i].name, ctx.metrics[i].value);
        }
    }
    const int failures = ctx.failures, warnings = ctx.warnings;
    study_ctx_free(&ctx);
    if (rc != 0) {
        return EXIT_USAGE;
    }
    if (warnings) { /* an output that was asked for and not made */
        fprintf(stderr, "ccb: %d figure(s) could not be drawn (--no-figures skips them)\n",
                warnings);
        return EXIT_USAGE;
    }
    return failures ? EXIT_GATE : 0;
}

/* Evaluates the gates of a case that belong to ctx's tier on ctx's metrics and reports them
 * (analysis/gates.c): one line per gate on stdout, the table in the report, ROOT/CASE/gates.csv.
 * Returns the number of failed gates (XFAIL does not count), -1 for a bad gate file. */

static const char* k_gate_help =
    "usage: ccb gate [CASE...] [options]\n"
    "\n"
    "Runs the studies of a gate tier for each case (all cases if none given), evaluates the\n"
    "gates of reference/CASE.json that belong to the tier and prints one line per gate: id,\n"
    "PASS/FAIL (XFAIL/XPASS for a documented expected failure, SKIP for a gate of the other\n"
    "tier), the gate's tier, metric, measured value, bound and the basis of the tolerance.\n"
    "Exit 1 if a gate fails or a solver fails.\n"
    "\n"
    "  --tier quick|full  quick (default): the smallest studies that still test each claim,\n"
    "                     as `make test` runs them; full: every study at the papers' settings\n"
    "                     (`make test-full`, what `ccb reproduce` evaluates)\n"
    "  --out ROOT     where the study data go (default results/quick for the quick tier,\n"
    "                 results for the full tier)\n"
    "  --jobs N       runs in parallel (default 1)\n"
    "  --sensitivity K   also rerun every study under the first K round-off-equivalent\n"
    "                 perturbations (1..6: the CHOLMOD back-end, the contacts in reversed order,\n"
    "                 every initial position one ulp up, the block pattern of every contact,\n"
    "                 dense and block Cholesky; cases.md §10) into ROOT/sensitivity/, and\n"
    "                 write per gate the spread of its value and its margin to the bound:\n"
    "                 ROOT/CASE/sensitivity.csv, ROOT/sensitivity.md. A gate whose margin is\n"
    "                 below 3x its spread, or whose result changes, is reported and exits 1.\n"
    "Figures are not drawn here; ccb study and ccb reproduce draw them.\n";

static int cmd_gate(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "out jobs tier sensitivity", &o, k_gate_help);
    o.figures = 0;
    if (o.tier == 0) {
        o.tier = CASE_TIER_QUICK;
    }
    /* every case name is checked before anything runs or is written */
    const int n = o.npos ? o.npos : case_count();
    const case_desc* cases[16];
    for (int i = 0; i < n && i < 16; ++i) {
        cases[i] = o.npos ? need_case(o.pos[i]) : case_get(i);
    }
    /* ... and so is every gate file: a malformed one is rejected before any run */
    char msg[600];
    for (int i = 0; i < n; ++i) {
        char path[PATH_MAX];
        suite_gate_file(cases[i], path, sizeof path);
        ccb_gate_result* g = calloc(SUITE_MAX_GATES, sizeof *g);
        int ng = 0;
        if (g == NULL || ccb_gates_evaluate(path, 0, suite_no_metric, NULL, g, SUITE_MAX_GATES, &ng,
                                            msg, sizeof msg) != 0) {
            fprintf(stderr, "ccb: %s\n", g ? msg : "out of memory");
            free(g);
            return EXIT_USAGE;
        }
        free(g);
    }
    const char* out = o.out ? o.out : o.tier == CASE_TIER_QUICK ? "results/quick" : "results";
    if (mkdir_p(out, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        return EXIT_USAGE;
    }
    int failed = 0, solver_failures = 0, warnings = 0, fragile = 0;
    strbuf sens = {0};
    if (o.sensitivity) {
        suite_sensitivity_head(&sens, o.sensitivity);
    }
    for (int i = 0; i < n; ++i) {
        const case_desc* cs = cases[i];
        study_ctx ctx;
        setup_ctx(&ctx, cs, &o, out);
        printf("== gates of %s, %s tier (%s)\n", cs->name, case_tier_name(ctx.tier), cs->paper);
        int rc = suite_run_studies(&ctx);
        suite_sensitivity* sv = NULL;
        if (rc == 0) {
            const int f = suite_evaluate_gates(&ctx);
            if (f < 0) {
                rc = EXIT_USAGE;
            } else {
                failed += f;
            }
        }
        if (rc == 0 && o.sensitivity) { /* the same studies under each perturbation */
            sv = suite_sensitivity_begin(&ctx, o.sensitivity);
            rc = sv == NULL ? EXIT_USAGE : 0;
            for (int p = 0; rc == 0 && p < o.sensitivity; ++p) {
                char root[CASE_MAX_ROOT];
                if (snprintf(root, sizeof root, "%s/sensitivity/%s", out,
                             suite_perturbation_name(p)) >= (int)sizeof root) {
                    die_usage("--out path is too long for --sensitivity");
                }
                study_ctx pc;
                setup_ctx(&pc, cs, &o, root);
                pc.progress = 0;
                suite_perturbation_apply(&pc, p);
                printf("== %s: studies of the %s tier with %s\n", cs->name, case_tier_name(pc.tier),
                       suite_perturbation_what(p));
                rc = suite_run_studies(&pc);
                rc = rc == 1 ? 0 : rc; /* a perturbed run that fails is a result: its gates say */
                if (rc == 0 && suite_sensitivity_add(sv, &pc, p) != 0) {
                    rc = EXIT_USAGE;
                }
                study_ctx_free(&pc);
            }
            if (rc == 0) {
                const int fr = suite_sensitivity_finish(sv, &ctx, &sens);
                rc = fr < 0 ? EXIT_USAGE : 0;
                fragile += fr > 0 ? fr : 0;
            }
            suite_sensitivity_free(sv);
        }
        solver_failures += ctx.failures;
        warnings += ctx.warnings;
        study_ctx_free(&ctx);
        if (rc != 0) {
            free(sens.s);
            return EXIT_USAGE;
        }
    }
    if (o.sensitivity) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/sensitivity.md", out);
        const int wrc =
            study_write_table(path, "# Round-off sensitivity of the gates\n", sens.s ? sens.s : "");
        free(sens.s);
        if (wrc != 0) {
            return EXIT_USAGE;
        }
        printf("sensitivity: %d gate(s) whose margin is below 3x their round-off spread or whose "
               "result changes; table: %s\n",
               fragile, path);
        failed += fragile;
    }
    if (solver_failures) {
        fprintf(stderr, "ccb: %d run(s) ended with a solver failure\n", solver_failures);
    }
    printf("%s: %d gate(s) failed\n", failed || solver_failures ? "FAIL" : "PASS", failed);
    if (warnings) { /* an output that was asked for and not made: an output error */
        fprintf(stderr, "ccb: %d figure(s) could not be drawn\n", warnings);
        return EXIT_USAGE;
    }
    return failed || solver_failures ? EXIT_GATE : 0;
}

static const char* k_repro_help =
    "usage: ccb reproduce [options]\n"
    "\n"
    "Runs every study of every case, draws the figures, evaluates all gates, and writes the\n"
    "report ROOT/README.md (figures, tables, gates, timings) next to the data.\n"
    "\n"
    "  --out ROOT     results root (default results)\n"
    "  --jobs N       runs in parallel (default: 2)\n"
    "  --tier quick|full  the studies and gates of the tier (default full: the papers'\n"
    "                 settings; quick: make test's)\n"
    "  --no-figures   skip gnuplot\n"
    "  --emit-manifest FILE  run nothing: write every run of the reproduction (every study of\n"
    "                 every case, duplicates once) to FILE, for GNU parallel or Slurm\n"
    "  --format lines|slurm  the manifest: one `ccb run` per line (parallel < FILE) or a\n"
    "                 Slurm job-array script (sbatch FILE)\n"
    "  --from ROOT    run nothing: read the runs from ROOT (made by the manifest), then\n"
    "                 analyse, draw, gate and report as an in-process reproduction (output\n"
    "                 to --out, default ROOT); a run that never ran is named (exit 2)\n";

/* `ccb reproduce --emit-manifest FILE`: every run of every study of the tier, once. */
static int reproduce_emit_manifest(const opts* o, const char* root, int argc, char** argv) {
    manifest_out mo;
    char tmp[CASE_MAX_ROOT];
    if (manifest_begin(&mo, root, tmp, sizeof tmp) != 0) {
        return EXIT_USAGE;
    }
    int rc = 0;
    for (int i = 0; i < case_count() && rc == 0; ++i) {
        const case_desc* cs = case_get(i);
        study_ctx ctx;
        setup_ctx(&ctx, cs, o, root);
        for (int k = 0; k < case_nstudies(cs) && rc == 0; ++k) {
            const case_study* st = case_study_at(cs, k);
            if (suite_study_in_tier(&ctx, st)) {
                rc = manifest_collect(&ctx, st, &mo, tmp);
            }
        }
        study_ctx_free(&ctx);
    }
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (rc == 0) {
        char what[64];
        snprintf(what, sizeof what, "reproduce (%s tier)",
                 o->tier == CASE_TIER_QUICK ? "quick" : "full");
        rc = manifest_write(&mo, o, what, argc, argv);
    }
    manifest_free(&mo);
    return rc;
}

static int cmd_reproduce(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "out jobs no-figures tier emit-manifest from format", &o,
               k_repro_help);
    if (o.npos) {
        die_usage("reproduce takes no positional arguments");
    }
    if (o.manifest && o.from) {
        die_usage("--emit-manifest writes the runs down, --from reads them back: one at a time");
    }
    if (o.given[OPT_FORMAT - OPT_APPROX] && !o.manifest) {
        die_usage("--format is the format of --emit-manifest FILE");
    }
    struct stat sf;
    if (o.from && (stat(o.from, &sf) != 0 || !S_ISDIR(sf.st_mode))) {
        die_usage("--from: '%s' is not a directory", o.from);
    }
    if (o.manifest) {
        return reproduce_emit_manifest(&o, o.out ? o.out : "results", argc, argv);
    }
    int jobs_given = 0;
    for (int i = 2; i < argc; ++i) {
        jobs_given |= strncmp(argv[i], "--jobs", 6) == 0;
    }
    if (!jobs_given) {
        o.jobs = 2;
    }
    const char* out = o.out ? o.out : o.from ? o.from : "results";
    char msg[600];
    struct stat so;
    const int out_existed = stat(out, &so) == 0;
    if (mkdir_p(out, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        return EXIT_USAGE;
    }
    strbuf report = {0};
    suite_report_head(&report);
    int failed = 0, solver_failures = 0, warnings = 0, rc = 0;
    for (int i = 0; i < case_count() && rc == 0; ++i) {
        const case_desc* cs = case_get(i);
        study_ctx ctx;
        setup_ctx(&ctx, cs, &o, out);
        if (o.from) {
            snprintf(ctx.from_root, sizeof ctx.from_root, "%s", o.from);
        }
        fprintf(stderr, "ccb: reproducing %s\n", cs->name);
        rc = suite_run_studies(&ctx);
        if (rc == 0) {
            const int f = suite_evaluate_gates(&ctx);
            rc = f < 0 ? EXIT_USAGE : 0;
            failed += f > 0 ? f : 0;
        }
        suite_report_case(&report, &ctx);
        solver_failures += ctx.failures;
        warnings += ctx.warnings;
        study_ctx_free(&ctx);
    }
    if (rc == 0) {
        rc = suite_report_write(out, report.s) == 0 ? 0 : EXIT_USAGE;
    }
    free(report.s);
    if (rc != 0 && o.from && !out_existed) { /* refused input creates nothing */
        nftw(out, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    if (rc != 0) {
        return EXIT_USAGE;
    }
    printf("%s: %d gate(s) failed, %d solver failure(s)\n",
           failed || solver_failures ? "FAIL" : "PASS", failed, solver_failures);
    if (warnings) { /* an output that was asked for and not made: an output error */
        fprintf(stderr, "ccb: %d figure(s) could not be drawn (--no-figures skips them)\n",
                warnings);
        return EXIT_USAGE;
    }
    return failed || solver_failures ? EXIT_GATE : 0;
}

/* ---- compare -----------------------------------------------------------------------------------
 * */

static const char* k_compare_help =
    "usage: ccb compare [options]\n"
    "\n"
    "Runs the chosen variants on the chosen cases through the standard sweep (every variant at\n"
    "each step of the case's ladder against the case's error metric, with kappa_2(H)) and writes\n"
    "OUT/compare.csv (one row per case and variant: errors, order with its 95 % interval,\n"
    "iterations, kappa, failed runs, wall time per step), OUT/compare.md (a table per case, the\n"
    "best value of each column in bold), one figure per metric (OUT/compare_*.png) and the runs\n"
    "(OUT/CASE/compare/). A variant that fails on a case is a result, not an error.\n"
    "\n"
    "  --cases LIST      comma-separated cases (default: all)\n"
    "  --variants SPEC   variant names and sets (convex, paper, all), comma-separated (default\n"
    "                    all); each case runs those that apply to it (ccb info CASE)\n"
    "  --quick           the quick tier's shorter ladders (a few minutes on two cores)\n"
    "  --out DIR         output directory (default results/compare)\n"
    "  --jobs N          runs in parallel (default 2)\n"
    "  --no-figures      skip gnuplot\n";

static int cmd_compare(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "cases variants quick out jobs no-figures", &o, k_compare_help);
    if (o.npos) {
        die_usage("compare takes no positional arguments (cases go in --cases)");
    }
    int jobs_given = 0;
    for (int i = 2; i < argc; ++i) {
        jobs_given |= strncmp(argv[i], "--jobs", 6) == 0;
    }
    if (!jobs_given) {
        o.jobs = 2;
    }
    /* every case and variant name is checked before anything runs or is written */
    const case_desc* cases[16];
    int nc = 0;
    if (o.cases) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", o.cases);
        for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            if (nc == 16) {
                die_usage("--cases: at most 16 cases");
            }
            cases[nc] = need_case(w);
            for (int j = 0; j < nc; ++j) {
                if (cases[j] == cases[nc]) {
                    die_usage("--cases: %s is named twice", w);
                }
            }
            nc++;
        }
        if (nc == 0) {
            die_usage("--cases needs at least one case");
        }
    } else {
        for (int i = 0; i < case_count() && nc < 16; ++i) {
            cases[nc++] = case_get(i);
        }
    }
    const char* spec = o.variants ? o.variants : "all";
    variant_def* probe = calloc(64, sizeof *probe);
    char msg[600];
    if (probe == NULL) {
        fprintf(stderr, "ccb: out of memory\n");
        return EXIT_USAGE;
    }
    const int nv = variant_select(spec, NULL, probe, 64, msg, sizeof msg);
    free(probe);
    if (nv < 0) {
        die_usage("--variants: %s", msg);
    }
    int applies = 0;
    for (int c = 0; c < nc; ++c) {
        variant_def v[64];
        applies += variant_select(spec, cases[c], v, 64, msg, sizeof msg) > 0;
    }
    if (applies == 0) {
        die_usage("no variant of '%s' applies to the chosen cases", spec);
    }
    const char* out = o.out ? o.out : "results/compare";
    if (mkdir_p(out, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        return EXIT_USAGE;
    }
    std_summary* sum = calloc(16 * 64, sizeof *sum);
    if (sum == NULL) {
        fprintf(stderr, "ccb: out of memory\n");
        return EXIT_USAGE;
    }
    int n = 0, rc = 0;
    for (int c = 0; c < nc && rc == 0; ++c) {
        study_ctx ctx;
        setup_ctx(&ctx, cases[c], &o, out);
        ctx.tier = o.quick ? CASE_TIER_QUICK : CASE_TIER_FULL;
        ctx.variants = spec;
        variant_def v[64];
        if (variant_select(spec, cases[c], v, 64, msg, sizeof msg) <= 0) {
            study_ctx_free(&ctx);
            continue; /* nothing of the selection applies to this case */
        }
        fprintf(stderr, "ccb: compare %s\n", cases[c]->name);
        const int k = std_compare_case(&ctx, sum + n, 16 * 64 - n);
        rc = k < 0 ? EXIT_USAGE : 0;
        n += k > 0 ? k : 0;
        study_ctx_free(&ctx);
    }
    if (rc == 0) {
        rc = compare_write(out, sum, n, o.quick, o.figures) ? EXIT_USAGE : 0;
    }
    free(sum);
    if (rc == 0) {
        printf("compare: %d case-variant rows written to %s/compare.csv and %s/compare.md\n", n,
               out, out);
    }
    return rc;
}

/* ---- bench -------------------------------------------------------------------------------------
 * */

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static const char* k_bench_help =
    "usage: ccb bench [CASE] [options]\n"
    "\n"
    "Times the stepping loop (no output files) of the case (default conveyor) for the variants\n"
    "of --variants that apply to it (default: every approximation, TAMSI and implicit Euler\n"
    "with full Newton + TALS, h = dt; the clutter: lagged), or for the one configuration of\n"
    "--approx / --solver, and reports the median over --repeat runs.\n"
    "\n"
    "  --repeat N        repetitions (default 5)\n"
    "  --variants SPEC   variant names and sets (convex, paper, all), comma-separated\n"
    "  --approx NAME     only this approximation\n"
    "  --dt S, --t-final S, --set NAME=VALUE   as for ccb run\n"
    "  --solver NAME     only this solver (with --approx: on that approximation)\n"
    "  --peers           the first variant against MuJoCo on the same scene, in alternating\n"
    "                    runs: the same geometry (every ccb shape) and native boxes (a body of\n"
    "                    spheres as the box that bounds them); prints one line\n"
    "                    'ratio CASE VARIANT/mujoco-same-geometry R' and one\n"
    "                    'ratio CASE VARIANT/mujoco-native-boxes R' (medians); needs a build\n"
    "                    with libmujoco-dev\n"
    "The solver options below apply to every variant whose solver reads them.\n";

static void describe_line(const char* key, const char* value, void* user) {
    (void)user;
    printf("#   %-10s %s\n", key, value);
}

/* `ccb bench --peers`: cfg and MuJoCo (same geometry, native boxes) in alternating runs. */
static int bench_peers(const case_desc* cs, const run_config* cfg, const char* variant,
                       int repeat) {
    if (!peer_mujoco_available()) {
        fprintf(stderr, "ccb: --peers: this ccb was built without MuJoCo (install libmujoco-dev "
                        "and rebuild)\n");
        return EXIT_USAGE;
    }
    ccb_model* model = NULL;
    void* data = NULL;
    char msg[600];
    run_record rec;
    memset(&rec, 0, sizeof rec);
    if (run_execute(cfg, &rec, msg, sizeof msg) != 0) { /* checks the input, warms up */
        fprintf(stderr, "ccb: %s\n", msg);
        return EXIT_USAGE;
    }
    run_record_free(&rec);
    if (cs->build(cfg->params, &model, &data, msg, sizeof msg) != 0) {
        fprintf(stderr, "ccb: %s\n", msg);
        return EXIT_USAGE;
    }
    enum { NP = 3 };
    const char* names[NP] = {variant, "mujoco-same-geometry", "mujoco-native-boxes"};
    double* t = calloc((size_t)(NP * repeat), sizeof(double));
    double it[NP] = {0}, nc[NP] = {0}, pen[NP] = {0}, fac = 0, per_it = 0;
    long steps[NP] = {0};
    int ok[NP] = {1, 1, 1}, rc = t ? 0 : EXIT_USAGE;
    run_config timed = *cfg; /* no clock reads inside the solver in the timed runs */
    timed.newton.time_phases = 0;
    for (int r = 0; r < repeat && rc == 0; ++r) {
        if (run_execute(&timed, &rec, msg, sizeof msg) != 0) {
            fprintf(stderr, "ccb: %s\n", msg);
            rc = EXIT_USAGE;
            break;
        }
        t[r] = rec.wall_time;
        steps[0] = rec.nsteps;
        it[0] = rec.nsteps ? (double)rec.total_iters / (double)rec.nsteps : 0;
        nc[0] = rec.nsteps ? (double)rec.ncontacts_total / (double)rec.nsteps : 0;
        ok[0] &= rec.status == CCB_OK;
        run_record_free(&rec);
        for (int p = 1; p < NP && rc == 0; ++p) {
            peer_result pr;
            const peer_options po = {p == 1 ? PEER_SAME_GEOMETRY : PEER_NATIVE_BOXES,
                                     PEER_STIFF_TIMECONST};
            if (peer_mujoco_run(model, cfg->dt, cfg->t_final, &po, &pr, msg, sizeof msg) != 0) {
                fprintf(stderr, "ccb: --peers: %s\n", msg);
                rc = EXIT_USAGE;
                break;
            }
            t[p * repeat + r] = pr.wall;
            steps[p] = pr.steps;
            it[p] = pr.mean_iter;
            nc[p] = pr.mean_ncon;
            pen[p] = pr.mean_pen;
            ok[p] &= pr.ok;
        }
    }
    if (rc == 0 && run_execute(cfg, &rec, msg, sizeof msg) == 0) { /* phases timed */
        if (rec.total_iters > 0) { /* per Newton iteration: whole solve, and its factorizations */
            per_it = rec.t_solve / (double)rec.total_iters;
            fac = rec.t_factor / (double)rec.total_iters;
        }
        run_record_free(&rec);
    }
    if (rc == 0) {
        printf("\n# --peers: %d alternating runs each of %s and MuJoCo %s, stepping loop only; "
               "median [min, max]\n",
               repeat, variant, peer_mujoco_version());
        const peer_options po = {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST};
        peer_mujoco_describe(cfg->dt, &po, describe_line, NULL);
        printf("%-22s %-8s %-12s %-25s %-14s %-10s %-10s %s\n", "solver", "steps", "wall [s]",
               "spread [s]", "per step [us]", "mean it.", "contacts", "status");
        double med[NP];
        for (int p = 0; p < NP; ++p) {
            double* tp = t + p * repeat;
            qsort(tp, (size_t)repeat, sizeof(double), cmp_double);
            med[p] = tp[repeat / 2];
            char spread[64];
            snprintf(spread, sizeof spread, "[%.4f, %.4f]", tp[0], tp[repeat - 1]);
            printf("%-22s %-8ld %-12.4f %-25s %-14.1f %-10.2f %-10.0f %s\n", names[p], steps[p],
                   med[p], spread, steps[p] ? 1e6 * med[p] / (double)steps[p] : 0.0, it[p], nc[p],
                   ok[p] ? "ok" : "FAILED");
        }
        printf("# per Newton iteration of %s (last run): whole solve %.1f us, of it "
               "factorization + solve %.1f us (ratio %.2f)\n",
               variant, 1e6 * per_it, 1e6 * fac, fac > 0 ? per_it / fac : 0.0);
        printf("# mean penetration of MuJoCo's contacts: same geometry %.3g m, native boxes "
               "%.3g m\n",
               pen[1], pen[2]);
        printf("ratio %s %s/mujoco-same-geometry %.3f\n", cs->name, variant, med[0] / med[1]);
        printf("ratio %s %s/mujoco-native-boxes %.3f\n", cs->name, variant, med[0] / med[2]);
        rc = ok[0] && ok[1] && ok[2] ? 0 : EXIT_GATE;
    }
    free(t);
    ccb_model_destroy(model);
    if (cs->destroy) {
        cs->destroy(data);
    }
    return rc;
}

static int cmd_bench(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "repeat variants approx dt t-final set peers solver friction SOLVER",
               &o, k_bench_help);
    if (o.npos > 1) {
        die_usage("bench takes at most one CASE");
    }
    const case_desc* cs = need_case(o.npos ? o.pos[0] : "conveyor");
    printf("# ccb bench %s: median of %d runs of the stepping loop (libccb %s, %s)\n", cs->name,
           o.repeat, ccb_version(), ccb_revision());
    if (!o.peers) {
        printf("%-22s %-9s %-8s %-12s %-14s %-12s %-10s %s\n", "variant", "dt [s]", "steps",
               "wall [s]", "per step [us]", "steps/s", "mean it.", "status");
    }
    /* the variants: every approximation, TAMSI and implicit Euler (FN + TALS, h = dt); or the
     * one named by --approx / --solver */
    enum { MAXV = 64 };
    run_config* list = calloc(MAXV, sizeof *list);
    if (list == NULL) {
        fprintf(stderr, "ccb: out of memory\n");
        return EXIT_USAGE;
    }
    int n = 0;
    if (o.solver || o.approx) {
        run_config_default(cs, &list[0]);
        list[0].approx = need_approx(o.approx ? o.approx : cs->approx_default);
        char msg[512];
        if (o.solver && solver_select(&list[0], o.solver, msg, sizeof msg) != 0) {
            free(list);
            die_usage("%s", msg);
        }
        n = 1;
    } else {
        /* the registry's variants named by --variants (default: the case's bench variant, or
         * every approximation, TAMSI and implicit Euler FN + TALS) that apply to the case */
        const char* spec = o.variants         ? o.variants
                           : cs->bench_approx ? cs->bench_approx
                                              : "convex,tamsi,ie-fn-tals";
        variant_def* vs = calloc(MAXV, sizeof *vs);
        char msg[256];
        n = vs ? variant_select(spec, cs, vs, MAXV, msg, sizeof msg) : -1;
        if (n <= 0) {
            free(vs);
            free(list);
            if (n == 0) {
                die_usage("no variant of '%s' applies to %s", spec, cs->name);
            }
            die_usage("%s", vs ? msg : "out of memory");
        }
        for (int i = 0; i < n; ++i) {
            run_config_default(cs, &list[i]);
            variant_configure(&vs[i], &list[i], NAN);
        }
        free(vs);
    }
    int fails = 0;
    strbuf split = {0};
    for (int v = 0; v < n; ++v) {
        run_config cfg = list[v];
        apply_sets(cs, cfg.params, &o);
        if (o.have_dt) {
            cfg.dt = o.dt;
        }
        if (o.have_t) {
            cfg.t_final = o.t_final;
        }
        apply_solver_options(&o, &cfg, o.solver || o.approx);
        char variant[64];
        variant_name(&cfg, variant, sizeof variant);
        if (o.peers) { /* the first variant against MuJoCo */
            snprintf(cfg.label, sizeof cfg.label, "bench-%s", variant);
            free(split.s);
            free(list);
            return bench_peers(cs, &cfg, variant, o.repeat);
        }
        snprintf(cfg.label, sizeof cfg.label, "bench-%s", variant);
        double* times = calloc((size_t)o.repeat, sizeof(double));
        if (times == NULL) {
            fprintf(stderr, "ccb: out of memory\n");
            free(list);
            return EXIT_USAGE;
        }
        run_record rec;
        memset(&rec, 0, sizeof rec);
        double mean_it = 0, last_split[8] = {0}, contacts = 0;
        long steps = 0;
        int ok = 1;
        /* the timed runs read no clock inside the solver; one more run times its phases */
        run_config timed = cfg;
        timed.newton.time_phases = 0;
        for (int r = 0; r <= o.repeat; ++r) {
            char msg[600];
            if (run_execute(r < o.repeat ? &timed : &cfg, &rec, msg, sizeof msg) != 0) {
                fprintf(stderr, "ccb: %s\n", msg);
                free(times);
                free(split.s);
                free(list);
                return EXIT_USAGE;
            }
            if (r < o.repeat) {
                times[r] = rec.wall_time;
            }
            steps = rec.nsteps;
            mean_it = rec.nsteps ? (double)rec.total_iters / (double)rec.nsteps : 0;
            contacts = rec.nsteps ? (double)rec.ncontacts_total / (double)rec.nsteps : 0;
            ok &= rec.status == CCB_OK;
            const double sp[8] = {rec.t_geometry,
                                  rec.t_problem,
                                  rec.t_assemble,
                                  rec.t_factor,
                                  rec.t_linesearch,
                                  rec.t_eval,
                                  rec.t_kappa,
                                  rec.t_solve - rec.t_assemble - rec.t_factor - rec.t_linesearch -
                                      rec.t_eval - rec.t_kappa};
            memcpy(last_split, sp, sizeof sp);
            run_record_free(&rec);
        }
        qsort(times, (size_t)o.repeat, sizeof(double), cmp_double);
        const double med = times[o.repeat / 2];
        const double* med_split = last_split;
        if (steps > 0) {
            strbuf_printf(&split, "%-22s %-9.0f %-9.1f %-9.1f %-9.1f %-9.1f %-9.1f %-9.1f %-9.1f\n",
                          variant, contacts, 1e6 * med_split[0] / steps, 1e6 * med_split[1] / steps,
                          1e6 * med_split[2] / steps, 1e6 * med_split[3] / steps,
                          1e6 * med_split[4] / steps, 1e6 * med_split[5] / steps,
                          1e6 * med_split[7] / steps);
        }
        printf("%-22s %-9g %-8ld %-12.6f %-14.3f %-12.0f %-10.3f %s\n", variant, cfg.dt, steps, med,
               steps ? 1e6 * med / (double)steps : 0.0, med > 0 ? (double)steps / med : 0.0,
               mean_it, ok ? "ok" : "FAILED");
        fails += !ok;
        free(times);
    }
    printf("\n# time split per step [us] (one more run, its solver phases timed): geometry query, "
           "problem assembly, "
           "Newton: Hessian assembly, factorization + solve, line search (incl. J dv), "
           "evaluation at the new iterate, rest of the solve\n");
    printf("%-22s %-9s %-9s %-9s %-9s %-9s %-9s %-9s %-9s\n", "variant", "contacts", "geometry",
           "problem", "assemble", "factor", "l.search", "eval", "other");
    fputs(split.s ? split.s : "", stdout);
    free(split.s);
    free(list);
    return fails ? EXIT_GATE : 0;
}

/* Every run is single-threaded (README "Speed"). Debian's CHOLMOD opens OpenMP regions
 * with an explicit num_threads(4) inside every supernodal factorization of more than 128 rows:
 * waking those threads costs ~20 % of a clutter step and occupies the other cores that parallel
 * studies use. OMP_THREAD_LIMIT caps them, but libgomp reads it when it is loaded, so ccb sets it
 * and restarts itself once (a user's own setting is kept). The same for OpenBLAS: where Debian's
 * alternatives make it the system BLAS and LAPACK (installing Siconos does), its thread pool
 * spins in sched_yield between the small dense solves of every step — the clutter's quick gates
 * took 121 s instead of 49 s with two jobs — so OPENBLAS_NUM_THREADS = 1 as well. */
static void single_threaded_openmp(char** argv) {
    const int omp = getenv("OMP_THREAD_LIMIT") == NULL;
    const int blas = getenv("OPENBLAS_NUM_THREADS") == NULL;
    if (!omp && !blas) {
        return;
    }
    /* restart only the program itself: under valgrind /proc/self/exe is the tool */
    struct stat self, prog;
    if (strchr(argv[0], '/') != NULL &&
        (stat("/proc/self/exe", &self) != 0 || stat(argv[0], &prog) != 0 ||
         self.st_ino != prog.st_ino || self.st_dev != prog.st_dev)) {
        return;
    }
    if ((!omp || setenv("OMP_THREAD_LIMIT", "1", 1) == 0) &&
        (!blas || setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0)) {
        execv("/proc/self/exe", argv);
    }
    /* exec failed: go on with OpenMP as configured */
}

/* The plugins of CCB_PLUGIN_PATH and of leading --plugin FILE words (removed from argv). */
static void load_plugins(int* argc, char** argv) {
    char msg[1024];
    if (plugin_load_env(msg, sizeof msg) != 0) {
        die_usage("%s", msg);
    }
    while (*argc >= 2 && strncmp(argv[1], "--plugin", 8) == 0 &&
           (argv[1][8] == '\0' || argv[1][8] == '=')) {
        const int joined = argv[1][8] == '=';
        if (!joined && *argc < 3) {
            die_usage("--plugin needs a file");
        }
        if (plugin_load(joined ? argv[1] + 9 : argv[2], msg, sizeof msg) != 0) {
            die_usage("%s", msg);
        }
        const int drop = joined ? 1 : 2;
        memmove(argv + 1, argv + 1 + drop, (size_t)(*argc - 1 - drop + 1) * sizeof argv[0]);
        *argc -= drop;
    }
    if (sopt_build(msg, sizeof msg) != 0) { /* a plugin's option that clashes with another */
        die_usage("a plugin's options: %s", msg);
    }
}

static int dispatch(int argc, char** argv) {
    load_plugins(&argc, argv);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(k_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ccb %s (git %s)\ndata: %s\n", ccb_version(), ccb_revision(), ccb_source_dir());
        /* the optional parts of this build (README "Optional parts") */
        printf("optional: mujoco %s, fclib %s, siconos %s\n",
               peer_mujoco_available() ? "yes" : "no (libmujoco-dev)",
               fclib_io_available() ? "yes" : "no (libfclib-dev)",
               peer_siconos_available() ? "yes" : "no (libsiconos-numerics-dev)");
        return 0;
    }
    static const struct {
        const char* name;
        int (*fn)(int, char**);
    } k_cmds[] = {{"list", cmd_list},   {"info", cmd_info},      {"run", cmd_run},
                  {"study", cmd_study}, {"gate", cmd_gate},      {"reproduce", cmd_reproduce},
                  {"bench", cmd_bench}, {"compare", cmd_compare}};
    for (size_t i = 0; i < sizeof k_cmds / sizeof k_cmds[0]; ++i) {
        if (strcmp(argv[1], k_cmds[i].name) == 0) {
            return k_cmds[i].fn(argc, argv);
        }
    }
    die_usage("unknown command '%s'", argv[1]);
}

/* SIGINT, SIGTERM, SIGHUP: remove the temporary files of the results being written (nothing
 * half-written is left; committed files stay) and the directories this process created that
 * hold nothing, then die of the signal as usual. */
static void on_signal(int sig) {
    ccb_writer_remove_pending();
    remove_created_dirs(); /* those left empty: no empty run directory after a signal */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signal_handlers(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int ccb_cli_main(int argc, char** argv) {
    single_threaded_openmp(argv);
    install_signal_handlers();
    ccb_set_command_line(argc, argv);
    const int rc = dispatch(argc, argv);
    /* what went to standard output must have arrived (`ccb list > /dev/full`) */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ccb: cannot write to standard output: %s\n", strerror(errno));
        return rc != 0 ? rc : EXIT_USAGE;
    }
    return rc;
}
