/* ccb/deriv.h — derivatives of a convex step by the implicit function theorem.
 *
 * spec: formulation-convex §9. A step of the Newton solver ends at v1 with the residual of
 * the convex problem at zero,
 *   r(v1; theta) = A (v1 - v*) - J^T gamma(J v1 + b) = 0,
 * theta standing for everything the step reads: q0, v0, a generalized force u added over the
 * step, every contact's mu, k, d, tau_d and the stiction tolerance v_s. The implicit function
 * theorem gives (ICF eq. (29))
 *   dv1/dtheta = -H^-1 dr/dtheta,   H = A + J^T G J at v1,
 *   dq1/dtheta = dq1/dq0 dq0/dtheta + dt N(q0) dv1/dtheta (+ N's own dependence on q0),
 * one pair of triangular solves per direction with the factorization of H. Here
 *   - dr/du = -dt I exactly (u enters A v* = A v0 + dt (k2 - D v0 + u), formulation-convex §1.1);
 *   - the other partials of r are differences of r at the fixed solution v1 with the step
 *     problem rebuilt at theta +- h dtheta (Richardson's combinations of h, h/2 and h/4, h
 *     reduced until two of them agree): geometry
 *     (phi0, the contact frames and J through q0), A(q0), v*, the Delassus estimate w and the
 *     approximation's constants, every approximation and shape (hydroelastic faces too) by the
 *     code that built the step. No nested solve; the error bound is in formulation-convex §9.2;
 *     the step's own derivative is exact through H.
 * Forward mode: a small number of directions per step; a trajectory's derivatives follow by
 * applying the steps' derivatives in turn (the tangent of step n is a direction of step n + 1).
 * The derivative exists where the step is smooth: the contact set is the same at theta +- h
 * dtheta (else CCB_E_INVALID saying so), no contact at a kink of its law (touching exactly,
 * the stick-slip boundary of SAP's cone), and it is as accurate as the solve (the Newton
 * tolerance eps_r bounds the error of H's point of evaluation). */
#ifndef CCB_DERIV_H
#define CCB_DERIV_H

#include "ccb/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A direction in the step's inputs. NULL vectors and zero changes are zero. */
typedef struct ccb_step_dir {
    const double* dq0; /* nq: positions (a free body's quaternion part tangent to the unit
                          sphere, as the step renormalizes) */
    const double* dv0; /* nv: velocities */
    const double* du;  /* nv: generalized force held over the step [N | N m] */
    /* relative (logarithmic) changes of the contacts' material: mu -> mu (1 + e dmu), ... */
    double dmu, dk, dd, dtau_d;
    int contact; /* -1: every contact; else only the contact of that index (ccb_sim_contact) */
    double dvs;  /* relative change of the stiction tolerance v_s */
} ccb_step_dir;

/* The zero direction on every contact (contact = -1). */
CCB_API ccb_step_dir ccb_step_dir_zero(void);

typedef struct ccb_deriv_params {
    /* the largest component of the difference step of the residual's partials: h |dtheta|_inf
     * = h_rel [m, rad, m/s, rad/s, -]; finite, in [1e-12, 1e-2]; default 1e-7 */
    double h_rel;
    /* factorization of H: the simulation's Newton back-end (CCB_LINSOLVE_AUTO: dense for one
     * clique, block otherwise; CHOLMOD; dense); -1 (default): the simulation's setting */
    int linear_solver;
} ccb_deriv_params;

CCB_API ccb_deriv_params ccb_deriv_params_default(void);

typedef struct ccb_deriv ccb_deriv;

typedef struct ccb_deriv_stats {
    int nv, nc;         /* velocities, contacts of the linearized step */
    double residual;    /* |r(v1)|_inf at the linearization point [N s] */
    double scale;       /* |A (v1 - v0)|_inf + |J^T gamma|_inf, the residual's scale [N s] */
    int factorizations; /* of H (one per linearize) */
    int residual_evals; /* step problems rebuilt for partials (six per direction with q0, v0
                           or material parts: central differences at h, h/2, h/4; six more for
                           each tenfold reduction of h) */
    /* the last jvp's partials (formulation-convex §9.2): the disagreement of its two Richardson
     * estimates relative to their size (or to their round-off), and the difference step h
     * (h |dtheta|_inf) it settled on */
    double partial_spread, partial_h;
    /* 1 if the two estimates agreed (to 1e-9, or to their round-off) at some step h >= 1e-4
     * h_rel; 0: the residual bends within every difference step (a contact law at a kink: an
     * impact's first contact, a stick-slip or cone boundary; formulation-convex §9.3) and the
     * derivative is the best estimate, not a converged one */
    int partial_settled;
    double time_linearize, time_jvp; /* wall time [s], summed since create */
} ccb_deriv_stats;

CCB_API ccb_status ccb_deriv_create(ccb_deriv** d);
CCB_API void ccb_deriv_destroy(ccb_deriv* d); /* accepts NULL */
CCB_API const char* ccb_deriv_last_error(const ccb_deriv* d);

/* Linearizes the step that `sim` (the Newton solver on a convex approximation, no error control)
 * took from (t0, q0[nq], v0[nv]) to v1[nv]: builds the step problem at (t0, q0, v0) as the
 * simulation does, assembles H = A + J^T G J at v1 and factors it. The arrays are copied; sim is
 * read (its model and parameters), not changed, and must outlive the later jvp calls.
 * CCB_E_INVALID (other solver, error control, bad params), CCB_E_NONFINITE, CCB_E_FACTOR,
 * CCB_E_NOMEM, with a message. */
CCB_API ccb_status ccb_deriv_linearize(ccb_deriv* d, const ccb_sim* sim,
                                       const ccb_deriv_params* params, double t0, const double* q0,
                                       const double* v0, const double* v1);

/* The derivative of the linearized step along dir: dq1[nq] and dv1[nv] (either may be NULL).
 * CCB_E_INVALID if nothing is linearized, dir is not finite, or the contact set changes within
 * the difference step (the step is not differentiable there: a contact enters the margin or a
 * hydroelastic face appears). */
CCB_API ccb_status ccb_deriv_jvp(ccb_deriv* d, const ccb_step_dir* dir, double* dq1, double* dv1);

CCB_API ccb_deriv_stats ccb_deriv_get_stats(const ccb_deriv* d);

#ifdef __cplusplus
}
#endif
#endif
