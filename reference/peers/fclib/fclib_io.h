/* fclib_io — ccb's step problems as FCLIB files (the optional FCLIB export of `ccb run
 * --export-fclib` and the problems of the rigid-limit studies).
 *
 * A file holds one global problem (FCLIB 3.1: M v = H r + f, u = H^T v + w, contact frames normal
 * first; ccb_problem_to_global, formulation-convex §16) and ccb's solution of that step (v, u, r).
 * The step dt is kept in the problem's math_info ("dt = ... s"), since FCLIB has no field for it.
 * Built only when CMake finds libfclib (Debian: libfclib-dev); otherwise every call reports that
 * the build has no FCLIB. */
#ifndef CCB_FCLIB_IO_H
#define CCB_FCLIB_IO_H

#include <stddef.h>

#include "ccb/problem.h"

/* 1 if this build has FCLIB and its library opens (opens it; peer_dl.h). */
int fclib_io_available(void);
/* NULL when available, else why not (not built, or the library does not open). */
const char* fclib_io_absent(void);

/* Writes g and ccb's solution of the step — velocities v (nv), impulses gamma in ccb's contact
 * order (t1, t2, n; 3 nc) — to path, atomically (a temporary file renamed; nothing is left on
 * failure). title and description go to the problem's info. 0, or -1 with a message. */
int fclib_io_write(const char* path, const ccb_global_problem* g, const double* v,
                   const double* gamma, const char* title, const char* description, char* msg,
                   size_t n);

/* Reads the global problem of path into g (release with ccb_global_problem_free) and, when the
 * file has one, the stored solution: *v (nv) and *r (3 nc, FCLIB's order n, t1, t2), malloc'd
 * (NULL if the file has none; v and r may be NULL to skip). 0, or -1 with a message. */
int fclib_io_read(const char* path, ccb_global_problem* g, double** v, double** r, char* msg,
                  size_t n);

#endif
