/* manifest_out: a study's runs as `ccb run` command lines (--emit-manifest; guide §11). */
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

/* ---- manifests: a study's runs as `ccb run` command lines (issue 14) --------------------------
 * Each run the study would execute becomes one line (the executable's absolute path, `run`,
 * the case, the solver and its options, dt, t_final, every parameter that differs from the
 * case's default with %.17g, --record-every 1 so that `--from` can read every step, and --out
 * ROOT/<the run's path>). Every line is parsed back with `ccb run`'s own code and must give the
 * study's configuration, or the manifest is refused: a line never runs something else. */

/* A run configuration without what its solver does not read, for comparing two of them. */
void manifest_normalize(run_config* c) {
    if (c->peer != RUN_PEER_NONE) {
        c->sim.newton = ccb_newton_params_default();
        c->sim.problem.delassus = CCB_DELASSUS_DIAG_INVERSE;
        const int peer = c->peer;
        run_config_solver_default(c);
        c->peer = peer;
    } else {
        run_config_solver_normalize(c);
    }
    c->record_every = 1;
    run_config_drop_unread(c);
}

/* Appends `--NAME VALUE` for each option of the run's solver off its default (a flag: `--NAME`). */
typedef struct emit_args {
    char (*store)[CASE_MAX_ROOT + PATH_MAX];
    const char** av;
    int* ac;
    int max;
} emit_args;
void emit_option(void* user, const ccb_option_desc* d, const char* text, int is_default) {
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

void shell_word(strbuf* b, const char* s) {
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
void plugin_words(strbuf* b) {
    for (int i = 0; i < plugin_count(); ++i) {
        strbuf_printf(b, " --plugin ");
        shell_word(b, plugin_path(i));
    }
}

int emit_run(void* user, const study_ctx* ctx, const char* study, const run_config* cfg,
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
            mo->refused = 1;
            return study_fail(ctx->out, CCB_E_NOMEM, "out of memory");
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
    if (cfg->peer != RUN_PEER_NONE) {
        ARG("--variant");
        ARG("%s", peer_variant_of(cfg->peer)->name);
    } else {
        if (cfg->sim.approx != def.sim.approx) {
            ARG("--approx");
            ARG("%s", cfg->sim.approx->name);
        }
        if (cfg->sim.solver != CCB_SOLVER_NEWTON) {
            ARG("--solver");
            ARG("%s", solver_cli_name(cfg));
        }
        emit_args ea = {store, av, &ac, 110};
        solver_options_each(cfg, emit_option, &ea);
        if (cfg->friction >= 0) {
            ARG("--friction");
            ARG("%s", ccb_enum_name(CCB_ENUM_FRICTION, cfg->friction));
        }
    }
    ARG("--dt");
    ARG("%.17g", cfg->sim.dt);
    ARG("--t-final");
    ARG("%.17g", cfg->t_final);
    for (int i = 0; i < cs->nparams && ac < 124; ++i) { /* what the run reads, off default */
        if (memcmp(&cfg->params[i], &def.params[i], sizeof(double)) != 0 &&
            run_config_reads(cfg, i)) {
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
        mo->refused = 1;
        return study_fail(
            ctx->out, CCB_E_INVALID,
            "--out '%.60s...' (%zu characters) is too long for a manifest: its run "
            "%s/%s needs a directory of %zu characters and `ccb run --out` takes at most %d; "
            "use a root of at most %zu characters; no manifest written",
            mo->root, strlen(mo->root), study, cfg->label, strlen(mo->root) + 1 + strlen(rel),
            CASE_MAX_ROOT - 1, (size_t)CASE_MAX_ROOT - 2 - strlen(rel));
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
        mo->refused = 1;
        return study_fail(ctx->out, CCB_E_INVALID,
                          "%s/%s/%s: this run cannot be written as a `ccb run` command line (a "
                          "setting of the study has no option); no manifest written",
                          cs->name, study, cfg->label);
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

/* Removes the tree at path (files and directories, symbolic links not followed). */
void remove_tree(const char* path) {
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* An empty manifest of runs under root, by this executable, and a temporary directory in $TMPDIR
 * (else /tmp) for the analysis of runs that were not made. 0, or EXIT_USAGE (cli_error). */
int manifest_begin(manifest_out* mo, const char* root, char* tmp, size_t n) {
    memset(mo, 0, sizeof *mo);
    mo->root = root;
    if (realpath("/proc/self/exe", mo->exe) == NULL) {
        snprintf(mo->exe, sizeof mo->exe, "ccb");
    }
    /* one run per line: a word of every line with a newline (or another control character)
     * would split it; the path options are checked when parsed, these two here */
    for (int i = -1; i < plugin_count(); ++i) {
        const char* w = i < 0 ? mo->exe : plugin_path(i);
        for (const char* c = w; *c; ++c) {
            if ((unsigned char)*c < 0x20 || *c == 0x7f) {
                return cli_error("the %s's path has a control character (byte %d at offset %ld): a "
                                 "manifest has one run per line; move it to a path without one; no "
                                 "manifest written",
                                 i < 0 ? "program" : "plugin", (unsigned char)*c, (long)(c - w));
            }
        }
    }
    const char* td = getenv("TMPDIR");
    td = td && td[0] && strlen(td) < n - 64 ? td : "/tmp";
    snprintf(tmp, n, "%s/ccb-manifest-XXXXXX", td);
    if (mkdtemp(tmp) == NULL) {
        return cli_error("cannot create a temporary directory: %s", strerror(errno));
    }
    return 0;
}

/* The runs of one study into mo: the study runs without running anything (ctx->emit), its
 * analysis under tmp. The analysis sees runs that did not happen; a study whose analysis needs
 * their results stops with an error after asking for all of its runs (its runs come in batches
 * fixed by the configuration): the manifest is complete, and --from says so if it ever is not.
 * 0, or EXIT_USAGE (a run that cannot be written, or a study that failed before asking for any
 * run). */
int manifest_collect(study_ctx* ctx, const case_study* st, manifest_out* mo, const char* tmp) {
    snprintf(ctx->out_root, sizeof ctx->out_root, "%s", tmp);
    ctx->emit = emit_run;
    ctx->emit_user = mo;
    study_out_set_figures(ctx->out, 0);
    ctx->progress = 0;
    const int before = mo->nseen;
    const int rc = case_study_run(ctx, st);
    if (mo->refused) {
        return cli_study_error(ctx);
    }
    if (rc != 0 && mo->nseen > before) {
        study_log("%s/%s: its analysis needs the runs' results (%s); the manifest holds every "
                  "run it asked for",
                  ctx->cs->name, st->name, study_error(ctx->out));
        study_out_clear_error(ctx->out);
    }
    if (rc != 0 && mo->nseen == before) {
        return cli_error("%s/%s failed before asking for any run (%s); no manifest written",
                         ctx->cs->name, st->name, study_error(ctx->out));
    }
    return 0;
}

/* The manifest's lines as a Slurm job-array script (`--format slurm`; guide §11): array task i of COUNT runs the lines i+1, i+1+COUNT, ... (so any --array given to
 * sbatch works, up to one task per line), each through bash as GNU parallel would; a line that
 * exits 1 is a run whose solver failed (recorded as failed in its meta.json: a result), one that
 * exits otherwise fails the task. */
void slurm_script(strbuf* b, const char* lines, int n, const char* what) {
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
int manifest_write(const manifest_out* mo, const opts* o, const char* what, int argc, char** argv) {
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
            cli_error("out of memory");
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
        return cli_error("cannot write the manifest '%s': %s", o->manifest, msg);
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

void manifest_free(manifest_out* mo) {
    free(mo->text.s);
    free(mo->seen);
    free(mo->seen_batch);
}

/* `ccb study ... --emit-manifest FILE`: the study's runs, one line each (or a Slurm script). */
int study_emit_manifest(study_ctx* ctx, const case_study* st, const opts* o, const char* root,
                        int argc, char** argv) {
    manifest_out mo;
    char tmp[CASE_MAX_ROOT];
    if (manifest_begin(&mo, root, tmp, sizeof tmp) != 0) {
        return EXIT_USAGE;
    }
    int rc = manifest_collect(ctx, st, &mo, tmp);
    remove_tree(tmp);
    if (rc == 0) {
        char what[160];
        snprintf(what, sizeof what, "%s/%s", ctx->cs->name, st->name);
        rc = manifest_write(&mo, o, what, argc, argv);
    }
    manifest_free(&mo);
    return rc;
}
