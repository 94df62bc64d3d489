/* options: the command line's options — the fixed ones and those generated from the option
 * descriptors of every registered solver and ODE method (docs/architecture.md §4.1), parsing,
 * validation, the applicability check, the solver options' help, and the helpers the commands
 * share. (About 930 lines: the option tables, the parser and the checks that an option reaches a
 * run read the same tables and the same parsed state; splitting them would export both.) */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* POSIX 2008 with nftw(3) and realpath(3) */
#endif
#include "fclib_io.h"
#include "gates.h"
#include "peer.h"
#include "siconos_peer.h"
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

#include "cli_internal.h"

sopt_entry g_sopt[SOPT_MAX];
int g_nsopt = -1;

static cli_trap* g_trap; /* the innermost trap (cli_internal.h) */

void cli_trap_push(cli_trap* t) {
    t->prev = g_trap;
    t->msg[0] = '\0';
    g_trap = t;
}

void cli_trap_pop(cli_trap* t) {
    g_trap = t->prev;
}

void cli_fail(int code, const char* msg) {
    cli_trap* t = g_trap;
    if (t == NULL) { /* not reached: every entry point sets a trap */
        study_log("%s", msg);
        exit(code == CLI_HELP ? 0 : EXIT_USAGE);
    }
    g_trap = t->prev;
    snprintf(t->msg, sizeof t->msg, "%s", msg);
    longjmp(t->jb, code);
}

int cli_error(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    study_vlog(fmt, ap);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_study_error(const study_ctx* ctx) {
    return cli_error("%s", study_error(ctx->out));
}

void die_usage(const char* fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_fail(CLI_USAGE, msg);
}

/* The entry points that return a status (cli.h): each sets a trap around its work. */
int cli_parse(int argc, char** argv, int first, const char* allowed, opts* o, const char* help,
              char* msg, size_t n) {
    cli_trap t;
    cli_trap_push(&t);
    const int jv = setjmp(t.jb);
    if (jv == 0) {
        parse_opts(argc, argv, first, allowed, o, help);
        cli_trap_pop(&t);
        return 0;
    }
    snprintf(msg, n, "%s", t.msg);
    return jv == CLI_HELP ? 1 : 2;
}

int cli_apply_solver_options(const opts* o, run_config* cfg, int strict, char* msg, size_t n) {
    cli_trap t;
    cli_trap_push(&t);
    if (setjmp(t.jb) == 0) {
        apply_solver_options(o, cfg, strict);
        cli_trap_pop(&t);
        return 0;
    }
    snprintf(msg, n, "%s", t.msg);
    return 2;
}

int cli_run_config(const opts* o, run_config* cfg, char* msg, size_t n) {
    cli_trap t;
    cli_trap_push(&t);
    if (setjmp(t.jb) == 0) {
        run_config_from_opts(o, cfg);
        cli_trap_pop(&t);
        return 0;
    }
    snprintf(msg, n, "%s", t.msg);
    return 2;
}

/* ---- option parsing ------------------------------------------------------------------------ */

double parse_num(const char* opt, const char* s) {
    double v = NAN;
    if (ccb_parse_decimal(s, &v) != 0) {
        die_usage("%s expects a finite number, in decimal (got '%s')", opt, s);
    }
    return v;
}

int parse_int(const char* opt, const char* s, int lo, int hi) {
    double x = NAN;
    const long v =
        ccb_parse_decimal(s, &x) == 0 && x == floor(x) && fabs(x) < 1e15 ? (long)x : LONG_MIN;
    if (v < lo || v > hi) {
        die_usage("%s expects a whole number in [%d, %d] (got '%s')", opt, lo, hi, s);
    }
    return (int)v;
}

/* --perturb LIST: comma-separated contacts, ulp, member=K (K in 1..10000): RUN_PERTURB_* bits. */
unsigned parse_perturb(const char* val) {
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
    {"junit", required_argument, NULL, OPT_JUNIT},
    {"save-baseline", required_argument, NULL, OPT_SAVE_BASELINE},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"with-trajectories", no_argument, NULL, OPT_WITH_TRAJECTORIES},
    {"report-only", no_argument, NULL, OPT_REPORT_ONLY},
    {"diff-rtol", required_argument, NULL, OPT_RTOL},
    {"diff-atol", required_argument, NULL, OPT_ATOL},
};
#define NFIXED ((int)(sizeof k_fixed / sizeof k_fixed[0]))
/* k_fixed, then the solver options of g_sopt, then the terminator */
static struct option k_long[NFIXED + SOPT_MAX + 1];

