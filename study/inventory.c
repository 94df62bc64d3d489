/* inventory: what a study wrote, so that a rerun into the same --out leaves nothing stale
 * (issue 44, part 1). A study's outputs are its directory OUT/CASE/STUDY/ (tables, run
 * directories) and its figures OUT/CASE/NAME.png and .svg. While a study runs, every file the
 * command line writes (write_file), every run directory it fills or reads back (--from) and every
 * figure it draws is noted; when it ends, OUT/CASE/STUDY/.ccb-results lists them:
 *
 *   ccb-results 1 study STUDY
 *   file STUDY/table.csv             (paths relative to OUT/CASE)
 *   run STUDY/lagged_dt0.01          (a run directory: its run files)
 *   file NAME.png
 *
 * A rerun that succeeds removes what the previous inventory lists and this one does not: a figure
 * not drawn this time (--no-figures; it would show the old data beside the new tables), the run
 * directory of a label the study no longer has, a table it no longer writes. Removed is only what
 * an inventory lists and no other study's inventory in OUT/CASE lists (the standard studies share
 * their run directories in OUT/CASE/standard/); only regular files (never a link, never what a
 * link points to), only names below OUT/CASE without "..", and of a run directory only the run
 * files ccb writes; a directory left empty goes. A study that fails keeps the old files and
 * lists old and new, so the next success cleans both. A directory without an inventory (made
 * before, or not by ccb) loses nothing. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

#define INV_MARKER ".ccb-results"

typedef struct inv_entry {
    char kind; /* 'f' a file, 'r' a run directory */
    char* rel; /* relative to OUT/CASE */
} inv_entry;

typedef struct inv_list {
    inv_entry* e;
    int n, cap;
    int failed;
} inv_list;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_base[PATH_MAX]; /* OUT/CASE of the study being recorded ("" : none) */
static char g_study[128];
static inv_list g_now;

static void list_free(inv_list* l) {
    for (int i = 0; i < l->n; ++i) {
        free(l->e[i].rel);
    }
    free(l->e);
    memset(l, 0, sizeof *l);
}

static int list_has(const inv_list* l, char kind, const char* rel) {
    for (int i = 0; i < l->n; ++i) {
        if (l->e[i].kind == kind && strcmp(l->e[i].rel, rel) == 0) {
            return 1;
        }
    }
    return 0;
}

static void list_add(inv_list* l, char kind, const char* rel) {
    if (list_has(l, kind, rel)) {
        return;
    }
    if (l->n == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 64;
        inv_entry* e = realloc(l->e, (size_t)cap * sizeof *e);
        if (e == NULL) {
            l->failed = 1;
            return;
        }
        l->e = e;
        l->cap = cap;
    }
    char* r = strdup(rel);
    if (r == NULL) {
        l->failed = 1;
        return;
    }
    l->e[l->n].kind = kind;
    l->e[l->n++].rel = r;
}

/* A name an inventory may hold: relative, no "." or ".." component, no control character. */
static int safe_rel(const char* rel) {
    if (rel[0] == '\0' || rel[0] == '/') {
        return 0;
    }
    for (const char* p = rel; *p; ++p) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            return 0;
        }
    }
    for (const char* c = rel; c;) {
        const char* e = strchr(c, '/');
        const size_t len = e ? (size_t)(e - c) : strlen(c);
        if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) {
            return 0;
        }
        c = e ? e + 1 : NULL;
    }
    return 1;
}

void inventory_begin(const char* out_root, const char* cs, const char* study) {
    pthread_mutex_lock(&g_lock);
    list_free(&g_now);
    snprintf(g_base, sizeof g_base, "%s/%s", out_root, cs);
    snprintf(g_study, sizeof g_study, "%s", study);
    pthread_mutex_unlock(&g_lock);
}

void inventory_begin_dir(const char* dir) {
    pthread_mutex_lock(&g_lock);
    list_free(&g_now);
    snprintf(g_base, sizeof g_base, "%s", dir);
    g_study[0] = '\0'; /* the marker is DIR/.ccb-results, the names relative to DIR */
    pthread_mutex_unlock(&g_lock);
}

static void note(char kind, const char* path) {
    pthread_mutex_lock(&g_lock);
    const size_t bl = strlen(g_base);
    if (bl > 0 && strncmp(path, g_base, bl) == 0 && path[bl] == '/' && safe_rel(path + bl + 1)) {
        list_add(&g_now, kind, path + bl + 1);
    }
    pthread_mutex_unlock(&g_lock);
}

void inventory_note_file(const char* path) {
    note('f', path);
}

void inventory_note_run(const char* dir) {
    note('r', dir);
}

