/* study: run lists executed in parallel (one simulation per thread, each single-threaded, as the
 * papers measure), metrics for the gates, the markdown report, output directories, figures. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "ccb/record.h"
#include "study.h"

void run_label(char* out, size_t n, const char* approx, double dt) {
    snprintf(out, n, "%s_dt%g", approx, dt);
}

const char* case_tier_name(int tier) {
    return tier == CASE_TIER_QUICK ? "quick" : "full";
}

int study_ctx_init(study_ctx* ctx, const case_desc* cs, const char* out_root) {
    memset(ctx, 0, sizeof *ctx);
    if (strlen(out_root) >= sizeof ctx->out_root) {
        return -1;
    }
    ctx->cs = cs;
    case_default_params(cs, ctx->params);
    run_config base;
    run_config_default(cs, &base);
    memcpy(&ctx->sim, &base.sim, sizeof ctx->sim);
    snprintf(ctx->out_root, sizeof ctx->out_root, "%s", out_root);
    ctx->jobs = 1;
    ctx->tier = CASE_TIER_FULL;
    ctx->out = study_out_create(ctx->out_root, cs->name);
    return ctx->out ? 0 : -1;
}

int study_batch_alloc(study_ctx* ctx, study_batch* b, int n) {
    b->n = n;
    b->cfg = calloc((size_t)n, sizeof *b->cfg);
    b->rec = calloc((size_t)n, sizeof *b->rec);
    if (!b->cfg || !b->rec) {
        free(b->cfg), free(b->rec);
        b->cfg = NULL, b->rec = NULL, b->n = 0;
        return study_fail(ctx->out, CCB_E_NOMEM, "%s: out of memory for %d runs", ctx->cs->name, n);
    }
    return 0;
}

void study_batch_free(study_batch* b) {
    for (int i = 0; i < b->n; ++i) {
        run_record_free(&b->rec[i]);
    }
    free(b->cfg);
    free(b->rec);
    b->cfg = NULL, b->rec = NULL, b->n = 0;
}

/* ---- run cache ------------------------------------------------------------------------------------
 * Runs are deterministic, so a run whose configuration equals one already executed for the case
 * (every field but out_dir, label, cost and expect_failure) need not run again: study_execute
 * copies the record and the run's files — trajectory.csv and steps.csv byte for byte, meta.json
 * with the new label and "reused_from" naming the run that produced the data. Records are kept
 * while they fit in RUN_CACHE_BUDGET; a run that does not fit is simply not cached. */
#define RUN_CACHE_BUDGET ((size_t)512 << 20) /* bytes of records kept per case */

typedef struct cache_entry {
    run_config key;
    run_record rec;
} cache_entry;

struct run_cache {
    cache_entry* e;
    int n, cap;
    size_t bytes;
};

/* The configuration without what does not change the run's data. memcmp compares the whole
 * object, value bytes and padding: the library's *_default() functions zero their padding, so
 * configurations built from them compare equal when their values do (CI/valgrind.sh checks that
 * no undefined byte reaches the comparison); other padding bytes could only make a miss, never a
 * false hit. */
static void cache_key(const run_config* cfg, run_config* key) {
    memcpy(key, cfg, sizeof *key);
    memset(key->out_dir, 0, sizeof key->out_dir);
    memset(key->label, 0, sizeof key->label);
    key->cost = 0;
    key->expect_failure = NULL;
    key->progress = 0;
    key->physics = 0;
    /* only the steps that are exported are part of the run (a build without FCLIB exports none
     * and may leave the list filled) */
    for (int i = key->nexport > 0 ? key->nexport : 0; i < RUN_MAX_EXPORT; ++i) {
        key->export_steps[i] = 0;
    }
}

int study_same_run(const run_config* a, const run_config* b) {
    run_config ka, kb;
    cache_key(a, &ka);
    cache_key(b, &kb);
    return memcmp(&ka, &kb, sizeof ka) == 0;
}

static size_t record_rows(const run_record* r) {
    return (size_t)(r->nplanned > 0 ? r->nplanned : 0) + 1;
}

static size_t record_bytes(const run_record* r) {
    const size_t rows = record_rows(r);
    return rows * (sizeof(double) * (size_t)(r->nq + r->nv + r->nobs + 1) + 2 * sizeof(int));
}

static void* dup_array(const void* src, size_t n) {
    if (src == NULL) {
        return NULL;
    }
    void* d = malloc(n > 0 ? n : 1);
    if (d != NULL) {
        memcpy(d, src, n);
    }
    return d;
}

