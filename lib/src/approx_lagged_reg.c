/* Regularized Lagged (spec: formulation-convex §7; ICF §VIII, eq. (26)).
 *
 * Lagged with a stiction tolerance softened during impacts, computed once per step:
 *   eps_s = max(v_s, sigma w mu gamma_n0).
 * Sustained contacts keep eps_s = v_s; a large impact impulse lowers the tangential stiffness
 * G_t(v_t = 0) = mu gamma_n0 / eps_s to at most 1/(sigma w). Cost, impulse and Hessian are
 * those of Lagged (approx_lagged.c). */
#include <math.h>

#include "approx_internal.h"

static void lagged_reg_prepare(const ccb_step_context* step, const ccb_approx_options* opt,
                               const ccb_contact_input* in, ccb_constraint* c) {
    ccb_constraint_init(step, in, c);
    ccb_hc_prepare(c);
    c->gn0 = ccb_lagged_gn0(step, in);
    c->sigma_w = opt->sigma * in->w;
    c->eps_s = fmax(step->vs, c->sigma_w * in->mu * c->gn0); /* eq. (26) */
}

const ccb_approx ccb_approx_lagged_reg = {
    "lagged-reg",
    "Lagged with the regularized stiction tolerance of ICF eq. (26)",
    "formulation-convex §7",
    lagged_reg_prepare,
    ccb_lagged_eval,
    ccb_eps_s_tolerance,
    ccb_lagged_inactive_radius,
};
