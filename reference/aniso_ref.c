/* Anisotropic plane (spec: formulation-convex §18.5; ICF Appendix B, eq. (31)): closed forms of a
 * point mass sliding under Coulomb friction of maximum dissipation with the tensor
 * M = diag(mu1, mu2), and of its breakaway under a constant force.
 *
 * Free slide: v1' = -g mu1^2 v1/|Mv|, v2' = -g mu2^2 v2/|Mv|, so |v1| |v2|^-r = C with
 * r = mu1^2/mu2^2 (18.4). With w = |v2| running from w0 down to 0, dt = |Mv| dw/(g mu2^2 w) and
 * the time, and the displacements along and across the grain, are the integrals (18.5) over w.
 * In u = ln(w0/w) the integrands are smooth sums of exponentials on [0, inf) (the time's
 * w^(r-1) singularity becomes e^(-r u)), which GSL's QAGIU rule integrates to 1e-12.
 *
 * Breakaway: the body rests iff |M^-1 F| <= m g (18.6); otherwise it slides on the straight line
 * u(phi) along which F/m - g M^2 u/|Mu| is parallel to u (18.7), found by Brent's method. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <stdio.h>

#include "reference.h"

typedef struct slide {
    double mu1, mu2, g, r, a,
        b;     /* a = mu1 C w0^r, b = mu2 w0: |Mv| = sqrt(a^2 e^-2ru + b^2 e^-2u) */
    int which; /* 0: time, 1: x1, 2: x2 */
} slide;

/* The integrands of (18.5) in u = ln(w0/w) (dw/w = -du), so that the time's w^(r-1) becomes
 * e^(-r u) on [0, inf): dt = |Mv|/(g mu2^2) du, dx1 = v1 dt, dx2 = w dt with
 * v1 = C w0^r e^(-r u) = (a/mu1) e^(-r u) and w = (b/mu2) e^(-u). */
static double integrand(double u, void* p_) {
    const slide* p = p_;
    const double e1 = exp(-p->r * u), e2 = exp(-u);
    const double mv = hypot(p->a * e1, p->b * e2);
    const double dt = mv / (p->g * p->mu2 * p->mu2);
    return p->which == 0   ? dt
           : p->which == 1 ? dt * (p->a / p->mu1) * e1
                           : dt * (p->b / p->mu2) * e2;
}

static int check(const ccb_ref_aniso* p, char* msg, size_t n) {
    if (!(isfinite(p->mu1) && p->mu1 > 0 && isfinite(p->mu2) && p->mu2 > 0 && isfinite(p->g) &&
          p->g > 0)) {
        snprintf(msg, n, "aniso reference: mu1, mu2 and g must be finite and > 0 (got %g, %g, %g)",
                 p->mu1, p->mu2, p->g);
        return -1;
    }
    return 0;
}

int ccb_ref_aniso_slide_point(const ccb_ref_aniso* p, double v1, double v2, double s, double* t,
                              double x[2], double w[2], char* msg, size_t n) {
    if (check(p, msg, n) != 0) {
        return -1;
    }
    if (!(isfinite(v1) && isfinite(v2) && s >= 0 && s <= 1)) {
        snprintf(msg, n, "aniso reference: velocity (%g, %g) must be finite, s = %g in [0, 1]", v1,
                 v2, s);
        return -1;
    }
    const double a1 = fabs(v1), a2 = fabs(v2), sg1 = v1 < 0 ? -1.0 : 1.0, sg2 = v2 < 0 ? -1.0 : 1.0;
    if (a1 == 0 || a2 == 0) { /* along an axis: uniform deceleration g mu_i */
        const int ax = a2 == 0 ? 0 : 1;
        const double V = a2 == 0 ? a1 : a2, mu = ax == 0 ? p->mu1 : p->mu2, a = p->g * mu;
        const double ws = s * V;
        *t = (V - ws) / a;
        x[ax] = (ax == 0 ? sg1 : sg2) * (V * V - ws * ws) / (2 * a);
        x[1 - ax] = 0.0;
        w[ax] = (ax == 0 ? sg1 : sg2) * ws;
        w[1 - ax] = 0.0;
        return 0;
    }
    slide sl = {p->mu1, p->mu2, p->g, p->mu1 * p->mu1 / (p->mu2 * p->mu2), 0, 0, 0};
    sl.a = p->mu1 * a1; /* mu1 C w0^r = mu1 |v1(0)| */
    sl.b = p->mu2 * a2;
    gsl_set_error_handler_off();
    gsl_integration_workspace* ws = gsl_integration_workspace_alloc(2000);
    if (ws == NULL) {
        snprintf(msg, n, "aniso reference: out of memory");
        return -1;
    }
    /* the integrands decay at the rates r and 1 (and their sum): pieces [0, 40/fast],
     * [40/fast, 40/slow] and [40/slow, inf) keep each one's scale inside one piece, so that no
     * rule steps over a narrow peak at u = 0 when r is far from 1 */
    const double fast = fmax(sl.r, 1.0), slow = fmin(sl.r, 1.0), umax = s > 0 ? -log(s) : INFINITY;
    const double cut[3] = {fmin(40.0 / fast, umax), fmin(40.0 / slow, umax), umax};
    double res[3] = {0, 0, 0};
    int rc = 0;
    for (int k = 0; k < 3 && rc == 0; ++k) {
        sl.which = k;
        gsl_function F = {integrand, &sl};
        double lo = 0.0;
        for (int piece = 0; piece < 3 && rc == 0 && lo < umax; ++piece) {
            double part = 0.0, err;
            /* [each piece to 1e-12 of itself, or 1e-14 of what came before] */
            const double eabs = 1e-14 * fabs(res[k]);
            const int st = isinf(cut[piece])
                               ? gsl_integration_qagiu(&F, lo, eabs, 1e-12, 2000, ws, &part, &err)
                               : gsl_integration_qag(&F, lo, cut[piece], eabs, 1e-12, 2000,
                                                     GSL_INTEG_GAUSS61, ws, &part, &err);
            if (st != GSL_SUCCESS || !isfinite(part)) {
                snprintf(msg, n,
                         "aniso reference: quadrature of (18.5) did not reach 1e-12 (mu1 = %g, "
                         "mu2 = %g)",
                         p->mu1, p->mu2);
                rc = -1;
            }
            res[k] += part;
            lo = cut[piece];
        }
    }
    gsl_integration_workspace_free(ws);
    if (rc != 0) {
        return -1;
    }
    const double wend = s * a2;
    *t = res[0];
    x[0] = sg1 * res[1];
    x[1] = sg2 * res[2];
    w[0] = sg1 * a1 * pow(s, sl.r); /* C (s w0)^r */
    w[1] = sg2 * wend;
    return 0;
}

