/* Unit tests of record (atomic writers, CSV, JSON metadata), status and alloc. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccb/ccb.h"
#include "test.h"

static int file_exists(const char* p) {
    struct stat st;
    return stat(p, &st) == 0;
}

static char* slurp(const char* p) {
    FILE* f = fopen(p, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* s = malloc((size_t)n + 1);
    const size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

/* No file other than the expected ones in dir (no stray temporaries). */
static int count_entries_with(const char* dir, const char* needle) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '%s'", dir, needle);
    FILE* p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1) {
            n = -1;
        }
        pclose(p);
    }
    return n;
}

static char g_dir[256];

static void test_atomic_writer(void) {
    char path[300], msg[256];
    snprintf(path, sizeof path, "%s/a.csv", g_dir);
    ccb_writer* w = NULL;
    CHECK(ccb_writer_open(path, &w, msg, sizeof msg) == CCB_OK, "open: %s", msg);
    const char* names[2] = {"t [s]", "x [m]"};
    ccb_csv_header(w, 2, names);
    const double row[2] = {0.1, 2.385};
    ccb_csv_row(w, 2, row);
    CHECK(!file_exists(path), "nothing at the destination before commit");
    CHECK(ccb_writer_commit(w, msg, sizeof msg) == CCB_OK, "commit: %s", msg);
    char* text = slurp(path);
    CHECK(text && strcmp(text, "t [s],x [m]\n0.10000000000000001,2.3849999999999998\n") == 0,
          "CSV content with %%.17g (got '%s')", text ? text : "(null)");
    free(text);
    /* a row with NaN is refused and the file is never produced */
    snprintf(path, sizeof path, "%s/b.csv", g_dir);
    ccb_writer_open(path, &w, msg, sizeof msg);
    const double bad[2] = {0.2, NAN};
    CHECK(ccb_csv_row(w, 2, bad) == CCB_E_NONFINITE, "NaN refused");
    CHECK(ccb_writer_commit(w, msg, sizeof msg) == CCB_E_IO && !file_exists(path),
          "commit after a refused row fails and leaves no file (%s)", msg);
    /* abort leaves nothing */
    snprintf(path, sizeof path, "%s/c.csv", g_dir);
    ccb_writer_open(path, &w, msg, sizeof msg);
    ccb_writer_printf(w, "partial");
    ccb_writer_abort(w);
    CHECK(!file_exists(path), "abort leaves no file");
    CHECK(count_entries_with(g_dir, "tmp") == 0, "no temporary files left behind");
    /* unwritable directory */
    CHECK(ccb_writer_open("/nonexistent-ccb-dir/x.csv", &w, msg, sizeof msg) == CCB_E_IO &&
              strstr(msg, "/nonexistent-ccb-dir/x.csv") && w == NULL,
          "unwritable path: %s", msg);
}

static void test_meta(void) {
    ccb_meta* m = NULL;
    CHECK(ccb_meta_create(&m) == CCB_OK, "meta create");
    ccb_meta_set_string(m, "case", "conveyor");
    ccb_meta_set_number(m, "solver.eps_r", 1e-5);
    ccb_meta_set_number(m, "solver.max_iterations", 100);
    ccb_meta_set_bool(m, "solver.kappa", 0);
    ccb_meta_set_number(m, "solver.eps_r", 2e-5); /* replaces */
    CHECK(ccb_meta_set_number(m, "dt", NAN) == CCB_E_NONFINITE, "NaN refused in metadata");
    CHECK(ccb_meta_set_number(m, "case.x", 1) == CCB_E_INVALID, "cannot nest under a string");
    char path[300], msg[256];
    snprintf(path, sizeof path, "%s/meta.json", g_dir);
    CHECK(ccb_meta_write(m, path, msg, sizeof msg) == CCB_OK, "write: %s", msg);
    ccb_meta_destroy(m);
    char* text = slurp(path);
    cJSON* root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL, "valid JSON");
    if (root) {
        const cJSON* s = cJSON_GetObjectItem(root, "solver");
        CHECK(cJSON_IsObject(s), "dotted keys nest");
        CHECK(cJSON_GetObjectItem(s, "eps_r")->valuedouble == 2e-5, "replaced value");
        CHECK(strcmp(cJSON_GetObjectItem(root, "case")->valuestring, "conveyor") == 0, "string");
        CHECK(cJSON_IsFalse(cJSON_GetObjectItem(s, "kappa")), "bool");
    }
    cJSON_Delete(root);
    free(text);
}

static void test_status_and_alloc(void) {
    for (int s = CCB_OK; s <= CCB_E_RETRY; ++s) {
        const char* t = ccb_status_string((ccb_status)s);
        CHECK(t && strlen(t) > 3, "status %d has a message", s);
        for (int u = CCB_OK; u < s; ++u) {
            CHECK(strcmp(t, ccb_status_string((ccb_status)u)) != 0, "distinct messages");
        }
    }
    CHECK(strlen(ccb_version()) >= 5 && strlen(ccb_revision()) >= 5, "version and revision");
    const size_t live = ccb_alloc_live_bytes();
    double* p = ccb_alloc(100 * sizeof(double));
    CHECK(p != NULL && ccb_alloc_live_bytes() == live + 800, "live bytes counted");
    p = ccb_realloc(p, 10 * sizeof(double));
    CHECK(p != NULL && ccb_alloc_live_bytes() == live + 80, "realloc accounted");
    ccb_alloc_fail_after(1);
    CHECK(ccb_alloc(8) == NULL && ccb_calloc(2, 8) == NULL, "injected failure");
    void* q = ccb_realloc(p, 1000);
    CHECK(q == NULL && ccb_alloc_live_bytes() == live + 80, "failed realloc keeps the block");
    ccb_alloc_fail_after(0);
    ccb_free(p);
    ccb_free(NULL);
    CHECK(ccb_alloc_live_bytes() == live, "all freed");
    CHECK(ccb_alloc(0) == NULL && ccb_calloc((size_t)-1, 16) == NULL, "zero and overflow");
}

int main(void) {
    test_tmp_template(g_dir, sizeof g_dir, "ccb-test-record");
    if (mkdtemp(g_dir) == NULL) {
        fprintf(stderr, "cannot create a temporary directory\n");
        return 1;
    }
    RUN(test_atomic_writer);
    RUN(test_meta);
    RUN(test_status_and_alloc);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "warning: could not remove %s\n", g_dir);
    }
    return TEST_SUMMARY();
}
