/* util: what runs and studies share below them — source and output paths, growable text.
 * (run.c and study.c both use it; neither uses the other's internals, study.c calls run.c.) */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccb/record.h"
#include "output.h"

/* The data directory of an installed ccb: <dir of the executable>/CCB_BINDIR_TO_DATA when it
 * holds reference/ (the install puts it there), else "" (a build-tree program). */
static char g_data[PATH_MAX];
static pthread_once_t g_data_once = PTHREAD_ONCE_INIT;
static void find_installed_data(void) {
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        return;
    }
    exe[n] = '\0';
    char* slash = strrchr(exe, '/');
    if (slash == NULL) {
        return;
    }
    *slash = '\0';
    char cand[PATH_MAX + 64], probe[PATH_MAX + 96];
    snprintf(cand, sizeof cand, "%s/%s", exe, CCB_BINDIR_TO_DATA);
    snprintf(probe, sizeof probe, "%s/reference/conveyor.json", cand);
    struct stat st;
    if (strlen(cand) < sizeof g_data && stat(probe, &st) == 0 && S_ISREG(st.st_mode)) {
        memcpy(g_data, cand, strlen(cand) + 1);
    }
}

static char g_cmdline[2048];

void ccb_set_command_line(int argc, char** argv) {
    size_t k = 0;
    g_cmdline[0] = '\0';
    for (int i = 0; i < argc && k + 1 < sizeof g_cmdline; ++i) {
        const int w = snprintf(g_cmdline + k, sizeof g_cmdline - k, "%s%s", i ? " " : "", argv[i]);
        k += w > 0 ? (size_t)w : 0;
    }
    if (k >= sizeof g_cmdline) { /* cut: say so */
        memcpy(g_cmdline + sizeof g_cmdline - 5, " ...", 5);
    }
}

const char* ccb_command_line(void) {
    return g_cmdline;
}

const char* ccb_source_dir(void) {
    const char* env = getenv("CCB_SOURCE_DIR");
    if (env && env[0]) {
        return env;
    }
    pthread_once(&g_data_once, find_installed_data);
    return g_data[0] ? g_data : CCB_DEFAULT_SOURCE_DIR;
}

/* The directories this process created (mkdir_p), for remove_created_dirs (a signal handler):
 * fixed storage, claimed with atomics, as ccb_writer's pending files. */
#define CREATED_SLOTS 64
static char g_created[CREATED_SLOTS][PATH_MAX];
static int g_ncreated;

static void created_add(const char* dir) {
    const int i = __atomic_fetch_add(&g_ncreated, 1, __ATOMIC_ACQ_REL);
    if (i >= CREATED_SLOTS) { /* full: not removed on a signal (left empty at worst) */
        __atomic_store_n(&g_ncreated, CREATED_SLOTS, __ATOMIC_RELEASE);
        return;
    }
    snprintf(g_created[i], sizeof g_created[i], "%s", dir);
}

void remove_created_dirs(void) {
    const int n = __atomic_load_n(&g_ncreated, __ATOMIC_ACQUIRE);
    for (int i = (n < CREATED_SLOTS ? n : CREATED_SLOTS) - 1; i >= 0; --i) {
        rmdir(g_created[i]); /* only if empty: a directory with results stays */
    }
}

/* An advisory lock on a directory for the whole write (flock on the directory itself: no file
 * is added to it): two ccb writing one run directory, or one results tree, would interleave
 * (the meta.json of one beside the data of the other). A second writer says so and waits. The
 * lock goes with the descriptor, also when the process dies. The descriptor, or -1 with a
 * message. */
int lock_dir(const char* dir, char* msg, size_t n) {
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(msg, n, "cannot open the directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int r = -1;
        if (errno == EWOULDBLOCK) {
            study_log("another ccb is writing %s; waiting for it", dir);
            while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
            }
        }
        if (r != 0) {
            snprintf(msg, n, "cannot lock the directory '%s': %s", dir, strerror(errno));
            close(fd);
            return -1;
        }
    }
    return fd;
}

/* The trees this process holds (lock_tree): a second lock of one of them by another descriptor
 * of the same process would wait for itself. */
static struct {
    dev_t dev;
    ino_t ino;
} g_held[80]; /* a reproduction: its root and up to 64 cases */
static int g_nheld;

int lock_tree(const char* dir, char* msg, size_t n) {
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(msg, n, "'%s' is not a directory", dir);
        return -1;
    }
    for (int i = 0; i < g_nheld; ++i) {
        if (g_held[i].dev == st.st_dev && g_held[i].ino == st.st_ino) {
            return 0;
        }
    }
    if (g_nheld == (int)(sizeof g_held / sizeof g_held[0]) || lock_dir(dir, msg, n) < 0) {
        if (g_nheld == (int)(sizeof g_held / sizeof g_held[0])) {
            snprintf(msg, n, "too many trees locked");
        }
        return -1;
    }
    g_held[g_nheld].dev = st.st_dev;
    g_held[g_nheld++].ino = st.st_ino;
    return 0; /* the descriptor stays open: held until the process ends */
}

