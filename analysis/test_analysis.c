/* Tests of the analysis helpers: RMS error on a common grid, observed order, transitions, median. */
#include <math.h>

#include "analysis.h"
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

int main(void) {
    RUN(test_crossing_frequency);
    RUN(test_rms_error);
    RUN(test_order);
    RUN(test_transitions);
    RUN(test_median);
    return TEST_SUMMARY();
}
