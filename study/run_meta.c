/* run_meta: the meta.json of a run (study/run.c): what was run (case, parameters, approximation,
 * the solver's options from its descriptors, dt), by what (version, revision, compiler) and how it
 * ended; a peer run adds the peer's own settings. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run_internal.h"

typedef struct peer_meta {
    ccb_meta* m;
    char key[96];
} peer_meta;
/* One setting of peer_mujoco_describe as solver.peer.<key> (spaces as '_'). */
static void peer_meta_line(const char* key, const char* value, void* user) {
    peer_meta* pm = user;
    snprintf(pm->key, sizeof pm->key, "solver.peer.%s", key);
    for (char* c = pm->key; *c; ++c) {
        *c = *c == ' ' ? '_' : *c;
    }
    ccb_meta_set_string(pm->m, pm->key, value);
}

int run_write_meta(const run_config* cfg, const run_record* rec, const ccb_model* model,
                   const ccb_sim* sim, char* msg, size_t n) {
    ccb_meta* m = NULL;
    if (ccb_meta_create(&m) != CCB_OK) {
        snprintf(msg, n, "out of memory");
        return 2;
    }
    const case_desc* cs = cfg->cs;
    char key[160];
    /* provenance: the format of the run directory, what made it (guide §7) */
    ccb_meta_set_number(m, "format_version", RUN_FORMAT_VERSION);
    ccb_meta_set_string(m, "command_line", ccb_command_line());
    ccb_meta_set_string(m, "build.type", CCB_BUILD_TYPE);
    ccb_meta_set_string(m, "build.compiler", CCB_COMPILER);
    ccb_meta_set_string(m, "case", cs->name);
    ccb_meta_set_string(m, "title", cs->title);
    ccb_meta_set_string(m, "paper", cs->paper);
    ccb_meta_set_string(m, "label", cfg->label);
    for (int i = 0; i < cs->nparams; ++i) {
        snprintf(key, sizeof key, "parameters.%s", cs->params[i].name);
        ccb_meta_set_number(m, key, cfg->params[i]);
    }
    char variant[64];
    variant_name(cfg, variant, sizeof variant);
    ccb_meta_set_string(m, "solver.variant", variant);
    if (cfg->peer != RUN_PEER_NONE) { /* the peer's settings; the sim only held the state */
        peer_meta pm = {m, ""};
        const peer_options po = run_peer_options(cfg);
        const peer_engine* e = peer_variant_of(cfg->peer)->engine;
        ccb_meta_set_string(m, "solver.name", e->id); /* mujoco, libode, bullet */
        ccb_meta_set_string(m, "solver.peer.version", e->version());
        e->describe(cfg->sim.dt, &po, peer_meta_line, &pm);
        if (cs->peer_note) {
            ccb_meta_set_string(m, "solver.peer.observables", cs->peer_note);
        }
    } else {
        ccb_meta_set_sim(m, sim); /* solver.name, its settings and work (the library's account) */
    }
    ccb_meta_set_number(m, "statistics.steps_with_substeps", (double)rec->substeps);
    if (cfg->perturb) { /* a sensitivity run or an ensemble member (cases.md §10) */
        char what[96];
        snprintf(what, sizeof what, "%s%s%s",
                 (cfg->perturb & RUN_PERTURB_CONTACTS) ? "contacts reversed" : "",
                 (cfg->perturb & RUN_PERTURB_CONTACTS) && (cfg->perturb & RUN_PERTURB_ULP) ? ", "
                                                                                           : "",
                 (cfg->perturb & RUN_PERTURB_ULP) ? "initial q + 1 ulp" : "");
        if (what[0]) {
            ccb_meta_set_string(m, "perturbation", what);
        }
        ccb_meta_set_number(m, "perturb", cfg->perturb); /* the bits, read back by --from */
        if (RUN_PERTURB_MEMBER_OF(cfg->perturb) > 0) {
            ccb_meta_set_number(m, "ensemble_member", RUN_PERTURB_MEMBER_OF(cfg->perturb));
        }
    }
    ccb_meta_set_number(m, "dt", cfg->sim.dt);
    ccb_meta_set_number(m, "t_final", cfg->t_final);
    ccb_meta_set_number(m, "steps_planned", (double)rec->nplanned);
    ccb_meta_set_number(m, "steps_completed", (double)rec->nsteps);
    ccb_meta_set_number(m, "record_every", cfg->record_every);
    ccb_meta_set_number(m, "nq", ccb_model_nq(model));
    ccb_meta_set_number(m, "nv", ccb_model_nv(model));
    ccb_meta_set_string(m, "status", rec->status == CCB_OK ? "ok" : "failed");
    ccb_meta_set_number(m, "solver_failures", rec->status == CCB_OK ? 0 : 1);
    if (rec->status != CCB_OK) {
        ccb_meta_set_string(m, "failure.message", rec->msg);
        ccb_meta_set_string(m, "failure.status", ccb_status_string(rec->status));
        ccb_meta_set_number(m, "failure.step", (double)rec->fail_step);
    }
    ccb_meta_set_number(m, "statistics.newton_iterations_total", (double)rec->total_iters);
    ccb_meta_set_number(m, "statistics.newton_iterations_mean",
                        rec->nsteps > 0 ? (double)rec->total_iters / (double)rec->nsteps : 0.0);
    ccb_meta_set_number(m, "statistics.newton_iterations_max", rec->max_iters);
    ccb_meta_set_number(m, "statistics.line_search_evaluations_total", (double)rec->total_ls);
    ccb_meta_set_number(m, "statistics.symbolic_analyses", (double)rec->analyses);
    ccb_meta_set_number(m, "statistics.factorizations", (double)rec->factorizations);
    for (int i = 0; i < 5; ++i) { /* formulation-convex §14; absent where they do not apply */
        if (isfinite(rec->phys_max[i])) {
            snprintf(key, sizeof key, "physics.max.%s", run_phys_name[i]);
            ccb_meta_set_number(m, key, rec->phys_max[i]);
        }
    }
    ccb_meta_set_number(m, "wall_time_s", rec->wall_time);
    ccb_meta_set_number(m, "statistics.contacts_mean",
                        rec->nsteps > 0 ? (double)rec->ncontacts_total / (double)rec->nsteps : 0.0);
    ccb_meta_set_number(m, "statistics.contacts_max", rec->ncontacts_max);
    ccb_meta_set_number(m, "time_split_s.geometry", rec->t_geometry);
    ccb_meta_set_number(m, "time_split_s.problem", rec->t_problem);
    ccb_meta_set_number(m, "time_split_s.solve", rec->t_solve);
    ccb_meta_set_number(m, "time_split_s.solve_assemble", rec->t_assemble);
    ccb_meta_set_number(m, "time_split_s.solve_factor", rec->t_factor);
    ccb_meta_set_number(m, "time_split_s.solve_line_search", rec->t_linesearch);
    ccb_meta_set_number(m, "time_split_s.solve_eval", rec->t_eval);
    ccb_meta_set_number(m, "time_split_s.solve_kappa", rec->t_kappa);
    ccb_meta_set_string(m, "library.version", ccb_version());
    ccb_meta_set_string(m, "library.git_revision", ccb_revision());
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/meta.json", cfg->out_dir);
    const ccb_status s = ccb_meta_write(m, path, msg, n);
    ccb_meta_destroy(m);
    return s == CCB_OK ? 0 : 2;
}