/* Deep copy of a record; 0, or -1 (dst freed) when out of memory. */
static int record_copy(const run_record* src, run_record* dst) {
    *dst = *src;
    const size_t rows = record_rows(src), dsz = sizeof(double);
    dst->q = dup_array(src->q, rows * (size_t)(src->nq > 0 ? src->nq : 1) * dsz);
    dst->v = dup_array(src->v, rows * (size_t)(src->nv > 0 ? src->nv : 1) * dsz);
    dst->obs = dup_array(src->obs, rows * (size_t)(src->nobs > 0 ? src->nobs : 1) * dsz);
    dst->iters = dup_array(src->iters, rows * sizeof(int));
    dst->ls = dup_array(src->ls, rows * sizeof(int));
    dst->kappa = dup_array(src->kappa, rows * dsz);
    if ((src->q && !dst->q) || (src->v && !dst->v) || (src->obs && !dst->obs) ||
        (src->iters && !dst->iters) || (src->ls && !dst->ls) || (src->kappa && !dst->kappa)) {
        run_record_free(dst);
        return -1;
    }
    return 0;
}

static const cache_entry* cache_find(const struct run_cache* c, const run_config* cfg) {
    if (c == NULL) {
        return NULL;
    }
    run_config key;
    cache_key(cfg, &key);
    for (int i = 0; i < c->n; ++i) {
        /* files can be copied only from a run that wrote them */
        if (memcmp(&c->e[i].key, &key, sizeof key) == 0 &&
            (cfg->out_dir[0] == '\0' || c->e[i].rec.cfg.out_dir[0] != '\0')) {
            return &c->e[i];
        }
    }
    return NULL;
}

static void cache_add(study_ctx* ctx, const run_config* cfg, const run_record* rec) {
    if (ctx->cache == NULL) {
        ctx->cache = calloc(1, sizeof *ctx->cache);
        if (ctx->cache == NULL) {
            return;
        }
    }
    struct run_cache* c = ctx->cache;
    const size_t bytes = record_bytes(rec);
    if (c->bytes + bytes > RUN_CACHE_BUDGET || cache_find(c, cfg) != NULL) {
        return;
    }
    if (c->n == c->cap) {
        const int cap = c->cap ? 2 * c->cap : 16;
        cache_entry* e = realloc(c->e, (size_t)cap * sizeof *e);
        if (e == NULL) {
            return;
        }
        c->e = e;
        c->cap = cap;
    }
    cache_entry* e = &c->e[c->n];
    cache_key(cfg, &e->key);
    if (record_copy(rec, &e->rec) != 0) {
        return;
    }
    c->n++;
    c->bytes += bytes;
}

static void cache_free(struct run_cache* c) {
    if (c == NULL) {
        return;
    }
    for (int i = 0; i < c->n; ++i) {
        run_record_free(&c->e[i].rec);
    }
    free(c->e);
    free(c);
}

/* Copies the regular file src (not a symbolic link) to dst atomically (temporary file +
 * rename). 0, or -1 with a message. */
static int copy_file(const char* src, const char* dst, char* msg, size_t n) {
    const int fd = run_file_open_regular(src, msg, n); /* a link is not followed */
    FILE* in = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (in == NULL) {
        if (fd >= 0) {
            snprintf(msg, n, "cannot read '%s': %s", src, strerror(errno));
            close(fd);
        }
        return -1;
    }
    ccb_writer* w = NULL;
    if (ccb_writer_open(dst, &w, msg, n) != CCB_OK) {
        fclose(in);
        return -1;
    }
    char buf[1 << 16];
    size_t got;
    int ok = 1;
    while (ok && (got = fread(buf, 1, sizeof buf, in)) > 0) {
        ok = ccb_writer_write(w, buf, got) == CCB_OK; /* binary files too (FCLIB) */
    }
    ok = ok && !ferror(in);
    fclose(in);
    if (!ok) {
        ccb_writer_abort(w);
        snprintf(msg, n, "cannot copy '%s' to '%s'", src, dst);
        return -1;
    }
    return ccb_writer_commit(w, msg, n) == CCB_OK ? 0 : -1;
}

/* The FCLIB files a run exported into its directory (run_config.export_steps without a file of
 * its own), copied from the directory `from` to cfg's. 0, or 2 with a message. */
