/* Tests of the analysis helpers: RMS error on a common grid, observed order, transitions, median. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "extract.h"
#include "gates.h"
#include "test.h"

static void test_rms_error(void) {
    /* q_a = q_ref + (c1, c2) everywhere => e = |c| exactly; grid ratio 5 */
    const long na = 40, r = 5, nref = na * r;
    static double qa[2 * 41], qref[2 * 201];
    for (long m = 0; m <= nref; ++m) {
        qref[2 * m] = sin(0.01 * (double)m);
        qref[2 * m + 1] = cos(0.03 * (double)m);
    }
    for (long k = 0; k <= na; ++k) {
        qa[2 * k] = qref[2 * k * r] + 3e-3;
        qa[2 * k + 1] = qref[2 * k * r + 1] - 4e-3;
    }
    double e = 0, ec[2];
    char msg[256];
    CHECK(ccb_an_rms_error(na, 0.05, qa, nref, 0.01, qref, 2, &e, ec, msg, sizeof msg) == 0, "%s",
          msg);
    /* [round-off: sums of 41 squares] */
    CHECK_REL(e, 5e-3, 1e-12, 0, "constant offset (3, -4) mm => e_q = 5 mm");
    CHECK_REL(ec[0], 3e-3, 1e-12, 0, "component x");
    CHECK_REL(ec[1], 4e-3, 1e-12, 0, "component z");
    /* trapezoid: an error only at the last sample counts half a step over T */
    qa[2 * na] += 1.0;
    CHECK(ccb_an_rms_error(na, 0.05, qa, nref, 0.01, qref, 2, &e, NULL, msg, sizeof msg) == 0, "%s",
          msg);
    const double expect = sqrt((25e-6 * (na - 0.5) + 0.5 * ((1.003) * (1.003) + 16e-6)) / na);
    CHECK_REL(e, expect, 1e-12, 0, "trapezoidal weights");
    CHECK(ccb_an_rms_error(na, 0.05, qa, nref, 0.03, qref, 2, &e, NULL, msg, sizeof msg) != 0,
          "non-integer step ratio rejected");
    CHECK(ccb_an_rms_error(na, 0.05, qa, nref - 1, 0.01, qref, 2, &e, NULL, msg, sizeof msg) != 0,
          "short reference rejected");
}

static void test_order(void) {
    const double h[4] = {1e-1, 3e-2, 1e-2, 2.5e-3};
    double e[4], slope, icpt, r2;
    for (int i = 0; i < 4; ++i) {
        e[i] = 2.385 * pow(h[i], 1.5);
    }
    CHECK(ccb_an_order(4, h, e, &slope, &icpt, &r2) == 0, "fit");
    CHECK_ABS(slope, 1.5, 1e-12, "exact power law => slope 1.5 (round-off)");
    CHECK_ABS(exp(icpt), 2.385, 1e-10, "intercept");
    CHECK_ABS(r2, 1.0, 1e-12, "r2 = 1");
    e[2] = -1;
    CHECK(ccb_an_order(4, h, e, &slope, NULL, NULL) != 0, "non-positive error rejected");
    CHECK(ccb_an_order(1, h, e, &slope, NULL, NULL) != 0, "one point rejected");
}

static void test_transitions(void) {
    const double s[10] = {0, 1e-4, 2e-3, 5e-3, 1e-3, 5e-4, 0, -3e-3, -2e-3, 0};
    ccb_an_transition tr[8];
    const int n = ccb_an_transitions(10, s, 0, 1e-3, tr, 8);
    CHECK(n == 4, "four transitions (got %d)", n);
    const long idx[4] = {2, 4, 7, 9};
    const int up[4] = {1, 0, 1, 0};
    for (int i = 0; i < 4 && i < n; ++i) {
        CHECK(tr[i].index == idx[i] && tr[i].to_slip == up[i], "transition %d at %ld (%d)", i,
              tr[i].index, tr[i].to_slip);
    }
}

