/* unit.engines: the table across engines (study/suite.c, suite_engines_write; docs/cases.md §16).
 * Two cases' peers/claims.csv are gathered into engines.csv, engines.md and the report's summary,
 * with the claims each run holds counted per case; and the reader refuses, naming the file and
 * what is wrong, every hostile shape of input it may meet under a --from tree (docs HOSTILE
 * classes: CRLF, a ragged or truncated line, a wrong verdict, too many runs, a symbolic link, a
 * FIFO, a directory where the output goes), leaving no output behind. A case without the file is
 * left out; none at all writes nothing. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "study.h"
#include "test.h"

static char g_root[PATH_MAX];

static void put_file(const char* rel, const char* text) {
    char path[PATH_MAX + 64], dir[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", g_root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    for (char* p = dir + strlen(g_root) + 1; (p = strchr(p, '/')) != NULL; ++p) {
        *p = '\0';
        mkdir(dir, 0755);
        *p = '/';
    }
    FILE* f = fopen(path, "w");
    CHECK(f != NULL, "create %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int exists(const char* rel) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", g_root, rel);
    return access(path, F_OK) == 0;
}

static void clean(void) {
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/*", g_root);
    CHECK(system(cmd) == 0, "clean %s", g_root);
}

#define HEADER "case,run,claim,statement,value,op,bound,verdict\n"
static const char* const k_cases[2] = {"sphere", "conveyor"};

/* one refusal: the function fails with a message containing `want` and writes nothing */
static void refused(const char* what, const char* want) {
    strbuf r = {0};
    char msg[512] = "";
    const int rc = suite_engines_write(g_root, k_cases, 2, &r, msg, sizeof msg);
    CHECK(rc == -1 && strstr(msg, want) != NULL, "%s: refused naming '%s' (rc %d, '%s')", what,
          want, rc, msg);
    CHECK(!exists("engines.csv") && !exists("engines.md"), "%s: nothing written", what);
    free(r.s);
    clean();
}

int main(void) {
    g_test_name = "unit.engines";
    snprintf(g_root, sizeof g_root, "%s/ccb_engines_XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(g_root) != NULL, "mkdtemp");

    /* none: nothing written, the report unchanged */
    strbuf r = {0};
    char msg[512] = "";
    CHECK(suite_engines_write(g_root, k_cases, 2, &r, msg, sizeof msg) == 0 && r.s == NULL &&
              !exists("engines.md"),
          "no claims: nothing written (%s)", msg);

    /* two cases, three runs: the table and the counts */
    put_file("sphere/peers/claims.csv",
             HEADER "sphere,lagged,SPH-1,speed,1e-5,<=,0.0001,PASS\n"
                    "sphere,ode-worldstep,SPH-1,speed,2e-15,<=,0.0001,PASS\n"
                    "sphere,lagged,SPH-2,onset,0.7,<=,1,PASS\n"
                    "sphere,ode-worldstep,SPH-2,onset,6.7,<=,1,FAIL\n");
    put_file("conveyor/peers/claims.csv", HEADER "conveyor,lagged,CONV-1a,f_n,5e-13,<=,1e-06,PASS\n"
                                                 "conveyor,bullet,CONV-1a,f_n,nan,<=,1e-06,FAIL\n");
    CHECK(suite_engines_write(g_root, k_cases, 2, &r, msg, sizeof msg) == 0, "gathered: %s", msg);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/engines.md", g_root);
    char* md = read_regular_text(path, 1 << 20, 0, msg, sizeof msg);
    snprintf(path, sizeof path, "%s/engines.csv", g_root);
    char* csv = read_regular_text(path, 1 << 20, 0, msg, sizeof msg);
    CHECK(md && strstr(md, "| lagged | 2/2 | 1/1 | 3/3 |") != NULL,
          "lagged holds 2 of 2 on the sphere, 1 of 1 on the conveyor:\n%s", md ? md : "");
    CHECK(md && strstr(md, "| ode-worldstep | 1/2 | — | 1/2 |") != NULL,
          "ode-worldstep: 1 of 2, no conveyor run");
    CHECK(md && strstr(md, "| bullet | — | 0/1 | 0/1 |") != NULL, "bullet: a NaN fails");
    CHECK(md && strstr(md, "6.7 FAIL") != NULL && strstr(md, "nan FAIL") != NULL,
          "the values and verdicts in the per-case table");
    CHECK(csv && strncmp(csv, HEADER, strlen(HEADER)) == 0 && strstr(csv, "bullet,CONV-1a"),
          "engines.csv: the header and every row");
    CHECK(r.s && strstr(r.s, "## Engines x claims") != NULL, "the report's section");
    free(md);
    free(csv);
    free(r.s);
    clean();

    /* hostile input */
    put_file("sphere/peers/claims.csv", "case,run,claim,statement,value,op,bound,verdict\r\n");
    refused("CRLF", "the header is not");
    put_file("sphere/peers/claims.csv", HEADER "sphere,lagged,SPH-1,speed,1e-5\n");
    refused("a short line", "line 2 is not 8 fields");
    put_file("sphere/peers/claims.csv", HEADER "sphere,lagged,SPH-1,speed,1e-5,<=,1,PASS,x\n");
    refused("a long line", "line 2 is not 8 fields");
    put_file("sphere/peers/claims.csv", HEADER "sphere,lagged,SPH-1,speed,1e-5,<=,1,MAYBE\n");
    refused("a verdict that is neither", "ending in PASS or FAIL");
    put_file("sphere/peers/claims.csv", "\x01\x02\x03");
    refused("binary", "the header is not");
    {
        strbuf many = {0};
        strbuf_printf(&many, HEADER);
        for (int i = 0; i < 40; ++i) {
            strbuf_printf(&many, "sphere,run%d,SPH-1,speed,1,<=,1,PASS\n", i);
        }
        put_file("sphere/peers/claims.csv", many.s);
        free(many.s);
        refused("40 runs", "more than 32 runs");
    }
    put_file("elsewhere.csv", HEADER);
    snprintf(path, sizeof path, "%s/sphere/peers/claims.csv", g_root);
    char target[PATH_MAX + 32];
    snprintf(target, sizeof target, "%s/elsewhere.csv", g_root);
    mkdir(g_root, 0755);
    put_file("sphere/peers/keep", "");
    CHECK(symlink(target, path) == 0, "symlink");
    refused("a symbolic link", "claims.csv");
    put_file("sphere/peers/keep", ""); /* the link's target went with the clean */
    CHECK(symlink(target, path) == 0, "a dangling symlink");
    refused("a dangling symbolic link", "claims.csv");
    put_file("sphere/peers/keep", "");
    CHECK(mkfifo(path, 0644) == 0, "fifo");
    refused("a FIFO (no wait)", "claims.csv");
    put_file("sphere/peers/claims.csv", HEADER "sphere,lagged,SPH-1,speed,1e-5,<=,1,PASS\n");
    snprintf(path, sizeof path, "%s/engines.md", g_root);
    CHECK(mkdir(path, 0755) == 0, "a directory where engines.md goes");
    r.s = NULL;
    r.n = r.cap = 0;
    CHECK(suite_engines_write(g_root, k_cases, 2, &r, msg, sizeof msg) == -1 &&
              strstr(msg, "engines.md") != NULL,
          "a directory named engines.md is not replaced (%s)", msg);
    free(r.s);
    clean();
    rmdir(g_root);
    return TEST_SUMMARY();
}
