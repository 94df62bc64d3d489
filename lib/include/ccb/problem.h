/* ccb/problem.h — the per-step contact problem (frozen for the step).
 *
 * spec: formulation-convex §1. For a step from (t0, q0, v0) with step dt:
 *   A    = blockdiag(A_c), A_c = M_c(q0) + dt D_c       (one SPD block per clique,
 * formulation-convex §1.1)
 *   v*   = v0 + dt A^{-1} (k2(q0, v0) - D v0)            (free-motion velocities,
 * formulation-convex §1.1)
 *   v_c  = J v + b                                       (3 rows per contact, tangential first)
 * with J evaluated at q0 and b the velocity bias of bodies without coordinates (prescribed
 * motion, e.g. a conveyor belt) at the end of the step, t0 + dt. Per contact it also holds
 * phi0, the previous-step normal velocity vn0 = (J v0 + b(t0))_n, the material, the Delassus
 * approximation w (formulation-convex §4.2) and the approximation's per-step constants (prepare()).
 * The Newton solver minimizes l(v) = 1/2 |v - v*|_A^2 + sum_i l_i(J_i v + b_i) (formulation-convex
 * §1.2). */
#ifndef CCB_PROBLEM_H
#define CCB_PROBLEM_H

#include "ccb/approx.h"
#include "ccb/geometry.h"
#include "ccb/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_problem ccb_problem;

/* Delassus diagonal approximation w_i = |W_ii|_F / 3 (formulation-convex §4.2) built from */
typedef enum ccb_delassus {
    CCB_DELASSUS_DIAG_INVERSE = 0, /* J_ic diag(A_c)^{-1} J_ic^T (current Drake; default) */
    CCB_DELASSUS_FULL_INVERSE = 1  /* J_ic A_c^{-1} J_ic^T (SAP paper, original Drake) */
} ccb_delassus;

typedef struct ccb_problem_params {
    ccb_approx_options approx; /* sigma, beta (the step and v_s: ccb_step_context) */
    ccb_delassus delassus;
    /* 1: a contact apart at the start (phi0 > 0) that the approximation's inactive radius shows
     * inactive at v0 is "deferred": only its centre velocity and radius are computed at build;
     * its Jacobian rows, bias, Delassus estimate w and constants are computed when a solver
     * first needs them (the Newton solver's far contacts, newton.c), by the same code, so the
     * results are the same bit for bit. Default 0 (every contact complete); the simulator turns
     * it on for the Newton solver. The accessors below complete a deferred contact first. */
    int defer_inactive;
    /* NULL (default), or a generalized force u[nv] [N | N m] added to the explicit forces over
     * the step: A v* = A v0 + dt (k2 - D v0 + u) (formulation-convex §1.1, §9.1); borrowed during
     * ccb_problem_build only (ccb_sim_set_force sets it for a simulation) */
    const double* u;
} ccb_problem_params;

CCB_API ccb_problem_params ccb_problem_params_default(void);
CCB_API ccb_status ccb_problem_params_check(const ccb_problem_params* p, char* msg, size_t n);

CCB_API ccb_status ccb_problem_create(ccb_problem** problem);
CCB_API void ccb_problem_destroy(ccb_problem* problem); /* accepts NULL */
CCB_API const char* ccb_problem_last_error(const ccb_problem* problem);

/* Assembles the step problem of a finalized model for the step `step` (t0, dt, v_s; copied) from
 * (q0[nq], v0[nv]) at t0 and the contacts found at q0 (ccb_geometry_query). Reuses the problem's
 * storage. Errors: CCB_E_INVALID (bad parameters or step), CCB_E_NONFINITE (non-finite state, forces or mass matrix), CCB_E_FACTOR (a mass
 * block is not SPD), CCB_E_NOMEM; the message names the body or contact. */
CCB_API ccb_status ccb_problem_build(ccb_problem* problem, const ccb_model* model,
                                     const ccb_approx* approx, const ccb_problem_params* params,
                                     const ccb_step_context* step, const double* q0,
                                     const double* v0, const ccb_contact_set* contacts);

