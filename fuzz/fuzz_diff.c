/* Fuzz target (issue 44, part 2): the diff's table reader and its comparison of one file
 * (study/diff.c through suite_diff_texts). The input's first byte chooses the kind of file
 * (a study table, a gates.csv, a run file's trajectory.csv); the rest is A's text, then a NUL,
 * then B's (without a NUL, B is A with its last byte removed).
 *
 * Besides the sanitizers, three properties are checked; a violation aborts (a finding):
 *   - a file compared with itself has no difference of values (only structural notes that
 *     concern one file, such as ragged rows or a gate id given twice);
 *   - diff A B and diff B A find as many differences, and as many significant ones (the
 *     comparison is symmetric: columns and rows paired by name and occurrence, scales taken
 *     over both files);
 *   - nothing is reported for equal texts beyond what the file itself carries (A, A twice gives
 *     the same counts: the comparison has no state between calls). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void check(int ok, const char* what, const char* rel, long x, long y) {
    if (!ok) {
        fprintf(stderr, "fuzz_diff: %s (%s: %ld vs %ld)\n", what, rel, x, y);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const char* const rel[] = {"case/table.csv", "case/gates.csv",
                                      "case/runs/r/trajectory.csv"};
    if (size < 1) {
        return 0;
    }
    const char* file = rel[data[0] % 3];
    char* a = malloc(size);
    char* b = malloc(size);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return 0;
    }
    const uint8_t* p = data + 1;
    const size_t n = size - 1;
    const uint8_t* nul = memchr(p, 0, n);
    if (nul != NULL) {
        memcpy(a, p, (size_t)(nul - p));
        a[nul - p] = '\0';
        const size_t nb = n - (size_t)(nul - p) - 1;
        memcpy(b, nul + 1, nb);
        b[nb] = '\0';
        b[strlen(b)] = '\0'; /* a NUL inside B ends it */
    } else {
        memcpy(a, p, n);
        a[n] = '\0';
        memcpy(b, p, n);
        b[n ? n - 1 : 0] = '\0';
    }
    const suite_diff_opts o = {SUITE_DIFF_RTOL, SUITE_DIFF_ATOL, SUITE_DIFF_NSIGMA, 0, NULL, 0};
    long r1, s1, v1, r2, s2, v2, r3, s3, v3, r4, s4, v4;
    if (suite_diff_texts(file, a, b, &o, &r1, &s1, &v1) == 0 &&
        suite_diff_texts(file, b, a, &o, &r2, &s2, &v2) == 0) {
        check(r1 == r2, "diff A B and diff B A: differences", file, r1, r2);
        check(s1 == s2, "diff A B and diff B A: significant", file, s1, s2);
        check(v1 == v2, "diff A B and diff B A: values", file, v1, v2);
    }
    if (suite_diff_texts(file, a, a, &o, &r3, &s3, &v3) == 0 &&
        suite_diff_texts(file, a, a, &o, &r4, &s4, &v4) == 0) {
        check(v3 == 0, "a file against itself: differences of values", file, v3, 0);
        check(r3 == r4 && s3 == s4, "a file against itself twice", file, r3, r4);
    }
    free(a);
    free(b);
    return 0;
}
