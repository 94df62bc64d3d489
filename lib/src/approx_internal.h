/* Pieces shared by the approximation files (not installed). */
#ifndef CCB_APPROX_INTERNAL_H
#define CCB_APPROX_INTERNAL_H

#include "ccb/approx.h"

/* Soft slip quantities of a tangential velocity vt[2] (formulation-convex §3):
 * rho = sqrt(|vt|^2 + eps^2), t_s = vt/rho (soft unit vector), |vt|_s = rho - eps. */
typedef struct soft_slip {
    double rho;
    double ts[2];
    double norm_s;
} soft_slip;
soft_slip ccb_soft_slip(const double vt[2], double eps);

/* 1 if a is one of the built-in approximations: their prepare starts with
 * ccb_constraint_init, so it writes every field of c (the problem then skips zeroing c). */
int ccb_approx_is_builtin(const ccb_approx* a);

/* Copies dt, k, d, mu, phi0 into c and zeroes the rest. */
void ccb_constraint_init(const ccb_step_context* step, const ccb_contact_input* in,
                         ccb_constraint* c);

/* Lagged cost/impulse/Hessian, shared by Lagged and regularized Lagged (they differ only in
 * eps_s, set by prepare). */
double ccb_lagged_eval(const ccb_constraint* c, const double vc[3], double gamma[3], double G[9]);
/* gamma_n0 = dt k (-phi0)_+ (1 - d vn0)_+ (formulation-convex §5). */
double ccb_lagged_gn0(const ccb_step_context* step, const ccb_contact_input* in);
/* Returns eps_s of the constraint (Lagged, Similar). */
double ccb_eps_s_tolerance(const ccb_constraint* c, const double gamma[3]);
/* Inactive radius (ccb_approx.inactive_radius) of a law that vanishes wherever
 * v_n - mu |v_t| >= threshold: the largest r with v_n - mu |v_t| >= threshold on the whole box
 * max_k |v_k - vc_k| <= r (there |v_t| <= |vc_t| + sqrt(2) r), less a round-off margin; -1 if
 * there is none. */
double ccb_separation_radius(const double vc[3], double threshold, double mu);
/* Lagged and regularized Lagged: friction from gamma_n0 acts at every velocity, so only a
 * contact with mu gamma_n0 = 0 can be inactive; its normal law vanishes for v_n >= vhat. */
double ccb_lagged_inactive_radius(const ccb_constraint* c, const double vc[3]);

#endif
