/* analysis/ — convergence, conditioning and work-precision computations on recorded runs.
 * Reads run records, writes tables; never asserts (gates live in reference/). GSL is used for the
 * order fits (spec: cases.md §1.4). */
#ifndef CCB_ANALYSIS_H
#define CCB_ANALYSIS_H

#include <stddef.h>

/* Position RMS error (cases.md §1.4):
 *   e_q = ( (1/T) int_0^T |q_a(t) - q_ref(t)|^2 dt )^{1/2},
 * sampled on the coarse grid t_n = n dt_a (n = 0..na), trapezoidal rule. The reference has
 * nref + 1 samples on t_m = m dt_ref and dt_a / dt_ref must be an integer r (within 1e-9) with
 * na r <= nref. q arrays are row-major ((n+1) x nq). e_comp[nq] (may be NULL; if given, nq <= 64)
 * receives the per-component RMS errors. Returns 0, or -1 with a message. */
int ccb_an_rms_error(long na, double dt_a, const double* qa, long nref, double dt_ref,
                     const double* qref, int nq, double* e_total, double* e_comp, char* msg,
                     size_t msg_size);

/* Least-squares slope (observed order) and intercept of log(e) against log(h) over n >= 2 points,
 * with the coefficient of determination r2 (may be NULL). Returns 0, or -1 if fewer than two
 * points or a non-positive value. */
int ccb_an_order(int n, const double* h, const double* e, double* slope, double* intercept,
                 double* r2);

/* Observed order with its uncertainty (the convergence study): the least-squares line
 * log e = c + p log h through the points with h > 0 and a finite e > 0 (failed runs and exact
 * zeros are left out and not counted), with the half-width of the 95 % confidence interval of
 * p, t_{0.975, n-2} sqrt(var p) from the residuals (NAN for n = 2: two points fit exactly). */
typedef struct ccb_an_fit {
    int n;            /* points used */
    double order;     /* p; NAN if n < 2 */
    double ci95;      /* half-width of the 95 % interval of p; NAN if n < 3 */
    double intercept; /* c */
    double r2;        /* coefficient of determination */
} ccb_an_fit;
void ccb_an_fit_order(int n, const double* h, const double* e, ccb_an_fit* fit);

/* Per-step statistics of a run (the conditioning study) over steps 1..n: iterations and
 * line-search evaluations (NULL: not recorded), and kappa over the steps where it was computed
 * (> 0). Means and maxima; NAN where nothing was recorded. */
typedef struct ccb_an_steps {
    double iters_mean, iters_max;
    double ls_mean, ls_max;
    double kappa_mean, kappa_max;
    long nkappa; /* steps with kappa */
} ccb_an_steps;
void ccb_an_step_stats(long n, const int* iters, const int* ls, const double* kappa,
                       ccb_an_steps* out);

/* Changes of a stick/slip indicator: slip iff |s| > threshold. A transition at index k means
 * sample k is the first sample of the new phase. */
typedef struct ccb_an_transition {
    long index;
    int to_slip; /* 1: stick -> slip, 0: slip -> stick */
} ccb_an_transition;
/* Returns the number of transitions found (at most max are stored), starting from the phase of
 * sample `first`. */
int ccb_an_transitions(long n, const double* s, long first, double threshold,
                       ccb_an_transition* out, int max);

/* Dominant frequency [Hz] of x(t) over samples [i0, i1) on a uniform grid of step dt: crossings
 * of the window mean (both directions), located by linear interpolation; frequency =
 * (crossings - 1) / (2 x time between the first and the last crossing). The average frequency of
 * a chirp. Returns 0, or -1 if fewer than 3 crossings (1.5 periods). */
int ccb_an_crossing_frequency(const double* x, long i0, long i1, long stride, double dt,
                              double* freq);

/* Localized global error of the work-precision method (spec: formulation-tamsi-hydro §E.2-E.3):
 * with test samples y_m = y(t_m), t_m = m dw, m = 0..M, and references r_m = Phi_dw(x_{m-1})
 * (the exact flow restarted from the test state at the start of each window),
 *   raw = ( sum_{m=1}^{M} (y_m - r_m)^2 )^{1/2},  rms = raw / sqrt(M).
 * y and r have M + 1 entries (r[0] unused). Returns 0, or -1 if M < 1 or a value is not finite. */
