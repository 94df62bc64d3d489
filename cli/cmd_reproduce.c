/* cmd_reproduce: `ccb reproduce`. */
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
#include <sys/wait.h>
#include <unistd.h>

#include "cli_internal.h"

static const char* k_repro_help =
    "usage: ccb reproduce [CASE...] [options]\n"
    "\n"
    "Runs every study of every case (of the cases named, if any), draws the figures, evaluates\n"
    "all gates, and writes the report ROOT/README.md (figures, tables, gates, timings) next to\n"
    "the data.\n"
    "\n"
    "  --out ROOT     results root (default results)\n"
    "  --jobs N       N cases at a time, each in a process of its own running one run at\n"
    "                 a time (default: 2); with one case, N of its runs at a time\n"
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

/* The cases a reproduction covers: those named on the command line (each checked before anything
 * runs or is written; a name given twice counts once), or every case. sel[i] for case_get(i). */
static void reproduce_cases(const opts* o, unsigned char* sel, int n) {
    for (int i = 0; i < n; ++i) {
        sel[i] = o->npos == 0;
    }
    for (int k = 0; k < o->npos; ++k) {
        const case_desc* cs = need_case(o->pos[k]);
        for (int i = 0; i < n; ++i) {
            sel[i] |= case_get(i) == cs;
        }
    }
}

/* `ccb reproduce --emit-manifest FILE`: every run of every study of the tier, once. */
static int reproduce_emit_manifest(const opts* o, const unsigned char* sel, const char* root,
                                   int argc, char** argv) {
    manifest_out mo;
    char tmp[CASE_MAX_ROOT];
    if (manifest_begin(&mo, root, tmp, sizeof tmp) != 0) {
        return EXIT_USAGE;
    }
    int rc = 0;
    for (int i = 0; i < case_count() && rc == 0; ++i) {
        if (!sel[i]) {
            continue;
        }
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
    remove_tree(tmp);
    if (rc == 0) {
        char what[64];
        snprintf(what, sizeof what, "reproduce (%s tier)",
                 o->tier == CASE_TIER_QUICK ? "quick" : "full");
        rc = manifest_write(&mo, o, what, argc, argv);
    }
    manifest_free(&mo);
    return rc;
}

/* What the cases of a reproduction add up to. */
typedef struct repro_counts {
    int rc, failed, solver_failures, warnings;
} repro_counts;

/* One case of the reproduction: its studies, gates and report section (appended to report). */
static void reproduce_case(const opts* o, const case_desc* cs, const char* out, int jobs,
                           strbuf* report, repro_counts* c) {
    study_ctx ctx;
    opts oc = *o;
    oc.jobs = jobs;
    setup_ctx(&ctx, cs, &oc, out);
    if (o->from) {
        snprintf(ctx.from_root, sizeof ctx.from_root, "%s", o->from);
    }
    study_log("reproducing %s", cs->name);
    int f = 0;
    c->rc = suite_run_studies(&ctx) != 0 || suite_evaluate_gates(&ctx, &f) != 0
                ? cli_study_error(&ctx)
                : 0;
    c->failed += f;
    suite_report_case(report, &ctx);
    c->solver_failures += ctx.failures;
    c->warnings += study_out_warnings(ctx.out);
    study_ctx_free(&ctx);
}

/* A case reproduced in a process of its own: its standard output and its report section (after
 * a first line with its counts) go to unlinked temporary files, which the parent prints and
 * joins in case order; nothing of them is left on disk, even after a signal. */
typedef struct repro_worker {
    pid_t pid; /* 0: not started; -1: finished */
    FILE *out, *rep;
    repro_counts c;
    int ok; /* the process exited and its counts were read */
} repro_worker;

static char* slurp(FILE* f) {
    strbuf b = {0};
    char buf[4096];
    size_t n;
    rewind(f);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        strbuf_printf(&b, "%.*s", (int)n, buf);
    }
    return b.s;
}

static void worker_start(repro_worker* w, const opts* o, const case_desc* cs, const char* out) {
    w->out = tmpfile();
    w->rep = tmpfile();
    if (w->out == NULL || w->rep == NULL) {
        cli_error("reproduce %s: no temporary file for its output: %s", cs->name, strerror(errno));
        w->pid = -1;
        return;
    }
    fflush(NULL);
    /* no signal between the fork and the parent's note of its child (on_signal passes it on) */
    cli_block_signals();
    w->pid = fork();
    if (w->pid > 0) {
        cli_worker_add((int)w->pid);
    }
    if (w->pid == 0) {
        cli_workers_clear();
    }
    cli_restore_signals();
    if (w->pid < 0) {
        cli_error("reproduce %s: cannot start a process: %s", cs->name, strerror(errno));
        w->pid = -1;
        return;
    }
    if (w->pid == 0) { /* the child: one case, one run at a time */
        if (dup2(fileno(w->out), STDOUT_FILENO) < 0) {
            _exit(EXIT_USAGE);
        }
        strbuf report = {0};
        repro_counts c = {0};
        reproduce_case(o, cs, out, 1, &report, &c);
        fprintf(w->rep, "%d %d %d %d\n%s", c.rc, c.failed, c.solver_failures, c.warnings,
                report.s ? report.s : "");
        const int bad = fflush(NULL) != 0 || ferror(w->rep) || ferror(stdout);
        _exit(bad ? EXIT_USAGE : 0);
    }
}

/* The selected cases, --jobs of them at a time, each in a process of its own with one run at a
 * time (a study of one long run no longer leaves the other core idle); the report joins their
 * sections in case order, as the sequential loop would write it. */