static void test_crossing_frequency(void) {
    /* 458 Hz sine plus an offset, sampled at 1 us over 12 ms */
    const long n = 12000;
    static double x[12000];
    for (long i = 0; i < n; ++i) {
        x[i] = 11.2 + 12.5 * sin(2 * 3.14159265358979323846 * 458.0 * (double)i * 1e-6 + 0.3);
    }
    double f = 0;
    CHECK(ccb_an_crossing_frequency(x, 0, n, 1, 1e-6, &f) == 0, "frequency found");
    /* [interpolation error of a crossing ~ (w dt)^2 relative: 1e-5] */
    CHECK_REL(f, 458.0, 1e-4, 0, "458 Hz recovered");
    CHECK(ccb_an_crossing_frequency(x, 0, 3, 1, 1e-6, &f) != 0, "too short rejected");
}

static void test_median(void) {
    double odd[5] = {3, -1, 7, 2, 2};
    CHECK(ccb_an_median(odd, 5) == 2.0, "odd count: middle value");
    double even[4] = {4, 1, 3, 2};
    CHECK(ccb_an_median(even, 4) == 2.5, "even count: mean of the two middle values");
    double one[1] = {-5};
    CHECK(ccb_an_median(one, 1) == -5.0, "single value");
    double bad[3] = {1, NAN, 2};
    CHECK(isnan(ccb_an_median(bad, 3)), "a NaN propagates");
    CHECK(isnan(ccb_an_median(one, 0)), "no values");
}

/* ccb_an_loglog_at_or_beyond: on y = x^2 sampled at 1, 2, 4 */
static void test_loglog_beyond(void) {
    const double x[3] = {1, 2, 4}, y[3] = {1, 4, 16};
    int ex = -1;
    CHECK_REL(ccb_an_loglog_at_or_beyond(3, x, y, 3.0, &ex), 9.0, 1e-12, 0,
              "inside: the power law");
    CHECK(ex == 0, "inside: not extrapolated");
    CHECK_REL(ccb_an_loglog_at_or_beyond(3, x, y, 0.5, &ex), 0.25, 1e-12, 0,
              "below, within 10x: along the end segment");
    CHECK(ex == 1, "below: extrapolated");
    CHECK_REL(ccb_an_loglog_at_or_beyond(3, x, y, 8.0, &ex), 64.0, 1e-12, 0, "above, within 10x");
    CHECK(isnan(ccb_an_loglog_at_or_beyond(3, x, y, 41.0, &ex)), "beyond 10x the end: NaN");
    CHECK(isnan(ccb_an_loglog_at_or_beyond(3, x, y, 0.05, &ex)), "below a tenth: NaN");
}

/* ccb_an_ensemble_of: the statistics of a hand-computable ensemble, and a failed member */
static void test_ensemble(void) {
    const double x[4] = {1, 2, 4, 9};
    const ccb_an_ensemble e = ccb_an_ensemble_of(x, 4);
    /* mean 4; squared deviations 9 + 4 + 0 + 25 = 38, s.e. = sqrt(38 / 3 / 4) */
    CHECK(e.mean == 4.0 && e.median == 3.0 && e.lo == 1.0 && e.hi == 9.0, "mean, median, range");
    CHECK_REL(e.sem, sqrt(38.0 / 12.0), 1e-15, 0, "standard error of the mean");
    const double bad[3] = {1, NAN, 2};
    const ccb_an_ensemble f = ccb_an_ensemble_of(bad, 3);
    CHECK(isnan(f.mean) && isnan(f.sem) && isnan(f.median) && isnan(f.lo) && isnan(f.hi),
          "a failed member makes every statistic NaN");
    CHECK(isnan(ccb_an_ensemble_of(x, 1).mean), "one member has no spread");
}

