/* ode_core: what every integration method uses — the counted evaluation of f (with its cache)
 * and the fixed-step schedule. Fixed-step methods reach t_end with the fewest equal steps no
 * longer than h, so an interval that is a whole number of steps h is covered by exactly those
 * steps. */
#include <math.h>
#include <string.h>

#include "ode_internal.h"

ccb_status ccb_ode_eval(ccb_ode* o, double t, const double* x, double* xdot, int cache) {
    if (o->f_limit > 0 && o->work.n_f >= o->f_limit) { /* inside ccb_ode_advance */
        return ccb_errorf(o->msg, sizeof o->msg, CCB_E_LIMIT,
                          "work limit: more than %ld evaluations of f in one interval, at t = "
                          "%.17g (ccb_ode_params.max_f_evals)",
                          o->prm.max_f_evals, t);
    }
    o->work.n_f++;
    if (o->counting_errest) {
        o->work.n_f_errest++;
    }
    const ccb_status s = o->sys.f(o->sys.user, t, x, xdot);
    if (s != CCB_OK) {
        return ccb_errorf(o->msg, sizeof o->msg, s, "f(t = %.17g) failed (%s)", t,
                          ccb_status_string(s));
    }
    if (!ccb_all_finite(xdot, (size_t)o->nx)) {
        return ccb_errorf(o->msg, sizeof o->msg, CCB_E_NONFINITE,
                          "f(t = %.17g) returned a non-finite derivative", t);
    }
    if (cache) {
        o->tc = t;
        memcpy(o->xc, x, (size_t)o->nx * sizeof(double));
        memcpy(o->fc, xdot, (size_t)o->nx * sizeof(double));
        o->cache_ok = 1;
    }
    return CCB_OK;
}

long ccb_ode_fixed_steps(double t, double t_end, double h, double* step) {
    const double span = t_end - t;
    /* [round-off: a span that is a whole number of steps up to 1e-9 relative counts as one] */
    long n = (long)ceil(span / h * (1.0 - 1e-9));
    if (n < 1) {
        n = 1;
    }
    *step = span / (double)n;
    return n;
}
