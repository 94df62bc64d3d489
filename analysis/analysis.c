/* analysis: error norms on a common grid, observed orders (GSL least squares), transitions,
 * and the gnuplot driver. */
#define _POSIX_C_SOURCE 200809L
#include "analysis.h"
#include "ccb/record.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int ccb_an_rms_error(long na, double dt_a, const double* qa, long nref, double dt_ref,
                     const double* qref, int nq, double* e_total, double* e_comp, char* msg,
                     size_t msgn) {
    if (!(dt_a > 0 && dt_ref > 0) || na < 1 || nq < 1) {
        snprintf(msg, msgn, "rms_error: invalid grid (na = %ld, dt = %g, dt_ref = %g)", na, dt_a,
                 dt_ref);
        return -1;
    }
    const double rr = dt_a / dt_ref;
    const long r = lround(rr);
    if (r < 1 || fabs(rr - (double)r) > 1e-9 * rr) {
        snprintf(msg, msgn, "rms_error: dt = %g is not an integer multiple of dt_ref = %g", dt_a,
                 dt_ref);
        return -1;
    }
    if (na * r > nref) {
        snprintf(msg, msgn, "rms_error: the reference (%ld steps) is shorter than the run", nref);
        return -1;
    }
    double tot = 0.0;
    double comp[64] = {0};
    if (e_comp && nq > 64) {
        snprintf(msg, msgn, "rms_error: per-component errors of at most 64 components");
        return -1;
    }
    for (long k = 0; k <= na; ++k) {
        const double wgt = (k == 0 || k == na) ? 0.5 : 1.0; /* trapezoid */
        double s = 0.0;
        for (int i = 0; i < nq; ++i) {
            const double d = qa[k * nq + i] - qref[k * r * nq + i];
            if (i < 64) {
                comp[i] += wgt * d * d;
            }
            s += d * d;
        }
        tot += wgt * s;
    }
    /* (1/T) sum w_k e_k^2 dt = sum w_k e_k^2 / na */
    *e_total = sqrt(tot / (double)na);
    if (e_comp) {
        for (int i = 0; i < nq; ++i) {
            e_comp[i] = sqrt(comp[i] / (double)na);
        }
    }
    return 0;
}

int ccb_an_order(int n, const double* h, const double* e, double* slope, double* intercept,
                 double* r2) {
    if (n < 2) {
        return -1;
    }
    double x[64], y[64];
    if (n > 64) {
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        if (!(h[i] > 0 && e[i] > 0) || !isfinite(e[i])) {
            return -1;
        }
        x[i] = log(h[i]);
        y[i] = log(e[i]);
    }
    gsl_set_error_handler_off();
    double c0, c1, cov00, cov01, cov11, sumsq;
    if (gsl_fit_linear(x, 1, y, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) !=
        GSL_SUCCESS) {
        return -1;
    }
    *slope = c1;
    if (intercept) {
        *intercept = c0;
    }
    if (r2) {
        double ym = 0, ss = 0;
        for (int i = 0; i < n; ++i) {
            ym += y[i] / n;
        }
        for (int i = 0; i < n; ++i) {
            ss += (y[i] - ym) * (y[i] - ym);
        }
        *r2 = ss > 0 ? 1.0 - sumsq / ss : 1.0;
    }
    return 0;
}

void ccb_an_fit_order(int n, const double* h, const double* e, ccb_an_fit* fit) {
    double x[64], y[64];
    int m = 0;
    for (int i = 0; i < n && m < 64; ++i) {
        if (h[i] > 0 && isfinite(h[i]) && e[i] > 0 && isfinite(e[i])) {
            x[m] = log(h[i]);
            y[m] = log(e[i]);
            m++;
        }
    }
    fit->n = m;
    fit->order = fit->ci95 = fit->intercept = fit->r2 = NAN;
    if (m < 2) {
        return;
    }
    gsl_set_error_handler_off();
    double c0, c1, cov00, cov01, cov11, sumsq;
    if (gsl_fit_linear(x, 1, y, 1, (size_t)m, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) !=
        GSL_SUCCESS) {
        return;
    }
    fit->order = c1;
    fit->intercept = c0;
    double ym = 0, ss = 0;
    for (int i = 0; i < m; ++i) {
        ym += y[i] / m;
    }
    for (int i = 0; i < m; ++i) {
        ss += (y[i] - ym) * (y[i] - ym);
    }
    fit->r2 = ss > 0 ? 1.0 - sumsq / ss : 1.0;
    if (m >= 3) { /* gsl's cov11 is sumsq/(m-2) / sum (x - xm)^2 */
        fit->ci95 = gsl_cdf_tdist_Pinv(0.975, (double)(m - 2)) * sqrt(cov11);
    }
}