/* ccb_an_threshold_crossings: |v| = 1 crossed at known interpolated times */
static void test_threshold_crossings(void) {
    /* samples every 0.1: |v| goes 0 -> 2 (up through 1 at 0.05), stays, -3 (|v| > 1), 0 (down
     * through 1 at 0.3 + 2/3 0.1) */
    const double v[5] = {0, 2, 2, -3, 0};
    double on[4], off[4];
    int non = 0, noff = 0;
    CHECK(ccb_an_threshold_crossings(v, 5, 0.1, 1.0, on, off, 4, &non, &noff) == 2 && non == 1 &&
              noff == 1,
          "one onset, one end (%d, %d)", non, noff);
    CHECK_ABS(on[0], 0.05, 1e-15, "onset interpolated");
    CHECK_ABS(off[0], 0.3 + 0.1 * 2.0 / 3.0, 1e-15, "end interpolated");
    CHECK(ccb_an_threshold_crossings(v, 5, 0.1, 1.0, on, off, 0, &non, &noff) == 0,
          "max = 0 stores nothing");
}

/* ccb_an_rel_error: a run against a reference at half its step */
static void test_rel_error(void) {
    /* observables of 2 columns, rows 0..n (row 0 unused); ref at dt/2 with 2n steps */
    double a[(4 + 1) * 2] = {0}, r[(8 + 1) * 2] = {0};
    for (long k = 1; k <= 8; ++k) {
        r[2 * k] = (double)k;
        r[2 * k + 1] = 1.0;
    }
    for (long k = 1; k <= 4; ++k) { /* the same samples, the first column off by 1 at k = 2 */
        a[2 * k] = r[2 * (2 * k)] + (k == 2 ? 1.0 : 0.0);
        a[2 * k + 1] = 1.0;
    }
    const ccb_an_series sa = {4, 0.2, 0, 0, 2, NULL, NULL, a, NULL, NULL};
    const ccb_an_series sr = {8, 0.1, 0, 0, 2, NULL, NULL, r, NULL, NULL};
    const int cols[2] = {0, 1};
    /* |x_ref|^2 over k = 2, 4, 6, 8 and both columns: 4 + 16 + 36 + 64 + 4 = 124 */
    CHECK_REL(ccb_an_rel_error(&sa, &sr, cols, 2), sqrt(1.0 / 124.0), 1e-15, 0, "e = 1/sqrt(124)");
    const ccb_an_series odd = {4, 0.15, 0, 0, 2, NULL, NULL, a, NULL, NULL};
    CHECK(isnan(ccb_an_rel_error(&odd, &sr, cols, 2)), "a step the reference does not divide");
}

static void test_fit_order(void) {
    /* exact power law e = 2.385 h^1.5: order exact, interval 0 to round-off [round-off: a
     * 4-point least-squares fit of logs, ~50 operations] */
    const double h[5] = {1e-1, 5e-2, 2e-2, 1e-2, 5e-3};
    double e[5];
    for (int i = 0; i < 5; ++i) {
        e[i] = 2.385 * pow(h[i], 1.5);
    }
    ccb_an_fit f;
    ccb_an_fit_order(5, h, e, &f);
    CHECK(f.n == 5, "five points used (%d)", f.n);
    CHECK_ABS(f.order, 1.5, 1e-12, "order of an exact power law");
    CHECK_ABS(f.ci95, 0.0, 1e-10, "no scatter, no interval");
    CHECK_ABS(f.intercept, log(2.385), 1e-12, "intercept log C");
    /* failed runs (NaN), zero and negative errors are left out */
    e[1] = NAN;
    e[3] = 0.0;
    ccb_an_fit_order(5, h, e, &f);
    CHECK(f.n == 3, "NaN and 0 left out (%d points)", f.n);
    CHECK_ABS(f.order, 1.5, 1e-12, "order from the remaining points");
    /* scatter: e = h (1, 2, 1, 2) on h = 1, 2, 4, 8: slope and interval by hand. x = log2 h * ln2,
     * y = x + ln2 (0, 1, 0, 1): slope 1 + ln2 * cov(i, (0,1,0,1))/var(i) / ln2 = 1.2, residuals
     * give var(p) = sumsq/(n-2)/Sxx; t_{0.975,2} = 4.302652729749464 [exact data; round-off] */
    const double h2[4] = {1, 2, 4, 8};
    const double e2[4] = {1, 4, 4, 16};
    ccb_an_fit_order(4, h2, e2, &f);
    const double l2 = log(2.0), sxx = 5 * l2 * l2;
    double sumsq = 0;
    for (int i = 0; i < 4; ++i) {
        const double r = log(e2[i]) - (f.intercept + f.order * i * l2);
        sumsq += r * r;
    }
    CHECK_ABS(f.order, 1.2, 1e-12, "least-squares slope of a scattered set");
    CHECK_ABS(f.ci95, 4.302652729749464 * sqrt(sumsq / 2 / sxx), 1e-12,
              "95 %% interval: Student t with n - 2 = 2 degrees of freedom");
    /* two points: an order, no interval; one point: nothing */
    ccb_an_fit_order(2, h2, e2, &f);
    CHECK(f.n == 2 && isnan(f.ci95) && fabs(f.order - 2.0) < 1e-12, "two points: order 2, no CI");
    ccb_an_fit_order(1, h2, e2, &f);
    CHECK(f.n == 1 && isnan(f.order), "one point: no order");
}

