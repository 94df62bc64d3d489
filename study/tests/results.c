/* unit.results: a declaration's results as values (study/result.c). The report template and the
 * tables are rendered from values alone, with the declared formats; a template or a row that
 * names nothing declared or set fails with a message that names it, and nothing is written. The
 * results layer is tested alone: this program includes only its header (results_engine.h) and
 * makes no study context, no run and no case. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccb/status.h"
#include "results_engine.h"

static int g_fail = 0, g_pass = 0;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            ++g_pass;                                                                              \
        } else {                                                                                   \
            ++g_fail;                                                                              \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static const fig_table k_tables[] = {{.name = "runs",
                                      .file = "runs.csv",
                                      .header = "model,steps,error [m],e1,e2",
                                      .cells = "%s|%d|%.3e|%.6g",
                                      .md = "| model | steps | error [m] |\n|---|---|---|\n",
                                      .md_cells = "%s|%d|%.2g"},
                                     {.name = "free", .file = "free.csv", .cells = "%.6g"},
                                     {.name = "mdonly", .md = "| a |\n|---|\n", .cells = "%g"},
                                     {.name = NULL}};

static const struct {
    const fig_table* tables;
    const char* report;
} k_decl = {.tables = k_tables,
            .report = "Value {x|%.3f}, metric {m.order|%.2f}, default {x}, count {n|%d}, text "
                      "{text:verdict}, braces {{literal}}.\n\n{table:runs}end\n"};

/* the rendered template, or NULL with the error in err */
static char* render(study_out* o, const char* tmpl, char* err, size_t n) {
    strbuf out = {0};
    if (study_results_render(o, tmpl, &out, err, n) != 0) {
        free(out.s);
        return NULL;
    }
    return out.s ? out.s : strdup("");
}

static char* read_all(const char* path) {
    FILE* f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    static char buf[4096];
    const size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = '\0';
    return buf;
}

