/* heun: an ODE method as a plugin (docs/architecture.md §5): Heun's explicit second-order method
 * (the explicit trapezoid) at a fixed step, through libccb's public API only. From (t, x) with the
 * fewest equal steps s <= h per sampling interval:
 *   k1 = f(t, x),  k2 = f(t + s, x + s k1),  x <- x + s/2 (k1 + k2).
 * Loaded with `ccb --plugin heun.so`, it is a solver (`--solver heun`) and a variant of every
 * case (`ccb compare --variants heun`), as a registered solver is. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccb/ccb.h"

const int ccb_plugin_abi = CCB_ABI_VERSION;

static ccb_status heun_create(ccb_ode* o) {
    const int n = ccb_ode_nx(o);
    double* w = calloc((size_t)(3 * n + 1), sizeof(double)); /* k1, k2, x + s k1 */
    if (w == NULL) {
        return CCB_E_NOMEM;
    }
    ccb_ode_set_method_data(o, w);
    return CCB_OK;
}

static void heun_destroy(ccb_ode* o) {
    free(ccb_ode_method_data(o));
    ccb_ode_set_method_data(o, NULL);
}

static ccb_status heun_advance(ccb_ode* o, double t_end) {
    const int n = ccb_ode_nx(o);
    double *k1 = ccb_ode_method_data(o), *k2 = k1 + n, *xs = k2 + n;
    double* x = ccb_ode_state_mut(o);
    const double t0 = ccb_ode_time(o), h = ccb_ode_step_size(o);
    const long steps = (long)ceil((t_end - t0) / h - 1e-9);
    const double s = steps > 0 ? (t_end - t0) / (double)steps : 0.0;
    ccb_ode_work* w = ccb_ode_work_mut(o);
    for (long k = 0; k < steps; ++k) {
        const double t = t0 + (double)k * s;
        ccb_status st = ccb_ode_f(o, t, x, k1);
        for (int i = 0; i < n && st == CCB_OK; ++i) {
            xs[i] = x[i] + s * k1[i];
        }
        if (st == CCB_OK) {
            st = ccb_ode_f(o, t + s, xs, k2);
        }
        if (st != CCB_OK) {
            return st;
        }
        for (int i = 0; i < n; ++i) {
            x[i] += 0.5 * s * (k1[i] + k2[i]);
        }
        ccb_ode_set_time(o, k + 1 == steps ? t_end : t0 + (double)(k + 1) * s);
        w->n_steps++;
        w->h_min = w->h_min > 0 ? fmin(w->h_min, s) : s;
        w->h_max = fmax(w->h_max, s);
    }
    return CCB_OK;
}

static const ccb_ode_method_type k_heun = {
    .abi = CCB_ABI_VERSION,
    .name = "heun",
    .title = "Heun's explicit second-order method, fixed step (plugin)",
    .reference = "plugins/heun/heun.c",
    .flags = CCB_ODE_EXPLICIT,
    .notes = "the explicit trapezoid at the fewest equal steps <= h per sampling interval",
    .create = heun_create,
    .destroy = heun_destroy,
    .advance = heun_advance,
};

int ccb_plugin_register(char* msg, size_t n);
int ccb_plugin_register(char* msg, size_t n) {
    return ccb_ode_method_register(&k_heun, msg, n) == CCB_OK ? 0 : -1;
}
