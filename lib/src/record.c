/* record: atomic result files (temporary file + fsync + rename), CSV rows, JSON metadata. */
#define _POSIX_C_SOURCE 200809L
#include "ccb/record.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccb/alloc.h"
#include "internal.h"

struct ccb_writer {
    FILE* f;
    char* path;
    char* tmp;
    int failed; /* a write failed: commit will refuse */
};

static char* dup_str(const char* s) {
    const size_t n = strlen(s) + 1;
    char* d = ccb_alloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

ccb_status ccb_writer_open(const char* path, ccb_writer** out, char* msg, size_t msgn) {
    if (out == NULL || path == NULL || path[0] == '\0') {
        return ccb_errorf(msg, msgn, CCB_E_INVALID, "writer_open: empty path");
    }
    *out = NULL;
    ccb_writer* w = ccb_calloc(1, sizeof(ccb_writer));
    const size_t n = strlen(path);
    char* tmp = ccb_alloc(n + 16);
    char* p = dup_str(path);
    if (w == NULL || tmp == NULL || p == NULL) {
        ccb_free(w), ccb_free(tmp), ccb_free(p);
        return ccb_errorf(msg, msgn, CCB_E_NOMEM, "writer_open: out of memory");
    }
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    const int fd = mkstemp(tmp);
    if (fd < 0) {
        const int e = errno;
        ccb_free(w), ccb_free(tmp), ccb_free(p);
        return ccb_errorf(msg, msgn, CCB_E_IO, "cannot create '%s': %s", path, strerror(e));
    }
    w->f = fdopen(fd, "w");
    if (w->f == NULL) {
        const int e = errno;
        close(fd);
        unlink(tmp);
        ccb_free(w), ccb_free(tmp), ccb_free(p);
        return ccb_errorf(msg, msgn, CCB_E_IO, "cannot open '%s': %s", path, strerror(e));
    }
    w->tmp = tmp;
    w->path = p;
    *out = w;
    return CCB_OK;
}

static void writer_free(ccb_writer* w) {
    ccb_free(w->tmp);
    ccb_free(w->path);
    ccb_free(w);
}

void ccb_writer_abort(ccb_writer* w) {
    if (w == NULL) {
        return;
    }
    if (w->f) {
        fclose(w->f);
    }
    unlink(w->tmp);
    writer_free(w);
}

ccb_status ccb_writer_printf(ccb_writer* w, const char* fmt, ...) {
    if (w == NULL || w->f == NULL) {
        return CCB_E_INVALID;
    }
    va_list ap;
    va_start(ap, fmt);
    const int r = vfprintf(w->f, fmt, ap);
    va_end(ap);
    if (r < 0) {
        w->failed = 1;
        return CCB_E_IO;
    }
    return CCB_OK;
}

ccb_status ccb_writer_commit(ccb_writer* w, char* msg, size_t msgn) {
    if (w == NULL) {
        return ccb_errorf(msg, msgn, CCB_E_INVALID, "writer_commit: NULL writer");
    }
    int ok = !w->failed && fflush(w->f) == 0 && fsync(fileno(w->f)) == 0;
    int e = errno;
    if (fclose(w->f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    w->f = NULL;
    if (ok && rename(w->tmp, w->path) != 0) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        ccb_errorf(msg, msgn, CCB_E_IO, "cannot write '%s': %s", w->path,
                   w->failed ? "a write failed" : strerror(e));
        unlink(w->tmp);
        writer_free(w);
        return CCB_E_IO;
    }
    writer_free(w);
    return CCB_OK;
}

ccb_status ccb_csv_header(ccb_writer* w, int n, const char* const* names) {
    for (int i = 0; i < n; ++i) {
        if (ccb_writer_printf(w, "%s%s", i ? "," : "", names[i]) != CCB_OK) {
            return CCB_E_IO;
        }
    }
    return ccb_writer_printf(w, "\n");
}

ccb_status ccb_csv_row(ccb_writer* w, int n, const double* x) {
    for (int i = 0; i < n; ++i) {
        if (!isfinite(x[i])) {
            w->failed = 1;
            return CCB_E_NONFINITE;
        }
    }
    for (int i = 0; i < n; ++i) {
        if (ccb_writer_printf(w, "%s%.17g", i ? "," : "", x[i]) != CCB_OK) {
            return CCB_E_IO;
        }
    }
    return ccb_writer_printf(w, "\n");
}

ccb_status ccb_steps_header(ccb_writer* w) {
    return ccb_writer_printf(
        w, "step,t [s],status,iterations,ls_evals,residual,tolerance,cost [J],contacts,kappa,"
           "alpha_min,f_evals,time_geometry [s],time_problem [s],time_solve [s]\n");
}

/* Writes v as %.17g, or nothing (an empty field: not applicable) if !have. */
static void field(char* buf, size_t n, int have, double v) {
    if (have) {
        snprintf(buf, n, "%.17g", v);
    } else {
        buf[0] = '\0';
    }
}

ccb_status ccb_steps_row(ccb_writer* w, long step, double t, const ccb_step_stats* st) {
    const ccb_newton_stats* n = &st->newton;
    const ccb_tamsi_stats* ts = &st->tamsi;
    const int newton = st->solver == CCB_SOLVER_NEWTON, tamsi = st->solver == CCB_SOLVER_TAMSI;
    const double residual = newton ? n->residual : ts->residual;
    const double tolerance = newton ? n->tolerance : ts->tolerance;
    const double alpha = newton ? n->alpha_min : ts->alpha_min;
    const double vals[] = {t,     residual,          tolerance,        n->cost,       n->kappa,
                           alpha, st->time_geometry, st->time_problem, st->time_solve};
    if (!ccb_all_finite(vals, sizeof vals / sizeof vals[0])) {
        w->failed = 1;
        return CCB_E_NONFINITE;
    }
    char f_res[32], f_tol[32], f_cost[32], f_kappa[32], f_alpha[32], f_ls[24], f_fe[24];
    field(f_res, sizeof f_res, newton || tamsi, residual);
    field(f_tol, sizeof f_tol, newton || tamsi, tolerance);
    field(f_cost, sizeof f_cost, newton, n->cost);
    field(f_kappa, sizeof f_kappa, newton, n->kappa);
    field(f_alpha, sizeof f_alpha, newton || tamsi, alpha);
    if (newton) {
        snprintf(f_ls, sizeof f_ls, "%d", n->ls_evals);
    } else {
        f_ls[0] = '\0';
    }
    if (st->solver == CCB_SOLVER_ODE) {
        snprintf(f_fe, sizeof f_fe, "%ld", st->ode.n_f);
    } else {
        f_fe[0] = '\0';
    }
    return ccb_writer_printf(w, "%ld,%.17g,%d,%d,%s,%s,%s,%s,%d,%s,%s,%s,%.9g,%.9g,%.9g\n", step, t,
                             (int)st->status, st->iterations, f_ls, f_res, f_tol, f_cost,
                             st->ncontacts, f_kappa, f_alpha, f_fe, st->time_geometry,
                             st->time_problem, st->time_solve);
}

/* ---- JSON metadata --------------------------------------------------------------------------- */

struct ccb_meta {
    cJSON* root;
};

ccb_status ccb_meta_create(ccb_meta** out) {
    if (out == NULL) {
        return CCB_E_INVALID;
    }
    ccb_meta* m = ccb_calloc(1, sizeof(ccb_meta));
    if (m == NULL) {
        return CCB_E_NOMEM;
    }
    m->root = cJSON_CreateObject();
    if (m->root == NULL) {
        ccb_free(m);
        return CCB_E_NOMEM;
    }
    *out = m;
    return CCB_OK;
}

void ccb_meta_destroy(ccb_meta* m) {
    if (m == NULL) {
        return;
    }
    cJSON_Delete(m->root);
    ccb_free(m);
}

/* Parent object of a dotted key (created as needed); *leaf points at the last component. */
static cJSON* parent_of(cJSON* root, const char* key, char* buf, size_t bufn, const char** leaf) {
    if (strlen(key) >= bufn || key[0] == '\0') {
        return NULL;
    }
    strcpy(buf, key);
    cJSON* obj = root;
    char* s = buf;
    for (char* dot = strchr(s, '.'); dot != NULL; dot = strchr(s, '.')) {
        *dot = '\0';
        cJSON* child = cJSON_GetObjectItemCaseSensitive(obj, s);
        if (child == NULL) {
            child = cJSON_AddObjectToObject(obj, s);
        } else if (!cJSON_IsObject(child)) {
            return NULL;
        }
        if (child == NULL) {
            return NULL;
        }
        obj = child;
        s = dot + 1;
    }
    *leaf = s;
    return obj;
}

static ccb_status meta_set(ccb_meta* m, const char* key, cJSON* item) {
    if (item == NULL) {
        return CCB_E_NOMEM;
    }
    char buf[256];
    const char* leaf = NULL;
    cJSON* parent = m ? parent_of(m->root, key, buf, sizeof buf, &leaf) : NULL;
    if (parent == NULL || leaf[0] == '\0') {
        cJSON_Delete(item);
        return CCB_E_INVALID;
    }
    if (cJSON_GetObjectItemCaseSensitive(parent, leaf)) {
        cJSON_ReplaceItemInObjectCaseSensitive(parent, leaf, item);
    } else {
        cJSON_AddItemToObject(parent, leaf, item);
    }
    return CCB_OK;
}

ccb_status ccb_meta_set_string(ccb_meta* m, const char* key, const char* value) {
    if (key == NULL || value == NULL) {
        return CCB_E_INVALID;
    }
    return meta_set(m, key, cJSON_CreateString(value));
}

ccb_status ccb_meta_set_number(ccb_meta* m, const char* key, double value) {
    if (key == NULL) {
        return CCB_E_INVALID;
    }
    if (!isfinite(value)) {
        return CCB_E_NONFINITE;
    }
    return meta_set(m, key, cJSON_CreateNumber(value));
}

ccb_status ccb_meta_set_bool(ccb_meta* m, const char* key, int value) {
    if (key == NULL) {
        return CCB_E_INVALID;
    }
    return meta_set(m, key, cJSON_CreateBool(value != 0));
}

ccb_status ccb_meta_write(const ccb_meta* m, const char* path, char* msg, size_t msgn) {
    if (m == NULL) {
        return ccb_errorf(msg, msgn, CCB_E_INVALID, "meta_write: NULL document");
    }
    char* text = cJSON_Print(m->root);
    if (text == NULL) {
        return ccb_errorf(msg, msgn, CCB_E_NOMEM, "meta_write: out of memory");
    }
    ccb_writer* w = NULL;
    ccb_status s = ccb_writer_open(path, &w, msg, msgn);
    if (s == CCB_OK) {
        s = ccb_writer_printf(w, "%s\n", text);
        if (s == CCB_OK) {
            s = ccb_writer_commit(w, msg, msgn);
        } else {
            ccb_writer_abort(w);
            ccb_errorf(msg, msgn, CCB_E_IO, "cannot write '%s'", path);
        }
    }
    cJSON_free(text);
    return s;
}
