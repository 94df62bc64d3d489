/* The stick-slip box (spec: cases.md §7; TAMSI paper §IV-A): the exact Coulomb solution
 * (v_s -> 0) and the regularized model with its RK3 reference flow, independent of libccb.
 *
 * Force f(t) = F sin(w t + phase), w = 2 pi freq; weight W = m g; friction mu W.
 * Coulomb (cases.md §7.2): stuck while |f| <= mu W; a slide starts where |f| exceeds mu W, in the
 * direction s = sign f, with
 *   v(t) = (1/m) [ (F/w)(cos th_on - cos th(t)) - s mu W (t - t_on) ],  th(t) = w t + phase,
 *   x(t) = x_on + (1/m) [ (F/w)(cos th_on (t - t_on) - (sin th(t) - sin th_on)/w)
 *                         - s mu W (t - t_on)^2 / 2 ]
 * and ends (re-stick) at the first root of v after t_on. Events are bracketed by a scan of
 * 1e-4/freq s and refined with GSL's Brent solver to 1e-14 s; the peak speed of a slide is where
 * s f(t) falls back to mu W.
 * Regularized model (TAMSI paper eq. 7, mu~ = mu min(s, 1), s = |v|/v_s):
 *   x' = v,  m v' = f(t) - mu~(|v|/v_s) W sgn(v) = f(t) - W mu min(1/v_s, 1/|v|) v
 * integrated by the explicit RK3 of the work-precision reference (formulation-tamsi-hydro §E.2,
 * Drake's tableau) in a tight loop (the force at the end of a step is reused at the start of the
 * next). */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"

#define PI 3.14159265358979323846

static double force(const ccb_ref_box* p, double t) {
    return p->F * sin(2.0 * PI * p->freq * t + p->phase);
}

/* f - s mu W (s = +1 or -1): the net force of a slide in direction s */
typedef struct slide {
    const ccb_ref_box* p;
    double t_on, x_on, s;
} slide;

static double slide_v(const slide* S, double t) {
    const ccb_ref_box* p = S->p;
    const double w = 2.0 * PI * p->freq, th0 = w * S->t_on + p->phase, th = w * t + p->phase;
    return ((p->F / w) * (cos(th0) - cos(th)) - S->s * p->mu * p->m * p->g * (t - S->t_on)) / p->m;
}

static double slide_x(const slide* S, double t) {
    const ccb_ref_box* p = S->p;
    const double w = 2.0 * PI * p->freq, th0 = w * S->t_on + p->phase, th = w * t + p->phase;
    const double dt = t - S->t_on;
    return S->x_on + ((p->F / w) * (cos(th0) * dt - (sin(th) - sin(th0)) / w) -
                      0.5 * S->s * p->mu * p->m * p->g * dt * dt) /
                         p->m;
}

static double excess(double t, void* u) { /* |f| - mu W */
    const ccb_ref_box* p = u;
    return fabs(force(p, t)) - p->mu * p->m * p->g;
}

static double sv(double t, void* u) { /* s v(t) */
    const slide* S = u;
    return S->s * slide_v(S, t);
}

static double net(double t, void* u) { /* s f(t) - mu W: the acceleration's sign */
    const slide* S = u;
    return S->s * force(S->p, t) - S->p->mu * S->p->m * S->p->g;
}