static int copy_exports(const char* from, const run_config* cfg, char* msg, size_t n) {
    if (cfg->export_fclib != NULL) {
        return 0;
    }
    run_config src = *cfg;
    snprintf(src.out_dir, sizeof src.out_dir, "%s", from);
    for (int i = 0; i < cfg->nexport; ++i) {
        char a[PATH_MAX + 64], b[PATH_MAX + 64];
        run_export_path(&src, cfg->export_steps[i], a, sizeof a);
        run_export_path(cfg, cfg->export_steps[i], b, sizeof b);
        if (copy_file(a, b, msg, n) != 0) {
            return 2;
        }
    }
    return 0;
}

/* cJSON prints a number with 15 digits when that reads back within DBL_EPSILON, i.e. possibly one
 * unit in the last place off: the numbers of a parsed meta.json go back as raw text that reads
 * back exactly (as ccb_meta_set_number writes them). */
static void exact_numbers(cJSON* o) {
    for (cJSON* c = o ? o->child : NULL; c != NULL; c = c->next) {
        if (!cJSON_IsNumber(c)) {
            exact_numbers(c);
            continue;
        }
        char buf[40];
        for (int digits = 15; digits <= 17; ++digits) {
            snprintf(buf, sizeof buf, "%.*g", digits, c->valuedouble);
            if (strtod(buf, NULL) == c->valuedouble) {
                break;
            }
        }
        cJSON* r = cJSON_CreateRaw(buf);
        char* key = c->string ? malloc(strlen(c->string) + 1) : NULL;
        if (r == NULL || (c->string && key == NULL)) {
            cJSON_Delete(r);
            free(key);
            continue; /* out of memory: this number keeps cJSON's text */
        }
        if (key) {
            strcpy(key, c->string);
        }
        r->string = key;
        cJSON_ReplaceItemViaPointer(o, c, r);
        c = r;
    }
}

/* Writes the cached run's meta.json as `dst` with the label of cfg and "reused_from": the cached
 * run's directory relative to the results root. 0, or -1 with a message. */
static int copy_meta(const study_ctx* ctx, const char* src, const char* dst, const run_config* cfg,
                     const run_config* from, char* msg, size_t n) {
    FILE* in = fopen(src, "rb");
    char* text = NULL;
    size_t len = 0;
    if (in != NULL) {
        FILE* mem = open_memstream(&text, &len);
        char buf[1 << 14];
        size_t got;
        while (mem && (got = fread(buf, 1, sizeof buf, in)) > 0) {
            fwrite(buf, 1, got, mem);
        }
        if (mem) {
            fclose(mem);
        }
        fclose(in);
    }
    cJSON* root = text ? cJSON_Parse(text) : NULL;
    free(text);
    const size_t root_len = strlen(ctx->out_root);
    const char* rel =
        strncmp(from->out_dir, ctx->out_root, root_len) == 0 && from->out_dir[root_len] == '/'
            ? from->out_dir + root_len + 1
            : from->out_dir;
    char* out = NULL;
    if (root != NULL) {
        cJSON_DeleteItemFromObjectCaseSensitive(root, "label");
        cJSON_DeleteItemFromObjectCaseSensitive(root, "reused_from");
        cJSON_AddStringToObject(root, "label", cfg->label);
        cJSON_AddStringToObject(root, "reused_from", rel);
        exact_numbers(root);
        out = cJSON_Print(root);
        cJSON_Delete(root);
    }
    if (out == NULL) {
        snprintf(msg, n, "cannot read or rewrite '%s'", src);
        return -1;
    }
    strbuf b = {0};
    strbuf_printf(&b, "%s\n", out);
    int rc = -1;
    if (b.failed || b.s == NULL) {
        snprintf(msg, n, "out of memory");
    } else {
        rc = write_file(dst, b.s, b.n, msg, n);
    }
    free(b.s);
    free(out);
    return rc;
}

/* Serves run i from the cache entry: its record and, if the run writes files, copies of the
 * cached run's files. 0, or 2 with a message. */
