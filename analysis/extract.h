/* analysis/extract.h — metric extractors: small functions that read a recorded run and return
 * the facts the studies and gates use (event times, a jam, eps at speed levels, window means).
 * They see a run through ccb_an_series, a view of its arrays, so they know no case and are
 * tested on synthetic records (analysis/test_analysis.c). */
#ifndef CCB_EXTRACT_H
#define CCB_EXTRACT_H

#include <stddef.h>

/* A recorded run: n steps of dt; rows k = 0..n of q (nq), v (nv) and the observables (nobs; row
 * 0 unused), per-step iterations and kappa (index k = step k; NULL if not recorded). */
typedef struct ccb_an_series {
    long n;
    double dt;
    int nq, nv, nobs;
    const double* q;
    const double* v;
    const double* obs;
    const int* iters;
    const double* kappa;
} ccb_an_series;

static inline double ccb_an_obs(const ccb_an_series* s, long k, int col) {
    return s->obs[(size_t)k * (size_t)s->nobs + (size_t)col];
}

/* ---- windows over time (the clutter's Figs. 15-19) ------------------------------------------- */

/* Means over the steps k with t = k dt in [t0, t1): iterations, kappa (over the steps where it
 * was computed, > 0; NAN if none) and observable col (col < 0: none). n: steps in the window. */
typedef struct ccb_an_window {
    double iters, kappa, obs;
    long n;
} ccb_an_window;
ccb_an_window ccb_an_window_means(const ccb_an_series* s, double t0, double t1, int col);
/* Largest value of observable col over t in [t0, t1] (both ends within 1e-12 s; 0 if none). */
double ccb_an_window_max(const ccb_an_series* s, double t0, double t1, int col);
/* Median of observable col over t in [t0, t1) (NAN if none or any is NaN, or out of memory). */
double ccb_an_window_median(const ccb_an_series* s, double t0, double t1, int col);

/* ---- the rod's jam (ICF §XI-C) ------------------------------------------------------------------ */

/* The first stiction of the contact point (|v_t| < vs), when it ends, the first zero normal
 * force after it (lift-off) and the peak and impulse of f_n within +-window of the jam. */
typedef struct ccb_an_jam {
    double t_jam;      /* NAN: the contact never sticks (the impact was missed) */
    double t_unstick;  /* end of that stiction interval */
    double t_liftoff;  /* NAN: no lift-off */
    long k_liftoff;    /* its step, -1 if none */
    double fn_peak;    /* [N] */
    double fn_impulse; /* [N s] */
} ccb_an_jam;
ccb_an_jam ccb_an_find_jam(const ccb_an_series* s, int col_vt, int col_fn, double vs,
                           double window);

/* The relative error |x - x_ref|_2 / |x_ref|_2 of the observables cols[0..ncol-1] over the
 * samples of s at its step, the reference sampled at the same times (its step must divide s's;
 * the samples up to the shorter run). NAN if the reference is zero there or the steps do not
 * divide. (The coin's e_v and e_omega, PFC Fig. 6.) */
double ccb_an_rel_error(const ccb_an_series* s, const ccb_an_series* ref, const int* cols,
                        int ncol);

/* Mean |observable col| over steps 1 .. round(t1/dt) (NAN if t1 < dt). */
double ccb_an_mean_abs(const ccb_an_series* s, int col, double t1);

/* ---- gliding and spikes (the conveyor, ICF §XI-A) --------------------------------------------- */

/* Largest |observable a - observable b| / (c |observable v|) over the steps with |v| > vmin:
 * the gliding height against its closed form, relative to the offset c |v_t|. *count receives
 * the number of such steps (0: NAN). */
double ccb_an_max_rel_dev(const ccb_an_series* s, int col_a, int col_b, int col_v, double vmin,
                          double c, long* count);
/* Largest observable col over the steps k - w .. k + w within 1 .. n (0 if none). */
double ccb_an_peak_near(const ccb_an_series* s, int col, long k, long w);

/* ---- speed levels (the coin's eps, PFC §V-A) ------------------------------------------------ */

/* The value of observable col_value where the decreasing speed col_speed first reaches
 * levels[j] x s0 (levels descending), by linear interpolation in log speed between the steps
 * that bracket it (the step before the first is (s0, v0)); NAN for a level never reached. */
void ccb_an_at_levels(const ccb_an_series* s, int col_speed, int col_value, double s0, double v0,
                      const double* levels, int nlevels, double* at);

/* ---- first events (the sphere's contact, ICF §XI-B) --------------------------------------------- */

/* First step k >= 1 with observable col > threshold, or -1. */
long ccb_an_first_above(const ccb_an_series* s, int col, double threshold);
/* First step k > after with |observable col| < threshold, or -1. */
long ccb_an_first_below_abs(const ccb_an_series* s, int col, double threshold, long after);
/* Largest |observable col| over steps after < k <= n with t = k dt in [t0, t1] (0 if none). */
double ccb_an_max_abs(const ccb_an_series* s, int col, long after, double t0, double t1);

#endif
