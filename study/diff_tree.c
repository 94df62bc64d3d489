/* diff_tree: the file lists of two result trees, what a baseline is and how one is saved, and
 * the binding of a sensitivity run's spreads to the results they were measured beside (study/diff.c
 * has the design). */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "diff_internal.h"

/* ---- the trees ------------------------------------------------------------------------------ */

static file_list* g_walk; /* nftw has no user pointer */

int is_run_file(const char* base) {
    return strcmp(base, "trajectory.csv") == 0 || strcmp(base, "steps.csv") == 0 ||
           strcmp(base, "physics.csv") == 0;
}

/* The CSV files of a tree, relative to its root: every table but the wall times (times.csv) and a
 * diff report (diff/); for a diff also without the spreads (sensitivity/, sensitivity.csv), for
 * a baseline without the run files unless trajectories are asked for. */
static int walk_one(const char* path, const struct stat* st, int type, struct FTW* ftw) {
    (void)st;
    file_list* l = g_walk;
    const char* rel = path + l->root_len;
    while (*rel == '/') {
        ++rel;
    }
    const char* base = path + ftw->base;
    const size_t n = strlen(base);
    if (type != FTW_F || strncmp(rel, "diff/", 5) == 0 || n < 4 ||
        strcmp(base + n - 4, ".csv") != 0 || strcmp(base, "times.csv") == 0 || base[0] == '.') {
        return 0;
    }
    if (l->baseline
            ? is_run_file(base) && !l->trajectories
            : strncmp(rel, "sensitivity/", 12) == 0 || strcmp(base, "sensitivity.csv") == 0) {
        return 0;
    }
    if (l->n == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 512;
        char** r = realloc(l->rel, (size_t)cap * sizeof *r);
        if (r == NULL) {
            l->failed = 1;
            return 1;
        }
        l->rel = r;
        l->cap = cap;
    }
    if ((l->rel[l->n] = strdup(rel)) == NULL) {
        l->failed = 1;
        return 1;
    }
    l->n++;
    return 0;
}

static int cmp_str(const void* x, const void* y) {
    return strcmp(*(char* const*)x, *(char* const*)y);
}

int file_list_read(const char* root, file_list* l, char* msg, size_t n) {
    memset(l, 0, sizeof *l);
    struct stat st;
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(msg, n, "%s: not a directory of results", root);
        return -1;
    }
    l->root_len = strlen(root);
    g_walk = l;
    const int rc = nftw(root, walk_one, 32, FTW_PHYS);
    g_walk = NULL;
    if (rc != 0 || l->failed) {
        snprintf(msg, n, "%s: %s", root, l->failed ? "out of memory" : "cannot list the tree");
        return -1;
    }
    if (l->n > 0) {
        qsort(l->rel, (size_t)l->n, sizeof *l->rel, cmp_str);
    }
    return 0;
}

void file_list_free(file_list* l) {
    for (int i = 0; i < l->n; ++i) {
        free(l->rel[i]);
    }
    free(l->rel);
}

/* ---- what a baseline is -------------------------------------------------------------------- */

static void baseline_info_free(baseline_info* b) {
    for (int i = 0; i < b->ninv; ++i) {
        free(b->inv[i]);
    }
    free(b->inv);
    memset(b, 0, sizeof *b);
}

