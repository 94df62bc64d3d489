/* study/results.h — what a study hands back: the results layer beneath the cases
 * (docs/architecture.md §2). This is the header a case author reads first.
 *
 * A study's callbacks (a declaration's row, inspect and finish, a case study's run) receive an
 * opaque output handle, study_out, and set through it
 *   - metrics: the numbers the gates of reference/CASE.json read (study_set_metric);
 *   - values and texts the report template quotes (study_value, study_text);
 *   - the rows of the tables the declaration lists (study_row, study_num, study_str, ...);
 *   - report text of its own (study_report), files and figures in the case's directory.
 * After the finish the engine writes each declared table with a file as CSV and renders the
 * declaration's report template (study/result.c has the template's syntax). A row of an
 * undeclared table, or a placeholder that names nothing set, fails the study with a message.
 *
 * The results layer depends on nothing of the engine or of the cases (study/result.c includes
 * only this header, results_engine.h, strbuf.h and output.h; CI/check_layers.pl checks it). */
#ifndef CCB_RESULTS_H
#define CCB_RESULTS_H

#include <stdarg.h>
#include <stddef.h>

#include "log.h"
#include "strbuf.h"

typedef struct study_out study_out;

/* A table of a declaration's results: the finish adds its rows as values (study_row, study_num,
 * study_str, study_blank); the engine writes it to the study's directory as CSV and the report
 * template shows it as markdown ({table:NAME}). Formats are printf conversions of one value each
 * ('d' or 'i' for counts, 'e' 'f' 'g' for numbers, 's' for texts), separated by '|', one per
 * column; the last one repeats. */
typedef struct fig_table {
    const char* name;     /* what study_row and {table:NAME} call it */
    const char* file;     /* CSV file in the study's directory; NULL: only in the report */
    const char* header;   /* CSV header (column names with units); NULL: study_table_header */
    const char* cells;    /* the CSV cells' formats; NULL: "%.6g" */
    const char* md;       /* markdown header lines ("| a | b |\n|---|---|\n"); NULL: no markdown */
    const char* md_cells; /* the markdown cells' formats; NULL: cells */
    const char* md_nonfinite; /* markdown text of a number that is not finite ("n/a"); NULL:
                                 the format's ("nan") */
} fig_table;

/* ---- failing ---- */
/* A study that cannot make its results fails through its handle: study_fail keeps the message
 * (printf-style; the first failure's, later ones are dropped) and returns `code`, which the
 * callback returns; the engine passes it up and the command prints the message once (output.h,
 * docs/architecture.md §7). code: a ccb_status (CCB_E_IO, CCB_E_NOMEM, CCB_E_INVALID, ...);
 * 0 is taken as CCB_E_INTERNAL. A run's solver failure is not a failure of the study: the run
 * records it (and the engine counts it). Not from the runs' worker threads. */
int study_fail(study_out* out, int code, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- metrics: what the gates read ---- */
void study_set_metric(study_out* out, const char* name, double value);
/* study_set_metric with a printf-style name, e.g. ("fig3.%s.order", model). */
void study_set_metricf(study_out* out, double value, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The metric `name` (out is a study_out*; the signature is the gates' metric source): 0, or -1
 * if it was not set. */
int study_get_metric(void* out, const char* name, double* value);

/* ---- values, texts and table rows: what the report template quotes ---- */
void study_value(study_out* out, const char* name, double v);
void study_valuef(study_out* out, double v, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
void study_text(study_out* out, const char* name, const char* text);
void study_row(study_out* out, const char* table); /* starts a row */
void study_num(study_out* out, const char* table, double v);
void study_nums(study_out* out, const char* table, const double* v, size_t n); /* n cells */
void study_str(study_out* out, const char* table, const char* s);
void study_blank(study_out* out, const char* table); /* an empty cell */
/* The CSV header of a table whose columns the run decides (e.g. one per step), and its markdown
 * header lines. */
void study_table_header(study_out* out, const char* table, const char* header);
void study_table_md(study_out* out, const char* table, const char* md);
int study_table_rows(study_out* out, const char* table);

/* ---- free text, files and figures ---- */
/* Appends to the study's report section (markdown). */
void study_report(study_out* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* Directory <out_root>/<case>/<sub> (created): 0, or CCB_E_IO through study_fail. */
int study_dir(study_out* out, const char* sub, char* path, size_t n);
/* Draws <out_root>/<case>/<name>.png and .svg with analysis/gnuplot/<script>, reading datadir;
 * `vars` are constant gnuplot assignments (names, titles, numbers: ccb_an_gp_check_vars) — no
 * path: datadir and the output are quoted by ccb_an_plot, which also replaces the figures
 * atomically. A failure is said (study_log) and counted as a warning of the study, which the
 * command reports as an output error at its end. No-op if figures are off. */
void study_plot(study_out* out, const char* script, const char* datadir, const char* name,
                const char* vars);
/* Writes `body` under `header` to path atomically; 0, or CCB_E_IO / CCB_E_NOMEM through
 * study_fail. */
int study_write_table(study_out* out, const char* path, const char* header, const char* body);

#endif
