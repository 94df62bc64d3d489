/* cmd_gate: `ccb gate [CASE...]`. */
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
    "                 results for the full tier); each case's report section goes to\n"
    "                 ROOT/CASE/report.md, its gate table to ROOT/CASE/gates.csv\n"
    "  --jobs N       runs in parallel (default 1)\n"
    "  --sensitivity K   also rerun every study under the first K round-off-equivalent\n"
    "                 perturbations (1..6: the CHOLMOD back-end, the contacts in reversed order,\n"
    "                 every initial position one ulp up, the block pattern of every contact,\n"
    "                 dense and block Cholesky; cases.md §10) into ROOT/sensitivity/, and\n"
    "                 write per gate the spread of its value and its margin to the bound:\n"
    "                 ROOT/CASE/sensitivity.csv, ROOT/sensitivity.md. A gate whose margin is\n"
    "                 below 3x its spread, or whose result changes, is reported and exits 1.\n"
    "  --junit FILE   also write the gates as JUnit XML (one test case per gate; XFAIL and\n"
    "                 gates of the other tier skipped; FAIL, XPASS, XDRIFT failures), as CI\n"
    "                 systems show test results (docs/guide.md §10)\n"
    "  --save-baseline DIR  after the gates, store their tables as a baseline in DIR (gates,\n"
    "                 sensitivity spreads, study tables; no trajectories unless\n"
    "                 --with-trajectories); DIR is replaced whole\n"
    "  --baseline DIR after the gates, `ccb diff DIR ROOT` into ROOT/diff/: exit 1 also when a\n"
    "                 number moved beyond round-off (unless --report-only); --diff-rtol, "
    "--diff-atol\n"
    "                 as in ccb diff\n"
    "Figures are not drawn here; ccb study and ccb reproduce draw them.\n";

/* What can be checked before anything runs or is written: the options that go together, the
 * baseline to compare with, every case name (into cases, at most 16) and every gate file (a
 * malformed one is rejected before any run). 0, or EXIT_USAGE after a message (a usage error
 * does not return). */
static int gate_check_inputs(opts* o, const case_desc** cases, int* ncases) {
    if (o->with_trajectories && !o->save_baseline) {
        die_usage("--with-trajectories applies to --save-baseline only");
    }
    if ((o->report_only || o->rtol >= 0 || o->atol >= 0) && !o->baseline) {
        die_usage("--report-only, --diff-rtol and --diff-atol apply to --baseline only");
    }
    if (o->baseline) { /* the baseline must be there before anything runs */
        char probe[PATH_MAX];
        struct stat bst;
        snprintf(probe, sizeof probe, "%s/baseline.json", o->baseline);
        if (stat(probe, &bst) != 0) {
            die_usage("--baseline %s: not a baseline (no baseline.json; `ccb gate "
                      "--save-baseline DIR` makes one)",
                      o->baseline);
        }
    }
    o->figures = 0;
    if (o->tier == 0) {
        o->tier = CASE_TIER_QUICK;
    }
    const int n = o->npos ? o->npos : case_count();
    if (n > 16) {
        die_usage("gate: at most 16 cases (got %d)", n);
    }
    for (int i = 0; i < n; ++i) {
        cases[i] = o->npos ? need_case(o->pos[i]) : case_get(i);
        for (int j = 0; j < i; ++j) {
            if (cases[j] == cases[i]) { /* it would run twice, its results the second's */
                die_usage("gate: the case %s is named twice", cases[i]->name);
            }
        }
    }
    *ncases = n;
    char msg[600];
    for (int i = 0; i < n; ++i) {
        char path[PATH_MAX];
        suite_gate_file(cases[i], path, sizeof path);
        ccb_gate_result* g = calloc(SUITE_MAX_GATES, sizeof *g);
        int ng = 0;
        if (g == NULL || ccb_gates_evaluate(path, 0, suite_no_metric, NULL, g, SUITE_MAX_GATES, &ng,
                                            msg, sizeof msg) != 0) {
            cli_error("%s", g ? msg : "out of memory");
            free(g);
            return EXIT_USAGE;
        }
        free(g);
    }
    return 0;
}

/* --sensitivity: the studies of ctx's case and tier again under each of the first
 * o->sensitivity perturbations into OUT/sensitivity/P, the spread of every gate and its
 * margin appended to sens; *fragile counts the gates that are not a verdict. 0 or EXIT_USAGE. */