int ccb_an_windowed_error(int M, const double* y, const double* r, double* raw, double* rms);

/* y at x = x0 on the piecewise log-log linear curve through (x_i, y_i), i = 0..n-1 (consecutive
 * points, any direction): the first segment whose x range contains x0. NAN if none does or a
 * value is not positive. (Work at a given error on a work-precision curve.) */
double ccb_an_loglog_at(int n, const double* x, const double* y, double x0);
/* y at x0 along the log-log polyline (x, y): interpolated inside it; outside, extended along the
 * end segment nearer x0 when x0 is within a factor 10 of that end (*extrapolated = 1), else NAN. */
double ccb_an_loglog_at_or_beyond(int n, const double* x, const double* y, double x0,
                                  int* extrapolated);

/* Median of x[0..n-1] (n >= 1; the mean of the two middle values for even n). Sorts x in place.
 * NAN if n < 1 or any value is NaN (a failed run must not hide inside a median). */
double ccb_an_median(double* x, int n);

/* The statistics of an ensemble of n >= 2 values (the clutter's piles from perturbed initial
 * states): the mean with its standard error (sample standard deviation / sqrt(n)), the median and
 * the range. All NAN if a value is NaN (a failed member must not hide) or n < 2. */
typedef struct ccb_an_ensemble {
    double mean, sem, median, lo, hi;
} ccb_an_ensemble;
ccb_an_ensemble ccb_an_ensemble_of(const double* x, int n);

/* The times at which |v| crosses `threshold` in the series v[0..n-1] sampled every dt (linear
 * interpolation between the samples that bracket it): upward crossings into on[] (a slip onset
 * for a velocity and the stiction tolerance), downward ones into off[], at most max of each.
 * Returns the number found (*non + *noff). */
int ccb_an_threshold_crossings(const double* v, long n, double dt, double threshold, double* on,
                               double* off, int max, int* non, int* noff);

/* gnuplot's single-quoted string literal of s ('' for each quote; gnuplot reads nothing else
 * inside single quotes) into dst. 0, or -1 if s has a control character or dst is too small. */
int ccb_an_gp_quote(char* dst, size_t n, const char* s);

/* The same for a file path, with "./" before a relative one: gnuplot runs a data file name that
 * starts with '<' as a command and writes to a pipe for an output name that starts with '|', so
 * every path ccb hands to gnuplot goes through here and reaches it as a plain file name, whatever
 * it holds. 0, or -1 as ccb_an_gp_quote. */
int ccb_an_gp_path(char* dst, size_t n, const char* path);

/* 0 if `vars` is a list of constant assignments `name = value;` (value: a number or a
 * single-quoted string; the last ';' optional), -1 with a message naming the offset otherwise.
 * The plot refuses anything else: no expression, call or command reaches gnuplot from the
 * variables, whatever a path or a label holds. */
int ccb_an_gp_check_vars(const char* vars, char* msg, size_t msg_size);

/* Draws <out>.png and <out>.svg with the gnuplot script: gnuplot runs without a shell (fork +
 * execvp) with the assignments datadir (may be NULL), out, out_png, out_svg (each quoted by
 * ccb_an_gp_path) and `vars` (ccb_an_gp_check_vars). The script writes out_png and out_svg,
 * which are temporary files of the atomic writers (ccb_writer) of <out>.png and <out>.svg: they
 * replace the old figures only if gnuplot exits 0 and each file is complete (a PNG ending in its
 * IEND chunk, an SVG in </svg>); otherwise the old figures stay and no temporary file is left.
 * Returns 0, or -1 with a message (gnuplot missing or failing, a file incomplete, the script path
 * with a quote, backslash or control character, or vars refused). */
int ccb_an_plot(const char* script, const char* datadir, const char* out, const char* vars,
                char* msg, size_t msg_size);

#endif
