/* cmd_study: `ccb study CASE STUDY`. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* POSIX 2008 with nftw(3) and realpath(3) */
#endif
#include "fclib_io.h"
#include "gates.h"
#include "peer.h"
#include "siconos_peer.h"
#include <errno.h>
#include <fcntl.h>
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

/* Every solver option given to `ccb study` must reach a run (issue 44, part 3): the study runs
 * once without running anything (its runs handed to option_use_note, its analysis into a
 * temporary directory), and an option that no run's solver reads, or that the study's
 * declaration sets itself in every run that reads it, is refused before anything is created. */
static int note_option_use(void* user, const study_ctx* ctx, const char* study,
                           const run_config* cfg, const char* rel) {
    (void)ctx, (void)study, (void)rel;
    option_use_note(user, cfg);
    return 0;
}

static void check_options_used(const case_desc* cs, const case_study* st, const opts* o,
                               const char* out) {
    if (st->reads_no_params && o->nsets > 0) {
        die_usage("--set %s: %s/%s reads none of the case's parameters (its models are its own); "
                  "it would be ignored",
                  o->sets[0], cs->name, st->name);
    }
    int any = o->nsets > 0;
    for (int i = 0; i < g_nsopt; ++i) {
        any |= o->sval[i] != NULL;
    }
    if (!any) {
        return;
    }
    option_use u;
    memset(&u, 0, sizeof u);
    u.o = o;
    char tmp[CASE_MAX_ROOT];
    const char* td = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/ccb-options-XXXXXX",
             td && td[0] && strlen(td) < sizeof tmp - 32 ? td : "/tmp");
    if (mkdtemp(tmp) == NULL) {
        die_usage("cannot create a temporary directory: %s", strerror(errno));
    }
    study_ctx c;
    setup_ctx(&c, cs, o, out);
    char why[256] = "";
    if (st->check && st->check(c.params, why, sizeof why) != 0) {
        study_ctx_free(&c);
        remove_tree(tmp);
        die_usage("%s/%s: %s", cs->name, st->name, why);
    }
    snprintf(c.out_root, sizeof c.out_root, "%s", tmp);
    c.emit = note_option_use;
    c.emit_user = &u;
    study_out_set_figures(c.out, 0);
    c.progress = 0;
    const int saved =
        dup(2); /* the dry analysis's own complaints (no results) are not for the user */
    const int null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) {
        fflush(stderr);
        dup2(null, 2);
    }
    case_study_run(&c, st);
    if (saved >= 0 && null >= 0) {
        fflush(stderr);
        dup2(saved, 2);
    }
    if (null >= 0) {
        close(null);
    }
    if (saved >= 0) {
        close(saved);
    }
    study_ctx_free(&c);
    remove_tree(tmp);
    char what[160];
    snprintf(what, sizeof what, "run of %s/%s", cs->name, st->name);
    option_use_check(&u, what);
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
    "                    array; docs/guide.md §11)\n"
    "  --format lines|slurm   the manifest: one command per line (default; GNU parallel runs\n"
    "                    it: parallel < FILE) or a Slurm job-array script (sbatch FILE)\n"
    "  --from ROOT       run nothing: read the study's runs from ROOT (made by the manifest's\n"
    "                    lines) and analyse them; the outputs go to --out (default ROOT)\n";

int cmd_study(int argc, char** argv) {
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
        strbuf known = {0};
        for (int s = 0; s < case_nstudies(cs); ++s) {
            strbuf_printf(&known, " %s", case_study_at(cs, s)->name);
        }
        cli_error("unknown study '%s' of case %s; known:%s", o.pos[1], cs->name,
                  known.s ? known.s : "");
        free(known.s);
        return EXIT_USAGE;
    }
    const char* out = o.out ? o.out : o.from ? o.from : "results";
    mkdir_tree_root(out);
    char msg[600];
    study_ctx ctx;
    setup_ctx(&ctx, cs, &o, out);        /* validates every option before anything is created */
    check_options_used(cs, st, &o, out); /* ... and that each reaches a run */
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
    if (mkdir_p(out, msg, sizeof msg) != 0 ||
        lock_case_trees(out, &cs->name, 1, msg, sizeof msg) != 0) {
        study_ctx_free(&ctx);
        return cli_error("%s", msg);
    }
    int rc = case_study_run(&ctx, st) != 0 ? cli_study_error(&ctx) : 0;
    if (rc == 0) { /* the study's report section beside its data */
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s/%s/report.md", out, cs->name, st->name);
        const char* report = study_out_report(ctx.out);
        if (write_file(path, report, strlen(report), msg, sizeof msg) != 0) {
            cli_error("%s", msg);
            rc = 2;
        }
    }
    if (rc != 0 && o.from && !out_existed) { /* refused input creates nothing: the tree this
                                               * command made for it goes */
        remove_tree(out);
    }
    if (rc == 0) {
        printf("%s/%s: written under %s/%s/%s\n", cs->name, st->name, out, cs->name, st->name);
        for (int i = 0; i < study_out_nmetrics(ctx.out); ++i) {
            const metric* m = study_out_metric(ctx.out, i);
            printf("  %-48s %.6g\n", m->name, m->value);
        }
    }
    const int failures = ctx.failures, warnings = study_out_warnings(ctx.out);
    study_ctx_free(&ctx);
    if (rc != 0) {
        return EXIT_USAGE;
    }
    if (warnings) { /* an output that was asked for and not made */
        return cli_error("%d figure(s) could not be drawn (--no-figures skips them)", warnings);
    }
    return failures ? EXIT_GATE : 0;
}

/* Evaluates the gates of a case that belong to ctx's tier on ctx's metrics and reports them
 * (analysis/gates.c): one line per gate on stdout, the table in the report, ROOT/CASE/gates.csv.
 * Returns the number of failed gates (XFAIL does not count), -1 for a bad gate file. */
