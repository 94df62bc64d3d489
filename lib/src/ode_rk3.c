/* ode_rk3: the fixed-step explicit RK3 reference (spec: formulation-tamsi-hydro §E.2; Drake
 * RungeKutta3Integrator), step s from (t, x):
 *   k1 = f(t, x),  k2 = f(t + s/2, x + s/2 k1),  k3 = f(t + s, x - s k1 + 2 s k2)
 *   x <- x + s (k1/6 + 2 k2/3 + k3/6)
 * over the fewest equal steps no longer than h (ccb_ode_fixed_steps). */
#include <math.h>

#include "ode_internal.h"

static ccb_status rk3_advance(ccb_ode* o, double t_end) {
    const int nx = o->nx;
    double s;
    const long nsteps = ccb_ode_fixed_steps(o->t, t_end, o->prm.h, &s);
    const double t0 = o->t;
    for (long k = 0; k < nsteps; ++k) {
        const double t = t0 + (double)k * s;
        ccb_status st = ccb_ode_eval(o, t, o->x, o->k1, 0);
        for (int i = 0; i < nx && st == CCB_OK; ++i) {
            o->xs[i] = o->x[i] + 0.5 * s * o->k1[i];
        }
        if (st == CCB_OK) {
            st = ccb_ode_eval(o, t + 0.5 * s, o->xs, o->k2, 0);
        }
        for (int i = 0; i < nx && st == CCB_OK; ++i) {
            o->xs[i] = o->x[i] - s * o->k1[i] + 2.0 * s * o->k2[i];
        }
        if (st == CCB_OK) {
            st = ccb_ode_eval(o, t + s, o->xs, o->k3, 0);
        }
        if (st != CCB_OK) {
            return st;
        }
        for (int i = 0; i < nx; ++i) {
            o->x[i] += s * (o->k1[i] / 6.0 + 2.0 * o->k2[i] / 3.0 + o->k3[i] / 6.0);
        }
        o->t = (k + 1 == nsteps) ? t_end : t0 + (double)(k + 1) * s;
        o->work.n_steps++;
    }
    o->work.h_min = o->work.h_min > 0 ? fmin(o->work.h_min, s) : s;
    o->work.h_max = fmax(o->work.h_max, s);
    return CCB_OK;
}

const ccb_ode_method_type ccb_ode_rk3 = {
    .abi = CCB_ABI_VERSION,
    .name = "rk3",
    .title = "explicit Runge-Kutta 3 (Drake's tableau), fixed step",
    .reference = "formulation-tamsi-hydro §E.2",
    .flags = CCB_ODE_EXPLICIT,
    .notes = "Drake's RungeKutta3 tableau with the fewest equal steps <= h per sampling interval.",
    .advance = rk3_advance,
};
