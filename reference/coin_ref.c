/* Sliding and spinning disk under Coulomb friction (spec: cases.md §2.2, formulation-tamsi-hydro
 * formulation-tamsi-hydro §G.1; Farkas, Bartels, Unger, Wolf, PRL 90, 248302, 2003).
 *
 * Uniform pressure, eps = v/(R omega), closed forms with complete elliptic integrals K, E of
 * parameter m (GSL takes the modulus k = sqrt m):
 *   eps <= 1: F = 4/(3 pi eps) [(eps^2+1) E(eps^2) + (eps^2-1) K(eps^2)],
 *             T = 4/(9 pi) [(4 - 2 eps^2) E(eps^2) + (eps^2 - 1) K(eps^2)]
 *   eps >= 1: F = 4/(3 pi) [(eps^2+1) E(1/eps^2) - (eps^2-1) K(1/eps^2)],
 *             T = 4/(9 pi) [(4 eps - 2 eps^3) E(1/eps^2) + (2 eps^3 - 5 eps + 3/eps) K(1/eps^2)]
 * with F(0) = 0, T(0) = 2/3, F(1) = 8/(3 pi), T(1) = 8/(9 pi), F(inf) = 1, T(inf) = 0.
 * A point set (the quadrature points of a simulation's contact surface, load fractions w_k):
 * every point slides at u_k = v + omega e_z x r_k (r_k rotated with the disk) and carries
 * -mu m g w_k u_k/|u_k|, so the disk also moves sideways unless the set is symmetric. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_sf_ellint.h>
#include <math.h>
#include <stdio.h>

#include "reference.h"

#define PI 3.14159265358979323846

void ccb_ref_coin_uniform_FT(double eps, double* F, double* T) {
    if (!(eps > 1e-4)) { /* series: F = eps + O(eps^3), T = 2/3 + O(eps^2) */
        *F = eps > 0 ? eps : 0;
        *T = 2.0 / 3.0;
        return;
    }
    if (fabs(eps - 1) < 1e-12) {
        *F = 8 / (3 * PI);
        *T = 8 / (9 * PI);
        return;
    }
    if (eps > 1e6) {
        *F = 1;
        *T = 0;
        return;
    }
    const double e2 = eps * eps;
    if (eps < 1) {
        const double K = gsl_sf_ellint_Kcomp(eps, GSL_PREC_DOUBLE),
                     E = gsl_sf_ellint_Ecomp(eps, GSL_PREC_DOUBLE);
        *F = 4 / (3 * PI * eps) * ((e2 + 1) * E + (e2 - 1) * K);
        *T = 4 / (9 * PI) * ((4 - 2 * e2) * E + (e2 - 1) * K);
    } else {
        const double k = 1 / eps;
        const double K = gsl_sf_ellint_Kcomp(k, GSL_PREC_DOUBLE),
                     E = gsl_sf_ellint_Ecomp(k, GSL_PREC_DOUBLE);
        *F = 4 / (3 * PI) * ((e2 + 1) * E - (e2 - 1) * K);
        *T = 4 / (9 * PI) * ((4 * eps - 2 * e2 * eps) * E + (2 * e2 * eps - 5 * eps + 3 / eps) * K);
    }
}

static double fixed_point_fn(double eps, void* u) {
    const double i_ratio = *(const double*)u;
    double F, T;
    ccb_ref_coin_uniform_FT(eps, &F, &T);
    return F - eps * T / i_ratio;
}

double ccb_ref_coin_uniform_fixed_point(double i_ratio) {
    /* F - eps T/i changes sign once; scan on a log grid, then Brent */
    double a = 1e-3, fa = fixed_point_fn(a, &i_ratio);
    for (int k = 1; k <= 600; ++k) {
        const double b = 1e-3 * pow(10, k / 100.0), fb = fixed_point_fn(b, &i_ratio);
        if (fa * fb <= 0) {
            return ccb_ref_brent(fixed_point_fn, &i_ratio, a, b);
        }
        a = b;
        fa = fb;
    }
    return NAN;
}

