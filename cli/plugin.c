/* plugin: loading ccb plugins — shared modules that register approximations, solvers or ODE
 * methods through libccb's public API (ccb/solver.h, docs/architecture.md §5). `ccb --plugin
 * FILE.so COMMAND ...` loads one (repeatable); CCB_PLUGIN_PATH, a colon-separated list of
 * modules or directories (each *.so in a directory, in name order), loads more first. A module
 * must define `const int ccb_plugin_abi` equal to this libccb's CCB_ABI_VERSION and
 * `int ccb_plugin_register(char* msg, size_t n)`; anything else is refused with a message, and
 * the command does not run. Modules stay loaded until exit (their types are borrowed). */
#define _GNU_SOURCE /* realpath; dladdr1 (the ELF symbol of what dlsym found) */
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define PLUGIN_MAX 16
static char g_paths[PLUGIN_MAX][PATH_MAX];
static int g_n;

int plugin_count(void) {
    return g_n;
}

const char* plugin_path(int i) {
    return i >= 0 && i < g_n ? g_paths[i] : NULL;
}

int plugin_load(const char* path, char* msg, size_t n) {
    char full[PATH_MAX];
    if (path[0] == '\0' || realpath(path, full) == NULL) {
        snprintf(msg, n, "plugin '%s': no such file", path);
        return -1;
    }
    struct stat st;
    if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(msg, n, "plugin '%s': not a regular file", path);
        return -1;
    }
    for (int i = 0; i < g_n; ++i) {
        if (strcmp(g_paths[i], full) == 0) {
            return 0; /* loaded already (by CCB_PLUGIN_PATH and --plugin) */
        }
    }
    if (g_n == PLUGIN_MAX) {
        snprintf(msg, n, "plugin '%s': more than %d plugins", path, PLUGIN_MAX);
        return -1;
    }
    void* h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        snprintf(msg, n, "plugin '%s': cannot load it: %s", path, dlerror());
        return -1;
    }
    const int* abi = dlsym(h, "ccb_plugin_abi");
    int (*reg)(char*, size_t) = NULL;
    void* sym = dlsym(h, "ccb_plugin_register");
    memcpy(&reg, &sym, sizeof reg < sizeof sym ? sizeof reg : sizeof sym);
    if (abi == NULL || reg == NULL) {
        snprintf(msg, n, "plugin '%s': not a ccb plugin (it defines no %s)", path,
                 abi == NULL ? "ccb_plugin_abi" : "ccb_plugin_register");
        dlclose(h);
        return -1;
    }
    /* what the names are, before anything of them is read or called: an int and a function
     * (a plugin that defines ccb_plugin_abi as a function or a char would be read as garbage) */
    const ElfW(Sym)* se = NULL;
    const ElfW(Sym)* sr = NULL;
    Dl_info di;
    if (dladdr1(abi, &di, (void**)&se, RTLD_DL_SYMENT) == 0 || se == NULL ||
        ELF64_ST_TYPE(se->st_info) != STT_OBJECT || se->st_size != sizeof(int) ||
        dladdr1(sym, &di, (void**)&sr, RTLD_DL_SYMENT) == 0 || sr == NULL ||
        (ELF64_ST_TYPE(sr->st_info) != STT_FUNC && ELF64_ST_TYPE(sr->st_info) != STT_GNU_IFUNC)) {
        snprintf(msg, n,
                 "plugin '%s': not a ccb plugin (ccb_plugin_abi must be a const int and "
                 "ccb_plugin_register a function)",
                 path);
        dlclose(h);
        return -1;
    }
    if (*abi != CCB_ABI_VERSION) {
        snprintf(msg, n,
                 "plugin '%s' was built against ccb's extension ABI %d; this ccb has ABI %d "
                 "(rebuild it against this libccb)",
                 path, *abi, CCB_ABI_VERSION);
        dlclose(h);
        return -1;
    }
    char why[512] = "";
    if (reg(why, sizeof why) != 0) {
        snprintf(msg, n, "plugin '%s': its registration failed: %s", path,
                 why[0] ? why : "(no message)");
        return -1; /* not closed: it may have registered some of its types */
    }
    snprintf(g_paths[g_n++], PATH_MAX, "%s", full);
    return 0;
}

static int ends_with_so(const char* s) {
    const size_t n = strlen(s);
    return n > 3 && strcmp(s + n - 3, ".so") == 0;
}

static int cmp_names(const void* a, const void* b) {
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

/* The modules of one CCB_PLUGIN_PATH entry: the file, or a directory's *.so in name order. */
static int load_entry(const char* entry, char* msg, size_t n) {
    struct stat st;
    if (stat(entry, &st) != 0) {
        snprintf(msg, n, "CCB_PLUGIN_PATH: '%s' does not exist", entry);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return plugin_load(entry, msg, n);
    }
    DIR* d = opendir(entry);
    if (d == NULL) {
        snprintf(msg, n, "CCB_PLUGIN_PATH: cannot read the directory '%s'", entry);
        return -1;
    }
    char* names[PLUGIN_MAX + 1];
    int k = 0;
    for (struct dirent* e = readdir(d); e && k <= PLUGIN_MAX; e = readdir(d)) {
        if (ends_with_so(e->d_name) && (names[k] = strdup(e->d_name)) != NULL) {
            ++k;
        }
    }
    closedir(d);
    qsort(names, (size_t)k, sizeof names[0], cmp_names);
    int rc = 0;
    for (int i = 0; i < k; ++i) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", entry, names[i]);
        if (rc == 0) {
            rc = plugin_load(path, msg, n);
        }
        free(names[i]);
    }
    return rc;
}

int plugin_load_env(char* msg, size_t n) {
    const char* env = getenv("CCB_PLUGIN_PATH");
    if (env == NULL || env[0] == '\0') {
        return 0;
    }
    char* copy = strdup(env);
    if (copy == NULL) {
        snprintf(msg, n, "out of memory");
        return -1;
    }
    int rc = 0;
    for (char *save = NULL, *e = strtok_r(copy, ":", &save); e && rc == 0;
         e = strtok_r(NULL, ":", &save)) {
        rc = load_entry(e, msg, n);
    }
    free(copy);
    return rc;
}