static void test_step_stats(void) {
    /* index 0 is the initial state and is not a step */
    const int it[5] = {99, 3, 7, 2, 4};
    const int ls[5] = {99, 5, 9, 4, 6};
    const double kap[5] = {-1, 10, -1, 1e3, 30};
    ccb_an_steps s;
    ccb_an_step_stats(4, it, ls, kap, &s);
    CHECK(s.iters_mean == 4.0 && s.iters_max == 7.0, "iterations mean 4, max 7");
    CHECK(s.ls_mean == 6.0 && s.ls_max == 9.0, "line search mean 6, max 9");
    CHECK(s.nkappa == 3 && s.kappa_max == 1e3, "kappa over the 3 steps that have it");
    CHECK_REL(s.kappa_mean, 1040.0 / 3.0, 1e-15, 0, "kappa mean over computed steps");
    ccb_an_step_stats(4, it, NULL, NULL, &s);
    CHECK(isnan(s.ls_mean) && isnan(s.kappa_mean) && s.nkappa == 0, "absent series give NaN");
}

static int lookup(void* user, const char* name, double* v) {
    (void)user;
    if (strcmp(name, "m.half") == 0) {
        *v = 0.5;
        return 0;
    }
    if (strcmp(name, "m.nan") == 0) {
        *v = NAN;
        return 0;
    }
    if (strcmp(name, "build.yes") == 0 || strcmp(name, "build.no") == 0) {
        *v = name[6] == 'y';
        return 0;
    }
    return -1; /* m.missing, build.absent */
}

