/* Similar approximation (spec: formulation-convex §6; ICF §V-C, eqs. (19)-(21)).
 *
 *   z       = v_n - mu |v_t|_s                                   (eq. 19)
 *   gamma_n = n(z),  gamma_t = -mu n(z) t_s                       (eq. 20)
 *   l(v_c)  = l_n(z)                                              (eq. 21)
 *   G_tt = -mu^2 n'(z) t_s t_s^T + mu n(z) (I - t_s t_s^T)/rho,
 *   G_tn = G_nt^T = mu n'(z) t_s,   G_nn = -n'(z).
 * The coefficient of the n' t_s t_s^T term is mu^2 (the ICF text prints mu; formulation-convex §6
 * and §12 item 3 explain the typo; verified by the finite-difference tests in
 * lib/tests/test_approx.c). */
#include "approx_internal.h"

static void similar_prepare(const ccb_step_context* step, const ccb_approx_options* opt,
                            const ccb_contact_input* in, ccb_constraint* c) {
    (void)opt;
    ccb_constraint_init(step, in, c);
    ccb_hc_prepare(c);
    c->eps_s = step->vs;
}

static double similar_eval(const ccb_constraint* c, const double vc[3], double gamma[3],
                           double G[9]) {
    const soft_slip s = ccb_soft_slip(vc, c->eps_s);
    const double z = vc[2] - c->mu * s.norm_s;
    double n, dn;
    const double cost = ccb_hc_eval(c, z, &n, &dn);
    gamma[0] = -c->mu * n * s.ts[0];
    gamma[1] = -c->mu * n * s.ts[1];
    gamma[2] = n;
    if (G) {
        const double a = c->mu * n / s.rho;
        const double b = -c->mu * c->mu * dn;
        for (int i = 0; i < 2; ++i) {
            for (int j = 0; j < 2; ++j) {
                G[3 * i + j] = b * s.ts[i] * s.ts[j] + a * ((i == j) - s.ts[i] * s.ts[j]);
            }
            G[3 * i + 2] = c->mu * dn * s.ts[i];
            G[6 + i] = G[3 * i + 2];
        }
        G[8] = -dn;
    }
    return cost;
}

/* n(z) = 0 for z >= vhat, and z >= v_n - mu |v_t| (|v_t|_s <= |v_t|). */
static double similar_inactive_radius(const ccb_constraint* c, const double vc[3]) {
    return ccb_separation_radius(vc, c->vhat, c->mu);
}

const ccb_approx ccb_approx_similar = {
    "similar",
    "Similar (ICF §V-C): potential of z = v_n - mu |v_t|_s, eps_s = v_s",
    "formulation-convex §6",
    similar_prepare,
    similar_eval,
    ccb_eps_s_tolerance,
    similar_inactive_radius,
};
