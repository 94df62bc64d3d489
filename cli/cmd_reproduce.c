/* cmd_reproduce: `ccb reproduce`. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* POSIX 2008 with nftw(3) and realpath(3) */
#endif
#include "fclib_io.h"
#include "gates.h"
#include "mujoco_peer.h"
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

static const char* k_repro_help =
    "usage: ccb reproduce [CASE...] [options]\n"
    "\n"
    "Runs every study of every case (of the cases named, if any), draws the figures, evaluates\n"
    "all gates, and writes the report ROOT/README.md (figures, tables, gates, timings) next to\n"
    "the data.\n"
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
        if (!sel[i]) {
            continue;
        }
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
        remove_tree(out);
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