static int cache_serve(const study_ctx* ctx, const cache_entry* e, const run_config* cfg,
                       run_record* rec, char* msg, size_t n) {
    if (record_copy(&e->rec, rec) != 0) {
        snprintf(msg, n, "out of memory");
        return 2;
    }
    rec->cfg = *cfg;
    if (cfg->out_dir[0] == '\0' || strcmp(cfg->out_dir, e->rec.cfg.out_dir) == 0) {
        return 0;
    }
    if (mkdir_p(cfg->out_dir, msg, n) != 0) {
        return 2;
    }
    static const char* const k_files[] = {"trajectory.csv", "steps.csv", "times.csv", "meta.json"};
    char old_meta[PATH_MAX + 32]; /* meta.json marks a complete set (run.c): it goes first */
    snprintf(old_meta, sizeof old_meta, "%s/meta.json", cfg->out_dir);
    if (unlink(old_meta) != 0 && errno != ENOENT) {
        snprintf(msg, n, "cannot replace '%s': %s", old_meta, strerror(errno));
        return 2;
    }
    if (copy_exports(e->rec.cfg.out_dir, cfg, msg, n) != 0) {
        return 2;
    }
    for (int f = 0; f < 4; ++f) {
        char from[PATH_MAX + 32], to[PATH_MAX + 32];
        snprintf(from, sizeof from, "%s/%s", e->rec.cfg.out_dir, k_files[f]);
        snprintf(to, sizeof to, "%s/%s", cfg->out_dir, k_files[f]);
        const int rc = f < 3 ? copy_file(from, to, msg, n)
                             : copy_meta(ctx, from, to, cfg, &e->rec.cfg, msg, n);
        if (rc != 0) {
            return 2;
        }
    }
    return 0;
}

void study_ctx_free(study_ctx* ctx) {
    cache_free(ctx->cache);
    ctx->cache = NULL;
    if (ctx->std_sweep && ctx->std_sweep_free) {
        ctx->std_sweep_free(ctx->std_sweep);
    }
    ctx->std_sweep = NULL;
    study_out_free(ctx->out);
    ctx->out = NULL;
}

int study_file_every(const study_ctx* ctx, double steps, int rows) {
    if (ctx->cs->file_rows > 0 && ctx->cs->file_rows < rows) {
        rows = ctx->cs->file_rows;
    }
    return steps > rows ? (int)(steps / rows) : 1;
}

void study_config(study_ctx* ctx, run_config* cfg, const char* study, const char* label,
                  const ccb_approx* approx, double dt, double t_final) {
    run_config_default(ctx->cs, cfg);
    memcpy(cfg->params, ctx->params, sizeof cfg->params);
    memcpy(&cfg->sim, &ctx->sim, sizeof cfg->sim);
    cfg->perturb = ctx->perturb;
    cfg->sim.approx = approx;
    cfg->sim.dt = dt;
    cfg->t_final = t_final;
    cfg->record_every = study_file_every(ctx, dt > 0 ? t_final / dt : 0, STUDY_FILE_ROWS);
    snprintf(cfg->label, sizeof cfg->label, "%s", label);
    if (study) {
        snprintf(cfg->out_dir, sizeof cfg->out_dir, "%s/%s/%s/%s", ctx->out_root, ctx->cs->name,
                 study, label);
    }
}

typedef struct job_queue {
    study_ctx* ctx;
    const char* study;
    run_config* cfgs;
    run_record* recs;
    const int* order; /* execution order: costliest first */
    int n, next, done, error;
    char msg[sizeof(((run_config*)0)->label) + 2 * PATH_MAX + 520]; /* label + ": " + message */
    pthread_mutex_t lock;
} job_queue;

static void progress(job_queue* q) {
    if (!q->ctx->progress) {
        return;
    }
    const int width = 30, filled = q->n ? width * q->done / q->n : width;
    fprintf(stderr, "\r[%s/%s] [", q->ctx->cs->name, q->study);
    for (int i = 0; i < width; ++i) {
        fputc(i < filled ? '#' : ' ', stderr);
    }
    fprintf(stderr, "] %d/%d runs", q->done, q->n);
    if (q->done == q->n) {
        fputc('\n', stderr);
    }
    fflush(stderr);
}

/* `--from`: the run read from <from_root>/<rel>, its files copied to its own directory when that
 * is another one (the study's figures read them there). */
