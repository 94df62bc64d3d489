/* Ideal rigid Coulomb solution of the oscillating conveyor (spec: cases.md §3.2).
 *
 * Belt: x_b = A sin(w t + phase), v_b = A w cos(w t + phase), a_b = -A w^2 sin(w t + phase),
 * w = 2 pi f. Stick holds while the friction needed, m |a_b|, is at most mu m g. Slip starts where
 * |a_b| crosses mu g upwards; then the box accelerates at s = -mu g sign(v_rel) with
 * sign(v_rel) = -sign(a_b) at onset, i.e. v_box(t) = v_b(t_on) + s (t - t_on), until
 * v_rel = v_box - v_b returns to zero. Events are bracketed by a 1e-4 s scan and refined with
 * GSL's Brent solver. */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>

#include "reference.h"

void ccb_ref_conveyor_belt(const ccb_ref_conveyor* p, double t, double* x, double* v, double* a) {
    const double w = 2 * 3.14159265358979323846 * p->f, s = sin(w * t + p->phase),
                 c = cos(w * t + p->phase);
    if (x) {
        *x = p->A * s;
    }
    if (v) {
        *v = p->A * w * c;
    }
    if (a) {
        *a = -p->A * w * w * s;
    }
}

typedef struct slip_ctx {
    const ccb_ref_conveyor* p;
    double t_on, v_on, acc;
} slip_ctx;

static double excess(double t, void* u) { /* |a_b| - mu g */
    const ccb_ref_conveyor* p = u;
    double a;
    ccb_ref_conveyor_belt(p, t, NULL, NULL, &a);
    return fabs(a) - p->mu * p->g;
}

static double vrel(double t, void* u) {
    const slip_ctx* s = u;
    double vb;
    ccb_ref_conveyor_belt(s->p, t, NULL, &vb, NULL);
    return s->v_on + s->acc * (t - s->t_on) - vb;
}

static double arel(double t, void* u) { /* d v_rel / dt */
    const slip_ctx* s = u;
    double ab;
    ccb_ref_conveyor_belt(s->p, t, NULL, NULL, &ab);
    return s->acc - ab;
}

int ccb_ref_conveyor_events(const ccb_ref_conveyor* p, double T, ccb_ref_events* ev, char* msg,
                            size_t msgn) {
    gsl_set_error_handler_off();
    ev->n = 0;
    if (!(p->A > 0 && p->f > 0 && p->mu > 0 && p->g > 0 && T > 0) || !isfinite(p->phase)) {
        snprintf(msg, msgn, "conveyor reference needs A, f, mu, g, T > 0");
        return -1;
    }
    double t = 0.0;
    if (excess(0.0, (void*)p) > 0) {
        snprintf(msg, msgn, "conveyor reference: the box slips at t = 0 (|a_b(0)| > mu g)");
        return -1;
    }
    while (t < T && ev->n < CCB_REF_MAX_EVENTS) {
        /* stick until |a_b| exceeds mu g */
        const double t_on = ccb_ref_next_crossing(excess, (void*)p, t + 1e-9, T, 1e-4, 1);
        if (isnan(t_on)) {
            break;
        }
        double vb, ab;
        ccb_ref_conveyor_belt(p, t_on, NULL, &vb, &ab);
        slip_ctx s = {p, t_on, vb, ab < 0 ? -p->mu * p->g : p->mu * p->g};
        double t_off = ccb_ref_next_crossing(vrel, &s, t_on + 1e-6, T, 1e-4, 0);
        if (isnan(t_off)) {
            t_off = T;
        }
        /* largest relative speed: where the relative acceleration vanishes */
        double vmax = fmax(fabs(vrel(t_on, &s)), fabs(vrel(t_off, &s)));
        const double tm = ccb_ref_next_crossing(arel, &s, t_on + 1e-6, t_off, 1e-4, 0);
        if (!isnan(tm)) {
            vmax = fmax(vmax, fabs(vrel(tm, &s)));
        }
        ev->slip_start[ev->n] = t_on;
        ev->slip_end[ev->n] = t_off;
        ev->slip_speed_max[ev->n] = vmax;
        ev->rel_accel_end[ev->n] = fabs(arel(t_off, &s));
        ev->n++;
        if (excess(t_off, (void*)p) > 0 && t_off < T) {
            snprintf(msg, msgn,
                     "conveyor reference: slip reverses without stiction at t = %.6f (not "
                     "covered by this reference)",
                     t_off);
            return -1;
        }
        t = t_off;
    }
    return 0;
}
