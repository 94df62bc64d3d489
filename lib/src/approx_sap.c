/* SAP approximation (spec: formulation-convex §4; Castro, Permenter, Han 2022; ICF §V-A).
 *
 * Per-step regularization and bias (formulation-convex §4.3):
 *   R_t = sigma w,  R_n = max(beta^2 w / (4 pi^2), 1/(dt k (dt + tau_d))),
 *   vhat_c = [0, 0, vn_hat],  vn_hat = -phi0 / (dt + tau_d).
 * Unprojected impulse (formulation-convex §4.4): y = -R^{-1}(v_c - vhat_c), y_r = |y_t|, that = y_t
 * / y_r,
 *   mu_tilde = mu sqrt(R_t/R_n), mu_hat = mu R_t/R_n.
 * Projection on the friction cone in the R norm, three regions tested in this order
 * (formulation-convex §4.5):
 *   stiction    y_r <= mu y_n          gamma = y                     l = 1/2 y^T R y
 *   sliding     y_n > -mu_hat y_r      gamma_n = (y_n + mu_hat y_r)/(1 + mu_tilde^2),
 *                                gamma_t = mu gamma_n that     l = 1/2 R_n (1+mu_tilde^2) gamma_n^2
 *   separation  otherwise              gamma = 0                     l = 0
 * Hessian G = -dgamma/dv_c (formulation-convex §4.6): stiction R^{-1}; separation 0; sliding
 *   G = u u^T / (R_n (1 + mu_tilde^2)) + mu gamma_n/(R_t y_r) [P_perp(that) 0; 0 0],
 *   u = [mu that; 1].
 * For mu = 0 the sliding region is y_n > 0 and the tangential term vanishes; y_r > 0 holds in
 * the sliding region for every mu, so that is always defined there. */
#include <math.h>

#include "approx_internal.h"
#include "ccb/math.h"

static void sap_prepare(const ccb_step_context* step, const ccb_approx_options* opt,
                        const ccb_contact_input* in, ccb_constraint* c) {
    ccb_constraint_init(step, in, c);
    const double dt = step->dt;
    const double tau = in->tau_d;
    const double w = in->w;
    const double four_pi2 = 4.0 * CCB_PI * CCB_PI;
    c->sigma_w = opt->sigma * w;
    /* R_t, R_n and vhat_n: formulation-convex §4.3; mu_tilde^2 and mu_hat: §4.4 */
    c->Rt = opt->sigma * w;
    c->Rn = fmax(opt->beta * opt->beta * w / four_pi2, 1.0 / (dt * in->k * (dt + tau)));
    c->vn_hat = -in->phi0 / (dt + tau);
    c->mu_tilde2 = in->mu * in->mu * c->Rt / c->Rn;
    c->mu_hat = in->mu * c->Rt / c->Rn;
}

static double sap_eval(const ccb_constraint* c, const double vc[3], double gamma[3], double G[9]) {
    const double mu = c->mu;
    const double y0 = -vc[0] / c->Rt;
    const double y1 = -vc[1] / c->Rt;
    const double yn = -(vc[2] - c->vn_hat) / c->Rn;
    const double yr = sqrt(y0 * y0 + y1 * y1);

    /* stiction: gamma = y, G = R^{-1}. y_n >= 0 is part of the test: for mu = 0 and y_t = 0 the
     * product mu y_n is -0 when y_n < 0, and 0 <= -0 would take a separating contact for a
     * sticking one (gamma_n = y_n < 0) */
    if (yr <= mu * yn && yn >= 0) {
        gamma[0] = y0;
        gamma[1] = y1;
        gamma[2] = yn;
        if (G) {
            for (int i = 0; i < 9; ++i) {
                G[i] = 0.0;
            }
            G[0] = G[4] = 1.0 / c->Rt;
            G[8] = 1.0 / c->Rn;
        }
        return 0.5 * (c->Rt * (y0 * y0 + y1 * y1) + c->Rn * yn * yn);
    }
    if (yn > -c->mu_hat * yr) { /* sliding (yr > 0 here) */
        const double s = 1.0 + c->mu_tilde2;
        const double gn = (yn + c->mu_hat * yr) / s;
        const double t[2] = {y0 / yr, y1 / yr};
        gamma[0] = mu * gn * t[0];
        gamma[1] = mu * gn * t[1];
        gamma[2] = gn;
        if (G) {
            const double u[3] = {mu * t[0], mu * t[1], 1.0};
            const double a = 1.0 / (c->Rn * s);
            const double b = mu * gn / (c->Rt * yr);
            for (int i = 0; i < 3; ++i) {
                for (int j = 0; j < 3; ++j) {
                    G[3 * i + j] = a * u[i] * u[j];
                }
            }
            for (int i = 0; i < 2; ++i) {
                for (int j = 0; j < 2; ++j) {
                    G[3 * i + j] += b * ((i == j) - t[i] * t[j]);
                }
            }
        }
        return 0.5 * c->Rn * s * gn * gn;
    }
    /* separation */
    gamma[0] = gamma[1] = gamma[2] = 0.0;
    if (G) {
        for (int i = 0; i < 9; ++i) {
            G[i] = 0.0;
        }
    }
    return 0.0;
}

/* Separation holds where y_n < 0 and y_n + mu_hat y_r <= 0, i.e. (mu_hat R_n / R_t = mu)
 * v_n - mu |v_t| > vn_hat: the shape of ccb_separation_radius. */
static double sap_inactive_radius(const ccb_constraint* c, const double vc[3]) {
    return ccb_separation_radius(vc, c->vn_hat, c->mu);
}

static double sap_stiction_tolerance(const ccb_constraint* c, const double gamma[3]) {
    return c->sigma_w * c->mu * gamma[2]; /* ICF eq. (25) */
}

const ccb_approx ccb_approx_sap = {
    "sap",
    "SAP (Castro et al. 2022): R-norm projection on the friction cone, Kelvin-Voigt tau_d",
    "formulation-convex §4",
    sap_prepare,
    sap_eval,
    sap_stiction_tolerance,
    sap_inactive_radius,
};
