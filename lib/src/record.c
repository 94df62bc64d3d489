/* record: atomic result files (temporary file + fsync + rename), CSV rows, JSON metadata. */
#define _POSIX_C_SOURCE 200809L
#include "ccb/record.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccb/alloc.h"
#include "internal.h"

struct ccb_writer {
    FILE* f;
    char* path;
    char* tmp;
    int failed; /* a write failed: commit will refuse */
    int slot;   /* its entry in the pending list, or -1 */
};

/* The temporary files of open writers, for ccb_writer_remove_pending (a signal handler): fixed
 * storage, a slot is claimed under a mutex and published by an atomic flag that the handler
 * reads. A path longer than the slot, or a writer beyond the slots, is not listed. */
#define PENDING_SLOTS 256
#define PENDING_PATH 2048
static char g_pending_path[PENDING_SLOTS][PENDING_PATH];
static int g_pending_used[PENDING_SLOTS];
static pthread_mutex_t g_pending_lock = PTHREAD_MUTEX_INITIALIZER;

static int pending_add(const char* tmp) {
    if (strlen(tmp) >= PENDING_PATH) {
        return -1;
    }
    int slot = -1;
    pthread_mutex_lock(&g_pending_lock);
    for (int i = 0; i < PENDING_SLOTS && slot < 0; ++i) {
        if (!__atomic_load_n(&g_pending_used[i], __ATOMIC_ACQUIRE)) {
            slot = i;
            memcpy(g_pending_path[i], tmp, strlen(tmp) + 1);
            __atomic_store_n(&g_pending_used[i], 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&g_pending_lock);
    return slot;
}

static void pending_remove(int slot) {
    if (slot >= 0) {
        __atomic_store_n(&g_pending_used[slot], 0, __ATOMIC_RELEASE);
    }
}

void ccb_writer_remove_pending(void) {
    for (int i = 0; i < PENDING_SLOTS; ++i) {
        if (__atomic_load_n(&g_pending_used[i], __ATOMIC_ACQUIRE)) {
            unlink(g_pending_path[i]);
        }
    }
}

/* Result files get the permissions of an ordinary created file, 0666 less the umask (mkstemp
 * creates 0600). The umask is read once: reading it means setting it. */
static mode_t g_umask;
static pthread_once_t g_umask_once = PTHREAD_ONCE_INIT;
static void read_umask(void) {
    g_umask = umask(022);
    umask(g_umask);
}

static char* dup_str(const char* s) {
    const size_t n = strlen(s) + 1;
    char* d = ccb_alloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

/* The rename at the commit replaces a directory entry, whatever it is, with the new file: a
 * device node, FIFO, socket or symbolic link there would be lost (as root, /dev/full was). */
ccb_status ccb_writer_check_target(const char* path, char* msg, size_t msgn) {
    struct stat st;
    if (lstat(path, &st) != 0) {
        return errno == ENOENT ? CCB_OK
                               : ccb_errorf(msg, msgn, CCB_E_IO, "cannot examine '%s': %s", path,
                                            strerror(errno));
    }
    if (S_ISREG(st.st_mode)) {
        return CCB_OK;
    }
    const char* what = S_ISLNK(st.st_mode)                          ? "a symbolic link"
                       : S_ISDIR(st.st_mode)                        ? "a directory"
                       : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                       : S_ISSOCK(st.st_mode)                       ? "a socket"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                    : "not a regular file";
    return ccb_errorf(msg, msgn, CCB_E_IO,
                      "'%s' is %s: ccb writes only new files or regular files it replaces", path,
                      what);
}

ccb_status ccb_writer_open(const char* path, ccb_writer** out, char* msg, size_t msgn) {
    if (out == NULL || path == NULL || path[0] == '\0') {
        return ccb_errorf(msg, msgn, CCB_E_INVALID, "writer_open: empty path");
    }
    *out = NULL;
    const ccb_status rs = ccb_writer_check_target(path, msg, msgn);
    if (rs != CCB_OK) {
        return rs;
    }
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
    pthread_once(&g_umask_once, read_umask);
    if (fchmod(fd, (mode_t)0666 & ~g_umask) != 0) {
        const int e = errno;
        close(fd);
        unlink(tmp);
        ccb_free(w), ccb_free(tmp), ccb_free(p);
        return ccb_errorf(msg, msgn, CCB_E_IO, "cannot set the mode of '%s': %s", path,
                          strerror(e));
    }
    w->slot = pending_add(tmp);
    w->f = fdopen(fd, "w");
    if (w->f == NULL) {
        const int e = errno;
        close(fd);
        unlink(tmp);
        pending_remove(w->slot);
        ccb_free(w), ccb_free(tmp), ccb_free(p);
        return ccb_errorf(msg, msgn, CCB_E_IO, "cannot open '%s': %s", path, strerror(e));
    }
    w->tmp = tmp;
    w->path = p;
    *out = w;
    return CCB_OK;
}

static void writer_free(ccb_writer* w) {
    pending_remove(w->slot);
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

ccb_status ccb_writer_write(ccb_writer* w, const void* data, size_t n) {
    if (w == NULL || w->f == NULL || (data == NULL && n > 0)) {
        return CCB_E_INVALID;
    }
    if (n > 0 && fwrite(data, 1, n, w->f) != n) {
        w->failed = 1;
        return CCB_E_IO;
    }
    return CCB_OK;
}

const char* ccb_writer_temp_path(const ccb_writer* w) {
    return w ? w->tmp : NULL;
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
    char why[512] = "";
    if (ok && ccb_writer_check_target(w->path, why, sizeof why) != CCB_OK) { /* made since */
        ok = 0;
    }
    if (ok && rename(w->tmp, w->path) != 0) {
        ok = 0;
        e = errno;
    }
    if (!ok && why[0] != '\0') {
        ccb_errorf(msg, msgn, CCB_E_IO, "%s", why);
        unlink(w->tmp);
        writer_free(w);
        return CCB_E_IO;
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

/* The counters that are results of the computation (bit-identical between identical runs); the
 * wall-time counters, from CCB_CNT_TIME_ASSEMBLE on, go to the times file. */
#define STEPS_NCOUNTERS CCB_CNT_TIME_ASSEMBLE

ccb_status ccb_steps_header(ccb_writer* w) {
    ccb_status s = ccb_writer_printf(w, "step,t [s],status");
    for (int c = 0; c < STEPS_NCOUNTERS && s == CCB_OK; ++c) {
        s = ccb_writer_printf(w, ",%s", ccb_counter_name((ccb_counter)c));
    }
    return s == CCB_OK ? ccb_writer_printf(w, ",contacts\n") : s;
}

/* A step row: the solver's counters (an empty field where a row does not apply: NAN) and the
 * contacts. Non-finite statistics fail the row. */
ccb_status ccb_steps_row(ccb_writer* w, long step, double t, const ccb_step_stats* st) {
    int finite = isfinite(t);
    for (int c = 0; c < STEPS_NCOUNTERS; ++c) {
        finite &= isnan(st->counter[c]) || isfinite(st->counter[c]);
    }
    if (!finite) {
        w->failed = 1;
        return CCB_E_NONFINITE;
    }
    ccb_status s = ccb_writer_printf(w, "%ld,%.17g,%d", step, t, (int)st->status);
    for (int c = 0; c < STEPS_NCOUNTERS && s == CCB_OK; ++c) {
        const double v = st->counter[c];
        s = isnan(v) ? ccb_writer_printf(w, ",") : ccb_writer_printf(w, ",%.17g", v);
    }
    return s == CCB_OK ? ccb_writer_printf(w, ",%d\n", st->ncontacts) : s;
}

ccb_status ccb_times_header(ccb_writer* w) {
    ccb_status s = ccb_writer_printf(w, "step,time_geometry [s],time_problem [s],time_solve [s]");
    for (int c = STEPS_NCOUNTERS; c < CCB_CNT_COUNT && s == CCB_OK; ++c) {
        s = ccb_writer_printf(w, ",%s", ccb_counter_name((ccb_counter)c));
    }
    return s == CCB_OK ? ccb_writer_printf(w, "\n") : s;
}

ccb_status ccb_times_row(ccb_writer* w, long step, const ccb_step_stats* st) {
    const double times[3] = {st->time_geometry, st->time_problem, st->time_solve};
    int finite = ccb_all_finite(times, 3);
    for (int c = STEPS_NCOUNTERS; c < CCB_CNT_COUNT; ++c) {
        finite &= isnan(st->counter[c]) || isfinite(st->counter[c]);
    }
    if (!finite) {
        w->failed = 1;
        return CCB_E_NONFINITE;
    }
    /* four significant digits: a wall time varies by more than 1e-4 between identical runs,
     * and the file is a third of a run's bytes at nine digits (issue 43) */
    ccb_status s = ccb_writer_printf(w, "%ld,%.4g,%.4g,%.4g", step, times[0], times[1], times[2]);
    for (int c = STEPS_NCOUNTERS; c < CCB_CNT_COUNT && s == CCB_OK; ++c) {
        const double v = st->counter[c];
        s = isnan(v) ? ccb_writer_printf(w, ",") : ccb_writer_printf(w, ",%.4g", v);
    }
    return s == CCB_OK ? ccb_writer_printf(w, "\n") : s;
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

/* A finite number as the shortest of %.15g, %.16g, %.17g that reads back as the same double:
 * cJSON's own printer accepts a 15-digit text within a relative DBL_EPSILON of the value, so a
 * number written by it could come back one unit in the last place off (t_final = 0.052 for
 * 0.052000000000000005); meta.json must hold every number exactly (`ccb study --from` checks a
 * run's settings bit for bit). */
static cJSON* exact_number(double value) {
    char buf[40];
    for (int digits = 15; digits <= 17; ++digits) {
        snprintf(buf, sizeof buf, "%.*g", digits, value);
        if (strtod(buf, NULL) == value) {
            break;
        }
    }
    return cJSON_CreateRaw(buf);
}

ccb_status ccb_meta_set_number(ccb_meta* m, const char* key, double value) {
    if (key == NULL) {
        return CCB_E_INVALID;
    }
    if (!isfinite(value)) {
        return CCB_E_NONFINITE;
    }
    return meta_set(m, key, exact_number(value));
}

ccb_status ccb_meta_set_bool(ccb_meta* m, const char* key, int value) {
    if (key == NULL) {
        return CCB_E_INVALID;
    }
    return meta_set(m, key, cJSON_CreateBool(value != 0));
}

typedef struct describe_ctx {
    ccb_meta* m;
    ccb_status status;
} describe_ctx;

static void describe_key(void* user, const char* key, ccb_describe_kind kind, const char* text,
                         double number) {
    describe_ctx* d = user;
    const ccb_status s = kind == CCB_DESCRIBE_TEXT   ? ccb_meta_set_string(d->m, key, text)
                         : kind == CCB_DESCRIBE_FLAG ? ccb_meta_set_bool(d->m, key, number != 0)
                                                     : ccb_meta_set_number(d->m, key, number);
    if (d->status == CCB_OK) {
        d->status = s;
    }
}

ccb_status ccb_meta_set_sim(ccb_meta* m, const ccb_sim* sim) {
    if (m == NULL || sim == NULL) {
        return CCB_E_INVALID;
    }
    describe_ctx d = {m, CCB_OK};
    ccb_sim_describe(sim, describe_key, &d);
    return d.status;
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