void ccb_an_step_stats(long n, const int* iters, const int* ls, const double* kappa,
                       ccb_an_steps* o) {
    o->iters_mean = o->iters_max = o->ls_mean = o->ls_max = o->kappa_mean = o->kappa_max = NAN;
    o->nkappa = 0;
    if (n < 1) {
        return;
    }
    double si = 0, sl = 0, sk = 0, mi = 0, ml = 0, mk = 0;
    for (long k = 1; k <= n; ++k) {
        if (iters) {
            si += iters[k];
            mi = fmax(mi, iters[k]);
        }
        if (ls) {
            sl += ls[k];
            ml = fmax(ml, ls[k]);
        }
        if (kappa && kappa[k] > 0) {
            sk += kappa[k];
            mk = fmax(mk, kappa[k]);
            o->nkappa++;
        }
    }
    if (iters) {
        o->iters_mean = si / (double)n;
        o->iters_max = mi;
    }
    if (ls) {
        o->ls_mean = sl / (double)n;
        o->ls_max = ml;
    }
    if (o->nkappa > 0) {
        o->kappa_mean = sk / (double)o->nkappa;
        o->kappa_max = mk;
    }
}

int ccb_an_transitions(long n, const double* s, long first, double threshold,
                       ccb_an_transition* out, int max) {
    if (first >= n) {
        return 0;
    }
    int slipping = fabs(s[first]) > threshold;
    int count = 0;
    for (long k = first + 1; k < n; ++k) {
        const int now = fabs(s[k]) > threshold;
        if (now != slipping) {
            if (count < max) {
                out[count].index = k;
                out[count].to_slip = now;
            }
            count++;
            slipping = now;
        }
    }
    return count;
}

int ccb_an_crossing_frequency(const double* x, long i0, long i1, long stride, double dt,
                              double* freq) {
    if (i1 - i0 < 4 || stride < 1 || !(dt > 0)) {
        return -1;
    }
    double mean = 0.0;
    for (long i = i0; i < i1; ++i) {
        mean += x[i * stride];
    }
    mean /= (double)(i1 - i0);
    double first = NAN, last = NAN;
    long n = 0;
    for (long i = i0 + 1; i < i1; ++i) {
        const double a = x[(i - 1) * stride] - mean, b = x[i * stride] - mean;
        if ((a < 0 && b >= 0) || (a >= 0 && b < 0)) {
            const double tc = ((double)(i - 1) + a / (a - b)) * dt; /* linear interpolation */
            if (n == 0) {
                first = tc;
            }
            last = tc;
            n++;
        }
    }
    if (n < 3 || !(last > first)) {
        return -1;
    }
    *freq = 0.5 * (double)(n - 1) / (last - first); /* two crossings per period */
    return 0;
}

int ccb_an_windowed_error(int M, const double* y, const double* r, double* raw, double* rms) {
    if (M < 1) {
        return -1;
    }
    double s = 0.0;
    for (int m = 1; m <= M; ++m) {
        const double d = y[m] - r[m];
        s += d * d;
    }
    if (!isfinite(s)) {
        return -1;
    }
    *raw = sqrt(s);
    *rms = sqrt(s / (double)M);
    return 0;
}

double ccb_an_loglog_at(int n, const double* x, const double* y, double x0) {
    for (int i = 0; i + 1 < n; ++i) {
        const double a = x[i], b = x[i + 1];
        if (!(a > 0 && b > 0 && y[i] > 0 && y[i + 1] > 0 && x0 > 0)) {
            continue;
        }
        if ((x0 - a) * (x0 - b) <= 0 && a != b) {
            const double u = (log(x0) - log(a)) / (log(b) - log(a));
            return exp(log(y[i]) + u * (log(y[i + 1]) - log(y[i])));
        }
    }
    return NAN;
}

