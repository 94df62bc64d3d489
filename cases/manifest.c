/* manifest: a study's runs outside the process (issue 14, "studies on a cluster").
 *
 * `ccb study CASE STUDY --emit-manifest FILE` writes each run of the study as one `ccb run`
 * command line (main.c builds and checks them); the runs then execute anywhere (GNU parallel, a
 * Slurm array), each writing its directory; `ccb study CASE STUDY --from ROOT` analyses the
 * finished directories without running anything: run_load reads a run directory back into the
 * run_record the study would have made in memory. Every value comes back exactly: the files hold
 * doubles with %.17g. The initial state (row 0) is not in trajectory.csv; it is the state of the
 * run's simulator before its first step, rebuilt from the configuration (run_setup). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "case.h"

/* The whole of a text file (NUL-terminated, malloc'ed), or NULL with errno set. */
static char* read_all(const char* path) {
    FILE* f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    char* text = NULL;
    size_t len = 0;
    FILE* mem = open_memstream(&text, &len);
    char buf[1 << 15];
    size_t got;
    int ok = mem != NULL;
    while (ok && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        ok = fwrite(buf, 1, got, mem) == got;
    }
    ok = ok && !ferror(f);
    fclose(f);
    if (mem) {
        fclose(mem);
    }
    if (!ok) {
        free(text);
        errno = EIO;
        return NULL;
    }
    return text;
}

static const cJSON* jget(const cJSON* root, const char* dotted) {
    char key[128];
    snprintf(key, sizeof key, "%s", dotted);
    const cJSON* o = root;
    for (char *save = NULL, *p = strtok_r(key, ".", &save); p && o;
         p = strtok_r(NULL, ".", &save)) {
        o = cJSON_GetObjectItemCaseSensitive(o, p);
    }
    return o;
}

static double jnum(const cJSON* root, const char* key, double dflt) {
    const cJSON* o = jget(root, key);
    return cJSON_IsNumber(o) ? o->valuedouble : dflt;
}

/* One CSV data line into at most n numbers (an empty field is NAN); the number of fields, or -1
 * on a field that is not a number. */
static int parse_row(char* line, double* out, int n) {
    int k = 0;
    char* p = line;
    for (;;) {
        char* end = p;
        while (*end && *end != ',' && *end != '\n' && *end != '\r') {
            ++end;
        }
        const char sep = *end;
        *end = '\0';
        if (k < n) {
            if (*p == '\0') {
                out[k] = NAN;
            } else {
                char* e = NULL;
                out[k] = strtod(p, &e);
                if (*e != '\0') {
                    return -1;
                }
            }
        }
        ++k;
        if (sep != ',') {
            return k;
        }
        p = end + 1;
    }
}

/* The meta.json of the directory must describe this configuration: case, variant, dt, t_final,
 * every effective parameter, bit for bit. */
static int check_meta(const cJSON* m, const run_config* cfg, const char* dir, char* msg, size_t n) {
    const case_desc* cs = cfg->cs;
    const cJSON* c = jget(m, "case");
    if (!cJSON_IsString(c) || strcmp(c->valuestring, cs->name) != 0) {
        snprintf(msg, n, "%s: meta.json is not a run of case %s", dir, cs->name);
        return 2;
    }
    char variant[64];
    variant_name(cfg, variant, sizeof variant);
    const cJSON* v = jget(m, "solver.variant");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, variant) != 0) {
        snprintf(msg, n, "%s: made with the variant %s, the study's run is %s", dir,
                 cJSON_IsString(v) ? v->valuestring : "(none)", variant);
        return 2;
    }
    if (jnum(m, "dt", NAN) != cfg->dt || jnum(m, "t_final", NAN) != cfg->t_final) {
        snprintf(msg, n,
                 "%s: made with dt = %.17g, t_final = %.17g; the study's run has %.17g, %.17g", dir,
                 jnum(m, "dt", NAN), jnum(m, "t_final", NAN), cfg->dt, cfg->t_final);
        return 2;
    }
    for (int i = 0; i < cs->nparams; ++i) {
        char key[96];
        snprintf(key, sizeof key, "parameters.%s", cs->params[i].name);
        const double got = jnum(m, key, NAN);
        if (got != cfg->params[i]) {
            snprintf(msg, n, "%s: made with %s = %.17g; the study's run has %.17g", dir,
                     cs->params[i].name, got, cfg->params[i]);
            return 2;
        }
    }
    if (jnum(m, "perturb", 0) != (double)cfg->perturb) {
        snprintf(msg, n, "%s: made with the perturbation bits %g; the study's run has %u", dir,
                 jnum(m, "perturb", 0), cfg->perturb);
        return 2;
    }
    if (jnum(m, "record_every", 0) != 1) {
        snprintf(msg, n,
                 "%s: recorded every %g steps; --from needs every step (the manifest's commands "
                 "write every step)",
                 dir, jnum(m, "record_every", 0));
        return 2;
    }
    return 0;
}

