/* A deliberately failing program for the harness check (CI/ctest.cmake, unit.harness): it makes
 * one passing check, then 120 failing ones in a loop, as a broken solver test would. The harness
 * must stop at the first failure with exit status 1 (one FAIL line), or with
 * CCB_TEST_KEEP_GOING=1 count all 120 and print only the first TEST_MAX_PRINTED. */
#include "test.h"

static void failing(void) {
    CHECK(1, "passes");
    for (int i = 0; i < 120; ++i) {
        CHECK_ABS(2.385 + i, 0.0, 1e-12, "deliberate failure of the harness check");
    }
}

int main(void) {
    RUN(failing);
    return TEST_SUMMARY();
}
