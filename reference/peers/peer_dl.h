/* peer_dl — the optional peers' libraries (MuJoCo, ODE, ccb's Bullet module, Siconos numerics,
 * FCLIB) are opened when a peer is first used, not linked into ccb.
 *
 * Why: linked, they made every ccb process map 76 shared objects (Siconos alone brings HDF5,
 * MUMPS, curl, Kerberos, GnuTLS): 75 ms to start `ccb --version` on the 2-core development
 * machine against 31 ms without them (perf stat -r 20; issue 43). The command-line tests start
 * ccb hundreds of times. Each peer names the functions it calls in a table; its source calls them
 * by their own names through #defines onto the table's pointers, so a function missing from the
 * table fails the link of ccb, as a missing library did before. */
#ifndef CCB_PEER_DL_H
#define CCB_PEER_DL_H

#include <pthread.h>
#include <stddef.h>

/* one function of the library: its name and the address of the pointer that receives it */
typedef struct peer_dl_sym {
    const char* name;
    void* slot; /* the address of a function pointer */
} peer_dl_sym;

typedef struct peer_dl {
    const char* file;       /* the library's soname (found by CMake), e.g. libmujoco.so.2.2.2 */
    const peer_dl_sym* sym; /* terminated by {NULL, NULL} */
    pthread_mutex_t lock;
    int state; /* 0: not tried; 1: loaded; -1: failed, why[] says why */
    char why[384];
} peer_dl;

#define PEER_DL_INIT(file, sym)                                                                    \
    {                                                                                              \
        (file), (sym), PTHREAD_MUTEX_INITIALIZER, 0, {                                             \
            0                                                                                      \
        }                                                                                          \
    }

/* Opens the library once per process (thread-safe; later calls return the first answer): 0 when
 * every function was found, -1 otherwise with the reason in msg (NULL msg: no message). */
int peer_dl_open(peer_dl* lib, char* msg, size_t n);

#endif
