/* Painleve rod, rigid analysis (spec: cases.md §5.2; Pfeiffer & Glocker §5.3 style).
 *
 * Rod of half length l at angle theta to the ground, lower end A = (x + l cos(theta),
 * z - l sin(theta)) sliding forward (the end leads). With the end in sliding contact, friction
 * -mu N on A and the normal force N:
 *   m x'' = -mu N,  m z'' = N - m g,  I theta'' = l N (mu sin(theta) - cos(theta)),
 *   z''_A = z'' - l cos(theta) theta'' + l sin(theta) theta'^2 = (N/m) a(theta) + b,
 *   a = 1 + (m l^2/I) cos(theta)(cos(theta) - mu sin(theta)),  b = l theta'^2 sin(theta) - g.
 * Keeping the end on the ground (z''_A = 0) gives N = -m b / a: finite while a > 0, divergent as
 * a -> 0+ ("dynamic jamming", impact without collision). theta(t) and N(t) do not depend on the
 * horizontal speed; the end slides at v_A = u - l sin(theta) theta' with u' = -mu N/m, i.e.
 * v_A(t) = U0 - D(t), so it still slides at the singularity iff U0 > max D. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdio.h>

#include "reference.h"

double ccb_ref_rod_a(const ccb_ref_rod* p, double theta) {
    const double k = p->m * p->l * p->l / p->I;
    return 1.0 + k * cos(theta) * (cos(theta) - p->mu * sin(theta));
}

int ccb_ref_rod_band(const ccb_ref_rod* p, double* lo, double* hi) {
    /* a < 0  <=>  tan^2 - k mu tan + (1 + k) < 0  (divide a by cos^2) */
    const double k = p->m * p->l * p->l / p->I;
    const double disc = k * k * p->mu * p->mu - 4.0 * (1.0 + k);
    if (!(disc > 0)) {
        return -1;
    }
    *lo = atan(0.5 * (k * p->mu - sqrt(disc)));
    *hi = atan(0.5 * (k * p->mu + sqrt(disc)));
    return 0;
}

static double normal_force(const ccb_ref_rod* p, double th, double thd) {
    const double b = p->l * thd * thd * sin(th) - p->g;
    return -p->m * b / ccb_ref_rod_a(p, th);
}

/* y = (theta, theta', D) with D' = mu N/m + d/dt(l sin(theta) theta') handled through D = U0 - v_A:
 * we integrate w = integral of mu N / m and form D = w + l sin(theta) theta'. */
static int rhs(double t, const double y[], double f[], void* user) {
    (void)t;
    const ccb_ref_rod* p = user;
    const double N = normal_force(p, y[0], y[1]);
    f[0] = y[1];
    f[1] = p->l * N * (p->mu * sin(y[0]) - cos(y[0])) / p->I;
    f[2] = p->mu * N / p->m;
    return GSL_SUCCESS;
}

int ccb_ref_rod_rigid_solve(const ccb_ref_rod* p, double theta0, double U0, double t_probe,
                            ccb_ref_rod_rigid* r, char* msg, size_t msgn) {
    gsl_set_error_handler_off();
    if (!(p->l > 0 && p->m > 0 && p->I > 0 && p->mu > 0 && p->g > 0) ||
        !(ccb_ref_rod_a(p, theta0) > 0)) {
        snprintf(msg, msgn, "rod reference needs l, m, I, mu, g > 0 and a(theta0) > 0");
        return -1;
    }
    gsl_odeiv2_system sys = {rhs, NULL, 3, (void*)p};
    gsl_odeiv2_driver* d =
        gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-7, 1e-12, 1e-12);
    /* An attempt whose end lies past the singularity crawls toward a = 0 in ever shorter steps
     * (measured: ~370,000 rk8pd steps before it gives up, 24 such attempts per solve, 95 % of the
     * solve's time); attempts that stay short of it need up to ~10,000 near the end, so the cut
     * also halves a few of those. An attempt that needs more than 10,000 steps is treated as an
     * overshoot (the step is halved); the loop still ends at a <= 1e-10, by a slightly different
     * path of steps: t* and theta* agree with the unbounded attempts to 5e-11, the
     * diverging theta' and U0_min to 1e-3 (they are conditioned no better: theta' grows without
     * bound as a -> 0), 16x faster. */
    if (d == NULL || gsl_odeiv2_driver_set_nmax(d, 10000) != GSL_SUCCESS) {
        if (d != NULL) {
            gsl_odeiv2_driver_free(d);
        }
        snprintf(msg, msgn, "rod reference: out of memory");
        return -1;
    }
    double y[3] = {theta0, 0.0, 0.0}, t = 0.0, step = 1e-4;
    r->N0 = normal_force(p, theta0, 0.0);
    r->N_at = NAN;
    r->U0_min = 0.0;
    r->reached = 0;
    int probed = !(t_probe > 0);
    for (int it = 0; it < 100000 && step > 1e-15; ++it) {
        double tt = t, yy[3] = {y[0], y[1], y[2]};
        double target = t + step;
        if (!probed && target > t_probe) {
            target = t_probe;
        }
        gsl_odeiv2_driver_reset(d);
        const int st = gsl_odeiv2_driver_apply(d, &tt, target, yy);
        const double a = ccb_ref_rod_a(p, yy[0]);
        const double b = p->l * yy[1] * yy[1] * sin(yy[0]) - p->g;
        if (st != GSL_SUCCESS || !(a > 0) || !(b < 0)) {
            step *= 0.5; /* overshot the singularity (or lift-off): shorter step */
            continue;
        }
        t = tt;
        y[0] = yy[0], y[1] = yy[1], y[2] = yy[2];
        const double D = y[2] + p->l * sin(y[0]) * y[1];
        if (D > r->U0_min) {
            r->U0_min = D;
        }
        if (!probed && t >= t_probe) {
            r->N_at = normal_force(p, y[0], y[1]);
            probed = 1;
        }
        if (a <= 1e-10) {
            r->reached = 1;
            break;
        }
    }
    gsl_odeiv2_driver_free(d);
    r->t_singular = t;
    r->theta_singular = y[0];
    r->thetadot_singular = y[1];
    r->end_slide_speed = U0 - (y[2] + p->l * sin(y[0]) * y[1]);
    if (!r->reached) {
        snprintf(msg, msgn, "rod reference: a(theta) did not reach 0 (a = %g at t = %g)",
                 ccb_ref_rod_a(p, y[0]), t);
        return -1;
    }
    if (U0 <= r->U0_min) {
        r->reached = 0; /* the end sticks before the singularity */
    }
    return 0;
}