int ccb_an_gp_quote(char* dst, size_t n, const char* s) {
    size_t k = 0;
    if (n < 3) {
        return -1;
    }
    dst[k++] = '\'';
    for (const char* c = s; *c; ++c) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            return -1;
        }
        const size_t need = *c == '\'' ? 2 : 1;
        if (k + need + 2 > n) {
            return -1;
        }
        dst[k++] = *c;
        if (*c == '\'') {
            dst[k++] = '\'';
        }
    }
    dst[k++] = '\'';
    dst[k] = '\0';
    return 0;
}

int ccb_an_gp_path(char* dst, size_t n, const char* path) {
    /* a relative path gets "./": gnuplot reads a file name that starts with '<' as a command
     * whose output is the data, and an output name that starts with '|' as a pipe */
    const int rel = path[0] != '/';
    if (!rel) {
        return ccb_an_gp_quote(dst, n, path);
    }
    const size_t len = strlen(path);
    char* p = malloc(len + 3);
    if (p == NULL) {
        return -1;
    }
    memcpy(p, "./", 2);
    memcpy(p + 2, path, len + 1);
    const int rc = ccb_an_gp_quote(dst, n, p);
    free(p);
    return rc;
}

int ccb_an_gp_check_vars(const char* vars, char* msg, size_t msgn) {
    const char* p = vars;
    const char* why = NULL;
    for (;;) {
        while (*p == ' ') {
            ++p;
        }
        if (*p == '\0') {
            return 0;
        }
        if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
            why = "a variable name";
            break;
        }
        while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
               (*p >= '0' && *p <= '9')) {
            ++p;
        }
        while (*p == ' ') {
            ++p;
        }
        if (*p++ != '=') {
            why = "'=' after the name";
            --p;
            break;
        }
        while (*p == ' ') {
            ++p;
        }
        if (*p == '\'') { /* a string: anything but a control character; '' is a quote */
            for (++p;; ++p) {
                if (*p == '\0' || (unsigned char)*p < 0x20 || *p == 0x7f) {
                    why = "the end of the string";
                    break;
                }
                if (*p == '\'') {
                    if (p[1] != '\'') {
                        ++p;
                        break;
                    }
                    ++p;
                }
            }
            if (why) {
                break;
            }
        } else { /* a number: [+-]digits[.digits][e[+-]digits] */
            const char* s = p;
            char* e = NULL;
            if (*p == '+' || *p == '-') {
                ++p;
            }
            if (!((*p >= '0' && *p <= '9') || *p == '.')) {
                why = "a number or a quoted string";
                break;
            }
            (void)strtod(s, &e);
            for (const char* c = s; c < e; ++c) { /* no inf, nan or hex: gnuplot's own syntax */
                if (!((*c >= '0' && *c <= '9') || *c == '.' || *c == 'e' || *c == 'E' ||
                      *c == '+' || *c == '-')) {
                    e = (char*)s;
                    break;
                }
            }
            if (e == s) {
                why = "a number or a quoted string";
                break;
            }
            p = e;
        }
        while (*p == ' ') {
            ++p;
        }
        if (*p == ';') {
            ++p;
        } else if (*p != '\0') {
            why = "';' after the value";
            break;
        }
    }
    snprintf(msg, msgn,
             "plot: the variables are not constant assignments (expected %s at offset "
             "%ld of \"%.60s\")",
             why, (long)(p - vars), vars);
    return -1;
}

/* 1 if the file is a complete figure: a PNG that ends in its IEND chunk, an SVG with </svg> in
 * its last bytes. */
static int figure_complete(const char* path, int png) {
    FILE* f = fopen(path, "rb");
    if (f == NULL) {
        return 0;
    }
    unsigned char tail[64];
    size_t got = 0;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0) {
        const long from = size > (long)sizeof tail ? size - (long)sizeof tail : 0;
        if (fseek(f, from, SEEK_SET) == 0) {
            got = fread(tail, 1, sizeof tail, f);
        }
    }
    fclose(f);
    if (got == 0) {
        return 0;
    }
    if (png) {
        static const unsigned char iend[8] = {'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
        return got >= 8 && memcmp(tail + got - 8, iend, 8) == 0;
    }
    for (size_t i = 0; i + 6 <= got; ++i) {
        if (memcmp(tail + i, "</svg>", 6) == 0) {
            return 1;
        }
    }
    return 0;
}