static int gate_sensitivity(study_ctx* ctx, const opts* o, const char* out, strbuf* sens,
                            int* fragile) {
    const case_desc* cs = ctx->cs;
    char msg[600];
    suite_sensitivity* sv = suite_sensitivity_begin(ctx, o->sensitivity);
    int rc = sv == NULL ? cli_study_error(ctx) : 0;
    for (int p = 0; rc == 0 && p < o->sensitivity; ++p) {
        char root[CASE_MAX_ROOT];
        if (snprintf(root, sizeof root, "%s/sensitivity/%s", out, suite_perturbation_name(p)) >=
            (int)sizeof root) {
            die_usage("--out path is too long for --sensitivity");
        }
        study_ctx pc;
        setup_ctx(&pc, cs, o, root);
        pc.progress = 0;
        suite_perturbation_apply(&pc, p);
        printf("== %s: studies of the %s tier with %s\n", cs->name, case_tier_name(pc.tier),
               suite_perturbation_what(p));
        rc = suite_run_studies(&pc);
        if (rc == STUDY_E_SOLVE) { /* a perturbed solve that fails is a result: its gates say */
            study_log("%s under %s: %s", cs->name, suite_perturbation_name(p), study_error(pc.out));
            study_out_clear_error(pc.out);
            rc = 0;
        }
        if (rc != 0 || suite_sensitivity_add(sv, &pc, p) != 0) {
            rc = cli_study_error(&pc);
        }
        if (rc == 0 && suite_sensitivity_bind(out, cs->name, root, msg, sizeof msg) != 0) {
            rc = cli_error("%s", msg);
        }
        study_ctx_free(&pc);
    }
    if (rc == 0) {
        int fr = 0;
        rc = suite_sensitivity_finish(sv, ctx, sens, &fr) != 0 ? cli_study_error(ctx) : 0;
        *fragile += fr;
    }
    suite_sensitivity_free(sv);
    return rc;
}

/* --junit FILE: every case's suite of gates as one JUnit document (its directory created). 0, or
 * EXIT_USAGE with a message. */
static int gate_write_junit(const char* file, const strbuf* junit, const ccb_junit_counts* jc) {
    strbuf x = {0};
    strbuf_printf(&x,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ccb gate\" "
                  "tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n%s</testsuites>\n",
                  jc->tests, jc->failures, jc->skipped, junit->s ? junit->s : "");
    char jmsg[600], jdir[PATH_MAX];
    snprintf(jdir, sizeof jdir, "%s", file);
    char* js = strrchr(jdir, '/');
    if (js && js != jdir) {
        *js = '\0';
    }
    const int jrc = x.failed || junit->failed ? -1
                    : js && js != jdir && mkdir_p(jdir, jmsg, sizeof jmsg) != 0
                        ? -2
                        : write_file(file, x.s, x.n, jmsg, sizeof jmsg);
    free(x.s);
    if (jrc != 0) {
        return cli_error("--junit: %s", jrc == -1 ? "out of memory" : jmsg);
    }
    printf("junit: %d test case(s), %d failure(s), %d skipped: %s\n", jc->tests, jc->failures,
           jc->skipped, file);
    return 0;
}

/* --baseline: `ccb diff BASELINE OUT` of the cases run (*moved: a number moved beyond round-off
 * and --report-only is not given); then --save-baseline (after the comparison: --baseline X
 * --save-baseline X compares against the old X and then replaces it). 0 or EXIT_USAGE. */
static int gate_baselines(const opts* o, const char* out, const char* const* names, int n,
                          int* moved) {
    if (o->baseline) {
        suite_diff_opts d;
        diff_opts_from(o, &d);
        d.figures = 1;
        d.only = names;
        d.nonly = n;
        char dout[PATH_MAX];
        snprintf(dout, sizeof dout, "%s/diff", out);
        suite_diff_summary sum;
        printf("== against the baseline %s\n", o->baseline);
        char msg[PATH_MAX + 600];
        if (suite_diff(o->baseline, out, dout, &d, &sum, msg, sizeof msg) != 0) {
            return cli_error("%s", msg);
        }
        *moved = sum.significant > 0 && !o->report_only;
        printf("%s: %d value(s) moved beyond round-off against the baseline%s\n",
               sum.significant > 0 ? (o->report_only ? "REPORT" : "FAIL") : "PASS", sum.significant,
               o->report_only ? " (--report-only)" : "");
    }
    if (o->save_baseline) {
        char msg[600];
        int files = 0;
        long long bytes = 0;
        /* the new baseline is built beside the old one and renamed into place: a signal in
         * between would leave DIR.new-PID, so they wait until it is in place (or removed) */
        cli_block_signals();
        const int src = suite_baseline_save(out, o->save_baseline, o->with_trajectories, &files,
                                            &bytes, msg, sizeof msg);
        cli_restore_signals();
        if (src != 0) {
            return cli_error("%s", msg);
        }
        printf("baseline: %d file(s), %.1f kB%s: %s\n", files, (double)bytes / 1e3,
               o->with_trajectories ? " (with trajectories)" : "", o->save_baseline);
    }
    return 0;
}

