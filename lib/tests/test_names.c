/* Tests of the name table (ccb/names.h): every name maps back to its value, names are unique
 * within an enumeration, unknown names and values are refused, and the per-module name
 * functions agree with the table. [exact] */
#include <string.h>

#include "ccb/ccb.h"
#include "test.h"

static void test_round_trip(void) {
    for (int e = 0; e < CCB_ENUM_COUNT; ++e) {
        CHECK(ccb_enum_title((ccb_enum)e) != NULL, "enumeration %d has a title", e);
        int n = 0;
        for (int v = 0; ccb_enum_name((ccb_enum)e, v); ++v) {
            const char* name = ccb_enum_name((ccb_enum)e, v);
            int back = -1;
            CHECK(ccb_enum_value((ccb_enum)e, name, &back) == CCB_OK && back == v,
                  "%s: '%s' maps back to %d (got %d)", ccb_enum_title((ccb_enum)e), name, v, back);
            n++;
        }
        CHECK(n >= 2, "enumeration %d has at least two names", e);
        int v = 0;
        CHECK(ccb_enum_value((ccb_enum)e, "no-such-name", &v) == CCB_E_INVALID, "unknown name");
        CHECK(ccb_enum_name((ccb_enum)e, n) == NULL && ccb_enum_name((ccb_enum)e, -1) == NULL,
              "values outside the enumeration have no name");
    }
    CHECK(ccb_enum_name(CCB_ENUM_COUNT, 0) == NULL && ccb_enum_title(CCB_ENUM_COUNT) == NULL,
          "no enumeration past the last");
    int v = 0;
    CHECK(ccb_enum_value(CCB_ENUM_COUPLING, NULL, &v) == CCB_E_INVALID, "NULL name refused");
}

static void test_list_and_modules(void) {
    char list[64];
    ccb_enum_list(CCB_ENUM_COUPLING, "|", list, sizeof list);
    CHECK(strcmp(list, "two-way|one-way") == 0, "coupling list '%s'", list);
    ccb_enum_list(CCB_ENUM_GSL_METHOD, ", ", list, 10);
    CHECK(strlen(list) == 9, "a list is truncated to the buffer ('%s')", list);
    CHECK(strcmp(ccb_solver_name(CCB_SOLVER_TAMSI), "tamsi") == 0, "ccb_solver_name");
    CHECK(strcmp(ccb_friction_name(CCB_FRICTION_STRIBECK5), "stribeck5") == 0, "friction name");
    CHECK(strcmp(ccb_ode_method_name(CCB_ODE_RK3), "rk3") == 0, "ode method name");
    CHECK(strcmp(ccb_ode_gsl_method_name(CCB_GSL_MSADAMS), "msadams") == 0, "gsl method name");
    ccb_friction_model m;
    CHECK(ccb_friction_parse("atan", &m) == CCB_OK && m == CCB_FRICTION_ATAN, "friction parse");
}

int main(void) {
    RUN(test_round_trip);
    RUN(test_list_and_modules);
    return TEST_SUMMARY();
}