int ccb_ref_box_solve(const ccb_ref_box* p, double T, ccb_ref_box_events* ev, char* msg, size_t n) {
    gsl_set_error_handler_off();
    memset(ev, 0, sizeof *ev);
    if (!(p->m > 0 && p->mu >= 0 && p->g > 0 && p->F >= 0 && p->freq > 0 && T > 0) ||
        !isfinite(p->phase)) {
        snprintf(msg, n, "box reference: m, g, freq, T must be > 0 and mu, F >= 0");
        return -1;
    }
    const double step = 1e-4 / p->freq;
    double t = 0.0, x = 0.0; /* stuck at rest at x = 0 from t = 0 (cases.md §7.1 IC) */
    while (t < T) {
        /* stuck: wait until |f| exceeds mu W */
        double t_on =
            excess(t, (void*)p) > 0 ? t : ccb_ref_next_crossing(excess, (void*)p, t, T, step, 1);
        if (isnan(t_on)) {
            break;
        }
        if (ev->n == CCB_REF_BOX_MAX_EVENTS) {
            snprintf(msg, n, "box reference: more than %d slides before T = %g",
                     CCB_REF_BOX_MAX_EVENTS, T);
            return -1;
        }
        const double s = force(p, t_on + 0.5 * step) > 0 ? 1.0 : -1.0;
        slide S = {p, t_on, x, s};
        /* re-stick at the first root of s v after t_on (s v > 0 just after the onset) */
        const double t_off = ccb_ref_next_crossing(sv, &S, t_on + 1e-9 * step, T, step, -1);
        const int k = ev->n++;
        ev->t_on[k] = t_on;
        ev->x_on[k] = x;
        ev->dir[k] = s;
        ev->t_off[k] = isnan(t_off) ? T : t_off;
        ev->ended[k] = !isnan(t_off);
        /* peak speed: s f(t) falls back to mu W */
        const double t_pk =
            ccb_ref_next_crossing(net, &S, t_on + 1e-9 * step, ev->t_off[k], step, -1);
        ev->t_peak[k] = isnan(t_pk) ? ev->t_off[k] : t_pk;
        ev->v_peak[k] = fabs(slide_v(&S, ev->t_peak[k]));
        x = slide_x(&S, ev->t_off[k]);
        ev->x_off[k] = x;
        t = ev->t_off[k];
        if (!ev->ended[k]) {
            break;
        }
    }
    return 0;
}

void ccb_ref_box_exact(const ccb_ref_box* p, const ccb_ref_box_events* ev, double t, double* x,
                       double* v) {
    double xs = 0.0, vs = 0.0;
    for (int k = 0; k < ev->n; ++k) {
        if (t < ev->t_on[k]) {
            break;
        }
        const slide S = {p, ev->t_on[k], ev->x_on[k], ev->dir[k]};
        if (t <= ev->t_off[k]) {
            xs = slide_x(&S, t);
            vs = slide_v(&S, t);
            break;
        }
        xs = ev->x_off[k];
        vs = 0.0;
    }
    if (x) {
        *x = xs;
    }
    if (v) {
        *v = vs;
    }
}

void ccb_ref_box_f(const ccb_ref_box* p, double t, const double x[2], double xdot[2]) {
    const double av = fabs(x[1]);
    /* mu~(s)/s / v_s = mu min(1/v_s, 1/|v|) (LIN, eq. 7) */
    const double c = av <= p->vs ? p->mu / p->vs : p->mu / av;
    xdot[0] = x[1];
    xdot[1] = (force(p, t) - p->m * p->g * c * x[1]) / p->m;
}

long ccb_ref_box_rk3(const ccb_ref_box* p, double t0, double x[2], double tau, double h) {
    long nsteps = (long)ceil(tau / h * (1.0 - 1e-9)); /* fewest equal steps <= h */
    if (nsteps < 1) {
        nsteps = 1;
    }
    const double s = tau / (double)nsteps;
    const double w = 2.0 * PI * p->freq, W = p->m * p->g, im = 1.0 / p->m;
    double x0 = x[0], v0 = x[1];
    double f0 = p->F * sin(w * t0 + p->phase);
    for (long k = 0; k < nsteps; ++k) {
        const double t = t0 + (double)k * s;
        const double fh = p->F * sin(w * (t + 0.5 * s) + p->phase);
        const double f1 = p->F * sin(w * (t + s) + p->phase);
#define ACC(fv, vv) (((fv)-W * (fabs(vv) <= p->vs ? p->mu / p->vs : p->mu / fabs(vv)) * (vv)) * im)
        const double k1x = v0, k1v = ACC(f0, v0);
        const double v2 = v0 + 0.5 * s * k1v;
        const double k2x = v2, k2v = ACC(fh, v2);
        const double v3 = v0 - s * k1v + 2.0 * s * k2v;
        const double k3x = v3, k3v = ACC(f1, v3);
#undef ACC
        x0 += s * (k1x / 6.0 + 2.0 * k2x / 3.0 + k3x / 6.0);
        v0 += s * (k1v / 6.0 + 2.0 * k2v / 3.0 + k3v / 6.0);
        f0 = f1;
    }
    x[0] = x0;
    x[1] = v0;
    return 3 * nsteps;
}