int cmd_gate(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2,
               "out jobs tier sensitivity junit save-baseline baseline with-trajectories "
               "report-only diff-rtol diff-atol",
               &o, k_gate_help);
    const case_desc* cases[16];
    int n = 0;
    if (gate_check_inputs(&o, cases, &n) != 0) {
        return EXIT_USAGE;
    }
    char msg[600];
    const char* out = o.out ? o.out : o.tier == CASE_TIER_QUICK ? "results/quick" : "results";
    mkdir_tree_root(out);
    /* a baseline replaces only a baseline, apart from the results (H2 of issue 44) */
    if ((o.save_baseline || o.baseline) &&
        suite_baseline_check(out, o.save_baseline, o.baseline, msg, sizeof msg) != 0) {
        die_usage("%s", msg);
    }
    const char* names[16];
    for (int i = 0; i < n && i < 16; ++i) {
        names[i] = cases[i]->name;
    }
    if (mkdir_p(out, msg, sizeof msg) != 0 ||
        lock_case_trees(out, names, n < 16 ? n : 16, msg, sizeof msg) != 0) {
        return cli_error("%s", msg);
    }
    int failed = 0, solver_failures = 0, warnings = 0, fragile = 0;
    strbuf sens = {0}, junit = {0};
    ccb_junit_counts jc = {0, 0, 0};
    if (o.sensitivity) {
        suite_sensitivity_head(&sens, o.sensitivity);
    }
    for (int i = 0; i < n; ++i) {
        const case_desc* cs = cases[i];
        study_ctx ctx;
        setup_ctx(&ctx, cs, &o, out);
        if (o.junit) {
            ctx.junit = &junit;
            ctx.junit_counts = &jc;
        }
        printf("== gates of %s, %s tier (%s)\n", cs->name, case_tier_name(ctx.tier), cs->paper);
        int f = 0;
        int rc = suite_run_studies(&ctx) != 0 || suite_evaluate_gates(&ctx, &f) != 0 ||
                         suite_report_case_write(&ctx) != 0
                     ? cli_study_error(&ctx)
                     : 0;
        failed += f;
        if (rc == 0 && o.sensitivity) { /* the same studies under each perturbation */
            rc = gate_sensitivity(&ctx, &o, out, &sens, &fragile);
        }
        solver_failures += ctx.failures;
        warnings += study_out_warnings(ctx.out);
        study_ctx_free(&ctx);
        if (rc != 0) {
            free(sens.s);
            free(junit.s);
            return EXIT_USAGE;
        }
    }
    if (o.junit) { /* every case's suite, written whatever the gates said */
        const int jrc = gate_write_junit(o.junit, &junit, &jc);
        free(junit.s);
        if (jrc != 0) {
            free(sens.s);
            return EXIT_USAGE;
        }
    }
    if (o.sensitivity) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/sensitivity.md", out);
        strbuf t = {0};
        strbuf_printf(&t, "# Round-off sensitivity of the gates\n\n%s", sens.s ? sens.s : "");
        free(sens.s);
        const int wrc = t.failed || t.s == NULL ? cli_error("--sensitivity: out of memory")
                        : write_file(path, t.s, t.n, msg, sizeof msg) != 0 ? cli_error("%s", msg)
                                                                           : 0;
        free(t.s);
        if (wrc != 0) {
            return EXIT_USAGE;
        }
        printf("sensitivity: %d gate(s) whose margin is below 3x their round-off spread or whose "
               "result changes; table: %s\n",
               fragile, path);
        failed += fragile;
    }
    if (solver_failures) {
        study_log("%d run(s) ended with a solver failure", solver_failures);
    }
    printf("%s: %d gate(s) failed\n", failed || solver_failures ? "FAIL" : "PASS", failed);
    int moved = 0;
    if (gate_baselines(&o, out, names, n < 16 ? n : 16, &moved) != 0) {
        return EXIT_USAGE;
    }
    if (warnings) { /* an output that was asked for and not made: an output error */
        return cli_error("%d figure(s) could not be drawn", warnings);
    }
    return failed || solver_failures || moved ? EXIT_GATE : 0;
}
