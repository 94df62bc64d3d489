/* unit.alloc_sweep: allocation failure at every point of a whole short run.
 *
 * For every case and every solver that applies to it (a convex approximation by Newton, TAMSI,
 * implicit Euler, RK3, GSL), a run of a few steps is made once to count libccb's allocations,
 * then again with the k-th allocation failing (and every later one: ccb_alloc_fail_after) for
 * k = 1 .. that count (every index up to 400, then 400 indices spread evenly). Each run must
 * end without a crash, report the failure as "out of memory" (run_execute's error, rc 2, whether
 * in the case builder, the sim's creation or a step: never a run recorded as failed) or
 * succeed, and leave no libccb memory behind (ccb_alloc_live_bytes back to its value before the
 * run). CHOLMOD's and UMFPACK's memory
 * goes through the same allocator (SuiteSparse hooks), so their failures are swept too; GSL's
 * and MuJoCo's are not. */
#include <stdio.h>
#include <string.h>

#include "../../lib/tests/test.h"
#include "ccb/alloc.h"
#include "registry.h"
#include "study.h"

#define SWEEP_DENSE 400 /* every index up to this, then this many spread evenly */

typedef struct solver_pick {
    const char* variant; /* registry name; NULL: the case's default approximation */
} solver_pick;

static const char* const k_variants[] = {NULL, "lagged-ec", "tamsi", "ie-fn", "rk3", "gsl-rk8pd"};

/* One run of `steps` steps of cs with variant v (NULL: default). 0 and the status, or 2. */
static int run_once(const case_desc* cs, const char* variant, int steps, run_record* rec, char* msg,
                    size_t n) {
    run_config cfg;
    run_config_default(cs, &cfg);
    if (variant) {
        variant_def v;
        if (variant_find(variant, &v) != 0) {
            snprintf(msg, n, "no variant %s", variant);
            return 3;
        }
        variant_configure(&v, &cfg, NAN);
    }
    cfg.t_final = steps * cfg.sim.dt;
    cfg.out_dir[0] = '\0';
    snprintf(cfg.label, sizeof cfg.label, "sweep");
    return run_execute(&cfg, rec, msg, n);
}

static int applies(const case_desc* cs, const char* variant) {
    if (variant == NULL) {
        return 1;
    }
    variant_def v;
    return variant_find(variant, &v) == 0 && variant_applies(&v, cs);
}

int main(void) {
    g_test_name = "unit.alloc_sweep";
    long total_runs = 0, failures_seen = 0;
    for (int c = 0; c < case_count(); ++c) {
        const case_desc* cs = case_get(c);
        for (size_t s = 0; s < sizeof k_variants / sizeof k_variants[0]; ++s) {
            const char* var = k_variants[s];
            /* the continuous model on the coin's hydroelastic mesh and on the clutter is minutes
             * per run (variant.c): their ODE solvers are swept on the other cases */
            if (!applies(cs, var) ||
                (var && (strcmp(var, "rk3") == 0 || strcmp(var, "gsl-rk8pd") == 0) &&
                 (strcmp(cs->name, "coin") == 0 || strcmp(cs->name, "clutter") == 0))) {
                continue;
            }
            const int steps = strcmp(cs->name, "clutter") == 0 ? 2 : 3;
            char msg[600];
            run_record rec;
            const size_t live0 = ccb_alloc_live_bytes();
            const long a0 = ccb_alloc_count();
            int rc = run_once(cs, var, steps, &rec, msg, sizeof msg);
            const long count = ccb_alloc_count() - a0;
            CHECK(rc == 0 && rec.status == CCB_OK, "%s %s: the run without injection: %s %s",
                  cs->name, var ? var : "default", msg, rec.msg);
            run_record_free(&rec);
            CHECK(ccb_alloc_live_bytes() == live0, "%s %s: no leak without injection", cs->name,
                  var ? var : "default");
            const long stride = count <= SWEEP_DENSE ? 1 : (count + SWEEP_DENSE - 1) / SWEEP_DENSE;
            for (long k = 1; k <= count; k += (k < SWEEP_DENSE ? 1 : stride)) {
                msg[0] = '\0';
                ccb_alloc_fail_after(k);
                rc = run_once(cs, var, steps, &rec, msg, sizeof msg);
                ccb_alloc_fail_after(0);
                total_runs++;
                if (rc == 2) {
                    CHECK(strstr(msg, "memory") != NULL,
                          "%s %s, allocation %ld of %ld: input error that is not out of memory: "
                          "%s",
                          cs->name, var ? var : "default", k, count, msg);
                    failures_seen++;
                } else {
                    /* out of memory in a step is the machine's failure, an error (rc 2, exit
                     * 2), never a run recorded as failed (issue 44): a run that ends is whole */
                    CHECK(rc == 0 && rec.status == CCB_OK,
                          "%s %s, allocation %ld of %ld: rc %d, status %s: %s", cs->name,
                          var ? var : "default", k, count, rc, ccb_status_string(rec.status),
                          rec.msg);
                    run_record_free(&rec);
                }
                CHECK(ccb_alloc_live_bytes() == live0,
                      "%s %s, allocation %ld of %ld: %zu bytes left behind", cs->name,
                      var ? var : "default", k, count, ccb_alloc_live_bytes() - live0);
            }
            printf("%-9s %-10s %6ld allocations swept\n", cs->name, var ? var : "default", count);
        }
    }
    CHECK(failures_seen > 100, "the sweeps met failures (%ld of %ld runs)", failures_seen,
          total_runs);
    return TEST_SUMMARY();
}