/* state: uniform (v, omega); point set (vx, vy, omega, theta) */
static int rhs(double t, const double* y, double* f, void* user) {
    (void)t;
    const ccb_ref_coin* p = user;
    const double mg = p->mu * p->g, R = p->R;
    if (p->npts == 0) {
        const double v = fmax(y[0], 0), om = fmax(y[1], 0);
        double F, T;
        ccb_ref_coin_uniform_FT(om > 0 ? v / (R * om) : INFINITY, &F, &T);
        f[0] = v > 0 ? -mg * F : 0;
        f[1] = om > 0 ? -mg / (p->i_ratio * R) * T : 0;
        return GSL_SUCCESS;
    }
    const double c = cos(y[3]), s = sin(y[3]);
    double fx = 0, fy = 0, tz = 0;
    for (int k = 0; k < p->npts; ++k) {
        const double rx = c * p->xy[2 * k] - s * p->xy[2 * k + 1],
                     ry = s * p->xy[2 * k] + c * p->xy[2 * k + 1];
        /* sqrt, not hypot: the slip speeds are O(1e-3 ... 1) m/s, far from overflow, and this
         * loop over up to 8,000 points is most of the reference's time (hypot cost 25 % of
         * the quick tier's fig5; the references agree to every printed digit) */
        const double ux = y[0] - y[2] * ry, uy = y[1] + y[2] * rx, un = sqrt(ux * ux + uy * uy);
        if (un > 0) {
            fx -= p->w[k] * ux / un;
            fy -= p->w[k] * uy / un;
            tz -= p->w[k] * (rx * uy - ry * ux) / un;
        }
    }
    f[0] = mg * fx;
    f[1] = mg * fy;
    f[2] = mg * tz / (p->i_ratio * R * R);
    f[3] = y[2];
    return GSL_SUCCESS;
}

/* the cubic Hermite interpolant at s in [0, 1] of a step of length h from (y0, f0) to (y1, f1) */
static void hermite(const double* y0, const double* f0, const double* y1, const double* f1,
                    double h, double s, size_t dim, double* y) {
    const double s2 = s * s, s3 = s2 * s;
    const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = 3 * s2 - 2 * s3,
                 h11 = s3 - s2;
    for (size_t k = 0; k < dim; ++k) {
        y[k] = h00 * y0[k] + h10 * h * f0[k] + h01 * y1[k] + h11 * h * f1[k];
    }
}

static void speeds(const ccb_ref_coin* p, const double* y, double* v, double* Rw, double* vy) {
    if (p->npts == 0) {
        *v = fmax(y[0], 0);
        *Rw = p->R * fmax(y[1], 0);
        *vy = 0;
    } else {
        *v = hypot(y[0], y[1]);
        *Rw = p->R * fabs(y[2]);
        *vy = y[1];
    }
}