/* Gate evaluation and its report on a synthetic gate file: each outcome once. [exact] */
static void test_gates(void) {
    char path[512];
    test_tmp_template(path, sizeof path, "ccb_test_gates");
    const int fd = mkstemp(path);
    CHECK(fd >= 0, "temporary gate file");
    FILE* f = fdopen(fd, "w");
    fputs(
        "{\"gates\": [\n"
        "{\"id\": \"P\", \"metric\": \"m.half\", \"op\": \"<\", \"value\": 1, \"kind\": \"hard\", "
        "\"tier\": \"both\", \"basis\": \"b\"},\n"
        "{\"id\": \"F\", \"metric\": \"m.half\", \"op\": \"in\", \"range\": [0.6, 1], \"kind\": "
        "\"hard\", \"tier\": \"quick\", \"basis\": \"b\"},\n"
        "{\"id\": \"X\", \"metric\": \"m.half\", \"op\": \">\", \"value\": 1, \"kind\": \"trend\", "
        "\"tier\": \"both\", \"basis\": \"b\", \"expect\": \"fail\", \"evidence\": \"e\", "
        "\"xfail_value\": 0.5, \"xfail_spread\": 1e-6, \"xfail_basis\": \"exact\"},\n"
        "{\"id\": \"D\", \"metric\": \"m.half\", \"op\": \">\", \"value\": 1, \"kind\": \"trend\", "
        "\"tier\": \"quick\", \"basis\": \"b\", \"expect\": \"fail\", \"evidence\": \"e\", "
        "\"xfail_value\": 0.4, \"xfail_spread\": 0.1, \"xfail_basis\": \"drifted\"},\n"
        "{\"id\": \"Y\", \"metric\": \"m.half\", \"op\": \"<\", \"value\": 1, \"kind\": \"trend\", "
        "\"tier\": \"quick\", \"basis\": \"b\", \"expect\": \"fail\", \"evidence\": \"e\", "
        "\"xfail_value\": 2, \"xfail_spread\": 0.1, \"xfail_basis\": \"passes now\"},\n"
        "{\"id\": \"N\", \"metric\": \"m.nan\", \"op\": \"<\", \"value\": 1, \"kind\": \"hard\", "
        "\"tier\": \"quick\", \"basis\": \"a NaN metric fails\"},\n"
        "{\"id\": \"M\", \"metric\": \"m.missing\", \"op\": \"<\", \"value\": 1, \"kind\": "
        "\"hard\", \"tier\": \"quick\", \"basis\": \"a missing metric fails\"},\n"
        "{\"id\": \"S\", \"metric\": \"m.missing\", \"op\": \"<\", \"value\": 1, \"kind\": "
        "\"hard\", \"tier\": \"full\", \"basis\": \"not this tier\"},\n"
        "{\"id\": \"R1\", \"metric\": \"m.half\", \"op\": \"<\", \"value\": 1, \"kind\": "
        "\"hard\", \"tier\": \"both\", \"basis\": \"b\", \"requires\": \"yes\"},\n"
        "{\"id\": \"R0\", \"metric\": \"m.missing\", \"op\": \"<\", \"value\": 1, \"kind\": "
        "\"hard\", \"tier\": \"both\", \"basis\": \"b\", \"requires\": \"no\"},\n"
        "{\"id\": \"RA\", \"metric\": \"m.missing\", \"op\": \"<\", \"value\": 1, \"kind\": "
        "\"hard\", \"tier\": \"both\", \"basis\": \"b\", \"requires\": \"absent\"}]}\n",
        f);
    fclose(f);
    ccb_gate_result g[12];
    int n = 0;
    char msg[256];
    CHECK(ccb_gates_evaluate(path, CCB_GATE_QUICK, lookup, NULL, g, 12, &n, msg, sizeof msg) == 0,
          "%s", msg);
    CHECK(n == 11, "eleven gates (%d)", n);
    CHECK(g[8].evaluated && g[8].pass && !g[9].evaluated && !g[10].evaluated,
          "\"requires\": evaluated where build.<part> is 1, skipped where it is 0 or missing");
    CHECK(g[0].pass && !g[1].pass && !g[2].pass && g[2].expect_fail && !g[2].drifted &&
              g[3].drifted && g[4].pass && g[4].expect_fail && !g[5].pass && !g[6].pass &&
              !g[7].evaluated,
          "PASS, FAIL, XFAIL, XDRIFT (0.5 against 0.4 +- 10 %%), XPASS, NaN fails, missing "
          "fails, the full-tier gate skipped");
    char* csv = NULL;
    size_t ncsv = 0;
    FILE* fc = open_memstream(&csv, &ncsv);
    const int failed = ccb_gates_report(g, n, CCB_GATE_QUICK, "toy", path, NULL, fc, NULL);
    fclose(fc);
    CHECK(failed == 5, "five failures: F, XDRIFT, XPASS, N, M; XFAIL is not one (%d)", failed);
    CHECK(csv && strstr(csv, "X,both,\"trend\",m.half,0.5,>,1,1,XFAIL,quick") &&
              strstr(csv, "D,quick,\"trend\",m.half,0.5,>,1,1,XDRIFT,quick") &&
              strstr(csv, "Y,quick,\"trend\",m.half,0.5,<,1,1,XPASS,quick") &&
              strstr(csv, "N,quick,\"hard\",m.nan,0,<,1,1,MISSING,quick") &&
              strstr(csv, "S,full,\"hard\",m.missing,0,<,1,1,SKIP,"),
          "gates.csv rows: %s", csv ? csv : "(none)");
    free(csv);
    remove(path);
}