static int baseline_read(const char* root, baseline_info* b, char* msg, size_t n) {
    memset(b, 0, sizeof *b);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/baseline.json", root);
    char* text = read_regular_text(path, 64 << 20, 1, msg, n);
    if (text == NULL) {
        return -1;
    }
    const size_t len = strlen(text);
    /* strict: one object and nothing after it but white space (the terminator included in the
     * length, as cJSON's check for it reads it; a NUL inside the file is refused) */
    const char* end = NULL;
    cJSON* j = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (j != NULL && end != text + len) {
        cJSON_Delete(j);
        j = NULL;
    }
    free(text);
    const cJSON* v = j ? cJSON_GetObjectItemCaseSensitive(j, "format_version") : NULL;
    const cJSON* t = j ? cJSON_GetObjectItemCaseSensitive(j, "trajectories") : NULL;
    const cJSON* f = j ? cJSON_GetObjectItemCaseSensitive(j, "files") : NULL;
    const cJSON* c = j ? cJSON_GetObjectItemCaseSensitive(j, "ccb") : NULL;
    const cJSON* inv = j ? cJSON_GetObjectItemCaseSensitive(j, "inventory") : NULL;
    int ok = cJSON_IsObject(j) && cJSON_IsNumber(v) && (v->valueint == 1 || v->valueint == 2) &&
             cJSON_IsBool(t) && cJSON_IsNumber(f) && f->valuedouble >= 0 && f->valuedouble < 1e9 &&
             cJSON_IsString(c) &&
             (v->valueint == 1 || (cJSON_IsArray(inv) && cJSON_GetArraySize(inv) == f->valueint));
    if (ok) {
        b->version = v->valueint;
        b->trajectories = cJSON_IsTrue(t);
        b->files = f->valueint;
    }
    if (ok && b->version == 2 && b->files > 0) {
        b->inv = calloc((size_t)b->files, sizeof *b->inv);
        ok = b->inv != NULL;
        const cJSON* e;
        cJSON_ArrayForEach(e, inv) {
            if (!ok || !cJSON_IsString(e) || (b->inv[b->ninv] = strdup(e->valuestring)) == NULL) {
                ok = 0;
                break;
            }
            b->ninv++;
        }
        if (ok) {
            qsort(b->inv, (size_t)b->ninv, sizeof *b->inv, cmp_str);
        }
    }
    cJSON_Delete(j);
    if (!ok) {
        baseline_info_free(b);
        snprintf(msg, n, "%s is not the marker of a baseline saved by ccb", path);
        return -1;
    }
    return 0;
}

/* 1 if root/baseline.json says the run files were left out. */
int baseline_without_runs(const char* root) {
    baseline_info b;
    char msg[PATH_MAX + 100];
    if (baseline_read(root, &b, msg, sizeof msg) != 0) {
        return 0;
    }
    const int without = !b.trajectories;
    baseline_info_free(&b);
    return without;
}

/* The tree of an existing baseline, walked: every entry must be a directory, its marker or a
 * file of its inventory (format 2; format 1 has none: its regular files are counted). */
typedef struct baseline_walk {
    const baseline_info* b;
    size_t root_len;
    int regular;        /* regular files but the marker */
    char foreign[1024]; /* the first entry the baseline did not save */
} baseline_walk;
static baseline_walk* g_bwalk; /* nftw has no user pointer */

static int baseline_entry(const char* path, const struct stat* st, int type, struct FTW* ftw) {
    (void)ftw;
    baseline_walk* w = g_bwalk;
    const char* rel = path + w->root_len;
    while (*rel == '/') {
        ++rel;
    }
    if (type == FTW_D || type == FTW_DP) {
        return 0;
    }
    int own = type == FTW_F && S_ISREG(st->st_mode);
    if (own && strcmp(rel, "baseline.json") != 0) {
        w->regular++;
        own = w->b->version == 1 ||
              bsearch(&rel, w->b->inv, (size_t)w->b->ninv, sizeof *w->b->inv, cmp_str) != NULL;
    }
    if (!own) {
        snprintf(w->foreign, sizeof w->foreign, "%s", rel);
        return 1;
    }
    return 0;
}

/* 0 if dir does not exist or is a baseline ccb saved holding only what it saved (what
 * --save-baseline may replace), -1 with a message otherwise. */