int ccb_ref_aniso_slide_solve(const ccb_ref_aniso* p, double v1, double v2,
                              ccb_ref_aniso_slide* out, char* msg, size_t n) {
    double x[2], w[2];
    if (ccb_ref_aniso_slide_point(p, v1, v2, 0.0, &out->T, x, w, msg, n) != 0) {
        return -1;
    }
    out->X1 = x[0];
    out->X2 = x[1];
    out->r = p->mu1 * p->mu1 / (p->mu2 * p->mu2);
    out->lnC = v1 != 0 && v2 != 0 ? log(fabs(v1)) - out->r * log(fabs(v2)) : NAN;
    return 0;
}

typedef struct push {
    double mu1, mu2, f, theta;
} push;

/* (18.7) divided by g: f sin(phi - theta) - (mu1^2 - mu2^2) sin(phi) cos(phi)/|Mu| */
static double push_residual(double phi, void* u) {
    const push* p = u;
    const double c = cos(phi), s = sin(phi);
    const double mu = sqrt(p->mu1 * p->mu1 * c * c + p->mu2 * p->mu2 * s * s);
    return p->f * sin(phi - p->theta) - (p->mu1 * p->mu1 - p->mu2 * p->mu2) * s * c / mu;
}

int ccb_ref_aniso_push_solve(const ccb_ref_aniso* p, double f, double theta,
                             ccb_ref_aniso_push* out, char* msg, size_t n) {
    if (check(p, msg, n) != 0) {
        return -1;
    }
    if (!(isfinite(f) && f >= 0 && theta >= 0 && theta <= 0.5 * M_PI)) {
        snprintf(msg, n,
                 "aniso reference: force f = %g (in m g) must be finite >= 0 and its angle %g in "
                 "[0, pi/2]",
                 f, theta);
        return -1;
    }
    const double e1 = f * cos(theta) / p->mu1, e2 = f * sin(theta) / p->mu2;
    out->phi = theta;
    out->lambda = 0.0;
    out->slides = e1 * e1 + e2 * e2 > 1.0; /* (18.6) */
    if (!out->slides) {
        return 0;
    }
    push u = {p->mu1, p->mu2, f, theta};
    if (theta > 0 && theta < 0.5 * M_PI && p->mu1 != p->mu2) {
        /* (18.7) is -f sin(theta) < 0 at phi = 0 and f cos(theta) > 0 at phi = pi/2 */
        out->phi = ccb_ref_brent(push_residual, &u, 0.0, 0.5 * M_PI);
        if (!isfinite(out->phi)) {
            snprintf(msg, n, "aniso reference: no slip direction found for theta = %g", theta);
            return -1;
        }
    }
    const double c = cos(out->phi), s = sin(out->phi);
    out->lambda = p->g * (f * cos(out->phi - theta) -
                          sqrt(p->mu1 * p->mu1 * c * c + p->mu2 * p->mu2 * s * s));
    return 0;
}