/* A synthetic record: 10 steps of dt = 0.1, one observable per test. */
#define NS 10
static ccb_an_series series(const double* obs, int nobs) {
    ccb_an_series s = {NS, 0.1, 0, 0, nobs, NULL, NULL, obs, NULL, NULL};
    return s;
}

/* Each extractor on a hand-made record with its answer worked out by hand. [exact, or the
 * round-off of a few operations where noted] */
static void test_extractors(void) {
    /* windows: observable k (k = 1..10), iterations 2k, kappa on even steps only */
    double o[NS + 1];
    int it[NS + 1];
    double kap[NS + 1];
    for (int k = 0; k <= NS; ++k) {
        o[k] = k;
        it[k] = 2 * k;
        kap[k] = k % 2 == 0 ? 10.0 * k : -1.0;
    }
    ccb_an_series s = series(o, 1);
    s.iters = it;
    s.kappa = kap;
    /* t = 0.1 k in [0.25, 0.65): k = 3..6 */
    ccb_an_window w = ccb_an_window_means(&s, 0.25, 0.65, 0);
    CHECK(w.n == 4 && w.obs == 4.5 && w.iters == 9.0 && w.kappa == 50.0,
          "window [0.25, 0.65): 4 steps, mean obs 4.5, iterations 9, kappa of k = 4, 6: 50");
    CHECK(ccb_an_window_max(&s, 0.3, 0.7, 0) == 7.0, "max over [0.3, 0.7] includes both ends");
    CHECK(ccb_an_window_median(&s, 0.25, 0.75, 0) == 5.0, "median of 3..7 is 5");
    CHECK(isnan(ccb_an_window_means(&s, 2, 3, -1).kappa), "an empty window has no kappa");
    /* the jam: v_t (col 0) slides, sticks at steps 4-5, slides again; f_n (col 1) is zero from
     * step 7 on */
    double jo[2 * (NS + 1)];
    const double vt[NS + 1] = {0, 1, 0.5, 0.2, 1e-5, -2e-5, 0.3, 0.4, 0.5, 0.6, 0.7};
    const double fn[NS + 1] = {0, 5, 6, 7, 8, 9, 3, 0, 0, 0, 0};
    for (int k = 0; k <= NS; ++k) {
        jo[2 * k] = vt[k];
        jo[2 * k + 1] = fn[k];
    }
    ccb_an_series js = series(jo, 2);
    const ccb_an_jam j = ccb_an_find_jam(&js, 0, 1, 1e-4, 0.1);
    CHECK(fabs(j.t_jam - 0.4) < 1e-15 && fabs(j.t_unstick - 0.6) < 1e-15 &&
              fabs(j.t_liftoff - 0.7) < 1e-15 && j.k_liftoff == 7,
          "jam at 0.4 s, unstick 0.6 s, lift-off at step 7 (%g, %g, %g)", j.t_jam, j.t_unstick,
          j.t_liftoff);
    CHECK(j.fn_peak == 9.0 && fabs(j.fn_impulse - 2.4) < 1e-14,
          "f_n within +-1 step of the jam: peak 9, impulse (7 + 8 + 9) 0.1 = 2.4 [round-off]");
    const ccb_an_jam none = ccb_an_find_jam(&js, 0, 1, 1e-6, 0.1);
    CHECK(isnan(none.t_jam) && none.k_liftoff == -1, "no stiction: the impact is missed");
    CHECK(fabs(ccb_an_mean_abs(&js, 0, 0.3) - (1 + 0.5 + 0.2) / 3) < 1e-15, "mean |v_t| to 0.3 s");
    /* speed levels: S = 10^-k/2 (col 0), value = k (col 1), s0 = 1, v0 = 0: S reaches 0.1 between
     * k = 1 (10^-0.5) and k = 2 (0.1 exactly), so the value there is 2; 0.01 at k = 4 */
    double lo[2 * (NS + 1)];
    for (int k = 0; k <= NS; ++k) {
        lo[2 * k] = pow(10.0, -0.5 * k);
        lo[2 * k + 1] = k;
    }
    ccb_an_series ls = series(lo, 2);
    const double levels[3] = {0.1, 0.01, 1e-9};
    double at[3];
    ccb_an_at_levels(&ls, 0, 1, 1.0, 0.0, levels, 3, at);
    CHECK(fabs(at[0] - 2.0) < 1e-12 && fabs(at[1] - 4.0) < 1e-12 && isnan(at[2]),
          "values at S/S0 = 0.1, 0.01 by log interpolation; 1e-9 never reached (%g %g %g)", at[0],
          at[1], at[2]);
    ccb_an_at_levels(&ls, 0, 1, 1.0, 0.0, (const double[]){0.5}, 1, at);
    CHECK(fabs(at[0] - log(0.5) / log(pow(10, -0.5))) < 1e-12,
          "between the initial state (1, 0) and step 1 (10^-0.5, 1): log(0.5)/log(10^-0.5)");
    /* first events and maxima (col 0 of jo: v_t; col 1: f_n) */
    CHECK(ccb_an_first_above(&js, 1, 6.5) == 3, "first f_n > 6.5 at step 3");
    CHECK(ccb_an_first_below_abs(&js, 0, 1e-4, 4) == 5, "first |v_t| < 1e-4 after step 4: 5");
    CHECK(ccb_an_first_below_abs(&js, 0, 1e-9, 0) == -1, "never below 1e-9");
    CHECK(ccb_an_max_abs(&js, 0, 5, 0.0, 0.8) == 0.5, "max |v_t| over steps 6..8 (t <= 0.8)");
    CHECK(ccb_an_peak_near(&js, 1, 1, 2) == 7.0, "peak of f_n within steps -1..3 (clipped to 1)");
    /* gliding: a = 2 b where |v| > 0.5: |a - b| / (c |v|) = b / (2 |v|) with c = 2 */
    double go[3 * (NS + 1)];
    for (int k = 0; k <= NS; ++k) {
        go[3 * k] = 2.0 * k;       /* a */
        go[3 * k + 1] = (double)k; /* b */
        go[3 * k + 2] = 0.1 * k;   /* v */
    }
    ccb_an_series gs = series(go, 3);
    long cnt = 0;
    const double dev = ccb_an_max_rel_dev(&gs, 0, 1, 2, 0.55, 2.0, &cnt);
    CHECK(cnt == 5 && fabs(dev - 6.0 / (2.0 * 0.6)) < 1e-12,
          "steps 6..10 have |v| > 0.55; the largest k / (2 0.1 k) = 5 is the same at each (%g)",
          dev);
    CHECK(isnan(ccb_an_max_rel_dev(&gs, 0, 1, 2, 5.0, 2.0, &cnt)) && cnt == 0,
          "no step above vmin: NaN");
}

int main(void) {
    RUN(test_gates);
    RUN(test_extractors);
    RUN(test_fit_order);
    RUN(test_step_stats);
    RUN(test_crossing_frequency);
    RUN(test_rms_error);
    RUN(test_order);
    RUN(test_transitions);
    RUN(test_median);
    RUN(test_ensemble);
    RUN(test_loglog_beyond);
    RUN(test_threshold_crossings);
    RUN(test_rel_error);
    return TEST_SUMMARY();
}
