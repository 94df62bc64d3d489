/* cmd_compare: `ccb compare`. */
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

int cmd_compare(int argc, char** argv) {
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
        return cli_error("out of memory");
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
    mkdir_tree_root(out);
    if (mkdir_p(out, msg, sizeof msg) != 0 || lock_tree(out, msg, sizeof msg) != 0) {
        return cli_error("%s", msg);
    }
    std_summary* sum = calloc(16 * 64, sizeof *sum);
    if (sum == NULL) {
        return cli_error("out of memory");
    }
    int n = 0, rc = 0, figfail = 0;
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
        study_log("compare %s", cases[c]->name);
        inventory_begin(out, cases[c]->name, "compare"); /* nothing stale in a reused --out */
        int k = 0;
        rc = std_compare_case(&ctx, sum + n, 16 * 64 - n, &k) != 0 ? cli_study_error(&ctx) : 0;
        if (inventory_commit(rc == 0, msg, sizeof msg) != 0) {
            rc = cli_error("%s", msg);
        }
        n += k;
        study_ctx_free(&ctx);
    }
    if (rc == 0) {
        inventory_begin_dir(out);
        rc = compare_write(out, sum, n, o.quick, o.figures, &figfail, msg, sizeof msg) != 0
                 ? cli_error("%s", msg)
                 : 0;
        if (inventory_commit(rc == 0 && figfail == 0, msg, sizeof msg) != 0) {
            rc = cli_error("%s", msg);
        }
    }
    free(sum);
    if (rc == 0) {
        printf("compare: %d case-variant rows written to %s/compare.csv and %s/compare.md\n", n,
               out, out);
    }
    if (rc == 0 && figfail) { /* an output that was asked for and not made */
        rc = cli_error("%d figure(s) could not be drawn (--no-figures skips them)", figfail);
    }
    return rc;
}