static int baseline_replaceable(const char* dir, char* msg, size_t n) {
    struct stat st;
    if (lstat(dir, &st) != 0) {
        if (errno == ENOENT) {
            return 0;
        }
        snprintf(msg, n, "--save-baseline %s: cannot examine it: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(msg, n,
                 "--save-baseline %s: exists and is not a directory; ccb replaces only a baseline "
                 "it saved",
                 dir);
        return -1;
    }
    baseline_info b;
    char why[PATH_MAX + 100];
    if (baseline_read(dir, &b, why, sizeof why) != 0) {
        snprintf(msg, n,
                 "--save-baseline %s: exists and is not a baseline (%s); ccb replaces only a "
                 "baseline it saved",
                 dir, why);
        return -1;
    }
    baseline_walk w;
    memset(&w, 0, sizeof w);
    w.b = &b;
    w.root_len = strlen(dir);
    g_bwalk = &w;
    const int wrc = nftw(dir, baseline_entry, 32, FTW_PHYS);
    g_bwalk = NULL;
    const int count_ok = b.version == 2 || w.regular == b.files;
    baseline_info_free(&b);
    if (wrc != 0 || !count_ok) {
        if (w.foreign[0] != '\0') {
            snprintf(msg, n,
                     "--save-baseline %s: holds %s, which the baseline did not save (or not a "
                     "regular file); ccb replaces only what it created",
                     dir, w.foreign);
        } else {
            snprintf(msg, n,
                     "--save-baseline %s: holds %d file(s) where its marker lists another number; "
                     "ccb replaces only what it created",
                     dir, w.regular);
        }
        return -1;
    }
    return 0;
}

/* An absolute path for p: the part that exists resolved (symbolic links, ".", ".."), the rest
 * appended with "." and ".." folded. 0, or -1. */
int diff_abs_path(const char* p, char* out, size_t n) {
    char full[2 * PATH_MAX + 2];
    if (p[0] == '/') {
        snprintf(full, sizeof full, "%s", p);
    } else {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) == NULL) {
            return -1;
        }
        snprintf(full, sizeof full, "%s/%s", cwd, p);
    }
    /* the longest existing prefix */
    char head[sizeof full];
    snprintf(head, sizeof head, "%s", full);
    size_t cut = strlen(head);
    char res[PATH_MAX];
    for (;;) {
        if (realpath(head, res) != NULL) {
            break;
        }
        char* sl = strrchr(head, '/');
        if (sl == NULL) {
            return -1;
        }
        if (sl == head) {
            snprintf(res, sizeof res, "/");
            cut = 0;
            break;
        }
        *sl = '\0';
        cut = (size_t)(sl - head);
    }
    size_t k = strlen(res);
    if (k >= n) {
        return -1;
    }
    memcpy(out, res, k + 1);
    /* the rest, component by component */
    const char* r = full + cut;
    while (*r) {
        while (*r == '/') {
            ++r;
        }
        const char* e = strchr(r, '/');
        const size_t len = e ? (size_t)(e - r) : strlen(r);
        if (len == 0 || (len == 1 && r[0] == '.')) {
        } else if (len == 2 && r[0] == '.' && r[1] == '.') {
            char* sl = strrchr(out, '/');
            k = sl == NULL || sl == out ? 1 : (size_t)(sl - out);
            out[k] = '\0';
            if (k == 1) {
                out[0] = '/';
            }
        } else {
            if (k + len + 2 >= n) {
                return -1;
            }
            if (!(k == 1 && out[0] == '/')) {
                out[k++] = '/';
            }
            memcpy(out + k, r, len);
            k += len;
            out[k] = '\0';
        }
        r += len;
    }
    return 0;
}

/* 1 if the absolute path a is b or lies inside it */
int path_within(const char* a, const char* b) {
    const size_t lb = strlen(b);
    return strncmp(a, b, lb) == 0 && (a[lb] == '\0' || a[lb] == '/' || (lb == 1 && b[0] == '/'));
}

