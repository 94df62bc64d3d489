/* Tests of the conveyor Coulomb reference against the event times quoted in cases.md §3.2 and
 * against its own defining equations. */
#include <math.h>

#include "reference.h"
#include "test.h"

/* [cases.md §3.2 quotes five decimals: half a unit of the last digit] */
static const double TOL_QUOTED = 5e-6;
/* [Brent to 1e-14 s; the event equations then hold to ~1e-12 in m/s and m/s^2] */
static const double TOL_ROOT = 1e-10;

static void test_conveyor_events(void) {
    const ccb_ref_conveyor p = {0.2, 1.0, 0.0, 0.7, 9.81};
    ccb_ref_events ev;
    char msg[256];
    CHECK(ccb_ref_conveyor_events(&p, 2.0, &ev, msg, sizeof msg) == 0, "events: %s", msg);
    CHECK(ev.n == 4, "four slip intervals in [0, 2] s (got %d)", ev.n);
    const double on[2] = {0.16785, 0.66785}, off[2] = {0.41662, 0.91662};
    for (int i = 0; i < 2 && i < ev.n; ++i) {
        CHECK_ABS(ev.slip_start[i], on[i], TOL_QUOTED, "slip onset (cases.md §3.2)");
        CHECK_ABS(ev.slip_end[i], off[i], TOL_QUOTED, "re-stick (cases.md §3.2)");
        CHECK_ABS(ev.slip_speed_max[i], 0.1122, 5e-5, "max slip speed 0.1122 m/s (cases.md §3.2)");
        double a;
        ccb_ref_conveyor_belt(&p, ev.slip_start[i], NULL, NULL, &a);
        CHECK_ABS(fabs(a), p.mu * p.g, TOL_ROOT, "|a_b| = mu g at onset");
    }
    for (int i = 2; i < ev.n; ++i) { /* period 1 s */
        CHECK_ABS(ev.slip_start[i], ev.slip_start[i - 2] + 1.0, 1e-9, "periodic onsets");
        CHECK_ABS(ev.slip_end[i], ev.slip_end[i - 2] + 1.0, 1e-9, "periodic re-sticks");
    }
    /* relative acceleration at re-stick: mu g - |a_b(t_off)| */
    double a;
    ccb_ref_conveyor_belt(&p, ev.slip_end[0], NULL, NULL, &a);
    CHECK_ABS(ev.rel_accel_end[0], p.mu * p.g - fabs(a), TOL_ROOT, "|a_rel| at re-stick");
    /* [the CONV-5 evidence in reference/conveyor.json quotes 2.917 m/s^2 to 3 decimals] */
    CHECK_ABS(ev.rel_accel_end[0], 2.917, 5e-4, "|a_rel| at re-stick quoted in conveyor.json");
    /* invalid input */
    const ccb_ref_conveyor bad = {0.2, 1.0, 0.0, -0.7, 9.81};
    CHECK(ccb_ref_conveyor_events(&bad, 2.0, &ev, msg, sizeof msg) != 0, "mu < 0 rejected");
    const ccb_ref_conveyor slips = {0.2, 1.0, 1.2, 0.7, 9.81}; /* |a_b(0)| > mu g */
    CHECK(ccb_ref_conveyor_events(&slips, 2.0, &ev, msg, sizeof msg) != 0, "slip at t = 0: %s",
          msg);
}

int main(void) {
    RUN(test_conveyor_events);
    return TEST_SUMMARY();
}