static int load_run(const study_ctx* ctx, const char* study, const run_config* cfg, run_record* rec,
                    char* msg, size_t n) {
    char rel[PATH_MAX], dir[PATH_MAX + CASE_MAX_ROOT + 2];
    if (study_run_rel(ctx, study, cfg, rel, sizeof rel) != 0) {
        snprintf(msg, n, "the run's directory '%s' is not below '%s'", cfg->out_dir, ctx->out_root);
        return 2;
    }
    snprintf(dir, sizeof dir, "%s/%s", ctx->from_root, rel);
    if (run_load(cfg, dir, rec, msg, n) != 0) {
        return 2;
    }
    if (cfg->out_dir[0] == '\0' || strcmp(cfg->out_dir, dir) == 0) {
        return 0;
    }
    if (mkdir_p(cfg->out_dir, msg, n) != 0) {
        return 2;
    }
    static const char* const k_files[] = {"trajectory.csv", "steps.csv", "times.csv", "meta.json"};
    for (int f = 0; f < 4; ++f) {
        char from[PATH_MAX + CASE_MAX_ROOT + 32], to[PATH_MAX + 32];
        snprintf(from, sizeof from, "%s/%s", dir, k_files[f]);
        snprintf(to, sizeof to, "%s/%s", cfg->out_dir, k_files[f]);
        if (copy_file(from, to, msg, n) != 0) {
            return 2;
        }
    }
    return copy_exports(dir, cfg, msg, n);
}

static void* worker(void* arg) {
    job_queue* q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        const int slot = q->error ? q->n : q->next++;
        pthread_mutex_unlock(&q->lock);
        if (slot >= q->n) {
            return NULL;
        }
        const int i = q->order[slot];
        char msg[2 * PATH_MAX + 512] = "";
        const int rc = q->ctx->from_root[0]
                           ? load_run(q->ctx, q->study, &q->cfgs[i], &q->recs[i], msg, sizeof msg)
                           : run_execute(&q->cfgs[i], &q->recs[i], msg, sizeof msg);
        if (rc == 0 && q->cfgs[i].out_dir[0]) {
            inventory_note_run(q->cfgs[i].out_dir); /* the study's outputs (inventory.c) */
        }
        pthread_mutex_lock(&q->lock);
        if (rc != 0 && !q->error) {
            q->error = rc;
            snprintf(q->msg, sizeof q->msg, "%s: %s", q->cfgs[i].label, msg);
        }
        q->done++;
        progress(q);
        pthread_mutex_unlock(&q->lock);
    }
}

int study_execute(study_ctx* ctx, const char* study, run_config* cfgs, run_record* recs, int n) {
    job_queue q;
    memset(&q, 0, sizeof q);
    q.ctx = ctx;
    q.study = study;
    q.cfgs = cfgs;
    q.recs = recs;
    q.n = n;
    int* order = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (order == NULL) {
        return study_fail(ctx->out, CCB_E_NOMEM, "%s/%s: out of memory", ctx->cs->name, study);
    }
    memset(recs, 0, (size_t)n * sizeof *recs);
    ctx->batch++;
    if (ctx->emit) { /* --emit-manifest: the runs are written down, not run */
        free(order);
        for (int i = 0; i < n; ++i) {
            char rel[PATH_MAX];
            if (study_run_rel(ctx, study, &cfgs[i], rel, sizeof rel) != 0) {
                return study_fail(ctx->out, CCB_E_INTERNAL,
                                  "%s: the run's directory '%s' is not below '%s'", cfgs[i].label,
                                  cfgs[i].out_dir, ctx->out_root);
            }
            const int rc = ctx->emit(ctx->emit_user, ctx, study, &cfgs[i], rel);
            if (rc != 0) {
                return rc;
            }
            char msg[512];
            if (run_dry(&cfgs[i], &recs[i], msg, sizeof msg) != 0) {
                return study_fail(ctx->out, CCB_E_INVALID, "%s: %s", cfgs[i].label, msg);
            }
        }
        return 0;
    }
    /* runs already executed for this case are copied, the others queued */
    int nq = 0;
    char* served = calloc((size_t)(n > 0 ? n : 1), 1);
    if (served == NULL) {
        free(order);
        return study_fail(ctx->out, CCB_E_NOMEM, "%s/%s: out of memory", ctx->cs->name, study);
    }
    for (int i = 0; i < n; ++i) {
        const cache_entry* e = cache_find(ctx->cache, &cfgs[i]);
        if (e == NULL) {
            continue;
        }
        char msg[2 * PATH_MAX + 256];
        if (cache_serve(ctx, e, &cfgs[i], &recs[i], msg, sizeof msg) != 0) {
            free(served);
            free(order);
            return study_fail(ctx->out, CCB_E_IO, "%s: %s", cfgs[i].label, msg);
        }
        served[i] = 1;
        ctx->reused++;
    }
    for (int i = 0; i < n; ++i) { /* stable insertion sort by decreasing cost */
        if (served[i]) {
            continue;
        }
        int j = nq++;
        while (j > 0 && cfgs[order[j - 1]].cost < cfgs[i].cost) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = i;
    }
    q.n = nq;
    q.order = order;
    pthread_mutex_init(&q.lock, NULL);
    int nt = ctx->jobs < 1 ? 1 : ctx->jobs;
    if (nt > nq) {
        nt = nq;
    }
    pthread_t th[64];
    if (nt > 64) {
        nt = 64;
    }
    int started = 0;
    for (int i = 0; i < nt; ++i) {
        if (pthread_create(&th[i], NULL, worker, &q) == 0) {
            started++;
        }
    }
    if (started == 0) {
        worker(&q);
    }
    for (int i = 0; i < started; ++i) {
        pthread_join(th[i], NULL);
    }
    pthread_mutex_destroy(&q.lock);
    free(order);
    if (q.error) {
        free(served);
        return study_fail(ctx->out, q.error, "%s", q.msg);
    }
    for (int i = 0; i < n; ++i) { /* in index order: the cache is the same whatever --jobs */
        if (!served[i]) {
            cache_add(ctx, &cfgs[i], &recs[i]);
        }
    }
    free(served);
    for (int i = 0; i < n; ++i) {
        if (recs[i].status != CCB_OK && cfgs[i].expect_failure) {
            study_log("%s/%s/%s: solver failure at step %ld, not a suite failure (%s): %s",
                      ctx->cs->name, study, cfgs[i].label, recs[i].fail_step,
                      cfgs[i].expect_failure, recs[i].msg);
        } else if (recs[i].status != CCB_OK) {
            ctx->failures++;
            study_log("%s/%s/%s: solver failure at step %ld: %s", ctx->cs->name, study,
                      cfgs[i].label, recs[i].fail_step, recs[i].msg);
        }
    }
    return 0;
}

