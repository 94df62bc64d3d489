/* manifest: a study's runs outside the process (issue 14, "studies on a cluster").
 *
 * `ccb study CASE STUDY --emit-manifest FILE` writes each run of the study as one `ccb run`
 * command line (cli/manifest_out.c builds and checks them); the runs then execute anywhere (GNU parallel, a
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

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "study.h"

int run_file_open_regular(const char* path, char* msg, size_t n) {
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(msg, n, "cannot read '%s': %s%s", path, strerror(errno),
                 errno == ELOOP ? " (a symbolic link: not followed)" : "");
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(msg, n, "'%s' is not a regular file", path);
        close(fd);
        return -1;
    }
    return fd;
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

/* One CSV data line into exactly n numbers: each field a finite number (strtod's whole field,
 * no overflow), or empty where allow_empty (NAN: a statistic that does not apply). 0, or -1 with
 * the reason in why. */
static int parse_row(char* line, double* out, int n, int allow_empty, char* why, size_t wn) {
    int k = 0;
    char* p = line;
    for (;;) {
        char* end = p;
        while (*end && *end != ',' && *end != '\r') {
            ++end;
        }
        const char sep = *end;
        *end = '\0';
        if (k >= n) {
            snprintf(why, wn, "more than %d fields", n);
            return -1;
        }
        if (*p == '\0') {
            if (!allow_empty) {
                snprintf(why, wn, "field %d is empty", k + 1);
                return -1;
            }
            out[k] = NAN;
        } else {
            if (ccb_parse_decimal(p, &out[k]) !=
                0) { /* the command line's grammar (ccb/solver.h) */
                snprintf(why, wn, "field %d ('%.40s') is not a finite number", k + 1, p);
                return -1;
            }
        }
        ++k;
        if (sep != ',') {
            if (sep == '\r' && end[1] != '\0') {
                snprintf(why, wn, "a carriage return inside the line");
                return -1;
            }
            break;
        }
        p = end + 1;
    }
    if (k != n) {
        snprintf(why, wn, "%d fields, the run has %d", k, n);
        return -1;
    }
    return 0;
}

