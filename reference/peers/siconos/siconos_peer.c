/* siconos_peer: see siconos_peer.h. */
#include "siconos_peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CCB_HAVE_SICONOS
#include <Friction_cst.h>
#include <GlobalFrictionContactProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>

#include "peer_dl.h"

/* Siconos numerics' functions, opened at the first use of the peer (peer_dl.h) */
/* clang-format off */
#define SN_FUNCTIONS(X)                 \
    X(NM_create)                        \
    X(gfc3d_driver)                     \
    X(globalFrictionContactProblem_new) \
    X(globalFrictionContact_free)       \
    X(solver_options_create)            \
    X(solver_options_delete)
/* clang-format on */
#define SN_POINTER(f) __typeof__(f)* f;
#define SN_ENTRY(f) {#f, &snf.f},
static struct { SN_FUNCTIONS(SN_POINTER) } snf;
static const peer_dl_sym sn_syms[] = {SN_FUNCTIONS(SN_ENTRY){NULL, NULL}};
static peer_dl sn_lib = PEER_DL_INIT(CCB_SICONOS_SONAME, sn_syms);
#define NM_create (*snf.NM_create)
#define gfc3d_driver (*snf.gfc3d_driver)
#define globalFrictionContactProblem_new (*snf.globalFrictionContactProblem_new)
#define globalFrictionContact_free (*snf.globalFrictionContact_free)
#define solver_options_create (*snf.solver_options_create)
#define solver_options_delete (*snf.solver_options_delete)

int peer_siconos_available(void) {
    return peer_dl_open(&sn_lib, NULL, 0) == 0;
}

const char* peer_siconos_absent(void) {
    static char why[400];
    return peer_dl_open(&sn_lib, why, sizeof why) == 0 ? NULL : why;
}

const char* peer_siconos_describe(void) {
    return "Siconos 4.4 numerics (Debian libsiconos-numerics), gfc3d ADMM on the global problem "
           "(SICONOS_GLOBAL_FRICTION_3D_ADMM)";
}

/* a dense (column-major) NumericsMatrix from compressed columns */
static NumericsMatrix* dense_from_csc(int m, int n, const int* colptr, const int* row,
                                      const double* val) {
    NumericsMatrix* A = NM_create(NM_DENSE, m, n);
    if (A == NULL) {
        return NULL;
    }
    memset(A->matrix0, 0, (size_t)m * (size_t)n * sizeof(double));
    for (int j = 0; j < n; ++j) {
        for (int a = colptr[j]; a < colptr[j + 1]; ++a) {
            A->matrix0[(size_t)j * (size_t)m + (size_t)row[a]] = val[a];
        }
    }
    return A;
}

int peer_siconos_solve(const ccb_global_problem* g, double tol, int max_iter, double* v, double* r,
                       peer_siconos_result* res, char* msg, size_t n) {
    const int nv = g->nv, m = 3 * g->nc;
    memset(res, 0, sizeof *res);
    if (peer_dl_open(&sn_lib, msg, n) != 0) {
        return -1;
    }
    if (g->nc == 0) { /* no contact: M v = f */
        snprintf(msg, n, "siconos: a problem without contacts");
        return -1;
    }
    GlobalFrictionContactProblem* p = globalFrictionContactProblem_new();
    if (p == NULL) {
        snprintf(msg, n, "siconos: out of memory");
        return -1;
    }
    p->dimension = 3;
    p->numberOfContacts = g->nc;
    p->M = dense_from_csc(nv, nv, g->M_colptr, g->M_row, g->M_val);
    p->H = dense_from_csc(nv, m, g->H_colptr, g->H_row, g->H_val);
    p->q = malloc((size_t)nv * sizeof(double));
    p->b = malloc((size_t)m * sizeof(double));
    p->mu = malloc((size_t)g->nc * sizeof(double));
    double* u = calloc((size_t)m, sizeof(double));
    SolverOptions* o = solver_options_create(SICONOS_GLOBAL_FRICTION_3D_ADMM);
    int rc = -1;
    if (p->M && p->H && p->q && p->b && p->mu && u && o) {
        memcpy(p->q, g->f, (size_t)nv * sizeof(double)); /* M v = q + H r: q = f */
        memcpy(p->b, g->w, (size_t)m * sizeof(double));  /* u = H^T v + b: b = w */
        memcpy(p->mu, g->mu, (size_t)g->nc * sizeof(double));
        o->iparam[SICONOS_IPARAM_MAX_ITER] = max_iter;
        o->dparam[SICONOS_DPARAM_TOL] = tol;
        if (o->numberOfInternalSolvers > 0 && o->internalSolvers[0]) {
            o->internalSolvers[0]->iparam[SICONOS_IPARAM_MAX_ITER] = max_iter;
            o->internalSolvers[0]->dparam[SICONOS_DPARAM_TOL] = tol;
        }
        memset(r, 0, (size_t)m * sizeof(double));
        memset(v, 0, (size_t)nv * sizeof(double));
        res->info = gfc3d_driver(p, r, u, v, o);
        res->iterations = o->iparam[SICONOS_IPARAM_ITER_DONE];
        res->error = o->dparam[SICONOS_DPARAM_RESIDU];
        rc = 0;
    } else {
        snprintf(msg, n, "siconos: out of memory");
    }
    if (o) {
        solver_options_delete(o);
    }
    free(u);
    globalFrictionContact_free(p);
    return rc;
}

#else /* no Siconos in this build */

int peer_siconos_available(void) {
    return 0;
}

const char* peer_siconos_absent(void) {
    return "this ccb was built without Siconos (install libsiconos-numerics-dev and rebuild)";
}

const char* peer_siconos_describe(void) {
    return "not built (install libsiconos-numerics-dev and rebuild)";
}

int peer_siconos_solve(const ccb_global_problem* g, double tol, int max_iter, double* v, double* r,
                       peer_siconos_result* res, char* msg, size_t n) {
    (void)g, (void)tol, (void)max_iter, (void)v, (void)r, (void)res;
    snprintf(msg, n,
             "this ccb was built without Siconos (install libsiconos-numerics-dev and "
             "rebuild)");
    return -1;
}

#endif
