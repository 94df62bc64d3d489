/* cmd_run: `ccb run CASE`, and the configuration its options make (also the reader of a
 * manifest's lines). */
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

/* ---- run ---------------------------------------------------------------------------------------
 * */

const char* const k_run_help =
    "usage: ccb run CASE [options]\n"
    "\n"
    "  --variant NAME         a named variant of `ccb list` (solver and options in one word;\n"
    "                         the options below refine it)\n"
    "  --approx NAME          a convex approximation of `ccb list` (default: the case's)\n"
    "  --dt S                 time step [s] (default: the case's)\n"
    "  --t-final S            duration [s], a whole number of steps (default: the case's)\n"
    "  --set NAME=VALUE       override a case parameter (repeatable; see ccb info CASE)\n"
    "  --out DIR              output directory (default results/CASE/runs/VARIANT_dtDT)\n"
    "  --solver NAME          a solver, see `ccb info SOLVER` (default newton: the convex\n"
    "                         approximation of --approx), or an ODE method (ie, rk3, gsl, ...),\n"
    "                         which integrates the continuous model sampled every dt\n"
    "  --friction lin|quad|stribeck5|atan   regularized friction of the solvers whose model it\n"
    "                         is (TAMSI, the ODE methods; default: the case's, else quad for\n"
    "                         TAMSI and stribeck5 for the continuous model)\n"
    "  --record-every N       write every N-th step (default 1)\n"
    "  --physics              also write physics.csv: the physics metrics of every step\n"
    "                         (docs/formulation-convex.md §14)\n"
    "  --export-fclib FILE --export-steps LIST   FCLIB problems of the listed steps (docs/guide.md "
    "§4)\n"
    "  --perturb LIST         round-off perturbations (docs/cases.md §10): contacts (the contacts "
    "of\n"
    "                         every step reversed), ulp (every initial position one ulp up),\n"
    "                         member=K (ensemble member K: every initial position one ulp up or\n"
    "                         down); comma-separated\n"
    "\n"
    "Writes trajectory.csv (header with units), steps.csv (solver statistics per step),\n"
    "times.csv (wall times per step) and meta.json, atomically. Exit 1 if a step's solve\n"
    "fails (the run stops there; meta.json says \"failed\").\n";

/* The configuration `ccb run` builds from its options (also the check of a manifest's lines). */
void run_config_from_opts(const opts* o, run_config* cfg) {
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
            const peer_variant* pv = peer_variant_named(o->variant);
            if (pv != NULL) { /* a peer of an engine this build does not have */
                die_usage("variant '%s': %s", o->variant, pv->engine->absent());
            }
            die_usage("unknown variant '%s' (ccb list shows them)", o->variant);
        }
        variant_configure(&v, cfg, NAN);
    }
    if (o->approx) {
        cfg->sim.approx = need_approx(o->approx);
    }
    if (o->solver) {
        char msg[512];
        if (solver_select(cfg, o->solver, msg, sizeof msg) != 0) {
            die_usage("%s", msg);
        }
    }
    if (o->have_dt) {
        cfg->sim.dt = o->dt;
    }
    if (o->have_t) {
        cfg->t_final = o->t_final;
    }
    if (!(cfg->sim.dt > 0)) {
        die_usage("--dt must be > 0 (got %g)", cfg->sim.dt);
    }
    if (!(cfg->t_final > 0)) {
        die_usage("--t-final must be > 0 (got %g)", cfg->t_final);
    }
    apply_solver_options(o, cfg, 1);
    check_applicable(o, cfg);
    check_sets_read(o, cfg);
    cfg->record_every = o->record_every;
    if (o->export_fclib != NULL && o->nexport == 0) {
        die_usage("--export-fclib FILE needs --export-steps LIST");
    }
    cfg->export_fclib = o->export_fclib; /* NULL: OUT/step<k>.fclib.hdf5 */
    cfg->nexport = o->nexport;
    memcpy(cfg->export_steps, o->export_steps, sizeof cfg->export_steps);
    cfg->perturb = o->perturb;
}

int cmd_run(int argc, char** argv) {
    opts o;
    parse_opts(argc, argv, 2, RUN_OPTS, &o, k_run_help);
    run_config cfg;
    run_config_from_opts(&o, &cfg);
    const case_desc* cs = cfg.cs;
    cfg.progress = 1;
    cfg.physics = o.physics;
    char variant[64];
    variant_name(&cfg, variant, sizeof variant);
    run_label(cfg.label, sizeof cfg.label, variant, cfg.sim.dt);
    if (o.out) {
        snprintf(cfg.out_dir, sizeof cfg.out_dir, "%s", o.out);
    } else {
        snprintf(cfg.out_dir, sizeof cfg.out_dir, "results/%s/runs/%s", cs->name, cfg.label);
    }
    mkdir_tree_root(o.out ? o.out : "results");
    char msg[1024];
    if (run_config_check(&cfg, NULL, msg, sizeof msg) != 0) {
        return cli_error("%s", msg);
    }
    const int existed = access(cfg.out_dir, F_OK) == 0;
    if (mkdir_p(cfg.out_dir, msg, sizeof msg) != 0) {
        return cli_error("%s", msg);
    }
    run_record rec;
    if (run_execute(&cfg, &rec, msg, sizeof msg) != 0) {
        cli_error("%s", msg);
        if (!existed) {
            rmdir(cfg.out_dir); /* only succeeds if nothing was written */
        }
        return EXIT_USAGE;
    }
    /* the iterations of every step attempted: the completed ones and a failing one (its
     * iterations are in the totals and the maximum) */
    const long attempted = rec.nsteps + (rec.status != CCB_OK && rec.fail_step > rec.nsteps);
    printf("%s %s dt=%g t_final=%g: %ld/%ld steps, status %s, %s mean %.3f max %d "
           "over %ld step%s attempted, stepping wall time %.4f s\noutput: %s\n",
           cs->name, variant, cfg.sim.dt, cfg.t_final, rec.nsteps, rec.nplanned,
           rec.status == CCB_OK ? "ok" : "FAILED", run_config_iterations_name(&rec.cfg),
           attempted ? (double)rec.total_iters / (double)attempted : 0.0, rec.max_iters, attempted,
           attempted == 1 ? "" : "s", rec.wall_time, cfg.out_dir);
    const int failed = rec.status != CCB_OK;
    if (failed) {
        study_log("solver failure at step %ld: %s", rec.fail_step, rec.msg);
    }
    run_record_free(&rec);
    return failed ? EXIT_GATE : 0;
}