/* The text of the file `name` of a run directory, or NULL with a message naming it. */
static char* read_run_file(const char* dir, const char* name, char* msg, size_t n) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char* text = read_all(path);
    if (text == NULL) {
        snprintf(msg, n, "cannot read %s: %s", path, strerror(errno));
    }
    return text;
}

/* trajectory.csv: rows 1..nsteps of q, v and the observables. */
static int load_trajectory(run_record* r, const char* dir, char* msg, size_t n) {
    const char* path = "trajectory.csv";
    char* text = read_run_file(dir, path, msg, n);
    if (text == NULL) {
        return 2;
    }
    const int ncol = 1 + r->nq + r->nv + r->nobs;
    double* row = malloc((size_t)ncol * sizeof(double));
    long k = 0;
    int rc = row ? 0 : 2;
    char* save = NULL;
    for (char* line = strtok_r(text, "\n", &save); line && rc == 0;
         line = strtok_r(NULL, "\n", &save)) {
        if (k++ == 0) {
            continue; /* header */
        }
        if (k - 1 > r->nsteps || parse_row(line, row, ncol) != ncol) {
            snprintf(msg, n, "%s/%s: row %ld does not match the run (%d columns, %ld steps)", dir,
                     path, k - 1, ncol, r->nsteps);
            rc = 2;
            break;
        }
        memcpy(r->q + (size_t)(k - 1) * r->nq, row + 1, (size_t)r->nq * sizeof(double));
        memcpy(r->v + (size_t)(k - 1) * r->nv, row + 1 + r->nq, (size_t)r->nv * sizeof(double));
        memcpy(r->obs + (size_t)(k - 1) * r->nobs, row + 1 + r->nq + r->nv,
               (size_t)r->nobs * sizeof(double));
    }
    if (rc == 0 && k - 1 != r->nsteps) {
        snprintf(msg, n, "%s/%s: %ld rows for %ld completed steps", dir, path, k - 1, r->nsteps);
        rc = 2;
    }
    free(row);
    free(text);
    return rc;
}

/* steps.csv: per step iterations, line search, kappa and contacts (also the failing step). */
static int load_steps(run_record* r, const char* dir, char* msg, size_t n) {
    const char* path = "steps.csv";
    char* text = read_run_file(dir, path, msg, n);
    if (text == NULL) {
        return 2;
    }
    enum {
        C_STEP,
        C_T,
        C_STATUS,
        C_ITER,
        C_LS,
        C_RES,
        C_TOL,
        C_COST,
        C_KAPPA,
        C_ALPHA,
        C_F,
        C_SUB,
        C_CONTACTS,
        C_N
    };
    double row[C_N + 1];
    int rc = 0;
    long line_no = 0;
    char* save = NULL;
    for (char* line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line_no++ == 0) {
            continue;
        }
        const long k = parse_row(line, row, C_N + 1) == C_N ? lround(row[C_STEP]) : -1;
        if (k < 1 || k > r->nplanned) {
            snprintf(msg, n, "%s/%s: line %ld is not a step of the run", dir, path, line_no);
            rc = 2;
            break;
        }
        r->iters[k] = isnan(row[C_ITER]) ? 0 : (int)row[C_ITER];
        r->ls[k] = isnan(row[C_LS]) ? 0 : (int)row[C_LS];
        r->kappa[k] = isnan(row[C_KAPPA]) ? -1 : row[C_KAPPA];
        r->total_iters += r->iters[k];
        r->total_ls += r->ls[k];
        r->max_iters = r->iters[k] > r->max_iters ? r->iters[k] : r->max_iters;
        r->ncontacts_total += (long)row[C_CONTACTS];
        r->ncontacts_max =
            (int)row[C_CONTACTS] > r->ncontacts_max ? (int)row[C_CONTACTS] : r->ncontacts_max;
    }
    free(text);
    return rc;
}

