/* Lagged approximation (spec: formulation-convex §5; ICF §V-B, eq. (18)).
 *
 * Friction uses the previous-step normal impulse, the normal impulse is implicit:
 *   gamma_n0 = dt k (-phi0)_+ (1 - d vn0)_+                     (frozen for the step)
 *   gamma_t  = -mu gamma_n0 t_s,   t_s = v_t / sqrt(|v_t|^2 + eps_s^2)
 *   gamma_n  = n(v_n)                                             (Hunt & Crossley,
 * formulation-convex §2.2)
 *   l(v_c)   = mu gamma_n0 |v_t|_s + l_n(v_n)                     (separable)
 *   G        = [ mu gamma_n0 (I - t_s t_s^T)/rho   0 ;  0   -n'(v_n) ],  rho = sqrt(|v_t|^2+eps^2)
 * Properties: |gamma_t| < mu gamma_n0, G_t(v_t = 0) = mu gamma_n0/eps_s, no gliding, consistent. */
#include "approx_internal.h"

double ccb_lagged_gn0(const ccb_step_context* step, const ccb_contact_input* in) {
    const double x = -in->phi0 > 0 ? -in->phi0 : 0.0;
    const double f = 1.0 - in->d * in->vn0;
    return step->dt * in->k * x * (f > 0 ? f : 0.0);
}

static void lagged_prepare(const ccb_step_context* step, const ccb_approx_options* opt,
                           const ccb_contact_input* in, ccb_constraint* c) {
    (void)opt;
    ccb_constraint_init(step, in, c);
    ccb_hc_prepare(c);
    c->gn0 = ccb_lagged_gn0(step, in);
    c->eps_s = step->vs;
}

double ccb_lagged_eval(const ccb_constraint* c, const double vc[3], double gamma[3], double G[9]) {
    double n, dn;
    const double ln = ccb_hc_eval(c, vc[2], &n, &dn);
    const double mg = c->mu * c->gn0;
    if (mg == 0.0) { /* no friction this step (e.g. a contact not touching at its start) */
        gamma[0] = gamma[1] = 0.0;
        gamma[2] = n;
        if (G) {
            for (int k = 0; k < 8; ++k) {
                G[k] = 0.0;
            }
            G[8] = -dn;
        }
        return ln;
    }
    const soft_slip s = ccb_soft_slip(vc, c->eps_s);
    gamma[0] = -mg * s.ts[0];
    gamma[1] = -mg * s.ts[1];
    gamma[2] = n;
    if (G) {
        const double a = mg / s.rho;
        G[0] = a * (1.0 - s.ts[0] * s.ts[0]);
        G[1] = -a * s.ts[0] * s.ts[1];
        G[2] = 0.0;
        G[3] = G[1];
        G[4] = a * (1.0 - s.ts[1] * s.ts[1]);
        G[5] = 0.0;
        G[6] = 0.0;
        G[7] = 0.0;
        G[8] = -dn;
    }
    return mg * s.norm_s + ln;
}

const ccb_approx ccb_approx_lagged = {
    "lagged",
    "Lagged (ICF §V-B): friction from the previous-step normal impulse, eps_s = v_s",
    "formulation-convex §5",
    lagged_prepare,
    ccb_lagged_eval,
    ccb_eps_s_tolerance,
    ccb_lagged_inactive_radius,
};
