/* study/results_engine.h — the engine's side of the results layer (study/results.h is the
 * case author's): making an output handle, reading back what a study set, and the declared
 * results of one declaration (study/result.c). */
#ifndef CCB_RESULTS_ENGINE_H
#define CCB_RESULTS_ENGINE_H

#include "results.h"

typedef struct metric {
    char name[96];
    double value;
} metric;

/* An output handle for the studies of one case writing below root/case_name (both kept as
 * pointers: they must outlive the handle), figures on. NULL when out of memory. */
study_out* study_out_create(const char* root, const char* case_name);
void study_out_free(study_out* out);
/* Frees every handle still open: for a command that an error ends by unwinding past its study
 * contexts (ccb_cli_main after a usage error), so that nothing it made is left unreachable. Not
 * thread-safe: handles are made and freed by the command's thread, before and after its runs. */
void study_out_free_all(void);
void study_out_set_figures(study_out* out, int on);
int study_out_figures(const study_out* out);
/* Figures that could not be drawn (study_plot), and other warnings of the studies. */
int study_out_warnings(const study_out* out);
/* The message of the handle's first failure (study_fail); for NULL (the handle could not be
 * made) "out of memory"; a failure without a message says it is a bug. clear: forget it. */
const char* study_error(const study_out* out);
void study_out_clear_error(study_out* out);
int study_out_nmetrics(const study_out* out);
const metric* study_out_metric(const study_out* out, int i);
/* The report text so far ("" when none). */
const char* study_out_report(const study_out* out);

/* The declared results of one declaration: its tables (a NULL-name terminated list, or NULL) and
 * its report template (NULL: none). Until study_results_end, study_value, study_row and the
 * others fill them; without a declaration in progress they are ignored. 0, or -1 when out of
 * memory. */
int study_results_begin(study_out* out, const fig_table* tables, const char* report);
/* Writes the tables with a file into dir and appends the rendered template to the report: 0, or
 * non-zero through study_fail with a message naming `what` (case/study). */
int study_results_finish(study_out* out, const char* what, const char* dir);
void study_results_end(study_out* out);
/* The rendering, for the engine and the unit test: a template into text (the declared figures'
 * gnuplot assignments are templates too); one table's rows as CSV. 0, or -1 with the reason in
 * err. */
int study_results_render(const study_out* out, const char* tmpl, strbuf* text, char* err, size_t n);
int study_results_table_csv(const study_out* out, const char* name, strbuf* csv, char* err,
                            size_t n);

#endif