int run_load(const run_config* cfg, const char* dir, run_record* rec, char* msg, size_t n) {
    memset(rec, 0, sizeof *rec);
    long N = 0;
    if (run_config_check(cfg, &N, msg, n) != 0) {
        return 2;
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    char* text = read_all(path);
    if (text == NULL) {
        snprintf(msg, n, "cannot read %s: %s (was the run executed?)", path, strerror(errno));
        return 2;
    }
    cJSON* m = cJSON_Parse(text);
    free(text);
    if (m == NULL) {
        snprintf(msg, n, "%s is not valid JSON", path);
        return 2;
    }
    ccb_model* model = NULL;
    void* data = NULL;
    ccb_sim* sim = NULL;
    int rc = run_setup(cfg, rec, &model, &data, &sim, msg, n);
    if (rc == 0) {
        rc = check_meta(m, &rec->cfg, dir, msg, n);
    }
    if (rc == 0) {
        const cJSON* st = jget(m, "status");
        rec->nsteps = (long)jnum(m, "steps_completed", -1);
        if (!cJSON_IsString(st) || rec->nsteps < 0 || rec->nsteps > N) {
            snprintf(msg, n, "%s: no status or step count", path);
            rc = 2;
        } else if (strcmp(st->valuestring, "ok") == 0) {
            rec->status = CCB_OK;
        } else {
            const cJSON* fm = jget(m, "failure.message");
            const cJSON* fs = jget(m, "failure.status");
            rec->status = CCB_E_NOTCONV;
            for (int s = 1; s < 64 && cJSON_IsString(fs); ++s) { /* the code by its name */
                if (strcmp(ccb_status_string((ccb_status)s), fs->valuestring) == 0) {
                    rec->status = (ccb_status)s;
                    break;
                }
            }
            snprintf(rec->msg, sizeof rec->msg, "%s", cJSON_IsString(fm) ? fm->valuestring : "");
            rec->fail_step = (long)jnum(m, "failure.step", 0);
        }
    }
    if (rc == 0) {
        rc = load_trajectory(rec, dir, msg, n);
    }
    if (rc == 0) {
        rc = load_steps(rec, dir, msg, n);
    }
    if (rc == 0) {
        rec->wall_time = jnum(m, "wall_time_s", 0);
        for (int i = 0; i < 5; ++i) {
            char key[64];
            snprintf(key, sizeof key, "physics.max.%s", run_phys_name[i]);
            rec->phys_max[i] = jnum(m, key, NAN);
        }
        rec->analyses = (long)jnum(m, "statistics.symbolic_analyses", 0);
        rec->factorizations = (long)jnum(m, "statistics.factorizations", 0);
        rec->substeps = (long)jnum(m, "statistics.steps_with_substeps", 0);
        rec->t_geometry = jnum(m, "time_split_s.geometry", 0);
        rec->t_problem = jnum(m, "time_split_s.problem", 0);
        rec->t_solve = jnum(m, "time_split_s.solve", 0);
        rec->t_assemble = jnum(m, "time_split_s.solve_assemble", 0);
        rec->t_factor = jnum(m, "time_split_s.solve_factor", 0);
        rec->t_linesearch = jnum(m, "time_split_s.solve_line_search", 0);
        rec->t_eval = jnum(m, "time_split_s.solve_eval", 0);
        rec->t_kappa = jnum(m, "time_split_s.solve_kappa", 0);
        ccb_ode_work* w = &rec->work;
        w->n_f = (long)jnum(m, "work.f_evaluations", 0);
        w->n_f_jacobian = (long)jnum(m, "work.f_evaluations_jacobian", 0);
        w->n_f_errest = (long)jnum(m, "work.f_evaluations_error_estimate", 0);
        w->n_newton = (long)jnum(m, "work.newton_iterations", 0);
        w->n_jacobian = (long)jnum(m, "work.jacobians", 0);
        w->n_factor = (long)jnum(m, "work.factorizations", 0);
        w->n_steps = (long)jnum(m, "work.steps", 0);
        w->n_fail_newton = (long)jnum(m, "work.newton_failures", 0);
        w->n_reject_error = (long)jnum(m, "work.error_rejections", 0);
        w->n_tals = (long)jnum(m, "work.tals_limited", 0);
        w->n_slip = (long)jnum(m, "work.slip_evaluations", 0);
        w->h_min = jnum(m, "work.h_min", 0);
        w->h_max = jnum(m, "work.h_max", 0);
    }
    cJSON_Delete(m);
    ccb_sim_destroy(sim);
    ccb_model_destroy(model);
    if (cfg->cs->destroy) {
        cfg->cs->destroy(data);
    }
    if (rc != 0) {
        run_record_free(rec);
    }
    return rc;
}

int study_run_rel(const study_ctx* ctx, const char* study, const run_config* cfg, char* rel,
                  size_t n) {
    const size_t len = strlen(ctx->out_root);
    if (cfg->out_dir[0] == '\0') {
        return snprintf(rel, n, "%s/%s/%s", ctx->cs->name, study, cfg->label) >= (int)n ? -1 : 0;
    }
    if (strncmp(cfg->out_dir, ctx->out_root, len) != 0 || cfg->out_dir[len] != '/') {
        return -1;
    }
    return snprintf(rel, n, "%s", cfg->out_dir + len + 1) >= (int)n ? -1 : 0;
}

int run_dry(const run_config* cfg, run_record* rec, char* msg, size_t n) {
    memset(rec, 0, sizeof *rec);
    ccb_model* model = NULL;
    void* data = NULL;
    ccb_sim* sim = NULL;
    const int rc = run_setup(cfg, rec, &model, &data, &sim, msg, n);
    if (rc == 0) {
        for (long k = 0; k <= rec->nplanned; ++k) {
            rec->kappa[k] = -1;
        }
        rec->status = CCB_E_INVALID;
        rec->fail_step = 1;
        snprintf(rec->msg, sizeof rec->msg, "not run: written to the manifest");
    }
    ccb_sim_destroy(sim);
    ccb_model_destroy(model);
    if (cfg->cs->destroy) {
        cfg->cs->destroy(data);
    }
    if (rc != 0) {
        run_record_free(rec);
    }
    return rc;
}