static void reproduce_parallel(const opts* o, const unsigned char* sel, const char* out,
                               strbuf* report, repro_counts* total) {
    const int n = case_count();
    repro_worker w[64];
    memset(w, 0, sizeof w);
    int next = 0, running = 0, printed = 0, stop = 0;
    for (;;) {
        while (!stop && running < o->jobs && next < n) {
            if (sel[next]) {
                worker_start(&w[next], o, case_get(next), out);
                if (w[next].pid > 0) {
                    running++;
                } else {
                    stop = 1;
                }
            } else {
                w[next].pid = -1;
            }
            next++;
        }
        if (running == 0) {
            break;
        }
        int st = 0;
        const pid_t done = wait(&st);
        if (done < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        for (int i = 0; i < n; ++i) {
            if (w[i].pid == done) {
                cli_worker_forget((int)done);
                running--;
                w[i].pid = -1;
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                    if (WIFSIGNALED(st)) {
                        cli_error("reproduce %s: its process ended by signal %d", case_get(i)->name,
                                  WTERMSIG(st));
                    } else {
                        cli_error("reproduce %s: its process failed (exit %d)", case_get(i)->name,
                                  WEXITSTATUS(st));
                    }
                    stop = 1;
                } else {
                    rewind(w[i].rep);
                    if (fscanf(w[i].rep, "%d %d %d %d", &w[i].c.rc, &w[i].c.failed,
                               &w[i].c.solver_failures, &w[i].c.warnings) == 4) {
                        w[i].ok = 1;
                        stop |= w[i].c.rc != 0;
                    } else {
                        cli_error("reproduce %s: its process left no counts", case_get(i)->name);
                        stop = 1;
                    }
                }
            }
        }
        /* the standard output of the finished cases, in case order */
        while (printed < next && w[printed].pid == -1) {
            if (w[printed].out != NULL) {
                char* text = slurp(w[printed].out);
                fputs(text ? text : "", stdout);
                free(text);
                fflush(stdout);
            }
            printed++;
        }
    }
    for (int i = 0; i < n; ++i) {
        if (sel[i] && (i >= next || !w[i].ok)) {
            total->rc = EXIT_USAGE; /* a case that did not run, or whose process failed */
        } else if (sel[i]) {
            char* text = slurp(w[i].rep);
            const char* body = text ? strchr(text, '\n') : NULL;
            strbuf_printf(report, "%s", body ? body + 1 : "");
            free(text);
            total->rc = total->rc ? total->rc : w[i].c.rc;
            total->failed += w[i].c.failed;
            total->solver_failures += w[i].c.solver_failures;
            total->warnings += w[i].c.warnings;
        }
        if (w[i].out) {
            fclose(w[i].out);
        }
        if (w[i].rep) {
            fclose(w[i].rep);
        }
    }
}

int cmd_reproduce(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, "out jobs no-figures tier emit-manifest from format", &o,
               k_repro_help);
    unsigned char sel[64];
    if (case_count() > (int)sizeof sel) {
        die_usage("reproduce: %d cases, more than the %d it can select", case_count(),
                  (int)sizeof sel);
    }
    reproduce_cases(&o, sel, case_count());
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
        return reproduce_emit_manifest(&o, sel, o.out ? o.out : "results", argc, argv);
    }
    int jobs_given = 0;
    for (int i = 2; i < argc; ++i) {
        jobs_given |= strncmp(argv[i], "--jobs", 6) == 0;
    }
    if (!jobs_given) {
        o.jobs = 2;
    }
    const char* out = o.out ? o.out : o.from ? o.from : "results";
    mkdir_tree_root(out);
    char msg[600];
    struct stat so;
    const int out_existed = stat(out, &so) == 0;
    const char* names[64];
    int nlock = 0;
    for (int i = 0; i < case_count(); ++i) {
        if (sel[i]) {
            names[nlock++] = case_get(i)->name;
        }
    }
    if (mkdir_p(out, msg, sizeof msg) != 0 || lock_tree(out, msg, sizeof msg) != 0 ||
        lock_case_trees(out, names, nlock, msg, sizeof msg) != 0) {
        return cli_error("%s", msg);
    }
    strbuf report = {0};
    suite_report_head(&report);
    repro_counts c = {0};
    int nsel = 0;
    for (int i = 0; i < case_count(); ++i) {
        if (sel[i]) { /* every case's options checked before anything runs (a usage error) */
            study_ctx ctx;
            setup_ctx(&ctx, case_get(i), &o, out);
            study_ctx_free(&ctx);
            nsel++;
        }
    }
    if (o.jobs > 1 && nsel > 1) {
        reproduce_parallel(&o, sel, out, &report, &c);
    } else {
        for (int i = 0; i < case_count() && c.rc == 0; ++i) {
            if (sel[i]) {
                reproduce_case(&o, case_get(i), out, o.jobs, &report, &c);
            }
        }
    }
    int rc = c.rc;
    const int failed = c.failed, solver_failures = c.solver_failures, warnings = c.warnings;
    if (rc == 0 && suite_engines_write(out, names, nlock, &report, msg, sizeof msg) != 0) {
        rc = cli_error("%s", msg);
    }
    if (rc == 0 && suite_report_write(out, report.s, msg, sizeof msg) != 0) {
        rc = cli_error("%s", msg);
    }
    free(report.s);
    if (rc != 0 && o.from && !out_existed) { /* refused input creates nothing */
        remove_tree(out);
    }
    if (rc != 0) {
        return EXIT_USAGE;
    }
    printf("%s: %d gate(s) failed, %d solver failure(s)\n",
           failed || solver_failures ? "FAIL" : "PASS", failed, solver_failures);
    if (warnings) { /* an output that was asked for and not made: an output error */
        return cli_error("%d figure(s) could not be drawn (--no-figures skips them)", warnings);
    }
    return failed || solver_failures ? EXIT_GATE : 0;
}
