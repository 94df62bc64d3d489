/* analysis/gates.h — gate files (reference/<case>.json): their schema, their evaluation against a
 * study's metrics, and the report of the results (console lines, gates.csv, the markdown table
 * of results/README.md). The gate files are data of reference/; reading and judging them is
 * analysis (docs/architecture.md §2). */
#ifndef CCB_GATES_H
#define CCB_GATES_H

#include <stddef.h>
#include <stdio.h>

/* ---- gate files ---------------------------------------------------------------------------------
 * reference/<case>.json: {"case": ..., "source": ..., "gates": [{"id", "metric", "op", "value" |
 * "range", "kind", "tier", "basis", "description"[, "expect": "fail", "evidence"]}]}.
 *   op    <=, <, >=, > (with a finite "value") or in (with "range": [lo, hi], finite, lo <= hi);
 *   kind  what the bound rests on: "hard" (analytic or closed form), "trend" (paper trend),
 *         "soft", with " (derived)" for ccb's own gates beside the spec's;
 *   tier  where the gate is evaluated: "quick" (the quick studies of `make test`), "full" (the
 *         papers' settings: `make test-full`, `make reproduce`) or "both" (its metric comes from
 *         a study that is the same in both tiers);
 *   basis the basis of the tolerance (never empty).
 * Ids are unique within a file. Measured metrics are looked up by name through a callback. */
enum { CCB_GATE_QUICK = 1, CCB_GATE_FULL = 2, CCB_GATE_BOTH = 3 };

typedef struct ccb_gate_result {
    char id[32];
    int expect_fail;     /* the gate file documents a known failure ("expect": "fail") */
    char evidence[4096]; /* why it is expected to fail */
    double xfail_value, xfail_spread; /* its measured value, and the relative drift allowed */
    int drifted; /* an expected failure whose value moved beyond xfail_spread */
    char metric[96];
    char op[4];
    double lo, hi;   /* bound(s): value in lo (and hi for "in") */
    int tiers;       /* CCB_GATE_QUICK, CCB_GATE_FULL or CCB_GATE_BOTH */
    int evaluated;   /* 1: the gate belongs to the tier evaluated; 0: skipped (pass, measured
                        meaningless) */
    double measured; /* NAN if the metric is missing */
    int pass;
    char kind[24];
    char basis[2048];
    char description[1024]; /* the texts are whole: a longer one, or one that is not valid
                               UTF-8, is refused by the reader with its gate and field */
    char requires[24]; /* "" or an optional part of the build ("siconos"): the gate is evaluated
                          only where the metric build.<requires> is 1 (else skipped) */
} ccb_gate_result;

typedef int (*ccb_metric_lookup)(void* user, const char* name, double* value);

/* "quick", "full", "both" for a tier mask (CCB_GATE_*). */
const char* ccb_gate_tier_name(int tiers);

/* Reads and validates every gate of the file and evaluates those that belong to `tier`
 * (CCB_GATE_QUICK or CCB_GATE_FULL; 0 validates only, evaluating none). results[] must hold max
 * entries; *n receives the count. Returns 0, or -1 with a message naming the file, the gate and
 * the field for an unreadable or malformed file (no gates, a duplicate id, a missing field, an
 * unknown op or tier, a non-finite bound). A missing or non-finite metric fails its gate. A gate
 * with "expect": "fail" must also carry "evidence" (why the stated bound cannot be met); its
 * result is reported as XFAIL/XPASS by the caller. */
int ccb_gates_evaluate(const char* path, int tier, ccb_metric_lookup lookup, void* user,
                       ccb_gate_result* results, int max, int* n, char* msg, size_t msg_size);

/* "in [lo, hi]" or "<= value" of a gate, into out. */
void ccb_gate_bound(const ccb_gate_result* g, char* out, size_t n);

/* Writes the results of the n gates evaluated in `tier` (CCB_GATE_QUICK or CCB_GATE_FULL): one
 * line per gate to console (PASS, FAIL, XFAIL/XPASS for a documented expected failure, SKIP for
 * a gate of the other tier, with its basis; expected failures with their evidence) and a summary
 * line naming `case_name`; the rows of gates.csv (header included) to csv; the markdown table and
 * summary of the report to md. Any stream may be NULL. Returns the number of failed gates
 * (XFAIL does not count). */
int ccb_gates_report(const ccb_gate_result* g, int n, int tier, const char* case_name,
                     const char* gate_path, FILE* console, FILE* csv, FILE* md);

/* Counts of a JUnit test suite (ccb_gates_junit). */
typedef struct ccb_junit_counts {
    int tests, failures, skipped;
} ccb_junit_counts;

/* Writes the n gates of `case_name` evaluated in `tier` as one JUnit <testsuite> (the schema
 * GitHub Actions, GitLab CI and Jenkins read): one <testcase> per gate (classname ccb.CASE, name
 * the gate id), its metric, measured value, bound and basis in the message; PASS plain; FAIL,
 * a missing metric, XPASS and XDRIFT as <failure>; XFAIL as <skipped> with its evidence, a gate
 * of the other tier as <skipped>. The counts are those of gates.csv: tests = its rows, failures
 * = FAIL + MISSING + XPASS + XDRIFT, skipped = XFAIL + SKIP. Adds them to *c. */
void ccb_gates_junit(const ccb_gate_result* g, int n, int tier, const char* case_name, FILE* out,
                     ccb_junit_counts* c);

#endif
