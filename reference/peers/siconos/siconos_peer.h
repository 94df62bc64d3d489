/* siconos_peer — the rigid frictional contact problem of a ccb step solved by Siconos (the
 * optional peer of the rigid-limit studies).
 *
 * The step problem in FCLIB's global form (ccb_problem_to_global, formulation-convex §16) is
 * handed to Siconos numerics as a GlobalFrictionContactProblem (its convention M v = q + H r,
 * u = H^T v + b, so q = f and b = w) and solved with gfc3d's ADMM on the global problem
 * (SICONOS_GLOBAL_FRICTION_3D_ADMM): the rigid Coulomb solution the convex models approach.
 * (NSGS on the local reformulation, SICONOS_GLOBAL_FRICTION_3D_NSGS_WR, gives the same gaps to
 * 6 digits on the sphere but is 50x slower on planar models, whose zero out-of-plane rows make
 * its one-contact Newton struggle, and prints the problem on stdout.)
 * Built only when CMake finds Siconos numerics (Debian: libsiconos-numerics-dev). */
#ifndef CCB_SICONOS_PEER_H
#define CCB_SICONOS_PEER_H

#include <stddef.h>

#include "ccb/problem.h"

typedef struct peer_siconos_result {
    int info;       /* Siconos' return: 0 converged */
    int iterations; /* iterations done */
    double error;   /* Siconos' error measure at exit */
} peer_siconos_result;

/* 1 if this build has Siconos and its library opens (opens it; peer_dl.h). */
int peer_siconos_available(void);
/* NULL when available, else why not (not built, or the library does not open). */
const char* peer_siconos_absent(void);
/* "Siconos 4.4 numerics, gfc3d NSGS_WR" or why it is absent. */
const char* peer_siconos_describe(void);

/* Solves g's rigid problem to tolerance tol in at most max_iter iterations: v (nv), r (3 nc,
 * order n, t1, t2). 0 (see res->info for convergence), or -1 with a message. */
int peer_siconos_solve(const ccb_global_problem* g, double tol, int max_iter, double* v, double* r,
                       peer_siconos_result* res, char* msg, size_t n);

#endif
