/* peer_dl: see peer_dl.h. */
#define _POSIX_C_SOURCE 200809L
#include "peer_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void load(peer_dl* lib) {
    void* h = dlopen(lib->file, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char* e = dlerror();
        snprintf(lib->why, sizeof lib->why, "cannot open %s: %s", lib->file,
                 e ? e : "unknown error");
        lib->state = -1;
        return;
    }
    for (const peer_dl_sym* s = lib->sym; s->name; ++s) {
        dlerror();
        void* f = dlsym(h, s->name);
        if (f == NULL) {
            snprintf(lib->why, sizeof lib->why, "%s has no function %s", lib->file, s->name);
            lib->state = -1;
            dlclose(h);
            return;
        }
        /* POSIX guarantees that a function's address survives the round trip through void*;
         * memcpy spells it without a cast ISO C leaves undefined */
        memcpy(s->slot, &f, sizeof f);
    }
    lib->state = 1; /* the handle stays open for the life of the process */
}

int peer_dl_open(peer_dl* lib, char* msg, size_t n) {
    pthread_mutex_lock(&lib->lock);
    if (lib->state == 0) {
        load(lib);
    }
    const int ok = lib->state == 1;
    pthread_mutex_unlock(&lib->lock);
    if (!ok && msg && n > 0) {
        snprintf(msg, n, "%s", lib->why);
    }
    return ok ? 0 : -1;
}