/* gnuplot -e assignments script; 0, or -1 with a message. */
static int run_gnuplot(const char* script, const char* assignments, char* msg, size_t msgn) {
    int fd[2];
    if (pipe(fd) != 0) {
        snprintf(msg, msgn, "plot: cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        snprintf(msg, msgn, "plot: cannot start gnuplot: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) { /* gnuplot's output and errors go to the pipe */
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        char* const argv[] = {"gnuplot", "-e", (char*)assignments, (char*)script, NULL};
        execvp("gnuplot", argv);
        _exit(127);
    }
    close(fd[1]);
    FILE* p = fdopen(fd[0], "r");
    char line[512], first[512] = "";
    while (p && fgets(line, sizeof line, p)) {
        if (first[0] == '\0') {
            snprintf(first, sizeof first, "%s", line);
        }
    }
    if (p) {
        fclose(p);
    } else {
        close(fd[0]);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && first[0] == '\0') {
        snprintf(msg, msgn,
                 "gnuplot is not installed (apt-get install gnuplot-nox); figures were not drawn");
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        first[strcspn(first, "\n")] = '\0';
        snprintf(msg, msgn, "gnuplot failed on %s: %s", script, first);
        return -1;
    }
    return 0;
}

int ccb_an_plot(const char* script, const char* datadir, const char* out, const char* vars,
                char* msg, size_t msgn) {
    for (const char* c = script; *c; ++c) {
        if (*c == '\'' || *c == '"' || *c == '\\' || (unsigned char)*c < 0x20) {
            snprintf(msg, msgn,
                     "plot: script path '%s' has a quote, backslash or control "
                     "character",
                     script);
            return -1;
        }
    }
    if (ccb_an_gp_check_vars(vars ? vars : "", msg, msgn) != 0) {
        return -1;
    }
    const size_t qn =
        2 * strlen(out) + 2 * (datadir ? strlen(datadir) : 0) + 2 * strlen(script) + 64;
    char* qdata = malloc(qn);
    char* qout = malloc(qn);
    char* qpng = malloc(qn);
    char* qsvg = malloc(qn);
    char *fpng = malloc(strlen(out) + 8), *fsvg = malloc(strlen(out) + 8);
    ccb_writer *wpng = NULL, *wsvg = NULL;
    int rc = -1;
    if (!qdata || !qout || !qpng || !qsvg || !fpng || !fsvg) {
        snprintf(msg, msgn, "plot: out of memory");
        goto done;
    }
    sprintf(fpng, "%s.png", out);
    sprintf(fsvg, "%s.svg", out);
    if (ccb_writer_open(fpng, &wpng, msg, msgn) != CCB_OK ||
        ccb_writer_open(fsvg, &wsvg, msg, msgn) != CCB_OK) {
        goto done;
    }
    if ((datadir && ccb_an_gp_path(qdata, qn, datadir) != 0) ||
        ccb_an_gp_path(qout, qn, out) != 0 ||
        ccb_an_gp_path(qpng, qn, ccb_writer_temp_path(wpng)) != 0 ||
        ccb_an_gp_path(qsvg, qn, ccb_writer_temp_path(wsvg)) != 0) {
        snprintf(msg, msgn, "plot: a path has a control character: '%s'", out);
        goto done;
    }
    const size_t an = 4 * qn + strlen(vars ? vars : "") + 64;
    char* assignments = malloc(an);
    if (assignments == NULL) {
        snprintf(msg, msgn, "plot: out of memory");
        goto done;
    }
    snprintf(assignments, an, "%s%s%sout=%s; out_png=%s; out_svg=%s; %s", datadir ? "datadir=" : "",
             datadir ? qdata : "", datadir ? "; " : "", qout, qpng, qsvg, vars ? vars : "");
    /* the script as gnuplot's argument: "./" before a relative one (no option, no command) */
    char* sarg = malloc(strlen(script) + 3);
    if (sarg == NULL) {
        free(assignments);
        snprintf(msg, msgn, "plot: out of memory");
        goto done;
    }
    sprintf(sarg, "%s%s", script[0] == '/' ? "" : "./", script);
    rc = run_gnuplot(sarg, assignments, msg, msgn);
    free(sarg);
    free(assignments);
    if (rc == 0 && !figure_complete(ccb_writer_temp_path(wpng), 1)) {
        snprintf(msg, msgn, "gnuplot wrote an incomplete %s (is the disk full?)", fpng);
        rc = -1;
    }
    if (rc == 0 && !figure_complete(ccb_writer_temp_path(wsvg), 0)) {
        snprintf(msg, msgn, "gnuplot wrote an incomplete %s (is the disk full?)", fsvg);
        rc = -1;
    }
    if (rc == 0) { /* each writer ends here: committed (or freed by its failed commit) */
        ccb_writer* p = wpng;
        ccb_writer* s = wsvg;
        wpng = wsvg = NULL;
        if (ccb_writer_commit(p, msg, msgn) != CCB_OK) {
            ccb_writer_abort(s);
            rc = -1;
        } else if (ccb_writer_commit(s, msg, msgn) != CCB_OK) {
            rc = -1;
        }
    }
done:
    ccb_writer_abort(wpng);
    ccb_writer_abort(wsvg);
    free(qdata), free(qout), free(qpng), free(qsvg), free(fpng), free(fsvg);
    return rc;
}

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

ccb_an_ensemble ccb_an_ensemble_of(const double* x, int n) {
    ccb_an_ensemble s = {NAN, NAN, NAN, NAN, NAN};
    if (n < 2 || x == NULL) {
        return s;
    }
    double* y = malloc((size_t)n * sizeof *y);
    if (y == NULL) {
        return s;
    }
    double sum = 0, sq = 0, lo = INFINITY, hi = -INFINITY;
    for (int m = 0; m < n; ++m) {
        y[m] = x[m];
        sum += x[m];
        lo = fmin(lo, x[m]);
        hi = fmax(hi, x[m]);
    }
    const double median = ccb_an_median(y, n), mean = sum / n;
    free(y);
    for (int m = 0; m < n; ++m) {
        sq += (x[m] - mean) * (x[m] - mean);
    }
    if (!isnan(median) && !isnan(mean)) { /* fmin/fmax skip NaN: the median does not */
        s = (ccb_an_ensemble){mean, sqrt(sq / (n - 1) / n), median, lo, hi};
    }
    return s;
}

int ccb_an_threshold_crossings(const double* v, long n, double dt, double threshold, double* on,
                               double* off, int max, int* non, int* noff) {
    *non = *noff = 0;
    for (long k = 1; k < n; ++k) {
        const double a = fabs(v[k - 1]) - threshold, b = fabs(v[k]) - threshold;
        if ((a <= 0) != (b <= 0)) {
            const double tc = ((double)(k - 1) + a / (a - b)) * dt;
            if (b > 0 && *non < max) {
                on[(*non)++] = tc;
            } else if (b <= 0 && *noff < max) {
                off[(*noff)++] = tc;
            }
        }
    }
    return *non + *noff;
}

double ccb_an_loglog_at_or_beyond(int n, const double* x, const double* y, double x0,
                                  int* extrapolated) {
    *extrapolated = 0;
    const double in = ccb_an_loglog_at(n, x, y, x0);
    if (!isnan(in) || n < 2 || !(x0 > 0)) {
        return in;
    }
    int lo = -1, hi = -1; /* indices of the smallest and largest valid x */
    for (int i = 0; i < n; ++i) {
        if (x[i] > 0 && y[i] > 0) {
            lo = lo < 0 || x[i] < x[lo] ? i : lo;
            hi = hi < 0 || x[i] > x[hi] ? i : hi;
        }
    }
    if (lo < 0 || lo == hi) {
        return NAN;
    }
    const int below = x0 < x[lo];
    const int e = below ? lo : hi;
    if ((below && x0 < 0.1 * x[lo]) || (!below && x0 > 10.0 * x[hi])) {
        return NAN;
    }
    int o = -1; /* the valid point next to the end e in x */
    for (int i = 0; i < n; ++i) {
        if (i != e && x[i] > 0 && y[i] > 0 && x[i] != x[e] &&
            (o < 0 || fabs(log(x[i] / x[e])) < fabs(log(x[o] / x[e])))) {
            o = i;
        }
    }
    if (o < 0) {
        return NAN;
    }
    *extrapolated = 1;
    const double slope = log(y[o] / y[e]) / log(x[o] / x[e]);
    return y[e] * exp(slope * log(x0 / x[e]));
}

double ccb_an_median(double* x, int n) {
    if (n < 1) {
        return NAN;
    }
    for (int i = 0; i < n; ++i) {
        if (isnan(x[i])) {
            return NAN;
        }
    }
    qsort(x, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}
