/* ccb/friction.h — regularized Coulomb friction of the compliant (non-convex) models.
 *
 * spec: formulation-tamsi-hydro §A.3-§A.5 (TAMSI paper §II, eqs. 6-7; Drake TamsiSolver and
 * continuous point contact). The friction force of a contact with normal force fn >= 0 and
 * tangential velocity vt (2-vector, contact frame) is
 *     ft = -mu~(s) fn vt/|vt|,   s = |vt|/v_s,
 * where mu~ is one of four regularizations of the Coulomb coefficient mu (table in
 * formulation-tamsi-hydro §A.3):
 *     LIN         mu s (s <= 1), mu (s > 1)                          C0, paper eq. (7)
 *     TAMSI_QUAD  mu s (2 - s) (s < 1), mu (s >= 1)                   C1, Drake TAMSI default
 *     STRIBECK5   mu S(s) (s < 1), mu (s >= 1), S = 10s^3-15s^4+6s^5   C2, Drake continuous
 *     ATAN        mu (2/pi) atan(s)                                   Cinf, Drake hydroelastic
 * (STRIBECK5 with equal static and dynamic coefficients, as every ccb case uses.) All four are
 * non-decreasing (mu~' >= 0), so the friction Jacobian is SPSD (formulation-tamsi-hydro §A.5). At
 * the LIN kink the derivative of the branch containing s is used (0 at s = 1 exactly, Drake's
 * convention). */
#ifndef CCB_FRICTION_H
#define CCB_FRICTION_H

#include "ccb/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ccb_friction_model {
    CCB_FRICTION_LIN = 0,        /* paper eq. (7) */
    CCB_FRICTION_TAMSI_QUAD = 1, /* Drake TamsiSolver::RegularizedFriction */
    CCB_FRICTION_STRIBECK5 = 2,  /* Drake continuous point contact (mu_s = mu_d) */
    CCB_FRICTION_ATAN = 3        /* Drake continuous hydroelastic tractions */
} ccb_friction_model;

#define CCB_FRICTION_NMODELS 4

/* Command-line name ("lin", "quad", "stribeck5", "atan"), or NULL for an invalid value. */
CCB_API const char* ccb_friction_name(ccb_friction_model m);
/* Parses a name of ccb_friction_name; CCB_E_INVALID for an unknown one. */
CCB_API ccb_status ccb_friction_parse(const char* name, ccb_friction_model* m);

/* mu~(s) for s >= 0 [-] and its derivative mu~'(s) (may be NULL) [-]. */
CCB_API double ccb_friction_mu(ccb_friction_model m, double mu, double s, double* dmu);
/* mu~(s)/s [-], finite at s = 0 (its limit mu~'(0)): the friction force is
 * ft = -fn (mu~(s)/s) vt/v_s without dividing by |vt|. */
CCB_API double ccb_friction_ratio(ccb_friction_model m, double mu, double s);

/* Regularized friction of one contact with the soft norm of Drake's discrete solver
 * (formulation-tamsi-hydro §A.4): |vt|_s = sqrt(|vt|^2 + eps_v^2), t = vt/|vt|_s, s = |vt|_s/v_s;
 * writes
 *   ft[2]  = -mu~(s) fn t                                                       [N]
 *   Dt[4]  = -dft/dvt = fn [ (mu~/|vt|_s)(I - t t^T) + (mu~'/v_s) t t^T ]  (2x2 row-major,
 *            SPSD; may be NULL)                                               [N s/m]
 *   *mu_s  = mu~(s) (may be NULL), *t_out[2] = t (may be NULL).
 * fn >= 0 [N], v_s > 0 [m/s], eps_v >= 0 [m/s]. Exact derivative also for eps_v > 0
 * (formulation-tamsi-hydro §A.5). */
CCB_API void ccb_friction_soft(ccb_friction_model m, double mu, double fn, const double vt[2],
                               double vs, double eps_v, double ft[2], double Dt[4], double* mu_s,
                               double t_out[2]);

/* Anisotropic regularized friction (formulation-convex §18.3; ICF Appendix B): the tensor
 * M = diag(mu, mu2) = mu_min A along (t1, t2), mu_min = min(mu, mu2). The isotropic law of mu_min
 * at the scaled slip u = A vt, mapped back: ft = A ft_iso(u), Dt = A Dt_iso(u) A (SPSD, eq. 32),
 * t_out = A t_iso (so ft = -mu~ fn t_out), *mu_s = mu~(|u|_s/v_s) of mu_min. It saturates on the
 * ellipse |M^-1 ft| = fn in the direction of maximum dissipation -M^2 vt/|M vt| (eq. 31); the
 * stiction tolerance of direction e is v_s/|A e| <= v_s. mu2 = 0 or mu2 = mu: ccb_friction_soft.
 * */
CCB_API void ccb_friction_soft_aniso(ccb_friction_model m, double mu, double mu2, double fn,
                                     const double vt[2], double vs, double eps_v, double ft[2],
                                     double Dt[4], double* mu_s, double t_out[2]);
/* The continuous model's friction force ft[2] [N] (ccb_friction_ratio) with the tensor
 * diag(mu, mu2) as above: ft = -fn (mu~(s)/s) A^2 vt/v_s, s = |A vt|/v_s (mu2 = 0: isotropic). */
CCB_API void ccb_friction_force(ccb_friction_model m, double mu, double mu2, double fn,
                                const double vt[2], double vs, double ft[2]);

#ifdef __cplusplus
}
#endif
#endif
