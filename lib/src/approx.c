/* approx: registry of the convex approximations, options, and the Hunt & Crossley normal law.
 *
 * Hunt & Crossley with linear elasticity (spec: formulation-convex §2.2; ICF eqs. (22)-(23)):
 *   f_n(phi, v) = k (-phi)_+ (1 - d v)_+,   n(v) = dt f_n(phi0 + dt v, v),
 *   n(v) > 0  iff  v < vhat = min(-phi0/dt, 1/d).
 * The potential l_n = -N(v) with N' = n is evaluated in a shifted origin to avoid cancellation:
 * with Delta = vhat - v >= 0, xhat = -phi0 - dt vhat >= 0 and chat = 1 - d vhat >= 0 (one of
 * them is 0 at the breaking point),
 *   n(v)   = dt k (xhat + dt Delta)(chat + d Delta),
 *   n'(v)  = -dt k [dt (chat + d Delta) + d (xhat + dt Delta)] <= 0,
 *   l_n(v) = integral_v^vhat n = dt k [xhat chat Delta + (xhat d + dt chat) Delta^2/2
 *                                      + dt d Delta^3/3]   (every term >= 0),
 * and l_n = n = n' = 0 for v >= vhat. This equals the spec's -N^+(min(v, vhat)) + N^+(vhat):
 * a constant shift (irrelevant to the minimizer) that makes inactive contacts cost exactly 0. */
#include <math.h>
#include <string.h>

#include "approx_internal.h"
#include "internal.h"

/* The built-in approximations, then those added with ccb_approx_register (process-wide; a
 * program registers its own before it creates simulations, like GSL's user-defined steppers).
 * A new built-in is one file src/approx_NAME.c defining `const ccb_approx ccb_approx_NAME` and one
 * entry X(NAME) here (guide §12). */
#define CCB_BUILTIN_APPROXIMATIONS(X) X(sap) X(similar) X(lagged) X(lagged_reg)

#define CCB_DECLARE_APPROX(n) extern const ccb_approx ccb_approx_##n;
CCB_BUILTIN_APPROXIMATIONS(CCB_DECLARE_APPROX)
#define CCB_APPROX_ENTRY(n) &ccb_approx_##n,
static const ccb_approx* const g_builtin[] = {CCB_BUILTIN_APPROXIMATIONS(CCB_APPROX_ENTRY)};
#define NBUILTIN ((int)(sizeof g_builtin / sizeof g_builtin[0]))
static const ccb_approx* g_added[CCB_APPROX_MAX_REGISTERED];
static int g_nadded;

int ccb_approx_is_builtin(const ccb_approx* a) {
    for (int i = 0; i < NBUILTIN; ++i) {
        if (a == g_builtin[i]) {
            return 1;
        }
    }
    return 0;
}

int ccb_approx_count(void) {
    return NBUILTIN + g_nadded;
}

const ccb_approx* ccb_approx_get(int i) {
    if (i < 0 || i >= ccb_approx_count()) {
        return NULL;
    }
    return i < NBUILTIN ? g_builtin[i] : g_added[i - NBUILTIN];
}

ccb_status ccb_approx_register(const ccb_approx* a, char* msg, size_t msg_size) {
    if (a == NULL || a->name == NULL || a->name[0] == '\0' || a->title == NULL ||
        a->prepare == NULL || a->eval == NULL || a->stiction_tolerance == NULL) {
        return ccb_errorf(msg, msg_size, CCB_E_INVALID,
                          "approx_register: an approximation needs a name, a title, prepare, "
                          "eval and stiction_tolerance");
    }
    for (const char* c = a->name; *c; ++c) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-')) {
            return ccb_errorf(msg, msg_size, CCB_E_INVALID,
                              "approx_register: name '%s' may only hold a-z, 0-9 and '-'", a->name);
        }
    }
    if (ccb_approx_find(a->name) != NULL) {
        return ccb_errorf(msg, msg_size, CCB_E_INVALID,
                          "approx_register: an approximation named '%s' exists", a->name);
    }
    if (g_nadded == CCB_APPROX_MAX_REGISTERED) {
        return ccb_errorf(msg, msg_size, CCB_E_INVALID,
                          "approx_register: at most %d approximations can be added",
                          CCB_APPROX_MAX_REGISTERED);
    }
    g_added[g_nadded++] = a;
    return CCB_OK;
}

