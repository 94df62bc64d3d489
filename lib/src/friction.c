/* friction: the regularized friction coefficients of spec formulation-tamsi-hydro §A.3 and the
 * soft-norm friction force and gradient of formulation-tamsi-hydro §A.4-§A.5. */
#include "ccb/friction.h"

#include <math.h>
#include <string.h>

#include "ccb/math.h"
#include "ccb/names.h"

/* the rows of names.c (ccb/names.h) */
_Static_assert(CCB_FRICTION_LIN == 0 && CCB_FRICTION_ATAN == 3,
               "ccb_names_friction follows ccb_friction_model");

const char* ccb_friction_name(ccb_friction_model m) {
    return ccb_enum_name(CCB_ENUM_FRICTION, (int)m);
}

ccb_status ccb_friction_parse(const char* name, ccb_friction_model* m) {
    int v = 0;
    if (m == NULL || ccb_enum_value(CCB_ENUM_FRICTION, name, &v) != CCB_OK) {
        return CCB_E_INVALID;
    }
    *m = (ccb_friction_model)v;
    return CCB_OK;
}

/* atan(x)/x, with the alternating series through x^16/17 for x <= 0.12
 * (formulation-tamsi-hydro §A.4: the truncation error x^18/19 < 2.6e-18 there, below round-off). */
static double atan_over_x(double x) {
    if (x > 0.12) {
        return atan(x) / x;
    }
    const double x2 = x * x;
    double s = 1.0 / 17.0;
    for (int k = 7; k >= 0; --k) { /* Horner in x^2: 1 - x^2/3 + x^4/5 - ... + x^16/17 */
        s = 1.0 / (double)(2 * k + 1) - x2 * s;
    }
    return s;
}

double ccb_friction_mu(ccb_friction_model m, double mu, double s, double* dmu) {
    double f = mu, d = 0.0;
    switch (m) {
    case CCB_FRICTION_LIN: /* mu s for s <= 1 (eq. 7); slope of the branch containing s */
        if (s < 1.0) {
            f = mu * s;
            d = mu;
        }
        break;
    case CCB_FRICTION_TAMSI_QUAD: /* mu s (2 - s) for s < 1 */
        if (s < 1.0) {
            f = mu * s * (2.0 - s);
            d = 2.0 * mu * (1.0 - s);
        }
        break;
    case CCB_FRICTION_STRIBECK5: /* mu S(s), S(x) = 10x^3 - 15x^4 + 6x^5, S'(x) = 30x^2(1-x)^2 */
        if (s < 1.0) {
            f = mu * s * s * s * (10.0 + s * (-15.0 + 6.0 * s));
            d = mu * 30.0 * s * s * (1.0 - s) * (1.0 - s);
        }
        break;
    case CCB_FRICTION_ATAN: /* mu (2/pi) atan(s) */
        f = mu * (2.0 / CCB_PI) * atan(s);
        d = mu * (2.0 / CCB_PI) / (1.0 + s * s);
        break;
    }
    if (dmu) {
        *dmu = d;
    }
    return f;
}

double ccb_friction_ratio(ccb_friction_model m, double mu, double s) {
    switch (m) {
    case CCB_FRICTION_LIN: return s <= 1.0 ? mu : mu / s;
    case CCB_FRICTION_TAMSI_QUAD: return s < 1.0 ? mu * (2.0 - s) : mu / s;
    case CCB_FRICTION_STRIBECK5:
        return s < 1.0 ? mu * s * s * (10.0 + s * (-15.0 + 6.0 * s)) : mu / s;
    case CCB_FRICTION_ATAN: return mu * (2.0 / CCB_PI) * atan_over_x(s);
    }
    return 0.0;
}

void ccb_friction_soft(ccb_friction_model m, double mu, double fn, const double vt[2], double vs,
                       double eps_v, double ft[2], double Dt[4], double* mu_s, double t_out[2]) {
    /* formulation-tamsi-hydro §A.4: soft norm, soft unit vector t (|t| < 1 when eps_v > 0) */
    const double ns = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + eps_v * eps_v);
    double t[2] = {0.0, 0.0};
    if (ns > 0.0) {
        t[0] = vt[0] / ns;
        t[1] = vt[1] / ns;
    }
    const double s = ns / vs;
    double dmu = 0.0;
    const double mus = ccb_friction_mu(m, mu, s, &dmu);
    ft[0] = -mus * fn * t[0];
    ft[1] = -mus * fn * t[1];
    if (Dt) {
        /* formulation-tamsi-hydro §A.5: -dft/dvt = fn [(mu~/|vt|_s)(I - t t^T) + (mu~'/v_s) t t^T];
         * at vt = 0 with eps_v = 0 the limit along any direction is fn mu~'(0)/v_s I. */
        const double a = ns > 0.0 ? mus / ns : dmu / vs, b = dmu / vs;
        for (int i = 0; i < 2; ++i) {
            for (int j = 0; j < 2; ++j) {
                const double tt = t[i] * t[j];
                Dt[2 * i + j] = fn * (a * ((i == j ? 1.0 : 0.0) - tt) + b * tt);
            }
        }
    }
    if (mu_s) {
        *mu_s = mus;
    }
    if (t_out) {
        t_out[0] = t[0];
        t_out[1] = t[1];
    }
}

/* spec: formulation-convex §18.3 (ICF Appendix B, eq. 32): the isotropic law of mu_min at A vt */
void ccb_friction_soft_aniso(ccb_friction_model m, double mu, double mu2, double fn,
                             const double vt[2], double vs, double eps_v, double ft[2],
                             double Dt[4], double* mu_s, double t_out[2]) {
    if (!(mu2 > 0) || mu2 == mu) {
        ccb_friction_soft(m, mu, fn, vt, vs, eps_v, ft, Dt, mu_s, t_out);
        return;
    }
    const double mm = fmin(mu, mu2), a[2] = {mu / mm, mu2 / mm};
    const double u[2] = {a[0] * vt[0], a[1] * vt[1]};
    double t[2];
    ccb_friction_soft(m, mm, fn, u, vs, eps_v, ft, Dt, mu_s, t);
    for (int i = 0; i < 2; ++i) {
        ft[i] *= a[i];
        if (t_out) {
            t_out[i] = a[i] * t[i];
        }
    }
    if (Dt) {
        for (int i = 0; i < 2; ++i) {
            for (int j = 0; j < 2; ++j) {
                Dt[2 * i + j] *= a[i] * a[j];
            }
        }
    }
}

void ccb_friction_force(ccb_friction_model m, double mu, double mu2, double fn, const double vt[2],
                        double vs, double ft[2]) {
    /* formulation-tamsi-hydro §A.3 (ft = -fn (mu~(s)/s) vt/v_s), made anisotropic by
     * formulation-convex §18.3 */
    double a[2] = {1.0, 1.0};
    if (mu2 > 0 && mu2 != mu) {
        const double mm = fmin(mu, mu2);
        a[0] = mu / mm;
        a[1] = mu2 / mm;
        mu = mm;
    }
    const double u[2] = {a[0] * vt[0], a[1] * vt[1]};
    const double ratio = ccb_friction_ratio(m, mu, sqrt(u[0] * u[0] + u[1] * u[1]) / vs);
    ft[0] = -fn * ratio * a[0] * u[0] / vs;
    ft[1] = -fn * ratio * a[1] * u[1] / vs;
}