int suite_baseline_check(const char* root, const char* dir, const char* compare, char* msg,
                         size_t n) {
    char ar[PATH_MAX], ad[PATH_MAX], ac[PATH_MAX];
    if (diff_abs_path(root, ar, sizeof ar) != 0 ||
        (dir && diff_abs_path(dir, ad, sizeof ad) != 0) ||
        (compare && diff_abs_path(compare, ac, sizeof ac) != 0)) {
        snprintf(msg, n, "cannot resolve the paths of the results %s and the baseline %s", root,
                 dir       ? dir
                 : compare ? compare
                           : "");
        return -1;
    }
    if (compare && (path_within(ac, ar) || path_within(ar, ac))) {
        snprintf(msg, n,
                 "--baseline %s: the baseline and the results %s must not contain each other (a "
                 "tree compared with itself shows nothing)",
                 compare, root);
        return -1;
    }
    if (dir == NULL) {
        return 0;
    }
    if (path_within(ad, ar) || path_within(ar, ad)) {
        snprintf(msg, n,
                 "--save-baseline %s: the baseline and the results %s must not contain each other",
                 dir, root);
        return -1;
    }
    if (compare && strcmp(ac, ad) != 0 && (path_within(ac, ad) || path_within(ad, ac))) {
        snprintf(msg, n,
                 "--save-baseline %s: the baseline compared against (--baseline %s) must be the "
                 "same directory or lie apart",
                 dir, compare);
        return -1;
    }
    return baseline_replaceable(dir, msg, n);
}

/* Compares a and b, the file rel of the two trees, by its kind. */
/* ---- the spreads' binding -------------------------------------------------------------------- */

int suite_sensitivity_bind(const char* root, const char* cs, const char* pert_root, char* msg,
                           size_t n) {
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/%s", root, cs);
    file_list l;
    memset(&l, 0, sizeof l);
    l.root_len = strlen(root);
    g_walk = &l;
    const int wrc = nftw(dir, walk_one, 32, FTW_PHYS);
    g_walk = NULL;
    if (wrc != 0 || l.failed) {
        snprintf(msg, n, "sensitivity: cannot list %s", dir);
        file_list_free(&l);
        return -1;
    }
    if (l.n > 0) {
        qsort(l.rel, (size_t)l.n, sizeof *l.rel, cmp_str);
    }
    strbuf b = {0};
    strbuf_printf(&b, "file,fnv1a64\n");
    int rc = 0;
    for (int i = 0; rc == 0 && i < l.n; ++i) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", root, l.rel[i]);
        int ok = 0;
        const unsigned long long h = file_digest(path, &ok);
        if (!ok || strpbrk(l.rel[i], ",\"\n") != NULL) {
            continue; /* a name the CSV cannot hold: that file gets no spread */
        }
        strbuf_printf(&b, "%s,%016llx\n", l.rel[i], h);
    }
    file_list_free(&l);
    char path[PATH_MAX + 160];
    snprintf(path, sizeof path, "%s/%s.nominal.csv", pert_root, cs);
    rc = b.failed ? -1 : write_file(path, b.s, b.n, msg, n);
    if (b.failed) {
        snprintf(msg, n, "out of memory");
    }
    free(b.s);
    return rc;
}

/* ---- baselines ------------------------------------------------------------------------------ */

/* Removes a directory tree (the previous baseline). */
static int rm_one(const char* path, const struct stat* st, int type, struct FTW* ftw) {
    (void)st;
    (void)ftw;
    return (type == FTW_DP ? rmdir(path) : unlink(path)) == 0 ? 0 : 1;
}

