/* tamsi_tals: the Transition-Aware Line Search limiter of one contact.
 *
 * spec: formulation-tamsi-hydro §C.2 (TAMSI paper §III-A, Fig. 3; Drake TalsLimiter). With
 * eps_v = rho v_s, v1 = v + dv, x = |v|/v_s, x1 = |v1|/v_s, in this order:
 *   I    |dv| < eps_v                      alpha = 1
 *   II   x < rho and x1 > 1                alpha = v_s/(2|dv|)          (from ~0 to sliding)
 *   III  x > 1 and x1 < rho                alpha = 1 - v_s/(2|dv|)      (sliding to ~0)
 *        x < 1                             alpha = 1                    (start inside)
 *   IV   x1 < 1                            alpha = 1                    (land inside)
 *   V    v.dv < 0, a* = -v.dv/|dv|^2 < 1, va = v + a* dv:
 *            |va| < eps_v                  alpha = a* - v_s/(2|dv|)     (through zero)
 *            |va| < v_s                    alpha = a*                   (chord crosses disk)
 *   VI   cos(v, v1) > cos(theta_max)       alpha = 1, else the root in (0, 1] of
 *        a alpha^2 + b alpha + c = 0 that makes the angle theta_max (squared cosine), with
 *        xd = v.dv/v_s^2, dx = |dv|/v_s, cm2 = cos^2(theta_max):
 *        a = x^2 dx^2 cm2 - xd^2,  b = 2 x^2 xd (cm2 - 1),  c = x^4 (cm2 - 1)
 *        solved without cancellation: q = -(b + sign(b) sqrt(b^2 - 4ac))/2, roots q/a, c/q. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "ccb/math.h"
#include "ccb/tamsi.h"
#include "internal.h"
#include "tamsi_internal.h"

ccb_tals_params ccb_tals_params_default(void) {
    ccb_tals_params p;
    memset(&p, 0, sizeof p); /* defined padding: params compare bytewise */
    p.vs = 1e-4;
    p.rho = 1e-2;
    p.theta_max = CCB_PI / 3.0;
    return p;
}

ccb_status ccb_tals_params_check(const ccb_tals_params* p, char* msg, size_t n) {
    if (p == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "TALS parameters: NULL pointer");
    }
    if (!(isfinite(p->vs) && p->vs > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "TALS: stiction tolerance v_s must be finite and > 0 m/s (got %g)",
                          p->vs);
    }
    return ccb_tals_check_limits(p->rho, p->theta_max, msg, n);
}

ccb_status ccb_tals_check_limits(double rho, double theta_max, char* msg, size_t n) {
    if (!(rho > 0 && rho < 1)) {
        return ccb_errorf(msg, n, CCB_E_INVALID,
                          "TALS: relative tolerance rho must be in (0, 1) (got %g)", rho);
    }
    if (!(theta_max > 0 && theta_max < CCB_PI)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "TALS: theta_max must be in (0, pi) (got %g)",
                          theta_max);
    }
    return CCB_OK;
}

static double dot2(const double a[2], const double b[2]) {
    return a[0] * b[0] + a[1] * b[1];
}

/* Case VI: the angle limiter (Uchida, Sherman & Delp 2015, as in Drake). */
static double angle_limit(const ccb_tals_params* p, const double v[2], const double dv[2], double x,
                          ccb_tals_case* which) {
    const double v1[2] = {v[0] + dv[0], v[1] + dv[1]};
    const double n0 = sqrt(dot2(v, v)), n1 = sqrt(dot2(v1, v1));
    const double cmax = cos(p->theta_max);
    const double cos1 = dot2(v, v1) / (n0 * n1);
    if (cos1 > cmax) {
        *which = CCB_TALS_ANGLE_FREE;
        return 1.0;
    }
    const double vs2 = p->vs * p->vs;
    const double xd = dot2(v, dv) / vs2, dx = sqrt(dot2(dv, dv)) / p->vs, cm2 = cmax * cmax;
    const double x2 = x * x;
    const double a = x2 * dx * dx * cm2 - xd * xd;
    const double b = 2.0 * x2 * xd * (cm2 - 1.0);
    const double c = x2 * x2 * (cm2 - 1.0);
    *which = CCB_TALS_ANGLE;
    if (fabs(a) < DBL_EPSILON) {
        return -c / b;
    }
    const double disc = b * b - 4.0 * a * c;
    if (!(disc > 0)) {
        *which = CCB_TALS_FAILED;
        return -1.0;
    }
    const double q = -0.5 * (b + (b > 0 ? 1.0 : -1.0) * sqrt(disc));
    const double a1 = q / a, a2 = c / q;
    return (a1 > 0 && a2 > 0) ? fmin(a1, a2) : fmax(a1, a2);
}

double ccb_tals_alpha(const ccb_tals_params* p, const double v[2], const double dv[2],
                      ccb_tals_case* which) {
    ccb_tals_case w = CCB_TALS_SMALL_UPDATE;
    double alpha = 1.0;
    const double eps_v = p->rho * p->vs;
    const double ndv = sqrt(dot2(dv, dv));
    const double v1[2] = {v[0] + dv[0], v[1] + dv[1]};
    const double x = sqrt(dot2(v, v)) / p->vs, x1 = sqrt(dot2(v1, v1)) / p->vs;
    if (ndv < eps_v) { /* I */
        w = CCB_TALS_SMALL_UPDATE;
    } else if (x < p->rho && x1 > 1.0) { /* II */
        w = CCB_TALS_FROM_ZERO;
        alpha = p->vs / (2.0 * ndv);
    } else if (x > 1.0 && x1 < p->rho) { /* III */
        w = CCB_TALS_TO_ZERO;
        alpha = 1.0 - p->vs / (2.0 * ndv);
    } else if (x < 1.0 || x1 < 1.0) { /* start inside; IV: land inside */
        w = CCB_TALS_INSIDE;
    } else {
        int done = 0;
        const double vdv = dot2(v, dv);
        if (vdv < 0) { /* V */
            const double as = -vdv / (ndv * ndv);
            if (as < 1.0) {
                const double va[2] = {v[0] + as * dv[0], v[1] + as * dv[1]};
                const double nva = sqrt(dot2(va, va));
                if (nva < eps_v) {
                    w = CCB_TALS_CROSSING;
                    alpha = as - p->vs / (2.0 * ndv);
                    done = 1;
                } else if (nva < p->vs) {
                    w = CCB_TALS_CROSSING;
                    alpha = as;
                    done = 1;
                }
            }
        }
        if (!done) { /* VI */
            alpha = angle_limit(p, v, dv, x, &w);
        }
    }
    if (which) {
        *which = w;
    }
    return alpha;
}
