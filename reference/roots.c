/* Root finding shared by the references: bracketing scans refined by GSL's Brent solver. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

#include "reference.h"

double ccb_ref_brent(double (*f)(double, void*), void* u, double a, double b) {
    gsl_function F = {f, u};
    gsl_root_fsolver* s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (s == NULL) {
        return NAN;
    }
    double r = NAN;
    if (gsl_root_fsolver_set(s, &F, a, b) == GSL_SUCCESS) {
        for (int it = 0; it < 200; ++it) {
            if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS) {
                break;
            }
            r = gsl_root_fsolver_root(s);
            if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s),
                                       1e-14, 0) == GSL_SUCCESS) {
                break;
            }
        }
    }
    gsl_root_fsolver_free(s);
    return r;
}

double ccb_ref_next_crossing(double (*f)(double, void*), void* u, double t0, double T, double step,
                             int dir) {
    double a = t0, fa = f(a, u);
    while (a < T) {
        const double b = fmin(a + step, T), fb = f(b, u);
        const int up = fa <= 0 && fb > 0, down = fa > 0 && fb <= 0;
        if ((dir >= 0 && up) || (dir <= 0 && down)) {
            return fb == 0 ? b : ccb_ref_brent(f, u, a, b);
        }
        a = b;
        fa = fb;
    }
    return NAN;
}