/* x as a count in [lo, hi] (a whole number): 0, or -1. */
static int as_count(double x, double lo, double hi, long* out) {
    if (!(x >= lo && x <= hi) || x != floor(x)) {
        return -1;
    }
    *out = (long)x;
    return 0;
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
    if (jnum(m, "dt", NAN) != cfg->sim.dt || jnum(m, "t_final", NAN) != cfg->t_final) {
        snprintf(msg, n,
                 "%s: made with dt = %.17g, t_final = %.17g; the study's run has %.17g, %.17g", dir,
                 jnum(m, "dt", NAN), jnum(m, "t_final", NAN), cfg->sim.dt, cfg->t_final);
        return 2;
    }
    for (int i = 0; i < cs->nparams; ++i) {
        char key[96];
        snprintf(key, sizeof key, "parameters.%s", cs->params[i].name);
        const double got = jnum(m, key, NAN);
        if (got != cfg->params[i] && run_config_reads(cfg, i)) { /* one it reads */
            snprintf(msg, n, "%s: made with %s = %.17g; the study's run has %.17g", dir,
                     cs->params[i].name, got, cfg->params[i]);
            return 2;
        }
    }
    /* every option of the run's solver and ODE method (issue 44, H7): meta.json's "option"
     * holds each descriptor's value as the run used it (ccb_sim_describe); a run made with
     * another tolerance, iteration limit, linear solver or without --kappa is not the study's */
    if (cfg->peer == RUN_PEER_NONE) {
        ccb_sim_params sp;
        /* as run_setup builds the run's simulation (the case's adjust hook moves initial
         * conditions only, which no case's sim_options reads) */
        run_effective_sim_params(cfg, &sp);
        if (sp.ode.h == 0.0) { /* as ccb_sim_create: the ODE method's step is dt unless set */
            sp.ode.h = sp.dt;
        }
        const ccb_solver_type* t = sp.solver;
        const ccb_ode_method_type* om =
            t && (t->flags & CCB_SOLVER_ODE_METHODS) ? sp.ode.method : NULL;
        for (int k = 0; t != NULL && k < 2; ++k) {
            const ccb_option_desc* d = k == 0 ? t->options : om ? om->options : NULL;
            const int nd = k == 0 ? t->noptions : om ? om->noptions : 0;
            const void* base = (const char*)&sp + (k == 0 ? ccb_sim_params_solver_block(t)
                                                          : ccb_sim_params_method_block(om));
            for (int i = 0; i < nd; ++i) {
                char key[96], want[64];
                snprintf(key, sizeof key, "option.%s", d[i].name);
                ccb_option_format(&d[i], base, want, sizeof want);
                const cJSON* o = jget(m, key);
                int same;
                if (d[i].type == CCB_OPT_REAL || d[i].type == CCB_OPT_INT) {
                    same = cJSON_IsNumber(o) && o->valuedouble == ccb_option_value(&d[i], base);
                } else {
                    same = cJSON_IsString(o) && strcmp(o->valuestring, want) == 0;
                }
                if (!same) {
                    char got[64];
                    if (cJSON_IsNumber(o)) {
                        snprintf(got, sizeof got, "%.17g", o->valuedouble);
                    } else {
                        snprintf(got, sizeof got, "%.60s",
                                 cJSON_IsString(o) ? o->valuestring : "(not recorded)");
                    }
                    snprintf(msg, n, "%s: made with --%s %s; the study's run has %s", dir,
                             d[i].name, got, want);
                    return 2;
                }
            }
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

/* The text of the file `name` of a run directory (a regular file of at most max bytes), or NULL
 * with a message naming it. */
static char* read_run_file(const char* dir, const char* name, size_t max, char* msg, size_t n) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return read_regular_text(path, max, 0, msg, n);
}

/* The next line of text (NUL-terminated in place; its '\n' removed), or NULL at the end. */
static char* next_line(char** p) {
    if (**p == '\0') {
        return NULL;
    }
    char* line = *p;
    char* nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = line + strlen(line);
    }
    return line;
}

/* The largest file a run of these dimensions can write: every field a %.17g number (at most 24
 * characters and a comma), its header, generously. */
static size_t file_bound(long rows, int cols) {
    return (size_t)(rows + 2) * (size_t)(cols + 1) * 32 + 65536;
}

/* trajectory.csv: its header (as many columns as the run has), then rows 1..nsteps of t, q, v and
 * the observables, each finite, t the step's time. */
static int load_trajectory(run_record* r, const char* dir, char* msg, size_t n) {
    const char* name = "trajectory.csv";
    const int ncol = 1 + r->nq + r->nv + r->nobs;
    char* text = read_run_file(dir, name, file_bound(r->nsteps, ncol), msg, n);
    if (text == NULL) {
        return 2;
    }
    double* row = malloc((size_t)ncol * sizeof(double));
    long line_no = 0, k = 0;
    int rc = row ? 0 : 2;
    char why[160] = "out of memory";
    char* p = text;
    for (char* line; rc == 0 && (line = next_line(&p)) != NULL;) {
        if (line_no++ == 0) { /* the header: the run's columns */
            int cols = 1;
            for (const char* c = line; *c; ++c) {
                cols += *c == ',';
            }
            if (cols != ncol) {
                snprintf(why, sizeof why, "the header has %d columns, the run has %d", cols, ncol);
                rc = 2;
            }
            continue;
        }
        if (++k > r->nsteps) {
            snprintf(why, sizeof why, "more rows than the %ld completed steps", r->nsteps);
            rc = 2;
            break;
        }
        if (parse_row(line, row, ncol, 0, why, sizeof why) != 0) {
            rc = 2;
            break;
        }
        const double t = (double)k * r->cfg.sim.dt; /* the step's time, to round-off of the sum */
        if (fabs(row[0] - t) > 1e-9 * t) {
            snprintf(why, sizeof why, "t = %.17g is not the time of step %ld (%.17g)", row[0], k,
                     t);
            rc = 2;
            break;
        }
        memcpy(r->q + (size_t)k * r->nq, row + 1, (size_t)r->nq * sizeof(double));
        memcpy(r->v + (size_t)k * r->nv, row + 1 + r->nq, (size_t)r->nv * sizeof(double));
        memcpy(r->obs + (size_t)k * r->nobs, row + 1 + r->nq + r->nv,
               (size_t)r->nobs * sizeof(double));
    }
    if (rc != 0) {
        snprintf(msg, n, "%s/%s: line %ld: %s", dir, name, line_no, why);
    } else if (line_no == 0) {
        snprintf(msg, n, "%s/%s: empty (no header)", dir, name);
        rc = 2;
    } else if (k != r->nsteps) {
        snprintf(msg, n, "%s/%s: %ld rows for %ld completed steps (meta.json)", dir, name, k,
                 r->nsteps);
        rc = 2;
    }
    free(row);
    free(text);
    return rc;
}

/* steps.csv: per step iterations, line search, kappa and contacts, one row for each step 1, 2,
 * ... in order: nsteps rows, and the failing step's row after them when the run failed in its
 * solver (a step that broke down with non-finite values has no row). */
static int load_steps(run_record* r, const char* dir, char* msg, size_t n) {
    const char* name = "steps.csv";
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
    char* text = read_run_file(dir, name, file_bound(r->nsteps + 1, C_N), msg, n);
    if (text == NULL) {
        return 2;
    }
    double row[C_N];
    int rc = 0;
    long line_no = 0, k = 0;
    char why[160] = "";
    char* p = text;
    for (char* line; rc == 0 && (line = next_line(&p)) != NULL;) {
        if (line_no++ == 0) {
            if (strncmp(line, "step,t [s],status,", 18) != 0) {
                snprintf(why, sizeof why, "not the header of a steps.csv");
                rc = 2;
            }
            continue;
        }
        ++k;
        long step = 0, it = 0, ls = 0, nc = 0, status = 0;
        if (parse_row(line, row, C_N, 1, why, sizeof why) != 0) {
            rc = 2;
        } else if (isnan(row[C_STEP]) || as_count(row[C_STEP], 1, 2e8, &step) != 0 || step != k) {
            snprintf(why, sizeof why,
                     "step %.17g where step %ld was due (one row per step, in "
                     "order)",
                     row[C_STEP], k);
            rc = 2;
        } else if (k > r->nsteps + (r->status != CCB_OK)) {
            snprintf(why, sizeof why, "step %ld is after the run's last step (%ld)", k,
                     r->nsteps + (r->status != CCB_OK));
            rc = 2;
        } else if (isnan(row[C_STATUS]) || as_count(row[C_STATUS], 0, 64, &status) != 0 ||
                   (!isnan(row[C_ITER]) && as_count(row[C_ITER], 0, 1e9, &it) != 0) ||
                   (!isnan(row[C_LS]) && as_count(row[C_LS], 0, 1e9, &ls) != 0) ||
                   isnan(row[C_CONTACTS]) || as_count(row[C_CONTACTS], 0, 1e9, &nc) != 0 ||
                   (!isnan(row[C_KAPPA]) && !(row[C_KAPPA] >= 0 || row[C_KAPPA] == -1))) {
            snprintf(why, sizeof why, "a status, count or condition number out of range");
            rc = 2;
        } else if (k <= r->nsteps && status != CCB_OK) {
            snprintf(why, sizeof why, "step %ld has status %ld, but meta.json completes it", k,
                     status);
            rc = 2;
        }
        if (rc != 0) {
            break;
        }
        r->iters[k] = (int)it;
        r->ls[k] = (int)ls;
        r->kappa[k] = isnan(row[C_KAPPA]) ? -1 : row[C_KAPPA];
        r->total_iters += it;
        r->total_ls += ls;
        r->max_iters = (int)it > r->max_iters ? (int)it : r->max_iters;
        r->ncontacts_total += nc;
        r->ncontacts_max = (int)nc > r->ncontacts_max ? (int)nc : r->ncontacts_max;
    }
    if (rc != 0) {
        snprintf(msg, n, "%s/%s: line %ld: %s", dir, name, line_no, why);
    } else if (line_no == 0) {
        snprintf(msg, n, "%s/%s: empty (no header)", dir, name);
        rc = 2;
    } else if (k < r->nsteps) {
        snprintf(msg, n, "%s/%s: %ld rows for %ld completed steps (meta.json)", dir, name, k,
                 r->nsteps);
        rc = 2;
    }
    free(text);
    return rc;
}

/* A count of meta.json (work, statistics): absent is 0; present, a whole number in
 * [0, 1e15]. 0, or 2 with a message. */
static int meta_count(const cJSON* m, const char* key, long* out, const char* path, char* msg,
                      size_t n) {
    const cJSON* o = jget(m, key);
    *out = 0;
    if (o == NULL) {
        return 0;
    }
    if (!cJSON_IsNumber(o) || as_count(o->valuedouble, 0, 1e15, out) != 0) {
        snprintf(msg, n, "%s: %s is not a count (a whole number in 0 .. 1e15)", path, key);
        return 2;
    }
    return 0;
}

/* A time or step size of meta.json: absent is dflt; present, finite and >= 0. */
static int meta_time(const cJSON* m, const char* key, double dflt, double* out, const char* path,
                     char* msg, size_t n) {
    const cJSON* o = jget(m, key);
    *out = dflt;
    if (o == NULL) {
        return 0;
    }
    if (!cJSON_IsNumber(o) || !isfinite(o->valuedouble) || o->valuedouble < 0) {
        snprintf(msg, n, "%s: %s is not a finite value >= 0", path, key);
        return 2;
    }
    *out = o->valuedouble;
    return 0;
}

/* status, steps_planned, steps_completed and failure.* of meta.json, consistent with each other
 * and with the run's N steps: "ok" completes all N; "failed" completes fewer and names the
 * failing step, the one after them. 0, or 2 with a message. */
static int meta_status(const cJSON* m, run_record* rec, long N, const char* path, char* msg,
                       size_t n) {
    const cJSON* st = jget(m, "status");
    long planned = -1, done = -1;
    const cJSON* jp = jget(m, "steps_planned");
    const cJSON* jd = jget(m, "steps_completed");
    if (!cJSON_IsString(st) || !cJSON_IsNumber(jp) || !cJSON_IsNumber(jd) ||
        as_count(jp->valuedouble, 1, 2e8, &planned) != 0 ||
        as_count(jd->valuedouble, 0, 2e8, &done) != 0) {
        snprintf(msg, n, "%s: no status, or steps_planned/steps_completed are not step counts",
                 path);
        return 2;
    }
    if (planned != N || done > N) {
        snprintf(msg, n, "%s: %ld steps planned and %ld completed; the study's run has %ld", path,
                 planned, done, N);
        return 2;
    }
    rec->nsteps = done;
    if (strcmp(st->valuestring, "ok") == 0) {
        if (done != N) {
            snprintf(msg, n, "%s: status \"ok\" with %ld of %ld steps completed", path, done, N);
            return 2;
        }
        if (jget(m, "failure") != NULL) {
            snprintf(msg, n, "%s: status \"ok\" with a failure", path);
            return 2;
        }
        rec->status = CCB_OK;
        return 0;
    }
    if (strcmp(st->valuestring, "failed") != 0) {
        snprintf(msg, n, "%s: status \"%.40s\" (\"ok\" or \"failed\")", path, st->valuestring);
        return 2;
    }
    const cJSON* fm = jget(m, "failure.message");
    const cJSON* fs = jget(m, "failure.status");
    const cJSON* fk = jget(m, "failure.step");
    long step = 0;
    if (!cJSON_IsString(fm) || !cJSON_IsString(fs) || !cJSON_IsNumber(fk) ||
        as_count(fk->valuedouble, 1, 2e8, &step) != 0 || step != done + 1 || done >= N) {
        snprintf(msg, n,
                 "%s: status \"failed\" needs failure.message, failure.status and failure.step "
                 "= steps_completed + 1 <= %ld",
                 path, N);
        return 2;
    }
    rec->status = CCB_OK;
    for (int c = 1; c < 64; ++c) { /* the code by its name */
        if (strcmp(ccb_status_string((ccb_status)c), fs->valuestring) == 0) {
            rec->status = (ccb_status)c;
            break;
        }
    }
    if (rec->status == CCB_OK) {
        snprintf(msg, n, "%s: failure.status \"%.40s\" is not a failure of ccb", path,
                 fs->valuestring);
        return 2;
    }
    snprintf(rec->msg, sizeof rec->msg, "%s", fm->valuestring);
    rec->fail_step = step;
    return 0;
}

/* The totals of meta.json (work, statistics, time split) into rec. 0, or 2 with a message. */
static int meta_totals(const cJSON* m, run_record* rec, const char* path, char* msg, size_t n) {
    ccb_ode_work* w = &rec->work;
    const struct {
        const char* key;
        long* out;
    } counts[] = {
        {"statistics.symbolic_analyses", &rec->analyses},
        {"statistics.factorizations", &rec->factorizations},
        {"statistics.steps_with_substeps", &rec->substeps},
        {"work.f_evaluations", &w->n_f},
        {"work.f_evaluations_jacobian", &w->n_f_jacobian},
        {"work.f_evaluations_error_estimate", &w->n_f_errest},
        {"work.newton_iterations", &w->n_newton},
        {"work.jacobians", &w->n_jacobian},
        {"work.factorizations", &w->n_factor},
        {"work.steps", &w->n_steps},
        {"work.newton_failures", &w->n_fail_newton},
        {"work.error_rejections", &w->n_reject_error},
        {"work.tals_limited", &w->n_tals},
        {"work.slip_evaluations", &w->n_slip},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
        if (meta_count(m, counts[i].key, counts[i].out, path, msg, n) != 0) {
            return 2;
        }
    }
    const struct {
        const char* key;
        double* out;
    } times[] = {
        {"wall_time_s", &rec->wall_time},
        {"time_split_s.geometry", &rec->t_geometry},
        {"time_split_s.problem", &rec->t_problem},
        {"time_split_s.solve", &rec->t_solve},
        {"time_split_s.solve_assemble", &rec->t_assemble},
        {"time_split_s.solve_factor", &rec->t_factor},
        {"time_split_s.solve_line_search", &rec->t_linesearch},
        {"time_split_s.solve_eval", &rec->t_eval},
        {"time_split_s.solve_kappa", &rec->t_kappa},
        {"work.h_min", &w->h_min},
        {"work.h_max", &w->h_max},
    };
    for (size_t i = 0; i < sizeof times / sizeof times[0]; ++i) {
        if (meta_time(m, times[i].key, 0, times[i].out, path, msg, n) != 0) {
            return 2;
        }
    }
    for (int i = 0; i < 5; ++i) { /* physics maxima: absent where they do not apply */
        char key[64];
        snprintf(key, sizeof key, "physics.max.%s", run_phys_name[i]);
        const cJSON* o = jget(m, key);
        rec->phys_max[i] = NAN;
        if (o != NULL) {
            if (!cJSON_IsNumber(o) || !isfinite(o->valuedouble)) {
                snprintf(msg, n, "%s: %s is not a finite number", path, key);
                return 2;
            }
            rec->phys_max[i] = o->valuedouble;
        }
    }
    return 0;
}

int run_load(const run_config* cfg, const char* dir, run_record* rec, char* msg, size_t n) {
    memset(rec, 0, sizeof *rec);
    long N = 0;
    if (run_config_check(cfg, &N, msg, n) != 0) {
        return 2;
    }
    struct stat ds;
    if (lstat(dir, &ds) != 0) {
        snprintf(msg, n, "cannot read %s/meta.json: the run directory: %s (was the run executed?)",
                 dir, strerror(errno));
        return 2;
    }
    if (!S_ISDIR(ds.st_mode)) {
        snprintf(msg, n, "%s is not a directory%s", dir,
                 S_ISLNK(ds.st_mode) ? " (a symbolic link: not followed)" : "");
        return 2;
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    char* text = read_regular_text(path, 1 << 20, 0, msg, n);
    if (text == NULL) {
        if (strstr(msg, "No such file")) {
            snprintf(msg, n,
                     "%s/meta.json does not exist: the run did not finish (was the run "
                     "executed?)",
                     dir);
        }
        return 2;
    }
    /* strict: one object, nothing after it but white space (a NUL inside the file included) */
    const char* end = NULL;
    cJSON* m = cJSON_ParseWithLengthOpts(text, strlen(text) + 1, &end, 1);
    if (m != NULL && end != text + strlen(text)) {
        cJSON_Delete(m);
        m = NULL;
    }
    free(text);
    if (m == NULL || !cJSON_IsObject(m)) {
        snprintf(msg, n, "%s is not a JSON object (or has something after it)", path);
        cJSON_Delete(m);
        return 2;
    }
    const cJSON* fv = jget(m, "format_version");
    if (!cJSON_IsNumber(fv) || fv->valuedouble != RUN_FORMAT_VERSION) {
        snprintf(msg, n, "%s: format_version %s, this ccb reads %d (docs/guide.md §7)", path,
                 cJSON_IsNumber(fv) ? "other than expected" : "missing or not a number",
                 RUN_FORMAT_VERSION);
        cJSON_Delete(m);
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
        rc = meta_status(m, rec, N, path, msg, n);
    }
    if (rc == 0) {
        rc = load_trajectory(rec, dir, msg, n);
    }
    if (rc == 0) {
        rc = load_steps(rec, dir, msg, n);
    }
    if (rc == 0) {
        rc = meta_totals(m, rec, path, msg, n);
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
