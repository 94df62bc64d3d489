/* ccb/metrics.h — physics metrics of a step that do not depend on the solver
 * (formulation-convex §14; the criteria of ContactBench, Le Lidec et al., T-RO 2024).
 *
 * For the contacts of a step, with impulse gamma_i = (gamma_t, gamma_n) [N s] on body B, contact
 * velocity v_c,i = (v_t, v_n) [m/s] at the end of the step, end-of-step gap
 * phi_i = phi0_i + dt v_n [m] and friction coefficient mu_i (contact frame, normal last):
 *   signorini        sum_i |gamma_n phi|                                  [N s m]
 *   cone             sum_i (|gamma_t| - mu gamma_n)_+                     [N s]
 *   dissipation      sum_i (gamma_t . v_t + mu gamma_n |v_t|)  (>= 0 in the cone) [J]
 *   complementarity  sum_i |gamma . (v_c + (0, 0, mu |v_t|))|             [J]
 * (the last with De Saxce's correction of the normal velocity), and the relative momentum-balance
 * residual |D (A (v - v*) - J^T gamma)| / max(|D A (v - v0)|, |D J^T gamma|), D = diag(A)^-1/2
 * [-]. Each is zero for an exact rigid Coulomb contact; compliant models have signorini > 0 by
 * design (they penetrate while they push). A contact with anisotropic friction (material mu2 > 0)
 * adds the terms of mu_min = min(mu, mu2) in the scaled variables gamma_t A^-1 and A v_t, A =
 * diag(mu, mu2)/mu_min (formulation-convex §18.2): its cone term is mu_min (|M^-1 gamma_t| -
 * gamma_n)_+ and its dissipation gamma_t . v_t + gamma_n |M v_t|, M = diag(mu, mu2). */
#ifndef CCB_METRICS_H
#define CCB_METRICS_H

#include "ccb/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccb_physics_metrics {
    double momentum;        /* relative momentum-balance residual [-] (NaN: no contact problem) */
    double signorini;       /* [N s m] */
    double cone;            /* [N s] */
    double dissipation;     /* [J] */
    double complementarity; /* [J] */
} ccb_physics_metrics;

/* Adds one contact's terms to m (m->momentum untouched). */
CCB_API void ccb_physics_add_contact(const double gamma[3], const double vc[3], double phi,
                                     double mu, ccb_physics_metrics* m);

/* The metrics of the sim's last step. Frozen-step solvers (Newton, TAMSI): all five; the ODE
 * integrators (configuration not frozen, no step problem): the contact terms from the contacts
 * queried at the end of the sampling interval with gamma = f dt and phi their gap, momentum NaN.
 * CCB_E_INVALID before the first step; CCB_E_NOMEM (its vectors are grown once and reused, so a
 * run of steps allocates nothing after the first). */
CCB_API ccb_status ccb_sim_physics_metrics(ccb_sim* sim, ccb_physics_metrics* m);

#ifdef __cplusplus
}
#endif
#endif
