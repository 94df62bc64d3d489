/* Minimal test harness for ccb unit tests. A failed check prints observed, expected, tolerance
 * and the basis of the tolerance with %.17g (GSL test/results.c style) and ends the program at
 * once with exit status 1 (fail fast, bounded output: a broken solver loop neither runs into
 * CTest's timeout nor floods the log). CCB_TEST_KEEP_GOING=1 continues after failures, counts
 * them and prints the first TEST_MAX_PRINTED. NaN always fails. Every tolerance used with it is
 * a named constant with a one-line basis. */
#ifndef CCB_TEST_H
#define CCB_TEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_MAX_PRINTED 50

/* A mkdtemp/mkstemp template "DIR/STEM_XXXXXX" in the temporary directory ($TMPDIR, else /tmp),
 * so a CI that gives the tests a private TMPDIR can check they leave nothing behind (.ci/run). */
static inline void test_tmp_template(char* buf, size_t n, const char* stem) {
    const char* td = getenv("TMPDIR");
    snprintf(buf, n, "%s/%s_XXXXXX", td != NULL && td[0] != '\0' ? td : "/tmp", stem);
}

static int g_test_failed = 0, g_test_passed = 0;
static const char* g_test_name = "";

/* After a failure: stop unless CCB_TEST_KEEP_GOING is set to a non-empty value other than 0. */
static inline void test_after_failure(void) {
    const char* k = getenv("CCB_TEST_KEEP_GOING");
    if (k == NULL || k[0] == '\0' || strcmp(k, "0") == 0) {
        fprintf(stderr,
                "FAIL %s: stopped at the first failure (%d checks passed before it; "
                "CCB_TEST_KEEP_GOING=1 runs on)\n",
                g_test_name, g_test_passed);
        exit(1);
    }
    if (g_test_failed == TEST_MAX_PRINTED) {
        fprintf(stderr, "(further failures are counted, not printed)\n");
    }
}

#define TEST_FAIL_AT(file, line, ...)                                                              \
    do {                                                                                           \
        g_test_failed++;                                                                           \
        if (g_test_failed <= TEST_MAX_PRINTED) {                                                   \
            fprintf(stderr, "FAIL %s (%s:%d): ", g_test_name, file, line);                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
        test_after_failure();                                                                      \
    } while (0)

/* Condition with a description. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            g_test_passed++;                                                                       \
        } else {                                                                                   \
            TEST_FAIL_AT(__FILE__, __LINE__, __VA_ARGS__);                                         \
        }                                                                                          \
    } while (0)

/* |obs - exp| <= tol (absolute), NaN fails. */
#define CHECK_ABS(obs, exp, tol, basis)                                                            \
    check_abs_at(__FILE__, __LINE__, #obs, (obs), (exp), (tol), (basis))
/* |obs - exp| <= rtol * max(|exp|, floor), NaN fails. */
#define CHECK_REL(obs, exp, rtol, floor, basis)                                                    \
    check_rel_at(__FILE__, __LINE__, #obs, (obs), (exp), (rtol), (floor), (basis))

static inline void check_abs_at(const char* file, int line, const char* what, double obs,
                                double exp, double tol, const char* basis) {
    const double err = fabs(obs - exp);
    if (err <= tol) {
        g_test_passed++;
        return;
    }
    TEST_FAIL_AT(file, line, "%s: observed %.17g expected %.17g |err| %.3e > tol %.3e [%s]", what,
                 obs, exp, err, tol, basis);
}

static inline void check_rel_at(const char* file, int line, const char* what, double obs,
                                double exp, double rtol, double floor_, const char* basis) {
    const double scale = fabs(exp) > floor_ ? fabs(exp) : floor_;
    const double err = fabs(obs - exp);
    if (err <= rtol * scale) {
        g_test_passed++;
        return;
    }
    TEST_FAIL_AT(file, line,
                 "%s: observed %.17g expected %.17g rel.err %.3e > rtol %.3e (scale %.3e) [%s]",
                 what, obs, exp, err / scale, rtol, scale, basis);
}

#define RUN(fn)                                                                                    \
    do {                                                                                           \
        g_test_name = #fn;                                                                         \
        const int before = g_test_failed;                                                          \
        fn();                                                                                      \
        fprintf(stderr, "%s %s\n", g_test_failed == before ? "ok  " : "FAIL", #fn);                \
    } while (0)

#define TEST_SUMMARY()                                                                             \
    (fprintf(stderr, "%d checks passed, %d failed\n", g_test_passed, g_test_failed),               \
     g_test_failed == 0 ? 0 : 1)

#ifdef CCB_SIM_H
/* STYLE §4: after `warmup` steps (workspaces grown) `steps` more steps make no heap allocation
 * through libccb's allocator [exact: 0]; every step must succeed. */
static inline void check_steps_without_allocation(ccb_sim* sim, int warmup, int steps,
                                                  const char* what) {
    for (int k = 0; k < warmup; ++k) {
        ccb_sim_step(sim);
    }
    const long before = ccb_alloc_count();
    for (int k = 0; k < steps; ++k) {
        CHECK(ccb_sim_step(sim) == CCB_OK, "%s: step: %s", what, ccb_sim_last_error(sim));
    }
    CHECK(ccb_alloc_count() == before, "%s: %ld allocations in %d steps after warm-up", what,
          ccb_alloc_count() - before, steps);
}
#endif

/* Deterministic pseudo-random numbers (SplitMix64), identical on every platform. */
static uint64_t g_rng = 0x2385ULL;
static inline double urand(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}
/* uniform in [a, b) */
static inline double uniform(double a, double b) {
    return a + (b - a) * urand();
}
/* log-uniform in [a, b), a, b > 0 */
static inline double loguniform(double a, double b) {
    return exp(uniform(log(a), log(b)));
}

/* A uniformly random rotation matrix (row-major) from a normalized random quaternion. */
static inline void random_rotation(double R[9]) {
    double q[4], n = 0;
    for (int i = 0; i < 4; ++i) {
        q[i] = uniform(-1, 1);
        n += q[i] * q[i];
    }
    n = sqrt(n);
    const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    const double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                         2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                         2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(R, M, sizeof M);
}

/* Eigenvalues of a symmetric 3x3 matrix (cyclic Jacobi; accurate to round-off). */
static inline void sym3_eigvals(const double G[9], double ev[3]) {
    double a[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            a[i][j] = 0.5 * (G[3 * i + j] + G[3 * j + i]);
        }
    }
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        if (off == 0.0) {
            break;
        }
        for (int p = 0; p < 2; ++p) {
            for (int q = p + 1; q < 3; ++q) {
                if (a[p][q] == 0.0) {
                    continue;
                }
                const double th = 0.5 * (a[q][q] - a[p][p]) / a[p][q];
                const double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) {
                    const double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    const double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
            }
        }
    }
    ev[0] = a[0][0];
    ev[1] = a[1][1];
    ev[2] = a[2][2];
}

#endif