static int cmp_name(const void* a, const void* b) {
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

int lock_case_trees(const char* out, const char* const* names, int n, char* msg, size_t nmsg) {
    const char* sorted[64];
    if (n > 64) {
        snprintf(msg, nmsg, "too many cases to lock (%d)", n);
        return -1;
    }
    memcpy(sorted, names, (size_t)n * sizeof *names);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_name); /* one order for every process */
    for (int i = 0; i < n; ++i) {
        char dir[PATH_MAX];
        if (snprintf(dir, sizeof dir, "%s/%s", out, sorted[i]) >= (int)sizeof dir) {
            snprintf(msg, nmsg, "the path '%s/%s' is too long", out, sorted[i]);
            return -1;
        }
        if (mkdir_p(dir, msg, nmsg) != 0 || lock_tree(dir, msg, nmsg) != 0) {
            return -1;
        }
    }
    return 0;
}

/* The output tree of this command (its --out): below it, ccb follows no symbolic link. */
static char g_tree[PATH_MAX];

void mkdir_tree_root(const char* root) {
    size_t len = strlen(root);
    while (len > 1 && root[len - 1] == '/') {
        --len;
    }
    snprintf(g_tree, sizeof g_tree, "%.*s", (int)len, root);
}

int mkdir_p(const char* path, char* msg, size_t n) {
    char buf[PATH_MAX];
    if (strlen(path) >= sizeof buf || path[0] == '\0') {
        snprintf(msg, n, "invalid output path '%s'", path);
        return -1;
    }
    strcpy(buf, path);
    /* the components after the tree's root, when path lies in it: never a symbolic link (one
     * would take the writes out of the tree, to wherever it points) */
    const size_t tl = strlen(g_tree);
    const size_t inside = tl > 0 && strncmp(path, g_tree, tl) == 0 && path[tl] == '/' ? tl : 0;
    for (char* p = buf + 1;; ++p) {
        const char c = *p;
        if (c == '/' || c == '\0') {
            *p = '\0';
            struct stat ls;
            if (mkdir(buf, 0777) == 0) {
                created_add(buf);
            } else if (errno != EEXIST) {
                snprintf(msg, n, "cannot create directory '%s': %s", buf, strerror(errno));
                return -1;
            } else if (inside > 0 && (size_t)(p - buf) > inside && lstat(buf, &ls) == 0 &&
                       S_ISLNK(ls.st_mode)) {
                snprintf(msg, n,
                         "'%s' is a symbolic link inside the output tree '%s': ccb writes only in "
                         "the tree it was given, never where a link in it points; remove the "
                         "link or choose another --out",
                         buf, g_tree);
                return -1;
            }
            *p = c;
        }
        if (c == '\0') {
            break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || access(path, W_OK) != 0) {
        snprintf(msg, n, "output directory '%s' is not a writable directory", path);
        return -1;
    }
    return 0;
}

char* read_regular_text(const char* path, size_t max, int follow, char* msg, size_t n) {
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
    if (fd < 0) {
        snprintf(msg, n, "cannot read %s: %s%s", path, strerror(errno),
                 errno == ELOOP ? " (a symbolic link: not followed)" : "");
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(msg, n, "%s is not a regular file", path);
        close(fd);
        return NULL;
    }
    if ((unsigned long long)st.st_size > (unsigned long long)max) {
        snprintf(msg, n, "%s has %lld bytes, more than it can hold (%zu)", path,
                 (long long)st.st_size, max);
        close(fd);
        return NULL;
    }
    char* text = malloc((size_t)st.st_size + 1);
    size_t len = 0;
    while (text && len < (size_t)st.st_size) {
        const ssize_t got = read(fd, text + len, (size_t)st.st_size - len);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            break;
        }
        len += (size_t)got;
    }
    close(fd);
    if (text == NULL || len != (size_t)st.st_size) {
        snprintf(msg, n, "cannot read %s: %s", path, text ? "short read" : "out of memory");
        free(text);
        return NULL;
    }
    text[len] = '\0';
    if (strlen(text) != len) {
        snprintf(msg, n, "%s holds a NUL byte: not a text file", path);
        free(text);
        return NULL;
    }
    return text;
}

int write_file(const char* path, const char* text, size_t len, char* msg, size_t n) {
    ccb_writer* w = NULL;
    if (ccb_writer_open(path, &w, msg, n) != CCB_OK) {
        return -1;
    }
    if (len > 0 && ccb_writer_write(w, text, len) != CCB_OK) {
        ccb_writer_abort(w); /* the writer's one end: aborted here, or committed below */
        snprintf(msg, n, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    if (ccb_writer_commit(w, msg, n) != CCB_OK) { /* frees w, also on failure */
        return -1;
    }
    inventory_note_file(path);
    return 0;
}

void strbuf_vprintf(strbuf* b, const char* fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    const int len = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (len < 0) {
        b->failed = 1;
        return;
    }
    const size_t need = b->n + (size_t)len + 1;
    if (need > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        while (cap < need) {
            cap *= 2;
        }
        char* s = realloc(b->s, cap);
        if (s == NULL) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    vsnprintf(b->s + b->n, (size_t)len + 1, fmt, ap);
    b->n += (size_t)len;
}

void strbuf_printf(strbuf* b, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}
