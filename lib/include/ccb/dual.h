/* ccb/dual.h — the step problem in impulse space, for dual solvers (projected Gauss–Seidel and
 * its kin) of the convex approximations (formulation-convex §1.2; docs/architecture.md §4).
 *
 * The dual of the step's convex problem min_v 1/2 |v - v*|_A^2 + sum_i l_i(J_i v + b_i) is a
 * problem in the contact impulses gamma. A solver that works contact by contact needs, per
 * contact i, its Delassus block W_ii = J_i A^{-1} J_i^T, the columns A^{-1} J_i^T to move the
 * velocities after a change of gamma_i (v = v* + A^{-1} J^T gamma), its contact velocity
 * y_i = J_i v + b_i, and the exact solution of its block problem with the others fixed:
 *     minimize phi(y) = 1/2 (y - y~)^T W_ii^{-1} (y - y~) + l_i(y),
 *     y~ = J_i v + b_i - W_ii gamma_i (its own impulse removed),
 * whose minimizer gives gamma_i(y) = -dl_i/dy; for SAP it is the projection on the friction cone
 * in the R-metric (formulation-convex §4.4), for Lagged and Similar its nonlinear analogue. This
 * header gives those, so that such a solver is its sweep only (plugins/pgs is the example). A
 * is block diagonal, one SPD block per clique; each is factored by a dense Cholesky. Vectors are
 * in the problem's order; contact triples in frame C order (t1, t2, n); a contact index i is
 * 0 <= i < ccb_dual_nc (the accessors do not check it: they are a solver's inner loop). */
#ifndef CCB_DUAL_H
#define CCB_DUAL_H

#include "ccb/approx.h"
#include "ccb/problem.h"
#include "ccb/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_dual ccb_dual;

/* CCB_OK, CCB_E_INVALID for a NULL out, CCB_E_NOMEM. */
CCB_API ccb_status ccb_dual_create(ccb_dual** out);
CCB_API void ccb_dual_destroy(ccb_dual* d); /* accepts NULL */
/* The impulse-space view of a built problem (ccb_sim_problem in a solver's solve): A's blocks
 * factored, and per contact A^{-1} J_i^T, W_ii and b_i (y_i at v = 0). A direction that no
 * velocity reaches (out of a planar model's plane) makes W_ii singular: every W_ii gets the
 * compliance 1e-10 max_k (W_ii)_kk on its diagonal, so that such an impulse moves the contact
 * velocity by round-off only and each block problem stays strictly convex. CCB_OK; CCB_E_FACTOR
 * if a block of A is not positive definite; CCB_E_INVALID if a contact touches more than two
 * cliques; CCB_E_INVALID for a NULL argument; CCB_E_NOMEM. The message says which. */
CCB_API ccb_status ccb_dual_setup(ccb_dual* d, const ccb_problem* p, char* msg, size_t msg_size);
CCB_API int ccb_dual_nv(const ccb_dual* d);
CCB_API int ccb_dual_nc(const ccb_dual* d);
/* W_ii, 3 x 3 row-major (borrowed until the next setup). */
CCB_API const double* ccb_dual_delassus(const ccb_dual* d, int i);
/* y_i = J_i v + b_i for velocities v (nv). */
CCB_API void ccb_dual_contact_velocity(const ccb_dual* d, int i, const double* v, double y[3]);
/* v += A^{-1} J_i^T dgamma: the velocities after contact i's impulse changed by dgamma. */
CCB_API void ccb_dual_add_impulse(const ccb_dual* d, int i, const double dgamma[3], double* v);
/* The block problem of contact i with the approximation ap and its constraint c: y minimizing
 * phi above, from the start y (in/out), with gamma_i(y) in gamma, by Newton on phi with the
 * exact line search of ccb's Newton solver (formulation-convex §8.3) and only the
 * approximation's eval. Converged when the optimality residual as a velocity,
 * W_ii (W_ii^{-1} (y - y~) - gamma_i(y)), is 1e-13 of the velocities, or when Newton's step is
 * round-off of them or no longer lowers phi. 0, or -1 after 100 iterations or on a singular
 * W_ii. */
CCB_API int ccb_dual_block_solve(const ccb_approx* ap, const ccb_constraint* c, const double W[9],
                                 const double yt[3], double y[3], double gamma[3]);

#ifdef __cplusplus
}
#endif

#endif