const ccb_approx* ccb_approx_find(const char* name) {
    if (name == NULL) {
        return NULL;
    }
    for (int i = 0; i < ccb_approx_count(); ++i) {
        if (strcmp(ccb_approx_get(i)->name, name) == 0) {
            return ccb_approx_get(i);
        }
    }
    return NULL;
}

ccb_approx_options ccb_approx_options_default(void) {
    ccb_approx_options o;
    memset(&o, 0, sizeof o); /* defined padding: params compare bytewise */
    o.sigma = 1e-3;          /* Drake sap_driver.cc */
    o.beta = 1.0;            /* Drake sap_near_rigid_threshold */
    return o;
}

ccb_status ccb_approx_options_check(const ccb_approx_options* o, char* msg, size_t n) {
    if (o == NULL) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "approximation options: NULL pointer");
    }
    if (!(isfinite(o->sigma) && o->sigma > 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "sigma must be finite and > 0 (got %g)", o->sigma);
    }
    if (!(isfinite(o->beta) && o->beta >= 0)) {
        return ccb_errorf(msg, n, CCB_E_INVALID, "beta must be finite and >= 0 (got %g)", o->beta);
    }
    return CCB_OK;
}

void ccb_constraint_init(const ccb_step_context* step, const ccb_contact_input* in,
                         ccb_constraint* c) {
    memset(c, 0, sizeof *c);
    c->dt = step->dt;
    c->k = in->k;
    c->d = in->d;
    c->mu = in->mu;
    c->phi0 = in->phi0;
}

void ccb_hc_prepare(ccb_constraint* c) {
    const double v_geom = -c->phi0 / c->dt; /* distance closes at the end of the step */
    if (c->d > 0 && 1.0 / c->d < v_geom) {
        /* dissipation factor (1 - d v) vanishes first */
        c->vhat = 1.0 / c->d;
        c->chat = 0.0;
        c->xhat = fmax(0.0, -c->phi0 - c->dt * c->vhat);
    } else {
        c->vhat = v_geom;
        c->xhat = 0.0;
        c->chat = 1.0 - c->d * c->vhat;
    }
}

double ccb_hc_eval(const ccb_constraint* c, double v, double* n, double* dn) {
    /* spec: formulation-convex §2.2, eqs. (22)-(23), shifted form (see top of file) */
    if (!(v < c->vhat)) {
        if (n) {
            *n = 0.0;
        }
        if (dn) {
            *dn = 0.0;
        }
        return 0.0;
    }
    const double D = c->vhat - v;
    const double x = c->xhat + c->dt * D; /* = -(phi0 + dt v) > 0 */
    const double f = c->chat + c->d * D;  /* = 1 - d v > 0 */
    const double dtk = c->dt * c->k;
    if (n) {
        *n = dtk * x * f;
    }
    if (dn) {
        *dn = -dtk * (c->dt * f + c->d * x);
    }
    return dtk * D *
           (c->xhat * c->chat + 0.5 * (c->xhat * c->d + c->dt * c->chat) * D +
            c->dt * c->d * D * D / 3.0);
}

soft_slip ccb_soft_slip(const double vt[2], double eps) {
    soft_slip s;
    const double v2 = vt[0] * vt[0] + vt[1] * vt[1];
    s.rho = sqrt(v2 + eps * eps);
    s.ts[0] = vt[0] / s.rho;
    s.ts[1] = vt[1] / s.rho;
    s.norm_s = v2 / (s.rho + eps);
    return s;
}

double ccb_eps_s_tolerance(const ccb_constraint* c, const double gamma[3]) {
    (void)gamma;
    return c->eps_s;
}