int main(void) {
    char root[512]; /* in $TMPDIR, else /tmp (.ci/run checks that tests leave nothing there) */
    const char* td = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/ccb_results_XXXXXX", td != NULL && td[0] != '\0' ? td : "/tmp");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    study_out* out = study_out_create(root, "case");
    if (out == NULL) {
        fprintf(stderr, "study_out_create failed\n");
        return 1;
    }
    CHECK(study_results_begin(out, k_decl.tables, k_decl.report) == 0, "begin");
    study_set_metric(out, "m.order", 1.0049);
    study_value(out, "x", 0.123456);
    study_value(out, "n", 42);
    study_text(out, "verdict", "holds");
    study_row(out, "runs");
    study_str(out, "runs", "sap");
    study_num(out, "runs", 120);
    study_num(out, "runs", 2.5e-4);
    study_num(out, "runs", 1.0 / 3.0);
    study_num(out, "runs", 2.0 / 3.0); /* the last format repeats */
    study_row(out, "runs");
    study_str(out, "runs", "lagged");
    study_num(out, "runs", 60);
    study_blank(out, "runs"); /* a quantity not measured */
    CHECK(study_table_rows(out, "runs") == 2, "two rows");

    char err[600] = "";
    char* text = render(out, k_decl.report, err, sizeof err);
    const char* want = "Value 0.123, metric 1.00, default 0.123456, count 42, text holds, braces "
                       "{literal}.\n\n| model | steps | error [m] |\n|---|---|---|\n"
                       "| sap | 120 | 0.00025 | 0.33 | 0.67 |\n| lagged | 60 |  |\nend\n";
    CHECK(text && strcmp(text, want) == 0, "template rendered:\n%s\nwanted:\n%s\n(%s)",
          text ? text : "(null)", want, err);
    free(text);

    strbuf csv = {0};
    CHECK(study_results_table_csv(out, "runs", &csv, err, sizeof err) == 0 && csv.s &&
              strcmp(csv.s, "sap,120,2.500e-04,0.333333,0.666667\nlagged,60,\n") == 0,
          "CSV cells with the declared formats: %s", csv.s ? csv.s : err);
    free(csv.s);

    /* conditional blocks: shown only when their name was set; nestable */
    text = render(out, "a{?x}b{?nosuch}c{nosuch}{/}d{/}e{?nosuch}f{?x}g{/}{/}h", err, sizeof err);
    CHECK(text && strcmp(text, "abdeh") == 0, "conditional blocks: %s (%s)", text ? text : "", err);
    free(text);
    text = render(out, "{?x}open", err, sizeof err);
    CHECK(text == NULL && strstr(err, "{/}"), "an open block: %s", err);
    text = render(out, "close{/}", err, sizeof err);
    CHECK(text == NULL && strstr(err, "{/}"), "a lone close: %s", err);

    /* errors name what is missing */
    text = render(out, "{nosuch|%.2f}", err, sizeof err);
    CHECK(text == NULL && strstr(err, "'nosuch'"), "unknown value: %s", err);
    text = render(out, "{text:nosuch}", err, sizeof err);
    CHECK(text == NULL && strstr(err, "'nosuch'"), "unknown text: %s", err);
    text = render(out, "{table:nosuch}", err, sizeof err);
    CHECK(text == NULL && strstr(err, "'nosuch'"), "unknown table: %s", err);
    text = render(out, "{x|%s}", err, sizeof err);
    CHECK(text == NULL && strstr(err, "numeric"), "a number with %%s: %s", err);
    text = render(out, "{x|%.2f", err, sizeof err);
    CHECK(text == NULL && strstr(err, "unterminated"), "unterminated placeholder: %s", err);
    text = render(out, "a } b", err, sizeof err);
    CHECK(text == NULL && strstr(err, "'}'"), "lone brace: %s", err);
    text = render(out, "{x|%d}", err, sizeof err);
    CHECK(text == NULL && strstr(err, "non-integer"), "%%d of 0.123456: %s", err);
    text = render(out, "{table:free}", err, sizeof err);
    CHECK(text == NULL && strstr(err, "markdown"), "a table without md: %s", err);

    /* the engine writes the tables with a file; a header set at run time */
    study_row(out, "free");
    study_num(out, "free", 1.5);
    study_num(out, "free", NAN);
    study_table_header(out, "free", "a,b");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/study", root);
    mkdir(dir, 0755);
    CHECK(study_results_finish(out, "case/study", dir) == 0, "finish");
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    const char* f = read_all(path);
    CHECK(f && strcmp(f, "model,steps,error [m],e1,e2\nsap,120,2.500e-04,0.333333,0.666667\n"
                         "lagged,60,\n") == 0,
          "runs.csv: %s", f ? f : "(missing)");
    snprintf(path, sizeof path, "%s/free.csv", dir);
    f = read_all(path);
    CHECK(f && strcmp(f, "a,b\n1.5,nan\n") == 0, "free.csv: %s", f ? f : "(missing)");
    CHECK(strstr(study_out_report(out), "Value 0.123, metric 1.00"), "report appended");

    /* a row of an undeclared table fails the study at its end, with the name, writing nothing */
    study_results_end(out);
    CHECK(study_results_begin(out, k_decl.tables, k_decl.report) == 0, "begin");
    study_row(out, "undeclared");
    study_num(out, "undeclared", 1);
    snprintf(dir, sizeof dir, "%s/study2", root);
    mkdir(dir, 0755);
    CHECK(study_results_finish(out, "case/study2", dir) != 0, "undeclared table fails the study");
    CHECK(strstr(study_error(out), "case/study2") && strstr(study_error(out), "undeclared"),
          "the failure is kept in the handle, naming the study and the table: %s",
          study_error(out));
    /* the first failure is the one kept (docs/architecture.md §7); clearing forgets it */
    CHECK(study_fail(out, CCB_E_IO, "a later failure") == CCB_E_IO &&
              strstr(study_error(out), "undeclared"),
          "a later study_fail returns its code and keeps the first message: %s", study_error(out));
    study_out_clear_error(out);
    CHECK(strstr(study_error(out), "a bug in ccb"),
          "a failure without a message says it is a bug: %s", study_error(out));
    CHECK(study_fail(out, 0, "code 0") == CCB_E_INTERNAL, "code 0 is taken as internal");
    study_out_clear_error(out);
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    CHECK(access(path, F_OK) != 0, "nothing written after a misuse");
    /* a number with a text format */
    study_results_end(out);
    CHECK(study_results_begin(out, k_decl.tables, k_decl.report) == 0, "begin");
    study_row(out, "runs");
    study_num(out, "runs", 3);
    strbuf bad = {0};
    CHECK(study_results_table_csv(out, "runs", &bad, err, sizeof err) != 0 && strstr(err, "'%s'"),
          "a number in a text column: %s", err);
    free(bad.s);

    study_out_free(out);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) {
        fprintf(stderr, "could not remove %s\n", root);
    }
    printf("unit.results: %d checks, %d failed\n", g_pass + g_fail, g_fail);
    return g_fail ? 1 : 0;
}