/* A contact of a raw problem (no model): one or two clique blocks. */
typedef struct ccb_raw_contact {
    int clique[2];        /* clique of each block; clique[1] = -1 for a one-block contact */
    const double* J[2];   /* 3 x nv(clique) row-major Jacobian blocks (rows t1, t2, n) */
    double b[3];          /* velocity bias [m/s] */
    ccb_contact_input in; /* material, phi0, vn0; `w` is ignored and computed from A and J */
} ccb_raw_contact;

/* Sets a problem directly from dynamics data: nclique cliques of clique_nv[c] velocities each,
 * A = blockdiag of the row-major SPD blocks concatenated in A, vstar[nv] and v0[nv] (nv = sum
 * of clique_nv), and nc contacts. For tests and for users bringing their own dynamics. */
CCB_API ccb_status ccb_problem_set_raw(ccb_problem* problem, const ccb_approx* approx,
                                       const ccb_problem_params* params,
                                       const ccb_step_context* step, int nclique,
                                       const int* clique_nv, const double* A, const double* vstar,
                                       const double* v0, int nc, const ccb_raw_contact* contacts);

CCB_API int ccb_problem_nv(const ccb_problem* problem);
/* The step the problem was built for (borrowed; NULL before the first build). */
CCB_API const ccb_step_context* ccb_problem_step(const ccb_problem* problem);
CCB_API int ccb_problem_nc(const ccb_problem* problem);
/* Borrowed, valid until the next build: v*[nv], v0[nv]. */
CCB_API const double* ccb_problem_vstar(const ccb_problem* problem);
CCB_API const double* ccb_problem_v0(const ccb_problem* problem);
/* Per-contact constants of contact i (NULL for an invalid index). Borrowed. */
CCB_API const ccb_constraint* ccb_problem_constraint(const ccb_problem* problem, int i);
CCB_API const ccb_contact_input* ccb_problem_contact_input(const ccb_problem* problem, int i);
CCB_API const ccb_approx* ccb_problem_approx(const ccb_problem* problem);
/* v_c = J_i v + b_i for contact i, given a full velocity vector v[nv]. */
CCB_API ccb_status ccb_problem_contact_velocity(const ccb_problem* problem, int i, const double* v,
                                                double vc[3]);

/* The step problem as a rigid frictional contact problem in the "global" form of FCLIB
 * (formulation-convex §16): find v, r with
 *   M v = H r + f,   u = H^T v + w,   C*_mu ∋ u + (mu |u_t|, 0, 0) ⟂ r ∈ C_mu,
 * M = A (nv x nv), f = A v*, H = J^T with each contact's columns in the order (n, t1, t2), and
 * w_i = (b_n + phi0/dt, b_t1, b_t2): the rigid limit of the first-order gap phi0 + dt v_n >= 0
 * (§1.3). Matrices in compressed sparse columns (0-based, rows ascending in each column). */
typedef struct ccb_global_problem {
    int nv, nc;    /* velocities; contacts (H has 3 nc columns) */
    double dt;     /* the step [s] */
    int* M_colptr; /* nv + 1 */
    int* M_row;    /* M_colptr[nv] */
    double* M_val;
    int* H_colptr; /* 3 nc + 1 */
    int* H_row;    /* H_colptr[3 nc] */
    double* H_val;
    double* f;  /* nv */
    double* w;  /* 3 nc */
    double* mu; /* nc */
} ccb_global_problem;

/* Fills g (zeroed storage of its own; release with ccb_global_problem_free) from a built problem,
 * completing deferred contacts. CCB_E_INVALID (also for a contact with anisotropic friction:
 * FCLIB's cone is isotropic), CCB_E_NOMEM (g left empty). */
CCB_API ccb_status ccb_problem_to_global(const ccb_problem* problem, ccb_global_problem* g);
CCB_API void ccb_global_problem_free(ccb_global_problem* g); /* accepts NULL and empty */
/* Impulses in ccb's contact order (t1, t2, n) to the global form's (n, t1, t2) and back; nc
 * contacts, in and out may not overlap. */
CCB_API void ccb_global_from_ccb_order(int nc, const double* ccb, double* global);
CCB_API void ccb_global_to_ccb_order(int nc, const double* global, double* ccb);

#ifdef __cplusplus
}
#endif
#endif