int sopt_find(const char* name) {
    for (int i = 0; i < g_nsopt; ++i) {
        if (strcmp(g_sopt[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

/* Adds the descriptors of one type to g_sopt; 0, or -1 with a message for a name that is a fixed
 * option or a flag in one type and takes a value in another. */
int sopt_add(const char* owner, const ccb_option_desc* d, int n, char* msg, size_t msgn) {
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
int sopt_build(char* msg, size_t n) {
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

void sopt_ensure(void) {
    if (g_nsopt < 0) {
        char msg[256];
        if (sopt_build(msg, sizeof msg) != 0) {
            die_usage("%s", msg);
        }
    }
}

/* "SOLVER" in an allowed list: every solver option. */

/* Word match of `word` in the space-separated list `list`. */
int in_words(const char* list, const char* word) {
    const size_t n = strlen(word);
    for (const char* p = strstr(list, word); p && n > 0; p = strstr(p + 1, word)) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) {
            return 1;
        }
    }
    return 0;
}

/* Edit distance (insertions, deletions, substitutions; names are short). */
int edit_distance(const char* a, const char* b) {
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
void suggest(const char* name, const char* allowed, char* out, size_t n) {
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

int allowed_option(const char* allowed, const char* name) {
    return in_words(allowed, name) || (sopt_find(name) >= 0 && in_words(allowed, "SOLVER"));
}

const char* long_name(int val) {
    for (const struct option* l = k_long; l->name; ++l) {
        if (l->val == val) {
            return l->name;
        }
    }
    return "?";
}

/* allowed: the option names accepted by the command, e.g. "approx dt t-final set out". Every
 * option given is validated here, whether or not it applies to the configuration chosen. */
/* --export-steps LIST: comma-separated positive step numbers, ascending (the run checks them
 * against its length). */
void parse_steps(const char* val, opts* o) {
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
 * ccb_an_gp_path and a manifest through shell_quote, never as code. */
void check_path(const char* opt, const char* val) {
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

/* A file option that ccb writes (--junit, --emit-manifest, --export-fclib): refused before
 * anything runs if the path exists and is not a regular file (ccb_writer_open refuses it too,
 * at the end, which would waste the runs). */
static void check_output_file(const char* opt, const char* val) {
    char msg[600];
    if (ccb_writer_check_target(val, msg, sizeof msg) != CCB_OK) {
        die_usage("--%s: %s", opt, msg);
    }
}

/* About 170 lines: one switch over every fixed option of every command (getopt_long), each
 * case a few lines of validation; the solver options come from their descriptors. */
void parse_opts(int argc, char** argv, int first, const char* allowed, opts* o, const char* help) {
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->figures = 1;
    o->record_every = 1;
    o->repeat = 5;
    o->rtol = -1;
    o->atol = -1;
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
                die_usage("cannot write to standard output: %s", strerror(errno));
            }
            cli_fail(CLI_HELP, "");
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
        case OPT_JUNIT:
        case OPT_SAVE_BASELINE:
        case OPT_BASELINE:
            check_path(name, val);
            if (c == OPT_JUNIT) {
                check_output_file(name, val);
            }
            *(c == OPT_JUNIT      ? &o->junit
              : c == OPT_BASELINE ? &o->baseline
                                  : &o->save_baseline) = val;
            break;
        case OPT_WITH_TRAJECTORIES: o->with_trajectories = 1; break;
        case OPT_REPORT_ONLY: o->report_only = 1; break;
        case OPT_RTOL:
        case OPT_ATOL: {
            const double x = parse_num(c == OPT_RTOL ? "--diff-rtol" : "--diff-atol", val);
            if (!(x >= 0) || !isfinite(x)) {
                die_usage("--%s expects a finite number >= 0 (got '%s')", name, val);
            }
            *(c == OPT_RTOL ? &o->rtol : &o->atol) = x;
            break;
        }
        case OPT_SENSITIVITY:
            o->sensitivity = parse_int("--sensitivity", val, 1, SUITE_NPERTURB);
            break;
        case OPT_EXPORT_FCLIB:
            if (val[0] == '\0') {
                die_usage("--export-fclib needs a file name");
            }
            check_output_file("export-fclib", val);
            o->export_fclib = val;
            break;
        case OPT_EXPORT_STEPS: parse_steps(val, o); break;
        case OPT_EMIT_MANIFEST:
        case OPT_FROM:
            check_path(c == OPT_FROM ? "from" : "emit-manifest", val);
            if (c == OPT_EMIT_MANIFEST) {
                check_output_file("emit-manifest", val);
            }
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

const case_desc* need_case(const char* name) {
    const case_desc* cs = case_find(name);
    if (cs == NULL) {
        const char* names[64];
        int k = 0;
        for (int i = 0; i < case_count() && k < 64; ++i) {
            names[k++] = case_get(i)->name;
        }
        char known[512];
        names_join(names, k, " ", " ", 1, known, sizeof known);
        die_usage("unknown case '%s'; known cases:%s", name, known);
    }
    return cs;
}

const ccb_approx* need_approx(const char* name) {
    const ccb_approx* ap = ccb_approx_find(name);
    if (ap == NULL) {
        const char* names[64];
        int k = 0;
        for (int i = 0; i < ccb_approx_count() && k < 64; ++i) {
            names[k++] = ccb_approx_get(i)->name;
        }
        char known[512];
        names_join(names, k, " ", " ", 1, known, sizeof known);
        die_usage("unknown approximation '%s'; known:%s", name, known);
    }
    return ap;
}

void apply_sets(const case_desc* cs, double* params, const opts* o) {
    for (int i = 0; i < o->nsets; ++i) {
        char msg[512];
        if (case_set_param(cs, params, o->sets[i], msg, sizeof msg) != 0) {
            die_usage("%s", msg);
        }
    }
}

/* The value of an enumerated option by the library's name table (ccb/names.h), or a usage error
 * listing the names. */
int need_enum(const char* opt, ccb_enum e, const char* val) {
    int v = 0;
    if (ccb_enum_value(e, val, &v) != CCB_OK) {
        char list[256];
        ccb_enum_list(e, ", ", list, sizeof list);
        die_usage("%s expects one of %s (got '%s')", opt, list, val);
    }
    return v;
}

void validate_enum(const char* opt, ccb_enum e, const char* val) {
    (void)need_enum(opt, e, val);
}

/* The solvers (and, for the ODE solver, its methods) whose type has `flag`: "tamsi, ie, rk3 and
 * gsl", for messages. */
void solvers_with(unsigned flag, char* out, size_t n) {
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
    names_join(names, k, ", ", " and ", 0, out, n);
}

/* Applies the solver options given to cfg, whose solver is already chosen, in the order of
 * g_sopt. strict (`ccb run`, a manifest line): an option that the run's solver does not read, or
 * reads only with a flag that is off, is an error naming the solvers that read it (issue 13,
 * class 3); otherwise (bench, compare) each applies where it applies. */
void apply_solver_options(const opts* o, run_config* cfg, int strict) {
    char msg[512];
    for (int i = 0; i < g_nsopt; ++i) {
        if (o->sval[i] == NULL) {
            continue;
        }
        if (cfg->peer != RUN_PEER_NONE) {
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
    if (o->friction && cfg->peer == RUN_PEER_NONE) {
        if (cfg->sim.solver->flags & CCB_SOLVER_REGULARIZED) {
            cfg->friction = need_enum("--friction", CCB_ENUM_FRICTION, o->friction);
        } else if (strict) {
            char where[256];
            solvers_with(CCB_SOLVER_REGULARIZED, where, sizeof where);
            die_usage("--friction applies to --solver %s only; this run (%s) would ignore it",
                      where, solver_cli_name(cfg));
        }
    }
    if (cfg->peer == RUN_PEER_NONE) { /* the solver's own parameters, by the library */
        ccb_sim_params sp;
        sp = cfg->sim;
        if (ccb_sim_params_check(&sp, msg, sizeof msg) != CCB_OK) {
            die_usage("%s", msg);
        }
    }
}

/* The parameter index and value of --set assignment k (parsed and checked by apply_sets). */
static int set_param(const run_config* cfg, const opts* o, int k, double* v) {
    const char* eq = strchr(o->sets[k], '=');
    char name[64];
    int idx = -1;
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - o->sets[k]) : 0, o->sets[k]);
    if (eq == NULL || case_find_param(cfg->cs, name, &idx) == NULL ||
        ccb_parse_decimal(eq + 1, v) != 0) {
        return -1;
    }
    return idx;
}

void check_sets_read(const opts* o, const run_config* cfg) {
    for (int k = 0; k < o->nsets; ++k) {
        double v;
        const int i = set_param(cfg, o, k, &v);
        char why[256], name[64];
        if (i >= 0 && !case_param_read(cfg->cs, i, run_config_approx_name(cfg), cfg->params, why,
                                       sizeof why)) {
            variant_name(cfg, name, sizeof name);
            die_usage("--set %s: %s; this run (%s) would ignore it", o->sets[k], why, name);
        }
    }
}

void option_use_note(option_use* u, const run_config* cfg) {
    for (int k = 0; k < u->o->nsets && k < 64; ++k) {
        double v;
        const int i = set_param(cfg, u->o, k, &v);
        char why[256];
        if (i >= 0 && case_param_read(cfg->cs, i, run_config_approx_name(cfg), cfg->params, why,
                                      sizeof why)) {
            u->set_read[k] = 1;
            u->set_kept[k] |= cfg->params[i] == v;
        } else if (i >= 0) {
            snprintf(u->set_why[k], sizeof u->set_why[k], "%s", why);
        }
    }
    if (cfg->peer != RUN_PEER_NONE) {
        return;
    }
    ccb_sim_params sp;
    sp = cfg->sim;
    char msg[512];
    for (int i = 0; i < g_nsopt; ++i) {
        size_t block = 0;
        const ccb_option_desc* d =
            u->o->sval[i] ? ccb_sim_params_option(&sp, g_sopt[i].name, &block) : NULL;
        if (d == NULL || solver_option_requires(cfg, g_sopt[i].name, msg, sizeof msg) != 0) {
            continue;
        }
        u->read[i] = 1;
        ccb_sim_params given = sp; /* the user's value under the same descriptor */
        const void* base = (const char*)&sp + block;
        void* gbase = (char*)&given + block;
        if (ccb_option_parse(d, g_sopt[i].flag ? NULL : u->o->sval[i], gbase, msg, sizeof msg) ==
                CCB_OK &&
            ccb_option_value(d, base) == ccb_option_value(d, gbase)) {
            u->kept[i] = 1;
        }
    }
    if (u->o->friction && (cfg->sim.solver->flags & CCB_SOLVER_REGULARIZED)) {
        u->friction_read = 1;
    }
}

void option_use_check(const option_use* u, const char* what) {
    for (int k = 0; k < u->o->nsets && k < 64; ++k) {
        if (!u->set_read[k] && u->set_why[k][0]) {
            die_usage("--set %s: %s; no %s is one, it would be ignored", u->o->sets[k],
                      u->set_why[k], what);
        }
        if (u->set_read[k] && !u->set_kept[k]) {
            die_usage("--set %s: every %s that reads it sets it itself (its declaration); it "
                      "would be ignored",
                      u->o->sets[k], what);
        }
    }
    for (int i = 0; i < g_nsopt; ++i) {
        if (u->o->sval[i] && !u->read[i]) {
            die_usage("--%s: no %s reads it (their solvers have no such option, or read it only "
                      "with a flag not set here); it would be ignored",
                      g_sopt[i].name, what);
        }
        if (u->o->sval[i] && !u->kept[i]) {
            die_usage("--%s: every %s that reads it sets it itself (its declaration); it would "
                      "be ignored",
                      g_sopt[i].name, what);
        }
    }
    if (u->o->friction && !u->friction_read) {
        char where[256];
        solvers_with(CCB_SOLVER_REGULARIZED, where, sizeof where);
        die_usage("--friction applies to --solver %s only; no %s is one, it would be ignored",
                  where, what);
    }
}

/* `ccb run` has one solver: an option of the command that its solver would not read is refused
 * instead of silently ignored (the solver options: apply_solver_options). */
void check_applicable(const opts* o, const run_config* cfg) {
    const int peer = cfg->peer != RUN_PEER_NONE;
    const unsigned flags = peer ? 0u : cfg->sim.solver->flags;
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
    const int frozen_fixed = !peer && cfg->sim.solver->solve != NULL && !cfg->sim.ec.enabled;
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
void print_solver_help(const char* allowed) {
    printf("\nsolver options (from the option descriptors of the solvers and ODE methods; `ccb "
           "info SOLVER` lists a solver's with their ranges):\n");
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
                const int off = d->requires && d->requires[0] == '!';
                printf("        %s: %s (default %s%s%s%s%s)\n", owner, d->doc, def,
                       d->unit[0] ? " " : "", d->unit,
                       d->requires ? (off ? "; without --" : "; with --") : "",
                       d->requires ? d->requires + off : "");
            }
        }
    }
}

/* ---- study / gate / reproduce ------------------------------------------------------------------
 * */

/* The options of the Newton solver that `ccb study` applies to every convex run of the study:
 * its linear algebra, stopping test and records (descriptors of ccb_solver_newton). */

void setup_ctx(study_ctx* ctx, const case_desc* cs, const opts* o, const char* out) {
    if (study_ctx_init(ctx, cs, out) != 0) {
        die_usage("--out path is longer than %d characters", CASE_MAX_ROOT - 1);
    }
    apply_sets(cs, ctx->params, o);
    /* the Newton options of the study's runs (STUDY_NEWTON_OPTS: those in ccb_newton_params and
     * the Delassus estimate) through the Newton solver's descriptors */
    run_config base;
    run_config_default(cs, &base);
    memcpy(&base.sim, &ctx->sim, sizeof base.sim);
    apply_solver_options(o, &base, 1);
    memcpy(&ctx->sim, &base.sim, sizeof ctx->sim);
    ctx->jobs = o->jobs;
    study_out_set_figures(ctx->out, o->figures);
    ctx->progress = isatty(2);
    ctx->tier = o->tier ? o->tier : CASE_TIER_FULL;
}
