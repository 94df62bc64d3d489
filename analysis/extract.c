/* extract: metric extractors on recorded runs (extract.h). Each is a loop over the steps; the
 * order of the floating-point operations is the one the studies always used, so the gates'
 * values do not move. */
#include "extract.h"

#include <math.h>
#include <stdlib.h>

#include "analysis.h"

double ccb_an_rel_error(const ccb_an_series* s, const ccb_an_series* ref, const int* cols,
                        int ncol) {
    const double ratio = s->dt / ref->dt;
    const long stride = lround(ratio);
    if (stride < 1 || fabs(ratio - (double)stride) > 1e-9 * ratio) {
        return NAN;
    }
    double num = 0, den = 0;
    for (long k = 1; k <= s->n && k * stride <= ref->n; ++k) {
        for (int c = 0; c < ncol; ++c) {
            const double a = ccb_an_obs(s, k, cols[c]), b = ccb_an_obs(ref, k * stride, cols[c]);
            num += (a - b) * (a - b);
            den += b * b;
        }
    }
    return den > 0 ? sqrt(num / den) : NAN;
}

ccb_an_window ccb_an_window_means(const ccb_an_series* s, double t0, double t1, int col) {
    ccb_an_window w = {0, 0, 0, 0};
    long nk = 0;
    for (long k = 1; k <= s->n; ++k) {
        const double t = (double)k * s->dt;
        if (t < t0 || t >= t1) {
            continue;
        }
        w.iters += s->iters ? s->iters[k] : 0;
        if (s->kappa && s->kappa[k] > 0) {
            w.kappa += s->kappa[k];
            nk++;
        }
        if (col >= 0) {
            w.obs += ccb_an_obs(s, k, col);
        }
        w.n++;
    }
    if (w.n > 0) {
        w.iters /= (double)w.n;
        w.obs /= (double)w.n;
    }
    w.kappa = nk > 0 ? w.kappa / (double)nk : NAN;
    return w;
}

double ccb_an_window_max(const ccb_an_series* s, double t0, double t1, int col) {
    double m = 0;
    for (long k = 1; k <= s->n; ++k) {
        const double t = (double)k * s->dt;
        if (t >= t0 - 1e-12 && t <= t1 + 1e-12) { /* [round-off: k dt against window ends] */
            m = fmax(m, ccb_an_obs(s, k, col));
        }
    }
    return m;
}

double ccb_an_window_median(const ccb_an_series* s, double t0, double t1, int col) {
    double* x = malloc((size_t)(s->n + 1) * sizeof(double));
    if (x == NULL) {
        return NAN;
    }
    int n = 0;
    for (long k = 1; k <= s->n; ++k) {
        const double t = (double)k * s->dt;
        if (t >= t0 && t < t1) {
            x[n++] = ccb_an_obs(s, k, col);
        }
    }
    const double m = ccb_an_median(x, n);
    free(x);
    return m;
}

ccb_an_jam ccb_an_find_jam(const ccb_an_series* s, int col_vt, int col_fn, double vs,
                           double window) {
    ccb_an_jam f;
    const double dt = s->dt;
    f.t_jam = f.t_unstick = f.t_liftoff = NAN;
    f.k_liftoff = -1;
    f.fn_peak = f.fn_impulse = 0;
    long kj = -1;
    for (long k = 1; k <= s->n; ++k) {
        if (fabs(ccb_an_obs(s, k, col_vt)) < vs) {
            kj = k;
            break;
        }
    }
    if (kj < 0) {
        return f;
    }
    f.t_jam = (double)kj * dt;
    long k = kj;
    while (k <= s->n && fabs(ccb_an_obs(s, k, col_vt)) < vs) {
        ++k;
    }
    f.t_unstick = (double)k * dt;
    for (k = kj; k <= s->n; ++k) {
        if (ccb_an_obs(s, k, col_fn) == 0.0) {
            f.t_liftoff = (double)k * dt;
            f.k_liftoff = k;
            break;
        }
    }
    const long w = (long)lround(window / dt);
    for (k = kj - w > 1 ? kj - w : 1; k <= kj + w && k <= s->n; ++k) {
        f.fn_peak = fmax(f.fn_peak, ccb_an_obs(s, k, col_fn));
        f.fn_impulse += ccb_an_obs(s, k, col_fn) * dt;
    }
    return f;
}

double ccb_an_mean_abs(const ccb_an_series* s, int col, double t1) {
    const long n = (long)lround(t1 / s->dt);
    double sum = 0;
    for (long k = 1; k <= n && k <= s->n; ++k) {
        sum += fabs(ccb_an_obs(s, k, col));
    }
    return n > 0 ? sum / (double)n : NAN;
}

void ccb_an_at_levels(const ccb_an_series* s, int col_speed, int col_value, double s0, double v0,
                      const double* levels, int nlevels, double* at) {
    for (int j = 0; j < nlevels; ++j) {
        at[j] = NAN;
    }
    double S_prev = s0, v_prev = v0;
    int j = 0;
    for (long k = 1; k <= s->n && j < nlevels; ++k) {
        const double S = ccb_an_obs(s, k, col_speed), v = ccb_an_obs(s, k, col_value);
        while (j < nlevels && S <= levels[j] * s0 && S > 0) {
            const double a = (log(levels[j] * s0) - log(S_prev)) / (log(S) - log(S_prev));
            at[j] = v_prev + a * (v - v_prev);
            ++j;
        }
        S_prev = S;
        v_prev = v;
    }
}

long ccb_an_first_above(const ccb_an_series* s, int col, double threshold) {
    for (long k = 1; k <= s->n; ++k) {
        if (ccb_an_obs(s, k, col) > threshold) {
            return k;
        }
    }
    return -1;
}

long ccb_an_first_below_abs(const ccb_an_series* s, int col, double threshold, long after) {
    for (long k = after + 1; k <= s->n; ++k) {
        if (fabs(ccb_an_obs(s, k, col)) < threshold) {
            return k;
        }
    }
    return -1;
}

double ccb_an_max_abs(const ccb_an_series* s, int col, long after, double t0, double t1) {
    double m = 0;
    for (long k = after + 1; k <= s->n; ++k) {
        const double t = (double)k * s->dt;
        if (t >= t0 && t <= t1) {
            m = fmax(m, fabs(ccb_an_obs(s, k, col)));
        }
    }
    return m;
}

double ccb_an_max_rel_dev(const ccb_an_series* s, int col_a, int col_b, int col_v, double vmin,
                          double c, long* count) {
    double dev = 0;
    long n = 0;
    for (long k = 1; k <= s->n; ++k) {
        const double v = fabs(ccb_an_obs(s, k, col_v));
        if (v > vmin) {
            const double off = c * v;
            dev = fmax(dev, fabs(ccb_an_obs(s, k, col_a) - ccb_an_obs(s, k, col_b)) / off);
            n++;
        }
    }
    *count = n;
    return n > 0 ? dev : NAN;
}

double ccb_an_peak_near(const ccb_an_series* s, int col, long k, long w) {
    double peak = 0;
    for (long j = k - w; j <= k + w; ++j) {
        if (j >= 1 && j <= s->n) {
            peak = fmax(peak, ccb_an_obs(s, j, col));
        }
    }
    return peak;
}