double ccb_separation_radius(const double vc[3], double threshold, double mu) {
    if (!isfinite(threshold) || !(mu >= 0)) {
        return -1.0;
    }
    const double vt = mu == 0.0 ? 0.0 : hypot(vc[0], vc[1]); /* Lagged: the normal law only */
    const double slack = vc[2] - threshold - mu * vt;
    /* [round-off: the laws test v < vhat or the cone in floating point, a few ulps of the
     *  velocities involved; 1e-9 of their scale is far above that] */
    const double margin = 1e-9 * (fabs(vc[2]) + fabs(threshold) + mu * vt) + 1e-300;
    if (!(slack > margin)) {
        return -1.0;
    }
    return (slack - margin) / (1.0 + 1.4142135623730951 * mu);
}

double ccb_lagged_inactive_radius(const ccb_constraint* c, const double vc[3]) {
    if (c->mu * c->gn0 != 0.0) {
        return -1.0;
    }
    return ccb_separation_radius(vc, c->vhat, 0.0);
}

/* ---- anisotropic friction (spec: formulation-convex §18; ICF Appendix B, eqs. (30)-(32)) ---- */

void ccb_constraint_prepare(const ccb_approx* a, const ccb_step_context* step,
                            const ccb_approx_options* opt, const ccb_contact_input* in,
                            ccb_constraint* c) {
    if (!(in->mu2 > 0) || in->mu2 == in->mu) {
        a->prepare(step, opt, in, c);
        c->aniso[0] = c->aniso[1] = 0.0;
        return;
    }
    /* M = mu_min A: the isotropic law of mu_min at T v_c (formulation-convex §18.2) */
    ccb_contact_input iso = *in;
    iso.mu = fmin(in->mu, in->mu2);
    iso.mu2 = 0.0;
    a->prepare(step, opt, &iso, c);
    c->aniso[0] = in->mu / iso.mu;
    c->aniso[1] = in->mu2 / iso.mu;
}

double ccb_constraint_eval(const ccb_approx* a, const ccb_constraint* c, const double vc[3],
                           double gamma[3], double G[9]) {
    if (c->aniso[0] == 0.0) {
        return a->eval(c, vc, gamma, G);
    }
    /* l = l_iso(T v_c), gamma = T gamma_iso, G = T G_iso T (formulation-convex §18.2) */
    const double s[3] = {c->aniso[0], c->aniso[1], 1.0};
    const double u[3] = {s[0] * vc[0], s[1] * vc[1], vc[2]};
    const double l = a->eval(c, u, gamma, G);
    gamma[0] *= s[0];
    gamma[1] *= s[1];
    if (G) {
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                G[3 * i + j] *= s[i] * s[j];
            }
        }
    }
    return l;
}

double ccb_constraint_inactive_radius(const ccb_approx* a, const ccb_constraint* c,
                                      const double vc[3]) {
    if (a->inactive_radius == NULL) {
        return -1.0;
    }
    if (c->aniso[0] == 0.0) {
        return a->inactive_radius(c, vc);
    }
    /* the box |v - vc|_inf <= r maps into the box |T v - T vc|_inf <= max(A) r */
    const double u[3] = {c->aniso[0] * vc[0], c->aniso[1] * vc[1], vc[2]};
    const double r = a->inactive_radius(c, u);
    return r < 0 ? r : r / fmax(c->aniso[0], c->aniso[1]);
}

double ccb_constraint_stiction_tolerance(const ccb_approx* a, const ccb_constraint* c,
                                         const double gamma[3]) {
    if (c->aniso[0] == 0.0) {
        return a->stiction_tolerance(c, gamma);
    }
    const double g[3] = {gamma[0] / c->aniso[0], gamma[1] / c->aniso[1], gamma[2]};
    return a->stiction_tolerance(c, g) / fmax(c->aniso[0], c->aniso[1]);
}

double ccb_constraint_mu_max(const ccb_constraint* c) {
    return c->aniso[0] == 0.0 ? c->mu : c->mu * fmax(c->aniso[0], c->aniso[1]);
}
