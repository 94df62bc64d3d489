/* errctl: the step-size rule and the landing rule of error control, shared by implicit Euler on
 * the continuous model (ode_ie.c) and the error-controlled convex step (sim.c).
 * spec: formulation-tamsi-hydro §B.6 (Drake's IntegratorBase::CalcAdjustedStepSize, error order
 * p = 2); formulation-convex §15.2 (the same rule for the convex step). */
#include <float.h>
#include <math.h>

#include "internal.h"

/* formulation-tamsi-hydro §B.6: h_new = 0.9 h (a/err)^(1/2), hysteresis, clamps. */
int ccb_errctl_adjust(double a, double err, double h, double h_max, double* h_new) {
    double hn;
    if (!isfinite(err)) {
        *h_new = 0.1 * h;
        return 0;
    }
    hn = err == 0.0 ? 5.0 * h : 0.9 * h * sqrt(a / err);
    if (hn > h && hn < 1.2 * h) {
        hn = h; /* hysteresis: not worth growing */
    }
    if (hn < h && err <= a) {
        hn = h; /* within accuracy: keep the step */
    }
    if (hn < h) {
        hn = fmin(hn, 0.9 * h);
    }
    hn = fmin(hn, 5.0 * h);
    hn = fmax(hn, 0.1 * h);
    /* accepted iff the error does not ask for a smaller step; decided before the h_max clamp,
     * which would otherwise reject a step stretched a hair beyond h_max to land on t_end */
    const int accepted = hn >= h;
    *h_new = fmin(hn, h_max);
    return accepted;
}

/* Drake's near_enough_smaller / near_enough_larger (formulation-tamsi-hydro §B.6). */
double ccb_errctl_step(double h_ideal, double h_max, double t0, double t_end, int* limited,
                       int* last) {
    const double rem = t_end - t0;
    double h = fmin(h_ideal, h_max);
    *limited = *last = 0;
    if (rem < 0.95 * h) {
        h = rem;
        *limited = *last = 1;
    } else if (rem < 1.001 * h) {
        h = rem;
        *last = 1;
    }
    return h;
}

double ccb_errctl_floor(double t) {
    return 64.0 * DBL_EPSILON * fmax(1.0, fabs(t));
}