int suite_baseline_save(const char* root, const char* dir, int trajectories, int* files,
                        long long* bytes, char* msg, size_t n) {
    *files = 0;
    *bytes = 0;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    char* slash = strrchr(parent, '/');
    if (slash == NULL) {
        snprintf(parent, sizeof parent, ".");
    } else if (slash == parent) {
        parent[1] = '\0';
    } else {
        *slash = '\0';
    }
    /* what cmd_gate checked before the runs, again: the tree may have changed since */
    /* the parent holds the lock (the baseline itself is replaced by a rename) */
    if (suite_baseline_check(root, dir, NULL, msg, n) != 0 || mkdir_p(parent, msg, n) != 0 ||
        lock_tree(parent, msg, n) != 0) {
        return -1;
    }
    file_list bl;
    memset(&bl, 0, sizeof bl);
    bl.baseline = 1;
    bl.trajectories = trajectories;
    bl.root_len = strlen(root);
    g_walk = &bl;
    const int wrc = nftw(root, walk_one, 32, FTW_PHYS);
    g_walk = NULL;
    if (wrc != 0 || bl.failed || bl.n == 0) {
        snprintf(msg, n, "--save-baseline: %s",
                 bl.failed  ? "out of memory"
                 : wrc != 0 ? "cannot list the results"
                            : "the results hold no table");
        file_list_free(&bl);
        return -1;
    }
    /* the new baseline is built beside dir and renamed into place when complete */
    char tmp[PATH_MAX + 32], old[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.new-%ld", dir, (long)getpid());
    snprintf(old, sizeof old, "%s.old-%ld", dir, (long)getpid());
    int rc = 0;
    for (int i = 0; rc == 0 && i < bl.n; ++i) {
        char src[PATH_MAX + 320], dst[PATH_MAX + 360];
        snprintf(src, sizeof src, "%s/%s", root, bl.rel[i]);
        snprintf(dst, sizeof dst, "%s/%s", tmp, bl.rel[i]);
        char* d = strrchr(dst, '/');
        *d = '\0';
        if (mkdir_p(dst, msg, n) != 0) {
            rc = -1;
            break;
        }
        *d = '/';
        char* buf = read_regular_text(src, (size_t)LONG_MAX, 0, msg, n);
        const size_t len = buf ? strlen(buf) : 0;
        if (buf == NULL || write_file(dst, buf, len, msg, n) != 0) {
            rc = -1;
        } else {
            *files += 1;
            *bytes += (long long)len;
        }
        free(buf);
    }
    if (rc == 0) { /* the marker: format 2 lists every file it saved (baseline_replaceable) */
        char meta[PATH_MAX + 48];
        snprintf(meta, sizeof meta, "%s/baseline.json", tmp);
        cJSON* j = cJSON_CreateObject();
        cJSON* inv = cJSON_CreateArray();
        int ok = j != NULL && inv != NULL && cJSON_AddNumberToObject(j, "format_version", 2) &&
                 cJSON_AddStringToObject(j, "ccb", ccb_version()) &&
                 cJSON_AddStringToObject(j, "revision", ccb_revision()) &&
                 cJSON_AddNumberToObject(j, "files", *files) &&
                 cJSON_AddBoolToObject(j, "trajectories", trajectories);
        for (int i = 0; ok && i < bl.n; ++i) {
            cJSON* e = cJSON_CreateString(bl.rel[i]);
            ok = e != NULL && cJSON_AddItemToArray(inv, e);
        }
        if (ok) {
            cJSON_AddItemToObject(j, "inventory", inv);
            inv = NULL;
        }
        char* text = ok ? cJSON_Print(j) : NULL;
        cJSON_Delete(inv);
        cJSON_Delete(j);
        if (text == NULL) {
            snprintf(msg, n, "--save-baseline: out of memory");
            rc = -1;
        } else {
            const size_t len = strlen(text);
            char* t2 = malloc(len + 2);
            if (t2 == NULL) {
                snprintf(msg, n, "--save-baseline: out of memory");
                rc = -1;
            } else {
                memcpy(t2, text, len);
                t2[len] = '\n';
                rc = write_file(meta, t2, len + 1, msg, n);
                free(t2);
            }
            cJSON_free(text);
        }
    }
    file_list_free(&bl);
    struct stat st;
    const int had = rc == 0 && stat(dir, &st) == 0;
    if (rc == 0 && had && rename(dir, old) != 0) {
        snprintf(msg, n, "--save-baseline: cannot move the old %s aside: %s", dir, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, dir) != 0) {
        snprintf(msg, n, "--save-baseline: cannot rename %s to %s: %s", tmp, dir, strerror(errno));
        if (had) {
            rename(old, dir);
        }
        rc = -1;
    }
    if (rc == 0 && had) {
        nftw(old, rm_one, 32, FTW_DEPTH | FTW_PHYS);
    }
    if (rc != 0) {
        nftw(tmp, rm_one, 32, FTW_DEPTH | FTW_PHYS); /* nothing half-written is left */
    }
    return rc;
}