typedef struct pfor {
    void (*fn)(void*, int);
    void* user;
    int n, next;
    pthread_mutex_t lock;
} pfor;

static void* pfor_worker(void* arg) {
    pfor* p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        const int i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n) {
            return NULL;
        }
        p->fn(p->user, i);
    }
}

void study_parallel_for(study_ctx* ctx, int n, void (*fn)(void* user, int i), void* user) {
    pfor p = {fn, user, n, 0, PTHREAD_MUTEX_INITIALIZER};
    int nt = ctx->jobs < 1 ? 1 : (ctx->jobs > 64 ? 64 : ctx->jobs);
    if (nt > n) {
        nt = n;
    }
    pthread_t th[64];
    int started = 0;
    for (int i = 0; i < nt; ++i) {
        started += pthread_create(&th[i], NULL, pfor_worker, &p) == 0;
    }
    if (started == 0) {
        pfor_worker(&p);
    }
    for (int i = 0; i < started; ++i) {
        pthread_join(th[i], NULL);
    }
    pthread_mutex_destroy(&p.lock);
}

/* A value or an empty CSV field. */
static void csv_num(strbuf* b, const char* fmt, double v) {
    if (isfinite(v)) {
        strbuf_printf(b, fmt, v);
    }
}

void run_work_columns(strbuf* b, const run_record* r) {
    for (int k = 0; k < 5; ++k) {
        csv_num(b, "%.6e", r->phys_max[k]);
        strbuf_printf(b, ",");
    }
    ccb_an_steps st;
    ccb_an_step_stats(r->nsteps, r->iters, r->ls, r->kappa, &st);
    strbuf_printf(b, "%.4f,%d,", run_mean_iterations(r), r->max_iters);
    csv_num(b, "%.4f", st.ls_mean);
    strbuf_printf(b, ",");
    csv_num(b, "%.0f", st.ls_max);
    strbuf_printf(b, ",%ld,", r->factorizations);
    csv_num(b, "%.0f", r->work.n_f > 0 ? (double)r->work.n_f : NAN);
    strbuf_printf(b, ",");
    csv_num(b, "%.6e", st.kappa_mean);
    strbuf_printf(b, ",");
    csv_num(b, "%.6e", st.kappa_max);
    strbuf_printf(b, ",%d,%.6g", r->status == CCB_OK ? 0 : 1, r->wall_time);
}

void run_overrides(strbuf* b, const study_ctx* ctx, const run_record* r) {
    int first = 1;
    for (int i = 0; i < ctx->cs->nparams; ++i) {
        if (r->cfg.params[i] != ctx->params[i]) {
            strbuf_printf(b, "%s%s=%.12g", first ? "" : ";", ctx->cs->params[i].name,
                          r->cfg.params[i]);
            first = 0;
        }
    }
}