/* The inventory OUT/CASE/STUDY/.ccb-results into l (empty if there is none or it is not one). */
static void read_marker(const char* path, inv_list* l) {
    char msg[PATH_MAX + 64];
    char* text = read_regular_text(path, (size_t)64 << 20, 1, msg, sizeof msg);
    if (text == NULL || strncmp(text, "ccb-results 1 study ", 20) != 0) {
        free(text);
        return;
    }
    for (char* line = strchr(text, '\n'); line != NULL;) {
        char* s = line + 1;
        line = strchr(s, '\n');
        if (line != NULL) {
            *line = '\0';
        }
        if (strncmp(s, "file ", 5) == 0 && safe_rel(s + 5)) {
            list_add(l, 'f', s + 5);
        } else if (strncmp(s, "run ", 4) == 0 && safe_rel(s + 4)) {
            list_add(l, 'r', s + 4);
        }
    }
    free(text);
}

/* Removes base/rel if it is a regular file (never a link); then its parent directories up to
 * base while they are empty. */
static void remove_file_up(const char* base, const char* rel) {
    char path[2 * PATH_MAX];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", base, rel);
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || remove(path) != 0) {
        return;
    }
    for (char* s = strrchr(path, '/'); s && (size_t)(s - path) > strlen(base);
         s = strrchr(path, '/')) {
        *s = '\0';
        if (rmdir(path) != 0) {
            break;
        }
    }
}

/* The files ccb writes in a run directory (run_execute, load_run, the FCLIB exports). */
static void remove_run(const char* base, const char* rel) {
    static const char* const k_run[] = {"trajectory.csv", "steps.csv", "physics.csv", "times.csv",
                                        "meta.json"};
    char dir[2 * PATH_MAX];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/%s", base, rel);
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        return;
    }
    for (size_t k = 0; k < sizeof k_run / sizeof k_run[0]; ++k) {
        char f[2 * PATH_MAX + 32];
        snprintf(f, sizeof f, "%s/%s", rel, k_run[k]);
        remove_file_up(base, f);
    }
}

/* What the other studies' inventories in base (OUT/CASE/<other>/.ccb-results) list: a run
 * directory several studies share (the standard studies' OUT/CASE/standard/) stays while one of
 * them lists it. */
static void read_others(const char* base, const char* study, inv_list* l) {
    DIR* d = opendir(base);
    for (struct dirent* e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, study) == 0) {
            continue;
        }
        char path[2 * PATH_MAX];
        snprintf(path, sizeof path, "%s/%s/%s", base, e->d_name, INV_MARKER);
        read_marker(path, l);
    }
    if (d) {
        closedir(d);
    }
}

int inventory_commit(int ok, char* msg, size_t n) {
    pthread_mutex_lock(&g_lock);
    int rc = 0;
    if (g_base[0] == '\0') {
        pthread_mutex_unlock(&g_lock);
        return 0;
    }
    char marker[PATH_MAX + 160];
    snprintf(marker, sizeof marker, "%s/%s%s%s", g_base, g_study, g_study[0] ? "/" : "",
             INV_MARKER);
    inv_list old = {0}, others = {0};
    read_marker(marker, &old);
    if (ok && old.n > 0 && g_study[0]) {
        read_others(g_base, g_study, &others);
    }
    if (g_now.failed || old.failed || others.failed) {
        snprintf(msg, n, "%s: out of memory for the inventory", marker);
        rc = -1;
    }
    for (int i = 0; rc == 0 && i < old.n; ++i) {
        const inv_entry* e = &old.e[i];
        if (list_has(&g_now, e->kind, e->rel) || list_has(&others, e->kind, e->rel)) {
            continue;
        }
        if (!ok) { /* a failed study removes nothing: the next success does */
            list_add(&g_now, e->kind, e->rel);
        } else if (e->kind == 'f') {
            remove_file_up(g_base, e->rel);
        } else {
            remove_run(g_base, e->rel);
        }
    }
    strbuf b = {0};
    strbuf_printf(&b, "ccb-results 1 study %s\n", g_study[0] ? g_study : ".");
    for (int i = 0; i < g_now.n; ++i) {
        strbuf_printf(&b, "%s %s\n", g_now.e[i].kind == 'f' ? "file" : "run", g_now.e[i].rel);
    }
    struct stat st;
    char dir[PATH_MAX + 130];
    snprintf(dir, sizeof dir, "%s/%s", g_base, g_study);
    const int write = rc == 0 && !b.failed && (g_now.n > 0 || old.n > 0) && stat(dir, &st) == 0 &&
                      S_ISDIR(st.st_mode);
    if (rc == 0 && b.failed) {
        snprintf(msg, n, "%s: out of memory for the inventory", marker);
        rc = -1;
    }
    list_free(&old);
    list_free(&others);
    list_free(&g_now);
    g_base[0] = '\0'; /* recording ends: the marker's own write is not noted */
    pthread_mutex_unlock(&g_lock);
    if (write) {
        rc = write_file(marker, b.s, b.n, msg, n);
    }
    free(b.s);
    return rc;
}
