/* unit.cli — the command line's library calls and its one way of reporting
 * (docs/architecture.md §7), beside the code they test:
 *   - cli_parse, cli_run_config and cli_apply_solver_options return a status and a message and
 *     print nothing (a usage error does not exit);
 *   - cli_error and cli_study_error write the message once, as one "ccb: " line, and return 2;
 *   - ccb_cli_main prints a command's error exactly once (a usage error with its pointer to
 *     --help), and a failing study's message comes from its output handle (study_fail).
 * stderr is captured into a temporary file around each call. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccb/status.h"
#include "cli_internal.h"

static int g_checks, g_failed;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        ++g_checks;                                                                                \
        if (!(cond)) {                                                                             \
            ++g_failed;                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* stderr into a temporary file between capture_begin and capture_end (which returns its text). */
static int g_saved = -1;
static FILE* g_cap;
static void capture_begin(void) {
    fflush(stderr);
    g_cap = tmpfile();
    g_saved = dup(2);
    if (g_cap == NULL || g_saved < 0 || dup2(fileno(g_cap), 2) < 0) {
        fprintf(stderr, "unit.cli: cannot capture stderr\n");
        exit(2);
    }
}
static char g_text[8192];
static const char* capture_end(void) {
    fflush(stderr);
    dup2(g_saved, 2);
    close(g_saved);
    rewind(g_cap);
    const size_t n = fread(g_text, 1, sizeof g_text - 1, g_cap);
    g_text[n] = '\0';
    fclose(g_cap);
    return g_text;
}
static int lines(const char* s) {
    int n = 0;
    for (; *s; ++s) {
        n += *s == '\n';
    }
    return n;
}

static int run_main(char** argv) {
    int argc = 0;
    while (argv[argc]) {
        ++argc;
    }
    return ccb_cli_main(argc, argv);
}

int main(void) {
    char msg[1024];
    opts o;

    /* a valid `ccb run` line parses; a bad option and a bad number return 2 with a message that
     * names them, and nothing is printed */
    char* good[] = {"ccb", "run", "conveyor", "--dt", "0.01", NULL};
    capture_begin();
    int rc = cli_parse(5, good, 2, RUN_OPTS, &o, k_run_help, msg, sizeof msg);
    const char* err = capture_end();
    CHECK(rc == 0 && err[0] == '\0', "a valid line parses silently: %d '%s'", rc, err);
    char* bad_opt[] = {"ccb", "run", "conveyor", "--no-such-option", NULL};
    capture_begin();
    rc = cli_parse(4, bad_opt, 2, RUN_OPTS, &o, k_run_help, msg, sizeof msg);
    err = capture_end();
    CHECK(rc == 2 && strstr(msg, "no-such-option") && err[0] == '\0',
          "an unknown option: 2, named in the message, nothing printed: %d '%s' '%s'", rc, msg,
          err);
    char* bad_num[] = {"ccb", "run", "conveyor", "--dt", "1e", NULL};
    capture_begin();
    rc = cli_parse(5, bad_num, 2, RUN_OPTS, &o, k_run_help, msg, sizeof msg);
    err = capture_end();
    CHECK(rc == 2 && strstr(msg, "--dt") && err[0] == '\0',
          "a malformed number: 2, naming --dt, nothing printed: %d '%s' '%s'", rc, msg, err);
    /* a configuration the parser accepts but the run cannot use: the configuration call says so */
    char* neg[] = {"ccb", "run", "conveyor", "--dt", "-1", NULL};
    run_config cfg;
    capture_begin();
    rc = cli_parse(5, neg, 2, RUN_OPTS, &o, k_run_help, msg, sizeof msg);
    if (rc == 0) {
        rc = cli_run_config(&o, &cfg, msg, sizeof msg);
    }
    err = capture_end();
    CHECK(rc == 2 && strstr(msg, "dt") && err[0] == '\0',
          "--dt -1: 2 with a message naming dt, nothing printed: %d '%s' '%s'", rc, msg, err);

    /* cli_error: one "ccb: " line, exit status 2 */
    capture_begin();
    rc = cli_error("something named %s went wrong", "X");
    err = capture_end();
    CHECK(rc == EXIT_USAGE && strcmp(err, "ccb: something named X went wrong\n") == 0,
          "cli_error writes one line and returns 2: %d '%s'", rc, err);
    /* cli_study_error: the study's first failure, once */
    study_ctx ctx;
    CHECK(study_ctx_init(&ctx, case_get(0), "/nonexistent-root") == 0, "a study context");
    study_fail(ctx.out, CCB_E_IO, "first failure");
    study_fail(ctx.out, CCB_E_INVALID, "second failure");
    capture_begin();
    rc = cli_study_error(&ctx);
    err = capture_end();
    CHECK(rc == EXIT_USAGE && strcmp(err, "ccb: first failure\n") == 0,
          "cli_study_error prints the first failure only: %d '%s'", rc, err);
    study_ctx_free(&ctx);

    /* ccb_cli_main: a usage error is one message and the pointer to --help; a command that fails
     * after parsing prints its error once */
    char* unknown_case[] = {"ccb", "run", "nosuchcase", NULL};
    capture_begin();
    rc = run_main(unknown_case);
    err = capture_end();
    CHECK(rc == EXIT_USAGE && strncmp(err, "ccb: ", 5) == 0 && strstr(err, "nosuchcase") &&
              strstr(err, "(see ccb --help)") && lines(err) == 2,
          "a usage error: 2, the message and the --help line: %d '%s'", rc, err);
    char tmpl[] = "/tmp/ccb-unit-cli-XXXXXX";
    char* dir = mkdtemp(tmpl);
    CHECK(dir != NULL, "a temporary directory");
    char from[PATH_MAX];
    snprintf(from, sizeof from, "%s/empty", dir ? dir : "/tmp");
    char* argv_from[] = {"ccb", "study", "conveyor", "fig3", "--no-figures", "--from", from, NULL};
    capture_begin();
    rc = run_main(argv_from); /* --from a directory that does not exist: refused input */
    err = capture_end();
    CHECK(rc == EXIT_USAGE && lines(err) == 2 && strstr(err, "not a directory"),
          "study --from a missing directory: 2 and one message: %d '%s'", rc, err);
    if (dir) {
        snprintf(from, sizeof from, "mkdir %s/empty", dir);
        CHECK(system(from) == 0, "mkdir");
        snprintf(from, sizeof from, "%s/empty", dir);
        capture_begin();
        rc = run_main(argv_from); /* an existing directory where nothing ran: a study failure */
        err = capture_end();
        CHECK(rc == EXIT_USAGE && lines(err) == 1 && strstr(err, "was the run executed"),
              "study --from where nothing ran: 2 and its message exactly once: %d '%s'", rc, err);
        snprintf(from, sizeof from, "rm -rf %s", dir);
        (void)system(from);
    }

    printf("unit.cli: %d checks, %d failed\n", g_checks, g_failed);
    return g_failed ? 1 : 0;
}