int ccb_ref_coin_solve(const ccb_ref_coin* p, double eps0, double S0, const double* levels,
                       int nlevels, double* eps_at, double* t_at, double* lat_max, char* msg,
                       size_t n) {
    if (!p || !(p->R > 0 && p->mu > 0 && p->g > 0 && p->i_ratio > 0) || !(eps0 > 0) || !(S0 > 0) ||
        nlevels < 1 || !levels || !eps_at || !t_at || p->npts < 0 ||
        (p->npts > 0 && (!p->xy || !p->w))) {
        snprintf(msg, n, "coin reference: invalid parameters");
        return -1;
    }
    for (int j = 0; j < nlevels; ++j) {
        if (!(levels[j] > 0 && levels[j] <= 1) || (j > 0 && !(levels[j] < levels[j - 1]))) {
            snprintf(msg, n, "coin reference: levels must descend in (0, 1]");
            return -1;
        }
    }
    gsl_set_error_handler_off();
    const size_t dim = p->npts == 0 ? 2 : 4;
    double y[4] = {eps0 * S0 / (1 + eps0), S0 / ((1 + eps0) * p->R), 0, 0};
    if (p->npts > 0) {
        y[2] = y[1];
        y[1] = 0;
    }
    gsl_odeiv2_system sys = {rhs, NULL, dim, (void*)p};
    gsl_odeiv2_step* st = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, dim);
    gsl_odeiv2_control* co = gsl_odeiv2_control_y_new(1e-14, 1e-10);
    gsl_odeiv2_evolve* ev = gsl_odeiv2_evolve_alloc(dim);
    if (!st || !co || !ev) {
        snprintf(msg, n, "coin reference: out of memory");
        gsl_odeiv2_step_free(st);
        gsl_odeiv2_control_free(co);
        gsl_odeiv2_evolve_free(ev);
        return -1;
    }
    double t = 0, h = 1e-6, v, Rw, vy;
    speeds(p, y, &v, &Rw, &vy);
    double S = v + Rw, eps = v / Rw, lat = 0;
    int j = 0, rc = 0;
    while (j < nlevels && levels[j] >= 1 && S >= levels[j] * S0) {
        eps_at[j] = eps;
        t_at[j] = 0;
        ++j;
    }
    /* The solution between two accepted rk8pd steps is the cubic Hermite interpolant of the
     * states and their derivatives at both ends; a level's crossing is found on it by bisection
     * in log S, and |v_y|/S is sampled on it every 1e-3 S/(mu g) (the spin's oscillation of the
     * lateral force). Steps are capped at 4 % of S/(mu g), the time in which S falls by at most
     * 12 % (it falls at most at 3 mu g): the interpolant's error, h^4 |y^(4)| / 384 with
     * |y^(4)| ~ y (mu g / S)^4, stays near 1e-8 relative, 100x below the 1e-6 of the linear
     * interpolation of eps over steps of 0.1 % that it replaces, with 1/40 of the steps. */
    double f0[4], f1[4], y0[4], yi[4];
    rhs(t, y, f0, (void*)p);
    long guard = 0;
    while (j < nlevels) {
        const double t0 = t, S_start = S;
        for (size_t k = 0; k < dim; ++k) {
            y0[k] = y[k];
        }
        if (gsl_odeiv2_evolve_apply(ev, co, st, &sys, &t, t + 0.04 * S / (p->mu * p->g), &h, y) !=
                GSL_SUCCESS ||
            ++guard > 50000000) {
            snprintf(msg, n, "coin reference: integration failed at t = %g s (S = %g m/s)", t, S);
            rc = -1;
            break;
        }
        rhs(t, y, f1, (void*)p);
        const double dt = t - t0;
        speeds(p, y, &v, &Rw, &vy);
        S = v + Rw;
        eps = Rw > 0 ? v / Rw : INFINITY;
        const int nsub = (int)ceil(dt / (1e-3 * S_start / (p->mu * p->g)));
        for (int m = 1; m <= nsub; ++m) {
            double vi, Rwi, vyi;
            hermite(y0, f0, y, f1, dt, (double)m / nsub, dim, yi);
            speeds(p, yi, &vi, &Rwi, &vyi);
            if (vi + Rwi > 0) {
                lat = fmax(lat, fabs(vyi) / (vi + Rwi));
            }
        }
        while (j < nlevels && S <= levels[j] * S0) {
            /* S on the interpolant falls through the level at some s in (0, 1] */
            const double L = log(levels[j] * S0);
            double lo = 0, hi = 1, vj, Rwj, vyj;
            for (int it = 0; it < 60; ++it) {
                const double mid = 0.5 * (lo + hi);
                hermite(y0, f0, y, f1, dt, mid, dim, yi);
                speeds(p, yi, &vj, &Rwj, &vyj);
                if (vj + Rwj > 0 && log(vj + Rwj) > L) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            hermite(y0, f0, y, f1, dt, hi, dim, yi);
            speeds(p, yi, &vj, &Rwj, &vyj);
            eps_at[j] = Rwj > 0 ? vj / Rwj : INFINITY;
            t_at[j] = t0 + hi * dt;
            ++j;
        }
        if (!(S > 0) || !isfinite(eps)) {
            snprintf(msg, n,
                     "coin reference: the disk stopped sliding or spinning first (t = %g s)", t);
            rc = -1;
            break;
        }
        for (size_t k = 0; k < dim; ++k) {
            f0[k] = f1[k];
        }
    }
    if (lat_max) {
        *lat_max = lat;
    }
    gsl_odeiv2_evolve_free(ev);
    gsl_odeiv2_control_free(co);
    gsl_odeiv2_step_free(st);
    return rc;
}
